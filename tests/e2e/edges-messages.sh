# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# The edge tier's messages part (issue item 9, doc/operations.md "Messages
# that say what to do"): an error or a warning names the cause and the
# remedy, and fring-probe says what the mount does.
#  memlock_user     as nobody under ulimit -l 64 with queue_depth=64, where
#                   the kernel charges rings (6.18): the ring rungs are
#                   refused (uring) or passed over (auto -> dev) naming
#                   RLIMIT_MEMLOCK, what is needed and what to do; where it
#                   does not (7.3), the rings are taken; fring-probe, same
#                   user and options, agrees either way
#  memlock_exact    without CAP_IPC_LOCK: the count is io_uring's
#                   rings_size(); at exactly it the rings are taken, at
#                   4 KiB less the mount and fring-probe say what the
#                   kernel, asked directly, says
#  memlock_root_ok  with CAP_IPC_LOCK a tiny ulimit -l refuses nothing
#  reason_text      no "refused: dev (...)": an asked-for rung says why it
#                   is refused, the rung taken says why each better one
#                   is not
#  ignored_threads  threads= where it has no effect: one warning naming it
#  ignored_queues   queues= where it has no effect (the ring rungs): one
#                   warning; where it has (dev), none
#  clone_once       clones failing at the descriptor limit: one line with
#                   the count, and the daemon serves
#  debug_names      -d: names, offsets and sizes in requests, errno names
#                   in answers; nothing of it without -d
CASES=(memlock_user memlock_exact memlock_root_ok reason_text ignored_threads
	ignored_queues clone_once debug_names)

NOBODY=65534
PARAM=/sys/module/fuse/parameters/enable_uring
uring_on() { [[ $(cat "$PARAM" 2>/dev/null) == Y ]]; }
ncpus() { # the ring rungs' queues: one per possible CPU
	awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-");
		n += (r[2] == "" ? r[1] : r[2]) - r[1] + 1 } print n }' \
		/sys/devices/system/cpu/possible
}
count() { grep -c -- "$1" "$2"; } # PATTERN FILE -> matching lines
# The mount is visible before INIT is answered, the mount line only after:
# up ... waits for both (start_daemon, then the line, within $T).
up() {
	start_daemon "$@" && wait_for "$T" grep -q 'mounted .*, transport ' "$DLOG"
}
up_memfs() { # DIR [OPTIONS...], as start_memfs
	start_memfs "$@" && wait_for "$T" grep -q 'mounted .*, transport ' "$DLOG"
}
asked_warnings() { # PROBE-OUTPUT ASKED -> the warnings under that verdict
	awk -v a="transport=$2 -> " 'index($0, a) == 1 { on = 1; next }
		on && /^  warning: / { print; next } { on = 0 }' "$1"
}
transport_in_probe() { # PROBE-OUTPUT ASKED -> the rung it names, or "refused"
	sed -n "s/^transport=$2 -> \\(refused\\|[a-z-]*\\).*/\\1/p" "$1" | head -n 1
}

# nobody_exec LIMIT_KIB COMMAND...: COMMAND as nobody under ulimit -l
# LIMIT_KIB. It execs: run it in $( ), in the background, or in a subshell.
nobody_exec() {
	ulimit -l "$1" || return 1
	shift
	exec setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- "$@"
}
# fresh_exec UID LIMIT_KIB COMMAND...: COMMAND as a uid nothing else uses
# (io_uring's RLIMIT_MEMLOCK count is per uid: a fresh one starts at 0),
# keeping CAP_SYS_ADMIN and CAP_DAC_OVERRIDE (mount(2), /dev/fuse) but not
# CAP_IPC_LOCK. It execs, as nobody_exec.
fresh_exec() {
	local uid=$1
	ulimit -l "$2" || return 1
	shift 2
	exec setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		--inh-caps=-all,+sys_admin,+dac_override \
		--ambient-caps=-all,+sys_admin,+dac_override -- "$@"
}
fresh_uid() { echo $((3000000000 + ($$ % 100000) * 100 + $1)); }
have_setpriv() {
	command -v setpriv >/dev/null &&
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- test -x "$MEMFS" -a -x "$PROBE"
}

