/* SPDX-License-Identifier: MIT */
/*
 * Extended attributes: the user., trusted. and security. namespaces, kept
 * per inode in a small array (inodes carry few). The namespace rules are
 * those the kernel and tmpfs apply together.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "memfs.h"

#define XATTR_NAME_MAX_LEN 255

enum xns { XNS_USER, XNS_TRUSTED, XNS_SECURITY, XNS_OTHER };

static const struct {
	const char *prefix;
	size_t len;
} prefixes[] = {
	[XNS_USER] = {"user.", 5},
	[XNS_TRUSTED] = {"trusted.", 8},
	[XNS_SECURITY] = {"security.", 9},
};

/* The namespace of name; *bare is set when nothing follows the prefix. */
static enum xns xattr_ns(const char *name, bool *bare)
{
	for (int i = XNS_USER; i < XNS_OTHER; i++) {
		if (strncmp(name, prefixes[i].prefix, prefixes[i].len) == 0) {
			*bare = name[prefixes[i].len] == '\0';
			return (enum xns)i;
		}
	}
	*bare = false;
	return XNS_OTHER;
}

void xattrs_free(struct memfs_xattrs *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->v[i].name);
		free(x->v[i].value);
	}
	free(x->v);
	x->v = NULL;
	x->n = 0;
}

struct memfs_xattr *xattr_find(struct memfs_xattrs *x, const char *name)
{
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->v[i].name, name) == 0)
			return &x->v[i];
	return NULL;
}

/*
 * Whether c may read (write == false) or change the attribute name of n;
 * caller holds n->lock. Unreadable ones look absent, as in the kernel.
 */
static int xattr_access(struct memfs_cred *c, struct memfs_inode *n,
			const char *name, bool write)
{
	bool bare, dflt;

	switch (xattr_ns(name, &bare)) {
	case XNS_USER:
		if (bare)
			return EINVAL;
		/* On other types user. attributes could let anyone store
		 * data in a file they may not write (e.g. /dev/null). */
		if (!S_ISREG(n->type) && !S_ISDIR(n->type))
			return write ? EPERM : ENODATA;
		if (write && S_ISDIR(n->type) && (n->mode & S_ISVTX) &&
		    !perm_owner_locked(c, n))
			return EPERM;
		return perm_locked(c, n, write ? W_OK : R_OK);
	case XNS_TRUSTED:
		if (bare)
			return EINVAL;
		if (c->uid != 0)
			return write ? EPERM : ENODATA;
		return 0;
	case XNS_SECURITY:
		if (bare)
			return EINVAL;
		return write && c->uid != 0 ? EPERM : 0;
	default:
		/* -o acl: anyone may read an ACL (the kernel checks
		 * nothing), only the owner change one */
		if (req_fs(c->req)->acl && acl_name(name, &dflt)) {
			if (!write)
				return 0;
			if (!perm_owner_locked(c, n))
				return EPERM;
			return dflt && !S_ISDIR(n->type) ? EACCES : 0;
		}
		return EOPNOTSUPP;
	}
}

/*
 * The attribute name of n, if c may read it (write == false) or change it;
 * NULL with *err set otherwise (ENODATA when there is none). Caller holds
 * n->lock.
 */
static struct memfs_xattr *xattr_lookup_locked(struct memfs_cred *c,
					       struct memfs_inode *n,
					       const char *name, bool write,
					       int *err)
{
	struct memfs_xattr *x;

	*err = xattr_access(c, n, name, write);
	if (*err)
		return NULL;
	x = xattr_find(&n->xattrs, name);
	if (!x)
		*err = ENODATA;
	return x;
}

/* What an attribute costs against -o size. */
static size_t xattr_cost(const char *name, size_t size)
{
	return strlen(name) + 1 + size;
}

int xattr_set_locked(struct memfs *fs, struct memfs_inode *n, const char *name,
		     const void *value, size_t size, int flags)
{
	struct memfs_xattr *x = xattr_find(&n->xattrs, name);
	size_t old = x ? xattr_cost(name, x->size) : 0;
	size_t cost = xattr_cost(name, size);
	void *copy;

	if ((flags & XATTR_CREATE) && x)
		return EEXIST;
	if ((flags & XATTR_REPLACE) && !x)
		return ENODATA;
	if (cost > old && space_take(fs, cost - old))
		return ENOSPC;
	copy = malloc(size ? size : 1);
	if (!copy)
		goto nomem;
	memcpy(copy, value, size);
	if (!x) {
		struct memfs_xattr *v =
			realloc(n->xattrs.v, (n->xattrs.n + 1) * sizeof(*v));
		char *nm = strdup(name);

		if (!v || !nm) {
			if (v)
				n->xattrs.v = v;
			free(nm);
			free(copy);
			goto nomem;
		}
		n->xattrs.v = v;
		x = &v[n->xattrs.n++];
		x->name = nm;
		x->value = NULL;
	}
	free(x->value);
	x->value = copy;
	x->size = size;
	if (cost < old)
		space_give(fs, old - cost);
	n->xattr_bytes = n->xattr_bytes - old + cost;
	return 0;
nomem:
	if (cost > old)
		space_give(fs, cost - old);
	return ENOMEM;
}

