/* SPDX-License-Identifier: MIT */
/**
 * @file fring.h
 * @brief libfring: FUSE filesystem servers over io_uring, without libfuse.
 *
 * This header is the whole public API. A filesystem fills a struct fring_ops,
 * and calls fring_main() (or the fring_session_* functions). Each callback
 * receives a request handle and must answer it exactly once with one of the
 * fring_reply_*() functions, either before returning or later (from any
 * thread) after calling fring_req_async().
 *
 * Conventions:
 *  - Library functions return 0 (or a count) on success and a negative errno
 *    on failure; they never set errno.
 *  - Reply functions take a *positive* errno, like libfuse's fuse_reply_err().
 *  - Unless said otherwise a callback runs on the worker thread of the queue
 *    that received the request ("queue thread"). Many callbacks run at once on
 *    different queues: the filesystem does its own locking.
 *  - Unless said otherwise a function behaves the same on every transport
 *    (see enum fring_transport and doc/transports.md).
 *
 * Man pages: fring(3), fring_main(3), fring_session_new(3),
 * fring_reply_err(3). Guides: doc/porting-from-libfuse.md,
 * doc/operations.md, doc/transports.md.
 */
#ifndef FRING_FRING_H
#define FRING_FRING_H

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Major version of the headers compiled against. */
#define FRING_VERSION_MAJOR 0
/** Minor version of the headers compiled against. */
#define FRING_VERSION_MINOR 1
/** Patch level of the headers compiled against. */
#define FRING_VERSION_PATCH 0
/** Version of the headers as a string; see fring_version() for the
 * library actually linked. */
#define FRING_VERSION "0.1.0"
/** Encodes a version for comparisons: FRING_VERSION_NUM >= FRING_MKVER(0,2,0)
 */
#define FRING_MKVER(a, b, c) (((a) << 16) | ((b) << 8) | (c))
/** The headers' version as FRING_MKVER() encodes it. */
#define FRING_VERSION_NUM                                                      \
	FRING_MKVER(FRING_VERSION_MAJOR, FRING_VERSION_MINOR,                  \
		    FRING_VERSION_PATCH)

/**
 * Runtime version string of the linked library, e.g. "0.1.0".
 *
 * @return a static string; never NULL. Any thread.
 */
const char *fring_version(void);

/** Inode number as the kernel knows it. The root is FRING_ROOT_INO. */
typedef uint64_t fring_ino_t;
/** A poll waiter the kernel asked to be woken (fring_req_pollhandle()). */
typedef struct fring_pollhandle fring_pollhandle_t;
/** The inode number of the mount's root directory (the kernel's
 * FUSE_ROOT_ID). */
#define FRING_ROOT_INO ((fring_ino_t)1)

/** A request being served: passed to every callback that must answer. */
typedef struct fring_req fring_req_t;
/** A session: one mount and the threads serving it. */
typedef struct fring_session fring_session_t;
/** Options for a session (fring_config_new(), fring_config_set()). */
typedef struct fring_config fring_config_t;

/* ------------------------------------------------------------------------ */
/** @name Logging */
/**@{*/
/** Severity of a log line; the values are syslog(3)'s. */
enum fring_log_level {
	FRING_LOG_ERR = 3,   /**< a failure: mount, INIT, a handler bug */
	FRING_LOG_WARN = 4,  /**< something degraded, e.g. a fallback */
	FRING_LOG_INFO = 6,  /**< the mount line; -d request/answer lines */
	FRING_LOG_DEBUG = 7, /**< internals */
};
/**
 * Receives one complete line (no trailing newline). May run on any thread,
 * several at once: the sink does its own locking.
 *
 * @param level the line's severity (at most the max_level given to
 *              fring_set_log())
 * @param line  the text; valid only during the call
 * @param data  the data pointer given to fring_set_log()
 */
typedef void (*fring_log_fn)(enum fring_log_level level, const char *line,
			     void *data);
/**
 * Sets the process-wide log sink and the most verbose level passed to it.
 * fn == NULL restores the default (stderr, "fring: " prefix). Not thread-safe
 * against concurrent logging: call it before starting a session.
 *
 * @param fn        the sink, or NULL for stderr
 * @param data      passed to every call of fn
 * @param max_level lines above this level are dropped before formatting
 *                  (the default is FRING_LOG_INFO)
 */
void fring_set_log(fring_log_fn fn, void *data, enum fring_log_level max_level);
/**@}*/

/* ------------------------------------------------------------------------ */
/** @name Transports */
/**@{*/
/** The rungs of the transport ladder, best first (doc/transports.md). */
enum fring_transport {
	FRING_TRANSPORT_AUTO = 0, /**< pick the best the kernel offers */
	/** FUSE ABI 7.46 and CAP_SYS_ADMIN: READ/WRITE data stays in the
	 * client's pages, moved with io_uring READ_FIXED/WRITE_FIXED */
	FRING_TRANSPORT_ZEROCOPY = 1,
	/** ABI 7.46: a buffer pool per queue, registered as an io_uring
	 * fixed buffer (needs RLIMIT_MEMLOCK or CAP_IPC_LOCK) */
	FRING_TRANSPORT_BUFPOOL_REGISTERED = 2,
	/** ABI 7.46: a buffer pool per queue */
	FRING_TRANSPORT_BUFPOOL = 3,
	/** ABI 7.42+ with enable_uring=Y: FUSE-over-io_uring, a ring and a
	 * pinned thread per CPU queue */
	FRING_TRANSPORT_URING = 4,
	FRING_TRANSPORT_DEV = 5, /**< classic read/write on /dev/fuse */
};
/**
 * The name of a rung as the transport= option spells it.
 *
 * @return "auto", "zerocopy", "bufpool-registered", "bufpool", "uring",
 *         "dev", or "?" for a value out of range. Any thread.
 */
const char *fring_transport_name(enum fring_transport t);
/**@}*/

/* ------------------------------------------------------------------------ */
/** @name Connection (INIT negotiation) */
/**@{*/
/*
 * Capability bits: the kernel's 64-bit INIT flags (flags | flags2 << 32).
 * Only the ones a filesystem may want to turn on or off are named here.
 */
