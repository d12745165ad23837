/* SPDX-License-Identifier: MIT */
/*
 * fuse3-layout: libfring-fuse3's <fuse_lowlevel.h> and <fuse_common.h>
 * against libfuse 3.18.3's ABI, so that a program compiled against either
 * set of headers runs on either library.
 *
 * Every expected number below is libfuse 3.18.3's on x86-64: printed by a
 * probe program compiled against libfuse's own headers (include/ of
 * Debian's fuse3 3.18.3 source, with its build's libfuse_config.h), gcc 12,
 * not derived from our headers. The expected types and prototypes were
 * checked the same way: this file includes only <fuse_lowlevel.h>, and
 * compiled against libfuse's headers instead of ours it passes too
 * (cc -I<libfuse>/include -I<libfuse-build> -DFUSE_USE_VERSION=N).
 *
 * Checked: the size of every struct and the offset and size of each of its
 * members; the bit each one-bit flag of fuse_file_info and fuse_conn_info
 * occupies (set the field in a zeroed struct, look at which bits of which
 * word changed and that nothing else did); the value and type of every
 * FUSE_CAP_*, FUSE_SET_ATTR_*, FUSE_BUF_*, FUSE_IOCTL_* and the other
 * constants; the type of every fuse_lowlevel_ops member; the prototype of
 * every function; and what FUSE_BUFVEC_INIT builds.
 *
 * The build compiles it once per API level that changes what a program
 * sees (FUSE_USE_VERSION 30, 34, 312, 318): the loop configuration (3.2,
 * 3.12), the ioctl command's type (3.5), fuse_session_custom_io (3.17).
 * Nothing is linked: the prototypes are compared in _Generic selections,
 * which are not evaluated, so the test needs no library.
 */
#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 18)
#endif

#include <fuse_lowlevel.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned int checks;
static unsigned int failures;

static void check(const char *what, unsigned long long got,
		  unsigned long long want)
{
	checks++;
	if (got == want)
		return;
	failures++;
	fprintf(stderr, "FAIL %s: %llu, libfuse 3.18.3 has %llu\n", what, got,
		want);
}

/*
 * `img` is a struct in which one bitfield was set to all ones: the 32-bit
 * word at byte `off` must be exactly `mask` and every other byte zero.
 */
static void check_bits(const char *what, const unsigned char *img, size_t size,
		       size_t off, uint32_t mask)
{
	uint32_t word;
	size_t i;

	checks++;
	memcpy(&word, img + off, sizeof(word));
	for (i = 0; i < size; i++) {
		if (i >= off && i < off + sizeof(word))
			continue;
		if (img[i] != 0) {
			failures++;
			fprintf(stderr,
				"FAIL %s: sets byte %zu, outside the word at "
				"%zu\n",
				what, i, off);
			return;
		}
	}
	if (word != mask) {
		failures++;
		fprintf(stderr,
			"FAIL %s: bits 0x%08" PRIx32
			" of the word at %zu, libfuse 3.18.3 has 0x%08" PRIx32
			"\n",
			what, word, off, mask);
	}
}

#define SIZE(t, n)	check("sizeof(" #t ")", sizeof(t), (n))
#define OFFSET(t, m, n) check("offsetof(" #t ", " #m ")", offsetof(t, m), (n))
#define MSIZE(t, m, n)	check("sizeof(" #t "." #m ")", sizeof(((t *)0)->m), (n))
/* The field is set from a variable, not a constant, so that the
 * truncation to its width draws no warning. */
