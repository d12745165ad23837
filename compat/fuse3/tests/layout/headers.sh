#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fuse3-headers: libfring-fuse3's headers at their edges, by compiling
# small programs against them (the layout itself is test_layout.c's job):
#
#  - what must not compile, and says why: no FUSE_USE_VERSION, one older
#    than 3.0, <fuse.h> (high-level API), <cuse_lowlevel.h>, and
#    <fuse_common.h> on its own;
#  - a typical low-level program compiles warning-free (-Wall -Wextra
#    -Wpedantic -Werror, strict C11 too) at every FUSE_USE_VERSION that
#    changes the API, and calls exactly the symbols libfuse 3.18 exports
#    for that API level (fuse_parse_cmdline_30/_312, fuse_session_loop_mt_31
#    /_32/_312, fuse_session_new_versioned, fuse_session_custom_io_317),
#    never the plain names whose meaning depends on symbol versions;
#  - <fuse_kernel.h> and <fuse_lowlevel.h> together, in either order;
#  - C++: the headers compile as C++ and their functions keep C linkage.
#
# Usage: headers.sh INCLUDE_DIR, with CC (and optionally CXX) in the
# environment as compiler commands.
set -u

inc=${1:?usage: headers.sh INCLUDE_DIR}
cc=${CC:-cc}
cxx=${CXX:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

checks=0
failures=0

fail()
{
	failures=$((failures + 1))
	echo "FAIL: $*" >&2
}

# compiles NAME SOURCE [FLAGS...]: SOURCE must compile cleanly.
compiles()
{
	name=$1
	printf '%s\n' "$2" >"$tmp/t.c"
	shift 2
	checks=$((checks + 1))
	# shellcheck disable=SC2086 # $cc may be a command with arguments
	if ! $cc -Wall -Wextra -Wpedantic -Werror -I"$inc" "$@" \
		-c "$tmp/t.c" -o "$tmp/t.o" 2>"$tmp/err"; then
		fail "$name does not compile:"
		cat "$tmp/err" >&2
		return 1
	fi
	return 0
}

# refuses NAME TEXT SOURCE: SOURCE must fail to compile, with TEXT in the
# diagnostics (the reason, not some later error).
refuses()
{
	name=$1
	want=$2
	printf '%s\n' "$3" >"$tmp/t.c"
	checks=$((checks + 1))
	# shellcheck disable=SC2086
	if $cc -std=c11 -D_GNU_SOURCE -I"$inc" -c "$tmp/t.c" \
		-o "$tmp/t.o" 2>"$tmp/err"; then
		fail "$name compiled, but must not"
	elif ! grep -qF -- "$want" "$tmp/err"; then
		fail "$name failed without saying \"$want\":"
		cat "$tmp/err" >&2
	fi
}

# calls NAME SYMBOL...: the object last compiled references each SYMBOL.
# nocalls NAME SYMBOL...: it references none of them.
undefined()
{
	nm -u "$tmp/t.o" | awk '{ print $NF }'
}
calls()
{
	name=$1
	shift
	for sym in "$@"; do
		checks=$((checks + 1))
		undefined | grep -qx -- "$sym" ||
			fail "$name does not call $sym (calls: $(undefined | tr '\n' ' '))"
	done
}
nocalls()
{
	name=$1
	shift
	for sym in "$@"; do
		checks=$((checks + 1))
		if undefined | grep -qx -- "$sym"; then
			fail "$name calls $sym"
		fi
	done
}

refuses "no FUSE_USE_VERSION" "FUSE_USE_VERSION" \
	'#include <fuse_lowlevel.h>'
refuses "FUSE_USE_VERSION 29" "30 or later" \
	'#define FUSE_USE_VERSION 29
#include <fuse_lowlevel.h>'
refuses "<fuse.h>" "the high-level path API (fuse.h) is not provided" \
	'#define FUSE_USE_VERSION 31
#include <fuse.h>'
refuses "<cuse_lowlevel.h>" "CUSE (cuse_lowlevel.h) is not provided" \
	'#define FUSE_USE_VERSION 31
#include <cuse_lowlevel.h>'
refuses "<fuse_common.h> alone" "include <fuse_lowlevel.h>" \
	'#define FUSE_USE_VERSION 318
#include <fuse_common.h>'

# A low-level filesystem's skeleton, written the way libfuse programs are:
# the loop configuration and custom io calls follow FUSE_USE_VERSION.
program='#include <fuse_lowlevel.h>

static void fs_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	fuse_set_feature_flag(conn, FUSE_CAP_ASYNC_READ);
	conn->want &= ~FUSE_CAP_SPLICE_READ;
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);

	(void)ino;
	buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	buf.buf[0].fd = (int)fi->fh;
	buf.buf[0].pos = off;
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
}

static const struct fuse_lowlevel_ops ops = {
	.init = fs_init,
	.read = fs_read,
};

