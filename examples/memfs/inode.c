/* SPDX-License-Identifier: MIT */
/*
 * The inode table, reference counts and attributes.
 *
 * An inode lives while any of three things holds it: a name (nlink), the
 * kernel (nlookup, from entry replies, dropped by FORGET) or an open
 * handle (nopen). Whoever drops the last one, under the inode's lock,
 * marks it dead and frees it after unlocking; nobody else can reach it by
 * then, since the kernel sends no request for an inode it has forgotten
 * and no directory names it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memfs.h"

/*
 * Timestamps as the kernel makes them for tmpfs ("multigrain"): a change
 * takes the coarse clock (a few ms per tick), so that e.g. a file created
 * and written at once has equal times, unless someone asked for the
 * inode's times since they last changed; then it takes the fine clock, so
 * the change shows. Asking means GETATTR, STATX or SETATTR, as stat(2) on
 * tmpfs: the attributes that go with every entry reply would make every
 * change fine-grained. A floor, the latest fine time handed out, keeps
 * coarse times from going behind fine ones given to other inodes.
 */
static atomic_int_fast64_t time_floor;
/* -o time_gran: the kernel truncates the times it sets itself
 * (timestamp_truncate()) and shows ours as they are, so ours are cut the
 * same way. Set at INIT, before any request. */
static long time_gran = 1;

void memfs_set_time_gran(long ns)
{
	time_gran = ns > 0 && ns <= 1000000000 ? ns : 1;
}

