# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# The edge tier's passthrough part (doc/operations.md, "Hazards",
# "passthrough's source"): a daemon whose source contains its own mount
# must neither hang nor be started that way, and a create that fails leaves
# nothing in the source. Every source is a small tmpfs of the case's own
# under $D. remotefs (built beside passthrough) reads a source too: its
# cases are here as well.
CASES=(
	mnt_inside_src mnt_inside_src_symlink mnt_inside_src_dotdot
	mnt_inside_src_bind mnt_inside_src_submount mnt_is_src
	mnt_not_inside_src runtime_loop runtime_loop_file create_emfile
	nodes_emfile source_removed remotefs_inside_src remotefs_runtime_loop
)

RFS=$(dirname "$PT")/../remotefs/remotefs

# PREFIX PROG SRC MNT: PROG refuses SRC MNT at start: exit 1 within T with a
# message that the mountpoint is inside the source, nothing mounted at MNT.
expect_refused() {
	local p=$1 prog=$2 src=$3 mnt=$4 before pid rc canon
	# the mount table names the mountpoint as the kernel resolved it
	canon=$(realpath -m "$mnt")
	before=$(mount_count "$canon")
	n_started=$((n_started + 1))
	DLOG=$D/log.$n_started
	"$prog" -f -o "$(topt)" "$src" "$mnt" >"$DLOG" 2>&1 &
	pid=$!
	DPIDS+=("$pid")
	if ! wait_gone "$pid"; then
		fail "$p" "still running $T s after start, $(($(mount_count "$canon") - before)) new mount(s) at $canon: $(head -c 300 "$DLOG")"
		return 1
	fi
	rc=$(status_of "$pid")
	check "$p.exit1" "exit status $rc: $(head -c 300 "$DLOG")" [ "$rc" = 1 ]
	check "$p.message" "stderr: $(head -c 300 "$DLOG")" grep -q "is inside SOURCE" "$DLOG"
	check "$p.not_mounted" "$(($(mount_count "$canon") - before)) new mount(s) at $canon" \
		[ "$(mount_count "$canon")" = "$before" ]
}

# A client's command, bounded: prints its stderr, returns its status (124
# or 137 when it hung).
# shellcheck disable=SC2069  # (its stderr is the answer, stdout is not wanted)
bounded() { timeout -k 2 "$T" "$@" 2>&1 >/dev/null; }
hung() { [[ $1 == 124 || $1 == 137 || $1 == 143 ]]; }
ELOOP_MSG='Too many levels of symbolic links'

# The daemon of DLOG said it serves on TRANSPORT. Its mount line comes after
# the kernel's INIT was answered, a moment after the mount shows in the
# mount table (when start_daemon returns): it is waited for.
check_transport() {
	if wait_for "$T" ran_on_transport "$DLOG"; then
		ok transport
	else
		fail transport "mount line: $(grep mounted "$DLOG")"
	fi
}

not_fuse() { ! is_fuse_mount "$1"; }
# The daemon DPID ends on SIGTERM with status 0 and its mount at DIR goes.
term_ends() { # DIR
	local rc
	kill -TERM "$DPID"
	if wait_gone "$DPID"; then
		rc=$(status_of "$DPID")
		check exit0 "exit status $rc: $(tail -n 3 "$DLOG")" [ "$rc" = 0 ]
		# (what was below it, a source mounted there too, stays)
		check unmounted "still a FUSE mount at $1" not_fuse "$1"
	else
		fail exit0 "still running $T s after SIGTERM"
	fi
}

case_mnt_inside_src() {
	tmpfs_at "$D/s"
	mk "$D/s/sub"
	expect_refused sub "$PT" "$D/s" "$D/s/sub"
	mk "$D/s/a/b/c"
	expect_refused deep "$PT" "$D/s" "$D/s/a/b/c"
}

case_mnt_inside_src_symlink() {
	tmpfs_at "$D/s"
	mk "$D/s/sub"
	ln -s s "$D/link"
	# the mountpoint through a symlink to the source, and the other way
	expect_refused mnt_via_link "$PT" "$D/s" "$D/link/sub"
	expect_refused src_via_link "$PT" "$D/link" "$D/s/sub"
	# a symlink inside the source leading to a directory of it
	ln -s sub "$D/s/alias"
	expect_refused link_in_src "$PT" "$D/s" "$D/s/alias"
}

case_mnt_inside_src_dotdot() {
	tmpfs_at "$D/s"
	mk "$D/s/a/b" "$D/x"
	expect_refused dotdot "$PT" "$D/s/a/.." "$D/x/../s/a/b"
}

