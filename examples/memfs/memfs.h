/* SPDX-License-Identifier: MIT */
/*
 * memfs: an in-memory POSIX filesystem on libfring.
 *
 * Locking, outermost first:
 *   fs->ns       rwlock: directory contents, dir->parent and the decision
 *                that an inode leaves the namespace (nlink changes). Held
 *                for writing by every namespace change, for reading by
 *                lookup and readdir.
 *   inode->lock  mutex: the inode's attributes, counters and xattrs. Never
 *                two at once, so no inode-vs-inode ordering exists.
 *   table.lock   mutex: slot allocation in the inode table only.
 *   stripe.lock  mutex: region allocation in one stripe of arenas (data.c).
 * Data I/O goes to the memfd with no lock held: the kernel orders it.
 */
#ifndef MEMFS_H
#define MEMFS_H

#include <fring/fring.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

struct memfs_inode;

/* ------------------------------------------------------------------ */
/* dir.c: one directory's entries */

struct memfs_dirent {
	struct memfs_dirent *hnext; /* hash chain */
	struct memfs_inode *inode;
	uint64_t cookie; /* readdir offset; fixed for the entry's life */
	uint64_t hash;
	size_t pos; /* index in memfs_dir.order */
	size_t namelen;
	char name[];
};

/* The cookie order: slots are appended with growing cookies, so the
 * array stays sorted; a removed entry leaves a hole (ent == NULL) that
 * keeps its cookie until the array is compacted. */
struct memfs_dir_slot {
	uint64_t cookie;
	struct memfs_dirent *ent;
};

struct memfs_dir {
	struct memfs_dirent **buckets;
	size_t nbuckets; /* power of two */
	size_t count;
	struct memfs_dir_slot *order;
	size_t order_len, order_cap, holes;
	uint64_t next_cookie;
};

/* "." and ".." take the two lowest cookies; real entries follow. */
#define MEMFS_COOKIE_DOT    1
#define MEMFS_COOKIE_DOTDOT 2
#define MEMFS_COOKIE_FIRST  3

void dir_hash_seed(uint64_t seed);
struct memfs_dir *dir_new(void);
void dir_free(struct memfs_dir *d); /* frees entries, not their inodes */
struct memfs_dirent *dir_find(const struct memfs_dir *d, const char *name);
struct memfs_dirent *dirent_new(const char *name);
/* Makes room so that the next dir_add() cannot fail: 0 or ENOMEM. */
int dir_reserve(struct memfs_dir *d);
void dir_add(struct memfs_dir *d, struct memfs_dirent *e,
	     struct memfs_inode *n);
void dir_del(struct memfs_dir *d, struct memfs_dirent *e); /* frees e */
/* Position of the first entry whose cookie is greater than after. */
size_t dir_seek(const struct memfs_dir *d, uint64_t after);
/* The entry at or after *pos, advancing *pos past it; NULL at the end. */
struct memfs_dirent *dir_next(const struct memfs_dir *d, size_t *pos);

/* ------------------------------------------------------------------ */
/* xattr.c storage */

struct memfs_xattr {
	char *name;
	void *value;
	size_t size;
};

struct memfs_xattrs {
	struct memfs_xattr *v;
	size_t n;
};

void xattrs_free(struct memfs_xattrs *x);

/* ------------------------------------------------------------------ */
/* extent.c: the pages a file holds, as sorted runs [start, end) */

struct memfs_run {
	uint64_t start, end;
};

struct memfs_extents {
	struct memfs_run *v;
	uint32_t n, cap;
	uint64_t pages; /* in all runs */
};

/* Pages of [a, b) not in any run. */
uint64_t ext_missing(const struct memfs_extents *x, uint64_t a, uint64_t b);
/* Room for one run more, so that the next ext_add() or ext_remove()
 * cannot fail: 0 or ENOMEM. */
