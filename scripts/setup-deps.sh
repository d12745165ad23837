#!/usr/bin/env bash
# Installs what building and testing libfring needs (Debian bookworm).
set -euo pipefail
# libclang-rt-14-dev: clang's sanitizer and libFuzzer runtimes (only
# recommended by clang, and recommends are not installed here)
# doxygen: the API reference (`meson compile docs`) and the docs suite's
# check that every exported symbol is documented; groff-base and man-db:
# the docs suite formats the man pages with warnings on (doc/testing.md)
# fio: the I/O load of the stress suite's lifecycle test (tests/stress)
# abigail-tools: abidw/abidiff, the install suite's `abi` test compares
# libfring.so with the newest release's committed ABI dump (abi/)
# acl: setfacl/getfacl, tests/e2e/features.sh compares memfs's POSIX ACLs
# (-o acl) with tmpfs's
# The libfuse compatibility tests (compat/fuse3/tests, doc/libfuse-compat.md):
# g++ builds libfuse's C++ examples (passthrough_hp, memfs_ll); dpkg-dev
# (dpkg-source), gpgv and debian-keyring fetch and check Debian's fuse3
# source package (scripts/fetch-fuse3-source.sh); squashfs-tools makes the
# image Debian's squashfuse_ll serves on the drop-in library
pkgs=(gcc clang libclang-rt-14-dev meson ninja-build pkg-config liburing-dev libcmocka-dev fuse3
      util-linux python3 valgrind fio
      qemu-system-x86 busybox-static debian-archive-keyring
      doxygen groff-base man-db abigail-tools acl
      g++ dpkg-dev gpgv debian-keyring squashfs-tools)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup-deps: need root to install: ${missing[*]}" >&2
		exit 1
	fi
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
