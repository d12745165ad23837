/* SPDX-License-Identifier: MIT */
/*
 * The FUSE kernel ABI as libfring speaks it: protocol 7.46 (Linux 7.3),
 * written from the kernel's behaviour (doc/kernel-protocol.md), not copied
 * from a uapi header. The system's <linux/fuse.h> is deliberately not used:
 * Debian bookworm ships 7.38, which lacks the io_uring structs.
 *
 * Every struct is fixed-layout; the _Static_asserts at the end pin the sizes
 * and offsets the kernel relies on.
 */
#ifndef FRING_FUSE_ABI_H
#define FRING_FUSE_ABI_H

#include <stddef.h>
#include <stdint.h>

#define FUSE_KERNEL_VERSION	       7
#define FUSE_KERNEL_MINOR_VERSION      46
#define FUSE_ROOT_ID		       1
#define FUSE_MIN_READ_BUFFER	       8192
#define FUSE_DEFAULT_MAX_PAGES_PER_REQ 32
#define FUSE_COMPAT_INIT_IN_SIZE       16 /* kernels before 7.36 */
#define FUSE_COMPAT_22_INIT_OUT_SIZE   24
#define FUSE_COMPAT_SETXATTR_IN_SIZE   8
#define FUSE_COMPAT_WRITE_IN_SIZE      24

/* INIT flags (bits 0-31 in flags, 32-63 in flags2). */
#define FUSE_ASYNC_READ		  (1ULL << 0)
#define FUSE_POSIX_LOCKS	  (1ULL << 1)
#define FUSE_FILE_OPS		  (1ULL << 2)
#define FUSE_ATOMIC_O_TRUNC	  (1ULL << 3)
#define FUSE_EXPORT_SUPPORT	  (1ULL << 4)
#define FUSE_BIG_WRITES		  (1ULL << 5)
#define FUSE_DONT_MASK		  (1ULL << 6)
#define FUSE_SPLICE_WRITE	  (1ULL << 7)
#define FUSE_SPLICE_MOVE	  (1ULL << 8)
#define FUSE_SPLICE_READ	  (1ULL << 9)
#define FUSE_FLOCK_LOCKS	  (1ULL << 10)
#define FUSE_HAS_IOCTL_DIR	  (1ULL << 11)
#define FUSE_AUTO_INVAL_DATA	  (1ULL << 12)
#define FUSE_DO_READDIRPLUS	  (1ULL << 13)
#define FUSE_READDIRPLUS_AUTO	  (1ULL << 14)
#define FUSE_ASYNC_DIO		  (1ULL << 15)
#define FUSE_WRITEBACK_CACHE	  (1ULL << 16)
#define FUSE_NO_OPEN_SUPPORT	  (1ULL << 17)
#define FUSE_PARALLEL_DIROPS	  (1ULL << 18)
#define FUSE_HANDLE_KILLPRIV	  (1ULL << 19)
#define FUSE_POSIX_ACL		  (1ULL << 20)
#define FUSE_ABORT_ERROR	  (1ULL << 21)
#define FUSE_MAX_PAGES		  (1ULL << 22)
#define FUSE_CACHE_SYMLINKS	  (1ULL << 23)
#define FUSE_NO_OPENDIR_SUPPORT	  (1ULL << 24)
#define FUSE_EXPLICIT_INVAL_DATA  (1ULL << 25)
#define FUSE_MAP_ALIGNMENT	  (1ULL << 26)
#define FUSE_SUBMOUNTS		  (1ULL << 27)
#define FUSE_HANDLE_KILLPRIV_V2	  (1ULL << 28)
#define FUSE_SETXATTR_EXT	  (1ULL << 29)
#define FUSE_INIT_EXT		  (1ULL << 30)
#define FUSE_INIT_RESERVED	  (1ULL << 31)
#define FUSE_SECURITY_CTX	  (1ULL << 32)
#define FUSE_HAS_INODE_DAX	  (1ULL << 33)
#define FUSE_CREATE_SUPP_GROUP	  (1ULL << 34)
#define FUSE_HAS_EXPIRE_ONLY	  (1ULL << 35)
#define FUSE_DIRECT_IO_ALLOW_MMAP (1ULL << 36)
#define FUSE_PASSTHROUGH	  (1ULL << 37)
#define FUSE_NO_EXPORT_SUPPORT	  (1ULL << 38)
#define FUSE_HAS_RESEND		  (1ULL << 39)
#define FUSE_ALLOW_IDMAP	  (1ULL << 40)
#define FUSE_OVER_IO_URING	  (1ULL << 41)
#define FUSE_REQUEST_TIMEOUT	  (1ULL << 42)
#define FUSE_HAS_IO_URING_BUFPOOL (1ULL << 43)

