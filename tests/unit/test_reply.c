/* SPDX-License-Identifier: MIT */
/*
 * The reply encoder: the exact bytes each fring_reply_*() sends, and the
 * checks that turn a wrong answer into EIO (wrong type for the opcode, more
 * data than asked for, errno out of range).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "fake_session.h"

static struct mb m;
static int ret;	     /* what the hook's reply returned */
static size_t rsize; /* sizes/counts handed to the hooks */
static const void *rbuf;
static struct fring_entry ent;
static struct fring_file ofi;
static struct stat rst;
static double rtimeout;
static int rerr;
static struct flock rlock;

/* Dispatches op with arg0 (arglen bytes) and an optional name; the
 * callback answers through hook. */
static void run(uint32_t op, uint64_t nodeid, const void *arg, size_t arglen,
		const char *name, fk_hook hook)
{
	mb_init(&m, op, nodeid);
	if (arglen)
		mb_add(&m, arg, arglen);
	if (name)
		mb_str(&m, name);
	fk_reset();
	ret = 12345;
	fk.hook = hook;
	assert_int_equal(fk_dispatch(&m), 0);
	assert_int_equal(fk.ncalls, 1);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk_out_unique(), mb_ih(&m)->unique);
	assert_int_equal(fk_out_len(), fk.last.len);
	fk_check_idle();
}

/* A success answer of exactly `len` argument bytes. */
static void expect_ok(size_t len)
{
	assert_int_equal(ret, 0);
	assert_int_equal(fk_out_error(), 0);
	assert_int_equal(fk_out_arglen(), len);
}

/* A header-only error answer; bug: counted as a handler bug. */
static void expect_err(int err, bool bug, uint64_t bugs_before)
{
	assert_int_equal(fk.last.len, 16);
	assert_int_equal(fk_out_error(), -err);
	assert_int_equal(fk_handler_bugs(), bugs_before + (bug ? 1 : 0));
}

/* ---------------- expected encodings, built by offsets ---------------- */

static void put32(unsigned char *b, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *b, size_t off, uint64_t v)
{
	put32(b, off, (uint32_t)v);
	put32(b, off + 4, (uint32_t)(v >> 32));
}

static struct stat sample_stat(void)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_ino = 999; /* ignored where an ino is given */
	st.st_size = 0x123456789;
	st.st_blocks = 77;
	st.st_atim.tv_sec = 100;
	st.st_atim.tv_nsec = 5;
	st.st_mtim.tv_sec = 200;
	st.st_mtim.tv_nsec = 6;
	st.st_ctim.tv_sec = 300;
	st.st_ctim.tv_nsec = 999999999;
	st.st_mode = S_IFREG | 0644;
	st.st_nlink = 2;
	st.st_uid = 1000;
	st.st_gid = 1001;
	st.st_rdev = makedev(300, 70000);
	st.st_blksize = 4096;
	return st;
}

/* fuse_attr (88 bytes) for sample_stat() with the given ino. */
static void exp_attr(unsigned char *b, uint64_t ino)
{
	put64(b, 0, ino);
	put64(b, 8, 0x123456789);
	put64(b, 16, 77);
	put64(b, 24, 100);
	put64(b, 32, 200);
	put64(b, 40, 300);
	put32(b, 48, 5);
	put32(b, 52, 6);
	put32(b, 56, 999999999);
	put32(b, 60, S_IFREG | 0644);
	put32(b, 64, 2);
	put32(b, 68, 1000);
	put32(b, 72, 1001);
	/* the kernel's new_encode_dev(MKDEV(300, 70000)) */
	put32(b, 76, (70000 & 0xff) | (300 << 8) | ((70000 & ~0xffu) << 12));
	put32(b, 80, 4096);
	put32(b, 84, 0);
}

static struct fring_entry sample_entry(void)
{
	struct fring_entry e;

	memset(&e, 0, sizeof(e));
	e.ino = 0x1234;
	e.generation = 7;
	e.attr = sample_stat();
	e.attr.st_ino = 0; /* attr.ino: the node id */
	e.attr_timeout = 1.5;
	e.entry_timeout = 2.25;
	return e;
}

static void exp_entry(unsigned char *b)
{
	put64(b, 0, 0x1234);
	put64(b, 8, 7);
	put64(b, 16, 2);	 /* entry_valid */
	put64(b, 24, 1);	 /* attr_valid */
	put32(b, 32, 250000000); /* entry_valid_nsec */
	put32(b, 36, 500000000); /* attr_valid_nsec */
	exp_attr(b + 40, 0x1234);
}

static void expect_bytes(const unsigned char *exp, size_t len)
{
	assert_int_equal(fk_out_arglen(), len);
	assert_memory_equal(fk_out_arg(), exp, len);
}

/* ---------------- hooks ---------------- */

static void h_entry(fring_req_t *req)
{
	ret = fring_reply_entry(req, &ent);
}

static void h_create(fring_req_t *req)
{
	ret = fring_reply_create(req, &ent, &ofi);
}

static void h_attr(fring_req_t *req)
{
	ret = fring_reply_attr(req, &rst, rtimeout);
}

static void h_open(fring_req_t *req)
{
	ret = fring_reply_open(req, &ofi);
}

static void h_write(fring_req_t *req)
{
	ret = fring_reply_write(req, rsize);
}

static void h_err(fring_req_t *req)
{
	ret = fring_reply_err(req, rerr);
}

static void h_readlink(fring_req_t *req)
{
	ret = fring_reply_readlink(req, rbuf);
}

static void h_buf(fring_req_t *req)
{
	ret = fring_reply_buf(req, rbuf, rsize);
}

static void h_iov(fring_req_t *req)
{
	ret = fring_reply_iov(req, rbuf, (int)rsize);
}

/* Fills the request's data buffer, then fring_reply_data(rsize). */
static void h_data(fring_req_t *req)
{
	memset(fk.c.buf.mem, 0xc3, fk.c.buf.size);
	((unsigned char *)fk.c.buf.mem)[0] = 0x11;
	ret = fring_reply_data(req, rsize);
}

