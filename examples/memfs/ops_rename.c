/* SPDX-License-Identifier: MIT */
/*
 * rename(2), renameat2(2) with RENAME_NOREPLACE, RENAME_EXCHANGE and
 * RENAME_WHITEOUT.
 *
 * The whole operation runs under the namespace lock held for writing, so
 * the ancestry checks and the moves see one consistent tree and no
 * per-directory lock order is needed between the two parents.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "memfs.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

/* Whether anc is dir or one of its ancestors; dir must be live. */
static bool is_ancestor(struct memfs *fs, const struct memfs_inode *anc,
			struct memfs_inode *dir)
{
	/* The depth bound only guards against a corrupt tree. */
	for (unsigned depth = 0; dir && depth < (1u << 24); depth++) {
		if (dir == anc)
			return true;
		if (dir->ino == FRING_ROOT_INO)
			return false;
		dir = inode_get(fs, dir->parent);
	}
	return false;
}

static void dir_changed(struct memfs_inode *dir, long dentries, long dlinks)
{
	pthread_mutex_lock(&dir->lock);
	dir->nentries += (size_t)dentries;
	dir->nlink += (nlink_t)dlinks;
	touch_mc(dir);
	pthread_mutex_unlock(&dir->lock);
}

static void ctime_changed(struct memfs_inode *n)
{
	pthread_mutex_lock(&n->lock);
	touch_c(n);
	pthread_mutex_unlock(&n->lock);
}

/* Checks in the kernel's order; 0, a positive errno, or -1 for "same
 * file, nothing to do". */
static int rename_checks(struct memfs *fs, struct memfs_cred *c,
			 struct memfs_inode *sdir, struct memfs_dirent *se,
			 struct memfs_inode *ddir, struct memfs_dirent *te,
			 unsigned int flags)
{
	struct memfs_inode *src = se->inode, *tgt = te ? te->inode : NULL;
	bool exchange = flags & RENAME_EXCHANGE;
	bool sdirp = S_ISDIR(src->type), tdirp = tgt && S_ISDIR(tgt->type);
	int err;

	if (exchange && !tgt)
		return ENOENT;
	if ((flags & RENAME_NOREPLACE) && tgt)
		return EEXIST;
	if (!tgt && inode_is_dead_dir(ddir))
		return ENOENT;
	/* Moving a directory below itself would cut it off the tree. */
	if (sdirp && is_ancestor(fs, src, ddir))
		return EINVAL;
	if (tdirp && is_ancestor(fs, tgt, sdir))
		return exchange ? EINVAL : ENOTEMPTY;
	if (src == tgt)
		return -1;

	err = perm_dir_write(c, sdir);
	if (!err)
		err = perm_sticky(c, sdir, src);
	if (err)
		return err;
	err = perm_dir_write(c, ddir);
	if (!err && tgt)
		err = perm_sticky(c, ddir, tgt);
	if (err)
		return err;
	if (tgt && !exchange) {
		if (sdirp && !tdirp)
			return ENOTDIR;
		if (!sdirp && tdirp)
			return EISDIR;
	}
	/* A directory changing parent gets a new "..": that writes it. */
	if (sdir != ddir) {
		if (sdirp && (err = perm_inode(c, src, W_OK)))
			return err;
		if (exchange && tdirp && (err = perm_inode(c, tgt, W_OK)))
			return err;
	}
	if (!exchange && tdirp && tgt->dir->count)
		return ENOTEMPTY;
	return 0;
}

static void do_exchange(struct memfs_inode *sdir, struct memfs_dirent *se,
			struct memfs_inode *ddir, struct memfs_dirent *te)
{
	struct memfs_inode *src = se->inode, *tgt = te->inode;
	bool sdirp = S_ISDIR(src->type), tdirp = S_ISDIR(tgt->type);
	long moved = (long)sdirp - (long)tdirp; /* subdirs sdir -> ddir */

	/* Names stay where they are (and keep their cookies); only what
	 * they point to swaps. */
	se->inode = tgt;
	te->inode = src;
	if (sdir != ddir) {
		if (sdirp)
			src->parent = ddir->ino;
		if (tdirp)
			tgt->parent = sdir->ino;
	} else {
		moved = 0;
	}
	dir_changed(sdir, 0, -moved);
	if (ddir != sdir)
		dir_changed(ddir, 0, moved);
	ctime_changed(src);
	ctime_changed(tgt);
}

