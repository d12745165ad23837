#!/usr/bin/env bash
# Line and region coverage of the library's sources reached by one fuzz
# target's corpus (see doc/reliability.md). Builds the target once more
# with clang's source-based coverage, runs every input once, reports src/.
#   scripts/fuzz-coverage.sh decode|init|opts [CORPUS_DIR...]
# Default corpus: tests/fuzz/corpus/TARGET.
set -euo pipefail
cd "$(dirname "$0")/.."
target=$1
shift
[ $# -gt 0 ] || set -- "tests/fuzz/corpus/$target"
work=$(mktemp -d "${TMPDIR:-/tmp}/fring-cov.XXXXXX")
trap 'rm -rf "$work"' EXIT
extra=()
[ "$target" = opts ] || extra=(tests/unit/fake_session.c -lcmocka)
clang -std=c11 -D_GNU_SOURCE -fno-strict-aliasing -O1 -g \
	-fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping \
	-Iinclude -Isrc -Itests/unit -o "$work/fuzz" \
	"tests/fuzz/fuzz_$target.c" src/*.c src/*/*.c "${extra[@]}" -luring -lpthread
LLVM_PROFILE_FILE="$work/fuzz.profraw" "$work/fuzz" -runs=0 "$@" \
	>"$work/run.log" 2>&1 || { tail "$work/run.log"; exit 1; }
llvm-profdata merge -sparse "$work/fuzz.profraw" -o "$work/fuzz.profdata"
if [ -n "${FRING_COV_SHOW:-}" ]; then
	# FRING_COV_SHOW=func1,func2: those functions line by line
	llvm-cov show "$work/fuzz" -instr-profile="$work/fuzz.profdata" \
		$(printf -- "-name=%s " ${FRING_COV_SHOW//,/ })
fi
llvm-cov report "$work/fuzz" -instr-profile="$work/fuzz.profdata" \
	--ignore-filename-regex='tests/' src/