static void h_statfs(fring_req_t *req)
{
	ret = fring_reply_statfs(req, rbuf);
}

static void h_xattr(fring_req_t *req)
{
	ret = fring_reply_xattr(req, rsize);
}

static void h_lock(fring_req_t *req)
{
	ret = fring_reply_lock(req, &rlock);
}

static void h_bmap(fring_req_t *req)
{
	ret = fring_reply_bmap(req, 0x1122334455667788ull);
}

static void h_lseek(fring_req_t *req)
{
	ret = fring_reply_lseek(req, (off_t)rsize);
}

static void h_poll(fring_req_t *req)
{
	ret = fring_reply_poll(req, (unsigned)rsize);
}

static void h_ioctl(fring_req_t *req)
{
	ret = fring_reply_ioctl(req, rerr, rbuf, rsize);
}

static void h_statx(fring_req_t *req)
{
	ret = fring_reply_statx(req, rbuf, 0.75);
}

static void h_statx_flags(fring_req_t *req)
{
	ret = fring_reply_statx_flags(req, (uint32_t)rsize, rbuf, 2.5);
}

/* ---------------- tests ---------------- */

static void test_reply_entry(void **state)
{
	unsigned char exp[128] = {0};

	(void)state;
	ent = sample_entry();
	run(FUSE_LOOKUP, 1, NULL, 0, "x", h_entry);
	expect_ok(128);
	assert_int_equal(fk_out_len(), 16 + 128);
	exp_entry(exp);
	expect_bytes(exp, sizeof(exp));

	/* the same record for every entry-type opcode */
	run(FUSE_MKDIR, 1, &(struct fuse_mkdir_in){0755, 0}, 8, "d", h_entry);
	expect_bytes(exp, sizeof(exp));
	run(FUSE_MKNOD, 1, &(struct fuse_mknod_in){0}, 16, "n", h_entry);
	expect_bytes(exp, sizeof(exp));
	run(FUSE_LINK, 1, &(struct fuse_link_in){3}, 8, "l", h_entry);
	expect_bytes(exp, sizeof(exp));
	run(FUSE_SYMLINK, 1, "s\0t", 4, NULL, h_entry);
	expect_bytes(exp, sizeof(exp));
}

/* st_ino, when set, is the inode number programs see; the node id stays
 * the kernel's handle */
static void test_reply_entry_st_ino(void **state)
{
	unsigned char exp[128] = {0};
	struct fuse_create_in in = {.flags = O_CREAT | O_RDWR};

	(void)state;
	ent = sample_entry();
	ent.attr.st_ino = 999;
	exp_entry(exp);
	put64(exp, 40, 999);
	run(FUSE_LOOKUP, 1, NULL, 0, "x", h_entry);
	expect_ok(128);
	expect_bytes(exp, sizeof(exp));
	memset(&ofi, 0, sizeof(ofi));
	run(FUSE_CREATE, 1, &in, sizeof(in), "c", h_create);
	expect_ok(144);
	assert_memory_equal(fk_out_arg(), exp, 128);
}

