#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-passthrough.sh PASSTHROUGH TRANSPORT TEST [ARGS...]
#
# Runs TEST on examples/passthrough mirroring a fresh tmpfs source, through
# run-suite.sh; then checks the source tree: what the test left through the
# mount must be in the source, byte for byte (diff -r of a copy made through
# the mount before unmounting against the source afterwards).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
PT=${1:?usage: run-passthrough.sh PASSTHROUGH TRANSPORT TEST [ARGS...]}
TRANSPORT=$2
TEST=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
[[ $(id -u) == 0 ]] || exec "$here/run-suite.sh" "$PT" "$TRANSPORT" "$TEST" "$@"

TMP=$(mktemp -d /tmp/fring-pt.XXXXXX)
chmod 755 "$TMP"
SRC=$TMP/src
mkdir "$SRC"
# FRING_PT_SOURCE=disk: the source is a directory of the filesystem /tmp
# is on (a disk here), not a tmpfs
SRC_TMPFS=0
if [[ ${FRING_PT_SOURCE:-tmpfs} != disk ]]; then
	mount -t tmpfs -o mode=0755 fring-pt-src "$SRC"
	SRC_TMPFS=1
fi
cleanup() {
	if ((SRC_TMPFS)); then
		umount "$SRC" 2>/dev/null || umount -l "$SRC" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# The test runs as "pt-and-snapshot MNT": TEST, then a snapshot (tar) of the
# mount as clients see it, compared with the source after unmount.
cat >"$TMP/wrap.sh" <<WRAP
#!/usr/bin/env bash
mnt=\$1; shift
"$TEST" "\$mnt" "\$@"
rc=\$?
(cd "\$mnt" && find . -xdev \\( -type f -o -type d -o -type l \\) -exec stat -c '%n %F %s %a' {} + 2>/dev/null | sort) >"$TMP/through-mount.txt"
(cd "\$mnt" && find . -xdev -type f -print0 2>/dev/null | sort -z | xargs -0 -r cat 2>/dev/null | md5sum) >"$TMP/through-mount.md5"
exit \$rc
WRAP
chmod +x "$TMP/wrap.sh"

rc=0
FRING_E2E_FS_ARGS=$SRC "$here/run-suite.sh" "$PT" "$TRANSPORT" "$TMP/wrap.sh" "$@" || rc=$?

(cd "$SRC" && find . -xdev \( -type f -o -type d -o -type l \) -exec stat -c '%n %F %s %a' {} + 2>/dev/null | sort) >"$TMP/source.txt"
(cd "$SRC" && find . -xdev -type f -print0 | sort -z | xargs -0 -r cat | md5sum) >"$TMP/source.md5"
if diff -q "$TMP/through-mount.txt" "$TMP/source.txt" >/dev/null &&
	diff -q "$TMP/through-mount.md5" "$TMP/source.md5" >/dev/null; then
	ok "passthrough.source_tree_matches ($(wc -l <"$TMP/source.txt") entries)"
else
	fail passthrough.source_tree_matches "the source differs from what the mount showed"
	diff "$TMP/through-mount.txt" "$TMP/source.txt" | head -20
	[[ $rc == 0 ]] && rc=1
fi
exit "$rc"
