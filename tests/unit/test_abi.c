/* SPDX-License-Identifier: MIT */
/*
 * The kernel ABI as fuse_abi.h spells it, checked field by field against
 * the layouts of the 7.3.4 uapi header (doc/kernel-protocol.md, "Layouts"),
 * and the public constants that must equal kernel values.
 *
 * What the _Static_asserts already pin is not repeated here: every size and
 * offset of fuse_abi.h's FRING_ABI_SIZE/FRING_ABI_OFF list, struct
 * fring_forget against fuse_forget_one (src/dispatch_entry.c) and the small
 * reply area against fuse_statx_out (src/reply.c). They fail the build,
 * this test included (it includes fuse_abi.h). Here: the offsets and field
 * sizes they leave out, constants, flags and opcode names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include <cmocka.h>

#include "internal.h"

#define SZ(t, n)     assert_int_equal(sizeof(struct t), (n))
#define OFF(t, f, n) assert_int_equal(offsetof(struct t, f), (n))
#define FSZ(t, f, n) assert_int_equal(sizeof(((struct t *)0)->f), (n))

static void test_headers(void **state)
{
	(void)state;
	OFF(fuse_in_header, len, 0);
	OFF(fuse_in_header, opcode, 4);
	OFF(fuse_in_header, unique, 8);
	OFF(fuse_in_header, nodeid, 16);
	OFF(fuse_in_header, uid, 24);
	OFF(fuse_in_header, gid, 28);
	OFF(fuse_in_header, pid, 32);
	FSZ(fuse_in_header, total_extlen, 2);
	OFF(fuse_in_header, padding, 38);
	FSZ(fuse_in_header, padding, 2);

	OFF(fuse_out_header, len, 0);
	OFF(fuse_out_header, error, 4);
	OFF(fuse_out_header, unique, 8);
}

static void test_attr(void **state)
{
	(void)state;
	OFF(fuse_attr, ino, 0);
	OFF(fuse_attr, size, 8);
	OFF(fuse_attr, blocks, 16);
	OFF(fuse_attr, atime, 24);
	OFF(fuse_attr, mtime, 32);
	OFF(fuse_attr, ctime, 40);
	OFF(fuse_attr, atimensec, 48);
	OFF(fuse_attr, mtimensec, 52);
	OFF(fuse_attr, ctimensec, 56);
	OFF(fuse_attr, mode, 60);
	OFF(fuse_attr, nlink, 64);
	OFF(fuse_attr, uid, 68);
	OFF(fuse_attr, gid, 72);
	OFF(fuse_attr, rdev, 76);
	OFF(fuse_attr, blksize, 80);
	OFF(fuse_attr, flags, 84);

	OFF(fuse_entry_out, nodeid, 0);
	OFF(fuse_entry_out, generation, 8);
	OFF(fuse_entry_out, entry_valid, 16);
	OFF(fuse_entry_out, attr_valid, 24);
	OFF(fuse_entry_out, entry_valid_nsec, 32);
	OFF(fuse_entry_out, attr_valid_nsec, 36);
	OFF(fuse_entry_out, attr, 40);

	OFF(fuse_attr_out, attr_valid, 0);
	OFF(fuse_attr_out, attr_valid_nsec, 8);
	OFF(fuse_attr_out, dummy, 12);
	OFF(fuse_attr_out, attr, 16);

	OFF(fuse_getattr_in, getattr_flags, 0);
	OFF(fuse_getattr_in, fh, 8);

	OFF(fuse_setattr_in, valid, 0);
	OFF(fuse_setattr_in, fh, 8);
	OFF(fuse_setattr_in, size, 16);
	OFF(fuse_setattr_in, lock_owner, 24);
	OFF(fuse_setattr_in, atime, 32);
	OFF(fuse_setattr_in, mtime, 40);
	OFF(fuse_setattr_in, ctime, 48);
	OFF(fuse_setattr_in, atimensec, 56);
	OFF(fuse_setattr_in, mtimensec, 60);
	OFF(fuse_setattr_in, ctimensec, 64);
	OFF(fuse_setattr_in, gid, 80);
}

static void test_statx_layout(void **state)
{
	(void)state;
	SZ(fuse_sx_time, 16);
	OFF(fuse_sx_time, tv_sec, 0);
	OFF(fuse_sx_time, tv_nsec, 8);
	OFF(fuse_statx, mask, 0);
	OFF(fuse_statx, blksize, 4);
	OFF(fuse_statx, attributes, 8);
	OFF(fuse_statx, nlink, 16);
	OFF(fuse_statx, uid, 20);
	OFF(fuse_statx, gid, 24);
	OFF(fuse_statx, mode, 28);
	FSZ(fuse_statx, mode, 2);
	OFF(fuse_statx, ino, 32);
	OFF(fuse_statx, size, 40);
	OFF(fuse_statx, blocks, 48);
	OFF(fuse_statx, attributes_mask, 56);
	OFF(fuse_statx, atime, 64);
	OFF(fuse_statx, btime, 80);
	OFF(fuse_statx, ctime, 96);
	OFF(fuse_statx, mtime, 112);
	OFF(fuse_statx, rdev_major, 128);
	OFF(fuse_statx, rdev_minor, 132);
	OFF(fuse_statx, dev_major, 136);
	OFF(fuse_statx, dev_minor, 140);
	OFF(fuse_statx_in, getattr_flags, 0);
	OFF(fuse_statx_in, fh, 8);
	OFF(fuse_statx_in, sx_flags, 16);
	OFF(fuse_statx_in, sx_mask, 20);
	OFF(fuse_statx_out, attr_valid, 0);
	OFF(fuse_statx_out, attr_valid_nsec, 8);
	OFF(fuse_statx_out, flags, 12);
	OFF(fuse_statx_out, stat, 32);
}

static void test_file_ops(void **state)
{
	(void)state;
	OFF(fuse_open_in, open_flags, 4);
	OFF(fuse_open_out, fh, 0);
	OFF(fuse_open_out, open_flags, 8);
	OFF(fuse_create_in, flags, 0);
	OFF(fuse_create_in, mode, 4);
	OFF(fuse_create_in, umask, 8);
	OFF(fuse_create_in, open_flags, 12);
	OFF(fuse_mknod_in, mode, 0);
	OFF(fuse_mknod_in, rdev, 4);
	OFF(fuse_mknod_in, umask, 8);
	OFF(fuse_mkdir_in, umask, 4);
	SZ(fuse_rename_in, 8);
	OFF(fuse_rename2_in, flags, 8);

	OFF(fuse_read_in, fh, 0);
	OFF(fuse_read_in, offset, 8);
	OFF(fuse_read_in, size, 16);
	OFF(fuse_read_in, read_flags, 20);
	OFF(fuse_read_in, lock_owner, 24);
	OFF(fuse_read_in, flags, 32);
	OFF(fuse_write_in, fh, 0);
	OFF(fuse_write_in, offset, 8);
	OFF(fuse_write_in, size, 16);
	OFF(fuse_write_in, write_flags, 20);
	OFF(fuse_write_in, lock_owner, 24);
	OFF(fuse_write_in, flags, 32);
	OFF(fuse_write_out, size, 0);

	OFF(fuse_release_in, fh, 0);
	OFF(fuse_release_in, flags, 8);
	OFF(fuse_release_in, release_flags, 12);
	OFF(fuse_release_in, lock_owner, 16);
	OFF(fuse_flush_in, fh, 0);
	OFF(fuse_flush_in, lock_owner, 16);
	OFF(fuse_fsync_in, fsync_flags, 8);

	OFF(fuse_kstatfs, blocks, 0);
	OFF(fuse_kstatfs, bfree, 8);
	OFF(fuse_kstatfs, bavail, 16);
	OFF(fuse_kstatfs, files, 24);
	OFF(fuse_kstatfs, ffree, 32);
	OFF(fuse_kstatfs, bsize, 40);
	OFF(fuse_kstatfs, namelen, 44);
	OFF(fuse_kstatfs, frsize, 48);

	OFF(fuse_setxattr_in, size, 0);
	OFF(fuse_setxattr_in, flags, 4);
	OFF(fuse_setxattr_in, setxattr_flags, 8);
	assert_int_equal(FUSE_COMPAT_SETXATTR_IN_SIZE, 8);

	SZ(fuse_file_lock, 24);
	OFF(fuse_file_lock, start, 0);
	OFF(fuse_file_lock, end, 8);
	OFF(fuse_file_lock, type, 16);
	OFF(fuse_file_lock, pid, 20);
	OFF(fuse_lk_in, fh, 0);
	OFF(fuse_lk_in, owner, 8);
	OFF(fuse_lk_in, lk, 16);
	OFF(fuse_lk_in, lk_flags, 40);
	OFF(fuse_bmap_in, blocksize, 8);

	OFF(fuse_ioctl_in, flags, 8);
	OFF(fuse_ioctl_in, cmd, 12);
	OFF(fuse_ioctl_in, arg, 16);
	OFF(fuse_ioctl_in, in_size, 24);
	OFF(fuse_ioctl_in, out_size, 28);
	OFF(fuse_ioctl_out, result, 0);
	OFF(fuse_ioctl_out, flags, 4);
	OFF(fuse_ioctl_out, in_iovs, 8);
	OFF(fuse_ioctl_out, out_iovs, 12);
	OFF(fuse_poll_in, kh, 8);
	OFF(fuse_poll_in, flags, 16);
	OFF(fuse_poll_in, events, 20);
	OFF(fuse_fallocate_in, offset, 8);
	OFF(fuse_fallocate_in, length, 16);
	OFF(fuse_fallocate_in, mode, 24);
	OFF(fuse_lseek_in, offset, 8);
	OFF(fuse_lseek_in, whence, 16);
	OFF(fuse_copy_file_range_in, fh_in, 0);
	OFF(fuse_copy_file_range_in, off_in, 8);
	OFF(fuse_copy_file_range_in, nodeid_out, 16);
	OFF(fuse_copy_file_range_in, fh_out, 24);
	OFF(fuse_copy_file_range_in, off_out, 32);
	OFF(fuse_copy_file_range_in, len, 40);
	OFF(fuse_copy_file_range_in, flags, 48);
	OFF(fuse_forget_one, nlookup, 8);
	/* fring_forget is handed the kernel's array as is (its size and
	 * nlookup's offset: src/dispatch_entry.c's _Static_asserts) */
	assert_int_equal(offsetof(struct fring_forget, ino), 0);
}