#define BITS(t, m, off, mask)                                                  \
	do {                                                                   \
		t s_;                                                          \
		unsigned char img_[sizeof(t)];                                 \
                                                                               \
		memset(&s_, 0, sizeof(s_));                                    \
		s_.m = all_ones;                                               \
		memcpy(img_, &s_, sizeof(s_));                                 \
		check_bits(#t "." #m, img_, sizeof(img_), (off), (mask));      \
	} while (0)
/* A constant's value, and its type: FUSE_CAP_* are unsigned long, which
 * matters for ~FUSE_CAP_X against the 64-bit want_ext. */
#define VALUE(m, type, n)                                                      \
	do {                                                                   \
		check(#m, (unsigned long long)(m), (n));                       \
		check("type of " #m " is " #type,                              \
		      _Generic((m), type : 1, default : 0), 1);                \
	} while (0)
/* A function's prototype, or an ops member's type. */
#define PROTO(f, type)                                                         \
	check("prototype of " #f, _Generic(&(f), type : 1, default : 0), 1)
#define OP(m, type)                                                            \
	check("type of fuse_lowlevel_ops." #m,                                 \
	      _Generic(((struct fuse_lowlevel_ops *)0)->m, type : 1,           \
		       default : 0),                                           \
	      1)

static volatile uint32_t all_ones = 0xffffffffu;

static void layouts(void)
{
	SIZE(struct fuse_file_info, 64);
	OFFSET(struct fuse_file_info, flags, 0);
	MSIZE(struct fuse_file_info, flags, 4);
	BITS(struct fuse_file_info, writepage, 4, 0x00000001U);
	BITS(struct fuse_file_info, direct_io, 4, 0x00000002U);
	BITS(struct fuse_file_info, keep_cache, 4, 0x00000004U);
	BITS(struct fuse_file_info, flush, 4, 0x00000008U);
	BITS(struct fuse_file_info, nonseekable, 4, 0x00000010U);
	BITS(struct fuse_file_info, flock_release, 4, 0x00000020U);
	BITS(struct fuse_file_info, cache_readdir, 4, 0x00000040U);
	BITS(struct fuse_file_info, noflush, 4, 0x00000080U);
	BITS(struct fuse_file_info, parallel_direct_writes, 4, 0x00000100U);
	BITS(struct fuse_file_info, kill_suidgid, 4, 0x00000200U);
	BITS(struct fuse_file_info, padding, 4, 0xfffffc00U);
	BITS(struct fuse_file_info, padding2, 8, 0xffffffffU);
	BITS(struct fuse_file_info, padding3, 12, 0xffffffffU);
	OFFSET(struct fuse_file_info, fh, 16);
	MSIZE(struct fuse_file_info, fh, 8);
	OFFSET(struct fuse_file_info, lock_owner, 24);
	MSIZE(struct fuse_file_info, lock_owner, 8);
	OFFSET(struct fuse_file_info, poll_events, 32);
	MSIZE(struct fuse_file_info, poll_events, 4);
	OFFSET(struct fuse_file_info, backing_id, 36);
	MSIZE(struct fuse_file_info, backing_id, 4);
	OFFSET(struct fuse_file_info, compat_flags, 40);
	MSIZE(struct fuse_file_info, compat_flags, 8);
	OFFSET(struct fuse_file_info, reserved, 48);
	MSIZE(struct fuse_file_info, reserved, 16);
	/* the old public loop configuration, renamed from API 3.12 on */
#if FUSE_USE_VERSION >= FUSE_MAKE_VERSION(3, 12)
	SIZE(struct fuse_loop_config_v1, 8);
	OFFSET(struct fuse_loop_config_v1, clone_fd, 0);
	MSIZE(struct fuse_loop_config_v1, clone_fd, 4);
	OFFSET(struct fuse_loop_config_v1, max_idle_threads, 4);
	MSIZE(struct fuse_loop_config_v1, max_idle_threads, 4);
#endif
	SIZE(struct fuse_conn_info, 128);
	OFFSET(struct fuse_conn_info, proto_major, 0);
	MSIZE(struct fuse_conn_info, proto_major, 4);
	OFFSET(struct fuse_conn_info, proto_minor, 4);
	MSIZE(struct fuse_conn_info, proto_minor, 4);
	OFFSET(struct fuse_conn_info, max_write, 8);
	MSIZE(struct fuse_conn_info, max_write, 4);
	OFFSET(struct fuse_conn_info, max_read, 12);
	MSIZE(struct fuse_conn_info, max_read, 4);
	OFFSET(struct fuse_conn_info, max_readahead, 16);
	MSIZE(struct fuse_conn_info, max_readahead, 4);
	OFFSET(struct fuse_conn_info, capable, 20);
	MSIZE(struct fuse_conn_info, capable, 4);
	OFFSET(struct fuse_conn_info, want, 24);
	MSIZE(struct fuse_conn_info, want, 4);
	OFFSET(struct fuse_conn_info, max_background, 28);
	MSIZE(struct fuse_conn_info, max_background, 4);
	OFFSET(struct fuse_conn_info, congestion_threshold, 32);
	MSIZE(struct fuse_conn_info, congestion_threshold, 4);
	OFFSET(struct fuse_conn_info, time_gran, 36);
	MSIZE(struct fuse_conn_info, time_gran, 4);
	OFFSET(struct fuse_conn_info, max_backing_stack_depth, 40);
	MSIZE(struct fuse_conn_info, max_backing_stack_depth, 4);
	BITS(struct fuse_conn_info, no_interrupt, 44, 0x00000001U);
	BITS(struct fuse_conn_info, padding, 44, 0xfffffffeU);
	OFFSET(struct fuse_conn_info, capable_ext, 48);
	MSIZE(struct fuse_conn_info, capable_ext, 8);
	OFFSET(struct fuse_conn_info, want_ext, 56);
	MSIZE(struct fuse_conn_info, want_ext, 8);
	OFFSET(struct fuse_conn_info, request_timeout, 64);
	MSIZE(struct fuse_conn_info, request_timeout, 2);
	OFFSET(struct fuse_conn_info, reserved, 66);
	MSIZE(struct fuse_conn_info, reserved, 62);
	SIZE(enum fuse_buf_flags, 4);
	SIZE(enum fuse_buf_copy_flags, 4);
	SIZE(struct fuse_buf, 48);
	OFFSET(struct fuse_buf, size, 0);
	MSIZE(struct fuse_buf, size, 8);
	OFFSET(struct fuse_buf, flags, 8);
	MSIZE(struct fuse_buf, flags, 4);
	OFFSET(struct fuse_buf, mem, 16);
	MSIZE(struct fuse_buf, mem, 8);
	OFFSET(struct fuse_buf, fd, 24);
	MSIZE(struct fuse_buf, fd, 4);
	OFFSET(struct fuse_buf, pos, 32);
	MSIZE(struct fuse_buf, pos, 8);
	OFFSET(struct fuse_buf, mem_size, 40);
	MSIZE(struct fuse_buf, mem_size, 8);
	SIZE(struct fuse_bufvec, 72);
	OFFSET(struct fuse_bufvec, count, 0);
	MSIZE(struct fuse_bufvec, count, 8);
	OFFSET(struct fuse_bufvec, idx, 8);
	MSIZE(struct fuse_bufvec, idx, 8);
	OFFSET(struct fuse_bufvec, off, 16);
	MSIZE(struct fuse_bufvec, off, 8);
	OFFSET(struct fuse_bufvec, buf, 24);
	MSIZE(struct fuse_bufvec, buf, 48);
	SIZE(struct libfuse_version, 16);
	OFFSET(struct libfuse_version, major, 0);
	MSIZE(struct libfuse_version, major, 4);
	OFFSET(struct libfuse_version, minor, 4);
	MSIZE(struct libfuse_version, minor, 4);
	OFFSET(struct libfuse_version, hotfix, 8);
	MSIZE(struct libfuse_version, hotfix, 4);
	OFFSET(struct libfuse_version, padding, 12);
	MSIZE(struct libfuse_version, padding, 4);
	SIZE(fuse_ino_t, 8);
	SIZE(struct fuse_entry_param, 176);
	OFFSET(struct fuse_entry_param, ino, 0);
	MSIZE(struct fuse_entry_param, ino, 8);
	OFFSET(struct fuse_entry_param, generation, 8);
	MSIZE(struct fuse_entry_param, generation, 8);
	OFFSET(struct fuse_entry_param, attr, 16);
	MSIZE(struct fuse_entry_param, attr, 144);
	OFFSET(struct fuse_entry_param, attr_timeout, 160);
	MSIZE(struct fuse_entry_param, attr_timeout, 8);
	OFFSET(struct fuse_entry_param, entry_timeout, 168);
	MSIZE(struct fuse_entry_param, entry_timeout, 8);
	SIZE(struct fuse_ctx, 16);
	OFFSET(struct fuse_ctx, uid, 0);
	MSIZE(struct fuse_ctx, uid, 4);
	OFFSET(struct fuse_ctx, gid, 4);
	MSIZE(struct fuse_ctx, gid, 4);
	OFFSET(struct fuse_ctx, pid, 8);
	MSIZE(struct fuse_ctx, pid, 4);
	OFFSET(struct fuse_ctx, umask, 12);
	MSIZE(struct fuse_ctx, umask, 4);
	SIZE(struct fuse_forget_data, 16);
	OFFSET(struct fuse_forget_data, ino, 0);
	MSIZE(struct fuse_forget_data, ino, 8);
	OFFSET(struct fuse_forget_data, nlookup, 8);
	MSIZE(struct fuse_forget_data, nlookup, 8);
	SIZE(struct fuse_custom_io, 40);
	OFFSET(struct fuse_custom_io, writev, 0);
	MSIZE(struct fuse_custom_io, writev, 8);
	OFFSET(struct fuse_custom_io, read, 8);
	MSIZE(struct fuse_custom_io, read, 8);
	OFFSET(struct fuse_custom_io, splice_receive, 16);
	MSIZE(struct fuse_custom_io, splice_receive, 8);
	OFFSET(struct fuse_custom_io, splice_send, 24);
	MSIZE(struct fuse_custom_io, splice_send, 8);
	OFFSET(struct fuse_custom_io, clone_fd, 32);
	MSIZE(struct fuse_custom_io, clone_fd, 8);
	SIZE(enum fuse_notify_entry_flags, 4);
	SIZE(struct fuse_cmdline_opts, 48);
	OFFSET(struct fuse_cmdline_opts, singlethread, 0);
	MSIZE(struct fuse_cmdline_opts, singlethread, 4);
	OFFSET(struct fuse_cmdline_opts, foreground, 4);
	MSIZE(struct fuse_cmdline_opts, foreground, 4);
	OFFSET(struct fuse_cmdline_opts, debug, 8);
	MSIZE(struct fuse_cmdline_opts, debug, 4);
	OFFSET(struct fuse_cmdline_opts, nodefault_subtype, 12);
	MSIZE(struct fuse_cmdline_opts, nodefault_subtype, 4);
	OFFSET(struct fuse_cmdline_opts, mountpoint, 16);
	MSIZE(struct fuse_cmdline_opts, mountpoint, 8);
	OFFSET(struct fuse_cmdline_opts, show_version, 24);
	MSIZE(struct fuse_cmdline_opts, show_version, 4);
	OFFSET(struct fuse_cmdline_opts, show_help, 28);
	MSIZE(struct fuse_cmdline_opts, show_help, 4);
	OFFSET(struct fuse_cmdline_opts, clone_fd, 32);
	MSIZE(struct fuse_cmdline_opts, clone_fd, 4);
	OFFSET(struct fuse_cmdline_opts, max_idle_threads, 36);
	MSIZE(struct fuse_cmdline_opts, max_idle_threads, 4);
	OFFSET(struct fuse_cmdline_opts, max_threads, 40);
	MSIZE(struct fuse_cmdline_opts, max_threads, 4);
	SIZE(struct fuse_lowlevel_ops, 368);
	OFFSET(struct fuse_lowlevel_ops, init, 0);
	MSIZE(struct fuse_lowlevel_ops, init, 8);
	OFFSET(struct fuse_lowlevel_ops, destroy, 8);
	MSIZE(struct fuse_lowlevel_ops, destroy, 8);
	OFFSET(struct fuse_lowlevel_ops, lookup, 16);
	MSIZE(struct fuse_lowlevel_ops, lookup, 8);
	OFFSET(struct fuse_lowlevel_ops, forget, 24);
	MSIZE(struct fuse_lowlevel_ops, forget, 8);
	OFFSET(struct fuse_lowlevel_ops, getattr, 32);
	MSIZE(struct fuse_lowlevel_ops, getattr, 8);
	OFFSET(struct fuse_lowlevel_ops, setattr, 40);
	MSIZE(struct fuse_lowlevel_ops, setattr, 8);
	OFFSET(struct fuse_lowlevel_ops, readlink, 48);
	MSIZE(struct fuse_lowlevel_ops, readlink, 8);
	OFFSET(struct fuse_lowlevel_ops, mknod, 56);
	MSIZE(struct fuse_lowlevel_ops, mknod, 8);
	OFFSET(struct fuse_lowlevel_ops, mkdir, 64);
	MSIZE(struct fuse_lowlevel_ops, mkdir, 8);
	OFFSET(struct fuse_lowlevel_ops, unlink, 72);
	MSIZE(struct fuse_lowlevel_ops, unlink, 8);
	OFFSET(struct fuse_lowlevel_ops, rmdir, 80);
	MSIZE(struct fuse_lowlevel_ops, rmdir, 8);
	OFFSET(struct fuse_lowlevel_ops, symlink, 88);
	MSIZE(struct fuse_lowlevel_ops, symlink, 8);
	OFFSET(struct fuse_lowlevel_ops, rename, 96);
	MSIZE(struct fuse_lowlevel_ops, rename, 8);
	OFFSET(struct fuse_lowlevel_ops, link, 104);
	MSIZE(struct fuse_lowlevel_ops, link, 8);
	OFFSET(struct fuse_lowlevel_ops, open, 112);
	MSIZE(struct fuse_lowlevel_ops, open, 8);
	OFFSET(struct fuse_lowlevel_ops, read, 120);
	MSIZE(struct fuse_lowlevel_ops, read, 8);
	OFFSET(struct fuse_lowlevel_ops, write, 128);
	MSIZE(struct fuse_lowlevel_ops, write, 8);
	OFFSET(struct fuse_lowlevel_ops, flush, 136);
	MSIZE(struct fuse_lowlevel_ops, flush, 8);
	OFFSET(struct fuse_lowlevel_ops, release, 144);
	MSIZE(struct fuse_lowlevel_ops, release, 8);
	OFFSET(struct fuse_lowlevel_ops, fsync, 152);
	MSIZE(struct fuse_lowlevel_ops, fsync, 8);
	OFFSET(struct fuse_lowlevel_ops, opendir, 160);
	MSIZE(struct fuse_lowlevel_ops, opendir, 8);
	OFFSET(struct fuse_lowlevel_ops, readdir, 168);
	MSIZE(struct fuse_lowlevel_ops, readdir, 8);
	OFFSET(struct fuse_lowlevel_ops, releasedir, 176);
	MSIZE(struct fuse_lowlevel_ops, releasedir, 8);
	OFFSET(struct fuse_lowlevel_ops, fsyncdir, 184);
	MSIZE(struct fuse_lowlevel_ops, fsyncdir, 8);
	OFFSET(struct fuse_lowlevel_ops, statfs, 192);
	MSIZE(struct fuse_lowlevel_ops, statfs, 8);
	OFFSET(struct fuse_lowlevel_ops, setxattr, 200);
	MSIZE(struct fuse_lowlevel_ops, setxattr, 8);
	OFFSET(struct fuse_lowlevel_ops, getxattr, 208);
	MSIZE(struct fuse_lowlevel_ops, getxattr, 8);
	OFFSET(struct fuse_lowlevel_ops, listxattr, 216);
	MSIZE(struct fuse_lowlevel_ops, listxattr, 8);
	OFFSET(struct fuse_lowlevel_ops, removexattr, 224);
	MSIZE(struct fuse_lowlevel_ops, removexattr, 8);
	OFFSET(struct fuse_lowlevel_ops, access, 232);
	MSIZE(struct fuse_lowlevel_ops, access, 8);
	OFFSET(struct fuse_lowlevel_ops, create, 240);
	MSIZE(struct fuse_lowlevel_ops, create, 8);
	OFFSET(struct fuse_lowlevel_ops, getlk, 248);
	MSIZE(struct fuse_lowlevel_ops, getlk, 8);
	OFFSET(struct fuse_lowlevel_ops, setlk, 256);
	MSIZE(struct fuse_lowlevel_ops, setlk, 8);
	OFFSET(struct fuse_lowlevel_ops, bmap, 264);
	MSIZE(struct fuse_lowlevel_ops, bmap, 8);
	OFFSET(struct fuse_lowlevel_ops, ioctl, 272);
	MSIZE(struct fuse_lowlevel_ops, ioctl, 8);
	OFFSET(struct fuse_lowlevel_ops, poll, 280);
	MSIZE(struct fuse_lowlevel_ops, poll, 8);
	OFFSET(struct fuse_lowlevel_ops, write_buf, 288);
	MSIZE(struct fuse_lowlevel_ops, write_buf, 8);
	OFFSET(struct fuse_lowlevel_ops, retrieve_reply, 296);
	MSIZE(struct fuse_lowlevel_ops, retrieve_reply, 8);
	OFFSET(struct fuse_lowlevel_ops, forget_multi, 304);
	MSIZE(struct fuse_lowlevel_ops, forget_multi, 8);
	OFFSET(struct fuse_lowlevel_ops, flock, 312);
	MSIZE(struct fuse_lowlevel_ops, flock, 8);
	OFFSET(struct fuse_lowlevel_ops, fallocate, 320);
	MSIZE(struct fuse_lowlevel_ops, fallocate, 8);
	OFFSET(struct fuse_lowlevel_ops, readdirplus, 328);
	MSIZE(struct fuse_lowlevel_ops, readdirplus, 8);
	OFFSET(struct fuse_lowlevel_ops, copy_file_range, 336);
	MSIZE(struct fuse_lowlevel_ops, copy_file_range, 8);
	OFFSET(struct fuse_lowlevel_ops, lseek, 344);
	MSIZE(struct fuse_lowlevel_ops, lseek, 8);
	OFFSET(struct fuse_lowlevel_ops, tmpfile, 352);
	MSIZE(struct fuse_lowlevel_ops, tmpfile, 8);
	OFFSET(struct fuse_lowlevel_ops, statx, 360);
	MSIZE(struct fuse_lowlevel_ops, statx, 8);

	/* the loop configuration: public up to API 3.11, then opaque with
	 * the old layout kept as fuse_loop_config_v1 */
#if FUSE_USE_VERSION < FUSE_MAKE_VERSION(3, 12)
	SIZE(struct fuse_loop_config, 8);
	OFFSET(struct fuse_loop_config, clone_fd, 0);
	MSIZE(struct fuse_loop_config, clone_fd, 4);
	OFFSET(struct fuse_loop_config, max_idle_threads, 4);
	MSIZE(struct fuse_loop_config, max_idle_threads, 4);
#endif
}

static void values(void)
{
	VALUE(FUSE_MAJOR_VERSION, int, 3ULL);
	VALUE(FUSE_MINOR_VERSION, int, 18ULL);
	VALUE(FUSE_HOTFIX_VERSION, int, 3ULL);
	VALUE(FUSE_VERSION, int, 318ULL);
	VALUE(FUSE_MAKE_VERSION(3, 12), int, 312ULL);
	VALUE(FUSE_ROOT_ID, int, 1ULL);
	VALUE(FUSE_CAP_ASYNC_READ, unsigned long, 1ULL);
	VALUE(FUSE_CAP_POSIX_LOCKS, unsigned long, 2ULL);
	VALUE(FUSE_CAP_ATOMIC_O_TRUNC, unsigned long, 8ULL);
	VALUE(FUSE_CAP_EXPORT_SUPPORT, unsigned long, 16ULL);
	VALUE(FUSE_CAP_DONT_MASK, unsigned long, 64ULL);
	VALUE(FUSE_CAP_SPLICE_WRITE, unsigned long, 128ULL);
	VALUE(FUSE_CAP_SPLICE_MOVE, unsigned long, 256ULL);
	VALUE(FUSE_CAP_SPLICE_READ, unsigned long, 512ULL);
	VALUE(FUSE_CAP_FLOCK_LOCKS, unsigned long, 1024ULL);
	VALUE(FUSE_CAP_IOCTL_DIR, unsigned long, 2048ULL);
	VALUE(FUSE_CAP_AUTO_INVAL_DATA, unsigned long, 4096ULL);
	VALUE(FUSE_CAP_READDIRPLUS, unsigned long, 8192ULL);
	VALUE(FUSE_CAP_READDIRPLUS_AUTO, unsigned long, 16384ULL);
	VALUE(FUSE_CAP_ASYNC_DIO, unsigned long, 32768ULL);
	VALUE(FUSE_CAP_WRITEBACK_CACHE, unsigned long, 65536ULL);
	VALUE(FUSE_CAP_NO_OPEN_SUPPORT, unsigned long, 131072ULL);
	VALUE(FUSE_CAP_PARALLEL_DIROPS, unsigned long, 262144ULL);
	VALUE(FUSE_CAP_POSIX_ACL, unsigned long, 524288ULL);
	VALUE(FUSE_CAP_HANDLE_KILLPRIV, unsigned long, 1048576ULL);
	VALUE(FUSE_CAP_HANDLE_KILLPRIV_V2, unsigned long, 2097152ULL);
	VALUE(FUSE_CAP_CACHE_SYMLINKS, unsigned long, 8388608ULL);
	VALUE(FUSE_CAP_NO_OPENDIR_SUPPORT, unsigned long, 16777216ULL);
	VALUE(FUSE_CAP_EXPLICIT_INVAL_DATA, unsigned long, 33554432ULL);
	VALUE(FUSE_CAP_EXPIRE_ONLY, unsigned long, 67108864ULL);
	VALUE(FUSE_CAP_SETXATTR_EXT, unsigned long, 134217728ULL);
	VALUE(FUSE_CAP_DIRECT_IO_ALLOW_MMAP, unsigned long, 268435456ULL);
	VALUE(FUSE_CAP_PASSTHROUGH, unsigned long, 536870912ULL);
	VALUE(FUSE_CAP_NO_EXPORT_SUPPORT, unsigned long, 1073741824ULL);
	VALUE(FUSE_CAP_OVER_IO_URING, unsigned long, 2147483648ULL);
	VALUE(FUSE_IOCTL_COMPAT, int, 1ULL);
	VALUE(FUSE_IOCTL_UNRESTRICTED, int, 2ULL);
	VALUE(FUSE_IOCTL_RETRY, int, 4ULL);
	VALUE(FUSE_IOCTL_DIR, int, 16ULL);
	VALUE(FUSE_IOCTL_MAX_IOV, int, 256ULL);
	VALUE(FUSE_BACKING_STACKED_UNDER, int, 0ULL);
	VALUE(FUSE_BACKING_STACKED_OVER, int, 1ULL);
	VALUE(FUSE_BUF_IS_FD, int, 2ULL);
	VALUE(FUSE_BUF_FD_SEEK, int, 4ULL);
	VALUE(FUSE_BUF_FD_RETRY, int, 8ULL);
	VALUE(FUSE_BUF_NO_SPLICE, int, 2ULL);
	VALUE(FUSE_BUF_FORCE_SPLICE, int, 4ULL);
	VALUE(FUSE_BUF_SPLICE_MOVE, int, 8ULL);
	VALUE(FUSE_BUF_SPLICE_NONBLOCK, int, 16ULL);
	VALUE(FUSE_LL_INVALIDATE, int, 0ULL);
	VALUE(FUSE_LL_EXPIRE_ONLY, int, 1ULL);
	VALUE(FUSE_SET_ATTR_MODE, int, 1ULL);
	VALUE(FUSE_SET_ATTR_UID, int, 2ULL);
	VALUE(FUSE_SET_ATTR_GID, int, 4ULL);
	VALUE(FUSE_SET_ATTR_SIZE, int, 8ULL);
	VALUE(FUSE_SET_ATTR_ATIME, int, 16ULL);
	VALUE(FUSE_SET_ATTR_MTIME, int, 32ULL);
	VALUE(FUSE_SET_ATTR_ATIME_NOW, int, 128ULL);
	VALUE(FUSE_SET_ATTR_MTIME_NOW, int, 256ULL);
	VALUE(FUSE_SET_ATTR_FORCE, int, 512ULL);
	VALUE(FUSE_SET_ATTR_CTIME, int, 1024ULL);
	VALUE(FUSE_SET_ATTR_KILL_SUID, int, 2048ULL);
	VALUE(FUSE_SET_ATTR_KILL_SGID, int, 4096ULL);
	VALUE(FUSE_SET_ATTR_FILE, int, 8192ULL);
	VALUE(FUSE_SET_ATTR_KILL_PRIV, int, 16384ULL);
	VALUE(FUSE_SET_ATTR_OPEN, int, 32768ULL);
	VALUE(FUSE_SET_ATTR_TIMES_SET, int, 65536ULL);
	VALUE(FUSE_SET_ATTR_TOUCH, int, 131072ULL);
}

/* The type of every member of struct fuse_lowlevel_ops, in order. */
static void op_types(void)
{
	OP(init, void (*)(void *, struct fuse_conn_info *));
	OP(destroy, void (*)(void *));
	OP(lookup, void (*)(fuse_req_t, fuse_ino_t, const char *));
	OP(forget, void (*)(fuse_req_t, fuse_ino_t, uint64_t));
	OP(getattr, void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *));
	OP(setattr, void (*)(fuse_req_t, fuse_ino_t, struct stat *, int,
			     struct fuse_file_info *));
	OP(readlink, void (*)(fuse_req_t, fuse_ino_t));
	OP(mknod,
	   void (*)(fuse_req_t, fuse_ino_t, const char *, mode_t, dev_t));
	OP(mkdir, void (*)(fuse_req_t, fuse_ino_t, const char *, mode_t));
	OP(unlink, void (*)(fuse_req_t, fuse_ino_t, const char *));
	OP(rmdir, void (*)(fuse_req_t, fuse_ino_t, const char *));
	OP(symlink,
	   void (*)(fuse_req_t, const char *, fuse_ino_t, const char *));
	OP(rename, void (*)(fuse_req_t, fuse_ino_t, const char *, fuse_ino_t,
			    const char *, unsigned int));
	OP(link, void (*)(fuse_req_t, fuse_ino_t, fuse_ino_t, const char *));
	OP(open, void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *));
	OP(read, void (*)(fuse_req_t, fuse_ino_t, size_t, off_t,
			  struct fuse_file_info *));
	OP(write, void (*)(fuse_req_t, fuse_ino_t, const char *, size_t, off_t,
			   struct fuse_file_info *));
	OP(flush, void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *));
	OP(release, void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *));
	OP(fsync,
	   void (*)(fuse_req_t, fuse_ino_t, int, struct fuse_file_info *));
	OP(opendir, void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *));
	OP(readdir, void (*)(fuse_req_t, fuse_ino_t, size_t, off_t,
			     struct fuse_file_info *));
	OP(releasedir,
	   void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *));
	OP(fsyncdir,
	   void (*)(fuse_req_t, fuse_ino_t, int, struct fuse_file_info *));
	OP(statfs, void (*)(fuse_req_t, fuse_ino_t));
	OP(setxattr, void (*)(fuse_req_t, fuse_ino_t, const char *,
			      const char *, size_t, int));
	OP(getxattr, void (*)(fuse_req_t, fuse_ino_t, const char *, size_t));
	OP(listxattr, void (*)(fuse_req_t, fuse_ino_t, size_t));
	OP(removexattr, void (*)(fuse_req_t, fuse_ino_t, const char *));
	OP(access, void (*)(fuse_req_t, fuse_ino_t, int));
	OP(create, void (*)(fuse_req_t, fuse_ino_t, const char *, mode_t,
			    struct fuse_file_info *));
	OP(getlk, void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *,
			   struct flock *));
	OP(setlk, void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *,
			   struct flock *, int));
	OP(bmap, void (*)(fuse_req_t, fuse_ino_t, size_t, uint64_t));
	/* the command became unsigned in API 3.5 */
