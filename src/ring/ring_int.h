/* SPDX-License-Identifier: MIT */
/*
 * The io_uring transport's private state, shared by the files of src/ring/:
 * queue.c (the loop: entries, completions, commits), setup.c (thread life,
 * the main thread's side), io.c (handler I/O and the data helpers), pool.c
 * (buffer pools), zc.c (zero-copy), sync.c (synchronous fixed ops).
 */
#ifndef FRING_RING_INT_H
#define FRING_RING_INT_H

#include "fdclass.h"
#include "opname.h"
#include "reply.h"
#include "req.h"
#include "ring.h"

/*
 * A ring entry: the generic request slot plus what the ring keeps per
 * entry. The dispatcher and the reply encoder see only `req`; the ring gets
 * its entry back with ring_ent(). `req` is first, so freeing the slot frees
 * the entry (req.c's queue_free_slots()).
 */
struct ring_ent {
	struct fring_req req;
	/* the entry's header buffer, as the kernel sees it */
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
	bool holds_buf;	  /* may hold a pool buffer until committed */
	unsigned zc_inflight;
	uint32_t zc_size; /* bytes in (WRITE) or asked for (READ) */
	uint32_t zc_moved;
	uint32_t zc_staged; /* READ answered from memory: bytes to stage */
	/* ... they are in the thread's pipe (pipe.c), which reserved this
	 * much for them, and the READ_FIXED taking them is queued (0: none) */
	uint32_t zc_pipe_size;
	bool commit_linked; /* the commit is linked after that READ_FIXED */
};
_Static_assert(offsetof(struct ring_ent, req) == 0,
	       "freeing the slot frees the entry");

static inline struct ring_ent *ring_ent(struct fring_req *req)
{
	return FRING_CONTAINER_OF(req, struct ring_ent, req);
}

static inline const struct ring_ent *ring_ent_c(const struct fring_req *req)
{
	return FRING_CONTAINER_OF(req, const struct ring_ent, req);
}

enum ring_phase {
	RING_SETUP,   /* threads built their rings; INIT not answered yet */
	RING_GO,      /* INIT answered with FUSE_OVER_IO_URING: register */
	RING_ABANDON, /* the ring is not used: threads just exit */
};

/*
 * A ring thread's life, in order. Only the thread moves its own state, and
 * only forward; it may skip states: a setup that failed retires from NEW
 * or READY, a ring not used after INIT (or whose pools the kernel refused)
 * never reaches SERVING, and the session may end while the pools are being
 * added (READY -> STOPPING).
 */
enum rt_state {
	RT_NEW,	     /* nothing built yet (the thread may not run yet) */
	RT_READY,    /* ring, entries and pools built: waiting for INIT */
	RT_SERVING,  /* entries REGISTERed: the kernel fills them, we commit */
	RT_STOPPING, /* the session's exit seen: nothing more is committed */
	RT_RETIRED,  /* out of its loop: answers handed over now go nowhere */
};

