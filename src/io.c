/* SPDX-License-Identifier: MIT */
/*
 * Data helpers: move a READ's or WRITE's data between the request and a
 * file descriptor with the operation that suits the transport, and answer.
 * The classic transport does it synchronously with pread/pwrite straight
 * into (out of) the request's buffer: no intermediate copy; or, with the
 * splice options, through pipes (splice.c).
 */
#include <errno.h>
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
 * pread/pwrite, continuing short transfers. Returns the bytes moved, or
 * -errno when nothing moved (data already moved is still a good answer).
 */
static ssize_t sync_transfer(struct fring_req *req, int fd, off_t off,
			     size_t size, bool is_write)
{
	char *p = req->buf.mem;
	size_t done = 0;

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
		      ? ring_helper_start(req, fd, off, size, is_write)
		      : ring_helper_handoff(req, fd, off, size, is_write);
	return ret ? reply_errno(req, ret == -EAGAIN ? ESHUTDOWN : -ret) : 0;
}

int fring_read_from_fd(fring_req_t *req, int fd, off_t off, size_t size)
{
	ssize_t n;

	if (req->opcode != FUSE_READ)
		return wrong_op(req, "fring_read_from_fd");
	if (size > req->buf.size)
		size = req->buf.size;
	if (req->buf.kind == FRING_BUF_FIXED)
		return fixed_transfer(req, fd, off, size, false);
	/* On the queue thread of a ring: READ on the same ring, no blocking */
	if (ring_on_thread_of(req) &&
	    ring_helper_start(req, fd, off, size, false) == 0)
		return 0;
	if ((req->se->splice & FUSE_SPLICE_WRITE) && size &&
	    splice_read_from_fd(req, fd, off, size))
		return 0;
	n = sync_transfer(req, fd, off, size, false);
	return n < 0 ? reply_errno(req, (int)-n)
		     : fring_reply_data(req, (size_t)n);
}

int fring_write_to_fd(fring_req_t *req, int fd, off_t off)
{
	ssize_t n;

	if (req->opcode != FUSE_WRITE)
		return wrong_op(req, "fring_write_to_fd");
	if (req->buf.kind == FRING_BUF_FIXED)
		return fixed_transfer(req, fd, off, req->buf.size, true);
	if (ring_on_thread_of(req) &&
	    ring_helper_start(req, fd, off, req->buf.size, true) == 0)
		return 0;
	/* splice_read: the payload may still be in the queue's pipe */
	if (req->pipe_in && splice_write_to_fd(req, fd, off))
		return 0;
	n = sync_transfer(req, fd, off, req->buf.size, true);
	return n < 0 ? reply_errno(req, (int)-n)
		     : fring_reply_write(req, (size_t)n);
}