# /dev/fuse for nobody (fusermount3 opens it as the caller): mode 0666 only
# while a mount is being made, then back (tests/e2e/lifecycle.sh does the
# same); the case's end puts it back in any case.
FUSE_MODE=
fuse_for_nobody() {
	if ! setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- test -r /dev/fuse -a -w /dev/fuse; then
		FUSE_MODE=$(stat -c %a /dev/fuse)
		chmod 0666 /dev/fuse
	fi
}
fuse_restore() {
	if [[ -n $FUSE_MODE ]]; then
		chmod "$FUSE_MODE" /dev/fuse
		FUSE_MODE=
	fi
}

# The kernel's own answer, without libfring: NTHREADS io_uring_setup(2)s of
# ENTRIES SQE128 entries (the flags ring.c uses), all alive at once. Prints
# "ok" or the errno's name.
kernel_rings() { # ENTRIES NTHREADS
	python3 - "$1" "$2" <<'PY'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class Params(ctypes.Structure):
    _fields_ = [("sq_entries", ctypes.c_uint32), ("cq_entries", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("sq_thread_cpu", ctypes.c_uint32),
                ("sq_thread_idle", ctypes.c_uint32), ("features", ctypes.c_uint32),
                ("wq_fd", ctypes.c_uint32), ("resv", ctypes.c_uint32 * 3),
                ("sq_off", ctypes.c_uint32 * 10), ("cq_off", ctypes.c_uint32 * 10)]
SQE128, COOP_TASKRUN, SINGLE_ISSUER = 1 << 10, 1 << 8, 1 << 12
fds = []
for _ in range(int(sys.argv[2])):
    p = Params(flags=SQE128 | COOP_TASKRUN | SINGLE_ISSUER)
    fd = libc.syscall(425, int(sys.argv[1]), ctypes.byref(p))  # io_uring_setup
    if fd < 0:
        print(errno.errorcode.get(ctypes.get_errno(), "?"))
        sys.exit(0)
    fds.append(fd)
print("ok")
PY
}

# ---------------------------------------------------------------- memlock
# queue_depth=64 (the issue's): 2 x 44 KiB of rings on 2 CPUs, above 64 KiB;
# on 1 CPU one ring of 256 would fit, so 256 (128 KiB of SQEs alone) there.
memlock_opts() {
	if [[ $(ncpus) -gt 1 ]]; then echo queue_depth=64; else echo queue_depth=256; fi
}
# Does this kernel charge io_uring's rings to RLIMIT_MEMLOCK (6.18 does,
# 7.3 does not)? "yes", "no", or "unknown" (no python3 to ask it).
rings_charged() {
	local out
	command -v python3 >/dev/null || { echo unknown; return; }
	out=$( (fresh_exec "$(fresh_uid 90)" 0 bash -c "$(declare -f kernel_rings); kernel_rings 16 1") 2>&1)
	case $out in
	ENOMEM) echo yes ;;
	ok) echo no ;;
	*) echo unknown ;;
	esac
}
# run_bg COMMAND...: a daemon that may mount or fail (DPID, DLOG as
# start_daemon); settled: it said its mount line, or it is gone
run_bg() {
	n_started=$((n_started + 1))
	DLOG=$D/log.$n_started
	"$@" >"$DLOG" 2>&1 &
	DPID=$!
	DPIDS+=("$DPID")
}
settled() { grep -q 'mounted .*, transport ' "$DLOG" || dead "$DPID"; }

