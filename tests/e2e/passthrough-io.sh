#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# passthrough-io.sh PASSTHROUGH TRANSPORT TEST [ARGS...]
#
# Runs TEST (passthrough_io, fsx, ...) on examples/passthrough
# -o passthrough through run-passthrough.sh (the source must hold what the
# mount showed), then proves from the daemon's counters that the kernel
# did the data I/O itself: opens were answered with a backing id
# (passthrough_opens > 0) and no READ and no WRITE reached the daemon
# (FRING_E2E_PT_MAX_RW allows a few, 0 by default) while the test moved
# its data byte for byte.
#
# A kernel without FUSE_PASSTHROUGH (before 6.9, or built without it): the
# daemon says "NOT OFFERED: ..." and serves the files itself; this script
# repeats that line and, if TEST passed that way, answers NOT OFFERED
# (tests/lib/check.sh's not_offered: exit 77 where skips are allowed or the
# vm tier expects it, else 1); 1 if TEST failed.
set -euo pipefail
PT=${1:?usage: passthrough-io.sh PASSTHROUGH TRANSPORT TEST [ARGS...]}
TRANSPORT=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$here/../lib/check.sh"
# shellcheck source=stats.sh
source "$here/stats.sh"

OUT=$(mktemp /tmp/fring-ptio.XXXXXX)
STATS=$OUT.json
trap 'rm -f "$OUT" "$STATS"' EXIT

rc=0
FRING_E2E_OPTS="passthrough${FRING_E2E_OPTS:+,$FRING_E2E_OPTS}" \
	"$here/run-passthrough.sh" "$@" 2>&1 | tee "$OUT" || rc=${PIPESTATUS[0]}
[[ $rc == 0 || $rc == 77 ]] || exit "$rc"
if grep -q '^NOT OFFERED: ' "$OUT"; then
	not_offered "$(grep -m1 '^NOT OFFERED: ' "$OUT" | sed 's/^NOT OFFERED: //')"
fi
[[ $rc == 0 ]] || exit "$rc"

sed -n 's/^@@FRING-STATS \(.*\)@@$/\1/p' "$OUT" | tail -n 1 >"$STATS"
max=${FRING_E2E_PT_MAX_RW:-0}
for op in READ WRITE OPEN; do
	n=$(stats_get "$STATS" "by_opcode.$op")
	[[ $n == "(none)" ]] && n=0
	if [[ $op == OPEN ]]; then
		# opens still reach the daemon: the counters are this run's
		echo "# by_opcode.OPEN $n"
		continue
	fi
	if ((n <= max)); then
		ok "passthrough.no_$op (by_opcode.$op = $n, at most $max)"
	else
		fail "passthrough.no_$op" "expected by_opcode.$op <= $max got $n"
	fi
done
# and the opens did go passthrough (the data moved, the test checked it)
n=$(stats_get "$STATS" passthrough_opens)
if [[ $n =~ ^[0-9]+$ ]] && ((n > 0)); then
	ok "passthrough.opens (passthrough_opens = $n)"
else
	fail passthrough.opens "expected passthrough_opens > 0 got $n"
fi
((failed == 0))