#define FRING_CAP_ASYNC_READ	   (1ULL << 0)	/**< FUSE_ASYNC_READ */
#define FRING_CAP_POSIX_LOCKS	   (1ULL << 1)	/**< FUSE_POSIX_LOCKS */
#define FRING_CAP_ATOMIC_O_TRUNC   (1ULL << 3)	/**< FUSE_ATOMIC_O_TRUNC */
#define FRING_CAP_EXPORT_SUPPORT   (1ULL << 4)	/**< FUSE_EXPORT_SUPPORT */
#define FRING_CAP_BIG_WRITES	   (1ULL << 5)	/**< FUSE_BIG_WRITES */
#define FRING_CAP_DONT_MASK	   (1ULL << 6)	/**< FUSE_DONT_MASK */
#define FRING_CAP_FLOCK_LOCKS	   (1ULL << 10) /**< FUSE_FLOCK_LOCKS */
#define FRING_CAP_IOCTL_DIR	   (1ULL << 11) /**< FUSE_IOCTL_DIR */
#define FRING_CAP_AUTO_INVAL_DATA  (1ULL << 12) /**< FUSE_AUTO_INVAL_DATA */
#define FRING_CAP_READDIRPLUS	   (1ULL << 13) /**< FUSE_DO_READDIRPLUS */
#define FRING_CAP_READDIRPLUS_AUTO (1ULL << 14) /**< FUSE_READDIRPLUS_AUTO */
#define FRING_CAP_ASYNC_DIO	   (1ULL << 15) /**< FUSE_ASYNC_DIO */
#define FRING_CAP_WRITEBACK_CACHE  (1ULL << 16) /**< FUSE_WRITEBACK_CACHE */
#define FRING_CAP_NO_OPEN_SUPPORT  (1ULL << 17) /**< FUSE_NO_OPEN_SUPPORT */
#define FRING_CAP_PARALLEL_DIROPS  (1ULL << 18) /**< FUSE_PARALLEL_DIROPS */
#define FRING_CAP_HANDLE_KILLPRIV  (1ULL << 19) /**< FUSE_HANDLE_KILLPRIV */
#define FRING_CAP_POSIX_ACL	   (1ULL << 20) /**< FUSE_POSIX_ACL */
#define FRING_CAP_ABORT_ERROR	   (1ULL << 21) /**< FUSE_ABORT_ERROR */
#define FRING_CAP_MAX_PAGES	   (1ULL << 22) /**< FUSE_MAX_PAGES */
#define FRING_CAP_CACHE_SYMLINKS   (1ULL << 23) /**< FUSE_CACHE_SYMLINKS */
/** FUSE_NO_OPENDIR_SUPPORT */
#define FRING_CAP_NO_OPENDIR_SUPPORT (1ULL << 24)
/** FUSE_EXPLICIT_INVAL_DATA */
#define FRING_CAP_EXPLICIT_INVAL_DATA (1ULL << 25)
/** FUSE_HANDLE_KILLPRIV_V2 */
#define FRING_CAP_HANDLE_KILLPRIV_V2 (1ULL << 28)
#define FRING_CAP_SETXATTR_EXT	     (1ULL << 29) /**< FUSE_SETXATTR_EXT */
#define FRING_CAP_SECURITY_CTX	     (1ULL << 32) /**< FUSE_SECURITY_CTX */
/** FUSE_CREATE_SUPP_GROUP */
#define FRING_CAP_CREATE_SUPP_GROUP (1ULL << 34)
/** FUSE_DIRECT_IO_ALLOW_MMAP */
#define FRING_CAP_DIRECT_IO_ALLOW_MMAP (1ULL << 36)
#define FRING_CAP_PASSTHROUGH	       (1ULL << 37) /**< FUSE_PASSTHROUGH */
/** FUSE_NO_EXPORT_SUPPORT */
#define FRING_CAP_NO_EXPORT_SUPPORT (1ULL << 38)
/** FUSE_OVER_IO_URING: set by the library from the chosen transport */
#define FRING_CAP_OVER_IO_URING (1ULL << 41)
/** FUSE_REQUEST_TIMEOUT */
#define FRING_CAP_REQUEST_TIMEOUT (1ULL << 42)
/** FUSE_HAS_IO_URING_BUFPOOL: the kernel has buffer pools (ABI 7.46);
 * describes the kernel, never requested */
#define FRING_CAP_IO_URING_BUFPOOL (1ULL << 43)
/** FUSE_SPLICE_WRITE: READ answers of fring_read_from_fd() spliced into
 * /dev/fuse (dev only; proposed by the splice_write option) */
#define FRING_CAP_SPLICE_WRITE (1ULL << 7)
/** FUSE_SPLICE_MOVE: SPLICE_F_MOVE on those splices (option splice_move) */
#define FRING_CAP_SPLICE_MOVE (1ULL << 8)
/** FUSE_SPLICE_READ: requests spliced from /dev/fuse, a WRITE's data handed
 * to the handler as FRING_BUF_PIPE (dev only; option splice_read) */
#define FRING_CAP_SPLICE_READ (1ULL << 9)

/**
 * The negotiated connection. In the init callback, `capable`, `proto_*` are
 * what the kernel offered and the other fields hold the library's proposal:
 * the filesystem may change `want` (only bits in `capable` survive) and the
 * limits. After INIT, fring_session_conn() returns the final values.
 */
struct fring_conn {
	uint32_t proto_major;	/**< kernel FUSE ABI major (7) */
	uint32_t proto_minor;	/**< kernel ABI minor, e.g. 45 or 46 */
	uint64_t capable;	/**< FRING_CAP_* offered by the kernel */
	uint64_t want;		/**< FRING_CAP_* requested */
	uint32_t max_write;	/**< largest WRITE payload */
	uint32_t max_read;	/**< largest READ (from the max_read= option) */
	uint32_t max_readahead; /**< bytes */
	uint32_t max_pages;	/**< pages per request (needs CAP_MAX_PAGES) */
	uint32_t max_background;       /**< 0 = kernel default */
	uint32_t congestion_threshold; /**< 0 = kernel default */
	uint32_t time_gran;	  /**< timestamp granularity, ns (1 = ns) */
	uint32_t request_timeout; /**< seconds, with CAP_REQUEST_TIMEOUT */
	/** With CAP_PASSTHROUGH: how deep a filesystem stack may sit on this
	 * mount, 1 or 2 (0 in the callback: 1). A backing file's own
	 * filesystem must be less deep (1: no backing file on overlayfs or
	 * another FUSE mount; 2: such backing files, but this mount cannot
	 * be stacked on). 0 after INIT when passthrough was not negotiated. */
	uint32_t max_stack_depth;
	uint32_t reserved[7]; /**< zero; room for later fields */
};
/**@}*/

/* ------------------------------------------------------------------------ */
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

/* ------------------------------------------------------------------------ */
/**
 * @name Callback table
 *
 * Every member is optional. A missing member answers ENOSYS, except:
 * forget/forget_multi (nothing to do), open/opendir (success, fh 0),
 * release/releasedir/flush/fsync/fsyncdir (success), statfs (a generic
 * answer), access (success: rely on default_permissions), and the lock
 * operations (the kernel then handles locks locally).
 *
 * Every callback except init, destroy, forget and forget_multi receives a
 * request that must be answered exactly once. Strings and buffers passed in
 * stay valid until the request is answered.
 *
 * Thread: each runs on the queue thread that received the request (on the
 * ring transports that thread is pinned to the CPUs of its queues), so
 * callbacks run concurrently on different queues. A callback that blocks
 * holds up its queue only; one that must wait long (network, another
 * process) calls fring_req_async() and answers from another thread.
 * Errors go back to the caller as a positive errno in fring_reply_err().
 */
