#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# kernel-log.sh: does the kernel log say the kernel hit a bug while the
# tests ran? A WARN, a BUG (BUG:, kernel BUG at, a soft lockup), an Oops, a
# general protection fault, a lockdep report (possible circular or recursive
# locking, inconsistent lock state) or a hung task (blocked for more than N
# seconds) fails the tests that ran then. Only those kinds count, and only
# messages of the kernel (facility kern): "fuse: Unknown parameter", the
# INIT line, a daemon's message written to /dev/kmsg, none of those.
#
#   kernel-log.sh mark FILE    writes a mark into the kernel log and its text
#                              to FILE (meson: kernel-log-begin, first)
#   kernel-log.sh check FILE   judges the log after that mark (meson:
#                              kernel-log, last); without the mark in the log
#                              (cleared, wrapped, never written) all of it
#   kernel-log.sh scan [FILE]  judges log text from FILE or stdin: prints the
#                              reports, exit 1 if there is one
#
# Sourced (tests/vm/run-guest.sh judges each job's messages in the guest),
# it defines klog_reports: log text on stdin, the report lines (and a few
# lines of what follows each) on stdout. It reads every form of the log
# the tests meet: util-linux "dmesg -x" (kern  :warn  : [ 1.2] text),
# "dmesg -r" and busybox's (<4>[ 1.2] text; the facility is pri / 8), and
# plain text, taken as the kernel's. Bash and awk only (busybox's will do).

# klog_reports: the reports in the log text on stdin, each with up to
# KLOG_CONTEXT (8) lines after it, the first line of each starting
# "REPORT: "; nothing for a clean log
klog_reports() {
	awk -v ctx="${KLOG_CONTEXT:-8}" '
	{
		line = $0
		sub(/\r$/, "", line)
		if (match(line, /^<[0-9]+>/)) {
			pri = substr(line, 2, RLENGTH - 2) + 0
			fac = int(pri / 8) == 0 ? "kern" : "other"
			line = substr(line, RLENGTH + 1)
		} else if (match(line, /^[a-z0-9]+ *:[a-z]+ *: ?/)) {
			f = line
			sub(/ *:.*/, "", f)
			fac = f == "kern" ? "kern" : "other"
			line = substr(line, RLENGTH + 1)
		} else {
			# plain text, or the next line of a record: the last
			# facility seen (the kernel if none)
			fac = last == "" ? "kern" : last
		}
		last = fac
		sub(/^\[ *[0-9]+\.[0-9]+\] ?/, "", line)  # the time stamp
		sub(/^\[ *[TC][0-9]+\] ?/, "", line)       # the caller id
		if (fac == "kern" &&
		    (line ~ /^WARNING: / ||
		     line ~ /^(kernel )?BUG( at |: )/ || line ~ /^[a-z_]+: BUG: / ||
		     line ~ /^Oops/ ||
		     line ~ /general protection fault/ ||
		     line ~ /possible circular locking dependency|inconsistent lock state|possible recursive locking detected/ ||
		     line ~ /blocked for more than [0-9]+ seconds|hung_task_timeout_secs/ ||
		     line ~ /^Kernel panic/ || line ~ /^UBSAN: /)) {
			print "REPORT: " line
			left = ctx
		} else if (left > 0) {
			print "  " line
			left--
		}
	}'
}

# klog_read: the kernel log with each line's facility (util-linux's dmesg -x,
# else busybox's dmesg -r)
klog_read() {
	local out
	if out=$(dmesg -x 2>/dev/null); then
		printf '%s\n' "$out"
	else
		dmesg -r
	fi
}

klog_main() {
	local cmd=${1:-} file=${2:-} mark log after reports n
	# shellcheck source-path=SCRIPTDIR source=check.sh
	source "$(dirname "${BASH_SOURCE[0]}")/check.sh"
	case $cmd in
	scan)
		reports=$(if [[ -n $file ]]; then klog_reports <"$file"; else klog_reports; fi)
		[[ -z $reports ]] && return 0
		printf '%s\n' "$reports"
		return 1
		;;
	mark)
		[[ -n $file ]] || { echo "usage: kernel-log.sh mark FILE" >&2; return 2; }
		mark="fring-kernel-log-mark $(date +%s).$$.$RANDOM"
		if ! echo "$mark: the tests begin; the kernel log is judged from here (tests/lib/kernel-log.sh)" 2>/dev/null >/dev/kmsg; then
			rm -f "$file"
			skip "cannot write to /dev/kmsg (not root?): the kernel log cannot be marked"
		fi
		echo "$mark" >"$file"
		ok "kernel_log.mark ($mark)"
		check_done
		;;
	check)
		[[ -n $file ]] || { echo "usage: kernel-log.sh check FILE" >&2; return 2; }
		log=$(klog_read 2>&1) || skip "cannot read the kernel log: $log"
		mark=
		[[ -r $file ]] && mark=$(cat "$file")
		if [[ -n $mark ]] && grep -qF "$mark" <<<"$log"; then
			# the lines after the mark's last line
			after=$(awk -v m="$mark" 'index($0, m) { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' <<<"$log")
			echo "# judged: the kernel log after \"$mark\" ($(grep -c '' <<<"$after") lines)"
		else
			after=$log
			if [[ -n $mark ]]; then
				echo "# the mark \"$mark\" is no longer in the kernel log (cleared or overwritten): all of it is judged ($(grep -c '' <<<"$log") lines)"
			else
				echo "# no mark ($file: kernel-log-begin did not run): the whole kernel log is judged ($(grep -c '' <<<"$log") lines)"
			fi
		fi
		reports=$(klog_reports <<<"$after")
		if [[ -z $reports ]]; then
			ok kernel_log.clean
		else
			n=$(grep -c '^REPORT: ' <<<"$reports")
			fail kernel_log.clean "expected no WARN, BUG, Oops, lockdep, hung-task or general protection report from the kernel got $n:"
			head -n 120 <<<"$reports" | sed 's/^/#   /'
		fi
		check_done
		;;
	*)
		echo "usage: kernel-log.sh mark FILE | check FILE | scan [FILE]" >&2
		return 2
		;;
	esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -uo pipefail
	klog_main "$@"
	exit $?
fi
