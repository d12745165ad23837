#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build-examples.sh FUSE_SRC OUT PKG: builds libfuse's own examples from its
# source tree FUSE_SRC, unmodified, with plain cc/c++ and nothing but
# `pkg-config --cflags --libs PKG` (as a user of that package would), into
# OUT laid out like the libfuse build directory its test suite expects
# (test/run-tests.py --build-dir OUT):
#
#   OUT/example/NAME      the low-level examples (and their clients)
#   OUT/test/test_syscalls, OUT/test/readdir_inode
#                         the suite's helpers that use no libfuse at all
#   OUT/util/fusermount3, OUT/util/mount.fuse3
#                         links to the system's helpers
#   OUT/fuse_config.h     what the suite and test_syscalls read from a
#                         libfuse build: written here (see below)
#   OUT/examples.txt      one line per source: NAME KIND STATUS [detail]
#   OUT/build.log         every command and its output
#
# Which examples are low-level is read from each source's includes: one that
# includes fuse.h uses the high-level path API, which libfring-fuse3 does not
# provide (out of scope), and one that includes cuse_lowlevel.h is CUSE (out
# of scope too); those are listed, not built. A client program (NAME_client)
# is built when its server was. The examples' own feature switches
# (HAVE_UTIMENSAT, ...) are set from probes, as libfuse's build sets them
# from its configure checks (below). PKG_CONFIG_PATH comes from the caller: it
# names the uninstalled .pc of the build under test. The binaries get an
# rpath to the package's -L directories, as anyone linking a library outside
# the system's paths would do.
#
# FRING_EXAMPLES_ONLY (space-separated names, e.g. passthrough_hp) builds
# only those examples and none of the suite's helpers (the vm tier wants one
# program, not the whole suite's set).
#
# Exit 0 when every example classified low-level was built, 1 otherwise (the
# build log says why), 2 on a usage error.
set -uo pipefail

