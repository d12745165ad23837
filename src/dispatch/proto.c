/* SPDX-License-Identifier: MIT */
/*
 * Protocol messages about the session, not a file: INIT after the first,
 * DESTROY, INTERRUPT, NOTIFY_REPLY.
 */
#include <errno.h>

#include "handlers.h"

void dispatch_destroy(struct fring_session *se)
{
	bool call;

	pthread_mutex_lock(&se->lock);
	call = !se->destroyed_called && se->got_init;
	se->destroyed_called = true;
	pthread_mutex_unlock(&se->lock);
	if (call && se->ops.destroy)
		se->ops.destroy(se->userdata);
}

void do_init_again(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	fr_warn("INIT received twice; refused");
	reply_errno(req, EPROTO);
}

void do_destroy(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	dispatch_destroy(req->se);
	reply_errno(req, 0);
}

void do_interrupt(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_interrupt_in *in = take_arg0(m, sizeof(*in));

	req->flags |= REQ_NOREPLY;
	/* A target of 0 (free slots carry 0) or an odd unique (another
	 * INTERRUPT) names no request: never let it match a slot. */
	if (in && in->unique && !(in->unique & FUSE_INT_REQ_BIT))
		req_interrupt(req->se, in->unique);
	else
		stat_add(req->q, malformed, 1);
	reply_none(req);
}

/*
 * A retrieve's answer (fuse_retrieve()): an empty arg0, so on the ring too
 * the retrieve_in and the cached bytes are in the payload. The kernel wants
 * no answer on /dev/fuse; the ring transport commits the entry.
 */
void do_notify_reply(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_notify_retrieve_in *in = take(m, sizeof(*in));
	const void *data = in ? take(m, in->size) : NULL;
	struct fring_session *se = req->se;
	fring_retrieve_reply_fn fn;
	void *cookie;

	req->flags |= REQ_NOREPLY;
	if (!in || !data)
		stat_add(req->q, malformed, 1);
	else if (!notify_take_retrieve(se, atomic_load(&req->unique), &cookie))
		fr_warn("NOTIFY_REPLY for no retrieve (unique %llu)",
			(unsigned long long)atomic_load(&req->unique));
	else if ((fn = atomic_load(&se->retrieve_reply)))
		fn(se->userdata, cookie, req->nodeid, (off_t)in->offset, data,
		   in->size);
	reply_none(req);
}