/* setattr valid bits */
#define FATTR_MODE	   (1 << 0)
#define FATTR_UID	   (1 << 1)
#define FATTR_GID	   (1 << 2)
#define FATTR_SIZE	   (1 << 3)
#define FATTR_ATIME	   (1 << 4)
#define FATTR_MTIME	   (1 << 5)
#define FATTR_FH	   (1 << 6)
#define FATTR_ATIME_NOW	   (1 << 7)
#define FATTR_MTIME_NOW	   (1 << 8)
#define FATTR_LOCKOWNER	   (1 << 9)
#define FATTR_CTIME	   (1 << 10)
#define FATTR_KILL_SUIDGID (1 << 11)

/* open_out.open_flags */
#define FOPEN_DIRECT_IO		     (1 << 0)
#define FOPEN_KEEP_CACHE	     (1 << 1)
#define FOPEN_NONSEEKABLE	     (1 << 2)
#define FOPEN_CACHE_DIR		     (1 << 3)
#define FOPEN_STREAM		     (1 << 4)
#define FOPEN_NOFLUSH		     (1 << 5)
#define FOPEN_PARALLEL_DIRECT_WRITES (1 << 6)
#define FOPEN_PASSTHROUGH	     (1 << 7)
#define FOPEN_IO_URING_ZERO_COPY     (1 << 8)

/* write_in.write_flags */
#define FUSE_WRITE_CACHE	(1 << 0)
#define FUSE_WRITE_LOCKOWNER	(1 << 1)
#define FUSE_WRITE_KILL_SUIDGID (1 << 2)
/* read_in.read_flags */
#define FUSE_READ_LOCKOWNER (1 << 1)
/* release_in.release_flags */
#define FUSE_RELEASE_FLUSH	  (1 << 0)
#define FUSE_RELEASE_FLOCK_UNLOCK (1 << 1)
/* getattr_in.getattr_flags */
#define FUSE_GETATTR_FH (1 << 0)
/* lk_in.lk_flags */
#define FUSE_LK_FLOCK (1 << 0)
/* open_in.open_flags (kernel -> server) */
#define FUSE_OPEN_KILL_SUIDGID (1 << 0)
/* setxattr_in.setxattr_flags */
#define FUSE_SETXATTR_ACL_KILL_SGID (1 << 0)
/* fsync_in.fsync_flags */
#define FUSE_FSYNC_FDATASYNC (1 << 0)
/* ioctl flags */
#define FUSE_IOCTL_COMPAT	(1 << 0)
#define FUSE_IOCTL_UNRESTRICTED (1 << 1)
#define FUSE_IOCTL_RETRY	(1 << 2)
#define FUSE_IOCTL_32BIT	(1 << 3)
#define FUSE_IOCTL_DIR		(1 << 4)
#define FUSE_IOCTL_COMPAT_X32	(1 << 5)
#define FUSE_IOCTL_MAX_IOV	256
/* poll flags */
#define FUSE_POLL_SCHEDULE_NOTIFY (1 << 0)
/* statx / getattr flags */
#define FUSE_EXPIRE_ONLY (1 << 0)

#define FUSE_INT_REQ_BIT    (1ULL << 0)
#define FUSE_UNIQUE_RESEND  (1ULL << 63)
#define FUSE_INVALID_UIDGID ((uint32_t)-1)
#define FUSE_MAX_NR_SECCTX  31
#define FUSE_EXT_GROUPS	    32

