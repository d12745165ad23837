/* SPDX-License-Identifier: MIT */
/*
 * libfring-fuse3: the parts of libfuse 3's API shared by its low-level and
 * high-level interfaces, as libfuse 3.18 declares them, on libfring.
 *
 * Every name, type, value and struct layout here is libfuse 3.18.3's (that
 * is the point: a libfuse program compiles unchanged against this file, and
 * a program compiled against libfuse's headers runs on the drop-in
 * libfuse3.so.3). The text is libfring's own. tests/layout checks every
 * size, offset, bit position and value against libfuse 3.18.3 on x86-64.
 *
 * Like libfuse's, this header is reached through <fuse_lowlevel.h>, never
 * included on its own.
 */
#if !defined(FUSE_H_) && !defined(FUSE_LOWLEVEL_H_)
#error "<fuse_common.h> is not included directly: include <fuse_lowlevel.h>"
#endif

#ifndef FUSE_COMMON_H_
#define FUSE_COMMON_H_

#include "fuse_opt.h"
#include "fuse_log.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The libfuse release whose API this is. libfuse keeps these three in a
 * generated libfuse_config.h; here they are fixed, because this API is the
 * 3.18.3 one whatever libfring's own version.
 */
#define FUSE_MAJOR_VERSION  3
#define FUSE_MINOR_VERSION  18
#define FUSE_HOTFIX_VERSION 3

/*
 * Versions are compared as major * 100 + minor: 3.12 is 312. Programs of
 * the 3.0 to 3.9 era write 30 to 39, which still compare right against
 * 312 and 318. Defined before the check below because a program may set
 * FUSE_USE_VERSION to FUSE_MAKE_VERSION(3, 18).
 */
#define FUSE_MAKE_VERSION(maj, min) ((maj)*100 + (min))
#define FUSE_VERSION		    FUSE_MAKE_VERSION(FUSE_MAJOR_VERSION, FUSE_MINOR_VERSION)

/*
 * The API level a program asks for. libfuse refuses a missing value and
 * anything older than 3.0 (30); a value newer than 3.18 gets the 3.18 API,
 * as libfuse does for versions it does not know.
 */
#if !defined(FUSE_USE_VERSION) || FUSE_USE_VERSION < 30
#error "define FUSE_USE_VERSION to 30 or later (e.g. FUSE_MAKE_VERSION(3, 18)) before including <fuse_lowlevel.h>: libfring-fuse3 offers libfuse's 3.x API only"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One open file or directory as the filesystem sees it: filled by the
 * library from the kernel's request, and by the filesystem's open, opendir
 * and create to tell the kernel how to treat the handle. The one-bit flags
 * share the 32-bit word after `flags`; new flags take bits from `padding`,
 * so the size (64 bytes on x86-64) never changes.
 */
struct fuse_file_info {
	/* open(2) flags of the request (open, create, release) */
	int32_t flags;

	/* a WRITE that comes from the page cache (writeback), not from a
	 * caller: its ctx and fh may not be a caller's */
	uint32_t writepage : 1;
	/* set by open/create: bypass the page cache for this handle */
	uint32_t direct_io : 1;
	/* set by open/opendir: keep cached data from earlier opens */
	uint32_t keep_cache : 1;
	/* this release or lock also stands for a flush */
	uint32_t flush : 1;
	/* set by open: the file has no file position (pipes, streams) */
	uint32_t nonseekable : 1;
	/* release: drop the flock(2) locks of lock_owner too */
	uint32_t flock_release : 1;
	/* set by opendir: the kernel may cache this directory's entries */
	uint32_t cache_readdir : 1;
	/* set by open: the kernel need not send FLUSH on close */
	uint32_t noflush : 1;
	/* set by open/create: parallel direct writes on this handle are fine */
	uint32_t parallel_direct_writes : 1;
	/* open, create, write: with KILLPRIV_V2 negotiated, the caller lacks
	 * CAP_FSETID, so the filesystem must clear setuid/setgid (3.18.3) */
	uint32_t kill_suidgid : 1;
	/* room for future flags */
	uint32_t padding : 22;
	uint32_t padding2 : 32;
	uint32_t padding3 : 32;