case_mnt_inside_src_bind() {
	tmpfs_at "$D/s"
	mk "$D/s/sub" "$D/b"
	mount --bind "$D/s" "$D/b" || { fail "" "mount --bind $D/s $D/b failed"; return; }
	# no path of the one names the other: device and inode do
	expect_refused mnt_in_bind "$PT" "$D/s" "$D/b/sub"
	expect_refused src_is_bind "$PT" "$D/b" "$D/s/sub"
}

case_mnt_inside_src_submount() {
	# the walk up from the mountpoint crosses a mount below the source
	tmpfs_at "$D/s"
	tmpfs_at "$D/s/t"
	mk "$D/s/t/m"
	expect_refused submount "$PT" "$D/s" "$D/s/t/m"
}

# passthrough SRC SRC is allowed: the source is opened before the mount, so
# the daemon reads the directory below its own mount, never the mount.
case_mnt_is_src() {
	local out rc
	tmpfs_at "$D/s"
	mk "$D/s/d"
	echo below >"$D/s/d/f"
	start_pt "$D/s" "$D/s" || { fail "" "did not mount on its own source: $(cat "$DLOG")"; return; }
	check_transport
	out=$(bounded find "$D/s") && rc=0 || rc=$?
	check walk "find: rc $rc: $out" [ "$rc" = 0 ]
	out=$(timeout "$T" cat "$D/s/d/f" 2>&1)
	check read "read \"$out\"" [ "$out" = below ]
	timeout "$T" sh -c "echo through >'$D/s/new'"
	out=$(timeout "$T" cat "$D/s/new" 2>&1)
	check write "read back \"$out\"" [ "$out" = through ]
	term_ends "$D/s"
	# the file went to the directory below the mount
	check in_source "no $D/s/new in the source after the unmount" [ "$(cat "$D/s/new" 2>&1)" = through ]
}

# Allowed, and served: a mountpoint whose path only starts like the
# source's, and a source inside the mountpoint (hidden by the mount from
# everyone but the daemon, which opened it before).
case_mnt_not_inside_src() {
	local out rc
	tmpfs_at "$D/s"
	echo one >"$D/s/f"
	start_pt "$D/s" "$D/s2" || { fail prefix "$D/s -> $D/s2 did not mount: $(cat "$DLOG")"; return; }
	check_transport
	out=$(timeout "$T" cat "$D/s2/f" 2>&1)
	check prefix "read \"$out\"" [ "$out" = one ]
	term_ends "$D/s2"
	mk "$D/up/src"
	echo two >"$D/up/src/g"
	start_pt "$D/up/src" "$D/up" || { fail src_in_mnt "$D/up/src -> $D/up did not mount: $(cat "$DLOG")"; return; }
	out=$(timeout "$T" cat "$D/up/g" 2>&1)
	check src_in_mnt "read \"$out\"" [ "$out" = two ]
	out=$(bounded find "$D/up") && rc=0 || rc=$?
	check src_in_mnt_walk "find: rc $rc: $out" [ "$rc" = 0 ]
}

# The daemon's mount bound inside its source after the start: a walk into it
# answers ELOOP at once, the rest of the source is served, and once the bind
# mount goes the name is a plain directory again.
case_runtime_loop() {
	local out rc
	tmpfs_at "$D/s"
	mk "$D/s/x" "$D/s/d"
	echo data >"$D/s/d/f"
	start_pt "$D/s" "$D/m" || { fail "" "did not mount: $(cat "$DLOG")"; return; }
	check_transport
	mount --bind "$D/m" "$D/s/x" || { fail "" "mount --bind $D/m $D/s/x failed"; return; }
	out=$(bounded stat "$D/m/x") && rc=0 || rc=$?
	if hung "$rc"; then
		fail eloop "stat $D/m/x did not answer within $T s (the daemon waits on its own mount)"
	else
		check eloop "stat $D/m/x: rc $rc: $out" grep -q "$ELOOP_MSG" <<<"$out"
	fi
	out=$(bounded ls -l "$D/m") && rc=0 || rc=$?
	check listing "ls -l $D/m: rc $rc: $out" bash -c "! [[ $rc == 124 || $rc == 137 ]] && [[ \$(ls '$D/m' 2>/dev/null | tr '\n' ' ') == 'd x ' ]]"
	out=$(bounded find "$D/m") && rc=0 || rc=$?
	check walk "find $D/m: rc $rc: $out" bash -c "[[ $rc == 1 ]] && grep -q '$ELOOP_MSG' <<<\"\$1\"" _ "$out"
	out=$(timeout "$T" cat "$D/m/d/f" 2>&1)
	check serves "read \"$out\"" [ "$out" = data ]
	check alive "the daemon died: $(tail -n 3 "$DLOG")" alive "$DPID"
	umount "$D/s/x" || umount -l "$D/s/x"
	out=$(bounded stat "$D/m/x") && rc=0 || rc=$?
	check recovers "stat $D/m/x after the bind mount went: rc $rc: $out" [ "$rc" = 0 ]
	term_ends "$D/m"
}

