/* SPDX-License-Identifier: MIT */
/*
 * Open files: open/create/tmpfile, the data path, flush/release/fsync and
 * the range operations. A handle (fh) is the descriptor of the source file.
 *
 * On the io_uring transport fring_read_from_fd()/fring_write_to_fd()
 * answer after the READ/WRITE completes on the queue's ring, so the
 * descriptor must stay open while one is in flight. It does: the kernel
 * sends RELEASE only when no request of the handle is outstanding.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "passthrough.h"

/*
 * Flags for the source descriptor. O_APPEND goes: the kernel sends every
 * WRITE with its final offset (the end of file for appends), and a shared
 * writable mapping may write pages back through any handle of the inode.
 * O_DIRECT goes: the request buffers carry no alignment promise, and the
 * kernel already bypasses its cache for a direct open.
 */
static int backing_flags(int flags)
{
	flags &= ~(O_CREAT | O_EXCL | O_NOCTTY | O_NOFOLLOW | O_APPEND |
		   O_DIRECT);
	return flags | O_CLOEXEC;
}

/*
 * direct_io / keep_cache according to -o cache= and O_DIRECT. known is
 * what the file is now, or NULL to fstat fd (cache=auto only).
 *
 * An O_DIRECT open gets FOPEN_DIRECT_IO, as with cache=never: the kernel
 * then moves its data synchronously in the caller's context (not as
 * FUSE_ASYNC_DIO requests whose pages the daemon's thread must release)
 * and lets direct writes to one file run in parallel, which it does not
 * for a plain O_DIRECT open. Shared mappings stay possible
 * (FUSE_DIRECT_IO_ALLOW_MMAP, pt_init()); -o passthrough clears it again
 * (pt_backing_attach()).
 */
static void set_cache_flags(struct pt_fs *fs, struct pt_inode *in, int fd,
			    const struct stat *known, struct fring_file *fi)
{
	struct stat st;

	if (fi->flags & O_DIRECT) {
		fi->direct_io = 1;
		fi->parallel_direct_writes = 1;
	}
	switch (fs->cache) {
	case PT_CACHE_NEVER:
		fi->direct_io = 1;
		fi->parallel_direct_writes = 1;
		break;
	case PT_CACHE_ALWAYS:
		fi->keep_cache = 1;
		break;
	case PT_CACHE_AUTO:
		if (in && (known || fstat(fd, &st) == 0))
			fi->keep_cache =
				pt_inode_unchanged(fs, in, known ? known : &st);
		break;
	}
}

void pt_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in = pt_inode_get(fs, ino);
	struct pt_procpath pp;
	int fd;

	if (!in) {
		fring_reply_err(req, ESTALE);
		return;
	}
	/* An O_PATH descriptor cannot be reopened with openat(); its /proc
	 * link can, even after the last name is gone. */
	do
		fd = open(pt_procpath(&pp, in->fd), backing_flags(fi->flags));
	while (fd < 0 && pt_retry_fds(fs, errno));
	if (fd < 0) {
		int err = errno;

		pt_inode_put(fs, in);
		fring_reply_err(req, err);
		return;
	}
	if (fi->kill_suidgid) /* O_TRUNC by a caller without CAP_FSETID */
		pt_kill_suidgid(fd);
	bool reg = S_ISREG(in->type);

	set_cache_flags(fs, in, fd, NULL, fi);
	pt_inode_put(fs, in);
	fi->fh = (uint64_t)fd;
	if (reg && pt_backing_attach(req, fs, ino, fd, fi))
		fi->fh |= PT_FH_TRACKED;
	if (fring_reply_open(req, fi) < 0) {
		/* the kernel will not release what it never got */
		if (fi->fh & PT_FH_TRACKED)
			pt_backing_detach(req, ino);
		close(fd);
	}
}

/*
 * An O_PATH descriptor for the inode of the just-created fd: by name if the
 * name still leads to it (cheaper), else through /proc.
 */
