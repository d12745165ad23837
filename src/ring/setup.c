/* SPDX-License-Identifier: MIT */
/*
 * The ring's setup and teardown (as liburing keeps setup.c apart from the
 * queue): the main thread builds the ring state and starts one thread per
 * ring (by default one per online CPU); each thread pins itself, allocates its
 * entries (local memory) and its ring, reports, and waits for INIT's answer to
 * serve (queue.c) or to give up. Then the main thread stops, joins and frees
 * them. A ring command the kernel refuses later is recorded here for the run
 * thread.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bufmem.h"
#include "dispatch/dispatch.h"
#include "fault.h"
#include "ring_int.h"

static void rt_pin(struct ring_thread *rt)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (unsigned i = 0; i < rt->nq; i++)
		CPU_SET(rt->qs[i]->qid, &set);
	/* Pinning is for locality only; failing it costs speed, not
	 * correctness (the kernel routes by the client's CPU). Of the CPUs
	 * set, the scheduler uses the online ones; a thread whose CPUs are
	 * all offline is refused and runs anywhere. */
	if (sched_setaffinity(0, sizeof(set), &set))
		fr_dbg("ring thread %u: cannot pin: %s", rt->idx,
		       strerror(errno));
}

/* Entries are allocated by the thread after pinning, so their memory is
 * local to the queue's CPU. Every queue gets queue_depth entries; what they
 * cost depends on whether its CPU is online (ring.h, ring_pool_bufs()). */
static int rt_alloc_entries(struct ring_thread *rt)
{
	struct ring_state *rs = rt->rs;

	for (unsigned i = 0; i < rt->nq; i++) {
		struct fring_queue *q = rt->qs[i];
		bool online = ring_q(q)->online;
		size_t total = (size_t)rs->depth * rs->payload_sz;
		char *payloads = NULL;

		q->slots = calloc(rs->depth, sizeof(*q->slots));
		if (!q->slots)
			return -ENOMEM;
		if (rs->pool != POOL_NONE && rt_alloc_pool(rt, q))
			return -ENOMEM;
		/* The queue's payload buffers in one region (huge pages,
		 * bufmem.c), faulted in now for an online CPU's queue, on
		 * first use for the others; each entry unmaps its own part
		 * at the end. */
		if (rs->pool == POOL_NONE) {
			payloads = buf_map(total, online);
			if (!payloads)
				return -ENOMEM;
		}
		for (unsigned e = 0; e < rs->depth; e++) {
			struct ring_ent *ent = calloc(1, sizeof(*ent));
			struct fring_req *req = ent ? &ent->req : NULL;

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
			ent->zc_slot = (uint16_t)(rt->nq + i * rs->depth + e);
			ent->reg_iov[0].iov_base = &ent->hdr;
			ent->reg_iov[0].iov_len = sizeof(ent->hdr);
			/* on a pool queue the payload is in the pool and
			 * REGISTER takes an empty payload iovec */
			if (rs->pool != POOL_NONE)
				continue;
			req->mem = payloads + (size_t)e * rs->payload_sz;
			req->memsz = rs->payload_sz;
			req->data = req->mem;
			req->datasz = rs->payload_sz;
			ent->reg_iov[1].iov_base = req->mem;
			ent->reg_iov[1].iov_len = rs->payload_sz;
		}
	}
	return 0;
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
	rt->ring_built = true;
	if (rt->rs->pool == POOL_REGISTERED)
		return rt_register_pools(rt);
	return 0;
}

/* A ring thread: builds its ring and entries, reports, waits for the
 * decision, serves (queue.c) until the session stops, retires. */
static void *rt_main(void *arg)
{
	struct ring_thread *rt = arg;
	struct ring_state *rs = rt->rs;
	sigset_t all;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	ret = rt_setup(rt);
	if (!ret)
		rt_set_state(rt, RT_READY);

	/* Report, then wait for the INIT answer (commands before it get
	 * EAGAIN) or for the decision to give up the ring. */
	pthread_mutex_lock(&rs->lock);
	rt->setup_err = ret;
	rs->nready++;
	pthread_cond_broadcast(&rs->cond);
	while (rs->phase == RING_SETUP)
		pthread_cond_wait(&rs->cond, &rs->lock);
	pthread_mutex_unlock(&rs->lock);

	if (rs->phase == RING_GO && !ret)
		rt_serve(rt);
	rt_retire(rt);
	return NULL;
}

