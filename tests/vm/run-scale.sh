#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-scale.sh BUILDDIR
#
# The scale guest: run-vm.sh with the 7.3 kernel on qemu "-smp 64" and
# "maxcpus=2" on the kernel command line, so the guest has 64 possible CPUs
# (the kernel's FUSE queues) and 2 online (the ring threads' work), and the
# job list jobs-scale.sh (one memfs mount per rung, guest-scale.sh). Then a
# table of what each mount cost, from the guest's @@FRING-SCALE lines.
# Files in BUILDDIR/tests/vm/scale/.
# Environment: FRING_SCALE_POSSIBLE (64) and FRING_SCALE_ONLINE (2) CPUs;
# FRING_VM_SCALE_COMPARE, another build to measure beside this one;
# FRING_VM_SCALE_LIBFUSE, a passthrough_hp to measure beside (jobs-scale.sh);
# and run-vm.sh's own (FRING_VM_ONLY, FRING_VM_KERNEL, ...).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -eq 1 ]] || { echo "usage: $0 BUILDDIR" >&2; exit 1; }
BUILD=$(realpath "$1")
OUT=$BUILD/tests/vm/scale
mkdir -p "$OUT"
export FRING_SCALE_POSSIBLE=${FRING_SCALE_POSSIBLE:-64}
rc=0
FRING_VM_SMP=$FRING_SCALE_POSSIBLE FRING_VM_APPEND="maxcpus=${FRING_SCALE_ONLINE:-2}" \
	FRING_VM_JOBS="$HERE/jobs-scale.sh" FRING_VM_GUESTS=1 FRING_VM_OUTDIR="$OUT" \
	FRING_VM_TIMEOUT=${FRING_VM_TIMEOUT:-600} FRING_VM_RETRY_TIMEOUT=${FRING_VM_RETRY_TIMEOUT:-300} \
	"$HERE/run-vm.sh" "$BUILD" || rc=$?

# the table: one row per mount
echo "# | rung | build | possible/online CPUs | mount line (s) | first answer (s) | threads | VmRSS (MiB) | VmPin (MiB) | VmLck (MiB) | VmHWM (MiB) | queues | ring entries | pool_waits | CPU online (s) |"
echo "# |---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
sed -n 's/.*@@FRING-SCALE \(.*\)@@.*/\1/p' "$OUT/guest.log" "$OUT/retry.log" 2>/dev/null |
	awk '{
		delete v
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		mib = "rss_kib pin_kib lck_kib hwm_kib"
		split(mib, ks, " ")
		for (j in ks) { k = ks[j]; m[k] = (v[k] ~ /^[0-9]+$/) ? sprintf("%.1f", v[k] / 1024) : "-" }
		printf "# | %s | %s | %s/%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			v["rung"], v["build"], v["possible"], v["online"], v["mount_s"], v["ready_s"], v["threads"],
			m["rss_kib"], m["pin_kib"], m["lck_kib"], m["hwm_kib"], v["queues"], v["entries"],
			v["pool_waits"], v["hotplug_s"]
	}'
exit "$rc"
