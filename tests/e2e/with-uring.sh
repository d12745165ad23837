#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# with-uring.sh TRANSPORT CMD [ARGS...]: runs CMD with the fuse module's
# enable_uring switch on when TRANSPORT is uring, and puts it back after.
# A skip (77) fails when FRING_E2E_NO_SKIP=1.
set -uo pipefail
transport=$1
shift
param=/sys/module/fuse/parameters/enable_uring
old=
if [[ $transport == uring ]]; then
	if [[ ! -w $param ]]; then
		echo "SKIP: no $param: this kernel has no FUSE-over-io_uring"
		[[ ${FRING_E2E_NO_SKIP:-0} == 1 ]] && exit 1
		exit 77
	fi
	old=$(cat "$param")
	echo Y >"$param"
fi
"$@"
rc=$?
[[ -n $old ]] && echo "$old" >"$param"
if [[ $rc == 77 && ${FRING_E2E_NO_SKIP:-0} == 1 ]]; then
	echo "FRING_E2E_NO_SKIP=1: a skip counts as a failure"
	exit 1
fi
exit "$rc"