int ext_reserve(struct memfs_extents *x);
void ext_add(struct memfs_extents *x, uint64_t a, uint64_t b);
/* Takes [a, b) out; returns the pages that were in. */
uint64_t ext_remove(struct memfs_extents *x, uint64_t a, uint64_t b);
uint64_t ext_end(const struct memfs_extents *x); /* past the last page */
int ext_clone(struct memfs_extents *dst, const struct memfs_extents *src);
void ext_free(struct memfs_extents *x);

/* ------------------------------------------------------------------ */
/* data.c: where a regular file's bytes are */

/* A first write reaching past this gets a memfd of its own (if the
 * descriptor budget allows); smaller files share arenas. */
#define MEMFS_SMALL_MAX ((off_t)64 << 10)
/* An arena memfd holds this many files, each in a region of its own;
 * together they span what an off_t can address. */
#define MEMFS_ARENA_SLOTS 65535u
#define MEMFS_REGION	  ((off_t)1 << 47) /* 128 TiB: a file in an arena */
#define MEMFS_STRIPES	  8

struct memfs_data {
	int fd;	       /* a memfd, or -1: no storage (then size is 0) */
	int stripe;    /* the arena stripe of fd, or -1: fd is the file's own */
	uint32_t slot; /* in the stripe */
	off_t base;    /* where byte 0 of the file is in fd */
	off_t size;    /* st_size */
	struct memfs_extents ext; /* the pages held, all charged */
};

struct memfs_stripe {
	pthread_mutex_t lock;
	int *fds; /* arenas, MEMFS_ARENA_SLOTS slots each */
	size_t nfds;
	uint32_t next; /* slots ever handed out */
	uint32_t *free;
	size_t nfree, free_cap;
};

struct memfs_store {
	unsigned nstripes;
	long budget;	 /* memfds of their own files may have */
	atomic_long own; /* ... and have */
	struct memfs_stripe stripe[MEMFS_STRIPES];
};

/* ------------------------------------------------------------------ */
/* space.c: -o size and -o nr_inodes, charged */

#define MEMFS_INODES_MAX                                                       \
	((uint64_t)MEMFS_MAX_CHUNKS * MEMFS_CHUNK_SLOTS) /* the table's */

struct memfs_space {
	uint64_t max_bytes;  /* 0: no limit */
	uint64_t max_inodes; /* 0: no limit */
	/* data pages, xattrs and symlink targets */
	atomic_uint_fast64_t bytes;
	/* inodes, and each hard link past an inode's first name */
	atomic_uint_fast64_t inodes;
};

/* ------------------------------------------------------------------ */
/* Inodes */

struct memfs_inode {
	/* Fixed at creation. */
	fring_ino_t ino;
	uint64_t generation;
	mode_t type; /* S_IFMT bits, which never change */
	dev_t rdev;
	char *target; /* symlinks */

	pthread_mutex_t lock;
	/* Under lock. */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	nlink_t nlink; /* also needs fs->ns held for writing to change */
	struct timespec atime, mtime, ctime, btime;
	uint64_t nlookup; /* kernel references */
	uint64_t nopen;	  /* open file and directory handles */
	size_t nentries;  /* directories: entries, for st_size */
	bool linkable;	  /* O_TMPFILE without O_EXCL, not yet linked */
	bool ts_seen;	  /* times reported since they last changed */
	bool dead;	  /* being freed */
	/* Regular files: where the data is (data.c). Its fd stays while
	 * the file is open, so a value read under lock stays usable after
	 * unlock. */
	struct memfs_data data;
	struct memfs_xattrs xattrs;
	size_t xattr_bytes; /* names and values, charged */

	/* Directories, under fs->ns. */
	struct memfs_dir *dir;
	fring_ino_t parent;
};

/* ------------------------------------------------------------------ */
/* The filesystem */

#define MEMFS_CHUNK_BITS  12
#define MEMFS_CHUNK_SLOTS (1u << MEMFS_CHUNK_BITS)
#define MEMFS_MAX_CHUNKS  65536u

struct memfs_chunk {
	_Atomic(struct memfs_inode *) slot[MEMFS_CHUNK_SLOTS];
};

