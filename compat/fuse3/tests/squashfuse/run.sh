#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh LIBDIR TRANSPORT: Debian bookworm's squashfuse_ll, a binary built
# against the distribution's libfuse 3 (libfuse3.so.3, symbols FUSE_3.0 and
# FUSE_3.12), run UNCHANGED with LIBDIR first on LD_LIBRARY_PATH so that it
# loads the libfuse3.so.3 found there: the binary drop-in of libfring-fuse3
# (BUILD/compat/fuse3/dropin). It mounts a squashfs image of /usr/include
# (mksquashfs, package squashfs-tools) and the mount must serve the tree
# exactly: every name, type, mode, owner, size and symlink target, and every
# byte (diff -r).
#
#   LIBDIR     the directory holding the libfuse3.so.3 to load; "system"
#              runs it on the system's own libfuse (the harness's control)
#   TRANSPORT  dev, or uring (-o io_uring, libfuse's option, with the fuse
#              module's enable_uring on for the run and put back)
#
# Proof that libfring served it (not with "system"): the daemon's
# /proc/PID/maps shows LIBDIR's libfuse3.so.3 and no other, and its stderr
# carries libfring's mount line naming TRANSPORT ("fring: mounted ...: ...,
# transport uring, ...") and no other transport.
#
# The package is fetched with `apt-get download squashfuse` (verified by apt
# against the signed archive index) into a temporary directory and unpacked
# with dpkg-deb -x; nothing is installed. Needs root, /dev/fuse,
# mksquashfs. Exit 0 pass, 1 fail, 77 skip (1 with FRING_E2E_NO_SKIP=1).
set -uo pipefail

libdir=${1:-}
transport=${2:-}
T=30 # seconds to wait for anything
# shellcheck source-path=SCRIPTDIR source=../../../../tests/lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../../tests/lib/check.sh"
case $transport in
dev | uring) ;;
*)
	echo "usage: $0 LIBDIR|system dev|uring" >&2
	exit 2
	;;
esac
[[ -n $libdir ]] || {
	echo "usage: $0 LIBDIR|system dev|uring" >&2
	exit 2
}
[[ $(id -u) == 0 ]] || skip "needs root"
[[ -c /dev/fuse ]] || skip "no /dev/fuse"
command -v mksquashfs >/dev/null || skip "no mksquashfs: install squashfs-tools"
if [[ $libdir == system ]]; then
	[[ $transport == dev ]] || skip "the control runs on dev only: the system's libfuse is older than libfuse's io_uring (3.18)"
else
	libdir=$(realpath -m "$libdir")
	[[ -e $libdir/libfuse3.so.3 ]] || skip "no $libdir/libfuse3.so.3: the drop-in is not built"
fi

tmp=$(mktemp -d /tmp/fring-squashfuse.XXXXXX)
mnt=$tmp/mnt
mkdir "$mnt"
pid=
param=/sys/module/fuse/parameters/enable_uring
old_param=
cleanup() {
	[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
	grep -q " $mnt fuse" /proc/self/mounts && umount -l "$mnt" 2>/dev/null
	[[ -n $pid ]] && wait "$pid" 2>/dev/null
	[[ -n $old_param ]] && echo "$old_param" >"$param"
	rm -rf "$tmp"
}
trap cleanup EXIT
mounted() { fuse_mounted "$mnt"; }

# --- the package ------------------------------------------------------------
t0=$SECONDS
download() {
	(cd "$tmp" && apt-get -q -o APT::Sandbox::User=root download squashfuse) >"$tmp/apt.log" 2>&1
}
if ! download; then
	# a machine whose package lists were never fetched: fetch them once
	apt-get update -q >>"$tmp/apt.log" 2>&1
	download || {
		cat "$tmp/apt.log"
		skip "apt-get download squashfuse failed"
	}
fi
deb=$(ls "$tmp"/squashfuse_*.deb)
dpkg-deb -x "$deb" "$tmp/pkg" || skip "dpkg-deb -x $deb failed"
exe=$tmp/pkg/usr/bin/squashfuse_ll
[[ -x $exe ]] || skip "$deb has no usr/bin/squashfuse_ll"
echo "package: $(basename "$deb"); binary: usr/bin/squashfuse_ll, unchanged"
echo "  needs: $(readelf -d "$exe" | awk '/NEEDED/ {gsub(/[][]/, "", $5); printf "%s ", $5}')"
echo "  libfuse symbols: $(objdump -T "$exe" | grep -o '(FUSE_3[.0-9]*) *[a-z_]*' | sort -u |
	awk '{v[$1] = v[$1] " " $2} END {for (k in v) printf "%s%s; ", k, v[k]}')"

