#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# smoke.sh SMOKEFS TRANSPORT LIB [ARGS...]: mounts smokefs (a libfuse
# low-level program, smokefs.c) with -o transport=TRANSPORT and ARGS (-s:
# fuse_session_loop(), one callback at a time) and checks, as a client:
# the mount line names the transport, the process runs on LIB (a file name
# in its memory map: libfring-fuse3.so, or the drop-in's libfuse3.so.3),
# --version and a bad option behave, the listing, a memory read, data
# written and read back byte for byte at offsets (write_buf into a memfd,
# reads answered from the fd: smokefs' counters say those paths ran, and
# whether write_buf got memory; SMOKEFS_SPLICE_READ=1 asks for the other),
# unlink, a read left unanswered by its handler and answered EINTR by the
# interrupt function it registered once the reader is killed,
# fuse_session_fd() naming a /dev/fuse descriptor of the process, and
# SIGTERM ending it cleanly with the mount gone; then, mounted again with
# -o auto_unmount, SIGKILL: the mount must go as well.
set -uo pipefail
# (four levels up is the source tree's root; in the vm tier's guest, where
# this script is /tests/compat/smoke.sh, it is / and the path the same)
# shellcheck source-path=SCRIPTDIR source=../../../../tests/lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../../tests/lib/check.sh"
exe=$(realpath "$1")
transport=$2
lib=$3
shift 3
[[ $(id -u) == 0 && -c /dev/fuse ]] || skip "needs root and /dev/fuse"
scratch_mount fuse3-smoke
mounted() { fuse_mounted "$mnt"; }
counter() { awk -v k="$1" '$1 == k {print $2}' "$mnt/counters"; }

stats_sh=$(dirname "$(realpath "$0")")/../../../../tests/e2e/stats.sh

# ---- the command line, nothing mounted ----
out=$("$exe" --version 2>&1)
[[ $out == *"FUSE library version 3.18.3 (libfring-fuse3)"* ]] && ok version ||
	fail version "got '$out'"
out=$("$exe" -o no_such_option "$mnt" 2>&1) && fail bad_option "exit 0" ||
	{ [[ $out == *"unknown option(s): \`-o no_such_option'"* ]] && ok bad_option ||
		fail bad_option "got '$out'"; }
"$exe" >/dev/null 2>&1 && fail no_mountpoint "exit 0" || ok no_mountpoint
out=$("$exe" -o stats_fd=99 "$mnt" 2>&1 99<&-) && fail bad_stats_fd "exit 0" ||
	{ [[ $out == *"stats_fd=99: not a descriptor open for writing"* ]] && ok bad_stats_fd ||
		fail bad_stats_fd "got '$out'"; }
mounted && fail nothing_mounted "mounted" || ok nothing_mounted

# ---- mount ----
# (-o stats_fd: libfring's statistics written there at the end)
"$exe" -f -o "transport=$transport,stats_fd=9" "$@" "$mnt" 2>"$tmp/log" 9>"$tmp/stats.json" &
pid=$!
for _ in $(seq 100); do mounted && break; sleep 0.1; done
if ! mounted; then
	fail mount "not mounted after 10 s: $(cat "$tmp/log")"
	echo "$passed passed, $failed failed"
	exit 1
fi
ok mount
# the line libfring logs once the queues run names the rung
for _ in $(seq 100); do grep -q "mounted .*transport $transport " "$tmp/log" && break; sleep 0.1; done
grep -q "mounted $mnt: .*transport $transport " "$tmp/log" && ok mount_line_transport ||
	fail mount_line_transport "no 'transport $transport' in: $(cat "$tmp/log")"
grep -q "$lib" "/proc/$pid/maps" && ok "runs_on_$lib" ||
	fail "runs_on_$lib" "not in its maps: $(grep -E 'fuse|fring' "/proc/$pid/maps" | awk '{print $6}' | sort -u)"
# the program's name is its default subtype, as with libfuse
grep -q " $mnt fuse.$(basename "$exe") " /proc/self/mounts && ok subtype ||
	fail subtype "$(grep " $mnt " /proc/self/mounts)"