	/* the filesystem's handle: set by open, opendir, create; given back
	 * with every later request on the same open file */
	uint64_t fh;
	/* owner of locks (lock operations, flush, release) */
	uint64_t lock_owner;
	/* the events a poll request waits for (0 if the kernel did not say) */
	uint32_t poll_events;
	/* set by open/create: a backing id from fuse_passthrough_open(), to
	 * have the kernel do reads and writes on the backing file itself */
	int32_t backing_id;
	/* flags about this struct itself, between program and library */
	uint64_t compat_flags;
	uint64_t reserved[2];
};

/*
 * Threading of fuse_session_loop_mt(). Up to API 3.11 this is a public
 * struct the program fills; from 3.12 it is opaque, made by
 * fuse_loop_cfg_create() and set with the fuse_loop_cfg_* calls, and the
 * old two-field layout lives on as struct fuse_loop_config_v1 (for
 * fuse_loop_cfg_convert()).
 */
#if FUSE_USE_VERSION < FUSE_MAKE_VERSION(3, 12)
struct fuse_loop_config_v1;
struct fuse_loop_config {
	/* 1: each thread reads from its own clone of /dev/fuse */
	int clone_fd;
	/* idle threads kept before extra ones exit (libfuse's default: 10) */
	unsigned int max_idle_threads;
};
#else
struct fuse_loop_config;
struct fuse_loop_config_v1 {
	int clone_fd;
	unsigned int max_idle_threads;
};
#endif

/*
 * Capabilities, in fuse_conn_info's capable/want (low 32 bits) and
 * capable_ext/want_ext (all 64). Each is the kernel's INIT flag of the same
 * bit: what the kernel offers in `capable`, what the filesystem asks for in
 * `want`. The type is unsigned long, as libfuse's, so `~FUSE_CAP_X` masks
 * a 64-bit want_ext correctly.
 */
/* several READs of one file may be in flight at once (default on) */
#define FUSE_CAP_ASYNC_READ (1UL << 0)
/* POSIX locks are the filesystem's: getlk/setlk (on if implemented) */
#define FUSE_CAP_POSIX_LOCKS (1UL << 1)
/* open handles O_TRUNC itself, no separate truncate (default on) */
#define FUSE_CAP_ATOMIC_O_TRUNC (1UL << 3)
/* lookups of "." and ".." are answered: NFS export (off) */
#define FUSE_CAP_EXPORT_SUPPORT (1UL << 4)
/* the kernel does not apply the umask on create (off) */
#define FUSE_CAP_DONT_MASK (1UL << 6)
/* replies may be spliced into /dev/fuse (off) */
#define FUSE_CAP_SPLICE_WRITE (1UL << 7)
/* spliced pages may be moved rather than copied (off) */
#define FUSE_CAP_SPLICE_MOVE (1UL << 8)
/* requests may be spliced out of /dev/fuse (on with write_buf) */
#define FUSE_CAP_SPLICE_READ (1UL << 9)
/* flock(2) goes to the filesystem's flock op (on if implemented) */
#define FUSE_CAP_FLOCK_LOCKS (1UL << 10)
/* ioctl on directories (default on) */
#define FUSE_CAP_IOCTL_DIR (1UL << 11)
/* cached data is dropped when mtime changes on a read (default on) */
#define FUSE_CAP_AUTO_INVAL_DATA (1UL << 12)
/* READDIRPLUS is used (on if readdirplus is implemented) */
#define FUSE_CAP_READDIRPLUS (1UL << 13)
/* the kernel picks READDIR or READDIRPLUS as it sees fit */
#define FUSE_CAP_READDIRPLUS_AUTO (1UL << 14)
/* several direct I/O requests of one handle in flight (default on) */
#define FUSE_CAP_ASYNC_DIO (1UL << 15)
/* the kernel caches writes and sends them later (off) */
#define FUSE_CAP_WRITEBACK_CACHE (1UL << 16)
/* ENOSYS from open means "no open needed" from then on */
#define FUSE_CAP_NO_OPEN_SUPPORT (1UL << 17)
/* lookup and readdir of one directory may run concurrently */
#define FUSE_CAP_PARALLEL_DIROPS (1UL << 18)
/* the kernel caches and enforces POSIX ACLs kept as xattrs (off) */
#define FUSE_CAP_POSIX_ACL (1UL << 19)
/* the filesystem clears setuid/setgid on write, truncate, chown (off) */
#define FUSE_CAP_HANDLE_KILLPRIV (1UL << 20)
/* the same, in the v2 form with per-request flags (off) */
#define FUSE_CAP_HANDLE_KILLPRIV_V2 (1UL << 21)
/* symlink targets are kept in the page cache (off) */
#define FUSE_CAP_CACHE_SYMLINKS (1UL << 23)
/* ENOSYS from opendir means "no opendir needed" from then on */
#define FUSE_CAP_NO_OPENDIR_SUPPORT (1UL << 24)
/* cached data is dropped only when the filesystem says so (off) */
#define FUSE_CAP_EXPLICIT_INVAL_DATA (1UL << 25)
/* dentries may be expired rather than invalidated */
#define FUSE_CAP_EXPIRE_ONLY (1UL << 26)
/* setxattr requests carry the extended header with extra flags */
#define FUSE_CAP_SETXATTR_EXT (1UL << 27)
/* MAP_SHARED mmap is allowed on direct_io files */
#define FUSE_CAP_DIRECT_IO_ALLOW_MMAP (1UL << 28)
/* reads and writes may be passed through to a backing file (off) */
#define FUSE_CAP_PASSTHROUGH (1UL << 29)
/* the filesystem cannot be NFS-exported at all */
#define FUSE_CAP_NO_EXPORT_SUPPORT (1UL << 30)
/* requests travel over FUSE-over-io_uring */
#define FUSE_CAP_OVER_IO_URING (1UL << 31)

