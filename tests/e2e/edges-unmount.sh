# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# The unmount part of the edge tier (doc/operations.md, "Unmounting: only
# its own mount"): a daemon unmounts the mount it made, wherever it is now,
# and nothing else. Each case checks that the daemon ran on TRANSPORT; the
# file systems below, above or beside memfs's mount are the case's own
# tmpfs mounts under $D, and each must keep its file. Bash, awk, coreutils
# and mount/umount (busybox's do: --move, --bind, --make-private, -l); the
# user_* cases also need setpriv, fusermount3 and unshare.
CASES=(sigterm_plain umount_by_other under_removed lazy_then_new
	covered_sigterm covered_twice submount_inside stack_refused
	stack_overmount stack_sigterm_lower stack_on_stopped dead_mount_refused
	moved bind_elsewhere sigterm_busy user_covered user_moved
	auto_unmount_kill kill_without_auto auto_unmount_sigterm
	auto_unmount_replaced auto_unmount_submount user_auto_unmount
	adopted_quiet adopted_auto_unmount_kill adopted_auto_unmount_sigterm)

EDGES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

logged() { wait_for "$T" grep -q -- "$2" "$1"; } # LOG TEXT
# The mount is in the table before INIT is answered; the mount line, which
# names the transport, comes after the queues started.
served() { logged "$DLOG" "mounted "; }
up() { # DIR [OPTIONS...]: memfs there, or the case fails and returns 1
	if ! start_memfs "$@" || ! served; then
		fail "" "memfs did not mount at $1: $(cat "$DLOG")"
		return 1
	fi
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
}
has() { [[ -f $1 && $(cat "$1" 2>/dev/null) == "$2" ]]; } # FILE CONTENT
# PID: waits up to $T s for it to exit; its status in $rc ("alive" if not)
ended() {
	rc=alive
	wait_gone "$1" && rc=$(status_of "$1")
}
not_mounted() { [[ $(mount_count "$1") == 0 ]]; }
# memfs on TRANSPORT in the foreground that must refuse to start: its exit
# status in $rc, its messages in $out (a hang ends at $T s: status 124)
refused() { # DIR [OPTIONS...]
	local dir=$1
	shift
	out=$(timeout -k 5 "$T" "$MEMFS" -f -o "$(topt)${1:+,$1}" "$dir" 2>&1)
	rc=$?
}

# A plain SIGTERM: unmounted, exit 0.
case_sigterm_plain() {
	up "$D/m" || return
	echo data >"$D/m/f"
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted "still mounted at $D/m" not_mounted "$D/m"
}

# Someone else unmounts memfs's mount: memfs exits 0.
case_umount_by_other() {
	up "$D/m" || return
	umount "$D/m"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted "still mounted at $D/m" not_mounted "$D/m"
}

# memfs over a tmpfs, whose owner unmounts memfs's mount: memfs exits and
# the tmpfs below keeps its file (before: memfs unmounted the tmpfs).
case_under_removed() {
	tmpfs_at "$D/m"
	echo keep >"$D/m/f"
	up "$D/m" || return
	umount "$D/m"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check tmpfs_kept "top at $D/m: $(top_fstype "$D/m") ($(mount_count "$D/m") mounts)" \
		[ "$(top_fstype "$D/m")" = tmpfs ]
	check file_kept "the tmpfs's file is gone" has "$D/m/f" keep
}

# A client holds a file, the mount is detached (umount -l), a tmpfs goes on
# the path; the client closes, memfs exits and the tmpfs stays.
case_lazy_then_new() {
	up "$D/m" || return
	echo data >"$D/m/f"
	exec 3<"$D/m/f"
	umount -l "$D/m"
	tmpfs_at "$D/m"
	echo keep >"$D/m/g"
	check still_serving "the held file does not read back" [ "$(cat <&3)" = data ]
	exec 3<&-
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check tmpfs_kept "top at $D/m: $(top_fstype "$D/m")" [ "$(top_fstype "$D/m")" = tmpfs ]
	check file_kept "the new tmpfs's file is gone" has "$D/m/g" keep
}