static void test_reply_entry_timeouts(void **state)
{
	static const struct {
		double t;
		uint64_t sec;
		uint32_t nsec;
	} cases[] = {
		{0, 0, 0},    {0.5, 0, 500000000},
		{1.0, 1, 0},  {86400.25, 86400, 250000000},
		{-1.0, 0, 0}, {-0.5, 0, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ent = sample_entry();
		ent.entry_timeout = cases[i].t;
		ent.attr_timeout = cases[i].t;
		run(FUSE_LOOKUP, 1, NULL, 0, "x", h_entry);
		expect_ok(128);
		assert_int_equal(le64(fk_out_arg(), 16), cases[i].sec);
		assert_int_equal(le64(fk_out_arg(), 24), cases[i].sec);
		assert_int_equal(le32(fk_out_arg(), 32), cases[i].nsec);
		assert_int_equal(le32(fk_out_arg(), 36), cases[i].nsec);
	}
	/* NaN is no timeout; infinity is "forever", not garbage */
	ent.entry_timeout = NAN;
	ent.attr_timeout = INFINITY;
	run(FUSE_LOOKUP, 1, NULL, 0, "x", h_entry);
	expect_ok(128);
	assert_int_equal(le64(fk_out_arg(), 16), 0);
	assert_int_equal(le32(fk_out_arg(), 32), 0);
	assert_true(le64(fk_out_arg(), 24) >= 1000000000000000000ull);
	assert_true(le32(fk_out_arg(), 36) < 1000000000u);
	/* every nsec field stays below one second */
	for (double t = 0.0; t < 3.0; t += 0.0999) {
		ent.entry_timeout = t;
		run(FUSE_LOOKUP, 1, NULL, 0, "x", h_entry);
		assert_true(le32(fk_out_arg(), 32) < 1000000000u);
		assert_int_equal(le64(fk_out_arg(), 16), (uint64_t)t);
	}
}

static void test_reply_entry_negative(void **state)
{
	uint64_t bugs = fk_handler_bugs();

	(void)state;
	/* LOOKUP: ino 0 caches "no such name" for entry_timeout */
	ent = sample_entry();
	ent.ino = 0;
	run(FUSE_LOOKUP, 1, NULL, 0, "x", h_entry);
	expect_ok(128);
	assert_int_equal(le64(fk_out_arg(), 0), 0);
	assert_int_equal(le64(fk_out_arg(), 16), 2);
	/* elsewhere it is ENOENT */
	run(FUSE_MKDIR, 1, &(struct fuse_mkdir_in){0755, 0}, 8, "d", h_entry);
	expect_err(ENOENT, false, bugs);
}

static void test_reply_create(void **state)
{
	unsigned char exp[144] = {0};
	struct fuse_create_in in = {.flags = O_CREAT | O_RDWR};

	(void)state;
	ent = sample_entry();
	memset(&ofi, 0, sizeof(ofi));
	ofi.fh = 0xfeedbeef;
	ofi.direct_io = 1;
	ofi.keep_cache = 1;
	run(FUSE_CREATE, 1, &in, sizeof(in), "c", h_create);
	expect_ok(144);
	assert_int_equal(fk_out_len(), 160);
	exp_entry(exp);
	put64(exp, 128, 0xfeedbeef);
	put32(exp, 136, FOPEN_DIRECT_IO | FOPEN_KEEP_CACHE);
	put32(exp, 140, 0); /* backing_id */
	expect_bytes(exp, sizeof(exp));

	run(FUSE_TMPFILE, 1, &in, sizeof(in), "/", h_create);
	expect_ok(144);
	expect_bytes(exp, sizeof(exp));
}

static void test_reply_attr(void **state)
{
	unsigned char exp[104] = {0};
	struct fuse_getattr_in in = {0};

	(void)state;
	rst = sample_stat();
	rtimeout = 3.5;
	run(FUSE_GETATTR, 55, &in, sizeof(in), NULL, h_attr);
	expect_ok(104);
	put64(exp, 0, 3);
	put32(exp, 8, 500000000);
	put32(exp, 12, 0);
	exp_attr(exp + 16, 999); /* st_ino given: used */
	expect_bytes(exp, sizeof(exp));

	/* st_ino 0: the request's nodeid */
	rst.st_ino = 0;
	run(FUSE_SETATTR, 55, &(struct fuse_setattr_in){0}, 88, NULL, h_attr);
	expect_ok(104);
	exp_attr(exp + 16, 55);
	expect_bytes(exp, sizeof(exp));
}

static void test_reply_open_flags(void **state)
{
	static const struct {
		int bit;
		uint32_t fopen;
	} bits[] = {
		{0, FOPEN_DIRECT_IO},	{1, FOPEN_KEEP_CACHE},
		{2, FOPEN_NONSEEKABLE}, {3, FOPEN_CACHE_DIR},
		{4, FOPEN_NOFLUSH},	{5, FOPEN_PARALLEL_DIRECT_WRITES},
	};
	struct fuse_open_in in = {.flags = O_RDONLY};

	(void)state;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		memset(&ofi, 0, sizeof(ofi));
		ofi.fh = 100 + i;
		switch (bits[i].bit) {
		case 0:
			ofi.direct_io = 1;
			break;
		case 1:
			ofi.keep_cache = 1;
			break;
		case 2:
			ofi.nonseekable = 1;
			break;
		case 3:
			ofi.cache_readdir = 1;
			break;
		case 4:
			ofi.noflush = 1;
			break;
		case 5:
			ofi.parallel_direct_writes = 1;
			break;
		}
		/* request-side bits never leak into the answer */
		ofi.writepage = 1;
		ofi.flush = 1;
		ofi.flock_release = 1;
		ofi.kill_suidgid = 1;
		ofi.flags = O_RDWR;
		ofi.lock_owner = 5;
		run(FUSE_OPEN, 3, &in, sizeof(in), NULL, h_open);
		expect_ok(16);
		assert_int_equal(le64(fk_out_arg(), 0), 100 + i);
		assert_int_equal(le32(fk_out_arg(), 8), bits[i].fopen);
		assert_int_equal(le32(fk_out_arg(), 12), 0);
	}
	memset(&ofi, 0, sizeof(ofi));
	ofi.fh = UINT64_MAX;
	ofi.direct_io = ofi.keep_cache = ofi.nonseekable = 1;
	ofi.cache_readdir = ofi.noflush = ofi.parallel_direct_writes = 1;
	run(FUSE_OPENDIR, 3, &in, sizeof(in), NULL, h_open);
	expect_ok(16);
	assert_int_equal(le64(fk_out_arg(), 0), UINT64_MAX);
	assert_int_equal(le32(fk_out_arg(), 8),
			 FOPEN_DIRECT_IO | FOPEN_KEEP_CACHE |
				 FOPEN_NONSEEKABLE | FOPEN_CACHE_DIR |
				 FOPEN_NOFLUSH | FOPEN_PARALLEL_DIRECT_WRITES);
}

/*
 * FOPEN_IO_URING_ZERO_COPY only where asked, on zerocopy: an open that sets
 * zero_copy, or any open of a filesystem that declared FRING_FS_ZERO_COPY
 * unless the mount has zero_copy_opt_in; never one that sets no_zero_copy,
 * a directory, or another transport. Without either, a handler that uses
 * src->mem gets memory.
 */
static void test_reply_open_zero_copy(void **state)
{
	struct fuse_open_in in = {.flags = O_RDWR};
	struct fuse_create_in cin = {.flags = O_CREAT | O_RDWR};

	(void)state;
	ent = sample_entry();
	for (unsigned i = 0; i < 32; i++) {
		bool on_zc = i & 1, declared = i & 2, opt_in = i & 4;
		bool ask = i & 8, decline = i & 16;
		uint32_t want =
			on_zc && !decline && (ask || (declared && !opt_in))
				? FOPEN_IO_URING_ZERO_COPY
				: 0;

		fk.se->transport = on_zc ? FRING_TRANSPORT_ZEROCOPY
					 : FRING_TRANSPORT_BUFPOOL_REGISTERED;
		fk.se->conn.fs_flags = declared ? FRING_FS_ZERO_COPY : 0;
		fk.se->cfg.zero_copy_opt_in = opt_in;
		memset(&ofi, 0, sizeof(ofi));
		ofi.zero_copy = ask;
		ofi.no_zero_copy = decline;
		run(FUSE_OPEN, 3, &in, sizeof(in), NULL, h_open);
		expect_ok(16);
		assert_int_equal(le32(fk_out_arg(), 8), want);
		run(FUSE_CREATE, 1, &cin, sizeof(cin), "c", h_create);
		expect_ok(144);
		assert_int_equal(le32(fk_out_arg(), 136), want);
		run(FUSE_OPENDIR, 1, &in, sizeof(in), NULL, h_open);
		expect_ok(16);
		assert_int_equal(le32(fk_out_arg(), 8), 0);
	}
}

