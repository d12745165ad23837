/* SPDX-License-Identifier: MIT */
/*
 * splice(2) on the classic transport (-o splice_read,splice_write,
 * splice_move; dev only).
 *
 * splice_read: each queue splices requests from /dev/fuse into its own pipe
 * (fuse_dev_splice_read). A request is read out of the pipe into its slot
 * as read(2) would have put it, except a WRITE's payload: it stays in the
 * pipe until fring_write_to_fd() splices it into the backing fd, or until
 * the handler returns without having done so, when it is read into the slot
 * (an async answer, an error, a handler that wants memory).
 *
 * splice_write: fring_read_from_fd() splices the file into a data pipe of
 * the calling thread. fuse_dev_splice_write() wants the whole answer in one
 * pipe, header first, and the header's len equal to the spliced count,
 * which is only known once the file was spliced: so the header goes into a
 * second pipe, the data is spliced after it (pipe to pipe moves buffers),
 * and that pipe goes to /dev/fuse.
 *
 * Whatever fails before the answer reaches /dev/fuse falls back to the copy
 * path with the bytes read out of the pipe: nothing is lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fault.h"
#include "dev.h"
#include "reply.h"

/*
 * READs below this take the copy path: through the pipes a READ costs four
 * system calls (file to pipe, header, pipe to pipe, pipe to /dev/fuse)
 * against two (pread, writev), and at 4 KiB that cost 35 to 43% of the
 * IOPS (doc/benchmarks.md, "splice on dev").
 */
#define SPLICE_MIN_READ (16u * 1024)

/* pipe_owner: 0, or the request whose payload is in the queue's pipe,
 * tagged with who works on it now */
#define OWNER_TAKEN    1u /* fring_write_to_fd() is splicing it */
#define OWNER_DRAINING 2u /* the queue thread reads it into the slot */
#define OWNER_TAGS     3u

static unsigned move_flag(const struct fring_session *se)
{
	return se->splice & FUSE_SPLICE_MOVE ? SPLICE_F_MOVE : 0;
}

static void count_fallback(struct fring_queue *q, const char *why, int err)
{
	stat_add(q, splice_fallbacks, 1);
	fr_dbg("q%u: splice fell back to copying: %s: %s", q->idx, why,
	       strerror(err));
}

/* Reads len bytes a pipe holds (they are there: no wait). */
static int pipe_take(int fd, void *dst, size_t len)
{
	char *p = dst;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Empties what a pipe holds without a destination (a failed answer). */
static void pipe_discard(int fd, size_t len)
{
	char scratch[4096];

	while (len) {
		size_t n = len < sizeof(scratch) ? len : sizeof(scratch);

		if (pipe_take(fd, scratch, n))
			return;
		len -= n;
	}
}

/* fs.pipe-max-size, the largest pipe an unprivileged F_SETPIPE_SZ gets */
static size_t pipe_max_size(void)
{
	unsigned long v = 1048576;
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "re");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 1048576;
		fclose(f);
	}
	return v;
}

/*
 * A pipe of at least slots pages, or -errno. The size is rounded up to a
 * power of two (round_pipe_size()); past fs.pipe-max-size it is refused
 * (-E2BIG) even with CAP_SYS_RESOURCE, which could exceed it: the limit is
 * the administrator's, and the copy path works without it.
 */
static int pipe_open(int p[2], size_t slots)
{
	size_t bytes = FRING_PAGE;
	int ret;

	while (bytes < slots * FRING_PAGE)
		bytes *= 2;
	if (bytes > pipe_max_size())
		return -E2BIG;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	ret = fcntl(p[0], F_SETPIPE_SZ, (int)bytes);
	if (ret >= 0 && (size_t)ret >= slots * FRING_PAGE)
		return 0;
	ret = ret < 0 ? -errno : -ENOSPC;
	close(p[0]);
	close(p[1]);
	p[0] = p[1] = -1;
	return ret;
}