case_memlock_user() {
	have_setpriv || { skip_check "" "no setpriv, or nobody cannot run $MEMFS"; return; }
	local o t want charged pt asked out
	o=$(memlock_opts)
	charged=$(rings_charged)
	echo "# does the kernel charge io_uring's rings to RLIMIT_MEMLOCK: $charged"
	mkdir -p "$D/m"
	chown $NOBODY:$NOBODY "$D/m"
	trap 'fuse_restore; edges_cleanup' EXIT
	# uring: asked for; dev: auto, which the ladder may pass over to dev
	asked=uring
	[[ $TRANSPORT == uring ]] || asked=auto
	fuse_for_nobody
	run_bg nobody_exec 64 "$MEMFS" -f -o "transport=$asked,$o" "$D/m"
	wait_for "$T" settled
	fuse_restore
	t=$(transport_of "$DLOG")
	(nobody_exec 64 "$PROBE" -o "$([[ $asked == uring ]] && echo "transport=uring,")$o") >"$D/probe" 2>&1
	pt=$(transport_in_probe "$D/probe" "$asked")
	if [[ $asked == uring ]]; then
		if [[ -n $t ]]; then want=uring; else want=refused; fi
		check probe_agrees "the mount: ${t:-refused}; fring-probe: $(grep '^transport=uring' "$D/probe")" [ "$pt" = "$want" ]
	else
		check probe_agrees "the mount: ${t:-none}; fring-probe: $(grep '^transport=auto' "$D/probe")" [ "$pt" = "$t" ]
	fi
	if ! uring_on; then
		# no FUSE-over-io_uring: refused, or dev, for that reason
		if [[ $asked == uring ]]; then
			check refused_enable_uring "log: $(cat "$DLOG")" grep -q 'refused: uring: enable_uring=N' "$DLOG"
		else
			check transport "mount line: $(grep mounted "$DLOG")" [ "$t" = dev ]
		fi
		return
	fi
	if [[ $charged == unknown ]]; then
		# no python3 to ask the kernel: what the mount did says it
		# (and fring-probe agreed with it, above)
		if [[ -n $t && ($asked == uring || $t != dev) ]]; then charged=no; else charged=yes; fi
	fi
	if [[ $charged == no ]]; then
		# the kernel takes the rings (7.3): nothing to refuse...
		if [[ $asked == uring ]]; then
			check kernel_takes_it "log: $(cat "$DLOG")" [ "$t" = uring ]
		else
			check kernel_takes_it "log: $(cat "$DLOG")" eval '[ -n "$t" ] && [ "$t" != dev ]'
		fi
		# ... but the pinned pools, where the kernel has them (7.46)
		if [[ $asked == auto ]] && grep -q 'kernel ABI 7\.4[0-5]' "$D/probe"; then
			return
		fi
		[[ $asked == auto ]] &&
			check pools_named "mount line: $(grep mounted "$DLOG")" \
				grep -qE 'not bufpool-registered: RLIMIT_MEMLOCK 64 KiB is below the [0-9]+ KiB io_uring pins for [0-9]+ pools?.*pool_bufs=' "$DLOG"
		return
	fi
	if [[ $asked == uring ]]; then
		check refused "log: $(cat "$DLOG")" eval '[ -z "$t" ] && wait_gone "$DPID" && [ "$(status_of "$DPID")" != 0 ]'
		check names_limit "log: $(cat "$DLOG")" \
			grep -qE 'transport=uring refused: .*RLIMIT_MEMLOCK 64 KiB is below the [0-9]+ KiB io_uring can charge' "$DLOG"
		check probe_names_limit "$(grep '^transport=uring' "$D/probe")" \
			grep -qE '^transport=uring -> refused: uring: .*RLIMIT_MEMLOCK 64 KiB is below' "$D/probe"
		wait_for "$T" eval '! is_mounted "$D/m"'
		check unmounted "a mount at $D/m" eval '! is_mounted "$D/m"'
	else
		check transport "mount line: $(grep mounted "$DLOG")" [ "$t" = dev ]
		check names_limit "mount line: $(grep mounted "$DLOG")" \
			grep -qE 'transport dev \(.*not (bufpool, )?uring: .*RLIMIT_MEMLOCK 64 KiB is below the [0-9]+ KiB' "$DLOG"
		out=$( (nobody_exec 64 sh -c "echo hi >'$D/m/f' && cat '$D/m/f'") 2>&1)
		check serves "got: $out" [ "$out" = hi ]
	fi
	check says_what_to_do "log: $(cat "$DLOG")" \
		grep -qE 'ulimit -l [0-9]+, LimitMEMLOCK=[0-9]+K\), or a smaller queue_depth \([0-9]+ fits\)' "$DLOG"
}

