/* SPDX-License-Identifier: MIT */
/*
 * The FUSE io_uring commands as SQEs, built by hand: liburing 2.3 has no
 * uring_cmd helper, and io_uring_prep_rw() leaves bytes 64-127 alone, where
 * a stale value makes REGISTER fail (which disables io_uring for the whole
 * connection, fuse_uring_cmd()). So every builder zeroes all 128 bytes.
 */
#ifndef FRING_RING_CMD_H
#define FRING_RING_CMD_H

#include <liburing.h>
#include <string.h>

#include "fuse_abi.h"

#define RING_SQE_BYTES 128

static inline struct fuse_uring_cmd_req *ring_cmd_req(struct io_uring_sqe *sqe)
{
	return (struct fuse_uring_cmd_req *)sqe->cmd;
}

static inline void ring_prep_cmd(struct io_uring_sqe *sqe, int fd,
				 uint32_t cmd_op, uint16_t qid,
				 uint64_t user_data)
{
	memset(sqe, 0, RING_SQE_BYTES);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = user_data;
	ring_cmd_req(sqe)->qid = qid;
}

/* A registered pool must be named on every REGISTER and COMMIT of its
 * queue (fuse_uring_cmd_index_ok()). */
static inline void ring_set_pool(struct io_uring_sqe *sqe, int pool_index)
{
	if (pool_index >= 0) {
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		sqe->buf_index = (uint16_t)pool_index;
	}
}

/* REGISTER: the kernel keeps iov[0] (header) and iov[1] (payload) for the
 * connection's life; the iovec array itself is read at issue time. */
static inline void ring_prep_register(struct io_uring_sqe *sqe, int fd,
				      uint16_t qid, const struct iovec *iov,
				      int pool_index, uint16_t zc_slot,
				      uint64_t user_data)
{
	ring_prep_cmd(sqe, fd, FUSE_IO_URING_CMD_REGISTER, qid, user_data);
	sqe->addr = (uint64_t)(uintptr_t)iov;
	sqe->len = 2;
	ring_set_pool(sqe, pool_index);
	ring_cmd_req(sqe)->ent_zero_copy_buf_index = zc_slot;
}

static inline void ring_prep_commit(struct io_uring_sqe *sqe, int fd,
				    uint16_t qid, uint64_t commit_id,
				    int pool_index, uint64_t user_data)
{
	ring_prep_cmd(sqe, fd, FUSE_IO_URING_CMD_COMMIT_AND_FETCH, qid,
		      user_data);
	ring_cmd_req(sqe)->commit_id = commit_id;
	ring_set_pool(sqe, pool_index);
}

static inline void ring_prep_add_queue(struct io_uring_sqe *sqe, int fd,
				       uint16_t qid, bool zero_copy,
				       uint64_t user_data)
{
	ring_prep_cmd(sqe, fd, FUSE_IO_URING_CMD_ADD_QUEUE, qid, user_data);
	ring_cmd_req(sqe)->flags = zero_copy ? FUSE_URING_ZERO_COPY : 0;
}

static inline void ring_prep_add_bufpool(struct io_uring_sqe *sqe, int fd,
					 uint16_t qid, void *base, uint32_t len,
					 int pool_index, uint64_t user_data)
{
	ring_prep_cmd(sqe, fd, FUSE_IO_URING_CMD_ADD_BUFPOOL, qid, user_data);
	ring_cmd_req(sqe)->bufpool.uaddr = (uint64_t)(uintptr_t)base;
	ring_cmd_req(sqe)->bufpool.len = len;
	ring_set_pool(sqe, pool_index);
}

#endif
