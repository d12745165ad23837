#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-api-docs.sh SRCDIR LIBFRING_SO: every symbol libfring.so exports
# (src/fring.map: fring_*) is documented in include/fring/ (fring.h and its
# parts), and
# doxygen reads the header without a warning (undocumented struct member,
# macro, enum value or parameter; a broken doc command). Runs doxygen with
# doc/Doxyfile, XML instead of HTML, into a scratch directory.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
src=$(realpath "$1")
lib=$2
command -v doxygen >/dev/null ||
	skip "doxygen not installed (scripts/setup-deps.sh installs it)"
tmp=$(mktemp -d /tmp/fring-apidocs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

{
	cat "$src/doc/Doxyfile"
	echo "GENERATE_HTML = NO"
	echo "GENERATE_XML = YES"
	echo "WARN_LOGFILE = $tmp/warnings"
} | FRING_SRCDIR=$src FRING_DOCS_OUT=$tmp FRING_VERSION=check doxygen - >/dev/null
if [[ -s $tmp/warnings ]]; then
	fail doxygen_warnings "$(cat "$tmp/warnings")"
else
	ok doxygen_warnings
fi

nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ && $3 ~ /^fring_/ {sub(/@.*/, "", $3); print $3}' |
	sort -u >"$tmp/exported"
if [[ ! -s $tmp/exported ]]; then
	fail exported_symbols "nm found no fring_* symbol in $lib"
fi
# Names of the header's functions doxygen has a description for: a <para>
# in the brief or detailed description of a function's memberdef.
awk '/<memberdef kind="function"/ { fn = 1; name = ""; doc = 0 }
	fn && name == "" && /<name>/ { name = $0; gsub(/.*<name>|<\/name>.*/, "", name) }
	fn && /<para>/ { doc = 1 }
	/<\/memberdef>/ { if (fn && doc) print name; fn = 0 }' \
	"$tmp"/xml/*.xml >"$tmp/documented"
while read -r sym; do
	if grep -qx "$sym" "$tmp/documented"; then
		ok "documented.$sym"
	else
		fail "documented.$sym" "exported but without a doc comment in include/fring/*.h"
	fi
done <"$tmp/exported"
check_done