case_memlock_exact() {
	command -v setpriv >/dev/null || { skip_check "" "no setpriv"; return; }
	if ! uring_on; then
		# nothing to weigh: dev is never refused for RLIMIT_MEMLOCK
		up "$D/m" fresh_exec "$(fresh_uid 1)" 0 "$MEMFS" -f -o transport=dev "$D/m" ||
			{ fail mounted "$(cat "$DLOG")"; return; }
		check dev_unlimited "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
		return
	fi
	local o=queue_depth=64 need kib out n e want below t
	# what the library counts for the rings, and the same from io_uring's
	# rings_size(): per ring the SQ/CQ rings (64-byte head, 2 x 16-byte
	# CQEs and a 4-byte SQ slot an entry) and 128-byte SQEs, each
	# page-aligned
	need=$("$PROBE" --json -o "transport=uring,$o" | sed -n 's/.*"ring_locked_bytes":\([0-9]*\).*/\1/p')
	[[ $need =~ ^[0-9]+$ && $need -gt 4096 ]] || { fail count "fring-probe --json: no ring_locked_bytes"; return; }
	n=$(ncpus)
	e=16
	while ((e < 64 * 2 + 8)); do e=$((e * 2)); done
	want=$((n * ((((64 + 32 * e + 63) / 64 * 64 + 4 * e + 4095) / 4096) + (128 * e + 4095) / 4096) * 4096))
	if [[ $(getconf PAGESIZE 2>/dev/null) == 4096 ]]; then
		check count_is_rings_size "library: $need bytes, rings_size(): $want" [ "$need" = "$want" ]
	fi
	kib=$((need / 1024))
	# at exactly the count: the kernel takes the rings
	up "$D/m" fresh_exec "$(fresh_uid 2)" "$kib" "$MEMFS" -f -o "transport=uring,$o" "$D/m" ||
		{ fail at_count "did not mount under ulimit -l $kib: $(cat "$DLOG")"; return; }
	check at_count "mount line: $(grep mounted "$DLOG")" [ "$(transport_of "$DLOG")" = uring ]
	(fresh_exec "$(fresh_uid 5)" "$kib" "$PROBE" -o "transport=uring,$o") >"$D/probe.at" 2>&1
	check probe_at "$(grep '^transport=uring' "$D/probe.at")" \
		[ "$(transport_in_probe "$D/probe.at" uring)" = uring ]
	# 4 KiB less: what the kernel itself, asked without libfring, says...
	if ! command -v python3 >/dev/null; then
		echo "# no python3: the kernel is not asked directly"
		return
	fi
	below=$( (fresh_exec "$(fresh_uid 6)" $((kib - 4)) bash -c "$(declare -f kernel_rings); kernel_rings $e $n") 2>&1)
	out=$( (fresh_exec "$(fresh_uid 7)" "$kib" bash -c "$(declare -f kernel_rings); kernel_rings $e $n") 2>&1)
	check kernel_at "io_uring_setup x $n of $e under ulimit -l $kib: $out" [ "$out" = ok ]
	echo "# the kernel, under ulimit -l $((kib - 4)): $below"
	# ... the mount and fring-probe say too
	mkdir -p "$D/m2"
	run_bg fresh_exec "$(fresh_uid 3)" $((kib - 4)) "$MEMFS" -f -o "transport=uring,$o" "$D/m2"
	wait_for "$T" settled
	t=$(transport_of "$DLOG")
	(fresh_exec "$(fresh_uid 4)" $((kib - 4)) "$PROBE" -o "transport=uring,$o") >"$D/probe.below" 2>&1
	if [[ $below == ENOMEM ]]; then
		check below_refused "log: $(cat "$DLOG")" \
			eval '[ -z "$t" ] && grep -q "RLIMIT_MEMLOCK $((kib - 4)) KiB is below the $kib KiB" "$DLOG"'
		check probe_below "$(grep '^transport=uring' "$D/probe.below")" \
			grep -q "^transport=uring -> refused: uring: .*RLIMIT_MEMLOCK $((kib - 4)) KiB is below the $kib KiB" "$D/probe.below"
	else
		check below_taken "the kernel takes the rings under $((kib - 4)) KiB; the mount: ${t:-refused}: $(cat "$DLOG")" [ "$t" = uring ]
		check probe_below "$(grep '^transport=uring' "$D/probe.below")" \
			[ "$(transport_in_probe "$D/probe.below" uring)" = uring ]
	fi
}

