/* SPDX-License-Identifier: MIT */
/*
 * fuse_buf_size() and fuse_buf_copy(): moving bytes between the buffers of
 * two fuse_bufvecs, each a memory area or a file descriptor (at its own
 * position with FUSE_BUF_FD_SEEK, at the descriptor's current one
 * without). The copy advances both vectors' (idx, off) by what it moved
 * and stops at the end of either, at end of file, or at the first short
 * transfer (unless FUSE_BUF_FD_RETRY asks to go on); an error after some
 * bytes moved ends it with the count so far. write_buf's buffer of a
 * WRITE whose data is not memory (compat.h, FC_BUF_WRITE_DATA) is read
 * through libfring's helpers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"

/* the element size of the older layout: the fields before mem_size,
 * padded to the structure's alignment */
#define OLD_BUF_SIZE                                                           \
	((offsetof(struct fuse_buf, mem_size) + _Alignof(struct fuse_buf) -    \
	  1) &                                                                 \
	 ~(_Alignof(struct fuse_buf) - 1))

atomic_size_t fc_buf_stride = sizeof(struct fuse_buf);

void fc_buf_layout(const struct libfuse_version *v)
{
	bool newer = v->major > 3 || (v->major == 3 && v->minor >= 17);

	atomic_store(&fc_buf_stride,
		     newer ? sizeof(struct fuse_buf) : OLD_BUF_SIZE);
}

size_t fuse_buf_size(const struct fuse_bufvec *bufv)
{
	size_t total = 0;

	for (size_t i = 0; i < bufv->count; i++) {
		size_t s = fc_buf_at(bufv, i)->size;

		if (s >= SIZE_MAX - total)
			return SIZE_MAX;
		total += s;
	}
	return total;
}

size_t fc_bufvec_left(const struct fuse_bufvec *bufv)
{
	size_t left = 0;

	for (size_t i = bufv->idx; i < bufv->count; i++) {
		size_t s = fc_buf_at(bufv, i)->size;

		if (i == bufv->idx)
			s -= bufv->off < s ? bufv->off : s;
		if (s >= SIZE_MAX - left)
			return SIZE_MAX;
		left += s;
	}
	return left;
}

void fc_bufvec_iov(const struct fuse_bufvec *bufv, struct iovec *iov, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct fuse_buf *b = fc_buf_at(bufv, bufv->idx + i);
		size_t skip = i == 0 ? bufv->off : 0;

		iov[i].iov_base = (char *)b->mem + skip;
		iov[i].iov_len = b->size - skip;
	}
}

/* ---------------- one transfer between two buffers ---------------- */

static bool is_fd(const struct fuse_buf *b)
{
	return (b->flags & FUSE_BUF_IS_FD) != 0;
}

/* Once into or out of an fd buffer: pread/pwrite at its position plus off
 * with FD_SEEK, read/write at the descriptor's own position without. */
static ssize_t fd_io(const struct fuse_buf *b, size_t off, void *mem,
		     size_t len, bool writing)
{
	ssize_t n;

	do {
		if (b->flags & FUSE_BUF_FD_SEEK)
			n = writing ? pwrite(b->fd, mem, len,
					     b->pos + (off_t)off)
				    : pread(b->fd, mem, len,
					    b->pos + (off_t)off);
		else
			n = writing ? write(b->fd, mem, len)
				    : read(b->fd, mem, len);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* len bytes between memory and an fd buffer; with FD_RETRY short
 * transfers are continued until len, end of file, or an error. */
static ssize_t fd_rw(const struct fuse_buf *b, size_t off, char *mem,
		     size_t len, bool writing)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n =
			fd_io(b, off + done, mem + done, len - done, writing);

		if (n < 0)
			return done ? (ssize_t)done : n;
		if (n == 0)
			break;
		done += (size_t)n;
		if (!(b->flags & FUSE_BUF_FD_RETRY))
			break;
	}
	return (ssize_t)done;
}

/* fd to fd through a bounce buffer (portable; a pipe in the middle would
 * save the copy only for some pairs of file types). */
