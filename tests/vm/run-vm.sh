#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-vm.sh BUILDDIR
#
# The vm tier: boots Debian's Linux 7.3+ cloud kernel (FUSE ABI 7.46) under
# qemu TCG with an initramfs holding this build's programs, runs the jobs of
# jobs.sh inside as root, and turns the guest's serial log into one line per
# job ("ok NAME" / "FAIL NAME: why") and a closing "N passed, N failed".
#
# Files (under BUILDDIR/tests/vm): initramfs.cpio.gz, jobs.txt, guest.I.log
# (the serial console of guest I), guest.log (all of them, one after the
# other).
# Environment:
#   FRING_VM_SERIES    the kernel: 7.3 (the default, jobs.sh), or 6.12 / 6.1,
#                      Debian 13's and 12's (jobs-old.sh), for the kernel matrix
#   FRING_VM_KERNEL    a bzImage to boot instead of the fetched 7.3 one
#   FRING_VM_CACHE     where fetch-kernel.sh keeps the kernel (/var/cache/fring-vm)
#   FRING_VM_TIMEOUT   seconds for the whole boot (1500); qemu is killed then
#   FRING_VM_BOOT_TIMEOUT  seconds for a guest to reach /init (150); else it
#                      is booted again (3 boots at most)
#   FRING_VM_GUESTS    guests booted at once, each running every GUESTS-th job (2)
#   FRING_VM_JOB_TIMEOUT  seconds for each job inside (240; the tests inside get 30 s less)
#   FRING_VM_STALL     a guest whose console is silent this long is stopped, its
#                      unfinished jobs run again in a fresh guest (150; the
#                      guest prints @@FRING-ALIVE every 20 s)
#   FRING_VM_RETRY=0   no second run of unfinished jobs
#   FRING_VM_HUNG_GRACE   a job still running this long after its SIGKILL is
#                      reported hung, with its blocked tasks (30)
#   FRING_VM_SCALE     multiplies the fsx operation counts (1)
#   FRING_VM_ONLY      a regular expression: run only the jobs it matches
#   FRING_VM_JOBS      a job list to source instead of jobs.sh
#   FRING_VM_QEMU      the qemu binary (qemu-system-x86_64)
#   FRING_VM_DISK      a raw disk image the guest sees as /dev/vda (virtio;
#                      cache=unsafe: a scratch disk, its flushes stop at the
#                      host's page cache); its virtio_blk module is fetched
#                      (fetch-kernel.sh --modules) and loaded by /init. One
#                      guest only (FRING_VM_GUESTS=1). bench/vm.sh -S ext4.
#   FRING_VM_MEM, FRING_VM_SMP  guest memory (2G) and vCPUs (2)
#   FRING_VM_APPEND    more kernel command line (run-scale.sh: maxcpus=2, so
#                      that FRING_VM_SMP=64 gives 64 possible CPUs, 2 online)
#   FRING_VM_OUTDIR    where the files go (BUILDDIR/tests/vm, or .../SERIES)
#   FRING_E2E_NO_SKIP=1  a skip (exit 77), here or in a job, is a failure
# Exit status: 0 every job passed; 1 a job failed or the guest did not finish;
# 77 no qemu or no kernel could be had (1 with FRING_E2E_NO_SKIP=1).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$HERE/../lib/check.sh"
[[ $# -eq 1 ]] || { echo "usage: $0 BUILDDIR" >&2; exit 1; }
BUILD=$(realpath "$1")
# the kernel series (fetch-kernel.sh): 7.3, or 6.12 / 6.1 for the matrix
SERIES=${FRING_VM_SERIES:-7.3}
OUTDIR=$BUILD/tests/vm
[[ $SERIES == 7.3 ]] || OUTDIR=$BUILD/tests/vm/$SERIES
OUTDIR=${FRING_VM_OUTDIR:-$OUTDIR}
mkdir -p "$OUTDIR"
LOG=$OUTDIR/guest.log

QEMU=${FRING_VM_QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null ||
	skip "no $QEMU (Debian package qemu-system-x86): the vm tier cannot boot its kernel"
kernel_rc=0
KERNEL=$("$HERE/fetch-kernel.sh" "$SERIES") || kernel_rc=$?
if [[ $kernel_rc != 0 ]]; then
	[[ $kernel_rc == 2 ]] && skip "no Linux $SERIES kernel image (fetch-kernel.sh above)"
	fail vm.kernel "fetch-kernel.sh exited $kernel_rc"
	check_done
fi
echo "# kernel: $KERNEL"
KDIR=$(dirname "$KERNEL")
[[ -r $KDIR/kernel-package ]] && echo "# package: $(cat "$KDIR/kernel-package")"
# the FUSE ABI each series must negotiate (unless FRING_VM_KERNEL boots
# another kernel)
declare -A series_abi=([7.3]=7.46 [6.12]=7.41 [6.1]=7.38)
want_abi=${series_abi[$SERIES]}
[[ $SERIES == 7.3 && -n ${FRING_VM_KERNEL:-} ]] && want_abi=

# ---------------------------------------------------------------------------
# The jobs
MEMFS=$BUILD/examples/memfs/memfs
PT=$BUILD/examples/passthrough/passthrough
E2E=$BUILD/tests/e2e
# in the guest: run-guest.sh's directory, tests/e2e's scripts
# shellcheck disable=SC2034 # (G: for a job list of FRING_VM_JOBS)
G=/tests
S=/tests/e2e
names=()
bins=()
missing=()
guest_tool() { # NAME...: host programs the guest needs and busybox lacks
	local t p
	for t in "$@"; do
		if p=$(command -v "$t"); then
			bins+=("$p")
		else
			missing+=("$t (a host program)")
		fi
	done
}
declare -A job_transport=() job_cmd=() listed=() absent=()
# job_not_offered NAME TRANSPORT COMMAND...: a job for a feature this
# kernel must NOT offer (too old). It passes only if the test says so: a
# line "NOT OFFERED: why" and exit 77; exit 0 there is a failure (the
# library used something the kernel lacks, or the test proves nothing).
# The command runs with FRING_E2E_EXPECT_NOT_OFFERED=1: that answer is what
# is asked for here, not a skip (tests/lib/check.sh's not_offered exits 77
# under FRING_E2E_NO_SKIP=1 too). Conversely a plain job that answers NOT
# OFFERED fails: on a kernel that offers a feature its test must run.
job_not_offered() {
	local name=$1 transport=$2
	shift 2
	job "$name" "$transport" env FRING_E2E_EXPECT_NOT_OFFERED=1 "$@"
	[[ -n ${job_cmd[$name]:-} ]] && absent[$name]=1
	return 0
}
job() { # NAME TRANSPORT COMMAND...
	local name=$1 transport=$2 w
	shift 2
	if [[ -n ${FRING_VM_ONLY:-} && ! $name =~ $FRING_VM_ONLY ]]; then
		return 0
	fi
	[[ $name =~ ^[A-Za-z0-9_.+-]+$ ]] || { echo "run-vm: job name \"$name\": use letters, digits and _.+- only" >&2; exit 1; }
	[[ -z ${job_cmd[$name]:-} ]] || { echo "run-vm: job $name defined twice" >&2; exit 1; }
	names+=("$name")
	job_transport[$name]=$transport
	job_cmd[$name]=$(printf '%q ' "$@")
	# every build-tree program a job names goes into the initramfs
	for w in "$@"; do
		[[ $w == "$BUILD"/* && -z ${listed[$w]:-} ]] || continue
		listed[$w]=1
		if [[ -f $w && -x $w ]]; then
			bins+=("$w")
		else
			missing+=("$w")
		fi
	done
}
# shellcheck source-path=SCRIPTDIR source=jobs.sh
if [[ $SERIES == 7.3 ]]; then
	source "${FRING_VM_JOBS:-$HERE/jobs.sh}"
else
	# shellcheck source=jobs-old.sh
	source "${FRING_VM_JOBS:-$HERE/jobs-old.sh}"
fi
((${#names[@]})) || { echo "run-vm: no job (FRING_VM_ONLY=${FRING_VM_ONLY:-})"; exit 1; }
for w in "${missing[@]}"; do
	echo "# missing: $w (the jobs that use it will fail)"
done

JOBS=$OUTDIR/jobs.txt
ENVF=$OUTDIR/guest-env.sh
: >"$JOBS"
for n in "${names[@]}"; do
	printf '%s\t%s\n' "$n" "${job_cmd[$n]}" >>"$JOBS"
done
{
	echo "export FRING_E2E_NO_SKIP=${FRING_E2E_NO_SKIP:-0}"
	echo "export FRING_VM_JOB_TIMEOUT=${FRING_VM_JOB_TIMEOUT:-240}"
	echo "export FRING_VM_HUNG_GRACE=${FRING_VM_HUNG_GRACE:-30}"
	echo "export FRING_E2E_TEARDOWN_SECONDS=${FRING_E2E_TEARDOWN_SECONDS:-60}"
	echo "export FRING_E2E_LIFECYCLE_SECONDS=${FRING_E2E_LIFECYCLE_SECONDS:-60}"
	# inside a job, the tests' own bound comes first
	echo "export FRING_E2E_TIMEOUT=$((${FRING_VM_JOB_TIMEOUT:-240} - 30))"
} >"$ENVF"

adds=(--add "$JOBS" /tests/jobs --add "$ENVF" /tests/env)
for f in "$HERE"/../e2e/*.sh; do
	adds+=(--add "$f" "$S/${f##*/}")
done
# libfring-fuse3's smoke test, in /tests/compat
adds+=(--add "$HERE/../../compat/fuse3/tests/e2e/smoke.sh" /tests/compat/smoke.sh)
# tests/lib (check.sh, kernel-log.sh): beside the scripts as in the tree,
# /tests/lib for /tests/e2e/*.sh and /tests/run-guest.sh
for f in check.sh kernel-log.sh; do
	adds+=(--add "$HERE/../lib/$f" "/tests/lib/$f")
done
# FUSE as a module (the 6.1 kernel): its fuse.ko, which /init loads
if [[ -d $KDIR/modules ]]; then
	while read -r f; do
		adds+=(--add "$f" "${f#"$KDIR/modules"}")
	done < <(find "$KDIR/modules" -type f)
fi
# a disk (bench/vm.sh -S ext4): its driver is a module, which /init loads
# in the order of load-order
DISK=${FRING_VM_DISK:-}
if [[ -n $DISK ]]; then
	[[ -f $DISK && -r $DISK && -w $DISK ]] || { echo "run-vm: FRING_VM_DISK=$DISK is not a read-write file" >&2; exit 1; }
	[[ ${FRING_VM_GUESTS:-2} == 1 ]] || { echo "run-vm: FRING_VM_DISK needs FRING_VM_GUESTS=1 (one guest per disk)" >&2; exit 1; }
	mod_rc=0
	MODDIR=$("$HERE/fetch-kernel.sh" --modules virtio_blk "$SERIES") || mod_rc=$?
	if [[ $mod_rc != 0 ]]; then
		echo "run-vm: no virtio_blk module for this kernel (fetch-kernel.sh --modules above): no disk" >&2
		exit 1
	fi
	while read -r f; do
		adds+=(--add "$f" "${f#"$MODDIR"}")
	done < <(find "$MODDIR/lib" -type f)
fi
INITRD=$OUTDIR/initramfs.cpio.gz
"$HERE/mkinitramfs.sh" "${adds[@]}" "$INITRD" "${bins[@]}"

# ---------------------------------------------------------------------------
# Boot
TIMEOUT=${FRING_VM_TIMEOUT:-1500}
JOB_TIMEOUT=${FRING_VM_JOB_TIMEOUT:-240}
# A guest whose console says nothing for this long is wedged: run-guest.sh
# prints @@FRING-ALIVE every 20 s, and a hung job is reported by its
# watchdog (a job's own silence is normal and is not what this measures).
STALL=${FRING_VM_STALL:-150}
# Guests at once, each with a share of the jobs: one guest keeps about one
# host CPU busy (TCG, and tests that mostly wait on each other), so two
# nearly halve the time on two CPUs. Job k runs in guest k mod GUESTS.
GUESTS=${FRING_VM_GUESTS:-2}
[[ $GUESTS =~ ^[1-9][0-9]*$ ]] || { echo "run-vm: FRING_VM_GUESTS=$GUESTS: give a number >= 1" >&2; exit 1; }
((GUESTS <= ${#names[@]})) || GUESTS=${#names[@]}
append="console=ttyS0 fuse.enable_uring=1 rdinit=/init panic=-1 quiet${FRING_VM_APPEND:+ $FRING_VM_APPEND}"
qemu_args=(-accel tcg -cpu max -smp "${FRING_VM_SMP:-2}" -m "${FRING_VM_MEM:-2G}"
	-nographic -no-reboot -nic none
	-kernel "$KERNEL" -initrd "$INITRD")
[[ -z $DISK ]] || qemu_args+=(-drive "file=$DISK,if=virtio,format=raw,cache=unsafe")
echo "# $GUESTS x $QEMU ${qemu_args[*]} -append \"$append fring.shard=I/$GUESTS\""
echo "# serial consoles: $OUTDIR/guest.I.log, then together in $LOG (up to $TIMEOUT s)"
rm -f "$OUTDIR"/guest.*.log "$OUTDIR"/retry.*.log
t0=$(date +%s)
T0=$t0
# A guest whose kernel dies before /init runs is booted again (3 boots at
# most): TCG now and then breaks the kernel's boot-time code patching
# ("Oops: int3" in set_next_task_fair at 1.7 s, once in about a dozen boots
# here). No job has begun then, so nothing a test found is hidden. A guest
# that stops later (its console silent for STALL seconds, or qemu killed at
# FRING_VM_TIMEOUT) is not booted again: the jobs it did not finish run
# once more in a fresh guest (below), and both attempts are reported.
BOOT_LIMIT=${FRING_VM_BOOT_TIMEOUT:-150} # seconds from qemu's start to /init
boot_guest() { # G GLOG NSHARDS: exits with qemu's status (124: timeout or stall)
	local g=$1 glog=$2 nshards=$3 boot rc left why qpid= size last quiet=0
	trap 'kill -TERM $qpid 2>/dev/null; exit 143' TERM
	for boot in 1 2 3; do
		left=$((TIMEOUT - ($(date +%s) - t0)))
		((left > 0)) || exit 124
		timeout -k 10 "$left" "$QEMU" "${qemu_args[@]}" -append "$append fring.shard=$g/$nshards" \
			</dev/null >"$glog" 2>&1 &
		qpid=$!
		rc=0
		# a boot can also stall before /init: the console stops after
		# the BIOS and qemu spins (seen under TCG at high host load);
		# such a guest is stopped and booted again too
		b0=$(date +%s)
		while kill -0 "$qpid" 2>/dev/null && ! grep -q '@@FRING-KERNEL' "$glog"; do
			if (($(date +%s) - b0 >= BOOT_LIMIT && boot < 3)); then
				kill -TERM "$qpid" 2>/dev/null
				break
			fi
			sleep 2
		done
		last=-1
		while kill -0 "$qpid" 2>/dev/null && grep -q '@@FRING-KERNEL' "$glog"; do
			size=$(stat -c %s "$glog")
			if [[ $size != "$last" ]]; then
				last=$size quiet=$(date +%s)
			elif (($(date +%s) - quiet >= STALL)); then
				echo "@@FRING-HOST-STALL console silent for $STALL s: qemu stopped@@" >>"$glog"
				kill -TERM "$qpid" 2>/dev/null
				wait "$qpid"
				exit 124
			fi
			sleep 5
		done
		wait "$qpid" || rc=$?
		if grep -q '@@FRING-KERNEL' "$glog" || [[ $boot == 3 || $rc == 124 || $rc == 137 ]]; then
			exit "$rc"
		fi
		mv "$glog" "${glog%.log}.boot$boot.log"
		why=$(grep -m1 -oE 'Oops.*|Kernel panic.*' "${glog%.log}.boot$boot.log" | tr -d '\r' || true)
		echo "# guest $g: stopped before /init (qemu exited $rc${why:+: $why}; ${glog##*/}.boot$boot): booting it again"
	done
}
killed_guests=()
run_round() { # PREFIX NGUESTS OUT: boots the guests, their consoles into OUT
	local prefix=$1 n=$2 out=$3 g rc pids=()
	for ((g = 0; g < n; g++)); do
		boot_guest "$g" "$OUTDIR/$prefix.$g.log" "$n" &
		pids+=($!)
	done
	# stopped early (meson's timeout, ^C): the guests go too
	trap 'kill -TERM "${pids[@]}" 2>/dev/null' EXIT
	for ((g = 0; g < n; g++)); do
		rc=0
		wait "${pids[g]}" || rc=$?
		echo "# $prefix $g: qemu exited $rc after $(($(date +%s) - t0)) s"
		if [[ $rc == 124 || $rc == 137 ]]; then
			killed_guests+=("$prefix.$g")
		fi
		tr -d '\r' <"$OUTDIR/$prefix.$g.log" >>"$out"
	done
	trap - EXIT
}
: >"$LOG"
run_round guest "$GUESTS" "$LOG"

# The jobs a guest did not finish: it was stopped in or before them, or the
# guest's watchdog found one hung. They run once more, in a fresh guest
# (FRING_VM_RETRY=0: not), and are judged by that run; the first attempt is
# shown. A job that failed by itself is not run again.
unfinished=()
for n in "${names[@]}"; do
	if ! grep -qF "@@FRING-END $n rc=" "$LOG" || grep -qF "# $n: HUNG:" "$LOG"; then
		unfinished+=("$n")
	fi
done
RLOG=$OUTDIR/retry.log
: >"$RLOG"
declare -A retried=()
if ((${#unfinished[@]})) && [[ ${FRING_VM_RETRY:-1} != 0 ]] && grep -q '@@FRING-KERNEL' "$LOG"; then
	echo "# retry: ${#unfinished[@]} job(s) did not finish (their guest hung or was stopped): ${unfinished[*]}"
	: >"$JOBS"
	for n in "${unfinished[@]}"; do
		printf '%s\t%s\n' "$n" "${job_cmd[$n]}" >>"$JOBS"
		retried[$n]=1
	done
	"$HERE/mkinitramfs.sh" "${adds[@]}" "$INITRD" "${bins[@]}"
	t0=$(date +%s)
	TIMEOUT=${FRING_VM_RETRY_TIMEOUT:-600}
	run_round retry 1 "$RLOG"
fi

# ---------------------------------------------------------------------------
# The verdicts
log_of() { # NAME: the log that judges it (the retry's, if it ran again)
	if [[ -n ${retried[$1]:-} ]]; then echo "$RLOG"; else echo "$LOG"; fi
}
section() { # NAME [LOG]: the job's lines between its BEGIN and END (or the log's end)
	awk -v b="@@FRING-BEGIN $1@@" -v e="@@FRING-END $1 rc=" '
		index($0, b) { on = 1; next }
		on && index($0, e) { exit }
		on { print }
	' "${2:-$(log_of "$1")}"
}
show() { # NAME: the tail of its section, for a failure
	echo "# --- $1: last 40 lines ---"
	section "$1" | grep -vE '^ok |^# stats: |@@FRING-STATS|@@FRING-ALIVE' | tail -n 40 | cut -c 1-300 | sed 's/^/#   /'
}

kver=$(sed -n 's/.*@@FRING-KERNEL \([^ ]*\).*@@.*/\1/p' "$LOG" | head -n 1)
abi=$(sed -n 's/.*@@FRING-FUSE-ABI \(.*\)@@.*/\1/p' "$LOG" | head -n 1)
echo "# guest kernel ${kver:-?}, FUSE ABI ${abi:-?}"
if [[ -z $kver ]]; then
	fail vm.boot "expected the guest's init to start (no @@FRING-KERNEL line in $LOG)"
	echo "# --- last 40 lines of $LOG ---"
	tail -n 40 "$LOG" | sed 's/^/#   /'
fi
if [[ -n $kver && -n $want_abi && $abi != "$want_abi" ]]; then
	fail vm.abi "expected Linux $SERIES to speak FUSE ABI $want_abi got ${abi:-none}"
fi
for g in "${killed_guests[@]}"; do
	echo "# --- $g: stopped (console silent for $STALL s, or FRING_VM_TIMEOUT); the last 40 lines of $g.log ---"
	tr -d '\r' <"$OUTDIR/$g.log" | tail -n 40 | cut -c 1-300 | sed 's/^/#   /'
	# the first round's stops are answered by the retry; the retry's fail
	if [[ $g == retry.* || ${FRING_VM_RETRY:-1} == 0 ]]; then
		fail vm.timeout "expected $g to power off by itself; it was stopped"
	fi
done
done_count=$(grep -c '@@FRING-DONE' "$LOG" || true)
[[ $done_count == "$GUESTS" || -z $kver ]] ||
	echo "# $((GUESTS - done_count)) guest(s) never reached the end of their job list"
for n in "${!retried[@]}"; do
	if grep -qF "# $n: HUNG:" "$LOG"; then
		echo "# retried $n: its first attempt hung (the guest's watchdog); what it said:"
	elif grep -qF "@@FRING-BEGIN $n@@" "$LOG"; then
		echo "# retried $n: its first attempt never ended (its guest was stopped); what it said:"
	else
		echo "# retried $n: its guest was stopped before it began"
		continue
	fi
	section "$n" "$LOG" | grep -vE '^ok |@@FRING-STATS|@@FRING-ALIVE' | tail -n 60 | cut -c 1-300 | sed 's/^/#   /'
done

for n in "${names[@]}"; do
	L=$(log_of "$n")
	if ! grep -qF "@@FRING-BEGIN $n@@" "$L"; then
		fail "$n" "expected the guest to run it (no BEGIN line)"
		continue
	fi
	endline=$(grep -oE "@@FRING-END $n rc=[0-9]+@@" "$L" | tail -n 1 || true)
	secs=$(section "$n" | sed -n "s/^# $n took \([0-9.]*\) s$/\1/p" | tail -n 1)
	if [[ -z $endline ]]; then
		fail "$n" "expected it to finish (BEGIN without END: the guest stopped or hung in it)"
		show "$n"
		continue
	fi
	rc=${endline##*rc=}
	rc=${rc%@@}
	why=
	nol=$(section "$n" | grep -m1 '^NOT OFFERED:' || true)
	if [[ -n ${absent[$n]:-} ]]; then
		if [[ $rc == 77 && -n $nol ]]; then
			ok "$n (not offered: ${nol#NOT OFFERED: })"
			continue
		fi
		fail "$n" "expected \"NOT OFFERED:\" and exit 77 (this kernel lacks it) got exit $rc"
		show "$n"
		continue
	fi
	if [[ -n $nol ]]; then
		why="expected the kernel to offer it got \"${nol:0:200}\""
	elif [[ $rc == 77 ]]; then
		skips_allowed || why="it skipped (exit 77) and FRING_E2E_NO_SKIP=1"
	elif [[ $rc != 0 ]]; then
		why="expected exit 0 got $rc"
		fline=$(section "$n" | grep -m1 -E '^(FAIL|SKIP)' || true)
		[[ -n $fline ]] && why="$why (first: ${fline:0:200})"
	fi
	want=${job_transport[$n]}
	if [[ -z $why && $want != - ]]; then
		stats=$(section "$n" | grep -oE '@@FRING-STATS .*@@' || true)
		if [[ -z $stats ]]; then
			why="expected a @@FRING-STATS line (memfs on $want) got none"
		else
			while read -r line; do
				line=${line#@@FRING-STATS }
				t=$(sed -n 's/^{"transport":"\([^"]*\)".*/\1/p' <<<"$line")
				if [[ $t != "$want" ]]; then
					why="expected the stats to say transport \"$want\" got \"${t:-?}\""
					break
				fi
			done <<<"$stats"
		fi
	fi
	if [[ $rc == 77 && -z $why ]]; then
		skip_check "$n" "exit 77 ($(section "$n" | grep -m1 '^SKIP' || true))"
		continue
	fi
	if [[ -z $why ]]; then
		ok "$n${secs:+ (${secs} s)}${retried[$n]:+ (retried: see above)}"
	else
		fail "$n${secs:+ (${secs} s)}" "$why"
		show "$n"
	fi
done

echo "# what memfs said it mounted in the guest:"
grep -E 'fring: mounted ' "$LOG" | sed -E 's/^.*fring: mounted [^ ]*: /mounted: /' |
	sort | uniq -c | sed -E 's/^ *([0-9]+) /#   \1 x /' || true
echo "# vm: $(($(date +%s) - T0)) s; the serial logs are $LOG${retried[*]:+ and $RLOG (the retry)}"
((${#retried[@]})) && echo "# ${#retried[@]} job(s) ran a second time after a hang or a stopped guest (above)"
check_summary
((failed == 0 && passed > 0))
