/* SPDX-License-Identifier: MIT */
/*
 * fuse_reply_* on fring_reply_*. Each takes the request through
 * fc_answering() (a pseudo request is refused there, an interrupt
 * registration dropped) and returns libfring's 0 or negative errno, which
 * is libfuse's convention too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"

int fuse_reply_err(fuse_req_t req, int err)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_err");

	return r ? fring_reply_err(r, err) : -EINVAL;
}

/*
 * The answer of forget, forget_multi and retrieve_reply, which libfring
 * runs without a request: nothing to send. On a real request it is a
 * handler's mistake (libfuse would leave the caller waiting for good);
 * the caller gets EIO instead.
 */
void fuse_reply_none(fuse_req_t req)
{
	fring_req_t *r;

	if (!req || fc_is_pseudo(req))
		return;
	r = fc_answering(req, "fuse_reply_none");
	fc_log(FUSE_LOG_ERR,
	       "fuse: fuse_reply_none() on a request that needs an answer "
	       "(opcode %u): answering EIO\n",
	       (unsigned)fring_req_opcode(r));
	fring_reply_err(r, EIO);
}

int fuse_reply_entry(fuse_req_t req, const struct fuse_entry_param *e)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_entry");

	if (!r)
		return -EINVAL;
	return fring_reply_entry(r,
				 (const struct fring_entry *)(const void *)e);
}

int fuse_reply_create(fuse_req_t req, const struct fuse_entry_param *e,
		      const struct fuse_file_info *fi)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_create");
	struct fring_file ff;

	if (!r)
		return -EINVAL;
	fc_fi_to_fring(&ff, fi, fring_req_userdata(r));
	return fring_reply_create(
		r, (const struct fring_entry *)(const void *)e, &ff);
}

int fuse_reply_attr(fuse_req_t req, const struct stat *attr,
		    double attr_timeout)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_attr");

	return r ? fring_reply_attr(r, attr, attr_timeout) : -EINVAL;
}

int fuse_reply_readlink(fuse_req_t req, const char *link)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_readlink");

	return r ? fring_reply_readlink(r, link) : -EINVAL;
}

int fuse_reply_open(fuse_req_t req, const struct fuse_file_info *fi)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_open");
	struct fring_file ff;

	if (!r)
		return -EINVAL;
	fc_fi_to_fring(&ff, fi, fring_req_userdata(r));
	return fring_reply_open(r, &ff);
}

int fuse_reply_write(fuse_req_t req, size_t count)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_write");

	return r ? fring_reply_write(r, count) : -EINVAL;
}

int fuse_reply_buf(fuse_req_t req, const char *buf, size_t size)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_buf");

	return r ? fring_reply_buf(r, buf, size) : -EINVAL;
}

int fuse_reply_iov(fuse_req_t req, const struct iovec *iov, int count)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_iov");

	return r ? fring_reply_iov(r, iov, count) : -EINVAL;
}

/* Every buffer left in bufv (from idx, off) is memory. */
static bool all_memory(const struct fuse_bufvec *bufv)
{
	for (size_t i = bufv->idx; i < bufv->count; i++)
		if (fc_buf_at(bufv, i)->flags & FUSE_BUF_IS_FD)
			return false;
	return true;
}

/* Memory buffers: gathered by the kernel write, no copy here. */
static int reply_memory(fring_req_t *r, const struct fuse_bufvec *bufv)
{
	struct iovec small[8], *iov = small;
	size_t n = bufv->count - bufv->idx;
	int ret;

	if (n > sizeof(small) / sizeof(small[0])) {
		iov = malloc(n * sizeof(*iov));
		if (!iov) {
			fring_reply_err(r, ENOMEM);
			return -ENOMEM;
		}
	}
	fc_bufvec_iov(bufv, iov, n);
	ret = fring_reply_iov(r, iov, (int)n);
	if (iov != small)
		free(iov);
	return ret;
}

/* Anything else (fd buffers not at a known offset, several fds, fds and
 * memory mixed): copied into memory first. */
static int reply_copied(fring_req_t *r, struct fuse_bufvec *bufv,
			enum fuse_buf_copy_flags flags)
{
	size_t size = fc_bufvec_left(bufv);
	struct fuse_bufvec mem = FUSE_BUFVEC_INIT(size);
	ssize_t got;
	int ret;

	if (size == SIZE_MAX) {
		fring_reply_err(r, EINVAL);
		return -EINVAL;
	}
	mem.buf[0].mem = malloc(size ? size : 1);
	if (!mem.buf[0].mem) {
		fring_reply_err(r, ENOMEM);
		return -ENOMEM;
	}
	got = fuse_buf_copy(&mem, bufv, flags);
	if (got < 0)
		ret = fring_reply_err(r, (int)-got);
	else
		ret = fring_reply_buf(r, mem.buf[0].mem, (size_t)got);
	free(mem.buf[0].mem);
	return got < 0 ? (int)got : ret;
}

/*
 * A READ answered from a file at a known offset goes to
 * fring_read_from_fd(): the transport's own I/O (splice on dev with
 * splice_write, the ring elsewhere, the client's pages on zerocopy), and
 * the answer when it completes. Memory goes out gathered; the rest is
 * copied first.
 *
 * native gap: libfuse has copied the data when fuse_reply_data()
 * returns; fring_read_from_fd() may still be reading from fd on the ring
 * after it returns (data not cached, or zerocopy), so the descriptor must
 * stay open until the READ is answered. It does for the usual fd of an
 * open file (its RELEASE comes after its reads), not for one the handler
 * closes right away. libfring taking its own reference (a dup) for the
 * asynchronous path would lift this.
 */
