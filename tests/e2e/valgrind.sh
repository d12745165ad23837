#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# valgrind.sh MEMFS TEST [ARGS...]
#
# run-suite.sh MEMFS dev TEST ARGS... with MEMFS under valgrind's memcheck:
# every answer libfring writes to /dev/fuse passes valgrind's check of the
# writev(2) buffers, so a reply with one uninitialised byte ("Syscall param
# writev(vector[...]) points to uninitialised byte(s)") fails, as does any
# other memcheck error (invalid read or write, use of an uninitialised value
# in a branch, a definite leak at exit). Only the dev transport: valgrind
# 3.19 hangs a thread waiting in io_uring_enter (doc/testing.md).
#
# Exit status: run-suite.sh's (memfs exits 99 on a valgrind error, which it
# reports), or 1 when the valgrind log names an error; 77 without valgrind
# (1 with FRING_E2E_NO_SKIP=1).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

[[ $# -ge 2 ]] || { echo "usage: $0 MEMFS TEST [ARGS...]" >&2; exit 1; }
MEMFS=$1
shift

command -v valgrind >/dev/null || skip "no valgrind (scripts/setup-deps.sh installs it)"

VGLOG=$(mktemp /tmp/fring-valgrind.XXXXXX)
trap 'rm -f "$VGLOG"' EXIT

# fair-sched: a queue thread woken from poll(2) gets the CPU in turn,
# which kept one loaded run at 42 s where the default lock took 80 s
vg=(valgrind --fair-sched=yes --error-exitcode=99 --leak-check=full --show-leak-kinds=definite
	--errors-for-leak-kinds=definite "--log-file=$VGLOG")
export FRING_E2E_WRAPPER="${vg[*]}"
# valgrind runs memfs 20 to 50 times slower: more time to mount and exit
# (polled: waited for in full only when the mount or exit never comes)
export FRING_E2E_WAIT=${FRING_E2E_WAIT:-120}
rc=0
"$(dirname "${BASH_SOURCE[0]}")/run-suite.sh" "$MEMFS" dev "$@" || rc=$?

summary=$(grep -m1 "ERROR SUMMARY" "$VGLOG" || true)
echo "# valgrind: ${summary:-no ERROR SUMMARY line}"
if grep -q "uninitialised" "$VGLOG"; then
	fail valgrind.uninitialised "expected no uninitialised bytes got:"
	grep -B2 -A12 "uninitialised" "$VGLOG" | head -60 | sed 's/^/# /'
	rc=1
elif [[ $summary != *"ERROR SUMMARY: 0 errors"* ]]; then
	fail valgrind.errors "expected 0 errors got: ${summary:-none}"
	sed 's/^/# /' "$VGLOG" | tail -60
	rc=1
else
	ok valgrind.no_errors
fi
exit "$rc"
