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
	 * this file's READ/WRITE pages to the server as FRING_BUF_FIXED
	 * buffers (the read and write callbacks of this open must take
	 * them). Without it an open is zero-copied only when the filesystem
	 * declared FRING_FS_ZERO_COPY in its init callback (and the mount
	 * has no -o zero_copy_opt_in); by default it is not, and the
	 * handlers get memory. */
	uint32_t zero_copy : 1;
	/** reply (open/create): never zero-copy this open; wins over
	 * zero_copy and FRING_FS_ZERO_COPY. For a file whose handlers must
	 * see the data in memory on a filesystem that declared it. */
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

/**
 * Kinds of data buffer handed to read, write, readdir and readdirplus
 * handlers. Which handler may get which:
 *
 * - read `dst`: FRING_BUF_MEM; on a zero-copy open FRING_BUF_FIXED
 *   (transport=zerocopy; a READ the kernel serves without pages still
 *   comes as MEM).
 * - write `src`: FRING_BUF_MEM; on a zero-copy open FRING_BUF_FIXED; on
 *   dev with -o splice_read FRING_BUF_PIPE, if the filesystem declared
 *   FRING_FS_ZERO_COPY (otherwise the payload is read into memory first).
 * - readdir, readdirplus `dst`: always FRING_BUF_MEM.
 *
 * An open is zero-copied only where asked: fring_file.zero_copy set by its
 * open callback, or FRING_FS_ZERO_COPY declared by the filesystem's init
 * callback. A handler that reads `src->mem` or fills `dst->mem` therefore
 * gets memory on every transport unless its filesystem asked for zero-copy
 * (or the mount has splice_read, see FRING_CAP_SPLICE_READ).
 */
enum fring_buf_kind {
	/** Memory of the server at `mem` (see struct fring_buf). */
	FRING_BUF_MEM = 0,
	/** The client's own pages in a fixed-buffer slot of the queue's
	 * io_uring (zero-copy); not mapped: `mem` is NULL. */
	FRING_BUF_FIXED = 1,
	/** A WRITE's data still in the queue's pipe (dev with -o
	 * splice_read); `mem` is NULL: fring_write_to_fd() splices it to a
	 * file. When the handler returns without having used it, it is read
	 * into memory and the same `src` becomes FRING_BUF_MEM, so an
	 * asynchronous answer sees memory. */
	FRING_BUF_PIPE = 2,
};

/**
 * Where a read's data goes (dst) or a write's data is (src). It stays valid
 * until the request is answered. `kind` tells how the other fields read (a
 * tagged union: `buf_addr` is an address only for MEM):
 *
 * - FRING_BUF_MEM: `mem` points at the bytes (dst: room for `size`; src:
 *   `size` bytes present); `buf_addr` is the same address as a number.
 *   `buf_index` is the io_uring fixed-buffer index of the registered pool
 *   holding them (bufpool-registered, and requests that are not zero-copied
 *   on zerocopy): READ_FIXED / WRITE_FIXED on the queue's ring with that
 *   index and sqe->addr = buf_addr + offset work on it. Elsewhere -1, and
 *   on those rungs too for the queue of a CPU that was offline when the
 *   session started (its pool is not registered): check it, never assume
 *   it from the transport.
 * - FRING_BUF_FIXED: `mem` is NULL. `buf_index` is the slot of the queue's
 *   ring that holds the client's pages, `buf_addr` is not an address but
 *   the offset of the data in that slot (0 today): only READ_FIXED (dst)
 *   or WRITE_FIXED (src) with buf_index and sqe->addr = buf_addr + offset,
 *   submitted on the queue's ring (fring_io_sqe(), fring_io_submit()),
 *   move them.
 * - FRING_BUF_PIPE: `mem` is NULL, `buf_index` -1, `buf_addr` 0; `size`
 *   bytes wait in the queue's pipe for fring_write_to_fd().
 *
 * The data helpers (fring_read_from_fd(), fring_write_to_fd()),
 * fring_reply_buf() and fring_reply_iov() handle every kind;
 * fring_reply_data() sends the bytes that are in dst already (written at
 * `mem`, or moved into a FIXED dst by READ_FIXED).
 */
struct fring_buf {
	enum fring_buf_kind kind; /**< MEM, FIXED or PIPE: see above */
	size_t size;		  /**< bytes available (dst) or present (src) */
	void *mem;		  /**< MEM: the bytes; FIXED, PIPE: NULL */
	/** MEM: registered pool's fixed-buffer index, or -1; FIXED: the
	 * slot; PIPE: -1 */
	int buf_index;
	/** MEM: (uintptr_t)mem; FIXED: offset in the slot (0); PIPE: 0. What
	 * a *_FIXED SQE puts in sqe->addr (plus the offset into the data). */
	uint64_t buf_addr;
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
