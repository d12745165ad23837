#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# passthrough-hp-check.sh MNT TEST [ARGS...]
#
# The test run-suite.sh runs in a passthrough_hp mount (passthrough-hp.sh):
# first the mount is passthrough_hp's (/proc/mounts: MNT, type fuse, its
# source directory as fsname; nothing is written otherwise), then 4 MiB of random
# bytes written with O_DIRECT in 1 MiB requests, the caches dropped, and
# read back with O_DIRECT byte for byte (the data passes the daemon both
# ways), then "TEST MNT ARGS..." (fsx). Prints one summary line for its
# checks and TEST's together; exits 1 if either failed, else TEST's status.
# bash, busybox dd and cmp: it runs in the vm tier's guest.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
[[ $# -ge 2 ]] || { echo "usage: $0 MNT TEST [ARGS...]" >&2; exit 1; }
MNT=$1 TEST=$2
shift 2

# passthrough_hp mounts as type fuse (no subtype: it does not call
# fuse_parse_cmdline(), with libfuse as here) with its source as fsname
# (no process substitution: the guest has no /dev/fd)
read -r fsname type <<<"$(awk -v m="$MNT" '$2 == m { f = $1; t = $3 } END { print f, t }' /proc/mounts)"
if [[ $type == fuse && -d $fsname ]]; then
	ok hp.mounted
	tmp=$(mktemp -d /tmp/fring-hp-check.XXXXXX)
	head -c 4194304 /dev/urandom >"$tmp/data"
	if dd if="$tmp/data" of="$MNT/hp-data" bs=1M oflag=direct 2>"$tmp/err"; then
		sync
		echo 3 >/proc/sys/vm/drop_caches
		dd if="$MNT/hp-data" of="$tmp/back" bs=1M iflag=direct 2>"$tmp/err"
		check hp.direct_4MiB "the 4 MiB read back with O_DIRECT differ from those written" \
			cmp -s "$tmp/data" "$tmp/back"
	else
		fail hp.direct_4MiB "O_DIRECT write failed: $(cat "$tmp/err")"
	fi
	rm -rf "$tmp"
else
	fail hp.mounted "expected $MNT in /proc/mounts as type fuse from a source directory got '${fsname:-} ${type:-nothing}'"
fi

out=$(mktemp /tmp/fring-hp-check-out.XXXXXX)
"$TEST" "$MNT" "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$out" | tail -n 1 || true)
rm -f "$out"
if [[ -n $line ]]; then
	read -r t_pass _ t_fail _ t_skip _ <<<"${line//,/}"
	passed=$((passed + t_pass)) failed=$((failed + t_fail)) skipped=$((skipped + ${t_skip:-0}))
elif [[ $rc != 0 ]]; then
	fail hp.test "expected $TEST to exit 0 got $rc"
fi
check_summary
((failed == 0)) || exit 1
exit "$rc"