# A tmpfs over live memfs, then SIGTERM: nothing is unmounted and memfs
# keeps serving; once the tmpfs is gone, memfs's data is there and a SIGTERM
# unmounts it (before: the SIGTERM unmounted the tmpfs).
case_covered_sigterm() {
	up "$D/m" || return
	echo data >"$D/m/f"
	tmpfs_at "$D/m"
	echo keep >"$D/m/g"
	kill -TERM "$DPID"
	check warned "no warning in the log: $(cat "$DLOG")" logged "$DLOG" "is covered by the tmpfs mount at $D/m"
	check serving_on "memfs exited" alive "$DPID"
	check tmpfs_kept "top at $D/m: $(top_fstype "$D/m")" [ "$(top_fstype "$D/m")" = tmpfs ]
	check file_kept "the tmpfs's file is gone" has "$D/m/g" keep
	umount "$D/m"
	check data_kept "memfs's file reads \"$(cat "$D/m/f" 2>&1)\"" has "$D/m/f" data
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted "still mounted at $D/m" not_mounted "$D/m"
}

# Covered, asked twice (SIGINT, then SIGHUP): memfs exits 0 and unmounts
# nothing; its mount stays, dead, under the tmpfs.
case_covered_twice() {
	up "$D/m" || return
	tmpfs_at "$D/m"
	echo keep >"$D/m/g"
	kill -INT "$DPID"
	check warned "no warning in the log: $(cat "$DLOG")" logged "$DLOG" "is covered by"
	check serving_on "memfs exited" alive "$DPID"
	kill -HUP "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check said_so "log: $(cat "$DLOG")" grep -q "exit asked again: ending without unmounting" "$DLOG"
	check tmpfs_kept "top at $D/m: $(top_fstype "$D/m")" [ "$(top_fstype "$D/m")" = tmpfs ]
	check file_kept "the tmpfs's file is gone" has "$D/m/g" keep
	check left_below "$(mount_count "$D/m") mounts at $D/m" [ "$(mount_count "$D/m")" = 2 ]
}

# A tmpfs mounted on a directory inside memfs: a SIGTERM leaves both (an
# unmount would detach the tmpfs with it); without it, SIGTERM unmounts.
case_submount_inside() {
	up "$D/m" || return
	echo data >"$D/m/f"
	tmpfs_at "$D/m/sub"
	echo keep >"$D/m/sub/g"
	kill -TERM "$DPID"
	check warned "no warning in the log: $(cat "$DLOG")" logged "$DLOG" "is holding the tmpfs mount at $D/m/sub"
	check serving_on "memfs exited" alive "$DPID"
	check file_kept "the tmpfs's file is gone" has "$D/m/sub/g" keep
	check data_kept "memfs's file is gone" has "$D/m/f" data
	umount "$D/m/sub"
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted "still mounted at $D/m" not_mounted "$D/m"
}

# A second memfs on a live one is refused before mounting, naming the
# option (before: it mounted on top without a word).
case_stack_refused() {
	up "$D/m" || return
	echo data >"$D/m/f"
	refused "$D/m"
	check exit1 "status $rc: $out" [ "$rc" = 1 ]
	check names_option "message: $out" grep -q "with -o overmount" <<<"$out"
	check not_stacked "$(mount_count "$D/m") mounts at $D/m" [ "$(mount_count "$D/m")" = 1 ]
	check first_serves "memfs's file reads \"$(cat "$D/m/f" 2>&1)\"" has "$D/m/f" data
}

# Two memfs stacked with overmount: an umount takes the top one only, the
# lower one serves on with its data; each exits 0 and takes only its own.
case_stack_overmount() {
	local p1 l1
	up "$D/m" || return
	p1=$DPID l1=$DLOG
	echo one >"$D/m/f"
	up "$D/m" overmount || return
	check both "$(mount_count "$D/m") mounts at $D/m" [ "$(mount_count "$D/m")" = 2 ]
	echo two >"$D/m/f"
	umount "$D/m"
	ended "$DPID"
	check top_exit0 "status $rc" [ "$rc" = 0 ]
	check lower_serves "memfs's file reads \"$(cat "$D/m/f" 2>&1)\"" has "$D/m/f" one
	check lower_alive "the lower memfs exited: $(cat "$l1")" alive "$p1"
	kill -TERM "$p1"
	ended "$p1"
	check lower_exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted "$(mount_count "$D/m") mounts left at $D/m" not_mounted "$D/m"
}

