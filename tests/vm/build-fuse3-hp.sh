#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# build-fuse3-hp.sh BUILDDIR: libfuse's own example passthrough_hp, its
# source unmodified, built against BUILDDIR's libfring-fuse3 (pkg-config
# fring-fuse3) for the guests: the vm tier's compat-hp-* jobs and
# bench/vm.sh's file system hpfring. Prints the program's path on its last
# line; progress and the compiler's output go to stderr.
#
# The way compat/fuse3/tests/libfuse/run.sh builds the examples, one program
# only: libfuse's source from scripts/fetch-fuse3-source.sh (Debian's fuse3,
# checked, cached), BUILDDIR installed into a private directory (meson
# install --destdir: the .pc files name the prefix, which
# PKG_CONFIG_SYSROOT_DIR moves under it), build-examples.sh with
# FRING_EXAMPLES_ONLY=passthrough_hp. Everything lands in
# BUILDDIR/tests/vm/fuse3-hp/: inst/ (the libraries the program's rpath
# names; mkinitramfs.sh copies them into the image at the same paths, with
# libstdc++) and example/passthrough_hp. The program is built again when
# it is missing or older than its source or the layer's headers; the
# libraries are installed again on every call (a second or two).
#
# Exit 0 with the path; 2 when libfuse's source cannot be had (no network,
# no cache: the caller turns its jobs into skips naming the reason, the
# last line of stderr); 1 when something else failed (a broken build).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
[[ $# == 1 ]] || { echo "usage: $0 BUILDDIR" >&2; exit 1; }
BUILD=$(realpath "$1")
OUT=$BUILD/tests/vm/fuse3-hp
NAME=passthrough_hp
mkdir -p "$OUT"

src=$("$ROOT/scripts/fetch-fuse3-source.sh" 2>"$OUT/fetch.log" | tail -n 1) || true
if [[ -z $src || ! -f $src/example/$NAME.cc ]]; then
	cat "$OUT/fetch.log" >&2
	echo "libfuse's source could not be had: $(grep -m1 'error' "$OUT/fetch.log" || tail -n 1 "$OUT/fetch.log")" >&2
	exit 2
fi

# the library as a user installs it, in a private directory
rm -rf "$OUT/inst"
if ! meson install -C "$BUILD" --no-rebuild --destdir "$OUT/inst" --quiet >"$OUT/install.log" 2>&1; then
	cat "$OUT/install.log" >&2
	echo "meson install -C $BUILD --destdir $OUT/inst failed" >&2
	exit 1
fi
pc=$(find "$OUT/inst" -name fring-fuse3.pc -path '*/pkgconfig/*' | head -n 1)
[[ -n $pc ]] || { echo "meson install put no fring-fuse3.pc under $OUT/inst" >&2; exit 1; }

prog=$OUT/example/$NAME
newer=$(find "$src/example/$NAME.cc" "$ROOT/compat/fuse3/include" -newer "$prog" 2>/dev/null | head -n 1) || true
if [[ ! -x $prog || -n $newer ]]; then
	rm -f "$prog"
	rc=0
	FRING_EXAMPLES_ONLY=$NAME PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$OUT/inst \
		nice "$ROOT/compat/fuse3/tests/libfuse/build-examples.sh" "$src" "$OUT" fring-fuse3 >&2 || rc=$?
	if [[ $rc != 0 || ! -x $prog ]]; then
		tail -n 30 "$OUT/build.log" >&2
		echo "build-examples.sh could not build $NAME (exit $rc; $OUT/build.log)" >&2
		exit 1
	fi
fi
# on libfring-fuse3, not on a libfuse3 of the system
libs=$(ldd "$prog")
if ! grep -q "$OUT/inst/.*libfring-fuse3\.so" <<<"$libs" || grep -q 'libfuse3\.so' <<<"$libs"; then
	echo "$libs" >&2
	echo "$prog does not link $OUT/inst's libfring-fuse3 alone" >&2
	exit 1
fi
echo "$NAME: $src/example/$NAME.cc on $(dirname "$pc")/fring-fuse3.pc" >&2
echo "$prog"
