/* SPDX-License-Identifier: MIT */
/* Names and attributes: lookup, forget, getattr/setattr, node creation,
 * links, renames, statfs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "passthrough.h"

static void reply_entry_or_err(fring_req_t *req, int err,
			       const struct fring_entry *e)
{
	if (err)
		fring_reply_err(req, -err);
	else
		fring_reply_entry(req, e);
}

void pt_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *p;
	struct fring_entry e;
	int err;

	PT_GET_OR_STALE(p, fs, req, parent);
	err = pt_lookup_name(fs, p, name, false, &e);
	pt_inode_put(fs, p);
	if (err == -ENOENT && fs->cache != PT_CACHE_NEVER &&
	    fs->entry_timeout > 0) {
		/* A negative entry: the kernel caches the ENOENT. */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = fs->entry_timeout;
		err = 0;
	}
	reply_entry_or_err(req, err, &e);
}

void pt_forget(void *userdata, fring_ino_t ino, uint64_t nlookup)
{
	pt_inode_forget(userdata, ino, nlookup);
}

void pt_forget_multi(void *userdata, size_t count,
		     const struct fring_forget *forgets)
{
	pt_inode_forget_many(userdata, count, forgets);
}

void pt_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in;
	struct stat st;
	int err;

	(void)fi; /* the O_PATH descriptor names the same inode */
	PT_GET_OR_STALE(in, fs, req, ino);
	err = pt_stat_fd(in->fd, ino, &st);
	pt_inode_put(fs, in);
	if (err)
		fring_reply_err(req, -err);
	else
		fring_reply_attr(req, &st, fs->attr_timeout);
}

static struct timespec time_arg(int to_set, int set, int now,
				struct timespec value)
{
	if (to_set & now)
		return (struct timespec){.tv_nsec = UTIME_NOW};
	if (to_set & set)
		return value;
	return (struct timespec){.tv_nsec = UTIME_OMIT};
}

/* Applies the changes in the order chown, chmod, truncate, set-id bits,
 * times: chown may clear set-id bits, and the mode the kernel sent along
 * is final. */
