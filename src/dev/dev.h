/* SPDX-License-Identifier: MIT */
/*
 * The classic transport (dev.c): a thread and a cloned /dev/fuse fd per
 * queue; INIT is read and answered here for every rung. splice.c adds the
 * splice options to it.
 */
#ifndef FRING_DEV_H
#define FRING_DEV_H

#include "core.h"

/* A dev slot: the generic request plus the classic transport's own. */
struct dev_slot {
	struct fring_req req;
	/* splice_read: a WRITE's payload bytes that were left in the
	 * queue's pipe when it was read (set before the handler runs) */
	uint32_t pipe_in;
	/* of those, how many fring_write_data_*() took out already (in
	 * order: a pipe is read once); written by the pipe's owner */
	uint32_t pipe_taken;
};

static inline struct dev_slot *dev_slot(struct fring_req *req)
{
	return FRING_CONTAINER_OF(req, struct dev_slot, req);
}

/* dev.c: the classic transport */
FRING_HIDDEN extern const struct fring_tp fring_tp_dev;
FRING_HIDDEN int dev_read_init(struct fring_session *se,
			       int (*before_reply)(struct fring_session *se,
						   struct fuse_init_out *out));
FRING_HIDDEN int dev_start(struct fring_session *se);
FRING_HIDDEN int dev_start_queue(struct fring_queue *q);
FRING_HIDDEN void dev_stop(struct fring_session *se);
FRING_HIDDEN int dev_write_all(int fd, struct iovec *iov, int cnt);

/* splice.c: splice on the classic transport */
/* After INIT: keeps the granted FUSE_SPLICE_* on dev, drops them with a
 * log line on the other transports. */
FRING_HIDDEN void splice_session_start(struct fring_session *se);
FRING_HIDDEN void splice_queue_setup(struct fring_queue *q);
FRING_HIDDEN void splice_queue_close(struct fring_queue *q);
/* splice_read: the next request into req, as read(2) would (bytes or
 * -errno); a WRITE's payload may stay in the pipe (req->pipe_in). */
FRING_HIDDEN ssize_t splice_read_msg(struct fring_queue *q,
				     struct fring_req *req, size_t off);
/* After the handler returned: a payload nobody took goes into memory. */
FRING_HIDDEN void splice_settle(struct fring_queue *q);
/* The data helpers on dev: 1 when they answered, 0 to use the copy path,
 * -ESPIPE when fring_write_data_*() took part of the payload already */
FRING_HIDDEN int splice_write_to_fd(struct fring_req *req, int fd, off_t off);
/* tp->write_data on dev: from the pipe in order, else from memory */
FRING_HIDDEN ssize_t splice_write_data(struct fring_req *req, size_t data_off,
				       int fd, off_t off, void *dst,
				       size_t len);
FRING_HIDDEN int splice_read_from_fd(struct fring_req *req, int fd, off_t off,
				     size_t size);
/* dev_send() of an answer whose data a data helper left in this thread's
 * pipe: 0 sent, -errno failed, 1 to write iov (the data is back in it, or
 * was never in a pipe) */
FRING_HIDDEN int splice_send(struct fring_req *req, struct iovec *iov, int cnt);

#endif
