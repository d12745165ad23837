/* SPDX-License-Identifier: MIT */
/* The inode table: source (st_dev, st_ino) <-> node id, lookup counts,
 * and the budget of open inode descriptors. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "passthrough.h"

#define INITIAL_BUCKETS 1024

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static size_t key_slot(const struct pt_fs *fs, dev_t dev, ino_t ino)
{
	return (size_t)(mix64((uint64_t)ino ^ mix64((uint64_t)dev)) &
			(fs->nbuckets - 1));
}

/*
 * Node ids are mostly source inode numbers, which filesystems hand out in
 * runs (tmpfs, ext4 and btrfs count up; xfs in chunks of 64), and are
 * looked up and forgotten in about that order: the low bits kept as they
 * are put consecutive ids in consecutive buckets, eight to a cache line,
 * where a mixing hash made every step a miss in a table the dropped
 * dentries left cold. The bits above the table's size are folded in so
 * that ids far apart still spread.
 */
static size_t id_slot(const struct pt_fs *fs, fring_ino_t id)
{
	unsigned shift = (unsigned)__builtin_ctzll(fs->nbuckets);

	return (size_t)((id ^ (id >> shift) ^ (id >> shift >> shift)) &
			(fs->nbuckets - 1));
}

/* The id an inode gets without the counter, or 0 if it has none. */
static fring_ino_t natural_id(const struct pt_fs *fs, dev_t dev, ino_t ino)
{
	uint64_t id;

	if (dev != fs->root.dev)
		return 0;
	if (ino == fs->root.ino)
		return FRING_ROOT_INO;
	id = ino == FRING_ROOT_INO ? (uint64_t)fs->root.ino : (uint64_t)ino;
	if (id == 0 || id >= PT_ALLOC_BASE)
		return 0;
	return id;
}

/* Table lock held. */
static struct pt_inode *find_id(const struct pt_fs *fs, fring_ino_t id)
{
	struct pt_inode *in = fs->by_id[id_slot(fs, id)];

	while (in && in->nodeid != id)
		in = in->next_id;
	return in;
}

/*
 * An inode with a natural id always has that id (natural ids are below
 * PT_ALLOC_BASE and differ for different inodes), so the id table finds it
 * by its key too, and only the inodes without one are on the key table:
 * a lookup of a new name then walks one hash chain instead of two, each
 * step a likely cache miss in a large table. Table lock held.
 */
static struct pt_inode *find_key(const struct pt_fs *fs, dev_t dev, ino_t ino)
{
	fring_ino_t id = natural_id(fs, dev, ino);
	struct pt_inode *in;

	if (id) {
		in = find_id(fs, id);
		return in && in->ino == ino && in->dev == dev ? in : NULL;
	}
	in = fs->by_key[key_slot(fs, dev, ino)];
	while (in && (in->ino != ino || in->dev != dev))
		in = in->next_key;
	return in;
}

/* On the key table as well as the id table (find_key()). */
static bool keyed(const struct pt_fs *fs, const struct pt_inode *in)
{
	return !natural_id(fs, in->dev, in->ino);
}

static void link_in(struct pt_fs *fs, struct pt_inode *in)
{
	size_t i = id_slot(fs, in->nodeid);

	if (keyed(fs, in)) {
		size_t k = key_slot(fs, in->dev, in->ino);

		in->next_key = fs->by_key[k];
		fs->by_key[k] = in;
	}
	in->next_id = fs->by_id[i];
	fs->by_id[i] = in;
}

static void unlink_out(struct pt_fs *fs, struct pt_inode *in)
{
	struct pt_inode **pp;

	if (keyed(fs, in)) {
		pp = &fs->by_key[key_slot(fs, in->dev, in->ino)];
		while (*pp != in)
			pp = &(*pp)->next_key;
		*pp = in->next_key;
	}
	pp = &fs->by_id[id_slot(fs, in->nodeid)];
	while (*pp != in)
		pp = &(*pp)->next_id;
	*pp = in->next_id;
}

/* ---- descriptor LRU (lock held) ---- */

static void lru_del(struct pt_fs *fs, struct pt_inode *in)
{
	if (!in->on_lru)
		return;
	if (in->lru_prev)
		in->lru_prev->lru_next = in->lru_next;
	else
		fs->lru_head = in->lru_next;
	if (in->lru_next)
		in->lru_next->lru_prev = in->lru_prev;
	else
		fs->lru_tail = in->lru_prev;
	in->lru_prev = in->lru_next = NULL;
	in->on_lru = false;
}

