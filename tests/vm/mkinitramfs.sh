#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# mkinitramfs.sh [--add SRC DEST]... OUT.cpio.gz BINARY...
#
# Builds the vm tier's initramfs:
#  - a static busybox (FRING_VM_BUSYBOX, else /bin/busybox from Debian's
#    busybox-static); /init links its applets at boot;
#  - bash and every shared library it needs (the e2e scripts are bash);
#  - each BINARY at its own absolute path (so that a build tree's
#    $ORIGIN-relative RUNPATH still works), plus every shared library ldd
#    lists for it, the dynamic loader included, at the path ldd gives;
#  - /etc/passwd, /etc/group (root and nobody, 65534), /etc/nsswitch.conf;
#  - tests/vm's guest scripts (run-guest.sh, guest-*.sh) in /tests;
#  - each --add SRC DEST (a file copied to DEST in the image);
#  - each file FRING_VM_EXTRA_BINS names (space-separated host paths, e.g.
#    /usr/bin/fio for bench/vm.sh) like a BINARY: at its own path, with the
#    shared libraries of the ELF ones;
#  - /init, which mounts proc, sysfs, devtmpfs and tmpfs on /tmp, loads the
#    modules in /lib/modules/RELEASE (those load-order names first, in its
#    order), mounts fusectl,
#    makes /dev/fuse if it is missing, prints the kernel release and FUSE
#    ABI, runs /tests/run-guest.sh and powers off.
# No python in the guest: the guest scripts use bash, grep, sed and awk.
set -euo pipefail

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
adds=()
while [[ $# -gt 0 && $1 == --add ]]; do
	[[ $# -ge 3 ]] || die "--add needs SRC and DEST"
	adds+=("$2" "$3")
	shift 3
done
[[ $# -ge 1 ]] || die "usage: $0 [--add SRC DEST]... OUT.cpio.gz BINARY..."
OUT=$1
shift

BUSYBOX=${FRING_VM_BUSYBOX:-/bin/busybox}
[[ -x $BUSYBOX ]] || die "no $BUSYBOX: install Debian's busybox-static (or set FRING_VM_BUSYBOX)"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked: install busybox-static (or set FRING_VM_BUSYBOX to a static busybox)"
fi
BASH_BIN=$(command -v bash)

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/fring-initramfs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

copy_to() { # SRC DEST-IN-IMAGE: a regular file (symlinks followed)
	local dest=$STAGE/${2#/}
	mkdir -p "$(dirname "$dest")"
	cp -L --preserve=mode "$1" "$dest"
}

abs() { # a path made absolute without resolving symlinks
	realpath -s -- "$1"
}

# the shared libraries of an ELF file, each as an absolute path: as the
# guest's loader finds them, which has no LD_LIBRARY_PATH (meson test sets
# one for the host; with it ldd names build/src's libfring where a
# program's own RUNPATH, e.g. the compat passthrough_hp's private install,
# finds another copy, which then is missing from the image)
libs_of() {
	local out
	out=$(env -u LD_LIBRARY_PATH ldd "$1" 2>&1) || {
		# a static executable: nothing to add
		grep -qE 'not a dynamic executable|statically linked' <<<"$out" && return 0
		die "ldd $1 failed: $out"
	}
	if grep -q 'not found' <<<"$out"; then
		die "ldd $1: a library is missing: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"
	fi
	awk '
		$2 == "=>" && $3 ~ /^\// { print $3; next }
		$1 ~ /^\// { print $1 }
	' <<<"$out"
}

declare -A copied=()
add_elf() { # PATH-ON-HOST, placed at the same path in the image
	local p lib
	p=$(abs "$1")
	[[ -n ${copied[$p]:-} ]] && return 0
	copied[$p]=1
	copy_to "$p" "$p"
	while read -r lib; do
		[[ -n $lib ]] || continue
		lib=$(abs "$lib")
		[[ -n ${copied[$lib]:-} ]] && continue
		copied[$lib]=1
		copy_to "$lib" "$lib"
	done < <(libs_of "$p")
}

# --- the file system skeleton
for d in bin sbin usr/bin usr/sbin lib lib64 usr/lib etc proc sys dev tmp root tests; do
	mkdir -p "$STAGE/$d"
done
chmod 1777 "$STAGE/tmp"

# --- busybox; /init makes its applet links at boot (busybox --install -s:
# one process there, where a link each here would cost a fork each)
copy_to "$BUSYBOX" /bin/busybox
chmod 755 "$STAGE/bin/busybox"
ln -s busybox "$STAGE/bin/sh"

# --- bash, the binaries, their libraries
add_elf "$BASH_BIN"
if [[ $(abs "$BASH_BIN") != /bin/bash ]]; then
	ln -sf "$(abs "$BASH_BIN")" "$STAGE/bin/bash"
fi
read -r -a extra_bins <<<"${FRING_VM_EXTRA_BINS:-}"
for b in "$@" "${extra_bins[@]}"; do
	[[ -f $b && -x $b ]] || die "$b is not an executable file"
	add_elf "$b"
done

# --- users, groups, name service
cat >"$STAGE/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$STAGE/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
cat >"$STAGE/etc/nsswitch.conf" <<'EOF'
passwd: files
group: files
shadow: files
hosts: files
EOF
: >"$STAGE/etc/fstab"
ln -s /proc/self/mounts "$STAGE/etc/mtab"

# --- the guest scripts
for f in "$HERE"/run-guest.sh "$HERE"/guest-*.sh; do
	[[ -f $f ]] || continue
	copy_to "$f" "/tests/$(basename "$f")"
	chmod 755 "$STAGE/tests/$(basename "$f")"
done
for ((i = 0; i < ${#adds[@]}; i += 2)); do
	[[ -f ${adds[i]} ]] || die "--add ${adds[i]}: no such file"
	copy_to "${adds[i]}" "${adds[i + 1]}"
done

# --- /init
cat >"$STAGE/init" <<'EOF'
#!/bin/busybox sh
# The vm tier's init: mounts, prints what the kernel offers, runs the jobs,
# powers off. (Written by tests/vm/mkinitramfs.sh.)
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C LC_ALL=C
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# a tmpfs on /tmp, keeping what the image has there (a build tree under /tmp)
mkdir -p /.tmp
mount -t tmpfs -o mode=1777 tmpfs /.tmp
cp -a /tmp/. /.tmp/ 2>/dev/null
mount --move /.tmp /tmp
# Modules run-vm.sh adds: FUSE (Debian 12's 6.1: its fuse.ko), a disk's
# driver (FRING_VM_DISK), those in the order of load-order (dependencies
# first) when it names them
mods=/lib/modules/$(uname -r)
for m in $(cat "$mods/load-order" 2>/dev/null) $(cd "$mods" 2>/dev/null && ls *.ko 2>/dev/null); do
	[ -e "$mods/$m.loaded" ] && continue
	[ -e "$mods/$m" ] && insmod "$mods/$m" && : >"$mods/$m.loaded"
done
mount -t fusectl fusectl /sys/fs/fuse/connections 2>/dev/null
[ -c /dev/fuse ] || mknod -m 0666 /dev/fuse c 10 229
[ -e /dev/console ] || mknod -m 0600 /dev/console c 5 1
# kernel messages go to the log through run-guest.sh, not in the middle of
# a test's output
dmesg -n 1
echo "@@FRING-KERNEL $(uname -r) nproc=$(nproc)@@"
abi=$(dmesg | sed -n 's/.*fuse: init (API version \([0-9.]*\)).*/\1/p' | head -n 1)
echo "@@FRING-FUSE-ABI ${abi:-unknown}@@"
echo "@@FRING-URING enable_uring=$(cat /sys/module/fuse/parameters/enable_uring 2>/dev/null || echo none)@@"
cd /tests
/bin/bash /tests/run-guest.sh
echo "@@FRING-DONE rc=$?@@"
sync
poweroff -f
EOF
chmod 755 "$STAGE/init"

# --- the archive (every file root's, whoever builds it)
mkdir -p "$(dirname "$OUT")"
(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort |
	"$BUSYBOX" cpio -o -H newc -R 0:0 2>/dev/null) | gzip -1 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "mkinitramfs: $OUT ($(du -k "$OUT" | cut -f1) KiB, $(find "$STAGE" -type f | wc -l) files)" >&2
