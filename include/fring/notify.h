/* SPDX-License-Identifier: MIT */
/**
 * @file notify.h
 * @brief Notifications to the kernel (fring_notify_*) and poll handles.
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_NOTIFY_H
#define FRING_API_NOTIFY_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/**
 * @name Notifications
 * Messages to the kernel about changes it did not make itself (a network
 * filesystem seeing a remote write, a file growing behind its back), so
 * that cached names, attributes and pages do not outlive them. See
 * doc/notifications.md.
 *
 * Thread: any thread, concurrently, once INIT is answered (the first
 * request after mounting has been served) and until fring_session_destroy().
 * They are written to /dev/fuse on every transport.
 *
 * Each returns 0, -ENOTCONN before INIT or after the connection ended
 * (unmounted, aborted), -ENOSYS where the negotiated ABI lacks the
 * notification, -EINVAL for bad arguments, or the kernel's own error:
 * -ENOENT when it has no such inode cached (inval_inode, store,
 * retrieve) or no such entry (inval_entry, delete), and so on.
 *
 * Deadlock trap: inval_entry, expire_entry and delete take the parent
 * directory's lock (fuse_reverse_inval_entry()); never send them from a
 * handler of an operation on that directory (LOOKUP, CREATE, RENAME...):
 * send them from another thread.
 */
/**@{*/
/**
 * Drops ino's cached attributes and, if off >= 0, its cached pages in
 * [off, off + len), or to the end when len <= 0. libfuse:
 * fuse_lowlevel_notify_inval_inode().
 * @return 0, -ENOENT (not cached), or as the group description says
 */
int fring_notify_inval_inode(fring_session_t *se, fring_ino_t ino, off_t off,
			     off_t len);
/**
 * Drops the cached name (parent, name[0..namelen)) and, for a directory,
 * its cached listing: the next access looks it up again. libfuse:
 * fuse_lowlevel_notify_inval_entry().
 * @return 0, -ENOENT (not cached), -ENAMETOOLONG, or as the group says
 */
int fring_notify_inval_entry(fring_session_t *se, fring_ino_t parent,
			     const char *name, size_t namelen);
/**
 * Marks the cached name expired without dropping it (FUSE_EXPIRE_ONLY):
 * the next lookup revalidates it, while a process in it or a mount on it
 * stays. ABI 7.38 (Linux 6.2). libfuse: fuse_lowlevel_notify_expire_entry().
 * @return 0, -ENOSYS before 7.38, or as inval_entry
 */
int fring_notify_expire_entry(fring_session_t *se, fring_ino_t parent,
			      const char *name, size_t namelen);
/**
 * The name (parent, name) of child was removed: drops the entry if it
 * still points to child, as if unlink(2) had gone through the kernel.
 * libfuse: fuse_lowlevel_notify_delete().
 * @return 0, -ENOENT, or as the group says
 */
int fring_notify_delete(fring_session_t *se, fring_ino_t parent,
			fring_ino_t child, const char *name, size_t namelen);
/**
 * Puts size bytes at off into the page cache of the regular file ino
 * (growing its cached size if they end past it), so clients read the new
 * data without a READ. libfuse: fuse_lowlevel_notify_store().
 * @return 0, -ENOENT (not cached), -EINVAL (not a regular file), or as the
 * group says
 */
int fring_notify_store(fring_session_t *se, fring_ino_t ino, off_t off,
		       const void *data, size_t size);
/** fring_notify_store() with the data in cnt pieces. */
int fring_notify_store_iov(fring_session_t *se, fring_ino_t ino, off_t off,
			   const struct iovec *data, int cnt);
/**
 * Receives the answer to fring_notify_retrieve(): size bytes the kernel had
 * cached of ino from off (fewer than asked, or none, where its cache ends
 * or has a hole), with the cookie given to the retrieve. data is valid
 * during the call only. Runs on a queue thread; nothing to answer.
 * libfuse: the retrieve_reply operation.
 */
typedef void (*fring_retrieve_reply_fn)(void *userdata, void *cookie,
					fring_ino_t ino, off_t off,
					const void *data, size_t size);
/**
 * Sets the function retrieve answers go to (NULL: they are dropped). Call
 * it before the first fring_notify_retrieve(), e.g. before mounting or in
 * fring_main_hooks.ready.
 * @return 0, or -EINVAL without a session
 */
int fring_session_set_retrieve_reply(fring_session_t *se,
				     fring_retrieve_reply_fn fn);
