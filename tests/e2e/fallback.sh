#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# fallback.sh MNT: the client of fault-uring-register-fallback, run by
# run-suite.sh on memfs with transport=uring and FRING_FAULT=ring_register:1:
# a ring thread's REGISTER is refused after the session started serving, so
# the kernel turns io_uring off for the connection and /dev/fuse (the
# session's side channel) serves everything.
#   - MNT is the FUSE mount under test (/proc/mounts) before anything is
#     written to it;
#   - a few files written (fsync'ed) read back byte for byte with O_DIRECT,
#     so each READ reaches the daemon instead of the page cache (nothing
#     hangs: every call is bounded);
#   - the daemon's log (FRING_E2E_LOG) has the mount line on uring and the
#     injected fault, then once the run thread's "transport fell back: dev
#     (not uring: ring command refused (Cannot allocate memory); ...)"
#     (waited for, polling, up to FRING_E2E_WAIT s).
# Prints "ok NAME" / "FAIL NAME: ..." and "N passed, N failed".
set -uo pipefail

MNT=${1:?usage: fallback.sh MNT}
LOG=${FRING_E2E_LOG:-}
WAIT=${FRING_E2E_WAIT:-30}
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

if fuse_mounted "$MNT"; then
	ok fallback.is_fuse_mount
else
	fail fallback.is_fuse_mount "expected a fuse mount at $MNT in /proc/mounts got none: writing nothing"
	check_done
fi

TMP=$(mktemp -d /tmp/fring-fallback.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# name:size (0 bytes, a short line, a block, unaligned 128 KiB, 1 MiB)
for spec in empty:0 line:7 block:4096 odd:131195 mib:1048576; do
	name=${spec%%:*} size=${spec#*:}
	head -c "$size" /dev/urandom >"$TMP/$name"
	if timeout -k 2 "$WAIT" dd if="$TMP/$name" of="$MNT/$name" bs=64k \
		conv=fsync status=none 2>"$TMP/err"; then
		ok "fallback.write[$name]"
	else
		fail "fallback.write[$name]" "expected dd of $size bytes to work got $(cat "$TMP/err")"
		continue
	fi
	if timeout -k 2 "$WAIT" dd if="$MNT/$name" of="$TMP/$name.back" bs=1M \
		iflag=direct status=none 2>"$TMP/err" &&
		cmp -s "$TMP/$name" "$TMP/$name.back"; then
		ok "fallback.read[$name]"
	else
		fail "fallback.read[$name]" "expected the $size bytes back (O_DIRECT) got $(wc -c <"$TMP/$name.back" 2>/dev/null || echo none) bytes, differing ($(cat "$TMP/err"))"
	fi
done
# a rename and a directory listing on the same connection
names() { find "$MNT" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' '; }
if mv "$MNT/line" "$MNT/line2" && [[ $(names) == "block empty line2 mib odd " ]]; then
	ok fallback.rename_list
else
	fail fallback.rename_list "expected block empty line2 mib odd got $(names)"
fi

if [[ -z $LOG || ! -r $LOG ]]; then
	fail fallback.log "expected the daemon's log in FRING_E2E_LOG got \"$LOG\""
	check_done
fi
want='transport fell back: dev (not uring: ring command refused (Cannot allocate memory)'
for _ in $(seq $((WAIT * 10))); do
	grep -qF "$want" "$LOG" && break
	sleep 0.1
done
line_of() { grep -nF -m1 "$1" "$LOG" | cut -d: -f1; }
mounted=$(line_of 'mounted ') fault=$(line_of 'fault injection: ring_register, hit ') fell=$(line_of "$want")
if [[ -n $fell ]]; then
	ok fallback.log_fell_back
	echo "# $(sed -n "${fell}p" "$LOG")"
else
	fail fallback.log_fell_back "expected \"$want\" in the daemon's log within $WAIT s got none"
fi
if [[ -n $mounted ]] && grep -q 'transport uring (' <<<"$(sed -n "${mounted}p" "$LOG")"; then
	ok fallback.log_mounted_uring
else
	fail fallback.log_mounted_uring "expected the mount line to say \"transport uring (\" got \"$(grep -m1 'mounted ' "$LOG")\""
fi
# the run thread logs the fallback after its mount line, and only once the
# ring thread met the fault (which may come before the mount line or after)
if [[ -n $mounted && -n $fault && -n $fell ]] && ((fell > fault && fell > mounted)); then
	ok fallback.log_order
else
	fail fallback.log_order "expected the mount line (line ${mounted:-none}) and the fault (line ${fault:-none}) before the fallback (line ${fell:-none})"
fi
n=$(grep -cF 'transport fell back:' "$LOG")
if [[ $n == 1 ]]; then
	ok fallback.log_once
else
	fail fallback.log_once "expected one \"transport fell back:\" line got $n"
fi
check_done