void splice_session_start(struct fring_session *se)
{
	if (!se->splice)
		return;
	if (se->transport != FRING_TRANSPORT_DEV) {
		fr_info("splice options ignored: transport %s is not dev",
			fring_transport_name(se->transport));
		se->splice = 0;
		return;
	}
	fr_info("splice on /dev/fuse:%s%s%s",
		se->splice & FUSE_SPLICE_READ ? " read" : "",
		se->splice & FUSE_SPLICE_WRITE ? " write" : "",
		se->splice & FUSE_SPLICE_MOVE ? " move" : "");
}

/* ---------------- splice_read ---------------- */

void splice_queue_setup(struct fring_queue *q)
{
	/* fuse_dev_splice_read() fails the request with EIO when its pages
	 * do not fit in the pipe: one page for the headers, one per payload
	 * page and one for a payload that does not start a page */
	size_t slots = (q->se->bufsize - FRING_PAGE) / FRING_PAGE + 3;
	int ret;

	q->pipe[0] = q->pipe[1] = -1;
	atomic_store(&q->pipe_owner, 0);
	if (!(q->se->splice & FUSE_SPLICE_READ) || q->tp != &fring_tp_dev)
		return;
	ret = pipe_open(q->pipe, slots);
	if (ret) {
		stat_add(q, splice_fallbacks, 1);
		fr_warn("q%u: no splice_read: a pipe of %zu KiB: %s (see "
			"fs.pipe-max-size); reading /dev/fuse",
			q->idx, slots * FRING_PAGE / 1024, strerror(-ret));
	}
}

void splice_queue_close(struct fring_queue *q)
{
	if (q->pipe[0] >= 0) {
		close(q->pipe[0]);
		close(q->pipe[1]);
	}
	q->pipe[0] = q->pipe[1] = -1;
}

ssize_t splice_read_msg(struct fring_queue *q, struct fring_req *req,
			size_t off)
{
	char *buf = req->mem + off;
	const struct fuse_in_header *ih = (const void *)buf;
	/* in_header + write_in at once: a WRITE's headers, or all of a small
	 * request (READ, GETATTR, FLUSH, ...) in one read */
	size_t head = sizeof(*ih) + sizeof(struct fuse_write_in);
	ssize_t n;
	int ret;

	n = splice(q->fd, NULL, q->pipe[1], NULL, req->memsz - off, 0);
	if (n < 0)
		return -errno;
	if ((size_t)n < head)
		head = (size_t)n;
	ret = pipe_take(q->pipe[0], buf, head);
	/* A WRITE's payload stays in the pipe only for a filesystem whose
	 * write handler takes every kind of buffer (FRING_FS_ZERO_COPY): one
	 * that reads src->mem gets it in memory, as read(2) would put it. */
	if (!ret && (size_t)n >= sizeof(*ih) && ih->opcode == FUSE_WRITE &&
	    !ih->total_extlen && q->se->conn.proto_minor >= 9 &&
	    ih->len == (size_t)n && (size_t)n > head &&
	    (q->se->conn.fs_flags & FRING_FS_ZERO_COPY)) {
		/* the payload stays in the pipe */
		dev_slot(req)->pipe_in = (uint32_t)((size_t)n - head);
		atomic_store(&q->pipe_owner, (uintptr_t)req);
	} else if (!ret && (size_t)n > head) {
		ret = pipe_take(q->pipe[0], buf + head, (size_t)n - head);
	}
	stat_add(q, splice_read_requests, 1);
	return ret ? ret : n;
}

/* The payload of req left in the pipe (all of it but what
 * fring_write_data_*() took) into the slot where read(2) would have put
 * it; the handler's src becomes memory. */
