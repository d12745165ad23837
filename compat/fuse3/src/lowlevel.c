/* SPDX-License-Identifier: MIT */
/*
 * The bridges: a struct fring_ops whose callbacks translate libfring's
 * arguments and call the filesystem's struct fuse_lowlevel_ops.
 *
 * A bridge is installed only where the filesystem has the operation, so
 * libfring's defaults for a missing one apply (they answer as libfuse's
 * do, and the INIT proposal follows the table: lock flags for the lock
 * operations, readdirplus for readdirplus).
 *
 * Every request is declared asynchronous before the filesystem sees it:
 * a libfuse handler may return without answering and answer later from
 * any thread, which libfring allows only after fring_req_async(). The
 * request stays valid until it is answered, as in libfuse.
 */
#include <errno.h>

#include "compat.h"

/* -o allow_root: the kernel lets everyone in (allow_other) and requests
 * of others than root and the session's owner are refused here, except
 * those on files they already hold open. */
static bool allowed(const struct fuse_session *se, fring_req_t *r)
{
	uid_t uid = fring_req_ctx(r)->uid;

	return uid == 0 || uid == se->owner;
}

/* The start of every bridge with a request; NULL when it was answered
 * already (refused). checked: the operation is subject to allow_root. */
static struct fuse_session *enter(fring_req_t *r, bool checked)
{
	struct fuse_session *se = fring_req_userdata(r);

	fring_req_async(r);
	if (checked && se->deny_others && !allowed(se, r)) {
		fring_reply_err(r, EACCES);
		return NULL;
	}
	/* fuse_session_loop(): one callback at a time, whatever queue */
	if (se->serialize)
		pthread_mutex_lock(&se->serial);
	return se;
}

static void leave(struct fuse_session *se)
{
	if (se->serialize)
		pthread_mutex_unlock(&se->serial);
}

/* A file info for the filesystem, or NULL where libfring gave none. */
static struct fuse_file_info *fi_in(struct fuse_file_info *store,
				    const struct fring_file *fi)
{
	if (!fi)
		return NULL;
	fc_fi_from_fring(store, fi);
	return store;
}

/*
 * The body of a bridge that only passes its arguments on: enter (the
 * allow_root check when checked, the serializing lock), the filesystem's
 * operation fn with the request and the arguments, leave. FILE_INFO, among
 * the arguments, is libfring's file info converted to libfuse's, valid
 * during the call as libfuse's is. Its storage is left uninitialized here:
 * fc_fi_from_fring() zeroes all of it (unused by bridges without one).
 */
#define BRIDGE(fn, checked, ...)                                               \
	do {                                                                   \
		struct fuse_file_info bridge_fi __attribute__((unused));       \
		struct fuse_session *se = enter(r, checked);                   \
		if (se) {                                                      \
			se->op.fn(fc_fuse_req(r), __VA_ARGS__);                \
			leave(se);                                             \
		}                                                              \
	} while (0)
#define FILE_INFO fi_in(&bridge_fi, fi)

/* ---------------- no request: init, destroy, forgets ---------------- */

static void ll_init(void *userdata, struct fring_conn *conn)
{
	fc_conn_init(userdata, conn);
}

static void ll_destroy(void *userdata)
{
	struct fuse_session *se = userdata;

	if (se->op.destroy)
		se->op.destroy(se->userdata);
}

static void ll_forget(void *userdata, fring_ino_t ino, uint64_t nlookup)
{
	struct fuse_session *se = userdata;

	if (se->serialize)
		pthread_mutex_lock(&se->serial);
	se->op.forget(fc_pseudo(se), ino, nlookup);
	leave(se);
}

static void ll_forget_multi(void *userdata, size_t count,
			    const struct fring_forget *forgets)
{
	struct fuse_session *se = userdata;

	if (se->serialize)
		pthread_mutex_lock(&se->serial);
	/* libfuse's table is not const; the same layout (convert.c) */
	se->op.forget_multi(fc_pseudo(se), count,
			    (struct fuse_forget_data *)(void *)forgets);
	leave(se);
}

static void ll_retrieve_reply(void *userdata, void *cookie, fring_ino_t ino,
			      off_t off, const void *data, size_t size)
{
	struct fuse_session *se = userdata;
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(size);

	bv.buf[0].mem = (void *)data;
	if (se->serialize)
		pthread_mutex_lock(&se->serial);
	se->op.retrieve_reply(fc_pseudo(se), cookie, ino, off, &bv);
	leave(se);
}

