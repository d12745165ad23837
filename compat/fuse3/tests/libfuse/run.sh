#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh TARGET TRANSPORT [BUILD]: libfuse's own test suite on libfuse's own
# low-level examples, built unmodified against the library under test.
#
#   TARGET     compat   libfring-fuse3: pkg-config fring-fuse3 of the meson
#                       build directory BUILD: its meson-uninstalled/ .pc,
#                       or, without one, BUILD installed into a private
#                       directory (meson install --destdir) and the .pc
#                       found there (PKG_CONFIG_SYSROOT_DIR); that install
#                       and its examples are kept in BUILD (compat/fuse3/
#                       tests/libfuse/examples) for the next run on it
#              libfuse  the real libfuse, the harness's own control:
#                       pkg-config fuse3 from $FRING_LIBFUSE_BUILD/meson-
#                       uninstalled (default /var/cache/fring-bench/
#                       libfuse-build, made by bench/build-libfuse.sh)
#              dropin   the binary drop-in: the examples built against that
#                       real libfuse (its headers, its libfuse3.so.4), run
#                       with BUILD/compat/fuse3/dropin first on
#                       LD_LIBRARY_PATH (by hand: CI has no libfuse build)
#   TRANSPORT  dev      the suite's default run (FUSE_URING_ENABLE=0)
#              uring    run-tests.py --io-uring (it exports
#                       FUSE_URING_ENABLE=1, libfuse's switch), with the fuse
#                       module's enable_uring on for the run and put back
#
# Steps: fetch libfuse's source (scripts/fetch-fuse3-source.sh: Debian's
# fuse3, sid, checked; cached), build its examples with build-examples.sh
# into a directory laid out like a libfuse build, run test/run-tests.py on
# the cases cases.txt selects, then judge each case against expected.txt.
# For TARGET compat two proofs more: every example links libfring-fuse3 and
# no libfuse3 (dropin: loads the drop-in's libfuse3), and every passing
# case's daemon log carries libfring's mount line naming TRANSPORT
# ("fring: mounted ...: ..., transport uring, ...") and no other transport
# (cases.txt waives it, with a reason, where the daemon's stderr is not
# kept, and expects dev where the example itself declines io_uring).
#
# A case that fails unexpectedly runs once more alone (its cases time their
# checks: see "second runs" below) and passes only if that run passes; its
# first failure is printed either way.
#
# Prints one line per case (PASS, SKIP, XFAIL: expected; FAIL, XPASS,
# NOPROOF, SKIP!: not), each failure again as "FAIL NAME (...): WHY" with
# the end of its logs, and ends with "N passed, N failed, N skipped".
# Exit 0 when every case ended as expected, 1 otherwise, 77 when it cannot
# run here (not root, no /dev/fuse, no library, no uring): 1 with
# FRING_E2E_NO_SKIP=1, under which an unexpected skip of a case fails too.
#
# Environment: FRING_LIBFUSE_CASES (space-separated globs narrowing the
# selection), FRING_LIBFUSE_JOBS (run-tests.py -j, default 1: the machine is
# shared), FRING_LIBFUSE_KEEP=1 (keep the work directory: the examples
# unless kept in BUILD, the suite's logs), FRING_FUSE3_SRC (the source
# cache, see the fetch script).
set -uo pipefail

here=$(dirname "$(realpath "$0")")
root=$(realpath "$here/../../../..")
target=${1:-}
transport=${2:-}
build=${3:-}
no_skip=${FRING_E2E_NO_SKIP:-0}

usage() {
	sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
# skip REASON: the whole run cannot happen here
skip() {
	echo "SKIP: $*"
	if [[ $no_skip == 1 ]]; then
		echo "FRING_E2E_NO_SKIP=1: a skip counts as a failure"
		exit 1
	fi
	exit 77
}
die() {
	echo "FAIL: $*"
	exit 1
}

case $target:$transport in
compat:dev | compat:uring | libfuse:dev | libfuse:uring | dropin:dev | dropin:uring) ;;
*) usage ;;
esac
[[ $(id -u) == 0 ]] || skip "needs root (mounts, mount.fuse3 -o drop_privileges, losetup)"
[[ -c /dev/fuse ]] || skip "no /dev/fuse"
command -v python3 >/dev/null || skip "no python3 (libfuse's run-tests.py)"

