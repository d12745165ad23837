/* SPDX-License-Identifier: MIT */
/*
 * The decoder's checks beyond lengths: name rules, value ranges, the
 * answers for missing callbacks, unknown opcodes, /dev/fuse framing and
 * extension blocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_session.h"

#define ANY(ptr) (ptr), sizeof(*(ptr))

static struct mb m;

static void disp(void)
{
	fk_reset();
	assert_int_equal(fk_dispatch(&m), 0);
}

static char *repeat(char c, size_t n)
{
	static char buf[8192];

	assert_true(n < sizeof(buf));
	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}

/* ---------------- names ---------------- */

/* Builds op with one name argument (plus the fixed arg0 it needs). */
static void name_msg(uint32_t op, const char *name, const char *name2)
{
	static const union {
		struct fuse_mknod_in mknod;
		struct fuse_mkdir_in mkdir;
		struct fuse_rename2_in rename2;
		struct fuse_link_in link;
		struct fuse_create_in create;
		char raw[16];
	} z = {.raw = {0}};

	mb_init(&m, op, 5);
	switch (op) {
	case FUSE_MKNOD:
		mb_add(&m, &z, sizeof(struct fuse_mknod_in));
		break;
	case FUSE_MKDIR:
		mb_add(&m, &z, sizeof(struct fuse_mkdir_in));
		break;
	case FUSE_RENAME:
		mb_add(&m, &z, sizeof(struct fuse_rename_in));
		break;
	case FUSE_RENAME2:
		mb_add(&m, &z, sizeof(struct fuse_rename2_in));
		break;
	case FUSE_LINK:
		mb_add(&m, &z, sizeof(struct fuse_link_in));
		break;
	case FUSE_CREATE:
		mb_add(&m, &z, sizeof(struct fuse_create_in));
		break;
	default:
		break;
	}
	mb_str(&m, name);
	if (name2)
		mb_str(&m, name2);
}

static const struct {
	uint32_t op;
	enum cb_id cb;
	bool two; /* takes a second name (symlink target, rename's new) */
} name_ops[] = {
	{FUSE_LOOKUP, CB_LOOKUP, false}, {FUSE_MKNOD, CB_MKNOD, false},
	{FUSE_MKDIR, CB_MKDIR, false},	 {FUSE_UNLINK, CB_UNLINK, false},
	{FUSE_RMDIR, CB_RMDIR, false},	 {FUSE_LINK, CB_LINK, false},
	{FUSE_CREATE, CB_CREATE, false}, {FUSE_SYMLINK, CB_SYMLINK, true},
	{FUSE_RENAME, CB_RENAME, true},	 {FUSE_RENAME2, CB_RENAME, true},
};

#define NNAME_OPS (sizeof(name_ops) / sizeof(name_ops[0]))

static void test_name_slash(void **state)
{
	(void)state;
	for (size_t i = 0; i < NNAME_OPS; i++) {
		const char *two = name_ops[i].two ? "ok" : NULL;
		uint64_t bad = fk_malformed();

		name_msg(name_ops[i].op, "a/b", two);
		disp();
		fk_expect_err(&m, EINVAL);
		/* a bad name is the caller's error, not a malformed message */
		assert_int_equal(fk_malformed(), bad);
		name_msg(name_ops[i].op, "/", two);
		disp();
		fk_expect_err(&m, EINVAL);
		name_msg(name_ops[i].op, "", two);
		disp();
		fk_expect_err(&m, EINVAL);
	}
	/* rename checks the new name too (a symlink target may hold '/') */
	name_msg(FUSE_RENAME, "ok", "x/y");
	disp();
	fk_expect_err(&m, EINVAL);
	name_msg(FUSE_RENAME2, "ok", "");
	disp();
	fk_expect_err(&m, EINVAL);
	name_msg(FUSE_SYMLINK, "ln", "/abs/target");
	disp();
	fk_expect_called(CB_SYMLINK, &m);
}

static void test_name_length(void **state)
{
	(void)state;
	for (size_t i = 0; i < NNAME_OPS; i++) {
		const char *two = name_ops[i].two ? "ok" : NULL;
		char name255[256];

		memcpy(name255, repeat('n', 255), 256);
		name_msg(name_ops[i].op, name255, two);
		disp();
		fk_expect_called(name_ops[i].cb, &m);
		assert_int_equal(strlen(fk.c.name), 255);

		name_msg(name_ops[i].op, repeat('n', 256), two);
		disp();
		fk_expect_err(&m, ENAMETOOLONG);
		name_msg(name_ops[i].op, repeat('n', 4095), two);
		disp();
		fk_expect_err(&m, ENAMETOOLONG);
	}
	name_msg(FUSE_RENAME, "ok", repeat('n', 256));
	disp();
	fk_expect_err(&m, ENAMETOOLONG);
}

static void test_symlink_target_length(void **state)
{
	(void)state;
	/* up to PATH_MAX - 1 bytes */
	name_msg(FUSE_SYMLINK, "ln", repeat('t', PATH_MAX - 1));
	disp();
	fk_expect_called(CB_SYMLINK, &m);
	assert_int_equal(strlen(fk.c.name2), PATH_MAX - 1);
	name_msg(FUSE_SYMLINK, "ln", repeat('t', PATH_MAX));
	disp();
	fk_expect_err(&m, ENAMETOOLONG);
}