static int path_fd_for(struct pt_fs *fs, int fd, int parentfd, const char *name,
		       const struct stat *st)
{
	struct pt_procpath pp;
	struct statx sx;
	int pfd;

	if (name) {
		pfd = pt_openat(fs, parentfd, name,
				O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
		if (pfd >= 0) {
			/* STATX_INO alone: the times stay unread */
			if (statx(pfd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
				  STATX_INO, &sx) == 0 &&
			    sx.stx_ino == (uint64_t)st->st_ino &&
			    makedev(sx.stx_dev_major, sx.stx_dev_minor) ==
				    st->st_dev)
				return pfd;
			close(pfd);
		}
	}
	do
		pfd = open(pt_procpath(&pp, fd), O_PATH | O_CLOEXEC);
	while (pfd < 0 && pt_retry_fds(fs, errno));
	return pfd;
}

/*
 * A create that fails after the file was made must leave nothing behind:
 * the name goes, if it still names the file this request made (fd), not
 * one put there since by somebody else.
 */
static void undo_create(struct pt_inode *p, const char *name, int fd)
{
	struct statx mine;

	/* STATX_INO alone: the times stay unread (pt_stat_new()) */
	if (!name || statx(fd, "", AT_EMPTY_PATH, STATX_INO, &mine) < 0)
		return;
	pt_unlink_if(p->fd, name,
		     makedev(mine.stx_dev_major, mine.stx_dev_minor),
		     (ino_t)mine.stx_ino, 0);
}

/* create and tmpfile: fd is open on the file, which this request made if
 * created; registers its inode and answers. */
static void finish_create(fring_req_t *req, struct pt_fs *fs,
			  struct pt_inode *p, const char *name, int fd,
			  bool created, struct fring_file *fi)
{
	struct fring_entry e;
	struct pt_inode *in;
	struct stat st;
	int pfd, err;

	if (!created && fi->kill_suidgid)
		pt_kill_suidgid(fd); /* O_TRUNC of an existing file */
	if (created)
		err = pt_stat_new(fd, &st);
	else
		err = fstat(fd, &st) < 0 ? -errno : 0;
	if (err) {
		err = -err;
		goto fail;
	}
	pfd = path_fd_for(fs, fd, p->fd, name, &st);
	if (pfd < 0) {
		err = errno;
		goto fail;
	}
	err = pt_inode_add(fs, pfd, &st, &e); /* consumes pfd */
	if (err) {
		err = -err;
		goto fail;
	}
	/* auto compares with st, what the file is now */
	in = fs->cache == PT_CACHE_AUTO ? pt_inode_get(fs, e.ino) : NULL;
	set_cache_flags(fs, in, fd, &st, fi);
	pt_inode_put(fs, in);
	fi->fh = (uint64_t)fd;
	if (pt_backing_attach(req, fs, e.ino, fd, fi))
		fi->fh |= PT_FH_TRACKED;
	if (fring_reply_create(req, &e, fi) < 0) {
		/* Never delivered: no RELEASE and no FORGET will come. The
		 * file stays: the kernel ended the request because the caller
		 * was killed or the connection went, after the create was
		 * done, as a local create interrupted then would leave it. */
		if (fi->fh & PT_FH_TRACKED)
			pt_backing_detach(req, e.ino);
		close(fd);
		pt_inode_forget(fs, e.ino, 1);
	}
	return;
fail:
	if (created)
		undo_create(p, name, fd);
	close(fd);
	fring_reply_err(req, err);
}

/*
 * open(2) with O_CREAT, telling whether the file was made here: O_EXCL
 * first, then without O_CREAT if the name exists (and again should it
 * vanish in between). Returns the descriptor or -1 with errno.
 */
static int open_create(struct pt_fs *fs, int dirfd, const char *name, int flags,
		       mode_t mode, bool excl, bool *created)
{
	for (int tries = 0;; tries++) {
		int fd = openat(dirfd, name, flags | O_CREAT | O_EXCL, mode);

		if (fd < 0 && tries < 8 && pt_retry_fds(fs, errno))
			continue;
		if (fd >= 0 || errno != EEXIST || excl || tries == 8) {
			*created = fd >= 0;
			return fd;
		}
		/* An existing name: pt_openat() does not let it lead into
		 * this very mount (guard.c). */
		fd = pt_openat(fs, dirfd, name, flags, mode);
		if (fd >= 0 || (errno != ENOENT && !pt_retry_fds(fs, errno))) {
			*created = false;
			return fd;
		}
	}
}

void pt_create(fring_req_t *req, fring_ino_t parent, const char *name,
	       mode_t mode, struct fring_file *fi)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *p = pt_inode_get(fs, parent);
	struct pt_creds c;
	bool created;
	int fd, err;

	if (!p) {
		fring_reply_err(req, ESTALE);
		return;
	}
	pt_creds_enter(fs, req, &c);
	/* O_NOFOLLOW: the kernel resolved symlinks already; a link that
	 * appeared in the source meanwhile is not followed. */
	fd = open_create(fs, p->fd, name, backing_flags(fi->flags) | O_NOFOLLOW,
			 mode, fi->flags & O_EXCL, &created);
	err = fd < 0 ? errno : 0;
	pt_creds_leave(&c);
	if (err)
		fring_reply_err(req, err);
	else
		finish_create(req, fs, p, name, fd, created, fi);
	pt_inode_put(fs, p);
}

