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

# clang must build everything warning-free too (-Werror is on).
clangdir=${builddir}-clang
[ -f "$clangdir/build.ninja" ] || CC=clang meson setup "$clangdir" >/dev/null
ninja -C "$clangdir" >/dev/null

rc=0
meson test -C "$builddir" --print-errorlogs --num-processes 1 || rc=$?
# The fuzz tier needs clang's libFuzzer: from the clang build, a bounded run
# of each target over the committed corpus (doc/reliability.md).
FRING_FUZZ_SECONDS=${FRING_FUZZ_SECONDS:-45} meson test -C "$clangdir" \
	--suite fuzz --print-errorlogs --num-processes 1 || rc=$?
# Fault injection (doc/reliability.md): a build with the hooks, of only what
# the fault suite and its vm jobs run; the vm tier boots once more for the
# two jobs that need ABI 7.46 (pool allocation, buffer registration).
faultdir=${builddir}-fault
[ -f "$faultdir/build.ninja" ] ||
	meson setup "$faultdir" -Dfault_injection=true >/dev/null
ninja -C "$faultdir" examples/memfs/memfs examples/passthrough/passthrough \
	tests/e2e/fault_io tests/unit/test_fault >/dev/null
FRING_VM_ONLY='^fault-' FRING_VM_GUESTS=1 meson test -C "$faultdir" \
	--no-rebuild --suite fault --suite vm --print-errorlogs \
	--num-processes 1 || rc=$?
python3 scripts/test-summary.py "$builddir/meson-logs/testlog.json" \
	"$clangdir/meson-logs/testlog.json" \
	"$faultdir/meson-logs/testlog.json" || rc=1
exit "$rc"
