/* SPDX-License-Identifier: MIT */
/*
 * Synchronous fixed ops on a queue's ring: fring_write_data_to_fd() and
 * fring_write_data_copy() on a zero-copy WRITE, whose data (the client's
 * pages, in the entry's slot of the ring's fixed-buffer table) only a
 * WRITE_FIXED on that ring can reach.
 *
 * On the queue thread the handler runs inside the loop's completion
 * handling, so the op is waited for right there: every completion the
 * wait takes off the ring that is not the op's own is kept in the
 * thread's stash, which the loop (rt_reap()) handles, in order, before
 * the ring's. From another thread the op is handed to the queue thread
 * (woken for it) and the caller sleeps on a condition variable until its
 * completion, or until the thread retires (-ESHUTDOWN).
 *
 * The ops are tracked like a handler's fixed ops (zc_inflight, zc_moved,
 * io.c): the commit waits for them, and the answer may claim the bytes
 * they moved out of the pages.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "reply.h"
#include "ring_int.h"

/* A waiter: on its own stack until done. */
struct ring_sync {
	bool remote; /* another thread: cond under rt->lock */
	bool done;
	int res;
	pthread_cond_t cond;
};

/* ---------------- the stash ---------------- */

static bool stash_push(struct ring_thread *rt, const struct io_uring_cqe *cqe)
{
	if (rt->stash_head && rt->stash_len == rt->stash_cap) {
		/* room at the front: slide the rest down */
		rt->stash_len -= rt->stash_head;
		for (unsigned i = 0; i < rt->stash_len; i++)
			rt->stash[i] = rt->stash[rt->stash_head + i];
		rt->stash_head = 0;
	}
	if (rt->stash_len == rt->stash_cap) {
		unsigned cap = rt->stash_cap ? rt->stash_cap * 2 : 64;
		struct ring_cqe *p = realloc(rt->stash, cap * sizeof(*p));

		if (!p)
			return false;
		rt->stash = p;
		rt->stash_cap = cap;
	}
	rt->stash[rt->stash_len++] = (struct ring_cqe){
		.user_data = cqe->user_data,
		.res = cqe->res,
		.flags = cqe->flags,
	};
	return true;
}

void rt_stash_free(struct ring_thread *rt)
{
	free(rt->stash);
	rt->stash = NULL;
	rt->stash_head = rt->stash_len = rt->stash_cap = 0;
}

/* The oldest completion on the ring, copied and taken off it. */
static bool ring_take(struct ring_thread *rt, struct io_uring_cqe *out)
{
	struct io_uring_cqe *cqe;
	unsigned head;

	io_uring_for_each_cqe(&rt->ring, head, cqe)
	{
		out->user_data = cqe->user_data;
		out->res = cqe->res;
		out->flags = cqe->flags;
		io_uring_cq_advance(&rt->ring, 1);
		return true;
	}
	return false;
}

bool rt_cq_take(struct ring_thread *rt, struct io_uring_cqe *out)
{
	if (rt->stash_head < rt->stash_len) {
		const struct ring_cqe *c = &rt->stash[rt->stash_head++];

		out->user_data = c->user_data;
		out->res = c->res;
		out->flags = c->flags;
		if (rt->stash_head == rt->stash_len)
			rt->stash_head = rt->stash_len = 0;
		return true;
	}
	return ring_take(rt, out);
}

/* ---------------- one op ---------------- */

/* WRITE_FIXED of len bytes at slot offset addr into fd at off (-1: its
 * position), tracked on the request's slot. */
static void sync_prep(struct io_uring_sqe *sqe, struct ring_io *io,
		      uint64_t addr)
{
	struct fring_req *req = io->req;

	io_uring_prep_write_fixed(sqe, io->fd, (void *)(uintptr_t)addr,
				  (unsigned)io->size, (uint64_t)io->off,
				  ring_ent(req)->zc_slot);
	io->zc_track = true;
	io->zc_addr = addr;
	ring_ent(req)->zc_inflight++;
	ring_io_arm(io, sqe);
	stat_add(req->q, io_ring, 1);
}

void ring_sync_done(struct ring_thread *rt, struct ring_io *io, int res)
{
	struct ring_sync *s = io->sync;

	if (s && s->remote) {
		struct ring_io **pp = &rt->sync_live;

		while (*pp && *pp != io)
			pp = &(*pp)->next;
		if (*pp)
			*pp = io->next;
		pthread_mutex_lock(&rt->lock);
		s->res = res;
		s->done = true;
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&rt->lock);
	} else if (s) {
		s->res = res;
		s->done = true;
	}
	/* always on the queue thread (its completion, its start, the
	 * thread's retiring), whichever thread allocated it */
	ring_io_put(rt, io);
}

void ring_sync_start(struct ring_thread *rt, struct ring_io *io)
{
	struct io_uring_sqe *sqe = ring_io_sqe(io->req);

	if (!sqe) {
		ring_sync_done(rt, io, -ESHUTDOWN);
		return;
	}
	sync_prep(sqe, io, io->zc_addr);
	io->next = rt->sync_live;
	rt->sync_live = io;
}

