/* SPDX-License-Identifier: MIT */
/*
 * Callbacks that look names up, create them and remove them.
 *
 * Each check comes in the order the kernel makes it for a local
 * filesystem (search permission, then the name, then existence, then
 * write permission), so that the errno matches when several apply.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memfs.h"

int name_check(const char *name)
{
	size_t len = strlen(name);

	if (len == 0)
		return ENOENT;
	return len > MEMFS_NAME_MAX ? ENAMETOOLONG : 0;
}

struct memfs_inode *ns_dir(struct memfs *fs, fring_ino_t ino, int *err)
{
	struct memfs_inode *n = inode_get(fs, ino);

	if (!n) {
		*err = ESTALE;
		return NULL;
	}
	if (!S_ISDIR(n->type)) {
		*err = ENOTDIR;
		return NULL;
	}
	*err = 0;
	return n;
}

/* The umask a creating request applies itself; with -o acl the kernel
 * leaves it to memfs (dont_mask), which applies it in make_node() unless
 * the parent's default ACL takes its place. */
static mode_t req_umask(fring_req_t *req)
{
	return req_fs(req)->acl ? 0 : fring_req_ctx(req)->umask;
}

/* Whether name may be created in dir; fs->ns held. */
static int may_create(struct memfs_cred *c, struct memfs_inode *dir,
		      const char *name)
{
	int err = perm_inode(c, dir, X_OK);

	if (!err)
		err = name_check(name);
	if (!err && dir_find(dir->dir, name))
		err = EEXIST;
	if (!err && inode_is_dead_dir(dir))
		err = ENOENT;
	if (!err)
		err = perm_dir_write(c, dir);
	return err;
}

void new_owner(struct memfs_cred *c, struct memfs_inode *dir, mode_t *mode,
	       uid_t *uid, gid_t *gid)
{
	mode_t dmode;
	gid_t dgid;

	pthread_mutex_lock(&dir->lock);
	dmode = dir->mode;
	dgid = dir->gid;
	pthread_mutex_unlock(&dir->lock);
	*uid = c->uid;
	if (!(dmode & S_ISGID)) {
		*gid = c->gid;
		return;
	}
	*gid = dgid;
	if (S_ISDIR(*mode))
		*mode |= S_ISGID;
	else if ((*mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
		 c->uid != 0 && !cred_in_group(c, dgid))
		*mode &= ~(mode_t)S_ISGID;
}

/* Adds name -> n to dir and updates dir; fs->ns held for writing.
 * *when: the time dir was modified. */
static int link_into(struct memfs_inode *dir, const char *name,
		     struct memfs_inode *n, struct timespec *when)
{
	struct memfs_dirent *e = dirent_new(name);

	if (!e || dir_reserve(dir->dir)) {
		free(e);
		return ENOMEM;
	}
	dir_add(dir->dir, e, n);
	pthread_mutex_lock(&dir->lock);
	dir->nentries++;
	if (S_ISDIR(n->type))
		dir->nlink++;
	touch_mc(dir);
	*when = dir->mtime;
	pthread_mutex_unlock(&dir->lock);
	return 0;
}

void memfs_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct memfs *fs = req_fs(req);
	struct memfs_cred c;
	struct memfs_inode *dir, *n = NULL;
	int err;

	if (fs->opt.lookup_delay_ms) {
		/* a slow backend, so that tests can see lookups overlap */
		struct timespec d = {
			.tv_sec = fs->opt.lookup_delay_ms / 1000,
			.tv_nsec = (long)(fs->opt.lookup_delay_ms % 1000) *
				   1000000,
		};

		unsigned now = atomic_fetch_add(&fs->delayed_now, 1) + 1;
		unsigned peak = atomic_load(&fs->delayed_peak);

		while (now > peak && !atomic_compare_exchange_weak(
					     &fs->delayed_peak, &peak, now))
			;
		nanosleep(&d, NULL);
		atomic_fetch_sub(&fs->delayed_now, 1);
	}
	cred_init(&c, req);
	pthread_rwlock_rdlock(&fs->ns);
	dir = ns_dir(fs, parent, &err);
	if (!err)
		err = perm_inode(&c, dir, X_OK);
	if (!err)
		err = name_check(name);
	if (!err) {
		/* Only NFS export asks for these, but answer them right. */
		if (strcmp(name, ".") == 0) {
			n = dir;
		} else if (strcmp(name, "..") == 0) {
			n = inode_get(fs, dir->parent);
		} else {
			struct memfs_dirent *e = dir_find(dir->dir, name);

			n = e ? e->inode : NULL;
		}
		if (n)
			inode_ref_lookup(n);
		else
			err = ENOENT;
	}
	pthread_rwlock_unlock(&fs->ns);
	cred_fini(&c);

	if (n) {
		reply_entry_ref(fs, req, n, dir);
	} else if (err == ENOENT && fs->opt.negative_timeout > 0) {
		struct fring_entry e;

		memset(&e, 0, sizeof(e));
		e.entry_timeout = fs->opt.negative_timeout;
		fring_reply_entry(req, &e);
	} else {
		fring_reply_err(req, err);
	}
}

