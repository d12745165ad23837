# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# The vm tier's job list, sourced by run-vm.sh. Each line
#   job NAME TRANSPORT COMMAND [ARGS...]
# is one job; job k runs in guest k mod FRING_VM_GUESTS, in this order
# (run-vm.sh boots 2 guests at once). TRANSPORT is the transport the
# job must prove it ran on: every "@@FRING-STATS {...}@@" line in the job's
# output must name it (run-vm.sh checks; the e2e scripts check it too, and
# FRING_E2E_STATS_EXPECT on top); "-" for a job that prints no stats.
# COMMAND runs inside the guest with bash: the build tree's programs are at
# their host paths there, tests/e2e's scripts in $S. `guest_tool NAME...`
# puts host programs the guest's busybox lacks into the image.
#
# Set by run-vm.sh: MEMFS, PT (examples/passthrough), E2E (the build's
# tests/e2e), S (/tests/e2e, the scripts), G (/tests).
# Sized for qemu TCG (a 7.3 kernel under emulation is 10-30x slower than
# this machine); FRING_VM_SCALE=N multiplies the fsx operation counts.
#
# A rung that needs more than the transport name proven (zero-copy requests
# happened, ...) passes FRING_E2E_STATS_EXPECT, e.g.
#   job zerocopy-fsx zerocopy env FRING_E2E_STATS_EXPECT='zero_copy_requests>0' \
#       "$S/run-suite.sh" "$MEMFS" zerocopy "$E2E/fsx" --ops 5000

scale=${FRING_VM_SCALE:-1}
fsx_ops=$((5000 * scale))
# posix_suite: a 1,000-entry directory (not 100,000) and 1,000 renames in the
# atomic-replace race (not 3,000: most of its requests)
posix_size=(FRING_E2E_BIGDIR=1000 FRING_E2E_RENAMES=1000)

# lifecycle.sh: a mount as nobody through fusermount3 (setpriv --reuid)
guest_tool setpriv fusermount3

