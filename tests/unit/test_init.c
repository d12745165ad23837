/* SPDX-License-Identifier: MIT */
/* INIT negotiation: init_negotiate() against the kernel's side of it
 * (doc/kernel-protocol.md, "INIT"). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../fuzz/fuzz_input.h"
#include "fake_session.h"

/* What 7.3 offers with enable_uring=1 (doc/kernel-protocol.md, "INIT"). */
#define OFFER_FLAGS  0x73fffffbu
#define OFFER_FLAGS2 0xfffu

#define LIBRARY_ONLY (FUSE_NO_OPEN_SUPPORT | FUSE_NO_OPENDIR_SUPPORT)
#define KERNEL_ONLY                                                            \
	(FUSE_SPLICE_READ | FUSE_SPLICE_WRITE | FUSE_SPLICE_MOVE |             \
	 FUSE_NO_OPEN_SUPPORT | FUSE_NO_OPENDIR_SUPPORT | FUSE_INIT_RESERVED | \
	 FUSE_HAS_INODE_DAX | FUSE_HAS_EXPIRE_ONLY | FUSE_HAS_RESEND |         \
	 FUSE_HAS_IO_URING_BUFPOOL | FUSE_MAP_ALIGNMENT | FUSE_SUBMOUNTS)

/* What libfring asks for with every callback present. */
#define WANT_ALL                                                               \
	(FUSE_ASYNC_READ | FUSE_POSIX_LOCKS | FUSE_ATOMIC_O_TRUNC |            \
	 FUSE_BIG_WRITES | FUSE_FLOCK_LOCKS | FUSE_HAS_IOCTL_DIR |             \
	 FUSE_AUTO_INVAL_DATA | FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO |  \
	 FUSE_ASYNC_DIO | FUSE_MAX_PAGES | FUSE_SETXATTR_EXT)

static struct fuse_init_in in;
static struct fuse_init_out out;
static size_t outlen;
static unsigned limit; /* fs.fuse.max_pages_limit as the library reads it */

static int setup(void **state)
{
	FILE *f;

	if (fk_setup(state))
		return -1;
	fk.se->got_init = false;
	memset(&fk.se->conn, 0, sizeof(fk.se->conn));
	fk.se->setxattr_ext = false;
	memset(&in, 0, sizeof(in));
	in.major = 7;
	in.minor = 46;
	in.max_readahead = 131072;
	in.flags = OFFER_FLAGS;
	in.flags2 = OFFER_FLAGS2;
	limit = 256;
	f = fopen("/proc/sys/fs/fuse/max_pages_limit", "re");
	if (f) {
		if (fscanf(f, "%u", &limit) != 1 || limit == 0)
			limit = 256;
		fclose(f);
	}
	if (limit > 65535)
		limit = 65535;
	return 0;
}

/* A seed for tests/fuzz/fuzz_init: the options that differ from the
 * defaults (in its head), then the fuse_init_in. */
static void record_init(const void *p, size_t inlen)
{
	unsigned char head[FZI_HEAD_LEN] = {0};
	uint32_t mw = fk.se->cfg.max_write - 4096 + 1;

	if (fk.se->cfg.max_write != 1u << 20)
		for (int i = 0; i < 4; i++)
			head[10 + i] = (unsigned char)(mw >> (8 * i));
	head[14] = (unsigned char)(fk.se->cfg.max_readahead / 4096);
	head[15] = (unsigned char)(fk.se->cfg.max_read / 4096);
	fk_record("init", head, sizeof(head), p, inlen);
}

/* Negotiates with the first inlen bytes of `in`, placed so that the byte
 * after them is unreadable. */
static int nego_len(size_t inlen)
{
	unsigned char *p = fk.guard_base + fk.guard_len - inlen;

	memcpy(p, &in, inlen < sizeof(in) ? inlen : sizeof(in));
	record_init(p, inlen);
	memset(&out, 0xee, sizeof(out));
	outlen = 12345;
	fk_reset();
	return init_negotiate(fk.se, (const void *)p, inlen, &out, &outlen);
}

static int nego(void)
{
	return nego_len(sizeof(in));
}

