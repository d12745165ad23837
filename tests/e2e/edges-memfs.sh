# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# The edge tier's memfs part (doc/operations.md, "memfs's limits"): a full
# memfs answers ENOSPC and stays alive, statfs tells the truth, files cost
# no descriptor, -o remote= takes only names the kernel would, and
# RENAME_WHITEOUT works as on tmpfs. Big data is written only right after
# checking that the target is this case's FUSE mount. The system calls the
# shell lacks come from edges_memfs (FRING_EDGES_HELPER; meson sets it).
# FRING_EDGES_MEMFS_MILLION=1 runs files_million alone (a meson test of its
# own: a million files take longer than a case of this part should).
CASES=(bad_options fallocate_1tib write_over_limit df_truth truncate_charged
	xattr_charged copy_charged nr_inodes cgroup_small files_default
	files_ulimit64 remote_names remote_inside rename_whiteout)
# shellcheck disable=SC2034 # (edges.sh reads CASES)
[[ ${FRING_EDGES_MEMFS_MILLION:-0} == 1 ]] && CASES=(files_million)

H=${FRING_EDGES_HELPER:-$(dirname "$MEMFS")/../../tests/e2e/edges_memfs}
MIB=$((1 << 20))

# "BSIZE BLOCKS BFREE FILES FFREE" of DIR
fs_stat() { "$H" statfs "$1"; }
used_bytes() { # DIR -> bytes in use by statfs
	local bs b f
	read -r bs b f _ _ <<<"$(fs_stat "$1")"
	echo $(((b - f) * bs))
}
used_inodes() { # DIR
	local files ffree
	read -r _ _ _ files ffree <<<"$(fs_stat "$1")"
	echo $((files - ffree))
}
# the counts of the mount at $D/m are BYTES (and INODES)
used_is() { [[ $(used_bytes "$D/m") == "$1" ]]; }
used_both_are() { [[ $(used_bytes "$D/m"):$(used_inodes "$D/m") == "$1:$2" ]]; }
inodes_are() { [[ $(used_inodes "$D/m") == "$1" ]]; }
fails() { ! "$@" 2>/dev/null; }
create() { : >"$1"; }
size_bytes() { # DIR -> the size limit statfs reports
	local bs b
	read -r bs b _ _ _ <<<"$(fs_stat "$1")"
	echo $((bs * b))
}
# PID -> KiB of its memory: its RSS and the pages of its memfds (shmem,
# which RSS does not show)
mem_kib() {
	local rss b blocks=0 f
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status")
	for f in /proc/"$1"/fd/*; do
		[[ $(readlink "$f" 2>/dev/null) == /memfd:* ]] || continue
		b=$(stat -L -c %b "$f" 2>/dev/null) || continue
		blocks=$((blocks + b))
	done
	echo $((rss + blocks / 2))
}
between() { [[ $1 -ge $2 && $1 -le $3 ]]; }
is() { # SUB WANT COMMAND...: COMMAND, run once, prints WANT (status too)
	local sub=$1 want=$2 got
	shift 2
	got=$("$@" 2>&1)
	if [[ $got == "$want" ]]; then
		ok "$sub"
	else
		fail "$sub" "got '$got', want '$want'"
		return 1
	fi
}
# the FUSE mount under test is at $D/m: checked before writing big data
fuse_here() {
	is_fuse_mount "$D/m" && return 0
	fail mounted "$D/m is not a FUSE mount: no big data written"
	return 1
}
# the daemon is alive and its mount still answers
serving() { alive "$DPID" && is_fuse_mount "$D/m" && stat "$D/m" >/dev/null; }
# memfs with OPTIONS at $D/m, the transport proved; 1 if it did not mount
memfs_up() {
	if ! start_memfs "$D/m" "$@"; then
		fail start "memfs -o $*: did not mount: $(head -c 600 "$DLOG")"
		return 1
	fi
	# the line may come a moment after the mount
	check transport "mount line: $(grep mounted "$DLOG")" \
		wait_for "$T" ran_on_transport "$DLOG"
}
stop_daemon() { # ends DPID and waits for its mount to go
	kill -TERM "$DPID" 2>/dev/null
	wait_gone "$DPID"
	wait_for "$T" fails is_fuse_mount "$D/m"
}

# Each bad value: exit 1 before mounting, with the valid range in the
# message.
case_bad_options() {
	local spec opt want out rc
	mk "$D/m"
	for spec in "size=foo|k, m, g, t" "size=12q|k, m, g, t" \
		"size=0%|1% to 100%" "size=101%|1% to 100%" \
		"size=99999999999999999999|2^63" "nr_inodes=-1|0 (no limit) to 268435456" \
		"nr_inodes=1x|k, m or g" "nr_inodes=999999999999|268435456" \
		"entry_timeout=-1|seconds" "max_pages=0|1 to 65535" \
		"mode=9|octal" "readdirplus=maybe|'maybe' is not one of: auto, yes, no" \
		"writeback=2|0 or 1" "cache=bogus|unknown option 'cache'" \
		"remote=|option remote needs a value"; do
		opt=${spec%%|*} want=${spec#*|}
		out=$(timeout -k 5 "$T" "$MEMFS" -f -o "$(topt),$opt" "$D/m" 2>&1)
		rc=$?
		check "$opt.exit" "exit $rc (want 1): $out" [ "$rc" = 1 ]
		check "$opt.says" "message lacks '$want': $out" \
			grep -qF -- "$want" <<<"$out"
		check "$opt.unmounted" "a mount at $D/m" [ "$(mount_count "$D/m")" = 0 ]
	done
}

# fallocate of 1 TiB (KEEP_SIZE and plain) is ENOSPC at once: nothing
# allocated, the daemon alive and its memory (RSS and memfd pages) about
# what it was. First under size=64m (a build without limits refuses the
# option and stops the case there, before the 1 TiB call could take the
# machine's memory), then with the default size.
case_fallocate_1tib() {
	local f=$D/m/f before after held=no
	memfs_up size=64m || return
	is small.size $((64 * MIB)) size_bytes "$D/m"
	fuse_here || return
	is small.1tib_keep ENOSPC "$H" fallocate "$f" keep 0 1t &&
		is small.1tib ENOSPC "$H" fallocate "$f" 0 0 1t && held=yes
	check small.nothing_done "size:blocks $(stat -c %s:%b "$f"), used $(used_bytes "$D/m")" \
		[ "$(stat -c %s:%b "$f"):$(used_bytes "$D/m")" = 0:0:0 ]
	fuse_here || return
	is small.60m ok "$H" fallocate "$f" keep 0 60m
	is small.60m_used $((60 * MIB)) used_bytes "$D/m"
	# 8 MiB more does not fit, and none of it is kept
	is small.over ENOSPC "$H" fallocate "$f" keep 60m 8m
	check small.over_nothing_kept "used $(used_bytes "$D/m"), blocks $(stat -c %b "$f")" \
		[ "$(used_bytes "$D/m"):$(stat -c %b "$f")" = $((60 * MIB)):$((60 * 2048)) ]
	check small.alive "daemon or mount gone" serving
	stop_daemon
	# the default size next, 1 TiB again: only if the limit held above
	if [[ $held != yes ]]; then
		fail default "not tried: the limit did not hold under size=64m"
		return
	fi

	memfs_up || return
	before=$(mem_kib "$DPID")
	fuse_here || return
	is default.1tib_keep ENOSPC "$H" fallocate "$f" keep 0 1t
	is default.1tib ENOSPC "$H" fallocate "$f" 0 0 1t
	after=$(mem_kib "$DPID")
	check default.alive "daemon or mount gone" serving
	check default.memory "memory ${before} KiB before, ${after} KiB after" \
		[ $((after - before)) -lt $((64 * 1024)) ]
	is default.nothing_done 0 used_bytes "$D/m"
	echo "  fallocate_1tib: daemon memory $before KiB before, $after KiB after"
}

# size=8m: a 16 MiB write stops with ENOSPC at the limit; the file holds
# exactly what was answered as written, the daemon lives, data already
# there can still be overwritten, statfs shows about 8 MiB used.
case_write_over_limit() {
	local out n
	memfs_up size=8m || return
	fuse_here || return
	out=$("$H" write "$D/m/big" 0 16m)
	n=$(awk '{ print $2 }' <<<"$out")
	check enospc "$out" grep -q "ENOSPC" <<<"$out"
	check written "$out" between "${n:-0}" $((7 * MIB)) $((8 * MIB))
	is size_is_written "$n" stat -c %s "$D/m/big"
	check alive "daemon or mount gone" serving
	check used "used $(used_bytes "$D/m")" \
		between "$(used_bytes "$D/m")" $((7 * MIB)) $((8 * MIB))
	check df "df: $(df -k --output=used "$D/m" | tail -n 1)" \
		between "$(df -k --output=used "$D/m" | tail -n 1)" 7168 8192
	# pages already there are overwritten at the limit, as on tmpfs
	is overwrite "wrote $MIB ok" "$H" write "$D/m/big" 0 1m
	check readable "read back" \
		cmp -s -n "$n" "$D/m/big" <(tr '\0' 'Z' </dev/zero | head -c "$n")
}

# statfs counts the bytes and inodes in use, and free is the limit less
# them, after writes, creates and deletes (a removed file's room comes
# back when the kernel forgets the inode: after its last close).
case_df_truth() {
	local bs blocks bfree files ffree i u0 i0
	memfs_up || return
	u0=$(used_bytes "$D/m") i0=$(used_inodes "$D/m")
	mkdir -p "$D/m/d/e"
	fuse_here || return
	for i in 0 1 2 3 4 5 6 7 8 9; do
		head -c $MIB /dev/urandom >"$D/m/d/f$i"
	done
	"$H" mkfiles "$D/m/d/e" 100 0 >/dev/null
	is bytes $((u0 + 10 * MIB)) used_bytes "$D/m"
	is inodes $((i0 + 112)) used_inodes "$D/m" # 2 dirs, 110 files
	read -r bs blocks bfree files ffree <<<"$(fs_stat "$D/m")"
	check free_is_rest "blocks $blocks, free $bfree, used $((10 * MIB / bs))" \
		[ $((blocks - bfree)) = $((10 * MIB / bs)) ]
	check ifree_is_rest "files $files, free $ffree" \
		[ $((files - ffree)) = $((i0 + 112)) ]
	check df "df: $(df -k --output=used,iused "$D/m" | tail -n 1)" \
		[ "$(df -k --output=used,iused "$D/m" | tail -n 1 | xargs)" = "$((u0 / 1024 + 10240)) $((i0 + 112))" ]
	# the kernel's RELEASE of a closed file and its FORGET of a removed
	# one come when they come: waited for
	rm "$D/m/d/f0" "$D/m/d/f1" "$D/m/d/f2"
	check rm_bytes "used $(used_bytes "$D/m")" \
		wait_for "$T" used_is $((u0 + 7 * MIB))
	check rm_inodes "inodes $(used_inodes "$D/m")" \
		wait_for "$T" inodes_are $((i0 + 109))
	# an open file keeps its data after the unlink, until it is closed
	exec 7<"$D/m/d/f3"
	rm "$D/m/d/f3"
	is open_unlinked_kept $((u0 + 7 * MIB)) used_bytes "$D/m"
	exec 7<&-
	check closed_freed "used $(used_bytes "$D/m")" \
		wait_for "$T" used_is $((u0 + 6 * MIB))
	rm -r "$D/m/d"
	check all_gone "used $(used_bytes "$D/m"), inodes $(used_inodes "$D/m")" \
		wait_for "$T" used_both_are "$u0" "$i0"
}

# truncate allocates nothing (sparse, as tmpfs), a shrink gives the pages
# back, and a plain fallocate past the limit leaves the size as it was.
case_truncate_charged() {
	local f=$D/m/f
	memfs_up || return
	: >"$f"
	is up_1tib ok "$H" truncate "$f" 1t
	check up_sparse "size:blocks $(stat -c %s:%b "$f"), used $(used_bytes "$D/m")" \
		[ "$(stat -c %s:%b "$f"):$(used_bytes "$D/m")" = $((1 << 40)):0:0 ]
	is down ok "$H" truncate "$f" 0
	fuse_here || return
	is write "wrote $((4 * MIB)) ok" "$H" write "$f" 0 4m
	is written $((4 * MIB)) used_bytes "$D/m"
	is shrink ok "$H" truncate "$f" 1000000
	# 1000000 bytes are 245 pages
	check shrunk "used $(used_bytes "$D/m"), blocks $(stat -c %b "$f")" \
		[ "$(used_bytes "$D/m"):$(stat -c %b "$f")" = $((245 * 4096)):$((245 * 8)) ]
	is regrow ok "$H" truncate "$f" 100g
	is regrown $((245 * 4096)) used_bytes "$D/m"
	check tail_zero "bytes past the old end do not read back as zeros" \
		cmp -s <(dd if="$f" iflag=skip_bytes,count_bytes skip=1000000 \
			count=8192 status=none) <(head -c 8192 /dev/zero)
	# 1 TiB only where the charge was seen to work (a build without
	# limits would allocate it)
	if [[ $(used_bytes "$D/m") == $((245 * 4096)) ]]; then
		is falloc_over ENOSPC "$H" fallocate "$f" 0 100g 1t
		is falloc_over_size $((100 << 30)) stat -c %s "$f"
	else
		fail falloc_over "not tried: nothing is charged"
	fi
	is zero ok "$H" truncate "$f" 0
	is zero_used 0 used_bytes "$D/m"
}

# extended attributes count against size: 64 KiB values on a 1 MiB memfs
# run out with ENOSPC; removing them gives the room back.
case_xattr_charged() {
	local i r n=0
	memfs_up size=1m || return
	: >"$D/m/f"
	for i in $(seq 0 19); do
		r=$("$H" setxattr "$D/m/f" "user.a$i" 65536)
		[[ $r == ok ]] || break
		n=$((n + 1))
	done
	check enospc "after $n values: $r" [ "$r" = ENOSPC ]
	check count "$n values of 64 KiB fit in 1 MiB, not 15" [ "$n" = 15 ]
	check used "used $(used_bytes "$D/m")" \
		between "$(used_bytes "$D/m")" $((15 * 65536)) $((MIB))
	is data_too "wrote 0 ENOSPC" "$H" write "$D/m/g" 0 128k
	for i in $(seq 0 $((n - 1))); do
		"$H" rmxattr "$D/m/f" "user.a$i" >/dev/null
	done
	is given_back 0 used_bytes "$D/m"
	check alive "daemon or mount gone" serving
}

# copy_file_range is charged like a write: a copy that does not fit is
# ENOSPC with the destination as it was.
case_copy_charged() {
	memfs_up size=8m || return
	fuse_here || return
	is source "wrote $((5 * MIB)) ok" "$H" write "$D/m/a" 0 5m
	: >"$D/m/b"
	is enospc ENOSPC "$H" copy "$D/m/a" "$D/m/b" 5m
	check dest_untouched "size $(stat -c %s "$D/m/b"), used $(used_bytes "$D/m")" \
		[ "$(stat -c %s "$D/m/b"):$(used_bytes "$D/m")" = 0:$((5 * MIB)) ]
	is fits $((2 * MIB)) "$H" copy "$D/m/a" "$D/m/b" 2m
	is charged $((7 * MIB)) used_bytes "$D/m"
	check data "copied bytes differ" cmp -s -n $((2 * MIB)) "$D/m/a" "$D/m/b"
}

# nr_inodes=100: the root and 99 more, then ENOSPC for every kind of
# inode and for a hard link (as on tmpfs, one counts as an inode).
case_nr_inodes() {
	memfs_up nr_inodes=100 || return
	is enospc_at_100 "file 99: ENOSPC" "$H" mkfiles "$D/m" 200 0
	check df_full "statfs: $(fs_stat "$D/m")" \
		[ "$(fs_stat "$D/m" | awk '{ print $4 - $5 ":" $5 }')" = 100:0 ]
	check mkdir "mkdir succeeded" fails mkdir "$D/m/d"
	check symlink "symlink succeeded" fails ln -s x "$D/m/l"
	check link "link succeeded" fails ln "$D/m/f0" "$D/m/f0.2"
	check create "create succeeded" fails create "$D/m/new"
	is whiteout ENOSPC "$H" rename2 "$D/m/f1" "$D/m/f1.2" whiteout
	rm "$D/m/f5"
	check after_rm "a create after a remove failed" \
		wait_for "$T" mkdir "$D/m/d" 2>/dev/null
	check alive "daemon or mount gone" serving
}

mount_of() { # TYPE [OPTION]: where a mount of TYPE (with OPTION) is
	awk -v t="$1" -v o="${2:-}" '{
		for (i = 7; $i != "-"; i++);
		if ($(i + 1) == t && (o == "" || ("," $(i + 3) ",") ~ ("," o ",")))
			{ print $5; exit }
	}' /proc/self/mountinfo
}
# The cgroup for cgroup_small: CG (its directory) and how to read its OOM
# kills; 1 if this machine has no memory cgroup to make one in.
cg_make() {
	local mnt own
	mnt=$(mount_of cgroup memory)
	if [[ -n $mnt ]]; then # v1: below our own cgroup
		own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
		CG=$mnt${own%/}/fring-edges-$$
		mkdir "$CG" || return 1
		echo $((CG_MIB * MIB)) >"$CG/memory.limit_in_bytes" || return 1
		CG_OOM() { awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control"; }
		return 0
	fi
	mnt=$(mount_of cgroup2)
	[[ -n $mnt ]] && grep -qw memory "$mnt/cgroup.subtree_control" || return 1
	CG=$mnt/fring-edges-$$ # v2: processes live only in leaves, so at the top
	mkdir "$CG" || return 1
	echo $((CG_MIB * MIB)) >"$CG/memory.max" || return 1
	[[ -e $CG/memory.swap.max ]] && echo 0 >"$CG/memory.swap.max"
	CG_OOM() { awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events"; }
}
# memfs started without size= in a memory cgroup of 128 MiB: its default
# follows the cgroup (64 MiB; the other half is for the rest of the daemon:
# 20 MiB on uring with its entry buffers), and 256 MiB of writes end in
# ENOSPC, not in the OOM killer.
CG_MIB=128
case_cgroup_small() {
	local out
	CG=
	trap 'edges_cleanup; [[ -n $CG ]] && rmdir "$CG" 2>/dev/null' EXIT
	if ! cg_make; then
		skip_check "" "no memory cgroup to make one in"
		return
	fi
	# shellcheck disable=SC2016
	if ! start_daemon "$D/m" sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -f -o "$3" "$4"' \
		sh "$CG" "$MEMFS" "$(topt)" "$D/m"; then
		fail start "memfs did not mount: $(head -c 600 "$DLOG")"
		return
	fi
	check transport "mount line: $(grep mounted "$DLOG")" \
		wait_for "$T" ran_on_transport "$DLOG"
	check in_cgroup "memfs is not in $CG" grep -qx "$DPID" "$CG/cgroup.procs"
	check size_follows "statfs size $(size_bytes "$D/m")" \
		[ "$(size_bytes "$D/m")" -le $((CG_MIB * MIB / 2)) ]
	fuse_here || return
	out=$("$H" write "$D/m/big" 0 $((2 * CG_MIB))m 2>&1)
	check enospc "$out" grep -q "ENOSPC" <<<"$out"
	check alive "daemon or mount gone (OOM kills: $(CG_OOM))" serving
	check no_oom_kill "OOM kills in the cgroup: $(CG_OOM)" [ "$(CG_OOM)" = 0 ]
	check readable "the file does not read back" \
		cmp -s "$D/m/big" <(head -c "$(stat -c %s "$D/m/big")" /dev/zero | tr '\0' 'Z')
	echo "  cgroup_small: $out; the cgroup's peak $(cat "$CG/memory.max_usage_in_bytes" \
		"$CG/memory.peak" 2>/dev/null) bytes"
	stop_daemon
}

# 100,000 one-byte files under whatever RLIMIT_NOFILE this machine gives
# (before: ENOSPC at the 19,992nd under 20,000), read back.
case_files_default() {
	many_files
}
# the same with the daemon under ulimit -n 64 (before: the 58th file)
case_files_ulimit64() {
	many_files 64
}
many_files() { # [NOFILE]
	local out nfd
	if [[ -n ${1:-} ]]; then
		# shellcheck disable=SC2016
		start_daemon "$D/m" bash -c 'ulimit -n "$1" && exec "$2" -f -o "$3" "$4"' \
			bash "$1" "$MEMFS" "$(topt)" "$D/m"
	else
		start_daemon "$D/m" "$MEMFS" -f -o "$(topt)" "$D/m"
	fi || { fail start "memfs did not mount: $(head -c 600 "$DLOG")"; return; }
	check transport "mount line: $(grep mounted "$DLOG")" \
		wait_for "$T" ran_on_transport "$DLOG"
	[[ -n ${1:-} ]] && check nofile "limits: $(grep 'open files' "/proc/$DPID/limits")" \
		[ "$(awk '/open files/ { print $4 }' "/proc/$DPID/limits")" = "$1" ]
	mkdir "$D/m/a" "$D/m/b"
	fuse_here || return
	# the daemon's own descriptors (queues, rings: more on a bigger
	# machine) before the files; the files must add next to none
	nfd0=$(find "/proc/$DPID/fd" -mindepth 1 | wc -l)
	# two writers, two directories: creates in one directory take turns
	out=$( ("$H" mkfiles "$D/m/a" 50000 1 & "$H" mkfiles "$D/m/b" 50000 1 & wait) 2>&1)
	check created "$out" [ "${out//$'\n'/ }" = "50000 50000" ]
	out=$( ("$H" checkfiles "$D/m/a" 50000 1 & "$H" checkfiles "$D/m/b" 50000 1 & wait) 2>&1)
	check read_back "$out" [ "${out//$'\n'/ }" = "50000 50000" ]
	nfd=$(($(find "/proc/$DPID/fd" -mindepth 1 | wc -l) - nfd0))
	check few_fds "100,000 files added $nfd descriptors to the daemon's $nfd0" [ "$nfd" -lt 100 ]
	# and a file bigger than a small one, in whatever storage is left
	fuse_here || return
	head -c $((8 * MIB)) /dev/urandom >"$D/big.src"
	cp "$D/big.src" "$D/m/big"
	check big "an 8 MiB file does not read back" cmp -s "$D/big.src" "$D/m/big"
	check alive "daemon or mount gone" serving
	echo "  $CASE: the daemon holds $nfd descriptors for 100,000 files"
}

# 1,000,000 empty files under the default RLIMIT_NOFILE (its own meson
# test: FRING_EDGES_MEMFS_MILLION=1)
# shellcheck disable=SC2012 # (ls -f: the listing is what is counted)
case_files_million() {
	local out t0 t1
	memfs_up || return
	check inodes_enough "statfs: $(fs_stat "$D/m")" \
		[ "$(fs_stat "$D/m" | awk '{ print $5 }')" -ge 1000100 ]
	mkdir "$D/m/a" "$D/m/b"
	t0=$SECONDS
	out=$( ("$H" mkfiles "$D/m/a" 500000 0 & "$H" mkfiles "$D/m/b" 500000 0 & wait) 2>&1)
	t1=$SECONDS
	check created "$out" [ "${out//$'\n'/ }" = "500000 500000" ]
	check counted "inodes $(used_inodes "$D/m")" [ "$(used_inodes "$D/m")" = 1000003 ]
	check listed "listing" [ "$(ls -f "$D/m/a" | wc -l)" = 500002 ]
	out=$("$H" checkfiles "$D/m/b" 1000 0)
	check stat "$out" [ "$out" = 1000 ]
	check alive "daemon or mount gone" serving
	echo "  files_million: $((t1 - t0)) s for 1,000,000 files, memfs RSS $(awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status") KiB"
}

# -o remote= takes a name only as the kernel's path walk would: each
# hostile one is refused with its reason, and the tree stays whole.
# shellcheck disable=SC2012 # (ls -a: the listing is what is checked)
case_remote_names() {
	local rc=$D/rc cmd n=0 long
	memfs_up "remote=$rc" || return
	check fifo "no FIFO $rc" wait_for "$T" test -p "$rc"
	echo x >"$D/m/f"
	mkdir "$D/m/dir"
	echo y >"$D/m/dir/g"
	long=$(printf 'n%.0s' $(seq 256))
	for cmd in "rename /f a/b" "rename /f .." "rename /f ." "rename /f" \
		"rename /f $long" "rename /../f x" "rename /dir/../f x" \
		"write /./f 0 X" "write /f -1 X" "write /f 0" "unlink /dir/.." \
		"unlink /dir/g extra" "store f 0 X" "rename /dir/g ../g" "mkdir /x"; do
		n=$((n + 1))
		echo "$cmd" >"$rc"
		check "refused.$n" "'$cmd': $(grep -F "remote: $cmd:" "$DLOG")" \
			wait_for "$T" grep -qF "remote: $cmd: refused: " "$DLOG"
	done
	printf 'rename /f a\0b\n' >"$rc"
	check refused.nul "$(grep NUL "$DLOG")" \
		wait_for "$T" grep -q "a line with a NUL byte refused" "$DLOG"
	echo "rename /f f2" >"$rc"
	check good_one "$(grep -F "rename /f f2" "$DLOG")" \
		wait_for "$T" grep -qF "remote: rename /f f2: done" "$DLOG"
	check listing "ls -a: $(ls -a "$D/m" | tr '\n' ' ')" \
		[ "$(ls -a "$D/m" | tr '\n' ' ')" = ". .. dir f2 " ]
	check subdir "ls -a dir: $(ls -a "$D/m/dir" 2>&1 | tr '\n' ' ')" \
		[ "$(ls -a "$D/m/dir" 2>&1 | tr '\n' ' ')" = ". .. g " ]
	check data "$(cat "$D/m/f2" "$D/m/dir/g" 2>&1 | tr '\n' ' ')" \
		[ "$(cat "$D/m/f2" "$D/m/dir/g" | tr '\n' ' ')" = "x y " ]
	check alive "daemon or mount gone" serving
}

# renameat2(RENAME_WHITEOUT) on memfs does what it does on a tmpfs: the
# same answers and the same tree, step by step.
whiteout_steps() { # ROOT: one line a step
	local r=$1
	echo data >"$r/a"
	echo tgt >"$r/b"
	mkdir "$r/d"
	echo x >"$r/d/x"
	echo "move $("$H" rename2 "$r/a" "$r/a2" whiteout)"
	echo "  a: $(stat -c '%F %t:%T %a %s %U' "$r/a") a2: $(cat "$r/a2")"
	echo "replace $("$H" rename2 "$r/b" "$r/a2" whiteout)"
	echo "  b: $(stat -c '%F %t:%T %a' "$r/b") a2: $(cat "$r/a2")"
	echo "dir $("$H" rename2 "$r/d" "$r/d2" whiteout)"
	echo "  d: $(stat -c '%F %t:%T' "$r/d") d2/x: $(cat "$r/d2/x") links: $(stat -c %h "$r")"
	echo "with_exchange $("$H" rename2 "$r/a2" "$r/d2" whiteout,exchange)"
	echo "with_noreplace $("$H" rename2 "$r/a2" "$r/c" whiteout,noreplace)"
	echo "noreplace_exists $("$H" rename2 "$r/c" "$r/d2" whiteout,noreplace)"
	echo "onto_whiteout $("$H" rename2 "$r/c" "$r/a" 0)"
	echo "  a: $(stat -c '%F' "$r/a") c: $(stat -c '%F' "$r/c" 2>/dev/null || echo none)"
	setpriv --reuid=65534 --regid=65534 --clear-groups touch "$r/u"
	echo "user $(setpriv --reuid=65534 --regid=65534 --clear-groups "$H" rename2 "$r/u" "$r/u2" whiteout)"
	echo "list $(cd "$r" && stat -c '%n:%F' -- * | tr '\n' ' ')"
}
# -o remote= with its FIFO inside the mountpoint: the mount would hide it,
# and making it there after the mount would wait on memfs itself (the
# daemon hung before serving and had to be killed, leaving a dead mount).
# Refused before mounting, at once, and a FIFO elsewhere still works.
case_remote_inside() {
	local out rc
	mk "$D/m" "$D/m/sub"
	for f in "$D/m/rc" "$D/m/sub/rc" "$D/m/../m/rc"; do
		out=$(timeout -k 5 "$T" "$MEMFS" -f -o "$(topt),remote=$f" "$D/m" 2>&1)
		rc=$?
		check "refused.${f##*/m/}" "status $rc: $out" \
			bash -c '[[ $1 == 1 ]] && grep -q "inside the mountpoint" <<<"$2"' _ "$rc" "$out"
		check "not_mounted.${f##*/m/}" "a mount at $D/m" test "$(mount_count "$D/m")" = 0
	done
	memfs_up "remote=$D/rc" || return
	echo x >"$D/m/f"
	echo "write /f 0 Y" >"$D/rc"
	check outside_works "$(grep -F "remote: write /f" "$DLOG")" \
		wait_for "$T" grep -qF "remote: write /f 0 Y: done" "$DLOG"
}

case_rename_whiteout() {
	tmpfs_at "$D/t" || { fail tmpfs "no tmpfs at $D/t"; return; }
	# allow_other: a user makes one too (since Linux 5.8 a whiteout
	# needs no CAP_MKNOD)
	memfs_up allow_other || return
	whiteout_steps "$D/t" >"$D/tmpfs.out" 2>&1
	whiteout_steps "$D/m" >"$D/memfs.out" 2>&1
	check as_tmpfs "$(diff "$D/tmpfs.out" "$D/memfs.out" | tr '\n' '|')" \
		cmp -s "$D/tmpfs.out" "$D/memfs.out"
	check whiteout "memfs: $(head -n 2 "$D/memfs.out" | tr '\n' '|')" \
		grep -q '^  a: character special file 0:0 0 0 root a2: data$' "$D/memfs.out"
	check exchange_einval "$(grep with_exchange "$D/memfs.out")" \
		grep -qx 'with_exchange EINVAL' "$D/memfs.out"
	check alive "daemon or mount gone" serving
}
