/* SPDX-License-Identifier: MIT */
/*
 * fuse_lowlevel_notify_* on fring_notify_*, and poll handles (libfuse's
 * struct fuse_pollhandle is libfring's fring_pollhandle_t, cast). The
 * return values are libfring's 0 or negative errno, as libfuse's.
 */
#include <errno.h>
#include <stdlib.h>

#include "compat.h"

static fring_session_t *fs_of(struct fuse_session *se)
{
	return se ? se->fs : NULL;
}

int fuse_lowlevel_notify_poll(struct fuse_pollhandle *ph)
{
	return fring_notify_poll((fring_pollhandle_t *)(void *)ph);
}

void fuse_pollhandle_destroy(struct fuse_pollhandle *ph)
{
	fring_pollhandle_destroy((fring_pollhandle_t *)(void *)ph);
}

int fuse_lowlevel_notify_inval_inode(struct fuse_session *se, fuse_ino_t ino,
				     off_t off, off_t len)
{
	fring_session_t *fs = fs_of(se);

	return fs ? fring_notify_inval_inode(fs, ino, off, len) : -EINVAL;
}

int fuse_lowlevel_notify_increment_epoch(struct fuse_session *se)
{
	fring_session_t *fs = fs_of(se);

	return fs ? fring_notify_inc_epoch(fs) : -EINVAL;
}

int fuse_lowlevel_notify_inval_entry(struct fuse_session *se, fuse_ino_t parent,
				     const char *name, size_t namelen)
{
	fring_session_t *fs = fs_of(se);

	return fs ? fring_notify_inval_entry(fs, parent, name, namelen)
		  : -EINVAL;
}

int fuse_lowlevel_notify_expire_entry(struct fuse_session *se,
				      fuse_ino_t parent, const char *name,
				      size_t namelen)
{
	fring_session_t *fs = fs_of(se);

	return fs ? fring_notify_expire_entry(fs, parent, name, namelen)
		  : -EINVAL;
}

int fuse_lowlevel_notify_delete(struct fuse_session *se, fuse_ino_t parent,
				fuse_ino_t child, const char *name,
				size_t namelen)
{
	fring_session_t *fs = fs_of(se);

	return fs ? fring_notify_delete(fs, parent, child, name, namelen)
		  : -EINVAL;
}

/* Memory buffers go out gathered; a vector with fd buffers is read into
 * memory first. */
int fuse_lowlevel_notify_store(struct fuse_session *se, fuse_ino_t ino,
			       off_t offset, struct fuse_bufvec *bufv,
			       enum fuse_buf_copy_flags flags)
{
	fring_session_t *fs = fs_of(se);
	size_t size, n;
	struct iovec *iov;
	bool fds = false;
	int ret;

	if (!fs || !bufv)
		return -EINVAL;
	size = fc_bufvec_left(bufv);
	if (size == SIZE_MAX)
		return -EINVAL;
	n = bufv->idx < bufv->count ? bufv->count - bufv->idx : 0;
	for (size_t i = 0; i < n; i++)
		fds |= (fc_buf_at(bufv, bufv->idx + i)->flags &
			FUSE_BUF_IS_FD) != 0;
	if (fds) {
		struct fuse_bufvec mem = FUSE_BUFVEC_INIT(size);
		ssize_t got;

		mem.buf[0].mem = malloc(size ? size : 1);
		if (!mem.buf[0].mem)
			return -ENOMEM;
		got = fuse_buf_copy(&mem, bufv, flags);
		ret = got < 0 ? (int)got
			      : fring_notify_store(fs, ino, offset,
						   mem.buf[0].mem, (size_t)got);
		free(mem.buf[0].mem);
		return ret;
	}
	iov = calloc(n ? n : 1, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	fc_bufvec_iov(bufv, iov, n);
	ret = fring_notify_store_iov(fs, ino, offset, iov, (int)n);
	free(iov);
	return ret;
}

/* libfuse's order is (size, offset); libfring takes a range whose fields
 * are named, so the two cannot be swapped. */
int fuse_lowlevel_notify_retrieve(struct fuse_session *se, fuse_ino_t ino,
				  size_t size, off_t offset, void *cookie)
{
	fring_session_t *fs = fs_of(se);
	struct fring_range range = {.off = offset, .size = size};

	return fs ? fring_notify_retrieve_range(fs, ino, range, cookie)
		  : -EINVAL;
}
