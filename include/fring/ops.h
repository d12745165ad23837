/* SPDX-License-Identifier: MIT */
/**
 * @file ops.h
 * @brief The callback table a filesystem fills (struct fring_ops).
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_OPS_H
#define FRING_API_OPS_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/**
 * @name Callback table
 *
 * Every member is optional. A missing member answers ENOSYS, except:
 * - forget, forget_multi: each stands in for the other; with neither the
 *   forgets are dropped (there is no answer to give);
 * - open, opendir: success with fh 0; but ENOSYS when the init callback
 *   left FRING_CAP_NO_OPEN_SUPPORT (FRING_CAP_NO_OPENDIR_SUPPORT) in
 *   conn->want, and the kernel then opens such files itself without
 *   asking again;
 * - release, releasedir: success;
 * - statfs: a generic answer (512-byte blocks, none used, NAME_MAX);
 * - access: success (rely on default_permissions);
 * - tmpfile, fallocate: EOPNOTSUPP;
 * - ioctl: ENOTTY;
 * - init, destroy, interrupt: nothing is called.
 *
 * Some missing members also shape INIT, so that the kernel never sends
 * their requests: without getlk and setlk the library does not ask for
 * FRING_CAP_POSIX_LOCKS, without flock not for FRING_CAP_FLOCK_LOCKS (the
 * kernel then keeps those locks locally), without readdirplus not for
 * FRING_CAP_READDIRPLUS, without ioctl not for FRING_CAP_IOCTL_DIR. If the
 * init callback asks for them anyway, the missing member answers ENOSYS.
 * For flush, fsync and fsyncdir the kernel takes ENOSYS as success and
 * sends that operation no more on the connection, which spares a round
 * trip on every close(2) and fsync(2).
 *
 * Every callback except init, destroy, forget, forget_multi and interrupt
 * receives a request that must be answered exactly once. Strings and
 * buffers passed in stay valid until the request is answered.
 *
 * Thread: each runs on the thread that serves the queue the request came
 * in on, so callbacks run concurrently on different queue threads.
 * - dev: every queue is a thread of its own reading /dev/fuse
 *   (-o queues=N); a callback that blocks holds up its thread only, the
 *   others go on reading.
 * - The ring transports: the kernel has one queue per possible CPU and
 *   puts a request on the queue of the CPU its caller runs on. The queues
 *   are dealt to the ring threads (by default one per online CPU, -o
 *   threads=N), online CPUs' queues first: each thread serves one online
 *   CPU's queue and a share of the offline CPUs' ones, pinned to their
 *   CPUs. A callback that blocks
 *   holds up every queue of its thread: until it returns, no other request
 *   of those queues is served (callers on all those CPUs wait), and
 *   answers given on other threads to requests of those queues are not
 *   committed either (the queue's thread commits them).
 *
 * A callback that must wait long (network, another process) calls
 * fring_req_async() and answers from another thread. Errors go back to
 * the caller as a positive errno in fring_reply_err().
 */
/**@{*/
/** The callbacks of a filesystem; see the group description above. */
struct fring_ops {
	/** Before INIT is answered; adjust conn->want and limits. Main thread
	 * (the one in fring_session_run()). No request, no answer. */
	void (*init)(void *userdata, struct fring_conn *conn);
	/** Once, after the last request, before fring_session_run returns.
	 * Main thread. No answer. */
	void (*destroy)(void *userdata);

