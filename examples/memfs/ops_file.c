/* SPDX-License-Identifier: MIT */
/*
 * Callbacks on open regular files. Data lives in memfds (data.c); the
 * library moves it between the kernel and the memfd itself, so metadata
 * (times, s[ug]id), the size and the charge against -o size are settled
 * before handing a request over.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <unistd.h>

#include "memfs.h"

/* The kernel's FMODE_EXEC, as it appears in an open's flags when the
 * file is opened to be executed (execve, uselib). */
#define MEMFS_O_EXEC 040

/* Bytes one copy_file_range request copies at most; a short copy is fine
 * and the count must fit the 32-bit answer. */
#define COPY_MAX (1u << 30)

int open_existing(struct memfs *fs, struct memfs_cred *c, struct memfs_inode *n,
		  struct fring_file *fi)
{
	int mask = 0, err;

	switch (fi->flags & O_ACCMODE) {
	case O_RDONLY:
		mask = R_OK;
		break;
	case O_WRONLY:
		mask = W_OK;
		break;
	default:
		mask = R_OK | W_OK;
		break;
	}
	if (fi->flags & O_TRUNC)
		mask |= W_OK;
	if (fi->flags & MEMFS_O_EXEC)
		mask |= X_OK;

	pthread_mutex_lock(&n->lock);
	err = perm_locked(c, n, mask);
	if (!err && (fi->flags & O_TRUNC) && S_ISREG(n->type)) {
		/* With ATOMIC_O_TRUNC the truncation is ours, and like
		 * ftruncate(2) it marks the file even if already empty. */
		err = data_truncate_locked(fs, n, 0);
		if (!err)
			touch_mc(n);
	}
	if (!err && fi->kill_suidgid) {
		kill_suidgid_locked(n);
		touch_c(n);
	}
	pthread_mutex_unlock(&n->lock);
	fi->fh = 0;
	/* All changes to the data pass through the kernel, which keeps its
	 * page cache right; O_TRUNC it drops by itself. */
	fi->keep_cache = !(fi->flags & O_TRUNC);
	return err;
}

void memfs_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct memfs_cred c;
	int err;

	if (fs->no_open) {
		/* -o no_open: the kernel opens on its own from now on */
		fring_reply_err(req, ENOSYS);
		return;
	}
	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	if (S_ISDIR(n->type)) {
		fring_reply_err(req, EISDIR);
		return;
	}
	cred_init(&c, req);
	err = open_existing(fs, &c, n, fi);
	cred_fini(&c);
	if (err) {
		fring_reply_err(req, err);
		return;
	}
	inode_ref_open(n);
	if (fring_reply_open(req, fi) < 0)
		inode_unref_open(fs, n);
}

void memfs_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		struct fring_file *fi, const struct fring_buf *dst)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct timespec now;
	off_t foff = 0;
	int fd;

	(void)fi;
	(void)dst;
	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	memfs_now(&now);
	pthread_mutex_lock(&n->lock);
	/* clamped to the size: in an arena the bytes after it are the
	 * region's, zeros, not the end of a file */
	data_read_locked(n, off, &size, &fd, &foff);
	/* The kernel leaves atime of FUSE inodes to us: relatime. */
	if (atime_due_locked(n, &now))
		n->atime = now;
	pthread_mutex_unlock(&n->lock);
	if (fd < 0)
		fring_reply_buf(req, "", 0); /* at or past the end */
	else
		fring_read_from_fd(req, fd, foff, size);
}

void memfs_write(fring_req_t *req, fring_ino_t ino, const struct fring_buf *src,
		 off_t off, struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	off_t foff = 0;
	int fd = -1, err;

	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	if (src->size == 0) {
		fring_reply_write(req, 0);
		return;
	}
	pthread_mutex_lock(&n->lock);
	/* all or nothing: ENOSPC leaves the file as it was */
	err = data_write_locked(fs, n, off, src->size, &fd, &foff);
	if (!err) {
		/* Writeback of cached pages carries no new time: the
		 * kernel sends the times it keeps with a SETATTR. */
		if (!fi->writepage)
			touch_mc(n);
		if (fi->kill_suidgid)
			kill_suidgid_locked(n);
	}
	pthread_mutex_unlock(&n->lock);
	if (err)
		fring_reply_err(req, err);
	else
		fring_write_to_fd(req, fd, foff);
}

void memfs_flush(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	(void)ino;
	(void)fi;
	fring_reply_err(req, 0);
}

void memfs_release(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);

	(void)fi;
	if (n)
		inode_unref_open(fs, n);
	fring_reply_err(req, 0);
}

void memfs_fsync(fring_req_t *req, fring_ino_t ino, int datasync,
		 struct fring_file *fi)
{
	(void)ino;
	(void)datasync;
	(void)fi;
	fring_reply_err(req, 0);
}

void memfs_syncfs(fring_req_t *req, fring_ino_t ino)
{
	(void)ino;
	fring_reply_err(req, 0);
}

/* After fallocate and copy_file_range, which change data the way a write
 * does; without CAP_FSETID (approximated by uid 0) s[ug]id goes too. */
static void data_changed(fring_req_t *req, struct memfs_inode *n)
{
	pthread_mutex_lock(&n->lock);
	touch_mc(n);
	if (fring_req_ctx(req)->uid != 0)
		kill_suidgid_locked(n);
	pthread_mutex_unlock(&n->lock);
}

