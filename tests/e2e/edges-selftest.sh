# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# The edge tier's own harness: a memfs mount comes up on the asked-for
# transport, and the case's end leaves nothing mounted.
CASES=(harness)
case_harness() {
	start_memfs "$D/m" || { fail "" "memfs did not mount: $(cat "$DLOG")"; return; }
	check mounted "no FUSE mount at $D/m" is_fuse_mount "$D/m"
	check transport "mount line: $(grep mounted "$DLOG")" ran_on_transport "$DLOG"
	echo hi >"$D/m/f"
	check readback "read back differs" [ "$(cat "$D/m/f")" = hi ]
}
