#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# uring-refused.sh MEMFS (in a matrix guest: a kernel before Linux 6.14)
#
# -o transport=uring must not mount: MEMFS exits non-zero and says the
# kernel has no FUSE-over-io_uring; the mountpoint stays an empty directory.
set -uo pipefail
MEMFS=${1:?usage: uring-refused.sh MEMFS}
mnt=$(mktemp -d /tmp/uring-refused.XXXXXX)
out=$(timeout 20 "$MEMFS" -f -o transport=uring "$mnt" 2>&1)
rc=$?
echo "$out" | sed 's/^/# memfs: /'
failed=0
if [[ $rc == 0 || $rc == 124 ]]; then
	echo "FAIL uring-refused.exit: expected a non-zero exit before the timeout, got $rc"
	failed=1
elif [[ $out != *"no FUSE-over-io_uring"* ]]; then
	echo "FAIL uring-refused.reason: expected the message to say \"no FUSE-over-io_uring\""
	failed=1
else
	echo "ok uring-refused (exit $rc)"
fi
if awk -v m="$mnt" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; then
	echo "FAIL uring-refused.mounted: $mnt is a mount point"
	umount -l "$mnt"
	failed=1
fi
rmdir "$mnt"
exit "$failed"
