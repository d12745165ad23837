# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Shell helpers of the scripts that end sessions (teardown.sh,
# tests/stress/faults.sh), sourced after setting MNT (the mountpoint) and T
# (seconds to wait for anything). Bash, awk and busybox-level tools only:
# the vm tier runs teardown.sh in its guest. uring_on skips with
# tests/lib/check.sh's skip, which the caller has sourced.

# (no mountpoint(1): busybox, in the vm guest, has none)
is_mounted() { awk -v m="$1" '$5 == m {f=1} END {exit !f}' /proc/self/mountinfo; }
mounted() { is_mounted "$MNT"; }
# PID -> 0 if it exited within T (a process with a thread left is not gone)
gone() {
	for _ in $(seq $((T * 10))); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}
# PID -> 0 once MNT shows within T, 1 if it does not (or PID exits first)
mount_wait() {
	for _ in $(seq $((T * 20))); do
		mounted && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	mounted
}
threads_of() { ls "/proc/$1/task" 2>/dev/null | wc -l; }
# What a client gets from the mount now. Not a stat of the mountpoint: the
# kernel answers that from attributes cached for attr_timeout (1 s) without
# asking the dead connection (fuse_getattr); a name no client looked up on
# this mount must go to it (LOOKUP). Bounded: a mount that hangs says so.
probe() {
	local out rc
	# shellcheck disable=SC2069  # (its stderr is the answer, stdout is not wanted)
	out=$(timeout -k 2 "$T" stat "$MNT/enotconn-probe-$RANDOM" 2>&1 >/dev/null) && rc=0 || rc=$?
	case $rc in
	0) echo "(stat worked: the mount still serves)" ;;
	124 | 137 | 143) echo "(no answer within $T s: the mount hangs)" ;;
	*) echo "$out" ;;
	esac
}
# What the kernel legitimately answers a client of a mount whose daemon is
# gone: ENOTCONN once the connection is dead; on the ring transports a
# request in flight, or queued on a ring, when the daemon died ends with
# ECONNABORTED ("Software caused connection abort") while the kernel tears
# the rings down after the process (io_uring's exit work); an aborted ring
# entry with ECANCELED; ECONNREFUSED after a failed INIT.
DEAD_RE='Transport endpoint is not connected|Software caused connection abort|Operation canceled|Connection refused'
# ERR (a client's stderr): it names a dead connection. A command that worked
# or hung (probe's words for them) does not.
dead_answer() { grep -Eq "$DEAD_RE" <<<"$1"; }
# The fusectl directory of the connection mounted at MNT.
fusectl() {
	is_mounted /sys/fs/fuse/connections || mount -t fusectl none /sys/fs/fuse/connections 2>/dev/null
	local dev
	dev=$(stat -c %d "$MNT" 2>/dev/null) || return 1
	echo "/sys/fs/fuse/connections/$((dev & 0xff | (dev >> 12 & ~0xff)))"
}
# The fuse module's enable_uring switch on when TRANSPORT is uring (a skip,
# check.sh's, when it cannot be); uring_restore puts it back.
uring_on() { # TRANSPORT
	PARAM=/sys/module/fuse/parameters/enable_uring
	old_param=
	[[ $1 == uring ]] || return 0
	[[ -w $PARAM ]] || skip "no $PARAM: this kernel has no FUSE-over-io_uring"
	old_param=$(cat "$PARAM")
	echo Y >"$PARAM"
}
uring_restore() { [[ -z ${old_param:-} ]] || echo "$old_param" >"$PARAM"; }