static void write_msg(fk_hook hook)
{
	struct fuse_write_in in = {.fh = 1, .size = 5};

	mb_init(&m, FUSE_WRITE, 3);
	mb_add(&m, &in, sizeof(in));
	mb_add(&m, "hello", 5);
	fk_reset();
	fk.hook = hook;
	assert_int_equal(fk_dispatch(&m), 0);
	assert_int_equal(fk.nsent, 1);
	fk_check_idle();
}

static void test_reply_write(void **state)
{
	uint64_t bugs;

	(void)state;
	rsize = 5;
	write_msg(h_write);
	expect_ok(8);
	assert_int_equal(le32(fk_out_arg(), 0), 5);
	assert_int_equal(le32(fk_out_arg(), 4), 0);
	rsize = 0;
	write_msg(h_write);
	expect_ok(8);
	assert_int_equal(le32(fk_out_arg(), 0), 0);
	/* more than the request carried */
	bugs = fk_handler_bugs();
	rsize = 6;
	write_msg(h_write);
	expect_err(EIO, true, bugs);
}

static void test_reply_copy_file_range(void **state)
{
	struct fuse_copy_file_range_in in = {.len = 8ull << 30};

	(void)state;
	/* _64: a u64 bytes_copied */
	rsize = (size_t)5 << 30;
	run(FUSE_COPY_FILE_RANGE_64, 3, &in, sizeof(in), NULL, h_write);
	expect_ok(8);
	assert_int_equal(le64(fk_out_arg(), 0), 5ull << 30);
	/* the old opcode: write_out, saturated at 4 GiB - 1 */
	rsize = 12345;
	run(FUSE_COPY_FILE_RANGE, 3, &in, sizeof(in), NULL, h_write);
	expect_ok(8);
	assert_int_equal(le32(fk_out_arg(), 0), 12345);
	assert_int_equal(le32(fk_out_arg(), 4), 0);
	rsize = (size_t)5 << 30;
	run(FUSE_COPY_FILE_RANGE, 3, &in, sizeof(in), NULL, h_write);
	expect_ok(8);
	assert_int_equal(le32(fk_out_arg(), 0), UINT32_MAX);
}

static void read_msg(uint32_t op, uint32_t size, fk_hook hook)
{
	struct fuse_read_in in = {.fh = 1, .size = size};

	run(op, 3, &in, sizeof(in), NULL, hook);
}

static void test_reply_data(void **state)
{
	uint64_t bugs, rd = fk_bytes_read();
	unsigned char exp[100];

	(void)state;
	memset(exp, 0xc3, sizeof(exp));
	exp[0] = 0x11;
	rsize = 100;
	read_msg(FUSE_READ, 100, h_data);
	expect_ok(100);
	expect_bytes(exp, 100);
	/* answered straight from the request's buffer, as one piece */
	assert_int_equal(fk.last.cnt, 2);
	assert_int_equal(fk_bytes_read(), rd + 100);
	/* short reads are fine, EOF too */
	rsize = 10;
	read_msg(FUSE_READ, 100, h_data);
	expect_ok(10);
	expect_bytes(exp, 10);
	rsize = 0;
	read_msg(FUSE_READ, 100, h_data);
	expect_ok(0);
	assert_int_equal(fk.last.len, 16);
	/* more than asked for */
	bugs = fk_handler_bugs();
	rsize = 101;
	read_msg(FUSE_READ, 100, h_data);
	expect_err(EIO, true, bugs);
	/* readdir and readdirplus have the same limit */
	rsize = 64;
	read_msg(FUSE_READDIR, 64, h_data);
	expect_ok(64);
	read_msg(FUSE_READDIRPLUS, 64, h_data);
	expect_ok(64);
	rsize = 65;
	read_msg(FUSE_READDIRPLUS, 64, h_data);
	expect_err(EIO, true, bugs + 1);
}

static void test_reply_buf_iov(void **state)
{
	static const char text[] = "0123456789abcdef";
	struct iovec iov[12];
	uint64_t bugs = fk_handler_bugs();

	(void)state;
	rbuf = text;
	rsize = 16;
	read_msg(FUSE_READ, 16, h_buf);
	expect_ok(16);
	expect_bytes((const unsigned char *)text, 16);
	rsize = 17;
	read_msg(FUSE_READ, 16, h_buf);
	expect_err(EIO, true, bugs);

	/* pieces are gathered in order; empty ones are skipped */
	iov[0] = (struct iovec){(void *)text, 2};
	iov[1] = (struct iovec){(void *)text, 0};
	iov[2] = (struct iovec){(void *)(text + 10), 3};
	rbuf = iov;
	rsize = 3;
	read_msg(FUSE_READ, 16, h_iov);
	expect_ok(5);
	expect_bytes((const unsigned char *)"01abc", 5);
	/* eight pieces go as they are, more are gathered: libfuse's
	 * fuse_reply_iov() takes any number (the compat layer passes them) */
	for (int i = 0; i < 12; i++)
		iov[i] = (struct iovec){(void *)(text + i), 1};
	rsize = 8;
	read_msg(FUSE_READ, 16, h_iov);
	expect_ok(8);
	expect_bytes((const unsigned char *)"01234567", 8);
	bugs = fk_handler_bugs();
	rsize = 12;
	read_msg(FUSE_READ, 16, h_iov);
	expect_ok(12);
	expect_bytes((const unsigned char *)"0123456789ab", 12);
	assert_int_equal(fk_handler_bugs(), bugs);
	rsize = (size_t)-1; /* count -1 */
	read_msg(FUSE_READ, 16, h_iov);
	expect_err(EIO, true, bugs);
	/* the sum of the pieces is what counts against the READ size */
	for (int i = 0; i < 3; i++)
		iov[i] = (struct iovec){(void *)text, 6};
	rsize = 3;
	read_msg(FUSE_READ, 17, h_iov);
	expect_err(EIO, true, bugs + 1);
	/* gathered pieces count against the READ size too */
	for (int i = 0; i < 12; i++)
		iov[i] = (struct iovec){(void *)text, 2};
	rsize = 12;
	read_msg(FUSE_READ, 23, h_iov);
	expect_err(EIO, true, bugs + 2);
}