# dev and uring are the controls; their whole e2e tier runs on the host's
# 6.18 kernel in every CI run (and dev's on 6.1 and 6.12 in vm-matrix), so
# here (at ABI 7.46) they run what the 7.3 kernel could answer differently:
# lifecycle, interrupts, async answers, the queues, uring's posix_suite on
# memfs and teardown, and below passthrough's I/O, notifications and dev's
# splice (fsx: dev's data at 7.46). Dropping fsx, concurrency and the other
# teardowns of the controls cut 11 jobs, about 270 s of guest time in a
# loaded CI run (a guest's share of the CPUs is what the tier waits on);
# dev's posix_suite and uring's passthrough posix_suite and fsx went later
# (86 s): the passthrough's I/O on the ring at 7.46 is the pool rungs'
# too (bufpool's is the same unregistered ring I/O).
# The 7.46 buffer-pool rungs must show
# requests whose payload came from a pool, and pool_bufs=2 (fewer buffers
# than the 8 entries per queue) under parallel load must still complete with
# intact data. On bufpool, passthrough runs fsx only: its posix_suite (the
# same requests through the same pools as memfs's, which runs) and its
# pool_bufs=2 concurrency (the held buffers with handler I/O on the ring:
# bufpool-registered's, which runs) add nothing the rung does not show
# elsewhere (55 s).
for t in dev uring bufpool bufpool-registered zerocopy; do
	expect=
	conc=(concurrency)
	lc_opts=
	case $t in
	bufpool*)
		expect='pool_requests>0'
		conc=(concurrency-poolbufs2 FRING_E2E_OPTS=pool_bufs=2)
		;;
	zerocopy)
		# data moved between the backing store and the client's
		# pages, both ways (lifecycle.sh: a user's zerocopy mount is
		# refused, CAP_SYS_ADMIN)
		# the small transfers on the in-memory files (memfds, the
		# tmpfs source) went through the queue threads' pipes
		expect='zero_copy_reads>0 zero_copy_writes>0 zero_copy_piped>0'
		;;
	esac
	# lifecycle.sh mounts as nobody, whose RLIMIT_MEMLOCK is the kernel's
	# default 8 MiB: 2 queues x 8 pinned 1 MiB buffers would not fit (the
	# library refuses, naming the limit); 2 x 2 do
	[[ $t == bufpool-registered ]] && lc_opts=,pool_bufs=2
	e=(env "FRING_E2E_STATS_EXPECT=$expect")
	# teardown's mounts may only write (or only read) before the fault
	e_td=(env "FRING_E2E_STATS_EXPECT=${expect/zero_copy_reads>0 zero_copy_writes>0 zero_copy_piped>0/zero_copy_requests>0}")

	# examples/memfs, and examples/passthrough over a fresh tmpfs source
	# that must hold afterwards what the mount showed
	for fs in memfs passthrough; do
		if [[ $fs == memfs ]]; then
			p=$t run=("$S/run-suite.sh" "$MEMFS") seed=1
		else
			p=$t-passthrough run=("$S/run-passthrough.sh" "$PT") seed=4
		fi
		case $t-$fs in
		dev-* | uring-passthrough) parts= ;;
		uring-memfs) parts=posix ;;
		bufpool-passthrough) parts=fsx ;;
		*) parts='posix fsx conc' ;;
		esac
		if [[ " $parts " == *" posix "* ]]; then
			job "$p-posix_suite" "$t" "${e[@]}" "${posix_size[@]}" \
				"${run[@]}" "$t" "$E2E/posix_suite"
		fi
		if [[ " $parts " == *" fsx "* ]]; then
			job "$p-fsx-seed$seed" "$t" "${e[@]}" \
				"${run[@]}" "$t" "$E2E/fsx" --ops "$fsx_ops" --seed "$seed"
		fi
		if [[ " $parts " == *" conc "* ]]; then
			job "$p-${conc[0]}" "$t" "${e[@]}" "${conc[@]:1}" \
				"${run[@]}" "$t" "$E2E/concurrency" --procs 2
		fi
	done
	job "$t-lifecycle" "$t" "${e[@]}" "FRING_E2E_OPTS=transport=$t$lc_opts" \
		"$S/lifecycle.sh" "$MEMFS"
	[[ $t == dev ]] ||
		job "$t-teardown" "$t" "${e_td[@]}" "$S/teardown.sh" "$MEMFS" "$t"
	[[ $t == dev || $t == uring ]] ||
		job "$t-passthrough-teardown" "$t" "${e_td[@]}" \
			"$S/teardown.sh" "$PT" "$t" --with-source

	# in-process servers (they check the transport themselves): an
	# interrupt reaching a request being served; handler I/O on the ring
	# and answers from other threads
	job "$t-interrupt" - "$E2E/interrupt_test" "$t"
	job "$t-async" - "$E2E/async_test" "$t"
	# every queue registered and serving
	[[ $t == dev ]] || job "$t-queues" "$t" "${e[@]}" "$S/uring-queues.sh" "$MEMFS" "$t"
done

# the edge tier's unmount and signal parts (tests/e2e/edges.sh) on the rungs
# the host cannot run: each case proves its rung from the daemon's mount
# line; under TCG a daemon takes seconds to come up, so the waits are longer.
# Of each part, the cases whose answer goes through the rung (the mount, its
# unmount and its signals); the stats file's own cases, the user's
# fusermount3 mounts, stacking variants and signal storms to every thread
# do not depend on the rung and run on the host. All of both parts took
# 437 s of guest time in a loaded CI run (both guests ended 15 s short of
# FRING_VM_TIMEOUT); these about 190 s.
edge_unmount='^(sigterm_plain|umount_by_other|under_removed|lazy_then_new|covered_sigterm|stack_refused|moved)$'
edge_signals='^(usr1_no_stats_file|usr1_stats_file|usr1_storm|usr1_early|sigterm|sigint|sighup|sigpipe)$'
for t in bufpool bufpool-registered zerocopy; do
	job "$t-edges-unmount" - env FRING_EDGES_T=40 FRING_EDGES_LIMIT=150 \
		"FRING_EDGES_ONLY=$edge_unmount" \
		"$S/edges.sh" unmount "$t" "$MEMFS" "$PT" -
	job "$t-edges-signals" - env FRING_EDGES_T=40 FRING_EDGES_LIMIT=150 \
		FRING_EDGES_STORM=50 "FRING_EDGES_ONLY=$edge_signals" \
		"$S/edges.sh" signals "$t" "$MEMFS" "$PT" -