static void test_name_missing_nul(void **state)
{
	(void)state;
	for (size_t i = 0; i < NNAME_OPS; i++) {
		uint64_t bad = fk_malformed();

		name_msg(name_ops[i].op, "abc", name_ops[i].two ? "d" : NULL);
		m.len--; /* drop the last NUL */
		mb_done(&m);
		disp();
		fk_expect_err(&m, EIO);
		assert_int_equal(fk_malformed(), bad + 1);
	}
}

static void xattr_msg(uint32_t op, const char *name, uint32_t size)
{
	mb_init(&m, op, 5);
	if (op == FUSE_SETXATTR) {
		struct fuse_setxattr_in in = {.size = size};

		mb_add(&m, ANY(&in));
	} else if (op == FUSE_GETXATTR) {
		struct fuse_getxattr_in in = {.size = size};

		mb_add(&m, ANY(&in));
	}
	mb_str(&m, name);
}

static void test_xattr_names(void **state)
{
	static const uint32_t ops[] = {FUSE_SETXATTR, FUSE_GETXATTR,
				       FUSE_REMOVEXATTR};
	static const enum cb_id cbs[] = {CB_SETXATTR, CB_GETXATTR,
					 CB_REMOVEXATTR};

	(void)state;
	for (int i = 0; i < 3; i++) {
		char name[256];

		memcpy(name, "user.", 5);
		memcpy(name + 5, repeat('x', 250), 251);
		xattr_msg(ops[i], name, 0);
		disp();
		fk_expect_called(cbs[i], &m);
		assert_string_equal(fk.c.name, name);

		xattr_msg(ops[i], repeat('x', 256), 0);
		disp();
		fk_expect_err(&m, ERANGE);
		xattr_msg(ops[i], "", 0);
		disp();
		fk_expect_err(&m, EINVAL);
		/* xattr names may hold '/' */
		xattr_msg(ops[i], "user.a/b", 0);
		disp();
		fk_expect_called(cbs[i], &m);
	}
}

static void test_setxattr_value_size(void **state)
{
	static unsigned char value[65536];

	(void)state;
	memset(value, 0x5a, sizeof(value));
	/* XATTR_SIZE_MAX is fine */
	xattr_msg(FUSE_SETXATTR, "user.big", sizeof(value));
	mb_add(&m, value, sizeof(value));
	disp();
	fk_expect_called(CB_SETXATTR, &m);
	assert_int_equal(fk.c.size, 65536);
	assert_memory_equal(fk.c.data, value, sizeof(value));
	/* one more is E2BIG, whatever follows */
	xattr_msg(FUSE_SETXATTR, "user.big", sizeof(value) + 1);
	mb_add(&m, value, sizeof(value));
	mb_add(&m, "z", 1);
	disp();
	fk_expect_err(&m, E2BIG);
	xattr_msg(FUSE_SETXATTR, "user.big", UINT32_MAX);
	disp();
	fk_expect_err(&m, E2BIG);
}

/* ---------------- value ranges ---------------- */

static void test_setattr_size_range(void **state)
{
	struct fuse_setattr_in in = {.valid = FATTR_SIZE,
				     .size = (uint64_t)INT64_MAX + 1};

	(void)state;
	mb_init(&m, FUSE_SETATTR, 5);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_err(&m, EFBIG);
	in.size = INT64_MAX;
	mb_init(&m, FUSE_SETATTR, 5);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_called(CB_SETATTR, &m);
	assert_int_equal(fk.c.st.st_size, INT64_MAX);
	/* without FATTR_SIZE the size field is not looked at */
	in.valid = FATTR_MODE;
	in.size = UINT64_MAX;
	mb_init(&m, FUSE_SETATTR, 5);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_called(CB_SETATTR, &m);
}

static void test_read_ranges(void **state)
{
	static const uint32_t ops[] = {FUSE_READ, FUSE_READDIR,
				       FUSE_READDIRPLUS};
	static const enum cb_id cbs[] = {CB_READ, CB_READDIR, CB_READDIRPLUS};

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct fring_req *req = req_get(fk.q);
		size_t datasz = req->datasz;
		struct fuse_read_in in = {.size = (uint32_t)datasz};
		uint64_t bad;

		req_put(req);
		/* the whole data area is fine */
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		fk_expect_called(cbs[i], &m);
		assert_int_equal(fk.c.buf.size, datasz);
		/* more than the buffer holds is malformed */
		in.size = (uint32_t)datasz + 1;
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		bad = fk_malformed();
		disp();
		fk_expect_err(&m, EIO);
		assert_int_equal(fk_malformed(), bad + 1);
		/* offsets beyond off_t */
		in.size = 10;
		in.offset = (uint64_t)INT64_MAX + 1;
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		fk_expect_err(&m, EINVAL);
		in.offset = INT64_MAX;
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		fk_expect_called(cbs[i], &m);
		assert_int_equal(fk.c.off, INT64_MAX);
		/* a file's READ never reaches past INT64_MAX (off + size
		 * cannot overflow in a handler); directory cookies are
		 * opaque */
		assert_int_equal(fk.c.size, ops[i] == FUSE_READ ? 0 : 10);
		in.offset = INT64_MAX - 4;
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		fk_expect_called(cbs[i], &m);
		assert_int_equal(fk.c.size, ops[i] == FUSE_READ ? 4 : 10);
		assert_int_equal(fk.c.buf.size, ops[i] == FUSE_READ ? 4 : 10);
	}
}