/*
 * RENAME_WHITEOUT (overlayfs's): the source name stays, pointing at a new
 * whiteout, a character device 0:0 with mode 0, owned as any new inode in
 * sdir (tmpfs's shmem_whiteout() makes it with its mknod: no umask, the
 * directory's default ACL). It counts against nr_inodes. NULL with *err
 * set if it cannot be made; fs->ns held for writing.
 */
static struct memfs_inode *whiteout_new(struct memfs *fs, struct memfs_cred *c,
					struct memfs_inode *sdir, int *err)
{
	mode_t mode = S_IFCHR;
	struct memfs_inode *w;
	uid_t uid;
	gid_t gid;

	new_owner(c, sdir, &mode, &uid, &gid);
	w = inode_new(fs, mode, uid, gid, makedev(0, 0), NULL, err);
	if (w && fs->acl && (*err = acl_inherit(fs, sdir, w, 0))) {
		inode_unlink(fs, w);
		w = NULL;
	}
	return w;
}

void memfs_rename(fring_req_t *req, fring_ino_t parent, const char *name,
		  fring_ino_t newparent, const char *newname,
		  unsigned int flags)
{
	struct memfs *fs = req_fs(req);
	struct memfs_cred c;
	struct memfs_inode *sdir, *ddir = NULL, *src, *tgt, *wo = NULL;
	struct memfs_dirent *se = NULL, *te = NULL, *ne = NULL;
	int err;

	/* the kernel's check (do_renameat2()): EXCHANGE goes with neither
	 * of the others; a whiteout needs no privilege (Linux 5.8 on) */
	if ((flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE |
				 RENAME_WHITEOUT)) ||
	    ((flags & RENAME_EXCHANGE) &&
	     (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)))) {
		fring_reply_err(req, EINVAL);
		return;
	}
	cred_init(&c, req);
	pthread_rwlock_wrlock(&fs->ns);
	sdir = ns_dir(fs, parent, &err);
	if (!err)
		ddir = ns_dir(fs, newparent, &err);
	if (!err)
		err = perm_inode(&c, sdir, X_OK);
	if (!err)
		err = perm_inode(&c, ddir, X_OK);
	if (!err)
		err = name_check(name);
	if (!err)
		err = name_check(newname);
	if (!err && !(se = dir_find(sdir->dir, name)))
		err = ENOENT;
	if (!err) {
		te = dir_find(ddir->dir, newname);
		err = rename_checks(fs, &c, sdir, se, ddir, te, flags);
	}
	if (!err && !te) {
		ne = dirent_new(newname);
		if (!ne || dir_reserve(ddir->dir))
			err = ENOMEM;
	}
	/* the last thing that can fail (ENOSPC), before anything moves */
	if (!err && (flags & RENAME_WHITEOUT))
		wo = whiteout_new(fs, &c, sdir, &err);
	if (err)
		goto out;

	src = se->inode;
	tgt = te ? te->inode : NULL;
	if (flags & RENAME_EXCHANGE) {
		do_exchange(sdir, se, ddir, te);
		goto out;
	}
	bool sdirp = S_ISDIR(src->type);
	bool tdirp = tgt && S_ISDIR(tgt->type);

	if (tgt) {
		/* The replaced name keeps its cookie: it never stops
		 * existing, so a listing in progress sees it once. */
		te->inode = src;
	} else {
		dir_add(ddir->dir, ne, src);
		ne = NULL;
	}
	/* a whiteout takes the source's name, and its cookie */
	if (wo)
		se->inode = wo;
	else
		dir_del(sdir->dir, se);
	if (sdirp)
		src->parent = ddir->ino;
	if (sdir == ddir) {
		dir_changed(sdir, (tgt ? -1 : 0) + (wo ? 1 : 0), -(long)tdirp);
	} else {
		dir_changed(sdir, wo ? 0 : -1, -(long)sdirp);
		dir_changed(ddir, tgt ? 0 : 1, (long)sdirp - (long)tdirp);
	}
	ctime_changed(src);
	if (tgt)
		inode_unlink(fs, tgt);
out:
	pthread_rwlock_unlock(&fs->ns);
	cred_fini(&c);
	free(ne);
	fring_reply_err(req, err < 0 ? 0 : err);
}
