# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# The edge tier's signals part (doc/operations.md, "Signals" and "The files
# the daemon writes"): every signal fring_main() handles, from before the
# mount to after the unmount, on the transport under test; and --stats-file
# written where nobody else's file can be hit. Bash, awk and busybox-level
# tools only: the vm tier runs this part in its guest.
# shellcheck source=stats.sh
source "$here/stats.sh"

CASES=(usr1_no_stats_file usr1_stats_file usr1_storm usr1_storm_file
	usr1_every_thread usr1_early sigterm sigint sighup sigterm_early
	sigterm_repeated sigpipe daemon_mode symlink_planted target_hardlink
	target_symlink target_fifo target_dir missing_dir readonly_dir)

# ---- helpers ---------------------------------------------------------------

# The daemon of DLOG said it serves on TRANSPORT. Its mount line comes once
# INIT is answered and the queues run, which on the ring transports can be
# after the mount is visible: waited for, not assumed.
transport_check() {
	wait_for "$T" eval 'grep -q "mounted .*, transport " "$DLOG" || dead $DPID'
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
}

# Signal numbers (Linux, every architecture the tier runs on).
SIGNO_USR1=10 SIGNO_PIPE=13 SIGNO_TERM=15
# PID's /proc status mask FIELD (SigCgt, ShdPnd, ...) has signal N: 0 yes,
# 1 no, 2 no such process. Builtins only: the early cases poll it fast.
mask_has() { # PID FIELD N
	local k v
	[[ -r /proc/$1/status ]] || return 2
	while read -r k v; do
		if [[ $k == "$2:" ]]; then
			(((16#$v >> ($3 - 1)) & 1)) && return 0
			return 1
		fi
	done <"/proc/$1/status" 2>/dev/null
	return 2
}
# the signal is no longer waiting for the process (taken, or it is gone)
taken() { # PID N
	local r
	mask_has "$1" ShdPnd "$2"
	r=$?
	[[ $r != 0 ]]
}
# the signal waits for the process (one inside a FUSE request it cannot
# leave waits there), or the process is gone
pending_or_gone() { # PID N
	local r
	mask_has "$1" ShdPnd "$2"
	r=$?
	[[ $r != 1 ]]
}
# a log line matching RE is there, or the daemon is gone (then 1)
logged_or_dead() { # PID LOG RE
	grep -Eq "$3" "$2" 2>/dev/null && return 0
	dead "$1"
}
stats_lines() { # LOG -> how many statistics reports it holds
	grep -c 'statistics: transport=' "$1" 2>/dev/null || :
}
# The mount works: a file written now reads back.
serves() { # DIR WORD
	echo "$2" >"$1/serves.$2" 2>/dev/null && [[ $(cat "$1/serves.$2" 2>/dev/null) == "$2" ]]
}
# memfs on DIR with --stats-file=FILE (start_memfs takes -o options only)
start_memfs_stats() { # DIR FILE [OPTIONS]
	local o
	o=$(topt)${3:+,$3}
	start_daemon "$1" "$MEMFS" -f -o "$o" --stats-file="$2" "$1"
}
# The daemon (a child of this shell) ends within T seconds: its exit
# status in RC (not from a $(...) subshell: only this shell can wait for it).
ended() { # PID
	RC=-
	wait_gone "$1" || return 1
	RC=$(status_of "$1")
}
# The FUSE connection (fusectl's directory name) of the mount on top at DIR.
conn_of() { # DIR
	awk -v m="$1" '$5 == m { d = $3 } END { sub(/^0:/, "", d); print d }' /proc/self/mountinfo
}
fusectl() {
	[[ -d /sys/fs/fuse/connections ]] || mkdir -p /sys/fs/fuse/connections
	awk '$5 == "/sys/fs/fuse/connections" { f = 1 } END { exit !f }' /proc/self/mountinfo ||
		mount -t fusectl none /sys/fs/fuse/connections
}
# What A answered about a name stays valid to the kernel until the jiffy
# after the answer even with entry_timeout=0 (fuse_dentry_revalidate()
# compares jiffies): one jiffy (at most 10 ms) must pass before B looks, or
# B finds the mount point cached and never waits for A. Not a wait for
# anything to happen: nothing is asserted from it.
uncache() { sleep 0.05; }
# Every thread of PID is stopped (kill -STOP only asks: a thread that is
# running, or just woken, may still take one more request before it stops).
stopped() { # PID
	local t st
	for t in /proc/"$1"/task/*/stat; do
		read -r st <"$t" 2>/dev/null || return 1
		st=${st##*) }
		[[ ${st%% *} == [Tt] ]] || return 1
	done
}
stop_a() { # PID: stops memfs A; 0 once all its threads are stopped
	kill -STOP "$1"
	wait_for "$T" stopped "$1"
}
waiting_on() { # CONN: requests of that connection in the kernel, > 0
	local n
	n=$(cat "/sys/fs/fuse/connections/$1/waiting" 2>/dev/null) || return 1
	[[ $n -gt 0 ]]
}
# A daemon that must refuse to start: started on $D/m with ARGS, it must
# end with status 1, mount nothing there and say why (RE in its log).
refused() { # RE ARGS...
	local re=$1 rc
	shift
	mk "$D/m"
	n_started=$((n_started + 1))
	DLOG=$D/log.$n_started
	"$MEMFS" -f -o "$(topt)" "$@" "$D/m" >"$DLOG" 2>&1 &
	DPID=$!
	DPIDS+=("$DPID")
	wait_for "$T" eval 'dead $DPID || is_mounted "$D/m"'
	check nothing_mounted "memfs mounted on $D/m: $(head -n 3 "$DLOG")" \
		test "$(mount_count "$D/m")" = 0
	if dead "$DPID"; then
		rc=$(status_of "$DPID")
		check exit1 "exit status $rc, expected 1" test "$rc" = 1
	else
		fail exit1 "memfs still runs (it mounted: the path was accepted)"
	fi
	check message "log: $(head -n 3 "$DLOG")" grep -Eq -e "$re" "$DLOG"
}
# The signal ends the daemon as SIGTERM does: unmounted, exit 0, nothing
# left at the mount point (memfs's files go with the mount).
ends_cleanly() { # SIG
	local rc
	start_memfs "$D/m" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	transport_check
	echo data >"$D/m/f"
	kill -"$1" "$DPID"
	ended "$DPID" || { fail exits "still running $T s after SIG$1"; return; }
	check exit0 "exit status $RC after SIG$1: $(tail -n 3 "$DLOG")" test "$RC" = 0
	check unmounted "$(mount_count "$D/m") mount(s) left at $D/m" test "$(mount_count "$D/m")" = 0
	check no_file "$D/m/f is still there" test ! -e "$D/m/f"
	check said "log: $(tail -n 2 "$DLOG")" grep -q "SIG$1: unmounting" "$DLOG"
}

# ---- SIGUSR1 ---------------------------------------------------------------

# Without --stats-file the statistics go to the log; the daemon serves on
# (it used to die of SIGUSR1's default action, leaving a dead mount).
case_usr1_no_stats_file() {
	start_memfs "$D/m" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	transport_check
	echo before >"$D/m/f"
	kill -USR1 "$DPID"
	wait_for "$T" logged_or_dead "$DPID" "$DLOG" 'statistics: transport='
	check alive "memfs died of SIGUSR1: $(tail -n 2 "$DLOG")" alive "$DPID"
	check logged "no statistics in the log: $(tail -n 3 "$DLOG")" \
		grep -Eq "statistics: transport=$TRANSPORT queues=[0-9]+ requests=[1-9]" "$DLOG"
	check by_opcode "no by_opcode line: $(tail -n 3 "$DLOG")" \
		grep -Eq 'statistics: by_opcode .*WRITE=[1-9]' "$DLOG"
	check data "the file written before reads $(cat "$D/m/f" 2>&1)" \
		test "$(cat "$D/m/f" 2>&1)" = before
	check serves "the mount does not serve after SIGUSR1" serves "$D/m" after
}

# With --stats-file: the file, valid JSON naming the transport; at exit
# again, with more requests.
case_usr1_stats_file() {
	local st=$D/st/stats.json n1 n2 rc
	umask 022
	mk "$D/st"
	start_memfs_stats "$D/m" "$st" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	transport_check
	echo one >"$D/m/f"
	kill -USR1 "$DPID"
	wait_for "$T" eval '[[ -s $st ]] || dead $DPID'
	check alive "memfs died of SIGUSR1" alive "$DPID"
	check json "not valid JSON: $(head -c 200 "$st" 2>&1)" eval 'stats_read "$st" >/dev/null'
	check stats_transport "transport $(stats_get "$st" transport)" \
		test "$(stats_get "$st" transport)" = "$TRANSPORT"
	n1=$(stats_get "$st" requests)
	check stats_requests "requests $n1" test "$n1" -gt 0
	check mode "mode $(stat -c %a "$st")" test "$(stat -c %a "$st")" = 644
	check regular "not a regular file" test -f "$st" -a ! -L "$st"
	check serves "the mount does not serve" serves "$D/m" two
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "exit status $RC" test "$RC" = 0
	n2=$(stats_get "$st" requests)
	check at_exit "requests $n1 at SIGUSR1, $n2 at exit" test "$n2" -gt "$n1"
	check no_temp "left in $D/st: $(ls -A "$D/st")" test "$(ls -A "$D/st")" = stats.json
}

# SIGUSR1 while clients work: COUNT signals, each between two operations of
# this shell on the mount, while a second client writes and checks files.
usr1_storm() { # COUNT [STATS-FILE]
	local count=$1 st=${2:-} i bad=0 cpid
	if [[ -n $st ]]; then
		mk "$(dirname "$st")"
		start_memfs_stats "$D/m" "$st" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	else
		start_memfs "$D/m" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	fi
	transport_check
	(
		for ((i = 0; i < 2000; i++)); do
			[[ -e $D/storm.done ]] && break
			echo "c $i" >"$D/m/c$((i % 50))" || exit 1
			[[ $(cat "$D/m/c$((i % 50))") == "c $i" ]] || exit 1
		done
		exit 0
	) &
	cpid=$!
	for ((i = 0; i < count; i++)); do
		kill -USR1 "$DPID" 2>/dev/null || break
		echo "s $i" >"$D/m/s$i" || bad=1
	done
	: >"$D/storm.done"
	wait "$cpid"
	check client "the concurrent client saw a failure" test $? = 0
	check sent "only $i of $count signals sent (memfs died)" test "$i" = "$count"
	check alive "memfs died: $(tail -n 2 "$DLOG")" alive "$DPID"
	for ((i = 0; i < count; i++)); do
		[[ $(cat "$D/m/s$i" 2>/dev/null) == "s $i" ]] || bad=1
	done
	check data "a file written during the storm reads wrong" test "$bad" = 0
	if [[ -n $st ]]; then
		wait_for "$T" eval '[[ -s $st ]]'
		check json "not valid JSON: $(head -c 200 "$st" 2>&1)" eval 'stats_read "$st" >/dev/null'
		check no_temp "left beside it: $(ls -A "$(dirname "$st")")" \
			test "$(ls -A "$(dirname "$st")")" = "$(basename "$st")"
	else
		wait_for "$T" eval '[[ $(stats_lines "$DLOG") -gt 0 ]] || dead $DPID'
		check logged "no statistics in the log" test "$(stats_lines "$DLOG")" -gt 0
		echo "  $(stats_lines "$DLOG") statistics reports for $count signals"
	fi
	check serves "the mount does not serve" serves "$D/m" end
}
# FRING_EDGES_STORM: signals a storm sends (200; fewer in the 7.3 guest,
# where every signal takes a TCG-emulated round through the daemon)
storm=${FRING_EDGES_STORM:-200}
case_usr1_storm() { usr1_storm "$storm"; }
case_usr1_storm_file() { usr1_storm "$storm" "$D/st/stats.json"; }

# kill(2) with any thread's id is a signal to the process: the ring and
# queue threads block every signal, whichever id it names the daemon lives.
case_usr1_every_thread() {
	local t n=0
	start_memfs "$D/m" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	transport_check
	serves "$D/m" first >/dev/null
	for t in /proc/"$DPID"/task/*; do
		t=${t##*/}
		kill -USR1 "$t" 2>/dev/null && n=$((n + 1))
		kill -PIPE "$t" 2>/dev/null
	done
	wait_for "$T" eval 'taken $DPID $SIGNO_USR1 && taken $DPID $SIGNO_PIPE'
	wait_for "$T" logged_or_dead "$DPID" "$DLOG" 'statistics: transport='
	check threads "signalled $n thread ids" test "$n" -gt 1
	check alive "memfs died: $(tail -n 2 "$DLOG")" alive "$DPID"
	check logged "no statistics in the log" test "$(stats_lines "$DLOG")" -gt 0
	check serves "the mount does not serve" serves "$D/m" after
}

# Signals while the daemon is inside its mount: A (a memfs) is stopped, B's
# mount point is in A, so B waits in the kernel for A before it mounts, for
# as long as the case wants. SIGUSR1 then must not kill B; once A goes on,
# B mounts, serves and reports the statistics it was asked for.
case_usr1_early() {
	local apid conn i
	fusectl || { skip_check "" "no fusectl"; return; }
	start_memfs "$D/a" entry_timeout=0 attr_timeout=0 negative_timeout=0 ||
		{ fail "" "memfs A did not mount: $(cat "$DLOG")"; return; }
	apid=$DPID conn=$(conn_of "$D/a")
	mk "$D/a/m"
	uncache
	stop_a "$apid" || { kill -CONT "$apid"; fail "" "memfs A does not stop"; return; }
	n_started=$((n_started + 1))
	DLOG=$D/log.$n_started
	"$MEMFS" -f -o "$(topt)" "$D/a/m" >"$DLOG" 2>&1 &
	DPID=$!
	DPIDS+=("$DPID")
	wait_for "$T" eval 'waiting_on $conn || dead $DPID'
	check blocked "memfs B is not waiting on A (waiting: $(cat "/sys/fs/fuse/connections/$conn/waiting"))" \
		waiting_on "$conn"
	check caught "SIGUSR1 is not caught while B mounts" mask_has "$DPID" SigCgt $SIGNO_USR1
	for ((i = 0; i < storm; i++)); do kill -USR1 "$DPID" 2>/dev/null || break; done
	# caught, it waits until B leaves the kernel; with the default action
	# it would end B's wait at once (or as soon as A answers)
	wait_for "$T" pending_or_gone "$DPID" $SIGNO_USR1
	check alive_before_mount "memfs B died of SIGUSR1 before it mounted (sent $i)" alive "$DPID"
	check not_mounted_yet "B mounted while A was stopped" test "$(mount_count "$D/a/m")" = 0
	kill -CONT "$apid"
	if wait_new_mount "$D/a/m" 0 "$DPID"; then ok mounted; else fail mounted "B did not mount: $(cat "$DLOG")"; fi
	transport_check
	check serves "B does not serve" serves "$D/a/m" b
	wait_for "$T" logged_or_dead "$DPID" "$DLOG" 'statistics: transport='
	check logged "the statistics asked for before the mount never came" \
		grep -q "statistics: transport=$TRANSPORT" "$DLOG"
	check alive "memfs B died" alive "$DPID"
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "B's exit status $RC after SIGTERM" test "$RC" = 0
}

# ---- the ending signals ----------------------------------------------------

case_sigterm() { ends_cleanly TERM; }
case_sigint() { ends_cleanly INT; }
case_sighup() { ends_cleanly HUP; }

# SIGTERM while the daemon is inside its mount (as in usr1_early): it ends
# with status 0 and leaves no mount, instead of dying of the signal.
case_sigterm_early() {
	local apid conn rc
	fusectl || { skip_check "" "no fusectl"; return; }
	start_memfs "$D/a" entry_timeout=0 attr_timeout=0 negative_timeout=0 ||
		{ fail "" "memfs A did not mount: $(cat "$DLOG")"; return; }
	apid=$DPID conn=$(conn_of "$D/a")
	mk "$D/a/m"
	uncache
	stop_a "$apid" || { kill -CONT "$apid"; fail "" "memfs A does not stop"; return; }
	n_started=$((n_started + 1))
	DLOG=$D/log.$n_started
	"$MEMFS" -f -o "$(topt)" "$D/a/m" >"$DLOG" 2>&1 &
	DPID=$!
	DPIDS+=("$DPID")
	wait_for "$T" eval 'waiting_on $conn || dead $DPID'
	check blocked "memfs B is not waiting on A" waiting_on "$conn"
	kill -TERM "$DPID"
	wait_for "$T" pending_or_gone "$DPID" $SIGNO_TERM
	check alive_before_mount "memfs B died of SIGTERM inside its mount" alive "$DPID"
	kill -CONT "$apid"
	ended "$DPID" || { fail exits "B still runs $T s after SIGTERM"; return; }
	check exit0 "B's exit status $RC: $(tail -n 2 "$DLOG")" test "$RC" = 0
	check unmounted "$(mount_count "$D/a/m") mount(s) left at $D/a/m" \
		test "$(mount_count "$D/a/m")" = 0
	check a_serves "A does not serve" serves "$D/a" a
}

# SIGTERM and SIGUSR1 again and again while the daemon is on its way out:
# B's --stats-file is on A (a memfs), A is stopped, so B's last write of it
# waits for A after B's session ended and before it unmounts, for as long
# as the case wants. None of the signals may kill B there (they used to
# get their default action back before the unmount: a dead mount).
case_sigterm_repeated() {
	local apid conn st i
	fusectl || { skip_check "" "no fusectl"; return; }
	start_memfs "$D/a" entry_timeout=0 attr_timeout=0 negative_timeout=0 ||
		{ fail "" "memfs A did not mount: $(cat "$DLOG")"; return; }
	apid=$DPID conn=$(conn_of "$D/a")
	mk "$D/a/st"
	st=$D/a/st/stats.json
	start_memfs_stats "$D/m" "$st" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	transport_check
	echo x >"$D/m/f"
	stop_a "$apid" || { kill -CONT "$apid"; fail "" "memfs A does not stop"; return; }
	kill -TERM "$DPID"
	wait_for "$T" eval 'waiting_on $conn || dead $DPID'
	check blocked "B is not writing its stats file on A" waiting_on "$conn"
	for ((i = 0; i < storm; i++)); do
		kill -TERM "$DPID" 2>/dev/null || break
		kill -USR1 "$DPID" 2>/dev/null || break
		kill -INT "$DPID" 2>/dev/null || break
		kill -HUP "$DPID" 2>/dev/null || break
	done
	wait_for "$T" eval 'pending_or_gone $DPID $SIGNO_TERM'
	check alive "B died of a signal on its way out (after $i rounds)" alive "$DPID"
	kill -CONT "$apid"
	ended "$DPID" || { fail exits "B still runs $T s after A went on"; return; }
	check exit0 "B's exit status $RC: $(tail -n 2 "$DLOG")" test "$RC" = 0
	check unmounted "$(mount_count "$D/m") mount(s) left at $D/m" test "$(mount_count "$D/m")" = 0
	check json "no valid stats file at exit" eval 'stats_read "$st" >/dev/null'
}

case_sigpipe() {
	start_memfs "$D/m" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	transport_check
	kill -PIPE "$DPID"
	wait_for "$T" taken "$DPID" $SIGNO_PIPE
	check alive "memfs died of SIGPIPE" alive "$DPID"
	check serves "the mount does not serve" serves "$D/m" after
}

# Without -f: the daemon forks after mounting; the signals are its own from
# the start (the SIGUSR1 thread made after the fork), and a relative
# --stats-file is the starting directory's.
case_daemon_mode() {
	local rc p a x pid='' exe st=$D/stats.json
	mk "$D/m"
	exe=$(readlink -f "$MEMFS")
	(cd "$D" && exec "$MEMFS" -o "$(topt)" --stats-file=stats.json "$D/m") >"$D/log.daemon" 2>&1
	rc=$?
	check started "exit status $rc: $(cat "$D/log.daemon")" test "$rc" = 0
	check mounted "nothing mounted at $D/m" is_fuse_mount "$D/m"
	# the daemon: memfs whose last argument is this case's mount point
	for p in /proc/[0-9]*; do
		[[ $(readlink "$p/exe" 2>/dev/null) == "$exe" ]] || continue
		a=
		while IFS= read -r -d '' x; do a=$x; done <"$p/cmdline" 2>/dev/null
		[[ $a == "$D/m" ]] && pid=${p#/proc/} && break
	done
	[[ -n $pid ]] || { fail "" "no daemon found for $D/m"; return; }
	DPIDS+=("$pid")
	check serves "the mount does not serve" serves "$D/m" x
	kill -USR1 "$pid"
	wait_for "$T" eval '[[ -s $st ]] || dead $pid'
	check alive "the daemon died of SIGUSR1" alive "$pid"
	check stats_transport "transport $(stats_get "$st" transport)" \
		test "$(stats_get "$st" transport)" = "$TRANSPORT"
	rm -f "$st"
	kill -TERM "$pid"
	wait_gone "$pid"
	check ends "the daemon still runs after SIGTERM" dead "$pid"
	check unmounted "$(mount_count "$D/m") mount(s) left" test "$(mount_count "$D/m")" = 0
	check at_exit "no stats file at exit" eval 'stats_read "$st" >/dev/null'
}

# ---- --stats-file ----------------------------------------------------------

# Names planted beside the target (the old fixed PATH.tmp among them),
# pointing at a victim file and at a file that does not exist: after SIGUSR1
# and the exit, the victim is unchanged, nothing is created through a link,
# the links are as they were, and the stats file is a file of its own.
case_symlink_planted() {
	local st=$D/st/stats.json v=$D/victim n rc bad=0
	mk "$D/st"
	echo "victim's data" >"$v"
	cp "$v" "$D/victim.orig"
	for n in stats.json.tmp .stats.json.tmp stats.json~ stats.json.new .stats.json.swp; do
		ln -s "$v" "$D/st/$n"
	done
	ln -s "$D/created" "$D/st/stats.json.part"
	ln -s "$D/created2" "$D/st/.stats.json"
	start_memfs_stats "$D/m" "$st" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	transport_check
	echo x >"$D/m/f"
	kill -USR1 "$DPID"
	wait_for "$T" eval '[[ -s $st ]] || dead $DPID'
	check victim_after_usr1 "the victim changed: $(head -c 80 "$v")" cmp -s "$v" "$D/victim.orig"
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "exit status $RC" test "$RC" = 0
	check victim "the victim changed: $(head -c 80 "$v")" cmp -s "$v" "$D/victim.orig"
	check nothing_created "a file was created through a planted link" \
		test ! -e "$D/created" -a ! -e "$D/created2"
	for n in stats.json.tmp .stats.json.tmp stats.json~ stats.json.new .stats.json.swp; do
		[[ -L $D/st/$n && $(readlink "$D/st/$n") == "$v" ]] || bad=1
	done
	check links "a planted link was changed or removed: $(ls -lA "$D/st")" test "$bad" = 0
	check own_file "stats.json is not a regular file of its own" \
		test -f "$st" -a ! -L "$st"
	check json "not valid JSON" eval 'stats_read "$st" >/dev/null'
	check no_temp "$(ls -A "$D/st" | wc -l) names in $D/st: $(ls -A "$D/st")" \
		test "$(ls -A "$D/st" | wc -l)" = 8
}

# The target is a hard link to someone else's file: the name is replaced,
# that file is never written.
case_target_hardlink() {
	local st=$D/st/stats.json rc
	mk "$D/st"
	echo "victim's data" >"$D/victim"
	cp "$D/victim" "$D/victim.orig"
	ln "$D/victim" "$st"
	start_memfs_stats "$D/m" "$st" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	transport_check
	kill -USR1 "$DPID"
	wait_for "$T" eval '[[ $(stat -c %i "$st") != $(stat -c %i "$D/victim") ]] || dead $DPID'
	kill -TERM "$DPID"
	ended "$DPID"
	check exit0 "exit status $RC" test "$RC" = 0
	check victim "the victim changed: $(head -c 80 "$D/victim")" cmp -s "$D/victim" "$D/victim.orig"
	check replaced "stats.json is still the victim's inode" \
		test "$(stat -c %i "$st")" != "$(stat -c %i "$D/victim")"
	check json "not valid JSON" eval 'stats_read "$st" >/dev/null'
}

# A target that is a symlink is refused at start: exit 1, nothing mounted,
# the link and what it points to untouched.
case_target_symlink() {
	mk "$D/st"
	echo "victim's data" >"$D/victim"
	cp "$D/victim" "$D/victim.orig"
	ln -s "$D/victim" "$D/st/stats.json"
	refused 'stats.json: is a symbolic link' --stats-file="$D/st/stats.json"
	check victim "the victim changed" cmp -s "$D/victim" "$D/victim.orig"
	check link "the link changed" test -L "$D/st/stats.json" -a "$(readlink "$D/st/stats.json")" = "$D/victim"
}

# Not a regular file (a FIFO, a device node): refused, never replaced.
case_target_fifo() {
	mk "$D/st"
	mkfifo "$D/st/stats.json"
	refused 'stats.json: is not a regular file' --stats-file="$D/st/stats.json"
	check still_fifo "the FIFO was replaced" test -p "$D/st/stats.json"
}

case_target_dir() {
	mk "$D/st/stats.json"
	refused 'stats.json: is a directory' --stats-file="$D/st/stats.json"
	check still_dir "the directory changed" test -d "$D/st/stats.json"
}

# A directory that is not there is an error before mounting (it used to be
# a message at exit, with status 0); the message names the path.
case_missing_dir() {
	refused "--stats-file $D/nodir/stats.json: directory $D/nodir: No such file" \
		--stats-file="$D/nodir/stats.json"
	check not_created "$D/nodir was created" test ! -e "$D/nodir"
}

# A directory the daemon cannot write (a read-only tmpfs of the case's own):
# the same, before mounting.
case_readonly_dir() {
	tmpfs_at "$D/ro" || { skip_check "" "cannot mount a tmpfs"; return; }
	mount -o remount,ro "$D/ro" || { skip_check "" "cannot remount it read-only"; return; }
	refused "--stats-file $D/ro/stats.json: cannot create a file in $D/ro: Read-only file system" \
		--stats-file="$D/ro/stats.json"
}
