/* SPDX-License-Identifier: MIT */
/*
 * The classic transport: one thread per queue, each reading /dev/fuse
 * through its own FUSE_DEV_IOC_CLONE'd fd (the kernel keeps a processing
 * table per fd, so a reply must go to the fd its request came from).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dev.h"
#include "dispatch/dispatch.h"
#include "fault.h"
#include "opname.h"
#include "reply.h"
#include "req.h"

/*
 * Requests are read at this offset into the slot buffer so that a WRITE's
 * data (after the 40-byte in_header and 40-byte write_in) starts on a page
 * boundary: the kernel copies into aligned memory much faster.
 */
#define DEV_READ_OFF                                                           \
	(FRING_PAGE - sizeof(struct fuse_in_header) -                          \
	 sizeof(struct fuse_write_in))

int dev_write_all(int fd, struct iovec *iov, int cnt)
{
	ssize_t n;

	do {
		n = writev(fd, iov, cnt);
	} while (n < 0 && errno == EINTR);
	if (n >= 0)
		return 0;
	/* ENOENT: the kernel no longer knows the request: the connection
	 * was aborted meanwhile (fuse_dev_do_write(); a request read by the
	 * server is waited for even through a fatal signal,
	 * request_wait_answer()). Nobody waits for the answer. */
	if (errno == ENOENT)
		return 0;
	return -errno;
}

/*
 * An answer the kernel refuses before it finds its request (a header it
 * rejects, fuse_dev_do_write()) leaves the request waiting for an answer
 * forever, and its caller with it: a bare EIO ends it. If the kernel had
 * ended it already, this write gets ENOENT, which is harmless.
 */
static int dev_send(struct fring_req *req, struct iovec *iov, int cnt)
{
	const struct fuse_out_header *sent = iov[0].iov_base;
	struct fuse_out_header oh = {
		.len = sizeof(oh), .error = -EIO, .unique = sent->unique};
	struct iovec eio = {&oh, sizeof(oh)};
	int ret = fault_hit(FAULT_DEV_WRITE);

	if (!ret)
		ret = splice_send(req, iov, cnt);
	if (ret == 1) /* no splice, or its data back in iov */
		ret = dev_write_all(req->q->fd, iov, cnt);
	if (!ret || ret == -ENODEV)
		return ret;
	stat_add(req->q, send_failures, 1);
	fr_warn("q%u: answer to %s failed: %s; answering it EIO", req->q->idx,
		fring_opname(req->opcode), strerror(-ret));
	dev_write_all(req->q->fd, &eio, 1);
	return ret;
}

/* A WRITE whose payload splice_read left in the queue's pipe: the handler
 * sees a pipe buffer (src/dev/splice.c moves it, or puts it into memory
 * after the handler). */
static void dev_set_buf(struct fring_req *req, void *mem, size_t size)
{
	(void)mem;
	(void)size;
	if (dev_slot(req)->pipe_in) {
		req->buf.kind = FRING_BUF_PIPE;
		req->buf.mem = NULL;
		req->buf.buf_addr = 0;
	}
}

/* The data helpers on dev: splice when the options asked for it and it
 * can be had, else pread/pwrite on the slot's memory. */
static ssize_t dev_transfer(struct fring_req *req, int fd, off_t off,
			    size_t size, bool is_write)
{
	if (is_write) {
		/* splice_read: the payload may still be in the queue's pipe */
		int r = dev_slot(req)->pipe_in
				? splice_write_to_fd(req, fd, off)
				: 0;

		if (r)
			return r > 0 ? -EINPROGRESS : r;
	} else if ((req->se->splice & FUSE_SPLICE_WRITE) && size &&
		   splice_read_from_fd(req, fd, off, size)) {
		return -EINPROGRESS;
	}
	return io_sync_transfer(req, fd, off, size, 0, is_write);
}

const struct fring_tp fring_tp_dev = {
	.name = "dev",
	.slot_size = sizeof(struct dev_slot),
	.send = dev_send,
	.set_buf = dev_set_buf,
	.transfer = dev_transfer,
	.write_data = splice_write_data,
};