enum fuse_opcode {
	FUSE_LOOKUP = 1,
	FUSE_FORGET = 2,
	FUSE_GETATTR = 3,
	FUSE_SETATTR = 4,
	FUSE_READLINK = 5,
	FUSE_SYMLINK = 6,
	FUSE_MKNOD = 8,
	FUSE_MKDIR = 9,
	FUSE_UNLINK = 10,
	FUSE_RMDIR = 11,
	FUSE_RENAME = 12,
	FUSE_LINK = 13,
	FUSE_OPEN = 14,
	FUSE_READ = 15,
	FUSE_WRITE = 16,
	FUSE_STATFS = 17,
	FUSE_RELEASE = 18,
	FUSE_FSYNC = 20,
	FUSE_SETXATTR = 21,
	FUSE_GETXATTR = 22,
	FUSE_LISTXATTR = 23,
	FUSE_REMOVEXATTR = 24,
	FUSE_FLUSH = 25,
	FUSE_INIT = 26,
	FUSE_OPENDIR = 27,
	FUSE_READDIR = 28,
	FUSE_RELEASEDIR = 29,
	FUSE_FSYNCDIR = 30,
	FUSE_GETLK = 31,
	FUSE_SETLK = 32,
	FUSE_SETLKW = 33,
	FUSE_ACCESS = 34,
	FUSE_CREATE = 35,
	FUSE_INTERRUPT = 36,
	FUSE_BMAP = 37,
	FUSE_DESTROY = 38,
	FUSE_IOCTL = 39,
	FUSE_POLL = 40,
	FUSE_NOTIFY_REPLY = 41,
	FUSE_BATCH_FORGET = 42,
	FUSE_FALLOCATE = 43,
	FUSE_READDIRPLUS = 44,
	FUSE_RENAME2 = 45,
	FUSE_LSEEK = 46,
	FUSE_COPY_FILE_RANGE = 47,
	FUSE_SETUPMAPPING = 48,
	FUSE_REMOVEMAPPING = 49,
	FUSE_SYNCFS = 50,
	FUSE_TMPFILE = 51,
	FUSE_STATX = 52,
	FUSE_COPY_FILE_RANGE_64 = 53,
	FUSE_OPCODE_MAX = 54,
};

enum fuse_notify_code {
	FUSE_NOTIFY_POLL = 1,
	FUSE_NOTIFY_INVAL_INODE = 2,
	FUSE_NOTIFY_INVAL_ENTRY = 3,
	FUSE_NOTIFY_STORE = 4,
	FUSE_NOTIFY_RETRIEVE = 5,
	FUSE_NOTIFY_DELETE = 6,
	FUSE_NOTIFY_RESEND = 7,
	FUSE_NOTIFY_INC_EPOCH = 8,
	FUSE_NOTIFY_PRUNE = 9,
};

struct fuse_attr {
	uint64_t ino;
	uint64_t size;
	uint64_t blocks;
	uint64_t atime;
	uint64_t mtime;
	uint64_t ctime;
	uint32_t atimensec;
	uint32_t mtimensec;
	uint32_t ctimensec;
	uint32_t mode;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint32_t rdev;
	uint32_t blksize;
	uint32_t flags;
};

struct fuse_sx_time {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t __reserved;
};

struct fuse_statx {
	uint32_t mask;
	uint32_t blksize;
	uint64_t attributes;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint16_t mode;
	uint16_t __spare0[1];
	uint64_t ino;
	uint64_t size;
	uint64_t blocks;
	uint64_t attributes_mask;
	struct fuse_sx_time atime;
	struct fuse_sx_time btime;
	struct fuse_sx_time ctime;
	struct fuse_sx_time mtime;
	uint32_t rdev_major;
	uint32_t rdev_minor;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t __spare2[14];
};

struct fuse_kstatfs {
	uint64_t blocks;
	uint64_t bfree;
	uint64_t bavail;
	uint64_t files;
	uint64_t ffree;
	uint32_t bsize;
	uint32_t namelen;
	uint32_t frsize;
	uint32_t padding;
	uint32_t spare[6];
};

struct fuse_file_lock {
	uint64_t start;
	uint64_t end;
	uint32_t type;
	uint32_t pid;
};

struct fuse_in_header {
	uint32_t len;
	uint32_t opcode;
	uint64_t unique;
	uint64_t nodeid;
	uint32_t uid;
	uint32_t gid;
	uint32_t pid;
	uint16_t total_extlen; /* in units of 8 bytes */
	uint16_t padding;
};

struct fuse_out_header {
	uint32_t len;
	int32_t error;
	uint64_t unique;
};

struct fuse_entry_out {
	uint64_t nodeid;
	uint64_t generation;
	uint64_t entry_valid;
	uint64_t attr_valid;
	uint32_t entry_valid_nsec;
	uint32_t attr_valid_nsec;
	struct fuse_attr attr;
};

