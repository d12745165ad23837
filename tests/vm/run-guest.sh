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
# and followed by the kernel messages it caused ("# kmsg: ..."). Each job is
# bounded by FRING_VM_JOB_TIMEOUT seconds (240). /tests/env, when present,
# holds the environment run-vm.sh passes on (sourced first). With
# "fring.shard=I/N" on the kernel command line it runs only the jobs whose
# index (from 0) modulo N is I.
set -uo pipefail

JOBS=${1:-/tests/jobs}
# shellcheck source=/dev/null
[[ -r /tests/env ]] && source /tests/env
JOB_TIMEOUT=${FRING_VM_JOB_TIMEOUT:-240}

uptime_cs() { # the uptime in hundredths of a second
	local up
	read -r up _ </proc/uptime
	echo "${up/./}"
}

kmsg() { # prints and clears the kernel log
	dmesg -c 2>/dev/null | sed 's/^/# kmsg: /'
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

failed=0
k=-1
while IFS=$'\t' read -r name cmd; do
	[[ -n $name && $name != \#* ]] || continue
	k=$((k + 1))
	((k % shards == shard)) || continue
	echo "@@FRING-BEGIN $name@@"
	echo "# $cmd"
	t0=$(uptime_cs)
	eval "timeout -s TERM -k 10 $JOB_TIMEOUT $cmd" </dev/null 2>&1
	rc=$?
	t1=$(uptime_cs)
	if [[ $rc == 124 || $rc == 137 || $rc == 143 ]] && ((t1 - t0 >= JOB_TIMEOUT * 100)); then
		echo "# $name: stopped after $JOB_TIMEOUT s (FRING_VM_JOB_TIMEOUT)"
	fi
	# what a job may leave behind must not spoil the next one
	awk '$5 ~ /^\/tmp\// { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	d=$((t1 - t0))
	printf '# %s took %d.%02d s\n' "$name" $((d / 100)) $((d % 100))
	echo "@@FRING-END $name rc=$rc@@"
	kmsg
	[[ $rc == 0 ]] || failed=$((failed + 1))
done <"$JOBS"
echo "# run-guest: $failed job(s) did not exit 0"
exit $((failed ? 1 : 0))