/**@{*/
/** The callbacks of a filesystem; see the group description above. */
struct fring_ops {
	/** Before INIT is answered; adjust conn->want and limits. Main thread
	 * (the one in fring_session_run()). No request, no answer. */
	void (*init)(void *userdata, struct fring_conn *conn);
	/** Once, after the last request, before fring_session_run returns.
	 * Main thread. No answer. */
	void (*destroy)(void *userdata);

	/** Look up name in directory parent. Answer fring_reply_entry() (each
	 * success counts one lookup reference, dropped by forget), or
	 * fring_reply_err(ENOENT). */
	void (*lookup)(fring_req_t *req, fring_ino_t parent, const char *name);
	/** Drop nlookup references to ino. No reply. */
	void (*forget)(void *userdata, fring_ino_t ino, uint64_t nlookup);
	/** A batch of forgets; if NULL, forget is called for each. No reply. */
	void (*forget_multi)(void *userdata, size_t count,
			     const struct fring_forget *forgets);
	/** Attributes of ino. Answer fring_reply_attr(). fi is NULL unless
	 * the kernel named an open file (fstat). */
	void (*getattr)(fring_req_t *req, fring_ino_t ino,
			struct fring_file *fi);
	/** Change attributes (chmod, chown, truncate, utimens). attr holds the
	 * new values of the fields named in to_set (FRING_SET_*); fi is NULL
	 * unless done through an open file. Answer fring_reply_attr() with
	 * the resulting attributes. */
	void (*setattr)(fring_req_t *req, fring_ino_t ino, struct stat *attr,
			int to_set, struct fring_file *fi);
	/** Target of a symlink. Answer fring_reply_readlink(). */
	void (*readlink)(fring_req_t *req, fring_ino_t ino);
	/** Create a file node (regular, fifo, socket, device). The caller's
	 * umask is in fring_req_ctx(). Answer fring_reply_entry(). */
	void (*mknod)(fring_req_t *req, fring_ino_t parent, const char *name,
		      mode_t mode, dev_t rdev);
	/** Create a directory. Answer fring_reply_entry(). */
	void (*mkdir)(fring_req_t *req, fring_ino_t parent, const char *name,
		      mode_t mode);
	/** Remove a name (the inode lives on while the kernel holds lookup
	 * references or it is open). Answer fring_reply_err(0 or errno). */
	void (*unlink)(fring_req_t *req, fring_ino_t parent, const char *name);
	/** Remove an empty directory. Answer fring_reply_err(0 or errno). */
	void (*rmdir)(fring_req_t *req, fring_ino_t parent, const char *name);
	/** Create a symlink name in parent pointing to target. Answer
	 * fring_reply_entry(). */
	void (*symlink)(fring_req_t *req, const char *target,
			fring_ino_t parent, const char *name);
	/** Rename parent/name to newparent/newname. flags: 0,
	 * RENAME_NOREPLACE, RENAME_EXCHANGE or RENAME_WHITEOUT. Answer
	 * fring_reply_err(0 or errno). */
	void (*rename)(fring_req_t *req, fring_ino_t parent, const char *name,
		       fring_ino_t newparent, const char *newname,
		       unsigned int flags);
	/** Hard link ino as newparent/newname. Answer fring_reply_entry(). */
	void (*link)(fring_req_t *req, fring_ino_t ino, fring_ino_t newparent,
		     const char *newname);
	/** Open ino with fi->flags. Set fi->fh (and direct_io, keep_cache,
	 * ...) and answer fring_reply_open(). Default: success, fh 0. */
	void (*open)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
	/**
	 * Read up to size bytes at off into dst (dst->size >= size). Answer
	 * with fring_reply_data() after filling dst, fring_reply_buf() with
	 * other memory, or fring_read_from_fd() to let the library do the I/O.
	 * On a zero-copy open dst is FRING_BUF_FIXED: fring_reply_data() then
	 * needs the bytes moved into it with READ_FIXED first (the helpers
	 * do); fring_reply_buf() works unchanged.
	 */
	void (*read)(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		     struct fring_file *fi, const struct fring_buf *dst);
	/** Write src->size bytes at off. Answer fring_reply_write(). On a
	 * zero-copy open src is FRING_BUF_FIXED: use fring_write_to_fd(), or
	 * WRITE_FIXED on the queue's ring, or set no_zero_copy at open. */
	void (*write)(fring_req_t *req, fring_ino_t ino,
		      const struct fring_buf *src, off_t off,
		      struct fring_file *fi);
	/** close(2) of one descriptor of an open file (may come several
	 * times). Answer fring_reply_err(). Default: success. */
	void (*flush)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
	/** The last reference to an open file is gone; fi->fh for the last
	 * time. Answer fring_reply_err() (the error is not seen by anyone).
	 * Default: success. */
	void (*release)(fring_req_t *req, fring_ino_t ino,
			struct fring_file *fi);
	/** fsync(2) (datasync non-zero: fdatasync). Answer fring_reply_err().
	 * Default: success. */
	void (*fsync)(fring_req_t *req, fring_ino_t ino, int datasync,
		      struct fring_file *fi);
	/** Open a directory. Set fi->fh and answer fring_reply_open().
	 * Default: success, fh 0. */
	void (*opendir)(fring_req_t *req, fring_ino_t ino,
			struct fring_file *fi);
	/**
	 * List entries after offset off into dst with fring_add_direntry()
	 * and answer fring_reply_data(req, used). Offsets are the filesystem's
	 * cookies; 0 means "from the start".
	 */
	void (*readdir)(fring_req_t *req, fring_ino_t ino, size_t size,
			off_t off, struct fring_file *fi,
			const struct fring_buf *dst);
	/** As readdir with fring_add_direntry_plus(); each entry but "." and
	 * ".." counts as a lookup. */
	void (*readdirplus)(fring_req_t *req, fring_ino_t ino, size_t size,
			    off_t off, struct fring_file *fi,
			    const struct fring_buf *dst);
	/** Close a directory. Answer fring_reply_err(). Default: success. */
	void (*releasedir)(fring_req_t *req, fring_ino_t ino,
			   struct fring_file *fi);
	/** fsync(2) on a directory. Answer fring_reply_err(). Default:
	 * success. */
	void (*fsyncdir)(fring_req_t *req, fring_ino_t ino, int datasync,
			 struct fring_file *fi);
	/** statfs(2). Answer fring_reply_statfs(). Default: a generic answer
	 * (512-byte blocks, none used, NAME_MAX). */
	void (*statfs)(fring_req_t *req, fring_ino_t ino);
	/** Set an extended attribute (flags: XATTR_CREATE, XATTR_REPLACE).
	 * Answer fring_reply_err(). */
	void (*setxattr)(fring_req_t *req, fring_ino_t ino, const char *name,
			 const void *value, size_t size, int flags);
	/** size 0: answer fring_reply_xattr(len); else fring_reply_buf() or
	 * ERANGE. */
	void (*getxattr)(fring_req_t *req, fring_ino_t ino, const char *name,
			 size_t size);
	/** Names NUL-separated; size rules as getxattr. */
	void (*listxattr)(fring_req_t *req, fring_ino_t ino, size_t size);
	/** Remove an extended attribute. Answer fring_reply_err(). */
	void (*removexattr)(fring_req_t *req, fring_ino_t ino,
			    const char *name);
	/** access(2) with mask (R_OK, W_OK, X_OK, F_OK). Answer
	 * fring_reply_err(). Default: success (rely on default_permissions).
	 */
	void (*access)(fring_req_t *req, fring_ino_t ino, int mask);
	/** Create and open. Answer fring_reply_create(). */
	void (*create)(fring_req_t *req, fring_ino_t parent, const char *name,
		       mode_t mode, struct fring_file *fi);
	/** O_TMPFILE: an unnamed file in parent. Answer fring_reply_create().
	 */
	void (*tmpfile)(fring_req_t *req, fring_ino_t parent, mode_t mode,
			struct fring_file *fi);
	/** F_GETLK: answer fring_reply_lock() with the conflicting lock, or
	 * the lock with l_type F_UNLCK. Default: the kernel tests locally. */
	void (*getlk)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		      struct flock *lock);
	/** F_SETLK (sleep 0) or F_SETLKW (sleep non-zero; an interrupt may
	 * come). Answer fring_reply_err(). Default: local locks. */
	void (*setlk)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		      struct flock *lock, int sleep);
	/** flock(2). op: LOCK_SH, LOCK_EX or LOCK_UN, possibly | LOCK_NB.
	 * Answer fring_reply_err(). Default: local locks. */
	void (*flock)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		      int op);
	/** FIBMAP on a block-device filesystem. Answer fring_reply_bmap(). */
	void (*bmap)(fring_req_t *req, fring_ino_t ino, size_t blocksize,
		     uint64_t idx);
	/** ioctl(2): in_buf holds in_bufsz bytes, up to out_bufsz may be
	 * returned. Answer fring_reply_ioctl(). Default: ENOTTY. */
	void (*ioctl)(fring_req_t *req, fring_ino_t ino, unsigned int cmd,
		      void *arg, struct fring_file *fi, unsigned flags,
		      const void *in_buf, size_t in_bufsz, size_t out_bufsz);
	/** poll(2) for fi->poll_events. Answer fring_reply_poll(). To be
	 * woken later, take fring_req_pollhandle(req). */
	void (*poll)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		     uint64_t kernel_handle);
	/** fallocate(2) with mode (FALLOC_FL_*). Answer fring_reply_err(). */
	void (*fallocate)(fring_req_t *req, fring_ino_t ino, int mode,
			  off_t offset, off_t length, struct fring_file *fi);
	/** lseek(2) with SEEK_DATA or SEEK_HOLE (the kernel handles the
	 * others). Answer fring_reply_lseek(). */
	void (*lseek)(fring_req_t *req, fring_ino_t ino, off_t off, int whence,
		      struct fring_file *fi);
	/** copy_file_range(2) between two open files. Answer
	 * fring_reply_write() with the bytes copied. */
	void (*copy_file_range)(fring_req_t *req, fring_ino_t ino_in,
				off_t off_in, struct fring_file *fi_in,
				fring_ino_t ino_out, off_t off_out,
				struct fring_file *fi_out, size_t len,
				int flags);
	/** syncfs(2) on the mount. Answer fring_reply_err(). */
	void (*syncfs)(fring_req_t *req, fring_ino_t ino);
	/** statx(2) with flags (AT_STATX_*) and the wanted mask. Answer
	 * fring_reply_statx(). fi may be NULL. Without it the kernel uses
	 * getattr. */
	void (*statx)(fring_req_t *req, fring_ino_t ino, int flags,
		      unsigned int mask, struct fring_file *fi);
	/** Called (on some queue thread) when the kernel interrupts a request
	 * that is still being served; see also fring_req_interrupted(). The
	 * request must still be answered exactly once (EINTR is usual); req
	 * stays valid during the call. */
	void (*interrupt)(fring_req_t *req, void *userdata);
};
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name Request accessors
 * Callable from any thread while the request is unanswered (in the
 * handler, or until the asynchronous answer); req must not be used after
 * its answer.
 */
