# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# bench/vm.sh's job list for tests/vm/run-vm.sh (passed as FRING_VM_JOBS):
# one job per repetition, file system and transport, each a fresh mount
# that runs every fio job (bench/vm-guest.sh). Interleaved: repetition 1 of
# every (file system, transport), then repetition 2, ..., so that drift on
# the host hits every configuration alike; each repetition starts the
# transport list one further on (rep 2: uring ... dev), so that no transport
# always holds the same place in the order; the file systems rotate the same
# way (rep 2 of "passthrough,hp" starts with hp).
# File system hp (and hpbg, the same with max_background 256) is libfuse's passthrough_hp, one job per repetition under
# the pseudo-transport "libfuse-uring" (the libfring transports are not its);
# hpfring is the same program built on libfring-fuse3 (FRING_BENCH_HPFRING),
# on the libfring transports.
# Transport "-": vm-guest.sh checks
# the transport itself (through tests/e2e/run-suite.sh), and a refused mount is
# a result here (exit 77), not a failure.
#
# Set by run-vm.sh: BUILD, MEMFS. Set by bench/vm.sh: FRING_BENCH_REPS,
# FRING_BENCH_FS, FRING_BENCH_TRANSPORTS, FRING_BENCH_HP (passthrough_hp's
# path), FRING_BENCH_HPFRING (its build on libfring-fuse3), FRING_BENCH_STORE
# (the sources' file system) and the fio settings vm-guest.sh reads.

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench_env=(env FRING_BENCH_JOBS="$FRING_BENCH_JOBS" FRING_BENCH_MIB="$FRING_BENCH_MIB"
	FRING_BENCH_RAND_MIB="$FRING_BENCH_RAND_MIB" FRING_BENCH_SECS="$FRING_BENCH_SECS"
	FRING_BENCH_STORE="${FRING_BENCH_STORE:-tmpfs}")
read -r -a transports <<<"${FRING_BENCH_TRANSPORTS//,/ }"
read -r -a fss <<<"${FRING_BENCH_FS//,/ }"
nfs=${#fss[@]}
for rep in $(seq "$FRING_BENCH_REPS"); do
	for ((f = 0; f < nfs; f++)); do
		fs=${fss[(f + rep - 1) % nfs]}
		ts=("${transports[@]}")
		case $fs in
		memfs) daemon=$MEMFS ;;
		passthrough) daemon=$BUILD/examples/passthrough/passthrough ;;
		hp | hpbg) daemon=$FRING_BENCH_HP ts=(libfuse-uring) ;;
		hpfring) daemon=$FRING_BENCH_HPFRING ;;
		*) echo "vm-jobs: unknown file system $fs (memfs, passthrough, hp, hpbg, hpfring)" >&2; exit 1 ;;
		esac
		for ((i = 0; i < ${#ts[@]}; i++)); do
			t=${ts[(i + rep - 1) % ${#ts[@]}]}
			job "r$rep-$fs-${t//[^A-Za-z0-9_.+-]/_}" - "${bench_env[@]}" "$BENCH/vm-guest.sh" "$rep" "$fs" "$t" "$daemon"
		done
	done
done