/*
 * Flags of an ioctl request (the ioctl op's `flags`), the kernel's values.
 * Spelled exactly as the kernel's uapi <linux/fuse.h> spells them, so a
 * program including both sees identical, not conflicting, definitions.
 */
#define FUSE_IOCTL_COMPAT	(1 << 0) /* a 32-bit caller on a 64-bit kernel */
#define FUSE_IOCTL_UNRESTRICTED (1 << 1) /* any command; retry allowed */
#define FUSE_IOCTL_RETRY	(1 << 2) /* retry with new iovecs */
#define FUSE_IOCTL_DIR		(1 << 4) /* the ioctl is on a directory */

/* at most this many in + out iovecs in fuse_reply_ioctl_retry() */
#define FUSE_IOCTL_MAX_IOV 256

/*
 * The connection as INIT negotiated it, given to the init op: read-only
 * fields report what the kernel offers, the others the filesystem may
 * lower (or set) before init returns. 128 bytes on x86-64.
 */
struct fuse_conn_info {
	/* the FUSE protocol version the kernel speaks (read-only) */
	uint32_t proto_major;
	uint32_t proto_minor;
	/* largest WRITE payload */
	uint32_t max_write;
	/* largest READ (0: the kernel's own limit); also pass -o max_read=
	 * to fuse_session_new() for it to take effect at mount */
	uint32_t max_read;
	/* readahead the kernel may do */
	uint32_t max_readahead;
	/* FUSE_CAP_* the kernel offers, low 32 bits (read-only; kept for
	 * old programs: capable_ext has them all) */
	uint32_t capable;
	/* FUSE_CAP_* the filesystem asks for, low 32 bits (kept for old
	 * programs: use want_ext via fuse_set_feature_flag()) */
	uint32_t want;
	/* background requests (readahead, async direct I/O) in flight */
	uint32_t max_background;
	/* background requests beyond which the kernel calls the
	 * filesystem congested */
	uint32_t congestion_threshold;
	/* timestamp granularity in ns (a power of 10; 1 = full resolution),
	 * for mtime/ctime kept by the kernel with writeback caching */
	uint32_t time_gran;
	/* how deep passthrough backing files may stack: UNDER (0), the
	 * default, or OVER (1), see the kernel's passthrough docs */
#define FUSE_BACKING_STACKED_UNDER (0)
#define FUSE_BACKING_STACKED_OVER  (1)
	uint32_t max_backing_stack_depth;
	/* 1: the filesystem never wants INTERRUPT requests */
	uint32_t no_interrupt : 1;
	uint32_t padding : 31;
	/* FUSE_CAP_* the kernel offers, all 64 bits (read-only) */
	uint64_t capable_ext;
	/* FUSE_CAP_* the filesystem asks for, all 64 bits: change it with
	 * fuse_set_feature_flag() and fuse_unset_feature_flag() */
	uint64_t want_ext;
	/* seconds after which the kernel aborts an unanswered request
	 * (0: never) */
	uint16_t request_timeout;
	uint16_t reserved[31];
};

