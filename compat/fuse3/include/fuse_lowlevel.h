/* SPDX-License-Identifier: MIT */
/*
 * libfring-fuse3: libfuse 3's low-level API, as libfuse 3.18 declares it,
 * served by libfring (no libfuse underneath).
 *
 * A program written for libfuse's <fuse_lowlevel.h> builds unchanged
 * against this header (pkg-config fring-fuse3) and links to
 * libfring-fuse3; one built against libfuse's own header runs on the
 * drop-in libfuse3.so.3. So every name, type, value, struct layout and the
 * FUSE_USE_VERSION conditionals are libfuse 3.18.3's; the wording is
 * libfring's. The semantics of each call are libfuse's (its documentation
 * applies); the notes here say what each is for and what the library
 * relies on. tests/layout checks the layouts against libfuse 3.18.3.
 *
 * Define FUSE_USE_VERSION (30 or later, e.g. FUSE_MAKE_VERSION(3, 18))
 * before including this file.
 */
#ifndef FUSE_LOWLEVEL_H_
#define FUSE_LOWLEVEL_H_

#ifndef FUSE_USE_VERSION
#error "define FUSE_USE_VERSION (e.g. to FUSE_MAKE_VERSION(3, 18)) before including <fuse_lowlevel.h>"
#endif

#include "fuse_common.h"

/* What the declarations below use, and what libfuse programs expect this
 * header to bring in (struct stat, statvfs, flock, iovec, utimbuf). */
#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <utime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The inode number of the filesystem's root directory. Spelled as the
 * kernel's uapi header spells it, so both may be included. */
#define FUSE_ROOT_ID 1

/* An inode number: the filesystem's choice, the kernel's node id. */
typedef uint64_t fuse_ino_t;

/* A request being served; valid from the op call until it is answered
 * with exactly one fuse_reply_*. */
typedef struct fuse_req *fuse_req_t;

struct statx;
struct fuse_session;

/* The answer to a lookup-like request (lookup, mknod, mkdir, symlink,
 * link, create, tmpfile; and each readdirplus entry). */
struct fuse_entry_param {
	/* the inode; 0 means a negative entry (cached "does not exist" for
	 * entry_timeout) from lookup */
	fuse_ino_t ino;
	/* makes (ino, generation) unique over the filesystem's life, for
	 * NFS export when inode numbers are reused */
	uint64_t generation;
	/* the attributes; st_ino is not used (ino is) */
	struct stat attr;
	/* seconds the kernel may cache attr */
	double attr_timeout;
	/* seconds the kernel may cache the name -> inode entry */
	double entry_timeout;
};

/* Who sent a request. */
struct fuse_ctx {
	uid_t uid;
	gid_t gid;
	/* thread id of the caller (0 for some kernel-made requests) */
	pid_t pid;
	/* the caller's umask (create-type requests, protocol 7.12+) */
	mode_t umask;
};

/* One entry of a batched forget. */
struct fuse_forget_data {
	fuse_ino_t ino;
	uint64_t nlookup;
};

/*
 * Replacement I/O for a session whose peer is not /dev/fuse (see
 * fuse_session_custom_io()). libfring cannot use this: its transports
 * talk to the kernel themselves, so the call fails (see below); the
 * struct is here so that programs using it still compile.
 */
struct fuse_custom_io {
	ssize_t (*writev)(int fd, struct iovec *iov, int count, void *userdata);
	ssize_t (*read)(int fd, void *buf, size_t buf_len, void *userdata);
	ssize_t (*splice_receive)(int fdin, off_t *offin, int fdout,
				  off_t *offout, size_t len, unsigned int flags,
				  void *userdata);
	ssize_t (*splice_send)(int fdin, off_t *offin, int fdout, off_t *offout,
			       size_t len, unsigned int flags, void *userdata);
	int (*clone_fd)(int master_fd);
};

/* How an entry notification treats the dentry. */
enum fuse_notify_entry_flags {
	/* drop it (and what is mounted below it) */
	FUSE_LL_INVALIDATE = 0,
	/* only mark it expired: revalidated on next use, submounts kept */
	FUSE_LL_EXPIRE_ONLY = (1 << 0),
};

