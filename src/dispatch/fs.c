/* SPDX-License-Identifier: MIT */
/*
 * Whole-filesystem and device-style calls: STATFS, SYNCFS, BMAP, IOCTL, POLL.
 */
#include <errno.h>
#include <limits.h>
#include <sys/statvfs.h>

#include "handlers.h"

void do_statfs(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	if (req->se->ops.statfs) {
		req->se->ops.statfs(req, req->nodeid);
	} else {
		struct statvfs st = {.f_bsize = 512, .f_namemax = NAME_MAX};

		fring_reply_statfs(req, &st);
	}
}

void do_syncfs(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_syncfs_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short syncfs_in");
	CALL_OR(syncfs, ENOSYS, req, req->nodeid);
}

void do_bmap(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_bmap_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short bmap_in");
	CALL_OR(bmap, ENOSYS, req, req->nodeid, in->blocksize, in->block);
}

void do_ioctl(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_ioctl_in *in = take_arg0(m, sizeof(*in));
	const void *in_buf;
	struct fring_file *fi;

	NEED(in, "short ioctl_in");
	in_buf = take(m, in->in_size);
	NEED(in_buf, "ioctl data shorter than in_size");
	/* Unrestricted ioctls need the retry protocol, which only CUSE
	 * uses. */
	if (in->flags & FUSE_IOCTL_UNRESTRICTED) {
		reply_errno(req, ENOSYS);
		return;
	}
	if (in->out_size > req->datasz) {
		reply_errno(req, EINVAL);
		return;
	}
	fi = fi_fh(req, in->fh);
	req->max_out = in->out_size;
	CALL_OR(ioctl, ENOTTY, req, req->nodeid, in->cmd,
		(void *)(uintptr_t)in->arg, fi, in->flags,
		in->in_size ? in_buf : NULL, in->in_size, in->out_size);
}

void do_poll(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_poll_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;

	NEED(in, "short poll_in");
	fi = fi_fh(req, in->fh);
	fi->poll_events = in->events;
	/* Without SCHEDULE_NOTIFY the kernel keeps no waiter to wake
	 * (fuse_file_poll()): fring_req_pollhandle() gives none then. */
	req->poll_kh = in->flags & FUSE_POLL_SCHEDULE_NOTIFY ? in->kh : 0;
	CALL_OR(poll, ENOSYS, req, req->nodeid, fi, in->kh);
}