void memfs_forget(void *userdata, fring_ino_t ino, uint64_t nlookup)
{
	struct memfs *fs = userdata;
	struct memfs_inode *n = inode_get(fs, ino);

	if (n)
		inode_forget(fs, n, nlookup);
}

void memfs_forget_multi(void *userdata, size_t count,
			const struct fring_forget *forgets)
{
	for (size_t i = 0; i < count; i++)
		memfs_forget(userdata, forgets[i].ino, forgets[i].nlookup);
}

/*
 * -o security_ctx: the label the LSM gives a new inode (SELinux's
 * security.selinux...), which the kernel sends with the creating request,
 * set before the inode is visible, as a local filesystem does at create.
 */
int secctx_apply(struct memfs *fs, fring_req_t *req, struct memfs_inode *n)
{
	const char *name;
	const void *value;
	size_t size;
	int ret;

	if (!fs->secctx)
		return 0;
	ret = fring_req_secctx(req, &name, &value, &size);
	if (ret <= 0)
		return ret < 0 ? EIO : 0;
	pthread_mutex_lock(&n->lock);
	ret = xattr_set_locked(fs, n, name, value, size, 0);
	pthread_mutex_unlock(&n->lock);
	return ret;
}

/*
 * Creates name in parent and gives the kernel one reference to it (and an
 * open handle if fi is set). need_root: device nodes, refused after the
 * generic checks as the kernel does.
 */
static struct memfs_inode *make_node(struct memfs *fs, struct memfs_cred *c,
				     fring_ino_t parent, const char *name,
				     mode_t mode, dev_t rdev,
				     const char *target, bool need_root,
				     int *err)
{
	struct memfs_inode *dir, *n = NULL;
	struct timespec now;
	uid_t uid;
	gid_t gid;

	pthread_rwlock_wrlock(&fs->ns);
	dir = ns_dir(fs, parent, err);
	if (!*err)
		*err = may_create(c, dir, name);
	if (!*err && need_root && c->uid != 0)
		*err = EPERM;
	if (*err)
		goto out;
	new_owner(c, dir, &mode, &uid, &gid);
	n = inode_new(fs, mode, uid, gid, rdev, target, err);
	if (!n)
		goto out;
	if (S_ISDIR(mode))
		n->parent = dir->ino;
	if (fs->acl)
		*err = acl_inherit(fs, dir, n, c->umask);
	if (!*err)
		*err = secctx_apply(fs, c->req, n);
	if (*err) {
		inode_unlink(fs, n);
		n = NULL;
		goto out;
	}
	*err = link_into(dir, name, n, &now);
	if (*err) {
		inode_unlink(fs, n);
		n = NULL;
		goto out;
	}
	/* The same "now" for the new inode and its parent's change. */
	n->atime = n->mtime = n->ctime = n->btime = now;
	inode_ref_lookup(n);
out:
	pthread_rwlock_unlock(&fs->ns);
	return n;
}

