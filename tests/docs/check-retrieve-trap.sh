#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-retrieve-trap.sh SRCDIR CC [CC...]: libfuse's
# fuse_lowlevel_notify_retrieve(se, ino, size, off, cookie) takes the size
# first, libfring 0.1.0's fring_notify_retrieve(se, ino, off, size, cookie)
# the offset: a port that only renamed the call compiled and asked for the
# wrong bytes. The header now makes any call of that name a compile error
# that names fring_notify_retrieve_range(), whose struct fring_range names
# both numbers. Each CC (and c++, when there is one) must refuse the
# libfuse-order call and the 0.1.0 one, say why, and compile the range form
# warning-free.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
src=$(realpath "$1")
shift
tmp=$(mktemp -d /tmp/fring-retrieve-trap.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

body() { # CALL: a file calling CALL with libfuse's variable types
	cat <<C
#include <fring/fring.h>
int port(fring_session_t *se, fring_ino_t ino, size_t size, off_t offset,
	 void *cookie);
int port(fring_session_t *se, fring_ino_t ino, size_t size, off_t offset,
	 void *cookie)
{
	(void)size;
	(void)offset;
	return $1;
}
C
}
libfuse_order='fring_notify_retrieve(se, ino, size, offset, cookie)'
old_order='fring_notify_retrieve(se, ino, offset, size, cookie)'
literals='fring_notify_retrieve(se, ino, 4096, 0, cookie)'
range_c='fring_notify_retrieve_range(se, ino, (struct fring_range){.off = offset, .size = size}, cookie)'
range_cxx='fring_notify_retrieve_range(se, ino, fring_range{offset, size}, cookie)'

compile() { # NAME LANG WANT(ok|error) CALL COMPILER...
	local name=$1 lang=$2 want=$3 call=$4 out rc
	shift 4
	body "$call" >"$tmp/$name.$lang"
	if [[ $lang == c ]]; then
		out=$("$@" -std=c11 -Wall -Wextra -Werror -I"$src/include" \
			-c "$tmp/$name.c" -o "$tmp/$name.o" 2>&1) && rc=0 || rc=$?
	else
		out=$("$@" -Wall -Wextra -Werror -I"$src/include" \
			-x c++ -c "$tmp/$name.$lang" -o "$tmp/$name.o" 2>&1) && rc=0 || rc=$?
	fi
	if [[ $want == ok ]]; then
		check "$name" "does not compile: $out" [ "$rc" = 0 ]
	else
		check "$name.refused" "compiled (exit $rc)" [ "$rc" != 0 ]
		check "$name.says_why" "no word of fring_notify_retrieve_range: $out" \
			grep -q 'fring_notify_retrieve_range(se, ino, (struct fring_range)' <<<"$out"
	fi
}

ncc=0 seen=
for cc in "$@"; do
	read -ra cmd <<<"$cc"
	path=$(command -v "${cmd[0]}") || continue
	path=$(realpath "$path")
	[[ " $seen " == *" $path ${cmd[*]:1} "* ]] && continue # cc is gcc
	seen+=" $path ${cmd[*]:1} "
	n=$(basename "${cmd[0]}")
	ncc=$((ncc + 1))
	compile "$n.libfuse_order" c error "$libfuse_order" "${cmd[@]}"
	compile "$n.old_order" c error "$old_order" "${cmd[@]}"
	compile "$n.literals" c error "$literals" "${cmd[@]}"
	compile "$n.range" c ok "$range_c" "${cmd[@]}"
done
[[ $ncc -gt 0 ]] || fail compilers "none of '$*' found"
for cxx in c++ g++ clang++; do
	command -v "$cxx" >/dev/null || continue
	compile "$cxx.libfuse_order" cc error "$libfuse_order" "$cxx"
	compile "$cxx.range" cc ok "$range_cxx" "$cxx"
	break
done
check_done