void memfs_fallocate(fring_req_t *req, fring_ino_t ino, int mode, off_t offset,
		     off_t length, struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	bool punch = mode & FALLOC_FL_PUNCH_HOLE;
	int err;

	(void)fi;
	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	/* What tmpfs supports, and only that. */
	if ((mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE)) ||
	    (punch && !(mode & FALLOC_FL_KEEP_SIZE))) {
		fring_reply_err(req, EOPNOTSUPP);
		return;
	}
	if (!S_ISREG(n->type)) {
		fring_reply_err(req, ENODEV);
		return;
	}
	if (offset < 0 || length <= 0) {
		fring_reply_err(req, EINVAL);
		return;
	}
	/* Done under the lock: the charge and the pages must agree. */
	pthread_mutex_lock(&n->lock);
	err = data_fallocate_locked(fs, n, mode, offset, length);
	pthread_mutex_unlock(&n->lock);
	if (!err)
		data_changed(req, n);
	fring_reply_err(req, err);
}

void memfs_lseek(fring_req_t *req, fring_ino_t ino, off_t off, int whence,
		 struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	off_t res = 0;
	int err;

	(void)fi;
	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	/* Data the kernel still caches is not in the memfd yet, and the
	 * kernel does not write it back before asking: holes found here
	 * could be data. ENOSYS makes it fall back to "all data up to the
	 * size", which is never wrong. */
	if (fs->writeback) {
		fring_reply_err(req, ENOSYS);
		return;
	}
	if ((whence != SEEK_DATA && whence != SEEK_HOLE) || !S_ISREG(n->type)) {
		fring_reply_err(req, EINVAL);
		return;
	}
	pthread_mutex_lock(&n->lock);
	err = data_seek_locked(n, off, whence, &res);
	pthread_mutex_unlock(&n->lock);
	if (err)
		fring_reply_err(req, err);
	else
		fring_reply_lseek(req, res);
}

/* For when copy_file_range(2) between the memfds is refused. len > 0. */
static ssize_t copy_by_hand(int fdin, off_t off_in, int fdout, off_t off_out,
			    size_t len)
{
	size_t chunk = len < (1u << 20) ? len : (1u << 20);
	char *buf = malloc(chunk);
	size_t done = 0;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (done < len && !err) {
		size_t want = len - done < chunk ? len - done : chunk;
		ssize_t r = pread(fdin, buf, want, off_in + (off_t)done);
		size_t w = 0;

		if (r < 0) {
			if (errno != EINTR)
				err = errno;
			continue;
		}
		if (r == 0)
			break;
		while (w < (size_t)r) {
			ssize_t k = pwrite(fdout, buf + w, (size_t)r - w,
					   off_out + (off_t)(done + w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				err = k < 0 ? errno : EIO;
				break;
			}
			w += (size_t)k;
		}
		done += w;
	}
	free(buf);
	if (done)
		return (ssize_t)done;
	return err ? -err : 0;
}

void memfs_copy_file_range(fring_req_t *req, fring_ino_t ino_in, off_t off_in,
			   struct fring_file *fi_in, fring_ino_t ino_out,
			   off_t off_out, struct fring_file *fi_out, size_t len,
			   int flags)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *in = inode_get(fs, ino_in);
	struct memfs_inode *out = inode_get(fs, ino_out);
	off_t foff_in = 0, foff_out = 0, old_size;
	int fdin, fdout = -1, err;
	ssize_t r;

	(void)fi_in;
	(void)fi_out;
	if (!in || !out) {
		fring_reply_err(req, ESTALE);
		return;
	}
	if (flags) {
		fring_reply_err(req, EINVAL);
		return;
	}
	if (!S_ISREG(in->type) || !S_ISREG(out->type)) {
		fring_reply_err(req, EINVAL);
		return;
	}
	if (len > COPY_MAX)
		len = COPY_MAX;
	/* the source's bytes up to its end (an arena has other files' data
	 * past it), then room for them in the destination, charged */
	pthread_mutex_lock(&in->lock);
	data_read_locked(in, off_in, &len, &fdin, &foff_in);
	pthread_mutex_unlock(&in->lock);
	if (fdin < 0 || len == 0) {
		fring_reply_write(req, 0); /* nothing at off_in */
		return;
	}
	/* as the kernel checks it: no overlapping copy within a file */
	if (in == out && off_out < off_in + (off_t)len &&
	    off_in < off_out + (off_t)len) {
		fring_reply_err(req, EINVAL);
		return;
	}
	pthread_mutex_lock(&out->lock);
	old_size = out->data.size;
	err = data_write_locked(fs, out, off_out, len, &fdout, &foff_out);
	pthread_mutex_unlock(&out->lock);
	if (err) {
		fring_reply_err(req, err);
		return;
	}
	loff_t oi = foff_in, oo = foff_out;

	r = copy_file_range(fdin, &oi, fdout, &oo, len, 0);
	if (r < 0 && (errno == EXDEV || errno == EOPNOTSUPP || errno == ENOSYS))
		r = copy_by_hand(fdin, foff_in, fdout, foff_out, len);
	else if (r < 0)
		r = -errno;
	if (r < (ssize_t)len) {
		/* short: the size set for all of it is cut back (its pages
		 * stay charged, which errs on the safe side) */
		off_t done = off_out + (r > 0 ? r : 0);

		pthread_mutex_lock(&out->lock);
		if (out->data.size == off_out + (off_t)len)
			out->data.size = done > old_size ? done : old_size;
		pthread_mutex_unlock(&out->lock);
	}
	if (r < 0) {
		fring_reply_err(req, (int)-r);
		return;
	}
	if (r > 0)
		data_changed(req, out);
	fring_reply_write(req, (size_t)r);
}