struct fuse_forget_in {
	uint64_t nlookup;
};
struct fuse_forget_one {
	uint64_t nodeid;
	uint64_t nlookup;
};
struct fuse_batch_forget_in {
	uint32_t count;
	uint32_t dummy;
};

struct fuse_getattr_in {
	uint32_t getattr_flags;
	uint32_t dummy;
	uint64_t fh;
};

struct fuse_attr_out {
	uint64_t attr_valid;
	uint32_t attr_valid_nsec;
	uint32_t dummy;
	struct fuse_attr attr;
};

struct fuse_statx_in {
	uint32_t getattr_flags;
	uint32_t reserved;
	uint64_t fh;
	uint32_t sx_flags;
	uint32_t sx_mask;
};

struct fuse_statx_out {
	uint64_t attr_valid;
	uint32_t attr_valid_nsec;
	uint32_t flags;
	uint64_t spare[2];
	struct fuse_statx stat;
};

struct fuse_mknod_in {
	uint32_t mode;
	uint32_t rdev;
	uint32_t umask;
	uint32_t padding;
};

struct fuse_mkdir_in {
	uint32_t mode;
	uint32_t umask;
};

struct fuse_rename_in {
	uint64_t newdir;
};

struct fuse_rename2_in {
	uint64_t newdir;
	uint32_t flags;
	uint32_t padding;
};

struct fuse_link_in {
	uint64_t oldnodeid;
};

struct fuse_setattr_in {
	uint32_t valid;
	uint32_t padding;
	uint64_t fh;
	uint64_t size;
	uint64_t lock_owner;
	uint64_t atime;
	uint64_t mtime;
	uint64_t ctime;
	uint32_t atimensec;
	uint32_t mtimensec;
	uint32_t ctimensec;
	uint32_t mode;
	uint32_t unused4;
	uint32_t uid;
	uint32_t gid;
	uint32_t unused5;
};

struct fuse_open_in {
	uint32_t flags;
	uint32_t open_flags;
};

struct fuse_create_in {
	uint32_t flags;
	uint32_t mode;
	uint32_t umask;
	uint32_t open_flags;
};

struct fuse_open_out {
	uint64_t fh;
	uint32_t open_flags;
	int32_t backing_id;
};

struct fuse_release_in {
	uint64_t fh;
	uint32_t flags;
	uint32_t release_flags;
	uint64_t lock_owner;
};

struct fuse_flush_in {
	uint64_t fh;
	uint32_t unused;
	uint32_t padding;
	uint64_t lock_owner;
};

struct fuse_read_in {
	uint64_t fh;
	uint64_t offset;
	uint32_t size;
	uint32_t read_flags;
	uint64_t lock_owner;
	uint32_t flags;
	uint32_t padding;
};

struct fuse_write_in {
	uint64_t fh;
	uint64_t offset;
	uint32_t size;
	uint32_t write_flags;
	uint64_t lock_owner;
	uint32_t flags;
	uint32_t padding;
};

struct fuse_write_out {
	uint32_t size;
	uint32_t padding;
};

struct fuse_statfs_out {
	struct fuse_kstatfs st;
};

struct fuse_fsync_in {
	uint64_t fh;
	uint32_t fsync_flags;
	uint32_t padding;
};

struct fuse_setxattr_in {
	uint32_t size;
	uint32_t flags;
	uint32_t setxattr_flags;
	uint32_t padding;
};

struct fuse_getxattr_in {
	uint32_t size;
	uint32_t padding;
};

struct fuse_getxattr_out {
	uint32_t size;
	uint32_t padding;
};

struct fuse_lk_in {
	uint64_t fh;
	uint64_t owner;
	struct fuse_file_lock lk;
	uint32_t lk_flags;
	uint32_t padding;
};

struct fuse_lk_out {
	struct fuse_file_lock lk;
};

struct fuse_access_in {
	uint32_t mask;
	uint32_t padding;
};

struct fuse_init_in {
	uint32_t major;
	uint32_t minor;
	uint32_t max_readahead;
	uint32_t flags;
	uint32_t flags2;
	uint32_t unused[11];
};

