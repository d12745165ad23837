#!/usr/bin/env bash
# Regenerates tests/fuzz/corpus/ (see doc/reliability.md): the unit tests
# run with FK_RECORD_DIR and write every message they dispatch as a
# fuzz_decode input and every INIT as a fuzz_init input; option strings are
# written here. libFuzzer's -merge=1 then keeps the smallest set of those
# (and of any extra directories given, e.g. a long run's corpus) that covers
# what all of them cover. Files named regress-* (inputs that found a bug)
# are always kept.
#   scripts/fuzz-corpus.sh [CLANG_BUILDDIR [EXTRA_DIR...]]
# EXTRA_DIR/decode, EXTRA_DIR/init, EXTRA_DIR/opts are merged when present.
set -euo pipefail
cd "$(dirname "$0")/.."
bdir=${1:-build-clang}
shift || true
ninja -C "$bdir" >/dev/null
rec=$(mktemp -d "${TMPDIR:-/tmp}/fring-corpus.XXXXXX")
trap 'rm -rf "$rec"' EXIT
mkdir -p "$rec/decode" "$rec/init" "$rec/opts"

for t in test_decode test_decode_checks test_ring test_reply test_lifecycle \
	test_dirent test_init test_stats; do
	FK_RECORD_DIR=$rec "$bdir/tests/unit/$t" >/dev/null 2>&1
done

# fuzz_opts: byte 0 picks parse (0), set key NUL value (1), set key=value (2)
i=0
opt() { printf "$1" >"$rec/opts/$i"; i=$((i + 1)); }
opt '\0transport=uring,queues=4,max_write=131072,max_read=65536'
opt '\0transport=zerocopy,zero_copy_opt_in,pool_bufs=16,queue_depth=32'
opt '\0allow_other,default_permissions,ro,dev,suid,debug,fsname=memfs,subtype=memfs'
opt '\0no_default_permissions,rw,threads=2,max_async=64,max_readahead=0x20000'
opt '\0transport=bufpool-registered,max_write=16777216,queues=4096'
opt '\0transport=auto,,max_write=4095,unknown=1'
opt '\1transport\0dev'
opt '\1max_write\0004096 '
opt '\1fsname'
opt '\2queue_depth=1024'
opt '\2subtype=a b'
opt '\2max_read=-1'

# fuzz_decode inputs of several records (tests/fuzz/fuzz_input.h): answers
# held back and interrupted, every ring framing, the zero-copy flag
python3 - "$rec/decode" <<'PY'
import struct, sys
out = sys.argv[1]
DEV, RING, POOL, ZC = range(4)
NATURAL, ERRNO, WRONG, TWICE, NONE, ASYNC, HELPER = range(7)
READ, WRITE, GETATTR, LOOKUP, INTERRUPT, READDIRPLUS, GETLK = 15, 16, 3, 1, 36, 44, 31
uniq = [0]

def ih(op, n, nodeid=1, unique=None):
    if unique is None:
        uniq[0] += 2
        unique = uniq[0]
    return struct.pack('<IIQQIIIHH', n, op, unique, nodeid, 1000, 1000, 42, 0, 0)

def read_in(size):
    return struct.pack('<QQIIQII', 7, 0, size, 0, 0, 0, 0)

def dev(op, arg=b'', unique=None):
    return ih(op, 40 + len(arg), unique=unique) + arg

def ring(op, arg0=b'', payload=b'', flags=0, offset=0):
    hdr = ih(op, 40 + len(arg0) + len(payload)).ljust(128, b'\0')
    op_in = arg0.ljust(128, b'\0')
    ent = struct.pack('<QQIIQ', flags, 1, len(payload), offset, 0)
    return hdr + op_in + ent + payload

def rec(msg, answer=NATURAL, param=0, value=0, flags=0):
    return bytes([flags, answer, param]) + struct.pack('<IH', value, len(msg)) + msg

def seed(name, framing, *recs, bits=0, size=0):
    with open(f'{out}/multi-{name}', 'wb') as f:
        f.write(bytes([framing, bits, 46, size]) + b''.join(recs))

for fr, mk in ((DEV, lambda op, a, p=b'': dev(op, a + p)),
               (RING, lambda op, a, p=b'': ring(op, a, p))):
    uniq[0] = 0
    seed(f'interrupt-{fr}', fr,
         rec(mk(READ, read_in(4096)), ASYNC, 1, 100),
         rec(mk(INTERRUPT, struct.pack('<Q', 2))),
         rec(mk(GETATTR, bytes(16)), NATURAL, 3, 0x10))
    seed(f'async-{fr}', fr,
         *[rec(mk(READ, read_in(512)), ASYNC, i << 4, i * 77) for i in range(10)])
    seed(f'answers-{fr}', fr,
         rec(mk(LOOKUP, b'', b'name\0'), TWICE, 5, 9),
         rec(mk(READDIRPLUS, read_in(4096)), NATURAL, 0, 0x12345),
         rec(mk(GETLK, bytes(48)), NATURAL, 0x14, 5),
         rec(mk(READ, read_in(300)), HELPER, 0, 200),
         rec(mk(WRITE, struct.pack('<QQIIQII', 7, 0, 5, 0, 0, 0, 0), b'hello'), NONE))
uniq[0] = 0
seed('pool', POOL,
     rec(ring(WRITE, struct.pack('<QQIIQII', 7, 0, 5, 0, 0, 0, 0), b'hello', 0, 8192)),
     rec(ring(READ, read_in(8192), b'', 0, 3 * 8192), NATURAL, 0x80, 8192),
     rec(ring(LOOKUP, b'', b'x\0', 0, 4 * 8192), flags=1))
seed('zerocopy', ZC,
     rec(ring(READ, read_in(8192), b'', 1), NATURAL, 0x80, 8192),
     rec(ring(READ, read_in(4096), b'', 1), NATURAL, 0x10, 4000),
     rec(ring(WRITE, struct.pack('<QQIIQII', 7, 0, 4096, 0, 0, 0, 0), bytes(4096), 1), NATURAL, 0x80, 4096))
PY

for target in decode init opts; do
	out=tests/fuzz/corpus/$target
	extra=()
	for d in "$@"; do
		[ -d "$d/$target" ] && extra+=("$d/$target")
	done
	rm -rf "$out.new"
	mkdir -p "$out.new"
	# inputs that once failed stay, whatever they cover
	cp "$out"/regress-* "$out.new/" 2>/dev/null || true
	"$bdir/tests/fuzz/fuzz_$target" -merge=1 "$out.new" "$rec/$target" \
		"${extra[@]}" 2>&1 | grep -E "^MERGE-OUTER: [0-9]+ new files" || true
	rm -rf "$out"
	mv "$out.new" "$out"
	echo "$target: $(ls "$out" | wc -l) inputs, $(cat "$out"/* | wc -c) bytes" \
		"(from $(ls "$rec/$target" | wc -l) recorded)"
done
