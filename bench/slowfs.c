/* SPDX-License-Identifier: MIT */
/*
 * slowfs [options] MOUNTPOINT: the libfring side of bench/slow.sh, a
 * read-only filesystem (bench/slowfs_ns.h) whose backend takes
 * latency_us (default 1000) for every LOOKUP, GETATTR and READ, as a
 * network filesystem waits for its server. bench/slowfs_ll.c is the same
 * filesystem on libfuse, written the ordinary libfuse way: a handler that
 * sleeps.
 *
 * Here no thread waits. A handler works out its answer, declares itself
 * asynchronous and returns; the queue thread goes on serving other
 * requests, and the answer leaves when the backend's time is up:
 *
 *  - backend=ring (default): the wait is an IORING_OP_TIMEOUT on the ring
 *    of the request's own queue (fring_io_sqe() + fring_io_submit()); its
 *    completion runs the answer on that queue thread, in the same
 *    io_uring_enter() as the FUSE traffic. This is what a network client
 *    written for libfring's ring transports would do with its socket (a
 *    SEND of the call and a RECV of the reply on the queue's ring): the
 *    timeout stands in for that round trip. No thread of its own, no
 *    hand-off between threads.
 *  - backend=thread, and on transport=dev (no ring): one backend thread
 *    holds the calls in order of their deadline (the latency is the same
 *    for all, so arrival order) and answers each at its deadline with
 *    fring_reply_*() from its own thread, as the receive thread of a
 *    network client that multiplexes its calls over one connection. On the
 *    ring transports the library hands such an answer to the request's
 *    queue thread.
 *
 * Options: -o latency_us=N (0 to 10,000,000), -o backend=ring|thread; and
 * libfring's own. Defaults: queue_depth=64 (a slow backend needs many
 * requests in flight, each holds its ring entry until answered, and the
 * kernel puts a request on the queue of its caller's CPU: with the
 * library's 8 per queue, at most 8 wait per CPU, however many clients
 * that CPU runs), max_write=131072 (read-only: the 128 KiB cap on a READ
 * keeps 64 ring entries at 8 MiB per queue instead of 64 MiB).
 *
 * Built by bench/slow.sh against the build's libfring and liburing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT */
#endif
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <fring/fring.h>

#include "slowfs_ns.h"

enum backend { BACKEND_RING, BACKEND_THREAD };

/* One backend call: what to answer, and when. */
struct call {
	fring_req_t *req;
	uint32_t opcode; /* FUSE_LOOKUP, FUSE_GETATTR or FUSE_READ */
	uint64_t ino;	 /* the answer's inode (0: no such name) */
	off_t off;	 /* READ */
	size_t size;
	void *mem;			/* READ: the request's dst buffer */
	struct __kernel_timespec delay; /* ring: read when submitted */
	struct timespec due;		/* thread: CLOCK_MONOTONIC */
	struct call *next;
};

struct slowfs {
	unsigned latency_us;
	enum backend backend;
	/* the backend thread (for backend=thread, and as the fall-back
	 * where a request has no ring) */
	pthread_t thread;
	bool started, failed, stopping;
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct call *head, **tail;
};

enum { OP_LOOKUP = 1, OP_GETATTR = 3, OP_READ = 15 }; /* FUSE opcodes */

static const char usage_text[] =
	"slowfs: a read-only filesystem whose backend takes latency_us for\n"
	"every lookup, getattr and read, answered asynchronously\n"
	"    usage: slowfs [options] MOUNTPOINT\n"
	"    -o latency_us=N        the backend's time per call (default "
	"1000)\n"
	"    -o backend=ring|thread wait on the queue's ring (default) or in "
	"one\n"
	"                           backend thread";

/* --- answers ------------------------------------------------------------ */

static void answer(struct call *c)
{
	struct fring_entry e = {.entry_timeout = SLOW_TIMEOUT,
				.attr_timeout = SLOW_TIMEOUT};
	struct stat st;

	switch (c->opcode) {
	case OP_LOOKUP:
		/* ino 0: a negative entry, cached as long */
		if (c->ino && ns_stat(c->ino, &e.attr) == 0)
			e.ino = c->ino;
		fring_reply_entry(c->req, &e);
		break;
	case OP_GETATTR:
		if (ns_stat(c->ino, &st))
			fring_reply_err(c->req, ENOENT);
		else
			fring_reply_attr(c->req, &st, SLOW_TIMEOUT);
		break;
	default:
		fring_reply_data(c->req,
				 ns_fill(c->ino, c->off, c->mem, c->size));
		break;
	}
	free(c);
}

/* --- backend=thread ----------------------------------------------------- */

