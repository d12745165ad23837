/* SPDX-License-Identifier: MIT */
/*
 * Request accessors (fuse_req_*) and per-request interrupt functions.
 *
 * libfring has one interrupt callback for the whole table (fring_ops
 * .interrupt); libfuse lets a handler register a function and data per
 * request. The registrations live in a small locked array of the session
 * (struct fc_intr): only requests that registered are in it, and an answer
 * takes the lock only while something is registered. A function is called
 * at most once, never after its request was answered, and may answer the
 * request itself.
 */
#include <errno.h>
#include <stdlib.h>

#include "compat.h"

/* ---------------- accessors ---------------- */

void *fuse_req_userdata(fuse_req_t req)
{
	struct fuse_session *se;

	if (!req)
		return NULL;
	se = fc_session_of(req);
	return se ? se->userdata : NULL;
}

const struct fuse_ctx *fuse_req_ctx(fuse_req_t req)
{
	/* a forget carries no caller (the kernel sends zeros) */
	static const struct fuse_ctx nobody;

	if (!req || fc_is_pseudo(req))
		return &nobody;
	return (const struct fuse_ctx *)fring_req_ctx(fc_req(req));
}

int fuse_req_getgroups(fuse_req_t req, int size, gid_t list[])
{
	if (!req || fc_is_pseudo(req))
		return -EINVAL;
	return fring_req_getgroups(fc_req(req), size, list);
}

int fuse_req_interrupted(fuse_req_t req)
{
	if (!req || fc_is_pseudo(req))
		return 0;
	return fring_req_interrupted(fc_req(req)) != 0;
}

bool fuse_req_is_uring(fuse_req_t req)
{
	enum fring_transport t;

	if (!req || fc_is_pseudo(req))
		return false;
	t = fring_session_transport(fring_req_session(fc_req(req)));
	return t != FRING_TRANSPORT_DEV && t != FRING_TRANSPORT_AUTO;
}

/*
 * libfuse hands io_uring payload buffers out only to code written for its
 * own ring layout; libfring's handlers get their data through the normal
 * callbacks. -ENOTSUP is libfuse's own answer where it has none, which
 * callers already handle.
 */
int fuse_req_get_payload(fuse_req_t req, char **payload, size_t *payload_sz,
			 void **mr)
{
	(void)req;
	(void)payload;
	(void)payload_sz;
	(void)mr;
	return -ENOTSUP;
}

fring_req_t *fc_answering(fuse_req_t req, const char *what)
{
	struct fuse_session *se;
	fring_req_t *r;

	if (!req) {
		fc_log(FUSE_LOG_ERR, "fuse: %s() with a NULL request\n", what);
		return NULL;
	}
	if (fc_is_pseudo(req)) {
		fc_log(FUSE_LOG_ERR,
		       "fuse: %s() on a forget or retrieve_reply request, "
		       "which takes no answer (use fuse_reply_none())\n",
		       what);
		return NULL;
	}
	r = fc_req(req);
	se = fring_req_userdata(r);
	if (atomic_load(&se->intr.count))
		fc_intr_forget(se, r);
	return r;
}

/* ---------------- interrupt registrations ---------------- */

int fc_intr_init(struct fc_intr *t)
{
	int err = pthread_mutex_init(&t->lock, NULL);

	if (err)
		return -err;
	err = pthread_cond_init(&t->done, NULL);
	if (err) {
		pthread_mutex_destroy(&t->lock);
		return -err;
	}
	atomic_init(&t->count, 0);
	t->used = t->cap = 0;
	t->v = NULL;
	return 0;
}

void fc_intr_destroy(struct fc_intr *t)
{
	free(t->v);
	pthread_cond_destroy(&t->done);
	pthread_mutex_destroy(&t->lock);
}

/* Under t->lock. */
static struct fc_intr_entry *intr_find(struct fc_intr *t, fring_req_t *req)
{
	for (size_t i = 0; i < t->used; i++)
		if (t->v[i].req == req)
			return &t->v[i];
	return NULL;
}

/* Under t->lock: the slot moves, so e is not used after this. */
static void intr_remove(struct fc_intr *t, struct fc_intr_entry *e)
{
	*e = t->v[--t->used];
	atomic_store(&t->count, (unsigned)t->used);
}

/* Under t->lock; NULL without memory. */
static struct fc_intr_entry *intr_add(struct fc_intr *t, fring_req_t *req)
{
	struct fc_intr_entry *e;

	if (t->used == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		struct fc_intr_entry *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	e = &t->v[t->used++];
	*e = (struct fc_intr_entry){.req = req};
	atomic_store(&t->count, (unsigned)t->used);
	return e;
}

void fc_intr_fire(struct fuse_session *se, fring_req_t *req)
{
	struct fc_intr *t = &se->intr;
	struct fc_intr_entry *e;
	fuse_interrupt_func_t func;
	void *data;

	pthread_mutex_lock(&t->lock);
	e = intr_find(t, req);
	if (!e || e->fired || !e->func) {
		pthread_mutex_unlock(&t->lock);
		return;
	}
	e->fired = true;
	e->running = true;
	e->runner = pthread_self();
	func = e->func;
	data = e->data;
	pthread_mutex_unlock(&t->lock);

	/* without the lock: func may answer req (fc_intr_forget() on this
	 * thread then removes the entry without waiting for itself) */
	func(fc_fuse_req(req), data);

	pthread_mutex_lock(&t->lock);
	e = intr_find(t, req);
	if (e)
		e->running = false;
	pthread_cond_broadcast(&t->done);
	pthread_mutex_unlock(&t->lock);
}

void fc_intr_forget(struct fuse_session *se, fring_req_t *req)
{
	struct fc_intr *t = &se->intr;
	struct fc_intr_entry *e;

	pthread_mutex_lock(&t->lock);
	while ((e = intr_find(t, req)) && e->running &&
	       !pthread_equal(e->runner, pthread_self()))
		pthread_cond_wait(&t->done, &t->lock);
	if (e)
		intr_remove(t, e);
	pthread_mutex_unlock(&t->lock);
}

void fuse_req_interrupt_func(fuse_req_t req, fuse_interrupt_func_t func,
			     void *data)
{
	struct fuse_session *se;
	struct fc_intr_entry *e;
	fring_req_t *r;

	if (!req || fc_is_pseudo(req))
		return;
	r = fc_req(req);
	se = fring_req_userdata(r);
	if (!func) {
		fc_intr_forget(se, r);
		return;
	}
	pthread_mutex_lock(&se->intr.lock);
	e = intr_find(&se->intr, r);
	if (!e)
		e = intr_add(&se->intr, r);
	if (e) {
		e->func = func;
		e->data = data;
	}
	pthread_mutex_unlock(&se->intr.lock);
	if (!e) {
		fc_log(FUSE_LOG_ERR,
		       "fuse: fuse_req_interrupt_func(): out of "
		       "memory, the function will not be called\n");
		return;
	}
	/* an interrupt that came before the registration found nothing to
	 * call: as in libfuse, the function runs now */
	if (fring_req_interrupted(r))
		fc_intr_fire(se, r);
}