/**@{*/
/** The caller's credentials and pid; valid until the request is answered.
 */
const struct fring_ctx *fring_req_ctx(const fring_req_t *req);
/** The userdata given to fring_session_new() or fring_main(). */
void *fring_req_userdata(const fring_req_t *req);
/** The session serving req. */
fring_session_t *fring_req_session(const fring_req_t *req);
/** The kernel's request id (for logs). */
uint64_t fring_req_unique(const fring_req_t *req);
/** The FUSE opcode of req (the kernel's FUSE_* number, for logs). */
uint32_t fring_req_opcode(const fring_req_t *req);
/** Index of the queue that received the request. */
unsigned fring_req_queue(const fring_req_t *req);
/** Non-zero once the kernel asked to interrupt the request. */
int fring_req_interrupted(const fring_req_t *req);
/**
 * Supplementary groups of the caller (from /proc). Fills up to size groups,
 * returns the total count, or a negative errno.
 *
 * @param req  the request
 * @param size room in list (0 to ask for the count only)
 * @param list where the groups go
 * @return the number of groups the caller has (may exceed size),
 *         -EINVAL for a negative size or a NULL list with size > 0,
 *         -ENOENT (or the errno of opening /proc/PID/status) when the
 *         caller is gone or invisible (pid 0, another pid namespace).
 */
int fring_req_getgroups(const fring_req_t *req, int size, gid_t list[]);
/**
 * Supplementary groups the kernel sent with a creating request (mknod,
 * mkdir, symlink, create, tmpfile) when FRING_CAP_CREATE_SUPP_GROUP was
 * negotiated: the parent directory's group when the caller belongs to it
 * other than as its fsgid (get_create_supp_group() in the kernel). A
 * filesystem that checks permissions itself can then grant write access
 * through that group without reading /proc, which fails when the caller
 * is not visible (fring_req_ctx()->pid 0, e.g. the server runs in a pid
 * namespace of its own). Like fuse_req_getgroups(), fills up to size groups.
 *
 * @param req  the request, before it is answered
 * @param size room in list (0 to ask for the count only)
 * @param list where the groups go
 * @return the number of groups sent (may exceed size; 0 when the request
 *         carries none), -EINVAL for a NULL req, a negative size or a NULL
 *         list with size > 0. Any thread.
 */