/* Waits until fd is readable or the session is told to stop. */
static int wait_readable(struct fring_session *se, int fd)
{
	struct pollfd p[2] = {{fd, POLLIN, 0}, {se->exit_efd, POLLIN, 0}};

	if (poll(p, 2, -1) < 0 && errno != EINTR)
		return -errno;
	if (p[1].revents || atomic_load(&se->exiting))
		return -ECANCELED;
	return 0;
}

int dev_read_init(struct fring_session *se,
		  int (*before_reply)(struct fring_session *se,
				      struct fuse_init_out *out))
{
	char buf[FUSE_MIN_READ_BUFFER] __attribute__((aligned(8)));
	struct fuse_init_out out;
	struct fring_msg m;
	size_t outlen;
	ssize_t n;
	int ret;

	for (;;) {
		n = read(se->fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				ret = wait_readable(se, se->fd);
				if (ret)
					return ret;
				continue;
			}
			ret = -errno;
			fr_err("reading INIT from /dev/fuse: %s",
			       strerror(errno));
			return ret;
		}
		if (msg_from_dev(&m, buf, (size_t)n) ||
		    m.ih->opcode != FUSE_INIT) {
			fr_err("first message from the kernel is not a valid "
			       "INIT");
			return -EPROTO;
		}
		ret = init_negotiate(se, (const void *)m.p, m.left, &out,
				     &outlen);
		if (ret == 0 && before_reply)
			ret = before_reply(se, &out);
		{
			struct fuse_out_header oh = {
				.len = (uint32_t)(sizeof(oh) +
						  (ret < 0 ? 0 : outlen)),
				.error = ret < 0 ? ret : 0,
				.unique = m.ih->unique,
			};
			struct iovec iov[2] = {{&oh, sizeof(oh)},
					       {&out, outlen}};
			int wret = dev_write_all(se->fd, iov, ret < 0 ? 1 : 2);

			if (ret < 0)
				return ret;
			if (wret) {
				fr_err("writing the INIT answer: %s",
				       strerror(-wret));
				return wret;
			}
		}
		if (ret == 0)
			return 0;
		/* ret == 1: the kernel will retry INIT in our major */
	}
}

/* A message too short to trust: answer it if its header is whole. */
static void dev_bad_message(struct fring_queue *q, struct fring_req *req,
			    size_t n)
{
	const struct fuse_in_header *ih =
		(const void *)(req->mem + DEV_READ_OFF);

	stat_add(q, malformed, 1);
	fr_warn("q%u: malformed message from the kernel (%zu bytes)", q->idx,
		n);
	if (n >= sizeof(*ih) && ih->unique &&
	    !(ih->unique & FUSE_INT_REQ_BIT)) {
		struct fuse_out_header oh = {sizeof(oh), -EIO, ih->unique};
		struct iovec iov = {&oh, sizeof(oh)};

		dev_write_all(q->fd, &iov, 1);
	}
}

/* The next request into req: bytes, or -errno. */
static ssize_t dev_read_msg(struct fring_queue *q, struct fring_req *req)
{
	ssize_t n;

	dev_slot(req)->pipe_in = 0;
	dev_slot(req)->pipe_taken = 0;
	if (q->pipe[0] >= 0) {
		n = splice_read_msg(q, req, DEV_READ_OFF);
		if (n != -EINVAL)
			return n;
		/* refused before a request was taken (len or pipe checks in
		 * fuse_dev_do_read): read(2) from now on */
		stat_add(q, splice_fallbacks, 1);
		fr_warn("q%u: splice from /dev/fuse refused (EINVAL); reading "
			"it",
			q->idx);
		splice_queue_close(q);
	}
	n = read(q->fd, req->mem + DEV_READ_OFF, req->memsz - DEV_READ_OFF);
	return n < 0 ? -errno : n;
}