# ---- reading what the program holds ----
names=$(timeout 20 ls -a "$mnt" | tr '\n' ' ')
[[ $names == ". .. counters hello sleepy " ]] && ok readdir || fail readdir "got '$names'"
[[ $(timeout 20 cat "$mnt/hello") == "hello from smokefs" ]] && ok read_memory ||
	fail read_memory "got '$(cat "$mnt/hello")'"
err=$(timeout 20 sh -c ': >"$1"' sh "$mnt/hello" 2>&1)
[[ $err == *"Permission denied"* ]] && ok write_open_eacces || fail write_open_eacces "got '$err'"
err=$(timeout 20 stat "$mnt/nope" 2>&1)
[[ $err == *"No such file"* ]] && ok lookup_enoent || fail lookup_enoent "got '$err'"

# ---- data through write_buf and fd reads (only onto this mount) ----
head -c 3145728 /dev/urandom >"$tmp/data"
printf 'first line\n' >"$tmp/small"
if mounted; then
	timeout 30 cp "$tmp/data" "$mnt/data" && timeout 30 cmp -s "$tmp/data" "$mnt/data" &&
		ok data_3MiB || fail data_3MiB "the bytes read back differ"
	timeout 20 dd if="$mnt/data" bs=4096 skip=100 count=3 2>/dev/null >"$tmp/part"
	dd if="$tmp/data" bs=4096 skip=100 count=3 2>/dev/null | cmp -s - "$tmp/part" &&
		ok read_offset || fail read_offset "the 3 blocks at 400 KiB differ"
	timeout 20 cp "$tmp/small" "$mnt/small" && printf 'second\n' >>"$mnt/small"
	[[ $(timeout 20 cat "$mnt/small") == $'first line\nsecond' ]] && ok append ||
		fail append "got '$(cat "$mnt/small")'"
	size=$(stat -c %s "$mnt/data")
	[[ $size == 3145728 ]] && ok size || fail size "got $size"
else
	fail data "$mnt is not the FUSE mount under test any more"
fi
names=$(timeout 20 ls "$mnt" | tr '\n' ' ')
[[ $names == "counters data hello sleepy small " ]] && ok readdir_files || fail readdir_files "got '$names'"
# the paths the data took, as smokefs counted them
wb=$(counter write_buf) fr=$(counter fd_read) cr=$(counter create) init=$(counter init)
[[ ${wb:-0} -gt 0 ]] && ok write_buf_used || fail write_buf_used "write_buf ${wb:-none}"
[[ ${fr:-0} -gt 0 ]] && ok fd_reads_used || fail fd_reads_used "fd_read ${fr:-none}"
[[ ${cr:-0} == 2 ]] && ok creates || fail creates "create ${cr:-none}"
[[ ${init:-0} == 1 ]] && ok init_once || fail init_once "init ${init:-none}"
# what write_buf got: memory, unless the program asked for
# FUSE_CAP_SPLICE_READ (SMOKEFS_SPLICE_READ=1) on a rung whose WRITE data
# is elsewhere (dev: the pipe of splice_read; zerocopy: the client's pages)
wm=$(counter write_buf_mem) wo=$(counter write_buf_other)
if [[ -n ${SMOKEFS_SPLICE_READ:-} && ($transport == dev || $transport == zerocopy) ]]; then
	[[ ${wo:-0} -gt 0 && ${wm:-0} == 0 ]] && ok write_buf_not_memory ||
		fail write_buf_not_memory "memory ${wm:-none}, other ${wo:-none}"
else
	[[ ${wm:-0} -gt 0 && ${wo:-0} == 0 ]] && ok write_buf_memory ||
		fail write_buf_memory "memory ${wm:-none}, other ${wo:-none}"
fi
sfd=$(counter session_fd)
[[ ${sfd:--1} -ge 0 && $(readlink "/proc/$pid/fd/$sfd") == /dev/fuse ]] && ok session_fd ||
	fail session_fd "fuse_session_fd() gave ${sfd:-none}: $(readlink "/proc/$pid/fd/${sfd:-none}" 2>&1)"

