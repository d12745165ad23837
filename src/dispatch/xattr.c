/* SPDX-License-Identifier: MIT */
/*
 * Extended attributes: SETXATTR, GETXATTR, LISTXATTR, REMOVEXATTR.
 */
#include <errno.h>
#include <string.h>

#include "handlers.h"

#define XATTR_NAME_MAX_ 255
#define XATTR_SIZE_MAX_ 65536

static bool xattr_name_ok(struct fring_req *req, const char *name)
{
	if (!name) {
		malformed(req, "xattr name not NUL-terminated");
		return false;
	}
	if (!*name || strlen(name) > XATTR_NAME_MAX_) {
		reply_errno(req, *name ? ERANGE : EINVAL);
		return false;
	}
	return true;
}

void do_setxattr(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_setxattr_in *in = take_arg0(
		m, req->se->setxattr_ext ? sizeof(*in)
					 : FUSE_COMPAT_SETXATTR_IN_SIZE);
	const char *name;
	const void *value;

	NEED(in, "short setxattr_in");
	name = take_str(m);
	if (!xattr_name_ok(req, name))
		return;
	if (in->size > XATTR_SIZE_MAX_) {
		reply_errno(req, E2BIG);
		return;
	}
	value = take(m, in->size);
	NEED(value, "xattr value shorter than setxattr_in.size");
	CALL_OR(setxattr, ENOSYS, req, req->nodeid, name, value, in->size,
		(int)in->flags);
}

/* The VFS never asks for more than XATTR_SIZE_MAX (vfs_getxattr(),
 * listxattr()'s XATTR_LIST_MAX is the same); a handler sizing a buffer from
 * the request gets at most that. */
static uint32_t xattr_out_size(const struct fuse_getxattr_in *in)
{
	return in->size > XATTR_SIZE_MAX_ ? XATTR_SIZE_MAX_ : in->size;
}

void do_getxattr(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_getxattr_in *in = take_arg0(m, sizeof(*in));
	const char *name;

	NEED(in, "short getxattr_in");
	name = take_str(m);
	if (!xattr_name_ok(req, name))
		return;
	req->max_out = xattr_out_size(in);
	CALL_OR(getxattr, ENOSYS, req, req->nodeid, name, req->max_out);
}

void do_listxattr(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_getxattr_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short getxattr_in");
	req->max_out = xattr_out_size(in);
	CALL_OR(listxattr, ENOSYS, req, req->nodeid, req->max_out);
}

void do_removexattr(struct fring_req *req, struct fring_msg *m)
{
	const char *name = take_str(m);

	if (!xattr_name_ok(req, name))
		return;
	CALL_OR(removexattr, ENOSYS, req, req->nodeid, name);
}
