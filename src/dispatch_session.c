/* SPDX-License-Identifier: MIT */
/*
 * Protocol messages about the session, not a file: INIT after the first,
 * DESTROY, INTERRUPT, NOTIFY_REPLY.
 */
#include <errno.h>

#include "dispatch_int.h"

void do_init_again(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	fr_warn("INIT received twice; refused");
	reply_errno(req, EPROTO);
}

void do_destroy(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	session_call_destroy(req->se);
	reply_errno(req, 0);
}

void do_interrupt(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_interrupt_in *in = take_arg0(m, sizeof(*in));

	req->flags |= REQ_NOREPLY;
	/* A target of 0 (free slots carry 0) or an odd unique (another
	 * INTERRUPT) names no request: never let it match a slot. */
	if (in && in->unique && !(in->unique & FUSE_INT_REQ_BIT))
		session_interrupt(req->se, in->unique);
	else
		stat_add(req->q, malformed, 1);
	reply_none(req);
}

void do_notify_reply(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	/* No retrieve is ever issued yet; the kernel wants no answer on
	 * /dev/fuse, and the ring transport commits it. */
	req->flags |= REQ_NOREPLY;
	reply_none(req);
}
