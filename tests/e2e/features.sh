#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# features.sh MEMFS TRANSPORT FSX
#
# The negotiable FUSE features of INIT, one memfs mount per feature set,
# each checked by what it changes (and where cheap against a control mount
# without it, or against tmpfs, so that the check can fail):
#   writeback       data through the cache reaches memfs intact (an O_DIRECT
#                   read goes to the server), size and mtime at once, fsx
#   readdirplus     auto: READDIRPLUS for the first batch then READDIR; yes:
#                   only READDIRPLUS; no: only READDIR (by_opcode counts)
#   parallel_dirops lookups in one directory overlap in memfs (slowed by
#                   lookup_delay_ms) only with it
#   no_open         OPEN and OPENDIR once (answered ENOSYS), then never;
#                   O_TRUNC still truncates
#   killpriv_v2     a write or truncate by another user clears s[ug]id as
#                   on tmpfs: memfs does it on the kernel's word with it,
#                   the kernel sends the new mode without
#   acl             an ACL entry allows and denies a user, a default ACL is
#                   inherited, chmod and the mask agree: all as on tmpfs
#   supp_group      memfs in a pid namespace of its own cannot read a
#                   caller's groups: a create allowed through a
#                   supplementary group works only with it
#   security_ctx    every creating request (create, mkdir, symlink, mknod)
#                   carries the security context block, which the -d line
#                   shows as "ext N" (8: no LSM labels the inode here);
#                   none without it; each create works with it
#   max_pages       WRITE and READ sizes follow max_pages
#   time_gran       timestamps are whole multiples of the granularity
#   max_background  the connection's limits (fusectl) are the library's
#                   256 and 192 by default, what -o max_background=40 asks
#                   (40, and 30 derived), and the kernel's 12 and 9 with
#                   max_background=0 (the control)
# The kernel must offer each (the host's 6.18 does); a kernel that does not
# gets "NOT OFFERED: " and exit 77.
#
# Exit 0 pass, 1 fail, 77 skip or NOT OFFERED (tests/lib/check.sh). Root only. TRANSPORT uring needs enable_uring
# on (tests/e2e/with-uring.sh). FRING_E2E_WAIT: seconds for what should be
# quick (a mount, a stats file after SIGUSR1, a FORGET, an exit), 30;
# polled, so waited for in full only when it fails.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=stats.sh
source "$(dirname "${BASH_SOURCE[0]}")/stats.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