static void test_init_layout(void **state)
{
	(void)state;
	OFF(fuse_init_in, major, 0);
	OFF(fuse_init_in, minor, 4);
	OFF(fuse_init_in, max_readahead, 8);
	OFF(fuse_init_in, flags, 12);
	OFF(fuse_init_in, unused, 20);
	FSZ(fuse_init_in, unused, 44);
	OFF(fuse_init_out, major, 0);
	OFF(fuse_init_out, minor, 4);
	OFF(fuse_init_out, max_readahead, 8);
	OFF(fuse_init_out, flags, 12);
	OFF(fuse_init_out, max_background, 16);
	FSZ(fuse_init_out, max_background, 2);
	OFF(fuse_init_out, congestion_threshold, 18);
	FSZ(fuse_init_out, congestion_threshold, 2);
	OFF(fuse_init_out, time_gran, 24);
	FSZ(fuse_init_out, max_pages, 2);
	OFF(fuse_init_out, map_alignment, 30);
	FSZ(fuse_init_out, request_timeout, 2);
	OFF(fuse_init_out, unused, 42);
	FSZ(fuse_init_out, unused, 22);
	assert_int_equal(FUSE_KERNEL_VERSION, 7);
	assert_int_equal(FUSE_KERNEL_MINOR_VERSION, 46);
	assert_int_equal(FUSE_COMPAT_22_INIT_OUT_SIZE, 24);
	assert_int_equal(FUSE_MIN_READ_BUFFER, 8192);
	assert_int_equal(FUSE_DEFAULT_MAX_PAGES_PER_REQ, 32);
	assert_int_equal(FUSE_ROOT_ID, 1);
	assert_int_equal(FRING_ROOT_INO, 1);
}

