#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# uring-refused.sh MEMFS (in a matrix guest: a kernel before Linux 6.14)
#
# -o transport=uring must not mount: MEMFS exits non-zero and says the
# kernel has no FUSE-over-io_uring; the mountpoint stays an empty directory.
set -uo pipefail
# tests/lib beside tests/vm in the tree; in the guest /tests/lib, beside
# this script (/tests)
lib=$(dirname "${BASH_SOURCE[0]}")/../lib
[[ -r $lib/check.sh ]] || lib=$(dirname "${BASH_SOURCE[0]}")/lib
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$lib/check.sh"
MEMFS=${1:?usage: uring-refused.sh MEMFS}
mnt=$(mktemp -d /tmp/uring-refused.XXXXXX)
out=$(timeout 20 "$MEMFS" -f -o transport=uring "$mnt" 2>&1)
rc=$?
echo "$out" | sed 's/^/# memfs: /'
if [[ $rc == 0 || $rc == 124 ]]; then
	fail uring-refused.exit "expected a non-zero exit before the timeout, got $rc"
elif [[ $out != *"no FUSE-over-io_uring"* ]]; then
	fail uring-refused.reason "expected the message to say \"no FUSE-over-io_uring\""
else
	ok "uring-refused (exit $rc)"
fi
if awk -v m="$mnt" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; then
	fail uring-refused.mounted "$mnt is a mount point"
	umount -l "$mnt"
fi
rmdir "$mnt"
check_done
