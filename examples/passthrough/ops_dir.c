/* SPDX-License-Identifier: MIT */
/*
 * Directory handles: a DIR stream of the source directory. Readdir cookies
 * are the source's own d_off values (telldir positions), 0 being the start,
 * so a cookie the kernel hands back resumes where the source says.
 *
 * An entry that does not fit in a reply is kept in the handle and sent
 * first by the next call with the matching offset, so the stream is not
 * rewound (and refilled) for every reply.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "passthrough.h"

struct pt_dir {
	pthread_mutex_t lock;
	DIR *dp;
	off_t pos; /* cookie of the stream position */
	bool pending;
	/* the entry read but not sent; pos is the cookie before it */
	ino_t p_ino;
	off_t p_off;
	unsigned char p_type;
	char p_name[NAME_MAX + 1];
};

static struct pt_dir *dir_of(const struct fring_file *fi)
{
	return (struct pt_dir *)(uintptr_t)fi->fh;
}

void pt_opendir(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in = pt_inode_get(fs, ino);
	struct pt_dir *d;
	int fd, err;

	if (!in) {
		fring_reply_err(req, ESTALE);
		return;
	}
	do
		fd = openat(in->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (fd < 0 && pt_retry_fds(fs, errno));
	err = fd < 0 ? errno : 0;
	pt_inode_put(fs, in);
	if (err) {
		fring_reply_err(req, err);
		return;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->dp = fdopendir(fd))) {
		err = d ? errno : ENOMEM;
		free(d);
		close(fd);
		fring_reply_err(req, err);
		return;
	}
	pthread_mutex_init(&d->lock, NULL);
	fi->fh = (uint64_t)(uintptr_t)d;
	if (fs->cache == PT_CACHE_ALWAYS) {
		fi->cache_readdir = 1;
		fi->keep_cache = 1;
	}
	if (fring_reply_open(req, fi) < 0) {
		closedir(d->dp);
		pthread_mutex_destroy(&d->lock);
		free(d);
	}
}

void pt_releasedir(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct pt_dir *d = dir_of(fi);

	(void)ino;
	closedir(d->dp);
	pthread_mutex_destroy(&d->lock);
	free(d);
	fring_reply_err(req, 0);
}

void pt_fsyncdir(fring_req_t *req, fring_ino_t ino, int datasync,
		 struct fring_file *fi)
{
	int fd = dirfd(dir_of(fi)->dp);
	int r = datasync ? fdatasync(fd) : fsync(fd);

	(void)ino;
	fring_reply_err(req, r < 0 ? errno : 0);
}

/* One directory entry as the listing loop sees it. */
struct ent {
	const char *name;
	ino_t ino;
	unsigned char type;
	off_t next; /* cookie after this entry */
};

/* The next entry (the pending one first); false at the end or on error
 * (*err set, 0 at the end). Handle lock held. */
static bool next_ent(struct pt_dir *d, struct ent *e, int *err)
{
	struct dirent *de;

	if (d->pending) {
		d->pending = false;
		*e = (struct ent){d->p_name, d->p_ino, d->p_type, d->p_off};
		return true;
	}
	errno = 0;
	de = readdir(d->dp);
	if (!de) {
		*err = errno;
		return false;
	}
	*e = (struct ent){de->d_name, de->d_ino, de->d_type, de->d_off};
	return true;
}

/* Keeps e for the next call: it did not fit. */
static void push_back(struct pt_dir *d, const struct ent *e)
{
	if (e->name != d->p_name)
		memcpy(d->p_name, e->name, strlen(e->name) + 1);
	d->p_ino = e->ino;
	d->p_type = e->type;
	d->p_off = e->next;
	d->pending = true;
}

static bool is_dot_or_dotdot(const char *name)
{
	return name[0] == '.' &&
	       (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* d_ino of an entry: the node id its inode has or would get. */
static fring_ino_t entry_nodeid(struct pt_fs *fs, const struct pt_inode *dir,
				const struct ent *e)
{
	if (e->name[0] == '.' && e->name[1] == '\0')
		return dir->nodeid;
	if (e->name[0] == '.' && e->name[1] == '.' && e->name[2] == '\0' &&
	    dir->nodeid == FRING_ROOT_INO)
		return FRING_ROOT_INO; /* the source's parent is not ours */
	return pt_nodeid_of(fs, dir->dev, e->ino);
}

static void list(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		 struct fring_file *fi, const struct fring_buf *dst, bool plus)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_dir *d = dir_of(fi);
	struct pt_inode *dir = pt_inode_get(fs, ino);
	char *buf = dst->mem;
	size_t used = 0;
	int err = 0;
	struct ent e;

	if (!dir) {
		fring_reply_err(req, ESTALE);
		return;
	}
	pthread_mutex_lock(&d->lock);
	if (off != d->pos) {
		/* The kernel resumes elsewhere (seekdir, or a reply that was
		 * cut short): go there. */
		d->pending = false;
		if (off == 0)
			rewinddir(d->dp);
		else
			seekdir(d->dp, off);
		d->pos = off;
	}
	while (next_ent(d, &e, &err)) {
		struct fring_entry fe;
		bool looked_up = false;
		size_t n;

		memset(&fe, 0, sizeof(fe));
		if (plus && !is_dot_or_dotdot(e.name)) {
			int r;

			/* Room first: the lookup counts, so it must not be
			 * done for an entry that is not sent. */
			n = fring_add_direntry_plus(req, NULL, 0, e.name, &fe,
						    e.next);
			if (n > size - used) {
				push_back(d, &e);
				break;
			}
			r = pt_lookup_name(fs, dir, e.name, false, &fe);
			if (r == -ENOENT) {
				/* Gone since the stream was read: skip. */
				d->pos = e.next;
				continue;
			}
			/* ELOOP: the name leads into this very mount
			 * (guard.c). It is listed without a lookup like
			 * "." and "..", and the listing goes on; a lookup
			 * of it answers ELOOP. */
			if (r && r != -ELOOP) {
				if (!used)
					err = -r;
				push_back(d, &e);
				break;
			}
			looked_up = !r;
		}
		if (looked_up) {
			n = fring_add_direntry_plus(req, buf + used,
						    size - used, e.name, &fe,
						    e.next);
		} else {
			/* ino 0 in a readdirplus record: the kernel lists
			 * the name without treating it as a lookup. */
			struct stat st = {
				.st_ino = (ino_t)entry_nodeid(fs, dir, &e),
				.st_mode = DTTOIF(e.type)};

			if (plus) {
				fe.attr = st;
				n = fring_add_direntry_plus(req, buf + used,
							    size - used, e.name,
							    &fe, e.next);
			} else {
				n = fring_add_direntry(req, buf + used,
						       size - used, e.name, &st,
						       e.next);
			}
			if (n > size - used) {
				push_back(d, &e);
				break;
			}
		}
		used += n;
		d->pos = e.next;
	}
	pthread_mutex_unlock(&d->lock);
	pt_inode_put(fs, dir);
	/* Should a READDIRPLUS answer not be delivered (an interrupted
	 * request), the lookups of its entries stay counted: the inodes
	 * then live until unmount. */
	if (err && !used)
		fring_reply_err(req, err);
	else
		fring_reply_data(req, used);
}

void pt_readdir(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		struct fring_file *fi, const struct fring_buf *dst)
{
	list(req, ino, size, off, fi, dst, false);
}

void pt_readdirplus(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		    struct fring_file *fi, const struct fring_buf *dst)
{
	list(req, ino, size, off, fi, dst, true);
}
