# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# The scale guest's job list (run-scale.sh passes it to run-vm.sh as
# FRING_VM_JOBS): the 7.3 kernel with 64 possible CPUs and 2 online, where
# the kernel makes a FUSE queue per possible CPU. memfs at its defaults on
# every rung, one mount each (guest-scale.sh): time to the mount line and to
# the first answer, threads, VmRSS / VmPin / VmLck, a small data check, a
# CPU brought online after the mount and served, and the stats (64 queues,
# each with a ring entry, on the ring rungs).
#
# FRING_VM_SCALE_OPTS: -o options for every memfs mount (guest-scale.sh's
# FRING_SCALE_OPTS), e.g. max_write=262144.
# For comparisons in the same boot (not in CI):
#   FRING_VM_SCALE_COMPARE=BUILDDIR  another build's memfs too, as job
#                      scale-RUNG-base before each scale-RUNG
#   FRING_VM_SCALE_LIBFUSE=PATH      libfuse's passthrough_hp (built by
#                      bench/build-libfuse.sh) mounted with -o io_uring
guest_tool taskset setpriv
# What this build must stay under, at the defaults: threads about the
# online CPUs (ring threads, the run thread, the side channel, the report
# thread, io_uring's workers); VmRSS 64 MiB on every rung (issue 18's
# goal); on the registered rungs VmPin no more than the online CPUs'
# pools (8 × 1 MiB each) and 1 MiB: an offline CPU's pool is never
# registered (doc/transports.md, "Memory and threads").
online=${FRING_SCALE_ONLINE:-2}
limits() { # RUNG
	[[ -n ${FRING_VM_SCALE_OPTS:-} ]] && return
	local pin=
	[[ $1 == bufpool-registered || $1 == zerocopy ]] &&
		pin=" FRING_SCALE_MAX_PIN_MIB=$((online * 8 + 1))"
	echo "FRING_SCALE_MAX_THREADS=$((online + 8)) FRING_SCALE_MAX_RSS_MIB=64$pin"
}
for t in dev uring bufpool bufpool-registered zerocopy; do
	expect=
	[[ $t == bufpool* ]] && expect='pool_requests>0'
	read -r -a lim <<<"$(limits "$t")"
	if [[ -n ${FRING_VM_SCALE_COMPARE:-} ]]; then
		guest_tool "$FRING_VM_SCALE_COMPARE/examples/memfs/memfs"
		job "scale-$t-base" "$t" env FRING_SCALE_POSSIBLE="$FRING_SCALE_POSSIBLE" FRING_SCALE_BUILD=base \
			FRING_SCALE_OPTS="${FRING_VM_SCALE_OPTS:-}" \
			FRING_E2E_STATS_EXPECT="$expect" \
			"$G/guest-scale.sh" "$t" "$FRING_VM_SCALE_COMPARE/examples/memfs/memfs"
	fi
	job "scale-$t" "$t" env FRING_SCALE_POSSIBLE="$FRING_SCALE_POSSIBLE" \
		FRING_SCALE_OPTS="${FRING_VM_SCALE_OPTS:-}" "${lim[@]}" \
		FRING_E2E_STATS_EXPECT="$expect" \
		"$G/guest-scale.sh" "$t" "$MEMFS"
done
if [[ -n ${FRING_VM_SCALE_LIBFUSE:-} ]]; then
	guest_tool "$FRING_VM_SCALE_LIBFUSE"
	job scale-libfuse - "$G/guest-scale.sh" libfuse "$FRING_VM_SCALE_LIBFUSE"
fi