# --- the image ----------------------------------------------------------------
nice mksquashfs /usr/include "$tmp/include.sqfs" -quiet -no-progress -noappend \
	-processors 1 >"$tmp/mksquashfs.log" 2>&1 || {
	cat "$tmp/mksquashfs.log"
	fail mksquashfs "mksquashfs /usr/include failed"
	check_done
}
echo "image of /usr/include: $(du -h "$tmp/include.sqfs" | cut -f1) ($((SECONDS - t0)) s with the download)"

# --- the mount ----------------------------------------------------------------
if [[ $transport == uring ]]; then
	[[ -w $param ]] || skip "no $param: this kernel has no FUSE-over-io_uring"
	old_param=$(cat "$param")
	echo Y >"$param"
fi
opts=()
[[ $transport == uring ]] && opts=(-o io_uring)
if [[ $libdir == system ]]; then
	"$exe" -f "${opts[@]}" "$tmp/include.sqfs" "$mnt" 2>"$tmp/log" &
else
	LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		"$exe" -f "${opts[@]}" "$tmp/include.sqfs" "$mnt" 2>"$tmp/log" &
fi
pid=$!
for _ in $(seq $((T * 10))); do
	mounted && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if ! mounted; then
	fail mount "not mounted within $T s: $(cat "$tmp/log")"
	check_done
fi
ok mount

# --- the proof: which libfuse3.so.3, which transport ----------------------------
maps=$(awk '$6 ~ /libfuse3\.so/ {print $6}' "/proc/$pid/maps" | sort -u)
if [[ $libdir == system ]]; then
	[[ $maps == /usr/lib/* || $maps == /lib/* ]] && ok "loaded_libfuse ($maps)" ||
		fail loaded_libfuse "maps: '$maps'"
else
	[[ $maps == "$libdir/libfuse3.so.3" ]] ||
		[[ $(realpath "$maps" 2>/dev/null) == "$(realpath "$libdir/libfuse3.so.3")" ]] &&
		ok "loaded_dropin ($maps)" ||
		fail loaded_dropin "the daemon maps '$maps', not $libdir/libfuse3.so.3"
	# (logged once the queues run, which may be after the mount shows)
	for _ in $(seq $((T * 10))); do grep -q 'fring: mounted ' "$tmp/log" && break; sleep 0.1; done
	line=$(grep -m1 'fring: mounted ' "$tmp/log")
	if [[ $line == *", transport $transport,"* || $line == *", transport $transport "* ]]; then
		ok "mount_line ($line)"
	else
		fail mount_line "no libfring mount line naming transport $transport: $(cat "$tmp/log")"
	fi
fi

# --- the tree ---------------------------------------------------------------------
# listing DIR: every entry's path, type, mode, owner, size (of regular
# files) and symlink target
listing() {
	(cd "$1" && find . -printf '%p %y %m %U %G %l\n' -a -type f -printf '%p size %s\n' | sort)
}
t0=$SECONDS
if diff <(listing /usr/include) <(timeout 120 bash -c "$(declare -f listing); listing '$mnt'") >"$tmp/ldiff" 2>&1; then
	ok "metadata ($(listing /usr/include | grep -c ' [fdl] ') entries)"
else
	fail metadata "listings differ: $(head -n 10 "$tmp/ldiff")"
fi
if timeout 300 diff -r --no-dereference /usr/include "$mnt" >"$tmp/diff" 2>&1; then
	ok "bytes (diff -r, $((SECONDS - t0)) s for both checks)"
else
	fail bytes "diff -r: $(head -n 10 "$tmp/diff")"
fi

# --- the end ------------------------------------------------------------------------
fusermount3 -u "$mnt" 2>"$tmp/umount.log" || umount "$mnt" 2>>"$tmp/umount.log" ||
	fail umount "$(cat "$tmp/umount.log")"
rc=
for _ in $(seq $((T * 10))); do
	kill -0 "$pid" 2>/dev/null || {
		wait "$pid"
		rc=$?
		break
	}
	sleep 0.1
done
if [[ -z $rc ]]; then
	fail exit "still running $T s after the unmount"
else
	pid=
	[[ $rc == 0 ]] && ok exit_0 || fail exit_0 "exit $rc: $(cat "$tmp/log")"
fi
echo "--- squashfuse_ll's stderr:"
cat "$tmp/log"
echo "---"
check_done