struct fuse_init_out {
	uint32_t major;
	uint32_t minor;
	uint32_t max_readahead;
	uint32_t flags;
	uint16_t max_background;
	uint16_t congestion_threshold;
	uint32_t max_write;
	uint32_t time_gran;
	uint16_t max_pages;
	uint16_t map_alignment;
	uint32_t flags2;
	uint32_t max_stack_depth;
	uint16_t request_timeout;
	uint16_t unused[11];
};

struct fuse_interrupt_in {
	uint64_t unique;
};

struct fuse_bmap_in {
	uint64_t block;
	uint32_t blocksize;
	uint32_t padding;
};

struct fuse_bmap_out {
	uint64_t block;
};

struct fuse_ioctl_in {
	uint64_t fh;
	uint32_t flags;
	uint32_t cmd;
	uint64_t arg;
	uint32_t in_size;
	uint32_t out_size;
};

struct fuse_ioctl_out {
	int32_t result;
	uint32_t flags;
	uint32_t in_iovs;
	uint32_t out_iovs;
};

struct fuse_poll_in {
	uint64_t fh;
	uint64_t kh;
	uint32_t flags;
	uint32_t events;
};

struct fuse_poll_out {
	uint32_t revents;
	uint32_t padding;
};

struct fuse_fallocate_in {
	uint64_t fh;
	uint64_t offset;
	uint64_t length;
	uint32_t mode;
	uint32_t padding;
};

struct fuse_lseek_in {
	uint64_t fh;
	uint64_t offset;
	uint32_t whence;
	uint32_t padding;
};

struct fuse_lseek_out {
	uint64_t offset;
};

struct fuse_copy_file_range_in {
	uint64_t fh_in;
	uint64_t off_in;
	uint64_t nodeid_out;
	uint64_t fh_out;
	uint64_t off_out;
	uint64_t len;
	uint64_t flags;
};

struct fuse_copy_file_range_out {
	uint64_t bytes_copied;
};

struct fuse_syncfs_in {
	uint64_t padding;
};

struct fuse_dirent {
	uint64_t ino;
	uint64_t off;
	uint32_t namelen;
	uint32_t type;
	char name[];
};

struct fuse_direntplus {
	struct fuse_entry_out entry_out;
	struct fuse_dirent dirent;
};

#define FUSE_DIRENT_ALIGN(x)                                                   \
	(((x) + sizeof(uint64_t) - 1) & ~(sizeof(uint64_t) - 1))
#define FUSE_NAME_OFFSET offsetof(struct fuse_dirent, name)
#define FUSE_DIRENT_SIZE(namelen)                                              \
	FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + (namelen))
#define FUSE_NAME_OFFSET_DIRENTPLUS                                            \
	offsetof(struct fuse_direntplus, dirent.name)
#define FUSE_DIRENTPLUS_SIZE(namelen)                                          \
	FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET_DIRENTPLUS + (namelen))

/* Notifications (server -> kernel, unique == 0). */
struct fuse_notify_poll_wakeup_out {
	uint64_t kh;
};
struct fuse_notify_inval_inode_out {
	uint64_t ino;
	int64_t off;
	int64_t len;
};
struct fuse_notify_inval_entry_out {
	uint64_t parent;
	uint32_t namelen;
	uint32_t flags;
};
struct fuse_notify_delete_out {
	uint64_t parent;
	uint64_t child;
	uint32_t namelen;
	uint32_t padding;
};
struct fuse_notify_store_out {
	uint64_t nodeid;
	uint64_t offset;
	uint32_t size;
	uint32_t padding;
};
struct fuse_notify_retrieve_out {
	uint64_t notify_unique;
	uint64_t nodeid;
	uint64_t offset;
	uint32_t size;
	uint32_t padding;
};
struct fuse_notify_retrieve_in {
	uint64_t dummy1;
	uint64_t offset;
	uint32_t size;
	uint32_t dummy2;
	uint64_t dummy3;
	uint64_t dummy4;
};
struct fuse_notify_prune_out {
	uint32_t count;
	uint32_t padding;
	uint64_t spare;
};

/* Extensions after the last input arg of create-type requests. */
struct fuse_ext_header {
	uint32_t size;
	uint32_t type;
};
struct fuse_secctx_header {
	uint32_t size;
	uint32_t nr_secctx;
};
struct fuse_secctx {
	uint32_t size;
	uint32_t padding;
};
struct fuse_supp_groups {
	uint32_t nr_groups;
	uint32_t groups[];
};