static void test_write_ranges(void **state)
{
	struct fuse_write_in in = {.offset = INT64_MAX - 2, .size = 3};

	(void)state;
	mb_init(&m, FUSE_WRITE, 5);
	mb_add(&m, ANY(&in));
	mb_add(&m, "abc", 3);
	disp();
	fk_expect_err(&m, EFBIG);
	in.offset = INT64_MAX - 3;
	mb_init(&m, FUSE_WRITE, 5);
	mb_add(&m, ANY(&in));
	mb_add(&m, "abc", 3);
	disp();
	fk_expect_called(CB_WRITE, &m);
	in.offset = UINT64_MAX;
	in.size = 0;
	mb_init(&m, FUSE_WRITE, 5);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_err(&m, EFBIG);
	/* size larger than the data that came */
	in.offset = 0;
	in.size = 4;
	mb_init(&m, FUSE_WRITE, 5);
	mb_add(&m, ANY(&in));
	mb_add(&m, "abc", 3);
	disp();
	fk_expect_err(&m, EIO);
}

static void test_fallocate_ranges(void **state)
{
	static const struct {
		uint64_t off, len;
		int err;
	} cases[] = {
		{(uint64_t)INT64_MAX + 1, 1, EFBIG},
		{0, (uint64_t)INT64_MAX + 1, EFBIG},
		{INT64_MAX, 1, EFBIG},
		{UINT64_MAX, UINT64_MAX, EFBIG},
		{INT64_MAX - 1, 1, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fuse_fallocate_in in = {.offset = cases[i].off,
					       .length = cases[i].len};

		mb_init(&m, FUSE_FALLOCATE, 5);
		mb_add(&m, ANY(&in));
		disp();
		if (cases[i].err)
			fk_expect_err(&m, cases[i].err);
		else
			fk_expect_called(CB_FALLOCATE, &m);
	}
}

static void test_copy_file_range_ranges(void **state)
{
	static const uint32_t ops[] = {FUSE_COPY_FILE_RANGE,
				       FUSE_COPY_FILE_RANGE_64};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct fuse_copy_file_range_in in = {
			.off_in = (uint64_t)INT64_MAX + 1, .len = 1};

		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		fk_expect_err(&m, EINVAL);
		in.off_in = 0;
		in.off_out = UINT64_MAX;
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		fk_expect_err(&m, EINVAL);
		/* a range ending past INT64_MAX is shortened to end there */
		in.off_in = INT64_MAX - 5;
		in.off_out = 7;
		in.len = UINT64_MAX;
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		fk_expect_called(CB_COPY_FILE_RANGE, &m);
		assert_int_equal(fk.c.size, 5);
		in.off_in = 3;
		in.off_out = INT64_MAX - 9;
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		fk_expect_called(CB_COPY_FILE_RANGE, &m);
		assert_int_equal(fk.c.size, 9);
		in.off_out = 0;
		in.len = 1u << 20;
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		fk_expect_called(CB_COPY_FILE_RANGE, &m);
		assert_int_equal(fk.c.size, 1u << 20);
	}
}

/* GETXATTR / LISTXATTR: never more than XATTR_SIZE_MAX asked of a handler */
static void test_xattr_out_size(void **state)
{
	struct fuse_getxattr_in in = {.size = UINT32_MAX};

	(void)state;
	xattr_msg(FUSE_GETXATTR, "user.x", UINT32_MAX);
	disp();
	fk_expect_called(CB_GETXATTR, &m);
	assert_int_equal(fk.c.size, 65536);
	xattr_msg(FUSE_GETXATTR, "user.x", 65536);
	disp();
	assert_int_equal(fk.c.size, 65536);
	xattr_msg(FUSE_GETXATTR, "user.x", 100);
	disp();
	assert_int_equal(fk.c.size, 100);
	mb_init(&m, FUSE_LISTXATTR, 5);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_called(CB_LISTXATTR, &m);
	assert_int_equal(fk.c.size, 65536);
}

static void test_ioctl_checks(void **state)
{
	struct fuse_ioctl_in in = {.flags = FUSE_IOCTL_UNRESTRICTED, .cmd = 1};
	struct fring_req *req = req_get(fk.q);
	size_t datasz = req->datasz;

	(void)state;
	req_put(req);
	/* unrestricted ioctls (CUSE only) are not supported */
	mb_init(&m, FUSE_IOCTL, 5);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_err(&m, ENOSYS);
	/* an out_size the buffer cannot hold */
	in.flags = 0;
	in.out_size = (uint32_t)datasz + 1;
	mb_init(&m, FUSE_IOCTL, 5);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_err(&m, EINVAL);
	in.out_size = (uint32_t)datasz;
	mb_init(&m, FUSE_IOCTL, 5);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_called(CB_IOCTL, &m);
	assert_int_equal(fk.c.size2, datasz);
}

static void test_flock_bad_type(void **state)
{
	struct fuse_lk_in in = {.lk = {.type = 7}, .lk_flags = FUSE_LK_FLOCK};

	(void)state;
	mb_init(&m, FUSE_SETLK, 5);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_err(&m, EINVAL);
}