static uint64_t out_flags64(void)
{
	return out.flags |
	       (out.flags & FUSE_INIT_EXT ? (uint64_t)out.flags2 << 32 : 0);
}

static void test_modern_kernel(void **state)
{
	const struct fring_conn *c = &fk.se->conn;

	(void)state;
	assert_int_equal(nego(), 0);
	assert_int_equal(outlen, 64);
	assert_int_equal(out.major, 7);
	assert_int_equal(out.minor, 46);
	assert_int_equal(out.flags, (uint32_t)WANT_ALL);
	/* nothing above bit 31 wanted: no INIT_EXT, flags2 0 */
	assert_int_equal(out.flags2, 0);
	assert_int_equal(out.max_readahead, 131072);
	assert_int_equal(out.max_write, 1u << 20);
	assert_int_equal(out.max_pages, limit < 256 ? limit : 256);
	assert_int_equal(out.time_gran, 1);
	/* the library's limit, not the kernel's 12; the threshold 3/4 of it */
	assert_int_equal(out.max_background, 256);
	assert_int_equal(out.congestion_threshold, 192);
	assert_int_equal(out.map_alignment, 0);
	assert_int_equal(out.max_stack_depth, 0);
	assert_int_equal(out.request_timeout, 0);
	for (int i = 0; i < 11; i++)
		assert_int_equal(out.unused[i], 0);
	/* the session's record of it */
	assert_true(fk.se->got_init);
	assert_true(fk.se->setxattr_ext);
	assert_int_equal(c->proto_major, 7);
	assert_int_equal(c->proto_minor, 46);
	assert_int_equal(c->capable,
			 OFFER_FLAGS | (uint64_t)OFFER_FLAGS2 << 32);
	assert_int_equal(c->want, WANT_ALL);
	assert_int_equal(c->max_write, 1u << 20);
	assert_int_equal(c->max_pages, out.max_pages);
	assert_int_equal(c->max_readahead, 131072);
	/* the init callback ran once and saw the offer and the proposal */
	assert_int_equal(fk.calls[CB_INIT], 1);
	assert_ptr_equal(fk.c.userdata, fk.se->userdata);
	assert_int_equal(fk.init_seen.proto_major, 7);
	assert_int_equal(fk.init_seen.proto_minor, 46);
	assert_int_equal(fk.init_seen.capable, c->capable);
	assert_int_equal(fk.init_seen.want, WANT_ALL);
	assert_int_equal(fk.init_seen.max_write, 1u << 20);
	assert_int_equal(fk.init_seen.max_pages, out.max_pages);
	assert_int_equal(fk.init_seen.time_gran, 1);
	assert_int_equal(fk.init_seen.max_readahead, 131072);
}

static void test_minor(void **state)
{
	static const struct {
		uint32_t kernel, reply;
		size_t outlen;
	} cases[] = {
		{12, 12, 24}, {13, 13, 24}, {22, 22, 24},	  {23, 23, 64},
		{35, 35, 64}, {36, 36, 64}, {45, 45, 64},	  {46, 46, 64},
		{47, 46, 64}, {99, 46, 64}, {UINT32_MAX, 46, 64},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		in.minor = cases[i].kernel;
		assert_int_equal(nego(), 0);
		assert_int_equal(out.major, 7);
		assert_int_equal(out.minor, cases[i].reply);
		assert_int_equal(outlen, cases[i].outlen);
	}
}

static void test_too_old(void **state)
{
	static const uint32_t majors[] = {0, 6, 7, 7, 7};
	static const uint32_t minors[] = {46, 46, 11, 5, 0};

	(void)state;
	for (int i = 0; i < 5; i++) {
		in.major = majors[i];
		in.minor = minors[i];
		assert_int_equal(nego(), -EPROTO);
		assert_false(fk.se->got_init);
		assert_int_equal(fk.calls[CB_INIT], 0);
	}
}

static void test_newer_major(void **state)
{
	(void)state;
	in.major = 8;
	in.minor = 0;
	assert_int_equal(nego(), 1);
	assert_int_equal(outlen, 8);
	assert_int_equal(out.major, 7);
	assert_int_equal(out.minor, 46);
	assert_false(fk.se->got_init);
	assert_int_equal(fk.calls[CB_INIT], 0);
	/* ... then the kernel retries in 7.x */
	in.major = 7;
	in.minor = 46;
	assert_int_equal(nego(), 0);
	assert_true(fk.se->got_init);
}