/* Inode numbers index a two-level table that never moves, so lookups by
 * number need no lock; freed numbers are reused, told apart by the
 * generation. */
struct memfs_table {
	pthread_mutex_t lock;
	_Atomic(struct memfs_chunk *) *chunks;
	uint64_t used; /* slots ever handed out */
	fring_ino_t *free;
	size_t nfree, free_cap;
	uint64_t next_generation;
};

enum memfs_rdplus { RDPLUS_AUTO, RDPLUS_YES, RDPLUS_NO };

struct memfs_opts {
	double entry_timeout;
	double attr_timeout;
	double negative_timeout;
	bool writeback;
	enum memfs_rdplus readdirplus;
	bool parallel_dirops;
	bool no_open; /* open and opendir answer ENOSYS */
	bool killpriv_v2;
	bool acl;
	bool supp_group;
	bool security_ctx;  /* -o security_ctx: the kernel's LSM label */
	unsigned max_pages; /* 0: the library's choice */
	unsigned time_gran; /* ns */
	unsigned lookup_delay_ms;
	mode_t root_mode;
	uid_t root_uid;
	gid_t root_gid;
	char *remote; /* -o remote=FIFO (remote.c), or NULL */
	/* -o size=BYTES or N% of RAM, -o nr_inodes=N (space.c) */
	bool size_set, nr_inodes_set;
	uint64_t size;
	unsigned size_pct;
	uint64_t nr_inodes;
};

struct memfs {
	struct memfs_opts opt;
	pthread_rwlock_t ns;
	struct memfs_table table;
	atomic_uint_fast64_t ninodes;
	/* lookups held by lookup_delay_ms now, and the most at once: a test
	 * reads the peak from the exit log line (sampling from outside
	 * misses overlaps on a loaded machine) */
	atomic_uint delayed_now, delayed_peak;
	bool killpriv_v2;	  /* the kernel tells us when to drop s[ug]id */
	bool writeback;		  /* the kernel caches writes */
	bool acl;		  /* POSIX ACLs negotiated */
	bool no_open;		  /* open / opendir answer ENOSYS */
	bool secctx;		  /* security contexts negotiated */
	bool protected_hardlinks; /* fs.protected_hardlinks */
	fring_session_t *se;	  /* for notifications (remote.c) */
	struct memfs_space space;
	struct memfs_store store;
};

#define MEMFS_NAME_MAX	       255
#define MEMFS_SYMLINK_MAX      4095 /* tmpfs: the target plus NUL fit a page */
#define MEMFS_XATTR_SIZE_MAX   65536
#define MEMFS_BOGO_DIRENT_SIZE 20 /* tmpfs's st_size per entry */
#define MEMFS_MAX_NLINK	       0xfffffffeu

/* inode.c */
int table_init(struct memfs *fs);
void table_fini(struct memfs *fs);
struct memfs_inode *inode_get(struct memfs *fs, fring_ino_t ino);
/* A new inode with nlink 1 (2 for directories) and no references. */
struct memfs_inode *inode_new(struct memfs *fs, mode_t mode, uid_t uid,
			      gid_t gid, dev_t rdev, const char *target,
			      int *err);
/* Takes one kernel reference; the caller guarantees n stays alive. */
void inode_ref_lookup(struct memfs_inode *n);
void inode_forget(struct memfs *fs, struct memfs_inode *n, uint64_t count);
void inode_ref_open(struct memfs_inode *n);
void inode_unref_open(struct memfs *fs, struct memfs_inode *n);
/* Drops one name of n (a directory loses all); fs->ns held for writing. */
void inode_unlink(struct memfs *fs, struct memfs_inode *n);
void inode_stat_locked(struct memfs_inode *n, struct stat *st);
void inode_stat(struct memfs_inode *n, struct stat *st);
/* The same for an answer to stat(2): the times count as seen. */
void inode_stat_seen(struct memfs_inode *n, struct stat *st);
/* How long the kernel may keep a name of dir (NULL: no name). */
double entry_timeout_in(struct memfs *fs, struct memfs_inode *dir);
void inode_entry(struct memfs *fs, struct memfs_inode *n, double timeout,
		 struct fring_entry *e);
