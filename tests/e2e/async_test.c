/* SPDX-License-Identifier: MIT */
/*
 * async_test TRANSPORT: asynchronous answers.
 *  - "ring": getattr issues its own io_uring operation (a statx of /) on the
 *    queue's ring with fring_io_sqe()/fring_io_submit() and answers from the
 *    completion callback. On a ring transport (uring, bufpool,
 *    bufpool-registered) the SQE must be available on the queue thread; on
 *    dev fring_io_sqe() must say NULL.
 *  - "thread": READ is answered 50 ms later by another thread. The answer
 *    must reach the client although no other request arrives (on the ring
 *    the commit is handed to the queue's thread and submitted without
 *    waiting for the next kernel request). An answer left waiting for the
 *    next request would wait for good here (no other traffic, and the
 *    queue threads wake for nothing else), so the bound is a hang's, not
 *    a speed: PROMPT_S, generous for a loaded machine; the times are
 *    printed.
 * The client's reads are checked byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fring/fring.h>

#include "check.h"

#define T(cond, name, ...) chk_result(!!(cond), (name), __VA_ARGS__)
#define PROMPT_S	   20.0

enum { INO_RING = 2, INO_THREAD = 3 };
static const char payload[] = "answered from another thread\n";

static atomic_int sqe_available = -1;
static atomic_int io_callbacks;
static struct statx io_stx;

static void st_fill(fring_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = ino == FRING_ROOT_INO ? S_IFDIR | 0755 : S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = ino == INO_THREAD ? (off_t)strlen(payload) : 0;
}

static void a_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct fring_entry e = {0};

	if (parent != FRING_ROOT_INO)
		return (void)fring_reply_err(req, ENOENT);
	if (!strcmp(name, "ring"))
		e.ino = INO_RING;
	else if (!strcmp(name, "thread"))
		e.ino = INO_THREAD;
	else
		return (void)fring_reply_err(req, ENOENT);
	st_fill(e.ino, &e.attr);
	fring_reply_entry(req, &e);
}

static void statx_done(fring_req_t *req, int res, void *data)
{
	struct stat st;

	(void)data;
	atomic_fetch_add(&io_callbacks, 1);
	if (res < 0)
		return (void)fring_reply_err(req, -res);
	st_fill(INO_RING, &st);
	/* prove the result came from the operation: size = root's nlink */
	st.st_size = (off_t)io_stx.stx_nlink;
	fring_reply_attr(req, &st, 0);
}

static void a_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct io_uring_sqe *sqe;
	struct stat st;

	(void)fi;
	if (ino != INO_RING) {
		st_fill(ino, &st);
		return (void)fring_reply_attr(req, &st, 0);
	}
	sqe = fring_io_sqe(req);
	atomic_store(&sqe_available, sqe != NULL);
	if (!sqe) {
		struct statx stx;

		statx(AT_FDCWD, "/", 0, STATX_NLINK, &stx);
		st_fill(INO_RING, &st);
		st.st_size = (off_t)stx.stx_nlink;
		return (void)fring_reply_attr(req, &st, 0);
	}
	io_uring_prep_statx(sqe, AT_FDCWD, "/", 0, STATX_NLINK, &io_stx);
	if (fring_io_submit(req, sqe, statx_done, NULL))
		fring_reply_err(req, EIO);
}

static void a_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	(void)ino;
	fi->direct_io = 1;
	/* zerocopy: the late answer from memory is staged into the
	 * client's pages from another thread (read never uses dst->mem) */
	fi->zero_copy = 1;
	fring_reply_open(req, fi);
}

static void *late_answer(void *arg)
{
	fring_req_t *req = arg;

	usleep(50000);
	fring_reply_buf(req, payload, strlen(payload));
	return NULL;
}

static void a_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst)
{
	pthread_t th;

	(void)fi, (void)dst;
	if (ino != INO_THREAD || off != 0 || size < strlen(payload))
		return (void)fring_reply_buf(req, NULL, 0);
	fring_req_async(req);
	if (pthread_create(&th, NULL, late_answer, req))
		return (void)fring_reply_err(req, EAGAIN);
	pthread_detach(th);
}

