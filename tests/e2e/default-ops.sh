#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# default-ops.sh HELLO TRANSPORT: a server without flush, fsync and fsyncdir
# (examples/hello) answers them ENOSYS; the kernel takes that as success
# and sends each of them once on the connection, not once per call. Checks
# that close(2), fsync(2) of a file and of a directory all succeed several
# times, and that the daemon's stats count exactly one FLUSH, FSYNC and
# FSYNCDIR (a library answering success would count one per call).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
exe=$(realpath "$1")
transport=$2
[[ $(id -u) == 0 && -c /dev/fuse ]] || skip "needs root and /dev/fuse"
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/fring-default-ops.XXXXXX)
MNT=$work/mnt T=${FRING_E2E_WAIT:-30} # (seconds: polled, generous for a loaded machine)
# shellcheck source-path=SCRIPTDIR source=mount-lib.sh
source "$here/mount-lib.sh"
# shellcheck source-path=SCRIPTDIR source=stats.sh
source "$here/stats.sh"
mkdir "$MNT"
pid=
trap '[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null; umount -l "$MNT" 2>/dev/null; rm -rf "$work"' EXIT

"$exe" -f -o "transport=$transport" --stats-file="$work/stats.json" "$MNT" 2>"$work/log" &
pid=$!
mount_wait "$pid" || { echo "FAIL mount: not mounted after $T s: $(cat "$work/log")"; exit 1; }

for i in 1 2 3 4 5; do
	got=$(timeout 20 cat "$MNT/hello")
	[[ $got == "Hello from libfring!" ]] || fail "close.$i" "cat gave '$got'"
done
for i in 1 2 3; do
	timeout 20 sync "$MNT/hello" || fail "fsync.$i" "sync FILE failed"
	timeout 20 sync "$MNT" || fail "fsyncdir.$i" "sync DIR failed"
done
((failed == 0)) && ok calls_succeed

timeout -k 2 "$T" umount "$MNT" || fail unmount "umount failed (or took over $T s)"
if gone "$pid"; then
	wait "$pid"
	pid=
else
	fail exit "daemon still running $T s after the unmount"
fi
for op in FLUSH FSYNC FSYNCDIR; do
	n=$(stats_get "$work/stats.json" "by_opcode.$op")
	[[ $n == 1 ]] && ok "once.$op" || fail "once.$op" "expected 1 $op request, got $n"
done
n=$(stats_get "$work/stats.json" transport)
[[ $n == "$transport" ]] && ok transport || fail transport "stats say '$n'"
((failed == 0)) || { echo "daemon log:"; cat "$work/log"; }
check_done