static void test_reply_readlink(void **state)
{
	(void)state;
	rbuf = "../target";
	run(FUSE_READLINK, 3, NULL, 0, NULL, h_readlink);
	expect_ok(9);
	expect_bytes((const unsigned char *)"../target", 9); /* no NUL */
}

/*
 * The kernel reads a symlink target into one page and asks for at most
 * PAGE_SIZE - 1 bytes (fs/fuse/dir.c: fuse_readlink_folio()); a longer
 * answer fails the caller with EIO and the write with EINVAL. Like the other
 * size checks, the library turns it into a counted handler bug.
 */
static void test_reply_readlink_limit(void **state)
{
	static char target[4097];
	uint64_t bugs;

	(void)state;
	memset(target, 't', 4095);
	target[4095] = '\0';
	rbuf = target;
	run(FUSE_READLINK, 3, NULL, 0, NULL, h_readlink);
	expect_ok(4095);
	bugs = fk_handler_bugs();
	memset(target, 't', 4096);
	target[4096] = '\0';
	run(FUSE_READLINK, 3, NULL, 0, NULL, h_readlink);
	expect_err(EIO, true, bugs);
}

static void test_reply_statfs(void **state)
{
	struct statvfs sv;
	unsigned char exp[80] = {0};

	(void)state;
	memset(&sv, 0, sizeof(sv));
	sv.f_bsize = 4096;
	sv.f_frsize = 1024;
	sv.f_blocks = 1000000000000ull;
	sv.f_bfree = 500;
	sv.f_bavail = 400;
	sv.f_files = 100;
	sv.f_ffree = 50;
	sv.f_favail = 40;
	sv.f_namemax = 255;
	sv.f_fsid = 42;
	sv.f_flag = 1;
	rbuf = &sv;
	run(FUSE_STATFS, 1, NULL, 0, NULL, h_statfs);
	expect_ok(80);
	put64(exp, 0, 1000000000000ull);
	put64(exp, 8, 500);
	put64(exp, 16, 400);
	put64(exp, 24, 100);
	put64(exp, 32, 50);
	put32(exp, 40, 4096);
	put32(exp, 44, 255);
	put32(exp, 48, 1024);
	expect_bytes(exp, sizeof(exp));
}

static void test_reply_xattr(void **state)
{
	struct fuse_getxattr_in in = {.size = 0};
	uint64_t bugs = fk_handler_bugs();

	(void)state;
	/* size 0: the size needed */
	rsize = 77;
	run(FUSE_GETXATTR, 3, &in, sizeof(in), "user.x", h_xattr);
	expect_ok(8);
	assert_int_equal(le32(fk_out_arg(), 0), 77);
	assert_int_equal(le32(fk_out_arg(), 4), 0);
	run(FUSE_LISTXATTR, 3, &in, sizeof(in), NULL, h_xattr);
	expect_ok(8);
	assert_int_equal(le32(fk_out_arg(), 0), 77);
	/* size 0 with data: wrong */
	rbuf = "abc";
	rsize = 3;
	run(FUSE_GETXATTR, 3, &in, sizeof(in), "user.x", h_buf);
	expect_err(EIO, true, bugs);
	/* sized: the data, up to size */
	in.size = 3;
	run(FUSE_GETXATTR, 3, &in, sizeof(in), "user.x", h_buf);
	expect_ok(3);
	expect_bytes((const unsigned char *)"abc", 3);
	rbuf = "a\0b\0";
	rsize = 4;
	in.size = 4;
	run(FUSE_LISTXATTR, 3, &in, sizeof(in), NULL, h_buf);
	expect_ok(4);
	expect_bytes((const unsigned char *)"a\0b\0", 4);
	in.size = 3;
	run(FUSE_LISTXATTR, 3, &in, sizeof(in), NULL, h_buf);
	expect_err(EIO, true, bugs + 1);
	/* sized with a size answer: wrong */
	run(FUSE_GETXATTR, 3, &in, sizeof(in), "user.x", h_xattr);
	expect_err(EIO, true, bugs + 2);
	/* ERANGE is the answer for "too small" */
	rerr = ERANGE;
	run(FUSE_GETXATTR, 3, &in, sizeof(in), "user.x", h_err);
	expect_err(ERANGE, false, bugs + 3);
}

static void test_reply_lock(void **state)
{
	struct fuse_lk_in in = {.fh = 1};

	(void)state;
	rlock = (struct flock){.l_type = F_WRLCK,
			       .l_whence = SEEK_SET,
			       .l_start = 100,
			       .l_len = 0,
			       .l_pid = 7};
	run(FUSE_GETLK, 3, &in, sizeof(in), NULL, h_lock);
	expect_ok(24);
	assert_int_equal(le64(fk_out_arg(), 0), 100);
	assert_int_equal(le64(fk_out_arg(), 8), INT64_MAX);
	assert_int_equal(le32(fk_out_arg(), 16), F_WRLCK);
	assert_int_equal(le32(fk_out_arg(), 20), 7);
	rlock.l_type = F_RDLCK;
	rlock.l_len = 10;
	run(FUSE_GETLK, 3, &in, sizeof(in), NULL, h_lock);
	expect_ok(24);
	assert_int_equal(le64(fk_out_arg(), 0), 100);
	assert_int_equal(le64(fk_out_arg(), 8), 109);
	assert_int_equal(le32(fk_out_arg(), 16), F_RDLCK);
	/* no conflicting lock: F_UNLCK and nothing else */
	rlock.l_type = F_UNLCK;
	run(FUSE_GETLK, 3, &in, sizeof(in), NULL, h_lock);
	expect_ok(24);
	assert_int_equal(le64(fk_out_arg(), 0), 0);
	assert_int_equal(le64(fk_out_arg(), 8), 0);
	assert_int_equal(le32(fk_out_arg(), 16), F_UNLCK);
	assert_int_equal(le32(fk_out_arg(), 20), 0);
}

/* Ranges the kernel would refuse (convert_fuse_file_lock(): start <= end
 * <= OFFSET_MAX) are a handler bug, and computing them must not overflow
 * (found by fuzz_decode: l_start near INT64_MAX plus l_len). */
