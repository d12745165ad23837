/* SPDX-License-Identifier: MIT */
/**
 * @file conn.h
 * @brief Transports (the rungs) and the INIT negotiation (struct fring_conn,
 * FRING_CAP_*).
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_CONN_H
#define FRING_API_CONN_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

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

/*
 * Declarations of the filesystem (struct fring_conn's fs_flags): what its
 * handlers can do, for the library to use. Library-side only, never sent to
 * the kernel: a separate word, because the FRING_CAP_* bits are the
 * kernel's own numbering.
 */
/**
 * The read and write callbacks take every kind of data buffer, FRING_BUF_FIXED
 * included: they move data only with the data helpers (fring_read_from_fd(),
 * fring_write_to_fd()), fring_reply_buf() / fring_reply_iov(), or their own
 * READ_FIXED / WRITE_FIXED (fring_io_submit()), never through `mem` of a
 * FIXED buffer. On transport=zerocopy every open is then zero-copied unless
 * its open callback sets fring_file.no_zero_copy (or the mount has -o
 * zero_copy_opt_in). Without this declaration only opens whose callback sets
 * fring_file.zero_copy are: a handler that reads `src->mem` or fills
 * `dst->mem` gets memory on every transport. The same goes for
 * FRING_BUF_PIPE: with -o splice_read (dev), a WRITE's payload is left in
 * the queue's pipe for the handler only when this is declared; otherwise
 * it is read into memory before the handler runs. examples/memfs and
 * examples/passthrough declare it.
 */
#define FRING_FS_ZERO_COPY (1u << 0)
/**
 * The filesystem declines io_uring: the session serves on /dev/fuse (dev)
 * whatever the kernel offers; transport=auto ends on dev, saying why, and an
 * explicitly asked ring rung fails INIT with that reason. For a filesystem
 * that must not be served from ring threads, and for libfuse programs that
 * clear FUSE_CAP_OVER_IO_URING in their init (the compat layer sets it).
 */
#define FRING_FS_NO_RING (1u << 1)

/**
 * The negotiated connection. In the init callback, `capable`, `proto_*` are
 * what the kernel offered and the other fields hold the library's proposal:
 * the filesystem may change `want` (only bits in `capable` survive), the
 * limits and `fs_flags`. After INIT, fring_session_conn() returns the final
 * values.
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
	/** asynchronous requests (async direct I/O, readahead, writeback)
	 * the kernel sends at once; init sees -o max_background (default
	 * 256); 0: the kernel's 12 */
	uint32_t max_background;
	/** asynchronous requests in flight at which readahead holds back;
	 * 0: 3/4 of max_background, rounded up (or the kernel's 9 when that
	 * is 0 too); cut to max_background */
	uint32_t congestion_threshold;
	uint32_t time_gran;	  /**< timestamp granularity, ns (1 = ns) */
	uint32_t request_timeout; /**< seconds, with CAP_REQUEST_TIMEOUT */
	/** With CAP_PASSTHROUGH: how deep a filesystem stack may sit on this
	 * mount, 1 or 2 (0 in the callback: 1). A backing file's own
	 * filesystem must be less deep (1: no backing file on overlayfs or
	 * another FUSE mount; 2: such backing files, but this mount cannot
	 * be stacked on). 0 after INIT when passthrough was not negotiated. */
	uint32_t max_stack_depth;
	/** FRING_FS_* declarations of the filesystem, set in the init
	 * callback (0: none; bits the library does not know are dropped
	 * with a log line). Never sent to the kernel. */
	uint32_t fs_flags;
	uint32_t reserved[6]; /**< zero; room for later fields */
};
/**@}*/

#endif