static void ts_truncate(struct timespec *ts)
{
	ts->tv_nsec -= ts->tv_nsec % time_gran;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

void memfs_now(struct timespec *ts)
{
	int64_t floor = atomic_load(&time_floor);

	clock_gettime(CLOCK_REALTIME_COARSE, ts);
	if (ts_ns(ts) < floor) {
		ts->tv_sec = floor / 1000000000;
		ts->tv_nsec = floor % 1000000000;
	}
	ts_truncate(ts);
}

static void fine_now(struct timespec *ts)
{
	int_fast64_t floor = atomic_load(&time_floor), t;

	clock_gettime(CLOCK_REALTIME, ts);
	t = ts_ns(ts);
	while (t > floor &&
	       !atomic_compare_exchange_weak(&time_floor, &floor, t))
		;
	ts_truncate(ts);
}

void inode_now_locked(struct memfs_inode *n, struct timespec *ts)
{
	if (n->ts_seen) {
		n->ts_seen = false;
		fine_now(ts);
	} else {
		memfs_now(ts);
	}
}

int table_init(struct memfs *fs)
{
	struct memfs_table *t = &fs->table;

	memset(t, 0, sizeof(*t));
	t->chunks = calloc(MEMFS_MAX_CHUNKS, sizeof(*t->chunks));
	if (!t->chunks)
		return ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	return 0;
}

static int slot_alloc(struct memfs *fs, fring_ino_t *ino, uint64_t *gen)
{
	struct memfs_table *t = &fs->table;
	int err = 0;

	pthread_mutex_lock(&t->lock);
	if (t->nfree) {
		*ino = t->free[--t->nfree];
	} else {
		uint64_t idx = t->used;
		uint64_t c = idx >> MEMFS_CHUNK_BITS;

		if (c >= MEMFS_MAX_CHUNKS) {
			err = ENOSPC;
			goto out;
		}
		if (!atomic_load(&t->chunks[c])) {
			struct memfs_chunk *chunk = calloc(1, sizeof(*chunk));

			if (!chunk) {
				err = ENOMEM;
				goto out;
			}
			atomic_store(&t->chunks[c], chunk);
		}
		t->used++;
		*ino = idx + 1;
	}
	*gen = ++t->next_generation;
out:
	pthread_mutex_unlock(&t->lock);
	return err;
}

static _Atomic(struct memfs_inode *) *slot_of(struct memfs *fs, fring_ino_t ino)
{
	uint64_t idx, c;
	struct memfs_chunk *chunk;

	if (ino == 0)
		return NULL;
	idx = ino - 1;
	c = idx >> MEMFS_CHUNK_BITS;
	if (c >= MEMFS_MAX_CHUNKS)
		return NULL;
	chunk = atomic_load(&fs->table.chunks[c]);
	if (!chunk)
		return NULL;
	return &chunk->slot[idx & (MEMFS_CHUNK_SLOTS - 1)];
}

static void slot_free(struct memfs *fs, fring_ino_t ino)
{
	struct memfs_table *t = &fs->table;

	atomic_store(slot_of(fs, ino), NULL);
	pthread_mutex_lock(&t->lock);
	if (t->nfree == t->free_cap) {
		size_t cap = t->free_cap ? t->free_cap * 2 : 1024;
		fring_ino_t *f = realloc(t->free, cap * sizeof(*f));

		/* Without memory the number is simply never reused. */
		if (f) {
			t->free = f;
			t->free_cap = cap;
		}
	}
	if (t->nfree < t->free_cap)
		t->free[t->nfree++] = ino;
	pthread_mutex_unlock(&t->lock);
}

struct memfs_inode *inode_get(struct memfs *fs, fring_ino_t ino)
{
	_Atomic(struct memfs_inode *) *slot = slot_of(fs, ino);

	return slot ? atomic_load(slot) : NULL;
}

/* What a symlink's target costs against -o size. */
static size_t target_cost(const struct memfs_inode *n)
{
	return n->target ? strlen(n->target) + 1 : 0;
}

/* Frees n and gives back its charge: its inode (if charged), its data,
 * attributes and target. */
static void inode_destroy(struct memfs *fs, struct memfs_inode *n, bool charged)
{
	data_free(fs, n);
	space_give(fs, n->xattr_bytes + (charged ? target_cost(n) : 0));
	if (charged)
		space_give_inode(fs);
	free(n->target);
	dir_free(n->dir);
	xattrs_free(&n->xattrs);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

static void inode_release(struct memfs *fs, struct memfs_inode *n)
{
	slot_free(fs, n->ino);
	atomic_fetch_sub(&fs->ninodes, 1);
	inode_destroy(fs, n, true);
}

void table_fini(struct memfs *fs)
{
	struct memfs_table *t = &fs->table;

	if (!t->chunks)
		return;
	for (uint64_t c = 0; c < MEMFS_MAX_CHUNKS; c++) {
		struct memfs_chunk *chunk = atomic_load(&t->chunks[c]);

		if (!chunk)
			continue;
		for (unsigned i = 0; i < MEMFS_CHUNK_SLOTS; i++) {
			struct memfs_inode *n = atomic_load(&chunk->slot[i]);

			if (n)
				inode_destroy(fs, n, true);
		}
		free(chunk);
	}
	free(t->chunks);
	free(t->free);
	pthread_mutex_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
}

struct memfs_inode *inode_new(struct memfs *fs, mode_t mode, uid_t uid,
			      gid_t gid, dev_t rdev, const char *target,
			      int *err)
{
	struct memfs_inode *n = calloc(1, sizeof(*n));
	struct timespec now;

	*err = ENOMEM;
	if (!n)
		return NULL;
	pthread_mutex_init(&n->lock, NULL);
	data_init(&n->data);
	n->type = mode & S_IFMT;
	n->mode = mode;
	n->uid = uid;
	n->gid = gid;
	n->rdev = rdev;
	n->nlink = S_ISDIR(mode) ? 2 : 1;
	memfs_now(&now);
	n->atime = n->mtime = n->ctime = n->btime = now;
	if (S_ISDIR(mode) && !(n->dir = dir_new()))
		goto fail;
	if (S_ISLNK(mode) && !(n->target = strdup(target)))
		goto fail;
	/* -o nr_inodes, and the target against -o size */
	if (space_take_inode(fs)) {
		*err = ENOSPC;
		goto fail;
	}
	if (space_take(fs, target_cost(n))) {
		space_give_inode(fs);
		*err = ENOSPC;
		goto fail;
	}
	*err = slot_alloc(fs, &n->ino, &n->generation);
	if (*err) {
		inode_destroy(fs, n, true);
		return NULL;
	}
	atomic_store(slot_of(fs, n->ino), n);
	atomic_fetch_add(&fs->ninodes, 1);
	*err = 0;
	return n;
fail:
	inode_destroy(fs, n, false);
	return NULL;
}

/* Caller holds n->lock. True if the caller must now free n. */
static bool last_ref_locked(struct memfs_inode *n)
{
	if (n->dead || n->ino == FRING_ROOT_INO || n->nlink || n->nlookup ||
	    n->nopen)
		return false;
	n->dead = true;
	return true;
}

void inode_ref_lookup(struct memfs_inode *n)
{
	pthread_mutex_lock(&n->lock);
	n->nlookup++;
	pthread_mutex_unlock(&n->lock);
}

void inode_forget(struct memfs *fs, struct memfs_inode *n, uint64_t count)
{
	bool last;

	pthread_mutex_lock(&n->lock);
	n->nlookup = count > n->nlookup ? 0 : n->nlookup - count;
	last = last_ref_locked(n);
	pthread_mutex_unlock(&n->lock);
	if (last)
		inode_release(fs, n);
}

void inode_ref_open(struct memfs_inode *n)
{
	pthread_mutex_lock(&n->lock);
	n->nopen++;
	pthread_mutex_unlock(&n->lock);
}

void inode_unref_open(struct memfs *fs, struct memfs_inode *n)
{
	bool last;

	pthread_mutex_lock(&n->lock);
	if (n->nopen)
		n->nopen--;
	if (S_ISREG(n->type))
		data_drop_if_idle_locked(fs, n);
	last = last_ref_locked(n);
	pthread_mutex_unlock(&n->lock);
	if (last)
		inode_release(fs, n);
}

void inode_unlink(struct memfs *fs, struct memfs_inode *n)
{
	bool last;

	pthread_mutex_lock(&n->lock);
	/* a name past an inode's first was charged as an inode (link) */
	if (!S_ISDIR(n->type) && n->nlink > 1)
		space_give_inode(fs);
	if (S_ISDIR(n->type))
		n->nlink = 0;
	else if (n->nlink)
		n->nlink--;
	touch_c(n);
	last = last_ref_locked(n);
	pthread_mutex_unlock(&n->lock);
	if (last)
		inode_release(fs, n);
}

bool inode_is_dead_dir(struct memfs_inode *n)
{
	bool dead;

	pthread_mutex_lock(&n->lock);
	dead = n->nlink == 0;
	pthread_mutex_unlock(&n->lock);
	return dead;
}

void inode_stat_locked(struct memfs_inode *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	st->st_mode = n->mode;
	st->st_nlink = n->nlink;
	st->st_uid = n->uid;
	st->st_gid = n->gid;
	st->st_rdev = n->rdev;
	st->st_blksize = 4096;
	st->st_atim = n->atime;
	st->st_mtim = n->mtime;
	st->st_ctim = n->ctime;
	switch (n->type) {
	case S_IFREG:
		st->st_size = n->data.size;
		st->st_blocks = (blkcnt_t)data_blocks_locked(n);
		break;
	case S_IFDIR:
		st->st_size = (off_t)(n->nentries + 2) * MEMFS_BOGO_DIRENT_SIZE;
		break;
	case S_IFLNK:
		st->st_size = (off_t)strlen(n->target);
		break;
	}
}

void inode_stat_seen(struct memfs_inode *n, struct stat *st)
{
	pthread_mutex_lock(&n->lock);
	inode_stat_locked(n, st);
	n->ts_seen = true;
	pthread_mutex_unlock(&n->lock);
}

void inode_stat(struct memfs_inode *n, struct stat *st)
{
	pthread_mutex_lock(&n->lock);
	inode_stat_locked(n, st);
	pthread_mutex_unlock(&n->lock);
}

/*
 * Without -o default_permissions the kernel checks no search permission
 * on a path walk through names it has cached: only LOOKUP, here, does.
 * So names in a directory that not everyone may search are not cached,
 * and every walk through them asks again.
 */
double entry_timeout_in(struct memfs *fs, struct memfs_inode *dir)
{
	mode_t mode;

	if (!dir)
		return fs->opt.entry_timeout;
	pthread_mutex_lock(&dir->lock);
	mode = dir->mode;
	pthread_mutex_unlock(&dir->lock);
	return (mode & 0111) == 0111 ? fs->opt.entry_timeout : 0;
}

void inode_entry(struct memfs *fs, struct memfs_inode *n, double timeout,
		 struct fring_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = n->ino;
	e->generation = n->generation;
	inode_stat(n, &e->attr);
	e->attr_timeout = fs->opt.attr_timeout;
	e->entry_timeout = timeout;
}

void reply_entry_ref(struct memfs *fs, fring_req_t *req, struct memfs_inode *n,
		     struct memfs_inode *dir)
{
	struct fring_entry e;

	inode_entry(fs, n, entry_timeout_in(fs, dir), &e);
	if (fring_reply_entry(req, &e) < 0)
		inode_forget(fs, n, 1);
}

/* Callers of the touch and kill helpers hold n->lock. */
void touch_mc(struct memfs_inode *n)
{
	inode_now_locked(n, &n->ctime);
	n->mtime = n->ctime;
}

void touch_c(struct memfs_inode *n)
{
	inode_now_locked(n, &n->ctime);
}

static bool ts_le(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
}

bool atime_due_locked(const struct memfs_inode *n, const struct timespec *now)
{
	return ts_le(&n->atime, &n->mtime) || ts_le(&n->atime, &n->ctime) ||
	       now->tv_sec - n->atime.tv_sec >= 24 * 60 * 60;
}

void kill_suidgid_locked(struct memfs_inode *n)
{
	if (S_ISDIR(n->type))
		return;
	n->mode &= ~(mode_t)S_ISUID;
	/* S_ISGID without group-exec is a locking hint, not a privilege. */
	if (n->mode & S_IXGRP)
		n->mode &= ~(mode_t)S_ISGID;
}
