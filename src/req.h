/* SPDX-License-Identifier: MIT */
/*
 * The request slot's life (req.c), the same on every transport: a slot is
 * taken from its queue, begun with two references (the handler's scope and
 * the answer), and recycled through the transport when the last one goes;
 * INTERRUPT finds a slot still serving a unique id.
 */
#ifndef FRING_REQ_H
#define FRING_REQ_H

#include "core.h"

/* A free slot of q, or NULL when the session is ending. Blocks while the
 * handlers hold max_async unanswered requests of this queue. */
FRING_HIDDEN struct fring_req *req_get(struct fring_queue *q);
/* Drops a reference; the last one recycles the slot (tp->recycle, or the
 * queue's free list). */
FRING_HIDDEN void req_put(struct fring_req *req);
/* req_put() of n references at once */
FRING_HIDDEN void req_put_n(struct fring_req *req, int n);
/* A slot starts serving `unique`: two references, counters, the clock
 * (t_start, or now if 0). */
FRING_HIDDEN void req_begin(struct fring_req *req, uint64_t unique,
			    uint64_t t_start);
/* Frees every slot req_get() made for q. */
FRING_HIDDEN void queue_free_slots(struct fring_queue *q);
/* INTERRUPT for `unique`: marks the request and calls the filesystem's
 * interrupt callback, if the request is still unanswered. */
FRING_HIDDEN void req_interrupt(struct fring_session *se, uint64_t unique);

#endif
