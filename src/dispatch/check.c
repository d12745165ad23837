/* SPDX-License-Identifier: MIT */
/*
 * The checks every handler shares: a message that does not decode is
 * counted, logged and answered EIO; a directory entry's name is refused
 * when it is empty, too long or holds a '/'.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "handlers.h"

void malformed(struct fring_req *req, const char *what)
{
	stat_add(req->q, malformed, 1);
	fr_warn("malformed %s request (unique %llu, len %zu): %s",
		fring_opname(req->opcode), (unsigned long long)req->unique,
		req->in_len, what);
	reply_errno(req, EIO);
}

/* A name the kernel hands us for a directory entry: no '/', not too long. */
static int check_name(const char *name)
{
	size_t len = strlen(name);

	if (len == 0)
		return EINVAL;
	if (len > NAME_MAX)
		return ENAMETOOLONG;
	if (memchr(name, '/', len))
		return EINVAL;
	return 0;
}

bool name_ok(struct fring_req *req, const char *name)
{
	int err;

	if (!name) {
		malformed(req, "name not NUL-terminated");
		return false;
	}
	err = check_name(name);
	if (err) {
		/* The kernel passes any name a program asks for: a long one is
		 * the program's error, not a malformed message. */
		fr_dbg("%s: rejected name (%s)", fring_opname(req->opcode),
		       err == ENAMETOOLONG ? "too long" : "invalid");
		reply_errno(req, err);
		return false;
	}
	return true;
}