case_memlock_root_ok() {
	# CAP_IPC_LOCK: io_uring charges nothing, so no limit refuses a rung
	local o out
	o="transport=$TRANSPORT,queue_depth=64"
	if [[ $TRANSPORT != dev ]] && "$PROBE" --json | grep -q '"memlock_charged":true'; then
		# root without CAP_IPC_LOCK in the initial user namespace (a
		# container): the kernel charges it as anyone, and so the
		# limit is said, not the rings tried
		out=$( (ulimit -l 0 && exec timeout "$T" "$MEMFS" -f -o "$o" "$D/m") 2>&1)
		check charged_in_userns "got: $out" grep -q 'RLIMIT_MEMLOCK 0 KiB is below' <<<"$out"
		return
	fi
	up "$D/m" bash -c 'ulimit -l 0 && exec "$@"' - "$MEMFS" -f -o "$o" "$D/m" ||
		{ fail mounted "memfs did not mount under ulimit -l 0: $(cat "$DLOG")"; return; }
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
	check no_memlock_word "log: $(cat "$DLOG")" eval '! grep -q "refused" "$DLOG"'
	(ulimit -l 0 && exec "$PROBE" -o "$o") >"$D/probe" 2>&1
	check probe_agrees "$(grep "^transport=$TRANSPORT" "$D/probe")" \
		[ "$(transport_in_probe "$D/probe" "$TRANSPORT")" = "$TRANSPORT" ]
	echo hi >"$D/m/f"
	check serves "read back differs" [ "$(cat "$D/m/f")" = hi ]
}

# ---------------------------------------------------------------- reasons
case_reason_text() {
	local r line
	"$PROBE" >"$D/probe" 2>&1
	check probe_no_refused_dev "$(grep 'refused: dev (' "$D/probe")" \
		eval '! grep -q "refused: dev (" "$D/probe"'
	# a refused rung says why it, itself, is refused
	for r in zerocopy bufpool-registered bufpool uring; do
		line=$(grep -E "^  $r " "$D/probe")
		[[ $line == *refused:* ]] || continue
		check "rung_$r" "got \"$line\"" grep -qE "^  $r +refused: ($r|uring): " <<<"$line"
	done
	# the rung taken: each better one named with "not ...: why"
	line=$(grep '^transport=auto' "$D/probe")
	case $line in
	"transport=auto -> zerocopy ("*) ok auto_reason ;;
	*) check auto_reason "got \"$line\"" grep -qE '^transport=auto -> [a-z-]+ \(not zerocopy[,:]' <<<"$line" ;;
	esac
	up_memfs "$D/m" || { fail mounted "$(cat "$DLOG")"; return; }
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
	check mount_reason "mount line: $(grep mounted "$DLOG")" \
		grep -qE "transport $TRANSPORT \((asked for with transport=$TRANSPORT|not )" "$DLOG"
	# an asked-for rung the kernel does not offer, on a kernel with
	# io_uring but no pools (6.14 to 7.2): why, and what auto would take
	if uring_on && [[ $(grep '^  bufpool ' "$D/probe") == *"kernel ABI 7.4"[2-5]* ]]; then
		local out rc
		mkdir -p "$D/m2"
		out=$(timeout "$T" "$MEMFS" -f -o transport=bufpool "$D/m2" 2>&1)
		rc=$?
		check bufpool_refused "exit $rc: $out" \
			eval '[ "$rc" -ne 0 ] && grep -qE "transport=bufpool refused: kernel ABI 7\.4[2-5] < 7\.46; transport=auto takes uring" <<<"$out"'
		check bufpool_no_dev "got: $out" eval '! grep -q "refused: dev (" <<<"$out"'
	fi
}

