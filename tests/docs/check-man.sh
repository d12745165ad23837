#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-man.sh SRCDIR: the man pages in doc/man format without a warning
# (groff -ww, and man --warnings at 80 columns when man-db is there), and
# the pages that list libfring's -o options (fring_main.3, memfs.1) name
# every option src/opts.c accepts, and every function of the public header
# is named by a page.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
src=$(realpath "$1")
command -v groff >/dev/null ||
	skip "groff not installed (package groff-base; scripts/setup-deps.sh installs it)"

for page in "$src"/doc/man/*.[0-9]; do
	name=$(basename "$page")
	err=$(groff -man -ww -z "$page" 2>&1 >/dev/null)
	if [[ -z $err ]] && command -v man >/dev/null; then
		err=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	fi
	[[ -z $err ]] && ok "format.$name" || fail "format.$name" "$err"
done

keys=$(sed -n 's/.*strcmp(key, "\([a-z_]*\)").*/\1/p' "$src/src/opts.c" | sort -u)
[[ -n $keys ]] || fail options "no option found in src/opts.c"
for page in fring_main.3 memfs.1; do
	missing=
	for k in $keys; do
		grep -Eq "^\.B[IR]? (.* )?\"?$k(=| |\"|$)" "$src/doc/man/$page" || missing+=" $k"
	done
	[[ -z $missing ]] && ok "options.$page" || fail "options.$page" "not described:$missing"
done
# every function of the public header has a page: its NAME section lists it
# (doc/meson.build links the name to the page)
names=$(for page in "$src"/doc/man/*.3; do
	sed -n '/^\.SH NAME/,/^\.SH /p' "$page"
done | grep -oE 'fring_[a-z0-9_]+' | sort -u)
funcs=$(cat "$src"/include/fring/*.h | grep -E '^[a-z][a-z0-9_ ]*[ *]fring_[a-z0-9_]+\(' |
	sed -E 's/^[^(]*[ *](fring_[a-z0-9_]+)\(.*/\1/' | sort -u)
[[ -n $funcs ]] || fail functions "no function found in include/fring/*.h"
missing=$(comm -23 <(echo "$funcs") <(echo "$names") | tr '\n' ' ')
[[ -z $missing ]] && ok "functions_have_pages" ||
	fail functions_have_pages "no man page names: $missing"
check_done
