#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# lifecycle.sh MEMFS
#
# Mount lifecycle tests of a libfring filesystem (examples/memfs):
#  a) a non-root mount through fusermount3, used and unmounted by that user
#     (and refused with allow_other, unless /etc/fuse.conf allows it);
#  b) a lazy unmount while a file is open: the fd still reads, memfs exits 0
#     once it is closed;
#  c) kill -9 of the daemon: clients get an error naming the dead connection
#     (ENOTCONN, or ECONNABORTED/ECANCELED from a ring torn down after the
#     process; mount-lib.sh's dead_answer), not an answer and not a hang;
#     umount works, a new mount works;
#  d) bad command lines exit 1 with a message and mount nothing;
#  e) mounting over a dead FUSE mount fails clearly and quickly;
#  f) SIGTERM: memfs unmounts and exits 0;
#  g) without -f: the command returns once the mount is there.
# Prints one line per check and "N passed, N failed[, N skipped]".
# Needs root (exit 77 otherwise; FRING_E2E_NO_SKIP=1 turns that into 1).
# FRING_E2E_OPTS: -o options for every mount (e.g. transport=uring); the
# stats part b's memfs writes at exit must name that transport (any without
# one) and satisfy FRING_E2E_STATS_EXPECT (stats.sh); they are printed as
# "@@FRING-STATS {...}@@". A skipped check (no fusermount3, no setpriv) fails
# when FRING_E2E_NO_SKIP=1. Bash, awk and busybox-level tools otherwise: the
# vm tier runs it in its guest, with util-linux's setpriv and fusermount3.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=stats.sh
source "$(dirname "${BASH_SOURCE[0]}")/stats.sh"
# (for DEAD_RE and dead_answer: what a dead mount answers)
# shellcheck source-path=SCRIPTDIR source=mount-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mount-lib.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

