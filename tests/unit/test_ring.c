/* SPDX-License-Identifier: MIT */
/*
 * The ring framing of a message: arg0 in the entry's 128-byte op_in area
 * (stale when the op has only a [0] placeholder), everything else in the
 * payload from offset 0. The decoder must take arg0 from op_in and never
 * skip or read past the payload.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fake_session.h"

static struct fuse_in_header ih;
static unsigned char pl[1024];
static size_t plen;

static void hdr(uint32_t op, uint64_t nodeid)
{
	memset(&ih, 0, sizeof(ih));
	ih.opcode = op;
	ih.unique = fk.next_unique;
	fk.next_unique += 2;
	ih.nodeid = nodeid;
	ih.uid = 1000;
	ih.gid = 1001;
	ih.pid = 4242;
	plen = 0;
}

static void pl_add(const void *p, size_t n)
{
	assert_true(plen + n <= sizeof(pl));
	memcpy(pl + plen, p, n);
	plen += n;
}

static void pl_str(const char *s)
{
	pl_add(s, strlen(s) + 1);
}

static void ring(const void *op_in, size_t op_in_len, size_t n)
{
	fk_reset();
	ih.len = (uint32_t)(sizeof(ih) + op_in_len + n);
	fk_dispatch_ring(&ih, op_in, op_in_len, pl, n);
}

/* Callback id ran once, answered FK_MARK; everything released. */
static void called(enum cb_id id)
{
	assert_int_equal(fk.ncalls, 1);
	assert_int_equal(fk.calls[id], 1);
	assert_int_equal(fk.c.unique, ih.unique);
	assert_int_equal(fk.c.ctx.uid, 1000);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk.last.len, 16);
	assert_int_equal(fk_out_error(), -FK_MARK);
	assert_int_equal(fk_out_unique(), ih.unique);
	fk_check_idle();
}

/* Every shorter payload: EIO, counted malformed, no callback. */
static void payload_truncations(const void *op_in, size_t op_in_len)
{
	for (size_t n = 0; n < plen; n++) {
		uint64_t bad = fk_malformed();

		ring(op_in, op_in_len, n);
		if (fk.ncalls || fk.nsent != 1)
			fail_msg("%s payload truncated to %zu of %zu: %u "
				 "callbacks, %u answers",
				 fring_opname(ih.opcode), n, plen, fk.ncalls,
				 fk.nsent);
		assert_int_equal(fk.last.len, 16);
		assert_int_equal(fk_out_error(), -EIO);
		assert_int_equal(fk_malformed(), bad + 1);
		fk_check_idle();
	}
}

static void test_ring_lookup(void **state)
{
	(void)state;
	/* [0] placeholder: op_in is stale, the name is at payload 0 */
	hdr(FUSE_LOOKUP, 7);
	pl_str("hello");
	ring(NULL, 0, plen);
	called(CB_LOOKUP);
	assert_int_equal(fk.c.ino, 7);
	assert_string_equal(fk.c.name, "hello");
	payload_truncations(NULL, 0);
}

static void test_ring_forget(void **state)
{
	struct fuse_forget_in in = {.nlookup = 1};

	(void)state;
	/* the forced FORGET of READDIRPLUS: op_in only, must be committed */
	hdr(FUSE_FORGET, 9);
	ring(&in, sizeof(in), 0);
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(fk.nnoreply, 1);
	assert_int_equal(fk.calls[CB_FORGET], 1);
	assert_int_equal(fk.forgets[0].ino, 9);
	assert_int_equal(fk.forgets[0].nlookup, 1);
	fk_check_idle();
}

static void test_ring_getattr(void **state)
{
	struct fuse_getattr_in in = {.getattr_flags = FUSE_GETATTR_FH,
				     .fh = 42};

	(void)state;
	hdr(FUSE_GETATTR, 5);
	ring(&in, sizeof(in), 0);
	called(CB_GETATTR);
	assert_true(fk.c.has_fi);
	assert_int_equal(fk.c.fi.fh, 42);
}

static void test_ring_setattr(void **state)
{
	struct fuse_setattr_in in = {
		.valid = FATTR_MODE | FATTR_SIZE, .size = 77, .mode = 0600};

	(void)state;
	hdr(FUSE_SETATTR, 5);
	ring(&in, sizeof(in), 0);
	called(CB_SETATTR);
	assert_int_equal(fk.c.to_set, FRING_SET_MODE | FRING_SET_SIZE);
	assert_int_equal(fk.c.st.st_size, 77);
	assert_int_equal(fk.c.st.st_mode, 0600);
}

