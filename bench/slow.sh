#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/slow.sh: the slow-backend benchmark (issue 18). A filesystem whose
# backend takes 1 ms for every LOOKUP, GETATTR and READ, served by libfring
# asynchronously (bench/slowfs.c: the wait is an io_uring timeout on the
# request's own queue ring, no thread waits) and by its libfuse 3.18 twin
# written the ordinary way (bench/slowfs_ll.c: the handler sleeps), on
# libfuse's io_uring transport and on its classic multi-threaded loop, each
# at its defaults. Interleaved repetitions; prints a markdown table.
#
# Usage: bench/slow.sh [options]
#   -r N        repetitions (default 3), interleaved: rep 1 of every
#               configuration, then rep 2, ...
#   -c LIST     configurations, comma-separated (default all six):
#                 fring-slow-uring   slowfs, transport=uring (its defaults:
#                                    backend=ring, queue_depth=64)
#                 fuse-slow-uring    slowfs_ll -o io_uring
#                 fuse-slow-classic  slowfs_ll on /dev/fuse,
#                                    fuse_session_loop_mt (max_threads 10)
#                 fring-slow-dev     slowfs, transport=dev (no ring: the
#                                    backend thread waits; max_async 256)
#                 fring-slow-uring-qd8
#                                    the library's default queue_depth (any
#                                    "-qdN" suffix on a fring uring
#                                    configuration sets queue_depth=N)
#                 fring-slow-uring-thread
#                                    backend=thread on uring: the answer is
#                                    handed from the backend thread to the
#                                    queue thread
#               and, not in the default set, fuse-slow-single (slowfs_ll -s).
#   -j LIST     jobs (default randread16,randread64,stat16,stat64):
#                 randreadN  fio, 4 KiB random reads, N processes (numjobs),
#                            psync, O_DIRECT, one 64 MiB file each
#                 statN      bench/slowstat.c, N processes stat names never
#                            looked up before (one LOOKUP each)
#   -t SEC      run time of each job (default 10)
#   -l US       the backend's latency in microseconds (default 1000)
#   -o DIR      output directory (default bench/results/DATE-slow)
#   -h          this text
#
# Server CPU is utime+stime of the server process over the job, per
# operation; threads is `ls /proc/PID/task | wc -l` at the middle of the
# job; RSS is VmRSS then. Raw data: DIR/raw (fio JSON, slowstat JSON),
# DIR/results.csv, DIR/env.txt, DIR/load.txt (load average every 10 s),
# DIR/logs. Needs root, fio, cc, liburing's headers, the libfring build
# (build-bench/ if there, else build/; FRING_BUILD=DIR chooses) and libfuse
# from bench/build-libfuse.sh (run when missing).
set -uo pipefail
# One compound command, read before it runs: editing this file during a run
# does not change the run.
{

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${FRING_BUILD:-$ROOT/build}
[[ -z ${FRING_BUILD:-} && -d $ROOT/build-bench ]] && BUILDDIR=$ROOT/build-bench
CACHE=${FRING_BENCH_CACHE:-/var/cache/fring-bench}
LF_BUILD=$CACHE/libfuse-build
ENABLE_URING=/sys/module/fuse/parameters/enable_uring

REPS=3
CONFIGS=fring-slow-uring,fuse-slow-uring,fuse-slow-classic,fring-slow-dev,fring-slow-uring-qd8,fring-slow-uring-thread
JOBS=randread16,randread64,stat16,stat64
RUNTIME=10
LATENCY=1000
OUT=""

usage() { sed -n '4,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
	case "$1" in
	-r) REPS=$2; shift ;;
	-c) CONFIGS=$2; shift ;;
	-j) JOBS=$2; shift ;;
	-t) RUNTIME=$2; shift ;;
	-l) LATENCY=$2; shift ;;
	-o) OUT=$2; shift ;;
	-h|--help) usage 0 ;;
	*) echo "slow.sh: unknown option $1" >&2; usage 2 ;;
	esac
	shift
done

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