void pt_tmpfile(fring_req_t *req, fring_ino_t parent, mode_t mode,
		struct fring_file *fi)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *p = pt_inode_get(fs, parent);
	struct pt_creds c;
	int fd, err;

	if (!p) {
		fring_reply_err(req, ESTALE);
		return;
	}
	pt_creds_enter(fs, req, &c);
	do
		fd = openat(p->fd, ".",
			    (backing_flags(fi->flags) & ~O_TRUNC) | O_TMPFILE |
				    (fi->flags & O_EXCL),
			    mode);
	while (fd < 0 && pt_retry_fds(fs, errno));
	err = fd < 0 ? errno : 0;
	pt_creds_leave(&c);
	if (err)
		fring_reply_err(req, err);
	else
		finish_create(req, fs, p, NULL, fd, true, fi);
	pt_inode_put(fs, p);
}

void pt_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
	     struct fring_file *fi, const struct fring_buf *dst)
{
	int fault = pt_fault_next(pt_fs(req), false);

	(void)ino;
	(void)dst;
	if (fault > 0) {
		fring_reply_err(req, fault);
		return;
	}
	fring_read_from_fd(req, pt_fd(fi), off, size);
}

void pt_write(fring_req_t *req, fring_ino_t ino, const struct fring_buf *src,
	      off_t off, struct fring_file *fi)
{
	int fault = pt_fault_next(pt_fs(req), true);

	(void)ino;
	if (fi->kill_suidgid) /* the writer lacks CAP_FSETID */
		pt_kill_suidgid(pt_fd(fi));
	if (fault < 0 && src->mem) {
		/* a short write: the kernel reports the count to the caller
		 * (fuse_perform_write, fuse_direct_io) */
		ssize_t n =
			pwrite(pt_fd(fi), src->mem, (src->size + 1) / 2, off);

		if (n < 0)
			fring_reply_err(req, errno);
		else
			fring_reply_write(req, (size_t)n);
		return;
	}
	if (fault)
		fring_reply_err(req, fault > 0 ? fault : EIO);
	else
		fring_write_to_fd(req, pt_fd(fi), off);
}

void pt_flush(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	/* Closing a duplicate is what close(2) of the caller would have done
	 * to a local file: POSIX locks of the owner go, NFS-like sources
	 * write back and report errors. */
	int fd = dup(pt_fd(fi));

	(void)ino;
	if (fd < 0)
		fring_reply_err(req, errno);
	else
		fring_reply_err(req, close(fd) < 0 ? errno : 0);
}

void pt_release(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct pt_fs *fs = pt_fs(req);
	int fd = pt_fd(fi);

	/* cache=auto: what our own writes made of the file is still in the
	 * kernel's cache; remember it so the next open keeps that cache. */
	if (fs->cache == PT_CACHE_AUTO && (fi->flags & O_ACCMODE) != O_RDONLY) {
		struct pt_inode *in = pt_inode_get(fs, ino);
		struct stat st;

		if (in && fstat(fd, &st) == 0)
			pt_inode_saw(fs, in, &st);
		pt_inode_put(fs, in);
	}
	if (fi->fh & PT_FH_TRACKED)
		pt_backing_detach(req, ino);
	close(fd);
	fring_reply_err(req, 0);
}

void pt_fsync(fring_req_t *req, fring_ino_t ino, int datasync,
	      struct fring_file *fi)
{
	int fd = pt_fd(fi);
	int r = datasync ? fdatasync(fd) : fsync(fd);

	(void)ino;
	fring_reply_err(req, r < 0 ? errno : 0);
}

void pt_fallocate(fring_req_t *req, fring_ino_t ino, int mode, off_t offset,
		  off_t length, struct fring_file *fi)
{
	(void)ino;
	fring_reply_err(req, fallocate(pt_fd(fi), mode, offset, length) < 0
				     ? errno
				     : 0);
}

void pt_lseek(fring_req_t *req, fring_ino_t ino, off_t off, int whence,
	      struct fring_file *fi)
{
	/* Only SEEK_DATA and SEEK_HOLE come here. The descriptor's own
	 * position is never used for I/O, so moving it does no harm. */
	off_t r = lseek(pt_fd(fi), off, whence);

	(void)ino;
	if (r < 0)
		fring_reply_err(req, errno);
	else
		fring_reply_lseek(req, r);
}

void pt_copy_file_range(fring_req_t *req, fring_ino_t ino_in, off_t off_in,
			struct fring_file *fi_in, fring_ino_t ino_out,
			off_t off_out, struct fring_file *fi_out, size_t len,
			int flags)
{
	loff_t in = off_in, out = off_out;
	ssize_t n = copy_file_range(pt_fd(fi_in), &in, pt_fd(fi_out), &out, len,
				    (unsigned int)flags);

	(void)ino_in;
	(void)ino_out;
	if (n < 0)
		fring_reply_err(req, errno);
	else
		fring_reply_write(req, (size_t)n);
}