static void test_ring_mknod_mkdir(void **state)
{
	struct fuse_mknod_in mn = {.mode = S_IFIFO | 0600, .umask = 022};
	struct fuse_mkdir_in md = {.mode = 0700, .umask = 077};

	(void)state;
	hdr(FUSE_MKNOD, 3);
	pl_str("fifo");
	ring(&mn, sizeof(mn), plen);
	called(CB_MKNOD);
	assert_string_equal(fk.c.name, "fifo");
	assert_int_equal(fk.c.mode, S_IFIFO | 0600);
	assert_int_equal(fk.c.ctx.umask, 022);
	payload_truncations(&mn, sizeof(mn));

	hdr(FUSE_MKDIR, 3);
	pl_str("d");
	ring(&md, sizeof(md), plen);
	called(CB_MKDIR);
	assert_string_equal(fk.c.name, "d");
	assert_int_equal(fk.c.mode, S_IFDIR | 0700);
	payload_truncations(&md, sizeof(md));
}

static void test_ring_symlink_rename(void **state)
{
	struct fuse_rename2_in rn = {.newdir = 4, .flags = 1};

	(void)state;
	hdr(FUSE_SYMLINK, 3);
	pl_str("ln");
	pl_str("target");
	ring(NULL, 0, plen);
	called(CB_SYMLINK);
	assert_string_equal(fk.c.name, "ln");
	assert_string_equal(fk.c.name2, "target");
	payload_truncations(NULL, 0);

	hdr(FUSE_RENAME2, 3);
	pl_str("a");
	pl_str("b");
	ring(&rn, sizeof(rn), plen);
	called(CB_RENAME);
	assert_int_equal(fk.c.ino2, 4);
	assert_int_equal(fk.c.flags, 1);
	assert_string_equal(fk.c.name, "a");
	assert_string_equal(fk.c.name2, "b");
	payload_truncations(&rn, sizeof(rn));
}

static void test_ring_read(void **state)
{
	struct fuse_read_in in = {.fh = 3, .offset = 8192, .size = 4096};

	(void)state;
	hdr(FUSE_READ, 5);
	ring(&in, sizeof(in), 0);
	called(CB_READ);
	assert_int_equal(fk.c.size, 4096);
	assert_int_equal(fk.c.off, 8192);
	assert_int_equal(fk.c.fi.fh, 3);
}

static void test_ring_write(void **state)
{
	struct fuse_write_in in = {.fh = 3, .offset = 10, .size = 6};

	(void)state;
	hdr(FUSE_WRITE, 5);
	pl_add("abcdef", 6);
	ring(&in, sizeof(in), plen);
	called(CB_WRITE);
	/* the data is the payload itself, from offset 0 */
	assert_int_equal(fk.c.buf.size, 6);
	assert_memory_equal(fk.c.data, "abcdef", 6);
	assert_int_equal(fk.c.off, 10);
	payload_truncations(&in, sizeof(in));
}

static void test_ring_xattr(void **state)
{
	struct fuse_setxattr_in sx = {.size = 2};
	struct fuse_getxattr_in gx = {.size = 64};

	(void)state;
	hdr(FUSE_SETXATTR, 5);
	pl_str("user.a");
	pl_add("xy", 2);
	ring(&sx, sizeof(sx), plen);
	called(CB_SETXATTR);
	assert_string_equal(fk.c.name, "user.a");
	assert_int_equal(fk.c.size, 2);
	assert_memory_equal(fk.c.data, "xy", 2);
	payload_truncations(&sx, sizeof(sx));

	hdr(FUSE_GETXATTR, 5);
	pl_str("user.a");
	ring(&gx, sizeof(gx), plen);
	called(CB_GETXATTR);
	assert_int_equal(fk.c.size, 64);
	payload_truncations(&gx, sizeof(gx));

	hdr(FUSE_REMOVEXATTR, 5);
	pl_str("user.a");
	ring(NULL, 0, plen);
	called(CB_REMOVEXATTR);
	payload_truncations(NULL, 0);
}

static void test_ring_create(void **state)
{
	struct fuse_create_in in = {.flags = O_CREAT | O_EXCL | O_RDWR,
				    .mode = S_IFREG | 0640,
				    .umask = 002};

	(void)state;
	hdr(FUSE_CREATE, 3);
	pl_str("f");
	ring(&in, sizeof(in), plen);
	called(CB_CREATE);
	assert_string_equal(fk.c.name, "f");
	assert_int_equal(fk.c.fi.flags, O_CREAT | O_EXCL | O_RDWR);
	assert_int_equal(fk.c.ctx.umask, 002);
	payload_truncations(&in, sizeof(in));
}

