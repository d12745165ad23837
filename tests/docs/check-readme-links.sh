#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-readme-links.sh SRCDIR: README.md lists every doc/*.md, and every
# repository path it names in backquotes (doc/, examples/, include/,
# tools/, scripts/, tests/, bench/) exists.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
src=$(realpath "$1")

for f in "$src"/doc/*.md; do
	name=doc/$(basename "$f")
	grep -qF "\`$name\`" "$src/README.md" && ok "listed.$name" ||
		fail "listed.$name" "README.md does not list it"
done
while read -r path; do
	[[ -e $src/$path ]] && ok "exists.$path" ||
		fail "exists.$path" "README.md names it, it does not exist"
done < <(grep -oE '`(doc|examples|include|tools|scripts|tests|bench)/[^` ]+`' \
	"$src/README.md" | tr -d '`' | sort -u)
check_done
