#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# vm-guest.sh: the guest side of bench/vm.sh (inside the vm tier's 7.3 guest;
# bash, busybox and fio there, no python). Two modes:
#
#   vm-guest.sh REP FS TRANSPORT DAEMON
#       one job of bench/vm-jobs.sh: mounts DAEMON (memfs, or passthrough
#       over a fresh directory of the store: the guest's tmpfs /tmp, or
#       with FRING_BENCH_STORE=ext4 the ext4 on /dev/vda, mounted on
#       /bench-store by the first job) on TRANSPORT
#       through tests/e2e/run-suite.sh, which checks the transport in
#       the daemon's stats and runs the second mode in the mount. FS hp
#       (TRANSPORT libfuse-uring): DAEMON is libfuse's passthrough_hp,
#       mounted here as "DAEMON --foreground --nopassthrough -o io_uring
#       SRC MNT" over the same kind of source (it has no stats file; the
#       second mode checks that it holds io_uring rings). FS hpbg: the
#       same, its connection's max_background then set to 256 and
#       congestion_threshold to 192 in fusectl (libfring's defaults;
#       passthrough_hp has no option for them). FS hpfring:
#       DAEMON is the same passthrough_hp built on libfring-fuse3
#       (tests/vm/build-fuse3-hp.sh), on TRANSPORT like passthrough,
#       through run-suite.sh with tests/e2e/passthrough-hp.sh as its
#       wrapper. A mount the daemon refuses prints
#         @@FRING-BENCH-REFUSED rep=R fs=F transport=T REASON@@
#       (REASON: the daemon's own line about it) and exits 77.
#   vm-guest.sh MNT fio REP FS TRANSPORT DAEMON
#       the fio jobs in MNT, one line each:
#         @@FRING-BENCH rep=R fs=F transport=T job=J ticks=N fio=TERSE@@
#       N: the daemon's utime+stime over the job in clock ticks (all its
#       threads, io_uring workers included), TERSE: fio's terse v3 line;
#       and after it
#         @@FRING-BENCH-IOWQ rep=R fs=F transport=T job=J workers=W ticks=K@@
#       W: the daemon's io-wq worker threads (iou-wrk-*) alive as the job
#       ends (io_uring starts them for ops that cannot complete inline;
#       an idle one exits after seconds, the last of a ring's stays), K:
#       the CPU ticks those threads spent during the job, a lower bound
#       (a worker that came and went within the job is not counted, it
#       is in N): 0 says the job gave io-wq next to no work.
#       With FRING_BENCH_WARM=DIR (ext4: the source directory) DIR's
#       files are read once after each drop_caches: the fio jobs meet the
#       source in the page cache, as they do on tmpfs.
#
# Settings (environment, from bench/vm.sh): FRING_BENCH_JOBS (the fio jobs,
# comma-separated), FRING_BENCH_MIB (file size per fio process in MiB; 2
# processes), FRING_BENCH_RAND_MIB (MiB each randread process reads),
# FRING_BENCH_SECS (a cap on each fio job's run time), FRING_BENCH_STORE
# (tmpfs or ext4: where passthrough's source lives).
set -euo pipefail

S=/tests/e2e # tests/e2e's scripts in the guest (tests/vm/run-vm.sh)
SELF=$(realpath "${BASH_SOURCE[0]}")

