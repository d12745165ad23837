/* SPDX-License-Identifier: MIT */
/*
 * Permission checks as the kernel makes them for a local filesystem.
 *
 * Without -o default_permissions the kernel checks nothing itself, so
 * memfs must; with it, the kernel checks first with the attributes memfs
 * reported, and memfs's own checks then agree and pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "memfs.h"

void cred_init(struct memfs_cred *c, fring_req_t *req)
{
	const struct fring_ctx *ctx = fring_req_ctx(req);

	c->req = req;
	c->uid = ctx->uid;
	c->gid = ctx->gid;
	c->umask = ctx->umask;
	c->ngroups = -1;
	c->groups = c->inline_groups;
}

void cred_fini(struct memfs_cred *c)
{
	if (c->groups != c->inline_groups)
		free(c->groups);
	c->groups = c->inline_groups;
	c->ngroups = -1;
}

/* Supplementary groups cost a read of /proc: only when a check needs
 * them, and once per request. */
static void load_groups(struct memfs_cred *c)
{
	int cap = (int)(sizeof(c->inline_groups) / sizeof(gid_t));
	int n = fring_req_getgroups(c->req, cap, c->inline_groups);

	if (n > cap) {
		gid_t *g = malloc((size_t)n * sizeof(*g));
		int m = g ? fring_req_getgroups(c->req, n, g) : -ENOMEM;

		if (m >= 0 && m <= n) {
			c->groups = g;
			n = m;
		} else {
			free(g);
			n = cap;
		}
	}
	c->ngroups = n < 0 ? 0 : n;
}

bool cred_in_group(struct memfs_cred *c, gid_t gid)
{
	gid_t sent[4];
	int n;

	if (gid == c->gid)
		return true;
	/* With -o supp_group a create carries the parent's group when the
	 * caller is in it: enough for the checks a create makes, and it
	 * works where /proc does not show the caller (pid 0). */
	n = fring_req_supp_groups(c->req, 4, sent);
	for (int i = 0; i < n && i < 4; i++)
		if (sent[i] == gid)
			return true;
	if (c->ngroups < 0)
		load_groups(c);
	for (int i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

int perm_attrs(struct memfs_cred *c, mode_t mode, uid_t uid, gid_t gid,
	       int mask)
{
	mode_t bits;

	mask &= R_OK | W_OK | X_OK;
	if (c->uid == 0) {
		/* Root may execute only what someone may execute; it may
		 * search any directory. */
		if ((mask & X_OK) && !S_ISDIR(mode) && !(mode & 0111))
			return EACCES;
		return 0;
	}
	/* The first class that matches decides, even when a later one
	 * would grant more. */
	if (c->uid == uid)
		bits = mode >> 6;
	else if (cred_in_group(c, gid))
		bits = mode >> 3;
	else
		bits = mode;
	return (mask & ~(int)bits & 7) ? EACCES : 0;
}

int perm_locked(struct memfs_cred *c, struct memfs_inode *n, int mask)
{
	struct memfs_xattr *acl;

	/* Root's rules do not depend on the ACL (capabilities decide in
	 * the kernel after the ACL); only -o acl stores one. */
	if (c->uid != 0 && n->xattrs.n &&
	    (acl = xattr_find(&n->xattrs, MEMFS_ACL_ACCESS)))
		return acl_permission(c, acl->value, acl->size, n->uid, n->gid,
				      mask & (R_OK | W_OK | X_OK));
	return perm_attrs(c, n->mode, n->uid, n->gid, mask);
}

int perm_inode(struct memfs_cred *c, struct memfs_inode *n, int mask)
{
	mode_t mode;
	uid_t uid;
	gid_t gid;
	int err = -1;

	pthread_mutex_lock(&n->lock);
	if (n->xattrs.n)
		err = perm_locked(c, n, mask);
	mode = n->mode;
	uid = n->uid;
	gid = n->gid;
	pthread_mutex_unlock(&n->lock);
	/* without xattrs, the groups are read (from /proc, maybe) unlocked */
	return err >= 0 ? err : perm_attrs(c, mode, uid, gid, mask);
}

bool perm_owner_locked(const struct memfs_cred *c,
		       const struct memfs_inode *n)
{
	return c->uid == 0 || c->uid == n->uid;
}

int perm_sticky(struct memfs_cred *c, struct memfs_inode *dir,
		struct memfs_inode *victim)
{
	mode_t dmode;
	uid_t duid, vuid;

	if (c->uid == 0)
		return 0;
	pthread_mutex_lock(&dir->lock);
	dmode = dir->mode;
	duid = dir->uid;
	pthread_mutex_unlock(&dir->lock);
	if (!(dmode & S_ISVTX) || duid == c->uid)
		return 0;
	pthread_mutex_lock(&victim->lock);
	vuid = victim->uid;
	pthread_mutex_unlock(&victim->lock);
	return vuid == c->uid ? 0 : EPERM;
}

int perm_dir_write(struct memfs_cred *c, struct memfs_inode *dir)
{
	return perm_inode(c, dir, W_OK | X_OK);
}