static ssize_t fd_to_fd(const struct fuse_buf *dst, size_t doff,
			const struct fuse_buf *src, size_t soff, size_t len)
{
	size_t chunk = len < (1u << 20) ? len : (1u << 20);
	char *bounce = malloc(chunk ? chunk : 1);
	size_t done = 0;
	ssize_t ret = 0;

	if (!bounce)
		return -ENOMEM;
	while (done < len) {
		size_t want = len - done < chunk ? len - done : chunk;
		ssize_t got = fd_rw(src, soff + done, bounce, want, false);
		ssize_t put;

		if (got <= 0) {
			ret = got;
			break;
		}
		put = fd_rw(dst, doff + done, bounce, (size_t)got, true);
		if (put < 0) {
			ret = put;
			break;
		}
		done += (size_t)put;
		if (put < got || (size_t)got < want)
			break;
	}
	free(bounce);
	return done ? (ssize_t)done : ret;
}

/* From a WRITE's data that is not memory (compat.h): libfring moves it
 * with the transport's operation; it is read-only. */
static ssize_t from_write_data(const struct fuse_buf *dst, size_t doff,
			       const struct fuse_buf *src, size_t soff,
			       size_t len)
{
	fring_req_t *r = fc_buf_write_req(src);

	if (fc_buf_is_write_data(dst))
		return -EINVAL;
	if (!is_fd(dst))
		return fring_write_data_copy(r, soff, (char *)dst->mem + doff,
					     len);
	return fring_write_data_to_fd(
		r, soff, dst->fd,
		dst->flags & FUSE_BUF_FD_SEEK ? dst->pos + (off_t)doff : -1,
		len);
}

static ssize_t copy_one(const struct fuse_buf *dst, size_t doff,
			const struct fuse_buf *src, size_t soff, size_t len)
{
	if (fc_buf_is_write_data(src))
		return from_write_data(dst, doff, src, soff, len);
	if (fc_buf_is_write_data(dst))
		return -EINVAL;
	if (!is_fd(dst) && !is_fd(src)) {
		/* memmove: the two may be the same buffer, or overlap */
		memmove((char *)dst->mem + doff, (const char *)src->mem + soff,
			len);
		return (ssize_t)len;
	}
	if (!is_fd(src))
		return fd_rw(dst, doff, (char *)src->mem + soff, len, true);
	if (!is_fd(dst))
		return fd_rw(src, soff, (char *)dst->mem + doff, len, false);
	return fd_to_fd(dst, doff, src, soff, len);
}

/* Moves v's position len bytes on; false once v is used up. */
static bool advance(struct fuse_bufvec *v, size_t len)
{
	v->off += len;
	if (v->off < fc_buf_at(v, v->idx)->size)
		return true;
	v->idx++;
	v->off = 0;
	return v->idx < v->count;
}

/*
 * The splice flags (NO_SPLICE, FORCE_SPLICE, SPLICE_MOVE,
 * SPLICE_NONBLOCK) only choose how libfuse moves fd-to-fd data; the result
 * is the same bytes, so they are accepted and the copy done as above. A
 * WRITE's data that is not memory moves the transport's way (splice from
 * the pipe, WRITE_FIXED from the client's pages) whatever they say.
 */
ssize_t fuse_buf_copy(struct fuse_bufvec *dstv, struct fuse_bufvec *srcv,
		      enum fuse_buf_copy_flags flags)
{
	size_t copied = 0;

	(void)flags;
	if (dstv == srcv)
		return (ssize_t)fuse_buf_size(dstv);
	while (dstv->idx < dstv->count && srcv->idx < srcv->count) {
		const struct fuse_buf *d = fc_buf_at(dstv, dstv->idx);
		const struct fuse_buf *s = fc_buf_at(srcv, srcv->idx);
		size_t dlen = d->size - dstv->off, slen = s->size - srcv->off;
		size_t len = dlen < slen ? dlen : slen;
		ssize_t n;

		if (!len) {
			/* an empty buffer: step over it */
			if (!dlen && !advance(dstv, 0))
				break;
			if (!slen && !advance(srcv, 0))
				break;
			continue;
		}
		n = copy_one(d, dstv->off, s, srcv->off, len);
		if (n < 0)
			return copied ? (ssize_t)copied : n;
		copied += (size_t)n;
		if (!n)
			break;
		/* both advance, even when one ends: (idx, off) say how far */
		bool more = advance(srcv, (size_t)n);

		more = advance(dstv, (size_t)n) && more;
		if (!more || (size_t)n < len)
			break;
	}
	return (ssize_t)copied;
}