/* Answers with n's entry; n already holds the reference the answer gives
 * to the kernel, and loses it again if the answer is not delivered. */
void reply_entry_ref(struct memfs *fs, fring_req_t *req, struct memfs_inode *n,
		     struct memfs_inode *dir);
bool inode_is_dead_dir(struct memfs_inode *n);
/* The time for a change that nobody has to tell apart from the last one
 * (see inode.c); also for atime. */
void memfs_now(struct timespec *ts);
/* Timestamps from now on are multiples of ns (1..1e9). */
void memfs_set_time_gran(long ns);
/* The time for a change of n; caller holds n->lock. */
void inode_now_locked(struct memfs_inode *n, struct timespec *ts);
/* Mark n modified (m+ctime) or changed (ctime); caller holds n->lock. */
void touch_mc(struct memfs_inode *n);
void touch_c(struct memfs_inode *n);
/* relatime: whether an access at now should update atime. */
bool atime_due_locked(const struct memfs_inode *n, const struct timespec *now);
/* Drops S_ISUID, and S_ISGID when group-exec makes it a real setgid. */
void kill_suidgid_locked(struct memfs_inode *n);

/* data.c; the _locked ones with n->lock held */
int data_setup(struct memfs *fs); /* at start: 0 or an errno */
void data_fini(struct memfs *fs);
void data_init(struct memfs_data *d);
void data_free(struct memfs *fs, struct memfs_inode *n);
/* An empty file that nothing has open gives its storage back. */
void data_drop_if_idle_locked(struct memfs *fs, struct memfs_inode *n);
uint64_t data_blocks_locked(const struct memfs_inode *n); /* st_blocks */
/* For a write of len bytes at off: storage, the charge and the new size;
 * where the bytes go in *fd at *foff. 0 or an errno, nothing changed. */
int data_write_locked(struct memfs *fs, struct memfs_inode *n, off_t off,
		      size_t len, int *fd, off_t *foff);
/* The same, and the bytes written from buf. */
int data_pwrite_locked(struct memfs *fs, struct memfs_inode *n, const void *buf,
		       size_t len, off_t off);
/* Where to read up to *len bytes at off (clamped to the size; 0 at the
 * end, with *fd -1). */
void data_read_locked(const struct memfs_inode *n, off_t off, size_t *len,
		      int *fd, off_t *foff);
int data_truncate_locked(struct memfs *fs, struct memfs_inode *n, off_t size);
/* fallocate(2) modes 0, KEEP_SIZE and PUNCH_HOLE|KEEP_SIZE, checked. */
int data_fallocate_locked(struct memfs *fs, struct memfs_inode *n, int mode,
			  off_t off, off_t len);
/* SEEK_DATA or SEEK_HOLE: 0 with *res, or an errno. */
int data_seek_locked(const struct memfs_inode *n, off_t off, int whence,
		     off_t *res);

/* space.c */
struct statvfs;
int space_parse_size(const char *value, struct memfs_opts *o);
int space_parse_inodes(const char *value, struct memfs_opts *o);
/* The limits from the options, RAM and the memory cgroup (at INIT). */
void space_setup(struct memfs *fs);
int space_take(struct memfs *fs, uint64_t bytes); /* 0 or ENOSPC */
void space_give(struct memfs *fs, uint64_t bytes);
int space_take_inode(struct memfs *fs); /* 0 or ENOSPC */
void space_give_inode(struct memfs *fs);
void space_statfs(struct memfs *fs, struct statvfs *st);

/* perm.c */
struct memfs_cred {
	fring_req_t *req;
	uid_t uid;
	gid_t gid;
	mode_t umask;
	int ngroups; /* -1: not read yet */
	gid_t *groups;
	gid_t inline_groups[32];
};

