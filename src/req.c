/* SPDX-License-Identifier: MIT */
/*
 * The request slot's life, the same on every transport: slots made on
 * demand per queue, taken and recycled by reference count, begun per
 * message; INTERRUPT's search for the slot still serving a unique id; the
 * fring_req_*() accessors handlers use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "req.h"

/* valgrind's client requests cost a few instructions outside valgrind */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#endif
#endif
#ifndef VALGRIND_MAKE_MEM_UNDEFINED
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n))
#endif

#ifdef FRING_TSAN
_Atomic unsigned long fring_kernel_order; /* kernel_order(), common.h */
#endif

/* ---------------- request slots ---------------- */

static struct fring_req *slot_new(struct fring_queue *q)
{
	struct fring_session *se = q->se;
	size_t sz =
		q->tp->slot_size ? q->tp->slot_size : sizeof(struct fring_req);
	struct fring_req *req = calloc(1, sz);
	struct fring_req **slots;

	if (!req)
		return NULL;
	/* Page-aligned and never zeroed per request: nothing is read
	 * from it that this request did not write (the valgrind marking in
	 * req_begin() checks the encoders). */
	req->mem = mmap(NULL, se->bufsize, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (req->mem == MAP_FAILED) {
		free(req);
		return NULL;
	}
	slots = realloc(q->slots, (q->nslots + 1) * sizeof(*slots));
	if (!slots) {
		munmap(req->mem, se->bufsize);
		free(req);
		return NULL;
	}
	q->slots = slots;
	q->slots[q->nslots++] = req;
	req->memsz = se->bufsize;
	req->data = req->mem + FRING_PAGE;
	req->datasz = se->bufsize - FRING_PAGE;
	req->se = se;
	req->q = q;
	return req;
}

struct fring_req *req_get(struct fring_queue *q)
{
	struct fring_session *se = q->se;
	struct fring_req *req = NULL;