int fuse_reply_data(fuse_req_t req, struct fuse_bufvec *bufv,
		    enum fuse_buf_copy_flags flags)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_data");
	const struct fuse_buf *b;

	if (!r)
		return -EINVAL;
	if (!bufv || bufv->idx >= bufv->count)
		return fring_reply_buf(r, NULL, 0);
	if (all_memory(bufv))
		return reply_memory(r, bufv);
	b = fc_buf_at(bufv, bufv->idx);
	if (bufv->count - bufv->idx == 1 && (b->flags & FUSE_BUF_FD_SEEK) &&
	    fring_req_opcode(r) == FC_OP_READ)
		return fring_read_from_fd(r, b->fd, b->pos + (off_t)bufv->off,
					  b->size - bufv->off);
	return reply_copied(r, bufv, flags);
}

int fuse_reply_statfs(fuse_req_t req, const struct statvfs *stbuf)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_statfs");

	return r ? fring_reply_statfs(r, stbuf) : -EINVAL;
}

int fuse_reply_xattr(fuse_req_t req, size_t count)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_xattr");

	return r ? fring_reply_xattr(r, count) : -EINVAL;
}

int fuse_reply_lock(fuse_req_t req, const struct flock *lock)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_lock");

	return r ? fring_reply_lock(r, lock) : -EINVAL;
}

int fuse_reply_bmap(fuse_req_t req, uint64_t idx)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_bmap");

	return r ? fring_reply_bmap(r, idx) : -EINVAL;
}

int fuse_reply_ioctl(fuse_req_t req, int result, const void *buf, size_t size)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_ioctl");

	return r ? fring_reply_ioctl(r, result, buf, size) : -EINVAL;
}

/* The output in pieces: joined, since libfring's ioctl answer takes one
 * buffer. */
int fuse_reply_ioctl_iov(fuse_req_t req, int result, const struct iovec *iov,
			 int count)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_ioctl_iov");
	size_t size = 0, at = 0;
	char *buf;
	int ret;

	if (!r)
		return -EINVAL;
	for (int i = 0; i < count; i++)
		size += iov[i].iov_len;
	buf = malloc(size ? size : 1);
	if (!buf) {
		fring_reply_err(r, ENOMEM);
		return -ENOMEM;
	}
	for (int i = 0; i < count; i++) {
		memcpy(buf + at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	ret = fring_reply_ioctl(r, result, buf, size);
	free(buf);
	return ret;
}

/*
 * A retry asks the kernel to fetch the caller's memory the handler named:
 * unrestricted ioctls, which the kernel allows only for CUSE. libfring
 * serves restricted ones (the kernel sized the buffers from the command
 * number), so this is refused: the caller gets EIO, as the kernel gives
 * a FUSE mount that tries.
 */
int fuse_reply_ioctl_retry(fuse_req_t req, const struct iovec *in_iov,
			   size_t in_count, const struct iovec *out_iov,
			   size_t out_count)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_ioctl_retry");

	(void)in_iov;
	(void)in_count;
	(void)out_iov;
	(void)out_count;
	if (!r)
		return -EINVAL;
	fc_unsupported("fuse_reply_ioctl_retry",
		       "unrestricted ioctls are CUSE's; the caller gets EIO");
	fring_reply_err(r, EIO);
	return -EOPNOTSUPP;
}

int fuse_reply_poll(fuse_req_t req, unsigned revents)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_poll");

	return r ? fring_reply_poll(r, revents) : -EINVAL;
}

int fuse_reply_lseek(fuse_req_t req, off_t off)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_lseek");

	return r ? fring_reply_lseek(r, off) : -EINVAL;
}

/* flags: libfuse passes them into fuse_statx_out.flags, which the kernel
 * does not read today; libfring's answer has no such argument. */
int fuse_reply_statx(fuse_req_t req, int flags, struct statx *statx,
		     double attr_timeout)
{
	fring_req_t *r = fc_answering(req, "fuse_reply_statx");

	(void)flags;
	return r ? fring_reply_statx(r, statx, attr_timeout) : -EINVAL;
}

/* Directory entries are encoded by libfring; the request is not used. */
size_t fuse_add_direntry(fuse_req_t req, char *buf, size_t bufsize,
			 const char *name, const struct stat *stbuf, off_t off)
{
	(void)req;
	return fring_add_direntry(NULL, buf, bufsize, name, stbuf, off);
}

size_t fuse_add_direntry_plus(fuse_req_t req, char *buf, size_t bufsize,
			      const char *name,
			      const struct fuse_entry_param *e, off_t off)
{
	(void)req;
	return fring_add_direntry_plus(
		NULL, buf, bufsize, name,
		(const struct fring_entry *)(const void *)e, off);
}

/* ---------------- passthrough ---------------- */

/* Any request, a forget's included: libfuse servers close backing ids
 * when an inode is forgotten. */
static fring_session_t *session_of(fuse_req_t req)
{
	struct fuse_session *se = req ? fc_session_of(req) : NULL;

	return se ? se->fs : NULL;
}

int fuse_passthrough_open(fuse_req_t req, int fd)
{
	fring_session_t *fs = session_of(req);
	int id = fs ? fring_backing_open(fs, fd) : -EINVAL;

	if (id > 0)
		return id;
	fc_log(FUSE_LOG_ERR, "fuse: passthrough_open: %s\n", strerror(-id));
	return 0;
}

int fuse_passthrough_close(fuse_req_t req, int backing_id)
{
	fring_session_t *fs = session_of(req);
	int ret = fs ? fring_backing_close(fs, backing_id) : -EINVAL;

	if (ret < 0)
		fc_log(FUSE_LOG_ERR, "fuse: passthrough_close: %s\n",
		       strerror(-ret));
	return ret;
}