struct fuse_session;
struct fuse_pollhandle;
struct fuse_conn_info_opts;

/*
 * Parse the -o options that override fuse_conn_info fields (max_write=,
 * max_readahead=, max_background=, congestion_threshold=, time_gran=,
 * [no_]async_read/sync_read, atomic_o_trunc, no_remote_lock and its
 * flock/posix halves, [no_]splice_{read,write,move}, [no_]auto_inval_data,
 * readdirplus=yes|no|auto, [no_]async_dio, [no_]writeback_cache), taking
 * them out of `args`. The result is for fuse_apply_conn_info_opts() in
 * the init op. NULL on failure.
 */
struct fuse_conn_info_opts *fuse_parse_conn_info_opts(struct fuse_args *args);

/* Apply what fuse_parse_conn_info_opts() parsed to `conn`: only options
 * that were given change anything. */
void fuse_apply_conn_info_opts(struct fuse_conn_info_opts *opts,
			       struct fuse_conn_info *conn);

/* Detach into the background unless `foreground`; 0, or -1 on failure. */
int fuse_daemonize(int foreground);

/* The library's FUSE_VERSION (318). */
int fuse_version(void);

/* The library's version as a string. */
const char *fuse_pkgversion(void);

/* Free a poll handle the poll op got and no longer needs. */
void fuse_pollhandle_destroy(struct fuse_pollhandle *ph);

/*
 * Data buffers: a byte range either in memory or behind a file
 * descriptor, so data can move between the kernel and files without a
 * copy through the program (write_buf, fuse_reply_data, notify_store).
 */
enum fuse_buf_flags {
	/* the data is behind .fd, not at .mem */
	FUSE_BUF_IS_FD = (1 << 1),
	/* read/write .fd at .pos rather than at its file position */
	FUSE_BUF_FD_SEEK = (1 << 2),
	/* keep going on .fd until .size bytes, an error or end of file */
	FUSE_BUF_FD_RETRY = (1 << 3)
};

/* How fuse_buf_copy() may move bytes between descriptors. */
enum fuse_buf_copy_flags {
	/* never splice(2): plain read and write */
	FUSE_BUF_NO_SPLICE = (1 << 1),
	/* only splice(2); fail with -EINVAL where it cannot */
	FUSE_BUF_FORCE_SPLICE = (1 << 2),
	/* splice with SPLICE_F_MOVE */
	FUSE_BUF_SPLICE_MOVE = (1 << 3),
	/* splice with SPLICE_F_NONBLOCK */
	FUSE_BUF_SPLICE_NONBLOCK = (1 << 4)
};

/* One buffer: 48 bytes on x86-64. */
struct fuse_buf {
	/* bytes of data */
	size_t size;
	/* FUSE_BUF_* */
	enum fuse_buf_flags flags;
	/* the data, unless FUSE_BUF_IS_FD */
	void *mem;
	/* the descriptor, with FUSE_BUF_IS_FD */
	int fd;
	/* the offset in fd, with FUSE_BUF_FD_SEEK */
	off_t pos;
	/* size of .mem when the library allocated it (else unused) */
	size_t mem_size;
};

/*
 * A list of buffers with a cursor (idx, off). buf[] is declared with one
 * element; for more, allocate the struct with room for count of them.
 */
struct fuse_bufvec {
	size_t count;
	/* the buffer the cursor is in */
	size_t idx;
	/* the cursor's offset in buf[idx] */
	size_t off;
	struct fuse_buf buf[1];
};

/* The libfuse version a program was compiled against, passed by the
 * fuse_session_new() inline to fuse_session_new_versioned(). */
struct libfuse_version {
	uint32_t major;
	uint32_t minor;
	uint32_t hotfix;
	uint32_t padding;
};