#if FUSE_USE_VERSION < 35
	OP(ioctl, void (*)(fuse_req_t, fuse_ino_t, int, void *,
			   struct fuse_file_info *, unsigned, const void *,
			   size_t, size_t));
#else
	OP(ioctl, void (*)(fuse_req_t, fuse_ino_t, unsigned int, void *,
			   struct fuse_file_info *, unsigned, const void *,
			   size_t, size_t));
#endif
	OP(poll, void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *,
			  struct fuse_pollhandle *));
	OP(write_buf, void (*)(fuse_req_t, fuse_ino_t, struct fuse_bufvec *,
			       off_t, struct fuse_file_info *));
	OP(retrieve_reply, void (*)(fuse_req_t, void *, fuse_ino_t, off_t,
				    struct fuse_bufvec *));
	OP(forget_multi,
	   void (*)(fuse_req_t, size_t, struct fuse_forget_data *));
	OP(flock,
	   void (*)(fuse_req_t, fuse_ino_t, struct fuse_file_info *, int));
	OP(fallocate, void (*)(fuse_req_t, fuse_ino_t, int, off_t, off_t,
			       struct fuse_file_info *));
	OP(readdirplus, void (*)(fuse_req_t, fuse_ino_t, size_t, off_t,
				 struct fuse_file_info *));
	OP(copy_file_range,
	   void (*)(fuse_req_t, fuse_ino_t, off_t, struct fuse_file_info *,
		    fuse_ino_t, off_t, struct fuse_file_info *, size_t, int));
	OP(lseek, void (*)(fuse_req_t, fuse_ino_t, off_t, int,
			   struct fuse_file_info *));
	OP(tmpfile,
	   void (*)(fuse_req_t, fuse_ino_t, mode_t, struct fuse_file_info *));
	OP(statx,
	   void (*)(fuse_req_t, fuse_ino_t, int, int, struct fuse_file_info *));
}

