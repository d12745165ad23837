#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-guest.sh (inside the vm tier's guest, started by /init)
#
# Runs every job of /tests/jobs (lines "NAME<TAB>COMMAND", COMMAND quoted for
# bash, written by run-vm.sh), in order, each framed by
#   @@FRING-BEGIN NAME@@
#   ...its output...
#   # NAME took S s
#   @@FRING-END NAME rc=N@@
# and followed by the kernel messages it caused ("# kmsg: ..."). Those are
# judged first (tests/lib/kernel-log.sh): a WARN, BUG, Oops, general
# protection fault, lockdep report or hung task the kernel reported during
# the job fails it ("FAIL NAME.kernel_log: ..." with the report inside the
# frame, and rc=1 when the job had passed or skipped). Each job is
# bounded by FRING_VM_JOB_TIMEOUT seconds (240); one still running
# FRING_VM_HUNG_GRACE (30) seconds later is stuck where SIGKILL does not
# reach, and a watchdog reports it (below). /tests/env, when present,
# holds the environment run-vm.sh passes on (sourced first). With
# "fring.shard=I/N" on the kernel command line it runs only the jobs whose
# index (from 0) modulo N is I.
set -uo pipefail

JOBS=${1:-/tests/jobs}
# shellcheck source=/dev/null
[[ -r /tests/env ]] && source /tests/env
# tests/lib beside tests/vm in the tree; in the guest /tests/lib, beside
# this script (/tests)
lib=$(dirname "${BASH_SOURCE[0]}")/../lib
[[ -r $lib/kernel-log.sh ]] || lib=$(dirname "${BASH_SOURCE[0]}")/lib
# shellcheck source-path=SCRIPTDIR source=../lib/kernel-log.sh
source "$lib/kernel-log.sh"
JOB_TIMEOUT=${FRING_VM_JOB_TIMEOUT:-240}
GRACE=${FRING_VM_HUNG_GRACE:-30}

uptime_cs() { # the uptime in hundredths of a second
	local up
	read -r up _ </proc/uptime
	echo "${up/./}"
}

kmsg() { # prints and clears the kernel log
	dmesg -c 2>/dev/null | sed 's/^/# kmsg: /'
}

# What a task in uninterruptible sleep waits in, from its kernel stack: the
# answer to "which request did nobody answer" when a job hangs.
blocked() {
	local t st s
	for t in /proc/[0-9]*/task/[0-9]*; do
		st=$(cat "$t/stat" 2>/dev/null) || continue
		s=${st##*) }
		[[ ${s%% *} == D ]] || continue
		echo "# blocked: task ${t##*/} $(cat "$t/comm" 2>/dev/null) in $(cat "$t/wchan" 2>/dev/null)"
		sed 's/^/#   stack: /' "$t/stack" 2>/dev/null
	done
}

# Started beside each job, stopped when it ends. A job past its timeout's
# SIGKILL would otherwise hold the guest until the host's FRING_VM_TIMEOUT
# and say nothing: this prints the blocked tasks, aborts every FUSE
# connection (that ends any wait for a FUSE answer, and the job with it),
# and if the job still does not end, powers the guest off so that the host
# reports the job now, with these lines.
watchdog() { # NAME
	local name=$1 i
	for ((i = 0; i < JOB_TIMEOUT + GRACE; i++)); do sleep 1; done
	echo "# $name: HUNG: still running $((JOB_TIMEOUT + GRACE)) s after it began, past its SIGKILL"
	blocked
	echo w >/proc/sysrq-trigger 2>/dev/null
	kmsg
	for c in /sys/fs/fuse/connections/*/abort; do
		[[ -e $c ]] && echo 1 >"$c" 2>/dev/null
	done
	echo "# $name: every FUSE connection aborted"
	for ((i = 0; i < GRACE; i++)); do sleep 1; done
	echo "# $name: still hung $GRACE s after the aborts; powering the guest off"
	blocked
	kmsg
	sync
	poweroff -f
}

if [[ ! -r $JOBS ]]; then
	echo "run-guest: no job list $JOBS"
	exit 1
fi
kmsg >/dev/null

# this guest's share: "fring.shard=I/N" on the kernel command line (run-vm.sh
# boots N guests) runs the jobs whose index modulo N is I
shard=0 shards=1
for w in $(</proc/cmdline); do
	if [[ $w =~ ^fring\.shard=([0-9]+)/([1-9][0-9]*)$ ]]; then
		shard=${BASH_REMATCH[1]} shards=${BASH_REMATCH[2]}
	fi
done
echo "# run-guest: shard $shard of $shards"

# A line every 20 s while the guest lives: the host takes a console silent
# for FRING_VM_STALL (150 s) as a wedged guest (a hung job is this script's
# watchdog's business and prints), and stops it far sooner than a job's
# timeout would allow if silence were normal.
(while sleep 20; do echo "@@FRING-ALIVE $(cut -d' ' -f1 /proc/uptime)@@"; done) &

failed=0
k=-1
while IFS=$'\t' read -r name cmd; do
	[[ -n $name && $name != \#* ]] || continue
	k=$((k + 1))
	((k % shards == shard)) || continue
	echo "@@FRING-BEGIN $name@@"
	echo "# $cmd"
	t0=$(uptime_cs)
	watchdog "$name" &
	wpid=$!
	eval "timeout -s TERM -k 10 $JOB_TIMEOUT $cmd" </dev/null 2>&1
	rc=$?
	t1=$(uptime_cs)
	if [[ $rc == 124 || $rc == 137 || $rc == 143 ]] && ((t1 - t0 >= JOB_TIMEOUT * 100)); then
		echo "# $name: stopped after $JOB_TIMEOUT s (FRING_VM_JOB_TIMEOUT)"
	fi
	# what a job may leave behind must not spoil the next one
	awk '$5 ~ /^\/tmp\// { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	# the kernel's messages of the job (with their facility: only the
	# kernel's own reports count), judged before the job's end is told
	klog=$(dmesg -r -c 2>/dev/null)
	reports=$(klog_reports <<<"$klog")
	if [[ -n $reports ]]; then
		echo "FAIL $name.kernel_log: the kernel reported $(grep -c '^REPORT: ' <<<"$reports") problem(s) during the job (WARN, BUG, Oops, lockdep, hung task, general protection):"
		head -n 60 <<<"$reports" | sed 's/^/#   /'
		[[ $rc == 0 || $rc == 77 ]] && rc=1
	fi
	d=$((t1 - t0))
	printf '# %s took %d.%02d s\n' "$name" $((d / 100)) $((d % 100))
	echo "@@FRING-END $name rc=$rc@@"
	[[ -n $klog ]] && sed 's/^<[0-9]*>//; s/^/# kmsg: /' <<<"$klog"
	[[ $rc == 0 ]] || failed=$((failed + 1))
done <"$JOBS"
echo "# run-guest: $failed job(s) did not exit 0"
exit $((failed ? 1 : 0))