static void test_reply_lock_range(void **state)
{
	static const struct {
		off_t start, len;
		uint64_t s, e; /* e < s: refused */
	} cases[] = {
		{INT64_MAX, 1, INT64_MAX, INT64_MAX},
		{INT64_MAX - 9, 10, INT64_MAX - 9, INT64_MAX},
		{INT64_MAX - 9, 11, 1, 0},
		{INT64_MAX, INT64_MAX, 1, 0},
		{INT64_MAX, 0, INT64_MAX, INT64_MAX},
		{100, -10, 90, 99}, /* the 10 bytes before l_start */
		{100, -100, 0, 99},
		{100, -101, 1, 0},
		{0, INT64_MIN, 1, 0},
		{-1, 1, 1, 0},
		{INT64_MIN, 0, 1, 0},
	};
	struct fuse_lk_in in = {.fh = 1};
	uint64_t bugs = fk_handler_bugs();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rlock = (struct flock){.l_type = F_WRLCK,
				       .l_whence = SEEK_SET,
				       .l_start = cases[i].start,
				       .l_len = cases[i].len,
				       .l_pid = 7};
		run(FUSE_GETLK, 3, &in, sizeof(in), NULL, h_lock);
		if (cases[i].e < cases[i].s) {
			expect_err(EIO, true, bugs++);
			continue;
		}
		expect_ok(24);
		assert_int_equal(le64(fk_out_arg(), 0), cases[i].s);
		assert_int_equal(le64(fk_out_arg(), 8), cases[i].e);
	}
}

static void test_reply_small_ones(void **state)
{
	struct fuse_bmap_in bi = {0};
	struct fuse_lseek_in li = {0};
	struct fuse_poll_in pi = {0};

	(void)state;
	run(FUSE_BMAP, 3, &bi, sizeof(bi), NULL, h_bmap);
	expect_ok(8);
	assert_int_equal(le64(fk_out_arg(), 0), 0x1122334455667788ull);
	rsize = (size_t)1 << 40;
	run(FUSE_LSEEK, 3, &li, sizeof(li), NULL, h_lseek);
	expect_ok(8);
	assert_int_equal(le64(fk_out_arg(), 0), 1ull << 40);
	rsize = 0x19; /* POLLIN | POLLHUP | POLLERR */
	run(FUSE_POLL, 3, &pi, sizeof(pi), NULL, h_poll);
	expect_ok(8);
	assert_int_equal(le32(fk_out_arg(), 0), 0x19);
	assert_int_equal(le32(fk_out_arg(), 4), 0);
}

static void test_reply_ioctl(void **state)
{
	struct fuse_ioctl_in in = {.cmd = 1, .out_size = 8};
	uint64_t bugs = fk_handler_bugs();

	(void)state;
	rerr = 42;
	rbuf = "ABCDEFGH";
	rsize = 8;
	run(FUSE_IOCTL, 3, &in, sizeof(in), NULL, h_ioctl);
	expect_ok(24);
	assert_int_equal(le32(fk_out_arg(), 0), 42);
	assert_int_equal(le32(fk_out_arg(), 4), 0);
	assert_int_equal(le32(fk_out_arg(), 8), 0);
	assert_int_equal(le32(fk_out_arg(), 12), 0);
	assert_memory_equal(fk_out_arg() + 16, "ABCDEFGH", 8);
	/* a result without data */
	rerr = -1;
	rbuf = NULL;
	rsize = 0;
	run(FUSE_IOCTL, 3, &in, sizeof(in), NULL, h_ioctl);
	expect_ok(16);
	assert_int_equal((int32_t)le32(fk_out_arg(), 0), -1);
	/* more than out_size */
	rerr = 0;
	rbuf = "ABCDEFGHI";
	rsize = 9;
	run(FUSE_IOCTL, 3, &in, sizeof(in), NULL, h_ioctl);
	expect_err(EIO, true, bugs);
}

static void test_reply_statx(void **state)
{
	struct fuse_statx_in in = {.sx_mask = 0xfff};
	struct statx stx;
	const unsigned char *a;

	(void)state;
	memset(&stx, 0, sizeof(stx));
	stx.stx_mask = 0x7ff;
	stx.stx_blksize = 4096;
	stx.stx_attributes = 0x20;
	stx.stx_nlink = 3;
	stx.stx_uid = 1000;
	stx.stx_gid = 1001;
	stx.stx_mode = S_IFDIR | 0755;
	stx.stx_ino = 0xabcdef;
	stx.stx_size = 1ull << 33;
	stx.stx_blocks = 99;
	stx.stx_attributes_mask = 0x30;
	stx.stx_atime = (struct statx_timestamp){.tv_sec = -5, .tv_nsec = 1};
	stx.stx_btime = (struct statx_timestamp){.tv_sec = 10, .tv_nsec = 2};
	stx.stx_ctime = (struct statx_timestamp){.tv_sec = 20, .tv_nsec = 3};
	stx.stx_mtime = (struct statx_timestamp){.tv_sec = 30, .tv_nsec = 4};
	stx.stx_rdev_major = 8;
	stx.stx_rdev_minor = 1;
	stx.stx_dev_major = 0;
	stx.stx_dev_minor = 50;
	rbuf = &stx;
	run(FUSE_STATX, 3, &in, sizeof(in), NULL, h_statx);
	expect_ok(288);
	a = fk_out_arg();
	assert_int_equal(le64(a, 0), 0);	 /* attr_valid */
	assert_int_equal(le32(a, 8), 750000000); /* attr_valid_nsec */
	assert_int_equal(le32(a, 12), 0);	 /* flags */
	assert_int_equal(le64(a, 16), 0);
	assert_int_equal(le64(a, 24), 0);
	a += 32;
	assert_int_equal(le32(a, 0), 0x7ff);
	assert_int_equal(le32(a, 4), 4096);
	assert_int_equal(le64(a, 8), 0x20);
	assert_int_equal(le32(a, 16), 3);
	assert_int_equal(le32(a, 20), 1000);
	assert_int_equal(le32(a, 24), 1001);
	assert_int_equal(le16(a, 28), S_IFDIR | 0755);
	assert_int_equal(le16(a, 30), 0);
	assert_int_equal(le64(a, 32), 0xabcdef);
	assert_int_equal(le64(a, 40), 1ull << 33);
	assert_int_equal(le64(a, 48), 99);
	assert_int_equal(le64(a, 56), 0x30);
	assert_int_equal((int64_t)le64(a, 64), -5);
	assert_int_equal(le32(a, 72), 1);
	assert_int_equal(le32(a, 76), 0);
	assert_int_equal(le64(a, 80), 10);
	assert_int_equal(le32(a, 88), 2);
	assert_int_equal(le64(a, 96), 20);
	assert_int_equal(le32(a, 104), 3);
	assert_int_equal(le64(a, 112), 30);
	assert_int_equal(le32(a, 120), 4);
	assert_int_equal(le32(a, 128), 8);
	assert_int_equal(le32(a, 132), 1);
	assert_int_equal(le32(a, 136), 0);
	assert_int_equal(le32(a, 140), 50);
	for (size_t off = 144; off < 256; off++)
		assert_int_equal(a[off], 0);
}

