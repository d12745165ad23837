/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy through the thread's pipe. io_uring gives a fixed op on a file
 * that cannot promise not to block (tmpfs, a memfd: no RWF_NOWAIT) to an
 * io-wq worker: two thread switches per request, which cost more than a
 * small transfer (doc/transports.md, "zerocopy"). A pipe that holds the
 * bytes already, or has room for them, never blocks, so io_uring completes
 * a fixed op on it while submitting it. Small transfers on such files go
 * through a pipe of the ring thread:
 *  - a READ: splice from the file into the pipe here (the file is in
 *    memory: this does not wait either), then READ_FIXED from the pipe into
 *    the client's pages;
 *  - a WRITE: WRITE_FIXED from the client's pages into the pipe, then, at
 *    its completion, splice from the pipe into the file;
 *  - a READ answered from memory: the answer written into the pipe, then
 *    READ_FIXED into the pages (zc.c), instead of the stage memfd.
 * The pipe is a FIFO the thread's requests share: their fixed ops are
 * queued in the order their bytes enter it, and each must move its whole
 * length, for which room is reserved before. One that moves another
 * length leaves the pipe out of step: every op still in flight on it is
 * then treated as failed (the caller moves its data without the pipe),
 * none is started, and once the last one is back the pipe is emptied and
 * used again.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "ring_int.h"

#define PIPE_PAGE 4096u

/* Room a transfer of size bytes may take: a pipe holds up to a page per
 * buffer, and a range not on page boundaries spans one page more. */
static size_t pipe_charge(size_t size)
{
	return (size + 2 * PIPE_PAGE - 1) / PIPE_PAGE * PIPE_PAGE;
}

int rt_pipe_open(struct ring_thread *rt)
{
	size_t want = 4 * pipe_charge(rt->rs->se->cfg.zc_pipe_max);
	int room;

	rt->pipe_fd[0] = rt->pipe_fd[1] = -1;
	if (!rt->rs->se->cfg.zc_pipe_max)
		return 0;
	if (pipe2(rt->pipe_fd, O_CLOEXEC | O_NONBLOCK) < 0) {
		rt->pipe_fd[0] = rt->pipe_fd[1] = -1;
		return -errno;
	}
	/* room for a few transfers of zc_pipe_max, at least 256 KiB, at most
	 * 4 MiB; not more: a splice out of a pipe allocates and zeroes a
	 * vector of one entry per page the pipe can hold, every time. Above
	 * pipe-max-size (1 MiB by default) takes CAP_SYS_RESOURCE: then 1 MiB
	 */
	if (want < (256u << 10))
		want = 256u << 10;
	if (want > (4u << 20))
		want = 4u << 20;
	room = fcntl(rt->pipe_fd[1], F_SETPIPE_SZ, (int)want);
	if (room <= 0 && want > (1u << 20))
		room = fcntl(rt->pipe_fd[1], F_SETPIPE_SZ, 1 << 20);
	if (room <= 0)
		room = fcntl(rt->pipe_fd[1], F_GETPIPE_SZ);
	rt->pipe_room = room > 0 ? (size_t)room : 0;
	return 0;
}

void rt_pipe_close(struct ring_thread *rt)
{
	for (int i = 0; i < 2; i++) {
		if (rt->pipe_fd[i] >= 0)
			close(rt->pipe_fd[i]);
		rt->pipe_fd[i] = -1;
	}
}

bool rt_pipe_take(struct ring_thread *rt, size_t size)
{
	size_t charge = pipe_charge(size);

	if (rt->pipe_fd[0] < 0 || rt->pipe_broken || size == 0 ||
	    size > rt->rs->se->cfg.zc_pipe_max ||
	    rt->pipe_used + charge > rt->pipe_room)
		return false;
	rt->pipe_used += charge;
	rt->pipe_inflight++;
	return true;
}

/* Whatever is in the pipe goes: it belongs to no op any more. */
static void pipe_drain(struct ring_thread *rt)
{
	char scratch[PIPE_PAGE];

	while (read(rt->pipe_fd[0], scratch, sizeof(scratch)) > 0)
		;
}

void rt_pipe_give(struct ring_thread *rt, size_t size, bool in_step)
{
	rt->pipe_used -= pipe_charge(size);
	rt->pipe_inflight--;
	if (!in_step && !rt->pipe_broken) {
		fr_warn("ring thread %u: a transfer through the zero-copy pipe "
			"moved an unexpected length; the ones in flight move "
			"again without it",
			rt->idx);
		rt->pipe_broken = true;
	}
	if (rt->pipe_broken && !rt->pipe_inflight) {
		pipe_drain(rt);
		rt->pipe_broken = false;
	}
}

/* Bytes of the pipe nobody will take (the op for them was not queued). */
void rt_pipe_discard(struct ring_thread *rt, size_t size, size_t n)
{
	char scratch[PIPE_PAGE];

	while (n) {
		ssize_t r = read(rt->pipe_fd[0], scratch,
				 n < sizeof(scratch) ? n : sizeof(scratch));

		if (r <= 0) {
			rt->pipe_broken = true;
			break;
		}
		n -= (size_t)r;
	}
	rt_pipe_give(rt, size, true);
}

ssize_t rt_pipe_fill(struct ring_thread *rt, int fd, off_t off, size_t size)
{
	loff_t pos = off;
	ssize_t n;

	if (!rt_pipe_take(rt, size))
		return -EAGAIN;
	n = splice(fd, &pos, rt->pipe_fd[1], NULL, size, SPLICE_F_NONBLOCK);
	if (n <= 0) {
		int err = n < 0 ? errno : 0;

		rt_pipe_give(rt, size, true);
		/* a file splice cannot read from: the fixed op on it then */
		if (err == EINVAL || err == ENOSYS || err == EAGAIN)
			return -EAGAIN;
		return -err;
	}
	return n;
}

ssize_t rt_pipe_fill_iov(struct ring_thread *rt, const struct iovec *iov,
			 int cnt, size_t size)
{
	ssize_t n;

	if (!rt_pipe_take(rt, size))
		return -EAGAIN;
	n = writev(rt->pipe_fd[1], iov, cnt);
	if (n == (ssize_t)size)
		return n;
	/* room was reserved, so this is not expected: undo what went in */
	rt_pipe_discard(rt, size, n > 0 ? (size_t)n : 0);
	return -EAGAIN;
}

ssize_t rt_pipe_empty_to(struct ring_thread *rt, int fd, off_t off, size_t size,
			 int res)
{
	loff_t pos = off;
	size_t left = res > 0 ? (size_t)res : 0;
	size_t moved = 0;
	int err = 0;

	if (res != (int)size || rt->pipe_broken) {
		/* what entered the pipe is not known to be this op's */
		rt_pipe_give(rt, size, false);
		return -EAGAIN;
	}
	while (left) {
		ssize_t n = splice(rt->pipe_fd[0], NULL, fd, &pos, left, 0);

		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			break;
		}
		left -= (size_t)n;
		moved += (size_t)n;
	}
	/* the file took fewer (ENOSPC, ...): the rest must not stay for the
	 * next op to take */
	rt_pipe_discard(rt, size, left);
	if (!moved && err)
		return -err;
	return (ssize_t)moved;
}
