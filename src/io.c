/* SPDX-License-Identifier: MIT */
/*
 * Data helpers: move a READ's or WRITE's data between the request and a
 * file descriptor with the operation that suits the transport, and answer.
 * The classic transport does it synchronously with pread/pwrite straight
 * into (out of) the request's buffer: no intermediate copy.
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

int fring_read_from_fd(fring_req_t *req, int fd, off_t off, size_t size)
{
	size_t done = 0;

	if (req->opcode != FUSE_READ || req->buf.kind != FRING_BUF_MEM)
		return wrong_op(req, "fring_read_from_fd");
	if (size > req->buf.size)
		size = req->buf.size;
	/* On the queue thread of a ring: READ on the same ring, no blocking */
	if (ring_on_thread_of(req) &&
	    ring_helper_start(req, fd, off, size, false) == 0)
		return 0;
	while (done < size) {
		ssize_t n = pread(fd, (char *)req->buf.mem + done, size - done,
				  off + (off_t)done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Data already read is still good: a short read. */
			if (done)
				break;
			return reply_errno(req, errno);
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return fring_reply_data(req, done);
}

int fring_write_to_fd(fring_req_t *req, int fd, off_t off)
{
	size_t done = 0, size = req->buf.size;

	if (req->opcode != FUSE_WRITE || req->buf.kind != FRING_BUF_MEM)
		return wrong_op(req, "fring_write_to_fd");
	if (ring_on_thread_of(req) &&
	    ring_helper_start(req, fd, off, size, true) == 0)
		return 0;
	while (done < size) {
		ssize_t n = pwrite(fd, (const char *)req->buf.mem + done,
				   size - done, off + (off_t)done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (done)
				break;
			return reply_errno(req, errno);
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return fring_reply_write(req, done);
}