struct fuse_backing_map {
	int32_t fd;
	uint32_t flags;
	uint64_t padding;
};

/* /dev/fuse ioctls (magic 229). */
#define FUSE_DEV_IOC_CLONE	   0x8004e500u
#define FUSE_DEV_IOC_BACKING_OPEN  0x4010e501u
#define FUSE_DEV_IOC_BACKING_CLOSE 0x4004e502u
#define FUSE_DEV_IOC_SYNC_INIT	   0xe503u

/* ---- FUSE over io_uring (7.42+; pools and zero-copy 7.46) ---- */
#define FUSE_URING_IN_OUT_HEADER_SZ 128
#define FUSE_URING_OP_IN_OUT_SZ	    128
#define FUSE_URING_ENT_ZERO_COPY    (1ULL << 0) /* ent_in_out.flags */
#define FUSE_URING_ZERO_COPY	    (1ULL << 0) /* cmd_req.flags, ADD_QUEUE */

struct fuse_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;
	uint32_t payload_sz;
	uint32_t offset; /* 7.46: pool offset; "padding" in 7.45 */
	uint64_t reserved;
};

struct fuse_uring_req_header {
	char in_out[FUSE_URING_IN_OUT_HEADER_SZ];
	char op_in[FUSE_URING_OP_IN_OUT_SZ];
	struct fuse_uring_ent_in_out ring_ent_in_out;
};

enum fuse_uring_cmd {
	FUSE_IO_URING_CMD_INVALID = 0,
	FUSE_IO_URING_CMD_REGISTER = 1,
	FUSE_IO_URING_CMD_COMMIT_AND_FETCH = 2,
	FUSE_IO_URING_CMD_ADD_QUEUE = 3,
	FUSE_IO_URING_CMD_ADD_BUFPOOL = 4,
};

struct fuse_uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
	union {
		struct {
			uint64_t uaddr;
			uint32_t len;
			uint32_t reserved;
		} bufpool;
		uint16_t ent_zero_copy_buf_index;
	};
};

/* Layout pins: values of the 7.3.4 uapi header (doc/kernel-protocol.md,
 * "Layouts"). */