/*
 * A fuse_bufvec of one empty memory buffer of `size__` bytes (mem NULL, fd
 * -1). Initialisers are positional, not designated, so that the macro is
 * also valid C++ (g++ accepts the compound literal).
 */
#define FUSE_BUFVEC_INIT(size__)                                               \
	((struct fuse_bufvec){                                                 \
		1,                                                             \
		0,                                                             \
		0,                                                             \
		{{(size__), (enum fuse_buf_flags)0, NULL, -1, 0, 0}}})

/* Bytes in all buffers of `bufv` (from buf[0], ignoring the cursor). */
size_t fuse_buf_size(const struct fuse_bufvec *bufv);

/* Copy from src's cursor to dst's, advancing both, until either runs
 * out; returns the bytes copied or -errno. */
ssize_t fuse_buf_copy(struct fuse_bufvec *dst, struct fuse_bufvec *src,
		      enum fuse_buf_copy_flags flags);

/*
 * Signals. fuse_set_signal_handlers() makes SIGHUP, SIGINT and SIGTERM end
 * the session's loop (fuse_session_exit()) and ignores SIGPIPE; one session
 * at a time, until fuse_remove_signal_handlers(). 0, or -1 on failure.
 */
int fuse_set_signal_handlers(struct fuse_session *se);

/* On a fatal signal (SIGSEGV, SIGBUS, ...), log a backtrace and end the
 * session. 0, or -1 on failure. */
int fuse_set_fail_signal_handlers(struct fuse_session *se);

/* Put back the handlers the two calls above replaced. */
void fuse_remove_signal_handlers(struct fuse_session *se);

#if FUSE_USE_VERSION >= FUSE_MAKE_VERSION(3, 12)
/* A loop configuration with the defaults; NULL when out of memory. */
struct fuse_loop_config *fuse_loop_cfg_create(void);

void fuse_loop_cfg_destroy(struct fuse_loop_config *config);

/* Idle worker threads kept before extra ones exit. */
void fuse_loop_cfg_set_idle_threads(struct fuse_loop_config *config,
				    unsigned int value);

/* Worker threads at most. */
void fuse_loop_cfg_set_max_threads(struct fuse_loop_config *config,
				   unsigned int value);

/* Nonzero: each thread gets its own clone of /dev/fuse. */
void fuse_loop_cfg_set_clone_fd(struct fuse_loop_config *config,
				unsigned int value);

/* Copy an old-style (v1) configuration into `config`. */
void fuse_loop_cfg_convert(struct fuse_loop_config *config,
			   struct fuse_loop_config_v1 *v1_conf);
#endif

/*
 * Capabilities by name, on all 64 bits of want_ext (3.17.3+). Setting
 * succeeds only for a flag the kernel offers (in capable_ext): true if it
 * is now wanted.
 */
bool fuse_set_feature_flag(struct fuse_conn_info *conn, uint64_t flag);
void fuse_unset_feature_flag(struct fuse_conn_info *conn, uint64_t flag);
/* Whether `flag` is in want_ext. */
bool fuse_get_feature_flag(struct fuse_conn_info *conn, uint64_t flag);

/*
 * Not API: libfuse exports this (FUSE_3.17.3) for its own tests, to fold
 * changes made to the 32-bit `want` into want_ext. Declared because
 * libfuse's header declares it; programs should not call it.
 */
int fuse_convert_to_conn_want_ext(struct fuse_conn_info *conn);

#ifdef __cplusplus
}
#endif

/*
 * off_t is 64-bit in every struct and call above (always so on x86-64
 * and other 64-bit Linux; 32-bit builds need -D_FILE_OFFSET_BITS=64).
 */
#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(sizeof(off_t) == 8, "libfring-fuse3 needs a 64-bit off_t: "
				  "build with -D_FILE_OFFSET_BITS=64");
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) &&                    \
	__STDC_VERSION__ >= 201112L
_Static_assert(sizeof(off_t) == 8, "libfring-fuse3 needs a 64-bit off_t: "
				   "build with -D_FILE_OFFSET_BITS=64");
#else
struct fuse_off_t_is_64bit_check_ {
	unsigned int off_t_must_be_64bit : (sizeof(off_t) == 8) ? 1 : -1;
};
#endif

#endif /* FUSE_COMMON_H_ */
