# shellcheck shell=bash
# One boot, two builds: $BUILD (new) and $BUILD/exp (old, 71b9238),
# passthrough over the guest's tmpfs, bench/vm-guest.sh's four jobs,
# interleaved (the order rotates each repetition). Run by ab.sh.
guest_tool "$BUILD/exp/examples/passthrough/passthrough"
bench_env=(env FRING_BENCH_JOBS=seqread,seqwrite,randread,randwrite FRING_BENCH_MIB=64
	FRING_BENCH_RAND_MIB=128 FRING_BENCH_SECS=60)
cfgs=("new bufpool-registered" "old bufpool-registered" "new zerocopy" "old zerocopy")
for rep in $(seq "${AB_REPS:-4}"); do
	for ((i = 0; i < ${#cfgs[@]}; i++)); do
		read -r b t <<<"${cfgs[(i + rep - 1) % ${#cfgs[@]}]}"
		d=$BUILD/examples/passthrough/passthrough
		[[ $b == old ]] && d=$BUILD/exp/examples/passthrough/passthrough
		job "r$rep-$b-$t" - "${bench_env[@]}" "$AB_BENCH/vm-guest.sh" "$rep" passthrough "$t" "$d"
	done
done