int fring_req_supp_groups(const fring_req_t *req, int size, gid_t list[]);
/**
 * Declares that the handler returns without answering and will answer later
 * (from any thread). Without it, a handler that returns unanswered is a bug:
 * the library logs it and answers EIO so the caller does not hang.
 *
 * Call it in the handler, on the queue thread, before handing req to
 * another thread. The request slot (and, on the ring transports, its ring
 * entry) stays busy until the answer: at most max_async requests per queue
 * wait this way on dev, queue_depth (the queue's entries) on the ring
 * transports. Every transport.
 */
void fring_req_async(fring_req_t *req);
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name Replies
 * Each answers the request and releases it; the request must not be used
 * afterwards. Return 0, or a negative errno if the answer could not be
 * delivered (the request is released anyway). A second answer to the same
 * request is refused with -EALREADY and logged.
 *
 * Callable from any thread (on the ring transports an answer from another
 * thread is handed to the queue's thread, which commits it in its next
 * batch). An answer of the wrong kind for the opcode, more data than the
 * kernel asked for, or an errno outside 1..511 is a handler bug: the caller
 * gets EIO, the bug is logged and counted in handler_bugs, and the function
 * returns what sending the EIO returned. A failure to deliver (-ENOENT: the
 * kernel forgot the request after an interrupt; -ENODEV, -ENOTCONN: the
 * connection is gone) needs no action.
 */
/**@{*/
/** Answers with an error, or with success and no data (unlink, rmdir,
 * rename, release, flush, fsync, setxattr, ...).
 * @param req the request
 * @param err a positive errno, or 0 for success with no data. */
int fring_reply_err(fring_req_t *req, int err);
/** Answers lookup, mknod, mkdir, symlink, link with a new name's entry. */
int fring_reply_entry(fring_req_t *req, const struct fring_entry *e);
/** Answers create and tmpfile: the entry and the open file (fi->fh and the
 * open flags as for fring_reply_open()). */
int fring_reply_create(fring_req_t *req, const struct fring_entry *e,
		       const struct fring_file *fi);
/** Answers getattr and setattr.
 * @param req          the request
 * @param attr         the attributes (st_ino 0: the request's inode)
 * @param attr_timeout seconds the kernel may cache them */
int fring_reply_attr(fring_req_t *req, const struct stat *attr,
		     double attr_timeout);
/** Answers readlink with a NUL-terminated target. */
int fring_reply_readlink(fring_req_t *req, const char *target);
/** Answers open and opendir: fi->fh and the reply bits of struct
 * fring_file (direct_io, keep_cache, zero_copy, backing_id, ...). A
 * backing_id the kernel would refuse (see struct fring_file) is a handler
 * bug: EIO is sent and -EINVAL returned (no RELEASE will come; the same
 * for fring_reply_create()). */
int fring_reply_open(fring_req_t *req, const struct fring_file *fi);
/**
 * Registers fd, an open regular file, as a backing file for passthrough
 * (FUSE_DEV_IOC_BACKING_OPEN on the session's /dev/fuse, whatever the
 * transport). Put the id in fring_file.backing_id of an open or create
 * answer; the kernel holds its own reference from then on, so fd may be
 * closed. Needs CAP_PASSTHROUGH negotiated and CAP_SYS_ADMIN. Any thread,
 * after INIT. libfuse: fuse_passthrough_open().
 *
 * @param se the session
 * @param fd the backing file, any access mode: each open reopens its path
 *           with the client's open flags and the credentials of the thread
 *           that called this (backing_file_open())
 * @return a backing id > 0; -EOPNOTSUPP if passthrough was not negotiated
 *         (or INIT not done); -EBADF; -EINVAL (not a regular file); -EISDIR;
 *         -ELOOP (fd's filesystem is as deep as max_stack_depth); -EPERM
 *         (no CAP_SYS_ADMIN); -ENOMEM.
 */
int fring_backing_open(fring_session_t *se, int fd);
/**
 * Drops a backing id from fring_backing_open(). Files open with it keep
 * their backing file; a later open of the same inode while they are open
 * needs the same id, so close it at the inode's last release. Any thread.
 * libfuse: fuse_passthrough_close().
 *
 * @param se         the session
 * @param backing_id an id fring_backing_open() returned
 * @return 0; -EOPNOTSUPP if passthrough was not negotiated; -EINVAL
 *         (id <= 0); -ENOENT (no such id); -EPERM (no CAP_SYS_ADMIN).
 */
int fring_backing_close(fring_session_t *se, int backing_id);
/** Answers write and copy_file_range with the bytes written. */
int fring_reply_write(fring_req_t *req, size_t count);
/** Answers read, readdir, getxattr, listxattr with size bytes of buf, the
 * caller's memory (copied or gathered, never kept). On zerocopy a READ's
 * bytes are staged into the client's pages first. */
int fring_reply_buf(fring_req_t *req, const void *buf, size_t size);
/** As fring_reply_buf() with the data in count pieces. */
int fring_reply_iov(fring_req_t *req, const struct iovec *iov, int count);
/** Answers read or readdir with size bytes already placed at the start of
 * the request's dst buffer (no copy). On a FRING_BUF_FIXED dst the bytes
 * must have been moved there with READ_FIXED first: an answer claiming
 * more than moved is refused (EIO). */
int fring_reply_data(fring_req_t *req, size_t size);
/** Answers statfs. */
int fring_reply_statfs(fring_req_t *req, const struct statvfs *st);
/** Answer to getxattr/listxattr with size 0: the size needed. */
int fring_reply_xattr(fring_req_t *req, size_t count);
/** Answers getlk with the conflicting lock (or l_type F_UNLCK). The range
 * must fit 0..OFFSET_MAX. */
int fring_reply_lock(fring_req_t *req, const struct flock *lock);
/** Answers bmap with the device block index. */
int fring_reply_bmap(fring_req_t *req, uint64_t idx);
/** Answers lseek with the new offset. */
int fring_reply_lseek(fring_req_t *req, off_t off);
/** Answers poll with the ready events (POLLIN, ...). */
int fring_reply_poll(fring_req_t *req, unsigned revents);
/** Answers ioctl: result is ioctl(2)'s return value, buf the size output
 * bytes (at most out_bufsz). */
int fring_reply_ioctl(fring_req_t *req, int result, const void *buf,
		      size_t size);
struct statx;
/** Answers statx with stx (fields outside stx_mask are ignored).
 * @param req          the request
 * @param stx          the attributes
 * @param attr_timeout seconds the kernel may cache them */
int fring_reply_statx(fring_req_t *req, const struct statx *stx,
		      double attr_timeout);

/**
 * Directory entries. Appends one entry to buf (bufsize bytes free) and
 * returns the bytes it takes. If that is more than bufsize nothing is
 * written: the listing is full. off is the cookie of the *next* entry.
 *
 * Only st_ino and the type bits of st_mode are used. buf is the readdir
 * handler's dst->mem plus what was used so far (or memory of the caller's
 * answered with fring_reply_buf()). Any thread; no answer is sent.
 */
