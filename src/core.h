/* SPDX-License-Identifier: MIT */
/*
 * The library's shared data model: a session, its queues, a request slot,
 * and the transport vtable through which the layers above a transport reach
 * it without knowing which one it is. Types only (and two one-line helpers);
 * the functions are declared by the module that owns them.
 */
#ifndef FRING_CORE_H
#define FRING_CORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common.h"
#include "config.h"
#include "mountid.h"
#include "qstats.h"

enum req_flags {
	REQ_ASYNC = 1 << 0,   /* handler promised a later answer */
	REQ_NOREPLY = 1 << 1, /* FORGET & co: the kernel wants no answer */
};

/*
 * A request slot, as every transport has it. It owns one page-aligned
 * buffer used for the request as read from the kernel and for bulk reply
 * data (READ, READDIR), so a READ answered with fring_reply_data() is
 * written straight from where the handler put it. Slots are recycled per
 * queue; the hot path allocates nothing. A transport that keeps more per
 * slot embeds this struct first in its own (struct ring_ent, struct
 * dev_slot) and finds it again with FRING_CONTAINER_OF.
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
	/* While the handler runs, the dispatching thread (pthread_self()),
	 * else 0. An answer given on that thread inside the handler, the
	 * common case, leaves its reference to the handler's end, which
	 * drops both in one locked instruction (put_deferred), and counts
	 * itself with plain stores (send_claimed()). Atomic: another
	 * thread answering meanwhile reads it. */
	_Atomic uintptr_t handler_thread;
	bool put_deferred; /* only the dispatching thread touches it */
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
	char *mem;     /* page-aligned buffer */
	size_t memsz;  /* its size */
	char *data;    /* where bulk reply data goes (dev: mem + FRING_PAGE) */
	size_t datasz; /* room at data */
	size_t in_len; /* bytes of the request */
	/* the request's extension block (FUSE_EXT_*), or NULL; inside the
	 * request buffer, so valid until the answer */
	const char *ext;
	size_t ext_len;
	/* the queue's free list (dev), the ring thread's handoff list */
	struct fring_req *next_free;
	/* Small replies (reply.c: every answer but READ, READDIR(PLUS),
	 * GETXATTR and LISTXATTR data, IOCTL out data) are encoded here: the
	 * header and the fixed part in `out`, a name or small variable part
	 * in `small`. 288 bytes hold the largest fixed answer (statx_out,
	 * entry_out plus open_out for CREATE). */
	union {
		struct fuse_out_header oh;
		char raw[16 + 288];
	} out;
	char small[288];
};

/* A transport moves bytes; the layers above it never see fds or rings. */
struct fring_tp {
	const char *name;
	/* bytes the transport allocates per slot it makes through req_get()
	 * (its own struct with the fring_req first); 0: sizeof(fring_req) */
	size_t slot_size;
	/* Deliver an answer: iov[0] is the fuse_out_header, len filled in. */
	int (*send)(struct fring_req *req, struct iovec *iov, int cnt);
	/* Finish a request the kernel wants no answer to (may be NULL). */
	void (*noreply)(struct fring_req *req);
	/* The slot's last reference is gone (handler returned and answer
	 * sent): give the slot back. NULL: the queue's free list. */
	void (*recycle)(struct fring_req *req);
	/* Describes the data of a READ, WRITE or READDIR in req->buf: memory
	 * at mem (size bytes), or wherever the transport really holds it (a
	 * pipe, the client's pages in a fixed-buffer slot). */
	void (*set_buf)(struct fring_req *req, void *mem, size_t size);
	/* The data helpers' move (io.c checks and answers): bytes moved, a
	 * negative errno, or -EINPROGRESS when the transport answers (it has
	 * or will). NULL: pread/pwrite on the memory buffer. */
	ssize_t (*transfer)(struct fring_req *req, int fd, off_t off,
			    size_t size, bool is_write);
	/* fring_write_data_to_fd() / _copy() (io.c checked the call and
	 * the range): bytes [data_off, data_off + len) of a WRITE's data to
	 * fd at off (-1: its position) when dst is NULL, else into dst. The
	 * count moved, or a negative errno; nothing is answered. NULL: the
	 * data is memory (io_write_data_mem()). */
	ssize_t (*write_data)(struct fring_req *req, size_t data_off, int fd,
			      off_t off, void *dst, size_t len);
	/* A RELEASE is about to reach the filesystem, which may close
	 * descriptors (may be NULL). */
	void (*released)(struct fring_req *req);
	/* The transport notes each answer's latency itself, when the answer
	 * really leaves (the ring: at the submission carrying its commit,
	 * with one clock reading for all of them); false: reply.c notes it
	 * when the answer is sent. */
	bool notes_latency;
};

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
	/* ring transport (src/ring/) */
	struct ring_thread *rt; /* the owning thread */
	uint16_t qid;		/* the kernel's queue id */
	int pool_index;		/* registered pool's buffer index, or -1 */
	char *pool;		/* pool transports: the queue's pool */
	size_t pool_len;
	/* dev transport, splice_read (src/dev/splice.c): the pipe requests
	 * are spliced into, or -1; pipe_owner says who may touch a WRITE
	 * payload left in it */
	int pipe[2];
	_Atomic uintptr_t pipe_owner;
};

