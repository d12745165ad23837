/* SPDX-License-Identifier: MIT */
/*
 * passthrough: mirrors a source directory at the mountpoint.
 *
 * Every inode the kernel knows is an entry of an inode table keyed by the
 * source's (st_dev, st_ino). An entry holds an O_PATH|O_NOFOLLOW descriptor
 * of the source inode, which every metadata operation uses with *at()
 * system calls (or "/proc/self/fd/N" where no *at() form exists). Open
 * files are plain descriptors of the source file: the handle (fh) is the
 * descriptor, and READ/WRITE go through fring_read_from_fd() and
 * fring_write_to_fd() on it.
 *
 * Node ids: the kernel shows the node id as st_ino (and readdir's d_ino
 * must match it), so the id is derived from the source inode number:
 * st_ino itself for inodes on the source's filesystem, with the source
 * root's number and FRING_ROOT_INO swapped. Inodes of other filesystems
 * mounted below the source (or numbers that would collide) get ids from a
 * counter above PT_ALLOC_BASE.
 *
 * Locking: one mutex guards the inode table (both hash chains, nlookup,
 * the descriptor LRU). A handler takes a reference to an inode under it and
 * then uses the descriptor without a lock: the reference keeps the inode
 * alive even if a FORGET drops it meanwhile, and keeps its descriptor open.
 *
 * Descriptor budget: the kernel may hold far more inodes than the process
 * may have descriptors (a directory of 100000 files). Above a budget taken
 * from RLIMIT_NOFILE, the least recently used descriptors of unused inodes
 * are closed, the inode keeping a file handle (name_to_handle_at) instead,
 * and reopened with open_by_handle_at() when next used. That needs
 * CAP_DAC_READ_SEARCH and a source that supports file handles; without
 * them every inode keeps its descriptor.
 */
#ifndef PASSTHROUGH_H
#define PASSTHROUGH_H

#include <errno.h>
#include <fring/fring.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* The filesystem */

enum pt_cache {
	PT_CACHE_NEVER,	 /* direct_io on every open */
	PT_CACHE_AUTO,	 /* keep the page cache if the file is unchanged */
	PT_CACHE_ALWAYS, /* always keep the page cache */
};

/* -o fault= (fault.c): what the backing store pretends to do */
enum pt_fault {
	PT_FAULT_NONE,
	PT_FAULT_EIO,
	PT_FAULT_ENOSPC,
	PT_FAULT_SHORT,
};

/* Node ids handed out by the counter start here. */
#define PT_ALLOC_BASE (UINT64_C(1) << 63)

struct file_handle;

struct pt_inode {
	struct pt_inode *next_key; /* chain of the (dev, ino) table, if on it */
	struct pt_inode *next_id;  /* chain of the node id table */
	struct pt_inode *lru_prev, *lru_next; /* open descriptors, oldest
						 first (table lock) */
	fring_ino_t nodeid;
	uint64_t generation;
	dev_t dev;
	ino_t ino;
	mode_t type; /* S_IFMT bits */
	int fd;	     /* O_PATH|O_NOFOLLOW, -1 while evicted; closed
			with the last ref */
	struct file_handle *handle; /* to reopen an evicted descriptor */
	bool on_lru;		    /* may be evicted (table lock) */
	uint64_t nlookup;	    /* table lock */
	atomic_uint refs; /* 1 for the table while nlookup > 0, 1 per user */
	/* cache=auto: what the file looked like after the last open/release
	 * (table lock) */
	struct timespec seen_mtime, seen_ctime;
	off_t seen_size;
	bool seen;
};

struct pt_fs {
	/* options */
	const char *source;
	const char *mountpoint; /* as given (the last argument) */
	char *mnt_abs;		/* its absolute path, or NULL */
	double entry_timeout;
	double attr_timeout;
	enum pt_cache cache;
	bool passthrough;	  /* -o passthrough (backing.c) */
	unsigned max_stack_depth; /* -o max_stack_depth=, 0: the library's */
	enum pt_fault fault;
	unsigned fault_every;
	_Atomic unsigned fault_count; /* data requests the fault applies to */