/* The prototype of every function of the two headers. */
static void prototypes(void)
{
	/* <fuse_common.h> */
	PROTO(fuse_parse_conn_info_opts,
	      struct fuse_conn_info_opts * (*)(struct fuse_args *));
	PROTO(fuse_apply_conn_info_opts,
	      void (*)(struct fuse_conn_info_opts *, struct fuse_conn_info *));
	PROTO(fuse_daemonize, int (*)(int));
	PROTO(fuse_version, int (*)(void));
	PROTO(fuse_pkgversion, const char *(*)(void));
	PROTO(fuse_pollhandle_destroy, void (*)(struct fuse_pollhandle *));
	PROTO(fuse_buf_size, size_t(*)(const struct fuse_bufvec *));
	PROTO(fuse_buf_copy,
	      ssize_t(*)(struct fuse_bufvec *, struct fuse_bufvec *,
			 enum fuse_buf_copy_flags));
	PROTO(fuse_set_signal_handlers, int (*)(struct fuse_session *));
	PROTO(fuse_set_fail_signal_handlers, int (*)(struct fuse_session *));
	PROTO(fuse_remove_signal_handlers, void (*)(struct fuse_session *));
#if FUSE_USE_VERSION >= FUSE_MAKE_VERSION(3, 12)
	PROTO(fuse_loop_cfg_create, struct fuse_loop_config * (*)(void));
	PROTO(fuse_loop_cfg_destroy, void (*)(struct fuse_loop_config *));
	PROTO(fuse_loop_cfg_set_idle_threads,
	      void (*)(struct fuse_loop_config *, unsigned int));
	PROTO(fuse_loop_cfg_set_max_threads,
	      void (*)(struct fuse_loop_config *, unsigned int));
	PROTO(fuse_loop_cfg_set_clone_fd,
	      void (*)(struct fuse_loop_config *, unsigned int));
	PROTO(fuse_loop_cfg_convert, void (*)(struct fuse_loop_config *,
					      struct fuse_loop_config_v1 *));
#endif
	PROTO(fuse_set_feature_flag,
	      bool (*)(struct fuse_conn_info *, uint64_t));
	PROTO(fuse_unset_feature_flag,
	      void (*)(struct fuse_conn_info *, uint64_t));
	PROTO(fuse_get_feature_flag,
	      bool (*)(struct fuse_conn_info *, uint64_t));
	PROTO(fuse_convert_to_conn_want_ext, int (*)(struct fuse_conn_info *));

	/* <fuse_lowlevel.h>: replies */
	PROTO(fuse_reply_err, int (*)(fuse_req_t, int));
	PROTO(fuse_reply_none, void (*)(fuse_req_t));
	PROTO(fuse_reply_entry,
	      int (*)(fuse_req_t, const struct fuse_entry_param *));
	PROTO(fuse_reply_create,
	      int (*)(fuse_req_t, const struct fuse_entry_param *,
		      const struct fuse_file_info *));
	PROTO(fuse_reply_attr,
	      int (*)(fuse_req_t, const struct stat *, double));
	PROTO(fuse_reply_readlink, int (*)(fuse_req_t, const char *));
	PROTO(fuse_passthrough_open, int (*)(fuse_req_t, int));
	PROTO(fuse_passthrough_close, int (*)(fuse_req_t, int));
	PROTO(fuse_reply_open,
	      int (*)(fuse_req_t, const struct fuse_file_info *));
	PROTO(fuse_reply_write, int (*)(fuse_req_t, size_t));
	PROTO(fuse_reply_buf, int (*)(fuse_req_t, const char *, size_t));
	PROTO(fuse_reply_data, int (*)(fuse_req_t, struct fuse_bufvec *,
				       enum fuse_buf_copy_flags));
	PROTO(fuse_reply_iov, int (*)(fuse_req_t, const struct iovec *, int));
	PROTO(fuse_reply_statfs, int (*)(fuse_req_t, const struct statvfs *));
	PROTO(fuse_reply_xattr, int (*)(fuse_req_t, size_t));
	PROTO(fuse_reply_lock, int (*)(fuse_req_t, const struct flock *));
	PROTO(fuse_reply_bmap, int (*)(fuse_req_t, uint64_t));
	PROTO(fuse_add_direntry,
	      size_t(*)(fuse_req_t, char *, size_t, const char *,
			const struct stat *, off_t));
	PROTO(fuse_add_direntry_plus,
	      size_t(*)(fuse_req_t, char *, size_t, const char *,
			const struct fuse_entry_param *, off_t));
	PROTO(fuse_reply_ioctl_retry,
	      int (*)(fuse_req_t, const struct iovec *, size_t,
		      const struct iovec *, size_t));
	PROTO(fuse_reply_ioctl, int (*)(fuse_req_t, int, const void *, size_t));
	PROTO(fuse_reply_ioctl_iov,
	      int (*)(fuse_req_t, int, const struct iovec *, int));
	PROTO(fuse_reply_poll, int (*)(fuse_req_t, unsigned));
	PROTO(fuse_reply_lseek, int (*)(fuse_req_t, off_t));
	PROTO(fuse_reply_statx,
	      int (*)(fuse_req_t, int, struct statx *, double));

	/* notifications */
	PROTO(fuse_lowlevel_notify_poll, int (*)(struct fuse_pollhandle *));
	PROTO(fuse_lowlevel_notify_inval_inode,
	      int (*)(struct fuse_session *, fuse_ino_t, off_t, off_t));
	PROTO(fuse_lowlevel_notify_increment_epoch,
	      int (*)(struct fuse_session *));
	PROTO(fuse_lowlevel_notify_inval_entry,
	      int (*)(struct fuse_session *, fuse_ino_t, const char *, size_t));
	PROTO(fuse_lowlevel_notify_expire_entry,
	      int (*)(struct fuse_session *, fuse_ino_t, const char *, size_t));
	PROTO(fuse_lowlevel_notify_delete,
	      int (*)(struct fuse_session *, fuse_ino_t, fuse_ino_t,
		      const char *, size_t));
	PROTO(fuse_lowlevel_notify_store,
	      int (*)(struct fuse_session *, fuse_ino_t, off_t,
		      struct fuse_bufvec *, enum fuse_buf_copy_flags));
	PROTO(fuse_lowlevel_notify_retrieve,
	      int (*)(struct fuse_session *, fuse_ino_t, size_t, off_t,
		      void *));

	/* requests */
	PROTO(fuse_req_userdata, void *(*)(fuse_req_t));
	PROTO(fuse_req_ctx, const struct fuse_ctx *(*)(fuse_req_t));
	PROTO(fuse_req_getgroups, int (*)(fuse_req_t, int, gid_t *));
	check("type of fuse_interrupt_func_t",
	      _Generic((fuse_interrupt_func_t)0,
		       void (*)(fuse_req_t, void *) : 1, default : 0),
	      1);
	PROTO(fuse_req_interrupt_func,
	      void (*)(fuse_req_t, fuse_interrupt_func_t, void *));
	PROTO(fuse_req_interrupted, int (*)(fuse_req_t));
	PROTO(fuse_req_is_uring, bool (*)(fuse_req_t));
	PROTO(fuse_req_get_payload,
	      int (*)(fuse_req_t, char **, size_t *, void **));

	/* command line and help */
	PROTO(fuse_lowlevel_version, void (*)(void));
	PROTO(fuse_lowlevel_help, void (*)(void));
	PROTO(fuse_cmdline_help, void (*)(void));

	/* sessions; fuse_session_new() is a macro to this inline, which
	 * calls the versioned entry point */
	PROTO(fuse_session_new_versioned,
	      struct fuse_session *
		      (*)(struct fuse_args *, const struct fuse_lowlevel_ops *,
			  size_t, struct libfuse_version *, void *));
	PROTO(fuse_session_new_fn,
	      struct fuse_session * (*)(struct fuse_args *,
					const struct fuse_lowlevel_ops *,
					size_t, void *));
	PROTO(fuse_session_custom_io_317,
	      int (*)(struct fuse_session *, const struct fuse_custom_io *,
		      size_t, int));
	PROTO(fuse_session_mount, int (*)(struct fuse_session *, const char *));
	PROTO(fuse_session_loop, int (*)(struct fuse_session *));
	PROTO(fuse_session_exit, void (*)(struct fuse_session *));
	PROTO(fuse_session_reset, void (*)(struct fuse_session *));
	PROTO(fuse_session_exited, int (*)(struct fuse_session *));
	PROTO(fuse_session_unmount, void (*)(struct fuse_session *));
	PROTO(fuse_session_destroy, void (*)(struct fuse_session *));
	PROTO(fuse_session_fd, int (*)(struct fuse_session *));
	PROTO(fuse_session_process_buf,
	      void (*)(struct fuse_session *, const struct fuse_buf *));
	PROTO(fuse_session_receive_buf,
	      int (*)(struct fuse_session *, struct fuse_buf *));
}

