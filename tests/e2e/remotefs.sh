#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# remotefs.sh REMOTEFS PARALLEL_READ TRANSPORT
#
# Mounts examples/remotefs (through run-suite.sh) over a generated source
# tree with a 100 ms latency on every READ and 8 workers per CPU, and checks:
#   - 16 small files per CPU read at once, cold: more of their READs were
#     in the daemon at once than it has queue threads, so the answers came
#     asynchronously from the worker threads. Counted from the daemon's own
#     -d log (a line when a request arrives, one after its answer is sent),
#     not timed: a queue thread that answered its READ itself would log
#     the answer before it could take the next request, so the READs
#     between an arrival and its answer line can outnumber the queues only
#     when other threads answer (a loaded machine can only lower the
#     count, by spreading the reads out; they start together). The time
#     they took is printed, not judged;
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
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$here/../lib/check.sh"
LATENCY_MS=100
# a queue per CPU (as the library picks): 16 small reads per queue, so that
# answered on the queue threads they would take 16 latencies, and half as
# many workers, so that answered asynchronously they take about 2
QUEUES=$(getconf _NPROCESSORS_ONLN)
SMALL=$((16 * QUEUES))
WORKERS=$((SMALL / 2))

check_remotefs() { # MNT SRC PARALLEL_READ
	local mnt=$1 src=$2 pread=$3 ms out files=()

	# names and attributes first, so that the reads ask only READs
	ls -l "$mnt/small" >/dev/null
	for i in $(seq "$SMALL"); do files+=("small/f$i"); done
	local log=${FRING_E2E_LOG:?run-suite.sh sets FRING_E2E_LOG} from peak queues
	from=$(($(wc -l <"$log") + 1))
	if out=$("$pread" --together 1 "$mnt" "$src" "${files[@]}"); then
		ms=${out##*$'\n'}
		ms=${ms% ms}
		# the READs of the reads' lines (a READ's arrival and its answer
		# both logged: one still being logged is left out, which can
		# only lower the count): how many were in at once at most
		read -r peak queues < <(tail -n "+$from" "$log" | awk '
			$1 == "fring:" && $2 ~ /^q[0-9]+$/ && $3 == "unique" && $5 == "READ" {
				n++; ev[n] = $4; ans[n] = ($6 == "->"); q[$2] = 1
				if (ans[n]) answered[$4] = 1; else arrived[$4] = 1
			}
			END {
				for (i = 1; i <= n; i++) {
					u = ev[i]
					if (!(u in answered) || !(u in arrived)) continue
					cur += ans[i] ? -1 : 1
					if (cur > peak) peak = cur
				}
				for (k in q) nq++
				print peak + 0, nq + 0
			}')
		# (every queue the daemon has may take READs: the bound is its
		# queue count, QUEUES, or more if the log shows more)
		((queues > QUEUES)) || queues=$QUEUES
		if ((peak > queues)); then
			ok "remotefs.async_overlap ($peak READs in the daemon at once, $queues queues; $SMALL reads of $LATENCY_MS ms in $ms ms)"
		else
			fail remotefs.async_overlap "expected more than $queues READs in the daemon at once (its queues) got $peak ($SMALL reads of $LATENCY_MS ms in $ms ms)"
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
	check_done
}

if [[ ${2-} == --check ]]; then
	check_remotefs "$1" "$3" "$4"
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
# (debug: the -d lines async_overlap counts)
export FRING_E2E_OPTS="debug,latency_ms=$LATENCY_MS,workers=$WORKERS${FRING_E2E_OPTS:+,$FRING_E2E_OPTS}"
export FRING_E2E_STATS_EXPECT="by_opcode.READ>=$SMALL handler_bugs=0 in_flight=0 max_latency_ns>=$((LATENCY_MS * 1000000))"
rc=0
"$here/run-suite.sh" "$RFS" "$TRANSPORT" "$here/remotefs.sh" --check "$SRC" "$PREAD" || rc=$?
exit "$rc"
