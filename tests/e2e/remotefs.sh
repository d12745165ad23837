#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# remotefs.sh REMOTEFS PARALLEL_READ TRANSPORT
#
# Mounts examples/remotefs (through run-suite.sh) over a generated source
# tree with a 100 ms latency on every READ and 8 workers per CPU, and checks:
#   - 16 small files per CPU read at once, cold, take well under the time READs
#     answered one after another on the queue threads would: the answers
#     came asynchronously from the worker threads (the stats have no
#     counter of asynchronous answers; this is what shows it);
#   - the listing (names, types, sizes) is the source's, and every file read
#     by 4 concurrent readers is the source's byte for byte (parallel_read,
#     threads: on a loaded machine process start-up would swamp the times);
#   - changes fail with EROFS;
#   - the stats name the transport and count READs, no handler bugs and
#     nothing left unanswered, a READ that took at least the latency; and
#     the daemon exits 0 on umount (run-suite.sh).
# As "remotefs.sh MNT --check SRC" it is the test run-suite.sh runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LATENCY_MS=100
# a queue per CPU (as the library picks): 16 small reads per queue, so that
# answered on the queue threads they would take 16 latencies, and half as
# many workers, so that answered asynchronously they take about 2
QUEUES=$(getconf _NPROCESSORS_ONLN)
SMALL=$((16 * QUEUES))
WORKERS=$((SMALL / 2))

check() { # MNT SRC PARALLEL_READ
	local mnt=$1 src=$2 pread=$3 passed=0 failed=0 ms serial out files=()
	ok() { echo "ok $1"; passed=$((passed + 1)); }
	fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

	# names and attributes first, so only READs are timed
	ls -l "$mnt/small" >/dev/null
	for i in $(seq "$SMALL"); do files+=("small/f$i"); done
	if out=$("$pread" 1 "$mnt" "$src" "${files[@]}"); then
		ms=${out##*$'\n'}
		ms=${ms% ms}
		# answered on the queue threads instead, they would take
		# SMALL / QUEUES latencies; 2/3 of it allows for a loaded machine
		serial=$((SMALL * LATENCY_MS / QUEUES))
		if ((ms < serial * 2 / 3)); then
			ok "remotefs.async_overlap ($ms ms for $SMALL reads of $LATENCY_MS ms)"
		else
			fail remotefs.async_overlap "expected $SMALL concurrent reads within $((serial * 2 / 3)) ms got $ms ms"
		fi
	else
		fail remotefs.async_overlap "expected the source's bytes: $out"
	fi

	if diff <(cd "$src" && find . -printf '%p %y %s\n' | sort) \
		<(cd "$mnt" && find . -printf '%p %y %s\n' | sort) >/dev/null; then
		ok "remotefs.listing ($(cd "$src" && find . | wc -l) entries)"
	else
		fail remotefs.listing "expected the source's names, types and sizes"
	fi

	# every file, 4 readers each, all at once
	mapfile -t files < <(cd "$src" && find . -type f | sort)
	if out=$("$pread" 4 "$mnt" "$src" "${files[@]}"); then
		ok "remotefs.content ($((4 * ${#files[@]})) concurrent readers, $out)"
	else
		fail remotefs.content "expected the source's bytes: $(echo "$out" | head -5)"
	fi

	for op in "echo x >>$mnt/sizes/s1" "touch $mnt/new" "mkdir $mnt/newdir" \
		"rm $mnt/sizes/s1" "mv $mnt/small/f1 $mnt/small/g1"; do
		if out=$(sh -c "$op" 2>&1); then
			fail "remotefs.erofs[$op]" "expected it to fail got success"
		elif [[ $out == *"Read-only file system"* ]]; then
			ok "remotefs.erofs[$op]"
		else
			fail "remotefs.erofs[$op]" "expected EROFS got: $out"
		fi
	done
	if [[ ! -e $mnt/missing ]]; then
		ok remotefs.enoent
	else
		fail remotefs.enoent "expected $mnt/missing not to exist"
	fi
	echo "$passed passed, $failed failed"
	[[ $failed == 0 ]]
}

if [[ ${2-} == --check ]]; then
	check "$1" "$3" "$4"
	exit
fi

usage="usage: remotefs.sh REMOTEFS PARALLEL_READ TRANSPORT"
RFS=${1:?$usage}
PREAD=${2:?$usage}
TRANSPORT=${3:?$usage}

SRC=$(mktemp -d /tmp/fring-rfs.XXXXXX)
trap 'rm -rf "$SRC"' EXIT
chmod 755 "$SRC"
mkdir -p "$SRC/small" "$SRC/sizes" "$SRC/many" "$SRC/d1/d2/d3"
for i in $(seq "$SMALL"); do
	head -c $((100 + i)) /dev/urandom >"$SRC/small/f$i"
done
# around page and request boundaries, and a few requests' worth
i=0
for size in 0 1 4095 4096 4097 65535 131072 131073 1000001; do
	i=$((i + 1))
	head -c "$size" /dev/urandom >"$SRC/sizes/s$i"
done
# enough long names for a listing of several READDIR answers
for i in $(seq 300); do
	: >"$SRC/many/entry-with-a-rather-long-name-to-fill-pages-$i"
done
head -c 50000 /dev/urandom >"$SRC/d1/d2/d3/deep"

# the async evidence needs at least the latency on a READ in the stats
export FRING_E2E_FS_ARGS=$SRC
export FRING_E2E_OPTS="latency_ms=$LATENCY_MS,workers=$WORKERS${FRING_E2E_OPTS:+,$FRING_E2E_OPTS}"
export FRING_E2E_STATS_EXPECT="by_opcode.READ>=$SMALL handler_bugs=0 in_flight=0 max_latency_ns>=$((LATENCY_MS * 1000000))"
rc=0
"$here/run-suite.sh" "$RFS" "$TRANSPORT" "$here/remotefs.sh" --check "$SRC" "$PREAD" || rc=$?
exit "$rc"