/*
 * The calls whose form depends on FUSE_USE_VERSION: each API level must
 * reach the exported variant libfuse defines for it. With libfuse's own
 * headers in a build with versioned symbols, the 3.12+ forms are the plain
 * names (the linker picks the version).
 */
static void api_level_forms(void)
{
#if defined(LIBFUSE_BUILT_WITH_VERSIONED_SYMBOLS)
	PROTO(fuse_parse_cmdline,
	      int (*)(struct fuse_args *, struct fuse_cmdline_opts *));
#elif FUSE_USE_VERSION < FUSE_MAKE_VERSION(3, 12)
	PROTO(fuse_parse_cmdline_30,
	      int (*)(struct fuse_args *, struct fuse_cmdline_opts *));
#else
	PROTO(fuse_parse_cmdline_312,
	      int (*)(struct fuse_args *, struct fuse_cmdline_opts *));
#endif

#if FUSE_USE_VERSION < 32
	PROTO(fuse_session_loop_mt_31, int (*)(struct fuse_session *, int));
#elif FUSE_USE_VERSION < FUSE_MAKE_VERSION(3, 12)
	PROTO(fuse_session_loop_mt_32,
	      int (*)(struct fuse_session *, struct fuse_loop_config *));
#elif defined(LIBFUSE_BUILT_WITH_VERSIONED_SYMBOLS)
	PROTO(fuse_session_loop_mt,
	      int (*)(struct fuse_session *, struct fuse_loop_config *));
#else
	PROTO(fuse_session_loop_mt_312,
	      int (*)(struct fuse_session *, struct fuse_loop_config *));
#endif

	/* from API 3.17 the caller passes the struct's size */
#if FUSE_USE_VERSION >= FUSE_MAKE_VERSION(3, 17)
	PROTO(fuse_session_custom_io,
	      int (*)(struct fuse_session *, const struct fuse_custom_io *,
		      size_t, int));
#else
	PROTO(fuse_session_custom_io,
	      int (*)(struct fuse_session *, const struct fuse_custom_io *,
		      int));
#endif
}