size_t fring_add_direntry(fring_req_t *req, char *buf, size_t bufsize,
			  const char *name, const struct stat *st, off_t off);
/**
 * As fring_add_direntry() for readdirplus: e is the entry as
 * fring_reply_entry() would send it, and (except for "." and "..") the
 * kernel takes a lookup reference on e->ino once the answer arrives.
 * e->ino 0 sends only the name (no reference).
 */
size_t fring_add_direntry_plus(fring_req_t *req, char *buf, size_t bufsize,
			       const char *name, const struct fring_entry *e,
			       off_t off);
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name Data helpers
 * Do the I/O with the operation that suits the running transport (pread or
 * pwrite on dev; io_uring READ/WRITE on uring and bufpool; READ_FIXED /
 * WRITE_FIXED on the registered pool, or on the client's own pages on
 * zerocopy) and answer the request when it completes: short reads, EOF and
 * errors included. Callable from any thread; on zerocopy the transfer is
 * handed to the queue's thread (the pages live in its ring).
 *
 * An I/O error is answered to the caller as its errno; the return value
 * only says whether the answer could be delivered (as for the replies), or
 * -EALREADY if req was answered already. Called for another opcode they
 * answer EIO (a handler bug). After the session started ending, the
 * zero-copy transfer answers ESHUTDOWN.
 */
/**@{*/
/** Answer a READ with up to size bytes of fd at off (size is capped to the
 * request's buffer). */
int fring_read_from_fd(fring_req_t *req, int fd, off_t off, size_t size);
/** Answer a WRITE by writing its data to fd at off; the answer is the
 * count written. */
int fring_write_to_fd(fring_req_t *req, int fd, off_t off);
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name Asynchronous I/O on the queue's ring
 * On the ring transports a handler may issue its own io_uring operations
 * (backing-store reads, writes, fsync, statx, ...) on the ring of the queue
 * it runs on, so they share one io_uring_enter with the FUSE traffic.
 */
/**@{*/
struct io_uring_sqe;
/** Runs on the queue thread when the operation completes; res is the CQE's
 * result. The callback answers the request (or issues more I/O).
 * @param req  the request given to fring_io_submit()
 * @param res  the CQE's res: a count, or a negative errno
 * @param data the data given to fring_io_submit() */
typedef void (*fring_io_cb)(fring_req_t *req, int res, void *data);
/**
 * An SQE of the ring serving req, to be prepared with liburing's
 * io_uring_prep_*() and passed to fring_io_submit(). NULL when the
 * transport has no ring (dev) or when not called on req's queue thread:
 * then do the I/O synchronously or on a thread of your own.
 *
 * Transports: uring, bufpool, bufpool-registered, zerocopy.
 */
struct io_uring_sqe *fring_io_sqe(fring_req_t *req);
/**
 * Submits sqe (from fring_io_sqe(), prepared; its user_data is the
 * library's) with the batch of the queue thread's next io_uring_enter.
 * The request becomes asynchronous (see fring_req_async()). Returns 0 or
 * -ENOMEM (then sqe is turned into a no-op and nothing is called).
 *
 * Queue thread of req only: -EINVAL elsewhere, or when sqe is NULL.
 */
int fring_io_submit(fring_req_t *req, struct io_uring_sqe *sqe, fring_io_cb cb,
		    void *data);
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name Configuration
 * The -o options (fring_config_help() lists them; fring_main(3) describes
 * each). A configuration belongs to one thread at a time; a session copies
 * it, so it may be freed once fring_session_new() returned.
 */
/**@{*/
/** A new configuration with defaults; NULL on ENOMEM. */
fring_config_t *fring_config_new(void);
/** Frees cfg; NULL is ignored. */
void fring_config_free(fring_config_t *cfg);
/**
 * Sets one option, e.g. ("transport", "uring"), ("allow_other", NULL).
 * Returns 0, -EINVAL for a bad value or -ENOENT for an unknown key; a
 * message saying why goes to the log.
 */
int fring_config_set(fring_config_t *cfg, const char *key, const char *value);
/** Parses "a,b=c,..." as given to -o; stops at the first error.
 * @return 0, or the error of fring_config_set() for the first bad option
 *         (-EINVAL, -ENOENT), or -ENOMEM. */
int fring_config_parse(fring_config_t *cfg, const char *opts);
/** Prints the option list for --help. */
void fring_config_help(FILE *out);
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name Sessions
 * new → mount → run → destroy, on one thread (the "main thread"), except
 * fring_session_exit() and the read-only accessors, which any thread may
 * call. fring_main() does all of it; see fring_session_new(3).
 */
/**@{*/
/**
 * Creates a session. ops_size is sizeof(struct fring_ops) as the caller
 * compiled it (newer callbacks the caller does not know stay NULL). cfg may be
 * NULL (defaults); it is copied. Returns 0 and *out, or a negative errno.
 *
 * @return 0; -EINVAL (ops or out NULL, ops_size larger than this library's
 *         table), -ENOMEM, or the errno of eventfd(2).
 */
int fring_session_new(const struct fring_ops *ops, size_t ops_size,
		      void *userdata, const fring_config_t *cfg,
		      fring_session_t **out);
/**
 * Mounts on mountpoint: mount(2) with CAP_SYS_ADMIN, fusermount3 otherwise.
 * Fails with a message (not a hang) when the mountpoint is missing, not a
 * directory or a dead FUSE mount (-ENOTCONN).
 *
 * An explicit transport= the machine cannot give (e.g. uring with
 * enable_uring=N) is refused here, before anything is mounted.
 *
 * @return 0; -EBUSY if already mounted; -ENOENT, -ENOTDIR, -ENOTCONN for
 *         the mountpoint; an explicit rung's refusal (e.g. -EPERM,
 *         -EOPNOTSUPP); the errno of open(/dev/fuse) or mount(2);
 *         -ECONNRESET when fusermount3 failed (it printed why).
 */
int fring_session_mount(fring_session_t *s, const char *mountpoint);
/**
 * Answers INIT, starts the queues and serves until unmount or
 * fring_session_exit(). Returns 0 after a clean end.
 *
 * Chooses the transport at INIT and logs one line naming it and why each
 * better rung was refused. Blocks the calling thread; the destroy callback
 * runs on it before returning.
 *
 * @return 0; -EINVAL if not mounted; -EBUSY if already run; -EPROTO for
 *         an INIT the library cannot serve; or the error that stopped the
 *         queues.
 */
int fring_session_run(fring_session_t *s);
/** Asks run() to stop. Async-signal-safe; callable from any thread. */
void fring_session_exit(fring_session_t *s);
/** Non-zero once the session is ending. Any thread. */
int fring_session_exited(const fring_session_t *s);
/** Unmounts if still mounted (also done by destroy). Lazily (MNT_DETACH)
 * when files are still open.
 * @return 0, -EINVAL for a NULL session, or the umount error. */
