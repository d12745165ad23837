#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# uring-queues.sh FSEXE
#
# Proves the io_uring transport served the traffic: mounts FSEXE with
# transport=uring, drives every online CPU with `taskset` (the kernel routes a
# request to the queue of the CPU its caller runs on), unmounts and checks the
# stats: transport "uring", one queue per possible CPU, every queue with
# registered ring entries, and ring requests on the queue of every driven CPU.
set -euo pipefail
FS=${1:?usage: uring-queues.sh FSEXE}
no_skip=${FRING_E2E_NO_SKIP:-0}
skip() {
	echo "SKIP: $*"
	[[ $no_skip == 1 ]] && { echo "FRING_E2E_NO_SKIP=1: a skip counts as a failure"; exit 1; }
	exit 77
}
[[ $(id -u) == 0 ]] || skip "needs root"
PARAM=/sys/module/fuse/parameters/enable_uring
[[ -w $PARAM ]] || skip "no $PARAM: this kernel has no FUSE-over-io_uring"

TMP=$(mktemp -d /tmp/fring-uq.XXXXXX)
MNT=$TMP/mnt
mkdir "$MNT"
old=$(cat "$PARAM")
pid=
cleanup() {
	set +e
	mountpoint -q "$MNT" && { umount "$MNT" || umount -l "$MNT"; }
	[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
	echo "$old" >"$PARAM"
	rm -rf "$TMP"
}
trap cleanup EXIT
echo Y >"$PARAM"

"$FS" -f -o transport=uring --stats-file="$TMP/stats.json" "$MNT" >"$TMP/log" 2>&1 &
pid=$!
for _ in $(seq 200); do
	awk -v m="$MNT" '$5 == m {f=1} END {exit !f}' /proc/self/mountinfo && break
	sleep 0.05
done

ncpu=$(nproc)
for ((c = 0; c < ncpu; c++)); do
	taskset -c "$c" sh -c "for i in 1 2 3 4 5; do echo cpu$c-\$i > '$MNT/f$c'; cat '$MNT/f$c' >/dev/null; done; ls -la '$MNT' >/dev/null"
done
umount "$MNT"
wait "$pid"
pid=

python3 - "$TMP/stats.json" "$ncpu" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ncpu = int(sys.argv[2])
possible = 0
for part in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    a, _, b = part.partition("-")
    possible += int(b or a) - int(a) + 1
passed = failed = 0
def check(name, ok, detail):
    global passed, failed
    if ok:
        passed += 1; print("ok", name)
    else:
        failed += 1; print("FAIL", name + ":", detail)
check("transport_uring", s["transport"] == "uring", "got " + s["transport"])
q = s["per_queue"]
check("one_queue_per_possible_cpu", len(q) == possible, f"expected {possible} got {len(q)}")
for i, e in enumerate(q):
    check(f"queue{i}_registered", e.get("ring_entries", 0) > 0, f"ring_entries {e.get('ring_entries')}")
    if i < ncpu:
        check(f"queue{i}_served", e["requests"] > 0, f"requests {e['requests']}")
side = s.get("side_channel", {})
print(f"# totals: requests {s['requests']}, side channel {side.get('requests')}, reason: {s.get('transport_reason')}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