case $target in
compat)
	[[ -n $build ]] || usage
	build=$(realpath "$build")
	pkg=fring-fuse3
	pcdir=$build/meson-uninstalled
	if [[ ! -r $pcdir/$pkg-uninstalled.pc ]]; then
		pcdir= # installed below, once there is a work directory
		[[ -r $build/compat/fuse3/$pkg.pc ]] ||
			skip "no $pkg.pc in $build: libfring-fuse3 is not built there"
	fi
	libroot=$build
	;;
libfuse | dropin)
	lfbuild=${FRING_LIBFUSE_BUILD:-/var/cache/fring-bench/libfuse-build}
	pcdir=$lfbuild/meson-uninstalled
	pkg=fuse3
	[[ -r $pcdir/$pkg-uninstalled.pc ]] ||
		skip "no libfuse build in $lfbuild (bench/build-libfuse.sh makes one)"
	if [[ $target == dropin ]]; then
		[[ -n $build ]] || usage
		build=$(realpath "$build")
		dropdir=$build/compat/fuse3/dropin
		[[ -e $dropdir/libfuse3.so.3 ]] || skip "no $dropdir/libfuse3.so.3: the drop-in is not built"
	fi
	;;
esac

# --- the source ------------------------------------------------------------
fuse_src=$("$root/scripts/fetch-fuse3-source.sh" 2>/tmp/fring-fetch.$$.log | tail -n1)
if [[ ! -x $fuse_src/test/run-tests.py ]]; then
	cat /tmp/fring-fetch.$$.log
	rm -f /tmp/fring-fetch.$$.log
	skip "libfuse's source (with test/run-tests.py) could not be fetched"
fi
rm -f /tmp/fring-fetch.$$.log
echo "libfuse source: $fuse_src"

# One run at a time on this machine: two would fight over the fuse module's
# enable_uring (one putting back what the other still needs) and over two
# CPUs; a second run waits here.
exec {lock}>/run/lock/fring-fuse3-libfuse-suite.lock
flock "$lock"
work=$(mktemp -d /tmp/fring-fuse3-suite.XXXXXX)
bdir=$work/build
param=/sys/module/fuse/parameters/enable_uring
old_param=
failed_any=0
cleanup() {
	[[ -n $old_param ]] && echo "$old_param" >"$param"
	if [[ ${FRING_LIBFUSE_KEEP:-0} == 1 || $failed_any == 1 ]]; then
		echo "work directory kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

# --- the package -------------------------------------------------------------
sysroot=
keep=
if [[ -z $pcdir ]]; then
	# no uninstalled .pc: the build installed into a private directory, as
	# a user installs into a prefix; its .pc names the prefix, which
	# PKG_CONFIG_SYSROOT_DIR moves under that directory. That directory
	# and the examples built on it stay in the build directory: the next
	# run on the same install (CI's uring test after its dev test) uses
	# the examples again instead of compiling them again (80 s of CPU).
	t0=$SECONDS
	keep=$build/compat/fuse3/tests/libfuse/examples
	sysroot=$keep/inst
	bdir=$keep/build
	rm -rf "$sysroot"
	nice meson install -C "$build" --destdir "$sysroot" --quiet >"$work/install.log" 2>&1 || {
		cat "$work/install.log"
		die "meson install -C $build --destdir $sysroot failed"
	}
	pc=$(find "$sysroot" -name "$pkg.pc" -path '*/pkgconfig/*' | head -n1)
	[[ -n $pc ]] || die "meson install put no $pkg.pc under $sysroot"
	pcdir=$(dirname "$pc")
	libroot=$sysroot
	echo "installed $build into $sysroot ($((SECONDS - t0)) s): $pc"
	# A program linked with -lfring-fuse3 -lfring needs libfring.so only
	# through libfring-fuse3.so (the linker's --as-needed drops -lfring),
	# and its rpath does not reach a library's own dependencies: in a
	# private prefix, as for any user of one, the loader is told where.
	LD_LIBRARY_PATH=$(dirname "$pcdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
	echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
fi

# --- the examples -----------------------------------------------------------
# Kept examples are used again only when everything they were built from is
# the same: libfuse's source, build-examples.sh, the compilers and every
# file of the install (headers, .pc, the libraries themselves).
key=
if [[ -n $keep ]]; then
	key=$({
		echo "$fuse_src"
		"${CC:-cc}" --version
		"${CXX:-c++}" --version
		cat "$here/build-examples.sh"
		find "$sysroot" -type f -print0 | sort -z | xargs -0 sha256sum
	} 2>&1 | sha256sum)
fi
t0=$SECONDS
if [[ -n $key && -r $keep/key && $(cat "$keep/key") == "$key" && -r $bdir/examples.txt ]]; then
	echo "examples of the last run on this install used again ($bdir):"
else
	rm -rf "$bdir"
	[[ -n $keep ]] && rm -f "$keep/key"
	PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} \
		PKG_CONFIG_SYSROOT_DIR=$sysroot \
		nice "$here/build-examples.sh" "$fuse_src" "$bdir" "$pkg"
	[[ -n $key ]] && echo "$key" >"$keep/key"
	echo "examples built in $((SECONDS - t0)) s against pkg-config $pkg ($pcdir):"
fi
sed 's/^/  /' "$bdir/examples.txt"

# from here on (the suite, its printcap, every daemon) the drop-in is
# loaded instead of the libfuse the examples were linked against
[[ $target == dropin ]] && export LD_LIBRARY_PATH=$dropdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

if [[ $transport == uring ]]; then
	[[ -w $param ]] || skip "no $param: this kernel has no FUSE-over-io_uring"
	old_param=$(cat "$param")
	echo Y >"$param"
fi

# --- the selection -------------------------------------------------------------
declare -a run_pats=() quiet_pats=() quiet_why=() out_pats=() decline_pats=()
while read -r verb pat why; do
	case $verb in
	run) run_pats+=("$pat") ;;
	quiet)
		quiet_pats+=("$pat")
		quiet_why+=("$why")
		;;
	declines-uring) decline_pats+=("$pat") ;;
	out) out_pats+=("$pat") ;;
	"" | \#*) ;;
	*) die "cases.txt: unknown line '$verb $pat $why'" ;;
	esac
