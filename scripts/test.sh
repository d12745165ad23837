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
# The fault build (-Dfault_injection=true, only what its tests run) comes
# first: its two vm jobs run in the same background chain, after the suite.
faultdir=${builddir}-fault
[ -f "$faultdir/build.ninja" ] ||
	meson setup "$faultdir" -Dfault_injection=true >/dev/null
ninja -C "$faultdir" examples/memfs/memfs examples/passthrough/passthrough \
	tests/e2e/fault_io tests/e2e/fsx tests/unit/test_fault >/dev/null
vmlog=$builddir/meson-logs/vm.out
(
	vrc=0
	meson test -C "$builddir" --no-rebuild --suite vm --logbase vmlog \
		--print-errorlogs --num-processes 1 || vrc=$?
	FRING_VM_ONLY='^fault-' FRING_VM_GUESTS=1 meson test -C "$faultdir" \
		--no-rebuild --logbase faultvm --print-errorlogs --num-processes 1 \
		vm-7.3 || vrc=$?
	exit "$vrc"
) >"$vmlog" 2>&1 &
vm_pid=$!
trap 'kill "$vm_pid" 2>/dev/null' EXIT

# clang must build everything warning-free too (-Werror is on), and the fuzz
# tier needs clang's libFuzzer: from the clang build, a bounded run of each
# target over the committed corpus (doc/reliability.md). Neither needs a
# mount or kernel state, and each target runs for FRING_FUZZ_SECONDS
# whatever else runs, so both run in the background beside the host tiers
# (their output is printed after them), niced: in line before the host
# tiers they held them back by about 5 minutes (150 s of build, 180 s of
# fuzzing), while the host tiers mostly wait on FUSE round trips.
clangdir=${builddir}-clang
[ -f "$clangdir/build.ninja" ] || CC=clang meson setup "$clangdir" >/dev/null
fuzzlog=$clangdir/meson-logs/fuzz.out
mkdir -p "$clangdir/meson-logs"
(
	if ! nice ninja -C "$clangdir" >"$clangdir/meson-logs/ninja.out" 2>&1; then
		tail -n 60 "$clangdir/meson-logs/ninja.out"
		echo "FAIL clang-build: ninja -C $clangdir failed (-Werror)"
		exit 1
	fi
	FRING_FUZZ_SECONDS=${FRING_FUZZ_SECONDS:-60} nice meson test -C "$clangdir" \
		--no-rebuild --suite fuzz --print-errorlogs --num-processes 1
) >"$fuzzlog" 2>&1 &
fuzz_pid=$!
trap 'kill "$vm_pid" "$fuzz_pid" 2>/dev/null' EXIT

rc=0
meson test -C "$builddir" --no-rebuild --no-suite vm --print-errorlogs \
	--num-processes 1 || rc=$?

# Sanitizers (doc/reliability.md): an ASan+UBSan build runs the e2e tier's
# `sanitize` part on dev and uring (the unit tier's *_asan programs ran
# above), a TSan build the unit tier, concurrency on a two-thread ring and
# fault-uring-register-fallback. Under the `sanitize` setup a report of any
# process, a daemon in the background too, fails its test
# (tests/e2e/san-check.sh).
# The TSan build has fault injection too, rather than a third sanitizer
# build: only FRING_FAULT can make a ring command fail on a working kernel,
# and that fallback (a ring thread's news taken by the run thread, which
# rewrites what the queue threads read) is what TSan must watch. With
# FRING_FAULT unset nothing is injected, so its other tests run as before
# (the fault suite's own tests are not selected here); the new test takes
# about a second.
asandir=${builddir}-asan
[ -f "$asandir/build.ninja" ] || meson setup "$asandir" \
	-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
tsandir=${builddir}-tsan
[ -f "$tsandir/build.ninja" ] || meson setup "$tsandir" \
	-Db_sanitize=thread -Db_lundef=false -Dfault_injection=true >/dev/null
# (a build-tsan set up before it had fault injection gets it)
if ! meson introspect "$tsandir" --buildoptions | python3 -c 'import json, sys
sys.exit(not any(o["name"] == "fault_injection" and o["value"] for o in json.load(sys.stdin)))'; then
	meson configure "$tsandir" -Dfault_injection=true >/dev/null
fi
meson test -C "$asandir" --setup sanitize --suite sanitize \
	--print-errorlogs --num-processes 1 || rc=$?
meson test -C "$tsandir" --setup sanitize --suite unit --suite sanitize \
	--print-errorlogs --num-processes 1 || rc=$?

# The stress suite at a tenth of its length: lifecycle under load with 5
# restarts, 30 s of load (doc/reliability.md has the full-length figures).
FRING_STRESS_SCALE=${FRING_STRESS_SCALE:-0.1} meson test -C "$builddir" \
	--suite stress --logbase stress --print-errorlogs --num-processes 1 || rc=$?

# Fault injection (doc/reliability.md): the fault build (set up beside the
# vm tier, above) runs the host fault suite here; its two vm jobs (pool
# allocation and buffer registration need ABI 7.46) ran in the background
# after the vm suite.
meson test -C "$faultdir" --no-rebuild --suite fault --print-errorlogs \
	--num-processes 1 || rc=$?

fuzz_rc=0
wait "$fuzz_pid" || fuzz_rc=$?
echo "=== the clang build and the fuzz tier (run beside the others): $fuzzlog"
cat "$fuzzlog"
[[ $fuzz_rc == 0 ]] || rc=$fuzz_rc

vm_rc=0
wait "$vm_pid" || vm_rc=$?
trap - EXIT
echo "=== the vm tier (run beside the others): $vmlog"
cat "$vmlog"
[[ $vm_rc == 0 ]] || rc=$vm_rc

python3 scripts/test-summary.py "$builddir/meson-logs/testlog.json" \
	"$clangdir/meson-logs/testlog.json" "$asandir/meson-logs/testlog-sanitize.json" \
	"$tsandir/meson-logs/testlog-sanitize.json" "$builddir/meson-logs/stress.json" \
	"$builddir/meson-logs/vmlog.json" "$faultdir/meson-logs/testlog.json" \
	"$faultdir/meson-logs/faultvm.json" || rc=1
exit "$rc"