# ---------------------------------------------------------------------------
# mode 2: fio in the mount
if [[ ${2:-} == fio ]]; then
	MNT=$1 REP=$3 FS=$4 TRANSPORT=$5 DAEMON=$6

	# the daemon: the process whose program is DAEMON and whose last
	# argument is the mount point (run-suite.sh started it)
	pid=
	for p in /proc/[0-9]*; do
		mapfile -d '' -t argv <"$p/cmdline" 2>/dev/null || continue
		((${#argv[@]} > 1)) || continue
		if [[ ${argv[0]} == "$DAEMON" && ${argv[-1]} == "$MNT" ]]; then
			pid=${p#/proc/}
			break
		fi
	done
	[[ -n $pid ]] || { echo "FAIL bench.daemon: no process $DAEMON ... $MNT"; exit 1; }
	if [[ $TRANSPORT == libfuse-uring ]]; then
		# libfuse falls back to reading /dev/fuse when its rings fail to
		# start (a line in its log, nothing more): count its rings, one
		# per CPU when they run
		rings=0
		for f in "/proc/$pid/fd/"*; do
			[[ $(readlink "$f" 2>/dev/null) == 'anon_inode:[io_uring]' ]] && rings=$((rings + 1))
		done
		echo "# passthrough_hp holds $rings io_uring ring(s)"
		((rings > 0)) || { echo "FAIL bench.libfuse_uring: passthrough_hp runs without an io_uring"; exit 1; }
	fi

	ticks() { # utime+stime of the daemon (fields 14 and 15 of stat)
		local s
		s=$(<"${1:-/proc/$pid}/stat")
		s=${s##*) }
		# shellcheck disable=SC2086
		set -- $s
		echo $((${12} + ${13}))
	}
	declare -A wrk0=()
	iowq() { # "TID TICKS" of each io-wq worker of the daemon
		local t
		for t in /proc/"$pid"/task/*; do
			[[ $(<"$t/comm") == iou-wrk-* ]] && echo "${t##*/} $(ticks "$t")"
		done 2>/dev/null
	}

	# Byte counts, not run times: every transport moves the same data, and
	# a buffered read reads each byte once after the caches were dropped
	# (a time-based job would loop over pages already cached).
	# shellcheck disable=SC2016  # $jobnum is fio's, not the shell's
	common=(--directory="$MNT" --filename_format='bench.$jobnum'
		--size="${FRING_BENCH_MIB}m" --numjobs=2 --group_reporting
		--runtime="$FRING_BENCH_SECS" --output-format=terse --terse-version=3)
	args_of() { # JOB -> its fio arguments
		case $1 in
		seqread) echo --name=seqread --rw=read --bs=1M --direct=1 --ioengine=sync ;;
		seqwrite) echo --name=seqwrite --rw=write --bs=1M --direct=1 --ioengine=sync ;;
		randread) echo --name=randread --rw=randread --bs=4k --direct=1 \
			--ioengine=io_uring --iodepth=32 --io_size="${FRING_BENCH_RAND_MIB}m" ;;
		randwrite) echo --name=randwrite --rw=randwrite --bs=4k --direct=1 \
			--ioengine=io_uring --iodepth=32 --io_size="${FRING_BENCH_RAND_MIB}m" ;;
		bufread) echo --name=bufread --rw=read --bs=1M --direct=0 --ioengine=sync ;;
		bufwrite) echo --name=bufwrite --rw=write --bs=1M --direct=0 \
			--ioengine=sync --end_fsync=1 ;;
		*) return 1 ;;
		esac
	}

	# the files fio names bench.0 and bench.1, written through the mount
	# (not measured); busybox dd starts in a moment where fio, with the
	# libraries it loads, takes about 2 s under TCG
	for i in 0 1; do
		dd if=/dev/zero of="$MNT/bench.$i" bs=1M count="$FRING_BENCH_MIB" 2>/dev/null
	done
	failed=0
	for job in ${FRING_BENCH_JOBS//,/ }; do
		a=$(args_of "$job") || { echo "FAIL bench.$job: no such job"; failed=1; continue; }
		# reads start from the server, not from pages an earlier job left
		sync
		echo 3 >/proc/sys/vm/drop_caches
		if [[ -n ${FRING_BENCH_WARM:-} ]]; then
			cat "$FRING_BENCH_WARM"/bench.* >/dev/null
		fi
		wrk0=()
		# (no process substitution: the guest has no /dev/fd)
		while read -r tid tk; do
			[[ -n $tid ]] && wrk0[$tid]=$tk
		done <<<"$(iowq)"
		t0=$(ticks)
		# shellcheck disable=SC2086
		if ! terse=$(fio $a "${common[@]}"); then
			echo "FAIL bench.$job: fio exited non-zero: $terse"
			failed=1
			continue
		fi
		t1=$(ticks)
		echo "@@FRING-BENCH rep=$REP fs=$FS transport=$TRANSPORT job=$job ticks=$((t1 - t0)) fio=$terse@@"
		workers=0 wticks=0
		while read -r tid tk; do
			[[ -n $tid ]] || continue
			workers=$((workers + 1))
			wticks=$((wticks + tk - ${wrk0[$tid]:-0}))
		done <<<"$(iowq)"
		echo "@@FRING-BENCH-IOWQ rep=$REP fs=$FS transport=$TRANSPORT job=$job workers=$workers ticks=$wticks@@"
	done
	rm -f "$MNT"/bench.*
	exit "$failed"
fi

# ---------------------------------------------------------------------------
# mode 1: one mount
[[ $# == 4 ]] || { echo "usage: $0 REP FS TRANSPORT DAEMON" >&2; exit 1; }
REP=$1 FS=$2 TRANSPORT=$3 DAEMON=$4
# RUNG@OPTS (zerocopy@zc_pipe_max=0): the rung with more -o options,
# reported under the whole name
RUNG=${TRANSPORT%%@*}
if [[ $TRANSPORT == *@* ]]; then
	export FRING_E2E_OPTS=${FRING_E2E_OPTS:+$FRING_E2E_OPTS,}${TRANSPORT#*@}
fi
# the pool rungs must show that payloads went through a pool, zero-copy
# that data went straight between the backing store and the client's pages
case $RUNG in
bufpool*) export FRING_E2E_STATS_EXPECT='pool_requests>0' ;;
zerocopy) export FRING_E2E_STATS_EXPECT='zero_copy_reads>0 zero_copy_writes>0' ;;
esac
# the directory the sources go in (-S of bench/vm.sh)
store_dir() {
	case ${FRING_BENCH_STORE:-tmpfs} in
	tmpfs) echo /tmp ;;
	ext4)
		if ! grep -q '^[^ ]* /bench-store ext4 ' /proc/mounts; then
			[[ -b /dev/vda ]] || {
				echo "FAIL bench.store: no /dev/vda (FRING_VM_DISK, virtio_blk): block devices: $(cd /sys/block && echo *)" >&2
				return 1
			}
			mkdir -p /bench-store
			mount -t ext4 /dev/vda /bench-store || return 1
		fi
		echo /bench-store
		;;
	*) echo "FAIL bench.store: FRING_BENCH_STORE=$FRING_BENCH_STORE (tmpfs or ext4)" >&2; return 1 ;;
	esac
}
STORE_DIR=$(store_dir) || exit 1
SRC=
# hp_background N: the mounted connection's max_background N and
# congestion_threshold 3/4 of it, rounded up (libfring's default and its
# rule), through fusectl once INIT is done (a stat waits for it)
hp_background() {
	local d
	stat "$MNT" >/dev/null && d=$(fusectl) || return 1
	echo "$1" >"$d/max_background" && echo $(($1 - $1 / 4)) >"$d/congestion_threshold" || return 1
	echo "# $d: max_background $(cat "$d/max_background"), congestion_threshold $(cat "$d/congestion_threshold")"
}