/* Which attributes a setattr changes (its to_set argument). */
#define FUSE_SET_ATTR_MODE	(1 << 0)
#define FUSE_SET_ATTR_UID	(1 << 1)
#define FUSE_SET_ATTR_GID	(1 << 2)
#define FUSE_SET_ATTR_SIZE	(1 << 3)
#define FUSE_SET_ATTR_ATIME	(1 << 4)
#define FUSE_SET_ATTR_MTIME	(1 << 5)
#define FUSE_SET_ATTR_ATIME_NOW (1 << 7) /* atime = now, ignore attr */
#define FUSE_SET_ATTR_MTIME_NOW (1 << 8) /* mtime = now, ignore attr */
#define FUSE_SET_ATTR_FORCE	(1 << 9)
#define FUSE_SET_ATTR_CTIME	(1 << 10)
#define FUSE_SET_ATTR_KILL_SUID (1 << 11) /* clear setuid (KILLPRIV_V2) */
#define FUSE_SET_ATTR_KILL_SGID (1 << 12) /* clear setgid (KILLPRIV_V2) */
#define FUSE_SET_ATTR_FILE	(1 << 13)
#define FUSE_SET_ATTR_KILL_PRIV (1 << 14)
#define FUSE_SET_ATTR_OPEN	(1 << 15)
#define FUSE_SET_ATTR_TIMES_SET (1 << 16)
#define FUSE_SET_ATTR_TOUCH	(1 << 17)

/*
 * The filesystem's operations. Each request op must answer its request
 * exactly once, with one of the fuse_reply_* calls named on it, from any
 * thread and at any later time; an op left NULL gets ENOSYS (or the
 * kernel's default behaviour) without the filesystem seeing it. A program
 * passes sizeof(struct fuse_lowlevel_ops) to fuse_session_new(), so a
 * program built with fewer members still works. 368 bytes on x86-64.
 */