int fring_session_unmount(fring_session_t *s);
/** Unmounts if needed and frees everything. Every request must have been
 * answered: fring_session_run() waits up to 2 s for late answers and logs
 * the ones still missing; answering after destroy is a use-after-free. */
void fring_session_destroy(fring_session_t *s);
/** The userdata given to fring_session_new(). */
void *fring_session_userdata(const fring_session_t *s);
/** The negotiated connection (valid after INIT; zeros before). */
const struct fring_conn *fring_session_conn(const fring_session_t *s);
/** The rung in use (AUTO before run() has chosen). */
enum fring_transport fring_session_transport(const fring_session_t *s);
/** One line: the rung and why each better rung was refused. */
const char *fring_session_transport_reason(const fring_session_t *s);
/** Number of queues (valid once run() started). */
unsigned fring_session_queues(const fring_session_t *s);
/**@}*/

/* ------------------------------------------------------------------------ */
/** @name Statistics */
/**@{*/
/** Size of fring_stats.by_opcode; opcodes beyond it count in slot 0. */
#define FRING_STATS_OPCODES 64
/** Counters of one queue (or their sum). Read at any time; each counter is
 * exact, a set of them is not a snapshot. */
struct fring_stats {
	uint64_t requests;	     /**< requests received */
	uint64_t replies;	     /**< answers sent */
	uint64_t errors;	     /**< answers with an error */
	uint64_t malformed;	     /**< requests rejected as malformed */
	uint64_t bytes_read;	     /**< READ data returned to the kernel */
	uint64_t bytes_written;	     /**< WRITE data received */
	uint64_t zero_copy_requests; /**< requests whose data went zero-copy */
	uint64_t pool_waits;	     /**< times a pool buffer was not free */
	uint64_t in_flight;	     /**< requests received but unanswered */
	/** handler mistakes, each logged: no answer, a second answer, the
	 * wrong answer type, more data than asked, an errno outside 1..511 */
	uint64_t handler_bugs;
	uint64_t max_latency_ns;		 /**< slowest request */
	uint64_t by_opcode[FRING_STATS_OPCODES]; /**< requests per opcode */
	uint64_t ring_entries;	/**< ring entries registered with the kernel */
	uint64_t pool_requests; /**< requests whose data was in a pool buffer */
	uint64_t zero_copy_reads;  /**< READs served into client pages */
	uint64_t zero_copy_writes; /**< WRITEs served from client pages */
	/** zero-copy READs answered from memory, staged through a memfd */
	uint64_t zero_copy_staged;
	/** answers /dev/fuse refused (each then answered EIO instead) */
	uint64_t send_failures;
	/** faults injected (FRING_FAULT; builds with fault injection only),
	 * process-wide: in the sum over all queues only */
	uint64_t faults_injected;
	/** age of the oldest request received and not answered yet (0: none);
	 * measured when read, the largest of the queues for the total. A
	 * handler that never answers shows here long before the kernel's
	 * request_timeout, if any, aborts the connection. */
	uint64_t oldest_pending_ns;
};
/** fring_session_stats()'s q for the sum of all queues. */
#define FRING_STATS_ALL (~0u)
/** Counters of queue q (q < fring_session_queues()), or of all queues
 * summed when q == FRING_STATS_ALL. Returns 0 or -EINVAL.
 * Any thread, while the session exists (before fring_session_destroy()).
 */
int fring_session_stats(const fring_session_t *s, unsigned q,
			struct fring_stats *out);
/** One counter by its name, as the JSON of fring_session_write_stats()
 * names it ("requests", "pool_waits", "oldest_pending_ns", ...): every
 * counter of struct fring_stats and those added after its layout was
 * fixed, which only this function and the JSON show. q as for
 * fring_session_stats(). Any thread, while the session exists.
 * @return 0, -ENOENT for a name this version does not count, -EINVAL. */
int fring_session_counter(const fring_session_t *s, unsigned q,
			  const char *name, uint64_t *value);
/** Writes the statistics as one JSON object (with "transport", "queues",
 * totals and "per_queue") and a newline to fd.
 * Any thread, while the session exists. Not async-signal-safe (it
 * allocates): fring_main() writes --stats-file from a thread of its own.
 * @return 0, -EINVAL, -ENOMEM, or the errno of write(2). */
int fring_session_write_stats(const fring_session_t *s, int fd);
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name Notifications
 * Messages to the kernel about changes it did not make itself (a network
 * filesystem seeing a remote write, a file growing behind its back), so
 * that cached names, attributes and pages do not outlive them. See
 * doc/notifications.md.
 *
 * Thread: any thread, concurrently, once INIT is answered (the first
 * request after mounting has been served) and until fring_session_destroy().
 * They are written to /dev/fuse on every transport.
 *
 * Each returns 0, -ENOTCONN before INIT or after the connection ended
 * (unmounted, aborted), -ENOSYS where the negotiated ABI lacks the
 * notification, -EINVAL for bad arguments, or the kernel's own error:
 * -ENOENT when it has no such inode cached (inval_inode, store,
 * retrieve) or no such entry (inval_entry, delete), and so on.
 *
 * Deadlock trap: inval_entry, expire_entry and delete take the parent
 * directory's lock (fuse_reverse_inval_entry()); never send them from a
 * handler of an operation on that directory (LOOKUP, CREATE, RENAME...):
 * send them from another thread.
 */
/**@{*/
/**
 * Drops ino's cached attributes and, if off >= 0, its cached pages in
 * [off, off + len), or to the end when len <= 0. libfuse:
 * fuse_lowlevel_notify_inval_inode().
 * @return 0, -ENOENT (not cached), or as the group description says
 */
int fring_notify_inval_inode(fring_session_t *se, fring_ino_t ino, off_t off,
			     off_t len);
/**
 * Drops the cached name (parent, name[0..namelen)) and, for a directory,
 * its cached listing: the next access looks it up again. libfuse:
 * fuse_lowlevel_notify_inval_entry().
 * @return 0, -ENOENT (not cached), -ENAMETOOLONG, or as the group says
 */
int fring_notify_inval_entry(fring_session_t *se, fring_ino_t parent,
			     const char *name, size_t namelen);
/**
 * Marks the cached name expired without dropping it (FUSE_EXPIRE_ONLY):
 * the next lookup revalidates it, while a process in it or a mount on it
 * stays. ABI 7.38 (Linux 6.2). libfuse: fuse_lowlevel_notify_expire_entry().
 * @return 0, -ENOSYS before 7.38, or as inval_entry
 */
int fring_notify_expire_entry(fring_session_t *se, fring_ino_t parent,
			      const char *name, size_t namelen);