void ring_sync_retire(struct ring_thread *rt)
{
	while (rt->sync_live)
		ring_sync_done(rt, rt->sync_live, -ESHUTDOWN);
}

/*
 * On the queue thread, inside the loop: submit, and wait until the op's
 * own completion; the others go to the stash. An io_uring_enter error, or
 * no memory to keep a completion in, gives up: the op's completion is
 * then dropped when the loop meets it (its tracking still holds the
 * commit until it ends).
 */
static int sync_here(struct ring_thread *rt, struct ring_io *io)
{
	struct ring_sync s = {.remote = false};
	struct io_uring_sqe *sqe = ring_io_sqe(io->req);
	uint64_t own = ud_make(io, UD_IO);

	if (!sqe) {
		ring_io_put(rt, io);
		return -ESHUTDOWN;
	}
	io->sync = &s;
	sync_prep(sqe, io, io->zc_addr);
	while (!s.done) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;
		bool full = false;
		int ret = rt_submit_wait(rt);

		if (ret < 0 && ret != -EINTR && ret != -EAGAIN &&
		    ret != -EBUSY) {
			io->sync = NULL;
			return ret;
		}
		io_uring_for_each_cqe(&rt->ring, head, cqe)
		{
			if (cqe->user_data == own) {
				n++;
				ring_io_complete(rt, io, cqe->res);
				continue;
			}
			full = !stash_push(rt, cqe);
			if (full)
				break;
			n++;
		}
		io_uring_cq_advance(&rt->ring, n);
		if (full && !s.done) {
			/* the stash could not grow */
			io->sync = NULL;
			return -ENOMEM;
		}
	}
	return s.res;
}

/* From another thread: the queue thread starts it and says how it went. */
static int sync_remote(struct ring_thread *rt, struct ring_io *io)
{
	struct ring_sync s = {.remote = true};

	pthread_cond_init(&s.cond, NULL);
	io->sync = &s;
	if (ring_io_hand(rt, io)) {
		pthread_cond_destroy(&s.cond);
		free(io);
		return -ESHUTDOWN;
	}
	pthread_mutex_lock(&rt->lock);
	while (!s.done)
		pthread_cond_wait(&s.cond, &rt->lock);
	pthread_mutex_unlock(&rt->lock);
	pthread_cond_destroy(&s.cond);
	return s.res;
}

/*
 * WRITE_FIXED of len bytes from slot offset addr into fd at off. On the
 * queue thread the op comes from the thread's free list, no malloc per
 * op; another thread may not touch that list (it has no lock), so the op
 * it hands over is its own allocation, which the queue thread puts on
 * its list when the op ends (ring_sync_done()).
 */
static int sync_write_fixed(struct fring_req *req, uint64_t addr, int fd,
			    off_t off, size_t len)
{
	struct ring_thread *rt = req->q->rt;
	bool here = ring_on_thread_of(req);
	struct ring_io *io = here ? ring_io_get(rt) : calloc(1, sizeof(*io));

	if (!io)
		return -ENOMEM;
	io->req = req;
	io->fd = fd;
	io->off = off;
	io->size = len;
	io->zc_addr = addr;
	io->sync_op = true;
	return here ? sync_here(rt, io) : sync_remote(rt, io);
}

/* ---------------- tp->write_data ---------------- */

/*
 * A zero-copy WRITE's data: WRITE_FIXED from its slot into fd, or into
 * the slot's part of the stage memfd (free: only a READ stages there) and
 * read from it into dst, at most a payload's size at a time.
 */
static ssize_t fixed_write_data(struct fring_req *req, size_t data_off, int fd,
				off_t off, void *dst, size_t len)
{
	struct ring_thread *rt = req->q->rt;
	size_t room = rt->rs->payload_sz;
	off_t stage = (off_t)((size_t)ring_ent(req)->zc_slot * room);
	size_t done = 0;

	if (ring_ent(req)->zc != ZC_WRITE)
		return -EINVAL;
	if (!ring_on_thread_of(req) && ring_on_a_ring_thread())
		return -EDEADLK;
	while (done < len) {
		size_t chunk = len - done;
		int n;

		if (dst && chunk > room)
			chunk = room;
		if (dst)
			n = sync_write_fixed(req, data_off + done, rt->stage_fd,
					     stage, chunk);
		else
			n = sync_write_fixed(req, data_off + done, fd,
					     off < 0 ? -1 : off + (off_t)done,
					     chunk);
		if (n > 0 && dst) {
			ssize_t got = pread(rt->stage_fd, (char *)dst + done,
					    (size_t)n, stage);

			n = got < 0 ? -errno : (int)got;
		}
		if (n < 0)
			return done ? (ssize_t)done : n;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t ring_write_data(struct fring_req *req, size_t data_off, int fd,
			off_t off, void *dst, size_t len)
{
	if (req->buf.kind == FRING_BUF_FIXED)
		return fixed_write_data(req, data_off, fd, off, dst, len);
	return io_write_data_mem(req, data_off, fd, off, dst, len);
}