struct ring_thread {
	struct ring_state *rs;
	unsigned idx;
	pthread_t th;
	/* how its in-place transfers move data, by descriptor (fdclass.c);
	 * only the thread itself reads and writes it */
	struct fd_class_cache fdclass;
	/* Written only by the thread, under lock (other threads read it
	 * there: a handoff to a RETIRED thread is dropped); the thread itself
	 * reads it without the lock. rt_set_state() moves it. */
	enum rt_state state;
	/*
	 * Kept apart from state, because they are not stages of the life:
	 * - joinable: pthread_create() succeeded and the thread awaits its
	 *   pthread_join(). The main thread's record (set after the create,
	 *   while the thread already moves its state), read by it alone.
	 * - ring_built: the io_uring exists. It outlives the thread:
	 *   ring_free() closes it after the join (closing cancels the entries
	 *   the kernel still holds), whatever state the thread retired from,
	 *   and a thread whose setup failed may retire with or without one.
	 * - zc_dead (below): a fact about the connection, not the thread.
	 * - setup_err, setup_left, setup_res: results of setup steps.
	 */
	bool joinable;
	bool ring_built;
	int setup_err;
	struct io_uring ring;
	struct fring_queue **qs; /* the kernel queues this thread serves */
	unsigned nq;
	/* pool queues with commits not yet submitted (bufs_unsent) */
	struct ring_queue **unsent;
	unsigned nunsent;
	unsigned total_entries;
	unsigned dead_entries;
	unsigned in_kernel;
	uint64_t round_ns;   /* when this loop round began (rt_reap()) */
	unsigned setup_left; /* ADD_* completions still awaited */
	int setup_res;	     /* their first error */
	int wake_efd;
	uint64_t wake_buf;
	pthread_mutex_t lock;	    /* handoff, state */
	struct fring_req *handoff;  /* answered elsewhere, to commit here */
	struct ring_io *io_handoff; /* zero-copy helpers started elsewhere */
	struct ring_io *io_pending; /* ... taken over, to start */
	/* zero-copy: in-memory READ answers are staged in this memfd (at
	 * slot * payload_sz) and READ_FIXED into the client's pages */
	int stage_fd;
	/* zerocopy: small transfers on in-memory files and staged answers go
	 * through this pipe (pipe.c): bytes reserved in it for ops in flight
	 * out of pipe_room, how many ops, and whether one moved an unexpected
	 * length (then none starts until all are back and it is emptied) */
	int pipe_fd[2];
	size_t pipe_room, pipe_used;
	unsigned pipe_inflight;
	bool pipe_broken;
	/* the last pipe READ_FIXED of a READ queued: its commit may be
	 * linked after it while it is the last SQE (zc.c rt_stage_link) */
	struct io_uring_sqe *link_sqe;
	/* zero-copy: the connection is gone; the kernel may keep slots
	 * pointing at aborted requests' pages, so no fixed op may touch them
	 * any more (doc/kernel-protocol.md, "Zero-copy") */
	bool zc_dead;
	struct ring_io *io_free;
	/* completions a synchronous op took off the CQ ring while it waited
	 * inside a handler (sync.c): the loop handles them, oldest first,
	 * before the ring's own */
	struct ring_cqe *stash;
	unsigned stash_head, stash_len, stash_cap;
	/* synchronous ops handed over by other threads, in flight */
	struct ring_io *sync_live;
};

/* A completion taken off the CQ ring: what rt_cqe() reads of it. */
struct ring_cqe {
	uint64_t user_data;
	int32_t res;
	uint32_t flags;
};

/* The thread moves its own state (see enum rt_state). */
static inline void rt_set_state(struct ring_thread *rt, enum rt_state state)
{
	pthread_mutex_lock(&rt->lock);
	rt->state = state;
	pthread_mutex_unlock(&rt->lock);
}

/* On the thread itself: the session's exit was seen (or the thread is
 * done), so nothing more is committed. */
static inline bool rt_stopping(const struct ring_thread *rt)
{
	return rt->state >= RT_STOPPING;
}

enum pool_mode {
	POOL_NONE,	 /* per-entry payload buffers (7.42+) */
	POOL_PLAIN,	 /* one pool per queue (7.46) */
	POOL_REGISTERED, /* the pool is also an io_uring fixed buffer */
};

/* What the ring keeps per kernel queue (ring_state.rq, by qid). */
struct ring_queue {
	/* its CPU was online at the start: its memory is faulted in then
	 * (ring.h) */
	bool online;
	/* pool queues (the queue's thread only): the pool's buffers; how
	 * many requests may hold one, as the kernel sees it: from their
	 * arrival until their commit is submitted; of those, how many have
	 * their commit written but not submitted (pool_note()) */
	unsigned nbufs;
	unsigned bufs_held;
	unsigned bufs_unsent;
	/* the earliest start (t_start) of the requests whose commits wait
	 * for the next submission, 0 if none: their latency ends there
	 * (rt_note_latency()) */
	uint64_t commits_from;
};

struct ring_state {
	struct fring_session *se;
	struct ring_queue *rq; /* [se->nqueues] */
	enum pool_mode pool;
	bool zero_copy;	    /* registered pools plus client pages in slots */
	unsigned pool_bufs; /* buffers per pool of an online CPU's queue */
	struct ring_thread *threads;
	unsigned nthreads;
	unsigned depth;
	size_t payload_sz;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned nready;
	enum ring_phase phase;
	/* the first ring command the kernel refused (ring_note_failure()),
	 * and whether the run thread took it yet (ring_take_failure()) */
	int failed_err;
	bool failure_taken;
	/* an io_uring_enter error that ended the session: its exit status */
	_Atomic int fatal_err;
};

static inline struct ring_queue *ring_q(const struct fring_queue *q)
{
	return &q->rt->rs->rq[q->qid];
}