struct fuse_lowlevel_ops {
	/* After INIT is negotiated, before any request: adjust conn. */
	void (*init)(void *userdata, struct fuse_conn_info *conn);
	/* The session ends (unmounted or destroyed): last call. */
	void (*destroy)(void *userdata);
	/* Find `name` in `parent`: fuse_reply_entry or fuse_reply_err. Each
	 * successful reply adds one lookup reference to the inode. */
	void (*lookup)(fuse_req_t req, fuse_ino_t parent, const char *name);
	/* Drop nlookup references: fuse_reply_none. */
	void (*forget)(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
	/* fuse_reply_attr or _err; fi is NULL unless the kernel sent a
	 * handle. */
	void (*getattr)(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi);
	/* Change the to_set (FUSE_SET_ATTR_*) attributes taken from attr:
	 * fuse_reply_attr or _err. */
	void (*setattr)(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
			int to_set, struct fuse_file_info *fi);
	/* fuse_reply_readlink or _err. */
	void (*readlink)(fuse_req_t req, fuse_ino_t ino);
	/* fuse_reply_entry or _err (also for mkdir, symlink, link). */
	void (*mknod)(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, dev_t rdev);
	void (*mkdir)(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode);
	/* fuse_reply_err (0 on success; also for rmdir, rename). */
	void (*unlink)(fuse_req_t req, fuse_ino_t parent, const char *name);
	void (*rmdir)(fuse_req_t req, fuse_ino_t parent, const char *name);
	void (*symlink)(fuse_req_t req, const char *link, fuse_ino_t parent,
			const char *name);
	/* flags: RENAME_EXCHANGE / RENAME_NOREPLACE, or 0. */
	void (*rename)(fuse_req_t req, fuse_ino_t parent, const char *name,
		       fuse_ino_t newparent, const char *newname,
		       unsigned int flags);
	void (*link)(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		     const char *newname);
	/* Open a file, setting fi->fh and the fi flags: fuse_reply_open or
	 * _err. */
	void (*open)(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
	/* fuse_reply_buf, _iov, _data or _err (short only at end of file,
	 * unless direct_io). */
	void (*read)(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi);
	/* fuse_reply_write or _err. Not called when write_buf is set. */
	void (*write)(fuse_req_t req, fuse_ino_t ino, const char *buf,
		      size_t size, off_t off, struct fuse_file_info *fi);
	/* On each close(2) of a descriptor: fuse_reply_err. */
	void (*flush)(fuse_req_t req, fuse_ino_t ino,
		      struct fuse_file_info *fi);
	/* The last reference to the open file is gone: fuse_reply_err
	 * (the error is not reported to anyone). */
	void (*release)(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi);
	/* datasync nonzero: data only. fuse_reply_err. */
	void (*fsync)(fuse_req_t req, fuse_ino_t ino, int datasync,
		      struct fuse_file_info *fi);
	/* fuse_reply_open or _err. */
	void (*opendir)(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi);
	/* Entries from off, packed with fuse_add_direntry() into at most
	 * size bytes: fuse_reply_buf, _data or _err (empty = end). */
	void (*readdir)(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi);
	/* fuse_reply_err. */
	void (*releasedir)(fuse_req_t req, fuse_ino_t ino,
			   struct fuse_file_info *fi);
	void (*fsyncdir)(fuse_req_t req, fuse_ino_t ino, int datasync,
			 struct fuse_file_info *fi);
	/* fuse_reply_statfs or _err. */
	void (*statfs)(fuse_req_t req, fuse_ino_t ino);
	/* fuse_reply_err. */
	void (*setxattr)(fuse_req_t req, fuse_ino_t ino, const char *name,
			 const char *value, size_t size, int flags);
	/* size 0: fuse_reply_xattr with the value's size; else
	 * fuse_reply_buf/_data with the value, or ERANGE if it is larger. */
	void (*getxattr)(fuse_req_t req, fuse_ino_t ino, const char *name,
			 size_t size);
	/* The same, for the NUL-separated list of names. */
	void (*listxattr)(fuse_req_t req, fuse_ino_t ino, size_t size);
	/* fuse_reply_err. */
	void (*removexattr)(fuse_req_t req, fuse_ino_t ino, const char *name);
	/* access(2) check of mask: fuse_reply_err (not called with
	 * default_permissions). */
	void (*access)(fuse_req_t req, fuse_ino_t ino, int mask);
	/* Create and open: fuse_reply_create or _err. */
	void (*create)(fuse_req_t req, fuse_ino_t parent, const char *name,
		       mode_t mode, struct fuse_file_info *fi);
	/* fuse_reply_lock or _err. */
	void (*getlk)(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		      struct flock *lock);
	/* sleep nonzero: wait for the lock. fuse_reply_err. */
	void (*setlk)(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		      struct flock *lock, int sleep);
	/* fuse_reply_bmap or _err (block devices, with -o blkdev). */
	void (*bmap)(fuse_req_t req, fuse_ino_t ino, size_t blocksize,
		     uint64_t idx);
	/* fuse_reply_ioctl, _ioctl_retry, _ioctl_iov or _err. The command
	 * became unsigned in API 3.5 (35). */
#if FUSE_USE_VERSION < 35
	void (*ioctl)(fuse_req_t req, fuse_ino_t ino, int cmd, void *arg,
		      struct fuse_file_info *fi, unsigned flags,
		      const void *in_buf, size_t in_bufsz, size_t out_bufsz);
#else
	void (*ioctl)(fuse_req_t req, fuse_ino_t ino, unsigned int cmd,
		      void *arg, struct fuse_file_info *fi, unsigned flags,
		      const void *in_buf, size_t in_bufsz, size_t out_bufsz);
#endif
	/* fuse_reply_poll or _err; keep ph (non-NULL) to wake the poller
	 * later with fuse_lowlevel_notify_poll(), then free it. */
	void (*poll)(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		     struct fuse_pollhandle *ph);
	/* write with the data as buffers (memory or a descriptor): the
	 * zero-copy path. fuse_reply_write or _err. */
	void (*write_buf)(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_bufvec *bufv, off_t off,
			  struct fuse_file_info *fi);
	/* The data fuse_lowlevel_notify_retrieve() asked for: fuse_reply_none.
	 */
	void (*retrieve_reply)(fuse_req_t req, void *cookie, fuse_ino_t ino,
			       off_t offset, struct fuse_bufvec *bufv);
	/* Many forgets at once: fuse_reply_none. */
	void (*forget_multi)(fuse_req_t req, size_t count,
			     struct fuse_forget_data *forgets);
	/* flock(2) with op LOCK_SH/EX/UN (| LOCK_NB): fuse_reply_err. */
	void (*flock)(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		      int op);
	/* fallocate(2): fuse_reply_err. */
	void (*fallocate)(fuse_req_t req, fuse_ino_t ino, int mode,
			  off_t offset, off_t length,
			  struct fuse_file_info *fi);
	/* readdir with attributes, packed with fuse_add_direntry_plus():
	 * each entry but "." and ".." counts as a lookup. */
	void (*readdirplus)(fuse_req_t req, fuse_ino_t ino, size_t size,
			    off_t off, struct fuse_file_info *fi);
	/* copy_file_range(2): fuse_reply_write or _err. */
	void (*copy_file_range)(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
				struct fuse_file_info *fi_in,
				fuse_ino_t ino_out, off_t off_out,
				struct fuse_file_info *fi_out, size_t len,
				int flags);
	/* SEEK_DATA / SEEK_HOLE: fuse_reply_lseek or _err. */
	void (*lseek)(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		      struct fuse_file_info *fi);
	/* O_TMPFILE: an unnamed file in parent, fuse_reply_create or _err. */
	void (*tmpfile)(fuse_req_t req, fuse_ino_t parent, mode_t mode,
			struct fuse_file_info *fi);
	/* statx(2) with its flags and mask: fuse_reply_statx or _err. */
	void (*statx)(fuse_req_t req, fuse_ino_t ino, int flags, int mask,
		      struct fuse_file_info *fi);
};

/*
 * Replies. Each answers (and ends) its request; they return 0 or -errno
 * (failure to send, which the filesystem can usually ignore: the request
 * is gone either way).
 */

/* err is a positive errno, or 0 for success with no data. */
int fuse_reply_err(fuse_req_t req, int err);
/* No answer at all: forget and forget_multi (and retrieve_reply). */
void fuse_reply_none(fuse_req_t req);
int fuse_reply_entry(fuse_req_t req, const struct fuse_entry_param *e);
/* create and tmpfile: the new entry and its open handle. */
int fuse_reply_create(fuse_req_t req, const struct fuse_entry_param *e,
		      const struct fuse_file_info *fi);
int fuse_reply_attr(fuse_req_t req, const struct stat *attr,
		    double attr_timeout);
int fuse_reply_readlink(fuse_req_t req, const char *link);

/*
 * Passthrough (FUSE_CAP_PASSTHROUGH), in open, opendir or create: register
 * fd as a backing file with the kernel and get its backing id (> 0; 0 on
 * failure) for fuse_file_info.backing_id in the open/create reply; close
 * the id when no open file uses it any more (0 or -errno).
 */
int fuse_passthrough_open(fuse_req_t req, int fd);
int fuse_passthrough_close(fuse_req_t req, int backing_id);

int fuse_reply_open(fuse_req_t req, const struct fuse_file_info *fi);
/* The bytes written (write, write_buf, copy_file_range). */
int fuse_reply_write(fuse_req_t req, size_t count);
/* Data from memory: read, readdir, getxattr, listxattr. */
int fuse_reply_buf(fuse_req_t req, const char *buf, size_t size);
/* Data from buffers, memory or descriptors (a descriptor's bytes may go
 * to the kernel without passing through the program). */
int fuse_reply_data(fuse_req_t req, struct fuse_bufvec *bufv,
		    enum fuse_buf_copy_flags flags);
/* Data gathered from an iovec. */
int fuse_reply_iov(fuse_req_t req, const struct iovec *iov, int count);
int fuse_reply_statfs(fuse_req_t req, const struct statvfs *stbuf);
/* The size of an xattr value or name list (getxattr/listxattr, size 0). */
int fuse_reply_xattr(fuse_req_t req, size_t count);
int fuse_reply_lock(fuse_req_t req, const struct flock *lock);
int fuse_reply_bmap(fuse_req_t req, uint64_t idx);

/*
 * Pack one directory entry for a readdir reply into buf (bufsize bytes
 * left). Only st_ino and the type bits of st_mode are used; off is the
 * offset of the entry after this one. Returns the space the entry needs:
 * if that is more than bufsize nothing was written (the buffer is full).
 * With buf NULL, only the size is computed.
 */
size_t fuse_add_direntry(fuse_req_t req, char *buf, size_t bufsize,
			 const char *name, const struct stat *stbuf, off_t off);

/* The same for readdirplus, with a whole entry (and its attributes). */
size_t fuse_add_direntry_plus(fuse_req_t req, char *buf, size_t bufsize,
			      const char *name,
			      const struct fuse_entry_param *e, off_t off);

/* Unrestricted ioctl: ask the kernel to retry with these input and
 * output areas of the caller's memory. */
int fuse_reply_ioctl_retry(fuse_req_t req, const struct iovec *in_iov,
			   size_t in_count, const struct iovec *out_iov,
			   size_t out_count);
/* result is the ioctl's return value; buf is the output data. */
int fuse_reply_ioctl(fuse_req_t req, int result, const void *buf, size_t size);
int fuse_reply_ioctl_iov(fuse_req_t req, int result, const struct iovec *iov,
			 int count);
/* The poll events that are ready now. */
int fuse_reply_poll(fuse_req_t req, unsigned revents);
/* The offset SEEK_DATA / SEEK_HOLE found. */
int fuse_reply_lseek(fuse_req_t req, off_t off);
/* statx: the attributes and for how long they may be cached. */
int fuse_reply_statx(fuse_req_t req, int flags, struct statx *statx,
		     double attr_timeout);

/*
 * Notifications: messages the filesystem sends the kernel on its own.
 * They return 0 or -errno (-ENOSYS where the kernel lacks them, -ENOENT
 * for an inode or entry the kernel does not have cached).
 */

/* Wake the poller waiting on ph (from the poll op). */
int fuse_lowlevel_notify_poll(struct fuse_pollhandle *ph);
/* Drop cached attributes and the data in [off, off + len) of ino
 * (len 0: to the end; off negative: the attributes only). */
int fuse_lowlevel_notify_inval_inode(struct fuse_session *se, fuse_ino_t ino,
				     off_t off, off_t len);
/* Make every cached dentry of the filesystem stale at once (epoch). */
int fuse_lowlevel_notify_increment_epoch(struct fuse_session *se);
/* Drop the dentry name (namelen bytes, no NUL needed) in parent. */
int fuse_lowlevel_notify_inval_entry(struct fuse_session *se, fuse_ino_t parent,
				     const char *name, size_t namelen);
/* Mark that dentry expired instead (needs FUSE_CAP_EXPIRE_ONLY). */
int fuse_lowlevel_notify_expire_entry(struct fuse_session *se,
				      fuse_ino_t parent, const char *name,
				      size_t namelen);
/* An entry was deleted behind the kernel's back: drop the dentry and
 * tell watchers (child is the inode it named). */
int fuse_lowlevel_notify_delete(struct fuse_session *se, fuse_ino_t parent,
				fuse_ino_t child, const char *name,
				size_t namelen);
/* Put data into ino's page cache at offset (and grow the size). */
int fuse_lowlevel_notify_store(struct fuse_session *se, fuse_ino_t ino,
			       off_t offset, struct fuse_bufvec *bufv,
			       enum fuse_buf_copy_flags flags);
/* Ask for size bytes of ino's cache from offset; they come to the
 * retrieve_reply op with cookie. Note the order: size, then offset. */
int fuse_lowlevel_notify_retrieve(struct fuse_session *se, fuse_ino_t ino,
				  size_t size, off_t offset, void *cookie);

/* The request's side: */

/* The userdata given to fuse_session_new(). */
void *fuse_req_userdata(fuse_req_t req);
/* The caller's credentials; valid until the reply. */
const struct fuse_ctx *fuse_req_ctx(fuse_req_t req);
/* The caller's supplementary groups into list[size]; returns how many
 * there are (may exceed size: call again with more room) or -errno. */
int fuse_req_getgroups(fuse_req_t req, int size, gid_t list[]);

/* Called when the kernel interrupts a request. */
typedef void (*fuse_interrupt_func_t)(fuse_req_t req, void *data);
/* Register func (NULL: none) for req; if req was already interrupted
 * it is called at once. */
void fuse_req_interrupt_func(fuse_req_t req, fuse_interrupt_func_t func,
			     void *data);
/* 1 if req has been interrupted. */
int fuse_req_interrupted(fuse_req_t req);

/* Print the library's version, its help, and fuse_parse_cmdline()'s help
 * (for -V, -h). */
void fuse_lowlevel_version(void);
void fuse_lowlevel_help(void);
void fuse_cmdline_help(void);

/* What fuse_parse_cmdline() found. 48 bytes on x86-64. */
struct fuse_cmdline_opts {
	/* -s */
	int singlethread;
	/* -f */
	int foreground;
	/* -d / -o debug */
	int debug;
	/* -o fsname= or -o subtype= was given */
	int nodefault_subtype;
	/* the one non-option argument (malloc'ed; the caller frees it) */
	char *mountpoint;
	/* -V / --version */
	int show_version;
	/* -h / --help */
	int show_help;
	/* -o clone_fd */
	int clone_fd;
	/* -o max_idle_threads= */
	unsigned int max_idle_threads;
	/* -o max_threads= */
	unsigned int max_threads;
};

/*
 * Parse the options every low-level filesystem takes (above), removing
 * them from args; the one argument that is not an option is the
 * mountpoint. 0, or -1 on failure.
 *
 * The call a program makes depends on how its header was built: libfuse's
 * header, in a build with versioned symbols, declares fuse_parse_cmdline
 * itself (the linker binds fuse_parse_cmdline@@FUSE_3.12); without, it
 * names the variant for the program's API. This header never defines
 * LIBFUSE_BUILT_WITH_VERSIONED_SYMBOLS, so programs built against it call
 * fuse_parse_cmdline_30 (API before 3.12) or fuse_parse_cmdline_312: plain
 * names that both libfring-fuse3 and libfuse export.
 */
#if defined(LIBFUSE_BUILT_WITH_VERSIONED_SYMBOLS)
int fuse_parse_cmdline(struct fuse_args *args, struct fuse_cmdline_opts *opts);
#elif FUSE_USE_VERSION < FUSE_MAKE_VERSION(3, 12)
int fuse_parse_cmdline_30(struct fuse_args *args,
			  struct fuse_cmdline_opts *opts);
#define fuse_parse_cmdline(args, opts) fuse_parse_cmdline_30(args, opts)
#else
int fuse_parse_cmdline_312(struct fuse_args *args,
			   struct fuse_cmdline_opts *opts);
#define fuse_parse_cmdline(args, opts) fuse_parse_cmdline_312(args, opts)
#endif

/*
 * Create a session: parse the session's -o options in args (argv[0] is
 * the program name and is skipped), and keep op (op_size bytes of it: a
 * program's own sizeof) and userdata. NULL on failure (an unknown option
 * included).
 *
 * Since libfuse 3.17, fuse_session_new() is a macro to an inline that
 * passes the version the program was compiled against to the exported
 * fuse_session_new_versioned() (FUSE_3.17). Programs built against this
 * header do the same; the plain fuse_session_new symbol (FUSE_3.0) is only
 * called by programs built against older libfuse headers.
 */
struct fuse_session *
fuse_session_new_versioned(struct fuse_args *args,
			   const struct fuse_lowlevel_ops *op, size_t op_size,
			   struct libfuse_version *version, void *userdata);

static inline struct fuse_session *
fuse_session_new_fn(struct fuse_args *args, const struct fuse_lowlevel_ops *op,
		    size_t op_size, void *userdata)
{
	/* member by member rather than designated, for C++ before C++20 */
	struct libfuse_version version;

	version.major = FUSE_MAJOR_VERSION;
	version.minor = FUSE_MINOR_VERSION;
	version.hotfix = FUSE_HOTFIX_VERSION;
	version.padding = 0;
	return fuse_session_new_versioned(args, op, op_size, &version,
					  userdata);
}
#define fuse_session_new(args, op, op_size, userdata)                          \
	fuse_session_new_fn(args, op, op_size, userdata)

/*
 * Serve the session over caller-supplied I/O on fd instead of a mount.
 * libfring's transports (/dev/fuse, io_uring) talk to the kernel
 * themselves and cannot take this: libfring-fuse3 fails it at run time
 * with a message naming the call (as libfuse 3.18.3 itself does unless
 * built with custom io). The API-3.17 form takes the struct's size; the
 * older one takes no size and means the struct without clone_fd. Both
 * call the exported fuse_session_custom_io_317() (FUSE_3.17).
 */
int fuse_session_custom_io_317(struct fuse_session *se,
			       const struct fuse_custom_io *io, size_t op_size,
			       int fd);

#if FUSE_MAKE_VERSION(3, 17) <= FUSE_USE_VERSION
static inline int fuse_session_custom_io(struct fuse_session *se,
					 const struct fuse_custom_io *io,
					 size_t op_size, int fd)
{
	return fuse_session_custom_io_317(se, io, op_size, fd);
}
#else
static inline int fuse_session_custom_io(struct fuse_session *se,
					 const struct fuse_custom_io *io,
					 int fd)
{
	return fuse_session_custom_io_317(
		se, io, offsetof(struct fuse_custom_io, clone_fd), fd);
}
#endif

/* Mount the filesystem at mountpoint: 0, or -1 on failure. */
int fuse_session_mount(struct fuse_session *se, const char *mountpoint);

/*
 * Serve requests until the filesystem is unmounted (returns 0), the
 * session is exited (0, or the signal number when one of
 * fuse_set_signal_handlers()'s signals did it), or an error (-errno).
 * libfring decides its own threading; the _mt forms differ only in the
 * configuration they accept.
 */
int fuse_session_loop(struct fuse_session *se);

/*
 * The multi-threaded loop. Its argument changed twice: an int clone_fd
 * (API before 3.2), the public struct fuse_loop_config (3.2 to 3.11), the
 * opaque one (3.12). Each API gets its own exported name, as with
 * fuse_parse_cmdline above.
 */
#if FUSE_USE_VERSION < 32
int fuse_session_loop_mt_31(struct fuse_session *se, int clone_fd);
#define fuse_session_loop_mt(se, clone_fd) fuse_session_loop_mt_31(se, clone_fd)
#elif FUSE_USE_VERSION < FUSE_MAKE_VERSION(3, 12)
int fuse_session_loop_mt_32(struct fuse_session *se,
			    struct fuse_loop_config *config);
#define fuse_session_loop_mt(se, config) fuse_session_loop_mt_32(se, config)
#elif defined(LIBFUSE_BUILT_WITH_VERSIONED_SYMBOLS)
int fuse_session_loop_mt(struct fuse_session *se,
			 struct fuse_loop_config *config);
#else
int fuse_session_loop_mt_312(struct fuse_session *se,
			     struct fuse_loop_config *config);
#define fuse_session_loop_mt(se, config) fuse_session_loop_mt_312(se, config)
#endif

/* Make the loop return at its next chance, from any thread or a signal
 * handler. */
void fuse_session_exit(struct fuse_session *se);
/* Clear the exited flag, so the loop may be entered again. */
void fuse_session_reset(struct fuse_session *se);
/* 1 once exited. */
int fuse_session_exited(struct fuse_session *se);
/* Unmount if still mounted (after an exit); harmless otherwise. */
void fuse_session_unmount(struct fuse_session *se);
/* Free the session (calls destroy if init ran). */
void fuse_session_destroy(struct fuse_session *se);

/*
 * A program's own event loop: the session's descriptor (readable when a
 * request waits), and receive/process of one raw request. libfring runs
 * its own loop, and its io_uring transports read no requests from a
 * descriptor, so what these can do depends on the transport in use; the
 * library documents which.
 */
int fuse_session_fd(struct fuse_session *se);
void fuse_session_process_buf(struct fuse_session *se,
			      const struct fuse_buf *buf);
/* The size of the request read into buf, or -errno. */
int fuse_session_receive_buf(struct fuse_session *se, struct fuse_buf *buf);

/* Whether req came over FUSE-over-io_uring. */
bool fuse_req_is_uring(fuse_req_t req);

/*
 * The request's payload buffer, for a reply written in place (io_uring
 * requests only): the buffer, its size, and a memory registration handle
 * (unused, NULL). 0 or -errno.
 */
int fuse_req_get_payload(fuse_req_t req, char **payload, size_t *payload_sz,
			 void **mr);

#ifdef __cplusplus
}
#endif

#endif /* FUSE_LOWLEVEL_H_ */