static void test_short_init_in(void **state)
{
	(void)state;
	/* kernels before 7.36 send 16 bytes: no flags2 */
	in.minor = 35;
	in.flags |= FUSE_INIT_EXT;
	assert_int_equal(nego_len(16), 0);
	assert_int_equal(fk.se->conn.capable, in.flags);
	assert_int_equal(out.minor, 35);
	/* 8 bytes: major and minor only */
	in.minor = 46;
	assert_int_equal(nego_len(8), 0);
	assert_int_equal(fk.se->conn.capable, 0);
	assert_int_equal(fk.se->conn.max_readahead, 0);
	assert_int_equal(out.flags, 0);
	/* less is invalid */
	for (size_t n = 0; n < 8; n++)
		assert_int_equal(nego_len(n), -EINVAL);
	/* a longer message: the rest is ignored */
	{
		unsigned char *p = fk.guard_base + fk.guard_len - 104;

		memset(p, 0xff, 104);
		memcpy(p, &in, sizeof(in));
		assert_int_equal(init_negotiate(fk.se, (const void *)p, 104,
						&out, &outlen),
				 0);
		assert_int_equal(outlen, 64);
	}
}

static void test_flags2_needs_init_ext(void **state)
{
	(void)state;
	/* flags2 without INIT_EXT in the offer does not count */
	in.flags &= ~(uint32_t)FUSE_INIT_EXT;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->conn.capable >> 32, 0);
	/* nor before 7.36 */
	in.flags |= (uint32_t)FUSE_INIT_EXT;
	in.minor = 35;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->conn.capable >> 32, 0);
}

static uint64_t hook_want_add, hook_want_del;

static void want_hook(struct fring_conn *c)
{
	c->want |= hook_want_add;
	c->want &= ~hook_want_del;
}

static void test_flags2_answer(void **state)
{
	(void)state;
	fk.init_hook = want_hook;
	hook_want_add = FUSE_OVER_IO_URING | FUSE_REQUEST_TIMEOUT |
			FUSE_PASSTHROUGH | FUSE_HAS_IO_URING_BUFPOOL;
	assert_int_equal(nego(), 0);
	/* flags2 goes with INIT_EXT in the reply's flags */
	assert_true(out.flags & FUSE_INIT_EXT);
	assert_int_equal(out.flags2, 0x200 | 0x400 | 0x20);
	/* the pool capability is never echoed */
	assert_int_equal(out.flags2 & 0x800, 0);
	assert_int_equal(fk.se->conn.want & FUSE_HAS_IO_URING_BUFPOOL, 0);
	assert_int_equal(out_flags64() & ~FUSE_INIT_EXT, fk.se->conn.want);

	/* not offered: dropped, and then no INIT_EXT either */
	in.flags2 = 0;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.flags2, 0);
	assert_int_equal(out.flags & FUSE_INIT_EXT, 0);
	assert_int_equal(fk.se->conn.want >> 32, 0);
}

/* SECURITY_CTX only where the context comes as an extension (7.38) */
static void test_security_ctx(void **state)
{
	(void)state;
	fk.init_hook = want_hook;
	hook_want_add = FUSE_SECURITY_CTX;
	in.flags2 = (uint32_t)(FUSE_SECURITY_CTX >> 32);
	assert_int_equal(nego(), 0);
	assert_true(fk.se->conn.want & FUSE_SECURITY_CTX);
	assert_true(out.flags & FUSE_INIT_EXT);
	assert_int_equal(out.flags2, FUSE_SECURITY_CTX >> 32);
	assert_int_equal(fk.nlog, 0);
	/* 7.36 and 7.37 offer it and append the context unannounced */
	for (uint32_t minor = 36; minor <= 37; minor++) {
		in.minor = minor;
		assert_int_equal(nego(), 0);
		assert_int_equal(fk.se->conn.want & FUSE_SECURITY_CTX, 0);
		assert_int_equal(out.flags2, 0);
		assert_int_equal(fk.nlog, 1);
		assert_non_null(strstr(fk.lastlog, "7.38"));
		fk.nlog = 0;
	}
	/* not asked for: nothing said */
	hook_want_add = 0;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.nlog, 0);
}