/* A handler's own I/O on the ring, completed on the queue thread. */
struct ring_io {
	struct fring_req *req;
	fring_io_cb cb;
	void *data;
	/* the data helpers' state: resubmitted until done */
	int fd;
	off_t off;
	size_t size, done;
	bool is_write;
	/* a fixed op on the request's zero-copy slot, at slot offset zc_addr */
	bool zc_track;
	uint64_t zc_addr;
	/* a synchronous op (sync.c): its completion goes to its waiter, or
	 * nowhere once sync is NULL (the waiter gave up) */
	bool sync_op;
	struct ring_sync *sync;
	/* zero-copy through the thread's pipe (pipe.c): may it; the op in
	 * flight through it reserved pipe_size bytes (0: none) and must move
	 * pipe_len */
	bool pipe_ok;
	size_t pipe_size, pipe_len;
	struct ring_io *next;
};

/* What a CQE's user_data points at, in its low bits (objects are 8-aligned). */
enum ud_tag {
	UD_ENTRY = 0, /* a fring_req: REGISTER or COMMIT_AND_FETCH */
	UD_IO = 1,    /* a ring_io: backing I/O issued by a handler */
	UD_WAKE = 2,  /* the wake-up eventfd read */
	UD_EXIT = 3,  /* the poll on the session's exit eventfd */
	UD_SETUP = 4, /* ADD_QUEUE / ADD_BUFPOOL of a queue */
	UD_STAGE = 5, /* a fring_req: staged READ data into its zc slot */
	UD_MASK = 7,
};

static inline uint64_t ud_make(void *p, enum ud_tag tag)
{
	return (uint64_t)(uintptr_t)p | tag;
}

static inline void *ud_ptr(uint64_t ud)
{
	return (void *)(uintptr_t)(ud & ~(uint64_t)UD_MASK);
}

/* queue.c: the loop */
FRING_HIDDEN extern const struct fring_tp fring_tp_ring;
/* An entry the kernel filled (header in its hdr): frames and dispatches
 * it. Hidden rather than static so the fuzzer can drive it. */
FRING_HIDDEN void rt_entry_request(struct ring_thread *rt,
				   struct fring_req *req);
FRING_HIDDEN void rt_serve(struct ring_thread *rt);
FRING_HIDDEN void ring_note_failure(struct ring_state *rs, int err);
FRING_HIDDEN void rt_retire(struct ring_thread *rt);
FRING_HIDDEN int rt_reap(struct ring_thread *rt);
FRING_HIDDEN struct io_uring_sqe *rt_sqe(struct ring_thread *rt);
FRING_HIDDEN void rt_cqe(struct ring_thread *rt, struct io_uring_cqe *cqe);
FRING_HIDDEN int rt_submit_wait(struct ring_thread *rt);
FRING_HIDDEN void ring_commit(struct ring_thread *rt, struct fring_req *req);
FRING_HIDDEN void ring_thread_wake(struct ring_thread *rt);
FRING_HIDDEN bool ring_on_thread_of(const struct fring_req *req);
FRING_HIDDEN bool ring_on_a_ring_thread(void);
FRING_HIDDEN struct io_uring_sqe *ring_io_sqe(struct fring_req *req);
FRING_HIDDEN void ring_io_arm(struct ring_io *io, struct io_uring_sqe *sqe);

/* io.c */
/* A zeroed ring_io from the thread's free list (io_free), or NULL; back
 * onto it. On the queue thread only: the list has no lock. */
FRING_HIDDEN struct ring_io *ring_io_get(struct ring_thread *rt);
FRING_HIDDEN void ring_io_put(struct ring_thread *rt, struct ring_io *io);
FRING_HIDDEN void ring_io_free_all(struct ring_thread *rt);
/* done: bytes of the transfer already moved (by the caller, in place).
 * 0: started; 1: nothing to move (end of file); -EAGAIN: the ring cannot
 * take it; another -errno: it failed */
FRING_HIDDEN int ring_helper_start(struct fring_req *req, int fd, off_t off,
				   size_t size, size_t done, bool is_write);
FRING_HIDDEN void ring_io_complete(struct ring_thread *rt, struct ring_io *io,
				   int res);
FRING_HIDDEN int ring_helper_handoff(struct fring_req *req, int fd, off_t off,
				     size_t size, bool is_write);
/* io on the thread's handoff list, the thread woken: 0, or -ESHUTDOWN
 * once it retired (io is then the caller's) */
FRING_HIDDEN int ring_io_hand(struct ring_thread *rt, struct ring_io *io);
FRING_HIDDEN void ring_io_start_handed(struct ring_thread *rt,
				       struct ring_io *list);
FRING_HIDDEN ssize_t ring_transfer(struct fring_req *req, int fd, off_t off,
				   size_t size, bool is_write);