static void test_dirents(void **state)
{
	(void)state;
	OFF(fuse_dirent, ino, 0);
	OFF(fuse_dirent, off, 8);
	OFF(fuse_dirent, namelen, 16);
	OFF(fuse_dirent, type, 20);
	OFF(fuse_dirent, name, 24);
	assert_int_equal(FUSE_NAME_OFFSET, 24);
	OFF(fuse_direntplus, entry_out, 0);
	OFF(fuse_direntplus, dirent, 128);
	assert_int_equal(FUSE_NAME_OFFSET_DIRENTPLUS, 152);
	/* records are padded to 8 bytes */
	assert_int_equal(FUSE_DIRENT_SIZE(0), 24);
	assert_int_equal(FUSE_DIRENT_SIZE(1), 32);
	assert_int_equal(FUSE_DIRENT_SIZE(7), 32);
	assert_int_equal(FUSE_DIRENT_SIZE(8), 32);
	assert_int_equal(FUSE_DIRENT_SIZE(9), 40);
	assert_int_equal(FUSE_DIRENT_SIZE(255), 280);
	assert_int_equal(FUSE_DIRENTPLUS_SIZE(1), 160);
	assert_int_equal(FUSE_DIRENTPLUS_SIZE(8), 160);
	assert_int_equal(FUSE_DIRENTPLUS_SIZE(9), 168);
	assert_int_equal(FUSE_DIRENTPLUS_SIZE(255), 408);
	for (size_t n = 0; n < 300; n++) {
		assert_int_equal(FUSE_DIRENT_SIZE(n) % 8, 0);
		assert_true(FUSE_DIRENT_SIZE(n) >= 24 + n);
		assert_true(FUSE_DIRENT_SIZE(n) < 24 + n + 8);
		assert_int_equal(FUSE_DIRENTPLUS_SIZE(n) % 8, 0);
		assert_true(FUSE_DIRENTPLUS_SIZE(n) >= 152 + n);
		assert_true(FUSE_DIRENTPLUS_SIZE(n) < 152 + n + 8);
	}
}