if [[ $FS == hp || $FS == hpbg ]]; then
	# passthrough_hp: no run-suite.sh (it knows libfring's options and
	# stats only); the same steps by hand, and the same fio mode
	URING_PARAM=/sys/module/fuse/parameters/enable_uring
	[[ -w $URING_PARAM ]] || {
		echo "@@FRING-BENCH-REFUSED rep=$REP fs=$FS transport=$TRANSPORT no $URING_PARAM in this kernel@@"
		exit 77
	}
	uring_old=$(<"$URING_PARAM")
	echo Y >"$URING_PARAM"
	TMP=$(mktemp -d /tmp/fring-bench-hp.XXXXXX)
	SRC=$TMP/src MNT=$TMP/mnt
	[[ $STORE_DIR == /tmp ]] || SRC=$(mktemp -d "$STORE_DIR/fring-bench-hp-src.XXXXXX")
	[[ $STORE_DIR == /tmp ]] || export FRING_BENCH_WARM=$SRC
	mkdir -p "$SRC" "$MNT"
	T=10 # seconds to mount and to exit after the unmount (mount-lib.sh)
	# shellcheck source-path=SCRIPTDIR source=../tests/e2e/mount-lib.sh
	source "$S/mount-lib.sh"
	echo "# $DAEMON --foreground --nopassthrough -o io_uring $SRC $MNT"
	"$DAEMON" --foreground --nopassthrough -o io_uring "$SRC" "$MNT" >"$TMP/log" 2>&1 &
	hp_pid=$!
	rc=0
	if ! mount_wait "$hp_pid"; then
		echo "@@FRING-BENCH-REFUSED rep=$REP fs=$FS transport=$TRANSPORT $(tail -n 1 "$TMP/log")@@"
		rc=77
	elif grep -q 'failed to start io-uring' "$TMP/log"; then
		# mounted, but on /dev/fuse: not the configuration asked for
		echo "@@FRING-BENCH-REFUSED rep=$REP fs=$FS transport=$TRANSPORT $(grep -m1 'failed to start io-uring' "$TMP/log")@@"
		rc=77
	elif [[ $FS == hpbg ]] && ! hp_background 256; then
		echo "FAIL bench.hpbg: could not set the connection's max_background"
		rc=1
	else
		"$SELF" "$MNT" fio "$REP" "$FS" "$TRANSPORT" "$DAEMON" || rc=$?
	fi
	umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
	if ! gone "$hp_pid"; then
		echo "FAIL bench.hp_exit: passthrough_hp did not exit within $T s of the unmount"
		kill -KILL "$hp_pid"
		rc=1
	fi
	wait "$hp_pid" 2>/dev/null || true
	sed 's/^/# hp: /' "$TMP/log"
	echo "$uring_old" >"$URING_PARAM"
	rm -rf "$TMP" "$SRC"
	exit "$rc"
