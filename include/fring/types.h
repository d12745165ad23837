/* SPDX-License-Identifier: MIT */
/**
 * @file types.h
 * @brief What requests carry: credentials, entries, open files, buffers,
 * attributes to set.
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_TYPES_H
#define FRING_API_TYPES_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/** @name Request data */
/**@{*/

/** Who sent a request. */
struct fring_ctx {
	uid_t uid;    /**< caller's fsuid; (uid_t)-1 on idmapped mounts */
	gid_t gid;    /**< caller's fsgid */
	pid_t pid;    /**< caller's thread id, 0 if not visible */
	mode_t umask; /**< for create ops: the caller's umask, else 0 */
};

/** What the kernel reports about an entry (LOOKUP, MKDIR, CREATE, ...). */
struct fring_entry {
	/** The kernel's handle for the inode; 0 = negative entry (cached
	 * ENOENT, LOOKUP only). */
	fring_ino_t ino;
	uint64_t generation; /**< (ino, generation) is unique for life */
	/** What stat(2) shows; st_ino 0 means "use ino". */
	struct stat attr;
	double attr_timeout;  /**< seconds the attributes may be cached */
	double entry_timeout; /**< seconds the name may be cached */
};

/** An open file. Filled by the kernel's open flags; open/create set fh etc. */
struct fring_file {
	int flags;   /**< open(2) flags (open, create, read, write...) */
	uint64_t fh; /**< the filesystem's handle, set in open/create */
	uint64_t lock_owner;	    /**< for flush, release, locks */
	uint32_t direct_io : 1;	    /**< reply: bypass the page cache */
	uint32_t keep_cache : 1;    /**< reply: keep cached data on open */
	uint32_t nonseekable : 1;   /**< reply: the file is a stream */
	uint32_t cache_readdir : 1; /**< reply (opendir): cache the listing */
	uint32_t noflush : 1;	    /**< reply: no FLUSH on close */
	uint32_t parallel_direct_writes : 1; /**< reply */
	uint32_t writepage : 1; /**< write: from the page cache (writeback) */
	uint32_t flush : 1;	/**< release: also flush */
	uint32_t flock_release : 1; /**< release: drop flock locks of owner */
	uint32_t kill_suidgid : 1;  /**< open/write: clear suid/sgid */
	/** reply (open/create) on transport=zerocopy: let the kernel hand
	 * this file's READ/WRITE pages to the server as fixed buffers. By
	 * default every open gets it (see the zero_copy_opt_in option). */
	uint32_t zero_copy : 1;
	/** reply (open/create): never zero-copy this open; wins over
	 * zero_copy. For handlers that must see write data in memory. */
	uint32_t no_zero_copy : 1;
	uint32_t padding : 20; /**< zero */
	uint32_t poll_events;  /**< poll: requested events */
	/** reply (open/create), with CAP_PASSTHROUGH: a backing id from
	 * fring_backing_open(); the kernel then does this open's reads,
	 * writes, splices and mmap on the backing file and never sends READ
	 * or WRITE for it. 0: none. Every open of an inode must use the same
	 * id while one is open; direct_io, parallel_direct_writes and
	 * noflush may go with it, keep_cache, nonseekable and zero_copy may
	 * not (the kernel fails such an open with EIO; the library answers
	 * EIO itself and counts a handler bug). */
	int32_t backing_id;
	uint32_t reserved[4]; /**< zero; room for later fields */
};

/** Kinds of data buffer handed to read, write and readdir handlers. */
enum fring_buf_kind {
	FRING_BUF_MEM = 0,   /**< plain memory at `mem` */
	FRING_BUF_FIXED = 1, /**< io_uring fixed buffer (zero-copy); no `mem` */
	/** A WRITE's data still in a pipe (`-o splice_read` on dev); no
	 * `mem`: fring_write_to_fd() splices it to a file. When the handler
	 * returns without having used it, it is read into memory, so an
	 * asynchronous answer sees MEM. */
	FRING_BUF_PIPE = 2,
};

/**
 * Where a read's data goes (dst) or a write's data is (src). For MEM buffers
 * `mem` is valid until the request is answered (buf_index >= 0 when `mem` is
 * inside a registered buffer pool: *_FIXED operations with that index work
 * on it). FIXED buffers are the client's own pages (transport=zerocopy):
 * they are not mapped in the server, only io_uring READ_FIXED (dst) or
 * WRITE_FIXED (src) on the queue's ring with buf_index and sqe->addr =
 * buf_addr + offset move them. The data helpers, fring_reply_buf() and
 * fring_reply_iov() handle both kinds.
 */
struct fring_buf {
	enum fring_buf_kind kind; /**< MEM or FIXED */
	size_t size;		  /**< bytes available (dst) or present (src) */
	void *mem;		  /**< MEM: the bytes; FIXED: NULL */
	int buf_index;		  /**< io_uring fixed-buffer index, or -1 */
	uint64_t buf_addr;	  /**< what a *_FIXED SQE puts in sqe->addr */
};

/** setattr's to_set bit: change st_mode */
#define FRING_SET_MODE (1 << 0)
/** setattr's to_set bit: change st_uid */
#define FRING_SET_UID (1 << 1)
/** setattr's to_set bit: change st_gid */
#define FRING_SET_GID (1 << 2)
/** setattr's to_set bit: change st_size (truncate) */
#define FRING_SET_SIZE (1 << 3)
/** setattr's to_set bit: set st_atim to the given time */
#define FRING_SET_ATIME (1 << 4)
/** setattr's to_set bit: set st_mtim to the given time */
#define FRING_SET_MTIME (1 << 5)
/** setattr's to_set bit: set st_atim to now */
#define FRING_SET_ATIME_NOW (1 << 7)
/** setattr's to_set bit: set st_mtim to now */
#define FRING_SET_MTIME_NOW (1 << 8)
/** setattr's to_set bit: set st_ctim to the given time */
#define FRING_SET_CTIME (1 << 10)
/** setattr's to_set bit: clear set-user-ID and set-group-ID bits (with
 * FRING_CAP_HANDLE_KILLPRIV_V2) */
#define FRING_SET_KILL_SUIDGID (1 << 11)

/** One FORGET of a batch. */
struct fring_forget {
	fring_ino_t ino;  /**< the inode */
	uint64_t nlookup; /**< lookup references to drop */
};
/**@}*/

#endif