/* ---------------- missing callbacks ---------------- */

struct dflt {
	uint32_t op;
	size_t arg0; /* zero bytes of fixed argument */
	const char *name;
	uint32_t lk_flags;
	int err;    /* header-only answer; -1: see the test */
	size_t off; /* offset of the callback in struct fring_ops */
};

#define OPS(member) offsetof(struct fring_ops, member)

static const struct dflt dflts[] = {
	{FUSE_LOOKUP, 0, "n", 0, ENOSYS, OPS(lookup)},
	{FUSE_GETATTR, 16, NULL, 0, ENOSYS, OPS(getattr)},
	{FUSE_SETATTR, 88, NULL, 0, ENOSYS, OPS(setattr)},
	{FUSE_READLINK, 0, NULL, 0, ENOSYS, OPS(readlink)},
	{FUSE_SYMLINK, 0, "n", 0, ENOSYS, OPS(symlink)},
	{FUSE_MKNOD, 16, "n", 0, ENOSYS, OPS(mknod)},
	{FUSE_MKDIR, 8, "n", 0, ENOSYS, OPS(mkdir)},
	{FUSE_UNLINK, 0, "n", 0, ENOSYS, OPS(unlink)},
	{FUSE_RMDIR, 0, "n", 0, ENOSYS, OPS(rmdir)},
	{FUSE_RENAME, 8, "n", 0, ENOSYS, OPS(rename)},
	{FUSE_RENAME2, 16, "n", 0, ENOSYS, OPS(rename)},
	{FUSE_LINK, 8, "n", 0, ENOSYS, OPS(link)},
	{FUSE_READ, 40, NULL, 0, ENOSYS, OPS(read)},
	{FUSE_WRITE, 40, NULL, 0, ENOSYS, OPS(write)},
	{FUSE_RELEASE, 24, NULL, 0, 0, OPS(release)},
	{FUSE_FSYNC, 16, NULL, 0, ENOSYS, OPS(fsync)},
	{FUSE_SETXATTR, 16, "user.n", 0, ENOSYS, OPS(setxattr)},
	{FUSE_GETXATTR, 8, "user.n", 0, ENOSYS, OPS(getxattr)},
	{FUSE_LISTXATTR, 8, NULL, 0, ENOSYS, OPS(listxattr)},
	{FUSE_REMOVEXATTR, 0, "user.n", 0, ENOSYS, OPS(removexattr)},
	{FUSE_FLUSH, 24, NULL, 0, ENOSYS, OPS(flush)},
	{FUSE_READDIR, 40, NULL, 0, ENOSYS, OPS(readdir)},
	{FUSE_RELEASEDIR, 24, NULL, 0, 0, OPS(releasedir)},
	{FUSE_FSYNCDIR, 16, NULL, 0, ENOSYS, OPS(fsyncdir)},
	{FUSE_GETLK, 48, NULL, 0, ENOSYS, OPS(getlk)},
	{FUSE_SETLK, 48, NULL, 0, ENOSYS, OPS(setlk)},
	{FUSE_SETLKW, 48, NULL, 0, ENOSYS, OPS(setlk)},
	{FUSE_SETLK, 48, NULL, FUSE_LK_FLOCK, ENOSYS, OPS(flock)},
	{FUSE_ACCESS, 8, NULL, 0, 0, OPS(access)},
	{FUSE_CREATE, 16, "n", 0, ENOSYS, OPS(create)},
	{FUSE_BMAP, 16, NULL, 0, ENOSYS, OPS(bmap)},
	{FUSE_IOCTL, 32, NULL, 0, ENOTTY, OPS(ioctl)},
	{FUSE_POLL, 24, NULL, 0, ENOSYS, OPS(poll)},
	{FUSE_FALLOCATE, 32, NULL, 0, EOPNOTSUPP, OPS(fallocate)},
	{FUSE_READDIRPLUS, 40, NULL, 0, ENOSYS, OPS(readdirplus)},
	{FUSE_LSEEK, 24, NULL, 0, ENOSYS, OPS(lseek)},
	{FUSE_COPY_FILE_RANGE, 56, NULL, 0, ENOSYS, OPS(copy_file_range)},
	{FUSE_COPY_FILE_RANGE_64, 56, NULL, 0, ENOSYS, OPS(copy_file_range)},
	{FUSE_SYNCFS, 8, NULL, 0, ENOSYS, OPS(syncfs)},
	{FUSE_TMPFILE, 16, "/", 0, EOPNOTSUPP, OPS(tmpfile)},
	{FUSE_STATX, 24, NULL, 0, ENOSYS, OPS(statx)},
};

static void unset(size_t off)
{
	memset((char *)&fk.se->ops + off, 0, sizeof(void (*)(void)));
}