# Stacked with overmount, the lower one gets SIGTERM first: it is covered,
# so it serves on; the top one unmounts its own; then the lower one does.
case_stack_sigterm_lower() {
	local p1 l1
	up "$D/m" || return
	p1=$DPID l1=$DLOG
	echo one >"$D/m/f"
	up "$D/m" overmount || return
	echo two >"$D/m/f"
	kill -TERM "$p1"
	check warned "no warning in the log: $(cat "$l1")" logged "$l1" "is covered by the fuse"
	check lower_alive "the lower memfs exited" alive "$p1"
	check top_serves "top reads \"$(cat "$D/m/f" 2>&1)\"" has "$D/m/f" two
	kill -TERM "$DPID"
	ended "$DPID"
	check top_exit0 "status $rc" [ "$rc" = 0 ]
	check lower_serves "memfs's file reads \"$(cat "$D/m/f" 2>&1)\"" has "$D/m/f" one
	kill -TERM "$p1"
	ended "$p1"
	check lower_exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted "$(mount_count "$D/m") mounts left at $D/m" not_mounted "$D/m"
}

# A memfs whose daemon is stopped (SIGSTOP): a second one is refused at
# once, without waiting on it (before: it hung in stat(2) on the mount).
case_stack_on_stopped() {
	up "$D/m" || return
	kill -STOP "$DPID"
	refused "$D/m"
	kill -CONT "$DPID"
	check exit1 "status $rc: $out" [ "$rc" = 1 ]
	check names_option "message: $out" grep -q "with -o overmount" <<<"$out"
	check not_stacked "$(mount_count "$D/m") mounts at $D/m" [ "$(mount_count "$D/m")" = 1 ]
}

# A dead FUSE mount (its daemon killed): refused, saying how to unmount it
# or force it; with overmount, memfs mounts on top and at SIGTERM unmounts
# its own only.
case_dead_mount_refused() {
	up "$D/m" || return
	kill -KILL "$DPID"
	wait_gone "$DPID"
	refused "$D/m"
	check exit1 "status $rc: $out" [ "$rc" = 1 ]
	check names_option "message: $out" grep -q "with -o overmount" <<<"$out"
	check says_unmount "message: $out" grep -q "fusermount3 -u $D/m" <<<"$out"
	check not_stacked "$(mount_count "$D/m") mounts at $D/m" [ "$(mount_count "$D/m")" = 1 ]
	up "$D/m" overmount || return
	echo data >"$D/m/f"
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check dead_left "$(mount_count "$D/m") mounts at $D/m" [ "$(mount_count "$D/m")" = 1 ]
}

# mount --move, then SIGTERM: memfs unmounts its mount at the new path and
# exits 0; nothing is left at either path (before: a dead mount stayed at
# the new one).
case_moved() {
	tmpfs_at "$D/t"
	# a move needs a parent mount that is not shared
	mount --make-private "$D/t"
	mk "$D/t/a" "$D/t/b"
	up "$D/t/a" || return
	echo data >"$D/t/a/f"
	mount --move "$D/t/a" "$D/t/b"
	check moved "the moved mount reads \"$(cat "$D/t/b/f" 2>&1)\"" has "$D/t/b/f" data
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted_new "$(mount_count "$D/t/b") mounts at $D/t/b" not_mounted "$D/t/b"
	check nothing_old "$(mount_count "$D/t/a") mounts at $D/t/a" not_mounted "$D/t/a"
	check said_where "log: $(cat "$DLOG")" grep -q "is at $D/t/b now" "$DLOG"
}