/**
 * A byte range of a file: size bytes from off. Its members are named so
 * that a call spells which number is which, e.g.
 * `(struct fring_range){.off = 4096, .size = 65536}`.
 */
struct fring_range {
	off_t off;   /**< the first byte's offset, 0 or more */
	size_t size; /**< how many bytes */
};
/**
 * Asks the kernel for up to range.size bytes it has cached of the regular
 * file ino from range.off. The answer comes later to the
 * fring_retrieve_reply_fn set with fring_session_set_retrieve_reply() (on a
 * queue thread, with cookie): the bytes up to the first page not cached, at
 * most max_write. libfuse: fuse_lowlevel_notify_retrieve(se, ino, size,
 * offset, cookie), whose size comes first:
 *
 *     fring_notify_retrieve_range(se, ino,
 *             (struct fring_range){.off = offset, .size = size}, cookie);
 *
 * @return 0 (the answer will come), -EINVAL (off < 0, size above 4 GiB),
 *         -ENOENT (not cached), or as the group says
 */
int fring_notify_retrieve_range(fring_session_t *se, fring_ino_t ino,
				struct fring_range range, void *cookie);
/**
 * The retrieve of libfring 0.1.0, kept for the programs built against it:
 * fring_notify_retrieve_range() with (off, size) as two integers, where
 * libfuse's fuse_lowlevel_notify_retrieve() takes (size, off), so a port
 * that only renamed the call compiled and asked for the wrong bytes. Code
 * compiled now cannot call it: the name is a macro that stops the
 * compilation with a message naming fring_notify_retrieve_range().
 * @return as fring_notify_retrieve_range()
 */
int fring_notify_retrieve(fring_session_t *se, fring_ino_t ino, off_t off,
			  size_t size, void *cookie);
/** @cond INTERNAL (any call of the 0.1.0 name is an error; see above) */
/* _Pragma takes one string literal: */
/* clang-format off */
#define fring_notify_retrieve(...) (_Pragma("GCC error \"fring_notify_retrieve() is gone: call fring_notify_retrieve_range(se, ino, (struct fring_range){.off = OFF, .size = SIZE}, cookie); libfuse's fuse_lowlevel_notify_retrieve() takes the size before the offset\"") 0)
/* clang-format on */
/** @endcond */
/**
 * In a poll handler (fring_ops.poll), before answering: a handle on the
 * waiter when the kernel asked to be told of a change
 * (FUSE_POLL_SCHEDULE_NOTIFY), else NULL (also without memory). The
 * handler owns it: keep it for fring_notify_poll() when the file becomes
 * ready and free it with fring_pollhandle_destroy(), usually when the next
 * one replaces it. libfuse hands the same to its poll operation.
 */
fring_pollhandle_t *fring_req_pollhandle(fring_req_t *req);
/**
 * Wakes the poll(2) waiters of the file ph was taken for: the kernel polls
 * again. ph stays the caller's. libfuse: fuse_lowlevel_notify_poll().
 * @return 0, or as the group says
 */
int fring_notify_poll(fring_pollhandle_t *ph);
/** Frees a poll handle (NULL is fine). libfuse: fuse_pollhandle_destroy(). */
void fring_pollhandle_destroy(fring_pollhandle_t *ph);
/**
 * Asks the kernel to send again every request read from /dev/fuse and not
 * answered yet (after a server restart lost them); they come with bit 63
 * of their unique set. Requests on the ring are not resent. ABI 7.40
 * (Linux 6.9). libfuse has no counterpart.
 * @return 0, -ENOSYS before 7.40, or as the group says
 */
int fring_notify_resend(fring_session_t *se);
/**
 * Starts a new epoch: every name cached before is looked up again on its
 * next use. ABI 7.44 (Linux 6.16). libfuse:
 * fuse_lowlevel_notify_increment_epoch().
 * @return 0, -ENOSYS before 7.44, or as the group says
 */
int fring_notify_inc_epoch(fring_session_t *se);
/**
 * Asks the kernel to drop the unused cached names and inodes of the count
 * inodes in inos (those in use stay); the dropped ones come back as
 * FORGETs. ABI 7.45 (Linux 6.18). libfuse (3.19):
 * fuse_lowlevel_notify_prune().
 * @return 0, -ENOSYS before 7.45, or as the group says
 */
int fring_notify_prune(fring_session_t *se, const fring_ino_t *inos,
		       size_t count);
/**@}*/

#endif