	/* state */
	struct pt_inode root;
	int root_rdfd; /* O_RDONLY: syncfs, open_by_handle_at */
	dev_t own_dev; /* the device of this daemon's own mount (guard.c) */
	bool own_dev_known;
	bool switch_creds; /* the daemon is root: act with the caller's ids */

	pthread_mutex_t lock;
	/* by_id holds every inode, by_key only those without a natural id
	 * (inodes.c, find_key()) */
	struct pt_inode **by_key, **by_id;
	/* Records of forgotten inodes, kept for the next lookups (chained by
	 * next_id, at most PT_SPARE_MAX; table lock). Given back to malloc, a
	 * mass forget (the kernel dropping its inode cache) left the arena's
	 * top free, glibc returned it to the kernel, and the lookups after it
	 * faulted every page of new records in again: 678 faults of about
	 * 30 us on the benchmark machine for 19,000 lookups. */
	struct pt_inode *spare;
	size_t nspare;
	struct pt_inode *lru_head, *lru_tail;
	long fd_count;	 /* inode descriptors open (table lock) */
	long fd_budget;	 /* evict above this; 0: never */
	int root_mnt_id; /* mount id of the source, for file handles */
	size_t nbuckets; /* power of two, both tables */
	size_t count;
	uint64_t next_generation;
	uint64_t next_alloc;
};

static inline struct pt_fs *pt_fs(fring_req_t *req)
{
	return fring_req_userdata(req);
}

/* An open file's handle (fh): the source file's descriptor, plus
 * PT_FH_TRACKED when backing.c counted the open (its release then tells
 * it, pt_backing_detach()). */
#define PT_FH_TRACKED (UINT64_C(1) << 32)

static inline int pt_fd(const struct fring_file *fi)
{
	return (int)(uint32_t)fi->fh;
}

/* ------------------------------------------------------------------ */
/* backing.c: -o passthrough */

/* With -o passthrough: registers fd (the open's source descriptor) as the
 * inode's backing file, or shares the one its other opens use, and sets
 * fi->backing_id and the open flags passthrough allows; or leaves the
 * open to the daemon, as the inode's other opens are (a set-id file, or
 * the kernel refused: logged). True if the open was counted (call
 * pt_backing_detach() when it ends). */
bool pt_backing_attach(fring_req_t *req, struct pt_fs *fs, fring_ino_t nodeid,
		       int fd, struct fring_file *fi);
/* A counted open of nodeid ended (release, or its answer was not
 * delivered): the last one closes the backing id. */
void pt_backing_detach(fring_req_t *req, fring_ino_t nodeid);

/* ------------------------------------------------------------------ */
/* guard.c: the daemon never waits on its own mount */

/* Before mounting: -ELOOP (said why on stderr) if mnt is below the source
 * (in any spelling: the source's dev and inode are compared with those of
 * every ancestor of mnt); the source itself is allowed. Sets fs->mnt_abs. */
int pt_check_mountpoint(struct pt_fs *fs, const char *mnt);
/* After mounting, before serving: learns fs->own_dev. */
void pt_learn_own_dev(struct pt_fs *fs);
/* fd (any descriptor, O_PATH too) is of the daemon's own mount; asks
 * nothing of that mount. */
bool pt_is_own(struct pt_fs *fs, int fd);
/* openat() of one name of the source, failing ELOOP where the name leads
 * into the daemon's own mount (a bind mount of it inside the source), with
 * nothing asked of that mount. -1 and errno as openat(). */
int pt_openat(struct pt_fs *fs, int dirfd, const char *name, int flags,
	      mode_t mode);

/* ------------------------------------------------------------------ */
/* fault.c: backing store faults (-Dfault_injection=true builds) */
#ifdef FRING_FAULT_INJECTION
int pt_fault_opt(struct pt_fs *fs, const char *value);
/* 0: do the I/O; an errno to answer; -1: store half of a WRITE */
int pt_fault_next(struct pt_fs *fs, bool is_write);
#else
static inline int pt_fault_next(struct pt_fs *fs, bool is_write)
{
	(void)fs;
	(void)is_write;
	return 0;
}
#endif

/* ------------------------------------------------------------------ */
/* inodes.c: the inode table */