static int apply_setattr(struct pt_inode *in, const struct stat *attr,
			 int to_set, const struct fring_file *fi)
{
	struct pt_procpath pp;

	if (to_set & (FRING_SET_UID | FRING_SET_GID)) {
		uid_t uid = to_set & FRING_SET_UID ? attr->st_uid : (uid_t)-1;
		gid_t gid = to_set & FRING_SET_GID ? attr->st_gid : (gid_t)-1;

		if (fchownat(in->fd, "", uid, gid,
			     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	if (to_set & FRING_SET_MODE) {
		/* No fchmod on O_PATH descriptors: go through /proc. */
		if (fchmodat(AT_FDCWD, pt_procpath(&pp, in->fd),
			     attr->st_mode & 07777, 0) < 0)
			return -errno;
	}
	if (to_set & FRING_SET_SIZE) {
		int r = -1;

		/* The kernel names the handle for ftruncate(2); should it
		 * not be writable after all, go by the path. */
		if (fi) {
			r = ftruncate(pt_fd(fi), attr->st_size);
			if (r < 0 && errno != EBADF && errno != EINVAL)
				return -errno;
		}
		if (r < 0 &&
		    truncate(pt_procpath(&pp, in->fd), attr->st_size) < 0)
			return -errno;
	}
	/* A truncation (or chown) by a caller without CAP_FSETID, with
	 * FUSE_HANDLE_KILLPRIV_V2; an explicit mode wins. */
	if ((to_set & FRING_SET_KILL_SUIDGID) && !(to_set & FRING_SET_MODE))
		pt_kill_suidgid(in->fd);
	if (to_set & (FRING_SET_ATIME | FRING_SET_MTIME | FRING_SET_ATIME_NOW |
		      FRING_SET_MTIME_NOW)) {
		struct timespec ts[2] = {
			time_arg(to_set, FRING_SET_ATIME, FRING_SET_ATIME_NOW,
				 attr->st_atim),
			time_arg(to_set, FRING_SET_MTIME, FRING_SET_MTIME_NOW,
				 attr->st_mtim),
		};

		if (utimensat(in->fd, "", ts,
			      AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	return 0;
}

void pt_setattr(fring_req_t *req, fring_ino_t ino, struct stat *attr,
		int to_set, struct fring_file *fi)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in;
	struct stat st;
	int err;

	PT_GET_OR_STALE(in, fs, req, ino);
	err = apply_setattr(in, attr, to_set, fi);
	if (!err)
		err = pt_stat_fd(in->fd, ino, &st);
	pt_inode_put(fs, in);
	if (err)
		fring_reply_err(req, -err);
	else
		fring_reply_attr(req, &st, fs->attr_timeout);
}

void pt_readlink(fring_req_t *req, fring_ino_t ino)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in;
	char buf[PATH_MAX + 1];
	ssize_t n;
	int err;

	PT_GET_OR_STALE(in, fs, req, ino);
	n = readlinkat(in->fd, "", buf, sizeof(buf));
	err = n < 0 ? errno : 0;
	pt_inode_put(fs, in);
	if (err)
		fring_reply_err(req, err);
	else if ((size_t)n >= sizeof(buf))
		fring_reply_err(req, ENAMETOOLONG);
	else {
		buf[n] = '\0';
		fring_reply_readlink(req, buf);
	}
}

bool pt_unlink_if(int dirfd, const char *name, dev_t dev, ino_t ino, int flags)
{
	struct statx sx;

	/* DONT_SYNC: inode numbers do not change, and a mount that came
	 * onto the name is looked at without a request (guard.c) */
	if (statx(dirfd, name,
		  AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
		  STATX_INO, &sx) < 0 ||
	    makedev(sx.stx_dev_major, sx.stx_dev_minor) != dev ||
	    sx.stx_ino != (uint64_t)ino)
		return false;
	/* The kernel has no "unlink if it is this inode": somebody who
	 * changes the source directly between the two calls could still
	 * lose the name. Through the mount nobody can: the kernel holds the
	 * parent's lock for the whole create. */
	return unlinkat(dirfd, name, flags) == 0;
}

enum node_kind { NODE_MKNOD, NODE_MKDIR, NODE_SYMLINK };

/* mknod, mkdir, symlink: made with the caller's ids, then looked up. */
static void make_node(fring_req_t *req, fring_ino_t parent, const char *name,
		      enum node_kind kind, mode_t mode, dev_t rdev,
		      const char *target)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *p;
	struct pt_creds c;
	struct fring_entry e;
	struct statx sx;
	bool made;
	int r, err;

	PT_GET_OR_STALE(p, fs, req, parent);
	pt_creds_enter(fs, req, &c);
	switch (kind) {
	case NODE_MKNOD:
		r = mknodat(p->fd, name, mode, rdev);
		break;
	case NODE_MKDIR:
		r = mkdirat(p->fd, name, mode);
		break;
	default:
		r = symlinkat(target, p->fd, name);
		break;
	}
	err = r < 0 ? -errno : 0;
	pt_creds_leave(&c);
	/* What this request made, to take back should the lookup fail (no
	 * descriptor left: EMFILE). STATX_INO alone leaves the times
	 * unread (pt_stat_new()). */
	made = !err &&
	       statx(p->fd, name,
		     AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
		     STATX_INO, &sx) == 0;
	if (!err)
		err = pt_lookup_name(fs, p, name, true, &e);
	if (err && made)
		pt_unlink_if(p->fd, name,
			     makedev(sx.stx_dev_major, sx.stx_dev_minor),
			     (ino_t)sx.stx_ino,
			     kind == NODE_MKDIR ? AT_REMOVEDIR : 0);
	pt_inode_put(fs, p);
	reply_entry_or_err(req, err, &e);
}

void pt_mknod(fring_req_t *req, fring_ino_t parent, const char *name,
	      mode_t mode, dev_t rdev)
{
	make_node(req, parent, name, NODE_MKNOD, mode, rdev, NULL);
}

void pt_mkdir(fring_req_t *req, fring_ino_t parent, const char *name,
	      mode_t mode)
{
	make_node(req, parent, name, NODE_MKDIR, mode, 0, NULL);
}

void pt_symlink(fring_req_t *req, const char *target, fring_ino_t parent,
		const char *name)
{
	make_node(req, parent, name, NODE_SYMLINK, 0, 0, target);
}

void pt_link(fring_req_t *req, fring_ino_t ino, fring_ino_t newparent,
	     const char *newname)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in, *np;
	struct pt_procpath pp;
	struct pt_creds c;
	struct fring_entry e;
	dev_t src_dev;
	ino_t src_ino;
	int r, err;

	PT_GET_OR_STALE(in, fs, req, ino);
	np = pt_inode_get(fs, newparent);
	if (!np) {
		pt_inode_put(fs, in);
		fring_reply_err(req, ESTALE);
		return;
	}
	pt_creds_enter(fs, req, &c);
	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH, which a switched fsuid
	 * does not have; the /proc link works for anyone allowed to link. */
	r = linkat(in->fd, "", np->fd, newname, AT_EMPTY_PATH);
	if (r < 0 && errno == ENOENT)
		r = linkat(AT_FDCWD, pt_procpath(&pp, in->fd), np->fd, newname,
			   AT_SYMLINK_FOLLOW);
	err = r < 0 ? -errno : 0;
	pt_creds_leave(&c);
	src_dev = in->dev;
	src_ino = in->ino;
	pt_inode_put(fs, in);
	if (!err) {
		err = pt_lookup_name(fs, np, newname, false, &e);
		/* the new name goes again if it cannot be answered (EMFILE) */
		if (err)
			pt_unlink_if(np->fd, newname, src_dev, src_ino, 0);
	}
	pt_inode_put(fs, np);
	reply_entry_or_err(req, err, &e);
}

static void remove_name(fring_req_t *req, fring_ino_t parent, const char *name,
			int flags)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *p;
	int err;

	PT_GET_OR_STALE(p, fs, req, parent);
	err = unlinkat(p->fd, name, flags) < 0 ? errno : 0;
	pt_inode_put(fs, p);
	fring_reply_err(req, err);
}

void pt_unlink(fring_req_t *req, fring_ino_t parent, const char *name)
{
	remove_name(req, parent, name, 0);
}

void pt_rmdir(fring_req_t *req, fring_ino_t parent, const char *name)
{
	remove_name(req, parent, name, AT_REMOVEDIR);
}

void pt_rename(fring_req_t *req, fring_ino_t parent, const char *name,
	       fring_ino_t newparent, const char *newname, unsigned int flags)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *p, *np;
	int err;

	PT_GET_OR_STALE(p, fs, req, parent);
	np = pt_inode_get(fs, newparent);
	if (!np) {
		pt_inode_put(fs, p);
		fring_reply_err(req, ESTALE);
		return;
	}
	err = renameat2(p->fd, name, np->fd, newname, flags) < 0 ? errno : 0;
	pt_inode_put(fs, np);
	pt_inode_put(fs, p);
	fring_reply_err(req, err);
}

void pt_statfs(fring_req_t *req, fring_ino_t ino)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in;
	struct statvfs sv;
	int err;

	PT_GET_OR_STALE(in, fs, req, ino);
	err = fstatvfs(in->fd, &sv) < 0 ? errno : 0;
	pt_inode_put(fs, in);
	if (err)
		fring_reply_err(req, err);
	else
		fring_reply_statfs(req, &sv);
}

void pt_syncfs(fring_req_t *req, fring_ino_t ino)
{
	(void)ino;
	fring_reply_err(req, syncfs(pt_fs(req)->root_rdfd) < 0 ? errno : 0);
}