static void lru_add(struct pt_fs *fs, struct pt_inode *in)
{
	in->lru_next = NULL;
	in->lru_prev = fs->lru_tail;
	if (fs->lru_tail)
		fs->lru_tail->lru_next = in;
	else
		fs->lru_head = in;
	fs->lru_tail = in;
	in->on_lru = true;
}

static void lru_touch(struct pt_fs *fs, struct pt_inode *in)
{
	if (in->on_lru && fs->lru_tail != in) {
		lru_del(fs, in);
		lru_add(fs, in);
	}
}

/*
 * Closes the descriptor of an unused inode, keeping a file handle to reopen
 * it. False if the inode cannot do without its descriptor: no file handle,
 * another mount, or no name left (an unlinked inode might not be found by
 * its handle once the last descriptor is gone).
 */
static bool evict_one(struct pt_fs *fs, struct pt_inode *in)
{
	struct stat st;

	if (fstatat(in->fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_nlink == 0)
		return false;
	if (!in->handle) {
		struct file_handle *h = malloc(sizeof(*h) + MAX_HANDLE_SZ), *r;
		int mnt;

		if (!h)
			return false;
		h->handle_bytes = MAX_HANDLE_SZ;
		if (name_to_handle_at(in->fd, "", h, &mnt, AT_EMPTY_PATH) < 0 ||
		    mnt != fs->root_mnt_id) {
			free(h);
			return false;
		}
		r = realloc(h, sizeof(*h) + h->handle_bytes);
		in->handle = r ? r : h;
	}
	close(in->fd);
	in->fd = -1;
	fs->fd_count--;
	return true;
}

/* Evicts unused descriptors, oldest first, until at most target remain or
 * nothing more can go. Returns how many were closed. */
static long evict(struct pt_fs *fs, long target)
{
	struct pt_inode *in = fs->lru_head, *next;
	long closed = 0, scan = 4 * (fs->fd_count - target) + 64;

	for (; in && fs->fd_count > target && scan > 0; in = next, scan--) {
		next = in->lru_next;
		if (atomic_load_explicit(&in->refs, memory_order_acquire) != 1)
			continue; /* in use: its descriptor must stay */
		lru_del(fs, in);
		if (evict_one(fs, in))
			closed++;
	}
	return closed;
}

/* After a new descriptor: back under the budget, with some slack so that
 * eviction runs in batches. */
static void over_budget(struct pt_fs *fs)
{
	if (fs->fd_budget && fs->fd_count > fs->fd_budget)
		evict(fs, fs->fd_budget - fs->fd_budget / 16);
}

bool pt_fds_relieve(struct pt_fs *fs)
{
	long closed;

	if (!fs->fd_budget)
		return false;
	pthread_mutex_lock(&fs->lock);
	closed = evict(fs, fs->fd_count - 256);
	pthread_mutex_unlock(&fs->lock);
	return closed > 0;
}

/* Doubles both tables; on ENOMEM the chains just get longer. Lock held. */
static void grow(struct pt_fs *fs)
{
	size_t old = fs->nbuckets, n = old * 2;
	struct pt_inode **k = calloc(n, sizeof(*k));
	struct pt_inode **id = calloc(n, sizeof(*id));
	struct pt_inode **oid = fs->by_id;

	if (!k || !id) {
		free(k);
		free(id);
		return;
	}
	free(fs->by_key);
	fs->by_key = k;
	fs->by_id = id;
	fs->nbuckets = n;
	/* Every inode is on exactly one id chain: walk those. */
	for (size_t b = 0; b < old; b++) {
		struct pt_inode *in = oid[b], *next;

		for (; in; in = next) {
			next = in->next_id;
			link_in(fs, in);
		}
	}
	free(oid);
}

/* Lock held. */
static fring_ino_t alloc_id(struct pt_fs *fs)
{
	fring_ino_t id;

	do {
		id = fs->next_alloc++;
		if (fs->next_alloc == 0) /* wrapped: start over */
			fs->next_alloc = PT_ALLOC_BASE;
	} while (find_id(fs, id));
	return id;
}

/* At most 64 Ki spare records: about 10 MiB kept after a mass forget. */
#define PT_SPARE_MAX 65536

/* A kept record, zeroed, or NULL when none is kept. Lock held. */
static struct pt_inode *spare_pop(struct pt_fs *fs)
{
	struct pt_inode *in = fs->spare;

	if (in) {
		fs->spare = in->next_id;
		fs->nspare--;
		memset(in, 0, sizeof(*in));
	}
	return in;
}

/* Keeps in for a later lookup, or frees it beyond the bound. Lock held. */
static void spare_push(struct pt_fs *fs, struct pt_inode *in)
{
	if (fs->nspare < PT_SPARE_MAX) {
		in->next_id = fs->spare;
		fs->spare = in;
		fs->nspare++;
	} else {
		free(in);
	}
}

int pt_table_init(struct pt_fs *fs, int root_fd)
{
	struct stat st;
	int err;

	if (fstatat(root_fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		return -errno;
	err = pthread_mutex_init(&fs->lock, NULL);
	if (err)
		return -err;
	fs->nbuckets = INITIAL_BUCKETS;
	fs->by_key = calloc(fs->nbuckets, sizeof(*fs->by_key));
	fs->by_id = calloc(fs->nbuckets, sizeof(*fs->by_id));
	if (!fs->by_key || !fs->by_id)
		return -ENOMEM;
	fs->next_alloc = PT_ALLOC_BASE;
	fs->next_generation = 1;

	memset(&fs->root, 0, sizeof(fs->root));
	fs->root.nodeid = FRING_ROOT_INO;
	fs->root.generation = 0;
	fs->root.dev = st.st_dev;
	fs->root.ino = st.st_ino;
	fs->root.type = st.st_mode & S_IFMT;
	fs->root.fd = root_fd;
	fs->root.nlookup = UINT64_MAX / 2; /* never forgotten */
	atomic_init(&fs->root.refs, 1);
	link_in(fs, &fs->root);
	fs->count = 1;
	return 0;
}

void pt_table_budget(struct pt_fs *fs, long max_fds)
{
	struct file_handle *h = malloc(sizeof(*h) + MAX_HANDLE_SZ);
	int fd = -1;

	fs->fd_budget = 0;
	if (!h)
		return;
	/* Eviction only if a handle of the source can be reopened here. */
	h->handle_bytes = MAX_HANDLE_SZ;
	if (fs->root_rdfd >= 0 &&
	    name_to_handle_at(fs->root.fd, "", h, &fs->root_mnt_id,
			      AT_EMPTY_PATH) == 0)
		fd = open_by_handle_at(fs->root_rdfd, h, O_PATH | O_CLOEXEC);
	free(h);
	if (fd < 0)
		return;
	close(fd);
	/* A sixty-fourth (at least 256) stays for open files, directories
	 * and the library; should they need more, pt_retry_fds() evicts on
	 * EMFILE. Each eviction costs three system calls and a later reopen,
	 * so the table keeps as much of the limit as it can. */
	fs->fd_budget = max_fds - (max_fds / 64 > 256 ? max_fds / 64 : 256);
	if (fs->fd_budget < 64)
		fs->fd_budget = 0;
}

void pt_table_destroy(struct pt_fs *fs)
{
	for (size_t b = 0; b < fs->nbuckets; b++) {
		struct pt_inode *in = fs->by_id[b], *next;

		for (; in; in = next) {
			next = in->next_id;
			if (in == &fs->root)
				continue;
			if (in->fd >= 0)
				close(in->fd);
			free(in->handle);
			free(in);
		}
	}
	free(fs->by_key);
	free(fs->by_id);
	fs->by_key = fs->by_id = NULL;
	while (fs->spare) {
		struct pt_inode *in = fs->spare;

		fs->spare = in->next_id;
		free(in);
	}
	fs->nspare = 0;
	pthread_mutex_destroy(&fs->lock);
}

/* Reopens an evicted descriptor from the file handle. Lock held. */
static int reopen(struct pt_fs *fs, struct pt_inode *in)
{
	int fd;

	for (;;) {
		fd = open_by_handle_at(fs->root_rdfd, in->handle,
				       O_PATH | O_CLOEXEC);
		if (fd >= 0 || (errno != EMFILE && errno != ENFILE) ||
		    !evict(fs, fs->fd_count - 256))
			break;
	}
	if (fd < 0)
		return -errno;
	in->fd = fd;
	fs->fd_count++;
	lru_add(fs, in);
	over_budget(fs); /* in is in use: it stays */
	return 0;
}

struct pt_inode *pt_inode_get(struct pt_fs *fs, fring_ino_t nodeid)
{
	struct pt_inode *in;

	if (nodeid == FRING_ROOT_INO)
		return &fs->root;
	pthread_mutex_lock(&fs->lock);
	in = find_id(fs, nodeid);
	if (in) {
		atomic_fetch_add_explicit(&in->refs, 1, memory_order_relaxed);
		if (in->fd < 0 && reopen(fs, in) < 0) {
			/* the table still holds its reference */
			atomic_fetch_sub_explicit(&in->refs, 1,
						  memory_order_relaxed);
			in = NULL;
		} else {
			lru_touch(fs, in);
		}
	}
	pthread_mutex_unlock(&fs->lock);
	return in;
}

void pt_inode_put(struct pt_fs *fs, struct pt_inode *in)
{
	if (!in || in == &fs->root)
		return;
	if (atomic_fetch_sub_explicit(&in->refs, 1, memory_order_acq_rel) ==
	    1) {
		if (in->fd >= 0)
			close(in->fd);
		free(in->handle);
		pthread_mutex_lock(&fs->lock);
		spare_push(fs, in);
		pthread_mutex_unlock(&fs->lock);
	}
}

static void fill_entry(const struct pt_fs *fs, const struct pt_inode *in,
		       const struct stat *st, struct fring_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = in->nodeid;
	e->generation = in->generation;
	e->attr = *st;
	e->attr.st_ino = (ino_t)in->nodeid;
	e->attr_timeout = fs->attr_timeout;
	e->entry_timeout = fs->entry_timeout;
}

int pt_inode_add(struct pt_fs *fs, int fd, const struct stat *st,
		 struct fring_entry *e)
{
	struct pt_inode *in, *fresh = NULL;
	fring_ino_t id;

	pthread_mutex_lock(&fs->lock);
	/* A new inode takes a kept record; with none kept, one is allocated
	 * outside the lock and the table looked at again. */
	while (!(in = find_key(fs, st->st_dev, st->st_ino)) && !fresh &&
	       !(fresh = spare_pop(fs))) {
		pthread_mutex_unlock(&fs->lock);
		fresh = calloc(1, sizeof(*fresh));
		if (!fresh) {
			close(fd);
			return -ENOMEM;
		}
		pthread_mutex_lock(&fs->lock);
	}
	if (in) {
		/* Known inode (another name, or looked up again). */
		in->nlookup++;
		fill_entry(fs, in, st, e);
		if (in->fd < 0) {
			/* evicted, hence unused: take the new descriptor */
			in->fd = fd;
			fd = -1;
			fs->fd_count++;
			lru_add(fs, in);
			over_budget(fs);
		} else {
			lru_touch(fs, in);
		}
		if (fresh) /* another lookup added it meanwhile */
			spare_push(fs, fresh);
		pthread_mutex_unlock(&fs->lock);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	/* find_key() looked at the natural id's chain already: natural ids
	 * map one to one to inodes, so one it did not find is free */
	id = natural_id(fs, st->st_dev, st->st_ino);
	if (!id)
		id = alloc_id(fs);
	in = fresh;
	in->nodeid = id;
	in->generation = fs->next_generation++;
	in->dev = st->st_dev;
	in->ino = st->st_ino;
	in->type = st->st_mode & S_IFMT;
	in->fd = fd;
	in->nlookup = 1;
	atomic_init(&in->refs, 1);
	if (fs->count >= fs->nbuckets)
		grow(fs);
	link_in(fs, in);
	fs->count++;
	fill_entry(fs, in, st, e);
	fs->fd_count++;
	if (fs->fd_budget) {
		lru_add(fs, in);
		over_budget(fs);
	}
	pthread_mutex_unlock(&fs->lock);
	return 0;
}

/* Drops nlookup references; an inode left with none leaves the table,
 * and its record too unless a request still uses it. Lock held; a
 * descriptor to close is stored in *close_fd (else -1), for the caller to
 * close after unlocking. */
static void forget_locked(struct pt_fs *fs, fring_ino_t nodeid,
			  uint64_t nlookup, int *close_fd)
{
	struct pt_inode *in;

	*close_fd = -1;
	if (nodeid == FRING_ROOT_INO)
		return;
	in = find_id(fs, nodeid);
	if (!in)
		return;
	if (nlookup < in->nlookup) {
		in->nlookup -= nlookup;
		return;
	}
	in->nlookup = 0;
	unlink_out(fs, in);
	lru_del(fs, in);
	fs->count--;
	if (in->fd >= 0)
		fs->fd_count--; /* closed with the last reference */
	if (atomic_fetch_sub_explicit(&in->refs, 1, memory_order_acq_rel) != 1)
		return; /* a request holds it: pt_inode_put() ends it */
	*close_fd = in->fd;
	free(in->handle);
	spare_push(fs, in);
}

void pt_inode_forget(struct pt_fs *fs, fring_ino_t nodeid, uint64_t nlookup)
{
	int fd;

	pthread_mutex_lock(&fs->lock);
	forget_locked(fs, nodeid, nlookup, &fd);
	pthread_mutex_unlock(&fs->lock);
	if (fd >= 0)
		close(fd);
}

/* A BATCH_FORGET of the kernel's dentry shrinking names hundreds of
 * inodes: one lock acquisition for each run of them, not one or two per
 * inode, and the descriptors closed outside the lock, a run at a time. */
void pt_inode_forget_many(struct pt_fs *fs, size_t count,
			  const struct fring_forget *forgets)
{
	enum { RUN = 64 };
	int fds[RUN];

	while (count) {
		size_t n = count < RUN ? count : RUN, nfd = 0;

		pthread_mutex_lock(&fs->lock);
		for (size_t i = 0; i < n; i++) {
			forget_locked(fs, forgets[i].ino, forgets[i].nlookup,
				      &fds[nfd]);
			if (fds[nfd] >= 0)
				nfd++;
		}
		pthread_mutex_unlock(&fs->lock);
		for (size_t i = 0; i < nfd; i++)
			close(fds[i]);
		forgets += n;
		count -= n;
	}
}

fring_ino_t pt_nodeid_of(struct pt_fs *fs, dev_t dev, ino_t ino)
{
	fring_ino_t id = natural_id(fs, dev, ino);
	struct pt_inode *in;

	/* A natural id belongs to its inode alone: no lock needed. */
	if (id)
		return id;
	pthread_mutex_lock(&fs->lock);
	in = find_key(fs, dev, ino);
	id = in ? in->nodeid : (fring_ino_t)ino;
	pthread_mutex_unlock(&fs->lock);
	return id;
}

int pt_lookup_name(struct pt_fs *fs, struct pt_inode *parent, const char *name,
		   bool fresh, struct fring_entry *e)
{
	struct stat st;
	int fd, err;

	do
		fd = pt_openat(fs, parent->fd, name,
			       O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
	while (fd < 0 && pt_retry_fds(fs, errno));
	if (fd < 0)
		return -errno;
	if (fresh)
		err = pt_stat_new(fd, &st);
	else if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		err = -errno;
	else
		err = 0;
	if (err) {
		close(fd);
		return err;
	}
	return pt_inode_add(fs, fd, &st, e);
}

static bool ts_eq(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

bool pt_inode_unchanged(struct pt_fs *fs, struct pt_inode *in,
			const struct stat *st)
{
	bool same;

	pthread_mutex_lock(&fs->lock);
	same = in->seen && ts_eq(in->seen_mtime, st->st_mtim) &&
	       ts_eq(in->seen_ctime, st->st_ctim) &&
	       in->seen_size == st->st_size;
	in->seen = true;
	in->seen_mtime = st->st_mtim;
	in->seen_ctime = st->st_ctim;
	in->seen_size = st->st_size;
	pthread_mutex_unlock(&fs->lock);
	return same;
}

void pt_inode_saw(struct pt_fs *fs, struct pt_inode *in, const struct stat *st)
{
	(void)pt_inode_unchanged(fs, in, st);
}

/*
 * Multigrain timestamps (tmpfs, ext4, xfs, btrfs since Linux 6.13): once
 * somebody has read an inode's ctime/mtime, its next change gets a
 * fine-grained time instead of the coarse clock tick. A stat(2) of a file
 * the daemon just created would make the caller's first write after the
 * create stamp mtime/ctime later than the creation time, where on the
 * source itself all times of a new, then written file stay equal within a
 * tick. So a new inode is examined with statx(2) without STATX_MTIME and
 * STATX_CTIME, which does not count as reading them, and its mtime and
 * ctime are its atime: a new inode has all three equal.
 */
int pt_stat_new(int fd, struct stat *st)
{
	unsigned int mask = STATX_BASIC_STATS & ~(STATX_MTIME | STATX_CTIME);
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, mask, &sx) < 0 ||
	    (sx.stx_mask & mask) != mask) {
		if (fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) <
		    0)
			return -errno;
		return 0;
	}
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st->st_ino = (ino_t)sx.stx_ino;
	st->st_mode = sx.stx_mode;
	st->st_nlink = sx.stx_nlink;
	st->st_uid = sx.stx_uid;
	st->st_gid = sx.stx_gid;
	st->st_rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
	st->st_size = (off_t)sx.stx_size;
	st->st_blksize = (blksize_t)sx.stx_blksize;
	st->st_blocks = (blkcnt_t)sx.stx_blocks;
	st->st_atim.tv_sec = (time_t)sx.stx_atime.tv_sec;
	st->st_atim.tv_nsec = (long)sx.stx_atime.tv_nsec;
	st->st_mtim = st->st_atim;
	st->st_ctim = st->st_atim;
	return 0;
}

int pt_stat_fd(int fd, fring_ino_t nodeid, struct stat *st)
{
	if (fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	st->st_ino = (ino_t)nodeid;
	return 0;
}
