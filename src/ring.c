/* SPDX-License-Identifier: MIT */
/*
 * The io_uring transport (FUSE_OVER_IO_URING, ABI 7.42+): one io_uring
 * (SQE128) per thread, by default one thread per kernel queue pinned to that
 * queue's CPU, each queue with `depth` entries. An entry is a request slot
 * whose header and payload the kernel fills; answering it is a
 * COMMIT_AND_FETCH that also asks for the next request.
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

#include "fring_int.h"
#include "fault.h"
#include "ring.h"
#include "ring_cmd.h"

static __thread struct ring_thread *cur_rt;

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

	if (req->zc_inflight) {
		req->commit_held = true;
		return;
	}
	req->commit_held = false;
	if (req->zc_staged && rt_stage(rt, req))
		return;
	sqe = rt_sqe(rt);
	ring_prep_commit(sqe, req->q->fd, req->q->qid, req->commit_id,
			 req->q->pool_index, ud_make(req, UD_ENTRY));
	rt->in_kernel++;
}

/* ---------------- the transport ops ---------------- */

/* Places the answer in the entry: header, then every output arg packed
 * from payload offset 0 (the kernel reads it from there). */
static int ring_send(struct fring_req *req, struct iovec *iov, int cnt)
{
	struct fuse_out_header *oh = (void *)req->hdr.in_out;
	size_t off = 0;

	if (req->zc != ZC_NONE)
		return ring_send_zc(req, iov, cnt);
	for (int i = 1; i < cnt; i++) {
		if (off + iov[i].iov_len > req->datasz) {
			/* reply.c limits data to what was asked; this is a
			 * last line of defence */
			fr_err("q%u: answer larger than the ring payload",
			       req->q->idx);
			memcpy(oh, iov[0].iov_base, sizeof(*oh));
			oh->error = -EIO;
			oh->len = sizeof(*oh);
			req->hdr.ring_ent_in_out.payload_sz = 0;
			return -EOVERFLOW;
		}
		if (iov[i].iov_base != req->data + off)
			memmove(req->data + off, iov[i].iov_base,
				iov[i].iov_len);
		off += iov[i].iov_len;
	}
	memcpy(oh, iov[0].iov_base, sizeof(*oh));
	req->hdr.ring_ent_in_out.payload_sz = (uint32_t)off;
	return 0;
}

/* FORGET through the ring (READDIRPLUS's forced forget) and NOTIFY_REPLY
 * must still be committed, with an empty answer. */
static void ring_noreply(struct fring_req *req)
{
	struct fuse_out_header *oh = (void *)req->hdr.in_out;

	oh->len = sizeof(*oh);
	oh->error = 0;
	oh->unique = req->commit_id;
	req->hdr.ring_ent_in_out.payload_sz = 0;
}

/* Handler done and answer written: commit, on the owning thread. */
static void ring_recycle(struct fring_req *req)
{
	struct ring_thread *rt = req->q->rt;

	if (cur_rt == rt) {
		if (!rt->stopping)
			ring_commit(rt, req);
		return;
	}
	pthread_mutex_lock(&rt->lock);
	if (!rt->dead) {
		req->next_free = rt->handoff;
		rt->handoff = req;
	}
	pthread_mutex_unlock(&rt->lock);
	ring_thread_wake(rt);
}

const struct fring_tp fring_tp_ring = {
	.name = "uring",
	.send = ring_send,
	.noreply = ring_noreply,
	.recycle = ring_recycle,
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
		if (!rt->stopping)
			ring_commit(rt, req);
	}
}

