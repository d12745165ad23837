/* SPDX-License-Identifier: MIT */
/*
 * Where regular files keep their bytes, and the charge of their pages.
 *
 * Every file's data is in a memfd, at an offset: the library's data
 * helpers (fring_read_from_fd, fring_write_to_fd) then move it on every
 * transport, zero-copy and splice included, and shmem gives tmpfs's holes,
 * fallocate and SEEK_DATA. One memfd per file, as memfs had, ran out of
 * descriptors: the 19,992nd one-byte file failed with ENOSPC under a limit
 * of 20,000 (the 58th under ulimit -n 64). So:
 *
 *  - a file whose first data reaches beyond MEMFS_SMALL_MAX gets a memfd of
 *    its own while the descriptor budget (a share of RLIMIT_NOFILE) lasts:
 *    its writes take that memfd's lock only;
 *  - every other file gets a region of MEMFS_REGION bytes in an arena, a
 *    memfd shared by up to MEMFS_ARENA_SLOTS files; the arenas are
 *    striped (by inode number) so that writers of different files seldom
 *    wait for one another on a shared memfd's lock.
 *
 * A file keeps its storage while it may have I/O in flight: the helpers
 * answer by themselves, on the ring perhaps after the handler returned,
 * so moving the data or reusing its descriptor or region then would lose
 * a write or hand it to another file. Storage goes back only when the
 * file is empty and not open (the kernel sends RELEASE after the last
 * request of an open) or when the inode is freed.
 *
 * An arena's size is set to its whole span at creation, so that shmem's
 * SEEK_DATA/SEEK_HOLE see pages, never an end of file, inside any region;
 * memfs keeps each file's size itself and clamps reads and seeks to it.
 * The bytes of a region past its file's size are always zero: a shrink
 * punches them and a region is punched whole before reuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "memfs.h"

#define PAGE_SHIFT 12
#define PAGE	   ((off_t)1 << PAGE_SHIFT)

static uint64_t pg_down(off_t o)
{
	return (uint64_t)o >> PAGE_SHIFT;
}

static uint64_t pg_up(off_t o)
{
	return ((uint64_t)o + (uint64_t)PAGE - 1) >> PAGE_SHIFT;
}

static bool is_own(const struct memfs_data *d)
{
	return d->stripe < 0;
}

/* The largest size the file's storage can take. */
static off_t data_max(const struct memfs_data *d)
{
	return is_own(d) ? INT64_MAX : MEMFS_REGION;
}

/* ------------------------------------------------------------------ */
/* Descriptors: the budget and the arenas */

static int new_memfd(void)
{
	return memfd_create("memfs", MFD_CLOEXEC);
}

static int new_arena(void)
{
	int fd = new_memfd();

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)MEMFS_ARENA_SLOTS * MEMFS_REGION) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

/* The arena holding slot of stripe s, made if it is the next one. Caller
 * holds s->lock. */
static int arena_fd(struct memfs_stripe *s, uint32_t slot)
{
	size_t a = slot / MEMFS_ARENA_SLOTS;

	if (a < s->nfds)
		return s->fds[a];
	if (a == s->nfds) {
		int *v = realloc(s->fds, (a + 1) * sizeof(*v));
		int fd;

		if (!v)
			return -ENOMEM;
		s->fds = v;
		fd = new_arena();
		if (fd < 0)
			return fd;
		s->fds[s->nfds++] = fd;
		return fd;
	}
	return -EINVAL;
}

/* A free region of stripe s for d: 0 or an errno. */
static int stripe_take(struct memfs_stripe *s, struct memfs_data *d)
{
	uint32_t slot = 0;
	int fd, err = 0;

	pthread_mutex_lock(&s->lock);
	if (s->nfree) {
		slot = s->free[--s->nfree];
		fd = s->fds[slot / MEMFS_ARENA_SLOTS];
	} else if (s->next == UINT32_MAX) {
		fd = -ENOSPC;
	} else {
		slot = s->next;
		fd = arena_fd(s, slot);
		if (fd >= 0)
			s->next++;
	}
	pthread_mutex_unlock(&s->lock);
	if (fd < 0) {
		err = fd == -EMFILE || fd == -ENFILE ? ENOSPC : -fd;
	} else {
		d->fd = fd;
		d->slot = slot;
		d->base = (off_t)(slot % MEMFS_ARENA_SLOTS) * MEMFS_REGION;
	}
	return err;
}

