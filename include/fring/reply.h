/* SPDX-License-Identifier: MIT */
/**
 * @file reply.h
 * @brief Answers to requests (fring_reply_*), directory entries and passthrough
 * backing ids.
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_REPLY_H
#define FRING_API_REPLY_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/**
 * @name Replies
 * Each answers the request and releases it; the request must not be used
 * afterwards, whatever the function returns. Callable from any thread (on
 * the ring transports an answer from another thread is handed to the
 * queue's thread, which commits it in its next batch).
 *
 * Every reply function returns one of these, and so do the data helpers
 * (fring_read_from_fd(), fring_write_to_fd()):
 * - 0: the answer went out as given. On dev the write(2) on /dev/fuse
 *   succeeded, or failed with ENOENT because the kernel no longer waits
 *   for that request (the connection was aborted or unmounted): nothing
 *   is left to do then. On the ring transports the answer is in the ring
 *   entry, committed with the thread's next io_uring_enter; what the
 *   kernel says to the commit is handled by that thread, not returned.
 * - -EALREADY: the request was answered already. Nothing is sent; the
 *   second answer is a handler bug, logged and counted in handler_bugs.
 * - -EIO: the answer is a handler bug: an answer of the wrong kind for the
 *   opcode (fring_reply_err(req, 0) to a request whose success carries
 *   data included), more data than the kernel asked for, an errno outside
 *   1..511, or a value that a function's own description below refuses.
 *   The caller gets EIO in its place; the bug is logged and counted in
 *   handler_bugs. The same for every function and every such bug.
 * - another negative errno: the transport could not deliver the answer:
 *   on dev the write(2)'s error (-EINVAL: the kernel refused the answer),
 *   on the ring transports a local failure (-EOVERFLOW: larger than the
 *   entry's payload buffer; on zerocopy the error of staging a READ's
 *   data). It is logged, and the library answered EIO in its place where
 *   the connection still took one.
 *
 * A negative value always means the kernel did not get the answer as
 * given: nothing it would have started exists (no lookup reference from an
 * entry, no open file from an open or create answer, so no RELEASE for
 * it), and the handler may undo what it did for it. Nothing else needs
 * doing: the request is released either way.
 */
/**@{*/
/** Answers with an error, or with success and no data (unlink, rmdir,
 * rename, release, flush, fsync, setxattr, ...).
 * @param req the request
 * @param err a positive errno (1..511; anything else is answered EIO and
 *            returns -EIO), or 0 for success with no data (-EIO for an
 *            opcode whose success carries data). */
int fring_reply_err(fring_req_t *req, int err);
/** Answers lookup, mknod, mkdir, symlink, link with a new name's entry.
 * e->ino 0 is a negative entry: for lookup the kernel caches the name's
 * absence for e->entry_timeout; any other opcode is answered ENOENT
 * instead (and the function returns as fring_reply_err() would). */
int fring_reply_entry(fring_req_t *req, const struct fring_entry *e);
/** Answers create and tmpfile: the entry and the open file (fi->fh and the
 * open flags as for fring_reply_open(), backing_id refusals included). */
int fring_reply_create(fring_req_t *req, const struct fring_entry *e,
		       const struct fring_file *fi);
/** Answers getattr and setattr.
 * @param req          the request
 * @param attr         the attributes (st_ino 0: the request's inode)
 * @param attr_timeout seconds the kernel may cache them */
int fring_reply_attr(fring_req_t *req, const struct stat *attr,
		     double attr_timeout);
/** Answers readlink with a NUL-terminated target (at most 4095 bytes;
 * longer is a handler bug, -EIO). */
int fring_reply_readlink(fring_req_t *req, const char *target);
/** Answers open and opendir: fi->fh and the reply bits of struct
 * fring_file (direct_io, keep_cache, zero_copy, backing_id, ...). A
 * backing_id the kernel would refuse (see struct fring_file) is a handler
 * bug: EIO is sent and -EIO returned, so no RELEASE will come (the same
 * for fring_reply_create()). */
int fring_reply_open(fring_req_t *req, const struct fring_file *fi);
/**
 * Registers fd, an open regular file, as a backing file for passthrough
 * (FUSE_DEV_IOC_BACKING_OPEN on the session's /dev/fuse, whatever the
 * transport). Put the id in fring_file.backing_id of an open or create
 * answer; the kernel holds its own reference from then on, so fd may be
 * closed. Needs FRING_CAP_PASSTHROUGH negotiated and CAP_SYS_ADMIN. Any
 * thread, after INIT. libfuse: fuse_passthrough_open().
 *
 * @param se the session
 * @param fd the backing file, any access mode: each open reopens its path
 *           with the client's open flags and the credentials of the thread
 *           that called this (backing_file_open())
 * @return a backing id > 0; -EOPNOTSUPP if passthrough was not negotiated
 *         (or INIT not done); -EBADF; -EINVAL (not a regular file); -EISDIR;
 *         -ELOOP (fd's filesystem is as deep as max_stack_depth); -EPERM
 *         (no CAP_SYS_ADMIN); -ENOMEM.
 */