done

# zero-copy beyond the e2e tier: zerocopy_test proves each kind of I/O
# (O_DIRECT, buffered, mmap; with and without the writeback cache) zero-copied
# and the failure paths (staged answers, short and failed backing reads,
# answers claiming unmoved bytes, abort with a held request); as a control on
# bufpool-registered; "nocap" without CAP_SYS_ADMIN
job zerocopy-test - "$E2E/zerocopy_test" zerocopy
job zerocopy-test-writeback - "$E2E/zerocopy_test" zerocopy wb
job zerocopy-test-control - "$E2E/zerocopy_test" bufpool-registered
job zerocopy-test-nocap - "$E2E/zerocopy_test" nocap bufpool-registered
# libfuse's passthrough_hp, its source unmodified, built here against this
# build's libfring-fuse3 (build-fuse3-hp.sh: libfuse's source is fetched
# and checked, or taken from the cache), mounted --nopassthrough over a
# fresh tmpfs source (passthrough-hp.sh gives it run-suite.sh's mount
# options, with -o stats_fd= for the statistics): an O_DIRECT byte check and
# fsx, then the source tree against the mount. The stats prove the rung:
# pool buffers on bufpool-registered and nothing zero-copied there; on
# zerocopy the client's pages moved by the kernel.
hp_jobs=(compat-hp-bufpool-registered compat-hp-zerocopy)
hp_wanted=0
for n in "${hp_jobs[@]}"; do
	[[ -z ${FRING_VM_ONLY:-} || $n =~ $FRING_VM_ONLY ]] && hp_wanted=1
done
if ((hp_wanted)); then
	hp_rc=0
	hp=$("$HERE/build-fuse3-hp.sh" "$BUILD" 2>"$OUTDIR/fuse3-hp.log") || hp_rc=$?
	hp_why=$(tail -n 1 "$OUTDIR/fuse3-hp.log")
	for t in bufpool-registered zerocopy; do
		case $t in
		bufpool-registered) expect='pool_requests>0 zero_copy_reads=0 zero_copy_writes=0' ;;
		zerocopy) expect='zero_copy_reads>0 zero_copy_writes>0' ;;
		esac
		case $hp_rc in
		0)
			job "compat-hp-$t" "$t" env "FRING_E2E_STATS_EXPECT=$expect" \
				"FRING_E2E_WRAPPER=$S/passthrough-hp.sh" \
				"$S/run-passthrough.sh" "$hp" "$t" "$S/passthrough-hp-check.sh" \
				"$E2E/fsx" --ops "$fsx_ops" --seed 6
			;;
		2) # no libfuse source here: a skip (a failure under FRING_E2E_NO_SKIP=1)
			# shellcheck disable=SC2016 # ($1: bash -c's, in the guest)
			job "compat-hp-$t" - bash -c 'echo "SKIP: $1"; exit 77' - \
				"passthrough_hp not built: $hp_why"
			;;
		*)
			# shellcheck disable=SC2016
			job "compat-hp-$t" - bash -c 'echo "FAIL compat-hp.build: $1"; exit 1' - \
				"tests/vm/build-fuse3-hp.sh failed: $hp_why ($OUTDIR/fuse3-hp.log)"
			;;
		esac
	done
fi

# zero-copy only where asked: memdata_test's handlers read src->mem and
# fill dst->mem and must get memory on every rung (auto: zerocopy as root
# here), while a filesystem declaring FRING_FS_ZERO_COPY, or an open setting
# zero_copy, is zero-copied on zerocopy (three mounts: plain, declared,
# declared with -o zero_copy_opt_in); dev and uring run it on the host
for t in bufpool bufpool-registered zerocopy; do
	job "memdata-$t" - "$E2E/memdata_test" "$t"
