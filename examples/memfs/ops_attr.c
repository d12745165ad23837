/* SPDX-License-Identifier: MIT */
/* Callbacks about attributes: getattr, setattr, statx, access, readlink,
 * statfs. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "memfs.h"

void memfs_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct stat st;

	(void)fi;
	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	inode_stat_seen(n, &st);
	fring_reply_attr(req, &st, fs->opt.attr_timeout);
}

/*
 * Without HANDLE_KILLPRIV_V2 the kernel drops s[ug]id after a write by
 * sending the writer's SETATTR of the mode without them; that writer
 * need not own the file. Such a mode change takes nothing but those bits
 * away, so letting anyone make it grants nothing.
 */
static bool kernel_kills_priv(struct memfs *fs, const struct memfs_inode *n,
			      const struct stat *attr)
{
	mode_t cur = n->mode & 07777;

	return !fs->killpriv_v2 && (cur & (S_ISUID | S_ISGID)) &&
	       (attr->st_mode & 07777) == (cur & ~(mode_t)(S_ISUID | S_ISGID));
}

/* Caller holds n->lock. The order is that of the kernel's checks. */
static int setattr_check(struct memfs *fs, struct memfs_cred *c,
			 struct memfs_inode *n, const struct stat *attr,
			 int to_set, const struct fring_file *fi)
{
	bool owner = perm_owner_locked(c, n);

	if (to_set & FRING_SET_SIZE) {
		if (S_ISDIR(n->type))
			return EISDIR;
		if (!S_ISREG(n->type))
			return EINVAL;
		/* ftruncate(2) was checked when the file was opened. */
		if (!fi && perm_locked(c, n, W_OK))
			return EACCES;
	}
	if ((to_set & (FRING_SET_UID | FRING_SET_GID)) && c->uid != 0) {
		if (c->uid != n->uid)
			return EPERM;
		if ((to_set & FRING_SET_UID) && attr->st_uid != n->uid)
			return EPERM;
		if ((to_set & FRING_SET_GID) && attr->st_gid != n->gid &&
		    !cred_in_group(c, attr->st_gid))
			return EPERM;
	}
	if ((to_set & FRING_SET_MODE) && !owner &&
	    !kernel_kills_priv(fs, n, attr))
		return EPERM;
	/* FRING_SET_CTIME comes only from the kernel's own writeback of
	 * times, never from utimensat(2). */
	if ((to_set & (FRING_SET_ATIME | FRING_SET_MTIME)) &&
	    !(to_set & FRING_SET_CTIME) && !owner) {
		bool explicit = ((to_set & FRING_SET_ATIME) &&
				 !(to_set & FRING_SET_ATIME_NOW)) ||
				((to_set & FRING_SET_MTIME) &&
				 !(to_set & FRING_SET_MTIME_NOW));

		if (explicit)
			return EPERM;
		if (perm_locked(c, n, W_OK))
			return EACCES;
	}
	return 0;
}

static int setattr_apply(struct memfs *fs, struct memfs_cred *c,
			 struct memfs_inode *n, const struct stat *attr,
			 int to_set, const struct timespec *now)
{
	if (to_set & FRING_SET_SIZE) {
		int err = data_truncate_locked(fs, n, attr->st_size);

		if (err)
			return err;
		/* Like tmpfs: marked even when the size stays. */
		n->mtime = n->ctime = *now;
	}
	if (to_set & (FRING_SET_UID | FRING_SET_GID)) {
		if (to_set & FRING_SET_UID)
			n->uid = attr->st_uid;
		if (to_set & FRING_SET_GID)
			n->gid = attr->st_gid;
		kill_suidgid_locked(n);
		n->ctime = *now;
	}
	if (to_set & FRING_SET_MODE) {
		mode_t m = attr->st_mode & 07777;

		struct memfs_xattr *acl;

		if (c->uid != 0 && !cred_in_group(c, n->gid))
			m &= ~(mode_t)S_ISGID;
		n->mode = n->type | m;
		n->ctime = *now;
		/* -o acl: the ACL follows the mode (posix_acl_chmod()) */
		acl = n->xattrs.n ? xattr_find(&n->xattrs, MEMFS_ACL_ACCESS)
				  : NULL;
		if (acl)
			acl_chmod(acl->value, acl->size, m);
	}
	if (to_set & FRING_SET_ATIME)
		n->atime =
			(to_set & FRING_SET_ATIME_NOW) ? *now : attr->st_atim;
	if (to_set & FRING_SET_MTIME)
		n->mtime =
			(to_set & FRING_SET_MTIME_NOW) ? *now : attr->st_mtim;
	if (to_set & (FRING_SET_ATIME | FRING_SET_MTIME))
		n->ctime = *now;
	if (to_set & FRING_SET_CTIME)
		n->ctime = attr->st_ctim;
	if (to_set & FRING_SET_KILL_SUIDGID) {
		kill_suidgid_locked(n);
		n->ctime = *now;
	}
	return 0;
}