void rt_entry_request(struct ring_thread *rt, struct fring_req *req)
{
	struct fuse_uring_req_header *h = &req->hdr;
	const struct fuse_in_header *ih = (const void *)h->in_out;
	uint32_t psz = h->ring_ent_in_out.payload_sz;
	size_t ext = (size_t)ih->total_extlen * 8;
	struct fring_msg m;

	req->commit_id = h->ring_ent_in_out.commit_id;
	req->in_len = ih->len;
	req->zc = ZC_NONE;
	req->zc_moved = 0;
	req->zc_staged = 0;
	req->commit_held = false;
	if ((h->ring_ent_in_out.flags & FUSE_URING_ENT_ZERO_COPY) &&
	    !rt_zc_request(rt, req, &psz))
		return;
	if (req->zc == ZC_READ) {
		/* no pool buffer (offset 0 would name another entry's); the
		 * size bounds what the pages may hold. Nor any payload: the
		 * kernel sends payload_sz 0 (kernel-protocol.md 6.3), and
		 * framing one at data NULL would be pointer arithmetic on
		 * NULL (UBSan in fuzz_decode: total_extlen set). */
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
			stat_add(req->q, pool_requests, 1);
	}
	if (psz > req->datasz || ext > psz) {
		fring_reject(req, ih, "payload size out of range");
		return;
	}
	memset(&m, 0, sizeof(m));
	m.ih = ih;
	m.op_in = h->op_in;
	m.p = req->data;
	m.left = psz - ext;
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
	if (res == 0) {
		if (rt->stopping) {
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
		if (!rt->stopping && !atomic_load(&se->exiting))
			session_stop(se);
		break;
	default:
		fr_err("q%u: ring command failed: %s%s", req->q->idx,
		       strerror(-res),
		       rt->registered ? ""
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
		if (!rt->stopping)
			rt_arm_wake(rt);
		break;
	case UD_EXIT:
		rt->stopping = true;
		rt_zc_dead(rt);
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

/* ---------------- thread life ---------------- */

static void rt_pin(struct ring_thread *rt)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (unsigned i = 0; i < rt->nq; i++)
		CPU_SET(rt->qs[i]->qid, &set);
	/* Pinning is for locality only; failing it costs speed, not
	 * correctness (the kernel routes by the client's CPU). */
	if (sched_setaffinity(0, sizeof(set), &set))
		fr_dbg("ring thread %u: cannot pin: %s", rt->idx,
		       strerror(errno));
}

/* Entries are allocated by the thread after pinning, so their memory is
 * local to the queue's CPU. */
static int rt_alloc_entries(struct ring_thread *rt)
{
	struct ring_state *rs = rt->rs;

	for (unsigned i = 0; i < rt->nq; i++) {
		struct fring_queue *q = rt->qs[i];
		size_t total = (size_t)rs->depth * rs->payload_sz;
		char *payloads = NULL;

		q->slots = calloc(rs->depth, sizeof(*q->slots));
		if (!q->slots)
			return -ENOMEM;
		if (rs->pool != POOL_NONE && rt_alloc_pool(rt, q))
			return -ENOMEM;
		/* The queue's payload buffers in one region (huge pages,
		 * bufmem.c); each entry unmaps its own part at the end. */
		if (rs->pool == POOL_NONE) {
			payloads = buf_map(total);
			if (!payloads)
				return -ENOMEM;
		}
		for (unsigned e = 0; e < rs->depth; e++) {
			struct fring_req *req = calloc(1, sizeof(*req));

			if (!req) {
				size_t owned = (size_t)e * rs->payload_sz;

				/* the parts no entry owns yet */
				if (payloads)
					munmap(payloads + owned, total - owned);
				return -ENOMEM;
			}
			q->slots[q->nslots++] = req;
			req->se = rs->se;
			req->q = q;
			/* the table starts with the pools, one per queue */
			req->zc_slot = (uint16_t)(rt->nq + i * rs->depth + e);
			req->reg_iov[0].iov_base = &req->hdr;
			req->reg_iov[0].iov_len = sizeof(req->hdr);
			/* on a pool queue the payload is in the pool and
			 * REGISTER takes an empty payload iovec */
			if (rs->pool != POOL_NONE)
				continue;
			req->mem = payloads + (size_t)e * rs->payload_sz;
			req->memsz = rs->payload_sz;
			req->data = req->mem;
			req->datasz = rs->payload_sz;
			req->reg_iov[1].iov_base = req->mem;
			req->reg_iov[1].iov_len = rs->payload_sz;
		}
	}
	return 0;
}

/*
 * One thread's ring: SQE128 (the kernel refuses FUSE commands on 64-byte
 * SQEs, kernel-protocol.md 4.3); SINGLE_ISSUER because one thread owns it;
 * COOP_TASKRUN so that the kernel's copy of a request into an entry waits
 * for the thread's next kernel entry instead of interrupting a handler.
 * Not DEFER_TASKRUN: on the 4 KiB randread bench it was 3% slower at 2%
 * more CPU (doc/benchmarks.md), as libfuse's authors also found.
 */
int ring_init(struct io_uring *ring, unsigned entries)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_SINGLE_ISSUER |
		  IORING_SETUP_COOP_TASKRUN;
	ret = io_uring_queue_init_params(entries, ring, &p);
	if (ret == -EINVAL) {
		/* kernels before 6.0 lack SINGLE_ISSUER */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SQE128;
		ret = io_uring_queue_init_params(entries, ring, &p);
	}
	return ret;
}

static int rt_setup(struct ring_thread *rt)
{
	unsigned entries = ring_sq_entries(rt->nq, rt->rs->depth);
	int ret;

	rt_pin(rt);
	ret = rt_alloc_entries(rt);
	if (ret)
		return ret;
	rt->wake_efd = eventfd(0, EFD_CLOEXEC);
	if (rt->wake_efd < 0)
		return -errno;
	ret = fault_hit(FAULT_RING_SETUP);
	if (!ret)
		ret = ring_init(&rt->ring, entries);
	/* Only this thread enters the ring: a registered ring descriptor
	 * spares each io_uring_enter the shared file table's refcount
	 * (fget was 2% of a 4 KiB randread profile). Linux 5.18+; without it
	 * the plain descriptor works. */
	if (!ret)
		(void)io_uring_register_ring_fd(&rt->ring);
	if (ret)
		return ret;
	rt->ring_ok = true;
	if (rt->rs->pool == POOL_REGISTERED)
		return rt_register_pools(rt);
	return 0;
}

static void rt_register_all(struct ring_thread *rt)
{
	if (rt->rs->pool != POOL_NONE) {
		int err = rt_add_pools(rt);

		if (err) {
			fr_err("ring thread %u: setting up the buffer pools "
			       "failed: %s; serving through /dev/fuse",
			       rt->idx, strerror(-err));
			ring_note_failure(rt->rs, -err);
			rt_force_fallback(rt);
			rt->total_entries = 0;
			return;
		}
	}
	for (unsigned i = 0; i < rt->nq; i++) {
		struct fring_queue *q = rt->qs[i];

		for (unsigned e = 0; e < q->nslots; e++) {
			struct fring_req *req = q->slots[e];
			struct io_uring_sqe *sqe = rt_sqe(rt);

			ring_prep_register(sqe, q->fd, q->qid, req->reg_iov,
					   q->pool_index,
					   rt->rs->zero_copy ? req->zc_slot : 0,
					   ud_make(req, UD_ENTRY));
			rt->in_kernel++;
			stat_add(q, ring_entries, 1);
		}
	}
	rt->registered = true;
}

/* Submits and waits for one completion. A failure leaves the SQEs queued
 * (liburing advanced the tail the kernel did not read): the next call
 * submits them again. */
int rt_submit_wait(struct ring_thread *rt)
{
	int ret = fault_hit(FAULT_RING_SUBMIT);

	kernel_order();
	if (!ret)
		ret = io_uring_submit_and_wait(&rt->ring, 1);
	kernel_order();
	return ret;
}

static void rt_loop(struct ring_thread *rt)
{
	while (!rt->stopping) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;
		int ret = rt_submit_wait(rt);

		if (ret < 0 && ret != -EINTR && ret != -EAGAIN &&
		    ret != -EBUSY) {
			fr_err("ring thread %u: io_uring_enter: %s; ending the "
			       "session",
			       rt->idx, strerror(-ret));
			atomic_store(&rt->rs->fatal_err, ret);
			session_stop(rt->rs->se);
			break;
		}
		io_uring_for_each_cqe(&rt->ring, head, cqe)
		{
			rt_cqe(rt, cqe);
			n++;
		}
		io_uring_cq_advance(&rt->ring, n);
		if (rt->io_pending) {
			struct ring_io *ios = rt->io_pending;

			rt->io_pending = NULL;
			ring_io_start_handed(rt, ios);
		}
		if (rt->dead_entries && rt->dead_entries == rt->total_entries &&
		    !rt->stopping) {
			/* every entry is gone: nothing more can arrive */
			break;
		}
	}
}

static void *rt_main(void *arg)
{
	struct ring_thread *rt = arg;
	struct ring_state *rs = rt->rs;
	struct ring_io *ios;
	sigset_t all;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	cur_rt = rt;
	ret = rt_setup(rt);

	/* Report, then wait for the INIT answer (commands before it get
	 * EAGAIN) or for the decision to give up the ring. */
	pthread_mutex_lock(&rs->lock);
	rt->setup_err = ret;
	rs->nready++;
	pthread_cond_broadcast(&rs->cond);
	while (rs->phase == RING_SETUP)
		pthread_cond_wait(&rs->cond, &rs->lock);
	pthread_mutex_unlock(&rs->lock);

	if (rs->phase == RING_GO && !ret) {
		rt_arm_exit(rt);
		rt_arm_wake(rt);
		rt_register_all(rt);
		rt_loop(rt);
	}
	pthread_mutex_lock(&rt->lock);
	rt->dead = true;
	ios = rt->io_handoff;
	rt->io_handoff = NULL;
	pthread_mutex_unlock(&rt->lock);
	/* helpers handed over too late: answered, so nothing stays in flight
	 * (the answers go nowhere: the thread no longer commits) */
	for (int pass = 0; pass < 2; pass++) {
		while (ios) {
			struct ring_io *io = ios;

			ios = io->next;
			reply_errno(io->req, ESHUTDOWN);
			free(io);
		}
		ios = rt->io_pending;
		rt->io_pending = NULL;
	}
	cur_rt = NULL;
	return NULL;
}

/* ---------------- setup and teardown (main thread) ---------------- */

static unsigned possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	unsigned count = 0, a, b;
	int c;

	if (!f)
		return (unsigned)sysconf(_SC_NPROCESSORS_CONF);
	/* a list like "0-3,6,8-9" */
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%u", &b) != 1)
				break;
			c = fgetc(f);
		}
		count += b - a + 1;
		if (c != ',')
			break;
	}
	fclose(f);
	return count ? count : 1;
}

