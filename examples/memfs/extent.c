/* SPDX-License-Identifier: MIT */
/*
 * The pages a regular file holds, as sorted, disjoint, non-touching runs.
 *
 * memfs charges a file's pages against -o size when a request allocates
 * them, before the data moves: the data helpers answer the request
 * themselves, on the ring perhaps much later, so the kernel's count of the
 * memfd's blocks cannot be read back at the right moment. Keeping the set
 * here makes the charge exact (shmem allocates exactly the pages a write
 * or fallocate touches, and a read of a hole allocates nothing) and gives
 * st_blocks without a system call. Most files are one run; sparse files a
 * few.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memfs.h"

/* The first run whose end is beyond page a (runs are sorted by start and
 * by end alike, since they are disjoint). */
static uint32_t first_after(const struct memfs_extents *x, uint64_t a)
{
	uint32_t lo = 0, hi = x->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (x->v[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t ext_missing(const struct memfs_extents *x, uint64_t a, uint64_t b)
{
	uint64_t have = 0;

	if (a >= b)
		return 0;
	for (uint32_t i = first_after(x, a); i < x->n && x->v[i].start < b;
	     i++) {
		uint64_t s = x->v[i].start > a ? x->v[i].start : a;
		uint64_t e = x->v[i].end < b ? x->v[i].end : b;

		have += e - s;
	}
	return b - a - have;
}

int ext_reserve(struct memfs_extents *x)
{
	struct memfs_run *v;
	uint32_t cap;

	if (x->n < x->cap)
		return 0;
	cap = x->cap ? x->cap * 2 : 2;
	v = realloc(x->v, cap * sizeof(*v));
	if (!v)
		return ENOMEM;
	x->v = v;
	x->cap = cap;
	return 0;
}

void ext_add(struct memfs_extents *x, uint64_t a, uint64_t b)
{
	uint32_t i, j;

	if (a >= b)
		return;
	x->pages += ext_missing(x, a, b);
	/* runs i..j-1 touch or overlap [a, b): they merge into one */
	i = first_after(x, a ? a - 1 : 0); /* the first with end >= a */
	for (j = i; j < x->n && x->v[j].start <= b; j++) {
		if (x->v[j].start < a)
			a = x->v[j].start;
		if (x->v[j].end > b)
			b = x->v[j].end;
	}
	if (i == j) { /* nothing to merge with: a new run at i */
		memmove(&x->v[i + 1], &x->v[i], (x->n - i) * sizeof(*x->v));
		x->n++;
	} else if (j > i + 1) {
		memmove(&x->v[i + 1], &x->v[j], (x->n - j) * sizeof(*x->v));
		x->n -= j - i - 1;
	}
	x->v[i].start = a;
	x->v[i].end = b;
}

uint64_t ext_remove(struct memfs_extents *x, uint64_t a, uint64_t b)
{
	uint64_t gone = 0;
	uint32_t i;

	if (a >= b)
		return 0;
	i = first_after(x, a);
	while (i < x->n && x->v[i].start < b) {
		struct memfs_run *r = &x->v[i];

		if (r->start < a && r->end > b) {
			/* a hole in the middle: the run splits in two (the
			 * caller reserved the slot) */
			memmove(&x->v[i + 1], &x->v[i],
				(x->n - i) * sizeof(*x->v));
			x->n++;
			x->v[i].end = a;
			x->v[i + 1].start = b;
			gone += b - a;
			break;
		}
		if (r->start < a) { /* its tail goes */
			gone += r->end - a;
			r->end = a;
			i++;
		} else if (r->end > b) { /* its head goes */
			gone += b - r->start;
			r->start = b;
			break;
		} else { /* all of it */
			gone += r->end - r->start;
			memmove(&x->v[i], &x->v[i + 1],
				(x->n - i - 1) * sizeof(*x->v));
			x->n--;
		}
	}
	x->pages -= gone;
	return gone;
}

uint64_t ext_end(const struct memfs_extents *x)
{
	return x->n ? x->v[x->n - 1].end : 0;
}

int ext_clone(struct memfs_extents *dst, const struct memfs_extents *src)
{
	*dst = *src;
	dst->v = NULL;
	dst->cap = src->n;
	if (!src->n)
		return 0;
	dst->v = malloc(src->n * sizeof(*dst->v));
	if (!dst->v)
		return ENOMEM;
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	return 0;
}

void ext_free(struct memfs_extents *x)
{
	free(x->v);
	memset(x, 0, sizeof(*x));
}