int fring_backing_open(fring_session_t *se, int fd);
/**
 * Drops a backing id from fring_backing_open(). Files open with it keep
 * their backing file; a later open of the same inode while they are open
 * needs the same id, so close it at the inode's last release. Any thread.
 * libfuse: fuse_passthrough_close().
 *
 * @param se         the session
 * @param backing_id an id fring_backing_open() returned
 * @return 0; -EOPNOTSUPP if passthrough was not negotiated; -EINVAL
 *         (id <= 0); -ENOENT (no such id); -EPERM (no CAP_SYS_ADMIN).
 */
int fring_backing_close(fring_session_t *se, int backing_id);
/** Answers write and copy_file_range with the bytes written. For write, a
 * count above the bytes the request carried is a handler bug (-EIO). The
 * classic copy_file_range answer holds 32 bits: a larger count is sent as
 * UINT32_MAX (COPY_FILE_RANGE_64, ABI 7.45, takes 64). */
int fring_reply_write(fring_req_t *req, size_t count);
/** Answers read, readdir, readdirplus, readlink, getxattr, listxattr with
 * size bytes of buf, the caller's memory (copied or gathered, never kept).
 * More bytes than the kernel asked for (the request's size; 4095 for
 * readlink), or data to a getxattr/listxattr of size 0, is a handler bug
 * (-EIO). On zerocopy a READ's bytes are staged into the client's pages
 * first. */
int fring_reply_buf(fring_req_t *req, const void *buf, size_t size);
/** As fring_reply_buf() with the data in count pieces (any number: up to
 * 8 are sent as they are, more are gathered into one buffer first; a
 * negative count is a handler bug, -EIO). */
int fring_reply_iov(fring_req_t *req, const struct iovec *iov, int count);
/** Answers read, readdir or readdirplus with size bytes already placed at
 * the start of the handler's dst buffer (dst->mem; no copy). Size limits
 * as for fring_reply_buf(). On a FRING_BUF_FIXED dst (zerocopy) the bytes
 * must have been moved there with READ_FIXED first: an answer claiming
 * more than fixed ops moved is a handler bug (-EIO). */
int fring_reply_data(fring_req_t *req, size_t size);
/** Answers statfs. */
int fring_reply_statfs(fring_req_t *req, const struct statvfs *st);
/** Answers getxattr/listxattr of size 0 (a size probe) with the size
 * needed; to a request with a size it is a handler bug (-EIO). */
int fring_reply_xattr(fring_req_t *req, size_t count);
/** Answers getlk with the conflicting lock (or l_type F_UNLCK). l_start
 * counts from the file's start (l_whence is not read); unless l_type is
 * F_UNLCK the range must fit 0..OFFSET_MAX, else it is a handler bug
 * (-EIO). */
int fring_reply_lock(fring_req_t *req, const struct flock *lock);
/** Answers bmap with the device block index. */
int fring_reply_bmap(fring_req_t *req, uint64_t idx);
/** Answers lseek with the new offset. */
int fring_reply_lseek(fring_req_t *req, off_t off);
/** Answers poll with the ready events (POLLIN, ...). */
int fring_reply_poll(fring_req_t *req, unsigned revents);
/** Answers ioctl: result is ioctl(2)'s return value, buf the size output
 * bytes (buf NULL: none). size above the handler's out_bufsz is a handler
 * bug (-EIO). */
int fring_reply_ioctl(fring_req_t *req, int result, const void *buf,
		      size_t size);
struct statx;
/** Answers statx with stx (fields outside stx_mask are ignored).
 * @param req          the request
 * @param stx          the attributes
 * @param attr_timeout seconds the kernel may cache them */
int fring_reply_statx(fring_req_t *req, const struct statx *stx,
		      double attr_timeout);
/** fring_reply_statx() with the flags word of the kernel's answer
 * (fuse_statx_out.flags), as libfuse's fuse_reply_statx(req, flags, statx,
 * attr_timeout) sends it. The kernel defines no bit of it and reads none
 * up to ABI 7.46: pass 0 unless a later one defines some; the value is sent
 * as given.
 * @param req          the request
 * @param flags        the answer's flags word
 * @param stx          the attributes (fields outside stx_mask are ignored)
 * @param attr_timeout seconds the kernel may cache them */
int fring_reply_statx_flags(fring_req_t *req, uint32_t flags,
			    const struct statx *stx, double attr_timeout);

/**
 * Directory entries. Appends one entry to buf (bufsize bytes free) and
 * returns the bytes it takes. If that is more than bufsize nothing is
 * written: the listing is full. off is the cookie of the *next* entry.
 *
 * Only st_ino and the type bits of st_mode are used. buf is the readdir
 * handler's dst->mem plus what was used so far (or memory of the caller's
 * answered with fring_reply_buf()). Any thread; no answer is sent.
 */
size_t fring_add_direntry(fring_req_t *req, char *buf, size_t bufsize,
			  const char *name, const struct stat *st, off_t off);
/**
 * As fring_add_direntry() for readdirplus: e is the entry as
 * fring_reply_entry() would send it, and (except for "." and "..") the
 * kernel takes a lookup reference on e->ino once the answer arrives.
 * e->ino 0 sends only the name (no reference).
 */
size_t fring_add_direntry_plus(fring_req_t *req, char *buf, size_t bufsize,
			       const char *name, const struct fring_entry *e,
			       off_t off);
/**@}*/

#endif