	/** Look up name in directory parent. Answer fring_reply_entry() (each
	 * success counts one lookup reference, dropped by forget), or
	 * fring_reply_err(ENOENT). */
	void (*lookup)(fring_req_t *req, fring_ino_t parent, const char *name);
	/** Drop nlookup references to ino. No reply. */
	void (*forget)(void *userdata, fring_ino_t ino, uint64_t nlookup);
	/** A batch of forgets; if NULL, forget is called for each. No reply. */
	void (*forget_multi)(void *userdata, size_t count,
			     const struct fring_forget *forgets);
	/** Attributes of ino. Answer fring_reply_attr(). fi is NULL unless
	 * the kernel named an open file (fstat). */
	void (*getattr)(fring_req_t *req, fring_ino_t ino,
			struct fring_file *fi);
	/** Change attributes (chmod, chown, truncate, utimens). attr holds the
	 * new values of the fields named in to_set (FRING_SET_*); fi is NULL
	 * unless done through an open file. Answer fring_reply_attr() with
	 * the resulting attributes. */
	void (*setattr)(fring_req_t *req, fring_ino_t ino, struct stat *attr,
			int to_set, struct fring_file *fi);
	/** Target of a symlink. Answer fring_reply_readlink(). */
	void (*readlink)(fring_req_t *req, fring_ino_t ino);
	/** Create a file node (regular, fifo, socket, device). The caller's
	 * umask is in fring_req_ctx(). Answer fring_reply_entry(). */
	void (*mknod)(fring_req_t *req, fring_ino_t parent, const char *name,
		      mode_t mode, dev_t rdev);
	/** Create a directory. Answer fring_reply_entry(). */
	void (*mkdir)(fring_req_t *req, fring_ino_t parent, const char *name,
		      mode_t mode);
	/** Remove a name (the inode lives on while the kernel holds lookup
	 * references or it is open). Answer fring_reply_err(0 or errno). */
	void (*unlink)(fring_req_t *req, fring_ino_t parent, const char *name);
	/** Remove an empty directory. Answer fring_reply_err(0 or errno). */
	void (*rmdir)(fring_req_t *req, fring_ino_t parent, const char *name);
	/** Create a symlink name in parent pointing to target. Answer
	 * fring_reply_entry(). */
	void (*symlink)(fring_req_t *req, const char *target,
			fring_ino_t parent, const char *name);
	/** Rename parent/name to newparent/newname. flags: 0,
	 * RENAME_NOREPLACE, RENAME_EXCHANGE or RENAME_WHITEOUT. Answer
	 * fring_reply_err(0 or errno). */
	void (*rename)(fring_req_t *req, fring_ino_t parent, const char *name,
		       fring_ino_t newparent, const char *newname,
		       unsigned int flags);
	/** Hard link ino as newparent/newname. Answer fring_reply_entry(). */
	void (*link)(fring_req_t *req, fring_ino_t ino, fring_ino_t newparent,
		     const char *newname);
	/** Open ino with fi->flags. Set fi->fh (and direct_io, keep_cache,
	 * ...) and answer fring_reply_open(). Default: success, fh 0 (or
	 * ENOSYS with FRING_CAP_NO_OPEN_SUPPORT wanted, see above). */
	void (*open)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
	/**
	 * Read up to size bytes at off into dst (dst->size >= size). Answer
	 * with fring_reply_data() after filling dst, fring_reply_buf() with
	 * other memory, or fring_read_from_fd() to let the library do the I/O.
	 * dst is FRING_BUF_MEM (filling dst->mem works) unless the open is
	 * zero-copied, which happens only where asked: fi->zero_copy at open,
	 * or FRING_FS_ZERO_COPY declared in init (struct fring_conn fs_flags).
	 * On a zero-copy open dst may be FRING_BUF_FIXED (no mem):
	 * fring_reply_data() then needs the bytes moved into it with
	 * READ_FIXED first (the helpers do); fring_reply_buf() and
	 * fring_read_from_fd() work unchanged.
	 */
	void (*read)(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		     struct fring_file *fi, const struct fring_buf *dst);
	/**
	 * Write src->size bytes at off. Answer fring_reply_write(). src is
	 * FRING_BUF_MEM (the bytes at src->mem) on every transport, except:
	 * - FRING_BUF_FIXED (no mem) on a zero-copy open, which happens only
	 *   where asked: fi->zero_copy at open, or FRING_FS_ZERO_COPY declared
	 *   in init (struct fring_conn fs_flags; then fi->no_zero_copy at open
	 *   keeps memory for one file). Use fring_write_to_fd(), or
	 *   WRITE_FIXED on the queue's ring.
	 * - FRING_BUF_PIPE (no mem) on dev with -o splice_read: use
	 *   fring_write_to_fd(); or clear FRING_CAP_SPLICE_READ in init to
	 *   always get memory.
	 */
	void (*write)(fring_req_t *req, fring_ino_t ino,
		      const struct fring_buf *src, off_t off,
		      struct fring_file *fi);
	/** close(2) of one descriptor of an open file (may come several
	 * times). Answer fring_reply_err(). Default: ENOSYS, which the
	 * kernel takes as success, and it sends no more FLUSH. */
	void (*flush)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi);
	/** The last reference to an open file is gone; fi->fh for the last
	 * time. Answer fring_reply_err() (the error is not seen by anyone).
	 * Default: success. */
	void (*release)(fring_req_t *req, fring_ino_t ino,
			struct fring_file *fi);
	/** fsync(2) (datasync non-zero: fdatasync). Answer fring_reply_err().
	 * Default: ENOSYS, which the kernel takes as success, and it sends
	 * no more FSYNC. */
	void (*fsync)(fring_req_t *req, fring_ino_t ino, int datasync,
		      struct fring_file *fi);
	/** Open a directory. Set fi->fh and answer fring_reply_open().
	 * Default: success, fh 0 (or ENOSYS with
	 * FRING_CAP_NO_OPENDIR_SUPPORT wanted, see above). */
	void (*opendir)(fring_req_t *req, fring_ino_t ino,
			struct fring_file *fi);
	/**
	 * List entries after offset off into dst with fring_add_direntry()
	 * and answer fring_reply_data(req, used). Offsets are the filesystem's
	 * cookies; 0 means "from the start".
	 */
	void (*readdir)(fring_req_t *req, fring_ino_t ino, size_t size,
			off_t off, struct fring_file *fi,
			const struct fring_buf *dst);
	/** As readdir with fring_add_direntry_plus(); each entry but "." and
	 * ".." counts as a lookup. */
	void (*readdirplus)(fring_req_t *req, fring_ino_t ino, size_t size,
			    off_t off, struct fring_file *fi,
			    const struct fring_buf *dst);
	/** Close a directory. Answer fring_reply_err(). Default: success. */
	void (*releasedir)(fring_req_t *req, fring_ino_t ino,
			   struct fring_file *fi);
	/** fsync(2) on a directory. Answer fring_reply_err(). Default:
	 * ENOSYS, which the kernel takes as success, and it sends no more
	 * FSYNCDIR. */
	void (*fsyncdir)(fring_req_t *req, fring_ino_t ino, int datasync,
			 struct fring_file *fi);
	/** statfs(2). Answer fring_reply_statfs(). Default: a generic answer
	 * (512-byte blocks, none used, NAME_MAX). */
	void (*statfs)(fring_req_t *req, fring_ino_t ino);
	/** Set an extended attribute (flags: XATTR_CREATE, XATTR_REPLACE).
	 * Answer fring_reply_err(). */
	void (*setxattr)(fring_req_t *req, fring_ino_t ino, const char *name,
			 const void *value, size_t size, int flags);
	/** size 0: answer fring_reply_xattr(len); else fring_reply_buf() or
	 * ERANGE. */
	void (*getxattr)(fring_req_t *req, fring_ino_t ino, const char *name,
			 size_t size);
	/** Names NUL-separated; size rules as getxattr. */
	void (*listxattr)(fring_req_t *req, fring_ino_t ino, size_t size);
	/** Remove an extended attribute. Answer fring_reply_err(). */
	void (*removexattr)(fring_req_t *req, fring_ino_t ino,
			    const char *name);
	/** access(2) with mask (R_OK, W_OK, X_OK, F_OK). Answer
	 * fring_reply_err(). Default: success (rely on default_permissions).
	 */
	void (*access)(fring_req_t *req, fring_ino_t ino, int mask);
	/** Create and open. Answer fring_reply_create(). */
	void (*create)(fring_req_t *req, fring_ino_t parent, const char *name,
		       mode_t mode, struct fring_file *fi);
	/** O_TMPFILE: an unnamed file in parent. Answer fring_reply_create().
	 * Default: EOPNOTSUPP. */
	void (*tmpfile)(fring_req_t *req, fring_ino_t parent, mode_t mode,
			struct fring_file *fi);
	/** F_GETLK: answer fring_reply_lock() with the conflicting lock, or
	 * the lock with l_type F_UNLCK. Default: the kernel tests locally
	 * (without getlk and setlk FRING_CAP_POSIX_LOCKS is not asked for). */
	void (*getlk)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		      struct flock *lock);
	/** F_SETLK (sleep 0) or F_SETLKW (sleep non-zero; an interrupt may
	 * come). Answer fring_reply_err(). Default: local locks (as getlk).
	 */
	void (*setlk)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		      struct flock *lock, int sleep);
	/** flock(2). op: LOCK_SH, LOCK_EX or LOCK_UN, possibly | LOCK_NB.
	 * Answer fring_reply_err(). Default: local locks (without flock
	 * FRING_CAP_FLOCK_LOCKS is not asked for). */
	void (*flock)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		      int op);
	/** FIBMAP on a block-device filesystem. Answer fring_reply_bmap(). */
	void (*bmap)(fring_req_t *req, fring_ino_t ino, size_t blocksize,
		     uint64_t idx);
	/** ioctl(2): in_buf holds in_bufsz bytes, up to out_bufsz may be
	 * returned. Answer fring_reply_ioctl(). Default: ENOTTY. */
	void (*ioctl)(fring_req_t *req, fring_ino_t ino, unsigned int cmd,
		      void *arg, struct fring_file *fi, unsigned flags,
		      const void *in_buf, size_t in_bufsz, size_t out_bufsz);
	/** poll(2) for fi->poll_events. Answer fring_reply_poll(). To be
	 * woken later, take fring_req_pollhandle(req). */
	void (*poll)(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		     uint64_t kernel_handle);
	/** fallocate(2) with mode (FALLOC_FL_*). Answer fring_reply_err().
	 * Default: EOPNOTSUPP. */
	void (*fallocate)(fring_req_t *req, fring_ino_t ino, int mode,
			  off_t offset, off_t length, struct fring_file *fi);
	/** lseek(2) with SEEK_DATA or SEEK_HOLE (the kernel handles the
	 * others). Answer fring_reply_lseek(). */
	void (*lseek)(fring_req_t *req, fring_ino_t ino, off_t off, int whence,
		      struct fring_file *fi);
	/** copy_file_range(2) between two open files. Answer
	 * fring_reply_write() with the bytes copied. */
	void (*copy_file_range)(fring_req_t *req, fring_ino_t ino_in,
				off_t off_in, struct fring_file *fi_in,
				fring_ino_t ino_out, off_t off_out,
				struct fring_file *fi_out, size_t len,
				int flags);
	/** syncfs(2) on the mount. Answer fring_reply_err(). */
	void (*syncfs)(fring_req_t *req, fring_ino_t ino);
	/** statx(2) with flags (AT_STATX_*) and the wanted mask. Answer
	 * fring_reply_statx() (or fring_reply_statx_flags()). fi may be
	 * NULL. Without it the kernel uses getattr. */
	void (*statx)(fring_req_t *req, fring_ino_t ino, int flags,
		      unsigned int mask, struct fring_file *fi);
	/** Called (on some queue thread) when the kernel interrupts a request
	 * that is still being served; see also fring_req_interrupted(). The
	 * request must still be answered exactly once (EINTR is usual); req
	 * stays valid during the call. */
	void (*interrupt)(fring_req_t *req, void *userdata);
};
/**@}*/

#endif
