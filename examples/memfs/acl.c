/* SPDX-License-Identifier: MIT */
/*
 * POSIX ACLs (-o acl, FUSE_POSIX_ACL): kept as the xattrs
 * system.posix_acl_access and system.posix_acl_default in the kernel's
 * format, and kept consistent with the mode as tmpfs keeps them.
 *
 * With FUSE_POSIX_ACL the kernel checks permissions itself, ACLs included
 * (it reads them with GETXATTR and caches them), validates what it sends
 * (vfs_set_acl()) and leaves the rest to the server (fs/fuse/acl.c): the
 * mode an access ACL implies, an ACL equivalent to the mode not being
 * stored, chmod rewriting the ACL, and new inodes inheriting the parent's
 * default ACL instead of the umask (the kernel sets dont_mask). The rules
 * below are the kernel's own (fs/posix_acl.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "memfs.h"

/* include/uapi/linux/posix_acl_xattr.h, include/uapi/linux/posix_acl.h */
#define ACL_XATTR_VERSION 2
#define ACL_USER_OBJ	  0x01
#define ACL_USER	  0x02
#define ACL_GROUP_OBJ	  0x04
#define ACL_GROUP	  0x08
#define ACL_MASK	  0x10
#define ACL_OTHER	  0x20

struct acl_ent {
	uint16_t tag;
	uint16_t perm;
	uint32_t id;
};

/* Entries of a stored value, which acl_valid() accepted. */
static size_t acl_count(size_t size)
{
	return (size - 4) / sizeof(struct acl_ent);
}

static struct acl_ent *acl_ents(void *value)
{
	return (struct acl_ent *)((char *)value + 4);
}

bool acl_name(const char *name, bool *is_default)
{
	*is_default = strcmp(name, MEMFS_ACL_DEFAULT) == 0;
	return *is_default || strcmp(name, MEMFS_ACL_ACCESS) == 0;
}

/* posix_acl_valid() on the xattr form: one owner, group and other entry,
 * named entries in id order, a mask exactly when there are named ones. */
int acl_valid(const void *value, size_t size)
{
	const struct acl_ent *e = (const void *)((const char *)value + 4);
	uint32_t version;
	unsigned seen = 0, named = 0;
	uint16_t last_tag = 0;
	uint32_t last_id = 0;

	if (size < 4 || (size - 4) % sizeof(*e))
		return EINVAL;
	memcpy(&version, value, 4);
	if (version != ACL_XATTR_VERSION)
		return EOPNOTSUPP;
	for (size_t i = 0; i < acl_count(size); i++) {
		if (e[i].perm & ~7u || e[i].tag < last_tag)
			return EINVAL;
		switch (e[i].tag) {
		case ACL_USER:
		case ACL_GROUP:
			if (e[i].tag == last_tag && e[i].id <= last_id)
				return EINVAL;
			last_id = e[i].id;
			named++;
			break;
		case ACL_USER_OBJ:
		case ACL_GROUP_OBJ:
		case ACL_MASK:
		case ACL_OTHER:
			if (seen & e[i].tag)
				return EINVAL;
			break;
		default:
			return EINVAL;
		}
		seen |= e[i].tag;
		last_tag = e[i].tag;
	}
	if ((seen & (ACL_USER_OBJ | ACL_GROUP_OBJ | ACL_OTHER)) !=
	    (ACL_USER_OBJ | ACL_GROUP_OBJ | ACL_OTHER))
		return EINVAL;
	if (named && !(seen & ACL_MASK))
		return EINVAL;
	return 0;
}

/* posix_acl_equiv_mode(): the permission bits the ACL gives the owner,
 * the group class and others into *mode; true when the three entries
 * alone say it all (the ACL then needs no storing). */
bool acl_equiv_mode(const void *value, size_t size, mode_t *mode)
{
	const struct acl_ent *e = (const void *)((const char *)value + 4);
	mode_t bits = 0;
	bool equiv = true;

	for (size_t i = 0; i < acl_count(size); i++) {
		switch (e[i].tag) {
		case ACL_USER_OBJ:
			bits |= (mode_t)e[i].perm << 6;
			break;
		case ACL_GROUP_OBJ:
			bits |= (mode_t)e[i].perm << 3;
			break;
		case ACL_MASK:
			bits = (bits & ~(mode_t)070) | (mode_t)e[i].perm << 3;
			equiv = false;
			break;
		case ACL_OTHER:
			bits |= e[i].perm;
			break;
		default:
			equiv = false;
		}
	}
	*mode = (*mode & ~(mode_t)0777) | bits;
	return equiv;
}

/* posix_acl_chmod(): the owner, group class and other entries follow a
 * new mode. */
void acl_chmod(void *value, size_t size, mode_t mode)
{
	struct acl_ent *e = acl_ents(value), *group = NULL, *mask = NULL;

	for (size_t i = 0; i < acl_count(size); i++) {
		if (e[i].tag == ACL_USER_OBJ)
			e[i].perm = (mode >> 6) & 7;
		else if (e[i].tag == ACL_GROUP_OBJ)
			group = &e[i];
		else if (e[i].tag == ACL_MASK)
			mask = &e[i];
		else if (e[i].tag == ACL_OTHER)
			e[i].perm = mode & 7;
	}
	if (mask)
		mask->perm = (mode >> 3) & 7;
	else if (group)
		group->perm = (mode >> 3) & 7;
}

