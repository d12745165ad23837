#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hello-ll.sh HELLO_LL [TRANSPORT]: mounts examples/hello_ll (the worked
# example of doc/porting-from-libfuse.md) and checks it serves what
# libfuse's hello_ll serves: a root with one file "hello" holding
# "Hello World!\n" byte for byte, read-only (EACCES on a write open),
# ENOENT for other names; SIGTERM unmounts and exits 0; a bad command line
# exits 1 with nothing mounted.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
exe=$(realpath "$1")
transport=${2:-auto}
[[ $(id -u) == 0 && -c /dev/fuse ]] || skip "needs root and /dev/fuse"
scratch_mount hello-ll
mounted() { fuse_mounted "$mnt"; }

"$exe" >/dev/null 2>&1 && fail cmdline.no_mountpoint "exit 0" || ok cmdline.no_mountpoint
"$exe" -o transport=bogus "$mnt" >/dev/null 2>&1 && fail cmdline.bad_option "exit 0" || ok cmdline.bad_option
mounted && fail cmdline.nothing_mounted "mounted" || ok cmdline.nothing_mounted

"$exe" -o "transport=$transport" "$mnt" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do mounted && break; sleep 0.1; done
if ! mounted; then
	fail mount "not mounted after 10 s: $(cat "$tmp/log")"
	echo "$passed passed, $failed failed"
	exit 1
fi
ok mount
# the one line at mount names the rung; an explicit one must be it
want="transport "
[[ $transport != auto ]] && want="transport $transport "
# (logged once the queues run, which may be after the mount shows)
for _ in $(seq 100); do grep -q "mounted .*$want" "$tmp/log" && break; sleep 0.1; done
grep -q "mounted .*$want" "$tmp/log" && ok mount_line_transport ||
	fail mount_line_transport "no '$want' in the log: $(cat "$tmp/log")"

names=$(timeout 20 ls -a "$mnt" | tr '\n' ' ')
[[ $names == ". .. hello " ]] && ok readdir || fail readdir "expected '. .. hello ' got '$names'"
printf 'Hello World!\n' >"$tmp/expect"
timeout 20 cmp -s "$tmp/expect" "$mnt/hello" && ok read_bytes || fail read_bytes "got $(od -c "$mnt/hello" | head -3)"
st=$(timeout 20 stat -c '%s %a %F' "$mnt/hello")
[[ $st == "13 444 regular file" ]] && ok stat || fail stat "got '$st'"
timeout 20 dd if="$mnt/hello" bs=1 skip=6 count=5 2>/dev/null >"$tmp/part"
[[ $(cat "$tmp/part") == World ]] && ok read_offset || fail read_offset "got '$(cat "$tmp/part")'"
err=$(timeout 20 sh -c ': >"$1"' sh "$mnt/hello" 2>&1)
[[ $err == *"Permission denied"* ]] && ok write_open_eacces || fail write_open_eacces "got '$err'"
err=$(timeout 20 stat "$mnt/nope" 2>&1)
[[ $err == *"No such file"* ]] && ok lookup_enoent || fail lookup_enoent "got '$err'"

kill -TERM "$pid"
rc=
for _ in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || { wait "$pid"; rc=$?; break; }
	sleep 0.1
done
pid_done=$pid
pid=
if [[ -z $rc ]]; then
	pid=$pid_done
	fail sigterm "still running 10 s after SIGTERM"
else
	[[ $rc == 0 ]] && ok sigterm_exit_0 || fail sigterm_exit_0 "exit $rc: $(cat "$tmp/log")"
	mounted && fail sigterm_unmounted "still mounted" || ok sigterm_unmounted
fi
((failed == 0)) || { echo "daemon log:"; cat "$tmp/log"; }
check_done
