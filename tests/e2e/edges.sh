#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# edges.sh PART TRANSPORT MEMFS PT PROBE
#
# The edge tier: what a hostile or unlucky user does to a libfring daemon
# (doc/operations.md, "Hazards"). PART names the file edges-PART.sh beside
# this one; it sets CASES (the case names, in order) and defines a function
# case_NAME for each. Every case runs in a process of its own, under a
# watchdog (FRING_EDGES_LIMIT seconds, 120 by default: a case that hangs
# fails, it does not hang the tier), in a directory of its own under one
# temporary directory; its end stops its daemons and detaches only the mounts
# under that directory (edges-lib.sh). A case prints "ok NAME[.SUB]",
# "FAIL NAME[.SUB]: WHY" or "skip NAME[.SUB]: WHY"; one that prints no "ok"
# line fails. FRING_EDGES_ONLY=REGEX runs the matching cases alone.
# TRANSPORT is what every daemon is started with (transport=TRANSPORT) and
# what its mount line must name. Ends with "N passed, N failed, N skipped";
# a skip fails when FRING_E2E_NO_SKIP=1. Needs root (77 otherwise).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$here/../lib/check.sh"

if [[ ${1:-} == --one ]]; then
	# one case: edges.sh --one PART CASE (the rest from the environment)
	PART=$2 CASE=$3
	# shellcheck source=edges-lib.sh
	source "$here/edges-lib.sh"
	# shellcheck disable=SC1090
	source "$here/edges-$PART.sh"
	D=$EDGES_TMP/$CASE
	mkdir -p "$D"
	trap edges_cleanup EXIT
	"case_$CASE"
	exit 0
fi

[[ $# -eq 5 ]] || { echo "usage: $0 PART TRANSPORT MEMFS PT PROBE" >&2; exit 1; }
PART=$1 TRANSPORT=$2
abs() { [[ $1 == - ]] && echo - || realpath "$1"; }
MEMFS=$(abs "$3") PT=$(abs "$4") PROBE=$(abs "$5")
[[ $(id -u) == 0 && -c /dev/fuse ]] || skip "edges.sh needs root and /dev/fuse"
[[ -r $here/edges-$PART.sh ]] || { echo "edges: no part $PART" >&2; exit 1; }
# shellcheck disable=SC1090
source "$here/edges-$PART.sh"
EDGES_TMP=$(mktemp -d /tmp/fring-edges.XXXXXX)
chmod 755 "$EDGES_TMP"
export TRANSPORT MEMFS PT PROBE EDGES_TMP
limit=${FRING_EDGES_LIMIT:-120}

passed=0 failed=0 skipped=0
for c in "${CASES[@]}"; do
	[[ -n ${FRING_EDGES_ONLY:-} && ! $c =~ $FRING_EDGES_ONLY ]] && continue
	start=$SECONDS
	out=$(timeout -k 10 "$limit" bash "$here/edges.sh" --one "$PART" "$c" 2>&1 </dev/null)
	rc=$?
	echo "$out" | sed 's/^/  /' | grep -v '^  \(ok\|FAIL\|skip\) ' || :
	n_ok=$(grep -c '^ok ' <<<"$out")
	n_fail=$(grep -c '^FAIL ' <<<"$out")
	n_skip=$(grep -c '^skip ' <<<"$out")
	grep -E '^(ok|FAIL|skip) ' <<<"$out"
	if [[ $rc == 124 || $rc == 137 ]]; then
		echo "FAIL $c: did not end within ${limit} s"
		n_fail=$((n_fail + 1))
	elif [[ $rc != 0 ]]; then
		echo "FAIL $c: the case's script exited $rc"
		n_fail=$((n_fail + 1))
	elif [[ $n_ok == 0 && $n_fail == 0 && $n_skip == 0 ]]; then
		echo "FAIL $c: it printed no result"
		n_fail=$((n_fail + 1))
	fi
	echo "  ($c: $((SECONDS - start)) s)"
	passed=$((passed + n_ok)) failed=$((failed + n_fail)) skipped=$((skipped + n_skip))
done
# whatever a case left mounted under the temporary directory (nothing, if
# the cases' own ends worked) is detached before it goes
if awk -v d="$EDGES_TMP/" 'index($5, d) == 1 { f = 1 } END { exit !f }' /proc/self/mountinfo; then
	echo "FAIL edges: mounts left under $EDGES_TMP"
	failed=$((failed + 1))
	awk -v d="$EDGES_TMP/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
fi
rm -rf "$EDGES_TMP" 2>/dev/null || :
check_done