static void reply_new_node(fring_req_t *req, fring_ino_t parent,
			   const char *name, mode_t mode, dev_t rdev,
			   const char *target, bool need_root)
{
	struct memfs *fs = req_fs(req);
	struct memfs_cred c;
	struct memfs_inode *n;
	int err;

	cred_init(&c, req);
	n = make_node(fs, &c, parent, name, mode, rdev, target, need_root,
		      &err);
	cred_fini(&c);
	if (n)
		reply_entry_ref(fs, req, n, inode_get(fs, parent));
	else
		fring_reply_err(req, err);
}

void memfs_mknod(fring_req_t *req, fring_ino_t parent, const char *name,
		 mode_t mode, dev_t rdev)
{
	mode_t perm = mode & 07777 & ~req_umask(req);
	bool dev = false;

	switch (mode & S_IFMT) {
	case 0:
	case S_IFREG:
		mode = S_IFREG;
		rdev = 0;
		break;
	case S_IFCHR:
	case S_IFBLK:
		/* a whiteout (character device 0:0) needs no privilege, as
		 * in vfs_mknod() since Linux 5.8 */
		dev = !S_ISCHR(mode) || rdev != 0;
		break;
	case S_IFIFO:
	case S_IFSOCK:
		rdev = 0;
		break;
	case S_IFDIR:
		fring_reply_err(req, EPERM);
		return;
	default:
		fring_reply_err(req, EINVAL);
		return;
	}
	reply_new_node(req, parent, name, (mode & S_IFMT) | perm, rdev, NULL,
		       dev);
}

void memfs_mkdir(fring_req_t *req, fring_ino_t parent, const char *name,
		 mode_t mode)
{
	/* The set-ID bits of mkdir's mode mean nothing; the setgid bit
	 * comes from the parent only. */
	mode = S_IFDIR | (mode & (0777 | S_ISVTX) & ~req_umask(req));
	reply_new_node(req, parent, name, mode, 0, NULL, false);
}

void memfs_symlink(fring_req_t *req, const char *target, fring_ino_t parent,
		   const char *name)
{
	size_t len = strlen(target);

	if (len == 0) {
		fring_reply_err(req, ENOENT);
		return;
	}
	if (len > MEMFS_SYMLINK_MAX) {
		fring_reply_err(req, ENAMETOOLONG);
		return;
	}
	reply_new_node(req, parent, name, S_IFLNK | 0777, 0, target, false);
}

void memfs_create(fring_req_t *req, fring_ino_t parent, const char *name,
		  mode_t mode, struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_cred c;
	struct memfs_inode *dir, *n = NULL;
	struct memfs_dirent *e;
	struct fring_entry ent;
	int err;

	cred_init(&c, req);
	mode = S_IFREG | (mode & 07777 & ~req_umask(req));
	pthread_rwlock_wrlock(&fs->ns);
	dir = ns_dir(fs, parent, &err);
	if (!err)
		err = perm_inode(&c, dir, X_OK);
	if (!err)
		err = name_check(name);
	e = err ? NULL : dir_find(dir->dir, name);
	if (e) {
		/* The kernel asks to create only names it believes absent;
		 * if one appeared meanwhile, O_CREAT without O_EXCL opens
		 * it. */
		n = e->inode;
		if (fi->flags & O_EXCL)
			err = EEXIST;
		else if (S_ISDIR(n->type))
			err = EISDIR;
		else if (!S_ISREG(n->type))
			err = EEXIST;
		else
			err = open_existing(fs, &c, n, fi);
		if (!err) {
			inode_ref_lookup(n);
			if (!fs->no_open)
				inode_ref_open(n);
		} else {
			n = NULL;
		}
		pthread_rwlock_unlock(&fs->ns);
	} else {
		pthread_rwlock_unlock(&fs->ns);
		if (!err) {
			n = make_node(fs, &c, parent, name, mode, 0, NULL,
				      false, &err);
			/* -o no_open: once the kernel opens on its own it
			 * sends no RELEASE for any file (fuse_file_put()), so
			 * opens are not counted; its lookup reference keeps
			 * an open inode alive */
			if (n && !fs->no_open)
				inode_ref_open(n);
			fi->fh = 0;
			fi->keep_cache = 1;
		}
	}
	cred_fini(&c);
	if (!n) {
		fring_reply_err(req, err);
		return;
	}
	dir = inode_get(fs, parent);
	inode_entry(fs, n, entry_timeout_in(fs, dir), &ent);
	if (fring_reply_create(req, &ent, fi) < 0) {
		inode_unref_open(fs, n);
		inode_forget(fs, n, 1);
	}
}