[ "$(id -u)" = 0 ] || die "run as root (mounts, enable_uring)"
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"
[[ $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "-t takes whole seconds"
[[ $LATENCY =~ ^[0-9]+$ ]] || die "-l takes microseconds"
[ -e "$BUILDDIR/src/libfring.so" ] || die "$BUILDDIR/src/libfring.so missing: meson setup $BUILDDIR -Dbuildtype=release && ninja -C $BUILDDIR"
if [ ! -e "$LF_BUILD/lib/libfuse3.so" ]; then
	log "libfuse not built: running bench/build-libfuse.sh"
	"$ROOT/bench/build-libfuse.sh" >&2 || die "building libfuse failed"
fi
NSTAT=$(awk '$1 == "#define" && $2 == "SLOW_NSTAT" { print $3 }' "$ROOT/bench/slowfs_ns.h")
[[ $NSTAT =~ ^[0-9]+$ ]] || die "no SLOW_NSTAT in bench/slowfs_ns.h"
LF_SRC=$(ls -d "$CACHE"/src/fuse3/fuse3-*/ 2>/dev/null | head -n1)
[ -n "$LF_SRC" ] && [ -e "$LF_SRC/include/fuse_lowlevel.h" ] || die "libfuse source missing under $CACHE/src/fuse3"

STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${OUT:-$ROOT/bench/results/$STAMP-slow}
mkdir -p "$OUT/raw" "$OUT/logs"
CSV=$OUT/results.csv
[ -s "$CSV" ] || echo "rep,config,job,ops,seconds,ops_per_s,p50_us,p99_us,server_cpu_s,cpu_us_per_op,threads,rss_kib,load1" >"$CSV"

WORK=$(mktemp -d /tmp/fring-slow.XXXXXX)
MNT=$WORK/mnt
mkdir -p "$MNT" "$WORK/bin" "$WORK/lib"
DAEMON_PID=""
OLD_URING=""
SAMPLER=""
CLK_TCK=$(getconf CLK_TCK)

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null
	cleanup_server "$MNT"
	uring_restore
	rm -rf "${WORK:?}/bin" "${WORK:?}/lib"
	rmdir "$MNT" "$WORK" 2>/dev/null
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- build: the three programs, and a copy of libfring ----------------------
# Copied, so that a rebuild of the tree during the run changes nothing.
FRING_SO=$(readlink -f "$BUILDDIR/src/libfring.so")
cp "$FRING_SO" "$WORK/lib/" && ln -sf "$(basename "$FRING_SO")" "$WORK/lib/libfring.so.0"
CFLAGS=(-O2 -std=c11 -Wall -Wextra -Werror)
cc "${CFLAGS[@]}" -I"$ROOT/include" -o "$WORK/bin/slowfs" "$ROOT/bench/slowfs.c" \
	-L"$BUILDDIR/src" -lfring -luring -lpthread -Wl,-rpath,"$WORK/lib" ||
	die "cannot build slowfs"
cc "${CFLAGS[@]}" -I"$LF_SRC/include" -I"$LF_BUILD" -o "$WORK/bin/slowfs_ll" \
	"$ROOT/bench/slowfs_ll.c" -L"$LF_BUILD/lib" -lfuse3 \
	-Wl,-rpath,"$LF_BUILD/lib:$CACHE/prefix/lib" || die "cannot build slowfs_ll"
cc "${CFLAGS[@]}" -o "$WORK/bin/slowstat" "$ROOT/bench/slowstat.c" || die "cannot build slowstat"

[[ "$CONFIGS" == *uring* ]] && uring_on

{
	env_lines
	echo "libfring: $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown), $BUILDDIR ($(sed -n 's/.*"buildtype", "value": "\([a-z]*\)".*/\1/p' "$BUILDDIR/meson-info/intro-buildoptions.json" 2>/dev/null))"
	echo "libfuse: $(cat "$LF_BUILD/VERSION" 2>/dev/null || echo '?') ($LF_BUILD)"
	echo "binaries: $(cd "$WORK" && sha256sum lib/* bin/* | awk '{ printf "%s %.12s  ", $2, $1 }')"
	echo "enable_uring before: ${OLD_URING:-untouched}"
	echo "configs: $CONFIGS"
	echo "jobs: $JOBS"
	echo "reps: $REPS, runtime ${RUNTIME}s, backend latency ${LATENCY} us per lookup, getattr and read"
} >"$OUT/env.txt"
cat "$OUT/env.txt" >&2
(while :; do echo "$(date +%T) $(cat /proc/loadavg)"; sleep 10; done) >>"$OUT/load.txt" &
SAMPLER=$!

# --- configurations --------------------------------------------------------
start_config() { # NAME REP: mounts it, sets DAEMON_PID
	local name=$1 rep=$2 base=$1 qd="" cmd=()
	if [[ "$base" =~ ^(fring-.*-uring.*)-qd([0-9]+)$ ]]; then
		base=${BASH_REMATCH[1]}
		qd=${BASH_REMATCH[2]}
	fi
	[[ "$base" == *uring* && -n "$OLD_URING" ]] && echo Y >"$ENABLE_URING"
	case "$base" in
	fring-slow-uring) cmd=("$WORK/bin/slowfs" -f -o "transport=uring,latency_us=$LATENCY${qd:+,queue_depth=$qd}") ;;
	fring-slow-uring-thread) cmd=("$WORK/bin/slowfs" -f -o "transport=uring,backend=thread,latency_us=$LATENCY${qd:+,queue_depth=$qd}") ;;
	fring-slow-dev) cmd=("$WORK/bin/slowfs" -f -o "transport=dev,latency_us=$LATENCY") ;;
	fuse-slow-uring) cmd=("$WORK/bin/slowfs_ll" -f -o "io_uring,latency_us=$LATENCY") ;;
	fuse-slow-classic) cmd=("$WORK/bin/slowfs_ll" -f -o "latency_us=$LATENCY") ;;
	fuse-slow-single) cmd=("$WORK/bin/slowfs_ll" -f -s -o "latency_us=$LATENCY") ;;
	*) log "unknown configuration $name"; return 1 ;;
	esac
	cmd+=("$MNT")
	echo "$name: ${cmd[*]}" >>"$OUT/logs/commands.txt"
	start_server "$name" "$OUT/logs/$name.rep$rep.log" "${cmd[@]}" || return 1
	# the mount must be this server's FUSE mount, seen in /proc/mounts
	if ! is_fuse_mounted "$MNT"; then
		log "$name: no FUSE mount at $MNT"
		stop_config
		return 1
	fi
	# the data path answers what bench/slowfs_ns.h says (ns_word), and
	# "stat" ends where the namespace does
	if ! python3 - "$MNT" <<'EOF'