# ---------------------------------------------------------------- options
case_ignored_threads() {
	local n th
	n=$(ncpus)
	th=$((n + 2))
	up_memfs "$D/m" "threads=$th" || { fail mounted "$(cat "$DLOG")"; return; }
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
	if [[ $TRANSPORT == dev ]]; then
		check warned_once "log: $(cat "$DLOG")" \
			[ "$(count "option threads=$th has no effect on transport dev" "$DLOG")" = 1 ]
	else
		# on a ring rung threads= works, up to one a queue
		check warned_once "log: $(cat "$DLOG")" \
			[ "$(count "option threads=$th has no effect beyond the $n ring queues" "$DLOG")" = 1 ]
		up_memfs "$D/m2" threads=1 || { fail mounted2 "$(cat "$DLOG")"; return; }
		check threads1_silent "log: $(cat "$DLOG")" eval '! grep -q "option threads" "$DLOG"'
	fi
	"$PROBE" -o "transport=$TRANSPORT,threads=$th" >"$D/probe" 2>&1
	check probe_warns "$(cat "$D/probe")" \
		grep -q "^  warning: option threads=$th has no effect" <<<"$(asked_warnings "$D/probe" "$TRANSPORT")"
}

case_ignored_queues() {
	up_memfs "$D/m" queues=3 || { fail mounted "$(cat "$DLOG")"; return; }
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
	if [[ $TRANSPORT == dev ]]; then
		# dev: queues= is what sizes it, and queue_depth= is the ring's
		check no_warning "log: $(cat "$DLOG")" eval '! grep -q "option queues" "$DLOG"'
		check three_queues "mount line: $(grep mounted "$DLOG")" grep -q ', 3 queues,' "$DLOG"
		up_memfs "$D/m2" queue_depth=16 || { fail mounted2 "$(cat "$DLOG")"; return; }
		check depth_warned_once "log: $(cat "$DLOG")" \
			[ "$(count "option queue_depth=16 has no effect on transport dev" "$DLOG")" = 1 ]
	else
		check warned_once "log: $(cat "$DLOG")" \
			[ "$(count "option queues=3 has no effect on transport $TRANSPORT: the kernel gives the ring one queue per possible CPU" "$DLOG")" = 1 ]
	fi
	"$PROBE" -o "transport=$TRANSPORT,queues=3" >"$D/probe" 2>&1
	if [[ $TRANSPORT == dev ]]; then
		check probe_silent "$(asked_warnings "$D/probe" dev)" [ -z "$(asked_warnings "$D/probe" dev)" ]
	else
		check probe_warns "$(cat "$D/probe")" \
			grep -q "^  warning: option queues=3 has no effect" <<<"$(asked_warnings "$D/probe" "$TRANSPORT")"
	fi
}

# ---------------------------------------------------------------- dev fds
case_clone_once() {
	# dev's queues clone /dev/fuse (the ring's do not): 64 of them under
	# 40 descriptors, on either tier. Without CAP_SYS_RESOURCE, or memfs
	# would raise the limit to fs.nr_open (it does where it can).
	command -v setpriv >/dev/null || { skip_check "" "no setpriv"; return; }
	up "$D/m" bash -c 'ulimit -n 40 && exec setpriv --bounding-set=-sys_resource --inh-caps=-sys_resource -- "$@"' - \
		"$MEMFS" -f -o transport=dev,queues=64 "$D/m" ||
		{ fail mounted "$(cat "$DLOG")"; return; }
	check transport "mount line: $(grep mounted "$DLOG")" \
		[ "$(transport_of "$DLOG")" = dev ]
	check one_line "$(count FUSE_DEV_IOC_CLONE "$DLOG") lines: $(grep -m3 FUSE_DEV_IOC_CLONE "$DLOG")" \
		[ "$(count FUSE_DEV_IOC_CLONE "$DLOG")" = 1 ]
	check counts "got: $(grep FUSE_DEV_IOC_CLONE "$DLOG")" \
		grep -qE 'FUSE_DEV_IOC_CLONE failed for [1-9][0-9]* of 64 queues, from q[0-9]+ on: Too many open files \(RLIMIT_NOFILE 40\); those queues share' "$DLOG"
	check all_queues "mount line: $(grep mounted "$DLOG")" grep -q ', 64 queues,' "$DLOG"
	# served: names and attributes need no descriptor of memfs's own
	mkdir "$D/m/d" && touch "$D/m/d/e"
	check serves "ls: $(ls "$D/m/d" 2>&1)" [ "$(ls "$D/m/d")" = e ]
}

