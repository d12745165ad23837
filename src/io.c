/* SPDX-License-Identifier: MIT */
/*
 * Data helpers: move a READ's or WRITE's data between the request and a
 * file descriptor with the operation that suits the transport, and answer.
 * This file checks the call and answers; the move itself is the queue's
 * transport's (tp->transfer: the ring's fixed ops and ring I/O in
 * src/ring/io.c, the classic transport's splice in src/dev/splice.c), or
 * pread/pwrite straight into (out of) the request's memory buffer: no
 * intermediate copy. fring_write_data_to_fd() / _copy() move a WRITE's
 * data the same ways (tp->write_data) without answering: the handler does.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "reply.h"

/*
 * Bytes [done, size) of p to or from fd at off + done (at_pos: write(2) at
 * the descriptor's position instead), short transfers continued; data
 * already moved is still a good answer, so an error after some bytes
 * returns the bytes.
 */
static ssize_t move_loop(int fd, char *p, off_t off, size_t size, size_t done,
			 bool is_write, bool at_pos)
{
	while (done < size) {
		ssize_t n;

		if (at_pos)
			n = write(fd, p + done, size - done);
		else if (is_write)
			n = pwrite(fd, p + done, size - done,
				   off + (off_t)done);
		else
			n = pread(fd, p + done, size - done, off + (off_t)done);
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

ssize_t io_sync_transfer(struct fring_req *req, int fd, off_t off, size_t size,
			 size_t done, bool is_write)
{
	return move_loop(fd, req->buf.mem, off, size, done, is_write, false);
}

/* n: bytes moved, a negative errno, or -EINPROGRESS (the transport
 * answers) */
static int transfer_answer(fring_req_t *req, ssize_t n, bool is_write)
{
	if (n == -EINPROGRESS)
		return 0;
	if (n < 0)
		return reply_errno(req, (int)-n);
	return is_write ? fring_reply_write(req, (size_t)n)
			: fring_reply_data(req, (size_t)n);
}

static int transfer(fring_req_t *req, int fd, off_t off, size_t size,
		    bool is_write)
{
	const struct fring_tp *tp = req->q->tp;
	ssize_t n = tp->transfer
			    ? tp->transfer(req, fd, off, size, is_write)
			    : io_sync_transfer(req, fd, off, size, 0, is_write);

	return transfer_answer(req, n, is_write);
}

int fring_read_from_fd(fring_req_t *req, int fd, off_t off, size_t size)
{
	if (req->opcode != FUSE_READ)
		return reply_bug(req, "fring_read_from_fd on a request that "
				      "is not a READ");
	if (size > req->buf.size)
		size = req->buf.size;
	return transfer(req, fd, off, size, false);
}

int fring_write_to_fd(fring_req_t *req, int fd, off_t off)
{
	if (req->opcode != FUSE_WRITE)
		return reply_bug(req, "fring_write_to_fd on a request that "
				      "is not a WRITE");
	return transfer(req, fd, off, req->buf.size, true);
}

/* ---------------- a WRITE's data, without answering ---------------- */

ssize_t io_write_data_mem(struct fring_req *req, size_t data_off, int fd,
			  off_t off, void *dst, size_t len)
{
	char *p = (char *)req->buf.mem + data_off;

	if (dst) {
		memcpy(dst, p, len);
		return (ssize_t)len;
	}
	return move_loop(fd, p, off, len, 0, true, off < 0);
}

/* The checks both helpers share; the range is cut to the data's end. */
static ssize_t write_data(fring_req_t *req, size_t data_off, int fd, off_t off,
			  void *dst, size_t len)
{
	const struct fring_tp *tp;

	if (!req || req->opcode != FUSE_WRITE)
		return -EINVAL;
	if (atomic_load(&req->answered))
		return -EALREADY;
	if (data_off > req->buf.size)
		return -EINVAL;
	if (len > req->buf.size - data_off)
		len = req->buf.size - data_off;
	if (!len)
		return 0;
	tp = req->q->tp;
	return tp->write_data
		       ? tp->write_data(req, data_off, fd, off, dst, len)
		       : io_write_data_mem(req, data_off, fd, off, dst, len);
}

ssize_t fring_write_data_to_fd(fring_req_t *req, size_t data_off, int fd,
			       off_t off, size_t len)
{
	if (fd < 0)
		return -EBADF;
	if (off < -1)
		return -EINVAL;
	return write_data(req, data_off, fd, off, NULL, len);
}

ssize_t fring_write_data_copy(fring_req_t *req, size_t data_off, void *dst,
			      size_t len)
{
	if (!dst)
		return len ? -EFAULT : 0;
	return write_data(req, data_off, -1, 0, dst, len);
}