static void test_kernel_only_caps(void **state)
{
	(void)state;
	fk.init_hook = want_hook;
	hook_want_add = ~0ull;
	in.flags = UINT32_MAX;
	in.flags2 = UINT32_MAX;
	assert_int_equal(nego(), 0);
	assert_int_equal(out_flags64() & KERNEL_ONLY, 0);
	/* the no-open pair stays in want for the library, never sent */
	assert_int_equal(fk.se->conn.want & KERNEL_ONLY, LIBRARY_ONLY);
	assert_int_equal(fk.se->conn.want & FUSE_INIT_EXT, 0);
	assert_true(out.flags & FUSE_INIT_EXT);
	/* everything else offered and wanted is granted, but passthrough,
	 * which the kernel ignores next to the writeback cache */
	assert_int_equal(fk.se->conn.want,
			 ~0ull & ~((KERNEL_ONLY & ~LIBRARY_ONLY) |
				   FUSE_INIT_EXT | FUSE_PASSTHROUGH));
}

/* FUSE_NO_OPEN(DIR)_SUPPORT wanted without an open (opendir) callback:
 * the library answers ENOSYS for it, as libfuse does; with the callback,
 * or without the bit, nothing changes. */
static void test_no_open(void **state)
{
	struct fring_ops *ops = &fk.se->ops;
	const struct fring_ops all = *ops;

	(void)state;
	fk.init_hook = want_hook;
	hook_want_add = LIBRARY_ONLY;
	in.flags |= LIBRARY_ONLY;
	assert_int_equal(nego(), 0);
	assert_false(fk.se->no_open);
	assert_false(fk.se->no_opendir);
	ops->open = NULL;
	assert_int_equal(nego(), 0);
	assert_true(fk.se->no_open);
	assert_false(fk.se->no_opendir);
	ops->opendir = NULL;
	assert_int_equal(nego(), 0);
	assert_true(fk.se->no_opendir);
	assert_int_equal(out_flags64() & LIBRARY_ONLY, 0);
	/* not offered: the kernel would take ENOSYS as an error */
	in.flags &= ~(uint32_t)LIBRARY_ONLY;
	assert_int_equal(nego(), 0);
	assert_false(fk.se->no_open);
	assert_false(fk.se->no_opendir);
	/* not wanted */
	in.flags |= LIBRARY_ONLY;
	hook_want_add = 0;
	assert_int_equal(nego(), 0);
	assert_false(fk.se->no_open);
	*ops = all;
}

static uint32_t hook_stack_depth;

static void passthrough_hook(struct fring_conn *c)
{
	c->want |= hook_want_add;
	c->max_stack_depth = hook_stack_depth;
}

/* process_init_reply() takes passthrough only with 0 < max_stack_depth <= 2
 * and without the writeback cache: the library sends nothing it ignores. */
static void test_passthrough(void **state)
{
	(void)state;
	/* not asked: no depth */
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_stack_depth, 0);
	assert_int_equal(fk.se->conn.max_stack_depth, 0);

	fk.init_hook = passthrough_hook;
	hook_want_add = FUSE_PASSTHROUGH;
	hook_stack_depth = 0;
	assert_int_equal(nego(), 0);
	assert_true(out.flags & FUSE_INIT_EXT);
	assert_true(out.flags2 & (FUSE_PASSTHROUGH >> 32));
	assert_int_equal(out.max_stack_depth, 1);
	assert_int_equal(fk.se->conn.max_stack_depth, 1);

	hook_stack_depth = 2;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_stack_depth, 2);
	hook_stack_depth = 3;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_stack_depth, 2);
	assert_non_null(strstr(fk.lastlog, "max_stack_depth 3"));

	/* with the writeback cache: dropped, and said so */
	hook_want_add = FUSE_PASSTHROUGH | FUSE_WRITEBACK_CACHE;
	hook_stack_depth = 1;
	assert_int_equal(nego(), 0);
	assert_int_equal(out_flags64() & FUSE_PASSTHROUGH, 0);
	assert_true(out.flags & FUSE_WRITEBACK_CACHE);
	assert_int_equal(out.max_stack_depth, 0);
	assert_int_equal(fk.se->conn.want & FUSE_PASSTHROUGH, 0);
	assert_non_null(strstr(fk.lastlog, "writeback cache"));

	/* not offered (before 6.9): dropped with the INIT warning */
	hook_want_add = FUSE_PASSTHROUGH;
	in.flags2 &= ~(uint32_t)(FUSE_PASSTHROUGH >> 32);
	assert_int_equal(nego(), 0);
	assert_int_equal(out_flags64() & FUSE_PASSTHROUGH, 0);
	assert_int_equal(out.max_stack_depth, 0);
}