static void test_missing_callbacks(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(dflts) / sizeof(dflts[0]); i++) {
		const struct dflt *d = &dflts[i];
		char arg0[128] = {0};

		if (d->op == FUSE_SETLK || d->op == FUSE_SETLKW)
			memcpy(arg0 + offsetof(struct fuse_lk_in, lk_flags),
			       &d->lk_flags, 4);
		unset(d->off);
		mb_init(&m, d->op, 5);
		mb_add(&m, arg0, d->arg0);
		if (d->name)
			mb_str(&m, d->name);
		if (d->op == FUSE_SYMLINK || d->op == FUSE_RENAME ||
		    d->op == FUSE_RENAME2)
			mb_str(&m, "m");
		disp();
		if (fk.nsent != 1 || fk.last.len != 16 ||
		    fk_out_error() != -d->err)
			fail_msg("%s without its callback: %u answers, len "
				 "%zu, error %d (want %d)",
				 fring_opname(d->op), fk.nsent, fk.last.len,
				 fk.nsent ? fk_out_error() : 0, -d->err);
		fk_expect_err(&m, d->err);
		assert_int_equal(fk_handler_bugs(), 0);
	}
}

static void test_missing_open(void **state)
{
	static const uint32_t ops[] = {FUSE_OPEN, FUSE_OPENDIR};
	struct fuse_open_in in = {.flags = O_RDWR};

	(void)state;
	FK_UNSET(open);
	FK_UNSET(opendir);
	for (int i = 0; i < 2; i++) {
		mb_init(&m, ops[i], 5);
		mb_add(&m, ANY(&in));
		disp();
		/* success with an all-zero open_out */
		assert_int_equal(fk.ncalls, 0);
		assert_int_equal(fk.nsent, 1);
		assert_int_equal(fk.last.len, 16 + 16);
		assert_int_equal(fk_out_len(), 32);
		assert_int_equal(fk_out_error(), 0);
		assert_int_equal(fk_out_unique(), mb_ih(&m)->unique);
		assert_int_equal(le64(fk_out_arg(), 0), 0);
		assert_int_equal(le32(fk_out_arg(), 8), 0);
		assert_int_equal(le32(fk_out_arg(), 12), 0);
		fk_check_idle();
	}
}

static void test_missing_statfs(void **state)
{
	(void)state;
	FK_UNSET(statfs);
	mb_init(&m, FUSE_STATFS, 1);
	disp();
	assert_int_equal(fk.ncalls, 0);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk.last.len, 16 + 80);
	assert_int_equal(fk_out_error(), 0);
	/* blocks..ffree 0, bsize 512, namelen 255, frsize 0 */
	for (size_t off = 0; off < 40; off += 8)
		assert_int_equal(le64(fk_out_arg(), off), 0);
	assert_int_equal(le32(fk_out_arg(), 40), 512);
	assert_int_equal(le32(fk_out_arg(), 44), 255);
	assert_int_equal(le32(fk_out_arg(), 48), 0);
	for (size_t off = 52; off < 80; off += 4)
		assert_int_equal(le32(fk_out_arg(), off), 0);
	fk_check_idle();
}

static void test_missing_destroy(void **state)
{
	(void)state;
	FK_UNSET(destroy);
	mb_init(&m, FUSE_DESTROY, 0);
	disp();
	fk_expect_err(&m, 0);
}

static void test_missing_forget(void **state)
{
	struct fuse_batch_forget_in in = {.count = 1};
	struct fuse_forget_one one = {3, 4};

	(void)state;
	FK_UNSET(forget);
	FK_UNSET(forget_multi);
	mb_init(&m, FUSE_BATCH_FORGET, 0);
	mb_add(&m, ANY(&in));
	mb_add(&m, ANY(&one));
	disp();
	fk_expect_silence();
	assert_int_equal(fk.nnoreply, 1);
}

/* ---------------- framing ---------------- */

static void test_msg_from_dev(void **state)
{
	struct fring_msg msg;
	struct fuse_lk_in in = {0};

	(void)state;
	mb_init(&m, FUSE_GETLK, 5);
	mb_add(&m, ANY(&in));
	/* exact */
	assert_int_equal(msg_from_dev(&msg, m.b, m.len), 0);
	assert_ptr_equal(msg.ih, m.b);
	assert_null(msg.op_in);
	assert_ptr_equal(msg.p, m.b + 40);
	assert_int_equal(msg.left, 48);
	assert_null(msg.ext);
	assert_int_equal(msg.ext_len, 0);
	/* a header shorter than 40 bytes */
	for (size_t n = 0; n < 40; n++)
		assert_int_equal(msg_from_dev(&msg, m.b, n), -EINVAL);
	/* in_header.len disagreeing with what was read */
	assert_int_equal(msg_from_dev(&msg, m.b, m.len - 1), -EINVAL);
	mb_ih(&m)->len = (uint32_t)m.len + 1;
	assert_int_equal(msg_from_dev(&msg, m.b, m.len), -EINVAL);
	mb_ih(&m)->len = 0;
	assert_int_equal(msg_from_dev(&msg, m.b, m.len), -EINVAL);
	mb_done(&m);
	/* extensions longer than the message */
	mb_ih(&m)->total_extlen = 7; /* 56 > 48 */
	assert_int_equal(msg_from_dev(&msg, m.b, m.len), -EINVAL);
	mb_ih(&m)->total_extlen = UINT16_MAX;
	assert_int_equal(msg_from_dev(&msg, m.b, m.len), -EINVAL);
	/* exactly as long: every byte is extension */
	mb_ih(&m)->total_extlen = 6;
	assert_int_equal(msg_from_dev(&msg, m.b, m.len), 0);
	assert_int_equal(msg.left, 0);
	assert_ptr_equal(msg.ext, m.b + 40);
	assert_int_equal(msg.ext_len, 48);
	/* ... and the op then misses its argument */
	disp();
	fk_expect_err(&m, EIO);
}