/* sync.c: synchronous fixed ops (fring_write_data_*() on zero-copy) */
/* The next completion to handle, the stash's before the ring's: false
 * when there is none. Taken off the ring before it is handled, so a
 * handler may wait on the ring. */
FRING_HIDDEN bool rt_cq_take(struct ring_thread *rt, struct io_uring_cqe *out);
FRING_HIDDEN void rt_stash_free(struct ring_thread *rt);
FRING_HIDDEN ssize_t ring_write_data(struct fring_req *req, size_t data_off,
				     int fd, off_t off, void *dst, size_t len);
/* a handed-over synchronous op, on the queue thread: start it */
FRING_HIDDEN void ring_sync_start(struct ring_thread *rt, struct ring_io *io);
/* its completion (res), or its end unstarted, on the queue thread: tells
 * the waiter, puts io on the thread's free list */
FRING_HIDDEN void ring_sync_done(struct ring_thread *rt, struct ring_io *io,
				 int res);
/* the thread retires: every started op's waiter gets -ESHUTDOWN */
FRING_HIDDEN void ring_sync_retire(struct ring_thread *rt);

/* zc.c */
FRING_HIDDEN bool rt_zc_request(struct ring_thread *rt, struct fring_req *req,
				uint32_t *psz);
FRING_HIDDEN int ring_send_zc(struct fring_req *req, struct iovec *iov,
			      int cnt);
FRING_HIDDEN bool rt_stage(struct ring_thread *rt, struct fring_req *req);
FRING_HIDDEN void rt_stage_done(struct ring_thread *rt, struct fring_req *req,
				int res);
/* A READ of size bytes of fd at off on a file in memory, on the owning
 * thread: spliced into the pipe and queued for the client's pages; the
 * bytes to answer with now (0: the end of the file), -EAGAIN when it
 * cannot (the data helper then), or -errno */
FRING_HIDDEN ssize_t ring_read_piped(struct fring_req *req, int fd, off_t off,
				     size_t size);
FRING_HIDDEN bool rt_stage_link(struct ring_thread *rt, struct fring_req *req);
/* The entry's CQE: true when it was a linked commit the kernel cancelled
 * (sent again) */
FRING_HIDDEN bool rt_stage_cancelled(struct ring_thread *rt,
				     struct fring_req *req, int res);
FRING_HIDDEN void rt_zc_dead(struct ring_thread *rt);
FRING_HIDDEN int rt_zc_table(struct ring_thread *rt, const struct iovec *pools);

/* pipe.c */
FRING_HIDDEN int rt_pipe_open(struct ring_thread *rt);
FRING_HIDDEN void rt_pipe_close(struct ring_thread *rt);
/* Reserves room for an op of size bytes: false when the pipe cannot take
 * it (none, too large, full, out of step) */
FRING_HIDDEN bool rt_pipe_take(struct ring_thread *rt, size_t size);
/* The op of size bytes is back; in_step: it moved exactly its length */
FRING_HIDDEN void rt_pipe_give(struct ring_thread *rt, size_t size,
			       bool in_step);
/* n bytes in the pipe of an op of size bytes that was not queued */
FRING_HIDDEN void rt_pipe_discard(struct ring_thread *rt, size_t size,
				  size_t n);
/* Reserves and splices up to size bytes of fd at off into the pipe: the
 * bytes, 0 at the end of the file, -EAGAIN when the pipe cannot (nothing
 * reserved then), or -errno */
FRING_HIDDEN ssize_t rt_pipe_fill(struct ring_thread *rt, int fd, off_t off,
				  size_t size);
/* The same for an answer's pieces: size bytes, or -EAGAIN */
FRING_HIDDEN ssize_t rt_pipe_fill_iov(struct ring_thread *rt,
				      const struct iovec *iov, int cnt,
				      size_t size);
/* A WRITE_FIXED of size bytes into the pipe completed with res: splices
 * them into fd at off. The bytes the file took, -errno, or -EAGAIN when
 * the op did not move its length (the data must move without the pipe) */
FRING_HIDDEN ssize_t rt_pipe_empty_to(struct ring_thread *rt, int fd, off_t off,
				      size_t size, int res);

/* pool.c */
FRING_HIDDEN char *ring_pool_buf(const struct fring_queue *q, size_t bsz,
				 uint32_t off);
FRING_HIDDEN int rt_alloc_pool(struct ring_thread *rt, struct fring_queue *q);
FRING_HIDDEN int rt_register_pools(struct ring_thread *rt);
FRING_HIDDEN int rt_add_pools(struct ring_thread *rt);
FRING_HIDDEN void rt_force_fallback(struct ring_thread *rt);

#endif
