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

# Sanitizers (doc/reliability.md): an ASan+UBSan build runs the e2e tier's
# `sanitize` part on dev and uring (the unit tier's *_asan programs ran
# above), a TSan build the unit tier and concurrency on a two-thread ring.
# Under the `sanitize` setup a report of any process, a daemon in the
# background too, fails its test (tests/e2e/san-check.sh).
asandir=${builddir}-asan
[ -f "$asandir/build.ninja" ] || meson setup "$asandir" \
	-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
tsandir=${builddir}-tsan
[ -f "$tsandir/build.ninja" ] || meson setup "$tsandir" \
	-Db_sanitize=thread -Db_lundef=false >/dev/null
meson test -C "$asandir" --setup sanitize --suite sanitize \
	--print-errorlogs --num-processes 1 || rc=$?
meson test -C "$tsandir" --setup sanitize --suite unit --suite sanitize \
	--print-errorlogs --num-processes 1 || rc=$?

# The stress suite at a tenth of its length: lifecycle under load with 5
# restarts, 30 s of load (doc/reliability.md has the full-length figures).
FRING_STRESS_SCALE=${FRING_STRESS_SCALE:-0.1} meson test -C "$builddir" \
	--suite stress --logbase stress --print-errorlogs --num-processes 1 || rc=$?

python3 scripts/test-summary.py "$builddir/meson-logs/testlog.json" \
	"$clangdir/meson-logs/testlog.json" "$asandir/meson-logs/testlog-sanitize.json" \
	"$tsandir/meson-logs/testlog-sanitize.json" "$builddir/meson-logs/stress.json" || rc=1
exit "$rc"
