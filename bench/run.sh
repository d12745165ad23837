#!/bin/bash
# libfring benchmark harness: fio jobs and a metadata rate on tmpfs, the
# libfring examples (passthrough over tmpfs, memfs) on the dev and uring
# transports, and libfuse 3.18's passthrough_hp (classic and io_uring), with
# interleaved repetitions and the server's CPU time per job.
#
# See doc/benchmarks.md for what is measured and how to read the results.
#
# Usage: bench/run.sh [options]
#   -r N             repetitions (default 3), interleaved: rep 1 of every
#                    configuration, then rep 2, ...
#   -j LIST          jobs, comma-separated (default all):
#                    seqread,seqwrite,randread,meta; also randwrite
#                    (not in the default set)
#   -c LIST          configurations, comma-separated (default all):
#                    tmpfs,fring-pt-dev,fring-pt-uring,fring-memfs-dev,
#                    fring-memfs-uring,fuse-hp-classic,fuse-hp-uring
#                    Not in the default set: fring-hpdrop-uring and
#                    fring-hpdrop-dev (the same passthrough_hp binary as
#                    fuse-hp-*, unchanged, on libfring's binary drop-in
#                    libfuse3.so.3 from BUILD/compat/fuse3/dropin, with
#                    -o io_uring or without: libfuse's API on libfring),
#                    fuse-hp-single (passthrough_hp
#                    --single, classic /dev/fuse with one thread), and
#                    fring-null-dev, fring-null-uring: bench/nullfs.c, a
#                    server that does no work (the transport's ceiling).
#                    A "-qdN" suffix on a uring configuration sets its ring
#                    depth (fring: -o queue_depth=N; libfuse:
#                    -o io_uring_q_depth=N), e.g. fring-pt-uring-qd16.
#                    A "-passthrough" suffix on a fring-pt configuration
#                    adds -o passthrough (FUSE passthrough: the kernel does
#                    the data I/O), e.g. fring-pt-uring-passthrough.
#                    A "-splice" suffix on a fring dev configuration adds
#                    -o splice_read,splice_write,splice_move, e.g.
#                    fring-memfs-dev-splice.
#                    A "-bgN" suffix (last) sets the connection's
#                    max_background to N and congestion_threshold to 3/4 of
#                    it: -o max_background=N on libfring, the fusectl files
#                    after the mount on libfuse (passthrough_hp has no
#                    option for it), e.g. fuse-hp-uring-bg256,
#                    fring-pt-uring-bg12.
#   -t SEC           run time of each fio job (default 8)
#   -s SIZE          file size per fio job (default 1g; 2 jobs)
#   -n FILES         files of the metadata job (default 20000, 2 processes;
#                    fewer if RLIMIT_NOFILE's hard limit is below 21000 and
#                    cannot be raised, since passthrough_hp needs an fd each;
#                    a FILES above that hard limit less 1000 is refused)
#   --stat-rounds N  rounds of the metadata job's stat phase, each after
#                    its own drop of the dentry cache, summed (default 5:
#                    one round of 20,000 lookups lasts about 0.15 s here)
#   -o DIR           output directory (default bench/results/DATE)
#   --qd-sweep LIST  queue-depth sweep: configurations fring-pt-uring-qdN
#                    for N in LIST (e.g. 1,4,8,16,32), jobs seqread,randread
#                    unless -c/-j say otherwise
#   --perf           profile instead of measuring: perf record -g of the
#                    server during each selected data job, 1 repetition
#                    (default -c fring-pt-uring -j seqread,randread)
#   --fring-opts O   extra -o options for the libfring daemons
#   -B DIR           a second libfring build (e.g. the code before a change):
#                    a "-b" suffix on a fring configuration runs its
#                    binaries, e.g. -c fring-pt-uring,fring-pt-uring-b
#                    interleaves the two builds in one run
#   --pt-own-defaults
#                    run the libfring passthrough with its own defaults
#                    (1 s cache timeouts, default_permissions) instead of
#                    passthrough_hp's (see PT_AS_HP below)
#   -h               this text
#
# Needs: root, fio, the libfring examples built in build-bench/ (meson setup
# build-bench -Dbuildtype=release; libfuse is built release too), else in
# build/ (FRING_BUILD=DIR chooses), and for the fuse-hp configurations
# libfuse built by bench/build-libfuse.sh
# (run automatically when missing). Everything it mounts or starts is
# unmounted and stopped at exit, and enable_uring is restored.
set -uo pipefail
# The whole script is one compound command, read before it runs, so that
# editing this file during a run cannot change the run.
{

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# libfuse is built -O3 (release): libfring is compared at the same level
# when build-bench exists (build/ is debugoptimized, -O2)
BUILDDIR=${FRING_BUILD:-$ROOT/build}
[[ -z ${FRING_BUILD:-} && -d $ROOT/build-bench ]] && BUILDDIR=$ROOT/build-bench
CACHE=${FRING_BENCH_CACHE:-/var/cache/fring-bench}
ALL_CONFIGS=tmpfs,fring-pt-dev,fring-pt-uring,fring-memfs-dev,fring-memfs-uring,fuse-hp-classic,fuse-hp-uring
ALL_JOBS=seqread,seqwrite,randread,meta

REPS=3
JOBS=""
CONFIGS=""
RUNTIME=8
SIZE=1g
NFILES=""
STAT_ROUNDS=5
OUT=""
QD_SWEEP=""
PERF=0
FRING_OPTS=""
BUILD_B=""
# What passthrough_hp does, given to the libfring passthrough so that both
# ask the kernel for the same work: names and attributes cached 86,400 s,
# and no default_permissions (without it passthrough_hp checks nothing and
# the kernel sends no GETATTR of the parent before each create and unlink).
PT_AS_HP=attr_timeout=86400,entry_timeout=86400,no_default_permissions

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
	case "$1" in
	-r) REPS=$2; shift ;;
	-j) JOBS=$2; shift ;;
	-c) CONFIGS=$2; shift ;;
	-t) RUNTIME=$2; shift ;;
	-s) SIZE=$2; shift ;;
	-n) NFILES=$2; shift ;;
	--stat-rounds) STAT_ROUNDS=$2; shift ;;
	-o) OUT=$2; shift ;;
	--qd-sweep) QD_SWEEP=$2; shift ;;
	--perf) PERF=1 ;;
	--fring-opts) FRING_OPTS=$2; shift ;;
	-B) BUILD_B=$2; shift ;;
	--pt-own-defaults) PT_AS_HP="" ;;
	-h|--help) usage 0 ;;
	*) echo "run.sh: unknown option $1" >&2; usage 2 ;;
	esac
	shift