void cred_init(struct memfs_cred *c, fring_req_t *req);
void cred_fini(struct memfs_cred *c);
bool cred_in_group(struct memfs_cred *c, gid_t gid);
/* mask of R_OK, W_OK, X_OK against the given attributes: 0 or EACCES. */
int perm_attrs(struct memfs_cred *c, mode_t mode, uid_t uid, gid_t gid,
	       int mask);
int perm_inode(struct memfs_cred *c, struct memfs_inode *n, int mask);
bool perm_owner_locked(const struct memfs_cred *c, const struct memfs_inode *n);
/* The sticky-directory rule for removing or replacing victim: 0 or EPERM. */
int perm_sticky(struct memfs_cred *c, struct memfs_inode *dir,
		struct memfs_inode *victim);
/* Search then write+search on dir, as for creating or removing a name. */
int perm_dir_write(struct memfs_cred *c, struct memfs_inode *dir);
/* perm_attrs() on n's attributes, or its access ACL when it has one;
 * caller holds n->lock. */
int perm_locked(struct memfs_cred *c, struct memfs_inode *n, int mask);

/* xattr.c, caller holds n->lock */
struct memfs_xattr *xattr_find(struct memfs_xattrs *x, const char *name);
/* Names and values are charged against -o size (ENOSPC). */
int xattr_set_locked(struct memfs *fs, struct memfs_inode *n, const char *name,
		     const void *value, size_t size, int flags);
void xattr_del_locked(struct memfs *fs, struct memfs_inode *n,
		      struct memfs_xattr *x);

/* acl.c: POSIX ACLs in the kernel's xattr format (-o acl) */
#define MEMFS_ACL_ACCESS  "system.posix_acl_access"
#define MEMFS_ACL_DEFAULT "system.posix_acl_default"
bool acl_name(const char *name, bool *is_default);
int acl_valid(const void *value, size_t size); /* 0 or errno */
bool acl_equiv_mode(const void *value, size_t size, mode_t *mode);
void acl_chmod(void *value, size_t size, mode_t mode);
bool acl_create_masq(void *value, size_t size, mode_t *mode);
int acl_permission(struct memfs_cred *c, const void *value, size_t size,
		   uid_t owner, gid_t group, int want);
/* An ACL xattr set on n: the mode follows an access ACL, which is not
 * kept when the mode says it all. Caller holds n->lock. */
int acl_set_locked(struct memfs_cred *c, struct memfs_inode *n, bool is_default,
		   const void *value, size_t size, int flags);
/* A new inode n in dir: dir's default ACL, else the umask, applies to its
 * mode. Caller holds fs->ns; n is not yet visible. */
int acl_inherit(struct memfs *fs, struct memfs_inode *dir,
		struct memfs_inode *n, mode_t umask);

/* ops_entry.c: sets the security context the kernel sent with a creating
 * request (-o security_ctx) on n, not yet visible: 0 or an errno. */
int secctx_apply(struct memfs *fs, fring_req_t *req, struct memfs_inode *n);

/* Callbacks, grouped by file. */
/* ops_entry.c */
void memfs_lookup(fring_req_t *req, fring_ino_t parent, const char *name);
void memfs_forget(void *userdata, fring_ino_t ino, uint64_t nlookup);
void memfs_forget_multi(void *userdata, size_t count,
			const struct fring_forget *forgets);
void memfs_mknod(fring_req_t *req, fring_ino_t parent, const char *name,
		 mode_t mode, dev_t rdev);
void memfs_mkdir(fring_req_t *req, fring_ino_t parent, const char *name,
		 mode_t mode);
void memfs_symlink(fring_req_t *req, const char *target, fring_ino_t parent,
		   const char *name);
void memfs_create(fring_req_t *req, fring_ino_t parent, const char *name,
		  mode_t mode, struct fring_file *fi);
void memfs_tmpfile(fring_req_t *req, fring_ino_t parent, mode_t mode,
		   struct fring_file *fi);