void xattr_del_locked(struct memfs *fs, struct memfs_inode *n,
		      struct memfs_xattr *x)
{
	size_t cost = xattr_cost(x->name, x->size);

	space_give(fs, cost);
	n->xattr_bytes -= cost;
	free(x->name);
	free(x->value);
	*x = n->xattrs.v[--n->xattrs.n];
}

void memfs_setxattr(fring_req_t *req, fring_ino_t ino, const char *name,
		    const void *value, size_t size, int flags)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct memfs_cred c;
	size_t len = strlen(name);
	bool is_default;
	int err;

	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	if (len == 0 || len > XATTR_NAME_MAX_LEN) {
		fring_reply_err(req, ERANGE);
		return;
	}
	if (size > MEMFS_XATTR_SIZE_MAX) {
		fring_reply_err(req, E2BIG);
		return;
	}
	if (flags & ~(XATTR_CREATE | XATTR_REPLACE)) {
		fring_reply_err(req, EINVAL);
		return;
	}
	cred_init(&c, req);
	pthread_mutex_lock(&n->lock);
	err = xattr_access(&c, n, name, true);
	if (!err && fs->acl && acl_name(name, &is_default))
		err = acl_set_locked(&c, n, is_default, value, size, flags);
	else if (!err)
		err = xattr_set_locked(fs, n, name, value, size, flags);
	if (!err)
		touch_c(n);
	pthread_mutex_unlock(&n->lock);
	cred_fini(&c);
	fring_reply_err(req, err);
}

void memfs_getxattr(fring_req_t *req, fring_ino_t ino, const char *name,
		    size_t size)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct memfs_cred c;
	struct memfs_xattr *x;
	void *copy = NULL;
	size_t len = 0;
	int err;

	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	if (strlen(name) == 0 || strlen(name) > XATTR_NAME_MAX_LEN) {
		fring_reply_err(req, ERANGE);
		return;
	}
	cred_init(&c, req);
	pthread_mutex_lock(&n->lock);
	x = xattr_lookup_locked(&c, n, name, false, &err);
	if (!err) {
		len = x->size;
		if (size && len > size)
			err = ERANGE;
		else if (size && !(copy = malloc(len ? len : 1)))
			err = ENOMEM;
		else if (size)
			memcpy(copy, x->value, len);
	}
	pthread_mutex_unlock(&n->lock);
	cred_fini(&c);
	if (err)
		fring_reply_err(req, err);
	else if (!size)
		fring_reply_xattr(req, len);
	else
		fring_reply_buf(req, copy, len);
	free(copy);
}

void memfs_listxattr(fring_req_t *req, fring_ino_t ino, size_t size)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	uid_t uid = fring_req_ctx(req)->uid;
	char *buf = NULL;
	size_t len = 0;
	int err = 0;

	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	pthread_mutex_lock(&n->lock);
	for (int pass = 0; pass < 2 && !err; pass++) {
		size_t at = 0;

		for (size_t i = 0; i < n->xattrs.n; i++) {
			const char *nm = n->xattrs.v[i].name;
			size_t l = strlen(nm) + 1;
			bool bare;

			/* Only the privileged see trusted. names. */
			if (uid != 0 && xattr_ns(nm, &bare) == XNS_TRUSTED)
				continue;
			if (buf)
				memcpy(buf + at, nm, l);
			at += l;
		}
		len = at;
		if (pass == 0) {
			if (!size)
				break;
			if (len > size)
				err = ERANGE;
			else if (!(buf = malloc(len ? len : 1)))
				err = ENOMEM;
		}
	}
	pthread_mutex_unlock(&n->lock);
	if (err)
		fring_reply_err(req, err);
	else if (!size)
		fring_reply_xattr(req, len);
	else
		fring_reply_buf(req, buf, len);
	free(buf);
}

void memfs_removexattr(fring_req_t *req, fring_ino_t ino, const char *name)
{
	struct memfs *fs = req_fs(req);
	struct memfs_inode *n = inode_get(fs, ino);
	struct memfs_cred c;
	struct memfs_xattr *x;
	int err;

	if (!n) {
		fring_reply_err(req, ESTALE);
		return;
	}
	if (strlen(name) == 0 || strlen(name) > XATTR_NAME_MAX_LEN) {
		fring_reply_err(req, ERANGE);
		return;
	}
	cred_init(&c, req);
	pthread_mutex_lock(&n->lock);
	x = xattr_lookup_locked(&c, n, name, true, &err);
	if (!err) {
		xattr_del_locked(fs, n, x);
		touch_c(n);
	}
	pthread_mutex_unlock(&n->lock);
	cred_fini(&c);
	fring_reply_err(req, err);
}
