/* SPDX-License-Identifier: MIT */
/*
 * Extended attributes. The *xattr calls have no form that takes an O_PATH
 * descriptor (f*xattr and the *xattrat calls refuse them), so they go
 * through "/proc/self/fd/N". That link resolves to the inode itself, a
 * symlink included, so the following variants act on symlinks too, like
 * the l*xattr calls on a name would.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/xattr.h>

#include "passthrough.h"

void pt_setxattr(fring_req_t *req, fring_ino_t ino, const char *name,
		 const void *value, size_t size, int flags)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in;
	struct pt_procpath pp;
	int err;

	PT_GET_OR_STALE(in, fs, req, ino);
	err = setxattr(pt_procpath(&pp, in->fd), name, value, size, flags) < 0
		      ? errno
		      : 0;
	pt_inode_put(fs, in);
	fring_reply_err(req, err);
}

void pt_removexattr(fring_req_t *req, fring_ino_t ino, const char *name)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in;
	struct pt_procpath pp;
	int err;

	PT_GET_OR_STALE(in, fs, req, ino);
	err = removexattr(pt_procpath(&pp, in->fd), name) < 0 ? errno : 0;
	pt_inode_put(fs, in);
	fring_reply_err(req, err);
}

/* getxattr (name != NULL) and listxattr: size 0 asks for the length. */
static void get_or_list(fring_req_t *req, fring_ino_t ino, const char *name,
			size_t size)
{
	struct pt_fs *fs = pt_fs(req);
	struct pt_inode *in;
	struct pt_procpath pp;
	char *buf = NULL;
	ssize_t n;
	int err = 0;

	PT_GET_OR_STALE(in, fs, req, ino);
	if (size && !(buf = malloc(size))) {
		pt_inode_put(fs, in);
		fring_reply_err(req, ENOMEM);
		return;
	}
	pt_procpath(&pp, in->fd);
	n = name ? getxattr(pp.s, name, buf, size)
		 : listxattr(pp.s, buf, size);
	if (n < 0)
		err = errno;
	pt_inode_put(fs, in);
	if (err)
		fring_reply_err(req, err);
	else if (!size)
		fring_reply_xattr(req, (size_t)n);
	else
		fring_reply_buf(req, buf, (size_t)n);
	free(buf);
}

void pt_getxattr(fring_req_t *req, fring_ino_t ino, const char *name,
		 size_t size)
{
	get_or_list(req, ino, name, size);
}

void pt_listxattr(fring_req_t *req, fring_ino_t ino, size_t size)
{
	get_or_list(req, ino, NULL, size);
}