void memfs_link(fring_req_t *req, fring_ino_t ino, fring_ino_t newparent,
		const char *newname);
void memfs_unlink(fring_req_t *req, fring_ino_t parent, const char *name);
void memfs_rmdir(fring_req_t *req, fring_ino_t parent, const char *name);
/* Shared by the creating callbacks and rename. */
int name_check(const char *name);
struct memfs_inode *ns_dir(struct memfs *fs, fring_ino_t ino, int *err);
/* Owner, group and set-group-ID handling of a new inode in dir. */
void new_owner(struct memfs_cred *c, struct memfs_inode *dir, mode_t *mode,
	       uid_t *uid, gid_t *gid);
/* Removes e from dir (unlink, rmdir); fs->ns held for writing. */
void entry_remove(struct memfs *fs, struct memfs_inode *dir,
		  struct memfs_dirent *e);

/* remote.c: -o remote=FIFO, changes behind the kernel's back, notified */
int remote_check(struct memfs *fs, const char *mountpoint);
int remote_start(struct memfs *fs, fring_session_t *se);

/* ops_rename.c */
void memfs_rename(fring_req_t *req, fring_ino_t parent, const char *name,
		  fring_ino_t newparent, const char *newname,
		  unsigned int flags);

/* ops_attr.c */
void memfs_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_setattr(fring_req_t *req, fring_ino_t ino, struct stat *attr,
		   int to_set, struct fring_file *fi);
void memfs_statx(fring_req_t *req, fring_ino_t ino, int flags,
		 unsigned int mask, struct fring_file *fi);
void memfs_access(fring_req_t *req, fring_ino_t ino, int mask);
void memfs_readlink(fring_req_t *req, fring_ino_t ino);
void memfs_statfs(fring_req_t *req, fring_ino_t ino);

/* ops_file.c */
/* Permission checks, O_TRUNC and s[ug]id killing shared by open and by
 * create on an existing name: 0 or a positive errno. */
int open_existing(struct memfs *fs, struct memfs_cred *c, struct memfs_inode *n,
		  struct fring_file *fi);
void memfs_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		struct fring_file *fi, const struct fring_buf *dst);
void memfs_write(fring_req_t *req, fring_ino_t ino, const struct fring_buf *src,
		 off_t off, struct fring_file *fi);
void memfs_flush(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_release(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_fsync(fring_req_t *req, fring_ino_t ino, int datasync,
		 struct fring_file *fi);
void memfs_fallocate(fring_req_t *req, fring_ino_t ino, int mode, off_t offset,
		     off_t length, struct fring_file *fi);
void memfs_lseek(fring_req_t *req, fring_ino_t ino, off_t off, int whence,
		 struct fring_file *fi);
void memfs_copy_file_range(fring_req_t *req, fring_ino_t ino_in, off_t off_in,
			   struct fring_file *fi_in, fring_ino_t ino_out,
			   off_t off_out, struct fring_file *fi_out, size_t len,
			   int flags);
void memfs_syncfs(fring_req_t *req, fring_ino_t ino);

/* ops_dir.c */
void memfs_opendir(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_readdir(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst);
void memfs_readdirplus(fring_req_t *req, fring_ino_t ino, size_t size,
		       off_t off, struct fring_file *fi,
		       const struct fring_buf *dst);
void memfs_releasedir(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_fsyncdir(fring_req_t *req, fring_ino_t ino, int datasync,
		    struct fring_file *fi);

/* xattr.c */
void memfs_setxattr(fring_req_t *req, fring_ino_t ino, const char *name,
		    const void *value, size_t size, int flags);
void memfs_getxattr(fring_req_t *req, fring_ino_t ino, const char *name,
		    size_t size);
void memfs_listxattr(fring_req_t *req, fring_ino_t ino, size_t size);
void memfs_removexattr(fring_req_t *req, fring_ino_t ino, const char *name);

static inline struct memfs *req_fs(fring_req_t *req)
{
	return fring_req_userdata(req);
}

#endif