void memfs_tmpfile(fring_req_t *req, fring_ino_t parent, mode_t mode,
		   struct fring_file *fi)
{
	struct memfs *fs = req_fs(req);
	struct memfs_cred c;
	struct memfs_inode *dir, *n = NULL;
	struct fring_entry ent;
	uid_t uid;
	gid_t gid;
	int err;

	cred_init(&c, req);
	mode = S_IFREG | (mode & 07777 & ~req_umask(req));
	pthread_rwlock_rdlock(&fs->ns);
	dir = ns_dir(fs, parent, &err);
	if (!err && inode_is_dead_dir(dir))
		err = ENOENT;
	if (!err)
		err = perm_dir_write(&c, dir);
	if (!err) {
		new_owner(&c, dir, &mode, &uid, &gid);
		n = inode_new(fs, mode, uid, gid, 0, NULL, &err);
	}
	if (n && fs->acl)
		err = acl_inherit(fs, dir, n, c.umask);
	if (n && !err)
		err = secctx_apply(fs, req, n);
	if (n && err) {
		inode_unlink(fs, n);
		n = NULL;
	}
	if (n) {
		/* Nameless until linkat(); O_EXCL forbids even that. */
		n->nlink = 0;
		n->linkable = !(fi->flags & O_EXCL);
		n->nlookup = 1;
		n->nopen = fs->no_open ? 0 : 1;
	}
	pthread_rwlock_unlock(&fs->ns);
	cred_fini(&c);
	if (!n) {
		fring_reply_err(req, err);
		return;
	}
	fi->fh = 0;
	fi->keep_cache = 1;
	inode_entry(fs, n, entry_timeout_in(fs, NULL), &ent);
	if (fring_reply_create(req, &ent, fi) < 0) {
		inode_unref_open(fs, n);
		inode_forget(fs, n, 1);
	}
}

/* fs.protected_hardlinks: others may link only to plain regular files
 * they could read and write. */
static int may_hardlink(struct memfs *fs, struct memfs_cred *c,
			struct memfs_inode *n)
{
	mode_t mode;
	uid_t uid;
	gid_t gid;