static int arena_take(struct memfs *fs, fring_ino_t ino, struct memfs_data *d)
{
	struct memfs_store *st = &fs->store;
	unsigned i = (unsigned)(ino % st->nstripes);
	int err = stripe_take(&st->stripe[i], d);

	/* Out of descriptors for a new arena: stripe 0 always has one,
	 * made at start, with room perhaps. */
	if (err && i != 0)
		err = stripe_take(&st->stripe[i = 0], d);
	if (!err)
		d->stripe = (int)i;
	return err;
}

static void arena_give(struct memfs *fs, struct memfs_data *d)
{
	struct memfs_stripe *s = &fs->store.stripe[d->stripe];

	/* whatever is left goes, so that the next owner finds zeros */
	fallocate(d->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, d->base,
		  MEMFS_REGION);
	pthread_mutex_lock(&s->lock);
	if (s->nfree == s->free_cap) {
		size_t cap = s->free_cap ? s->free_cap * 2 : 256;
		uint32_t *v = realloc(s->free, cap * sizeof(*v));

		/* without memory the region is simply never reused */
		if (v) {
			s->free = v;
			s->free_cap = cap;
		}
	}
	if (s->nfree < s->free_cap)
		s->free[s->nfree++] = d->slot;
	pthread_mutex_unlock(&s->lock);
}

/* A memfd of the file's own, if the budget has one left. */
static bool own_take(struct memfs *fs, struct memfs_data *d)
{
	struct memfs_store *st = &fs->store;
	long n = atomic_fetch_add(&st->own, 1);
	int fd;

	if (n < st->budget) {
		fd = new_memfd();
		if (fd >= 0) {
			d->fd = fd;
			d->stripe = -1;
			d->base = 0;
			return true;
		}
	}
	atomic_fetch_sub(&st->own, 1);
	return false;
}

/* Storage for a file whose data will reach end. Caller holds n->lock. */
static int storage_get(struct memfs *fs, struct memfs_inode *n, off_t end)
{
	struct memfs_data *d = &n->data;

	if (d->fd >= 0)
		return 0;
	if (end > MEMFS_SMALL_MAX && own_take(fs, d))
		return 0;
	return arena_take(fs, n->ino, d);
}

static void storage_put(struct memfs *fs, struct memfs_data *d)
{
	if (d->fd < 0)
		return;
	if (is_own(d)) {
		close(d->fd);
		atomic_fetch_sub(&fs->store.own, 1);
	} else {
		arena_give(fs, d);
	}
	d->fd = -1;
	d->stripe = -1;
}

/*
 * RLIMIT_NOFILE's soft limit goes up to the hard one (never past it: the
 * hard limit is the user's word); half of it, less what the library and
 * the arenas need, is the budget of memfds of their own.
 */
int data_setup(struct memfs *fs)
{
	struct memfs_store *st = &fs->store;
	struct rlimit rl;
	long nofile = 1024;
	int fd;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		nofile = rl.rlim_cur > (rlim_t)(1l << 30) ? 1l << 30
							  : (long)rl.rlim_cur;
	}
	st->budget = nofile / 2 - 64 > 0 ? nofile / 2 - 64 : 0;
	st->nstripes = nofile >= 1024 ? MEMFS_STRIPES : 1;
	for (unsigned i = 0; i < MEMFS_STRIPES; i++)
		pthread_mutex_init(&st->stripe[i].lock, NULL);
	/* the first arena now, so that there is always one */
	fd = arena_fd(&st->stripe[0], 0);
	return fd < 0 ? -fd : 0;
}