static void ll_interrupt(fring_req_t *r, void *userdata)
{
	struct fuse_session *se = userdata;

	if (!se->no_interrupt)
		fc_intr_fire(se, r);
}

/* ---------------- names ---------------- */

static void ll_lookup(fring_req_t *r, fring_ino_t parent, const char *name)
{
	BRIDGE(lookup, true, parent, name);
}

static void ll_mknod(fring_req_t *r, fring_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	BRIDGE(mknod, true, parent, name, mode, rdev);
}

static void ll_mkdir(fring_req_t *r, fring_ino_t parent, const char *name,
		     mode_t mode)
{
	BRIDGE(mkdir, true, parent, name, mode);
}

static void ll_unlink(fring_req_t *r, fring_ino_t parent, const char *name)
{
	BRIDGE(unlink, true, parent, name);
}

static void ll_rmdir(fring_req_t *r, fring_ino_t parent, const char *name)
{
	BRIDGE(rmdir, true, parent, name);
}

static void ll_symlink(fring_req_t *r, const char *target, fring_ino_t parent,
		       const char *name)
{
	BRIDGE(symlink, true, target, parent, name);
}

static void ll_rename(fring_req_t *r, fring_ino_t parent, const char *name,
		      fring_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	BRIDGE(rename, true, parent, name, newparent, newname, flags);
}

static void ll_link(fring_req_t *r, fring_ino_t ino, fring_ino_t newparent,
		    const char *newname)
{
	BRIDGE(link, true, ino, newparent, newname);
}

/* ---------------- attributes ---------------- */

static void ll_getattr(fring_req_t *r, fring_ino_t ino, struct fring_file *fi)
{
	BRIDGE(getattr, true, ino, FILE_INFO);
}

static void ll_setattr(fring_req_t *r, fring_ino_t ino, struct stat *attr,
		       int to_set, struct fring_file *fi)
{
	BRIDGE(setattr, true, ino, attr, to_set, FILE_INFO);
}

static void ll_readlink(fring_req_t *r, fring_ino_t ino)
{
	BRIDGE(readlink, true, ino);
}

static void ll_statx(fring_req_t *r, fring_ino_t ino, int flags,
		     unsigned int mask, struct fring_file *fi)
{
	BRIDGE(statx, true, ino, flags, (int)mask, FILE_INFO);
}

static void ll_access(fring_req_t *r, fring_ino_t ino, int mask)
{
	BRIDGE(access, true, ino, mask);
}

/* ---------------- files ---------------- */

static void ll_open(fring_req_t *r, fring_ino_t ino, struct fring_file *fi)
{
	BRIDGE(open, true, ino, FILE_INFO);
}

static void ll_create(fring_req_t *r, fring_ino_t parent, const char *name,
		      mode_t mode, struct fring_file *fi)
{
	BRIDGE(create, true, parent, name, mode, FILE_INFO);
}

static void ll_tmpfile(fring_req_t *r, fring_ino_t parent, mode_t mode,
		       struct fring_file *fi)
{
	BRIDGE(tmpfile, true, parent, mode, FILE_INFO);
}

/* dst is not used: the answer comes through fuse_reply_buf(), _iov() or
 * _data(), which place it (fring_reply_buf(), fring_read_from_fd()). */
static void ll_read(fring_req_t *r, fring_ino_t ino, size_t size, off_t off,
		    struct fring_file *fi, const struct fring_buf *dst)
{
	(void)dst;
	BRIDGE(read, false, ino, size, off, FILE_INFO);
}

/*
 * write gets a pointer to memory, write_buf a one-buffer vector, as
 * libfuse does. The data is memory unless the layer declared
 * FRING_FS_ZERO_COPY (conn.c), which it does for a write_buf program only
 * when it asked for FUSE_CAP_SPLICE_READ, libfuse's promise to take
 * non-memory buffers through fuse_buf_copy(): then write_buf may get the
 * queue's pipe (dev, splice_read) or the client's pages (zerocopy), as a
 * buffer only fuse_buf_copy() reads (compat.h, FC_BUF_WRITE_DATA).
 */
static void ll_write(fring_req_t *r, fring_ino_t ino,
		     const struct fring_buf *src, off_t off,
		     struct fring_file *fi)
{
	struct fuse_session *se = enter(r, false);
	struct fuse_file_info ffi;

