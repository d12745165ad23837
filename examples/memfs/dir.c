/* SPDX-License-Identifier: MIT */
/*
 * Directory entries: a hash table for lookups by name and an array in
 * cookie order for listings.
 *
 * Each entry gets the directory's next cookie when it is inserted and
 * keeps it. A listing resumes at the first cookie greater than the offset
 * the kernel hands back, so an entry that exists during a whole listing is
 * returned exactly once, whatever else is added or removed meanwhile.
 * Removal leaves a hole that keeps its cookie (the array stays sorted for
 * binary search); holes are squeezed out once they are half the array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memfs.h"

#define MIN_BUCKETS 8
#define MIN_ORDER 8

static uint64_t hash_seed = 0x9e3779b97f4a7c15ull;

void dir_hash_seed(uint64_t seed)
{
	hash_seed ^= seed;
}

/* FNV-1a with a per-process seed and a final avalanche, so that names
 * chosen to collide on one machine do not collide on the next. */
static uint64_t name_hash(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ hash_seed;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

struct memfs_dir *dir_new(void)
{
	struct memfs_dir *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->buckets = calloc(MIN_BUCKETS, sizeof(*d->buckets));
	d->order = malloc(MIN_ORDER * sizeof(*d->order));
	if (!d->buckets || !d->order) {
		free(d->buckets);
		free(d->order);
		free(d);
		return NULL;
	}
	d->nbuckets = MIN_BUCKETS;
	d->order_cap = MIN_ORDER;
	d->next_cookie = MEMFS_COOKIE_FIRST;
	return d;
}

void dir_free(struct memfs_dir *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->order_len; i++)
		free(d->order[i].ent);
	free(d->order);
	free(d->buckets);
	free(d);
}

struct memfs_dirent *dir_find(const struct memfs_dir *d, const char *name)
{
	size_t len = strlen(name);
	uint64_t h = name_hash(name, len);

	for (struct memfs_dirent *e = d->buckets[h & (d->nbuckets - 1)]; e;
	     e = e->hnext) {
		if (e->hash == h && e->namelen == len &&
		    memcmp(e->name, name, len) == 0)
			return e;
	}
	return NULL;
}

struct memfs_dirent *dirent_new(const char *name)
{
	size_t len = strlen(name);
	struct memfs_dirent *e = malloc(sizeof(*e) + len + 1);

	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	memcpy(e->name, name, len + 1);
	e->namelen = len;
	e->hash = name_hash(name, len);
	return e;
}

/* Best effort: on ENOMEM the old table stays, only with longer chains. */
static void rehash(struct memfs_dir *d, size_t nbuckets)
{
	struct memfs_dirent **nb = calloc(nbuckets, sizeof(*nb));

	if (!nb)
		return;
	for (size_t i = 0; i < d->nbuckets; i++) {
		struct memfs_dirent *e = d->buckets[i], *next;

		for (; e; e = next) {
			next = e->hnext;
			e->hnext = nb[e->hash & (nbuckets - 1)];
			nb[e->hash & (nbuckets - 1)] = e;
		}
	}
	free(d->buckets);
	d->buckets = nb;
	d->nbuckets = nbuckets;
}

static void compact(struct memfs_dir *d)
{
	size_t j = 0;

	for (size_t i = 0; i < d->order_len; i++) {
		if (!d->order[i].ent)
			continue;
		d->order[j] = d->order[i];
		d->order[j].ent->pos = j;
		j++;
	}
	d->order_len = j;
	d->holes = 0;
	if (d->order_cap > 4 * MIN_ORDER && d->order_len * 4 < d->order_cap) {
		size_t cap = d->order_cap / 2;
		struct memfs_dir_slot *o = realloc(d->order, cap * sizeof(*o));

		if (o) {
			d->order = o;
			d->order_cap = cap;
		}
	}
}

int dir_reserve(struct memfs_dir *d)
{
	if (d->count + 1 > d->nbuckets)
		rehash(d, d->nbuckets * 2);
	if (d->order_len < d->order_cap)
		return 0;
	if (d->holes > d->order_len / 4) {
		compact(d);
		if (d->order_len < d->order_cap)
			return 0;
	}
	size_t cap = d->order_cap * 2;
	struct memfs_dir_slot *o = realloc(d->order, cap * sizeof(*o));

	if (!o)
		return ENOMEM;
	d->order = o;
	d->order_cap = cap;
	return 0;
}

void dir_add(struct memfs_dir *d, struct memfs_dirent *e,
	     struct memfs_inode *n)
{
	size_t b = e->hash & (d->nbuckets - 1);

	e->inode = n;
	e->cookie = d->next_cookie++;
	e->pos = d->order_len;
	e->hnext = d->buckets[b];
	d->buckets[b] = e;
	d->order[d->order_len].cookie = e->cookie;
	d->order[d->order_len].ent = e;
	d->order_len++;
	d->count++;
}

void dir_del(struct memfs_dir *d, struct memfs_dirent *e)
{
	struct memfs_dirent **pp = &d->buckets[e->hash & (d->nbuckets - 1)];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	d->order[e->pos].ent = NULL;
	d->holes++;
	d->count--;
	free(e);
	if (d->holes > 16 && d->holes * 2 > d->order_len)
		compact(d);
	if (d->nbuckets > 64 && d->count * 8 < d->nbuckets)
		rehash(d, d->nbuckets / 4);
}

size_t dir_seek(const struct memfs_dir *d, uint64_t after)
{
	size_t lo = 0, hi = d->order_len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->order[mid].cookie <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct memfs_dirent *dir_next(const struct memfs_dir *d, size_t *pos)
{
	while (*pos < d->order_len) {
		struct memfs_dirent *e = d->order[(*pos)++].ent;

		if (e)
			return e;
	}
	return NULL;
}
