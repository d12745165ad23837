/* SPDX-License-Identifier: MIT */
/*
 * Data helpers: move a READ's or WRITE's data between the request and a
 * file descriptor with the operation that suits the transport, and answer.
 * The classic transport does it synchronously with pread/pwrite straight
 * into (out of) the request's buffer: no intermediate copy; or, with the
 * splice options, through pipes (splice.c).
 */
#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ring.h"

static int wrong_op(struct fring_req *req, const char *helper)
{
	stat_add(req->q, handler_bugs, 1);
	fr_err("handler bug: %s used for %s; answering EIO", helper,
	       fring_opname(req->opcode));
	return reply_errno(req, EIO);
}

/*
 * Moves size bytes between the request's buffer and fd at off with
 * pread/pwrite, the first done of them already moved, continuing short
 * transfers. Returns the bytes moved, or -errno when nothing moved (data
 * already moved is still a good answer).
 */
static ssize_t sync_transfer(struct fring_req *req, int fd, off_t off,
			     size_t size, size_t done, bool is_write)
{
	char *p = req->buf.mem;

	while (done < size) {
		ssize_t n = is_write ? pwrite(fd, p + done, size - done,
					      off + (off_t)done)
				     : pread(fd, p + done, size - done,
					     off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return done ? (ssize_t)done : -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

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
	cls = fd_class_get(fd, is_write);
	if (cls == FD_CLASS_MEMORY)
		return sync_transfer(req, fd, off, size, 0, is_write);
	if (cls == FD_CLASS_RING)
		return -EAGAIN;
	n = is_write ? pwritev2(fd, &iov, 1, off, RWF_NOWAIT)
		     : preadv2(fd, &iov, 1, off, RWF_NOWAIT);
	err = n < 0 ? errno : 0;
	if (cls == FD_CLASS_UNKNOWN)
		cls = fd_class_learn(fd, is_write, err);
	if (n == (ssize_t)size || (n == 0 && !is_write))
		return n;
	if (cls == FD_CLASS_MEMORY)
		return sync_transfer(req, fd, off, size, 0, is_write);
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
static ssize_t ring_transfer(struct fring_req *req, int fd, off_t off,
			     size_t size, bool is_write, size_t *done)
{
	ssize_t n = inline_try(req, fd, off, size, is_write, done);

	if (n != -EAGAIN) {
		stat_add(req->q, io_inline, 1);
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
static int fixed_transfer(struct fring_req *req, int fd, off_t off, size_t size,
			  bool is_write)
{
	int ret;

	if (size == 0)
		return is_write ? fring_reply_write(req, 0)
				: fring_reply_data(req, 0);
	ret = ring_on_thread_of(req)
		      ? ring_helper_start(req, fd, off, size, 0, is_write)
		      : ring_helper_handoff(req, fd, off, size, is_write);
	if (!ret)
		stat_add(req->q, io_ring, 1);
	return ret ? reply_errno(req, ret == -EAGAIN ? ESHUTDOWN : -ret) : 0;
}

/* n: bytes moved, a negative errno, or -EINPROGRESS (the ring answers) */
static int transfer_answer(fring_req_t *req, ssize_t n, bool is_write)
{
	if (n == -EINPROGRESS)
		return 0;
	if (n < 0)
		return reply_errno(req, (int)-n);
	return is_write ? fring_reply_write(req, (size_t)n)
			: fring_reply_data(req, (size_t)n);
}

int fring_read_from_fd(fring_req_t *req, int fd, off_t off, size_t size)
{
	size_t done = 0;
	ssize_t n;

	if (req->opcode != FUSE_READ)
		return wrong_op(req, "fring_read_from_fd");
	if (size > req->buf.size)
		size = req->buf.size;
	if (req->buf.kind == FRING_BUF_FIXED)
		return fixed_transfer(req, fd, off, size, false);
	/* On the queue thread of a ring: in place if that cannot block, else
	 * READ on the same ring */
	if (ring_on_thread_of(req)) {
		n = ring_transfer(req, fd, off, size, false, &done);
		if (n != -EAGAIN)
			return transfer_answer(req, n, false);
	}
	if ((req->se->splice & FUSE_SPLICE_WRITE) && size &&
	    splice_read_from_fd(req, fd, off, size))
		return 0;
	n = sync_transfer(req, fd, off, size, done, false);
	return transfer_answer(req, n, false);
}

int fring_write_to_fd(fring_req_t *req, int fd, off_t off)
{
	size_t done = 0;
	ssize_t n;

	if (req->opcode != FUSE_WRITE)
		return wrong_op(req, "fring_write_to_fd");
	if (req->buf.kind == FRING_BUF_FIXED)
		return fixed_transfer(req, fd, off, req->buf.size, true);
	if (ring_on_thread_of(req)) {
		n = ring_transfer(req, fd, off, req->buf.size, true, &done);
		if (n != -EAGAIN)
			return transfer_answer(req, n, true);
	}
	/* splice_read: the payload may still be in the queue's pipe */
	if (req->pipe_in && splice_write_to_fd(req, fd, off))
		return 0;
	n = sync_transfer(req, fd, off, req->buf.size, done, true);
	return transfer_answer(req, n, true);
}