done

if [ -n "$QD_SWEEP" ]; then
	if [ -z "$CONFIGS" ]; then
		CONFIGS=""
		for n in ${QD_SWEEP//,/ }; do CONFIGS+="${CONFIGS:+,}fring-pt-uring-qd$n"; done
	fi
	JOBS=${JOBS:-seqread,randread}
fi
if [ $PERF = 1 ]; then
	CONFIGS=${CONFIGS:-fring-pt-uring}
	JOBS=${JOBS:-seqread,randread}
	REPS=1
fi
CONFIGS=${CONFIGS:-$ALL_CONFIGS}
JOBS=${JOBS:-$ALL_JOBS}

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

[ "$(id -u)" = 0 ] || die "run as root (mounts, /sys/module/fuse/parameters/enable_uring)"
[[ "$STAT_ROUNDS" =~ ^[1-9][0-9]{0,2}$ ]] || die "--stat-rounds $STAT_ROUNDS: a number from 1 to 999"
# Passthrough servers keep a descriptor per inode (libfuse's passthrough_hp
# raises its soft limit to the hard one and needs more than N of them for
# N files). Without CAP_SYS_RESOURCE the hard limit cannot be raised: then
# the default file count shrinks to fit under it, with a warning.
ulimit -Hn 262144 2>/dev/null
ulimit -Sn 262144 2>/dev/null || ulimit -Sn "$(ulimit -Hn)"
HARD_NOFILE=$(ulimit -Hn)
if [ -z "$NFILES" ]; then
	NFILES=20000
	if [ "$HARD_NOFILE" != unlimited ] && [ "$HARD_NOFILE" -lt 21000 ]; then
		NFILES=$(( (HARD_NOFILE - 1000) / 1000 * 1000 ))
		log "warning: RLIMIT_NOFILE hard limit $HARD_NOFILE cannot be raised here;" \
			"metadata job uses $NFILES files instead of 20000"
	fi
elif [ "$HARD_NOFILE" != unlimited ] && [ "$NFILES" -gt $((HARD_NOFILE - 1000)) ]; then
	# passthrough_hp would answer EMFILE part-way through the creates
	die "-n $NFILES: RLIMIT_NOFILE's hard limit is $HARD_NOFILE and cannot be raised here; at most $((HARD_NOFILE - 1000)) files"
fi
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"

PT=$BUILDDIR/examples/passthrough/passthrough
MEMFS=$BUILDDIR/examples/memfs/memfs
NULLFS=$BUILDDIR/examples/nullfs
HP_BUILD=$CACHE/libfuse-build
HP=$HP_BUILD/example/passthrough_hp
ENABLE_URING=/sys/module/fuse/parameters/enable_uring

needs() { [[ ",$CONFIGS," == *",$1"* ]]; }
needs fring-pt && { [ -x "$PT" ] || die "$PT missing: ninja -C $BUILDDIR"; }
needs fring-memfs && { [ -x "$MEMFS" ] || die "$MEMFS missing: ninja -C $BUILDDIR"; }
needs fring-null && { [ -x "$NULLFS" ] || die "$NULLFS missing: ninja -C $BUILDDIR"; }
DROPIN=$BUILDDIR/compat/fuse3/dropin
needs fring-hpdrop && { [ -f "$DROPIN/libfuse3.so.4" ] || die "$DROPIN/libfuse3.so.4 missing: ninja -C $BUILDDIR"; }
if { needs fuse-hp || needs fring-hpdrop; } && [ ! -x "$HP" ]; then
	log "passthrough_hp not built: running bench/build-libfuse.sh"
	"$ROOT/bench/build-libfuse.sh" || die "building libfuse failed"
fi
if [[ ",$JOBS," == *",meta,"* ]]; then
	mkdir -p "$CACHE/bin"
	if [ ! -x "$CACHE/bin/metaops" ] || [ "$ROOT/bench/metaops.c" -nt "$CACHE/bin/metaops" ]; then
		cc -O2 -Wall -std=c11 -o "$CACHE/bin/metaops" "$ROOT/bench/metaops.c" || die "cannot build metaops"
	fi
fi
if [ $PERF = 1 ]; then
	command -v perf >/dev/null || die "perf is not installed (apt-get install linux-perf)"
fi

STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${OUT:-$ROOT/bench/results/$STAMP}
mkdir -p "$OUT/raw" "$OUT/logs"
[ $PERF = 1 ] && mkdir -p "$OUT/perf"
CSV=$OUT/results.csv
[ -s "$CSV" ] || echo "rep,config,job,value,unit,io_bytes,seconds,server_cpu_s,cpu_s_per_gib,cpu_us_per_op,clat_p50_us,clat_p99_us" >"$CSV"

WORK=$(mktemp -d /tmp/fring-bench.XXXXXX)
SRC=$WORK/src
MNT=$WORK/mnt
mkdir -p "$SRC" "$MNT"
DAEMON_PID=""
OLD_URING=""
CLK_TCK=$(getconf CLK_TCK)

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	cleanup_server "$MNT" "$SRC"
	uring_restore
	rm -rf "${WORK:?}/bin" "${WORK:?}/lib" "${WORK:?}/b" "${WORK:?}/dropin"
	rmdir "$MNT" "$SRC" "$WORK" 2>/dev/null
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[[ "$CONFIGS" == *uring* ]] && uring_on

# Snapshot the libfring binaries: the build directory may be rebuilt while
# the run goes on (other work in the same tree), and every repetition must
# run the same code. The examples find the copied library through
# LD_LIBRARY_PATH, which wins over their RUNPATH.
mkdir -p "$WORK/bin" "$WORK/lib"
FRING_SO=$(ldd "$PT" 2>/dev/null | awk '/libfring\.so/ { print $3; exit }')
[ -z "$FRING_SO" ] && [ -x "$MEMFS" ] && FRING_SO=$(ldd "$MEMFS" | awk '/libfring\.so/ { print $3; exit }')
if [ -n "$FRING_SO" ]; then
	cp -L "$FRING_SO" "$WORK/lib/$(basename "$FRING_SO")"
	[ -x "$PT" ] && cp "$PT" "$WORK/bin/passthrough" && PT=$WORK/bin/passthrough
	[ -x "$MEMFS" ] && cp "$MEMFS" "$WORK/bin/memfs" && MEMFS=$WORK/bin/memfs
	[ -x "$NULLFS" ] && cp "$NULLFS" "$WORK/bin/nullfs" && NULLFS=$WORK/bin/nullfs
fi
# the drop-in (libfuse3.so.3, and .so.4 a link to it), for fring-hpdrop-*
if needs fring-hpdrop; then
	mkdir -p "$WORK/dropin"
	cp -L "$DROPIN/libfuse3.so.3" "$WORK/dropin/" && ln -sf libfuse3.so.3 "$WORK/dropin/libfuse3.so.4"
fi
FRING_ENV=(env LD_LIBRARY_PATH="$WORK/lib")
# The second build (-B), snapshotted the same way under $WORK/b
FRING_ENV_B=()
if [ -n "$BUILD_B" ]; then
	mkdir -p "$WORK/b/bin" "$WORK/b/lib"
	for ex in passthrough/passthrough memfs/memfs nullfs; do
		[ -x "$BUILD_B/examples/$ex" ] && cp "$BUILD_B/examples/$ex" "$WORK/b/bin/"
	done
	# the build's own binary: its RUNPATH names build B's library
	SO_B=$(ldd "$BUILD_B/examples/passthrough/passthrough" 2>/dev/null | awk '/libfring\.so/ { print $3; exit }')
	[ -f "$SO_B" ] || die "-B $BUILD_B: no examples/passthrough/passthrough linked to libfring"
	cp -L "$SO_B" "$WORK/b/lib/$(basename "$SO_B")"
	FRING_ENV_B=(env LD_LIBRARY_PATH="$WORK/b/lib")
fi

# 8 GiB of tmpfs: the 2 fio files and the metadata files
mount -t tmpfs -o size=8g,mode=1777 fring-bench-src "$SRC" || die "cannot mount tmpfs on $SRC"

# --- environment -----------------------------------------------------------
{
	env_lines
	echo "libfring: $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
	[ -n "$FRING_SO" ] && echo "libfring binaries (copied at start): $(sha256sum "$WORK/lib/"* "$WORK/bin/"* 2>/dev/null | awk '{ printf "%s %.12s  ", $2, $1 }' | sed "s|$WORK/||g")"
	needs fring-hpdrop && echo "libfring's drop-in (fring-hpdrop-*): dropin/libfuse3.so.3 $(sha256sum "$WORK/dropin/libfuse3.so.3" | cut -c 1-12)"
	[ -n "$BUILD_B" ] && echo "build B (-B $BUILD_B, configurations *-b): $(sha256sum "$WORK/b/lib/"* "$WORK/b/bin/"* 2>/dev/null | awk '{ printf "%s %.12s  ", $2, $1 }' | sed "s|$WORK/||g")"
	echo "libfring build: $(sed -n 's/.*"buildtype", "value": "\([a-z]*\)".*/\1/p' "$BUILDDIR/meson-info/intro-buildoptions.json" 2>/dev/null)"
	[ -x "$HP" ] && echo "libfuse: $(cat "$HP_BUILD/VERSION" 2>/dev/null || echo '?') ($HP)"
	echo "enable_uring before: ${OLD_URING:-untouched}"
	echo "configs: $CONFIGS"
	echo "jobs: $JOBS"
	echo "reps: $REPS, runtime ${RUNTIME}s, size $SIZE x 2 jobs, metadata job $NFILES files over 2 procs, stat phase $STAT_ROUNDS rounds"
	[ -n "$FRING_OPTS" ] && echo "fring extra options: $FRING_OPTS"
	echo "libfring passthrough as passthrough_hp: ${PT_AS_HP:-no (--pt-own-defaults)}"
} >"$OUT/env.txt"
cat "$OUT/env.txt" >&2

# --- configurations --------------------------------------------------------
# start_config NAME REP: mounts the configuration, sets DIR and DAEMON_PID
start_config() {
	local name=$1 rep=$2 base qd="" splice="" opts cmd=() i pt="" b="" bg=""
	local PT=$PT MEMFS=$MEMFS NULLFS=$NULLFS
	base=$name
	if [[ "$base" =~ ^(.*)-bg([0-9]+)$ ]]; then
		base=${BASH_REMATCH[1]}
		bg=${BASH_REMATCH[2]}
	fi
	if [[ "$base" =~ ^(fring-.*)-b$ ]]; then
		[ -n "$BUILD_B" ] || { log "$name: no second build (-B)"; return 1; }
		base=${BASH_REMATCH[1]}
		b=1
		PT=$WORK/b/bin/passthrough MEMFS=$WORK/b/bin/memfs NULLFS=$WORK/b/bin/nullfs
	fi
	if [[ "$base" =~ ^(fring-pt-.*)-passthrough$ ]]; then
		base=${BASH_REMATCH[1]}
		pt=passthrough
	fi
	if [[ "$base" =~ ^(fring-.*-dev)-splice$ ]]; then
		base=${BASH_REMATCH[1]}
		splice=",splice_read,splice_write,splice_move"
	fi
	if [[ "$base" =~ ^(.*-uring)-qd([0-9]+)$ ]]; then
		base=${BASH_REMATCH[1]}
		qd=${BASH_REMATCH[2]}
	fi
	DAEMON_PID=""
	rm -rf "${SRC:?}"/* 2>/dev/null
	# on a shared machine another program may have put enable_uring back
	# since the start (only a mount reads it)
	[[ "$base" == *uring* && -n "$OLD_URING" ]] && echo Y >"$ENABLE_URING"
	case "$base" in
	tmpfs)
		DIR=$SRC
		return 0 ;;
	fring-pt-dev|fring-pt-uring|fring-memfs-dev|fring-memfs-uring|fring-null-dev|fring-null-uring)
		opts="transport=${base##*-}${qd:+,queue_depth=$qd}${pt:+,$pt}$splice${bg:+,max_background=$bg}${FRING_OPTS:+,$FRING_OPTS}"
		if [[ "$base" == fring-pt-* ]]; then
			opts+=${PT_AS_HP:+,$PT_AS_HP}
			cmd=("$PT" -f -o "$opts" --stats-file="$OUT/logs/$name.rep$rep.stats.json" "$SRC" "$MNT")
		elif [[ "$base" == fring-null-* ]]; then
			# no permission checks, as passthrough_hp (and PT_AS_HP)
			cmd=("$NULLFS" -f -o "$opts,no_default_permissions" --stats-file="$OUT/logs/$name.rep$rep.stats.json" "$MNT")
		else
			cmd=("$MEMFS" -f -o "$opts" --stats-file="$OUT/logs/$name.rep$rep.stats.json" "$MNT")
		fi ;;
	fuse-hp-classic)
		cmd=("$HP" --foreground --nopassthrough "$SRC" "$MNT") ;;
	fring-hpdrop-uring|fring-hpdrop-dev)
		# only this build's drop-in is snapshotted: a -b name would
		# run it under build B's label
		[ -z "$b" ] || { log "$name: the drop-in has no second build (-B)"; return 1; }
		# libfuse's binary on the drop-in: LD_LIBRARY_PATH wins over
		# its RUNPATH. -o io_uring asks libfring for transport=auto,
		# which is uring on this kernel (the log's mount line says)
		cmd=(env LD_LIBRARY_PATH="$WORK/dropin" "$HP" --foreground --nopassthrough)
		[[ "$base" == *-uring ]] && cmd+=(-o "io_uring${qd:+,io_uring_q_depth=$qd}")
		[ -n "$bg" ] && cmd+=(-o "max_background=$bg")
		cmd+=("$SRC" "$MNT") ;;
	fuse-hp-single)
		cmd=("$HP" --foreground --nopassthrough --single "$SRC" "$MNT") ;;
	fuse-hp-uring)
		cmd=("$HP" --foreground --nopassthrough -o "io_uring${qd:+,io_uring_q_depth=$qd}" "$SRC" "$MNT") ;;
	*)
		log "unknown configuration $name"
		return 1 ;;
	esac
	echo "${cmd[*]}" >>"$OUT/logs/commands.txt"
	if [ -n "$b" ]; then
		cmd=("${FRING_ENV_B[@]}" "${cmd[@]}")
	elif [[ "$base" == fring-* ]]; then
		cmd=("${FRING_ENV[@]}" "${cmd[@]}")
	fi
	start_server "$name" "$OUT/logs/$name.rep$rep.log" "${cmd[@]}" || {
		rm -rf "${SRC:?}"/* 2>/dev/null
		return 1
	}
	if [[ -n "$bg" && "$base" == fuse-* ]]; then
		set_background "$bg" || {
			stop_config
			return 1
		}
	fi
	DIR=$MNT
}

# set_background N: the mounted connection's max_background N and
# congestion_threshold 3/4 of it (rounded up, as libfring derives it), in
# fusectl, once INIT is done (a stat of the root waits for it). The
# directory comes from the tests' mount-lib.sh, sourced in a subshell: its
# uring_on would replace bench/lib.sh's.
set_background() {
	local d
	stat "$MNT" >/dev/null || return 1
	# shellcheck source=/dev/null  # (only its fusectl() is wanted)
	d=$(source "$ROOT/tests/e2e/mount-lib.sh" && fusectl) || return 1
	[[ -d $d ]] || return 1
	echo "$1" >"$d/max_background" && echo $(($1 - $1 / 4)) >"$d/congestion_threshold" || {
		log "cannot set max_background in $d"
		return 1
	}
	echo "$name: $d max_background $(cat "$d/max_background"), congestion_threshold $(cat "$d/congestion_threshold")" >>"$OUT/logs/commands.txt"
}

stop_config() {
	stop_server
	rm -rf "${SRC:?}"/* 2>/dev/null
}

# --- jobs ------------------------------------------------------------------
fio_args() { # JOB -> fio arguments (without --directory)
	case "$1" in
	prep) echo "--name=prep --rw=write --bs=1M --ioengine=sync" ;;
	seqread) echo "--name=seqread --rw=read --bs=1M --ioengine=sync --time_based --runtime=$RUNTIME" ;;
	seqwrite) echo "--name=seqwrite --rw=write --bs=1M --ioengine=sync --time_based --runtime=$RUNTIME" ;;
	randread) echo "--name=randread --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --time_based --runtime=$RUNTIME" ;;
	randwrite) echo "--name=randwrite --rw=randwrite --bs=4k --ioengine=io_uring --iodepth=32 --time_based --runtime=$RUNTIME" ;;
	esac
}

run_fio() { # JOB DIR OUTFILE
	local job=$1 dir=$2 out=$3
	# shellcheck disable=SC2046
	fio $(fio_args "$job") --directory="$dir" --filename_format='bench.$jobnum' \
		--size="$SIZE" --numjobs=2 --direct=1 --group_reporting \
		--output-format=json --output="$out" >/dev/null 2>>"$OUT/logs/fio.stderr"
}

# Server CPU per GiB (data jobs) and per operation: a metadata phase's
# files, or a data job's fio operations (io_bytes / block size). p50, p99:
# fio's completion latency percentiles in microseconds (data jobs), or
# the time of one call as metaops measures it (metadata phases).
record() { # rep config job value unit io_bytes seconds cpu_s [p50_us p99_us]
	local per_gib="" per_op="" bs
	if [ "$8" != "" ]; then
		if [ "$6" -gt 0 ] 2>/dev/null && [[ "$2" != tmpfs ]] && [[ "$3" != meta-* ]]; then
			per_gib=$(awk -v c="$8" -v b="$6" 'BEGIN { printf "%.4f", c / (b / 1073741824) }')
			bs=1048576
			[[ "$3" == rand* ]] && bs=4096
			per_op=$(awk -v c="$8" -v b="$6" -v s="$bs" 'BEGIN { printf "%.2f", c * 1e6 / (b / s) }')
		fi
		if [[ "$3" == meta-* ]]; then
			# operations: rate x seconds (the stat phase has rounds)
			per_op=$(awk -v c="$8" -v r="$4" -v s="$7" 'BEGIN { printf "%.2f", c * 1e6 / (r * s) }')
		fi
	fi
	echo "$1,$2,$3,$4,$5,$6,$7,$8,$per_gib,$per_op,${9:-},${10:-}" >>"$CSV"
}

# file rw -> "MiB/s IOPS io_bytes seconds p50_us p99_us" (completion latency)
fio_result() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
job = j["jobs"][0]
r = job[sys.argv[2]]
# wall time of the group: bytes / aggregate bandwidth (job_runtime is a sum)
secs = r["io_bytes"] / r["bw_bytes"] if r["bw_bytes"] else 0
pc = r.get("clat_ns", {}).get("percentile", {})
lat = [f"{pc[k] / 1000:.1f}" if k in pc else "" for k in ("50.000000", "99.000000")]
print(r["bw_bytes"] / 1048576.0, r["iops"], r["io_bytes"], round(secs, 3), *lat)
EOF
}

run_job() { # rep config job
	local rep=$1 conf=$2 job=$3 raw=$OUT/raw/rep$1-$2-$3.json c0 c1 u0 u1 cpu="" perfpid=""
	local bw iops bytes secs p50 p99
	if [ "$job" = meta ]; then
		local m=$OUT/raw/rep$rep-$conf-meta.jsonl
		"$CACHE/bin/metaops" -n "$NFILES" -p 2 --drop-dentries --stat-rounds "$STAT_ROUNDS" ${DAEMON_PID:+--pid "$DAEMON_PID"} "$DIR" >"$m" 2>>"$OUT/logs/metaops.stderr" ||
			{ log "metaops failed on $conf (see logs/metaops.stderr): not recorded"; return; }
		while read -r ph ops secs p50 p99 cpu; do
			record "$rep" "$conf" "meta-$ph" "$ops" ops/s 0 "$secs" "$cpu" "$p50" "$p99"
			log "  $conf meta-$ph: $ops ops/s, p50 $p50 us, p99 $p99 us${cpu:+, server CPU ${cpu}s}"
		done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    cpu = d["server_cpu_s"]
    print(d["phase"], d["ops_per_s"], d["seconds"], d["p50_us"], d["p99_us"], "" if cpu < 0 else cpu)
' "$m")
		return
	fi
	[ -n "$DAEMON_PID" ] && c0=$(cpu_of "$DAEMON_PID") && u0=$(utime_of "$DAEMON_PID")
	if [ $PERF = 1 ] && [ -n "$DAEMON_PID" ]; then
		perf record -g -p "$DAEMON_PID" -o "$OUT/perf/$conf-$job.data" -- sleep "$RUNTIME" \
			>>"$OUT/logs/perf.stderr" 2>&1 &
		perfpid=$!
	fi
	run_fio "$job" "$DIR" "$raw" || { log "fio $job failed on $conf"; return; }
	if [ -n "$perfpid" ]; then
		wait "$perfpid"
		perf report -i "$OUT/perf/$conf-$job.data" --stdio --no-children --sort dso,sym \
			--percent-limit 0.5 -g none >"$OUT/perf/$conf-$job.txt" 2>>"$OUT/logs/perf.stderr"
		perf report -i "$OUT/perf/$conf-$job.data" --stdio --children --sort sym \
			--percent-limit 5 -g caller,0.5,callee --max-stack 12 >"$OUT/perf/$conf-$job.callers.txt" 2>>"$OUT/logs/perf.stderr"
		log "  perf: $OUT/perf/$conf-$job.txt"
	fi
	[ -n "$DAEMON_PID" ] && c1=$(cpu_of "$DAEMON_PID") && u1=$(utime_of "$DAEMON_PID")
	if [ -n "$DAEMON_PID" ] && [ "$c0" -ge 0 ] && [ "$c1" -ge 0 ]; then
		cpu=$(awk -v a="$c0" -v b="$c1" -v t="$CLK_TCK" 'BEGIN { printf "%.2f", (b - a) / t }')
		# the server's user time alone (its own code, not the kernel's):
		# beside results.csv, whose columns stay as they are
		[ -s "$OUT/server_utime.csv" ] || echo "rep,config,job,server_cpu_s,server_utime_s" >"$OUT/server_utime.csv"
		echo "$rep,$conf,$job,$cpu,$(awk -v a="$u0" -v b="$u1" -v t="$CLK_TCK" 'BEGIN { printf "%.2f", (b - a) / t }')" >>"$OUT/server_utime.csv"
	fi
	local rw=read
	[[ "$job" == *write ]] && rw=write
	read -r bw iops bytes secs p50 p99 < <(fio_result "$raw" "$rw")
	if [[ "$job" == rand* ]]; then
		record "$rep" "$conf" "$job" "$(printf %.0f "$iops")" IOPS "$bytes" "$secs" "$cpu" "$p50" "$p99"
		log "  $conf $job: $(printf %.0f "$iops") IOPS, p50 ${p50:-?} us, p99 ${p99:-?} us${cpu:+, server CPU ${cpu}s}"
	else
		record "$rep" "$conf" "$job" "$(printf %.1f "$bw")" MiB/s "$bytes" "$secs" "$cpu" "$p50" "$p99"
		log "  $conf $job: $(printf %.0f "$bw") MiB/s, p50 ${p50:-?} us, p99 ${p99:-?} us${cpu:+, server CPU ${cpu}s}"
	fi
}

# --- the run ---------------------------------------------------------------
IFS=, read -r -a CONF_LIST <<<"$CONFIGS"
IFS=, read -r -a JOB_LIST <<<"$JOBS"
T_START=$(date +%s)
for rep in $(seq "$REPS"); do
	for conf in "${CONF_LIST[@]}"; do
		log "rep $rep/$REPS: $conf"
		start_config "$conf" "$rep" || continue
		if [[ ",$JOBS," =~ ,(seqread|seqwrite|randread|randwrite), ]]; then
			run_fio prep "$DIR" "$OUT/raw/rep$rep-$conf-prep.json" || log "prep failed on $conf"
		fi
		for job in "${JOB_LIST[@]}"; do
			run_job "$rep" "$conf" "$job"
		done
		stop_config
	done
done
log "measured in $(( $(date +%s) - T_START )) s"
echo "elapsed: $(( $(date +%s) - T_START )) s; loadavg at end: $(cat /proc/loadavg)" >>"$OUT/env.txt"

if [ $PERF = 0 ]; then
	python3 "$ROOT/bench/summarize.py" "$OUT" >"$OUT/summary.md" && log "summary: $OUT/summary.md"
	cat "$OUT/summary.md"
fi
log "results: $OUT"
exit
}