/* The flags word of fuse_statx_out, as given; the rest as without it. */
static void test_reply_statx_flags(void **state)
{
	struct fuse_statx_in in = {.sx_mask = 0xfff};
	struct statx stx;
	const unsigned char *a;
	unsigned char plain[288];

	(void)state;
	memset(&stx, 0, sizeof(stx));
	stx.stx_mask = 0x7ff;
	stx.stx_mode = S_IFREG | 0644;
	stx.stx_ino = 77;
	stx.stx_size = 12345;
	rbuf = &stx;
	rsize = 0xa5a5f00d;
	run(FUSE_STATX, 3, &in, sizeof(in), NULL, h_statx_flags);
	expect_ok(288);
	a = fk_out_arg();
	assert_int_equal(le64(a, 0), 2);	 /* attr_valid */
	assert_int_equal(le32(a, 8), 500000000); /* attr_valid_nsec */
	assert_int_equal(le32(a, 12), 0xa5a5f00d);
	assert_int_equal(le64(a, 16), 0);
	assert_int_equal(le64(a, 24), 0);
	memcpy(plain, a, sizeof(plain));
	/* fring_reply_statx() is the same answer with flags 0 */
	rsize = 0;
	run(FUSE_STATX, 3, &in, sizeof(in), NULL, h_statx_flags);
	expect_ok(288);
	memset(plain + 12, 0, 4);
	assert_memory_equal(fk_out_arg(), plain, sizeof(plain));
	/* and it is an answer to STATX only */
	run(FUSE_GETATTR, 3, &(struct fuse_getattr_in){0},
	    sizeof(struct fuse_getattr_in), NULL, h_statx_flags);
	assert_int_equal(ret, -EIO);
}

static void test_reply_err(void **state)
{
	static const int errs[] = {ENOENT, EACCES, EPERM, ENOSPC,
				   EINTR,  ERANGE, 1,	  511};
	uint64_t bugs = fk_handler_bugs();
	uint64_t errors;

	(void)state;
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		errors = atomic_load(&fk.q->stats.errors);
		rerr = errs[i];
		run(FUSE_LOOKUP, 1, NULL, 0, "x", h_err);
		assert_int_equal(ret, 0);
		expect_err(errs[i], false, bugs);
		assert_int_equal(fk_out_len(), 16);
		assert_int_equal(atomic_load(&fk.q->stats.errors), errors + 1);
	}
	/* 0: an empty success, for opcodes that have one */
	rerr = 0;
	run(FUSE_UNLINK, 1, NULL, 0, "x", h_err);
	assert_int_equal(ret, 0);
	expect_err(0, false, bugs);
	run(FUSE_SETXATTR, 1, &(struct fuse_setxattr_in){0}, 16, "user.a",
	    h_err);
	expect_err(0, false, bugs);
	/* ... and a wrong answer for the others */
	run(FUSE_LOOKUP, 1, NULL, 0, "x", h_err);
	expect_err(EIO, true, bugs);
}

static void test_reply_errno_range(void **state)
{
	static const int bad[] = {512, 600,	4096,	INT_MAX,
				  -1,  -ENOENT, INT_MIN};
	uint64_t bugs = fk_handler_bugs();

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rerr = bad[i];
		run(FUSE_LOOKUP, 1, NULL, 0, "x", h_err);
		expect_err(EIO, true, bugs + i);
		assert_int_equal(ret, -EIO);
	}
}

/* backing_id: FOPEN_PASSTHROUGH and the id, or EIO as a handler bug for
 * what fuse_file_passthrough_open() would fail with EIO anyway. */