/* CREATE with a security-context extension after the name. */
static void test_create_with_extension(void **state)
{
	struct fuse_create_in in = {.flags = O_CREAT | O_RDWR,
				    .mode = S_IFREG | 0600};
	struct fuse_secctx_header sh = {.size = 16, .nr_secctx = 0};
	uint64_t pad = 0;
	struct fring_msg msg;

	(void)state;
	mb_init(&m, FUSE_CREATE, 5);
	mb_add(&m, ANY(&in));
	mb_str(&m, "file");
	mb_add(&m, ANY(&sh));
	mb_add(&m, &pad, 8);
	mb_ih(&m)->total_extlen = 2;
	assert_int_equal(msg_from_dev(&msg, m.b, m.len), 0);
	assert_int_equal(msg.left, 16 + 5);
	assert_int_equal(msg.ext_len, 16);
	assert_ptr_equal(msg.ext, m.b + 40 + 16 + 5);
	disp();
	fk_expect_called(CB_CREATE, &m);
	assert_string_equal(fk.c.name, "file");

	/* the extension must not make an unterminated name acceptable */
	mb_init(&m, FUSE_CREATE, 5);
	mb_add(&m, ANY(&in));
	mb_add(&m, "file", 4);
	mb_add(&m, &pad, 8); /* an extension block of zeros */
	mb_ih(&m)->total_extlen = 1;
	disp();
	fk_expect_err(&m, EIO);
}

/* fring_req_supp_groups() in a MKDIR handler: the FUSE_EXT_GROUPS block
 * after the name, among other extensions; none, or a broken one, gives 0. */
static int sg_count;
static gid_t sg_list[4];

static void sg_hook(fring_req_t *req)
{
	sg_count = fring_req_supp_groups(req, 4, sg_list);
	assert_int_equal(fring_req_supp_groups(req, 0, NULL), sg_count);
	assert_int_equal(fring_req_supp_groups(req, -1, sg_list), -EINVAL);
	fring_reply_err(req, FK_MARK);
}

static void mkdir_ext(const void *ext, size_t len)
{
	struct fuse_mkdir_in in = {.mode = 0755, .umask = 022};

	mb_init(&m, FUSE_MKDIR, 5);
	mb_add(&m, ANY(&in));
	mb_str(&m, "dir"); /* the kernel appends the block unpadded */
	mb_add(&m, ext, len);
	mb_ih(&m)->total_extlen = (uint16_t)(len / 8);
	sg_count = -99;
	disp();
	fk_expect_called(CB_MKDIR, &m);
	assert_string_equal(fk.c.name, "dir");
}

static void test_supp_groups(void **state)
{
	struct {
		struct fuse_ext_header sec;
		struct fuse_secctx_header sh;
		struct fuse_ext_header grp;
		uint32_t nr, g[3];
	} ext = {
		.sec = {.size = 16, .type = 1}, /* types 0..31: nr_secctx */
		.sh = {.size = 8, .nr_secctx = 0},
		.grp = {.size = 24, .type = FUSE_EXT_GROUPS},
		.nr = 2,
		.g = {4242, 77, 0},
	};

	(void)state;
	_Static_assert(sizeof(ext) == 40, "two extensions");
	fk.hook = sg_hook;
	mkdir_ext(&ext, sizeof(ext));
	assert_int_equal(sg_count, 2);
	assert_int_equal(sg_list[0], 4242);
	assert_int_equal(sg_list[1], 77);
	/* only the other extension */
	mkdir_ext(&ext, 16);
	assert_int_equal(sg_count, 0);
	/* more groups claimed than the block holds */
	ext.nr = 4;
	mkdir_ext(&ext, sizeof(ext));
	assert_int_equal(sg_count, 0);
	/* a header running past the block */
	ext.nr = 1;
	ext.grp.size = 32;
	mkdir_ext(&ext, sizeof(ext));
	assert_int_equal(sg_count, 0);
	fk.hook = NULL;
}

/* fring_req_secctx() in the handlers of the five creating requests: the
 * block as the kernel's get_security_context() builds it, then the
 * supplementary group's (get_create_supp_group() appends it). */
static int sc_ret, sc_groups;
static char sc_name[64], sc_value[64];
static size_t sc_size;
static bool sc_null_when_none;

static void sc_hook(fring_req_t *req)
{
	const char *name = (const char *)1;
	const void *value = (const void *)1;
	size_t size = 99;
	gid_t g[2];

	sc_ret = fring_req_secctx(req, &name, &value, &size);
	sc_name[0] = sc_value[0] = '\0';
	sc_size = size;
	if (sc_ret == 1) {
		snprintf(sc_name, sizeof(sc_name), "%s", name);
		memcpy(sc_value, value, size < sizeof(sc_value) ? size : 0);
	}
	sc_null_when_none = sc_ret == 1 || (!name && !value && !size);
	/* every output may be NULL */
	assert_int_equal(fring_req_secctx(req, NULL, NULL, NULL), sc_ret);
	sc_groups = fring_req_supp_groups(req, 2, g);
	fring_reply_err(req, FK_MARK);
}

