/* SPDX-License-Identifier: MIT */
/*
 * The io_uring transport's loop (FUSE_OVER_IO_URING, ABI 7.42+): one
 * io_uring (SQE128) per thread, by default one thread per kernel queue
 * pinned to that queue's CPU, each queue with `depth` entries. An entry is a
 * request slot whose header and payload the kernel fills; answering it is a
 * COMMIT_AND_FETCH that also asks for the next request. This file is the
 * loop and the transport ops; setup.c builds and ends the threads.
 *
 * Single issuer: only the owning thread touches its ring. Answers given on
 * other threads, and the commits they imply, are handed over through a list
 * and an eventfd the ring always has a read pending on.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bufmem.h"
#include "cmd.h"
#include "dispatch/dispatch.h"
#include "fault.h"
#include "fdclass.h"
#include "ring_int.h"

/* Read a few times per request (ring_recycle(), ring_io_sqe(), ...). The
 * default model for a shared library calls __tls_get_addr() on each read;
 * initial-exec is a load from the thread pointer. Its 8 bytes fit in the
 * static TLS glibc keeps spare for libraries loaded with dlopen(). */
static __thread struct ring_thread *cur_rt
	__attribute__((tls_model("initial-exec")));

/* ---------------- SQE helpers ---------------- */

struct io_uring_sqe *rt_sqe(struct ring_thread *rt)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&rt->ring);

	if (!sqe) {
		io_uring_submit(&rt->ring);
		sqe = io_uring_get_sqe(&rt->ring);
	}
	return sqe;
}

static void rt_arm_wake(struct ring_thread *rt)
{
	struct io_uring_sqe *sqe = rt_sqe(rt);

	io_uring_prep_read(sqe, rt->wake_efd, &rt->wake_buf,
			   sizeof(rt->wake_buf), 0);
	io_uring_sqe_set_data64(sqe, ud_make(rt, UD_WAKE));
}

static void rt_arm_exit(struct ring_thread *rt)
{
	struct io_uring_sqe *sqe = rt_sqe(rt);

	io_uring_prep_poll_add(sqe, rt->rs->se->exit_efd, POLLIN);
	io_uring_sqe_set_data64(sqe, ud_make(rt, UD_EXIT));
}

/* Commits an answered entry (and fetches the next request), unless fixed
 * ops still run on its zero-copy slot: committing ends the client request
 * and frees the slot for the next one. */
void ring_commit(struct ring_thread *rt, struct fring_req *req)
{
	struct io_uring_sqe *sqe;

	if (ring_ent(req)->zc_inflight && !rt_stage_link(rt, req)) {
		ring_ent(req)->commit_held = true;
		return;
	}
	ring_ent(req)->commit_held = false;
	{
		struct ring_queue *rq = ring_q(req->q);
		uint64_t t = atomic_load_explicit(&req->t_start,
						  memory_order_relaxed);

		if (!rq->commits_from || t < rq->commits_from)
			rq->commits_from = t;
	}
	/* staged in the memfd: READ_FIXED first, the commit after it */
	if (ring_ent(req)->zc_staged && !ring_ent(req)->zc_pipe_size &&
	    rt_stage(rt, req))
		return;
	if (ring_ent(req)->holds_buf) {
		struct ring_queue *rq = ring_q(req->q);

		/* the kernel frees the buffer when it sees the commit */
		ring_ent(req)->holds_buf = false;
		if (!rq->bufs_unsent++)
			rt->unsent[rt->nunsent++] = rq;
	}
	sqe = rt_sqe(rt);
	ring_prep_commit(sqe, req->q->fd, req->q->qid, ring_ent(req)->commit_id,
			 req->q->pool_index, ud_make(req, UD_ENTRY));
	rt->in_kernel++;
}

/* ---------------- the transport ops ---------------- */

/* Places the answer in the entry: header, then every output arg packed
 * from payload offset 0 (the kernel reads it from there). */