unsigned ring_nr_queues(void)
{
	return possible_cpus();
}

int ring_prepare(struct fring_session *se)
{
	struct ring_state *rs = calloc(1, sizeof(*rs));
	unsigned nthreads;
	int err = 0;

	if (!rs)
		return -ENOMEM;
	se->ring = rs;
	rs->se = se;
	rs->depth = se->cfg.queue_depth;
	rs->zero_copy = se->transport == FRING_TRANSPORT_ZEROCOPY;
	rs->pool = se->transport == FRING_TRANSPORT_BUFPOOL_REGISTERED ||
				   rs->zero_copy
			   ? POOL_REGISTERED
		   : se->transport == FRING_TRANSPORT_BUFPOOL ? POOL_PLAIN
							      : POOL_NONE;
	rs->pool_bufs = se->cfg.pool_bufs ? se->cfg.pool_bufs : rs->depth;
	rs->payload_sz =
		FRING_ALIGN_UP(init_payload_size(&se->conn), FRING_PAGE);
	pthread_mutex_init(&rs->lock, NULL);
	pthread_cond_init(&rs->cond, NULL);
	rs->phase = RING_SETUP;
	if (rs->pool != POOL_NONE &&
	    (uint64_t)rs->pool_bufs * rs->payload_sz > UINT32_MAX) {
		/* ADD_BUFPOOL's length is 32 bits */
		fr_err("pool_bufs=%u x %zu bytes does not fit a 4 GiB pool",
		       rs->pool_bufs, rs->payload_sz);
		return -EINVAL;
	}

	nthreads = ring_nthreads(se->cfg.threads, se->nqueues);
	if (rs->zero_copy) {
		/* a thread's table: its pools plus a slot per entry */
		unsigned per = (se->nqueues + nthreads - 1) / nthreads;

		if ((uint64_t)per * (rs->depth + 1) > 16384) {
			fr_err("zerocopy: %u queues x (queue_depth=%u + 1) "
			       "exceed io_uring's 16384 fixed buffers per "
			       "ring; use more threads or a smaller depth",
			       per, rs->depth);
			return -EINVAL;
		}
	}
	rs->threads = calloc(nthreads, sizeof(*rs->threads));
	if (!rs->threads)
		return -ENOMEM;
	rs->nthreads = nthreads;
	for (unsigned t = 0; t < nthreads; t++) {
		struct ring_thread *rt = &rs->threads[t];

		rt->rs = rs;
		rt->idx = t;
		rt->wake_efd = -1;
		rt->stage_fd = -1;
		pthread_mutex_init(&rt->lock, NULL);
		rt->qs = calloc(se->nqueues, sizeof(*rt->qs));
		if (!rt->qs)
			return -ENOMEM;
	}
	/* queue q belongs to thread q % nthreads */
	for (unsigned q = 0; q < se->nqueues; q++) {
		struct ring_thread *rt = &rs->threads[q % nthreads];
		struct fring_queue *fq = &se->queues[q];

		fq->rt = rt;
		fq->qid = (uint16_t)q;
		fq->tp = &fring_tp_ring;
		fq->fd = se->fd;
		fq->pool_index = -1;
		rt->qs[rt->nq++] = fq;
		rt->total_entries += rs->depth;
	}
	for (unsigned t = 0; t < nthreads; t++) {
		struct ring_thread *rt = &rs->threads[t];
		int ret = pthread_create(&rt->th, NULL, rt_main, rt);

		if (ret) {
			err = -ret;
			break;
		}
		rt->started = true;
	}
	pthread_mutex_lock(&rs->lock);
	for (;;) {
		unsigned started = 0;

		for (unsigned t = 0; t < nthreads; t++)
			started += rs->threads[t].started;
		if (rs->nready == started)
			break;
		pthread_cond_wait(&rs->cond, &rs->lock);
	}
	pthread_mutex_unlock(&rs->lock);
	for (unsigned t = 0; t < nthreads && !err; t++)
		err = rs->threads[t].setup_err;
	return err;
}

