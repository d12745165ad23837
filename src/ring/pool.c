/* SPDX-License-Identifier: MIT */
/*
 * Buffer pools on the ring (7.46): one contiguous pool per queue instead of
 * a payload buffer per entry, optionally registered as an io_uring fixed
 * buffer, announced to the kernel with ADD_QUEUE + ADD_BUFPOOL before any
 * REGISTER.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "bufmem.h"
#include "cmd.h"
#include "fault.h"
#include "ring_int.h"

/*
 * The kernel names a request's pool buffer by its offset from the pool base
 * (buffer i at i * bsz). A request without a buffer reports 0 too, which is
 * harmless: such requests carry no payload. NULL for an offset that is not
 * the start of a buffer inside the pool.
 */
char *ring_pool_buf(const struct fring_queue *q, size_t bsz, uint32_t off)
{
	if (!q->pool || !bsz || off % bsz || (size_t)off + bsz > q->pool_len)
		return NULL;
	return q->pool + off;
}

/*
 * One contiguous region (bufmem.c); buffer i is at i * payload_sz
 * (fuse_uring_add_bufpool). Every queue gets pool_bufs buffers. An online
 * CPU's pool is faulted in now. Another's faults on first use, if ever
 * (only clients of that CPU, brought online later, use it), so it costs
 * address space only: it is never registered (rt_register_pools()), as
 * io_uring would pin and fault all of it at once.
 */
int rt_alloc_pool(struct ring_thread *rt, struct fring_queue *q)
{
	struct ring_state *rs = rt->rs;
	struct ring_queue *rq = ring_q(q);
	int ret = fault_hit(FAULT_POOL_ALLOC);

	if (ret)
		return ret;
	rq->nbufs = rs->pool_bufs;
	q->pool_len = (size_t)rq->nbufs * rs->payload_sz;
	q->pool = buf_map(q->pool_len, rq->online);
	return q->pool ? 0 : -ENOMEM;
}

/*
 * Queue i of this thread uses fixed buffer i of this ring: the kernel looks
 * the pool up in the table of the ring that submitted each entry's SQE.
 * Only the pools of CPUs online at the start are registered; an offline
 * CPU's index stays empty and its pool plain (pool_index -1: ADD_BUFPOOL
 * without IORING_URING_CMD_FIXED, which the kernel takes per queue). With
 * 64 possible CPUs and 2 online that is 16 MiB pinned instead of 78
 * (doc/transports.md, "Memory and threads"). A CPU brought online later
 * is served from a plain pool, as on bufpool: its fixed ops pin pages per
 * I/O, and on zerocopy the client's pages still go in the slots.
 */
int rt_register_pools(struct ring_thread *rt)
{
	struct iovec iov[rt->nq];
	int ret;

	for (unsigned i = 0; i < rt->nq; i++) {
		bool reg = ring_q(rt->qs[i])->online;

		iov[i].iov_base = reg ? rt->qs[i]->pool : NULL;
		iov[i].iov_len = reg ? rt->qs[i]->pool_len : 0;
	}
	ret = fault_hit(FAULT_BUF_REGISTER);
	if (ret)
		return ret;
	if (rt->rs->zero_copy)
		ret = rt_zc_table(rt, iov);
	else
		ret = io_uring_register_buffers(&rt->ring, iov, rt->nq);
	if (ret)
		return ret;
	for (unsigned i = 0; i < rt->nq; i++)
		rt->qs[i]->pool_index = iov[i].iov_base ? (int)i : -1;
	return 0;
}

/*
 * Pool queues: ADD_QUEUE then ADD_BUFPOOL, each checked, before any
 * REGISTER (a REGISTER first would fix the queue in per-entry mode).
 * Returns 0, or the first error.
 */
int rt_add_pools(struct ring_thread *rt)
{
	unsigned want = 0;

	for (unsigned i = 0; i < rt->nq; i++) {
		struct fring_queue *q = rt->qs[i];

		ring_prep_add_queue(rt_sqe(rt), q->fd, q->qid,
				    rt->rs->zero_copy, ud_make(q, UD_SETUP));
		ring_prep_add_bufpool(rt_sqe(rt), q->fd, q->qid, q->pool,
				      (uint32_t)q->pool_len, q->pool_index,
				      ud_make(q, UD_SETUP));
		want += 2;
	}
	rt->setup_left = want;
	rt->setup_res = 0;
	while (rt->setup_left && !rt_stopping(rt)) {
		int ret = rt_reap(rt);

		if (ret)
			return ret;
	}
	if (rt_stopping(rt) && !rt->setup_res)
		return -ECANCELED;
	return rt->setup_res;
}

/*
 * The pools could not be set up after INIT offered io_uring: the kernel
 * would hold every request until the ring is ready, which it never will be.
 * A REGISTER the kernel refuses turns io_uring off for the connection
 * (fuse_uring_cmd()), and everything flows through /dev/fuse.
 */
void rt_force_fallback(struct ring_thread *rt)
{
	struct io_uring_sqe *sqe = rt_sqe(rt);
	struct fring_queue *q = rt->qs[0];

	ring_prep_register(sqe, q->fd, q->qid, ring_ent(q->slots[0])->reg_iov,
			   -1, 0, ud_make(rt, UD_SETUP));
	sqe->len = 1; /* invalid on purpose: -EINVAL */
	io_uring_submit(&rt->ring);
}