static void *backend_thread(void *arg)
{
	struct slowfs *fs = arg;

	for (;;) {
		struct call *c;

		pthread_mutex_lock(&fs->lock);
		while (!fs->head && !fs->stopping)
			pthread_cond_wait(&fs->more, &fs->lock);
		c = fs->head;
		if (c) {
			fs->head = c->next;
			if (!fs->head)
				fs->tail = &fs->head;
		}
		pthread_mutex_unlock(&fs->lock);
		/* stop only when nothing waits: every call gets its answer */
		if (!c)
			return NULL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &c->due,
				       NULL) == EINTR)
			;
		answer(c);
	}
}

/* The thread starts with the first call that needs it (after fring_main()
 * daemonized: a fork keeps only the forking thread); none with
 * backend=ring on a ring transport. Called with fs->lock held. */
static void thread_start(struct slowfs *fs)
{
	int err;

	if (fs->started || fs->failed)
		return;
	err = pthread_create(&fs->thread, NULL, backend_thread, fs);
	if (err)
		fprintf(stderr, "slowfs: no backend thread (%s)\n",
			strerror(err));
	fs->started = !err;
	fs->failed = err != 0;
}

static void thread_submit(struct slowfs *fs, struct call *c)
{
	pthread_mutex_lock(&fs->lock);
	thread_start(fs);
	if (!fs->started) { /* no thread: wait here */
		struct timespec d = {fs->latency_us / 1000000,
				     (long)(fs->latency_us % 1000000) * 1000};

		pthread_mutex_unlock(&fs->lock);
		nanosleep(&d, NULL);
		answer(c);
		return;
	}
	fring_req_async(c->req);
	c->next = NULL;
	/* the deadline is taken under the lock, so the list stays in order */
	clock_gettime(CLOCK_MONOTONIC, &c->due);
	c->due.tv_sec += fs->latency_us / 1000000;
	c->due.tv_nsec += (long)(fs->latency_us % 1000000) * 1000;
	if (c->due.tv_nsec >= 1000000000) {
		c->due.tv_sec++;
		c->due.tv_nsec -= 1000000000;
	}
	*fs->tail = c;
	fs->tail = &c->next;
	pthread_cond_signal(&fs->more);
	pthread_mutex_unlock(&fs->lock);
}

/* --- backend=ring ------------------------------------------------------- */

static void ring_done(fring_req_t *req, int res, void *data)
{
	(void)req, (void)res; /* res: -ETIME, the timeout expired */
	answer(data);
}

/* The call's wait: on the queue's ring where there is one, else in the
 * backend thread. */
static void wait_backend(fring_req_t *req, struct call *c)
{
	struct slowfs *fs = fring_req_userdata(req);
	struct io_uring_sqe *sqe;

	c->req = req;
	if (fs->latency_us == 0) {
		answer(c);
		return;
	}
	sqe = fs->backend == BACKEND_RING ? fring_io_sqe(req) : NULL;
	if (sqe) {
		c->delay.tv_sec = fs->latency_us / 1000000;
		c->delay.tv_nsec = (long long)(fs->latency_us % 1000000) * 1000;
		io_uring_prep_timeout(sqe, &c->delay, 0, 0);
		if (fring_io_submit(req, sqe, ring_done, c) == 0)
			return;
		/* -ENOMEM: the SQE became a no-op; wait in the thread */
	}
	thread_submit(fs, c);
}

static struct call *new_call(fring_req_t *req, uint32_t opcode, uint64_t ino)
{
	struct call *c = calloc(1, sizeof(*c));

	if (!c) {
		fring_reply_err(req, ENOMEM);
		return NULL;
	}
	c->opcode = opcode;
	c->ino = ino;
	return c;
}

/* --- callbacks ---------------------------------------------------------- */

static void slow_init(void *userdata, struct fring_conn *conn)
{
	struct slowfs *fs = userdata;

	/* lookups in one directory reach the server concurrently (else the
	 * kernel serializes them on the directory) */
	conn->want |= FRING_CAP_PARALLEL_DIROPS;
	fs->head = NULL;
	fs->tail = &fs->head;
}

static void slow_destroy(void *userdata)
{
	struct slowfs *fs = userdata;

	pthread_mutex_lock(&fs->lock);
	if (!fs->started) {
		pthread_mutex_unlock(&fs->lock);
		return;
	}
	fs->stopping = true;
	pthread_cond_broadcast(&fs->more);
	pthread_mutex_unlock(&fs->lock);
	pthread_join(fs->thread, NULL);
	fs->started = false;
}

