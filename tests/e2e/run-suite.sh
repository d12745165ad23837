#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-suite.sh MEMFS TRANSPORT TEST [ARGS...]
#
# Mounts MEMFS (in the foreground, in the background of this script) with
#   -o transport=TRANSPORT,allow_other,default_permissions,dev[,$FRING_E2E_OPTS]
# on a fresh directory, runs "TEST MOUNTPOINT ARGS...", unmounts, waits for
# MEMFS to exit and checks its --stats-file (stats.sh): the transport is the
# one asked for (unless "auto"; FRING_E2E_STATS_TRANSPORT names another, e.g.
# dev for a ring that fell back), it answered requests, and
# FRING_E2E_STATS_EXPECT holds; prints the stats as "@@FRING-STATS {...}@@".
#
# Exit status: the test's own; 1 if a check of this script failed; 77 (skip)
# stays 77 unless FRING_E2E_NO_SKIP=1, which turns it into 1 (the policy of
# tests/lib/check.sh). The checks the test itself skipped (a C program's
# "skip NAME: why", e.g. O_TMPFILE on a kernel before 6.7) are counted in
# the summary line and do not fail it: they say what the kernel lacks.
# Environment: FRING_E2E_OPTS (more -o options), FRING_E2E_TIMEOUT (seconds
# for TEST, 900), FRING_E2E_KEEP=1 (keep the temporary directory),
# FRING_E2E_FS_ARGS (arguments before the mountpoint, e.g. a source
# directory), FRING_E2E_STATS_EXPECT (what the stats must show beyond the
# transport, see stats.sh), FRING_E2E_WRAPPER (a command MEMFS runs under,
# e.g. valgrind and its options; words split on blanks) and
# FRING_E2E_WAIT (seconds MEMFS gets to mount and to exit, 30: polled, so
# waited for in full only when it fails; a loaded machine can be slow).
# TEST gets FRING_E2E_DAEMON_PID (MEMFS's pid) and FRING_E2E_LOG (the file
# MEMFS writes its output to) in its environment.
#
# It needs bash, awk and the usual tools only (no python): the vm tier runs it
# in a busybox guest.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=stats.sh
source "$(dirname "${BASH_SOURCE[0]}")/stats.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

usage() {
	echo "usage: $0 MEMFS TRANSPORT TEST [ARGS...]" >&2
	exit 1
}

