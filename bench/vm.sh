#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/vm.sh: the fio jobs of bench/run.sh, plus buffered 1 MiB reads and
# writes, inside the vm tier's Linux 7.3 guest (FUSE ABI 7.46, qemu TCG), on
# every transport rung in one boot, summarized as ratios between the rungs.
# Under TCG absolute numbers mean little; ratios within one boot still do.
# Not part of the test suite. See doc/benchmarks.md, "VM mode".
#
# Usage: bench/vm.sh [options]
#   -r N      repetitions (default 3), interleaved: rep 1 of every (file
#             system, transport), then rep 2, ...
#   -T LIST   transports (default dev,uring,bufpool,bufpool-registered,zerocopy);
#             one the daemon refuses is reported "refused: <its reason>"
#             RUNG@OPTS runs RUNG with more -o options, reported as a
#             transport of its own (zerocopy@zc_pipe_max=0)
#   -f LIST   file systems (default memfs,passthrough; passthrough's
#             source is a directory on the -S store); also hp:
#             libfuse's passthrough_hp --nopassthrough -o io_uring over
#             the same kind of source, once per repetition as transport
#             "libfuse-uring" (the -T list is libfring's), from $FRING_HP
#             (default the passthrough_hp bench/build-libfuse.sh built);
#             skipped, with a note, when that is not there; also hpbg:
#             the same, with its connection's max_background set to 256
#             and congestion_threshold to 192 (libfring's defaults)
#             through fusectl after the mount; also hpfring:
#             the same passthrough_hp source, unmodified, built against
#             this build's libfring-fuse3 (tests/vm/build-fuse3-hp.sh,
#             which fetches libfuse's source) and run on the -T transports
#             like passthrough
#   -S STORE  where passthrough, hp and hpfring keep their source: tmpfs
#             (default: the guest's /tmp) or ext4: a file system made here
#             (mkfs.ext4 on a sparse 1 GiB image in the output directory,
#             deleted after the run) on the guest's virtio disk /dev/vda;
#             its cache is dropped with the FUSE mount's before each fio
#             job and the source files are read once after that, so that
#             the jobs meet cached data as on tmpfs
#   -j LIST   fio jobs (default seqread,seqwrite,randread,bufread,bufwrite;
#             also randwrite: 4 KiB random O_DIRECT writes like randread)
#   -s MIB    file size per fio process in MiB, 2 processes (default 64);
#             each sequential job moves 2 x MIB
#   -R MIB    MiB each of the 2 randread processes reads (default 8)
#   -t SEC    cap on each fio job's run time (default 60; a capped job
#             moved less, its rate still counts)
#   -o DIR    output directory (default bench/results/DATE-vm)
#   -b DIR    build directory (default $FRING_BUILD, else build-bench if
#             it exists, else build); build it -Dbuildtype=release
#   -h        this text
#
# Needs what the vm tier needs (tests/vm/README.md: qemu-system-x86,
# busybox-static, the cached 7.3 kernel) and /usr/bin/fio with its
# libraries (copied into the initramfs). Root is not needed.
# Output: DIR/guest.log (the serial console, every raw fio result in it),
# DIR/results.csv, DIR/summary.md, DIR/env.txt, DIR/load.txt (the host's
# load average every 30 s), DIR/run-vm.txt (run-vm.sh's verdicts).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPS=3
TRANSPORTS=dev,uring,bufpool,bufpool-registered,zerocopy
FSS=memfs,passthrough
STORE=tmpfs
JOBS=seqread,seqwrite,randread,bufread,bufwrite
MIB=64
RAND_MIB=8
SECS=60
OUT=
BUILD=${FRING_BUILD:-}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [[ $# -gt 0 ]]; do
	case $1 in
	-r) REPS=$2; shift ;;
	-T) TRANSPORTS=$2; shift ;;
	-f) FSS=$2; shift ;;
	-j) JOBS=$2; shift ;;
	-S) STORE=$2; shift ;;
	-s) MIB=$2; shift ;;
	-R) RAND_MIB=$2; shift ;;
	-t) SECS=$2; shift ;;
	-o) OUT=$2; shift ;;
	-b) BUILD=$2; shift ;;
	-h | --help) usage 0 ;;
	*) echo "vm.sh: unknown option $1" >&2; usage 2 ;;
	esac
	shift
