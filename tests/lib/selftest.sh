#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# selftest.sh: the helpers of tests/lib must fail where they should, or the
# tests built on them could lie.
#   - kernel-log.sh: a clean log (the noise FUSE tests make: fuse's own
#     lines, a daemon's WARNING written to /dev/kmsg, a user's "BUG:") has no
#     report; the same log with one fake "WARNING: CPU: 0 PID: 1 at
#     fs/fuse/dev.c" line injected fails, in each form the log comes in
#     (dmesg -x, dmesg -r / busybox, plain); every kind of report is found;
#     "check" judges only what follows its mark, and all of the log when the
#     mark is gone.
#   - check.sh: the skip policy (FRING_E2E_NO_SKIP=1: no skip passes) for a
#     whole test, a part, a wrapped command and NOT OFFERED; scratch_mount's
#     cleanup at exit (a daemon left running killed, the directory gone,
#     the script's exit status kept).
# Needs nothing but bash and awk (no root, no kernel log of this machine).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=check.sh
source "$here/check.sh"
# shellcheck source-path=SCRIPTDIR source=kernel-log.sh
source "$here/kernel-log.sh"
KLOG=$here/kernel-log.sh
TMP=$(mktemp -d /tmp/fring-lib-selftest.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# --------------------------------------------------------------- kernel log
# a log as util-linux's dmesg -x prints it, with what FUSE tests leave there
cat >"$TMP/clean.x" <<'EOF'
kern  :info  : [    1.234567] fuse: init (API version 7.45)
kern  :err   : [  101.000001] fuse: Unknown parameter 'bogus'
kern  :info  : [  102.000002] memfs (4242): drop_caches: 1
user  :warn  : [  103.000003] memfs[4242]: WARNING: a daemon may say this
user  :warn  : [  103.500000] BUG: what a user writes to /dev/kmsg
kern  :warn  : [  104.000004] process 'fsx' launched '/bin/true' with NULL argv: empty string added
kern  :info  : [  105.000005] fuse: the connection was aborted (fusectl)
kern  :notice: [  106.000006] audit: type=1400 audit(0.0:1): apparmor="DENIED" operation="mount"
EOF
FAKE='WARNING: CPU: 0 PID: 1 at fs/fuse/dev.c:2190 fuse_dev_do_write+0x5c/0x3d0'
reports=$(klog_reports <"$TMP/clean.x")
check klog.clean_log_has_no_report "got: $reports" test -z "$reports"
"$KLOG" scan "$TMP/clean.x" >/dev/null
check klog.scan_clean_exit_0 "expected exit 0 got $?" test $? = 0

# the fake WARNING injected in the middle, in each form of the log
{ head -n 3 "$TMP/clean.x"; echo "kern  :warn  : [  103.200000] $FAKE"; tail -n +4 "$TMP/clean.x"; } >"$TMP/warn.x"
sed -E 's/^kern *:[a-z]+ *: /<4>/; s/^user *:[a-z]+ *: /<12>/' "$TMP/warn.x" >"$TMP/warn.r"
sed -E 's/^[a-z]+ *:[a-z]+ *: //' "$TMP/warn.x" | grep -v ': WARNING: a daemon\|BUG: what a user' >"$TMP/warn.plain"
for form in x r plain; do
	out=$("$KLOG" scan "$TMP/warn.$form")
	rc=$?
	check "klog.fake_warning_fails.$form" "expected exit 1 got $rc" test $rc = 1
	check "klog.fake_warning_named.$form" "got: $out" grep -qF "REPORT: $FAKE" <<<"$out"
	n=$(grep -c '^REPORT: ' <<<"$out")
	check "klog.only_the_fake.$form" "expected 1 report got $n: $out" test "$n" = 1
done
# the same line written by a process to /dev/kmsg is not the kernel's
printf '<12>[ 1.0] %s\n' "$FAKE" >"$TMP/user.r"
reports=$(klog_reports <"$TMP/user.r")
check klog.user_facility_ignored "got: $reports" test -z "$reports"

# every kind of report the tier must catch (the kernel's own words)
kinds=(
	'WARNING: CPU: 1 PID: 77 at fs/fuse/dev_uring.c:123 fuse_uring_cmd+0x1/0x2'
	'BUG: kernel NULL pointer dereference, address: 0000000000000008'
	'kernel BUG at fs/fuse/file.c:1234!'
	'watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [fsx:123]'
	'Oops: general protection fault, probably for non-canonical address 0xdead: 0000 [#1] SMP NOPTI'
	'Oops: 0000 [#1] PREEMPT SMP'
	'general protection fault: 0000 [#1] SMP'
	'WARNING: possible circular locking dependency detected'
	'WARNING: inconsistent lock state'
	'WARNING: possible recursive locking detected'
	'INFO: task fsx:4242 blocked for more than 120 seconds.'
	'"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.'
)
i=0
for k in "${kinds[@]}"; do
	i=$((i + 1))
	reports=$(printf '<4>[ 5.0] %s\n' "$k" | klog_reports)
	check "klog.kind$i" "expected a report for \"$k\" got none" grep -qF "REPORT: $k" <<<"$reports"
done
# lines that only look alike
for l in "fuse: Unknown parameter 'WARNING'" 'x: debug BUG counter 0' \
	'y: an Oops counter' 'lock state: fine'; do
	reports=$(printf '<6>[ 5.0] %s\n' "$l" | klog_reports)
	check "klog.not_a_report.${l%%:*}" "got: $reports" test -z "$reports"
done

# check: only what follows the mark counts; without it, all
mark="fring-kernel-log-mark 1.2.3"
export FRING_SELFTEST_DMESG=$TMP/dmesg.out
# shellcheck disable=SC2317 # (run by kernel-log.sh, exported)
dmesg() { cat "$FRING_SELFTEST_DMESG"; } # (klog_read's dmesg, faked)
export -f dmesg
{
	echo "kern  :warn  : [   50.0] $FAKE"
	echo "user  :notice: [   60.0] $mark: the tests begin"
	cat "$TMP/clean.x"
} >"$TMP/dmesg.out"
echo "$mark" >"$TMP/mark"
out=$("$KLOG" check "$TMP/mark")
check klog.before_mark_ignored "expected exit 0 got $?: $out" test $? = 0
echo "kern  :warn  : [  200.0] $FAKE" >>"$TMP/dmesg.out"
out=$("$KLOG" check "$TMP/mark")
check klog.after_mark_fails "expected exit 1 got $?: $out" test $? = 1
check klog.after_mark_says_fail "got: $out" grep -q '^FAIL kernel_log.clean: ' <<<"$out"
grep -v "$mark" "$TMP/dmesg.out" | head -n 3 >"$TMP/dmesg.x" && mv "$TMP/dmesg.x" "$TMP/dmesg.out"
out=$("$KLOG" check "$TMP/mark")
check klog.mark_gone_judges_all "expected exit 1 got $?: $out" test $? = 1
unset -f dmesg

# ------------------------------------------------------------- skip policy
sub() { # NO_SKIP CODE...: runs CODE with check.sh in a fresh bash, prints its status
	local ns=$1
	shift
	FRING_E2E_NO_SKIP=$ns bash -c "source '$here/check.sh'; $*" >"$TMP/sub.out" 2>&1
	echo $?
}
check_eq policy.skip_allowed 77 "$(sub 0 'skip "no thing"')"
check_eq policy.skip_refused 1 "$(sub 1 'skip "no thing"')"
check policy.skip_refused_says_why "got: $(cat "$TMP/sub.out")" grep -q 'FRING_E2E_NO_SKIP=1' "$TMP/sub.out"
check_eq policy.not_offered_allowed 77 "$(sub 0 'not_offered "no passthrough"')"
check_eq policy.not_offered_refused 1 "$(sub 1 'not_offered "no passthrough"')"
check_eq policy.not_offered_expected 77 "$(FRING_E2E_EXPECT_NOT_OFFERED=1 sub 1 'not_offered "no passthrough"')"
check policy.not_offered_line "got: $(cat "$TMP/sub.out")" grep -q '^NOT OFFERED: no passthrough$' "$TMP/sub.out"
check_eq policy.exit_status_77_allowed 77 "$(sub 0 'exit_status 77')"
check_eq policy.exit_status_77_refused 1 "$(sub 1 'exit_status 77')"
check_eq policy.exit_status_other 3 "$(sub 1 'exit_status 3')"
check_eq policy.part_skipped_allowed 0 "$(sub 0 'ok a; skip_check b "why"; check_done')"
check_eq policy.part_skipped_refused 1 "$(sub 1 'ok a; skip_check b "why"; check_done')"
check policy.summary_counts_skips "got: $(cat "$TMP/sub.out")" grep -qx '1 passed, 0 failed, 1 skipped' "$TMP/sub.out"
check_eq policy.failure_fails 1 "$(sub 0 'ok a; fail b "why"; check_done')"
check_eq policy.check_false_fails 1 "$(sub 0 'check a "why" false; check_done')"
check_eq policy.check_eq_mismatch_fails 1 "$(sub 0 'check_eq a 1 2; check_done')"
check_eq policy.case_prefix "ok c.s" "$(CHECK_CASE=c bash -c "source '$here/check.sh'; ok s")"

# ------------------------------------------------------------ scratch_mount
# a script that exits with a "daemon" (sleep) still running: the trap
# kills and reaps it and removes the directory; the exit status is its own
check_eq scratch.exit_status_kept 3 "$(sub 0 'scratch_mount selftest; sleep 600 & pid=$!
	echo "$tmp $mnt $pid" >"'"$TMP"'/scratch"; exit 3')"
read -r s_tmp s_mnt s_pid <"$TMP/scratch"
check scratch.under_tmp "got '$s_tmp'" test "${s_tmp#/tmp/fring-selftest.}" != "$s_tmp"
check_eq scratch.mountpoint "$s_tmp/mnt" "$s_mnt"
check scratch.dir_removed "$s_tmp still there" test ! -e "$s_tmp"
check scratch.daemon_killed "pid $s_pid still runs" eval '! kill -0 "$s_pid" 2>/dev/null'

check_done