static void test_want_intersected(void **state)
{
	(void)state;
	fk.init_hook = want_hook;
	/* offered: kept */
	hook_want_add = FUSE_WRITEBACK_CACHE | FUSE_PARALLEL_DIROPS;
	assert_int_equal(nego(), 0);
	assert_true(out.flags & FUSE_WRITEBACK_CACHE);
	assert_true(out.flags & FUSE_PARALLEL_DIROPS);
	/* not offered: dropped with a warning */
	in.flags &= ~(uint32_t)(FUSE_WRITEBACK_CACHE | FUSE_ASYNC_READ);
	fk.nlog = 0;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.flags & FUSE_WRITEBACK_CACHE, 0);
	assert_int_equal(out.flags & FUSE_ASYNC_READ, 0);
	assert_true(fk.nlog > 0);
	/* the filesystem may turn defaults off */
	hook_want_add = 0;
	hook_want_del = FUSE_ASYNC_READ | FUSE_AUTO_INVAL_DATA;
	in.flags = OFFER_FLAGS;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.flags & (FUSE_ASYNC_READ | FUSE_AUTO_INVAL_DATA),
			 0);
	assert_int_equal(out.flags, (uint32_t)(WANT_ALL & ~hook_want_del));
	hook_want_del = 0;
}

static uint32_t hook_fs_flags;

static void fs_flags_hook(struct fring_conn *c)
{
	c->fs_flags = hook_fs_flags;
}

/* fs_flags: the filesystem's declarations stay in the session's conn and
 * never reach the kernel; bits the library does not know are dropped with
 * a warning. */
static void test_fs_flags(void **state)
{
	struct fuse_init_out plain;

	(void)state;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->conn.fs_flags, 0);
	plain = out;
	fk.init_hook = fs_flags_hook;
	hook_fs_flags = FRING_FS_ZERO_COPY;
	fk.nlog = 0;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->conn.fs_flags, FRING_FS_ZERO_COPY);
	assert_int_equal(fk.nlog, 0);
	assert_memory_equal(&out, &plain, sizeof(out));
	hook_fs_flags = FRING_FS_ZERO_COPY | 0x80000004u;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->conn.fs_flags, FRING_FS_ZERO_COPY);
	assert_true(fk.nlog > 0);
	assert_non_null(strstr(fk.lastlog, "0x80000004"));
	assert_memory_equal(&out, &plain, sizeof(out));
}