# A file of the mount bound onto a file of the source: reading or writing it
# through the mount answers ELOOP, the file itself is untouched.
case_runtime_loop_file() {
	local out rc
	tmpfs_at "$D/s"
	echo outer >"$D/s/f"
	echo inner >"$D/s/g"
	start_pt "$D/s" "$D/m" || { fail "" "did not mount: $(cat "$DLOG")"; return; }
	check_transport
	mount --bind "$D/m/f" "$D/s/g" || { fail "" "mount --bind $D/m/f $D/s/g failed"; return; }
	out=$(bounded cat "$D/m/g") && rc=0 || rc=$?
	if hung "$rc"; then
		fail read "cat $D/m/g did not answer within $T s"
	else
		check read "cat $D/m/g: rc $rc: $out" grep -q "$ELOOP_MSG" <<<"$out"
	fi
	out=$(bounded sh -c "echo x >'$D/m/g'") && rc=0 || rc=$?
	if hung "$rc"; then
		fail write "a write of $D/m/g did not answer within $T s"
	else
		check write "write $D/m/g: rc $rc: $out" grep -q "$ELOOP_MSG" <<<"$out"
	fi
	check untouched "$D/s/f now: $(cat "$D/s/f")" [ "$(cat "$D/s/f")" = outer ]
	check alive "the daemon died: $(tail -n 3 "$DLOG")" alive "$DPID"
	umount "$D/s/g" || umount -l "$D/s/g"
	term_ends "$D/m"
}

fd_count() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
# RLIMIT_NOFILE bounds descriptor numbers: PID LIMIT -> how many of the
# numbers below LIMIT are taken
fds_under() { ls "/proc/$1/fd" 2>/dev/null | awk -v l="$2" '$1 < l { n++ } END { print n + 0 }'; }
has_free_fd() { [[ $(fds_under "$1" "$2") -lt $2 ]]; } # PID LIMIT
# After a client call of NAME (exit status RC): it is in the source if and
# only if the call succeeded. Prints what is wrong, if anything.
consistent() { # RC NAME
	local there=no
	[[ -e $D/s/$2 || -L $D/s/$2 ]] && there=yes
	if [[ $1 == 0 && $there == no ]]; then
		echo "$2: succeeded, not in the source"
	elif [[ $1 != 0 && $there == yes ]]; then
		echo "$2: failed, left in the source"
	fi
}

# The daemon's descriptors run out under a client that creates files and
# keeps them open: every create that fails (EMFILE) leaves nothing in the
# source, every one that succeeds is there, and once the client closes its
# files the daemon serves again. The daemon's descriptor cache (eviction)
# is on, as by default: the failing create is then the one whose file was
# made with the last descriptor and could not be looked up after.
case_create_emfile() {
	local lim wrong n_fail out
	command -v prlimit >/dev/null || { skip_check "" "no prlimit"; return; }
	tmpfs_at "$D/s"
	start_pt "$D/s" "$D/m" || { fail "" "did not mount: $(cat "$DLOG")"; return; }
	check_transport
	lim=$(($(fd_count "$DPID") + 24))
	prlimit --pid "$DPID" --nofile="$lim:$lim" || { fail "" "prlimit failed"; return; }
	(
		ulimit -n 4096
		fails=0
		for ((i = 1; i <= 300 && fails < 6; i++)); do
			if { exec {fd}>"$D/m/f$i"; } 2>"$D/err"; then
				echo "0 f$i"
			else
				echo "1 f$i $(cat "$D/err")"
				fails=$((fails + 1))
			fi
		done
	) >"$D/creates"
	n_fail=$(grep -c '^1 ' "$D/creates")
	check ran_out "no create failed with the daemon at $lim descriptors" [ "$n_fail" -gt 0 ]
	out=$(grep '^1 ' "$D/creates" | grep -v 'Too many open files' | head -n 3)
	check emfile "other errors: $out" [ -z "$out" ]
	wrong=$(while read -r rc name _; do consistent "$rc" "$name"; done <"$D/creates")
	echo "# $(grep -c '^0 ' "$D/creates") creates worked, $n_fail failed at $lim descriptors"
	check nothing_left "$(grep -c . <<<"$wrong") wrong: $(head -n 5 <<<"$wrong" | tr '\n' ' ')" [ -z "$wrong" ]
	check alive "the daemon died: $(tail -n 3 "$DLOG")" alive "$DPID"
	# the client's files are closed (RELEASE comes after close(2) returns)
	check serves_again "no create worked within $T s of the client's end" \
		wait_for "$T" sh -c "echo after >'$D/m/after'" 2>/dev/null
}