static void payload_to_slot(struct fring_queue *q, struct fring_req *req)
{
	uint32_t taken = dev_slot(req)->pipe_taken;

	if (pipe_take(q->pipe[0], req->data + taken,
		      dev_slot(req)->pipe_in - taken))
		fr_err("q%u: reading a WRITE's payload from the pipe failed",
		       q->idx);
	req->buf.kind = FRING_BUF_MEM;
	req->buf.mem = req->data;
	req->buf.buf_addr = (uint64_t)(uintptr_t)req->data;
}

void splice_settle(struct fring_queue *q)
{
	for (;;) {
		uintptr_t v = atomic_load(&q->pipe_owner);

		if (!v)
			return;
		if (!(v & OWNER_TAGS) &&
		    atomic_compare_exchange_strong(&q->pipe_owner, &v,
						   v | OWNER_DRAINING)) {
			payload_to_slot(q, (struct fring_req *)v);
			atomic_store(&q->pipe_owner, 0);
			return;
		}
		/* another thread splices it out right now: the pipe is
		 * needed for the next request, and that splice ends soon,
		 * with all of it taken, or some (fring_write_data_*()), the
		 * rest for here */
		sched_yield();
	}
}

int splice_write_to_fd(struct fring_req *req, int fd, off_t off)
{
	struct fring_queue *q = req->q;
	uintptr_t v = (uintptr_t)req;
	size_t left = dev_slot(req)->pipe_in, done = 0;
	int fault = fault_hit(FAULT_SPLICE_TO_FD);
	ssize_t n = 0;

	if (!atomic_compare_exchange_strong(&q->pipe_owner, &v,
					    v | OWNER_TAKEN)) {
		/* read into the slot already, or being read now */
		while ((atomic_load(&q->pipe_owner) & OWNER_TAGS) ==
		       OWNER_DRAINING)
			sched_yield();
		return dev_slot(req)->pipe_taken ? -ESPIPE : 0;
	}
	if (dev_slot(req)->pipe_taken) {
		/* fring_write_data_*() took the start: the whole is gone */
		atomic_store(&q->pipe_owner, (uintptr_t)req);
		return -ESPIPE;
	}
	while (!fault && done < left) {
		loff_t o = off + (off_t)done;

		n = splice(q->pipe[0], NULL, fd, &o, left - done,
			   move_flag(req->se));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (done == 0) {
		/* e.g. EINVAL: an O_APPEND fd, a file without splice_write */
		count_fallback(q, "pipe to the backing fd",
			       fault   ? -fault
			       : n < 0 ? errno
				       : EIO);
		payload_to_slot(q, req);
		atomic_store(&q->pipe_owner, 0);
		return 0;
	}
	if (done < left) /* written data is a good (short) answer */
		pipe_discard(q->pipe[0], left - done);
	atomic_store(&q->pipe_owner, 0);
	stat_add(q, splice_read_data_bytes, done);
	fring_reply_write(req, done);
	return 1;
}

/* ---------------- fring_write_data_*() ---------------- */

/*
 * Takes the pipe of req's payload for the caller: true when it holds it
 * (pipe_owner tagged TAKEN), false when the payload is in memory now or
 * all taken (the handler returned, splice_settle() ran). -EBUSY in *err
 * when another thread holds it for the same request.
 */
static bool pipe_hold(struct fring_queue *q, struct fring_req *req, int *err)
{
	*err = 0;
	for (;;) {
		uintptr_t v = (uintptr_t)req;

		if (atomic_compare_exchange_strong(&q->pipe_owner, &v,
						   v | OWNER_TAKEN))
			return true;
		if ((v & ~(uintptr_t)OWNER_TAGS) != (uintptr_t)req)
			return false;
		if (v & OWNER_TAKEN) {
			*err = -EBUSY;
			return false;
		}
		sched_yield(); /* being drained into the slot */
	}
}

/* len bytes from the pipe into fd (at off, or its position at -1). */
static ssize_t pipe_to_fd(struct fring_req *req, int fd, off_t off, size_t len)
{
	size_t done = 0;
	ssize_t n = 0;

	while (done < len) {
		loff_t o = off + (off_t)done;

		n = splice(req->q->pipe[0], NULL, fd, off < 0 ? NULL : &o,
			   len - done, move_flag(req->se));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (!done)
		return n < 0 ? -errno : 0;
	stat_add(req->q, splice_read_data_bytes, done);
	return (ssize_t)done;
}

ssize_t splice_write_data(struct fring_req *req, size_t data_off, int fd,
			  off_t off, void *dst, size_t len)
{
	struct fring_queue *q = req->q;
	struct dev_slot *ds = dev_slot(req);
	ssize_t n;
	int err;

	if (!ds->pipe_in)
		return io_write_data_mem(req, data_off, fd, off, dst, len);
	if (!pipe_hold(q, req, &err)) {
		if (err)
			return err;
		/* in memory from pipe_taken on */
		if (data_off < ds->pipe_taken)
			return -ESPIPE;
		return io_write_data_mem(req, data_off, fd, off, dst, len);
	}
	if (data_off != ds->pipe_taken) {
		atomic_store(&q->pipe_owner, (uintptr_t)req);
		return -ESPIPE;
	}
	if (dst) {
		err = pipe_take(q->pipe[0], dst, len);
		n = err ? err : (ssize_t)len;
	} else {
		n = pipe_to_fd(req, fd, off, len);
		if (n < 0 && n != -EAGAIN) {
			/* e.g. EINVAL: an O_APPEND fd, a file without
			 * splice_write: the rest through memory */
			count_fallback(q, "pipe to a file", (int)-n);
			payload_to_slot(q, req);
			atomic_store(&q->pipe_owner, 0);
			return io_write_data_mem(req, data_off, fd, off, NULL,
						 len);
		}
	}
	if (n > 0)
		ds->pipe_taken += (uint32_t)n;
	/* all taken: nothing left for splice_settle() */
	atomic_store(&q->pipe_owner,
		     ds->pipe_taken == ds->pipe_in ? 0 : (uintptr_t)req);
	return n;
}

/* ---------------- splice_write ---------------- */

/* The calling thread's two pipes for READ answers. */
struct tl_pipes {
	int data[2];
	int msg[2];
	size_t slots;		   /* pages each holds */
	struct fring_req *for_req; /* the answer being sent */
	size_t pending;		   /* bytes of it in data */
	bool broken;		   /* could not be made: copy path */
};

static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;
static _Thread_local struct tl_pipes *tl;

static void tl_free(void *p)
{
	struct tl_pipes *t = p;

	for (int i = 0; i < 2; i++) {
		if (t->data[i] >= 0)
			close(t->data[i]);
		if (t->msg[i] >= 0)
			close(t->msg[i]);
	}
	free(t);
}

static void tl_key_make(void)
{
	pthread_key_create(&tl_key, tl_free);
}

static struct tl_pipes *tl_get(const struct fring_session *se)
{
	/* a READ of max_pages pages at an offset inside a page spans one
	 * more; the header takes one in the message pipe */
	size_t slots = se->conn.max_pages + 2;
	int ret;

	if (tl)
		return tl->broken ? NULL : tl;
	pthread_once(&tl_once, tl_key_make);
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return NULL;
	tl->data[0] = tl->data[1] = tl->msg[0] = tl->msg[1] = -1;
	tl->slots = slots;
	ret = pipe_open(tl->data, slots);
	if (!ret)
		ret = pipe_open(tl->msg, slots + 1);
	if (ret) {
		tl->broken = true;
		fr_warn("no splice_write on this thread: pipes of %zu KiB: %s "
			"(see fs.pipe-max-size); READs are copied",
			(slots + 1) * FRING_PAGE / 1024, strerror(-ret));
	}
	pthread_setspecific(tl_key, tl);
	return tl->broken ? NULL : tl;
}

int splice_read_from_fd(struct fring_req *req, int fd, off_t off, size_t size)
{
	struct fring_queue *q = req->q;
	struct tl_pipes *t;
	size_t done = 0;
	ssize_t n = 0;

	if (size < SPLICE_MIN_READ)
		return 0;
	t = tl_get(req->se);
	if (!t || size / FRING_PAGE + 2 > t->slots) {
		count_fallback(q, "no pipe for the READ", t ? EFBIG : ENOMEM);
		return 0;
	}
	while (done < size) {
		loff_t o = off + (off_t)done;

		n = splice(fd, &o, t->data[1], NULL, size - done,
			   SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (n < 0 && done == 0) {
		/* the copy path gets the file's own error, or succeeds */
		count_fallback(q, "backing fd to pipe", errno);
		return 0;
	}
	t->for_req = req;
	t->pending = done;
	fring_reply_data(req, done);
	if (t->pending) /* the answer was refused before it was sent */
		pipe_discard(t->data[0], t->pending);
	t->for_req = NULL;
	t->pending = 0;
	return 1;
}

/* The answer did not go: its data back into iov[1] for writev. in_msg:
 * the bytes in the message pipe (the header, then data). */
static int back_to_copy(struct tl_pipes *t, struct fring_queue *q,
			struct iovec *iov, size_t in_msg, int err)
{
	struct fuse_out_header oh;
	char *dst = iov[1].iov_base;
	size_t moved = in_msg ? in_msg - sizeof(oh) : 0;
	int ret = 0;

	if (in_msg) {
		ret = pipe_take(t->msg[0], &oh, sizeof(oh));
		if (!ret)
			ret = pipe_take(t->msg[0], dst, moved);
	}
	if (!ret)
		ret = pipe_take(t->data[0], dst + moved, t->pending - moved);
	t->pending = 0;
	count_fallback(q, "answer through the pipe", err);
	return ret ? ret : 1;
}

int splice_send(struct fring_req *req, struct iovec *iov, int cnt)
{
	struct tl_pipes *t = tl;
	struct fring_queue *q = req->q;
	size_t n, in_msg = 0, len;
	unsigned mv = move_flag(req->se);
	ssize_t r;

	if (!t || t->for_req != req || !t->pending || cnt != 2 ||
	    iov[1].iov_len != t->pending)
		return 1;
	n = t->pending;
	len = sizeof(struct fuse_out_header) + n;
	r = write(t->msg[1], iov[0].iov_base, sizeof(struct fuse_out_header));
	/* 16 bytes into an empty pipe: all or nothing (PIPE_BUF) */
	if (r != (ssize_t)sizeof(struct fuse_out_header))
		return back_to_copy(t, q, iov, 0, r < 0 ? errno : EIO);
	in_msg = (size_t)r;
	while (in_msg < len) {
		r = splice(t->data[0], NULL, t->msg[1], NULL, len - in_msg,
			   SPLICE_F_NONBLOCK | mv);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return back_to_copy(t, q, iov, in_msg,
					    r < 0 ? errno : EIO);
		in_msg += (size_t)r;
	}
	r = fault_hit(FAULT_SPLICE_SEND);
	if (r < 0)
		errno = (int)-r;
	else
		do {
			r = splice(t->msg[0], NULL, q->fd, NULL, len, mv);
		} while (r < 0 && errno == EINTR);
	if (r == (ssize_t)len) {
		t->pending = 0;
		stat_add(q, splice_write_data_bytes, n);
		return 0;
	}
	/* fuse_dev_splice_write() takes the pipe's buffers before it parses
	 * them: unless it refused at once (EINVAL, pipe left full), the
	 * answer is gone, and dev_send() answers EIO */
	{
		int err = r < 0 ? errno : EIO;
		int avail = 0;

		if (ioctl(t->msg[0], FIONREAD, &avail) == 0 &&
		    (size_t)avail == len)
			return back_to_copy(t, q, iov, len, err);
		t->pending = 0;
		/* the request was interrupted or aborted meanwhile */
		return err == ENOENT ? 0 : -err;
	}
}