if [[ $# != 3 ]]; then
	echo "usage: $0 FUSE_SRC OUT PKG" >&2
	exit 2
fi
src=$(realpath "$1")
out=$2
pkg=$3
CC=${CC:-cc}
CXX=${CXX:-c++}
only=${FRING_EXAMPLES_ONLY:-}

[[ -d $src/example && -d $src/test ]] || {
	echo "$src: not a libfuse source tree" >&2
	exit 2
}
pkg-config --exists "$pkg" || {
	echo "pkg-config: no package $pkg (PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-})" >&2
	exit 1
}
mkdir -p "$out/example" "$out/test" "$out/util"
out=$(realpath "$out")
log=$out/build.log
list=$out/examples.txt
: >"$log"
: >"$list"

read -ra cflags <<<"$(pkg-config --cflags "$pkg")"
read -ra libs <<<"$(pkg-config --libs "$pkg")"
rpath=()
for l in $(pkg-config --libs-only-L "$pkg"); do
	rpath+=("-Wl,-rpath,${l#-L}")
done
{
	echo "# pkg-config $pkg (PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-})"
	echo "# cflags: ${cflags[*]}"
	echo "# libs:   ${libs[*]} ${rpath[*]}"
} >>"$log"

# run CMD...: runs a compiler command, logged with its output; the output
# stays in $out/last.log for the caller's diagnosis
run() {
	local rc=0
	echo "\$ $*" >>"$log"
	"$@" >"$out/last.log" 2>&1 || rc=$?
	cat "$out/last.log" >>"$log"
	return $rc
}

# kind FILE: how a source uses libfuse, from its own #include lines
kind() {
	local inc
	inc=$(grep -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]+[>"]' "$1" |
		sed -E 's/.*[<"]([^>"]+)[>"]/\1/')
	if grep -qx 'fuse_i.h' <<<"$inc"; then
		echo libfuse-internal
	elif grep -qx 'fuse.h' <<<"$inc"; then
		echo high-level
	elif grep -qx 'cuse_lowlevel.h' <<<"$inc"; then
		echo cuse
	elif grep -qx 'fuse_lowlevel.h' <<<"$inc"; then
		echo low-level
	else
		echo plain
	fi
}

# The examples' own feature switches (HAVE_UTIMENSAT, HAVE_SETXATTR, ...):
# inside libfuse's tree its build defines them in a private config header
# from its configure checks; a program built outside (as here) gets none
# and quietly loses those operations (passthrough_hp's utimens answers
# EOPNOTSUPP). They are the examples' switches, not the library's, so we
# set each one the same way: -DHAVE_X when a program using X compiles and
# links here. The same results go into fuse_config.h for test_syscalls.
probe() { # NAME PROGRAM: "#define NAME" or "#undef NAME"
	printf '%s\n' "$2" >"$out/probe.c"
	if "$CC" -o "$out/probe" "$out/probe.c" >/dev/null 2>&1; then
		echo "#define $1"
	else
		echo "#undef $1"
	fi
	rm -f "$out/probe" "$out/probe.c"
}
features=$(
	probe HAVE_COPY_FILE_RANGE '#define _GNU_SOURCE
#include <unistd.h>
int main(void) { return (int)copy_file_range(0, 0, 1, 0, 0, 0); }'
	probe HAVE_FALLOCATE '#define _GNU_SOURCE
#include <fcntl.h>
int main(void) { return fallocate(0, 0, 0, 0); }'
	probe HAVE_POSIX_FALLOCATE '#include <fcntl.h>
int main(void) { return posix_fallocate(0, 0, 0); }'
	probe HAVE_FDATASYNC '#include <unistd.h>
int main(void) { return fdatasync(0); }'
	probe HAVE_FSTATAT '#include <fcntl.h>
#include <sys/stat.h>
int main(void) { struct stat st; return fstatat(0, "", &st, 0); }'
	probe HAVE_UTIMENSAT '#include <fcntl.h>
#include <sys/stat.h>
int main(void) { return utimensat(0, "", 0, 0); }'
	probe HAVE_STATX '#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
int main(void) { struct statx s; return statx(0, "", 0, 0, &s); }'
	probe HAVE_SETXATTR '#include <sys/xattr.h>
int main(void) { return setxattr("", "", "", 0, 0); }'
	probe HAVE_SYS_XATTR_H '#include <sys/xattr.h>
int main(void) { return 0; }'
	probe HAVE_LINUX_LIMITS_H '#include <linux/limits.h>
int main(void) { return 0; }'
)
defs=()
while read -r what name; do
	[[ $what == "#define" ]] && defs+=("-D$name")
done <<<"$features"
echo "# feature switches: ${defs[*]}" >>"$log"

failed=0
built=()
# the low-level examples; servers before clients
for f in "$src"/example/*.c "$src"/example/*.cc; do
	[[ -e $f ]] || continue
	name=$(basename "${f%.*}")
	[[ -n $only && " $only " != *" $name "* ]] && continue
	k=$(kind "$f")
	case $k in
	high-level)
		echo "$name high-level out-of-scope (includes fuse.h: libfuse's path API)" >>"$list"
		continue
		;;
	cuse)
		echo "$name cuse out-of-scope (includes cuse_lowlevel.h: CUSE)" >>"$list"
		continue
		;;
	plain)
		continue # a client or helper: below, once its server is known
		;;
	esac
	if [[ $f == *.cc ]]; then
		cmd=("$CXX" -std=c++20 -O2 -g -Wall -pthread "${defs[@]}" "${cflags[@]}" -o
			"$out/example/$name" "$f" "${libs[@]}" "${rpath[@]}")
	else
		cmd=("$CC" -O2 -g -Wall -pthread "${defs[@]}" "${cflags[@]}" -o
			"$out/example/$name" "$f" "${libs[@]}" "${rpath[@]}")
	fi
	if run "${cmd[@]}"; then
		echo "$name $k built" >>"$list"
		built+=("$name")
	else
		why=$(grep -m1 -E 'error:|undefined reference' "$out/last.log" ||
			echo "see build.log")
		echo "$name $k build-failed $why" >>"$list"
		failed=1
	fi
done
for f in "$src"/example/*.c; do
	name=$(basename "${f%.c}")
	[[ -n $only && " $only " != *" $name "* ]] && continue
	[[ $(kind "$f") == plain ]] || continue
	server=${name%_client}
	if [[ $server == "$name" ]]; then
		echo "$name plain not-built (not a client of an example)" >>"$list"
	elif [[ " ${built[*]} " == *" $server "* ]]; then
		if run "$CC" -O2 -g -Wall -o "$out/example/$name" "$f"; then
			echo "$name client built (of $server)" >>"$list"
		else
			echo "$name client build-failed (of $server)" >>"$list"
			failed=1
		fi
	else
		echo "$name client not-built ($server is not built)" >>"$list"
	fi
done

# fuse_config.h: libfuse's build writes it; the suite reads HAVE_URING from
# it (run-tests.py --io-uring skips the whole run without it) and
# test_syscalls reads the HAVE_* of the system calls it may test. Ours says
# what is true of the build under test: the feature switches above, and
# HAVE_URING when an example's library (or what it links) links liburing.
{
	echo "/* written by build-examples.sh for the build under test */"
	echo "#pragma once"
	echo "$features"
	if [[ -n ${built[0]:-} ]] &&
		ldd "$out/example/${built[0]}" 2>/dev/null | grep -q 'liburing\.so'; then
		echo "#define HAVE_URING"
	else
		echo "#undef HAVE_URING"
	fi
} >"$out/fuse_config.h"

# the suite's helper programs that use no libfuse; the rest are listed
for f in "$src"/test/*.c; do
	[[ -n $only ]] && break
	name=$(basename "${f%.c}")
	k=$(kind "$f")
	case $name:$k in
	test_syscalls:* | readdir_inode:*)
		if run "$CC" -O2 -g -Wall -I"$out" -o "$out/test/$name" "$f"; then
			echo "test/$name plain built" >>"$list"
		else
			echo "test/$name plain build-failed" >>"$list"
			failed=1
		fi
		;;
	*:high-level) echo "test/$name high-level out-of-scope (includes fuse.h)" >>"$list" ;;
	*:libfuse-internal) echo "test/$name libfuse-internal out-of-scope (includes libfuse's private fuse_i.h)" >>"$list" ;;
	*) echo "test/$name $k not-built (not used by a selected case)" >>"$list" ;;
	esac
done

# the mount helpers the cases call by $FUSE_UTIL_DIR path: the system's
for u in fusermount3 mount.fuse3; do
	p=$(PATH=$PATH:/usr/sbin:/sbin command -v "$u") &&
		ln -sf "$p" "$out/util/$u" ||
		echo "util/$u missing (not installed)" >>"$list"
done
rm -f "$out/last.log"
exit $failed