static void slow_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	/* the name is read here: it lives only as long as the handler */
	struct call *c = new_call(req, OP_LOOKUP, ns_lookup(parent, name));

	if (c)
		wait_backend(req, c);
}

static void slow_getattr(fring_req_t *req, fring_ino_t ino,
			 struct fring_file *fi)
{
	struct call *c = new_call(req, OP_GETATTR, ino);

	(void)fi;
	if (c)
		wait_backend(req, c);
}

static void slow_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	if (!ns_is_data(ino))
		return (void)fring_reply_err(req, EISDIR);
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return (void)fring_reply_err(req, EROFS);
	/* O_DIRECT: every read a synchronous READ of its own (without
	 * direct_io the kernel sends them as background requests, at most
	 * max_background at once) */
	if (fi->flags & O_DIRECT)
		fi->direct_io = 1;
	else
		fi->keep_cache = 1;
	fring_reply_open(req, fi);
}

static void slow_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		      struct fring_file *fi, const struct fring_buf *dst)
{
	struct call *c;

	(void)fi;
	if (dst->kind != FRING_BUF_MEM) /* never asked for zero-copy */
		return (void)fring_reply_err(req, EIO);
	c = new_call(req, OP_READ, ino);
	if (!c)
		return;
	c->off = off;
	c->size = size < dst->size ? size : dst->size;
	c->mem = dst->mem; /* valid until the answer */
	wait_backend(req, c);
}

/* ".", "..", then ns_dirent()'s entries; the cookie after entry k
 * (counting "." as 0) is k + 1. */
static void slow_readdir(fring_req_t *req, fring_ino_t ino, size_t size,
			 off_t off, struct fring_file *fi,
			 const struct fring_buf *dst)
{
	size_t used = 0;

	(void)fi;
	if (ino != SLOW_ROOT_INO && ino != SLOW_STATDIR_INO)
		return (void)fring_reply_err(req, ENOTDIR);
	for (uint64_t k = (uint64_t)off;; k++) {
		struct stat st = {0};
		char name[32];
		uint64_t child = ino;
		size_t len;

		if (k < 2)
			snprintf(name, sizeof(name), k ? ".." : ".");
		else if (ns_dirent(ino, k - 2, name, &child))
			break;
		st.st_ino = (ino_t)child;
		st.st_mode = child == SLOW_ROOT_INO || child == SLOW_STATDIR_INO
				     ? S_IFDIR
				     : S_IFREG;
		len = fring_add_direntry(req, (char *)dst->mem + used,
					 size - used, name, &st,
					 (off_t)(k + 1));
		if (len > size - used)
			break;
		used += len;
	}
	fring_reply_data(req, used);
}

static const struct fring_ops slow_ops = {
	.init = slow_init,
	.destroy = slow_destroy,
	.lookup = slow_lookup,
	.getattr = slow_getattr,
	.open = slow_open,
	.read = slow_read,
	.readdir = slow_readdir,
};

static int slow_opt(void *userdata, const char *key, const char *value)
{
	struct slowfs *fs = userdata;

	if (!strcmp(key, "latency_us")) {
		char *end = NULL;
		unsigned long v = value ? strtoul(value, &end, 10) : 0;

		if (!value || !*value || *end || v > 10000000) {
			fprintf(stderr,
				"slowfs: -o latency_us=%s: expected 0 "
				"to 10000000\n",
				value ? value : "");
			return -EINVAL;
		}
		fs->latency_us = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "backend")) {
		if (value && !strcmp(value, "ring"))
			fs->backend = BACKEND_RING;
		else if (value && !strcmp(value, "thread"))
			fs->backend = BACKEND_THREAD;
		else {
			fprintf(stderr,
				"slowfs: -o backend=%s: expected ring "
				"or thread\n",
				value ? value : "");
			return -EINVAL;
		}
		return 0;
	}
	return -ENOENT;
}

int main(int argc, char *argv[])
{
	static struct slowfs fs = {
		.latency_us = 1000,
		.backend = BACKEND_RING,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.more = PTHREAD_COND_INITIALIZER,
	};
	const struct fring_main_hooks hooks = {
		.usage = usage_text,
		.opt = slow_opt,
		.default_opts = "fsname=slowfs,queue_depth=64,max_write=131072",
	};

	/* The backend's time is the same for both servers of bench/slow.sh:
	 * without this, a sleeping thread (the thread backend; the libfuse
	 * twin's handlers) waits up to 50 us more (the default timer slack),
	 * an io_uring timeout not. Threads inherit it. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	return fring_main_ext(argc, argv, &slow_ops, sizeof(slow_ops), &fs,
			      &hooks);
}