static void test_notify_and_ext(void **state)
{
	(void)state;
	OFF(fuse_notify_inval_inode_out, off, 8);
	OFF(fuse_notify_inval_inode_out, len, 16);
	OFF(fuse_notify_inval_entry_out, namelen, 8);
	OFF(fuse_notify_inval_entry_out, flags, 12);
	OFF(fuse_notify_delete_out, child, 8);
	OFF(fuse_notify_delete_out, namelen, 16);
	OFF(fuse_notify_store_out, offset, 8);
	OFF(fuse_notify_store_out, size, 16);
	OFF(fuse_notify_retrieve_out, nodeid, 8);
	OFF(fuse_notify_retrieve_out, offset, 16);
	OFF(fuse_notify_retrieve_out, size, 24);
	OFF(fuse_notify_retrieve_in, offset, 8);
	OFF(fuse_notify_retrieve_in, size, 16);
	OFF(fuse_backing_map, fd, 0);
	OFF(fuse_backing_map, flags, 4);
	OFF(fuse_backing_map, padding, 8);
	assert_int_equal(FUSE_MAX_NR_SECCTX, 31);
	assert_int_equal(FUSE_EXT_GROUPS, 32);
	assert_int_equal(FUSE_NOTIFY_POLL, 1);
	assert_int_equal(FUSE_NOTIFY_INVAL_INODE, 2);
	assert_int_equal(FUSE_NOTIFY_INVAL_ENTRY, 3);
	assert_int_equal(FUSE_NOTIFY_STORE, 4);
	assert_int_equal(FUSE_NOTIFY_RETRIEVE, 5);
	assert_int_equal(FUSE_NOTIFY_DELETE, 6);
	assert_int_equal(FUSE_NOTIFY_RESEND, 7);
	assert_int_equal(FUSE_NOTIFY_INC_EPOCH, 8);
	assert_int_equal(FUSE_NOTIFY_PRUNE, 9);
}

static void test_uring_layout(void **state)
{
	(void)state;
	assert_int_equal(FUSE_URING_IN_OUT_HEADER_SZ, 128);
	assert_int_equal(FUSE_URING_OP_IN_OUT_SZ, 128);
	OFF(fuse_uring_ent_in_out, flags, 0);
	OFF(fuse_uring_ent_in_out, commit_id, 8);
	OFF(fuse_uring_ent_in_out, reserved, 24);
	OFF(fuse_uring_req_header, in_out, 0);
	OFF(fuse_uring_cmd_req, flags, 0);
	OFF(fuse_uring_cmd_req, commit_id, 8);
	FSZ(fuse_uring_cmd_req, qid, 2);
	OFF(fuse_uring_cmd_req, padding, 18);
	FSZ(fuse_uring_cmd_req, ent_zero_copy_buf_index, 2);
	assert_int_equal(FUSE_IO_URING_CMD_INVALID, 0);
	assert_int_equal(FUSE_IO_URING_CMD_REGISTER, 1);
	assert_int_equal(FUSE_IO_URING_CMD_COMMIT_AND_FETCH, 2);
	assert_int_equal(FUSE_IO_URING_CMD_ADD_QUEUE, 3);
	assert_int_equal(FUSE_IO_URING_CMD_ADD_BUFPOOL, 4);
	assert_int_equal(FUSE_URING_ENT_ZERO_COPY, 1);
	assert_int_equal(FUSE_URING_ZERO_COPY, 1);
}