done
die() { echo "vm.sh: $*" >&2; exit 1; }
[[ $MIB =~ ^[1-9][0-9]*$ && $RAND_MIB =~ ^[1-9][0-9]*$ ]] || die "-s and -R take whole MiB"
[[ $STORE == tmpfs || $STORE == ext4 ]] || die "-S takes tmpfs or ext4"
if [[ $STORE == ext4 ]]; then
	command -v mkfs.ext4 >/dev/null || die "-S ext4: no mkfs.ext4 (Debian package e2fsprogs)"
fi

if [[ -z $BUILD ]]; then
	BUILD=$ROOT/build
	[[ -d $ROOT/build-bench ]] && BUILD=$ROOT/build-bench
fi
BUILD=$(realpath "$BUILD")
for p in examples/memfs/memfs examples/passthrough/passthrough; do
	[[ -x $BUILD/$p ]] || die "$BUILD/$p missing: ninja -C $BUILD"
done
FIO=/usr/bin/fio
[[ -x $FIO ]] || die "no $FIO (Debian package fio)"
extra_bins="$FIO $ROOT/bench/vm-guest.sh"

# hp: libfuse's own server, the yardstick for libfring's passthrough. Not
# ours to build here (bench/build-libfuse.sh does): without it the other
# file systems still run.
HP=${FRING_HP:-/var/cache/fring-bench/libfuse-build/example/passthrough_hp}
if [[ ,$FSS, =~ ,(hp|hpbg), ]]; then
	if [[ -x $HP ]]; then
		extra_bins+=" $HP"
	else
		echo "vm.sh: no $HP (bench/build-libfuse.sh, or set FRING_HP): skipping file systems hp, hpbg" >&2
		FSS=$(tr "," "\n" <<<"$FSS" | { grep -vxE 'hp|hpbg' || true; } | paste -sd, -)
		[[ -n $FSS ]] || die "no file system left to measure"
	fi
fi

# hpfring: libfuse's passthrough_hp on libfring's compat layer, built from
# the same source here
HPFRING=
if [[ ,$FSS, == *,hpfring,* ]]; then
	HPFRING=$("$ROOT/tests/vm/build-fuse3-hp.sh" "$BUILD") ||
		die "tests/vm/build-fuse3-hp.sh $BUILD could not build passthrough_hp for hpfring (above)"
fi

OUT=${OUT:-$ROOT/bench/results/$(date +%Y%m%d-%H%M%S)-vm}
mkdir -p "$OUT"
OUT=$(realpath "$OUT")

# One fio job is capped at SECS; a mount runs every job (and writes the
# files first). Past that the guest kills the job (and it fails): hung, not slow.
njobs=$(($(tr ',' '\n' <<<"$JOBS" | wc -l) + 1))
job_timeout=$((njobs * (SECS + 15) + 60))