# The daemon's descriptors run out, its descriptor cache off (it starts
# below 320 descriptors, without CAP_SYS_RESOURCE to lift its limit), so
# what each call takes is exact:
#  - a create with one descriptor left: its file takes it, and the lookup
#    of the new file finds none (EMFILE): the file must go again;
#  - mkdir, symlink, mknod and link while a second client opens and closes
#    a file all the time: each is made in the source, and its lookup fails
#    when that client took the last descriptor meanwhile. (A lookup of the
#    name comes before each and takes a descriptor for a moment, so only a
#    second client can take it before the call: on the old daemon this
#    leaves names behind most of the time, not every time; whatever the
#    timing, none must be left.)
case_nodes_emfile() {
	local lim holder op name out rc wrong= i ok_n=0 fail_n=0 t_end
	command -v prlimit >/dev/null || { skip_check "" "no prlimit"; return; }
	command -v setpriv >/dev/null || { skip_check "" "no setpriv"; return; }
	tmpfs_at "$D/s"
	echo data >"$D/s/f"
	start_daemon "$D/m" setpriv --bounding-set -sys_resource --inh-caps -sys_resource -- \
		bash -c 'ulimit -n 319 && exec "$@"' _ \
		"$PT" -f -o "$(topt),entry_timeout=3600,attr_timeout=3600" "$D/s" "$D/m" ||
		{ fail "" "did not mount: $(cat "$DLOG")"; return; }
	check_transport
	# c1 is known missing (a negative entry, kept an hour): its create
	# reaches the daemon without a LOOKUP first
	stat "$D/m/c1" >/dev/null 2>&1
	stat "$D/m/f" >/dev/null
	lim=$(($(fd_count "$DPID") + 8))
	if ((lim > 319)); then
		skip_check "" "the daemon has $((lim - 8)) descriptors at start; the case needs it below 312"
		return
	fi
	prlimit --pid "$DPID" --nofile="$lim:$lim" || { fail "" "prlimit failed"; return; }
	# the holder opens f until the daemon has no descriptor left, gives
	# one back, then (told so) opens and closes f until told to stop
	(
		ulimit -n 4096
		k=0 last=
		while { exec {fd}<"$D/m/f"; } 2>/dev/null && ((k < 400)); do
			k=$((k + 1)) last=$fd
		done
		echo "$k" >"$D/held"
		wait_for "$T" test -e "$D/close1"
		[[ -n $last ]] && exec {last}<&-
		: >"$D/closed1"
		wait_for "$T" test -e "$D/hammer"
		# bounded, should the case be killed before it says stop
		end=$((SECONDS + 60))
		while [[ -d $D && ! -e $D/stop ]] && ((SECONDS < end)); do
			{ exec {x}<"$D/m/f" && exec {x}<&-; } 2>/dev/null
		done
	) &
	holder=$!
	DPIDS+=("$holder") # the case's end stops it too
	if ! wait_for "$T" test -s "$D/held"; then
		fail "" "the holder did not run the daemon out of descriptors within $T s"
		: >"$D/stop"
		return
	fi
	: >"$D/close1"
	wait_for "$T" test -e "$D/closed1"
	if wait_for "$T" has_free_fd "$DPID" "$lim"; then
		{ : >"$D/m/c1"; } 2>"$D/err" && rc=0 || rc=$?
		echo "# create with one descriptor left: rc $rc $(cat "$D/err")"
		out=$(consistent "$rc" c1)
		check create_nothing_left "$out" [ -z "$out" ]
	else
		fail create_nothing_left "the daemon did not close the released file within $T s"
	fi
	: >"$D/hammer"
	# 40 rounds, or as many as 10 s allow on a loaded machine
	t_end=$((SECONDS + 10))
	for ((i = 1; i <= 40 && SECONDS < t_end; i++)); do
		for op in "mkdir $D/m/d$i" "ln -s f $D/m/l$i" "mkfifo $D/m/p$i" "ln $D/m/f $D/m/h$i"; do
			# shellcheck disable=SC2086  # (op is a command line)
			out=$(bounded $op) && rc=0 || rc=$?
			if hung "$rc"; then
				wrong+="$op: no answer within $T s; "
				break 2
			fi
			((rc == 0)) && ok_n=$((ok_n + 1)) || fail_n=$((fail_n + 1))
			name=${op##*/}
			out=$(consistent "$rc" "$name")
			[[ -n $out ]] && wrong+="$out; "
			# what was made goes again, through the mount: the
			# daemon closes its descriptor at the FORGET after
			rm -rf "$D/m/$name" 2>/dev/null
		done
	done
	echo "# mkdir, symlink, mknod, link beside the second client: $ok_n made, $fail_n failed"
	check nodes_nothing_left "$(grep -o '; ' <<<"$wrong" | wc -l) wrong: $wrong" [ -z "$wrong" ]
	: >"$D/stop"
	wait_gone "$holder" || kill "$holder"
	check alive "the daemon died: $(tail -n 3 "$DLOG")" alive "$DPID"
	check serves_again "no mkdir and create worked within $T s of the holder's end" \
		wait_for "$T" sh -c "mkdir -p '$D/m/dz' && echo after >'$D/m/cz'" 2>/dev/null
}

# The source directory renamed, then removed, under the running daemon: it
# goes on serving what its descriptor names (renamed: all of it; removed:
# an empty directory where creates fail ENOENT), and ends cleanly.
case_source_removed() {
	local out rc
	tmpfs_at "$D/t"
	mk "$D/t/src"
	echo a >"$D/t/src/f"
	start_pt "$D/t/src" "$D/m" || { fail "" "did not mount: $(cat "$DLOG")"; return; }
	check_transport
	mv "$D/t/src" "$D/t/moved"
	out=$(timeout "$T" cat "$D/m/f" 2>&1)
	check renamed_read "read \"$out\"" [ "$out" = a ]
	timeout "$T" sh -c "echo b >'$D/m/g'"
	check renamed_write "no g in the moved source" [ "$(cat "$D/t/moved/g" 2>&1)" = b ]
	rm -rf "$D/t/moved"
	out=$(bounded touch "$D/m/new") && rc=0 || rc=$?
	check removed_create "touch: rc $rc: $out" grep -q "No such file or directory" <<<"$out"
	out=$(bounded mkdir "$D/m/newdir") && rc=0 || rc=$?
	check removed_mkdir "mkdir: rc $rc: $out" grep -q "No such file or directory" <<<"$out"
	out=$(bounded ls -a "$D/m") && rc=0 || rc=$?
	check removed_list "ls: rc $rc: $out" bash -c "! [[ $rc == 124 || $rc == 137 ]]"
	out=$(bounded stat "$D/m") && rc=0 || rc=$?
	check removed_stat "stat: rc $rc: $out" [ "$rc" = 0 ]
	check alive "the daemon died: $(tail -n 3 "$DLOG")" alive "$DPID"
	term_ends "$D/m"
}

have_rfs() { [[ -x $RFS ]] || { skip_check "" "no remotefs at $RFS"; return 1; }; }

case_remotefs_inside_src() {
	have_rfs || return
	tmpfs_at "$D/s"
	mk "$D/s/sub"
	ln -s s "$D/link"
	expect_refused sub "$RFS" "$D/s" "$D/s/sub"
	expect_refused via_link "$RFS" "$D/s" "$D/link/sub"
}

# remotefs reads a catalog path with a worker thread; the daemon's own
# mount bound onto a directory of that path must not make the worker read
# through it (one worker: it would wait on its own READ).
case_remotefs_runtime_loop() {
	local out rc
	have_rfs || return
	tmpfs_at "$D/s"
	mk "$D/s/y"
	echo root >"$D/s/f"
	echo inner >"$D/s/y/f"
	start_daemon "$D/m" "$RFS" -f -o "$(topt),workers=1,latency_ms=0" "$D/s" "$D/m" ||
		{ fail "" "did not mount: $(cat "$DLOG")"; return; }
	check_transport
	mount --bind "$D/m" "$D/s/y" || { fail "" "mount --bind $D/m $D/s/y failed"; return; }
	out=$(timeout -k 2 "$T" cat "$D/m/y/f" 2>&1) && rc=0 || rc=$?
	if hung "$rc"; then
		fail read "cat $D/m/y/f did not answer within $T s (the worker waits on its own mount)"
	else
		check read "cat $D/m/y/f: rc $rc: $out" grep -q "Stale file handle" <<<"$out"
	fi
	out=$(timeout "$T" cat "$D/m/f" 2>&1)
	check serves "read \"$out\"" [ "$out" = root ]
	umount "$D/s/y" || umount -l "$D/s/y"
	term_ends "$D/m"
}