import os, sys
mnt = sys.argv[1]
ino, off, n = 107, 8192 + 13, 4096
fd = os.open(os.path.join(mnt, "r7"), os.O_RDONLY)
got = os.pread(fd, n, off)
os.close(fd)
def word(k):
    x = ((ino << 40) ^ ((k * 0x9E3779B97F4A7C15) & (2**64 - 1))) & (2**64 - 1)
    return x ^ (x >> 29)
want = bytes((word((off + i) // 8) >> (8 * ((off + i) % 8))) & 255 for i in range(n))
# past the last name (no job stats it): a negative entry
try:
    os.stat(os.path.join(mnt, "stat", "f4000000"))
    sys.exit(1)
except FileNotFoundError:
    pass
sys.exit(0 if got == want and os.stat(os.path.join(mnt, "r7")).st_ino == ino else 1)
EOF
	then
		log "$name: wrong data or names from the mount: not measured"
		stop_config
		return 1
	fi
}

uring_fds() { # PID -> how many io_uring descriptors it holds
	local f n=0
	for f in /proc/"$1"/fd/*; do
		[[ $(readlink "$f" 2>/dev/null) == *io_uring* ]] && n=$((n + 1))
	done
	echo "$n"
}

stop_config() { stop_server; }

# --- jobs ------------------------------------------------------------------
# prints "ops seconds ops_per_s p50_us p99_us" of a job's raw output
parse_raw() { # KIND FILE
	python3 - "$1" "$2" <<'EOF'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
if kind == "fio":
    r = json.load(open(path))["jobs"][0]["read"]
    pc = r["clat_ns"].get("percentile", {})
    ops = r["total_ios"]
    secs = ops / r["iops"] if r["iops"] else 0
    print(ops, f"{secs:.3f}", f"{r['iops']:.1f}",
          f"{pc.get('50.000000', 0) / 1000:.1f}", f"{pc.get('99.000000', 0) / 1000:.1f}")
else:
    d = json.loads(open(path).read().strip().splitlines()[-1])
    print(d["ops"], f"{d['seconds']:.3f}", f"{d['ops_per_s']:.1f}",
          f"{d['lat_us']['p50']:.1f}", f"{d['lat_us']['p99']:.1f}")
EOF
}

run_job() { # REP CONFIG JOB
	local rep=$1 conf=$2 job=$3 raw kind n pid c0 c1 threads rss load1 cpu per_op
	local ops secs rate p50 p99
	load1=$(cut -d' ' -f1 /proc/loadavg)
	c0=$(cpu_of "$DAEMON_PID")
	case "$job" in
	randread[0-9]*)
		n=${job#randread}
		kind=fio
		raw=$OUT/raw/rep$rep-$conf-$job.json
		fio --name="$job" --directory="$MNT" --filename_format='r$jobnum' \
			--rw=randread --bs=4k --ioengine=psync --direct=1 \
			--numjobs="$n" --size=64m --readonly --time_based \
			--runtime="$RUNTIME" --group_reporting \
			--output-format=json --output="$raw" \
			>/dev/null 2>>"$OUT/logs/fio.stderr" &
		pid=$! ;;
	stat[0-9]*)
		n=${job#stat}
		kind=slowstat
		raw=$OUT/raw/rep$rep-$conf-$job.json
		# names nobody looked up in this mount: each stat job its own
		# share of the namespace's SLOW_NSTAT, each process its own part
		# of that
		local share=$((NSTAT / NSTATJOBS))
		"$WORK/bin/slowstat" -p "$n" -b $((STATJOB * share)) -s $((share / n)) \
			-t "$RUNTIME" "$MNT/stat" >"$raw" \
			2>>"$OUT/logs/slowstat.stderr" &
		pid=$!
		STATJOB=$((STATJOB + 1)) ;;
	*) log "unknown job $job"; return ;;
	esac
	sleep $(( RUNTIME / 2 ))
	threads=$(ls "/proc/$DAEMON_PID/task" 2>/dev/null | wc -l)
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$DAEMON_PID/status" 2>/dev/null)
	# a ring configuration that serves without rings measures the wrong thing
	if [[ "$conf" == *uring* ]] && [ "$(uring_fds "$DAEMON_PID")" = 0 ]; then
		log "  $conf: the server holds no io_uring descriptor: not on its ring transport"
	fi
	if ! wait "$pid"; then
		log "  $conf $job failed (see $OUT/logs): not recorded"
		return
	fi
	c1=$(cpu_of "$DAEMON_PID")
	read -r ops secs rate p50 p99 < <(parse_raw "$kind" "$raw") || { log "  $conf $job: no result"; return; }
	cpu="" per_op=""
	if [ "$c0" -ge 0 ] && [ "$c1" -ge 0 ]; then
		cpu=$(awk -v a="$c0" -v b="$c1" -v t="$CLK_TCK" 'BEGIN { printf "%.2f", (b - a) / t }')
		[ "$ops" -gt 0 ] && per_op=$(awk -v c="$cpu" -v n="$ops" 'BEGIN { printf "%.2f", c * 1e6 / n }')
	fi
	echo "$rep,$conf,$job,$ops,$secs,$rate,$p50,$p99,$cpu,$per_op,$threads,$rss,$load1" >>"$CSV"
	log "  $conf $job: $(printf %.0f "$rate") ops/s, p50 ${p50} us, p99 ${p99} us, server CPU ${cpu}s (${per_op} us/op), $threads threads, load $load1"
}

# --- the run ---------------------------------------------------------------
IFS=, read -r -a CONF_LIST <<<"$CONFIGS"
IFS=, read -r -a JOB_LIST <<<"$JOBS"
NSTATJOBS=$(tr ',' '\n' <<<"$JOBS" | grep -c '^stat')
T_START=$(date +%s)
for rep in $(seq "$REPS"); do
	for conf in "${CONF_LIST[@]}"; do
		log "rep $rep/$REPS: $conf"
		start_config "$conf" "$rep" || continue
		STATJOB=0
		for job in "${JOB_LIST[@]}"; do
			run_job "$rep" "$conf" "$job"
		done
		stop_config
	done
done
log "measured in $(( $(date +%s) - T_START )) s"
echo "elapsed: $(( $(date +%s) - T_START )) s; loadavg at end: $(cat /proc/loadavg)" >>"$OUT/env.txt"
python3 "$ROOT/bench/slow-summarize.py" "$OUT" >"$OUT/summary.md" && log "summary: $OUT/summary.md"
cat "$OUT/summary.md"
log "results: $OUT"
exit
}
