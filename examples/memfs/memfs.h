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
#define MEMFS_COOKIE_DOT 1
#define MEMFS_COOKIE_DOTDOT 2
#define MEMFS_COOKIE_FIRST 3

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
	/* Regular files: the memfd, created on the first need and then
	 * fixed, so a value read under lock stays usable after unlock. */
	int fd;
	struct memfs_xattrs xattrs;

	/* Directories, under fs->ns. */
	struct memfs_dir *dir;
	fring_ino_t parent;
};

/* ------------------------------------------------------------------ */
/* The filesystem */

#define MEMFS_CHUNK_BITS 12
#define MEMFS_CHUNK_SLOTS (1u << MEMFS_CHUNK_BITS)
#define MEMFS_MAX_CHUNKS 65536u

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
	unsigned max_pages; /* 0: the library's choice */
	unsigned time_gran; /* ns */
	unsigned lookup_delay_ms;
	mode_t root_mode;
	uid_t root_uid;
	gid_t root_gid;
	char *remote; /* -o remote=FIFO (remote.c), or NULL */
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
	bool protected_hardlinks; /* fs.protected_hardlinks */
	fring_session_t *se;	  /* for notifications (remote.c) */
};

#define MEMFS_NAME_MAX 255
#define MEMFS_SYMLINK_MAX 4095 /* tmpfs: the target plus NUL fit a page */
#define MEMFS_XATTR_SIZE_MAX 65536
#define MEMFS_BOGO_DIRENT_SIZE 20 /* tmpfs's st_size per entry */
#define MEMFS_MAX_NLINK 0xfffffffeu

/* inode.c */
int table_init(struct memfs *fs);
void table_fini(struct memfs *fs);
struct memfs_inode *inode_get(struct memfs *fs, fring_ino_t ino);
/* A new inode with nlink 1 (2 for directories) and no references. */
struct memfs_inode *inode_new(struct memfs *fs, mode_t mode, uid_t uid,
			      gid_t gid, dev_t rdev, const char *target,
			      int *err);
/* The memfd of a regular file, created if missing; -errno on failure.
 * Caller holds n->lock. */
int inode_fd_locked(struct memfs_inode *n);
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
void reply_entry_ref(struct memfs *fs, fring_req_t *req,
		     struct memfs_inode *n, struct memfs_inode *dir);
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
bool perm_owner_locked(const struct memfs_cred *c,
		       const struct memfs_inode *n);
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
int xattr_set_locked(struct memfs_inode *n, const char *name, const void *value,
		     size_t size, int flags);
void xattr_del_locked(struct memfs_inode *n, struct memfs_xattr *x);

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
int acl_inherit(struct memfs_inode *dir, struct memfs_inode *n, mode_t umask);

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
/* Removes e from dir (unlink, rmdir); fs->ns held for writing. */
void entry_remove(struct memfs *fs, struct memfs_inode *dir,
		  struct memfs_dirent *e);

/* remote.c: -o remote=FIFO, changes behind the kernel's back, notified */
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
int open_existing(struct memfs *fs, struct memfs_cred *c,
		  struct memfs_inode *n, struct fring_file *fi);
void memfs_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		struct fring_file *fi, const struct fring_buf *dst);
void memfs_write(fring_req_t *req, fring_ino_t ino,
		 const struct fring_buf *src, off_t off,
		 struct fring_file *fi);
void memfs_flush(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_release(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_fsync(fring_req_t *req, fring_ino_t ino, int datasync,
		 struct fring_file *fi);
void memfs_fallocate(fring_req_t *req, fring_ino_t ino, int mode,
		     off_t offset, off_t length, struct fring_file *fi);
void memfs_lseek(fring_req_t *req, fring_ino_t ino, off_t off, int whence,
		 struct fring_file *fi);
void memfs_copy_file_range(fring_req_t *req, fring_ino_t ino_in,
			   off_t off_in, struct fring_file *fi_in,
			   fring_ino_t ino_out, off_t off_out,
			   struct fring_file *fi_out, size_t len, int flags);
void memfs_syncfs(fring_req_t *req, fring_ino_t ino);

/* ops_dir.c */
void memfs_opendir(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
void memfs_readdir(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst);
void memfs_readdirplus(fring_req_t *req, fring_ino_t ino, size_t size,
		       off_t off, struct fring_file *fi,
		       const struct fring_buf *dst);
void memfs_releasedir(fring_req_t *req, fring_ino_t ino,
		      struct fring_file *fi);
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