	if (!se)
		return;
	if (src->kind != FRING_BUF_MEM && se->op.write_buf) {
		struct fuse_bufvec bv = FUSE_BUFVEC_INIT(src->size);

		bv.buf[0].flags = (enum fuse_buf_flags)(FUSE_BUF_IS_FD |
							FC_BUF_WRITE_DATA);
		bv.buf[0].pos = (off_t)(uintptr_t)r;
		se->op.write_buf(fc_fuse_req(r), ino, &bv, off,
				 fi_in(&ffi, fi));
	} else if (src->kind != FRING_BUF_MEM) {
		fc_log(FUSE_LOG_ERR,
		       "fuse: a WRITE's data is not in memory (kind %d): "
		       "answering EIO\n",
		       (int)src->kind);
		fring_reply_err(r, EIO);
	} else if (se->op.write_buf) {
		struct fuse_bufvec bv = FUSE_BUFVEC_INIT(src->size);

		bv.buf[0].mem = src->mem;
		se->op.write_buf(fc_fuse_req(r), ino, &bv, off,
				 fi_in(&ffi, fi));
	} else {
		se->op.write(fc_fuse_req(r), ino, src->mem, src->size, off,
			     fi_in(&ffi, fi));
	}
	leave(se);
}

static void ll_flush(fring_req_t *r, fring_ino_t ino, struct fring_file *fi)
{
	BRIDGE(flush, true, ino, FILE_INFO);
}

static void ll_release(fring_req_t *r, fring_ino_t ino, struct fring_file *fi)
{
	BRIDGE(release, false, ino, FILE_INFO);
}

static void ll_fsync(fring_req_t *r, fring_ino_t ino, int datasync,
		     struct fring_file *fi)
{
	BRIDGE(fsync, false, ino, datasync, FILE_INFO);
}

static void ll_fallocate(fring_req_t *r, fring_ino_t ino, int mode,
			 off_t offset, off_t length, struct fring_file *fi)
{
	BRIDGE(fallocate, true, ino, mode, offset, length, FILE_INFO);
}

static void ll_lseek(fring_req_t *r, fring_ino_t ino, off_t off, int whence,
		     struct fring_file *fi)
{
	BRIDGE(lseek, true, ino, off, whence, FILE_INFO);
}

static void ll_copy_file_range(fring_req_t *r, fring_ino_t ino_in, off_t off_in,
			       struct fring_file *fi_in_, fring_ino_t ino_out,
			       off_t off_out, struct fring_file *fi_out_,
			       size_t len, int flags)
{
	struct fuse_session *se = enter(r, true);
	struct fuse_file_info in, out;

	if (!se)
		return;
	se->op.copy_file_range(fc_fuse_req(r), ino_in, off_in,
			       fi_in(&in, fi_in_), ino_out, off_out,
			       fi_in(&out, fi_out_), len, flags);
	leave(se);
}

static void ll_poll(fring_req_t *r, fring_ino_t ino, struct fring_file *fi,
		    uint64_t kernel_handle)
{
	struct fuse_session *se = enter(r, true);
	struct fuse_file_info ffi;
	fring_pollhandle_t *ph;

	(void)kernel_handle;
	if (!se)
		return;
	/* NULL when the kernel asked for no wake-up, as libfuse passes */
	ph = fring_req_pollhandle(r);
	se->op.poll(fc_fuse_req(r), ino, fi_in(&ffi, fi),
		    (struct fuse_pollhandle *)(void *)ph);
	leave(se);
}

static void ll_ioctl(fring_req_t *r, fring_ino_t ino, unsigned int cmd,
		     void *arg, struct fring_file *fi, unsigned flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	BRIDGE(ioctl, true, ino, cmd, arg, FILE_INFO, flags, in_buf, in_bufsz,
	       out_bufsz);
}

static void ll_bmap(fring_req_t *r, fring_ino_t ino, size_t blocksize,
		    uint64_t idx)
{
	BRIDGE(bmap, true, ino, blocksize, idx);
}

/* ---------------- locks ---------------- */

static void ll_getlk(fring_req_t *r, fring_ino_t ino, struct fring_file *fi,
		     struct flock *lock)
{
	BRIDGE(getlk, true, ino, FILE_INFO, lock);
}

static void ll_setlk(fring_req_t *r, fring_ino_t ino, struct fring_file *fi,
		     struct flock *lock, int sleep)
{
	BRIDGE(setlk, true, ino, FILE_INFO, lock, sleep);
}