[[ $# -eq 1 ]] || { echo "usage: $0 MEMFS" >&2; exit 1; }
MEMFS=$1

[[ $(id -u) == 0 ]] || skip "lifecycle.sh needs root"
[[ -c /dev/fuse ]] || skip "no /dev/fuse"
[[ -x $MEMFS ]] || { echo "lifecycle: $MEMFS is not an executable"; exit 1; }
MEMFS=$(realpath "$MEMFS")

transport=auto
[[ ,${FRING_E2E_OPTS:-}, =~ ,transport=([^,]*), ]] && transport=${BASH_REMATCH[1]}
NOBODY_UID=${FRING_E2E_NONROOT_UID:-65534}
NOBODY_GID=${FRING_E2E_NONROOT_GID:-65534}
# seconds for anything that should be quick: only waited for in full when
# it fails, so generous for a loaded machine (the vm tier may give more)
T=${FRING_E2E_LIFECYCLE_SECONDS:-20}


TMP=$(mktemp -d /tmp/fring-lifecycle.XXXXXX)
chmod 755 "$TMP"
pids=()
fuse_mode= # the original mode of /dev/fuse when part a) changed it

is_mounted() {
	awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo
}
mounts_under_tmp() {
	awk -v t="$TMP/" 'index($5, t) == 1 { n++ } END { print n + 0 }' /proc/self/mountinfo
}
wait_mounted() { # DIR [PID]: up to $T s; fails early if PID died
	for _ in $(seq $((T * 20))); do
		is_mounted "$1" && return 0
		if [[ -n ${2:-} ]] && ! kill -0 "$2" 2>/dev/null; then
			return 1
		fi
		sleep 0.05
	done
	return 1
}
wait_gone() { # PID: up to $T s
	for _ in $(seq $((T * 10))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}
wait_status() { # PID -> prints the exit status (after wait_gone)
	local rc=0
	wait "$1" || rc=$?
	echo "$rc"
}
show_log() {
	echo "# --- $1 (last 30 lines) ---"
	tail -n 30 "$1" 2>/dev/null | sed 's/^/# /' || true
}

# shellcheck disable=SC2317  # (run by the trap)
cleanup() {
	local rc=$?
	set +e
	# unmount everything under $TMP, deepest first
	awk -v t="$TMP/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	restore_fuse_mode
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

# start_memfs NAME DIR [memfs args...]: background, foreground mode
start_memfs() {
	local name=$1 dir=$2
	shift 2
	"$MEMFS" -f ${FRING_E2E_OPTS:+-o "$FRING_E2E_OPTS"} --stats-file="$TMP/$name.stats" "$@" "$dir" >"$TMP/$name.log" 2>&1 &
	memfs_pid=$!
	pids+=("$memfs_pid")
}

as_user() {
	setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups -- "$@"
}

# ---------------------------------------------------------------------------
# a) non-root mount through fusermount3
part_a() {
	local dir=$TMP/a/mnt out pid rc
	if ! command -v fusermount3 >/dev/null; then
		skip_check lifecycle.nonroot "no fusermount3"
		return
	fi
	if ! command -v setpriv >/dev/null; then
		skip_check lifecycle.nonroot "no setpriv"
		return
	fi
	mkdir -p "$dir"
	chown -R "$NOBODY_UID:$NOBODY_GID" "$TMP/a"
	if ! as_user test -x "$MEMFS"; then
		skip_check lifecycle.nonroot "uid $NOBODY_UID cannot execute $MEMFS (a parent directory is not searchable)"
		return
	fi
	# fusermount3 opens /dev/fuse as the user: distributions make it 0666,
	# some containers 0600. Open it up for this part (restored at exit).
	if ! as_user test -r /dev/fuse -a -w /dev/fuse; then
		fuse_mode=$(stat -c %a /dev/fuse)
		echo "# /dev/fuse is mode $fuse_mode: making it 0666 for this part"
		chmod 0666 /dev/fuse
	fi
	if [[ $transport == zerocopy ]]; then
		# only CAP_SYS_ADMIN may put client pages in a ring: a user's
		# zerocopy mount must be refused, saying so, before mounting
		out=$(as_user timeout $T "$MEMFS" -f -o "$FRING_E2E_OPTS" "$dir" 2>&1) && rc=0 || rc=$?
		check lifecycle.nonroot_zerocopy_refused "expected exit 1 naming CAP_SYS_ADMIN got rc $rc: $out" \
			bash -c "[[ $rc == 1 ]] && grep -q CAP_SYS_ADMIN <<<\"\$1\"" _ "$out"
		check lifecycle.nonroot_zerocopy_not_mounted "expected $dir not mounted" bash -c "! awk -v m='$dir' '\$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo"
		restore_fuse_mode
		return
	fi
	# allow_other lets every user reach the daemon: a user gets it only
	# with user_allow_other in /etc/fuse.conf, and libfring says so
	# before fusermount3 would refuse
	if grep -qx '[[:space:]]*user_allow_other[[:space:]]*' /etc/fuse.conf 2>/dev/null; then
		skip_check lifecycle.nonroot_allow_other_refused "/etc/fuse.conf has user_allow_other"
	else
		out=$(as_user timeout $T "$MEMFS" -f ${FRING_E2E_OPTS:+-o "$FRING_E2E_OPTS"} -o allow_other "$dir" 2>&1) && rc=0 || rc=$?
		check lifecycle.nonroot_allow_other_refused "expected exit 1 naming user_allow_other got rc $rc: $out" \
			bash -c "[[ $rc == 1 ]] && grep -q 'allow_other needs root' <<<\"\$1\" && grep -q 'user_allow_other' <<<\"\$1\"" _ "$out"
		check lifecycle.nonroot_allow_other_not_mounted "expected $dir not mounted" bash -c "! awk -v m='$dir' '\$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo"
	fi
	as_user "$MEMFS" -f ${FRING_E2E_OPTS:+-o "$FRING_E2E_OPTS"} --stats-file="$TMP/a/stats.json" "$dir" >"$TMP/a.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	if ! wait_mounted "$dir" "$pid"; then
		fail lifecycle.nonroot_mount "expected uid $NOBODY_UID to mount $dir through fusermount3 within $T s"
		show_log "$TMP/a.log"
		kill -KILL "$pid" 2>/dev/null || true
		restore_fuse_mode
		return
	fi
	ok lifecycle.nonroot_mount
	check lifecycle.nonroot_mount_owner "expected user_id=$NOBODY_UID in the mount options" \
		grep -q "$dir .*user_id=$NOBODY_UID" /proc/self/mountinfo
	out=$(as_user timeout $T sh -c "echo hello-nobody > '$dir/f' && cat '$dir/f'" 2>&1) || true
	check lifecycle.nonroot_write_read "expected \"hello-nobody\" got \"$out\"" \
		test "$out" = hello-nobody
	out=$(as_user timeout $T stat -c %u "$dir/f" 2>&1) || true
	check lifecycle.nonroot_file_owner "expected owner $NOBODY_UID got \"$out\"" \
		test "$out" = "$NOBODY_UID"
	# without allow_other, even root is kept out
	out=$(timeout $T stat "$dir/f" 2>&1) && rc=0 || rc=$?
	check lifecycle.nonroot_others_denied "expected root to get EACCES got rc $rc: $out" \
		grep -q "Permission denied" <<<"$out"
	out=$(as_user timeout $T fusermount3 -u "$dir" 2>&1) && rc=0 || rc=$?
	check lifecycle.nonroot_fusermount_u "expected fusermount3 -u to work got rc $rc: $out" \
		test "$rc" = 0
	if wait_gone "$pid"; then
		rc=$(wait_status "$pid")
		check lifecycle.nonroot_exit0 "expected memfs to exit 0 got $rc" test "$rc" = 0
	else
		fail lifecycle.nonroot_exit0 "expected memfs to exit within $T s of the unmount"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	check lifecycle.nonroot_unmounted "expected $dir not mounted" bash -c "! awk -v m='$dir' '\$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo"
	check lifecycle.nonroot_stats "expected $TMP/a/stats.json" test -s "$TMP/a/stats.json"
	restore_fuse_mode
}

restore_fuse_mode() {
	if [[ -n $fuse_mode ]]; then
		chmod "$fuse_mode" /dev/fuse
		fuse_mode=
	fi
}

# ---------------------------------------------------------------------------
# b) lazy unmount with an open file
part_b() {
	local dir=$TMP/b out rc pid
	mkdir -p "$dir"
	start_memfs b "$dir"
	pid=$memfs_pid
	if ! wait_mounted "$dir" "$pid"; then
		fail lifecycle.lazy_mount "expected memfs to mount $dir within $T s"
		show_log "$TMP/b.log"
		return
	fi
	# fring_main() mounts with default_permissions unless told otherwise
	if [[ ,${FRING_E2E_OPTS:-}, == *,no_default_permissions,* ]]; then
		skip_check lifecycle.default_permissions "FRING_E2E_OPTS has no_default_permissions"
	else
		check lifecycle.default_permissions "expected default_permissions in the mount's options" \
			grep -q "$dir .*default_permissions" /proc/self/mountinfo
	fi
	timeout $T sh -c "printf 'still here' > '$dir/f'"
	exec 7<"$dir/f"
	check lifecycle.lazy_umount "expected umount -l to work" umount -l "$dir"
	check lifecycle.lazy_unmounted "expected $dir gone from mountinfo" bash -c "! awk -v m='$dir' '\$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo"
	out=$(timeout $T cat <&7 2>&1) || true
	check lifecycle.lazy_fd_reads "expected \"still here\" got \"$out\"" test "$out" = "still here"
	check lifecycle.lazy_memfs_still_serving "expected memfs alive while the fd is open" \
		kill -0 "$pid"
	exec 7<&-
	if wait_gone "$pid"; then
		rc=$(wait_status "$pid")
		check lifecycle.lazy_exit0 "expected memfs to exit 0 got $rc" test "$rc" = 0
		[[ $rc == 0 ]] || show_log "$TMP/b.log"
		stats_checks "$TMP/b.stats" "$transport" lifecycle.lazy || show_log "$TMP/b.log"
	else
		fail lifecycle.lazy_exit0 "expected memfs to exit within $T s of the last close"
		show_log "$TMP/b.log"
		kill -KILL "$pid" 2>/dev/null || true
	fi
}

# ---------------------------------------------------------------------------
# c) kill -9, then ENOTCONN, umount, and a new mount on the same directory
part_c() {
	local dir=$TMP/c out rc pid
	mkdir -p "$dir"
	start_memfs c1 "$dir"
	pid=$memfs_pid
	if ! wait_mounted "$dir" "$pid"; then
		fail lifecycle.kill9_mount "expected memfs to mount $dir within $T s"
		show_log "$TMP/c1.log"
		return
	fi
	timeout $T sh -c "echo before > '$dir/f'"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	# A name no client looked up: the kernel must ask the connection (a
	# stat of f could be answered from what it cached). The first request
	# after the kill may meet the rings still being torn down (the kernel
	# does that after the process is gone): ECONNABORTED then, ENOTCONN
	# once the connection is dead. Not an answer, not a hang.
	out=$(timeout -k 2 $T stat "$dir/never-looked-up" 2>&1) && rc=0 || rc=$?
	check lifecycle.kill9_enotconn "expected an error naming the dead connection ($DEAD_RE) got rc $rc: $out" \
		bash -c "[[ $rc != 0 && $rc != 124 && $rc != 137 && $rc != 143 ]] && grep -Eq '$DEAD_RE' <<<\"\$1\"" _ "$out"
	out=$(timeout -k 2 $T ls "$dir" 2>&1) && rc=0 || rc=$?
	check lifecycle.kill9_enotconn_ls "expected ls to fail naming the dead connection got rc $rc: $out" \
		bash -c "[[ $rc != 0 && $rc != 124 && $rc != 137 && $rc != 143 ]] && grep -Eq '$DEAD_RE' <<<\"\$1\"" _ "$out"
	out=$(timeout $T umount "$dir" 2>&1) && rc=0 || rc=$?
	check lifecycle.kill9_umount "expected umount to work got rc $rc: $out" test "$rc" = 0
	check lifecycle.kill9_unmounted "expected $dir not mounted" bash -c "! awk -v m='$dir' '\$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo"
	start_memfs c2 "$dir"
	pid=$memfs_pid
	if ! wait_mounted "$dir" "$pid"; then
		fail lifecycle.kill9_remount "expected memfs to mount $dir again within $T s"
		show_log "$TMP/c2.log"
		return
	fi
	ok lifecycle.kill9_remount
	out=$(timeout $T sh -c "test ! -e '$dir/f' && echo again > '$dir/g' && cat '$dir/g'" 2>&1) || true
	check lifecycle.kill9_remount_works "expected a fresh, working filesystem got \"$out\"" \
		test "$out" = again
	timeout $T umount "$dir" || umount -l "$dir"
	if wait_gone "$pid"; then
		rc=$(wait_status "$pid")
		check lifecycle.kill9_remount_exit0 "expected memfs to exit 0 got $rc" test "$rc" = 0
	else
		fail lifecycle.kill9_remount_exit0 "expected memfs to exit within $T s of the unmount"
	fi
}

# ---------------------------------------------------------------------------
# d) bad command lines
bad_cmdline() { # NAME ARGS...
	local name=$1 rc before after
	shift
	before=$(mounts_under_tmp)
	timeout $T "$MEMFS" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" && rc=0 || rc=$?
	after=$(mounts_under_tmp)
	check "lifecycle.badcmd_${name}_exit1" "expected exit status 1 got $rc" test "$rc" = 1
	check "lifecycle.badcmd_${name}_message" "expected a message on stderr got none" \
		test -s "$TMP/$name.err"
	check "lifecycle.badcmd_${name}_no_mount" "expected no new mount got $before -> $after" \
		test "$before" = "$after"
	if [[ $after != "$before" ]]; then
		# do not leave it behind
		awk -v t="$TMP/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo |
			while read -r m; do umount -l "$m"; done
	fi
}

part_d() {
	mkdir -p "$TMP/d"
	: >"$TMP/d/file"
	bad_cmdline unknown_flag -f --no-such-flag "$TMP/d"
	bad_cmdline unknown_option -f -o no_such_option "$TMP/d"
	bad_cmdline bad_transport -f -o transport=carrier-pigeon "$TMP/d"
	bad_cmdline missing_mountpoint -f
	bad_cmdline nonexistent_mountpoint -f "$TMP/d/nonexistent"
	bad_cmdline mountpoint_is_file -f "$TMP/d/file"
}

# ---------------------------------------------------------------------------
# e) mounting over a dead FUSE mount
part_e() {
	local dir=$TMP/e rc pid
	mkdir -p "$dir"
	start_memfs e1 "$dir"
	pid=$memfs_pid
	if ! wait_mounted "$dir" "$pid"; then
		fail lifecycle.dead_mount "expected memfs to mount $dir within $T s"
		show_log "$TMP/e1.log"
		return
	fi
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	timeout $T "$MEMFS" -f "$dir" >"$TMP/e2.out" 2>"$TMP/e2.err" && rc=0 || rc=$?
	check lifecycle.dead_mount_no_hang "expected memfs to give up within $T s (timeout hit)" \
		test "$rc" != 124
	check lifecycle.dead_mount_exit1 "expected exit status 1 got $rc" test "$rc" = 1
	check lifecycle.dead_mount_message "expected a message on stderr got none" \
		test -s "$TMP/e2.err"
	echo "# message: $(head -c 300 "$TMP/e2.err")"
	timeout $T umount "$dir" 2>/dev/null || umount -l "$dir"
}

# ---------------------------------------------------------------------------
# f) SIGTERM
part_f() {
	local dir=$TMP/f rc pid
	mkdir -p "$dir"
	start_memfs f "$dir"
	pid=$memfs_pid
	if ! wait_mounted "$dir" "$pid"; then
		fail lifecycle.sigterm_mount "expected memfs to mount $dir within $T s"
		show_log "$TMP/f.log"
		return
	fi
	kill -TERM "$pid"
	if wait_gone "$pid"; then
		rc=$(wait_status "$pid")
		check lifecycle.sigterm_exit0 "expected memfs to exit 0 got $rc" test "$rc" = 0
	else
		fail lifecycle.sigterm_exit0 "expected memfs to exit within $T s of SIGTERM"
		show_log "$TMP/f.log"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	check lifecycle.sigterm_unmounted "expected $dir unmounted after SIGTERM" bash -c "! awk -v m='$dir' '\$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo"
	check lifecycle.sigterm_stats "expected the stats file at exit" test -s "$TMP/f.stats"
	is_mounted "$dir" && { umount "$dir" 2>/dev/null || umount -l "$dir"; }
	return 0
}

# ---------------------------------------------------------------------------
# g) daemon mode
part_g() {
	local dir=$TMP/g rc out
	mkdir -p "$dir"
	timeout $T "$MEMFS" --stats-file="$TMP/g.stats" "$dir" >"$TMP/g.log" 2>&1 && rc=0 || rc=$?
	check lifecycle.daemon_returns0 "expected the command to return 0 got $rc" test "$rc" = 0
	check lifecycle.daemon_mounted_on_return "expected $dir mounted when the command returns" \
		is_mounted "$dir"
	out=$(timeout $T sh -c "echo daemon > '$dir/f' && cat '$dir/f'" 2>&1) || true
	check lifecycle.daemon_works "expected \"daemon\" got \"$out\"" test "$out" = daemon
	timeout $T umount "$dir" || umount -l "$dir" || true
	for _ in $(seq $((T * 10))); do
		[[ -s $TMP/g.stats ]] && break
		sleep 0.1
	done
	check lifecycle.daemon_exits_after_umount "expected the daemon to write its stats file at exit" \
		test -s "$TMP/g.stats"
}

part_a
part_b
part_c
part_d
part_e
part_f
part_g

check_done
