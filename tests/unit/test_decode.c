/* SPDX-License-Identifier: MIT */
/*
 * The decoder, one opcode at a time: a good message reaches its callback
 * with exactly the decoded values, and every truncation of it (header only
 * up to one byte short) is answered with an error without reaching the
 * callback and without reading past the end of the message.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "fake_session.h"

#define ANY(ptr) (ptr), sizeof(*(ptr))

static struct mb m;

static void disp(void)
{
	fk_reset();
	assert_int_equal(fk_dispatch(&m), 0);
}

/* Dispatch m, expect callback id, then check every truncation of m. */
#define GOOD(id)                                                               \
	do {                                                                   \
		disp();                                                        \
		fk_expect_called((id), &m);                                    \
	} while (0)

static void test_lookup(void **state)
{
	(void)state;
	mb_init(&m, FUSE_LOOKUP, 7);
	mb_str(&m, "hello");
	GOOD(CB_LOOKUP);
	assert_int_equal(fk.c.ino, 7);
	assert_string_equal(fk.c.name, "hello");
	assert_int_equal(fk.c.ctx.umask, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_forget(void **state)
{
	struct fuse_forget_in in = {.nlookup = 3};

	(void)state;
	mb_init(&m, FUSE_FORGET, 9);
	mb_add(&m, ANY(&in));
	disp();
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(fk.nnoreply, 1);
	assert_int_equal(fk.calls[CB_FORGET], 1);
	assert_int_equal(fk.calls[CB_FORGET_MULTI], 0);
	assert_int_equal(fk.nforgets, 1);
	assert_int_equal(fk.forgets[0].ino, 9);
	assert_int_equal(fk.forgets[0].nlookup, 3);
	assert_ptr_equal(fk.c.userdata, fk.se->userdata);
	fk_check_idle();

	/* only forget_multi: a batch of one */
	FK_UNSET(forget);
	disp();
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(fk.calls[CB_FORGET_MULTI], 1);
	assert_int_equal(fk.c.size, 1);
	assert_int_equal(fk.forgets[0].ino, 9);
	assert_int_equal(fk.forgets[0].nlookup, 3);

	/* neither: nothing to do, still no answer */
	FK_UNSET(forget_multi);
	disp();
	fk_expect_silence();
	assert_int_equal(fk.nnoreply, 1);

	fk_truncations(&m, 0, TR_NOREPLY | TR_MALFORMED);
}

static void test_getattr(void **state)
{
	struct fuse_getattr_in in = {.getattr_flags = 0, .fh = 77};

	(void)state;
	mb_init(&m, FUSE_GETATTR, 5);
	mb_add(&m, ANY(&in));
	GOOD(CB_GETATTR);
	assert_int_equal(fk.c.ino, 5);
	assert_false(fk.c.has_fi);
	fk_truncations(&m, EIO, TR_MALFORMED);

	in.getattr_flags = FUSE_GETATTR_FH;
	mb_init(&m, FUSE_GETATTR, 5);
	mb_add(&m, ANY(&in));
	GOOD(CB_GETATTR);
	assert_true(fk.c.has_fi);
	assert_int_equal(fk.c.fi.fh, 77);
	assert_int_equal(fk.c.fi.flags, 0);
	assert_int_equal(fk.c.fi.lock_owner, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static struct fuse_setattr_in setattr_in(uint32_t valid)
{
	struct fuse_setattr_in in = {
		.valid = valid,
		.fh = 0x1111,
		.size = 123456789,
		.lock_owner = 0x2222,
		.atime = 1000,
		.mtime = 2000,
		.ctime = 3000,
		.atimensec = 11,
		.mtimensec = 22,
		.ctimensec = 33,
		.mode = S_IFREG | 04755,
		.uid = 501,
		.gid = 502,
	};

	return in;
}

static void check_setattr_stat(void)
{
	assert_int_equal(fk.c.st.st_mode, S_IFREG | 04755);
	assert_int_equal(fk.c.st.st_uid, 501);
	assert_int_equal(fk.c.st.st_gid, 502);
	assert_int_equal(fk.c.st.st_size, 123456789);
	assert_int_equal(fk.c.st.st_atim.tv_sec, 1000);
	assert_int_equal(fk.c.st.st_atim.tv_nsec, 11);
	assert_int_equal(fk.c.st.st_mtim.tv_sec, 2000);
	assert_int_equal(fk.c.st.st_mtim.tv_nsec, 22);
	assert_int_equal(fk.c.st.st_ctim.tv_sec, 3000);
	assert_int_equal(fk.c.st.st_ctim.tv_nsec, 33);
}

static void test_setattr_all(void **state)
{
	const uint32_t all = 0xfff;
	struct fuse_setattr_in in = setattr_in(all);

	(void)state;
	mb_init(&m, FUSE_SETATTR, 12);
	mb_add(&m, ANY(&in));
	GOOD(CB_SETATTR);
	assert_int_equal(fk.c.ino, 12);
	assert_int_equal(fk.c.to_set,
			 FRING_SET_MODE | FRING_SET_UID | FRING_SET_GID |
				 FRING_SET_SIZE | FRING_SET_ATIME |
				 FRING_SET_MTIME | FRING_SET_ATIME_NOW |
				 FRING_SET_MTIME_NOW | FRING_SET_CTIME |
				 FRING_SET_KILL_SUIDGID);
	check_setattr_stat();
	assert_true(fk.c.has_fi);
	assert_int_equal(fk.c.fi.fh, 0x1111);
	assert_int_equal(fk.c.fi.lock_owner, 0x2222);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_setattr_each_bit(void **state)
{
	static const struct {
		uint32_t fattr;
		int to_set;
	} map[] = {
		{FATTR_MODE, FRING_SET_MODE},
		{FATTR_UID, FRING_SET_UID},
		{FATTR_GID, FRING_SET_GID},
		{FATTR_SIZE, FRING_SET_SIZE},
		{FATTR_ATIME, FRING_SET_ATIME},
		{FATTR_MTIME, FRING_SET_MTIME},
		{FATTR_FH, 0},
		{FATTR_ATIME_NOW, FRING_SET_ATIME_NOW},
		{FATTR_MTIME_NOW, FRING_SET_MTIME_NOW},
		{FATTR_LOCKOWNER, 0},
		{FATTR_CTIME, FRING_SET_CTIME},
		{FATTR_KILL_SUIDGID, FRING_SET_KILL_SUIDGID},
		{1u << 12, 0}, /* unknown bits are not passed on */
		{1u << 31, 0},
		{0, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct fuse_setattr_in in = setattr_in(map[i].fattr);

		mb_init(&m, FUSE_SETATTR, 12);
		mb_add(&m, ANY(&in));
		GOOD(CB_SETATTR);
		assert_int_equal(fk.c.to_set, map[i].to_set);
		/* the stat fields carry the values whatever the bits */
		check_setattr_stat();
		if (map[i].fattr == FATTR_FH) {
			assert_true(fk.c.has_fi);
			assert_int_equal(fk.c.fi.fh, 0x1111);
			assert_int_equal(fk.c.fi.lock_owner, 0);
		} else {
			/* LOCKOWNER alone names no open file */
			assert_false(fk.c.has_fi);
		}
	}
}

static void test_readlink(void **state)
{
	(void)state;
	mb_init(&m, FUSE_READLINK, 44);
	GOOD(CB_READLINK);
	assert_int_equal(fk.c.ino, 44);
}

static void test_symlink(void **state)
{
	(void)state;
	mb_init(&m, FUSE_SYMLINK, 3);
	mb_str(&m, "lnk");
	mb_str(&m, "../some/target");
	GOOD(CB_SYMLINK);
	assert_int_equal(fk.c.ino, 3);
	assert_string_equal(fk.c.name, "lnk");
	assert_string_equal(fk.c.name2, "../some/target");
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_mknod(void **state)
{
	struct fuse_mknod_in in = {
		.mode = S_IFCHR | 0640,
		/* the kernel's new_encode_dev(MKDEV(300, 70000)) */
		.rdev = (70000 & 0xff) | (300 << 8) | ((70000 & ~0xffu) << 12),
		.umask = 022,
	};

	(void)state;
	mb_init(&m, FUSE_MKNOD, 3);
	mb_add(&m, ANY(&in));
	mb_str(&m, "dev");
	GOOD(CB_MKNOD);
	assert_int_equal(fk.c.ino, 3);
	assert_string_equal(fk.c.name, "dev");
	assert_int_equal(fk.c.mode, S_IFCHR | 0640);
	assert_int_equal(major(fk.c.rdev), 300);
	assert_int_equal(minor(fk.c.rdev), 70000);
	assert_int_equal(fk.c.ctx.umask, 022);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_mkdir(void **state)
{
	struct fuse_mkdir_in in = {.mode = 0755, .umask = 027};

	(void)state;
	mb_init(&m, FUSE_MKDIR, 3);
	mb_add(&m, ANY(&in));
	mb_str(&m, "d");
	GOOD(CB_MKDIR);
	assert_int_equal(fk.c.ino, 3);
	assert_string_equal(fk.c.name, "d");
	assert_int_equal(fk.c.mode, S_IFDIR | 0755);
	assert_int_equal(fk.c.ctx.umask, 027);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_unlink_rmdir(void **state)
{
	(void)state;
	mb_init(&m, FUSE_UNLINK, 8);
	mb_str(&m, "file");
	GOOD(CB_UNLINK);
	assert_int_equal(fk.c.ino, 8);
	assert_string_equal(fk.c.name, "file");
	fk_truncations(&m, EIO, TR_MALFORMED);

	mb_init(&m, FUSE_RMDIR, 8);
	mb_str(&m, "dir");
	GOOD(CB_RMDIR);
	assert_int_equal(fk.c.ino, 8);
	assert_string_equal(fk.c.name, "dir");
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_rename(void **state)
{
	struct fuse_rename_in in = {.newdir = 12};

	(void)state;
	mb_init(&m, FUSE_RENAME, 11);
	mb_add(&m, ANY(&in));
	mb_str(&m, "old");
	mb_str(&m, "new");
	GOOD(CB_RENAME);
	assert_int_equal(fk.c.ino, 11);
	assert_int_equal(fk.c.ino2, 12);
	assert_string_equal(fk.c.name, "old");
	assert_string_equal(fk.c.name2, "new");
	assert_int_equal(fk.c.flags, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_rename2(void **state)
{
	struct fuse_rename2_in in = {.newdir = 13, .flags = 2 /* EXCHANGE */};

	(void)state;
	mb_init(&m, FUSE_RENAME2, 11);
	mb_add(&m, ANY(&in));
	mb_str(&m, "a");
	mb_str(&m, "b");
	GOOD(CB_RENAME);
	assert_int_equal(fk.c.ino, 11);
	assert_int_equal(fk.c.ino2, 13);
	assert_string_equal(fk.c.name, "a");
	assert_string_equal(fk.c.name2, "b");
	assert_int_equal(fk.c.flags, 2);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_link(void **state)
{
	struct fuse_link_in in = {.oldnodeid = 33};

	(void)state;
	mb_init(&m, FUSE_LINK, 4);
	mb_add(&m, ANY(&in));
	mb_str(&m, "newname");
	GOOD(CB_LINK);
	assert_int_equal(fk.c.ino, 33);
	assert_int_equal(fk.c.ino2, 4);
	assert_string_equal(fk.c.name, "newname");
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_open(void **state)
{
	struct fuse_open_in in = {.flags = O_RDWR | O_APPEND,
				  .open_flags = FUSE_OPEN_KILL_SUIDGID};

	(void)state;
	mb_init(&m, FUSE_OPEN, 21);
	mb_add(&m, ANY(&in));
	GOOD(CB_OPEN);
	assert_int_equal(fk.c.ino, 21);
	assert_true(fk.c.has_fi);
	assert_int_equal(fk.c.fi.flags, O_RDWR | O_APPEND);
	assert_int_equal(fk.c.fi.kill_suidgid, 1);
	assert_int_equal(fk.c.fi.fh, 0);
	assert_int_equal(fk.c.fi.direct_io, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);

	in.open_flags = 0;
	mb_init(&m, FUSE_OPEN, 21);
	mb_add(&m, ANY(&in));
	GOOD(CB_OPEN);
	assert_int_equal(fk.c.fi.kill_suidgid, 0);
}

static void test_read(void **state)
{
	struct fuse_read_in in = {
		.fh = 0xf00d,
		.offset = 1ull << 40,
		.size = 131072,
		.read_flags = FUSE_READ_LOCKOWNER,
		.lock_owner = 0xabcdef,
		.flags = O_RDONLY | O_NONBLOCK,
	};
	struct fring_req *req;

	(void)state;
	mb_init(&m, FUSE_READ, 17);
	mb_add(&m, ANY(&in));
	GOOD(CB_READ);
	req = fk.c.req;
	assert_int_equal(fk.c.ino, 17);
	assert_int_equal(fk.c.size, 131072);
	assert_int_equal(fk.c.off, 1ll << 40);
	assert_int_equal(fk.c.fi.fh, 0xf00d);
	assert_int_equal(fk.c.fi.lock_owner, 0xabcdef);
	assert_int_equal(fk.c.fi.flags, O_RDONLY | O_NONBLOCK);
	assert_int_equal(fk.c.buf.kind, FRING_BUF_MEM);
	assert_int_equal(fk.c.buf.size, 131072);
	assert_ptr_equal(fk.c.buf.mem, req->data);
	assert_int_equal(fk.c.buf.buf_index, -1);
	assert_int_equal(fk.c.buf.buf_addr, (uintptr_t)req->data);
	fk_truncations(&m, EIO, TR_MALFORMED);

	/* without READ_LOCKOWNER the owner is not passed on */
	in.read_flags = 0;
	mb_init(&m, FUSE_READ, 17);
	mb_add(&m, ANY(&in));
	GOOD(CB_READ);
	assert_int_equal(fk.c.fi.lock_owner, 0);
}

static void test_write(void **state)
{
	struct fuse_write_in in = {
		.fh = 5,
		.offset = 4096,
		.size = 5,
		.write_flags = FUSE_WRITE_CACHE | FUSE_WRITE_LOCKOWNER |
			       FUSE_WRITE_KILL_SUIDGID,
		.lock_owner = 0xabc,
		.flags = O_WRONLY,
	};
	uint64_t written = atomic_load(&fk.q->stats.bytes_written);

	(void)state;
	mb_init(&m, FUSE_WRITE, 19);
	mb_add(&m, ANY(&in));
	mb_add(&m, "hello", 5);
	GOOD(CB_WRITE);
	assert_int_equal(fk.c.ino, 19);
	assert_int_equal(fk.c.off, 4096);
	assert_int_equal(fk.c.buf.kind, FRING_BUF_MEM);
	assert_int_equal(fk.c.buf.size, 5);
	assert_int_equal(fk.c.buf.buf_index, -1);
	assert_int_equal(fk.c.buf.buf_addr, (uintptr_t)fk.c.buf.mem);
	assert_int_equal(fk.c.datalen, 5);
	assert_memory_equal(fk.c.data, "hello", 5);
	assert_int_equal(fk.c.fi.fh, 5);
	assert_int_equal(fk.c.fi.writepage, 1);
	assert_int_equal(fk.c.fi.kill_suidgid, 1);
	assert_int_equal(fk.c.fi.lock_owner, 0xabc);
	assert_int_equal(fk.c.fi.flags, O_WRONLY);
	assert_int_equal(atomic_load(&fk.q->stats.bytes_written), written + 5);
	fk_truncations(&m, EIO, TR_MALFORMED);

	in.write_flags = 0;
	in.size = 0;
	mb_init(&m, FUSE_WRITE, 19);
	mb_add(&m, ANY(&in));
	GOOD(CB_WRITE);
	assert_int_equal(fk.c.buf.size, 0);
	assert_int_equal(fk.c.fi.writepage, 0);
	assert_int_equal(fk.c.fi.kill_suidgid, 0);
	assert_int_equal(fk.c.fi.lock_owner, 0);
}

static void test_statfs(void **state)
{
	(void)state;
	mb_init(&m, FUSE_STATFS, 1);
	GOOD(CB_STATFS);
	assert_int_equal(fk.c.ino, 1);
}

static void release_case(uint32_t op, enum cb_id id)
{
	struct fuse_release_in in = {
		.fh = 8,
		.flags = O_RDWR,
		.release_flags = FUSE_RELEASE_FLUSH | FUSE_RELEASE_FLOCK_UNLOCK,
		.lock_owner = 99,
	};

	mb_init(&m, op, 6);
	mb_add(&m, ANY(&in));
	GOOD(id);
	assert_int_equal(fk.c.ino, 6);
	assert_int_equal(fk.c.fi.fh, 8);
	assert_int_equal(fk.c.fi.flags, O_RDWR);
	assert_int_equal(fk.c.fi.lock_owner, 99);
	assert_int_equal(fk.c.fi.flush, 1);
	assert_int_equal(fk.c.fi.flock_release, 1);
	fk_truncations(&m, EIO, TR_MALFORMED);

	in.release_flags = 0;
	mb_init(&m, op, 6);
	mb_add(&m, ANY(&in));
	GOOD(id);
	assert_int_equal(fk.c.fi.flush, 0);
	assert_int_equal(fk.c.fi.flock_release, 0);
}

static void test_release(void **state)
{
	(void)state;
	release_case(FUSE_RELEASE, CB_RELEASE);
}

static void test_releasedir(void **state)
{
	(void)state;
	release_case(FUSE_RELEASEDIR, CB_RELEASEDIR);
}

static void fsync_case(uint32_t op, enum cb_id id)
{
	struct fuse_fsync_in in = {.fh = 3,
				   .fsync_flags = FUSE_FSYNC_FDATASYNC};

	mb_init(&m, op, 6);
	mb_add(&m, ANY(&in));
	GOOD(id);
	assert_int_equal(fk.c.ino, 6);
	assert_int_equal(fk.c.fi.fh, 3);
	assert_int_equal(fk.c.i, 1);
	fk_truncations(&m, EIO, TR_MALFORMED);

	in.fsync_flags = 0;
	mb_init(&m, op, 6);
	mb_add(&m, ANY(&in));
	GOOD(id);
	assert_int_equal(fk.c.i, 0);
}

static void test_fsync(void **state)
{
	(void)state;
	fsync_case(FUSE_FSYNC, CB_FSYNC);
}

static void test_fsyncdir(void **state)
{
	(void)state;
	fsync_case(FUSE_FSYNCDIR, CB_FSYNCDIR);
}

static void test_setxattr_ext(void **state)
{
	struct fuse_setxattr_in in = {.size = 3,
				      .flags = 2 /* XATTR_REPLACE */,
				      .setxattr_flags =
					      FUSE_SETXATTR_ACL_KILL_SGID};

	(void)state;
	assert_true(fk.se->setxattr_ext);
	mb_init(&m, FUSE_SETXATTR, 14);
	mb_add(&m, ANY(&in));
	mb_str(&m, "user.k");
	mb_add(&m, "v\0w", 3); /* values are bytes, NULs included */
	GOOD(CB_SETXATTR);
	assert_int_equal(fk.c.ino, 14);
	assert_string_equal(fk.c.name, "user.k");
	assert_int_equal(fk.c.size, 3);
	assert_int_equal(fk.c.datalen, 3);
	assert_memory_equal(fk.c.data, "v\0w", 3);
	assert_int_equal(fk.c.i, 2);
	fk_truncations(&m, EIO, TR_MALFORMED);

	/* an empty value */
	in.size = 0;
	mb_init(&m, FUSE_SETXATTR, 14);
	mb_add(&m, ANY(&in));
	mb_str(&m, "user.empty");
	GOOD(CB_SETXATTR);
	assert_int_equal(fk.c.size, 0);
	assert_string_equal(fk.c.name, "user.empty");
}

static void test_setxattr_compat(void **state)
{
	/* without SETXATTR_EXT the kernel sends only {size, flags} */
	uint32_t in[2] = {4, 1 /* XATTR_CREATE */};

	(void)state;
	fk.se->setxattr_ext = false;
	mb_init(&m, FUSE_SETXATTR, 14);
	mb_add(&m, in, sizeof(in));
	mb_str(&m, "trusted.x");
	mb_add(&m, "data", 4);
	GOOD(CB_SETXATTR);
	assert_string_equal(fk.c.name, "trusted.x");
	assert_int_equal(fk.c.size, 4);
	assert_memory_equal(fk.c.data, "data", 4);
	assert_int_equal(fk.c.i, 1);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_getxattr(void **state)
{
	struct fuse_getxattr_in in = {.size = 100};

	(void)state;
	mb_init(&m, FUSE_GETXATTR, 15);
	mb_add(&m, ANY(&in));
	mb_str(&m, "user.k");
	GOOD(CB_GETXATTR);
	assert_int_equal(fk.c.ino, 15);
	assert_string_equal(fk.c.name, "user.k");
	assert_int_equal(fk.c.size, 100);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_listxattr(void **state)
{
	struct fuse_getxattr_in in = {.size = 0};

	(void)state;
	mb_init(&m, FUSE_LISTXATTR, 15);
	mb_add(&m, ANY(&in));
	GOOD(CB_LISTXATTR);
	assert_int_equal(fk.c.ino, 15);
	assert_int_equal(fk.c.size, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);

	in.size = 4096;
	mb_init(&m, FUSE_LISTXATTR, 15);
	mb_add(&m, ANY(&in));
	GOOD(CB_LISTXATTR);
	assert_int_equal(fk.c.size, 4096);
}

static void test_removexattr(void **state)
{
	(void)state;
	mb_init(&m, FUSE_REMOVEXATTR, 15);
	mb_str(&m, "security.selinux");
	GOOD(CB_REMOVEXATTR);
	assert_int_equal(fk.c.ino, 15);
	assert_string_equal(fk.c.name, "security.selinux");
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_flush(void **state)
{
	struct fuse_flush_in in = {.fh = 4, .lock_owner = 0x77};

	(void)state;
	mb_init(&m, FUSE_FLUSH, 16);
	mb_add(&m, ANY(&in));
	GOOD(CB_FLUSH);
	assert_int_equal(fk.c.ino, 16);
	assert_int_equal(fk.c.fi.fh, 4);
	assert_int_equal(fk.c.fi.lock_owner, 0x77);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_init_again(void **state)
{
	struct fuse_init_in in = {.major = 7, .minor = 46, .flags = 1};
	uint64_t bad = fk_malformed();

	(void)state;
	mb_init(&m, FUSE_INIT, 0);
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_err(&m, EPROTO);
	assert_int_equal(fk.calls[CB_INIT], 0);
	assert_int_equal(fk_malformed(), bad);
	fk_truncations(&m, EPROTO, 0);
}

static void test_opendir(void **state)
{
	struct fuse_open_in in = {.flags = O_RDONLY | O_DIRECTORY};

	(void)state;
	mb_init(&m, FUSE_OPENDIR, 22);
	mb_add(&m, ANY(&in));
	GOOD(CB_OPENDIR);
	assert_int_equal(fk.c.ino, 22);
	assert_int_equal(fk.c.fi.flags, O_RDONLY | O_DIRECTORY);
	assert_int_equal(fk.c.fi.fh, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void readdir_case(uint32_t op, enum cb_id id)
{
	struct fuse_read_in in = {.fh = 6,
				  .offset = 3,
				  .size = 4096,
				  .flags = O_RDONLY | O_DIRECTORY};
	struct fring_req *req;

	mb_init(&m, op, 22);
	mb_add(&m, ANY(&in));
	GOOD(id);
	req = fk.c.req;
	assert_int_equal(fk.c.ino, 22);
	assert_int_equal(fk.c.size, 4096);
	assert_int_equal(fk.c.off, 3);
	assert_int_equal(fk.c.fi.fh, 6);
	assert_int_equal(fk.c.fi.flags, O_RDONLY | O_DIRECTORY);
	assert_int_equal(fk.c.buf.kind, FRING_BUF_MEM);
	assert_int_equal(fk.c.buf.size, 4096);
	assert_ptr_equal(fk.c.buf.mem, req->data);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_readdir(void **state)
{
	(void)state;
	readdir_case(FUSE_READDIR, CB_READDIR);
}

static void test_readdirplus(void **state)
{
	(void)state;
	readdir_case(FUSE_READDIRPLUS, CB_READDIRPLUS);
}

static struct fuse_lk_in lk_in(uint32_t type, uint64_t start, uint64_t end,
			       uint32_t lk_flags)
{
	struct fuse_lk_in in = {
		.fh = 2,
		.owner = 0x55,
		.lk = {.start = start, .end = end, .type = type, .pid = 77},
		.lk_flags = lk_flags,
	};

	return in;
}

static void test_getlk(void **state)
{
	struct fuse_lk_in in = lk_in(F_WRLCK, 100, 199, 0);

	(void)state;
	mb_init(&m, FUSE_GETLK, 23);
	mb_add(&m, ANY(&in));
	GOOD(CB_GETLK);
	assert_int_equal(fk.c.ino, 23);
	assert_int_equal(fk.c.fi.fh, 2);
	assert_int_equal(fk.c.fi.lock_owner, 0x55);
	assert_int_equal(fk.c.fl.l_type, F_WRLCK);
	assert_int_equal(fk.c.fl.l_whence, SEEK_SET);
	assert_int_equal(fk.c.fl.l_start, 100);
	assert_int_equal(fk.c.fl.l_len, 100);
	assert_int_equal(fk.c.fl.l_pid, 77);
	fk_truncations(&m, EIO, TR_MALFORMED);

	/* OFFSET_MAX (and beyond) means "to EOF": l_len 0 */
	in = lk_in(F_RDLCK, 5, INT64_MAX, 0);
	mb_init(&m, FUSE_GETLK, 23);
	mb_add(&m, ANY(&in));
	GOOD(CB_GETLK);
	assert_int_equal(fk.c.fl.l_start, 5);
	assert_int_equal(fk.c.fl.l_len, 0);
	in = lk_in(F_RDLCK, 0, UINT64_MAX, 0);
	mb_init(&m, FUSE_GETLK, 23);
	mb_add(&m, ANY(&in));
	GOOD(CB_GETLK);
	assert_int_equal(fk.c.fl.l_len, 0);
	/* a one-byte lock */
	in = lk_in(F_RDLCK, 9, 9, 0);
	mb_init(&m, FUSE_GETLK, 23);
	mb_add(&m, ANY(&in));
	GOOD(CB_GETLK);
	assert_int_equal(fk.c.fl.l_len, 1);
}

static void test_setlk_setlkw(void **state)
{
	struct fuse_lk_in in = lk_in(F_RDLCK, 0, 9, 0);

	(void)state;
	mb_init(&m, FUSE_SETLK, 23);
	mb_add(&m, ANY(&in));
	GOOD(CB_SETLK);
	assert_int_equal(fk.c.i, 0);
	assert_int_equal(fk.c.fl.l_type, F_RDLCK);
	assert_int_equal(fk.c.fl.l_start, 0);
	assert_int_equal(fk.c.fl.l_len, 10);
	assert_int_equal(fk.c.fl.l_pid, 77);
	assert_int_equal(fk.c.fi.lock_owner, 0x55);
	fk_truncations(&m, EIO, TR_MALFORMED);

	in = lk_in(F_UNLCK, 0, INT64_MAX, 0);
	mb_init(&m, FUSE_SETLKW, 23);
	mb_add(&m, ANY(&in));
	GOOD(CB_SETLK);
	assert_int_equal(fk.c.i, 1);
	assert_int_equal(fk.c.fl.l_type, F_UNLCK);
	assert_int_equal(fk.c.fl.l_len, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

/* A range the kernel never sends (start past OFFSET_MAX, or end before
 * start) is refused, not handed on as a negative l_start or l_len. */
static void test_lock_bad_range(void **state)
{
	static const struct {
		uint64_t start, end;
	} bad[] = {
		{(uint64_t)INT64_MAX + 1, UINT64_MAX},
		{UINT64_MAX, UINT64_MAX},
		{10, 9},
		{(uint64_t)INT64_MAX, 0},
	};
	static const uint32_t ops[] = {FUSE_GETLK, FUSE_SETLK, FUSE_SETLKW};

	(void)state;
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			struct fuse_lk_in in =
				lk_in(F_WRLCK, bad[i].start, bad[i].end, 0);

			mb_init(&m, ops[o], 23);
			mb_add(&m, ANY(&in));
			fk_reset();
			assert_int_equal(fk_dispatch(&m), 0);
			fk_expect_err(&m, EINVAL);
		}
	}
	/* flock(2) locks carry no range: not checked */
	{
		struct fuse_lk_in in = lk_in(F_WRLCK, 10, 9, FUSE_LK_FLOCK);

		mb_init(&m, FUSE_SETLK, 23);
		mb_add(&m, ANY(&in));
		GOOD(CB_FLOCK);
	}
}

static void test_flock(void **state)
{
	static const struct {
		uint32_t op, type;
		int want;
	} cases[] = {
		{FUSE_SETLK, F_RDLCK, LOCK_SH | LOCK_NB},
		{FUSE_SETLK, F_WRLCK, LOCK_EX | LOCK_NB},
		{FUSE_SETLK, F_UNLCK, LOCK_UN | LOCK_NB},
		{FUSE_SETLKW, F_RDLCK, LOCK_SH},
		{FUSE_SETLKW, F_WRLCK, LOCK_EX},
		{FUSE_SETLKW, F_UNLCK, LOCK_UN},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fuse_lk_in in =
			lk_in(cases[i].type, 0, INT64_MAX, FUSE_LK_FLOCK);

		mb_init(&m, cases[i].op, 23);
		mb_add(&m, ANY(&in));
		GOOD(CB_FLOCK);
		assert_int_equal(fk.c.ino, 23);
		assert_int_equal(fk.c.i, cases[i].want);
		assert_int_equal(fk.c.fi.fh, 2);
		assert_int_equal(fk.c.fi.lock_owner, 0x55);
		assert_int_equal(fk.calls[CB_SETLK], 0);
		fk_truncations(&m, EIO, TR_MALFORMED);
	}
}

static void test_access(void **state)
{
	struct fuse_access_in in = {.mask = R_OK | W_OK};

	(void)state;
	mb_init(&m, FUSE_ACCESS, 24);
	mb_add(&m, ANY(&in));
	GOOD(CB_ACCESS);
	assert_int_equal(fk.c.ino, 24);
	assert_int_equal(fk.c.i, R_OK | W_OK);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_create(void **state)
{
	struct fuse_create_in in = {
		.flags = O_CREAT | O_WRONLY | O_TRUNC,
		.mode = S_IFREG | 0644,
		.umask = 027,
		.open_flags = FUSE_OPEN_KILL_SUIDGID,
	};

	(void)state;
	mb_init(&m, FUSE_CREATE, 25);
	mb_add(&m, ANY(&in));
	mb_str(&m, "new");
	GOOD(CB_CREATE);
	assert_int_equal(fk.c.ino, 25);
	assert_string_equal(fk.c.name, "new");
	assert_int_equal(fk.c.mode, S_IFREG | 0644);
	assert_int_equal(fk.c.ctx.umask, 027);
	assert_int_equal(fk.c.fi.flags, O_CREAT | O_WRONLY | O_TRUNC);
	assert_int_equal(fk.c.fi.kill_suidgid, 1);
	assert_int_equal(fk.c.fi.fh, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_tmpfile(void **state)
{
	struct fuse_create_in in = {
		.flags = O_RDWR | O_TMPFILE,
		.mode = S_IFREG | 0600,
		.umask = 077,
	};

	(void)state;
	/* The kernel names the unnamed file "/" (vfs_tmpfile). */
	mb_init(&m, FUSE_TMPFILE, 26);
	mb_add(&m, ANY(&in));
	mb_str(&m, "/");
	GOOD(CB_TMPFILE);
	assert_int_equal(fk.c.ino, 26);
	assert_int_equal(fk.c.mode, S_IFREG | 0600);
	assert_int_equal(fk.c.ctx.umask, 077);
	assert_int_equal(fk.c.fi.flags, O_RDWR | O_TMPFILE);
	assert_int_equal(fk.c.fi.kill_suidgid, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_interrupt_unknown(void **state)
{
	struct fuse_interrupt_in in = {.unique = 1000};

	(void)state;
	/* nothing with unique 1000 is in flight: no callback, no answer */
	mb_init(&m, FUSE_INTERRUPT, 0);
	mb_ih(&m)->unique = 1001;
	mb_add(&m, ANY(&in));
	disp();
	fk_expect_silence();
	assert_int_equal(fk.nnoreply, 1);
	fk_truncations(&m, 0, TR_NOREPLY | TR_MALFORMED);
}

static void test_bmap(void **state)
{
	struct fuse_bmap_in in = {.block = 1234, .blocksize = 512};

	(void)state;
	mb_init(&m, FUSE_BMAP, 27);
	mb_add(&m, ANY(&in));
	GOOD(CB_BMAP);
	assert_int_equal(fk.c.ino, 27);
	assert_int_equal(fk.c.size, 512);
	assert_int_equal(fk.c.u64, 1234);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_destroy(void **state)
{
	(void)state;
	mb_init(&m, FUSE_DESTROY, 0);
	disp();
	/* destroy() once, then an empty success */
	assert_int_equal(fk.calls[CB_DESTROY], 1);
	assert_ptr_equal(fk.c.userdata, fk.se->userdata);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk.last.len, 16);
	assert_int_equal(fk_out_error(), 0);
	assert_int_equal(fk_out_len(), 16);
	fk_check_idle();
	/* a second DESTROY does not call it again */
	mb_init(&m, FUSE_DESTROY, 0);
	disp();
	fk_expect_err(&m, 0);
}

static void test_ioctl(void **state)
{
	struct fuse_ioctl_in in = {
		.fh = 9,
		.flags = FUSE_IOCTL_DIR | FUSE_IOCTL_32BIT,
		.cmd = 0x80045401,
		.arg = 0xdeadbeef,
		.in_size = 4,
		.out_size = 8,
	};

	(void)state;
	mb_init(&m, FUSE_IOCTL, 28);
	mb_add(&m, ANY(&in));
	mb_add(&m, "abcd", 4);
	GOOD(CB_IOCTL);
	assert_int_equal(fk.c.ino, 28);
	assert_int_equal((unsigned)fk.c.i, 0x80045401u);
	assert_int_equal(fk.c.u64, 0xdeadbeef);
	assert_int_equal(fk.c.fi.fh, 9);
	assert_int_equal(fk.c.flags, FUSE_IOCTL_DIR | FUSE_IOCTL_32BIT);
	assert_int_equal(fk.c.size, 4);
	assert_memory_equal(fk.c.data, "abcd", 4);
	assert_int_equal(fk.c.size2, 8);
	fk_truncations(&m, EIO, TR_MALFORMED);

	/* no input data: in_buf NULL */
	in.in_size = 0;
	mb_init(&m, FUSE_IOCTL, 28);
	mb_add(&m, ANY(&in));
	GOOD(CB_IOCTL);
	assert_null(fk.c.ptr);
	assert_int_equal(fk.c.size, 0);
}

static void test_poll(void **state)
{
	struct fuse_poll_in in = {.fh = 3,
				  .kh = 0x1234,
				  .flags = FUSE_POLL_SCHEDULE_NOTIFY,
				  .events = POLLIN | POLLOUT};

	(void)state;
	mb_init(&m, FUSE_POLL, 29);
	mb_add(&m, ANY(&in));
	GOOD(CB_POLL);
	assert_int_equal(fk.c.ino, 29);
	assert_int_equal(fk.c.fi.fh, 3);
	assert_int_equal(fk.c.fi.poll_events, POLLIN | POLLOUT);
	assert_int_equal(fk.c.u64, 0x1234);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_notify_reply(void **state)
{
	struct fuse_notify_retrieve_in in = {.offset = 0, .size = 4};
	uint64_t bad = fk_malformed();

	(void)state;
	mb_init(&m, FUSE_NOTIFY_REPLY, 30);
	mb_add(&m, ANY(&in));
	mb_add(&m, "data", 4);
	disp();
	fk_expect_silence();
	assert_int_equal(fk.nnoreply, 1);
	assert_int_equal(fk_malformed(), bad);
	/* still no answer, but a retrieve_in or data cut short is counted */
	fk_truncations(&m, 0, TR_NOREPLY | TR_MALFORMED);
}

static void test_batch_forget(void **state)
{
	struct fuse_batch_forget_in in = {.count = 3};
	struct fuse_forget_one one[3] = {{10, 1}, {11, 2}, {12, 3}};

	(void)state;
	mb_init(&m, FUSE_BATCH_FORGET, 0);
	mb_add(&m, ANY(&in));
	mb_add(&m, one, sizeof(one));
	disp();
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(fk.nnoreply, 1);
	assert_int_equal(fk.calls[CB_FORGET_MULTI], 1);
	assert_int_equal(fk.calls[CB_FORGET], 0);
	assert_int_equal(fk.c.size, 3);
	assert_int_equal(fk.nforgets, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fk.forgets[i].ino, 10 + i);
		assert_int_equal(fk.forgets[i].nlookup, 1 + i);
	}
	fk_check_idle();
	fk_truncations(&m, 0, TR_NOREPLY | TR_MALFORMED);

	/* only forget: one call per entry */
	FK_UNSET(forget_multi);
	disp();
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(fk.calls[CB_FORGET], 3);
	assert_int_equal(fk.nforgets, 3);
	assert_int_equal(fk.forgets[2].ino, 12);
	assert_int_equal(fk.forgets[2].nlookup, 3);

	/* a count larger than the entries present */
	in.count = 4;
	mb_init(&m, FUSE_BATCH_FORGET, 0);
	mb_add(&m, ANY(&in));
	mb_add(&m, one, sizeof(one));
	{
		uint64_t bad = fk_malformed();

		disp();
		fk_expect_silence();
		assert_int_equal(fk_malformed(), bad + 1);
	}
}

static void test_fallocate(void **state)
{
	struct fuse_fallocate_in in = {
		.fh = 4, .offset = 10, .length = 20, .mode = 1 /* KEEP_SIZE */};

	(void)state;
	mb_init(&m, FUSE_FALLOCATE, 31);
	mb_add(&m, ANY(&in));
	GOOD(CB_FALLOCATE);
	assert_int_equal(fk.c.ino, 31);
	assert_int_equal(fk.c.fi.fh, 4);
	assert_int_equal(fk.c.i, 1);
	assert_int_equal(fk.c.off, 10);
	assert_int_equal(fk.c.off2, 20);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_lseek(void **state)
{
	struct fuse_lseek_in in = {.fh = 2, .offset = 100, .whence = 3};

	(void)state;
	mb_init(&m, FUSE_LSEEK, 32);
	mb_add(&m, ANY(&in));
	GOOD(CB_LSEEK);
	assert_int_equal(fk.c.ino, 32);
	assert_int_equal(fk.c.fi.fh, 2);
	assert_int_equal(fk.c.off, 100);
	assert_int_equal(fk.c.i, 3 /* SEEK_DATA */);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void cfr_case(uint32_t op)
{
	struct fuse_copy_file_range_in in = {.fh_in = 1,
					     .off_in = 2,
					     .nodeid_out = 3,
					     .fh_out = 4,
					     .off_out = 5,
					     .len = 6ull << 32,
					     .flags = 0};

	mb_init(&m, op, 10);
	mb_add(&m, ANY(&in));
	GOOD(CB_COPY_FILE_RANGE);
	assert_int_equal(fk.c.ino, 10);
	assert_int_equal(fk.c.off, 2);
	assert_true(fk.c.has_fi);
	assert_int_equal(fk.c.fi.fh, 1);
	assert_int_equal(fk.c.ino2, 3);
	assert_int_equal(fk.c.off2, 5);
	assert_true(fk.c.has_fi2);
	assert_int_equal(fk.c.fi2.fh, 4);
	assert_int_equal(fk.c.size, 6ull << 32);
	assert_int_equal(fk.c.i, 0);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_copy_file_range(void **state)
{
	(void)state;
	cfr_case(FUSE_COPY_FILE_RANGE);
}

static void test_copy_file_range_64(void **state)
{
	(void)state;
	cfr_case(FUSE_COPY_FILE_RANGE_64);
}

static void test_syncfs(void **state)
{
	struct fuse_syncfs_in in = {0};

	(void)state;
	mb_init(&m, FUSE_SYNCFS, 1);
	mb_add(&m, ANY(&in));
	GOOD(CB_SYNCFS);
	assert_int_equal(fk.c.ino, 1);
	fk_truncations(&m, EIO, TR_MALFORMED);
}

static void test_statx(void **state)
{
	struct fuse_statx_in in = {.getattr_flags = FUSE_GETATTR_FH,
				   .fh = 8,
				   .sx_flags = 0x2000, /* FORCE_SYNC */
				   .sx_mask = 0x7ff};

	(void)state;
	mb_init(&m, FUSE_STATX, 33);
	mb_add(&m, ANY(&in));
	GOOD(CB_STATX);
	assert_int_equal(fk.c.ino, 33);
	assert_int_equal(fk.c.i, 0x2000);
	assert_int_equal(fk.c.flags, 0x7ff);
	assert_true(fk.c.has_fi);
	assert_int_equal(fk.c.fi.fh, 8);
	fk_truncations(&m, EIO, TR_MALFORMED);

	in.getattr_flags = 0;
	mb_init(&m, FUSE_STATX, 33);
	mb_add(&m, ANY(&in));
	GOOD(CB_STATX);
	assert_false(fk.c.has_fi);
}

static void test_mapping_ops(void **state)
{
	char args[40] = {0};

	(void)state;
	/* DAX only: answered ENOSYS whatever they carry */
	mb_init(&m, FUSE_SETUPMAPPING, 34);
	mb_add(&m, args, sizeof(args));
	disp();
	fk_expect_err(&m, ENOSYS);
	fk_truncations(&m, ENOSYS, 0);
	mb_init(&m, FUSE_REMOVEMAPPING, 34);
	mb_add(&m, args, 16);
	disp();
	fk_expect_err(&m, ENOSYS);
}

static void test_unknown_opcodes(void **state)
{
	static const uint32_t ops[] = {0, 7, 19, 54, 63, 64, 4096, UINT32_MAX};
	char args[24] = {1, 2, 3};

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		uint64_t req = atomic_load(&fk.q->stats.requests);

		mb_init(&m, ops[i], 1);
		disp();
		fk_expect_err(&m, ENOSYS);
		mb_init(&m, ops[i], 1);
		mb_add(&m, args, sizeof(args));
		disp();
		fk_expect_err(&m, ENOSYS);
		assert_int_equal(atomic_load(&fk.q->stats.requests), req + 2);
		assert_string_equal(fring_opname(ops[i]), "UNKNOWN");
	}
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, fk_setup, fk_teardown)
	const struct CMUnitTest tests[] = {
		T(test_lookup),
		T(test_forget),
		T(test_getattr),
		T(test_setattr_all),
		T(test_setattr_each_bit),
		T(test_readlink),
		T(test_symlink),
		T(test_mknod),
		T(test_mkdir),
		T(test_unlink_rmdir),
		T(test_rename),
		T(test_rename2),
		T(test_link),
		T(test_open),
		T(test_read),
		T(test_write),
		T(test_statfs),
		T(test_release),
		T(test_releasedir),
		T(test_fsync),
		T(test_fsyncdir),
		T(test_setxattr_ext),
		T(test_setxattr_compat),
		T(test_getxattr),
		T(test_listxattr),
		T(test_removexattr),
		T(test_flush),
		T(test_init_again),
		T(test_opendir),
		T(test_readdir),
		T(test_readdirplus),
		T(test_getlk),
		T(test_setlk_setlkw),
		T(test_lock_bad_range),
		T(test_flock),
		T(test_access),
		T(test_create),
		T(test_tmpfile),
		T(test_interrupt_unknown),
		T(test_bmap),
		T(test_destroy),
		T(test_ioctl),
		T(test_poll),
		T(test_notify_reply),
		T(test_batch_forget),
		T(test_fallocate),
		T(test_lseek),
		T(test_copy_file_range),
		T(test_copy_file_range_64),
		T(test_syncfs),
		T(test_statx),
		T(test_mapping_ops),
		T(test_unknown_opcodes),
	};

	return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