static void test_ioctls(void **state)
{
	(void)state;
	assert_int_equal(FUSE_DEV_IOC_CLONE, 0x8004e500u);
	assert_int_equal(FUSE_DEV_IOC_BACKING_OPEN, 0x4010e501u);
	assert_int_equal(FUSE_DEV_IOC_BACKING_CLOSE, 0x4004e502u);
	assert_int_equal(FUSE_DEV_IOC_SYNC_INIT, 0xe503u);
	/* and as the kernel defines them */
	assert_int_equal(FUSE_DEV_IOC_CLONE, _IOR(229, 0, uint32_t));
	assert_int_equal(FUSE_DEV_IOC_BACKING_OPEN,
			 _IOW(229, 1, struct fuse_backing_map));
	assert_int_equal(FUSE_DEV_IOC_BACKING_CLOSE, _IOW(229, 2, uint32_t));
	assert_int_equal(FUSE_DEV_IOC_SYNC_INIT, _IO(229, 3));
}

static void test_init_flags(void **state)
{
	(void)state;
	assert_int_equal(FUSE_ASYNC_READ, 1ull << 0);
	assert_int_equal(FUSE_POSIX_LOCKS, 1ull << 1);
	assert_int_equal(FUSE_FLOCK_LOCKS, 1ull << 10);
	assert_int_equal(FUSE_DO_READDIRPLUS, 1ull << 13);
	assert_int_equal(FUSE_MAX_PAGES, 0x400000ull);
	assert_int_equal(FUSE_SETXATTR_EXT, 1ull << 29);
	assert_int_equal(FUSE_INIT_EXT, 1ull << 30);
	assert_int_equal(FUSE_INIT_EXT, 0x40000000ull);
	assert_int_equal(FUSE_SECURITY_CTX, 1ull << 32);
	assert_int_equal(FUSE_CREATE_SUPP_GROUP, 1ull << 34);
	assert_int_equal(FUSE_PASSTHROUGH, 1ull << 37);
	assert_int_equal(FUSE_HAS_RESEND, 1ull << 39);
	assert_int_equal(FUSE_ALLOW_IDMAP, 1ull << 40);
	assert_int_equal(FUSE_OVER_IO_URING, 1ull << 41);
	assert_int_equal(FUSE_OVER_IO_URING >> 32, 0x200);
	assert_int_equal(FUSE_REQUEST_TIMEOUT, 1ull << 42);
	assert_int_equal(FUSE_HAS_IO_URING_BUFPOOL, 1ull << 43);
	assert_int_equal(FUSE_HAS_IO_URING_BUFPOOL >> 32, 0x800);
	/* every bit from 0 to 43 named once, in order */
	{
		static const uint64_t bits[] = {
			FUSE_ASYNC_READ,
			FUSE_POSIX_LOCKS,
			FUSE_FILE_OPS,
			FUSE_ATOMIC_O_TRUNC,
			FUSE_EXPORT_SUPPORT,
			FUSE_BIG_WRITES,
			FUSE_DONT_MASK,
			FUSE_SPLICE_WRITE,
			FUSE_SPLICE_MOVE,
			FUSE_SPLICE_READ,
			FUSE_FLOCK_LOCKS,
			FUSE_HAS_IOCTL_DIR,
			FUSE_AUTO_INVAL_DATA,
			FUSE_DO_READDIRPLUS,
			FUSE_READDIRPLUS_AUTO,
			FUSE_ASYNC_DIO,
			FUSE_WRITEBACK_CACHE,
			FUSE_NO_OPEN_SUPPORT,
			FUSE_PARALLEL_DIROPS,
			FUSE_HANDLE_KILLPRIV,
			FUSE_POSIX_ACL,
			FUSE_ABORT_ERROR,
			FUSE_MAX_PAGES,
			FUSE_CACHE_SYMLINKS,
			FUSE_NO_OPENDIR_SUPPORT,
			FUSE_EXPLICIT_INVAL_DATA,
			FUSE_MAP_ALIGNMENT,
			FUSE_SUBMOUNTS,
			FUSE_HANDLE_KILLPRIV_V2,
			FUSE_SETXATTR_EXT,
			FUSE_INIT_EXT,
			FUSE_INIT_RESERVED,
			FUSE_SECURITY_CTX,
			FUSE_HAS_INODE_DAX,
			FUSE_CREATE_SUPP_GROUP,
			FUSE_HAS_EXPIRE_ONLY,
			FUSE_DIRECT_IO_ALLOW_MMAP,
			FUSE_PASSTHROUGH,
			FUSE_NO_EXPORT_SUPPORT,
			FUSE_HAS_RESEND,
			FUSE_ALLOW_IDMAP,
			FUSE_OVER_IO_URING,
			FUSE_REQUEST_TIMEOUT,
			FUSE_HAS_IO_URING_BUFPOOL,
		};

		for (unsigned i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
			assert_int_equal(bits[i], 1ull << i);
	}
}

/* The public FRING_CAP_* bits are the kernel's bits. */
static void test_public_caps(void **state)
{
	(void)state;
	assert_int_equal(FRING_CAP_ASYNC_READ, FUSE_ASYNC_READ);
	assert_int_equal(FRING_CAP_POSIX_LOCKS, FUSE_POSIX_LOCKS);
	assert_int_equal(FRING_CAP_ATOMIC_O_TRUNC, FUSE_ATOMIC_O_TRUNC);
	assert_int_equal(FRING_CAP_EXPORT_SUPPORT, FUSE_EXPORT_SUPPORT);
	assert_int_equal(FRING_CAP_BIG_WRITES, FUSE_BIG_WRITES);
	assert_int_equal(FRING_CAP_DONT_MASK, FUSE_DONT_MASK);
	assert_int_equal(FRING_CAP_FLOCK_LOCKS, FUSE_FLOCK_LOCKS);
	assert_int_equal(FRING_CAP_IOCTL_DIR, FUSE_HAS_IOCTL_DIR);
	assert_int_equal(FRING_CAP_AUTO_INVAL_DATA, FUSE_AUTO_INVAL_DATA);
	assert_int_equal(FRING_CAP_READDIRPLUS, FUSE_DO_READDIRPLUS);
	assert_int_equal(FRING_CAP_READDIRPLUS_AUTO, FUSE_READDIRPLUS_AUTO);
	assert_int_equal(FRING_CAP_ASYNC_DIO, FUSE_ASYNC_DIO);
	assert_int_equal(FRING_CAP_WRITEBACK_CACHE, FUSE_WRITEBACK_CACHE);
	assert_int_equal(FRING_CAP_NO_OPEN_SUPPORT, FUSE_NO_OPEN_SUPPORT);
	assert_int_equal(FRING_CAP_PARALLEL_DIROPS, FUSE_PARALLEL_DIROPS);
	assert_int_equal(FRING_CAP_HANDLE_KILLPRIV, FUSE_HANDLE_KILLPRIV);
	assert_int_equal(FRING_CAP_POSIX_ACL, FUSE_POSIX_ACL);
	assert_int_equal(FRING_CAP_ABORT_ERROR, FUSE_ABORT_ERROR);
	assert_int_equal(FRING_CAP_MAX_PAGES, FUSE_MAX_PAGES);
	assert_int_equal(FRING_CAP_CACHE_SYMLINKS, FUSE_CACHE_SYMLINKS);
	assert_int_equal(FRING_CAP_NO_OPENDIR_SUPPORT, FUSE_NO_OPENDIR_SUPPORT);
	assert_int_equal(FRING_CAP_EXPLICIT_INVAL_DATA,
			 FUSE_EXPLICIT_INVAL_DATA);
	assert_int_equal(FRING_CAP_HANDLE_KILLPRIV_V2, FUSE_HANDLE_KILLPRIV_V2);
	assert_int_equal(FRING_CAP_SETXATTR_EXT, FUSE_SETXATTR_EXT);
	assert_int_equal(FRING_CAP_SECURITY_CTX, FUSE_SECURITY_CTX);
	assert_int_equal(FRING_CAP_CREATE_SUPP_GROUP, FUSE_CREATE_SUPP_GROUP);
	assert_int_equal(FRING_CAP_DIRECT_IO_ALLOW_MMAP,
			 FUSE_DIRECT_IO_ALLOW_MMAP);
	assert_int_equal(FRING_CAP_PASSTHROUGH, FUSE_PASSTHROUGH);
	assert_int_equal(FRING_CAP_NO_EXPORT_SUPPORT, FUSE_NO_EXPORT_SUPPORT);
	assert_int_equal(FRING_CAP_OVER_IO_URING, FUSE_OVER_IO_URING);
	assert_int_equal(FRING_CAP_REQUEST_TIMEOUT, FUSE_REQUEST_TIMEOUT);
	assert_int_equal(FRING_CAP_IO_URING_BUFPOOL, FUSE_HAS_IO_URING_BUFPOOL);
}

static void test_other_bits(void **state)
{
	(void)state;
	/* setattr: FRING_SET_* are the FATTR_* bits */
	assert_int_equal(FATTR_MODE, 1 << 0);
	assert_int_equal(FATTR_FH, 1 << 6);
	assert_int_equal(FATTR_LOCKOWNER, 1 << 9);
	assert_int_equal(FATTR_KILL_SUIDGID, 1 << 11);
	assert_int_equal(FRING_SET_MODE, FATTR_MODE);
	assert_int_equal(FRING_SET_UID, FATTR_UID);
	assert_int_equal(FRING_SET_GID, FATTR_GID);
	assert_int_equal(FRING_SET_SIZE, FATTR_SIZE);
	assert_int_equal(FRING_SET_ATIME, FATTR_ATIME);
	assert_int_equal(FRING_SET_MTIME, FATTR_MTIME);
	assert_int_equal(FRING_SET_ATIME_NOW, FATTR_ATIME_NOW);
	assert_int_equal(FRING_SET_MTIME_NOW, FATTR_MTIME_NOW);
	assert_int_equal(FRING_SET_CTIME, FATTR_CTIME);
	assert_int_equal(FRING_SET_KILL_SUIDGID, FATTR_KILL_SUIDGID);
	/* open_out flags */
	assert_int_equal(FOPEN_DIRECT_IO, 1);
	assert_int_equal(FOPEN_KEEP_CACHE, 2);
	assert_int_equal(FOPEN_NONSEEKABLE, 4);
	assert_int_equal(FOPEN_CACHE_DIR, 8);
	assert_int_equal(FOPEN_STREAM, 16);
	assert_int_equal(FOPEN_NOFLUSH, 32);
	assert_int_equal(FOPEN_PARALLEL_DIRECT_WRITES, 64);
	assert_int_equal(FOPEN_PASSTHROUGH, 1 << 7);
	assert_int_equal(FOPEN_IO_URING_ZERO_COPY, 1 << 8);
	/* request flags */
	assert_int_equal(FUSE_WRITE_CACHE, 1);
	assert_int_equal(FUSE_WRITE_LOCKOWNER, 2);
	assert_int_equal(FUSE_WRITE_KILL_SUIDGID, 4);
	assert_int_equal(FUSE_READ_LOCKOWNER, 2);
	assert_int_equal(FUSE_RELEASE_FLUSH, 1);
	assert_int_equal(FUSE_RELEASE_FLOCK_UNLOCK, 2);
	assert_int_equal(FUSE_GETATTR_FH, 1);
	assert_int_equal(FUSE_LK_FLOCK, 1);
	assert_int_equal(FUSE_FSYNC_FDATASYNC, 1);
	assert_int_equal(FUSE_OPEN_KILL_SUIDGID, 1);
	assert_int_equal(FUSE_SETXATTR_ACL_KILL_SGID, 1);
	assert_int_equal(FUSE_IOCTL_UNRESTRICTED, 2);
	assert_int_equal(FUSE_IOCTL_DIR, 16);
	assert_int_equal(FUSE_POLL_SCHEDULE_NOTIFY, 1);
	assert_int_equal(FUSE_INT_REQ_BIT, 1);
	assert_int_equal(FUSE_UNIQUE_RESEND, 1ull << 63);
	assert_int_equal(FUSE_INVALID_UIDGID, 0xffffffffu);
}

static void test_opcodes(void **state)
{
	static const struct {
		uint32_t op;
		uint32_t num;
		const char *name;
	} ops[] = {
		{FUSE_LOOKUP, 1, "LOOKUP"},
		{FUSE_FORGET, 2, "FORGET"},
		{FUSE_GETATTR, 3, "GETATTR"},
		{FUSE_SETATTR, 4, "SETATTR"},
		{FUSE_READLINK, 5, "READLINK"},
		{FUSE_SYMLINK, 6, "SYMLINK"},
		{FUSE_MKNOD, 8, "MKNOD"},
		{FUSE_MKDIR, 9, "MKDIR"},
		{FUSE_UNLINK, 10, "UNLINK"},
		{FUSE_RMDIR, 11, "RMDIR"},
		{FUSE_RENAME, 12, "RENAME"},
		{FUSE_LINK, 13, "LINK"},
		{FUSE_OPEN, 14, "OPEN"},
		{FUSE_READ, 15, "READ"},
		{FUSE_WRITE, 16, "WRITE"},
		{FUSE_STATFS, 17, "STATFS"},
		{FUSE_RELEASE, 18, "RELEASE"},
		{FUSE_FSYNC, 20, "FSYNC"},
		{FUSE_SETXATTR, 21, "SETXATTR"},
		{FUSE_GETXATTR, 22, "GETXATTR"},
		{FUSE_LISTXATTR, 23, "LISTXATTR"},
		{FUSE_REMOVEXATTR, 24, "REMOVEXATTR"},
		{FUSE_FLUSH, 25, "FLUSH"},
		{FUSE_INIT, 26, "INIT"},
		{FUSE_OPENDIR, 27, "OPENDIR"},
		{FUSE_READDIR, 28, "READDIR"},
		{FUSE_RELEASEDIR, 29, "RELEASEDIR"},
		{FUSE_FSYNCDIR, 30, "FSYNCDIR"},
		{FUSE_GETLK, 31, "GETLK"},
		{FUSE_SETLK, 32, "SETLK"},
		{FUSE_SETLKW, 33, "SETLKW"},
		{FUSE_ACCESS, 34, "ACCESS"},
		{FUSE_CREATE, 35, "CREATE"},
		{FUSE_INTERRUPT, 36, "INTERRUPT"},
		{FUSE_BMAP, 37, "BMAP"},
		{FUSE_DESTROY, 38, "DESTROY"},
		{FUSE_IOCTL, 39, "IOCTL"},
		{FUSE_POLL, 40, "POLL"},
		{FUSE_NOTIFY_REPLY, 41, "NOTIFY_REPLY"},
		{FUSE_BATCH_FORGET, 42, "BATCH_FORGET"},
		{FUSE_FALLOCATE, 43, "FALLOCATE"},
		{FUSE_READDIRPLUS, 44, "READDIRPLUS"},
		{FUSE_RENAME2, 45, "RENAME2"},
		{FUSE_LSEEK, 46, "LSEEK"},
		{FUSE_COPY_FILE_RANGE, 47, "COPY_FILE_RANGE"},
		{FUSE_SETUPMAPPING, 48, "SETUPMAPPING"},
		{FUSE_REMOVEMAPPING, 49, "REMOVEMAPPING"},
		{FUSE_SYNCFS, 50, "SYNCFS"},
		{FUSE_TMPFILE, 51, "TMPFILE"},
		{FUSE_STATX, 52, "STATX"},
		{FUSE_COPY_FILE_RANGE_64, 53, "COPY_FILE_RANGE_64"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		assert_int_equal(ops[i].op, ops[i].num);
		assert_string_equal(fring_opname(ops[i].op), ops[i].name);
		/* every opcode has its own statistics counter */
		assert_true(ops[i].op < FRING_STATS_OPCODES);
	}
	assert_int_equal(FUSE_OPCODE_MAX, 54);
	assert_string_equal(fring_opname(7), "UNKNOWN");
	assert_string_equal(fring_opname(19), "UNKNOWN");
	assert_string_equal(fring_opname(54), "UNKNOWN");
	assert_string_equal(fring_opname(UINT32_MAX), "UNKNOWN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_attr),
		cmocka_unit_test(test_statx_layout),
		cmocka_unit_test(test_file_ops),
		cmocka_unit_test(test_init_layout),
		cmocka_unit_test(test_dirents),
		cmocka_unit_test(test_notify_and_ext),
		cmocka_unit_test(test_uring_layout),
		cmocka_unit_test(test_ioctls),
		cmocka_unit_test(test_init_flags),
		cmocka_unit_test(test_public_caps),
		cmocka_unit_test(test_other_bits),
		cmocka_unit_test(test_opcodes),
	};

	return cmocka_run_group_tests_name("abi", tests, NULL, NULL);
}
