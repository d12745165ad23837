#!/bin/bash
# SPDX-License-Identifier: MIT
# Fetch Debian's source package fuse3 (suite sid) at run time, check it,
# unpack it into a cache directory and print where it is. Nothing of
# libfuse is kept in the repository: its code is LGPL/GPL, so the tests that
# build its examples and run its test suite (compat/fuse3/tests/libfuse) and
# bench/build-libfuse.sh fetch it here when they run.
#
# The fetch uses a PRIVATE apt state (own lists, own sources.list, no
# sources.list.d), so the machine's apt configuration is never changed. The
# archive URI is read at run time from the machine's own apt sources (no
# host name is written here); apt verifies sid's InRelease with the Debian
# archive keyring and the fetched files against its hashes, and the .dsc's
# signature is checked with the Debian keyring (debian-keyring, installed if
# missing).
#
# A package fetched before is reused without the network when its .dsc's
# signature still verifies and the files it lists still match its SHA-256
# sums; --refresh fetches anew.
#
# Usage: scripts/fetch-fuse3-source.sh [--refresh] [PACKAGE]
#   PACKAGE  a source package of sid, fuse3 by default (build-libfuse.sh
#            also fetches liburing this way)
# Environment:
#   FRING_FUSE3_SRC  the cache directory (default /var/cache/fring-bench/src);
#                    PACKAGE unpacks into $FRING_FUSE3_SRC/PACKAGE/
#   FRING_FUSE3_APT  the private apt state (default: "apt" beside the cache
#                    directory, /var/cache/fring-bench/apt)
# Result: the unpacked source directory, on stdout's last line; progress on
# stderr. Exit 1 when the package cannot be fetched or does not verify.
set -euo pipefail

SRC=${FRING_FUSE3_SRC:-/var/cache/fring-bench/src}
SRC=${SRC%/}
APT=${FRING_FUSE3_APT:-$(dirname "$SRC")/apt}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
DEBIAN_KEYRING=/usr/share/keyrings/debian-keyring.gpg
REFRESH=0
PKG=fuse3

log() { printf 'fetch-fuse3-source: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--refresh) REFRESH=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
		exit 0
		;;
	-*) die "unknown option $1" ;;
	*) PKG=$1 ;;
	esac
	shift
done
case $PKG in
*/* | .* | "") die "not a package name: '$PKG'" ;;
esac
DIR=$SRC/$PKG

# One fetch of a package at a time: the vm tier and the compat suite run
# side by side in CI and may both find the cache empty; the second waits
# here and then finds the first one's copy. (A user who cannot write the
# cache can only read a copy that is there: no lock then.)
if mkdir -p "$SRC" 2>/dev/null && exec {lock_fd}>>"$SRC/.$PKG.lock"; then
	flock "$lock_fd"
fi 2>/dev/null

# --- checks ---------------------------------------------------------------
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

# The files a signed .dsc lists, against its Checksums-Sha256: what makes a
# cached copy as trustworthy as a fresh one (the signature covers the sums).
verify_files() {
	local dsc=$1 sum name bad=0 n=0
	while read -r sum _ name; do
		[ -n "$name" ] || continue
		n=$((n + 1))
		if ! printf '%s  %s\n' "$sum" "$(dirname "$dsc")/$name" |
			sha256sum -c --status 2>/dev/null; then
			log "$name does not match the SHA-256 in $(basename "$dsc")"
			bad=1
		fi
	done < <(awk '/^Checksums-Sha256:/ { on = 1; next }
		on && /^ / { print $1, $2, $3; next } { on = 0 }' "$dsc")
	[ "$n" -gt 0 ] || {
		log "$(basename "$dsc") lists no files"
		return 1
	}
	return $bad
}

# The directory dpkg-source unpacked: the only one in $DIR.
unpacked_dir() {
	local d
	d=$(find "$DIR" -mindepth 1 -maxdepth 1 -type d)
	[ -n "$d" ] && [ "$(printf '%s\n' "$d" | wc -l)" = 1 ] || return 1
	printf '%s\n' "$d"
}

# --- a cached copy --------------------------------------------------------
if [ $REFRESH = 0 ] && [ -d "$DIR" ]; then
	shopt -s nullglob
	dscs=("$DIR"/*.dsc)
	shopt -u nullglob
	if [ ${#dscs[@]} = 1 ] && unpacked=$(unpacked_dir) &&
		verify_files "${dscs[0]}"; then
		verify_dsc "${dscs[0]}"
		log "cached: $unpacked (--refresh fetches anew)"
		echo "$unpacked"
		exit 0
	fi
	log "the copy in $DIR is incomplete or does not verify: fetching anew"
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
		*/debian | */debian/) break ;;
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

mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$SRC"
echo "deb-src [signed-by=$KEYRING] $URI sid main" >"$APT/sources.list"
APT_OPTS=(
	-o "Dir::State::Lists=$APT/lists"
	-o "Dir::Etc::SourceList=$APT/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::Cache=$APT"
	-o "Dir::Cache::pkgcache="
	-o "Dir::Cache::srcpkgcache="
	-o "APT::Sandbox::User=root"
)
log "apt-get update (private state in $APT)"
apt-get "${APT_OPTS[@]}" update -q >&2

rm -rf "$DIR"
mkdir -p "$DIR"
(cd "$DIR" && apt-get "${APT_OPTS[@]}" source -q --only-source "$PKG" >&2) ||
	die "apt-get source $PKG failed"
shopt -s nullglob
dscs=("$DIR"/*.dsc)
shopt -u nullglob
[ ${#dscs[@]} = 1 ] || die "expected one .dsc in $DIR, found ${#dscs[@]}"
verify_dsc "${dscs[0]}"
unpacked=$(unpacked_dir) || die "no single unpacked source directory in $DIR"
log "$PKG source: $unpacked"
echo "$unpacked"
