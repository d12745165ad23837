#!/bin/bash
# Build libfuse 3.18's passthrough_hp in a scratch directory, outside the
# repository, only to be measured against libfring by bench/run.sh.
#
# The source comes from Debian's source package fuse3 in the sid suite,
# fetched with `apt-get source` under a PRIVATE apt state (own lists, own
# sources.list, no sources.list.d), so the machine's apt configuration is
# never changed. The archive URI is read at run time from the machine's own
# apt sources; apt verifies sid's InRelease with the Debian archive keyring
# and the fetched files against its hashes, and the .dsc's signature is
# checked with the Debian keyring (debian-keyring, installed if missing).
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
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
DEBIAN_KEYRING=/usr/share/keyrings/debian-keyring.gpg
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

# --- the archive URI, from the machine's own apt sources -----------------
find_uri() {
	local f uri=""
	# deb822 files: the first URIs: of a stanza whose Suites do not end in
	# -security (the security archive carries no sid).
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(awk '
			function flush() { if (uri != "" && suites !~ /-security/ && types ~ /deb/) { print uri; found=1; exit } uri=""; suites=""; types="" }
			/^[[:space:]]*$/ { flush(); next }
			/^[[:space:]]*#/ { next }
			tolower($1) == "uris:"   { uri=$2 }
			tolower($1) == "suites:" { $1=""; suites=$0 }
			tolower($1) == "types:"  { $1=""; types=$0 }
			END { if (!found) flush() }' "$f")
		# Only a Debian archive (one that has dists/sid) will do; we
		# cannot know without asking, so take URIs that carry "debian"
		# in their path and not the security archive.
		case "$uri" in
		*debian-security*) uri="" ;;
		*/debian|*/debian/) break ;;
		*) uri="" ;;
		esac
	done
	if [ -z "$uri" ]; then
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -r "$f" ] || continue
			uri=$(awk '$1 == "deb" {
				for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { print $i; exit } }' "$f" |
				grep -v -- '-security' | grep -E '/debian/?$' | head -n1 || true)
			[ -n "$uri" ] && break
		done
	fi
	[ -n "$uri" ] || die "no Debian archive URI found in /etc/apt/sources.list{,.d}"
	echo "${uri%/}"
}

URI=$(find_uri)
log "archive URI from the machine's apt sources: $URI"

mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/archives/partial" "$SRC"
echo "deb-src [signed-by=$KEYRING] $URI sid main" >"$CACHE/apt/sources.list"
APT_OPTS=(
	-o "Dir::State::Lists=$CACHE/apt/lists"
	-o "Dir::Etc::SourceList=$CACHE/apt/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::Cache=$CACHE/apt"
	-o "Dir::Cache::pkgcache="
	-o "Dir::Cache::srcpkgcache="
	-o "APT::Sandbox::User=root"
)
log "apt-get update (private state in $CACHE/apt)"
apt-get "${APT_OPTS[@]}" update -q >&2

# fetch PKG into $SRC/PKG and echo the unpacked directory
fetch_source() {
	local pkg=$1 dir=$SRC/$1
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && apt-get "${APT_OPTS[@]}" source -q --only-source "$pkg" >&2)
	verify_dsc "$dir"/*.dsc
	find "$dir" -mindepth 1 -maxdepth 1 -type d | head -n1
}

# apt has checked the archive's InRelease signature (debian-archive-keyring)
# and the hashes of what it fetched; on top of that, check the uploader's
# signature of the .dsc with the Debian keyring (package debian-keyring).
verify_dsc() {
	if [ ! -r "$DEBIAN_KEYRING" ]; then
		log "installing debian-keyring (to check the .dsc signature)"
		apt-get install -y -q debian-keyring >&2 || die "cannot install debian-keyring"
	fi
	gpgv --keyring "$DEBIAN_KEYRING" "$1" 2>&1 | sed 's/^/    /' >&2
	[ "${PIPESTATUS[0]}" = 0 ] || die "bad or unverifiable signature on $1"
	log "signature of $(basename "$1") checked with $DEBIAN_KEYRING"
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