/* posix_acl_create_masq(): the inherited ACL and the create mode limit
 * each other. Returns true when the result needs storing. */
bool acl_create_masq(void *value, size_t size, mode_t *mode_p)
{
	struct acl_ent *e = acl_ents(value), *group = NULL, *mask = NULL;
	mode_t mode = *mode_p;
	bool not_equiv = false;

	for (size_t i = 0; i < acl_count(size); i++) {
		switch (e[i].tag) {
		case ACL_USER_OBJ:
			e[i].perm &= (mode >> 6) | ~07u;
			mode &= ((mode_t)e[i].perm << 6) | ~(mode_t)0700;
			break;
		case ACL_GROUP_OBJ:
			group = &e[i];
			break;
		case ACL_OTHER:
			e[i].perm &= mode | ~07u;
			mode &= e[i].perm | ~(mode_t)07;
			break;
		case ACL_MASK:
			mask = &e[i];
			not_equiv = true;
			break;
		default:
			not_equiv = true;
		}
	}
	if (!mask)
		mask = group;
	if (mask) {
		mask->perm &= (mode >> 3) | ~07u;
		mode &= ((mode_t)mask->perm << 3) | ~(mode_t)070;
	}
	*mode_p = (*mode_p & ~(mode_t)0777) | (mode & 0777);
	return not_equiv;
}

/* posix_acl_permission(): the owner entry, else a named user, else the
 * first group entry (owning or named) that matches and grants, else
 * other; named users and groups only within the mask. 0 or EACCES. */
int acl_permission(struct memfs_cred *c, const void *value, size_t size,
		   uid_t owner, gid_t group, int want)
{
	const struct acl_ent *e = (const void *)((const char *)value + 4);
	size_t n = acl_count(size);
	unsigned mask = 7;
	bool found = false;

	want &= 7;
	for (size_t i = 0; i < n; i++)
		if (e[i].tag == ACL_MASK)
			mask = e[i].perm;
	for (size_t i = 0; i < n; i++) {
		unsigned perm = e[i].perm;
		bool match = false;

		switch (e[i].tag) {
		case ACL_USER_OBJ:
			if (c->uid == owner)
				return (want & ~perm) ? EACCES : 0;
			break;
		case ACL_USER:
			if (c->uid == e[i].id)
				return (want & ~(perm & mask)) ? EACCES : 0;
			break;
		case ACL_GROUP_OBJ:
		case ACL_GROUP:
			match = cred_in_group(c, e[i].tag == ACL_GROUP ? e[i].id
								       : group);
			found |= match;
			if (match && !(want & ~perm))
				return (want & ~(perm & mask)) ? EACCES : 0;
			break;
		case ACL_OTHER:
			if (found)
				return EACCES;
			return (want & ~perm) ? EACCES : 0;
		}
	}
	return EACCES;
}

int acl_set_locked(struct memfs_cred *c, struct memfs_inode *n, bool is_default,
		   const void *value, size_t size, int flags)
{
	struct memfs *fs = req_fs(c->req);
	struct memfs_xattr *x;
	mode_t mode = n->mode;
	int err = acl_valid(value, size);

	if (err)
		return err;
	if (is_default)
		return xattr_set_locked(fs, n, MEMFS_ACL_DEFAULT, value, size,
					flags);
	x = xattr_find(&n->xattrs, MEMFS_ACL_ACCESS);
	if ((flags & XATTR_CREATE) && x)
		return EEXIST;
	if ((flags & XATTR_REPLACE) && !x)
		return ENODATA;
	/* posix_acl_update_mode(): an ACL the mode says all of is not
	 * kept; the kernel's FUSE_SETXATTR_ACL_KILL_SGID says the same as
	 * the check below. */
	if (acl_equiv_mode(value, size, &mode)) {
		if (x)
			xattr_del_locked(fs, n, x);
	} else {
		err = xattr_set_locked(fs, n, MEMFS_ACL_ACCESS, value, size, 0);
		if (err)
			return err;
	}
	if (c->uid != 0 && !cred_in_group(c, n->gid))
		mode &= ~(mode_t)S_ISGID;
	n->mode = mode;
	return 0;
}

int acl_inherit(struct memfs *fs, struct memfs_inode *dir,
		struct memfs_inode *n, mode_t umask)
{
	struct memfs_xattr *d;
	void *acl = NULL;
	size_t size = 0;
	mode_t mode;
	int err = 0;

	if (S_ISLNK(n->type))
		return 0;
	pthread_mutex_lock(&dir->lock);
	d = dir->xattrs.n ? xattr_find(&dir->xattrs, MEMFS_ACL_DEFAULT) : NULL;
	if (d && (acl = malloc(d->size)) != NULL) {
		memcpy(acl, d->value, d->size);
		size = d->size;
	} else if (d) {
		err = ENOMEM;
	}
	pthread_mutex_unlock(&dir->lock);
	if (err)
		return err;

	pthread_mutex_lock(&n->lock);
	mode = n->mode;
	if (!acl) {
		n->mode = mode & ~(umask & 0777);
	} else {
		if (S_ISDIR(n->type))
			err = xattr_set_locked(fs, n, MEMFS_ACL_DEFAULT, acl,
					       size, 0);
		if (!err && acl_create_masq(acl, size, &mode))
			err = xattr_set_locked(fs, n, MEMFS_ACL_ACCESS, acl,
					       size, 0);
		n->mode = mode;
	}
	pthread_mutex_unlock(&n->lock);
	free(acl);
	return err;
}