void ring_go(struct fring_session *se, bool go)
{
	struct ring_state *rs = se->ring;

	pthread_mutex_lock(&rs->lock);
	rs->phase = go ? RING_GO : RING_ABANDON;
	pthread_cond_broadcast(&rs->cond);
	pthread_mutex_unlock(&rs->lock);
}

void ring_note_failure(struct ring_state *rs, int err)
{
	bool first;

	pthread_mutex_lock(&rs->lock);
	first = !rs->failed_err;
	if (first)
		rs->failed_err = err;
	pthread_mutex_unlock(&rs->lock);
	if (first) {
		char why[96];

		snprintf(why, sizeof(why), "ring command refused (%s)",
			 strerror(err));
		ladder_fell_back(rs->se, why);
	}
}

void ring_stop(struct fring_session *se)
{
	struct ring_state *rs = se->ring;

	if (!rs)
		return;
	for (unsigned t = 0; t < rs->nthreads; t++) {
		struct ring_thread *rt = &rs->threads[t];

		if (rt->started) {
			ring_thread_wake(rt);
			pthread_join(rt->th, NULL);
			rt->started = false;
		}
	}
}

void ring_free(struct fring_session *se)
{
	struct ring_state *rs = se->ring;

	if (!rs)
		return;
	for (unsigned t = 0; t < rs->nthreads; t++) {
		struct ring_thread *rt = &rs->threads[t];

		/* closing the ring cancels the entries still in the kernel */
		if (rt->ring_ok)
			io_uring_queue_exit(&rt->ring);
		if (rt->wake_efd >= 0)
			close(rt->wake_efd);
		if (rt->stage_fd >= 0)
			close(rt->stage_fd);
		ring_io_free_all(rt);
		pthread_mutex_destroy(&rt->lock);
		free(rt->qs);
	}
	for (unsigned q = 0; q < se->nqueues; q++) {
		struct fring_queue *fq = &se->queues[q];

		if (fq->pool)
			munmap(fq->pool, fq->pool_len);
		fq->pool = NULL;
	}
	free(rs->threads);
	pthread_mutex_destroy(&rs->lock);
	pthread_cond_destroy(&rs->cond);
	free(rs);
	se->ring = NULL;
}

bool ring_on_thread_of(const struct fring_req *req)
{
	return cur_rt && cur_rt == req->q->rt;
}

struct io_uring_sqe *ring_io_sqe(struct fring_req *req)
{
	if (!ring_on_thread_of(req) || cur_rt->stopping)
		return NULL;
	/* a zero-copy slot may point at pages a gone client got back */
	if (req->zc != ZC_NONE &&
	    (cur_rt->zc_dead || atomic_load(&req->se->exiting)))
		return NULL;
	return rt_sqe(cur_rt);
}

void ring_io_arm(struct ring_io *io, struct io_uring_sqe *sqe)
{
	io_uring_sqe_set_data64(sqe, ud_make(io, UD_IO));
}