/* Sets up the table and the root inode from the source directory's
 * O_PATH descriptor. 0 or a negative errno. */
int pt_table_init(struct pt_fs *fs, int root_fd);
/* Sets the descriptor budget (needs fs->root_rdfd for reopening). */
void pt_table_budget(struct pt_fs *fs, long max_fds);
/* Closes a batch of unused inode descriptors, e.g. after EMFILE. True if
 * any was closed (then retrying may help). */
bool pt_fds_relieve(struct pt_fs *fs);
/* Closes and frees every inode but the root (at the end only). */
void pt_table_destroy(struct pt_fs *fs);

/* After a call failed with err: true if it was EMFILE/ENFILE and inode
 * descriptors were freed, so that trying again may work. */
static inline bool pt_retry_fds(struct pt_fs *fs, int err)
{
	return (err == EMFILE || err == ENFILE) && pt_fds_relieve(fs);
}

/* The inode of a node id with a reference and an open descriptor, or NULL
 * (a stale id, or the descriptor could not be reopened). */
struct pt_inode *pt_inode_get(struct pt_fs *fs, fring_ino_t nodeid);
void pt_inode_put(struct pt_fs *fs, struct pt_inode *in);

/*
 * Counts one lookup of the source inode that fd refers to and st
 * describes, creating the table entry if needed. fd is consumed: it becomes
 * the entry's descriptor or is closed. Fills e (ino, generation, attr with
 * st_ino = node id, timeouts). 0 or a negative errno (fd closed too).
 */
int pt_inode_add(struct pt_fs *fs, int fd, const struct stat *st,
		 struct fring_entry *e);
/* Drops nlookup lookups of nodeid; _many: those of a BATCH_FORGET. */
void pt_inode_forget(struct pt_fs *fs, fring_ino_t nodeid, uint64_t nlookup);
void pt_inode_forget_many(struct pt_fs *fs, size_t count,
			  const struct fring_forget *forgets);

/* The node id the source inode (dev, ino) has or would get; for d_ino. */
fring_ino_t pt_nodeid_of(struct pt_fs *fs, dev_t dev, ino_t ino);

/* Looks name up in parent: a counted lookup, e filled. fresh: the inode
 * was just created by this request (see pt_stat_new()). 0 or -errno;
 * -ELOOP where name leads into the daemon's own mount (pt_openat()). */
int pt_lookup_name(struct pt_fs *fs, struct pt_inode *parent, const char *name,
		   bool fresh, struct fring_entry *e);

/* cache=auto bookkeeping: true if the file st describes is unchanged since
 * the last call (or pt_inode_saw()); records st either way. */
bool pt_inode_unchanged(struct pt_fs *fs, struct pt_inode *in,
			const struct stat *st);
void pt_inode_saw(struct pt_fs *fs, struct pt_inode *in, const struct stat *st);

/* ------------------------------------------------------------------ */
/* creds.c: the caller's fsuid/fsgid for create operations; set-id bits */

struct pt_creds {
	bool uid_set, gid_set;
};

/* Switches this thread's fsuid/fsgid to the caller's. */
void pt_creds_enter(struct pt_fs *fs, fring_req_t *req, struct pt_creds *c);
/* Back to root. errno is preserved. */
void pt_creds_leave(struct pt_creds *c);
/* Clears the set-id bits a write or truncation by an unprivileged caller
 * clears, on the file behind fd (any descriptor, O_PATH too). */
void pt_kill_suidgid(int fd);

/* ------------------------------------------------------------------ */
/* Small helpers */

/* "/proc/self/fd/N" */
struct pt_procpath {
	char s[32];
};

static inline const char *pt_procpath(struct pt_procpath *p, int fd)
{
	snprintf(p->s, sizeof(p->s), "/proc/self/fd/%d", fd);
	return p->s;
}

/* Removes name from dirfd (unlinkat flags) if it still is the inode (dev,
 * ino): a create that failed after making it takes it back this way, and
 * never a name somebody else put there since. True if removed. */
bool pt_unlink_if(int dirfd, const char *name, dev_t dev, ino_t ino, int flags);
/* The attributes of the source inode behind fd, with st_ino = nodeid. */
int pt_stat_fd(int fd, fring_ino_t nodeid, struct stat *st);
/* The attributes of an inode this request just created, without marking
 * its times as seen (see inodes.c). 0 or -errno. */