int run(int argc, char **argv);
int run(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts;
	struct fuse_session *se;
	struct fuse_custom_io io = { 0 };
	int ret;

	if (fuse_parse_cmdline(&args, &opts) != 0)
		return 1;
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (se == NULL)
		return 1;
#if FUSE_USE_VERSION >= FUSE_MAKE_VERSION(3, 17)
	ret = fuse_session_custom_io(se, &io, sizeof(io), 3);
#else
	ret = fuse_session_custom_io(se, &io, 3);
#endif
	if (ret != 0 && fuse_session_mount(se, opts.mountpoint) != 0)
		return 1;
#if FUSE_USE_VERSION < 32
	ret = fuse_session_loop_mt(se, opts.clone_fd);
#elif FUSE_USE_VERSION < FUSE_MAKE_VERSION(3, 12)
	{
		struct fuse_loop_config cfg = { opts.clone_fd, 10 };

		ret = fuse_session_loop_mt(se, &cfg);
	}
#else
	{
		struct fuse_loop_config *cfg = fuse_loop_cfg_create();

		fuse_loop_cfg_set_clone_fd(cfg, (unsigned int)opts.clone_fd);
		ret = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
#endif
	fuse_session_unmount(se);
	fuse_session_destroy(se);
	return ret;
}'

# The symbols every API level must reach, and the plain names of the
# versioned ones, which a program built against these headers never
# references.
common="fuse_session_new_versioned fuse_session_custom_io_317"
plain="fuse_session_new fuse_parse_cmdline fuse_session_loop_mt fuse_session_custom_io"
for v in 30 31 32 34 35 39 310 312 317 318 319 'FUSE_MAKE_VERSION(3, 18)'; do
	name="FUSE_USE_VERSION $v"
	src="#define FUSE_USE_VERSION $v
$program"
	compiles "$name" "$src" -std=c11 -D_GNU_SOURCE || continue
	case $v in
	30 | 31) want="fuse_parse_cmdline_30 fuse_session_loop_mt_31" ;;
	32 | 34 | 35 | 39 | 310) want="fuse_parse_cmdline_30 fuse_session_loop_mt_32" ;;
	*) want="fuse_parse_cmdline_312 fuse_session_loop_mt_312 fuse_loop_cfg_create" ;;
	esac
	# shellcheck disable=SC2086 # word lists
	calls "$name" $common $want
	# shellcheck disable=SC2086
	nocalls "$name" $plain
done
# Strict ISO C11, without _GNU_SOURCE: the headers bring in what they use.
compiles "FUSE_USE_VERSION 318, strict -std=c11" "#define FUSE_USE_VERSION 318
$program" -std=c11

kernel='static unsigned int sizes(void)
{
	return (unsigned int)sizeof(struct fuse_in_header) + FUSE_IOCTL_DIR +
	       FUSE_ROOT_ID + (unsigned int)sizeof(struct fuse_file_info);
}
unsigned int (*sizes_p)(void) = sizes;'
compiles "<fuse_kernel.h> then <fuse_lowlevel.h>" "#define FUSE_USE_VERSION 318
#include <fuse_kernel.h>
#include <fuse_lowlevel.h>
$kernel" -std=c11 -D_GNU_SOURCE
compiles "<fuse_lowlevel.h> then <fuse_kernel.h>" "#define FUSE_USE_VERSION 318
#include <fuse_lowlevel.h>
#include <fuse_kernel.h>
$kernel" -std=c11 -D_GNU_SOURCE

# C++: compiles at each standard, and the calls keep C linkage (the
# inline fuse_session_new() reaches the unmangled versioned symbol).
if [ -n "$cxx" ]; then
	cat >"$tmp/t.cc" <<'EOF'
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 18)
#include <fuse_lowlevel.h>

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent;
	(void)name;
	fuse_reply_err(req, ENOENT);
}

int run(struct fuse_args *args);
int run(struct fuse_args *args)
{
	struct fuse_lowlevel_ops ops = {};
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(0);

	ops.lookup = fs_lookup;
	struct fuse_session *se = fuse_session_new(args, &ops, sizeof(ops),
						   nullptr);
	return se != nullptr ? fuse_session_loop(se) : (int)bv.count;
}
EOF
	for std in c++11 c++17 c++20; do
		checks=$((checks + 1))
		# shellcheck disable=SC2086
		if ! $cxx -std=$std -Wall -Wextra -Werror -include errno.h \
			-I"$inc" -c "$tmp/t.cc" -o "$tmp/t.o" 2>"$tmp/err"; then
			fail "C++ ($std) does not compile:"
			cat "$tmp/err" >&2
			continue
		fi
		calls "C++ ($std)" fuse_reply_err fuse_session_new_versioned \
			fuse_session_loop
	done
else
	echo "note: no C++ compiler (CXX unset), C++ checks skipped"
fi

echo "fuse3-headers: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
