/* SPDX-License-Identifier: MIT */
/*
 * The reply encoder's internal side (reply.c): what the dispatcher and the
 * transports use besides the public fring_reply_*() functions.
 */
#ifndef FRING_REPLY_INT_H
#define FRING_REPLY_INT_H

#include "core.h"

/* Checks, encodes and hands an answer to the queue's transport, then drops
 * the answer's reference. error: 0 or a negative errno. */
FRING_HIDDEN int reply_send(struct fring_req *req, int error,
			    const struct iovec *args, int nargs);
FRING_HIDDEN int reply_errno(struct fring_req *req, int err);
/* A handler bug (what: which): answers EIO in place of the handler's
 * answer, logs and counts it; returns -EIO (-EALREADY if answered). */
FRING_HIDDEN int reply_bug(struct fring_req *req, const char *what);
/* A request the kernel wants no answer to is done. */
FRING_HIDDEN void reply_none(struct fring_req *req);
/* seconds as a double into the kernel's sec + nsec, clamped */
FRING_HIDDEN void timeout_split(double t, uint64_t *sec, uint32_t *nsec);
FRING_HIDDEN void fill_attr(struct fuse_attr *a, const struct stat *st,
			    uint64_t ino);

/* io.c: pread/pwrite between the request's memory buffer and fd, size
 * bytes at off of which `done` moved already: the bytes moved, or -errno
 * when nothing moved. The transports' data helpers fall back on it. */
FRING_HIDDEN ssize_t io_sync_transfer(struct fring_req *req, int fd, off_t off,
				      size_t size, size_t done, bool is_write);
/* io.c: a WRITE's data in memory (req->buf.mem) to fd at off (-1: its
 * position), short writes continued, or into dst: the count, or -errno
 * when nothing moved. The transports' write_data ops end here for memory. */
FRING_HIDDEN ssize_t io_write_data_mem(struct fring_req *req, size_t data_off,
				       int fd, off_t off, void *dst,
				       size_t len);

/* notify.c */
/* The cookie of the retrieve whose NOTIFY_REPLY carries unique id, taken
 * off the list; false if no retrieve has that id. */
FRING_HIDDEN bool notify_take_retrieve(struct fring_session *se, uint64_t id,
				       void **cookie);
FRING_HIDDEN void notify_free(struct fring_session *se);

/* backing.c: why an open answer's backing_id cannot be sent, or NULL */
FRING_HIDDEN const char *backing_refusal(const struct fring_session *se,
					 uint32_t opcode,
					 const struct fring_file *fi);

#endif
