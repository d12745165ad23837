/* SPDX-License-Identifier: MIT */
/* Directory listings: fuse_dirent and fuse_direntplus records. */
#include <string.h>

#include "reply.h"

static void fill_dirent(struct fuse_dirent *d, uint64_t ino, const char *name,
			size_t namelen, mode_t mode, off_t off, size_t recsz,
			size_t hdr)
{
	d->ino = ino;
	d->off = (uint64_t)off;
	d->namelen = (uint32_t)namelen;
	d->type = (mode & S_IFMT) >> 12;
	memcpy(d->name, name, namelen);
	/* The padding goes to the kernel: never leak stale bytes there. */
	memset(d->name + namelen, 0, recsz - hdr - namelen);
}

size_t fring_add_direntry(fring_req_t *req, char *buf, size_t bufsize,
			  const char *name, const struct stat *st, off_t off)
{
	size_t namelen = strlen(name);
	size_t recsz = FUSE_DIRENT_SIZE(namelen);

	(void)req;
	if (!buf || recsz > bufsize)
		return recsz;
	fill_dirent((struct fuse_dirent *)buf, st->st_ino, name, namelen,
		    st->st_mode, off, recsz, FUSE_NAME_OFFSET);
	return recsz;
}

size_t fring_add_direntry_plus(fring_req_t *req, char *buf, size_t bufsize,
			       const char *name, const struct fring_entry *e,
			       off_t off)
{
	size_t namelen = strlen(name);
	size_t recsz = FUSE_DIRENTPLUS_SIZE(namelen);
	struct fuse_direntplus *dp = (struct fuse_direntplus *)buf;
	struct fring_entry tmp;

	(void)req;
	if (!buf || recsz > bufsize)
		return recsz;
	memset(&dp->entry_out, 0, sizeof(dp->entry_out));
	tmp = *e;
	dp->entry_out.nodeid = tmp.ino;
	dp->entry_out.generation = tmp.generation;
	if (tmp.ino) {
		timeout_split(tmp.entry_timeout, &dp->entry_out.entry_valid,
			      &dp->entry_out.entry_valid_nsec);
		timeout_split(tmp.attr_timeout, &dp->entry_out.attr_valid,
			      &dp->entry_out.attr_valid_nsec);
		fill_attr(&dp->entry_out.attr, &tmp.attr,
			  tmp.attr.st_ino ? tmp.attr.st_ino : tmp.ino);
	}
	fill_dirent(&dp->dirent, tmp.attr.st_ino ? tmp.attr.st_ino : tmp.ino,
		    name, namelen, tmp.attr.st_mode, off, recsz,
		    FUSE_NAME_OFFSET_DIRENTPLUS);
	return recsz;
}