# A bind mount of memfs's mount made by someone else, then SIGTERM: memfs
# unmounts its own mount only; the bind mount is not its own and stays
# (dead once memfs is gone), for whoever made it to unmount.
case_bind_elsewhere() {
	up "$D/m" || return
	echo data >"$D/m/f"
	mk "$D/b"
	mount --bind "$D/m" "$D/b"
	check bound "the bind mount reads \"$(cat "$D/b/f" 2>&1)\"" has "$D/b/f" data
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted "still mounted at $D/m" not_mounted "$D/m"
	check bind_left "$(mount_count "$D/b") mounts at $D/b" is_fuse_mount "$D/b"
	# a create needs the server (a read could come from the page cache)
	check bind_dead "a create in the bind mount answers: $( (: >"$D/b/new") 2>&1)" \
		bash -c "(: >'$D/b/new') 2>&1 | grep -Eq '$DEAD_RE'"
}

# SIGTERM while a client holds a file open: detached (nothing left at the
# path), exit 0.
case_sigterm_busy() {
	up "$D/m" || return
	echo data >"$D/m/f"
	exec 3<"$D/m/f"
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted "still mounted at $D/m" not_mounted "$D/m"
	exec 3<&-
}

# ---- -o auto_unmount (mount(2): the watcher process, watch.c) -----------

# The watcher's pid, from the daemon's log line
watcher_of() { sed -n 's/.*auto_unmount: watcher process \([0-9]*\) .*/\1/p' "$1" | head -n 1; }
# PID is a running watcher (not gone, not a zombie, not a reused pid)
watching() {
	[[ $(cat "/proc/$1/comm" 2>/dev/null) == fring-unmount ]] &&
		! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}
