#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# with-uring.sh TRANSPORT CMD [ARGS...]: runs CMD with the fuse module's
# enable_uring switch on when TRANSPORT is uring, and puts it back after.
# A skip (77) fails when FRING_E2E_NO_SKIP=1 (tests/lib/check.sh).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
transport=$1
shift
param=/sys/module/fuse/parameters/enable_uring
old=
if [[ $transport == uring ]]; then
	[[ -w $param ]] || skip "no $param: this kernel has no FUSE-over-io_uring"
	old=$(cat "$param")
	echo Y >"$param"
fi
"$@"
rc=$?
[[ -n $old ]] && echo "$old" >"$param"
exit_status "$rc"