/* The block: header, fuse_secctx, name with NUL, value, padded to 8. */
static size_t secctx_block(unsigned char *b, const char *name,
			   const void *value, uint32_t vlen)
{
	struct fuse_secctx_header sh = {.nr_secctx = 1};
	struct fuse_secctx sc = {.size = vlen};
	size_t nlen = strlen(name) + 1,
	       len = sizeof(sh) + sizeof(sc) + nlen + vlen;

	len = (len + 7) / 8 * 8;
	memset(b, 0, len);
	sh.size = (uint32_t)len;
	memcpy(b, &sh, sizeof(sh));
	memcpy(b + sizeof(sh), &sc, sizeof(sc));
	memcpy(b + sizeof(sh) + sizeof(sc), name, nlen);
	memcpy(b + sizeof(sh) + sizeof(sc) + nlen, value, vlen);
	return len;
}

/* One creating request of each kind with ext (len bytes) after its
 * arguments; the callback must run for each. */
static void create_kinds(const void *ext, size_t len, void (*check)(void))
{
	static const uint32_t ops[] = {FUSE_MKNOD, FUSE_MKDIR, FUSE_SYMLINK,
				       FUSE_CREATE, FUSE_TMPFILE};
	static const enum cb_id cbs[] = {CB_MKNOD, CB_MKDIR, CB_SYMLINK,
					 CB_CREATE, CB_TMPFILE};
	struct fuse_mknod_in mk = {.mode = S_IFREG | 0644, .umask = 022};
	struct fuse_mkdir_in md = {.mode = 0755, .umask = 022};
	struct fuse_create_in cr = {.flags = O_CREAT | O_RDWR,
				    .mode = S_IFREG | 0600};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		mb_init(&m, ops[i], 5);
		switch (ops[i]) {
		case FUSE_MKNOD:
			mb_add(&m, ANY(&mk));
			mb_str(&m, "node");
			break;
		case FUSE_MKDIR:
			mb_add(&m, ANY(&md));
			mb_str(&m, "dir");
			break;
		case FUSE_SYMLINK:
			mb_str(&m, "lnk");
			mb_str(&m, "target");
			break;
		case FUSE_CREATE:
			mb_add(&m, ANY(&cr));
			mb_str(&m, "file");
			break;
		case FUSE_TMPFILE:
			cr.flags = O_RDWR | O_TMPFILE;
			mb_add(&m, ANY(&cr));
			mb_str(&m, "/");
			break;
		}
		mb_add(&m, ext, len);
		mb_ih(&m)->total_extlen = (uint16_t)(len / 8);
		sc_ret = -99;
		disp();
		fk_expect_called(cbs[i], &m);
		check();
	}
}

static const char selinux_ctx[] = "unconfined_u:object_r:user_tmp_t:s0";

static void expect_context(void)
{
	assert_int_equal(sc_ret, 1);
	assert_string_equal(sc_name, "security.selinux");
	/* SELinux's length counts its NUL */
	assert_int_equal(sc_size, sizeof(selinux_ctx));
	assert_memory_equal(sc_value, selinux_ctx, sizeof(selinux_ctx));
	assert_int_equal(sc_groups, 1);
}

static void expect_context_no_groups(void)
{
	assert_int_equal(sc_ret, 1);
	assert_int_equal(sc_groups, 0);
}

static void expect_none(void)
{
	assert_int_equal(sc_ret, 0);
	assert_true(sc_null_when_none);
}

static void expect_eproto(void)
{
	assert_int_equal(sc_ret, -EPROTO);
	assert_true(sc_null_when_none);
}

static void test_secctx(void **state)
{
	unsigned char ext[256];
	struct fuse_ext_header grp = {.size = 16, .type = FUSE_EXT_GROUPS};
	uint32_t grp_body[2] = {1, 4242};
	struct fuse_secctx_header none = {.size = 8, .nr_secctx = 0};
	size_t len;

	(void)state;
	fk.hook = sc_hook;
	/* a context and a group, in the kernel's order */
	len = secctx_block(ext, "security.selinux", selinux_ctx,
			   sizeof(selinux_ctx));
	memcpy(ext + len, &grp, sizeof(grp));
	memcpy(ext + len + sizeof(grp), grp_body, sizeof(grp_body));
	create_kinds(ext, len + 16, expect_context);
	/* the context alone; a value without NUL (Smack's) */
	len = secctx_block(ext, "security.SMACK64", "_", 1);
	create_kinds(ext, len, expect_context_no_groups);
	assert_string_equal(sc_name, "security.SMACK64");
	assert_int_equal(sc_size, 1);
	assert_memory_equal(sc_value, "_", 1);
	/* negotiated, no LSM labels it: the header with a count of 0 */
	memcpy(ext, &none, sizeof(none));
	memcpy(ext + 8, &grp, sizeof(grp));
	memcpy(ext + 16, grp_body, sizeof(grp_body));
	create_kinds(ext, 24, expect_none);
	assert_int_equal(sc_groups, 1);
	/* the group alone, and no extension at all */
	create_kinds(ext + 8, 16, expect_none);
	create_kinds(ext, 0, expect_none);

	/* blocks that do not hold what they say */
	len = secctx_block(ext, "security.selinux", selinux_ctx,
			   sizeof(selinux_ctx));
	((struct fuse_secctx *)(ext + 8))->size = (uint32_t)len; /* too big */
	create_kinds(ext, len, expect_eproto);
	len = secctx_block(ext, "", "x", 1); /* no name */
	create_kinds(ext, len, expect_eproto);
	len = secctx_block(ext, "security.x", "", 0);
	memset(ext + 16, 'a', len - 16); /* a name without its NUL */
	create_kinds(ext, len, expect_eproto);
	/* a header of 8 bytes claiming a context: no fuse_secctx */
	none.nr_secctx = 1;
	memcpy(ext, &none, sizeof(none));
	create_kinds(ext, 8, expect_eproto);
	/* a header longer than the extensions: nothing found */
	len = secctx_block(ext, "security.selinux", selinux_ctx,
			   sizeof(selinux_ctx));
	((struct fuse_secctx_header *)ext)->size = (uint32_t)len + 8;
	create_kinds(ext, len, expect_none);
	fk.hook = NULL;

	assert_int_equal(fring_req_secctx(NULL, NULL, NULL, NULL), -EINVAL);
}