done
job memdata-auto - "$E2E/memdata_test" auto zerocopy
# a WRITE's data moved without answering (fring_write_data_to_fd() /
# _copy(), writedata_test: whole, in pieces, into memory, from another
# thread, the misuses), four writers at once, bytes checked in the backing
# memfd; on zerocopy every WRITE is the client's pages and each piece a
# synchronous WRITE_FIXED (zero_copy_writes, io_ring), no handler bug (an
# answer claiming bytes no fixed op moved would be one)
for t in bufpool-registered zerocopy; do
	job "writedata-$t" - "$E2E/writedata_test" "$t"
done
# libfuse's write_buf through libfring-fuse3 (compat smoke.sh, smokefs):
# with FUSE_CAP_SPLICE_READ (SMOKEFS_SPLICE_READ=1) it gets the client's
# pages, which fuse_buf_copy() moves (write_buf_not_memory; 3 MiB written,
# part through memory, and read back byte for byte); without, memory
for v in splice plain; do
	job "compat-smoke-zerocopy-$v" - env "SMOKEFS_SPLICE_READ=${v/plain/}" \
		"$G/compat/smoke.sh" "$BUILD/compat/fuse3/tests/e2e/smokefs" \
		zerocopy libfring-fuse3.so
done

# FUSE passthrough (examples/passthrough -o passthrough): the kernel does the
# data I/O on the source file, so no READ/WRITE may reach the daemon; on
# dev, uring and one pool rung (a passthrough open never takes a pool
# buffer or zero-copy); 10-12 s each
for t in dev uring bufpool-registered; do
	job "$t-passthrough-io" "$t" "$S/passthrough-io.sh" "$PT" "$t" "$E2E/passthrough_io"
done
# notifications (doc/notifications.md), all of them at 7.46 on one mount
# each: on the ring rungs retrieve's NOTIFY_REPLY arrives in a ring entry (a
# pool buffer) that must be committed with no answer
for t in dev bufpool-registered zerocopy; do
	job "notify-$t" - "$E2E/notify_test" "$t" all
done

# what fring-probe says inside a 7.3 guest (auto -> zerocopy as root)
job probe - "$S/probe.sh" "$BUILD/tools/fring-probe"
# splice on /dev/fuse at ABI 7.46 (memfs, data checked by fsx, pipes by stats)
job dev-splice-fsx dev env \
	FRING_E2E_OPTS=splice_read,splice_write,splice_move,max_write=524288 \
	FRING_E2E_STATS_EXPECT='splice_read_requests>0 splice_read_data_bytes>0 splice_write_data_bytes>0 splice_fallbacks=0' \
	"$S/run-suite.sh" "$MEMFS" dev "$E2E/fsx" --ops 2000 --seed 5

# fault injection (a -Dfault_injection=true build only, which has fault_io:
# scripts/test.sh runs these from build-fault with FRING_VM_ONLY='^fault-'):
# the pools of the 7.46 rungs cannot be allocated, or not registered as
# fixed buffers, once (ENOMEM, as RLIMIT_MEMLOCK would say it); auto, which
# would run zerocopy here, gives way to bufpool, the first rung that does
# not pin them (run-suite prints the reason), and serves; data reads back
# byte for byte
if [[ -x $E2E/fault_io ]]; then
	for point in pool_alloc buf_register; do
		job "fault-$point" bufpool env "FRING_FAULT=$point:1" \
			"FRING_E2E_STATS_EXPECT=faults.$point=1 requests>0" \
			"$S/run-suite.sh" "$MEMFS" auto "$E2E/fault_io" \
			w0=4096 w1=4096 w2=4096 r0=4096 r1=4096 r2=4096
	done
	# zerocopy: the second small READ through a ring thread's pipe finds
	# a byte less there (as if an op moved another length): its linked
	# commit is cancelled and sent again with EIO, the pipe is emptied,
	# and the next reads through it have their own bytes again
	job fault-zc_pipe_short zerocopy env "FRING_FAULT=zc_pipe_short:2" \
		"FRING_E2E_STATS_EXPECT=faults.zc_pipe_short=1 zero_copy_piped>0" \
		"$S/run-suite.sh" "$MEMFS" zerocopy "$E2E/fault_io" \
		w0=4096 w1=4096 w2=4096 r0=4096 r1=EIO r2=4096 r1=4096 r0=4096
fi