/**
 * The name (parent, name) of child was removed: drops the entry if it
 * still points to child, as if unlink(2) had gone through the kernel.
 * libfuse: fuse_lowlevel_notify_delete().
 * @return 0, -ENOENT, or as the group says
 */
int fring_notify_delete(fring_session_t *se, fring_ino_t parent,
			fring_ino_t child, const char *name, size_t namelen);
/**
 * Puts size bytes at off into the page cache of the regular file ino
 * (growing its cached size if they end past it), so clients read the new
 * data without a READ. libfuse: fuse_lowlevel_notify_store().
 * @return 0, -ENOENT (not cached), -EINVAL (not a regular file), or as the
 * group says
 */
int fring_notify_store(fring_session_t *se, fring_ino_t ino, off_t off,
		       const void *data, size_t size);
/** fring_notify_store() with the data in cnt pieces. */
int fring_notify_store_iov(fring_session_t *se, fring_ino_t ino, off_t off,
			   const struct iovec *data, int cnt);
/**
 * Receives the answer to fring_notify_retrieve(): size bytes the kernel had
 * cached of ino from off (fewer than asked, or none, where its cache ends
 * or has a hole), with the cookie given to the retrieve. data is valid
 * during the call only. Runs on a queue thread; nothing to answer.
 * libfuse: the retrieve_reply operation.
 */
typedef void (*fring_retrieve_reply_fn)(void *userdata, void *cookie,
					fring_ino_t ino, off_t off,
					const void *data, size_t size);
/**
 * Sets the function retrieve answers go to (NULL: they are dropped). Call
 * it before the first fring_notify_retrieve(), e.g. before mounting or in
 * fring_main_hooks.ready.
 * @return 0, or -EINVAL without a session
 */
int fring_session_set_retrieve_reply(fring_session_t *se,
				     fring_retrieve_reply_fn fn);
/**
 * Asks the kernel for up to size bytes it has cached of the regular file
 * ino from off. The answer comes later to the fring_retrieve_reply_fn set
 * with fring_session_set_retrieve_reply() (on a queue thread, with cookie):
 * the bytes up to the first page not cached, at most max_write. libfuse:
 * fuse_lowlevel_notify_retrieve().
 * @return 0 (the answer will come), -ENOENT (not cached), or as the group
 */
int fring_notify_retrieve(fring_session_t *se, fring_ino_t ino, off_t off,
			  size_t size, void *cookie);
/**
 * In a poll handler (fring_ops.poll), before answering: a handle on the
 * waiter when the kernel asked to be told of a change
 * (FUSE_POLL_SCHEDULE_NOTIFY), else NULL (also without memory). The
 * handler owns it: keep it for fring_notify_poll() when the file becomes
 * ready and free it with fring_pollhandle_destroy(), usually when the next
 * one replaces it. libfuse hands the same to its poll operation.
 */
fring_pollhandle_t *fring_req_pollhandle(fring_req_t *req);
/**
 * Wakes the poll(2) waiters of the file ph was taken for: the kernel polls
 * again. ph stays the caller's. libfuse: fuse_lowlevel_notify_poll().
 * @return 0, or as the group says
 */
int fring_notify_poll(fring_pollhandle_t *ph);
/** Frees a poll handle (NULL is fine). libfuse: fuse_pollhandle_destroy(). */
void fring_pollhandle_destroy(fring_pollhandle_t *ph);
/**
 * Asks the kernel to send again every request read from /dev/fuse and not
 * answered yet (after a server restart lost them); they come with bit 63
 * of their unique set. Requests on the ring are not resent. ABI 7.40
 * (Linux 6.9). libfuse has no counterpart.
 * @return 0, -ENOSYS before 7.40, or as the group says
 */
int fring_notify_resend(fring_session_t *se);
/**
 * Starts a new epoch: every name cached before is looked up again on its
 * next use. ABI 7.44 (Linux 6.16). libfuse:
 * fuse_lowlevel_notify_increment_epoch().
 * @return 0, -ENOSYS before 7.44, or as the group says
 */
int fring_notify_inc_epoch(fring_session_t *se);
/**
 * Asks the kernel to drop the unused cached names and inodes of the count
 * inodes in inos (those in use stay); the dropped ones come back as
 * FORGETs. ABI 7.45 (Linux 6.18). libfuse (3.19):
 * fuse_lowlevel_notify_prune().
 * @return 0, -ENOSYS before 7.45, or as the group says
 */
int fring_notify_prune(fring_session_t *se, const fring_ino_t *inos,
		       size_t count);
/**@}*/

/* ------------------------------------------------------------------------ */
/** @name The 90% case */
/**@{*/
/** Optional hooks for programs with options of their own. Every member may
 * be NULL; all run on the thread that called fring_main_ext(). */
struct fring_main_hooks {
	/** Extra usage text after the library's. */
	const char *usage;
	/** An -o option the library does not know: return 0 if taken, a
	 * negative errno to fail, -ENOENT if unknown as well. */
	int (*opt)(void *userdata, const char *key, const char *value);
	/** A positional argument before the mountpoint: 0 or -errno. */
	int (*arg)(void *userdata, const char *arg);
	/** After mounting, before serving (e.g. to print or register). */
	void (*ready)(void *userdata, fring_session_t *s);
	/** Options applied before the command line's (e.g. "fsname=src"). */
	const char *default_opts;
	/** After parsing, before mounting: 0 to go on, or -errno to stop
	 * with exit status 1 (print why). */
	int (*check)(void *userdata);
};
/**
 * Parses "[options] MOUNTPOINT" (-f, -d, -s, -o opts, --help, --version,
 * --stats-file=PATH), mounts, daemonizes unless -f, serves until unmount or
 * SIGINT/SIGTERM/SIGHUP, unmounts and returns the exit status: 0 on success,
 * 1 on a bad command line (nothing mounted) or a failure.
 *
 * It turns default_permissions on (-o no_default_permissions turns it off),
 * installs handlers for SIGINT, SIGTERM and SIGHUP (fring_session_exit())
 * and, with --stats-file, writes the statistics at exit and on SIGUSR1.
 * Call it from the main thread, once. See fring_main(3).
 *
 * @param argc, argv the command line
 * @param ops        the callbacks
 * @param ops_size   sizeof(*ops) as the caller compiled it
 * @param userdata   passed to callbacks (fring_req_userdata())
 * @return the exit status for main(): 0 or 1 (never a negative errno).
 */
int fring_main(int argc, char *argv[], const struct fring_ops *ops,
	       size_t ops_size, void *userdata);
/**
 * fring_main() with hooks for the program's own options, positional
 * arguments and start-up (hooks may be NULL).
 * @return 0 or 1, as fring_main().
 */
int fring_main_ext(int argc, char *argv[], const struct fring_ops *ops,
		   size_t ops_size, void *userdata,
		   const struct fring_main_hooks *hooks);
/**@}*/

#ifdef __cplusplus
}
#endif
#endif
