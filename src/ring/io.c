/* SPDX-License-Identifier: MIT */
/*
 * Handler I/O on the queue's ring: the public fring_io_* calls, and the
 * ring's part of the data helpers (tp->transfer): in place when that
 * cannot block, else READ into / WRITE from the entry's payload on the
 * ring, resubmitted until complete, then answered; fixed ops on the
 * client's pages on zero-copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fdclass.h"
#include "reply.h"
#include "ring_int.h"

/*
 * The thread's free list: only the queue thread touches it (no lock).
 * A recycled ring_io is zeroed like a fresh one, so no flag of its last
 * use (a synchronous op's sync_op, a helper's pipe state) carries over.
 */
struct ring_io *ring_io_get(struct ring_thread *rt)
{
	struct ring_io *io = rt->io_free;

	if (io) {
		rt->io_free = io->next;
		memset(io, 0, sizeof(*io));
		return io;
	}
	return calloc(1, sizeof(*io));
}

void ring_io_put(struct ring_thread *rt, struct ring_io *io)
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

	io->zc_track = ring_ent(req)->zc != ZC_NONE &&
		       (sqe->opcode == IORING_OP_READ_FIXED ||
			sqe->opcode == IORING_OP_WRITE_FIXED) &&
		       sqe->buf_index == ring_ent(req)->zc_slot;
	if (io->zc_track) {
		io->zc_addr = sqe->addr;
		ring_ent(req)->zc_inflight++;
	}
}

/* Bytes a tracked op moved count when they continue what is moved. */
static void zc_done(struct ring_thread *rt, struct ring_io *io, int res)
{
	struct fring_req *req = io->req;

	if (!io->zc_track)
		return;
	io->zc_track = false;
	ring_ent(req)->zc_inflight--;
	if (res > 0 && io->zc_addr <= ring_ent(req)->zc_moved &&
	    io->zc_addr + (uint64_t)res > ring_ent(req)->zc_moved)
		ring_ent(req)->zc_moved =
			(uint32_t)(io->zc_addr + (uint64_t)res);
	if (!ring_ent(req)->zc_inflight && ring_ent(req)->commit_held &&
	    !rt_stopping(rt))
		ring_commit(rt, req);
}