fi
if [[ $FS == passthrough || $FS == hpfring ]]; then
	SRC=$(mktemp -d "$STORE_DIR/fring-bench-src.XXXXXX")
	export FRING_E2E_FS_ARGS=$SRC
	[[ $STORE_DIR == /tmp ]] || export FRING_BENCH_WARM=$SRC
fi
# hpfring: the same passthrough_hp on libfring-fuse3, which run-suite.sh
# mounts through tests/e2e/passthrough-hp.sh (its command line, -o
# stats_fd= for the stats file run-suite.sh checks)
[[ $FS == hpfring ]] && export FRING_E2E_WRAPPER=$S/passthrough-hp.sh
out=$(mktemp /tmp/fring-bench-out.XXXXXX)
set +e
"$S/run-suite.sh" "$DAEMON" "$RUNG" "$SELF" fio "$REP" "$FS" "$TRANSPORT" "$DAEMON" 2>&1 |
	tee "$out"
rc=${PIPESTATUS[0]}
set -e
if grep -q '^FAIL run-suite.mount' "$out"; then
	# the daemon's log follows run-suite.sh's "memfs output" line as
	# "# LINE"; the library's reason is a "fring: " line
	reason=$(sed -n '/^# --- memfs output/,$ s/^# //p' "$out" | sed 1d |
		grep -E '^fring: ' | tail -n 1)
	[[ -n $reason ]] || reason=$(sed -n '/^# --- memfs output/,$ s/^# //p' "$out" | tail -n 1)
	echo "@@FRING-BENCH-REFUSED rep=$REP fs=$FS transport=$TRANSPORT ${reason:-no reason in the daemon log}@@"
	rc=77
fi
rm -rf "$out" ${SRC:+"$SRC"}
exit "$rc"
