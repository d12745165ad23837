#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# notify-memfs.sh MEMFS TRANSPORT: memfs -o remote=FIFO (examples/memfs
# README, "Remote changes") keeps a client's view true without a remount.
# Names and attributes are cached for 1000 s and pages across opens; each
# change is made twice on twin files, once "quiet" (no notification: the
# client must still see the old state, or this test could not fail) and
# once notified (the client must see the new bytes / name / absence).
# Bash and busybox-level tools only (the vm tier runs it in its guest).
set -uo pipefail
MEMFS=$1
TRANSPORT=$2
# seconds for anything that should be quick (polled: waited for in full
# only when it fails, so generous for a loaded machine)
T=${FRING_E2E_WAIT:-30}
# shellcheck source-path=SCRIPTDIR source=mount-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/mount-lib.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

[[ $(id -u) == 0 ]] || skip "needs root to mount"
uring_on "$TRANSPORT"

TMP=$(mktemp -d /tmp/fring-notify.XXXXXX)
MNT=$TMP/mnt
FIFO=$TMP/remote
LOG=$TMP/memfs.log
mkdir "$MNT"
pid=
# shellcheck disable=SC2317 # (run by the trap)
cleanup() {
	is_mounted "$MNT" && umount -l "$MNT"
	[[ -n $pid ]] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
	uring_restore
	rm -rf "$TMP"
}
trap cleanup EXIT


"$MEMFS" -f -o "transport=$TRANSPORT,entry_timeout=1000,attr_timeout=1000,remote=$FIFO" \
	"$MNT" 2>"$LOG" &
pid=$!
for _ in $(seq $((T * 10))); do mounted && [[ -p $FIFO ]] && break; sleep 0.1; done
mounted || { cat "$LOG"; echo "FAIL mount"; exit 1; }

# Sends one command and waits for memfs's line about it. (The write is
# bounded: opening the FIFO waits for memfs to have it open for reading.)
sent=0
remote() {
	if ! timeout -k 2 "$T" sh -c 'echo "$1" >"$2"' - "$*" "$FIFO"; then
		fail remote.sent "expected memfs to read \"$*\" from $FIFO within $T s"
		return
	fi
	sent=$((sent + 1))
	for _ in $(seq $((T * 10))); do
		[[ $(grep -c '^memfs: remote: ' "$LOG") -ge $sent ]] && break
		sleep 0.1
	done
	grep '^memfs: remote: ' "$LOG" | tail -n 1
}

for f in q n; do
	echo "old contents $f" >"$MNT/$f.data"
	echo "old contents $f" >"$MNT/$f.store"
	echo "$f" >"$MNT/$f.name"
	echo "$f" >"$MNT/$f.gone"
done
for f in q n; do
	cat "$MNT/$f.data" "$MNT/$f.store" >/dev/null # pages cached
	stat "$MNT/$f.name" "$MNT/$f.gone" >/dev/null # names cached
done

remote quiet write /q.data 4 NEW
remote write /n.data 4 NEW
check_eq write.quiet_stale "old contents q" "$(cat "$MNT/q.data")"
check_eq write.notified "old NEWtents n" "$(cat "$MNT/n.data")"

remote quiet store /q.store 0 STORED
remote store /n.store 0 STORED
check_eq store.quiet_stale "old contents q" "$(cat "$MNT/q.store")"
check_eq store.notified "STOREDntents n" "$(cat "$MNT/n.store")"

remote quiet rename /q.name q.renamed
remote rename /n.name n.renamed
check_eq rename.quiet_old_name_stale "q" "$(cat "$MNT/q.name" 2>&1)"
[[ -e $MNT/n.name ]] && got=present || got=absent
check_eq rename.notified_old_name absent "$got"
check_eq rename.notified_new_name "n" "$(cat "$MNT/n.renamed" 2>&1)"

remote quiet unlink /q.gone
remote unlink /n.gone
[[ -e $MNT/q.gone ]] && got=present || got=absent
check_eq unlink.quiet_stale present "$got"
[[ -e $MNT/n.gone ]] && got=present || got=absent
check_eq unlink.notified absent "$got"

check_eq all_notified 4 "$(grep -c 'notified: ok' "$LOG")"
timeout -k 2 "$T" umount "$MNT" || umount -l "$MNT"
gone "$pid" || fail exit "memfs still running $T s after the unmount"
pid=
check_done
