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

# The stress suite at a tenth of its length: lifecycle under load with 5
# restarts, 30 s of load (doc/reliability.md has the full-length figures).
FRING_STRESS_SCALE=${FRING_STRESS_SCALE:-0.1} meson test -C "$builddir" \
	--suite stress --logbase stress --print-errorlogs --num-processes 1 || rc=$?

python3 scripts/test-summary.py "$builddir/meson-logs/testlog.json" \
	"$clangdir/meson-logs/testlog.json" \
	"$builddir/meson-logs/stress.json" || rc=1
exit "$rc"
