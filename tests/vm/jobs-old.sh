# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# The kernel matrix's job list (run-vm.sh sources it for FRING_VM_SERIES=6.1
# and 6.12, Debian 12's and 13's kernels): no FUSE-over-io_uring there
# (before Linux 6.14), so the classic /dev/fuse transport, and auto must land
# on it (FUSE ABI 7.38 and 7.41: the INIT negotiation downward). Same form as
# jobs.sh; sized to keep the two guests near two minutes each.

posix_size=(FRING_E2E_BIGDIR=1000 FRING_E2E_RENAMES=1000)
guest_tool setpriv fusermount3

job dev-posix_suite dev env "${posix_size[@]}" "$S/run-suite.sh" "$MEMFS" dev "$E2E/posix_suite"
# passthrough over a tmpfs source inherits tmpfs's behaviour, and tmpfs
# before Linux 6.6 has no user.* xattrs and no stable directory offsets
# under concurrent changes, both of which posix_suite checks: on 6.1 the
# data-integrity exerciser instead (memfs's posix_suite is the library's check)
if [[ $SERIES == 6.1 ]]; then
	job dev-passthrough-fsx-seed4 dev "$S/run-passthrough.sh" "$PT" dev "$E2E/fsx" --ops 5000 --seed 4
else
	job dev-passthrough-posix_suite dev env "${posix_size[@]}" \
		"$S/run-passthrough.sh" "$PT" dev "$E2E/posix_suite"
fi
# FUSE passthrough came in Linux 6.9 (ABI 7.40): 6.12 runs it, 6.1 must say
# NOT OFFERED (the daemon serves the data itself, the test still passes)
if [[ $SERIES == 6.1 ]]; then
	job_not_offered dev-passthrough-io dev "$S/passthrough-io.sh" "$PT" dev "$E2E/passthrough_io"
else
	job dev-passthrough-io dev "$S/passthrough-io.sh" "$PT" dev "$E2E/passthrough_io"
fi
# auto: the stats must say dev (run-vm.sh checks the transport), with data
# checked by fsx; 2,000 operations as for dev-splice-fsx (5,000 took 32 s of
# the 6.12 guest's 139 s: dev's data on these kernels is also posix_suite's
# and the passthrough's fsx or posix_suite)
job auto-fsx-seed2 dev "$S/run-suite.sh" "$MEMFS" auto "$E2E/fsx" --ops 2000 --seed 2
job dev-lifecycle dev env FRING_E2E_OPTS=transport=dev "$S/lifecycle.sh" "$MEMFS"
job dev-teardown dev "$S/teardown.sh" "$MEMFS" dev
job dev-interrupt - "$E2E/interrupt_test" dev
job dev-async - "$E2E/async_test" dev
# asked for the ring, a mount is refused, naming the kernel's lack
job uring-refused - "$G/guest-uring-refused.sh" "$MEMFS"
job probe - "$S/probe.sh" "$BUILD/tools/fring-probe"
# splice on /dev/fuse (the only way to save a copy on a kernel without
# FUSE-over-io_uring): memfs's data through the pipes, checked by fsx and the
# stats (max_write=524288: its pipes fit fs.pipe-max-size)
job dev-splice-fsx dev env \
	FRING_E2E_OPTS=splice_read,splice_write,splice_move,max_write=524288 \
	FRING_E2E_STATS_EXPECT='splice_read_requests>0 splice_read_data_bytes>0 splice_write_data_bytes>0 splice_fallbacks=0' \
	"$S/run-suite.sh" "$MEMFS" dev "$E2E/fsx" --ops 2000 --seed 5
# notifications of the kernel's ABI (expire_entry needs 7.38: both have it);
# resend (7.40) and inc_epoch / prune (7.44, 7.45) must be NOT OFFERED
# where the ABI is older: 7.38 on 6.1 lacks both, 7.41 on 6.12 has resend
job notify-dev - "$E2E/notify_test" dev basic
if [[ $SERIES == 6.1 ]]; then
	job_not_offered notify-dev-resend - "$E2E/notify_test" dev resend
else
	job notify-dev-resend - "$E2E/notify_test" dev resend
fi
job_not_offered notify-dev-epoch - "$E2E/notify_test" dev epoch
