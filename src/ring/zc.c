/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy on the ring (7.46): the client's pages sit in a per-entry slot
 * of the thread's fixed-buffer table. Framing of zero-copy requests, their
 * answers (checked against what fixed ops moved), READ answers given from
 * memory staged through a memfd and READ_FIXED into the pages, and emptying
 * the slots when the connection goes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dispatch/dispatch.h"
#include "fault.h"
#include "fdclass.h"
#include "ring_int.h"

static size_t stage_off(const struct fring_req *req)
{
	return (size_t)ring_ent_c(req)->zc_slot * req->q->rt->rs->payload_sz;
}

/* The answer of a zero-copy request is unusable: say EIO instead. */
static void zc_fail(struct fring_req *req, const char *why, bool bug)
{
	struct fuse_out_header *oh = (void *)ring_ent(req)->hdr.in_out;

	if (bug)
		stat_add(req->q, handler_bugs, 1);
	fr_err("%s%s (request %llu, q%u); answering EIO",
	       bug ? "handler bug: " : "", why,
	       (unsigned long long)ring_ent(req)->commit_id, req->q->idx);
	oh->error = -EIO;
	oh->len = sizeof(*oh);
	ring_ent(req)->hdr.ring_ent_in_out.payload_sz = 0;
	ring_ent(req)->zc_staged = 0;
}

/* Staged READ data: READ_FIXED from the stage memfd into the client's
 * pages; the commit follows its completion (rt_stage_done). */
bool rt_stage(struct ring_thread *rt, struct fring_req *req)
{
	struct io_uring_sqe *sqe;

	if (rt->zc_dead) {
		zc_fail(req, "connection gone before staged data moved", false);
		return false;
	}
	sqe = rt_sqe(rt);
	io_uring_prep_read_fixed(sqe, rt->stage_fd, NULL,
				 ring_ent(req)->zc_staged, stage_off(req),
				 ring_ent(req)->zc_slot);
	io_uring_sqe_set_data64(sqe, ud_make(req, UD_STAGE));
	ring_ent(req)->zc_inflight++;
	ring_ent(req)->commit_held = true;
	return true;
}

void rt_stage_done(struct ring_thread *rt, struct fring_req *req, int res)
{
	struct ring_ent *ent = ring_ent(req);
	bool ok = res == (int)ent->zc_staged;

	ent->zc_inflight--;
	if (ent->zc_pipe_size) {
		/* bytes of another answer if the pipe was out of step */
		ok = ok && !rt->pipe_broken;
		rt_pipe_give(rt, ent->zc_pipe_size, res == (int)ent->zc_staged);
		ent->zc_pipe_size = 0;
	}
	if (!ok)
		zc_fail(req, "staging READ data into the client's pages failed",
			false);
	ent->zc_staged = 0;
	/* a commit that waited for this (not one linked after it) */
	if (ent->commit_held && !rt_stopping(rt))
		ring_commit(rt, req);
}

/*
 * n bytes of the READ are in the pipe (of size reserved): the READ_FIXED
 * that takes them into the client's pages is queued at once, since the
 * pipe's order is the order of its ops. The answer may count them; its
 * commit follows the READ_FIXED (linked to it when it is the next SQE:
 * rt_stage_link).
 */
static bool stage_queue(struct fring_req *req, size_t size, size_t n)
{
	struct ring_thread *rt = req->q->rt;
	struct io_uring_sqe *sqe = ring_io_sqe(req);

	if (!sqe) {
		rt_pipe_discard(rt, size, n);
		return false;
	}
	if (fault_hit(FAULT_ZC_PIPE_SHORT)) {
		/* the READ_FIXED will come short: its linked commit is
		 * cancelled, the answer becomes EIO, the pipe is emptied */
		char byte;

		if (read(rt->pipe_fd[0], &byte, 1) != 1)
			fr_warn("fault zc_pipe_short: the pipe was empty");
	}
	io_uring_prep_read_fixed(sqe, rt->pipe_fd[0], NULL, (unsigned)n,
				 UINT64_MAX, ring_ent(req)->zc_slot);
	io_uring_sqe_set_data64(sqe, ud_make(req, UD_STAGE));
	ring_ent(req)->zc_inflight++;
	ring_ent(req)->zc_pipe_size = (uint32_t)size;
	ring_ent(req)->zc_staged = (uint32_t)n;
	rt->link_sqe = sqe;
	stat_add(req->q, zero_copy_piped, 1);
	return true;
}

/* An answer from memory, into the pipe on the owning thread. False when
 * the pipe cannot take it: the stage memfd then. */