static const struct fring_ops ops = {
	.lookup = a_lookup,
	.getattr = a_getattr,
	.open = a_open,
	.read = a_read,
};

static void *runner(void *arg)
{
	return (void *)(long)fring_session_run(arg);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char *argv[])
{
	const char *transport = argc > 1 ? argv[1] : "dev";
	bool ring = strcmp(transport, "dev") != 0;
	char mnt[] = "/tmp/fring-async.XXXXXX", path[96], buf[256];
	struct statx root;
	fring_config_t *cfg;
	fring_session_t *se;
	struct fring_stats st;
	struct stat sb;
	pthread_t th;
	void *rr;
	int ret;

	chk_init();
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount\n");
		return 77;
	}
	if (!mkdtemp(mnt))
		return 1;
	cfg = fring_config_new();
	fring_config_set(cfg, "transport", transport);
	ret = fring_session_new(&ops, sizeof(ops), NULL, cfg, &se);
	fring_config_free(cfg);
	if (ret || fring_session_mount(se, mnt)) {
		printf("SKIP: cannot mount with transport=%s\n", transport);
		rmdir(mnt);
		return 77;
	}
	pthread_create(&th, NULL, runner, se);

	/* 1: handler I/O on the ring */
	snprintf(path, sizeof(path), "%s/ring", mnt);
	statx(AT_FDCWD, "/", 0, STATX_NLINK, &root);
	ret = stat(path, &sb);
	T(ret == 0, "ring.stat", "stat failed: %s", strerror(errno));
	T(sb.st_size == (off_t)root.stx_nlink, "ring.result_from_io",
	  "expected size %u (nlink of /) got %lld", root.stx_nlink,
	  (long long)sb.st_size);
	T(atomic_load(&sqe_available) == (ring ? 1 : 0), "ring.sqe_available",
	  "expected fring_io_sqe() %s on %s", ring ? "non-NULL" : "NULL",
	  transport);
	T(atomic_load(&io_callbacks) == (ring ? 1 : 0), "ring.callback_ran",
	  "callbacks %d", atomic_load(&io_callbacks));

	/* 2: an answer from another thread, with no other traffic */
	for (int i = 0; i < 5; i++) {
		int fd;
		ssize_t n;
		double t0, took;

		snprintf(path, sizeof(path), "%s/thread", mnt);
		fd = open(path, O_RDONLY);
		t0 = now();
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
		took = now() - t0;
		T(n == (ssize_t)strlen(payload) &&
			  !memcmp(buf, payload, (size_t)n),
		  chk_name("thread.read%d", i), "read %zd bytes", n);
		T(took < PROMPT_S, chk_name("thread.prompt%d", i),
		  "the answer took %.2f s", took);
		chk_note("thread.read%d: answered after %.3f s (50 ms in the "
			 "handler's thread)",
			 i, took);
		if (fd >= 0)
			close(fd);
	}

	fring_session_exit(se);
	pthread_join(th, &rr);
	T(rr == NULL, "run_returns_0", "got %ld", (long)rr);
	fring_session_stats(se, FRING_STATS_ALL, &st);
	T(st.handler_bugs == 0, "no_handler_bugs", "%llu",
	  (unsigned long long)st.handler_bugs);
	T(st.in_flight == 0, "nothing_in_flight", "%llu",
	  (unsigned long long)st.in_flight);
	/* the open asked for zero-copy: the late answer went into the
	 * client's pages through the stage */
	if (!strcmp(transport, "zerocopy"))
		T(st.zero_copy_reads > 0 && st.zero_copy_staged > 0,
		  "zero_copy_staged", "%llu zero-copied READs, %llu staged",
		  (unsigned long long)st.zero_copy_reads,
		  (unsigned long long)st.zero_copy_staged);
	T(!strcmp(fring_transport_name(fring_session_transport(se)), transport),
	  "transport", "expected %s got %s", transport,
	  fring_transport_name(fring_session_transport(se)));
	fring_session_destroy(se);
	rmdir(mnt);
	return chk_finish();
}