/* ---------------- setup and teardown (main thread) ---------------- */

int ring_prepare(struct fring_session *se)
{
	struct ring_state *rs = calloc(1, sizeof(*rs));
	bool online[se->nqueues];
	unsigned nthreads, nonline, next = 0;
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
	rs->pool_bufs = ring_pool_bufs(&se->cfg);
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

	rs->rq = calloc(se->nqueues, sizeof(*rs->rq));
	if (!rs->rq)
		return -ENOMEM;
	nonline = ring_online_map(online, se->nqueues);
	for (unsigned q = 0; q < se->nqueues; q++)
		rs->rq[q].online = online[q];
	nthreads = ring_nthreads(se->cfg.threads, se->nqueues, nonline);
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
		rt->pipe_fd[0] = rt->pipe_fd[1] = -1;
		pthread_mutex_init(&rt->lock, NULL);
		rt->qs = calloc(se->nqueues, sizeof(*rt->qs));
		rt->unsent = calloc(se->nqueues, sizeof(*rt->unsent));
		if (!rt->qs || !rt->unsent)
			return -ENOMEM;
	}
	/* The queues are dealt out to the threads in turn, those of online
	 * CPUs first: each thread serves its share of the CPUs that run
	 * clients, then of the others (by default one thread per online
	 * CPU, each with its CPU's queue). */
	for (int pass = 1; pass >= 0; pass--) {
		for (unsigned q = 0; q < se->nqueues; q++) {
			struct ring_thread *rt;
			struct fring_queue *fq = &se->queues[q];

			if (online[q] != pass)
				continue;
			rt = &rs->threads[next++ % nthreads];
			fq->rt = rt;
			fq->qid = (uint16_t)q;
			fq->tp = &fring_tp_ring;
			fq->fd = se->fd;
			fq->pool_index = -1;
			rt->qs[rt->nq++] = fq;
			rt->total_entries += rs->depth;
		}
	}
	for (unsigned t = 0; t < nthreads; t++) {
		struct ring_thread *rt = &rs->threads[t];
		int ret = pthread_create(&rt->th, NULL, rt_main, rt);

		if (ret) {
			err = -ret;
			break;
		}
		rt->joinable = true;
	}
	pthread_mutex_lock(&rs->lock);
	for (;;) {
		unsigned started = 0;

		for (unsigned t = 0; t < nthreads; t++)
			started += rs->threads[t].joinable;
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

int ring_take_failure(struct fring_session *se, char *why, size_t len)
{
	struct ring_state *rs = se->ring;
	int err = 0;

	if (!rs)
		return 0;
	pthread_mutex_lock(&rs->lock);
	if (!rs->failure_taken && rs->failed_err) {
		rs->failure_taken = true;
		err = rs->failed_err;
	}
	pthread_mutex_unlock(&rs->lock);
	if (err)
		snprintf(why, len, "ring command refused (%s)", strerror(err));
	return err;
}

int ring_fatal_err(const struct fring_session *se)
{
	return se->ring ? atomic_load(&se->ring->fatal_err) : 0;
}

void ring_stop(struct fring_session *se)
{
	struct ring_state *rs = se->ring;

	if (!rs)
		return;
	for (unsigned t = 0; t < rs->nthreads; t++) {
		struct ring_thread *rt = &rs->threads[t];

		if (rt->joinable) {
			ring_thread_wake(rt);
			pthread_join(rt->th, NULL);
			rt->joinable = false;
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
		if (rt->ring_built)
			io_uring_queue_exit(&rt->ring);
		if (rt->wake_efd >= 0)
			close(rt->wake_efd);
		if (rt->stage_fd >= 0)
			close(rt->stage_fd);
		rt_pipe_close(rt);
		ring_io_free_all(rt);
		rt_stash_free(rt);
		pthread_mutex_destroy(&rt->lock);
		free(rt->qs);
		free(rt->unsent);
	}
	for (unsigned q = 0; q < se->nqueues; q++) {
		struct fring_queue *fq = &se->queues[q];

		if (fq->pool)
			munmap(fq->pool, fq->pool_len);
		fq->pool = NULL;
	}
	free(rs->threads);
	free(rs->rq);
	pthread_mutex_destroy(&rs->lock);
	pthread_cond_destroy(&rs->cond);
	free(rs);
	se->ring = NULL;
}
