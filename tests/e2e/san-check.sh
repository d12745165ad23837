#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# san-check.sh CMD [ARGS...]: the exe_wrapper of the `sanitize` test setup
# (tests/meson.build). Runs CMD with the reports of the sanitizers of every
# process it starts, daemons in the background included, written to a fresh
# directory (log_path); any report there fails the test and is printed.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
dir=$(mktemp -d /tmp/fring-san.XXXXXX)
# posix_suite's children that run as nobody report there too
chmod 1777 "$dir"
for v in ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; do
	export "$v=${!v:+${!v}:}log_path=$dir/report"
done
"$@"
rc=$?
n=0
for f in "$dir"/report*; do
	[[ -e $f ]] || continue
	n=$((n + 1))
	echo "FAIL sanitizer: report ${f##*/}:"
	cat "$f"
done
rm -rf "$dir"
if ((n > 0)); then
	echo "san-check: $n sanitizer report(s)"
	exit 1
fi
echo "# san-check: no sanitizer report"
exit_status "$rc"