[[ $# -ge 3 ]] || usage
MEMFS=$1
TRANSPORT=$2
TEST=$3
shift 3

[[ $(id -u) == 0 ]] || skip "run-suite.sh mounts with allow_other: it needs root"
[[ -c /dev/fuse ]] || skip "no /dev/fuse"
[[ -x $MEMFS ]] || { echo "run-suite: $MEMFS is not an executable"; exit 1; }
[[ -x $TEST ]] || { echo "run-suite: $TEST is not an executable"; exit 1; }

# The io_uring transport needs the fuse module's switch on; the old value
# is put back on exit.
URING_PARAM=/sys/module/fuse/parameters/enable_uring
uring_old=
if [[ $TRANSPORT == uring ]]; then
	[[ -w $URING_PARAM ]] || skip "no $URING_PARAM: this kernel has no FUSE-over-io_uring"
	uring_old=$(cat "$URING_PARAM")
	echo Y >"$URING_PARAM"
fi

TMP=$(mktemp -d /tmp/fring-e2e.XXXXXX)
# the non-root part of the tests must be able to walk down to the mountpoint
chmod 755 "$TMP"
MNT=$TMP/mnt
STATS=$TMP/stats.json
LOG=$TMP/memfs.log
OUT=$TMP/test.out
mkdir "$MNT"
chmod 755 "$MNT"
memfs_pid=

is_mounted() {
	# field 5 of mountinfo is the mount point
	awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# shellcheck disable=SC2317  # (run by the trap)
cleanup() {
	local rc=$?
	set +e
	if is_mounted "$MNT"; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	fi
	if [[ -n $memfs_pid ]] && kill -0 "$memfs_pid" 2>/dev/null; then
		kill -TERM "$memfs_pid" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$memfs_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$memfs_pid" 2>/dev/null
	fi
	if [[ -n $uring_old ]]; then
		echo "$uring_old" >"$URING_PARAM"
	fi
	if [[ ${FRING_E2E_KEEP:-0} == 1 ]]; then
		echo "# kept $TMP"
	else
		rm -rf "$TMP"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

show_log() {
	echo "# --- memfs output (last 60 lines of $LOG) ---"
	tail -n 60 "$LOG" 2>/dev/null | sed 's/^/# /' || true
}

# dev: device files work, so that posix_suite checks them rather than
# skipping that check on a nodev mount
opts="transport=$TRANSPORT,allow_other,default_permissions,dev"
if [[ -n ${FRING_E2E_OPTS:-} ]]; then
	opts="$opts,$FRING_E2E_OPTS"
fi
# FRING_E2E_FS_ARGS: positional arguments before the mountpoint (e.g. the
# source directory of examples/passthrough)
read -r -a fs_args <<<"${FRING_E2E_FS_ARGS:-}"
read -r -a wrapper <<<"${FRING_E2E_WRAPPER:-}"
WAIT=${FRING_E2E_WAIT:-30}
echo "# ${wrapper[*]} $MEMFS -f -o $opts --stats-file=$STATS ${fs_args[*]} $MNT"
"${wrapper[@]}" "$MEMFS" -f -o "$opts" --stats-file="$STATS" "${fs_args[@]}" "$MNT" >"$LOG" 2>&1 &
memfs_pid=$!

# wait (bounded) for the mount to appear
mounted=0
for _ in $(seq $((WAIT * 20))); do
	if is_mounted "$MNT"; then
		mounted=1
		break
	fi
	if ! kill -0 "$memfs_pid" 2>/dev/null; then
		break
	fi
	sleep 0.05
done
if [[ $mounted != 1 ]]; then
	fail run-suite.mount "expected $MNT in /proc/self/mountinfo within $WAIT s got none"
	show_log
	check_done
fi
ok run-suite.mount

# run the test; its output goes through and into $OUT for the summary
set +e
# (FRING_E2E_DAEMON_PID: tests/stress/load watches the daemon's memory;
# FRING_E2E_LOG: remotefs.sh reads the daemon's -d lines)
FRING_E2E_DAEMON_PID=$memfs_pid FRING_E2E_LOG=$LOG timeout -k 10 "${FRING_E2E_TIMEOUT:-900}" "$TEST" "$MNT" "$@" 2>&1 | tee "$OUT"
test_rc=${PIPESTATUS[0]}
set -e
# (busybox timeout, in the vm guest, exits 143 where coreutils exits 124)
if [[ $test_rc == 124 || $test_rc == 137 || $test_rc == 143 ]]; then
	fail run-suite.test_time "expected $TEST to finish within ${FRING_E2E_TIMEOUT:-900} s"
fi

# unmount (bounded: a daemon that hangs could hold it in writeback), then
# memfs must exit by itself
if timeout -k 5 "$WAIT" umount "$MNT" 2>"$TMP/umount.err"; then
	ok run-suite.umount
else
	fail run-suite.umount "expected umount to work within $WAIT s got: $(cat "$TMP/umount.err")"
	umount -l "$MNT" 2>/dev/null || true
fi
exited=0
for _ in $(seq $((WAIT * 10))); do
	if ! kill -0 "$memfs_pid" 2>/dev/null; then
		exited=1
		break
	fi
	sleep 0.1
done
if [[ $exited == 1 ]]; then
	set +e
	wait "$memfs_pid"
	memfs_rc=$?
	set -e
	memfs_pid=
	if [[ $memfs_rc == 0 ]]; then
		ok run-suite.memfs_exit
	else
		fail run-suite.memfs_exit "expected memfs to exit 0 after the unmount got $memfs_rc"
		show_log
	fi
else
	fail run-suite.memfs_exit "expected memfs to exit within $WAIT s of the unmount, it did not"
	show_log
fi

# what it said it mounted (FUSE version, transport and why), and the
# statistics
sed -n '/mounted /s/^/# fs: /p' "$LOG"
# a feature the kernel lacks (e.g. passthrough-io.sh reads this line)
grep '^NOT OFFERED: ' "$LOG" || true
stats_checks "$STATS" "${FRING_E2E_STATS_TRANSPORT:-$TRANSPORT}" run-suite || show_log

# a summary line that adds our checks to the test's
t_pass=0 t_fail=0 t_skip=0
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$OUT" | tail -n 1 || true)
if [[ -n $line ]]; then
	read -r t_pass _ t_fail _ t_skip _ <<<"${line//,/}"
	t_skip=${t_skip:-0}
fi
passed=$((passed + t_pass))
failed=$((failed + t_fail))
if [[ $test_rc == 77 ]]; then
	t_skip=$((t_skip + 1))
fi
skipped=$((skipped + t_skip))
if [[ $test_rc != 0 && $test_rc != 77 && $t_fail == 0 ]]; then
	# the test died without reporting its failure
	fail run-suite.test_exit "expected $TEST to exit 0 got $test_rc"
fi
check_summary

if [[ $test_rc == 77 ]]; then
	[[ $failed == 0 ]] || exit 1
	exit_status 77
fi
if [[ $test_rc != 0 ]]; then
	exit "$test_rc"
fi
[[ $failed == 0 ]] || exit 1
exit 0
