#!/bin/bash
# Build libfuse 3.18's passthrough_hp in a scratch directory, outside the
# repository, only to be measured against libfring by bench/run.sh.
#
# The source comes from Debian's source package fuse3 in the sid suite,
# fetched by scripts/fetch-fuse3-source.sh with `apt-get source` under a
# PRIVATE apt state (own lists, own sources.list, no sources.list.d), so
# the machine's apt configuration is never changed. The archive URI is read
# at run time from the machine's own apt sources; apt verifies sid's
# InRelease with the Debian archive keyring and the fetched files against
# its hashes, and the .dsc's signature is checked with the Debian keyring
# (debian-keyring, installed if missing).
#
# If libfuse's io_uring support needs a newer liburing than the machine has,
# liburing's source is fetched from sid the same way and built into the
# scratch prefix.
#
# Usage: bench/build-libfuse.sh [--force]
# Environment: FRING_BENCH_CACHE (default /var/cache/fring-bench)
# Result: $FRING_BENCH_CACHE/libfuse-build/example/passthrough_hp and
#         $FRING_BENCH_CACHE/libfuse-build/lib/libfuse3.so*; prints
#         "PASSTHROUGH_HP=... LD_LIBRARY_PATH=..." on its last line.
set -euo pipefail

CACHE=${FRING_BENCH_CACHE:-/var/cache/fring-bench}
FORCE=0
[ "${1:-}" = "--force" ] && FORCE=1
PREFIX=$CACHE/prefix          # private liburing, if one is needed
BUILD=$CACHE/libfuse-build
SRC=$CACHE/src

log() { printf 'build-libfuse: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [ $FORCE = 0 ] && [ -x "$BUILD/example/passthrough_hp" ]; then
	log "already built: $BUILD/example/passthrough_hp (--force rebuilds)"
	echo "PASSTHROUGH_HP=$BUILD/example/passthrough_hp LD_LIBRARY_PATH=$BUILD/lib:$PREFIX/lib"
	exit 0
fi

# --- the sources: scripts/fetch-fuse3-source.sh --------------------------
# It fetches Debian's source packages as described above into $SRC (a fresh
# copy each time we build: --refresh) and prints the unpacked directory.
FETCH=$(dirname "$0")/../scripts/fetch-fuse3-source.sh
fetch_source() {
	FRING_FUSE3_SRC=$SRC FRING_FUSE3_APT=$CACHE/apt "$FETCH" --refresh "$1" | tail -n1
}

FUSE_SRC=$(fetch_source fuse3)
log "fuse3 source: $FUSE_SRC"
FUSE_VER=$(sed -n "s/^project('libfuse3', \['c'\], version: '\([^']*\)'.*/\1/p" "$FUSE_SRC/meson.build")
[ -n "$FUSE_VER" ] || FUSE_VER=$(grep -m1 -o "version: '[0-9.]*'" "$FUSE_SRC/meson.build" | tr -dc '0-9.')
log "libfuse version: $FUSE_VER"
case "$FUSE_VER" in
3.18*) ;;
*) log "warning: sid has libfuse $FUSE_VER, not 3.18.x; building it anyway" ;;
esac

# --- liburing: what does libfuse want? ------------------------------------
NEED=$(grep -o "dependency('liburing'[^)]*)" "$FUSE_SRC/meson.build" | grep -o "'>= *[0-9.]*'" | tr -dc '0-9.' || true)
HAVE=$(pkg-config --modversion liburing 2>/dev/null || echo 0)
log "liburing: libfuse wants ${NEED:-any}, the machine has $HAVE"
PKGCONF_PATH=""
if [ -n "$NEED" ] && ! dpkg --compare-versions "$HAVE" ge "$NEED"; then
	if [ $FORCE = 1 ] || ! PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --atleast-version="$NEED" liburing 2>/dev/null; then
		URING_SRC=$(fetch_source liburing)
		log "building liburing from $URING_SRC into $PREFIX"
		(cd "$URING_SRC" && ./configure --prefix="$PREFIX" --libdir="$PREFIX/lib" >&2 &&
			make -j"$(nproc)" -C src >&2 && make install >&2)
	fi
	PKGCONF_PATH=$PREFIX/lib/pkgconfig
fi

# --- libfuse with meson ---------------------------------------------------
# libfuse's io_uring support also needs libnuma's headers.
if ! pkg-config --exists numa 2>/dev/null && [ ! -e /usr/include/numa.h ]; then
	log "installing libnuma-dev (headers for libfuse's io_uring)"
	apt-get install -y -q libnuma-dev >&2
fi
rm -rf "$BUILD"
URING_OPT=()
grep -q "'enable-io-uring'" "$FUSE_SRC/meson_options.txt" && URING_OPT=(-Denable-io-uring=true)
log "meson setup $BUILD ${URING_OPT[*]}"
PKG_CONFIG_PATH=$PKGCONF_PATH meson setup "$BUILD" "$FUSE_SRC" --buildtype=release \
	-Dexamples=true -Dutils=false -Dtests=false "${URING_OPT[@]}" \
	${PKGCONF_PATH:+-Dc_link_args=-Wl,-rpath,$PREFIX/lib -Dcpp_link_args=-Wl,-rpath,$PREFIX/lib} >&2
ninja -C "$BUILD" >&2
[ -x "$BUILD/example/passthrough_hp" ] || die "passthrough_hp was not built"
grep -q "#define HAVE_URING" "$BUILD/fuse_config.h" 2>/dev/null &&
	log "io_uring support: compiled in" || log "warning: io_uring support not found in config.h"
echo "$FUSE_VER" >"$BUILD/VERSION"
log "done: $BUILD/example/passthrough_hp"
echo "PASSTHROUGH_HP=$BUILD/example/passthrough_hp LD_LIBRARY_PATH=$BUILD/lib:$PREFIX/lib"