static void *dev_worker(void *arg)
{
	struct fring_queue *q = arg;
	struct fring_session *se = q->se;
	sigset_t all;

	/* Signals belong to the thread that called run(). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);

	while (!atomic_load(&se->exiting)) {
		struct fring_req *req = req_get(q);
		struct fring_msg m;
		ssize_t n;

		if (!req)
			break;
		n = dev_read_msg(q, req);
		if (n < 0) {
			int err = (int)-n;

			req_put(req);
			if (err == EINTR || err == ENOENT)
				continue;
			if (err == EAGAIN) {
				if (wait_readable(se, q->fd) == -ECANCELED)
					break;
				continue;
			}
			if (err != ENODEV && err != ECONNABORTED)
				fr_err("q%u: reading /dev/fuse: %s", q->idx,
				       strerror(err));
			/* Unmounted or aborted: the session is over. */
			session_stop(se);
			break;
		}
		req->in_len = (size_t)n;
		if (msg_from_dev(&m, req->mem + DEV_READ_OFF, (size_t)n)) {
			dev_bad_message(q, req, (size_t)n);
			req_put(req);
			continue;
		}
		m.data_deferred = dev_slot(req)->pipe_in;
		kernel_order();
		fring_dispatch(req, &m);
		kernel_order();
		if (q->pipe[0] >= 0)
			splice_settle(q);
	}
	return NULL;
}

static int clone_fd(int master)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	uint32_t m = (uint32_t)master;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FUSE_DEV_IOC_CLONE, &m) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int dev_start_queue(struct fring_queue *q)
{
	int ret;

	fcntl(q->fd, F_SETFL, fcntl(q->fd, F_GETFL) | O_NONBLOCK);
	splice_queue_setup(q);
	ret = pthread_create(&q->thread, NULL, dev_worker, q);
	if (ret) {
		fr_err("cannot start the /dev/fuse thread of queue %u: %s",
		       q->idx, strerror(ret));
		return -ret;
	}
	q->thread_started = true;
	return 0;
}

/*
 * Queues whose clone failed share the mount's fd: that still works, only
 * slower (their threads contend on one descriptor). Said once, with the
 * count: at a descriptor limit every clone after the first failure fails
 * the same way, and a line per queue buried the one that mattered.
 */
static void clones_failed(const struct fring_session *se, unsigned failed,
			  unsigned first, int err)
{
	struct rlimit rl;
	char lim[64] = "";

	if (err == -EMFILE && !getrlimit(RLIMIT_NOFILE, &rl))
		snprintf(lim, sizeof(lim), " (RLIMIT_NOFILE %llu)",
			 (unsigned long long)rl.rlim_cur);
	fr_warn("FUSE_DEV_IOC_CLONE failed for %u of %u queues, from q%u on: "
		"%s%s; those queues share the mount's /dev/fuse descriptor "
		"(served, but their threads contend on one fd): raise the "
		"descriptor limit (ulimit -n) or ask for fewer queues "
		"(queues=N)",
		failed, se->nqueues, first, strerror(-err), lim);
}

int dev_start(struct fring_session *se)
{
	unsigned failed = 0, first = 0;
	int first_err = 0;

	for (unsigned i = 0; i < se->nqueues; i++) {
		struct fring_queue *q = &se->queues[i];
		int fd = i == 0 ? se->fd : clone_fd(se->fd);

		if (fd < 0) {
			if (!failed++) {
				first = i;
				first_err = fd;
			}
			fd = se->fd;
		}
		q->fd = fd;
	}
	if (failed)
		clones_failed(se, failed, first, first_err);
	for (unsigned i = 0; i < se->nqueues; i++) {
		int ret = dev_start_queue(&se->queues[i]);

		if (ret)
			return ret;
	}
	return 0;
}

void dev_stop(struct fring_session *se)
{
	if (se->side && se->side->thread_started) {
		pthread_join(se->side->thread, NULL);
		se->side->thread_started = false;
	}
	for (unsigned i = 0; i < se->nqueues; i++) {
		struct fring_queue *q = &se->queues[i];

		if (q->thread_started) {
			pthread_join(q->thread, NULL);
			q->thread_started = false;
		}
	}
	for (unsigned i = 0; i < se->nqueues; i++) {
		struct fring_queue *q = &se->queues[i];

		splice_queue_close(q);
		if (q->fd >= 0 && q->fd != se->fd)
			close(q->fd);
		if (q->tp == &fring_tp_dev)
			q->fd = -1;
	}
}