#define FRING_ABI_SIZE(t, n) _Static_assert(sizeof(struct t) == (n), #t " size")
#define FRING_ABI_OFF(t, f, n)                                                 \
	_Static_assert(offsetof(struct t, f) == (n), #t "." #f " offset")
FRING_ABI_SIZE(fuse_in_header, 40);
FRING_ABI_OFF(fuse_in_header, total_extlen, 36);
FRING_ABI_SIZE(fuse_out_header, 16);
FRING_ABI_SIZE(fuse_attr, 88);
FRING_ABI_SIZE(fuse_entry_out, 128);
FRING_ABI_SIZE(fuse_attr_out, 104);
FRING_ABI_SIZE(fuse_init_in, 64);
FRING_ABI_OFF(fuse_init_in, flags2, 16);
FRING_ABI_SIZE(fuse_init_out, 64);
FRING_ABI_OFF(fuse_init_out, max_write, 20);
FRING_ABI_OFF(fuse_init_out, max_pages, 28);
FRING_ABI_OFF(fuse_init_out, flags2, 32);
FRING_ABI_OFF(fuse_init_out, max_stack_depth, 36);
FRING_ABI_OFF(fuse_init_out, request_timeout, 40);
FRING_ABI_SIZE(fuse_open_in, 8);
FRING_ABI_SIZE(fuse_open_out, 16);
FRING_ABI_OFF(fuse_open_out, backing_id, 12);
FRING_ABI_SIZE(fuse_create_in, 16);
FRING_ABI_SIZE(fuse_read_in, 40);
FRING_ABI_SIZE(fuse_write_in, 40);
FRING_ABI_SIZE(fuse_write_out, 8);
FRING_ABI_SIZE(fuse_release_in, 24);
FRING_ABI_SIZE(fuse_flush_in, 24);
FRING_ABI_SIZE(fuse_getattr_in, 16);
FRING_ABI_SIZE(fuse_setattr_in, 88);
FRING_ABI_OFF(fuse_setattr_in, mode, 68);
FRING_ABI_OFF(fuse_setattr_in, uid, 76);
FRING_ABI_SIZE(fuse_statx_in, 24);
FRING_ABI_SIZE(fuse_statx, 256);
FRING_ABI_SIZE(fuse_statx_out, 288);
FRING_ABI_SIZE(fuse_forget_in, 8);
FRING_ABI_SIZE(fuse_forget_one, 16);
FRING_ABI_SIZE(fuse_batch_forget_in, 8);
FRING_ABI_SIZE(fuse_interrupt_in, 8);
FRING_ABI_SIZE(fuse_mknod_in, 16);
FRING_ABI_SIZE(fuse_mkdir_in, 8);
FRING_ABI_SIZE(fuse_rename2_in, 16);
FRING_ABI_SIZE(fuse_link_in, 8);
FRING_ABI_SIZE(fuse_access_in, 8);
FRING_ABI_SIZE(fuse_setxattr_in, 16);
FRING_ABI_SIZE(fuse_getxattr_in, 8);
FRING_ABI_SIZE(fuse_getxattr_out, 8);
FRING_ABI_SIZE(fuse_lk_in, 48);
FRING_ABI_SIZE(fuse_lk_out, 24);
FRING_ABI_SIZE(fuse_fsync_in, 16);
FRING_ABI_SIZE(fuse_ioctl_in, 32);
FRING_ABI_SIZE(fuse_ioctl_out, 16);
FRING_ABI_SIZE(fuse_poll_in, 24);
FRING_ABI_SIZE(fuse_poll_out, 8);
FRING_ABI_SIZE(fuse_fallocate_in, 32);
FRING_ABI_SIZE(fuse_lseek_in, 24);
FRING_ABI_SIZE(fuse_lseek_out, 8);
FRING_ABI_SIZE(fuse_copy_file_range_in, 56);
FRING_ABI_SIZE(fuse_copy_file_range_out, 8);
FRING_ABI_SIZE(fuse_syncfs_in, 8);
FRING_ABI_SIZE(fuse_bmap_in, 16);
FRING_ABI_SIZE(fuse_bmap_out, 8);
FRING_ABI_SIZE(fuse_kstatfs, 80);
FRING_ABI_SIZE(fuse_statfs_out, 80);
FRING_ABI_SIZE(fuse_dirent, 24);
FRING_ABI_SIZE(fuse_direntplus, 152);
FRING_ABI_SIZE(fuse_notify_inval_inode_out, 24);
FRING_ABI_SIZE(fuse_notify_inval_entry_out, 16);
FRING_ABI_SIZE(fuse_notify_delete_out, 24);
FRING_ABI_SIZE(fuse_notify_store_out, 24);
FRING_ABI_SIZE(fuse_notify_retrieve_out, 32);
FRING_ABI_SIZE(fuse_notify_retrieve_in, 40);
FRING_ABI_SIZE(fuse_notify_poll_wakeup_out, 8);
FRING_ABI_SIZE(fuse_notify_prune_out, 16);
FRING_ABI_SIZE(fuse_backing_map, 16);
FRING_ABI_SIZE(fuse_secctx_header, 8);
FRING_ABI_SIZE(fuse_secctx, 8);
FRING_ABI_SIZE(fuse_ext_header, 8);
FRING_ABI_SIZE(fuse_supp_groups, 4);
FRING_ABI_SIZE(fuse_uring_ent_in_out, 32);
FRING_ABI_OFF(fuse_uring_ent_in_out, payload_sz, 16);
FRING_ABI_OFF(fuse_uring_ent_in_out, offset, 20);
FRING_ABI_SIZE(fuse_uring_req_header, 288);
FRING_ABI_OFF(fuse_uring_req_header, op_in, 128);
FRING_ABI_OFF(fuse_uring_req_header, ring_ent_in_out, 256);
FRING_ABI_SIZE(fuse_uring_cmd_req, 40);
FRING_ABI_OFF(fuse_uring_cmd_req, qid, 16);
FRING_ABI_OFF(fuse_uring_cmd_req, bufpool.uaddr, 24);
FRING_ABI_OFF(fuse_uring_cmd_req, bufpool.len, 32);
FRING_ABI_OFF(fuse_uring_cmd_req, bufpool.reserved, 36);
FRING_ABI_OFF(fuse_uring_cmd_req, ent_zero_copy_buf_index, 24);

#endif