void data_fini(struct memfs *fs)
{
	struct memfs_store *st = &fs->store;

	for (unsigned i = 0; i < MEMFS_STRIPES; i++) {
		struct memfs_stripe *s = &st->stripe[i];

		for (size_t a = 0; a < s->nfds; a++)
			close(s->fds[a]);
		free(s->fds);
		free(s->free);
		pthread_mutex_destroy(&s->lock);
	}
	memset(st, 0, sizeof(*st));
}

/* ------------------------------------------------------------------ */
/* The file's data; callers hold n->lock */

void data_init(struct memfs_data *d)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->stripe = -1;
}

void data_free(struct memfs *fs, struct memfs_inode *n)
{
	struct memfs_data *d = &n->data;

	space_give(fs, d->ext.pages << PAGE_SHIFT);
	storage_put(fs, d);
	ext_free(&d->ext);
}

void data_drop_if_idle_locked(struct memfs *fs, struct memfs_inode *n)
{
	struct memfs_data *d = &n->data;

	/* -o no_open: the kernel sends no RELEASE, so "not open" is never
	 * known before the inode goes. A removed file's data stays until
	 * then too: the kernel may still open it through the reference a
	 * lookup gave it (a path walk that found the name just before). */
	if (d->fd >= 0 && !n->nopen && !fs->no_open && !d->size &&
	    !d->ext.pages)
		storage_put(fs, d);
}

uint64_t data_blocks_locked(const struct memfs_inode *n)
{
	return n->data.ext.pages << (PAGE_SHIFT - 9);
}

/* Charges the pages of [a, b) the file does not hold yet. */
static int pages_take(struct memfs *fs, struct memfs_data *d, uint64_t a,
		      uint64_t b)
{
	uint64_t miss = ext_missing(&d->ext, a, b);

	if (!miss)
		return 0;
	if (ext_reserve(&d->ext))
		return ENOMEM;
	if (space_take(fs, miss << PAGE_SHIFT))
		return ENOSPC;
	ext_add(&d->ext, a, b);
	return 0;
}

int data_write_locked(struct memfs *fs, struct memfs_inode *n, off_t off,
		      size_t len, int *fd, off_t *foff)
{
	struct memfs_data *d = &n->data;
	off_t end;
	int err;

	if (off < 0)
		return EINVAL;
	if (len > (size_t)(INT64_MAX - off))
		return EFBIG;
	end = off + (off_t)len;
	err = storage_get(fs, n, end);
	if (err)
		return err;
	if (end > data_max(d))
		return EFBIG;
	err = pages_take(fs, d, pg_down(off), pg_up(end));
	if (err)
		return err;
	/* Set now, before the data is there: the helper answers by
	 * itself. Should the write fail, the file reads zeros there. */
	if (end > d->size)
		d->size = end;
	*fd = d->fd;
	*foff = d->base + off;
	return 0;
}

int data_pwrite_locked(struct memfs *fs, struct memfs_inode *n, const void *buf,
		       size_t len, off_t off)
{
	size_t done = 0;
	off_t foff;
	int fd, err = data_write_locked(fs, n, off, len, &fd, &foff);

	while (!err && done < len) {
		ssize_t w = pwrite(fd, (const char *)buf + done, len - done,
				   foff + (off_t)done);

		if (w < 0 && errno != EINTR)
			err = errno;
		else if (w > 0)
			done += (size_t)w;
	}
	return err;
}

void data_read_locked(const struct memfs_inode *n, off_t off, size_t *len,
		      int *fd, off_t *foff)
{
	const struct memfs_data *d = &n->data;

	if (off < 0 || off >= d->size || d->fd < 0) {
		*len = 0;
		*fd = -1;
		return;
	}
	if ((off_t)*len > d->size - off)
		*len = (size_t)(d->size - off);
	*fd = d->fd;
	*foff = d->base + off;
}

/* The pages of [from, the end of what the file holds) go, and their
 * charge. */