not_watching() { ! watching "$1"; }
# PID is gone, or a zombie (its parent died: whether init reaps it at once
# is the machine's business)
exited() { ! alive "$1" || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
# memfs with auto_unmount at DIR: its watcher in $W, checked to hold one
# descriptor (its socket: no /dev/fuse) and no directory of the mount
up_watched() { # DIR [OPTIONS...]
	up "$@" auto_unmount || return
	W=$(watcher_of "$DLOG")
	if [[ -z $W ]] || ! watching "$W"; then
		fail watcher "no watcher running: $(cat "$DLOG")"
		return 1
	fi
	check watcher_fds "its descriptors: $(ls -l "/proc/$W/fd" 2>&1)" \
		bash -c "[[ \$(ls /proc/$W/fd | wc -l) == 1 && \$(readlink /proc/$W/fd/*) == socket:* ]]"
	check watcher_cwd "its cwd: $(readlink "/proc/$W/cwd")" [ "$(readlink "/proc/$W/cwd")" = / ]
}

# Killed (SIGKILL) with auto_unmount: the watcher unmounts the mount
# (before: left dead, ENOTCONN, as kill_without_auto shows).
case_auto_unmount_kill() {
	up_watched "$D/m" || return
	echo data >"$D/m/f"
	check wrote "memfs's file reads \"$(cat "$D/m/f" 2>&1)\"" has "$D/m/f" data
	kill -KILL "$DPID"
	wait_gone "$DPID"
	check unmounted "$(mount_count "$D/m") mounts at $D/m after $T s" wait_for "$T" not_mounted "$D/m"
	check watcher_gone "watcher $W still runs" wait_for "$T" not_watching "$W"
}

# The same without auto_unmount: the mount stays, dead, until unmounted.
case_kill_without_auto() {
	up "$D/m" || return
	echo data >"$D/m/f"
	check no_watcher "log: $(cat "$DLOG")" bash -c "! grep -q auto_unmount '$DLOG'"
	kill -KILL "$DPID"
	wait_gone "$DPID"
	check left_dead "$(mount_count "$D/m") mounts at $D/m" is_fuse_mount "$D/m"
	check answers_dead "a create answers: $( (: >"$D/m/new") 2>&1)" \
		bash -c "(: >'$D/m/new') 2>&1 | grep -Eq '$DEAD_RE'"
	umount "$D/m"
	check cleaned "$(mount_count "$D/m") mounts at $D/m" not_mounted "$D/m"
}

# A clean end (SIGTERM): memfs unmounts, and its watcher is gone (told,
# and reaped) before memfs has exited.
case_auto_unmount_sigterm() {
	up_watched "$D/m" || return
	echo data >"$D/m/f"
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check watcher_told "log: $(cat "$DLOG")" grep -q "watcher process $W leaves without touching" "$DLOG"
	check watcher_gone "watcher $W outlived memfs" not_watching "$W"
	check unmounted "still mounted at $D/m" not_mounted "$D/m"
}

# memfs (stopped, so it cannot notice) is detached by someone else and a
# tmpfs put at the path; memfs is killed: the watcher finds another mount
# at the path and unmounts nothing (before it was checked: the tmpfs).
case_auto_unmount_replaced() {
	up_watched "$D/m" || return
	kill -STOP "$DPID"
	umount -l "$D/m"
	tmpfs_at "$D/m"
	echo keep >"$D/m/g"
	kill -KILL "$DPID"
	wait_gone "$DPID"
	check watcher_gone "watcher $W still runs" wait_for "$T" not_watching "$W"
	check tmpfs_kept "top at $D/m: $(top_fstype "$D/m") ($(mount_count "$D/m") mounts)" \
		[ "$(top_fstype "$D/m")" = tmpfs ]
	check file_kept "the tmpfs's file is gone" has "$D/m/g" keep
}

# A tmpfs on a directory inside memfs, memfs killed: unmounting memfs's
# mount would take the tmpfs along, so the watcher leaves both.
case_auto_unmount_submount() {
	up_watched "$D/m" || return
	tmpfs_at "$D/m/sub"
	echo keep >"$D/m/sub/g"
	kill -KILL "$DPID"
	wait_gone "$DPID"
	check watcher_gone "watcher $W still runs" wait_for "$T" not_watching "$W"
	check left "$(mount_count "$D/m") mounts at $D/m" is_fuse_mount "$D/m"
	check file_kept "the tmpfs's file is gone" has "$D/m/sub/g" keep
}

# ---- a mount helper's /dev/fd/N (fring_mount_fd(), then adopted) --------

# memfs started the way mount.fuse3 -o drop_privileges starts a daemon:
# tests/e2e/mount_helper mounts DIR with OPTS ("-": none) through
# fring_mount_fd() and execs memfs on /dev/fd/N
up_adopted() { # DIR OPTS
	if [[ -z ${FRING_EDGES_MOUNT_HELPER:-} ]]; then
		skip_check "" "FRING_EDGES_MOUNT_HELPER is not set (meson sets it)"
		return 1
	fi
	if ! start_daemon "$1" "$FRING_EDGES_MOUNT_HELPER" "$1" "$2" "$MEMFS" -f -o "$(topt)" @FD@ ||
		! served; then
		fail "" "memfs did not mount at $1: $(cat "$DLOG")"
		return 1
	fi
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
	check adopted "log: $(cat "$DLOG")" grep -q "serving the /dev/fuse descriptor" "$DLOG"
	echo data >"$1/f"
	check serves "memfs's file reads \"$(cat "$1/f" 2>&1)\"" has "$1/f" data
}

# SIGTERM: memfs ends and leaves the helper's mount to the helper, without
# a warning about it (before: "not unmounting ...: which mount is this
# session's is not known").
case_adopted_quiet() {
	up_adopted "$D/m" - || return
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check quiet "log: $(cat "$DLOG")" bash -c "! grep -q 'not unmounting' '$DLOG'"
	check helpers_mount_left "$(mount_count "$D/m") mounts at $D/m" is_fuse_mount "$D/m"
	umount "$D/m"
}

# The helper mounted with auto_unmount: its watcher's socket end survives
# the exec into memfs; memfs killed, the watcher unmounts.
case_adopted_auto_unmount_kill() {
	up_adopted "$D/m" auto_unmount || return
	W=$(watcher_of "$DLOG")
	check watcher "log: $(cat "$DLOG")" watching "${W:-none}"
	check handed_over "log: $(cat "$DLOG")" grep -q "(kept across exec) is what process $W watches" "$DLOG"
	kill -KILL "$DPID"
	wait_gone "$DPID"
	check unmounted "$(mount_count "$D/m") mounts at $D/m after $T s" wait_for "$T" not_mounted "$D/m"
	check watcher_gone "watcher $W still runs" wait_for "$T" not_watching "$W"
}

# The same, memfs ended by SIGTERM: memfs leaves the helper's mount, and the
# helper's watcher takes it when memfs is gone (as libfuse's fusermount3
# does for mount.fuse3).
case_adopted_auto_unmount_sigterm() {
	up_adopted "$D/m" auto_unmount || return
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted "$(mount_count "$D/m") mounts at $D/m after $T s" wait_for "$T" not_mounted "$D/m"
}

# ---- the fusermount3 path (a user's mount) ------------------------------
#
# Run in a mount namespace of their own, where /dev/fuse is a node the user
# may open (Debian's is 0666; some machines have 0600, and changing the
# real one would race with other tests). Their mounts live and die in it.
NOBODY=${FRING_E2E_NONROOT_UID:-65534}
as_user() { setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups -- "$@"; }
in_user_ns() { # the case in a namespace: edges.sh --one unmount CASE_ns
	local t
	for t in setpriv fusermount3 unshare; do
		command -v "$t" >/dev/null || { skip_check "" "needs $t"; return; }
	done
	if [[ $TRANSPORT == zerocopy ]]; then
		# only CAP_SYS_ADMIN may have zerocopy: on this rung a user's
		# daemon has no fusermount3 path; it is refused before mounting
		mk "$D/u"
		chown "$NOBODY" "$D/u"
		# (the path: busybox's timeout would run its own setpriv applet)
		out=$(timeout -k 5 "$T" "$(command -v setpriv)" --reuid="$NOBODY" --regid="$NOBODY" --clear-groups -- \
			"$MEMFS" -f -o "$(topt)" "$D/u" 2>&1)
		rc=$?
		check zerocopy_user_refused "status $rc: $out" \
			bash -c "[[ $rc == 1 ]] && grep -q CAP_SYS_ADMIN <<<\"\$1\"" _ "$out"
		check zerocopy_user_not_mounted "mounted at $D/u" not_mounted "$D/u"
		return
	fi
	unshare -m --propagation private "$BASH" "$EDGES_DIR/edges.sh" --one unmount "${CASE}_ns"
}
user_ns_setup() { # 1 (and a failure) when the namespace cannot be made ready
	local m
	# The copies of other FUSE mounts this namespace got would keep their
	# connections alive after their owners unmount them: drop them now
	# (in this namespace only).
	awk -v d="$D/" '{ for (i = 7; $i != "-"; i++); if ($(i + 1) ~ /^fuse/ && index($5, d) != 1) print length($5) "\t" $5 }' \
		/proc/self/mountinfo | sort -rn | cut -f2 | while read -r m; do umount -l "$m" 2>/dev/null; done
	CASE=${CASE%_ns}
	tmpfs_at "$D/dev"
	if ! { mknod "$D/dev/fuse" c 10 229 && chmod 0666 "$D/dev/fuse" &&
		mount --bind "$D/dev/fuse" /dev/fuse; }; then
		fail "" "cannot bind a /dev/fuse for the user"
		return 1
	fi
	if ! as_user test -x "$MEMFS"; then
		fail "" "uid $NOBODY cannot execute $MEMFS"
		return 1
	fi
	mk "$D/t"
	chown "$NOBODY" "$D/t"
}
# A user's RLIMIT_MEMLOCK is the kernel's default 8 MiB: 2 queues x 8 pinned
# 1 MiB buffers of bufpool-registered do not fit (the library refuses and
# names the limit), 2 x 2 do
user_opts() { [[ $TRANSPORT != bufpool-registered ]] || echo ,pool_bufs=2; }
up_user() { # DIR [OPTION]: the user's memfs at DIR (through fusermount3)
	mk "$1"
	chown "$NOBODY" "$1"
	if ! start_daemon "$1" setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups -- \
		"$MEMFS" -f -o "$(topt)$(user_opts)${2:+,$2}" "$1" || ! served; then
		fail "" "the user's memfs did not mount at $1: $(cat "$DLOG")"
		return 1
	fi
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
	check user_mount "not a user's mount: $(grep " $1 " /proc/self/mountinfo)" \
		grep -q " $1 .*user_id=$NOBODY" /proc/self/mountinfo
}

# A user's memfs covered by root's tmpfs: SIGTERM unmounts nothing (no
# fusermount3 -u of the path, which would take the tmpfs); a second one
# ends memfs, the tmpfs keeps its file.
case_user_covered() { in_user_ns; }
case_user_covered_ns() {
	user_ns_setup || return
	up_user "$D/t/u" || return
	as_user sh -c "echo data > '$D/t/u/f'"
	mount -t tmpfs -o size=8m "edges-$CASE" "$D/t/u" # as root, stat(2) of the user's mount is refused
	echo keep >"$D/t/u/g"
	kill -TERM "$DPID"
	check warned "no warning in the log: $(cat "$DLOG")" logged "$DLOG" "is covered by the tmpfs"
	check serving_on "memfs exited" alive "$DPID"
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check tmpfs_kept "top at $D/t/u: $(top_fstype "$D/t/u")" [ "$(top_fstype "$D/t/u")" = tmpfs ]
	check file_kept "the tmpfs's file is gone" has "$D/t/u/g" keep
}

# A user's memfs moved by root: SIGTERM unmounts it at the new path
# (fusermount3 -u NEW), exit 0.
case_user_moved() { in_user_ns; }
case_user_moved_ns() {
	user_ns_setup || return
	mount -t tmpfs -o size=1m,mode=0755 "edges-$CASE" "$D/t"
	mount --make-private "$D/t"
	mk "$D/t/a" "$D/t/b"
	chown "$NOBODY" "$D/t/b"
	up_user "$D/t/a" || return
	mount --move "$D/t/a" "$D/t/b"
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "status $rc" [ "$rc" = 0 ]
	check unmounted_new "$(mount_count "$D/t/b") mounts at $D/t/b" not_mounted "$D/t/b"
	check nothing_old "$(mount_count "$D/t/a") mounts at $D/t/a" not_mounted "$D/t/a"
}

# A user's memfs with auto_unmount, killed: fusermount3, which stayed for
# it, wakes and unmounts the mount. With allow_other (user_allow_other in this
# namespace's fuse.conf): fusermount3 before 3.18.3 looks for ENOTCONN as
# root, which a mount without it answers EACCES, and then leaves it.
case_user_auto_unmount() { in_user_ns; }
case_user_auto_unmount_ns() {
	local fm v
	user_ns_setup || return
	echo user_allow_other >"$D/dev/fuse.conf"
	mount --bind "$D/dev/fuse.conf" /etc/fuse.conf
	up_user "$D/t/u" allow_other,auto_unmount || return
	fm=$(sed -n 's/.*auto_unmount: fusermount3 (process \([0-9]*\)).*/\1/p' "$DLOG")
	check fusermount_stays "log: $(cat "$DLOG")" alive "${fm:-none}"
	as_user sh -c "echo data > '$D/t/u/f'"
	kill -KILL "$DPID"
	wait_gone "$DPID"
	check fusermount_woke "fusermount3 $fm still waits" wait_for "$T" exited "${fm:-none}"
	v=$(fusermount3 -V 2>&1 | sed -n 's/.*version: *\([0-9.]*\).*/\1/p')
	# Before 3.18.3 it takes only ENOTCONN for dead: a ring's connection
	# answers its first accesses ECONNABORTED, and so does a probe that
	# meets the connection while the kernel is still aborting it (dev).
	# The mount then stays; the part that is libfring's (the option
	# passed, the socket held until the process ends) is checked above.
	if ! printf '%s\n' 3.18.3 "$v" | sort -V -C; then
		echo "fusermount3 $v: its unmount is not checked (it may see ECONNABORTED and leave the mount; 3.18.3 does not)"
		return
	fi
	check unmounted "$(mount_count "$D/t/u") mounts at $D/t/u after $T s" wait_for "$T" not_mounted "$D/t/u"
}
