# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# The vm tier's job list, sourced by run-vm.sh. Each line
#   job NAME TRANSPORT COMMAND [ARGS...]
# is one job the guest runs, in this order. TRANSPORT is the memfs transport
# the job must prove it ran on: every "@@FRING-STATS {...}@@" line in the
# job's output must name it (run-vm.sh checks; the e2e scripts check it
# too); "-" for a job that mounts no memfs of its own. COMMAND runs inside
# the guest with bash: the build tree's programs are at their host paths
# there; tests/e2e's scripts are in $S.
#
# Set by run-vm.sh: MEMFS, E2E (the build's tests/e2e), S (/tests/e2e),
# G (/tests).
# Sized for qemu TCG (a 7.3 kernel under emulation is 10-30x slower than
# this machine); FRING_VM_SCALE=N multiplies the fsx operation counts.
#
# A rung that needs more than the transport name proven (zero-copy requests
# happened, ...) passes FRING_E2E_STATS_EXPECT (see tests/e2e/stats.sh), e.g.
#   job zerocopy-fsx zerocopy env FRING_E2E_STATS_EXPECT='zero_copy_requests>0' \
#       "$S/run-suite.sh" "$MEMFS" zerocopy "$E2E/fsx" --ops 5000

scale=${FRING_VM_SCALE:-1}
fsx_ops=$((5000 * scale))

# the controls: memfs on the classic device and on FUSE-over-io_uring
for t in dev uring; do
	job "$t-posix_suite" "$t" env FRING_E2E_BIGDIR=1000 \
		"$S/run-suite.sh" "$MEMFS" "$t" "$E2E/posix_suite"
	job "$t-fsx-seed1" "$t" \
		"$S/run-suite.sh" "$MEMFS" "$t" "$E2E/fsx" --ops "$fsx_ops" --seed 1
	job "$t-concurrency" "$t" \
		"$S/run-suite.sh" "$MEMFS" "$t" "$E2E/concurrency" --procs 2
	job "$t-interrupt" - "$E2E/interrupt_test" "$t"
done
job uring-queues uring "$S/uring-queues.sh" "$MEMFS" uring

# the 7.46 buffer-pool rungs: the stats must show requests whose payload
# came from a pool; pool_bufs=2 (fewer buffers than the 8 entries per queue)
# under parallel load must still complete with intact data
for t in bufpool bufpool-registered; do
	job "$t-posix_suite" "$t" env FRING_E2E_BIGDIR=1000 \
		FRING_E2E_STATS_EXPECT='pool_requests>0' \
		"$S/run-suite.sh" "$MEMFS" "$t" "$E2E/posix_suite"
	job "$t-fsx-seed1" "$t" env FRING_E2E_STATS_EXPECT='pool_requests>0' \
		"$S/run-suite.sh" "$MEMFS" "$t" "$E2E/fsx" --ops "$fsx_ops" --seed 1
	job "$t-concurrency-poolbufs2" "$t" env FRING_E2E_OPTS=pool_bufs=2 \
		FRING_E2E_STATS_EXPECT='pool_requests>0' \
		"$S/run-suite.sh" "$MEMFS" "$t" "$E2E/concurrency" --procs 2
done
