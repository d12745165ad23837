/* SPDX-License-Identifier: MIT */
/*
 * Directory handles and listings. A listing needs no per-handle state:
 * the offset the kernel hands back is a cookie (see dir.c), valid however
 * the directory changed in between.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memfs.h"

void memfs_opendir(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
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
	if (!S_ISDIR(n->type)) {
		fring_reply_err(req, ENOTDIR);
		return;
	}
	cred_init(&c, req);
	err = perm_inode(&c, n, R_OK);
	cred_fini(&c);
	if (err) {
		fring_reply_err(req, err);
		return;
	}
	fi->fh = 0;
	inode_ref_open(n);
	if (fring_reply_open(req, fi) < 0)
		inode_unref_open(fs, n);
}

void memfs_releasedir(fring_req_t *req, fring_ino_t ino,
		      struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);

	(void)fi;
	if (n)
		inode_unref_open(fs, n);
	fring_reply_err(req, 0);
}

void memfs_fsyncdir(fring_req_t *req, fring_ino_t ino, int datasync,
		    struct fring_file *fi)
{
	(void)ino;
	(void)datasync;
	(void)fi;
	fring_reply_err(req, 0);
}

/* The inodes a readdirplus answer gave references to, to take them back
 * if the answer does not arrive. */
struct refs {
	struct memfs_inode **v;
	size_t n, cap;
};

/* Room for one more. */
static bool refs_reserve(struct refs *r)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct memfs_inode **v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return false;
		r->v = v;
		r->cap = cap;
	}
	return true;
}

struct listing {
	fring_req_t *req;
	bool plus;
	char *buf;
	size_t cap, used;
};

/* Appends one entry; false when it does not fit. */
static bool emit(struct listing *l, const char *name,
		 const struct fring_entry *e, uint64_t cookie)
{
	size_t need;

	if (l->plus)
		need = fring_add_direntry_plus(l->req, l->buf + l->used,
					       l->cap - l->used, name, e,
					       (off_t)cookie);
	else
		need = fring_add_direntry(l->req, l->buf + l->used,
					  l->cap - l->used, name, &e->attr,
					  (off_t)cookie);
	if (need > l->cap - l->used)
		return false;
	l->used += need;
	return true;
}

/* "." and "..": no reference goes with them (ino 0 in the plus form). */
static bool emit_dot(struct listing *l, const char *name, fring_ino_t ino,
		     uint64_t cookie)
{
	struct fring_entry e;

	memset(&e, 0, sizeof(e));
	e.attr.st_ino = ino;
	e.attr.st_mode = S_IFDIR;
	return emit(l, name, &e, cookie);
}

static void list_dir(fring_req_t *req, fring_ino_t ino, size_t size,
		     off_t off, const struct fring_buf *dst, bool plus)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct listing l = { .req = req, .plus = plus };
	struct refs refs = { 0 };
	struct memfs_dirent *de;
	struct timespec now;
	uint64_t after = off < 0 ? 0 : (uint64_t)off;
	bool own = false;
	double timeout;
	size_t pos;
	int ret;

	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	if (!S_ISDIR(n->type)) {
		fring_reply_err(req, ENOTDIR);
		return;
	}
	if (dst && dst->kind == FRING_BUF_MEM && dst->mem) {
		l.buf = dst->mem;
		l.cap = size < dst->size ? size : dst->size;
	} else {
		l.buf = malloc(size ? size : 1);
		l.cap = size;
		own = true;
		if (!l.buf) {
			fring_reply_err(req, ENOMEM);
			return;
		}
	}

	pthread_rwlock_rdlock(&fs->ns);
	if (after < MEMFS_COOKIE_DOT &&
	    !emit_dot(&l, ".", n->ino, MEMFS_COOKIE_DOT))
		goto full;
	if (after < MEMFS_COOKIE_DOTDOT &&
	    !emit_dot(&l, "..", n->parent, MEMFS_COOKIE_DOTDOT))
		goto full;
	timeout = plus ? entry_timeout_in(fs, n) : 0;
	pos = dir_seek(n->dir, after < MEMFS_COOKIE_DOTDOT
				       ? MEMFS_COOKIE_DOTDOT
				       : after);
	while ((de = dir_next(n->dir, &pos))) {
		struct fring_entry e;

		if (plus) {
			inode_entry(fs, de->inode, timeout, &e);
		} else {
			memset(&e, 0, sizeof(e));
			e.attr.st_ino = de->inode->ino;
			e.attr.st_mode = de->inode->type;
		}
		if ((plus && !refs_reserve(&refs)) ||
		    !emit(&l, de->name, &e, de->cookie))
			break;
		if (plus) {
			inode_ref_lookup(de->inode);
			refs.v[refs.n++] = de->inode;
		}
	}
full:
	pthread_rwlock_unlock(&fs->ns);

	memfs_now(&now);
	pthread_mutex_lock(&n->lock);
	if (atime_due_locked(n, &now))
		n->atime = now;
	pthread_mutex_unlock(&n->lock);

	if (own)
		ret = fring_reply_buf(req, l.buf, l.used);
	else
		ret = fring_reply_data(req, l.used);
	if (ret < 0)
		for (size_t i = 0; i < refs.n; i++)
			inode_forget(fs, refs.v[i], 1);
	if (own)
		free(l.buf);
	free(refs.v);
}

void memfs_readdir(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst)
{
	(void)fi;
	list_dir(req, ino, size, off, dst, false);
}

void memfs_readdirplus(fring_req_t *req, fring_ino_t ino, size_t size,
		       off_t off, struct fring_file *fi,
		       const struct fring_buf *dst)
{
	(void)fi;
	list_dir(req, ino, size, off, dst, true);
}