{
	echo "date: $(date -Is)"
	echo "host: $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "host cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
	echo "host loadavg at start: $(cat /proc/loadavg)"
	# other work on this machine competes for the same 2 CPUs
	echo "other qemu processes at start: $(pgrep -c -x qemu-system-x86 || true)"
	echo "qemu: $(qemu-system-x86_64 --version | head -n 1)"
	echo "guest kernel: $(cat "${FRING_VM_CACHE:-/var/cache/fring-vm}/kernel-package" 2>/dev/null || echo "${FRING_VM_KERNEL:-?}")"
	echo "guest: ${FRING_VM_SMP:-2} vCPUs, ${FRING_VM_MEM:-2G}, -accel tcg -cpu max"
	echo "fio: $($FIO --version)"
	echo "libfring: $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "libfring build: $BUILD ($(sed -n 's/.*"buildtype", "value": "\([a-z]*\)".*/\1/p' "$BUILD/meson-info/intro-buildoptions.json" 2>/dev/null))"
	echo "binaries: $(cd "$BUILD" && sha256sum src/libfring.so examples/memfs/memfs examples/passthrough/passthrough 2>/dev/null |
		awk '{ printf "%s %.12s  ", $2, $1 }')"
	if [[ ,$FSS, =~ ,(hp|hpbg), ]]; then
		echo "libfuse: $(cat "$(dirname "$HP")/../VERSION" 2>/dev/null || echo unknown), $HP $(sha256sum "$HP" | cut -c 1-12)"
	fi
	if [[ -n $HPFRING ]]; then
		echo "hpfring: $HPFRING $(sha256sum "$HPFRING" | cut -c 1-12) (libfuse's source: $(grep -o '/[^ ]*/example/passthrough_hp.cc' "$(dirname "$HPFRING")/../build.log" | head -n 1))"
	fi
	echo "transports: $TRANSPORTS"
	echo "file systems: $FSS"
	echo "jobs: $JOBS"
	if [[ $STORE == ext4 ]]; then
		echo "store: ext4 on the guest's virtio disk (a sparse 1 GiB image, mkfs.ext4 $(mkfs.ext4 -V 2>&1 | head -n 1 | awk '{print $2}'), qemu cache=unsafe), warmed after each drop_caches"
	else
		echo "store: tmpfs (the guest's /tmp)"
	fi
	echo "reps: $REPS, files ${MIB} MiB x 2 fio processes, randread ${RAND_MIB} MiB x 2, cap ${SECS}s per job"
} >"$OUT/env.txt"
cat "$OUT/env.txt"

# the host's load during the run: the guest's numbers move with it
(while :; do echo "$(date +%T) $(cat /proc/loadavg)"; sleep 30; done) >"$OUT/load.txt" &
sampler=$!
trap 'kill "$sampler" 2>/dev/null; rm -f "${DISK:-}"' EXIT

# -S ext4: the guest's disk, an ext4 made here (no lazy initialization, so
# that no kernel thread of the guest writes the tables during the jobs)
DISK=
if [[ $STORE == ext4 ]]; then
	DISK=$OUT/store-ext4.img
	rm -f "$DISK"
	truncate -s 1G "$DISK"
	mkfs.ext4 -q -F -L fring-bench -E lazy_itable_init=0,lazy_journal_init=0 "$DISK"
fi

t0=$(date +%s)
rc=0
# one guest: two at once (the test tier's default) would compete for the
# host's CPUs and mix their measurements
env FRING_VM_JOBS="$ROOT/bench/vm-jobs.sh" FRING_VM_GUESTS=1 \
	FRING_VM_EXTRA_BINS="$extra_bins" FRING_BENCH_HP="$HP" FRING_BENCH_HPFRING="$HPFRING" \
	FRING_VM_JOB_TIMEOUT="$job_timeout" FRING_VM_DISK="$DISK" FRING_BENCH_STORE="$STORE" \
	FRING_VM_TIMEOUT="${FRING_VM_TIMEOUT:-3600}" \
	FRING_E2E_NO_SKIP=0 \
	FRING_BENCH_REPS="$REPS" FRING_BENCH_FS="$FSS" FRING_BENCH_TRANSPORTS="$TRANSPORTS" \
	FRING_BENCH_JOBS="$JOBS" FRING_BENCH_MIB="$MIB" FRING_BENCH_RAND_MIB="$RAND_MIB" \
	FRING_BENCH_SECS="$SECS" \
	"$ROOT/tests/vm/run-vm.sh" "$BUILD" 2>&1 | tee "$OUT/run-vm.txt" || rc=$?
t1=$(date +%s)
cp "$BUILD/tests/vm/guest.log" "$OUT/guest.log"
{
	echo "elapsed: $((t1 - t0)) s (initramfs, boot and jobs); run-vm.sh exited $rc"
	echo "host loadavg at end: $(cat /proc/loadavg)"
} | tee -a "$OUT/env.txt"

python3 "$ROOT/bench/vm-summarize.py" "$OUT" >"$OUT/summary.md"
cat "$OUT/summary.md"
echo "results: $OUT"
