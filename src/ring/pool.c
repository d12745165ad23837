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
 * (fuse_uring_add_bufpool). An online CPU's queue gets pool_bufs buffers,
 * faulted in now. Another's pool faults on first use, if ever (only
 * clients of that CPU, brought online later, use it), so it may be as
 * large at no cost; unless it is registered: io_uring pins (and faults)
 * all of it then, so it gets the one buffer the kernel needs.
 */
int rt_alloc_pool(struct ring_thread *rt, struct fring_queue *q)
{
	struct ring_state *rs = rt->rs;
	struct ring_queue *rq = ring_q(q);
	int ret = fault_hit(FAULT_POOL_ALLOC);

	if (ret)
		return ret;
	rq->nbufs =
		rq->online || rs->pool != POOL_REGISTERED ? rs->pool_bufs : 1;
	q->pool_len = (size_t)rq->nbufs * rs->payload_sz;
	q->pool = buf_map(q->pool_len, rq->online);
	return q->pool ? 0 : -ENOMEM;
}

/* Queue i of this thread uses fixed buffer i of this ring: the kernel looks
 * the pool up in the table of the ring that submitted each entry's SQE. */
int rt_register_pools(struct ring_thread *rt)
{
	struct iovec iov[rt->nq];
	int ret;

	for (unsigned i = 0; i < rt->nq; i++) {
		iov[i].iov_base = rt->qs[i]->pool;
		iov[i].iov_len = rt->qs[i]->pool_len;
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
		rt->qs[i]->pool_index = (int)i;
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