# ---------------------------------------------------------------- -d
case_debug_names() {
	local nl
	mkdir -p "$D/m"
	up "$D/m" "$MEMFS" -d -o "transport=$TRANSPORT" "$D/m" ||
		{ fail mounted "$(cat "$DLOG")"; return; }
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
	cat "$D/m/nofile" 2>/dev/null
	printf 'hello\n' >"$D/m/f"
	# O_DIRECT: the kernel asks memfs even while it caches the page
	wait_for "$T" sh -c "dd if='$D/m/f' of=/dev/null bs=4096 iflag=direct 2>/dev/null; grep -q ' READ ' '$DLOG'"
	mkdir "$D/m/d"
	mv "$D/m/f" "$D/m/d/g"
	ln -s /some/target "$D/m/l"
	nl=$'a\nb'
	touch "$D/m/$nl"
	wait_for "$T" grep -q 'CREATE .*a\\x0ab' "$DLOG"
	check lookup_name "$(grep -m2 LOOKUP "$DLOG")" grep -qE 'LOOKUP nodeid 1 name "nofile" len' "$DLOG"
	check enoent "$(grep -m2 'LOOKUP ->' "$DLOG")" grep -q 'LOOKUP -> ENOENT len' "$DLOG"
	check no_errno_numbers "$(grep -m2 -E -- '-> -?[0-9]' "$DLOG")" \
		eval '! grep -qE -- "-> -?[0-9]" "$DLOG"'
	check create_name "$(grep -m1 ' CREATE ' "$DLOG")" grep -qE 'CREATE nodeid 1 flags 0[0-7]+ mode 0[0-7]+ name "f"' "$DLOG"
	check write_offset_size "$(grep -m1 ' WRITE ' "$DLOG")" grep -qE 'WRITE nodeid [0-9]+ fh [0-9]+ offset 0 size 6 ' "$DLOG"
	check read_offset_size "$(grep -m1 ' READ ' "$DLOG")" grep -qE 'READ nodeid [0-9]+ fh [0-9]+ offset 0 size [0-9]+ ' "$DLOG"
	check mkdir_name "$(grep -m1 ' MKDIR ' "$DLOG")" grep -qE 'MKDIR nodeid 1 mode 0[0-7]+ name "d"' "$DLOG"
	check rename_names "$(grep -m1 ' RENAME' "$DLOG")" grep -qE 'RENAME2? nodeid 1 name "f" newdir [0-9]+ newname "g"' "$DLOG"
	check symlink_names "$(grep -m1 ' SYMLINK ' "$DLOG")" grep -q 'SYMLINK nodeid 1 name "l" target "/some/target"' "$DLOG"
	# a newline in a name is written as \x0a, not a forged line
	check name_escaped "$(grep -m1 'CREATE .*a\\x0ab' "$DLOG")" grep -q 'name "a\\x0ab"' "$DLOG"
	check no_raw_newline "a line starting with b\": $(grep -m1 '^b"' "$DLOG")" eval '! grep -q "^b\"" "$DLOG"'
	# without -d, none of it
	up_memfs "$D/m2" || { fail mounted2 "$(cat "$DLOG")"; return; }
	cat "$D/m2/nofile" 2>/dev/null
	check quiet_without_d "log: $(cat "$DLOG")" eval '! grep -q "LOOKUP" "$DLOG"'
}
