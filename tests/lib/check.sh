# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# tests/lib/check.sh: how the shell tests of tests/ (e2e, vm, stress, docs,
# install, fuzz) print their checks, count them and skip. Sourced:
#
#     source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
#
# The vm tier copies it into its guest as /tests/lib/check.sh, beside the
# e2e scripts in /tests/e2e (tests/vm/run-vm.sh). Bash only, no other tool.
#
# A check prints one line, which test-summary.py, run-suite.sh, edges.sh
# and run-vm.sh read:
#     ok NAME
#     FAIL NAME: WHY
#     skip NAME: WHY          (a part of the test left out)
# and a test ends with "P passed, F failed[, S skipped]" (check_done or
# check_summary). With CHECK_CASE set, NAME is printed as CASE.NAME (CASE
# alone for an empty NAME): the edge tier's cases.
#
# The skip policy lives here and nowhere else: FRING_E2E_NO_SKIP=1
# (scripts/test.sh and CI set it) allows no skip.
#   skip WHY             the whole test cannot run here: exit 77, or
#                        exit 1 saying why when no skip is allowed
#   not_offered WHY      the kernel lacks the feature under test: prints
#                        "NOT OFFERED: WHY" and exits 77 if skips are allowed
#                        or the caller expects exactly this answer
#                        (FRING_E2E_EXPECT_NOT_OFFERED=1: the vm tier's
#                        job_not_offered, on a kernel too old for it); else 1
#   skip_check NAME WHY  a part left out: counted; check_done fails the test
#                        for it when no skip is allowed
#   exit_status RC       exits with a command's status, 77 passed on only
#                        when skips are allowed (wrappers: with-uring.sh)
# A script that sources this file may set passed/failed/skipped before.
#
# A test that mounts a daemon of its own sets up with
#   scratch_mount NAME   a fresh /tmp/fring-NAME.XXXXXX in $tmp with an
#                        empty mountpoint $mnt=$tmp/mnt, $pid empty, and an
#                        EXIT trap that cleans up (scratch_cleanup)
# and keeps $pid set while its daemon runs, clearing it once reaped.

passed=${passed:-0}
failed=${failed:-0}
skipped=${skipped:-0}

_check_name() { # NAME -> $CHECK_NAME, with CHECK_CASE's prefix
	if [[ -n ${CHECK_CASE:-} ]]; then
		CHECK_NAME=$CHECK_CASE${1:+.$1}
	else
		CHECK_NAME=$1
	fi
}
ok() { # NAME
	_check_name "$1"
	echo "ok $CHECK_NAME"
	passed=$((passed + 1))
}
fail() { # NAME WHY
	_check_name "$1"
	echo "FAIL $CHECK_NAME: $2"
	failed=$((failed + 1))
}
skip_check() { # NAME WHY
	_check_name "$1"
	echo "skip $CHECK_NAME: $2"
	skipped=$((skipped + 1))
}
check() { # NAME WHY-IF-FAILED COMMAND...: COMMAND's status decides
	local name=$1 why=$2
	shift 2
	if "$@"; then ok "$name"; else fail "$name" "$why"; fi
}
check_eq() { # NAME WANT GOT
	if [[ $2 == "$3" ]]; then ok "$1"; else fail "$1" "expected '$2' got '$3'"; fi
}

# DIR is a FUSE mount, as /proc/self/mounts shows it (field 2, with its
# octal escapes: a path with a space does not match, which fails safe). A
# test checks it before it writes: a mount that did not come up leaves a
# plain directory on the host's disk.
fuse_mounted() { awk -v m="$1" '$2 == m && $3 ~ /^fuse/ { f = 1 } END { exit !f }' /proc/self/mounts; }

scratch_mount() { # NAME
	tmp=$(mktemp -d "/tmp/fring-$1.XXXXXX") || exit 1
	mnt=$tmp/mnt
	mkdir "$mnt" || exit 1
	pid=
	trap scratch_cleanup EXIT
}
# A daemon still here at the end failed a check: SIGKILL, so waiting for
# it cannot hang. The mount is detached (lazily: a dead connection cannot
# block it) before the directory is removed. The script's exit status
# stands.
scratch_cleanup() {
	[[ -n ${pid:-} ]] && kill -KILL "$pid" 2>/dev/null
	umount -l "$mnt" 2>/dev/null
	[[ -n ${pid:-} ]] && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}

skips_allowed() { [[ ${FRING_E2E_NO_SKIP:-0} != 1 ]]; }
skip() { # WHY...: this whole test cannot run here
	echo "SKIP: $*"
	skips_allowed && exit 77
	echo "FRING_E2E_NO_SKIP=1: a skip counts as a failure"
	exit 1
}
not_offered() { # WHY...: the kernel does not offer what this test is about
	echo "NOT OFFERED: $*"
	[[ ${FRING_E2E_EXPECT_NOT_OFFERED:-0} == 1 ]] && exit 77
	skips_allowed && exit 77
	echo "FRING_E2E_NO_SKIP=1: a skip counts as a failure (the kernel does not offer it)"
	exit 1
}
exit_status() { # RC: exit with it; a skip (77) only when skips are allowed
	if [[ $1 == 77 ]] && ! skips_allowed; then
		echo "FRING_E2E_NO_SKIP=1: a skip counts as a failure"
		exit 1
	fi
	exit "$1"
}

check_summary() { # prints "P passed, F failed[, S skipped]"
	if ((skipped)); then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
}
check_verdict() { # 0 when nothing failed and no skip broke the policy
	((failed == 0)) || return 1
	if ((skipped)) && ! skips_allowed; then
		echo "FRING_E2E_NO_SKIP=1: $skipped check(s) skipped, a skip counts as a failure"
		return 1
	fi
	return 0
}
check_done() { # the summary line, then exit 0 or 1 (check_verdict)
	check_summary
	check_verdict
	exit $?
}
