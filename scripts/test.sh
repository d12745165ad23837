#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what it needs, builds
# with gcc (and checks that clang builds it warning-free), runs every tier
# (the fuzz tier from the clang build).
# Run as root: the e2e tier mounts filesystems. A skipped tier fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh

export FRING_E2E_NO_SKIP=1
builddir=${FRING_BUILDDIR:-build}
[ -f "$builddir/build.ninja" ] || meson setup "$builddir"
ninja -C "$builddir"

# The vm tier (qemu guests: the 7.3 kernel, then the 6.1/6.12 matrix) runs
# beside the other tiers: it needs nothing of the host's FUSE state, and the
# host tiers mostly wait on FUSE round trips, so the two share the CPUs
# better than they take turns. It starts as soon as the gcc build is there,
# while clang builds; its own log base keeps the two meson runs from writing
# the same testlog.
vmlog=$builddir/meson-logs/vm.out
meson test -C "$builddir" --no-rebuild --suite vm --logbase vmlog \
	--print-errorlogs --num-processes 1 >"$vmlog" 2>&1 &
vm_pid=$!
trap 'kill "$vm_pid" 2>/dev/null' EXIT

# clang must build everything warning-free too (-Werror is on).
clangdir=${builddir}-clang
[ -f "$clangdir/build.ninja" ] || CC=clang meson setup "$clangdir" >/dev/null
ninja -C "$clangdir" >/dev/null

rc=0
meson test -C "$builddir" --no-rebuild --no-suite vm --print-errorlogs \
	--num-processes 1 || rc=$?
# The fuzz tier needs clang's libFuzzer: from the clang build, a bounded run
# of each target over the committed corpus (doc/reliability.md).
FRING_FUZZ_SECONDS=${FRING_FUZZ_SECONDS:-45} meson test -C "$clangdir" \
	--suite fuzz --print-errorlogs --num-processes 1 || rc=$?
vm_rc=0
wait "$vm_pid" || vm_rc=$?
trap - EXIT
echo "=== the vm tier (run beside the others): $vmlog"
cat "$vmlog"
[[ $vm_rc == 0 ]] || rc=$vm_rc
python3 scripts/test-summary.py "$builddir/meson-logs/testlog.json" \
	"$clangdir/meson-logs/testlog.json" "$builddir/meson-logs/vmlog.json" || rc=1
exit "$rc"