/* FUSE_BUFVEC_INIT: one empty memory buffer of the given size. */
static void bufvec_init(void)
{
	struct fuse_bufvec v = FUSE_BUFVEC_INIT(4096);

	check("FUSE_BUFVEC_INIT count", v.count, 1);
	check("FUSE_BUFVEC_INIT idx", v.idx, 0);
	check("FUSE_BUFVEC_INIT off", v.off, 0);
	check("FUSE_BUFVEC_INIT buf[0].size", v.buf[0].size, 4096);
	check("FUSE_BUFVEC_INIT buf[0].flags",
	      (unsigned long long)v.buf[0].flags, 0);
	check("FUSE_BUFVEC_INIT buf[0].mem", v.buf[0].mem == NULL, 1);
	check("FUSE_BUFVEC_INIT buf[0].fd",
	      (unsigned long long)(v.buf[0].fd + 1), 0);
	check("FUSE_BUFVEC_INIT buf[0].pos", (unsigned long long)v.buf[0].pos,
	      0);
	check("FUSE_BUFVEC_INIT buf[0].mem_size", v.buf[0].mem_size, 0);
}

int main(void)
{
#if !defined(__x86_64__)
	/* the expected numbers are x86-64's (struct stat, for one, differs
	 * elsewhere): 77 tells meson the test was skipped, not passed */
	printf("fuse3-layout: the expected layouts are x86-64's; skipped\n");
	return 77;
#endif
	layouts();
	values();
	op_types();
	prototypes();
	api_level_forms();
	bufvec_init();
	printf("fuse3-layout (FUSE_USE_VERSION %d): %u checks, %u failed\n",
	       (int)FUSE_USE_VERSION, checks, failures);
	return failures == 0 ? 0 : 1;
}