#define FRING_REASON_LEN 768

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
	/* the fd a mount helper mounted and handed down ("/dev/fd/N"): its
	 * mount is the helper's, never unmounted here (mount.c) */
	bool adopted;
	/* auto_unmount (session/watch.c): this end of the socket whose other
	 * end the watcher (or fusermount3) waits on, and that process; -1 */
	int watch_fd;
	pid_t watch_pid;
	struct fring_conn conn;
	bool got_init;
	bool setxattr_ext; /* 16-byte setxattr_in negotiated */
	/* open / opendir without a callback answer ENOSYS (the filesystem
	 * wanted FRING_CAP_NO_OPEN(DIR)_SUPPORT), see init.c */
	bool no_open, no_opendir;
	uint64_t splice; /* FUSE_SPLICE_* granted at INIT (dev only) */
	/* The rung and why. Chosen at INIT by the run thread; only the run
	 * thread changes them later (a ring the kernel refused falls back to
	 * dev, ladder_fell_back()). The transport is atomic because queue
	 * threads read it; the reason is published as a pointer to a buffer
	 * that is never rewritten once published (reasons[0], then [1]). */
	_Atomic enum fring_transport transport;
	_Atomic(const char *) reason;
	char reasons[2][FRING_REASON_LEN];
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
	 * thread weighs it (session/session.c, wait_for_exit) and may decline
	 * it while other mounts sit on this one (exit_declined: the value
	 * exit_asked had when it declined) */
	atomic_uint exit_asked, exit_declined;
	int ask_efd;
	/* a transport has news for the run thread (a ring failure to fall
	 * back from): written by any thread, read by the run thread only */
	int note_efd;
	bool destroyed_called;
	pthread_mutex_t lock;
	/* notify.c: INIT answered, so the kernel takes notifications */
	atomic_bool notify_ready;
	/* notify.c: retrieves awaiting their NOTIFY_REPLY (under lock) */
	_Atomic(fring_retrieve_reply_fn) retrieve_reply;
	struct retrieve_wait *retrieves;
	uint64_t retrieve_seq;
};

/*
 * Stops the queues now: the connection ended or a transport failed (not an
 * exit request, which the run thread weighs first). Async-signal-safe: an
 * atomic store and a write(2). Inline so that the transports below the
 * session layer can stop it without calling up into it.
 */
static inline void session_stop(struct fring_session *se)
{
	uint64_t one = 1;
	ssize_t n;

	atomic_store(&se->exiting, 1);
	n = write(se->exit_efd, &one, sizeof(one));
	(void)n;
}

/* The buffer the ladder writes the reason into while it decides (before
 * any queue serves), published as the session's reason. */
static inline char *session_reason_buf(struct fring_session *se)
{
	atomic_store(&se->reason, se->reasons[0]);
	return se->reasons[0];
}

/* The session's reason as published ("" before the first). */
static inline const char *session_reason(const struct fring_session *se)
{
	const char *r = atomic_load(&((struct fring_session *)se)->reason);

	return r ? r : "";
}

/* Tells the run thread a transport has news for it (session_news()). */
static inline void session_note(struct fring_session *se)
{
	uint64_t one = 1;
	ssize_t n = write(se->note_efd, &one, sizeof(one));

	(void)n;
}

#endif
