#!/bin/sh
# SPDX-License-Identifier: MIT
#
# static-archive.sh OUT IN NM OBJCOPY AR CC...
#
# Makes the installed libfring.a (OUT) from the internal static library (IN,
# every object of the library) so that its only global symbols are the
# fring_* ones libfring.so exports. An archive of the plain objects would
# define the library's internal functions (do_getattr, req_get, ...) as
# global symbols, because one file calls another's: a program linked with
# it that defines one of those names fails to link or calls the wrong one.
#
#  1. CC -r: one relocatable object from all of IN's objects, which resolves
#     the references between them (undefined references to liburing and
#     libc stay undefined);
#  2. objcopy: the hidden symbols (FRING_HIDDEN), and every other one that
#     is not fring_*, as src/fring.map says for the shared library, become
#     local, so nothing outside the object can see or take their names;
#  3. ar: the archive of that one object, once nm says that its global
#     symbols are fring_* and nothing else (the build fails otherwise).
# CC... is the C compiler's command (meson's cc.cmd_array()), for gcc and
# clang builds alike, with -flto in LTO builds (the objects then hold the
# compiler's IR, which objcopy cannot change: the -r link compiles it);
# NM, OBJCOPY and AR are binutils' (or LLVM's) tools.
set -eu
[ $# -ge 6 ] || { echo "usage: $0 OUT IN NM OBJCOPY AR CC..." >&2; exit 2; }
out=$1 in=$2 nm=$3 objcopy=$4 ar=$5
shift 5
dir=$out.d
rm -rf "$dir" "$out"
mkdir "$dir"
"$@" -r -nostdlib -o "$dir/libfring.o" \
	-Wl,--whole-archive "$in" -Wl,--no-whole-archive
"$objcopy" --localize-hidden --wildcard --keep-global-symbol='fring_*' \
	"$dir/libfring.o"
syms=$("$nm" -g --defined-only "$dir/libfring.o" | awk 'NF == 3 {print $3}')
if ! printf '%s\n' "$syms" | grep -q '^fring_'; then
	echo "$0: no global fring_ symbol in $dir/libfring.o" >&2
	exit 1
fi
if others=$(printf '%s\n' "$syms" | grep -v '^fring_'); then
	echo "$0: $dir/libfring.o still has global symbols other than" \
		"fring_*: $(printf '%s\n' "$others" | tr '\n' ' ')" >&2
	exit 1
fi
"$ar" rcsD "$out" "$dir/libfring.o"
rm -rf "$dir"