void memfs_setattr(fring_req_t *req, fring_ino_t ino, struct stat *attr,
		   int to_set, struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct memfs_cred c;
	struct timespec now;
	struct stat st;
	int err;

	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	cred_init(&c, req);
	pthread_mutex_lock(&n->lock);
	err = setattr_check(fs, &c, n, attr, to_set, fi);
	if (!err) {
		/* One time for every field this call sets. */
		inode_now_locked(n, &now);
		err = setattr_apply(fs, &c, n, attr, to_set, &now);
	}
	if (!err) {
		inode_stat_locked(n, &st);
		n->ts_seen = true;
	}
	pthread_mutex_unlock(&n->lock);
	cred_fini(&c);
	if (err)
		fring_reply_err(req, err);
	else
		fring_reply_attr(req, &st, fs->opt.attr_timeout);
}

static struct statx_timestamp stx_time(const struct timespec *ts)
{
	struct statx_timestamp t;

	memset(&t, 0, sizeof(t));
	t.tv_sec = ts->tv_sec;
	t.tv_nsec = (uint32_t)ts->tv_nsec;
	return t;
}

void memfs_statx(fring_req_t *req, fring_ino_t ino, int flags,
		 unsigned int mask, struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct statx stx;
	struct stat st;
	struct timespec btime;

	(void)flags;
	(void)mask;
	(void)fi;
	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	pthread_mutex_lock(&n->lock);
	inode_stat_locked(n, &st);
	n->ts_seen = true;
	btime = n->btime;
	pthread_mutex_unlock(&n->lock);

	memset(&stx, 0, sizeof(stx));
	stx.stx_mask = STATX_BASIC_STATS | STATX_BTIME;
	stx.stx_blksize = (uint32_t)st.st_blksize;
	stx.stx_nlink = (uint32_t)st.st_nlink;
	stx.stx_uid = st.st_uid;
	stx.stx_gid = st.st_gid;
	stx.stx_mode = (uint16_t)st.st_mode;
	stx.stx_ino = st.st_ino;
	stx.stx_size = (uint64_t)st.st_size;
	stx.stx_blocks = (uint64_t)st.st_blocks;
	stx.stx_atime = stx_time(&st.st_atim);
	stx.stx_btime = stx_time(&btime);
	stx.stx_ctime = stx_time(&st.st_ctim);
	stx.stx_mtime = stx_time(&st.st_mtim);
	stx.stx_rdev_major = major(st.st_rdev);
	stx.stx_rdev_minor = minor(st.st_rdev);
	fring_reply_statx(req, &stx, fs->opt.attr_timeout);
}

void memfs_access(fring_req_t *req, fring_ino_t ino, int mask)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct memfs_cred c;
	int err;

	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	if (mask == F_OK) {
		fring_reply_err(req, 0);
		return;
	}
	cred_init(&c, req);
	err = perm_inode(&c, n, mask);
	cred_fini(&c);
	fring_reply_err(req, err);
}

void memfs_readlink(fring_req_t *req, fring_ino_t ino)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);

	if (!n)
		fring_reply_err(req, ESTALE);
	else if (!S_ISLNK(n->type))
		fring_reply_err(req, EINVAL);
	else
		fring_reply_readlink(req, n->target);
}

void memfs_statfs(fring_req_t *req, fring_ino_t ino)
{
	struct statvfs st;

	(void)ino;
	/* the limits and what is charged against them, as tmpfs says it */
	space_statfs(req_fs(req), &st);
	fring_reply_statfs(req, &st);
}
