#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time over the committed corpus
# (read only: new inputs go to a temporary directory, removed afterwards).
#   run-fuzz.sh TARGET CORPUS ARTIFACT_DIR [libFuzzer options...]
#   run-fuzz.sh --unavailable REASON      (skip: 77; 1 with FRING_E2E_NO_SKIP=1)
# FRING_FUZZ_SECONDS (default 60) bounds the run. Any crash, leak, UBSan
# report, timeout or failed check fails the test; the input that did it is
# kept in ARTIFACT_DIR and printed in base64.
set -u
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
if [ "$1" = --unavailable ]; then
	skip "fuzz targets not built: $2"
fi
target=$1 corpus=$2 artifacts=$3
shift 3
secs=${FRING_FUZZ_SECONDS:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/fring-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/new" "$work/crash"

echo "$(basename "$target"): ${secs}s over $corpus"
# -error_exitcode: libFuzzer's default (77) would read as a skip
timeout -k 30 $((secs + 600)) "$target" -max_total_time="$secs" \
	-timeout=30 -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
	-print_final_stats=1 -artifact_prefix="$work/crash/" "$@" \
	"$work/new" "$corpus"
rc=$?
found=$(ls "$work/crash")
if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
	mkdir -p "$artifacts"
	for f in "$work"/crash/*; do
		[ -f "$f" ] || continue
		cp "$f" "$artifacts/"
		echo "input kept as $artifacts/$(basename "$f"); base64:"
		base64 "$f"
	done
	echo "FAIL: $(basename "$target") exited $rc"
	exit 1
fi
echo "new inputs this run: $(ls "$work/new" | wc -l) (not kept)"
exit 0