/*
 * Pieces taken from the entry's own payload in another order (a handler
 * may answer with parts of its buffer rearranged) would be overwritten by
 * the moves of the pieces before them: true when a piece not already in
 * place lies in the payload area the answer fills.
 */
static bool pieces_tangled(const struct fring_req *req, const struct iovec *iov,
			   int cnt, size_t total)
{
	const char *lo, *hi;
	size_t off = 0;

	/* no payload area (a zero-copy READ's entry), or nothing to place */
	if (!req->data || !total)
		return false;
	lo = req->data;
	hi = req->data + total;
	for (int i = 1; i < cnt; i++) {
		const char *p = iov[i].iov_base;

		if (p != req->data + off && iov[i].iov_len && p < hi &&
		    p + iov[i].iov_len > lo)
			return true;
		off += iov[i].iov_len;
	}
	return false;
}

/* The tangled pieces gathered aside, then into the payload: 0, or -ENOMEM. */
static int gather_aside(struct fring_req *req, const struct iovec *iov, int cnt,
			size_t total)
{
	char *tmp = malloc(total), *p = tmp;

	if (!tmp)
		return -ENOMEM;
	for (int i = 1; i < cnt; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	memcpy(req->data, tmp, total);
	free(tmp);
	return 0;
}

static int ring_send(struct fring_req *req, struct iovec *iov, int cnt)
{
	struct fuse_out_header *oh = (void *)ring_ent(req)->hdr.in_out;
	size_t off = 0, total = 0;

	if (ring_ent(req)->zc != ZC_NONE)
		return ring_send_zc(req, iov, cnt);
	for (int i = 1; i < cnt; i++)
		total += iov[i].iov_len;
	if (total <= req->datasz && pieces_tangled(req, iov, cnt, total)) {
		if (gather_aside(req, iov, cnt, total)) {
			fr_err("q%u: out of memory for an answer's pieces",
			       req->q->idx);
			memcpy(oh, iov[0].iov_base, sizeof(*oh));
			oh->error = -EIO;
			oh->len = sizeof(*oh);
			ring_ent(req)->hdr.ring_ent_in_out.payload_sz = 0;
			return -ENOMEM;
		}
		memcpy(oh, iov[0].iov_base, sizeof(*oh));
		ring_ent(req)->hdr.ring_ent_in_out.payload_sz = (uint32_t)total;
		return 0;
	}
	for (int i = 1; i < cnt; i++) {
		if (off + iov[i].iov_len > req->datasz) {
			/* reply.c limits data to what was asked; this is a
			 * last line of defence */
			fr_err("q%u: answer larger than the ring payload",
			       req->q->idx);
			memcpy(oh, iov[0].iov_base, sizeof(*oh));
			oh->error = -EIO;
			oh->len = sizeof(*oh);
			ring_ent(req)->hdr.ring_ent_in_out.payload_sz = 0;
			return -EOVERFLOW;
		}
		if (iov[i].iov_base != req->data + off)
			memmove(req->data + off, iov[i].iov_base,
				iov[i].iov_len);
		off += iov[i].iov_len;
	}
	memcpy(oh, iov[0].iov_base, sizeof(*oh));
	ring_ent(req)->hdr.ring_ent_in_out.payload_sz = (uint32_t)off;
	return 0;
}

/* FORGET through the ring (READDIRPLUS's forced forget) and NOTIFY_REPLY
 * must still be committed, with an empty answer. */
static void ring_noreply(struct fring_req *req)
{
	struct fuse_out_header *oh = (void *)ring_ent(req)->hdr.in_out;

	oh->len = sizeof(*oh);
	oh->error = 0;
	oh->unique = ring_ent(req)->commit_id;
	ring_ent(req)->hdr.ring_ent_in_out.payload_sz = 0;
}

/* Handler done and answer written: commit, on the owning thread. */
static void ring_recycle(struct fring_req *req)
{
	struct ring_thread *rt = req->q->rt;

	if (cur_rt == rt) {
		if (!rt_stopping(rt))
			ring_commit(rt, req);
		return;
	}
	pthread_mutex_lock(&rt->lock);
	if (rt->state != RT_RETIRED) {
		req->next_free = rt->handoff;
		rt->handoff = req;
	}
	pthread_mutex_unlock(&rt->lock);
	ring_thread_wake(rt);
}

/* The data of a READ, WRITE or READDIR: the client's own pages in the
 * entry's zero-copy slot, addressed from 0; or memory, which in a
 * registered pool fixed ops can use by the pool's buffer index. */
static void ring_set_buf(struct fring_req *req, void *mem, size_t size)
{
	const struct fring_queue *q = req->q;

	(void)size;
	if (ring_ent(req)->zc != ZC_NONE) {
		req->buf.kind = FRING_BUF_FIXED;
		req->buf.mem = NULL;
		req->buf.buf_index = ring_ent(req)->zc_slot;
		req->buf.buf_addr = 0;
		return;
	}
	if (q->pool && q->pool_index >= 0 && (char *)mem >= q->pool &&
	    (char *)mem < q->pool + q->pool_len)
		req->buf.buf_index = q->pool_index;
}

/* A RELEASE may close descriptors whose class this thread remembers. */
static void ring_released(struct fring_req *req)
{
	(void)req;
	fd_class_forget_all();
}

const struct fring_tp fring_tp_ring = {
	.name = "uring",
	.slot_size = sizeof(struct ring_ent),
	.send = ring_send,
	.noreply = ring_noreply,
	.recycle = ring_recycle,
	.set_buf = ring_set_buf,
	.transfer = ring_transfer,
	.write_data = ring_write_data,
	.released = ring_released,
	.notes_latency = true,
};

void ring_thread_wake(struct ring_thread *rt)
{
	uint64_t one = 1;
	ssize_t n = write(rt->wake_efd, &one, sizeof(one));

	(void)n;
}

/* ---------------- completions ---------------- */

static void rt_drain_handoff(struct ring_thread *rt)
{
	struct fring_req *list;
	struct ring_io *ios;

	pthread_mutex_lock(&rt->lock);
	list = rt->handoff;
	rt->handoff = NULL;
	ios = rt->io_handoff;
	rt->io_handoff = NULL;
	pthread_mutex_unlock(&rt->lock);
	/* started after the whole batch of completions: one of them may
	 * say the connection is gone (rt_zc_dead) */
	while (ios) {
		struct ring_io *io = ios;

		ios = io->next;
		io->next = rt->io_pending;
		rt->io_pending = io;
	}
	while (list) {
		struct fring_req *req = list;

		list = req->next_free;
		if (!rt_stopping(rt))
			ring_commit(rt, req);
	}
}

/*
 * A request on a pool queue that may hold one of its buffers until it is
 * committed: any but a zero-copied READ. The kernel gives a buffer to
 * every request with arguments to copy either way
 * (fuse_uring_req_has_copyable_payload()): nearly all of them, since an
 * answer's arguments count (a zero-copied WRITE's write_out too); the
 * exceptions (RELEASE, FLUSH, ...) are counted as well. A buffer is free
 * again when the kernel takes the commit, at the next submission
 * (rt_submit_wait()). When such requests hold every buffer while the queue
 * has more entries, the next one with a payload waits in the kernel for a
 * buffer although an entry is free (fuse_uring_queue_fuse_req()):
 * pool_waits counts those moments, an upper bound of the waits, which the
 * kernel does not report.
 */
static void pool_note(struct fring_req *req)
{
	struct ring_queue *rq = ring_q(req->q);

	if (ring_ent(req)->zc == ZC_READ)
		return;
	ring_ent(req)->holds_buf = true;
	if (++rq->bufs_held >= rq->nbufs && req->q->nslots > rq->nbufs)
		stat_add(req->q, pool_waits, 1);
}

void rt_entry_request(struct ring_thread *rt, struct fring_req *req)
{
	struct fuse_uring_req_header *h = &ring_ent(req)->hdr;
	const struct fuse_in_header *ih = (const void *)h->in_out;
	uint32_t psz = h->ring_ent_in_out.payload_sz;
	size_t ext = (size_t)ih->total_extlen * 8;
	struct fring_msg m;

	ring_ent(req)->commit_id = h->ring_ent_in_out.commit_id;
	req->in_len = ih->len;
	ring_ent(req)->zc = ZC_NONE;
	ring_ent(req)->zc_moved = 0;
	ring_ent(req)->zc_staged = 0;
	ring_ent(req)->zc_pipe_size = 0;
	ring_ent(req)->commit_held = false;
	if ((h->ring_ent_in_out.flags & FUSE_URING_ENT_ZERO_COPY) &&
	    !rt_zc_request(rt, req, &psz))
		return;
	if (ring_ent(req)->zc == ZC_READ) {
		/* no pool buffer (offset 0 would name another entry's); the
		 * size bounds what the pages may hold. Nor any payload: the
		 * kernel sends payload_sz 0 (doc/kernel-protocol.md,
		 * "Zero-copy"), and framing one at data NULL would be pointer
		 * arithmetic on NULL (UBSan in fuzz_decode: total_extlen set).
		 */
		req->data = NULL;
		req->datasz = rt->rs->payload_sz;
		if (psz) {
			fring_reject(req, ih, "zero-copy READ with a payload");
			return;
		}
	} else if (req->q->pool) {
		req->datasz = rt->rs->payload_sz;
		req->data = ring_pool_buf(req->q, req->datasz,
					  h->ring_ent_in_out.offset);
		if (!req->data) {
			req->datasz = 0;
			fring_reject(req, ih, "pool offset outside the pool");
			return;
		}
		if (psz)
			stat_add_own(req->q, pool_requests, 1);
		pool_note(req);
	}
	if (psz > req->datasz || ext > psz) {
		fring_reject(req, ih, "payload size out of range");
		return;
	}
	memset(&m, 0, sizeof(m));
	m.ih = ih;
	m.op_in = h->op_in;
	m.data_oob = ring_ent(req)->zc == ZC_WRITE;
	m.p = req->data;
	m.left = psz - ext;
	m.t_start = rt->round_ns;
	if (ext) {
		m.ext = req->data + m.left;
		m.ext_len = ext;
	}
	fring_dispatch(req, &m);
}

static void rt_entry_cqe(struct ring_thread *rt, struct fring_req *req, int res)
{
	struct fring_session *se = rt->rs->se;

	rt->in_kernel--;
	if (rt_stage_cancelled(rt, req, res))
		return;
	if (res == 0) {
		if (rt_stopping(rt)) {
			/* nobody will answer: the session is going away */
			return;
		}
		rt_entry_request(rt, req);
		return;
	}
	rt->dead_entries++;
	rt_zc_dead(rt);
	switch (-res) {
	case ENOTCONN:
	case ECONNABORTED:
	case ECANCELED:
		/* unmount, abort or our own teardown */
		if (!rt_stopping(rt) && !atomic_load(&se->exiting))
			session_stop(se);
		break;
	default:
		fr_err("q%u: ring command failed: %s%s", req->q->idx,
		       strerror(-res),
		       rt->state >= RT_SERVING
			       ? ""
			       : " (REGISTER refused: the kernel serves "
				 "this connection through /dev/fuse)");
		ring_note_failure(rt->rs, -res);
		break;
	}
}

void rt_cqe(struct ring_thread *rt, struct io_uring_cqe *cqe)
{
	uint64_t ud = cqe->user_data;

	switch (ud & UD_MASK) {
	case UD_ENTRY:
		rt_entry_cqe(rt, ud_ptr(ud), cqe->res);
		break;
	case UD_IO:
		ring_io_complete(rt, ud_ptr(ud), cqe->res);
		break;
	case UD_WAKE:
		rt_drain_handoff(rt);
		if (!rt_stopping(rt))
			rt_arm_wake(rt);
		break;
	case UD_EXIT:
		/* before STOPPING: rt_zc_dead() asks whether it served */
		rt_zc_dead(rt);
		rt_set_state(rt, RT_STOPPING);
		break;
	case UD_STAGE:
		rt_stage_done(rt, ud_ptr(ud), cqe->res);
		break;
	case UD_SETUP:
		if (ud_ptr(ud) == rt)
			break; /* the forced fallback REGISTER */
		if (rt->setup_left)
			rt->setup_left--;
		if (cqe->res < 0 && !rt->setup_res)
			rt->setup_res = cqe->res;
		break;
	}
}

/* The answers about to be submitted leave now: one clock reading ends the
 * latency of all of them, the largest per queue being the earliest start. */
static void rt_note_latency(struct ring_thread *rt)
{
	uint64_t now = 0;

	for (unsigned i = 0; i < rt->nq; i++) {
		struct ring_queue *rq = ring_q(rt->qs[i]);

		if (!rq->commits_from)
			continue;
		if (!now)
			now = fring_now_ns();
		if (now > rq->commits_from)
			stats_note_latency(&rt->qs[i]->stats,
					   now - rq->commits_from);
		rq->commits_from = 0;
	}
}

/* Submits and waits for wait_nr completions. A failure leaves the SQEs
 * queued (liburing advanced the tail the kernel did not read): the next
 * call submits them again. */
static int rt_submit(struct ring_thread *rt, unsigned wait_nr)
{
	int ret = fault_hit(FAULT_RING_SUBMIT);

	rt_note_latency(rt);

	kernel_order();
	if (!ret)
		ret = io_uring_submit_and_wait(&rt->ring, wait_nr);
	kernel_order();
	if (ret >= 0) {
		/* the commits went in: their pool buffers are free */
		while (rt->nunsent) {
			struct ring_queue *rq = rt->unsent[--rt->nunsent];

			rq->bufs_held -= rq->bufs_unsent;
			rq->bufs_unsent = 0;
		}
	}
	return ret;
}

int rt_submit_wait(struct ring_thread *rt)
{
	return rt_submit(rt, 1);
}

/*
 * A ring thread met a ring command the kernel refused: the kernel now
 * serves the connection through /dev/fuse. The thread only records it and
 * tells the run thread, which rewrites the session's transport and reason
 * (ring_take_failure()): queue threads read those while they serve.
 */
void ring_note_failure(struct ring_state *rs, int err)
{
	bool first;

	pthread_mutex_lock(&rs->lock);
	first = !rs->failed_err;
	if (first)
		rs->failed_err = err;
	pthread_mutex_unlock(&rs->lock);
	if (first)
		session_note(rs->se);
}

/*
 * One round of every loop on a ring: submit what is queued, wait for a
 * completion (unless a synchronous op left some in the stash), handle
 * every completion there is (after one clock reading, the start of the
 * requests among them). Each is taken off the ring before it is
 * handled: a handler waiting for a synchronous op (sync.c) takes the
 * ones after it, which the stash keeps for this loop, in order. 0, or
 * the io_uring_enter error nothing can go on after.
 */
int rt_reap(struct ring_thread *rt)
{
	struct io_uring_cqe cqe;
	int ret = rt_submit(rt, rt->stash_len ? 0 : 1);

	if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
		return ret;
	/* One clock reading starts the latency of every request this round
	 * takes: it counts the time one waits behind the others handled
	 * before it, and spares a reading per request. */
	rt->round_ns = fring_now_ns();
	while (rt_cq_take(rt, &cqe))
		rt_cqe(rt, &cqe);
	return 0;
}

static void rt_loop(struct ring_thread *rt)
{
	while (!rt_stopping(rt)) {
		int ret = rt_reap(rt);

		if (ret) {
			fr_err("ring thread %u: io_uring_enter: %s; ending the "
			       "session",
			       rt->idx, strerror(-ret));
			atomic_store(&rt->rs->fatal_err, ret);
			session_stop(rt->rs->se);
			break;
		}
		if (rt->io_pending) {
			struct ring_io *ios = rt->io_pending;

			rt->io_pending = NULL;
			ring_io_start_handed(rt, ios);
		}
		if (rt->dead_entries && rt->dead_entries == rt->total_entries &&
		    !rt_stopping(rt)) {
			/* every entry is gone: nothing more can arrive */
			break;
		}
	}
}

/*
 * REGISTER every entry (after the pools on the pool rungs): from each
 * completion on, an entry carries requests. A thread whose pools cannot be
 * set up (or whose REGISTER the fault point ring_register refuses) registers
 * nothing: it has the kernel turn io_uring off for the connection, which
 * /dev/fuse then serves, and tells the run thread.
 */
static void rt_register_all(struct ring_thread *rt)
{
	const char *what = "setting up the buffer pools";
	int err = 0;

	if (rt->rs->pool != POOL_NONE)
		err = rt_add_pools(rt);
	if (!err) {
		what = "registering the ring entries";
		err = fault_hit(FAULT_RING_REGISTER);
	}
	if (err) {
		fr_err("ring thread %u: %s failed: %s; serving through "
		       "/dev/fuse",
		       rt->idx, what, strerror(-err));
		ring_note_failure(rt->rs, -err);
		rt_force_fallback(rt);
		rt->total_entries = 0;
		return;
	}
	for (unsigned i = 0; i < rt->nq; i++) {
		struct fring_queue *q = rt->qs[i];

		for (unsigned e = 0; e < q->nslots; e++) {
			struct fring_req *req = q->slots[e];
			struct io_uring_sqe *sqe = rt_sqe(rt);

			ring_prep_register(
				sqe, q->fd, q->qid, ring_ent(req)->reg_iov,
				q->pool_index,
				rt->rs->zero_copy ? ring_ent(req)->zc_slot : 0,
				ud_make(req, UD_ENTRY));
			rt->in_kernel++;
			stat_add(q, ring_entries, 1);
		}
	}
	rt_set_state(rt, RT_SERVING);
}

/* The thread serves: entries registered, then the loop until the session
 * stops or every entry is gone. */
void rt_serve(struct ring_thread *rt)
{
	cur_rt = rt;
	rt_arm_exit(rt);
	rt_arm_wake(rt);
	rt_register_all(rt);
	rt_loop(rt);
}

/* The thread no longer commits: helpers handed over too late are answered,
 * so nothing stays in flight (the answers go nowhere). */
void rt_retire(struct ring_thread *rt)
{
	struct ring_io *ios;

	pthread_mutex_lock(&rt->lock);
	rt->state = RT_RETIRED;
	ios = rt->io_handoff;
	rt->io_handoff = NULL;
	pthread_mutex_unlock(&rt->lock);
	for (int pass = 0; pass < 2; pass++) {
		while (ios) {
			struct ring_io *io = ios;

			ios = io->next;
			if (io->sync_op) {
				ring_sync_done(rt, io, -ESHUTDOWN);
				continue;
			}
			reply_errno(io->req, ESHUTDOWN);
			free(io);
		}
		ios = rt->io_pending;
		rt->io_pending = NULL;
	}
	ring_sync_retire(rt);
	cur_rt = NULL;
}

bool ring_on_thread_of(const struct fring_req *req)
{
	return cur_rt && cur_rt == req->q->rt;
}

bool ring_on_a_ring_thread(void)
{
	return cur_rt != NULL;
}

struct io_uring_sqe *ring_io_sqe(struct fring_req *req)
{
	if (!ring_on_thread_of(req) || rt_stopping(cur_rt))
		return NULL;
	/* a zero-copy slot may point at pages a gone client got back */
	if (ring_ent(req)->zc != ZC_NONE &&
	    (cur_rt->zc_dead || atomic_load(&req->se->exiting)))
		return NULL;
	return rt_sqe(cur_rt);
}

void ring_io_arm(struct ring_io *io, struct io_uring_sqe *sqe)
{
	io_uring_sqe_set_data64(sqe, ud_make(io, UD_IO));
}