done <"$here/cases.txt"

# (suite.py: run-tests.py with its io-uring preflight made possible on 3.18.3)
runner=(python3 "$here/suite.py" "$fuse_src/test/run-tests.py" --build-dir "$bdir")
mapfile -t all_cases < <("${runner[@]}" -l)
[[ ${#all_cases[@]} -gt 0 ]] || die "run-tests.py -l listed no case"
matches() { # NAME PATTERN...: NAME matches one of the globs
	local n=$1 p
	shift
	for p in "$@"; do
		# shellcheck disable=SC2053
		[[ $n == $p ]] && return 0
	done
	return 1
}
selected=()
unclassified=()
for c in "${all_cases[@]}"; do
	if matches "$c" "${run_pats[@]}"; then
		if [[ -z ${FRING_LIBFUSE_CASES:-} ]] ||
			matches "$c" ${FRING_LIBFUSE_CASES}; then
			selected+=("$c")
		fi
	elif ! matches "$c" "${out_pats[@]}"; then
		unclassified+=("$c")
	fi
done
[[ ${#selected[@]} -gt 0 ]] || die "no case selected (FRING_LIBFUSE_CASES=${FRING_LIBFUSE_CASES:-})"

# --- the suite ------------------------------------------------------------------
args=(--run-dir "$work/run" --keep-logs -j "${FRING_LIBFUSE_JOBS:-1}")
args_uring=()
[[ $transport == uring ]] && args_uring=(--io-uring)
args+=("${args_uring[@]}")
for c in "${selected[@]}"; do args+=(-t "$c"); done
echo "running ${#selected[@]} cases of libfuse's suite on $target, $transport:"
echo "  ${runner[*]} ${args[*]}"
t0=$SECONDS
nice "${runner[@]}" "${args[@]}" 2>&1 | tee "$work/suite.log" | sed -u 's/^/  | /'
suite_rc=${PIPESTATUS[0]}
suite_time=$((SECONDS - t0))
if grep -q '^SKIP: ' "$work/suite.log" && [[ $suite_rc == 77 ]]; then
	failed_any=1
	skip "libfuse's suite skipped the whole run: $(grep -m1 '^SKIP: ' "$work/suite.log")"
fi

# --- the verdicts ------------------------------------------------------------------
declare -a exp_case=() exp_target=() exp_tr=() exp_what=() exp_why=()
while read -r c t tr what why; do
	[[ -z $c || $c == \#* ]] && continue
	[[ $what == SKIP || $what == FAIL || $what == FAIL:?* ]] ||
		die "expected.txt: bad EXPECT '$what' for $c"
	[[ -n $why ]] || die "expected.txt: $c has no reason"
	exp_case+=("$c")
	exp_target+=("$t")
	exp_tr+=("$tr")
	exp_what+=("$what")
	exp_why+=("$why")
done <"$here/expected.txt"
# expectation NAME: prints "SKIP|FAIL reason" when one applies
expectation() {
	local i
	for i in "${!exp_case[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == ${exp_case[i]} ]] || continue
		[[ ${exp_target[i]} == "*" || ,${exp_target[i]}, == *",$target,"* ]] || continue
		[[ ${exp_tr[i]} == "*" || ${exp_tr[i]} == "$transport" ]] || continue
		echo "${exp_what[i]} ${exp_why[i]}"
		return 0
	done
	return 1
}
quiet_reason() {
	local i
	for i in "${!quiet_pats[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == ${quiet_pats[i]} ]] && {
			echo "${quiet_why[i]}"
			return 0
		}
	done
	return 1
}

# --- second runs -----------------------------------------------------------------
# libfuse's cases time their checks against the examples' own threads: the
# notify cases look again 2 s after a daemon thread that changes the file
# every second, expect an entry still cached 2 s into a 5 s timeout, and
# every case has run-tests.py's 60 s. On a machine busy with other work (CI
# shares it with builds, fuzzing and guests; the daemons run niced) such a
# check can miss while the library did nothing wrong. A case that failed,
# and whose failure expected.txt does not expect, runs once more alone; it
# passes only if that second run passes, and its first failure is printed
# here, not hidden. Twice failed is a failure.
# log_tails CASEDIR PREFIX: the end of a case's script and daemon logs
log_tails() {
	local f
	for f in "$1"/logs/{script,fs-*}.out; do
		[[ -f $f ]] || continue
		echo "$2--- $(basename "$f") (last 15 lines) ---"
		tail -n 15 "$f" | sed "s/^/$2/"
	done
}
declare -A first_fail=()
rerun=()
for c in "${selected[@]}"; do
	st=
	[[ -r $work/run/$c/status ]] && read -r st _ <"$work/run/$c/status"
	[[ $st == PASS || $st == SKIP ]] && continue
	exp=$(expectation "$c") || exp=""
	[[ $exp == FAIL* ]] && continue
	rerun+=("$c")
done
if [[ ${#rerun[@]} -gt 0 ]]; then
	echo "a second run, alone, of the ${#rerun[@]} case(s) that failed: ${rerun[*]}"
	for c in "${rerun[@]}"; do
		reason="no result"
		[[ -r $work/run/$c/status ]] && read -r _ _ reason <"$work/run/$c/status"
		echo "  first run of $c: $reason"
		log_tails "$work/run/$c" "  | "
		first_fail[$c]=$reason
		mv "$work/run/$c" "$work/run/$c.first" 2>/dev/null
		nice "${runner[@]}" --run-dir "$work/run" --keep-logs -j 1 \
			"${args_uring[@]}" -t "$c" 2>&1 | sed -u 's/^/  | /'
	done
fi

passed=0 failed=0 skipped=0
table=()
bad=()
# verdict NAME STATUS SECONDS DETAIL: judges one result against expected.txt
verdict() {
	local name=$1 status=$2 secs=$3 detail=$4 exp what why shown need
	exp=$(expectation "$name") || exp=""
	what=${exp%% *}
	why=${exp#* }
	case $status:$what in
	PASS:)
		shown=PASS
		passed=$((passed + 1))
		;;
	PASS:*)
		shown=XPASS
		detail="passed, but expected.txt expects $what ($why): remove the line"
		failed=$((failed + 1))
		;;
	SKIP:SKIP)
		shown=SKIP
		detail="$detail [expected: $why]"
		skipped=$((skipped + 1))
		;;
	SKIP:*)
		if [[ $no_skip == 1 ]]; then
			shown=SKIP!
			detail="$detail [unexpected skip; FRING_E2E_NO_SKIP=1]"
			failed=$((failed + 1))
		else
			shown=SKIP
			detail="$detail [not in expected.txt]"
			skipped=$((skipped + 1))
		fi
		;;
	FAIL:FAIL | FAIL:FAIL:*)
		# FAIL:TEXT: only a failure whose reason says TEXT (_ for a
		# space) is the expected one
		need=${what#FAIL}
		need=${need#:}
		need=${need//_/ }
		if [[ -n $need && $detail != *"$need"* ]]; then
			shown=FAIL
			detail="$detail [expected.txt expects a failure with '$need' ($why), not this one]"
			failed=$((failed + 1))
		else
			shown=XFAIL
			detail="${detail%%; logs: *} [expected: $why]"
			skipped=$((skipped + 1))
		fi
		;;
	*)
		shown=$status
		failed=$((failed + 1))
		;;
	esac
	table+=("$(printf '%-44s %-7s %6s  %s' "$name" "$shown" "$secs" "$detail")")
	case $shown in
	PASS | SKIP | XFAIL) ;;
	*) bad+=("$name $shown $detail") ;;
	esac
}

# the builds: a low-level example that did not build is a failure
while read -r name kind st detail; do
	[[ $st == build-failed ]] && verdict "build:$name" FAIL - "$kind example did not build: $detail"
done <"$bdir/examples.txt"

# the linkage (compat): the examples run on libfring-fuse3, not on a libfuse
if [[ $target == compat ]]; then
	for exe in "$bdir"/example/*; do
		name=$(basename "$exe")
		grep -q "^$name [a-z-]* built" "$bdir/examples.txt" || continue
		deps=$(ldd "$exe" 2>&1)
		if grep -q 'libfuse3\.so' <<<"$deps"; then
			verdict "link:$name" FAIL - "links a libfuse: $(grep 'libfuse3' <<<"$deps" | xargs)"
		elif ! grep -q "libfring-fuse3\.so.* => $libroot/" <<<"$deps"; then
			verdict "link:$name" FAIL - "no libfring-fuse3 from $libroot: $(xargs <<<"$deps")"
		fi
	done
elif [[ $target == dropin ]]; then
	for exe in "$bdir"/example/*; do
		name=$(basename "$exe")
		grep -q "^$name [a-z-]* built" "$bdir/examples.txt" || continue
		deps=$(ldd "$exe" 2>&1 | grep 'libfuse3\.so')
		[[ $deps == *" => $dropdir/libfuse3.so"* ]] ||
			verdict "link:$name" FAIL - "does not load the drop-in: $(xargs <<<"$deps")"
	done
fi

for c in "${unclassified[@]}"; do
	verdict "$c" FAIL - "not in cases.txt: decide whether it concerns the low-level API (run) or not (out)"
done

for c in "${selected[@]}"; do
	wd=$work/run/$c
	if [[ ! -r $wd/status ]]; then
		verdict "$c" FAIL - "no result (the suite did not run it: see the suite's output above)"
		continue
	fi
	read -r st secs reason <"$wd/status"
	secs=$(printf '%.1f' "$secs")
	[[ -n ${first_fail[$c]:-} && $st == PASS ]] &&
		again=" (passed on a second run; the first failed: ${first_fail[$c]})" || again=
	[[ -n ${first_fail[$c]:-} && $st != PASS ]] &&
		reason="$reason (failed twice; the first: ${first_fail[$c]}, logs: $work/run/$c.first/logs)"
	[[ $st == FAIL ]] && reason="$reason; logs: $wd/logs"
	if [[ $st == PASS && $target != libfuse ]]; then
		# the proof that libfring served it, on the transport asked for
		# (dev for a daemon that declines io_uring: libfuse's semantics)
		want=$transport
		[[ $transport == uring ]] && matches "$c" "${decline_pats[@]}" && want=dev
		lines=$(cat "$wd"/logs/fs-*.out "$wd"/logs/script.out 2>/dev/null | grep -a 'fring: mounted .*, transport ' || true)
		other=$(grep -v ", transport ${want}[ ,]" <<<"$lines" | grep . || true)
		if [[ -n $other ]]; then
			st=NOPROOF
			reason="a mount on another transport than $want: $(head -n1 <<<"$other")"
		elif [[ -n $lines ]]; then
			reason="$(grep -c . <<<"$lines") mount line(s): transport $want"
			[[ $want != "$transport" ]] && reason="$reason (the example declines io_uring)"
		elif q=$(quiet_reason "$c"); then
			reason="(no mount line to read: $q)"
		else
			st=NOPROOF
			reason="no libfring mount line in the daemon's log; logs: $wd/logs"
		fi
	fi
	verdict "$c" "$st" "$secs" "$reason${again:-}"
done

echo
echo "libfuse's suite, $target, $transport ($suite_time s; run-tests.py exit $suite_rc):"
printf '%s\n' "${table[@]}"
echo
[[ $failed == 0 ]] || failed_any=1
# each failure once more, as "FAIL NAME: ..." lines a CI summary collects
# (scripts/test-summary.py), with the end of the case's own logs: a CI log
# is often all there is of a failure that does not come back on a rerun
for b in "${bad[@]}"; do
	read -r name shown detail <<<"$b"
	echo "FAIL $name ($shown): $detail"
	log_tails "$work/run/$name" "#   "
done
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed == 0 ]]