static void test_capability_callbacks(void **state)
{
	struct fring_ops *ops = &fk.se->ops;
	const struct fring_ops all = *ops;

	(void)state;
	/* no lock callbacks: the kernel keeps locks locally */
	ops->getlk = NULL;
	ops->setlk = NULL;
	ops->flock = NULL;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.flags & (FUSE_POSIX_LOCKS | FUSE_FLOCK_LOCKS), 0);
	/* POSIX locks need both getlk and setlk */
	ops->getlk = all.getlk;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.flags & FUSE_POSIX_LOCKS, 0);
	ops->getlk = NULL;
	ops->setlk = all.setlk;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.flags & FUSE_POSIX_LOCKS, 0);
	ops->getlk = all.getlk;
	assert_int_equal(nego(), 0);
	assert_true(out.flags & FUSE_POSIX_LOCKS);
	assert_int_equal(out.flags & FUSE_FLOCK_LOCKS, 0);
	/* flock alone */
	ops->getlk = NULL;
	ops->setlk = NULL;
	ops->flock = all.flock;
	assert_int_equal(nego(), 0);
	assert_true(out.flags & FUSE_FLOCK_LOCKS);
	assert_int_equal(out.flags & FUSE_POSIX_LOCKS, 0);
	/* and never more than the kernel offers */
	in.flags &= ~(uint32_t)FUSE_FLOCK_LOCKS;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.flags & FUSE_FLOCK_LOCKS, 0);
	in.flags = OFFER_FLAGS;
	/* readdirplus and ioctl */
	ops->readdirplus = NULL;
	ops->ioctl = NULL;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.flags &
				 (FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO |
				  FUSE_HAS_IOCTL_DIR),
			 0);
	ops->readdirplus = all.readdirplus;
	ops->ioctl = all.ioctl;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.flags &
				 (FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO |
				  FUSE_HAS_IOCTL_DIR),
			 FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO |
				 FUSE_HAS_IOCTL_DIR);
	/* a filesystem without an init callback gets the defaults */
	ops->init = NULL;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.calls[CB_INIT], 0);
	assert_true(out.flags & FUSE_MAX_PAGES);
}

static void test_setxattr_ext(void **state)
{
	(void)state;
	assert_int_equal(nego(), 0);
	assert_true(fk.se->setxattr_ext);
	in.flags &= ~(uint32_t)FUSE_SETXATTR_EXT;
	assert_int_equal(nego(), 0);
	assert_false(fk.se->setxattr_ext);
	in.flags = OFFER_FLAGS;
	fk.init_hook = want_hook;
	hook_want_del = FUSE_SETXATTR_EXT;
	assert_int_equal(nego(), 0);
	assert_false(fk.se->setxattr_ext);
	assert_int_equal(out.flags & FUSE_SETXATTR_EXT, 0);
	hook_want_del = 0;
}

static void test_max_pages(void **state)
{
	static const struct {
		unsigned max_write, pages;
	} cases[] = {
		{4096, 1},	   {4097, 2},	    {65536, 16},
		{131072, 32},	   {1u << 20, 256}, {(1u << 20) + 1, 257},
		{16u << 20, 4096},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned want = cases[i].pages < limit ? cases[i].pages : limit;

		fk.se->cfg.max_write = cases[i].max_write;
		assert_int_equal(nego(), 0);
		assert_int_equal(out.max_write, cases[i].max_write);
		assert_int_equal(out.max_pages, want);
		assert_int_equal(fk.se->conn.max_pages, want);
		assert_true(out.flags & FUSE_MAX_PAGES);
	}
	/* without MAX_PAGES offered: the kernel's default of 32 */
	fk.se->cfg.max_write = 1u << 20;
	in.flags &= ~(uint32_t)FUSE_MAX_PAGES;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_pages, 32);
	assert_int_equal(out.flags & FUSE_MAX_PAGES, 0);
}

static struct fring_conn hook_set;
static unsigned hook_fields;
#define HF_MAX_WRITE  1u
#define HF_MAX_PAGES  2u
#define HF_BACKGROUND 4u
#define HF_TIME_GRAN  8u
#define HF_READAHEAD  16u
#define HF_TIMEOUT    32u

static void limits_hook(struct fring_conn *c)
{
	if (hook_fields & HF_MAX_WRITE)
		c->max_write = hook_set.max_write;
	if (hook_fields & HF_MAX_PAGES)
		c->max_pages = hook_set.max_pages;
	if (hook_fields & HF_BACKGROUND) {
		c->max_background = hook_set.max_background;
		c->congestion_threshold = hook_set.congestion_threshold;
	}
	if (hook_fields & HF_TIME_GRAN)
		c->time_gran = hook_set.time_gran;
	if (hook_fields & HF_READAHEAD)
		c->max_readahead = hook_set.max_readahead;
	if (hook_fields & HF_TIMEOUT) {
		c->request_timeout = hook_set.request_timeout;
		c->want |= FUSE_REQUEST_TIMEOUT;
	}
}