static int cut_locked(struct memfs *fs, struct memfs_data *d, off_t from)
{
	off_t end = (off_t)ext_end(&d->ext) << PAGE_SHIFT;

	if (end < d->size)
		end = d->size;
	if (d->fd >= 0 && is_own(d) && ftruncate(d->fd, from) < 0)
		return errno;
	if (d->fd >= 0 && !is_own(d) && end > from &&
	    fallocate(d->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      d->base + from, end - from) < 0)
		return errno;
	space_give(fs, ext_remove(&d->ext, pg_up(from), UINT64_MAX)
			       << PAGE_SHIFT);
	return 0;
}

int data_truncate_locked(struct memfs *fs, struct memfs_inode *n, off_t size)
{
	struct memfs_data *d = &n->data;
	int err;

	if (size < 0)
		return EINVAL;
	if (size > d->size) {
		/* a longer file holds no more pages (as on tmpfs), but every
		 * file with a size has storage to read from */
		err = storage_get(fs, n, size);
		if (err)
			return err;
		if (size > data_max(d))
			return EFBIG;
		if (is_own(d) && ftruncate(d->fd, size) < 0)
			return errno;
	} else {
		/* as tmpfs, the same size also frees what fallocate kept
		 * past the end */
		err = cut_locked(fs, d, size);
		if (err)
			return err;
	}
	d->size = size;
	data_drop_if_idle_locked(fs, n);
	return 0;
}

int data_fallocate_locked(struct memfs *fs, struct memfs_inode *n, int mode,
			  off_t off, off_t len)
{
	struct memfs_data *d = &n->data;
	struct memfs_extents saved;
	uint64_t miss;
	off_t end;
	int err;

	if (len > INT64_MAX - off)
		return EFBIG;
	end = off + len;
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		off_t stop = end < data_max(d) ? end : data_max(d);

		if (d->fd < 0 || off >= stop)
			return 0;
		/* a run cut in two needs one more slot */
		if (ext_reserve(&d->ext))
			return ENOMEM;
		if (fallocate(d->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      d->base + off, stop - off) < 0)
			return errno;
		/* only whole pages go; shmem zeroes the parts of the others */
		space_give(fs, ext_remove(&d->ext, pg_up(off), pg_down(end))
				       << PAGE_SHIFT);
		return 0;
	}
	err = storage_get(fs, n, end);
	if (err)
		return err;
	if (end > data_max(d))
		return EFBIG;
	/* charged first: 1 TiB more than the limit is ENOSPC at once */
	miss = ext_missing(&d->ext, pg_down(off), pg_up(end));
	if (miss && ext_clone(&saved, &d->ext))
		return ENOMEM;
	if (miss && (err = pages_take(fs, d, pg_down(off), pg_up(end)))) {
		ext_free(&saved);
		return err;
	}
	/* an arena's size covers every region: KEEP_SIZE changes nothing
	 * there, the file's size is memfs's */
	if (fallocate(d->fd, is_own(d) ? mode : FALLOC_FL_KEEP_SIZE,
		      d->base + off, len) < 0) {
		/* shmem undid what it allocated; the set and charge go back */
		err = errno;
		if (miss) {
			space_give(fs, (d->ext.pages - saved.pages)
					       << PAGE_SHIFT);
			ext_free(&d->ext);
			d->ext = saved;
		}
		return err;
	}
	if (miss)
		ext_free(&saved);
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > d->size)
		d->size = end;
	return 0;
}

int data_seek_locked(const struct memfs_inode *n, off_t off, int whence,
		     off_t *res)
{
	const struct memfs_data *d = &n->data;
	off_t r;

	if (off < 0)
		return EINVAL;
	if (off >= d->size || d->fd < 0)
		return ENXIO;
	/* The memfd is shmem: its holes are exactly tmpfs's. Its file
	 * position is never used for I/O, so moving it does no harm. */
	r = lseek(d->fd, d->base + off, whence);
	if (r < 0)
		return errno;
	r -= d->base;
	if (whence == SEEK_DATA && r >= d->size)
		return ENXIO;
	*res = r < d->size ? r : d->size;
	return 0;
}