static void test_ring_ioctl(void **state)
{
	struct fuse_ioctl_in in = {.cmd = 7, .in_size = 3, .out_size = 4};

	(void)state;
	hdr(FUSE_IOCTL, 5);
	pl_add("xyz", 3);
	ring(&in, sizeof(in), plen);
	called(CB_IOCTL);
	assert_int_equal(fk.c.size, 3);
	assert_memory_equal(fk.c.data, "xyz", 3);
	payload_truncations(&in, sizeof(in));
}

static void test_ring_notify_reply(void **state)
{
	struct fuse_notify_retrieve_in in = {.size = 4};

	(void)state;
	/* [0], retrieve_in, data: committed, never answered */
	hdr(FUSE_NOTIFY_REPLY, 5);
	pl_add(&in, sizeof(in));
	pl_add("data", 4);
	ring(NULL, 0, plen);
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(fk.nnoreply, 1);
	assert_int_equal(fk.ncalls, 0);
	fk_check_idle();
}

static void test_ring_every_arg0_op(void **state)
{
	/* ops whose only input is arg0: it comes from op_in whatever the
	 * payload holds, even with no payload at all */
	static const struct {
		uint32_t op;
		size_t len;
		enum cb_id cb;
	} ops[] = {
		{FUSE_OPEN, 8, CB_OPEN},
		{FUSE_OPENDIR, 8, CB_OPENDIR},
		{FUSE_RELEASE, 24, CB_RELEASE},
		{FUSE_RELEASEDIR, 24, CB_RELEASEDIR},
		{FUSE_FSYNC, 16, CB_FSYNC},
		{FUSE_FSYNCDIR, 16, CB_FSYNCDIR},
		{FUSE_FLUSH, 24, CB_FLUSH},
		{FUSE_GETLK, 48, CB_GETLK},
		{FUSE_SETLK, 48, CB_SETLK},
		{FUSE_SETLKW, 48, CB_SETLK},
		{FUSE_ACCESS, 8, CB_ACCESS},
		{FUSE_BMAP, 16, CB_BMAP},
		{FUSE_POLL, 24, CB_POLL},
		{FUSE_FALLOCATE, 32, CB_FALLOCATE},
		{FUSE_READDIR, 40, CB_READDIR},
		{FUSE_READDIRPLUS, 40, CB_READDIRPLUS},
		{FUSE_LSEEK, 24, CB_LSEEK},
		{FUSE_COPY_FILE_RANGE, 56, CB_COPY_FILE_RANGE},
		{FUSE_COPY_FILE_RANGE_64, 56, CB_COPY_FILE_RANGE},
		{FUSE_SYNCFS, 8, CB_SYNCFS},
		{FUSE_STATX, 24, CB_STATX},
		{FUSE_LISTXATTR, 8, CB_LISTXATTR},
	};
	uint64_t fh = 0x5151;

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		unsigned char arg0[64] = {0};

		/* fh is the first field wherever the op has one */
		if (ops[i].op != FUSE_ACCESS && ops[i].op != FUSE_OPEN &&
		    ops[i].op != FUSE_OPENDIR && ops[i].op != FUSE_BMAP &&
		    ops[i].op != FUSE_SYNCFS && ops[i].op != FUSE_STATX &&
		    ops[i].op != FUSE_LISTXATTR)
			memcpy(arg0, &fh, 8);
		hdr(ops[i].op, 5);
		ring(arg0, ops[i].len, 0);
		called(ops[i].cb);
		assert_int_equal(fk.c.ino, 5);
		if (fk.c.has_fi && arg0[0])
			assert_int_equal(fk.c.fi.fh, fh);
	}
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, fk_setup, fk_teardown)
	const struct CMUnitTest tests[] = {
		T(test_ring_lookup),	    T(test_ring_forget),
		T(test_ring_getattr),	    T(test_ring_setattr),
		T(test_ring_mknod_mkdir),   T(test_ring_symlink_rename),
		T(test_ring_read),	    T(test_ring_write),
		T(test_ring_xattr),	    T(test_ring_create),
		T(test_ring_ioctl),	    T(test_ring_notify_reply),
		T(test_ring_every_arg0_op),
	};

	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