	if (!fs->protected_hardlinks || c->uid == 0)
		return 0;
	pthread_mutex_lock(&n->lock);
	mode = n->mode;
	uid = n->uid;
	gid = n->gid;
	pthread_mutex_unlock(&n->lock);
	if (uid == c->uid)
		return 0;
	if (!S_ISREG(mode) || (mode & S_ISUID) ||
	    (mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		return EPERM;
	return perm_attrs(c, mode, uid, gid, R_OK | W_OK) ? EPERM : 0;
}

void memfs_link(fring_req_t *req, fring_ino_t ino, fring_ino_t newparent,
		const char *newname)
{
	struct memfs *fs = req_fs(req);
	struct memfs_cred c;
	struct memfs_inode *dir, *n;
	struct timespec now;
	bool charged = false;
	int err = 0;

	cred_init(&c, req);
	pthread_rwlock_wrlock(&fs->ns);
	n = inode_get(fs, ino);
	if (!n)
		err = ESTALE;
	else if (S_ISDIR(n->type))
		err = EPERM;
	dir = err ? NULL : ns_dir(fs, newparent, &err);
	if (!err)
		err = perm_inode(&c, dir, X_OK);
	if (!err)
		err = name_check(newname);
	if (!err && dir_find(dir->dir, newname))
		err = EEXIST;
	if (!err)
		err = may_hardlink(fs, &c, n);
	if (!err && inode_is_dead_dir(dir))
		err = ENOENT;
	if (!err)
		err = perm_dir_write(&c, dir);
	if (!err) {
		pthread_mutex_lock(&n->lock);
		if (n->nlink == 0 && !n->linkable)
			err = ENOENT;
		else if (n->nlink >= MEMFS_MAX_NLINK)
			err = EMLINK;
		/* as on tmpfs a second name costs an inode of -o nr_inodes
		 * (an O_TMPFILE's first name was paid for at its creation);
		 * fs->ns keeps nlink as it is until the link is made */
		else if (n->nlink && space_take_inode(fs))
			err = ENOSPC;
		else
			charged = n->nlink != 0;
		pthread_mutex_unlock(&n->lock);
	}
	if (!err)
		err = link_into(dir, newname, n, &now);
	if (err && charged)
		space_give_inode(fs);
	if (!err) {
		pthread_mutex_lock(&n->lock);
		n->nlink++;
		n->linkable = false;
		touch_c(n);
		n->nlookup++;
		pthread_mutex_unlock(&n->lock);
	}
	pthread_rwlock_unlock(&fs->ns);
	cred_fini(&c);
	if (err)
		fring_reply_err(req, err);
	else
		reply_entry_ref(fs, req, n, dir);
}

/* The checks shared by unlink and rmdir, up to the victim's type. */
static int may_delete(struct memfs_cred *c, struct memfs_inode *dir,
		      const char *name, struct memfs_dirent **out)
{
	int err = perm_inode(c, dir, X_OK);

	*out = NULL;
	if (!err)
		err = name_check(name);
	if (!err && !(*out = dir_find(dir->dir, name)))
		err = ENOENT;
	if (!err)
		err = perm_dir_write(c, dir);
	if (!err)
		err = perm_sticky(c, dir, (*out)->inode);
	return err;
}

/* Removes e from dir; fs->ns held for writing. */
void entry_remove(struct memfs *fs, struct memfs_inode *dir,
		  struct memfs_dirent *e)
{
	struct memfs_inode *victim = e->inode;

	dir_del(dir->dir, e);
	pthread_mutex_lock(&dir->lock);
	dir->nentries--;
	if (S_ISDIR(victim->type))
		dir->nlink--;
	touch_mc(dir);
	pthread_mutex_unlock(&dir->lock);
	inode_unlink(fs, victim);
}

void memfs_unlink(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct memfs *fs = req_fs(req);
	struct memfs_cred c;
	struct memfs_inode *dir;
	struct memfs_dirent *e = NULL;
	int err;

	cred_init(&c, req);
	pthread_rwlock_wrlock(&fs->ns);
	dir = ns_dir(fs, parent, &err);
	if (!err)
		err = may_delete(&c, dir, name, &e);
	if (!err && S_ISDIR(e->inode->type))
		err = EISDIR;
	if (!err)
		entry_remove(fs, dir, e);
	pthread_rwlock_unlock(&fs->ns);
	cred_fini(&c);
	fring_reply_err(req, err);
}

void memfs_rmdir(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct memfs *fs = req_fs(req);
	struct memfs_cred c;
	struct memfs_inode *dir;
	struct memfs_dirent *e = NULL;
	int err;

	if (strcmp(name, ".") == 0) {
		fring_reply_err(req, EINVAL);
		return;
	}
	if (strcmp(name, "..") == 0) {
		fring_reply_err(req, ENOTEMPTY);
		return;
	}
	cred_init(&c, req);
	pthread_rwlock_wrlock(&fs->ns);
	dir = ns_dir(fs, parent, &err);
	if (!err)
		err = may_delete(&c, dir, name, &e);
	if (!err && !S_ISDIR(e->inode->type))
		err = ENOTDIR;
	if (!err && e->inode->dir->count)
		err = ENOTEMPTY;
	if (!err)
		entry_remove(fs, dir, e);
	pthread_rwlock_unlock(&fs->ns);
	cred_fini(&c);
	fring_reply_err(req, err);
}