/* Without an open / opendir callback, OPEN and OPENDIR succeed, unless
 * the filesystem wanted FUSE_NO_OPEN(DIR)_SUPPORT (se->no_open*, set at
 * INIT): then ENOSYS, and the kernel stops asking. */
static void test_no_open_default(void **state)
{
	struct fuse_open_in in = {.flags = O_RDONLY};

	(void)state;
	unset(offsetof(struct fring_ops, open));
	unset(offsetof(struct fring_ops, opendir));
	for (int dir = 0; dir < 2; dir++) {
		for (int no = 0; no < 2; no++) {
			fk.se->no_open = fk.se->no_opendir = no;
			mb_init(&m, dir ? FUSE_OPENDIR : FUSE_OPEN, 5);
			mb_add(&m, ANY(&in));
			disp();
			if (no) {
				fk_expect_err(&m, ENOSYS);
				continue;
			}
			assert_int_equal(fk.nsent, 1);
			assert_int_equal(fk_out_error(), 0);
			assert_int_equal(fk_out_len(),
					 16 + sizeof(struct fuse_open_out));
		}
	}
	fk.se->no_open = fk.se->no_opendir = false;
}

/* A message that cannot be decoded at all (ring: payload size out of
 * range) is answered EIO and counted malformed; no callback. */
static void test_reject(void **state)
{
	struct fuse_in_header ih = {.len = 64,
				    .opcode = FUSE_LOOKUP,
				    .unique = 0x1234,
				    .nodeid = 7};
	uint64_t bad = fk_malformed();
	struct fring_req *req;

	(void)state;
	fk_reset();
	req = req_get(fk.q);
	assert_non_null(req);
	fring_reject(req, &ih, "test");
	assert_int_equal(fk.ncalls, 0);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk.last.len, 16);
	assert_int_equal(fk_out_error(), -EIO);
	assert_int_equal(fk_out_unique(), 0x1234);
	assert_int_equal(fk_malformed(), bad + 1);
	fk_check_idle();
}

static void test_request_counters(void **state)
{
	uint64_t req = atomic_load(&fk.q->stats.requests);
	uint64_t lookups = atomic_load(&fk.q->stats.by_opcode[FUSE_LOOKUP]);
	uint64_t rep = fk_replies();
	uint64_t own = atomic_load(&fk.q->stats.replies_own);
	uint64_t errs = atomic_load(&fk.q->stats.errors);

	(void)state;
	mb_init(&m, FUSE_LOOKUP, 1);
	mb_str(&m, "x");
	disp();
	/* answered inside the handler on its thread: the owner's count */
	assert_int_equal(atomic_load(&fk.q->stats.replies_own), own + 1);
	assert_int_equal(atomic_load(&fk.q->stats.requests), req + 1);
	assert_int_equal(atomic_load(&fk.q->stats.by_opcode[FUSE_LOOKUP]),
			 lookups + 1);
	assert_int_equal(fk_replies(), rep + 1);
	assert_int_equal(atomic_load(&fk.q->stats.errors), errs + 1);
	fk_check_idle();
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, fk_setup, fk_teardown)
	const struct CMUnitTest tests[] = {
		T(test_name_slash),
		T(test_name_length),
		T(test_symlink_target_length),
		T(test_name_missing_nul),
		T(test_xattr_names),
		T(test_setxattr_value_size),
		T(test_setattr_size_range),
		T(test_read_ranges),
		T(test_write_ranges),
		T(test_fallocate_ranges),
		T(test_copy_file_range_ranges),
		T(test_xattr_out_size),
		T(test_ioctl_checks),
		T(test_flock_bad_type),
		T(test_missing_callbacks),
		T(test_missing_open),
		T(test_missing_statfs),
		T(test_missing_destroy),
		T(test_missing_forget),
		T(test_msg_from_dev),
		T(test_create_with_extension),
		T(test_supp_groups),
		T(test_secctx),
		T(test_no_open_default),
		T(test_reject),
		T(test_request_counters),
	};

	return cmocka_run_group_tests_name("decode_checks", tests, NULL, NULL);
}