static void drop_timeout_hook(struct fring_conn *c)
{
	c->request_timeout = 40;
	c->want &= ~FUSE_REQUEST_TIMEOUT;
}

static void test_callback_limits(void **state)
{
	(void)state;
	fk.init_hook = limits_hook;

	hook_fields = HF_MAX_WRITE;
	hook_set.max_write = 100;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_write, 4096);
	assert_int_equal(fk.se->conn.max_write, 4096);
	hook_set.max_write = 64u << 20;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_write, 16u << 20);
	hook_set.max_write = 262144;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_write, 262144);

	/* pages follow max_write as clamped (found by fuzz_init: 0 and
	 * values near UINT32_MAX gave the default 32 pages) */
	hook_set.max_write = 0;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_write, 4096);
	assert_int_equal(out.max_pages, 1);
	hook_set.max_write = UINT32_MAX;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_write, 16u << 20);
	assert_int_equal(out.max_pages, limit < 4096 ? limit : 4096);

	hook_fields = HF_MAX_PAGES;
	hook_set.max_pages = 0;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_pages, 32);
	hook_set.max_pages = 100000;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_pages, limit);
	hook_set.max_pages = 3;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_pages, 3);

	/* init's limit and threshold -> what INIT sends: clamped to 16 bits;
	 * a threshold above the limit (never met) cut to it; none given,
	 * 3/4 of the limit rounded up (1 of 1, 9 of 12); both 0 leave the
	 * kernel's own */
	static const unsigned bg[][4] = {
		{70000, 100000, 65535, 65535},
		{64, 48, 64, 48},
		{40, 50, 40, 40},
		{1, 0, 1, 1},
		{12, 0, 12, 9},
		{0, 0, 0, 0},
	};
	hook_fields = HF_BACKGROUND;
	for (size_t i = 0; i < sizeof(bg) / sizeof(bg[0]); i++) {
		hook_set.max_background = bg[i][0];
		hook_set.congestion_threshold = bg[i][1];
		assert_int_equal(nego(), 0);
		assert_int_equal(out.max_background, bg[i][2]);
		assert_int_equal(out.congestion_threshold, bg[i][3]);
	}

	hook_fields = HF_TIME_GRAN;
	hook_set.time_gran = 0;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.time_gran, 1);
	hook_set.time_gran = 2000000000u;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.time_gran, 1);
	hook_set.time_gran = 1000000000u;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.time_gran, 1000000000u);
	hook_set.time_gran = 1000;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.time_gran, 1000);

	hook_fields = HF_READAHEAD;
	hook_set.max_readahead = 1u << 30;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_readahead, 131072);
	hook_set.max_readahead = 8192;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_readahead, 8192);

	hook_fields = HF_TIMEOUT;
	hook_set.request_timeout = 70000;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.request_timeout, 65535);
	assert_true(out.flags & FUSE_INIT_EXT);
	assert_true(out.flags2 & (FUSE_REQUEST_TIMEOUT >> 32));
	hook_set.request_timeout = 30;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.request_timeout, 30);
}

static void test_cfg_limits(void **state)
{
	(void)state;
	fk.se->cfg.max_readahead = 4096;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_readahead, 4096);
	fk.se->cfg.max_readahead = 1u << 20; /* more than the kernel offers */
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_readahead, 131072);
	fk.se->cfg.max_read = 65536;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->conn.max_read, 65536);
	assert_int_equal(fk.init_seen.max_read, 65536);
	/* -o max_background, -o congestion_threshold: proposed to init */
	fk.se->cfg.max_background = 100;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.init_seen.max_background, 100);
	assert_int_equal(out.max_background, 100);
	assert_int_equal(out.congestion_threshold, 75);
	fk.se->cfg.congestion_threshold = 10;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.init_seen.congestion_threshold, 10);
	assert_int_equal(out.congestion_threshold, 10);
	fk.se->cfg.max_background = 0; /* the kernel's 12 */
	fk.se->cfg.congestion_threshold = 0;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.max_background, 0);
	assert_int_equal(out.congestion_threshold, 0);
}