static void ll_flock(fring_req_t *r, fring_ino_t ino, struct fring_file *fi,
		     int op)
{
	BRIDGE(flock, true, ino, FILE_INFO, op);
}

/* ---------------- directories ---------------- */

static void ll_opendir(fring_req_t *r, fring_ino_t ino, struct fring_file *fi)
{
	BRIDGE(opendir, true, ino, FILE_INFO);
}

/* dst is not used: libfuse handlers build the listing in their own
 * buffer and answer fuse_reply_buf(). */
static void ll_readdir(fring_req_t *r, fring_ino_t ino, size_t size, off_t off,
		       struct fring_file *fi, const struct fring_buf *dst)
{
	(void)dst;
	BRIDGE(readdir, false, ino, size, off, FILE_INFO);
}

static void ll_readdirplus(fring_req_t *r, fring_ino_t ino, size_t size,
			   off_t off, struct fring_file *fi,
			   const struct fring_buf *dst)
{
	(void)dst;
	BRIDGE(readdirplus, false, ino, size, off, FILE_INFO);
}

static void ll_releasedir(fring_req_t *r, fring_ino_t ino,
			  struct fring_file *fi)
{
	BRIDGE(releasedir, false, ino, FILE_INFO);
}

static void ll_fsyncdir(fring_req_t *r, fring_ino_t ino, int datasync,
			struct fring_file *fi)
{
	BRIDGE(fsyncdir, false, ino, datasync, FILE_INFO);
}

/* ---------------- the filesystem, extended attributes ---------------- */

static void ll_statfs(fring_req_t *r, fring_ino_t ino)
{
	BRIDGE(statfs, true, ino);
}

static void ll_setxattr(fring_req_t *r, fring_ino_t ino, const char *name,
			const void *value, size_t size, int flags)
{
	BRIDGE(setxattr, true, ino, name, value, size, flags);
}

static void ll_getxattr(fring_req_t *r, fring_ino_t ino, const char *name,
			size_t size)
{
	BRIDGE(getxattr, true, ino, name, size);
}

static void ll_listxattr(fring_req_t *r, fring_ino_t ino, size_t size)
{
	BRIDGE(listxattr, true, ino, size);
}

static void ll_removexattr(fring_req_t *r, fring_ino_t ino, const char *name)
{
	BRIDGE(removexattr, true, ino, name);
}

/* ---------------- the table ---------------- */

void fc_ops_build(struct fuse_session *se)
{
	const struct fuse_lowlevel_ops *op = &se->op;
	struct fring_ops *f = &se->fops;

	*f = (struct fring_ops){0};
	/* always: INIT maps the connection, destroy may come without init */
	f->init = ll_init;
	f->destroy = ll_destroy;
	f->interrupt = ll_interrupt;
#define INSTALL(name)                                                          \
	do {                                                                   \
		if (op->name)                                                  \
			f->name = ll_##name;                                   \
	} while (0)
	INSTALL(lookup);
	INSTALL(forget);
	INSTALL(forget_multi);
	INSTALL(getattr);
	INSTALL(setattr);
	INSTALL(readlink);
	INSTALL(mknod);
	INSTALL(mkdir);
	INSTALL(unlink);
	INSTALL(rmdir);
	INSTALL(symlink);
	INSTALL(rename);
	INSTALL(link);
	INSTALL(open);
	INSTALL(read);
	INSTALL(flush);
	INSTALL(release);
	INSTALL(fsync);
	INSTALL(opendir);
	INSTALL(readdir);
	INSTALL(releasedir);
	INSTALL(fsyncdir);
	INSTALL(statfs);
	INSTALL(setxattr);
	INSTALL(getxattr);
	INSTALL(listxattr);
	INSTALL(removexattr);
	INSTALL(access);
	INSTALL(create);
	INSTALL(getlk);
	INSTALL(setlk);
	INSTALL(bmap);
	INSTALL(ioctl);
	INSTALL(poll);
	INSTALL(flock);
	INSTALL(fallocate);
	INSTALL(readdirplus);
	INSTALL(copy_file_range);
	INSTALL(lseek);
	INSTALL(tmpfile);
	INSTALL(statx);
#undef INSTALL
	if (op->write || op->write_buf)
		f->write = ll_write;
}

/* retrieve_reply is not in struct fring_ops (its layout is fixed): it is
 * set on the session (session.c). */
fring_retrieve_reply_fn fc_retrieve_bridge(const struct fuse_session *se)
{
	return se->op.retrieve_reply ? ll_retrieve_reply : NULL;
}
