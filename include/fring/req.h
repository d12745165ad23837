/* SPDX-License-Identifier: MIT */
/**
 * @file req.h
 * @brief Request accessors: who asked, which queue, interrupted, groups;
 * fring_req_async().
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_REQ_H
#define FRING_API_REQ_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/**
 * @name Request accessors
 * Callable from any thread while the request is unanswered (in the
 * handler, or until the asynchronous answer); req must not be used after
 * its answer.
 */
/**@{*/
/** The caller's credentials and pid; valid until the request is answered.
 */
const struct fring_ctx *fring_req_ctx(const fring_req_t *req);
/** The userdata given to fring_session_new() or fring_main(). */
void *fring_req_userdata(const fring_req_t *req);
/** The session serving req. */
fring_session_t *fring_req_session(const fring_req_t *req);
/** The kernel's request id (for logs). */
uint64_t fring_req_unique(const fring_req_t *req);
/** The FUSE opcode of req (the kernel's FUSE_* number, for logs). */
uint32_t fring_req_opcode(const fring_req_t *req);
/** Index of the queue that received the request. */
unsigned fring_req_queue(const fring_req_t *req);
/** Non-zero once the kernel asked to interrupt the request. */
int fring_req_interrupted(const fring_req_t *req);
/**
 * Supplementary groups of the caller (from /proc). Fills up to size groups,
 * returns the total count, or a negative errno.
 *
 * @param req  the request
 * @param size room in list (0 to ask for the count only)
 * @param list where the groups go
 * @return the number of groups the caller has (may exceed size),
 *         -EINVAL for a negative size or a NULL list with size > 0,
 *         -ENOENT (or the errno of opening /proc/PID/status) when the
 *         caller is gone or invisible (pid 0, another pid namespace).
 */
int fring_req_getgroups(const fring_req_t *req, int size, gid_t list[]);
/**
 * Supplementary groups the kernel sent with a creating request (mknod,
 * mkdir, symlink, create, tmpfile) when FRING_CAP_CREATE_SUPP_GROUP was
 * negotiated: the parent directory's group when the caller belongs to it
 * other than as its fsgid (get_create_supp_group() in the kernel). A
 * filesystem that checks permissions itself can then grant write access
 * through that group without reading /proc, which fails when the caller
 * is not visible (fring_req_ctx()->pid 0, e.g. the server runs in a pid
 * namespace of its own). Like fuse_req_getgroups(), fills up to size groups.
 *
 * @param req  the request, before it is answered
 * @param size room in list (0 to ask for the count only)
 * @param list where the groups go
 * @return the number of groups sent (may exceed size; 0 when the request
 *         carries none), -EINVAL for a NULL req, a negative size or a NULL
 *         list with size > 0. Any thread.
 */
int fring_req_supp_groups(const fring_req_t *req, int size, gid_t list[]);
/**
 * The security context the kernel sent with a creating request (mknod,
 * mkdir, symlink, create, tmpfile) when FRING_CAP_SECURITY_CTX was
 * negotiated (FUSE_SECURITY_CTX; the library drops it before ABI 7.38,
 * whose requests carry the context without the extension header it
 * reads): what the LSM (SELinux, Smack) would have given the new inode on
 * a local filesystem (security_dentry_init_security()). A filesystem that
 * stores extended attributes sets it on the inode it creates, under that
 * name, before answering, so the label is there from the first moment, as
 * on a local filesystem. libfuse 3.18 has no counterpart (it never asks
 * for FUSE_SECURITY_CTX).
 *
 * @param req   the request, before it is answered
 * @param name  set to the context's xattr name, NUL-terminated (e.g.
 *              "security.selinux"); may be NULL
 * @param value set to its value (not NUL-terminated by the library; as
 *              the LSM gave it, which may include a NUL); may be NULL
 * @param size  set to the value's length in bytes; may be NULL
 * @return 1 with the outputs set, 0 when the request carries none (not
 *         negotiated, not a creating request, or no LSM gave one: then
 *         the outputs are NULL and 0), -EINVAL for a NULL req, -EPROTO
 *         when the block does not hold what its header says. Any thread,
 *         while the request is unanswered (the pointers point into it).
 */
int fring_req_secctx(const fring_req_t *req, const char **name,
		     const void **value, size_t *size);
/**
 * Declares that the handler returns without answering and will answer later
 * (from any thread). Without it, a handler that returns unanswered is a bug:
 * the library logs it and answers EIO so the caller does not hang.
 *
 * Call it in the handler, on the queue thread, before handing req to
 * another thread. The request slot (and, on the ring transports, its ring
 * entry) stays busy until the answer: at most max_async requests per queue
 * wait this way on dev, queue_depth (the queue's entries) on the ring
 * transports. Every transport.
 */
void fring_req_async(fring_req_t *req);
/**@}*/

#endif