# ---- unlink ----
timeout 20 rm "$mnt/small" && ok unlink || fail unlink "rm failed"
err=$(timeout 20 stat "$mnt/small" 2>&1)
[[ $err == *"No such file"* ]] && ok unlinked_gone || fail unlinked_gone "got '$err'"
err=$(timeout 20 rm "$mnt/hello" 2>&1)
[[ $err == *"Operation not permitted"* ]] && ok unlink_eperm || fail unlink_eperm "got '$err'"

# ---- a read answered by its interrupt function ----
# (the handler returns without answering; killing the reader makes the
# kernel send INTERRUPT, and the function registered for it answers)
# (dd itself, not under timeout: the signal must reach the reader; an
# unanswered read leaves it waiting until the unmount at the end. dd, not
# cat: the killed busybox cat of the vm tier's guest, which reads with
# sendfile(2), left smokefs without an INTERRUPT on every rung, dev too)
dd if="$mnt/sleepy" of=/dev/null bs=4096 count=1 >/dev/null 2>&1 &
reader=$!
for _ in $(seq 100); do [[ $(counter sleeping) == 1 ]] && break; sleep 0.1; done
[[ $(counter sleeping) == 1 ]] && ok read_pending || fail read_pending "sleeping $(counter sleeping)"
kill -KILL "$reader"
for _ in $(seq 100); do kill -0 "$reader" 2>/dev/null || break; sleep 0.1; done
kill -0 "$reader" 2>/dev/null && fail reader_gone "the killed reader still waits" || ok reader_gone
for _ in $(seq 100); do [[ $(counter interrupts) == 1 ]] && break; sleep 0.1; done
[[ $(counter interrupts) == 1 && $(counter sleeping) == 0 ]] && ok interrupt_answered ||
	fail interrupt_answered "interrupts $(counter interrupts), sleeping $(counter sleeping)"
[[ $(timeout 20 cat "$mnt/hello") == "hello from smokefs" ]] && ok serves_after_interrupt ||
	fail serves_after_interrupt "hello unreadable"

# ---- SIGTERM: the loop ends, the program unmounts and exits 0 ----
kill -TERM "$pid"
rc=
for _ in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || { wait "$pid"; rc=$?; break; }
	sleep 0.1
done
if [[ -z $rc ]]; then
	fail sigterm "still running 10 s after SIGTERM"
else
	pid=
	[[ $rc == 0 ]] && ok sigterm_exit_0 || fail sigterm_exit_0 "exit $rc"
	mounted && fail sigterm_unmounted "still mounted" || ok sigterm_unmounted
	# what the session did, as libfring counted it: the rung, and the
	# writes and reads of the data checks above
	st_t=$("$stats_sh" "$tmp/stats.json" transport)
	st_w=$("$stats_sh" "$tmp/stats.json" by_opcode.WRITE)
	st_r=$("$stats_sh" "$tmp/stats.json" by_opcode.READ)
	[[ $st_t == "$transport" && ${st_w:-0} -gt 0 && ${st_r:-0} -gt 0 ]] &&
		ok stats_fd || fail stats_fd "transport '$st_t' WRITE '$st_w' READ '$st_r' in: $(head -c 300 "$tmp/stats.json")"
fi

# ---- -o auto_unmount: killed, the mount goes anyway ----
"$exe" -f -o "transport=$transport,auto_unmount" "$@" "$mnt" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do mounted && break; sleep 0.1; done
if mounted && [[ $(timeout 20 cat "$mnt/hello") == "hello from smokefs" ]]; then
	ok auto_unmount_mounted
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	pid=
	for _ in $(seq 100); do mounted || break; sleep 0.1; done
	mounted && fail auto_unmount_killed "still mounted 10 s after SIGKILL" || ok auto_unmount_killed
else
	fail auto_unmount_mounted "not serving: $(cat "$tmp/log")"
fi
((failed == 0)) || { echo "daemon log:"; cat "$tmp/log"; }
check_done
