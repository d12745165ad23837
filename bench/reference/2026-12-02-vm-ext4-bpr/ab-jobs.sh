# shellcheck shell=bash
# One boot, two builds: $BUILD (the commit under test) and $BUILD/exp (the
# same source with every pool region 4 KiB past its 2 MiB boundary,
# exp-bufmem.diff), passthrough over ext4, bench/vm-guest.sh's seqread job,
# interleaved like bench/vm-jobs.sh. Run by ab.sh.
bench_env=(env FRING_BENCH_JOBS=seqread FRING_BENCH_MIB=64 FRING_BENCH_RAND_MIB=8
	FRING_BENCH_SECS=60 FRING_BENCH_STORE=ext4)
cfgs=("base bufpool-registered" "exp bufpool-registered" "base zerocopy")
for rep in $(seq "${AB_REPS:-4}"); do
	for ((i = 0; i < ${#cfgs[@]}; i++)); do
		read -r b t <<<"${cfgs[(i + rep - 1) % ${#cfgs[@]}]}"
		d=$BUILD/examples/passthrough/passthrough
		[[ $b == exp ]] && d=$BUILD/exp/examples/passthrough/passthrough
		job "r$rep-$b-$t" - "${bench_env[@]}" "$AB_BENCH/vm-guest.sh" "$rep" passthrough "$t" "$d"
	done
done