int pt_stat_new(int fd, struct stat *st);

/* In a handler: the inode of a node id with a reference, or answer ESTALE
 * (an id this filesystem does not know, or no longer) and return. */
#define PT_GET_OR_STALE(in, fs, req, id)                                       \
	do {                                                                   \
		(in) = pt_inode_get((fs), (id));                               \
		if (!(in)) {                                                   \
			fring_reply_err((req), ESTALE);                        \
			return;                                                \
		}                                                              \
	} while (0)

/* Handle of an open directory. */
struct pt_dir;

/* ------------------------------------------------------------------ */
/* The callbacks, one file per group */

/* ops_meta.c */
void pt_lookup(fring_req_t *req, fring_ino_t parent, const char *name);
void pt_forget(void *userdata, fring_ino_t ino, uint64_t nlookup);
void pt_forget_multi(void *userdata, size_t count,
		     const struct fring_forget *forgets);
void pt_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void pt_setattr(fring_req_t *req, fring_ino_t ino, struct stat *attr,
		int to_set, struct fring_file *fi);
void pt_readlink(fring_req_t *req, fring_ino_t ino);
void pt_mknod(fring_req_t *req, fring_ino_t parent, const char *name,
	      mode_t mode, dev_t rdev);
void pt_mkdir(fring_req_t *req, fring_ino_t parent, const char *name,
	      mode_t mode);
void pt_symlink(fring_req_t *req, const char *target, fring_ino_t parent,
		const char *name);
void pt_link(fring_req_t *req, fring_ino_t ino, fring_ino_t newparent,
	     const char *newname);
void pt_unlink(fring_req_t *req, fring_ino_t parent, const char *name);
void pt_rmdir(fring_req_t *req, fring_ino_t parent, const char *name);
void pt_rename(fring_req_t *req, fring_ino_t parent, const char *name,
	       fring_ino_t newparent, const char *newname, unsigned int flags);
void pt_statfs(fring_req_t *req, fring_ino_t ino);
void pt_syncfs(fring_req_t *req, fring_ino_t ino);

/* ops_data.c */
void pt_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void pt_create(fring_req_t *req, fring_ino_t parent, const char *name,
	       mode_t mode, struct fring_file *fi);
void pt_tmpfile(fring_req_t *req, fring_ino_t parent, mode_t mode,
		struct fring_file *fi);
void pt_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
	     struct fring_file *fi, const struct fring_buf *dst);
void pt_write(fring_req_t *req, fring_ino_t ino, const struct fring_buf *src,
	      off_t off, struct fring_file *fi);
void pt_flush(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void pt_release(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void pt_fsync(fring_req_t *req, fring_ino_t ino, int datasync,
	      struct fring_file *fi);
void pt_fallocate(fring_req_t *req, fring_ino_t ino, int mode, off_t offset,
		  off_t length, struct fring_file *fi);
void pt_lseek(fring_req_t *req, fring_ino_t ino, off_t off, int whence,
	      struct fring_file *fi);
void pt_copy_file_range(fring_req_t *req, fring_ino_t ino_in, off_t off_in,
			struct fring_file *fi_in, fring_ino_t ino_out,
			off_t off_out, struct fring_file *fi_out, size_t len,
			int flags);

/* ops_dir.c */
void pt_opendir(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void pt_readdir(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		struct fring_file *fi, const struct fring_buf *dst);
void pt_readdirplus(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		    struct fring_file *fi, const struct fring_buf *dst);
void pt_releasedir(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void pt_fsyncdir(fring_req_t *req, fring_ino_t ino, int datasync,
		 struct fring_file *fi);

/* ops_xattr.c */
void pt_setxattr(fring_req_t *req, fring_ino_t ino, const char *name,
		 const void *value, size_t size, int flags);
void pt_getxattr(fring_req_t *req, fring_ino_t ino, const char *name,
		 size_t size);
void pt_listxattr(fring_req_t *req, fring_ino_t ino, size_t size);
void pt_removexattr(fring_req_t *req, fring_ino_t ino, const char *name);

#endif
