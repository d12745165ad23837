#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# abi-check.sh [--update] [BUILDDIR]
#
# The ABI of libfring.so as its users see it (the exported fring_* symbols
# and the types of include/fring/fring.h), dumped with abidw (Debian
# abigail-tools) and compared with abidiff against the dump of the newest
# release committed as abi/libfring-VERSION.abi. Fails on a change that
# breaks programs built against that release (a symbol removed, a function's
# parameters or a public struct's layout changed); added functions are
# reported and allowed. With no committed dump it says so and passes.
#   --update   writes abi/libfring-VERSION.abi for the version in
#              include/fring/fring.h (at release time; commit it)
#   BUILDDIR   a configured build directory (default: build); the library
#              is built there first, with its debug info (abidw needs it)
# Exit: 0 compatible (or nothing to compare with), 1 incompatible or an
# error, 77 when abidw/abidiff are missing (1 with FRING_E2E_NO_SKIP=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# (the skip policy: tests/lib/check.sh)
# shellcheck source-path=SCRIPTDIR source=../tests/lib/check.sh
source "$root/tests/lib/check.sh"
update=0
if [[ ${1-} == --update ]]; then
	update=1
	shift
fi
build=${1:-$root/build}

if ! command -v abidw >/dev/null || ! command -v abidiff >/dev/null; then
	skip "abidw/abidiff not found (apt install abigail-tools)"
fi
version=$(sed -n 's/^#define FRING_VERSION "\(.*\)"$/\1/p' \
	"$root/include/fring/fring.h")
[[ -n $version ]] || { echo "abi-check: no FRING_VERSION in fring.h"; exit 1; }
# FRING_ABI_NO_BUILD=1 (meson test): the library is built already, and
# ninja must not run in the build directory meson test holds
[[ ${FRING_ABI_NO_BUILD:-0} == 1 ]] ||
	ninja -C "$build" "src/libfring.so.$version" >/dev/null
lib=$build/src/libfring.so
[[ -e $lib ]] || { echo "abi-check: no $lib (build it first)"; exit 1; }
# without DWARF abidw sees symbols only, and every type would look changed
if ! readelf -S "$lib" | grep -q '\.debug_info'; then
	echo "abi-check: $lib has no debug info (build with -g, e.g." \
		"the default buildtype debugoptimized)"
	exit 1
fi

tmp=$(mktemp -d /tmp/fring-abi.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# --headers-dir and --drop-private-types: only what fring.h shows counts
# (the library's internal structs may change freely); --short-locs and
# --no-comp-dir-path keep the build machine's paths out of the dump
abidw --headers-dir "$root/include/fring" --drop-private-types \
	--short-locs --no-comp-dir-path --no-corpus-path \
	--out-file "$tmp/current.abi" "$lib"

if [[ $update == 1 ]]; then
	mkdir -p "$root/abi"
	cp "$tmp/current.abi" "$root/abi/libfring-$version.abi"
	echo "abi-check: wrote abi/libfring-$version.abi (commit it)"
	exit 0
fi

ref=$(find "$root/abi" -maxdepth 1 -name 'libfring-*.abi' 2>/dev/null |
	sort -V | tail -n 1)
if [[ -z $ref ]]; then
	echo "abi-check: no reference dump in abi/ (none released yet):" \
		"nothing to compare with; scripts/abi-check.sh --update writes one"
	exit 0
fi
echo "abi-check: libfring $version against $(basename "$ref")"
set +e
# (both dumps are filtered already; abidiff 2.2 asserts when asked to
# drop private types of an XML dump); abi/reserved.supp: a reserved[]
# element turned into a named field is no change
abidiff --suppressions "$root/abi/reserved.supp" "$ref" "$tmp/current.abi" \
	>"$tmp/diff.txt"
rc=$?
set -e
cat "$tmp/diff.txt"
# abidiff's status is a bit mask: 1 error, 2 usage, 4 an ABI change, 8 an
# incompatible one. A change (4) with no function or variable removed or
# changed is an addition, which old programs do not notice.
if ((rc & 3)); then
	echo "FAIL abi-check: abidiff could not compare (status $rc)"
	exit 1
fi
if ((rc & 8)); then
	echo "FAIL abi-check: incompatible ABI change against $(basename "$ref")"
	exit 1
fi
if ((rc & 4)) && grep -Eq '^Functions changes summary: [1-9]|^Functions changes summary: 0 Removed, [1-9]|Variables changes summary: [1-9]|Variables changes summary: 0 Removed, [1-9]' "$tmp/diff.txt"; then
	echo "FAIL abi-check: functions or variables changed against $(basename "$ref")"
	exit 1
fi
echo "ok abi-check: compatible with $(basename "$ref")"
