/* SPDX-License-Identifier: MIT */
/*
 * Directories: OPENDIR, READDIR, READDIRPLUS, RELEASEDIR, FSYNCDIR. Their
 * argument decoding is the file calls' (file.c).
 */
#include "handlers.h"

void do_opendir(struct fring_req *req, struct fring_msg *m)
{
	open_common(req, m, true);
}

void do_readdir(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_read_in *in = read_common(req, m);

	if (in)
		CALL_OR(readdir, ENOSYS, req, req->nodeid, in->size,
			(off_t)in->offset, &req->fi, &req->buf);
}

void do_readdirplus(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_read_in *in = read_common(req, m);

	if (in)
		CALL_OR(readdirplus, ENOSYS, req, req->nodeid, in->size,
			(off_t)in->offset, &req->fi, &req->buf);
}

void do_releasedir(struct fring_req *req, struct fring_msg *m)
{
	release_common(req, m, true);
}

void do_fsyncdir(struct fring_req *req, struct fring_msg *m)
{
	fsync_common(req, m, true);
}