[[ $# -eq 3 ]] || { echo "usage: $0 MEMFS TRANSPORT FSX" >&2; exit 1; }
MEMFS=$1
TRANSPORT=$2
FSX=$3
WAIT=${FRING_E2E_WAIT:-30}

[[ $(id -u) == 0 ]] || skip "features.sh mounts and switches users: it needs root"
[[ -c /dev/fuse ]] || skip "no /dev/fuse"
for t in setfacl getfacl setpriv unshare taskset; do
	command -v $t >/dev/null || skip "no $t (scripts/setup-deps.sh installs it)"
done


TMP=$(mktemp -d /tmp/fring-features.XXXXXX)
chmod 755 "$TMP"
MNT=$TMP/mnt
TMPFS=$TMP/tmpfs
mkdir -m 755 "$MNT" "$TMPFS"
pid=
name=

# shellcheck source-path=SCRIPTDIR source=mount-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mount-lib.sh" # is_mounted, fusectl

# shellcheck disable=SC2317  # (run by the trap)
cleanup() {
	set +e
	is_mounted "$MNT" && umount -l "$MNT"
	is_mounted "$TMPFS" && umount -l "$TMPFS"
	[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
	if [[ ${FRING_E2E_KEEP:-0} == 1 ]]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

# start NAME OPTS [WRAPPER...]: mounts memfs with -o OPTS (plus the
# transport), its stats in $TMP/NAME.json
start() {
	name=$1
	local opts="transport=$TRANSPORT,allow_other,default_permissions,$2"
	shift 2
	"$@" "$MEMFS" -f -o "$opts" --stats-file="$TMP/$name.json" "$MNT" >"$TMP/$name.log" 2>&1 &
	pid=$!
	for _ in $(seq $((WAIT * 20))); do
		is_mounted "$MNT" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	# INIT may still be in flight when the mount shows: its log line
	for _ in $(seq $((WAIT * 20))); do
		grep -q 'mounted ' "$TMP/$name.log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if is_mounted "$MNT"; then
		# memfs asks for what its options say; the library drops and
		# logs what the kernel does not offer
		local lacks
		lacks=$(grep -o 'does not offer capabilities 0x[0-9a-f]*' "$TMP/$name.log")
		if [[ -n $lacks ]]; then
			not_offered "$name (-o $opts): the kernel $lacks ($(grep -o 'FUSE 7\.[0-9]*' "$TMP/$name.log"))"
		fi
		return 0
	fi
	fail "$name.mount" "expected memfs -o $opts mounted"
	tail -n 20 "$TMP/$name.log" | sed 's/^/# /'
	return 1
}

# snap: the daemon's counters now (SIGUSR1 rewrites the stats file), read
# once into S; then count KEY gives a counter of that snapshot. The file is
# removed first, so the one waited for is the new one (the daemon writes
# it whole under another name and renames it into place).
declare -A S
snap() {
	local f=$TMP/$name.json k v
	rm -f "$f"
	kill -USR1 "$pid"
	for _ in $(seq $((WAIT * 50))); do [[ -s $f ]] && break; sleep 0.02; done
	[[ -s $f ]] || fail "$name.stats_on_usr1" "expected a new $f within $WAIT s of SIGUSR1"
	S=()
	while IFS=$'\t' read -r k v; do S[$k]=$v; done < <(stats_read "$f")
}
count() { echo "${S[$1]:-0}"; }

# stop: unmounts; memfs must exit 0 having run on TRANSPORT (within WAIT:
# a daemon that does not is killed, not waited for)
stop() {
	umount "$MNT" || umount -l "$MNT"
	for _ in $(seq $((WAIT * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		fail "$name.exit" "expected memfs to exit within $WAIT s of the unmount"
		kill -KILL "$pid"
		wait "$pid"
	else
		wait "$pid"
		check_eq "$name.exit" 0 $?
	fi
	pid=
	check_eq "$name.transport" "$TRANSPORT" "$(stats_get "$TMP/$name.json" transport)"
}

# background LIMIT THRESHOLD: the mount's connection holds these (fusectl)
background() {
	local dir
	dir=$(fusectl)
	check_eq "$name.max_background" "$1" "$(cat "$dir/max_background" 2>&1)"
	check_eq "$name.congestion_threshold" "$2" "$(cat "$dir/congestion_threshold" 2>&1)"
}

as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# the seconds.nanoseconds of stat's %y
frac() { stat -c %y "$1" | awk '{ split($2, t, "."); print t[2] }'; }

# ------------------------------------------------------------------ writeback
start wb writeback || exit 1
head -c 3000000 /dev/urandom >"$TMP/data"
cp "$TMP/data" "$MNT/f"
# O_DIRECT reads go to memfs, after the kernel wrote its dirty pages back
dd if="$MNT/f" of="$TMP/back" bs=1M iflag=direct status=none
if cmp -s "$TMP/data" "$TMP/back"; then ok wb.data_reached_memfs; else fail wb.data_reached_memfs "expected the bytes written"; fi
exec 3>>"$MNT/f"
m0=$(stat -c %Y.%N "$MNT/f" 2>/dev/null || stat -c %y "$MNT/f")
sleep 0.05
printf 'tail' >&3
check_eq wb.size_at_once 3000004 "$(stat -c %s "$MNT/f")"
m1=$(stat -c %y "$MNT/f")
[[ $m1 != "$(stat -c %y "$TMP/back")" && $m1 != "$m0" ]] && ok wb.mtime_moved || fail wb.mtime_moved "expected a new mtime after the write, got $m1 (was $m0)"
exec 3>&-
check_eq wb.tail "tail" "$(dd if="$MNT/f" bs=4096 skip=732 iflag=direct status=none | tail -c 4)"
snap
[[ $(count by_opcode.WRITE) -gt 0 ]] && ok wb.writes_sent || fail wb.writes_sent "expected WRITE requests"
"$FSX" "$MNT" --ops 5000 --seed 11 --size 262144 >"$TMP/fsx.out" 2>&1
rc=$?
check_eq wb.fsx 0 "$rc"
[[ $rc == 0 ]] || tail -n 5 "$TMP/fsx.out" | sed 's/^/# /'
stop

# ------------------- readdirplus, killpriv_v2, no_open, max_pages, time_gran
# names long enough that a listing takes several getdents (32 KiB each,
# ls) and requests
long=$(printf 'n%.0s' $(seq 200))
mkentries() {
	mkdir "$MNT/d"
	for i in $(seq 200); do : >"$MNT/d/$long$i"; done
}
# killpriv DIR: a 06777 root file written, then truncated, by nobody; the
# modes after each. (Read with the size: a stat for the mode alone gets the
# mode the kernel cached before the write, for attr_timeout, as memfs
# cleared the bits behind its back on the kernel's word.)
killpriv() {
	local dir=$1
	: >"$dir/kp"
	chmod 06777 "$dir/kp"
	as_nobody sh -c "printf x >>'$dir/kp'"
	stat -c '%s %a' "$dir/kp"
	chmod 06777 "$dir/kp"
	as_nobody truncate -s 0 "$dir/kp"
	stat -c '%s %a' "$dir/kp"
}
# requests OP: how many OP requests (WRITE, READ) the command after it made
requests() {
	local op=$1 n0
	shift
	snap
	n0=$(count "by_opcode.$op")
	"$@"
	snap
	echo $(($(count "by_opcode.$op") - n0))
}
# shellcheck disable=SC2317 # (run through requests)
write4m() { dd if=/dev/zero of="$MNT/big" bs=4M count=1 status=none; }
# shellcheck disable=SC2317 # (run through requests)
read4m() { dd if="$MNT/big" of=/dev/null bs=4M iflag=direct status=none; }
tm='2020-01-01 00:00:00.123456789'

# readdir MODE: one listing, READDIR and READDIRPLUS counted around it
readdir_counts() {
	snap
	local r0 p0 n
	r0=$(count by_opcode.READDIR)
	p0=$(count by_opcode.READDIRPLUS)
	n=$(ls -f "$MNT/d" | wc -l)
	snap
	echo "$n $(($(count by_opcode.READDIR) - r0)) $(($(count by_opcode.READDIRPLUS) - p0))"
}
mount -t tmpfs -o mode=755 none "$TMPFS"
tmpfs_kp=$(killpriv "$TMPFS" | xargs)
check_eq killpriv.tmpfs "1 777 0 777" "$tmpfs_kp"

start rdauto readdirplus=auto,time_gran=1000 || exit 1
background 256 192
mkentries
read -r n plain plus < <(readdir_counts)
check_eq rdauto.entries 202 "$n"
[[ $plus -ge 1 && $plain -ge 1 ]] && ok rdauto.plus_then_plain || fail rdauto.plus_then_plain "expected READDIRPLUS then READDIR, got $plus and $plain"
check_eq killpriv_v2.as_tmpfs "$tmpfs_kp" "$(killpriv "$MNT" | xargs)"
snap
# control for no_open: every open is sent
o0=$(count by_opcode.OPEN)
for _ in 1 2 3; do cat "$MNT/kp" >/dev/null; done
snap
check_eq open.sent_each_time 3 $(($(count by_opcode.OPEN) - o0))
# max_pages control: the library's 256 pages (max_write 1 MiB): 4 WRITEs
w=$(requests WRITE write4m)
[[ $w -ge 4 && $w -lt 32 ]] && ok max_pages.control || fail max_pages.control "expected 4 to 31 WRITEs of 4 MiB with 256 pages, got $w"
touch -d "$tm" "$MNT/t2" "$TMPFS/t2"
check_eq time_gran.micro 123456000 "$(frac "$MNT/t2")"
check_eq time_gran.tmpfs_control 123456789 "$(frac "$TMPFS/t2")"
stop

start rdno readdirplus=no,killpriv_v2=0,max_pages=32,time_gran=1000000000,max_background=40 || exit 1
background 40 30
mkentries
read -r n plain plus < <(readdir_counts)
check_eq rdno.entries 202 "$n"
[[ $plus == 0 && $plain -ge 2 ]] && ok rdno.plain_only || fail rdno.plain_only "expected READDIR only, got $plus READDIRPLUS and $plain READDIR"
check_eq killpriv_v1.as_tmpfs "$tmpfs_kp" "$(killpriv "$MNT" | xargs)"
# 4 MiB in 128 KiB requests: 32 (more if the writer's pages came apart)
w=$(requests WRITE write4m)
r=$(requests READ read4m)
[[ $w -ge 32 ]] && ok max_pages.write_size || fail max_pages.write_size "expected >= 32 WRITEs of 128 KiB for 4 MiB, got $w"
[[ $r -ge 32 ]] && ok max_pages.read_size || fail max_pages.read_size "expected >= 32 READs of 128 KiB for 4 MiB, got $r"
touch "$MNT/t"
touch -d "$tm" "$MNT/t2"
check_eq time_gran.created 000000000 "$(frac "$MNT/t")"
check_eq time_gran.utimens 000000000 "$(frac "$MNT/t2")"
stop

start rdyes readdirplus=yes,no_open,max_background=0 || exit 1
background 12 9
mkentries
read -r n plain plus < <(readdir_counts)
check_eq rdyes.entries 202 "$n"
[[ $plain == 0 && $plus -ge 2 ]] && ok rdyes.plus_only || fail rdyes.plus_only "expected READDIRPLUS only, got $plus READDIRPLUS and $plain READDIR"
printf 'a longer first content\n' >"$MNT/no"
for _ in 1 2 3; do cat "$MNT/no" >/dev/null; done
ls "$MNT/d" >/dev/null
ls "$MNT" >/dev/null
printf 'short\n' >"$MNT/no" # O_TRUNC with no OPEN to do it
check_eq no_open.trunc "short" "$(cat "$MNT/no")"
# no RELEASE comes any more: an unlinked file must still be freed (memfs's
# free inode count, statfs, back where it was once the kernel forgets it)
free0=$(stat -f -c %d "$MNT")
printf x >"$MNT/gone" && cat "$MNT/gone" >/dev/null && rm "$MNT/gone"
# (the FORGET comes when the kernel drops the inode, after rm returned)
for _ in $(seq $((WAIT * 20))); do [[ $(stat -f -c %d "$MNT") == "$free0" ]] && break; sleep 0.05; done
check_eq no_open.unlinked_freed "$free0" "$(stat -f -c %d "$MNT")"
snap
check_eq no_open.open_once 1 "$(count by_opcode.OPEN)"
check_eq no_open.opendir_once 1 "$(count by_opcode.OPENDIR)"
stop

# ------------------------------------------------------------ parallel_dirops
# lookups of absent names in one directory, each held 1 s in memfs and
# started from both CPUs: the most memfs held at once (its own count, in
# its exit log line: sampling the library's in_flight from here missed the
# overlap on a loaded machine) is 1 without parallel_dirops, 2 or more with
# it. (Long entry and attribute timeouts: no other request.) The lookups
# start together: each client waits, ready, for a "go" file made once all
# are ready, so that a slow fork on a loaded machine cannot spread them
# out beyond the time each is held.
lookups_at_once() { # N: runs N lookups; after stop, held_at_once reads the peak
	local pids=() gate=$TMP/gate.$name
	mkdir -p "$MNT/pd" "$gate"
	stat "$MNT/pd" >/dev/null
	for i in $(seq "$1"); do
		taskset -c $((i % $(nproc))) sh -c '
			: >"$1/ready$2"
			while [ ! -e "$1/go" ]; do sleep 0.01; done
			exec stat "$3" >/dev/null 2>&1' - "$gate" "$i" "$MNT/pd/absent$i" &
		pids+=($!)
	done
	for _ in $(seq $((WAIT * 20))); do
		[[ $(find "$gate" -name 'ready*' | wc -l) -ge $1 ]] && break
		sleep 0.05
	done
	: >"$gate/go"
	wait "${pids[@]}"
}
held_at_once() { # NAME: memfs's peak, from its log
	sed -n 's/^memfs: lookups held at once: at most \([0-9]*\)$/\1/p' "$TMP/$1.log"
}
pd_opts=entry_timeout=60,attr_timeout=60,lookup_delay_ms=1000
start pdon "parallel_dirops,$pd_opts" || exit 1
lookups_at_once 6
stop
start pdoff "parallel_dirops=0,$pd_opts" || exit 1
lookups_at_once 3
stop
on=$(held_at_once pdon) off=$(held_at_once pdoff)
echo "# lookups in memfs at once: ${on:-?} with parallel_dirops, ${off:-?} without"
check_eq parallel_dirops.control_serial 1 "$off"
if [[ $(nproc) -ge 2 ]]; then
	[[ ${on:-0} -ge 2 ]] && ok parallel_dirops.overlap || fail parallel_dirops.overlap "expected 2 or more lookups in memfs at once, got ${on:-none}"
fi

# ------------------------------------------------------------------------ acl
# acl_script DIR: what a user sees of ACLs; the same on memfs and tmpfs
acl_script() {
	local d=$1
	(
		umask 022
		cd "$d" || exit 1
		printf secret >f && chmod 0644 f
		setfacl -m u:65534:--- f
		as_nobody cat f >/dev/null 2>&1 && echo "deny: read" || echo "deny: refused"
		setfacl -m u:65534:rw f
		as_nobody sh -c 'printf more >>f' 2>/dev/null && echo "allow: write" || echo "allow: refused"
		stat -c 'f %a' f
		getfacl -cp f
		chmod 0640 f
		stat -c 'f %a' f
		getfacl -cp f
		as_nobody sh -c 'printf more >>f' 2>/dev/null && echo "mask: write" || echo "mask: refused"
		setfacl -b f
		stat -c 'f %a' f
		getfacl -cp f
		mkdir dd && setfacl -d -m u:65534:rwx,g::r-x dd
		touch dd/new && mkdir dd/sub
		stat -c '%n %a' dd/new dd/sub
		getfacl -cp dd/new dd/sub
		as_nobody sh -c 'printf x >dd/new' 2>/dev/null && echo "inherited: write" || echo "inherited: refused"
	) 2>&1
}
acl_script "$TMPFS" >"$TMP/acl.tmpfs"
start acl acl || exit 1
acl_script "$MNT" >"$TMP/acl.memfs"
if diff "$TMP/acl.tmpfs" "$TMP/acl.memfs" >"$TMP/acl.diff"; then
	ok acl.as_tmpfs
else
	fail acl.as_tmpfs "expected what tmpfs shows"
	sed 's/^/# /' "$TMP/acl.diff"
fi
grep -q "deny: refused" "$TMP/acl.memfs" && grep -q "allow: write" "$TMP/acl.memfs" && ok acl.entry_decides || fail acl.entry_decides "expected the user entry to deny, then to allow"
grep -q "inherited: write" "$TMP/acl.memfs" && ok acl.default_inherited || fail acl.default_inherited "expected dd/new to inherit user:65534's rwx, within the mask"
stop

# ----------------------------------------------------------------- supp_group
# memfs in a pid namespace of its own: callers' pids are 0 there, so their
# groups cannot be read from /proc
supp_script() {
	mkdir -m 0771 "$1/g" && chown 0:4242 "$1/g"
	setpriv --reuid=65534 --regid=65534 --groups=4242 sh -c "touch '$1/g/f' && mkdir '$1/g/d'" 2>&1 && stat -c '%U:%G' "$1/g/f" "$1/g/d"
}
check_eq supp_group.tmpfs "nobody:nogroup nobody:nogroup" "$(supp_script "$TMPFS" | xargs)"
start supp supp_group unshare --pid --fork || exit 1
check_eq supp_group.create "nobody:nogroup nobody:nogroup" "$(supp_script "$MNT" | xargs)"
stop
start nosupp supp_group=0 unshare --pid --fork || exit 1
supp_script "$MNT" >/dev/null 2>&1 && fail supp_group.control "expected EACCES without supp_group" || ok supp_group.control
stop

# --------------------------------------------------------------- security_ctx
# The kernel appends the context to each creating request (the extension
# memfs reads with fring_req_secctx() and keeps as the LSM's xattr); the
# library's -d line ends with "ext N", the extension bytes
secctx_script() {
	touch "$1/f" && mkdir "$1/d" && ln -s f "$1/l" && mkfifo "$1/p" &&
		echo data >"$1/d/g" && cat "$1/d/g"
}
ext_of() { # OPCODE: the "ext N" of the -d lines of that opcode, or none
	grep -E "^fring: q[0-9]+ unique [0-9]+ $1 " "$TMP/$name.log" |
		sed -n 's/.* ext \([0-9]*\)$/\1/p' | sort -u | xargs
}
check_eq security_ctx.tmpfs data "$(secctx_script "$TMPFS" 2>&1)"
start secctx security_ctx,debug || exit 1
check_eq security_ctx.creates data "$(secctx_script "$MNT" 2>&1)"
for op in CREATE MKDIR SYMLINK MKNOD; do
	ext=$(ext_of $op)
	# 8: the header alone (no LSM labels it); more: a context, padded
	[[ $ext =~ ^[0-9]+$ && $ext -ge 8 && $((ext % 8)) == 0 ]] &&
		ok "security_ctx.$op.ext" ||
		fail "security_ctx.$op.ext" "expected one ext size, 8 or more, on the $op lines, got '$ext'"
done
snap
check_eq security_ctx.malformed 0 "$(count malformed)"
check_eq security_ctx.handler_bugs 0 "$(count handler_bugs)"
stop
start nosecctx debug || exit 1
secctx_script "$MNT" >/dev/null 2>&1
check_eq security_ctx.control_no_ext "" "$(ext_of CREATE)$(ext_of MKDIR)"
stop

check_done
