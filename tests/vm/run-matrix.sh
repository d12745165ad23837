#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-matrix.sh BUILDDIR [SERIES...]
#
# The kernel matrix: run-vm.sh once per older kernel series (6.1 and 6.12 by
# default: Debian 12's and 13's cloud kernels, FUSE ABI 7.38 and 7.41, no
# FUSE-over-io_uring), all at once, one guest each, with jobs-old.sh. Prints
# each run's lines prefixed with its series and one closing
# "N passed, N failed". The 7.3 kernel has its own test (vm-7.3).
# Exit status: 0 all passed; 1 a failure; 77 every series skipped.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$HERE/../lib/check.sh"
[[ $# -ge 1 ]] || { echo "usage: $0 BUILDDIR [SERIES...]" >&2; exit 1; }
BUILD=$(realpath "$1")
shift
series=("$@")
((${#series[@]})) || series=(6.1 6.12)

declare -A pid=()
for s in "${series[@]}"; do
	mkdir -p "$BUILD/tests/vm/$s"
	FRING_VM_SERIES=$s FRING_VM_GUESTS=1 FRING_VM_TIMEOUT=${FRING_VM_TIMEOUT:-600} \
		"$HERE/run-vm.sh" "$BUILD" \
		>"$BUILD/tests/vm/$s/run-vm.out" 2>&1 &
	pid[$s]=$!
done
skipped_series=0
for s in "${series[@]}"; do
	rc=0
	wait "${pid[$s]}" || rc=$?
	sed "s/^/[$s] /" "$BUILD/tests/vm/$s/run-vm.out"
	read -r p f k < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}$/\1 \2 \4/p' \
		"$BUILD/tests/vm/$s/run-vm.out" | tail -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	skipped=$((skipped + ${k:-0}))
	if [[ $rc == 77 ]]; then
		skipped_series=$((skipped_series + 1))
	elif [[ $rc != 0 ]]; then
		# a run that failed without counting it still fails the matrix
		((${f:-0} > 0)) || failed=$((failed + 1))
		echo "FAIL matrix.$s: run-vm.sh exited $rc"
	fi
done
check_summary
((failed)) && exit 1
((skipped_series == ${#series[@]})) && exit_status 77
exit 0
