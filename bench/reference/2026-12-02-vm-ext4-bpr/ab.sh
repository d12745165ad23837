#!/usr/bin/env bash
# ab.sh REPO BUILD OUT: the one-boot A/B of ab-jobs.sh (BUILD/exp must exist)
set -euo pipefail
ROOT=$1 BUILD=$2 OUT=$3 HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
{ date -Is; uptime; qemu-system-x86_64 --version | head -1; git -C "$ROOT" describe --always --dirty; } >"$OUT/env.txt"
(while :; do echo "$(date +%T) $(cat /proc/loadavg)"; sleep 30; done) >"$OUT/load.txt" &
s=$!
DISK=$OUT/store-ext4.img
truncate -s 1G "$DISK"
mkfs.ext4 -q -F -L fring-bench -E lazy_itable_init=0,lazy_journal_init=0 "$DISK"
rc=0
env AB_BENCH="$ROOT/bench" AB_REPS="${AB_REPS:-4}" FRING_VM_JOBS="$HERE/ab-jobs.sh" FRING_VM_GUESTS=1 \
	FRING_VM_EXTRA_BINS="/usr/bin/fio $ROOT/bench/vm-guest.sh" FRING_VM_DISK="$DISK" \
	FRING_VM_JOB_TIMEOUT=300 FRING_VM_TIMEOUT=3000 FRING_E2E_NO_SKIP=0 FRING_VM_OUTDIR="$OUT/vm" \
	"$ROOT/tests/vm/run-vm.sh" "$BUILD" >"$OUT/run-vm.txt" 2>&1 || rc=$?
kill $s
rm -f "$DISK"
{ date -Is; uptime; echo "run-vm rc $rc"; } >>"$OUT/env.txt"
gzip -c "$OUT/vm/guest.log" >"$OUT/guest.log.gz"