static void test_reply_backing_id(void **state)
{
	struct fuse_open_in in = {.flags = O_RDWR};
	struct fuse_create_in cin = {.flags = O_CREAT | O_RDWR};
	uint64_t bugs = fk_handler_bugs();
	enum fring_transport transport = fk.se->transport;

	(void)state;
	/* not negotiated: refused, and fring_backing_open() says so too */
	fk.se->got_init = true;
	fk.se->conn.want &= ~FUSE_PASSTHROUGH;
	memset(&ofi, 0, sizeof(ofi));
	ofi.backing_id = 7;
	run(FUSE_OPEN, 3, &in, sizeof(in), NULL, h_open);
	expect_err(EIO, true, bugs++);
	assert_int_equal(ret, -EIO);
	assert_non_null(strstr(fk.lastlog, "FUSE_PASSTHROUGH"));
	assert_int_equal(fring_backing_open(fk.se, 0), -EOPNOTSUPP);
	assert_int_equal(fring_backing_close(fk.se, 7), -EOPNOTSUPP);

	fk.se->conn.want |= FUSE_PASSTHROUGH;
	assert_int_equal(fring_backing_close(fk.se, 0), -EINVAL);
	/* with the flags the kernel allows next to it */
	ofi.fh = 9;
	ofi.direct_io = ofi.noflush = 1;
	run(FUSE_OPEN, 3, &in, sizeof(in), NULL, h_open);
	expect_ok(16);
	assert_int_equal(le64(fk_out_arg(), 0), 9);
	assert_int_equal(le32(fk_out_arg(), 8),
			 FOPEN_PASSTHROUGH | FOPEN_DIRECT_IO | FOPEN_NOFLUSH);
	assert_int_equal(le32(fk_out_arg(), 12), 7);
	/* create: the same open_out after the entry */
	ent = sample_entry();
	run(FUSE_CREATE, 1, &cin, sizeof(cin), "c", h_create);
	expect_ok(144);
	assert_int_equal(le32(fk_out_arg(), 136),
			 FOPEN_PASSTHROUGH | FOPEN_DIRECT_IO | FOPEN_NOFLUSH);
	assert_int_equal(le32(fk_out_arg(), 140), 7);
	/* a passthrough open on zerocopy does not get zero-copy by default */
	fk.se->transport = FRING_TRANSPORT_ZEROCOPY;
	run(FUSE_OPEN, 3, &in, sizeof(in), NULL, h_open);
	expect_ok(16);
	assert_int_equal(le32(fk_out_arg(), 8) & FOPEN_IO_URING_ZERO_COPY, 0);
	/* ... and asking for both is refused */
	ofi.zero_copy = 1;
	run(FUSE_OPEN, 3, &in, sizeof(in), NULL, h_open);
	expect_err(EIO, true, bugs++);
	assert_non_null(strstr(fk.lastlog, "zero_copy"));
	run(FUSE_CREATE, 1, &cin, sizeof(cin), "c", h_create);
	expect_err(EIO, true, bugs++);
	assert_int_equal(ret, -EIO);
	ofi.zero_copy = 0;
	fk.se->transport = transport;
	/* flags the kernel refuses with it, a directory, a negative id */
	ofi.keep_cache = 1;
	run(FUSE_OPEN, 3, &in, sizeof(in), NULL, h_open);
	expect_err(EIO, true, bugs++);
	ofi.keep_cache = 0;
	ofi.nonseekable = 1;
	run(FUSE_OPEN, 3, &in, sizeof(in), NULL, h_open);
	expect_err(EIO, true, bugs++);
	ofi.nonseekable = 0;
	run(FUSE_OPENDIR, 3, &in, sizeof(in), NULL, h_open);
	expect_err(EIO, true, bugs++);
	ofi.backing_id = -1;
	run(FUSE_OPEN, 3, &in, sizeof(in), NULL, h_open);
	expect_err(EIO, true, bugs++);
}

/* Hooks answering with a type the opcode does not take. */
static void h_wrong_entry(fring_req_t *req)
{
	ent = sample_entry();
	ret = fring_reply_entry(req, &ent);
}

static void h_wrong_attr(fring_req_t *req)
{
	rst = sample_stat();
	ret = fring_reply_attr(req, &rst, 1);
}

static void h_wrong_open(fring_req_t *req)
{
	memset(&ofi, 0, sizeof(ofi));
	ret = fring_reply_open(req, &ofi);
}

static void h_wrong_write(fring_req_t *req)
{
	ret = fring_reply_write(req, 0);
}

static void h_wrong_buf(fring_req_t *req)
{
	ret = fring_reply_buf(req, "x", 1);
}

static void h_wrong_xattr(fring_req_t *req)
{
	ret = fring_reply_xattr(req, 1);
}

static void h_wrong_lseek(fring_req_t *req)
{
	ret = fring_reply_lseek(req, 1);
}

static void test_wrong_type(void **state)
{
	static const struct {
		uint32_t op;
		size_t arglen;
		const char *name;
		fk_hook hook;
	} cases[] = {
		{FUSE_GETATTR, 16, NULL, h_wrong_entry},
		{FUSE_OPEN, 8, NULL, h_wrong_entry},
		{FUSE_CREATE, 16, "c", h_wrong_entry},
		{FUSE_LOOKUP, 0, "x", h_wrong_attr},
		{FUSE_STATX, 24, NULL, h_wrong_attr},
		{FUSE_READ, 40, NULL, h_wrong_open},
		{FUSE_CREATE, 16, "c", h_wrong_open},
		{FUSE_READ, 40, NULL, h_wrong_write},
		{FUSE_LOOKUP, 0, "x", h_wrong_buf},
		{FUSE_UNLINK, 0, "x", h_wrong_buf},
		{FUSE_WRITE, 40, NULL, h_wrong_buf},
		{FUSE_READ, 40, NULL, h_wrong_xattr},
		{FUSE_STATFS, 0, NULL, h_wrong_lseek},
	};
	char zero[64] = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t bugs = fk_handler_bugs();

		run(cases[i].op, 3, zero, cases[i].arglen, cases[i].name,
		    cases[i].hook);
		if (fk.last.len != 16 || fk_out_error() != -EIO)
			fail_msg("case %zu (%s): len %zu error %d", i,
				 fring_opname(cases[i].op), fk.last.len,
				 fk_out_error());
		expect_err(EIO, true, bugs);
		/* every handler bug returns -EIO, whatever the function */
		assert_int_equal(ret, -EIO);
	}
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, fk_setup, fk_teardown)
	const struct CMUnitTest tests[] = {
		T(test_reply_entry),	       T(test_reply_entry_st_ino),
		T(test_reply_entry_timeouts),  T(test_reply_entry_negative),
		T(test_reply_create),	       T(test_reply_attr),
		T(test_reply_open_flags),      T(test_reply_open_zero_copy),
		T(test_reply_backing_id),      T(test_reply_write),
		T(test_reply_copy_file_range), T(test_reply_data),
		T(test_reply_buf_iov),	       T(test_reply_readlink),
		T(test_reply_readlink_limit),  T(test_reply_statfs),
		T(test_reply_xattr),	       T(test_reply_lock),
		T(test_reply_lock_range),      T(test_reply_small_ones),
		T(test_reply_ioctl),	       T(test_reply_statx),
		T(test_reply_statx_flags),     T(test_reply_err),
		T(test_reply_errno_range),     T(test_wrong_type),
	};

	return cmocka_run_group_tests_name("reply", tests, NULL, NULL);
}