int fring_io_submit(fring_req_t *req, struct io_uring_sqe *sqe, fring_io_cb cb,
		    void *data)
{
	struct ring_thread *rt = req->q->rt;
	struct ring_io *io;

	if (!sqe || !ring_on_thread_of(req))
		return -EINVAL;
	io = ring_io_get(rt);
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

/*
 * The transfer's next op on the ring. 1: queued; 0: nothing left to move
 * (the pipe met the end of the file); -EAGAIN: no SQE (the ring is
 * stopping, or a zero-copy slot may no longer be touched); another -errno:
 * the pipe's splice failed.
 */
static int helper_submit(struct ring_thread *rt, struct ring_io *io)
{
	struct fring_req *req = io->req;
	struct io_uring_sqe *sqe;
	unsigned len = (unsigned)(io->size - io->done);
	uint64_t off = (uint64_t)(io->off + (off_t)io->done);
	int bi = req->buf.buf_index, fd = io->fd;
	ssize_t piped = -EAGAIN;
	char *p;

	if (io->pipe_ok && !io->is_write) {
		piped = rt_pipe_fill(rt, fd, (off_t)off, len);
		if (piped == 0 || (piped < 0 && piped != -EAGAIN))
			return (int)piped;
	} else if (io->pipe_ok && rt_pipe_take(rt, len)) {
		piped = len;
	}
	sqe = ring_io_sqe(req);
	if (!sqe) {
		if (piped > 0)
			rt_pipe_discard(rt, len,
					io->is_write ? 0 : (size_t)piped);
		return -EAGAIN;
	}
	if (piped > 0) {
		/* from (into) the pipe, at its position: no offset */
		io->pipe_size = len;
		io->pipe_len = (size_t)piped;
		len = (unsigned)piped;
		fd = rt->pipe_fd[io->is_write ? 1 : 0];
		off = UINT64_MAX;
		stat_add(req->q, zero_copy_piped, 1);
	}
	/* FIXED: the client's pages, addressed from 0; a registered pool
	 * by address, without page pinning per I/O */
	p = req->buf.kind == FRING_BUF_FIXED
		    ? (char *)(uintptr_t)(req->buf.buf_addr + io->done)
		    : (char *)req->buf.mem + io->done;
	if (io->is_write && bi >= 0)
		io_uring_prep_write_fixed(sqe, fd, p, len, off, bi);
	else if (io->is_write)
		io_uring_prep_write(sqe, fd, p, len, off);
	else if (bi >= 0)
		io_uring_prep_read_fixed(sqe, fd, p, len, off, bi);
	else
		io_uring_prep_read(sqe, fd, p, len, off);
	zc_track(io, sqe);
	ring_io_arm(io, sqe);
	return 1;
}

/* The transfer ends: answered with what moved, or err when nothing did. */
static void helper_answer(struct ring_thread *rt, struct ring_io *io, int err)
{
	struct fring_req *req = io->req;
	bool is_write = io->is_write;
	size_t done = io->done;

	ring_io_put(rt, io);
	if (err && !done)
		reply_errno(req, err);
	else if (is_write)
		fring_reply_write(req, done);
	else
		fring_reply_data(req, done);
}

/* An op through the pipe is back: res as the file's transfer would have
 * answered, or -EAGAIN when its bytes must move again without the pipe. */
static int pipe_step(struct ring_thread *rt, struct ring_io *io, int res)
{
	size_t size = io->pipe_size, len = io->pipe_len;
	bool in_step = res >= 0 && (size_t)res == len;
	bool trusted = in_step && !rt->pipe_broken;

	io->pipe_size = 0;
	if (io->is_write)
		return (int)rt_pipe_empty_to(
			rt, io->fd, io->off + (off_t)io->done, len, res);
	rt_pipe_give(rt, size, in_step);
	return trusted ? res : -EAGAIN;
}

/* Continues a helper's transfer or answers it. */
static void helper_step(struct ring_thread *rt, struct ring_io *io, int res)
{
	int next;

	if (io->pipe_size) {
		res = pipe_step(rt, io, res);
		if (res == -EAGAIN) {
			/* the pipe went out of step: the same bytes again,
			 * by a fixed op on the file */
			io->pipe_ok = false;
			next = helper_submit(rt, io);
			if (next != 1)
				helper_answer(rt, io,
					      next == -EAGAIN ? ESHUTDOWN
							      : -next);
			return;
		}
	}
	if (res > 0) {
		io->done += (size_t)res;
		if (io->done < io->size) {
			next = helper_submit(rt, io);
			if (next == 1)
				return;
			res = next;
		}
	}
	/* EOF, a short transfer after some data, or an error after some:
	 * answer what was moved */
	helper_answer(rt, io, res < 0 ? -res : 0);
}

void ring_io_complete(struct ring_thread *rt, struct ring_io *io, int res)
{
	if (!io)
		return;
	zc_done(rt, io, res);
	if (io->sync_op) {
		ring_sync_done(rt, io, res);
		return;
	}
	if (rt_stopping(rt)) {
		if (io->pipe_size)
			rt_pipe_give(rt, io->pipe_size, true);
		ring_io_put(rt, io);
		return;
	}
	if (!io->cb) {
		helper_step(rt, io, res);
		return;
	}
	fring_io_cb cb = io->cb;
	void *data = io->data;
	struct fring_req *req = io->req;

	ring_io_put(rt, io);
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
	/* small zero-copy transfers on a file in memory: through the pipe */
	io->pipe_ok = req->buf.kind == FRING_BUF_FIXED &&
		      size - done <= req->se->cfg.zc_pipe_max &&
		      fd_class_in_memory(&req->q->rt->fdclass, fd, is_write);
	io->pipe_size = 0;
}

int ring_helper_start(struct fring_req *req, int fd, off_t off, size_t size,
		      size_t done, bool is_write)
{
	struct ring_thread *rt = req->q->rt;
	struct ring_io *io = ring_io_get(rt);
	int ret;

	if (!io)
		return -ENOMEM;
	helper_init(io, req, fd, off, size, done, is_write);
	ret = done >= size ? -EAGAIN : helper_submit(rt, io);
	if (ret != 1) {
		ring_io_put(rt, io);
		return ret ? ret : 1;
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
	if (ring_io_hand(rt, io)) {
		free(io);
		return -ESHUTDOWN;
	}
	return 0;
}

int ring_io_hand(struct ring_thread *rt, struct ring_io *io)
{
	pthread_mutex_lock(&rt->lock);
	if (rt->state == RT_RETIRED) {
		pthread_mutex_unlock(&rt->lock);
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
		int ret;

		list = io->next;
		if (io->sync_op) {
			ring_sync_start(rt, io);
			continue;
		}
		ret = helper_submit(rt, io);
		if (ret != 1) {
			free(io);
			if (!ret)
				fring_reply_data(req, 0); /* at the end */
			else
				/* stopping, the answer is refused anyway;
				 * or the pipe's splice failed */
				reply_errno(req,
					    ret == -EAGAIN ? ESHUTDOWN : -ret);
		}
	}
}

/* ---------------- the data helpers ---------------- */

/*
 * A transfer on a queue thread, done in place when it cannot block.
 * io_uring hands a read or write that would block to an io-wq worker, and
 * so every one on a file that cannot say whether it would (tmpfs): two
 * context switches per request, which cost more than the overlap gains
 * (doc/benchmarks.md: 4 KiB randread, and 1 MiB reads on 2 CPUs). Up to
 * -o inline_max bytes. Returns the bytes moved, or -EAGAIN when the ring
 * must do it, with *done the bytes RWF_NOWAIT moved already (the page
 * cache held only part of the range): they are not moved twice, which for
 * an O_APPEND descriptor would write them twice.
 */
static ssize_t inline_try(struct fring_req *req, int fd, off_t off, size_t size,
			  bool is_write, size_t *done)
{
	struct iovec iov = {.iov_base = req->buf.mem, .iov_len = size};
	enum fd_class cls;
	ssize_t n;
	int err;

	*done = 0;
	if (size == 0 || size > req->se->cfg.inline_max)
		return -EAGAIN;
	cls = fd_class_get(&req->q->rt->fdclass, fd, is_write);
	if (cls == FD_CLASS_MEMORY)
		return io_sync_transfer(req, fd, off, size, 0, is_write);
	if (cls == FD_CLASS_RING)
		return -EAGAIN;
	n = is_write ? pwritev2(fd, &iov, 1, off, RWF_NOWAIT)
		     : preadv2(fd, &iov, 1, off, RWF_NOWAIT);
	err = n < 0 ? errno : 0;
	if (cls == FD_CLASS_UNKNOWN)
		cls = fd_class_learn(&req->q->rt->fdclass, fd, is_write, err);
	if (n == (ssize_t)size || (n == 0 && !is_write))
		return n;
	if (cls == FD_CLASS_MEMORY)
		return io_sync_transfer(req, fd, off, size, 0, is_write);
	if (err && err != EAGAIN && err != EOPNOTSUPP)
		return -err;
	if (n > 0)
		*done = (size_t)n;
	return -EAGAIN;
}

/*
 * On a ring queue thread: in place if that cannot block, else on the
 * ring. Returns the bytes moved, -errno, or -EINPROGRESS when the ring
 * will answer; -EAGAIN when neither could take it, with *done bytes moved.
 */
static ssize_t thread_transfer(struct fring_req *req, int fd, off_t off,
			       size_t size, bool is_write, size_t *done)
{
	ssize_t n = inline_try(req, fd, off, size, is_write, done);

	if (n != -EAGAIN) {
		stat_add_own(req->q, io_inline, 1);
		return n;
	}
	if (ring_helper_start(req, fd, off, size, *done, is_write))
		return -EAGAIN;
	stat_add(req->q, io_ring, 1);
	return -EINPROGRESS;
}

/*
 * The client's pages (FIXED) are reachable only through fixed ops on the
 * queue's own ring: started here on its thread, handed to it from others.
 */
static ssize_t fixed_transfer(struct fring_req *req, int fd, off_t off,
			      size_t size, bool is_write)
{
	int ret;

	if (size == 0)
		return 0;
	if (!is_write) {
		/* a file in memory: through the pipe, answered now */
		ssize_t n = ring_read_piped(req, fd, off, size);

		if (n != -EAGAIN)
			return n;
	}
	ret = ring_on_thread_of(req)
		      ? ring_helper_start(req, fd, off, size, 0, is_write)
		      : ring_helper_handoff(req, fd, off, size, is_write);
	if (ret == 1)
		return 0; /* the pipe met the end of the file */
	if (ret)
		return ret == -EAGAIN ? -ESHUTDOWN : ret;
	stat_add(req->q, io_ring, 1);
	return -EINPROGRESS;
}

/*
 * The data helpers on the ring (tp->transfer; io.c checks and answers):
 * the client's pages only by fixed ops; on the queue's own thread in place
 * when that cannot block, else on its ring; from any other thread, or
 * when the ring could not take it, pread/pwrite.
 */
ssize_t ring_transfer(struct fring_req *req, int fd, off_t off, size_t size,
		      bool is_write)
{
	size_t done = 0;
	ssize_t n;

	if (req->buf.kind == FRING_BUF_FIXED)
		return fixed_transfer(req, fd, off, size, is_write);
	if (ring_on_thread_of(req)) {
		n = thread_transfer(req, fd, off, size, is_write, &done);
		if (n != -EAGAIN)
			return n;
	}
	return io_sync_transfer(req, fd, off, size, done, is_write);
}
