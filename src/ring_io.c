/* SPDX-License-Identifier: MIT */
/*
 * Handler I/O on the queue's ring: the public fring_io_* calls and the ring
 * versions of the data helpers (READ into / WRITE from the entry's payload,
 * resubmitted until complete, then answered).
 */
#include <errno.h>
#include <stdlib.h>

#include "ring.h"

static struct ring_io *io_get(struct ring_thread *rt)
{
	struct ring_io *io = rt->io_free;

	if (io) {
		rt->io_free = io->next;
		return io;
	}
	return calloc(1, sizeof(*io));
}

static void io_put(struct ring_thread *rt, struct ring_io *io)
{
	io->next = rt->io_free;
	rt->io_free = io;
}

void ring_io_free_all(struct ring_thread *rt)
{
	while (rt->io_free) {
		struct ring_io *io = rt->io_free;

		rt->io_free = io->next;
		free(io);
	}
}

struct io_uring_sqe *fring_io_sqe(fring_req_t *req)
{
	return ring_io_sqe(req);
}

/* A fixed op on the request's own zero-copy slot: counted, so the commit
 * waits for it and the answer is checked against what it moved. */
static void zc_track(struct ring_io *io, const struct io_uring_sqe *sqe)
{
	struct fring_req *req = io->req;

	io->zc_track = req->zc != ZC_NONE &&
		       (sqe->opcode == IORING_OP_READ_FIXED ||
			sqe->opcode == IORING_OP_WRITE_FIXED) &&
		       sqe->buf_index == req->zc_slot;
	if (io->zc_track) {
		io->zc_addr = sqe->addr;
		req->zc_inflight++;
	}
}

/* Bytes a tracked op moved count when they continue what is moved. */
static void zc_done(struct ring_thread *rt, struct ring_io *io, int res)
{
	struct fring_req *req = io->req;

	if (!io->zc_track)
		return;
	io->zc_track = false;
	req->zc_inflight--;
	if (res > 0 && io->zc_addr <= req->zc_moved &&
	    io->zc_addr + (uint64_t)res > req->zc_moved)
		req->zc_moved = (uint32_t)(io->zc_addr + (uint64_t)res);
	if (!req->zc_inflight && req->commit_held && !rt->stopping)
		ring_commit(rt, req);
}

int fring_io_submit(fring_req_t *req, struct io_uring_sqe *sqe, fring_io_cb cb,
		    void *data)
{
	struct ring_thread *rt = req->q->rt;
	struct ring_io *io;

	if (!sqe || !ring_on_thread_of(req))
		return -EINVAL;
	io = io_get(rt);
	if (!io) {
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, 0);
		return -ENOMEM;
	}
	io->req = req;
	io->cb = cb;
	io->data = data;
	zc_track(io, sqe);
	fring_req_async(req);
	ring_io_arm(io, sqe);
	return 0;
}

static bool helper_submit(struct ring_thread *rt, struct ring_io *io)
{
	struct fring_req *req = io->req;
	struct io_uring_sqe *sqe = ring_io_sqe(req);
	unsigned len = (unsigned)(io->size - io->done);
	uint64_t off = (uint64_t)(io->off + (off_t)io->done);
	int bi = req->buf.buf_index;
	char *p;

	if (!sqe)
		return false;
	/* FIXED: the client's pages, addressed from 0; a registered pool
	 * by address, without page pinning per I/O */
	p = req->buf.kind == FRING_BUF_FIXED
		    ? (char *)(uintptr_t)(req->buf.buf_addr + io->done)
		    : (char *)req->buf.mem + io->done;
	if (io->is_write && bi >= 0)
		io_uring_prep_write_fixed(sqe, io->fd, p, len, off, bi);
	else if (io->is_write)
		io_uring_prep_write(sqe, io->fd, p, len, off);
	else if (bi >= 0)
		io_uring_prep_read_fixed(sqe, io->fd, p, len, off, bi);
	else
		io_uring_prep_read(sqe, io->fd, p, len, off);
	(void)rt;
	zc_track(io, sqe);
	ring_io_arm(io, sqe);
	return true;
}

/* Continues a helper's transfer or answers it. */
static void helper_step(struct ring_thread *rt, struct ring_io *io, int res)
{
	struct fring_req *req = io->req;

	if (res > 0) {
		io->done += (size_t)res;
		if (io->done < io->size && helper_submit(rt, io))
			return;
	} else if (res < 0 && io->done == 0) {
		io_put(rt, io);
		reply_errno(req, -res);
		return;
	}
	/* EOF, a short transfer after some data, or an error after some:
	 * answer what was moved */
	bool is_write = io->is_write;
	size_t done = io->done;

	io_put(rt, io);
	if (is_write)
		fring_reply_write(req, done);
	else
		fring_reply_data(req, done);
}

void ring_io_complete(struct ring_thread *rt, struct ring_io *io, int res)
{
	if (!io)
		return;
	zc_done(rt, io, res);
	if (rt->stopping) {
		io_put(rt, io);
		return;
	}
	if (!io->cb) {
		helper_step(rt, io, res);
		return;
	}
	fring_io_cb cb = io->cb;
	void *data = io->data;
	struct fring_req *req = io->req;

	io_put(rt, io);
	cb(req, res, data);
}

/* A data helper's state, on a fresh or recycled ring_io. */
static void helper_init(struct ring_io *io, struct fring_req *req, int fd,
			off_t off, size_t size, size_t done, bool is_write)
{
	io->req = req;
	io->cb = NULL;
	io->fd = fd;
	io->off = off;
	io->size = size;
	io->done = done;
	io->is_write = is_write;
}

int ring_helper_start(struct fring_req *req, int fd, off_t off, size_t size,
		      size_t done, bool is_write)
{
	struct ring_thread *rt = req->q->rt;
	struct ring_io *io = io_get(rt);

	if (!io)
		return -ENOMEM;
	helper_init(io, req, fd, off, size, done, is_write);
	if (done >= size || !helper_submit(rt, io)) {
		io_put(rt, io);
		return -EAGAIN;
	}
	fring_req_async(req);
	return 0;
}

/*
 * A zero-copy request's data can only move on its own ring: a helper
 * called on another thread is handed to the queue thread, which starts it
 * (ring_io_start_handed).
 */
int ring_helper_handoff(struct fring_req *req, int fd, off_t off, size_t size,
			bool is_write)
{
	struct ring_thread *rt = req->q->rt;
	struct ring_io *io = calloc(1, sizeof(*io));

	if (!io)
		return -ENOMEM;
	helper_init(io, req, fd, off, size, 0, is_write);
	fring_req_async(req);
	pthread_mutex_lock(&rt->lock);
	if (rt->dead) {
		pthread_mutex_unlock(&rt->lock);
		free(io);
		return -ESHUTDOWN;
	}
	io->next = rt->io_handoff;
	rt->io_handoff = io;
	pthread_mutex_unlock(&rt->lock);
	ring_thread_wake(rt);
	return 0;
}

void ring_io_start_handed(struct ring_thread *rt, struct ring_io *list)
{
	while (list) {
		struct ring_io *io = list;
		struct fring_req *req = io->req;

		list = io->next;
		if (!helper_submit(rt, io)) {
			free(io);
			/* stopping: the answer is refused anyway */
			reply_errno(req, ESHUTDOWN);
		}
	}
}