	pthread_mutex_lock(&q->lock);
	while (!atomic_load(&se->exiting)) {
		if (q->free) {
			req = q->free;
			q->free = req->next_free;
			break;
		}
		if (q->nslots <= se->cfg.max_async) {
			req = slot_new(q);
			if (req)
				break;
			fr_err("q%u: out of memory for a request buffer",
			       q->idx);
		}
		pthread_cond_wait(&q->slot_freed, &q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	if (req)
		atomic_store(&req->refs, 1);
	return req;
}

void req_put(struct fring_req *req)
{
	req_put_n(req, 1);
}

void req_put_n(struct fring_req *req, int n)
{
	struct fring_queue *q = req->q;

	/* The decision to recycle is made before taking the lock, so the
	 * interrupt scan (which only adds a reference to a live slot) can
	 * never revive a slot on its way to the free list. */
	if (atomic_fetch_sub(&req->refs, n) != n)
		return;
	/* ordered after the decrement, which is a full barrier already */
	atomic_store_explicit(&req->unique, 0, memory_order_release);
	if (q->tp->recycle) {
		q->tp->recycle(req);
		return;
	}
	pthread_mutex_lock(&q->lock);
	req->next_free = q->free;
	q->free = req;
	pthread_cond_signal(&q->slot_freed);
	pthread_mutex_unlock(&q->lock);
}

void req_begin(struct fring_req *req, uint64_t unique, uint64_t t_start)
{
	/* one reference for the handler's scope, one for the answer. The
	 * slot is idle (unique 0): the interrupt scan takes no reference on
	 * it, so plain stores do; the release store of unique below makes
	 * them visible to whoever sees the new id (slot_try_hold()). A
	 * sequentially consistent store is a locked instruction on x86, five
	 * of them per request where none is needed. */
	atomic_store_explicit(&req->refs, 2, memory_order_relaxed);
	atomic_store_explicit(&req->answered, false, memory_order_relaxed);
	atomic_store_explicit(&req->interrupted, false, memory_order_relaxed);
	req->flags = 0;
	/* What an earlier answer left in the encoding areas counts as never
	 * written under valgrind: an encoder sending a byte it did not set
	 * then fails e2e-dev-valgrind-posix_suite instead of leaking it. */
	(void)VALGRIND_MAKE_MEM_UNDEFINED(req->out.raw, sizeof(req->out.raw));
	(void)VALGRIND_MAKE_MEM_UNDEFINED(req->small, sizeof(req->small));
	atomic_store_explicit(&req->t_start, t_start ? t_start : fring_now_ns(),
			      memory_order_relaxed);
	atomic_store_explicit(&req->unique, unique, memory_order_release);
	stat_add_own(req->q, requests, 1);
}

void queue_free_slots(struct fring_queue *q)
{
	for (unsigned i = 0; i < q->nslots; i++) {
		if (q->slots[i]->mem)
			munmap(q->slots[i]->mem, q->slots[i]->memsz);
		free(q->slots[i]);
	}
	free(q->slots);
	q->slots = NULL;
	q->nslots = 0;
	q->free = NULL;
}

/* Takes a reference on a slot that is still serving `unique`. */
static bool slot_try_hold(struct fring_req *req, uint64_t unique)
{
	int refs = atomic_load(&req->refs);

	if (atomic_load(&req->unique) != unique)
		return false;
	while (refs > 0)
		if (atomic_compare_exchange_weak(&req->refs, &refs, refs + 1))
			return atomic_load(&req->unique) == unique;
	return false;
}

void req_interrupt(struct fring_session *se, uint64_t unique)
{
	for (unsigned i = 0; i <= se->nqueues; i++) {
		struct fring_queue *q =
			i < se->nqueues ? &se->queues[i] : se->side;

		if (!q)
			break;
		struct fring_req *hit = NULL;

		pthread_mutex_lock(&q->lock);
		for (unsigned j = 0; j < q->nslots && !hit; j++)
			if (slot_try_hold(q->slots[j], unique))
				hit = q->slots[j];
		pthread_mutex_unlock(&q->lock);
		if (!hit)
			continue;
		if (!atomic_load(&hit->answered)) {
			atomic_store(&hit->interrupted, true);
			if (se->ops.interrupt)
				se->ops.interrupt(hit, se->userdata);
		}
		req_put(hit);
		return;
	}
	/* Already answered, or not read yet: nothing to interrupt. */
	fr_dbg("INTERRUPT for unique %llu: no such request in flight",
	       (unsigned long long)unique);
}

/* ---------------- request accessors ---------------- */

const struct fring_ctx *fring_req_ctx(const fring_req_t *req)
{
	return &req->ctx;
}

void *fring_req_userdata(const fring_req_t *req)
{
	return req->se->userdata;
}

fring_session_t *fring_req_session(const fring_req_t *req)
{
	return req->se;
}

uint64_t fring_req_unique(const fring_req_t *req)
{
	return atomic_load(&((fring_req_t *)req)->unique);
}

uint32_t fring_req_opcode(const fring_req_t *req)
{
	return req->opcode;
}

unsigned fring_req_queue(const fring_req_t *req)
{
	return req->q->idx;
}

int fring_req_interrupted(const fring_req_t *req)
{
	return atomic_load(&((fring_req_t *)req)->interrupted);
}

void fring_req_async(fring_req_t *req)
{
	req->flags |= REQ_ASYNC;
}

int fring_req_getgroups(const fring_req_t *req, int size, gid_t list[])
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int count = -ENOENT;

	if (size < 0 || (size && !list))
		return -EINVAL;
	/* the header's pid is the caller's thread id; /proc/TID is that
	 * thread (groups are per thread in Linux) */
	snprintf(path, sizeof(path), "/proc/%u/status", (unsigned)req->ctx.pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* getline: the Groups line of a member of many groups is long */
	while (getline(&line, &cap, f) > 0) {
		char *p, *end;

		if (strncmp(line, "Groups:", 7))
			continue;
		count = 0;
		for (p = line + 7;; p = end) {
			unsigned long g = strtoul(p, &end, 10);

			if (end == p)
				break;
			if (count < size)
				list[count] = (gid_t)g;
			count++;
		}
		break;
	}
	free(line);
	fclose(f);
	return count;
}
