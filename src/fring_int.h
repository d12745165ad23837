/* SPDX-License-Identifier: MIT */
/*
 * Internal types shared by the layers: session, queue, request, transport.
 * Nothing here is exported (the version script exports fring_* only, and
 * every internal function is hidden).
 */
#ifndef FRING_INT_H
#define FRING_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "fring/fring.h"
#include "fuse_abi.h"
#include "mountid.h"
#include "stats_list.h"

#define FRING_HIDDEN	     __attribute__((visibility("hidden")))
#define FRING_PAGE	     4096u
#define FRING_ALIGN_UP(x, a) (((x) + (a)-1) / (a) * (a))
#define FRING_ARRAY_SIZE(a)  (sizeof(a) / sizeof((a)[0]))

/* ---------------- logging (log.c) ---------------- */
FRING_HIDDEN void fring_log(enum fring_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
FRING_HIDDEN bool fring_log_enabled(enum fring_log_level lvl);
#define fr_err(...)  fring_log(FRING_LOG_ERR, __VA_ARGS__)
#define fr_warn(...) fring_log(FRING_LOG_WARN, __VA_ARGS__)
#define fr_info(...) fring_log(FRING_LOG_INFO, __VA_ARGS__)
#define fr_dbg(...)  fring_log(FRING_LOG_DEBUG, __VA_ARGS__)

/* ---------------- configuration (opts.c) ---------------- */
#define FRING_NAME_LEN 256
struct fring_config {
	enum fring_transport transport;
	unsigned queues;	  /* 0: one per possible CPU */
	unsigned max_write;	  /* bytes */
	unsigned max_read;	  /* 0: unlimited */
	unsigned max_readahead;	  /* 0: kernel's offer */
	unsigned max_async;	  /* per-queue cap on unanswered requests */
	unsigned queue_depth;	  /* ring entries per queue */
	unsigned threads;	  /* ring threads; 0: one per queue */
	unsigned pool_bufs;	  /* buffers per queue pool; 0: queue_depth */
	unsigned request_timeout; /* seconds; 0: none asked (kernel default) */
	unsigned inline_max;	  /* ring: largest helper transfer in place */
	bool allow_other;
	bool default_permissions;
	bool ro;
	bool dev;  /* device files work (root only; default nodev) */
	bool suid; /* set-id bits work (root only; default nosuid) */
	bool debug;
	bool zero_copy_opt_in; /* zero-copy only where open sets zero_copy */
	bool splice_read, splice_write, splice_move; /* dev only (splice.c) */
	bool overmount; /* mount even where a FUSE mount is on top (mount.c) */
	char fsname[FRING_NAME_LEN];
	char subtype[FRING_NAME_LEN];
};
FRING_HIDDEN void fring_config_defaults(struct fring_config *cfg);
/* Each option set to what rung t cannot use (threads= on dev, queues= on a
 * ring rung...): one sentence each to say(), naming it and why. nqueues:
 * the ring rungs' queues. */
FRING_HIDDEN void config_ineffective(const struct fring_config *cfg,
				     enum fring_transport t, unsigned nqueues,
				     void (*say)(const char *msg, void *arg),
				     void *arg);

/* ---------------- statistics (stats.c) ---------------- */
#define STAT_FIELD(name, how) _Atomic uint64_t name;
struct fring_qstats {
	FRING_STATS_LIST(STAT_FIELD, STAT_FIELD)
	_Atomic uint64_t by_opcode[FRING_STATS_OPCODES];
};
#undef STAT_FIELD
#define stat_add(q, field, n)                                                  \
	atomic_fetch_add_explicit(&(q)->stats.field, (n), memory_order_relaxed)
#define stat_sub(q, field, n)                                                  \
	atomic_fetch_sub_explicit(&(q)->stats.field, (n), memory_order_relaxed)
FRING_HIDDEN void stats_note_latency(struct fring_qstats *st, uint64_t ns);
FRING_HIDDEN uint64_t fring_now_ns(void);
/* The session's totals as log lines (SIGUSR1 without --stats-file). */
FRING_HIDDEN void stats_log(const fring_session_t *s);

/* ---------------- requests ---------------- */
enum req_flags {
	REQ_ASYNC = 1 << 0,   /* handler promised a later answer */
	REQ_NOREPLY = 1 << 1, /* FORGET & co: the kernel wants no answer */
};

/*
 * A request slot. It owns one page-aligned buffer used for the request as
 * read from the kernel and for bulk reply data (READ, READDIR), so a READ
 * answered with fring_reply_data() is written straight from where the
 * handler put it. Slots are recycled per queue; the hot path allocates
 * nothing.
 */
struct fring_req {
	struct fring_session *se;
	struct fring_queue *q;
	_Atomic uint64_t unique; /* 0 while free; read by the interrupt scan */
	uint32_t opcode;
	uint32_t flags;
	fring_ino_t nodeid;
	struct fring_ctx ctx;
	/* 2 while the handler runs (handler scope + answer), see req_put() */
	atomic_int refs;
	atomic_bool answered;
	atomic_bool interrupted;
	/* atomic: the stats' oldest-pending scan reads it from other threads */
	_Atomic uint64_t t_start;
	uint32_t max_out; /* bytes of data the kernel asked for, if any */
	uint64_t poll_kh; /* POLL: the waiter to wake, 0 if none asked */
	/* the data buffer handed to read/write/readdir handlers */
	struct fring_buf buf;
	/* scratch for decoded arguments that outlive the handler call */
	struct fring_file fi, fi_out;
	/* ring transport: the entry's header buffer, as the kernel sees it */
	struct fuse_uring_req_header hdr;
	struct iovec reg_iov[2];
	uint64_t commit_id;
	/* zero-copy: the client's pages are in fixed-buffer slot zc_slot of
	 * the queue's ring (never mapped here). zc_moved counts the bytes
	 * fixed ops moved from slot offset 0, so an answer never claims more
	 * than reached (or left) the pages; zc_inflight ops must end before
	 * the commit, or they would hit the next request's pages. */
	enum { ZC_NONE, ZC_READ, ZC_WRITE } zc;
	uint16_t zc_slot;
	bool commit_held; /* answered while fixed ops were in flight */
	unsigned zc_inflight;
	uint32_t zc_size; /* bytes in (WRITE) or asked for (READ) */
	uint32_t zc_moved;
	uint32_t zc_staged; /* READ answered from memory: bytes to stage */
	/* splice_read (dev): a WRITE's payload bytes that were left in the
	 * queue's pipe when it was read (set before the handler runs) */
	uint32_t pipe_in;
	char *mem;     /* page-aligned buffer */
	size_t memsz;  /* its size */
	char *data;    /* mem + FRING_PAGE: where bulk reply data goes */
	size_t datasz; /* room at data */
	size_t in_len; /* bytes of the request */
	/* the request's extension block (FUSE_EXT_*), or NULL; inside the
	 * request buffer, so valid until the answer */
	const char *ext;
	size_t ext_len;
	struct fring_req *next_free;
	/* small replies are encoded here, next to their header */
	union {
		struct fuse_out_header oh;
		char raw[16 + 288];
	} out;
	char small[288];
};

/* ---------------- queues and sessions ---------------- */
struct fring_queue {
	struct fring_session *se;
	unsigned idx;
	int fd; /* this queue's /dev/fuse fd (a clone, or the session's) */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock; /* free list and the slot table */
	pthread_cond_t slot_freed;
	struct fring_req *free;
	struct fring_req **slots; /* every slot ever made, for interrupts */
	unsigned nslots;
	struct fring_qstats stats;
	const struct fring_tp *tp; /* how this queue's answers travel */
	struct ring_thread *rt;	   /* ring transport: the owning thread */
	uint16_t qid;		   /* ring transport: the kernel's queue id */
	int pool_index;		   /* registered pool's buffer index, or -1 */
	char *pool;		   /* pool transports: the queue's pool */
	size_t pool_len;
	/* splice_read: the pipe requests are spliced into, or -1; pipe_owner
	 * says who may touch a WRITE payload left in it (splice.c) */
	int pipe[2];
	_Atomic uintptr_t pipe_owner;
};

/* A transport moves bytes; the layers above it never see fds or rings. */
struct fring_tp {
	const char *name;
	/* Deliver an answer: iov[0] is the fuse_out_header, len filled in. */
	int (*send)(struct fring_req *req, struct iovec *iov, int cnt);
	/* Finish a request the kernel wants no answer to (may be NULL). */
	void (*noreply)(struct fring_req *req);
	/* The slot's last reference is gone (handler returned and answer
	 * sent): give the slot back. NULL: the queue's free list. */
	void (*recycle)(struct fring_req *req);
};

struct fring_session {
	struct fring_ops ops;
	void *userdata;
	struct fring_config cfg;
	char *mountpoint;
	int fd; /* the mount's /dev/fuse fd */
	bool mounted;
	bool via_fusermount;
	/* the mount this session made, as found right after mounting: what
	 * unmount_fuse() looks for (mount.c); mnt_known false if it could
	 * not be told, and then nothing is unmounted */
	struct mount_id mnt;
	bool mnt_known;
	struct fring_conn conn;
	bool got_init;
	bool setxattr_ext; /* 16-byte setxattr_in negotiated */
	/* open / opendir without a callback answer ENOSYS (the filesystem
	 * wanted FRING_CAP_NO_OPEN(DIR)_SUPPORT), see init.c */
	bool no_open, no_opendir;
	uint64_t splice; /* FUSE_SPLICE_* granted at INIT (dev only) */
	enum fring_transport transport;
	char reason[768];
	unsigned nqueues;
	struct fring_queue *queues;
	struct fring_queue *side; /* ring mode: the /dev/fuse side channel */
	struct ring_state *ring;  /* ring transport state, or NULL */
	size_t bufsize;		  /* per-request buffer size */
	atomic_int exiting;	  /* the queues stop (session_stop) */
	/* run() has built its queues: from now until destroy, another thread
	 * may read their counters (main.c's SIGUSR1 thread) */
	atomic_bool serving;
	int exit_efd; /* becomes readable when the session should stop */
	/* fring_session_exit() counts a request and wakes ask_efd; the run
	 * thread weighs it (session.c, wait_for_exit) and may decline it
	 * while other mounts sit on this one (exit_declined: the value
	 * exit_asked had when it declined) */
	atomic_uint exit_asked, exit_declined;
	int ask_efd;
	bool destroyed_called;
	pthread_mutex_t lock;
	/* notify.c: INIT answered, so the kernel takes notifications */
	atomic_bool notify_ready;
	/* notify.c: retrieves awaiting their NOTIFY_REPLY (under lock) */
	_Atomic(fring_retrieve_reply_fn) retrieve_reply;
	struct retrieve_wait *retrieves;
	uint64_t retrieve_seq;
};

/* session.c */
FRING_HIDDEN struct fring_req *req_get(struct fring_queue *q);
FRING_HIDDEN void req_put(struct fring_req *req);
FRING_HIDDEN void req_begin(struct fring_req *req, uint64_t unique);
FRING_HIDDEN void session_call_destroy(struct fring_session *se);
FRING_HIDDEN void req_end_handler(struct fring_req *req);
FRING_HIDDEN void queue_free_slots(struct fring_queue *q);
FRING_HIDDEN void session_interrupt(struct fring_session *se, uint64_t unique);
/* Stops the queues now: the connection ended or a transport failed (not an
 * exit request, which the run thread weighs first). Async-signal-safe. */
FRING_HIDDEN void session_stop(struct fring_session *se);

/* dispatch.c: one message from the kernel, in either framing. */
struct fring_msg {
	const struct fuse_in_header *ih;
	const char *op_in; /* ring: where arg0 is (128 bytes); NULL: classic */
	const char *p;	   /* next input byte */
	size_t left;	   /* input bytes left (extensions excluded) */
	const char *ext;   /* extension block, or NULL */
	size_t ext_len;
};
FRING_HIDDEN void fring_dispatch(struct fring_req *req, struct fring_msg *m);
/* Builds the classic framing of a message read from /dev/fuse; -EINVAL if
 * the header is short or disagrees with the length read. */
FRING_HIDDEN int msg_from_dev(struct fring_msg *m, const void *buf, size_t n);
FRING_HIDDEN const char *fring_opname(uint32_t opcode);
/* dispatch_debug.c, the -d lines: only called when debug is on */
FRING_HIDDEN void debug_request(const struct fring_req *req,
				const struct fring_msg *m)
	__attribute__((cold, noinline));
FRING_HIDDEN void debug_reply(const struct fring_req *req, uint64_t unique,
			      int error, size_t len, int ret)
	__attribute__((cold, noinline));
/* "ENOENT" for ENOENT or -ENOENT; NULL for an errno it does not name */
FRING_HIDDEN const char *fring_errno_name(int err);
/* Answers EIO to a message that cannot be decoded at all. */
FRING_HIDDEN void fring_reject(struct fring_req *req,
			       const struct fuse_in_header *ih,
			       const char *why);

/* init.c */
FRING_HIDDEN int init_negotiate(struct fring_session *se,
				const struct fuse_init_in *in, size_t inlen,
				struct fuse_init_out *out, size_t *outlen);
FRING_HIDDEN size_t init_payload_size(const struct fring_conn *c);
/* fs.fuse.max_pages_limit (256 where the file is missing), at most 65535 */
FRING_HIDDEN unsigned init_max_pages_limit(void);

/* backing.c: why an open answer's backing_id cannot be sent, or NULL */
FRING_HIDDEN const char *backing_refusal(const struct fring_session *se,
					 uint32_t opcode,
					 const struct fring_file *fi);

/* reply.c */
FRING_HIDDEN int reply_send(struct fring_req *req, int error,
			    const struct iovec *args, int nargs);
FRING_HIDDEN int reply_errno(struct fring_req *req, int err);
FRING_HIDDEN void reply_none(struct fring_req *req);
/* seconds as a double into the kernel's sec + nsec, clamped */
FRING_HIDDEN void timeout_split(double t, uint64_t *sec, uint32_t *nsec);
FRING_HIDDEN void fill_attr(struct fuse_attr *a, const struct stat *st,
			    uint64_t ino);

/* notify.c */
/* The cookie of the retrieve whose NOTIFY_REPLY carries unique id, taken
 * off the list; false if no retrieve has that id. */
FRING_HIDDEN bool notify_take_retrieve(struct fring_session *se, uint64_t id,
				       void **cookie);
FRING_HIDDEN void notify_free(struct fring_session *se);

/* mount.c */
/* Mounts at mnt and records which mount is ours; refuses (-EBUSY) a
 * mountpoint with a FUSE mount on top unless cfg.overmount. */
FRING_HIDDEN int mount_fuse(struct fring_session *se, const char *mnt);
/* Unmounts our mount wherever it is now; nothing when it is gone (0), or
 * when other mounts sit on or inside it, or another mount is what its path
 * leads to now (-EBUSY, logged). */
FRING_HIDDEN int unmount_fuse(struct fring_session *se);
/* true when other mounts sit on or inside ours; what names one of them */
FRING_HIDDEN bool mount_held(struct fring_session *se, char *what, size_t len);

/* ladder.c */
FRING_HIDDEN int ladder_precheck(struct fring_session *se);
/*
 * At INIT: the best rung the kernel, the process and RLIMIT_MEMLOCK allow,
 * then build(se) for a ring rung (what the rung needs before INIT is
 * answered; it cleans up after itself on failure); a rung that fails to
 * build gives its turn to the next one down (auto only), with its reason.
 * Returns 0 with se->transport and se->reason set, or the -errno INIT fails
 * with: an explicit transport that cannot be had. Warns once about options
 * the rung taken ignores.
 */
FRING_HIDDEN int ladder_settle(struct fring_session *se,
			       int (*build)(struct fring_session *se));
FRING_HIDDEN void ladder_fell_back(struct fring_session *se, const char *why);
/*
 * fring-probe's question (tools/fring-probe.c), answered by the code a
 * mount runs, without mounting: ladder_precheck(), then INIT negotiated
 * with what a kernel at ABI 7.abi_minor offers on this machine, then
 * ladder_settle() with the result of building a ring here.
 */
struct ladder_probe {
	unsigned abi_minor; /* in: the kernel's ABI minor (inferred) */
	/* out: what the decision was made from */
	int enable_uring; /* 1 Y, 0 N, -1 no such parameter */
	int ring_err;	  /* building the rings as ring.c does */
	bool cap_sys_admin, cap_ipc_lock;
	bool memlock_charged;	    /* io_uring charges RLIMIT_MEMLOCK */
	unsigned long long memlock; /* RLIMIT_MEMLOCK bytes, ~0: none */
	unsigned queues;	    /* one per possible CPU */
	unsigned nthreads;	    /* ring threads, one ring each */
	unsigned ring_entries;	    /* SQ entries of the largest ring */
	size_t payload;		    /* max_payload_sz, page-aligned */
	size_t entry_bytes;	    /* uring: entry buffers, all queues */
	size_t pool_bytes;	    /* bufpool rungs: pools, all queues */
	size_t ring_locked;	    /* the rings' RLIMIT_MEMLOCK charge */
	size_t pool_locked;	    /* the registered pools' charge */
	/* out: the answer */
	enum fring_transport transport; /* the rung, unless refused */
	int refused; /* 0, or the -errno the mount or INIT fails with */
	char reason[768];
	char ineffective[1024]; /* options the rung ignores, one a line */
};
FRING_HIDDEN void ladder_probe(const struct fring_config *cfg,
			       struct ladder_probe *p);

/* dev.c: the classic transport */
FRING_HIDDEN extern const struct fring_tp fring_tp_dev;
FRING_HIDDEN int dev_read_init(struct fring_session *se,
			       int (*before_reply)(struct fring_session *se,
						   struct fuse_init_out *out));
FRING_HIDDEN int dev_start(struct fring_session *se);
FRING_HIDDEN int dev_start_queue(struct fring_queue *q);
FRING_HIDDEN void dev_stop(struct fring_session *se);
FRING_HIDDEN int dev_write_all(int fd, struct iovec *iov, int cnt);

/*
 * ThreadSanitizer sees no ordering through io_uring: an answer committed on
 * one ring, then a RELEASE or FORGET that the kernel sends only after it,
 * read on another ring or on /dev/fuse, look unordered (a descriptor
 * written in place by one queue thread and closed by another was reported).
 * The kernel does order them; kernel_order(), called by every serving
 * thread before it hands answers to the kernel and after it takes
 * requests, tells TSan so. It is nothing in other builds.
 */
#if defined(__SANITIZE_THREAD__)
#define FRING_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FRING_TSAN 1
#endif
#endif
#ifdef FRING_TSAN
FRING_HIDDEN extern _Atomic unsigned long fring_kernel_order;
static inline void kernel_order(void)
{
	atomic_fetch_add_explicit(&fring_kernel_order, 1, memory_order_acq_rel);
}
#else
static inline void kernel_order(void)
{
}
#endif

/* fdclass.c: how a queue thread moves a transfer on a descriptor */
enum fd_class {
	FD_CLASS_UNKNOWN,
	FD_CLASS_NOWAIT, /* preadv2/pwritev2 with RWF_NOWAIT in place */
	FD_CLASS_MEMORY, /* pread/pwrite in place: tmpfs, ramfs */
	FD_CLASS_RING,	 /* READ/WRITE on the ring (io-wq if it blocks) */
};
/* FD_CLASS_UNKNOWN unless this thread learnt it recently */
FRING_HIDDEN enum fd_class fd_class_get(int fd, bool is_write);
/* Remembers what an RWF_NOWAIT read or write on fd answered (0 or errno) */
FRING_HIDDEN enum fd_class fd_class_learn(int fd, bool is_write,
					  int nowait_errno);
/* Descriptors may be closed and reused from now on (a RELEASE came) */
FRING_HIDDEN void fd_class_forget_all(void);

/* bufmem.c: len bytes (a multiple of the page size) of zeroed, faulted-in
 * anonymous memory for payload buffers, 2 MiB-aligned and advised for huge
 * pages from 2 MiB on; NULL when it cannot be had. munmap() frees it, in
 * one piece or page-aligned parts. */
FRING_HIDDEN void *buf_map(size_t len);

/* splice.c: splice on the classic transport */
/* After INIT: keeps the granted FUSE_SPLICE_* on dev, drops them with a
 * log line on the other transports. */
FRING_HIDDEN void splice_session_start(struct fring_session *se);
FRING_HIDDEN void splice_queue_setup(struct fring_queue *q);
FRING_HIDDEN void splice_queue_close(struct fring_queue *q);
/* splice_read: the next request into req, as read(2) would (bytes or
 * -errno); a WRITE's payload may stay in the pipe (req->pipe_in). */
FRING_HIDDEN ssize_t splice_read_msg(struct fring_queue *q,
				     struct fring_req *req, size_t off);
/* After the handler returned: a payload nobody took goes into memory. */
FRING_HIDDEN void splice_settle(struct fring_queue *q);
/* The data helpers on dev: 1 when they answered, 0 to use the copy path */
FRING_HIDDEN int splice_write_to_fd(struct fring_req *req, int fd, off_t off);
FRING_HIDDEN int splice_read_from_fd(struct fring_req *req, int fd, off_t off,
				     size_t size);
/* dev_send() of an answer whose data a data helper left in this thread's
 * pipe: 0 sent, -errno failed, 1 to write iov (the data is back in it, or
 * was never in a pipe) */
FRING_HIDDEN int splice_send(struct fring_req *req, struct iovec *iov, int cnt);

#endif