static bool stage_piped(struct fring_req *req, const struct iovec *iov, int cnt,
			size_t total)
{
	struct ring_thread *rt = req->q->rt;

	if (!ring_on_thread_of(req) || rt_stopping(rt) ||
	    rt_pipe_fill_iov(rt, iov, cnt, total) < 0)
		return false;
	return stage_queue(req, total, total);
}

ssize_t ring_read_piped(struct fring_req *req, int fd, off_t off, size_t size)
{
	struct ring_thread *rt = req->q->rt;
	ssize_t n;

	if (!ring_on_thread_of(req) || rt_stopping(rt) ||
	    ring_ent(req)->zc != ZC_READ || ring_ent(req)->zc_inflight ||
	    size > req->se->cfg.zc_pipe_max ||
	    !fd_class_in_memory(&rt->fdclass, fd, false))
		return -EAGAIN;
	/* short: the end of the file (the room for size was reserved) */
	n = rt_pipe_fill(rt, fd, off, size);
	if (n <= 0)
		return n;
	if (!stage_queue(req, size, (size_t)n))
		return -ESHUTDOWN;
	return n;
}

/*
 * The commit of an answer whose only fixed op in flight is its pipe
 * READ_FIXED, still unsubmitted and the last SQE: linked after it, both
 * go in one submission (no round of the loop in between). Should the
 * READ_FIXED not move all its bytes, the kernel cancels the commit, and
 * rt_stage_cancelled() sends it again with the EIO rt_stage_done() wrote.
 */
bool rt_stage_link(struct ring_thread *rt, struct fring_req *req)
{
	struct ring_ent *ent = ring_ent(req);
	struct io_uring_sq *sq = &rt->ring.sq;

	if (ent->zc_inflight != 1 || !ent->zc_pipe_size || !rt->link_sqe ||
	    sq->sqe_tail == sq->sqe_head ||
	    &sq->sqes[(sq->sqe_tail - 1) & sq->ring_mask] != rt->link_sqe ||
	    rt->link_sqe->user_data != ud_make(req, UD_STAGE))
		return false;
	rt->link_sqe->flags |= IOSQE_IO_LINK;
	rt->link_sqe = NULL;
	ent->commit_linked = true;
	return true;
}

bool rt_stage_cancelled(struct ring_thread *rt, struct fring_req *req, int res)
{
	struct ring_ent *ent = ring_ent(req);

	if (!ent->commit_linked)
		return false;
	ent->commit_linked = false;
	if (res != -ECANCELED)
		return false;
	if (!rt_stopping(rt))
		ring_commit(rt, req);
	return true;
}

/*
 * Zero-copy answers carry no data: it is in the client's pages already. A
 * READ answered from memory is written to the stage memfd here (any
 * thread) and moved into the pages by the owning thread before the commit.
 * An answer claiming more bytes than fixed ops moved would expose stale
 * page contents (READ) or lose data (WRITE): EIO instead, a handler bug
 * whose reply function returns -EIO like reply.c's.
 */
int ring_send_zc(struct fring_req *req, struct iovec *iov, int cnt)
{
	struct fuse_out_header *oh = (void *)ring_ent(req)->hdr.in_out;
	size_t total = 0;
	ssize_t n;

	memcpy(oh, iov[0].iov_base, sizeof(*oh));
	ring_ent(req)->hdr.ring_ent_in_out.payload_sz = 0;
	if (oh->error)
		return 0;
	for (int i = 1; i < cnt; i++)
		total += iov[i].iov_len;
	if (ring_ent(req)->zc == ZC_WRITE) {
		const struct fuse_write_out *wo = iov[1].iov_base;

		if (cnt != 2 || iov[1].iov_len != sizeof(*wo) ||
		    wo->size > ring_ent(req)->zc_moved) {
			zc_fail(req,
				"zero-copy WRITE answered with more bytes "
				"than left the client's pages",
				true);
			return -EIO;
		}
		memcpy(req->data, wo, sizeof(*wo));
		ring_ent(req)->hdr.ring_ent_in_out.payload_sz = sizeof(*wo);
		return 0;
	}
	if (total == 0)
		return 0;
	if (cnt == 2 && !iov[1].iov_base) {
		/* fring_reply_data(): placed by fixed ops, or to be by the
		 * pipe's READ_FIXED, which the commit waits for */
		if (total > ring_ent(req)->zc_moved &&
		    !(ring_ent(req)->zc_pipe_size &&
		      total <= ring_ent(req)->zc_staged)) {
			zc_fail(req,
				"zero-copy READ answered with more bytes "
				"than reached the client's pages",
				true);
			return -EIO;
		}
		ring_ent(req)->hdr.ring_ent_in_out.payload_sz = (uint32_t)total;
		return 0;
	}
	if (!ring_ent(req)->zc_inflight &&
	    stage_piped(req, iov + 1, cnt - 1, total)) {
		ring_ent(req)->hdr.ring_ent_in_out.payload_sz = (uint32_t)total;
		stat_add(req->q, zero_copy_staged, 1);
		return 0;
	}
	n = pwritev(req->q->rt->stage_fd, iov + 1, cnt - 1,
		    (off_t)stage_off(req));
	if (n != (ssize_t)total) {
		zc_fail(req, "staging READ data failed", false);
		return n < 0 ? -errno : -EIO;
	}
	ring_ent(req)->zc_staged = (uint32_t)total;
	ring_ent(req)->hdr.ring_ent_in_out.payload_sz = (uint32_t)total;
	stat_add(req->q, zero_copy_staged, 1);
	return 0;
}