/* -o request_timeout: asked for only when the kernel offers it */
static void test_request_timeout_option(void **state)
{
	(void)state;
	fk.se->cfg.request_timeout = 20;
	assert_int_equal(nego(), 0);
	assert_true(out.flags & FUSE_INIT_EXT);
	assert_true(out.flags2 & (FUSE_REQUEST_TIMEOUT >> 32));
	assert_int_equal(out.request_timeout, 20);
	assert_int_equal(fk.se->conn.request_timeout, 20);
	/* the init callback sees the proposal */
	assert_true(fk.init_seen.want & FUSE_REQUEST_TIMEOUT);
	assert_int_equal(fk.init_seen.request_timeout, 20);

	/* a kernel without it: nothing asked, a warning */
	in.flags2 &= ~(uint32_t)(FUSE_REQUEST_TIMEOUT >> 32);
	fk.nlog = 0;
	assert_int_equal(nego(), 0);
	assert_false(out_flags64() & FUSE_REQUEST_TIMEOUT);
	assert_int_equal(out.request_timeout, 0);
	assert_int_equal(fk.se->conn.request_timeout, 0);
	assert_true(fk.nlog >= 1);
	assert_non_null(strstr(fk.lastlog, "request_timeout=20"));

	/* a value without the flag is not sent */
	fk.se->cfg.request_timeout = 0;
	in.flags2 = OFFER_FLAGS2;
	fk.init_hook = limits_hook;
	hook_fields = HF_TIMEOUT;
	hook_set.request_timeout = 30;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.request_timeout, 30);
	fk.init_hook = drop_timeout_hook;
	assert_int_equal(nego(), 0);
	assert_int_equal(out.request_timeout, 0);
}

/* -o splice_*: proposed in want, kept in se->splice, never sent back */
static void test_splice_options(void **state)
{
	const uint64_t all =
		FUSE_SPLICE_READ | FUSE_SPLICE_WRITE | FUSE_SPLICE_MOVE;

	(void)state;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->splice, 0);
	assert_int_equal(fk.init_seen.want & all, 0);

	fk.se->cfg.splice_read = fk.se->cfg.splice_write = true;
	fk.se->cfg.splice_move = true;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->splice, all);
	assert_int_equal(fk.init_seen.want & all, all);
	assert_int_equal(out_flags64() & all, 0);

	/* the init callback may refuse one */
	fk.init_hook = want_hook;
	hook_want_del = FUSE_SPLICE_READ;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->splice, FUSE_SPLICE_WRITE | FUSE_SPLICE_MOVE);

	/* a kernel that does not offer them: none */
	hook_want_del = 0;
	in.flags &= ~(uint32_t)all;
	assert_int_equal(nego(), 0);
	assert_int_equal(fk.se->splice, 0);
}

static void test_payload_size(void **state)
{
	struct fring_conn c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.max_write = 4096;
	c.max_pages = 1;
	assert_int_equal(init_payload_size(&c), 8192);
	c.max_write = 1u << 20;
	c.max_pages = 256;
	assert_int_equal(init_payload_size(&c), 1u << 20);
	c.max_write = 128u << 10;
	c.max_pages = 32;
	assert_int_equal(init_payload_size(&c), 131072);
	c.max_write = 4096;
	c.max_pages = 256;
	assert_int_equal(init_payload_size(&c), 1u << 20);
	c.max_write = 16u << 20;
	c.max_pages = 256;
	assert_int_equal(init_payload_size(&c), 16u << 20);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fk_teardown)
	const struct CMUnitTest tests[] = {
		T(test_modern_kernel),
		T(test_minor),
		T(test_too_old),
		T(test_newer_major),
		T(test_short_init_in),
		T(test_flags2_needs_init_ext),
		T(test_flags2_answer),
		T(test_security_ctx),
		T(test_kernel_only_caps),
		T(test_no_open),
		T(test_want_intersected),
		T(test_capability_callbacks),
		T(test_fs_flags),
		T(test_setxattr_ext),
		T(test_max_pages),
		T(test_callback_limits),
		T(test_cfg_limits),
		T(test_payload_size),
		T(test_request_timeout_option),
		T(test_passthrough),
		T(test_splice_options),
	};

	return cmocka_run_group_tests_name("init", tests, NULL, NULL);
}