/*
 * A request whose pages the kernel put in the entry's slot. Its pool
 * buffer (if any) holds only the non-page bytes: for a WRITE, payload_sz
 * counts the page bytes too. Returns false after rejecting the request.
 */
bool rt_zc_request(struct ring_thread *rt, struct fring_req *req, uint32_t *psz)
{
	const struct fuse_in_header *ih =
		(const void *)ring_ent(req)->hdr.in_out;
	struct fring_queue *q = req->q;

	if (!rt->rs->zero_copy) {
		fring_reject(req, ih, "zero-copy request on a copying queue");
		return false;
	}
	if (ih->opcode == FUSE_READ) {
		const struct fuse_read_in *in =
			(const void *)ring_ent(req)->hdr.op_in;

		ring_ent(req)->zc = ZC_READ;
		ring_ent(req)->zc_size = in->size;
		stat_add(q, zero_copy_reads, 1);
	} else if (ih->opcode == FUSE_WRITE) {
		const struct fuse_write_in *in =
			(const void *)ring_ent(req)->hdr.op_in;

		if (in->size > *psz) {
			fring_reject(req, ih,
				     "zero-copy WRITE larger than "
				     "its payload size");
			return false;
		}
		*psz -= in->size;
		ring_ent(req)->zc = ZC_WRITE;
		ring_ent(req)->zc_size = in->size;
		stat_add(q, zero_copy_writes, 1);
	} else {
		fring_reject(req, ih,
			     "zero-copy flag on a request that is "
			     "neither READ nor WRITE");
		return false;
	}
	stat_add(q, zero_copy_requests, 1);
	return true;
}

/*
 * The connection is ending. After an abort the kernel leaves zero-copy
 * slots registered, still pointing at the aborted requests' pages (a
 * READ_FIXED into one would write into memory the client got back):
 * refuse further fixed ops and empty every slot at once.
 */
void rt_zc_dead(struct ring_thread *rt)
{
	unsigned n = rt->nq * rt->rs->depth;
	struct iovec *none;

	if (!rt->rs->zero_copy || rt->zc_dead || rt->state < RT_SERVING)
		return;
	rt->zc_dead = true;
	none = calloc(n, sizeof(*none));
	if (!none || io_uring_register_buffers_update_tag(&rt->ring, rt->nq,
							  none, NULL, n) < 0)
		fr_warn("ring thread %u: could not clear the zero-copy "
			"slots; closing the ring will",
			rt->idx);
	free(none);
}

/*
 * Zero-copy: a sparse table, the pools at 0..nq-1, then one empty slot per
 * entry for the kernel to put client pages in (it refuses an occupied
 * one). Plus the memfd that stages READ answers given from memory.
 */
int rt_zc_table(struct ring_thread *rt, const struct iovec *pools)
{
	int ret = io_uring_register_buffers_sparse(
		&rt->ring, rt->nq + rt->nq * rt->rs->depth);

	if (ret)
		return ret;
	ret = io_uring_register_buffers_update_tag(&rt->ring, 0, pools, NULL,
						   rt->nq);
	if (ret < 0)
		return ret;
	rt->stage_fd = memfd_create("fring-zc-stage", MFD_CLOEXEC);
	if (rt->stage_fd < 0)
		return -errno;
	ret = rt_pipe_open(rt);
	if (ret)
		fr_warn("ring thread %u: no zero-copy pipe (%s): small "
			"transfers on files in memory go through io-wq",
			rt->idx, strerror(-ret));
	return 0;
}
