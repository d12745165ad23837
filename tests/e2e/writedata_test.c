/* SPDX-License-Identifier: MIT */
/*
 * writedata_test TRANSPORT [splice]: fring_write_data_to_fd() and
 * fring_write_data_copy(), a WRITE's data moved without answering, on any
 * rung, in one process. The filesystem declares FRING_FS_ZERO_COPY, so
 * its write handler gets every kind of buffer the rung has: memory (dev,
 * uring, the pool rungs), the queue's pipe (dev with "splice":
 * -o splice_read), the client's pages (zerocopy). One file backed by a
 * memfd; the handler takes turns at what it does with each WRITE:
 *
 *  0. all of it into the memfd at once;
 *  1. in two pieces, in order, the second at the memfd's own position
 *     (off -1, after an lseek);
 *  2. into memory, then pwrite from there;
 *  3. on another thread after the handler returned: the first half into
 *     memory, the rest into the memfd;
 *  4. the misuse: a range past the data, fd -1, dst NULL, a range cut at
 *     the data's end, a range taken twice (-ESPIPE on a pipe, the same
 *     bytes elsewhere), a call after the answer (-EALREADY).
 *
 * With splice, one more WRITE's handler returns while another thread
 * holds the pipe (phase_held()).
 *
 * Four client threads write their own 64 KiB blocks with O_DIRECT at
 * once (so a queue thread waits for its own fixed op while other
 * completions arrive); the memfd must then hold every byte. The library's
 * counters must show the rung's operation: zero-copied WRITEs and their
 * fixed ops (io_ring) on zerocopy, spliced payload bytes with splice, and
 * no handler bug anywhere (an answer claiming bytes no fixed op moved out
 * of the client's pages is one).
 * Exit 0 pass, 1 fail, 77 skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fring/fring.h>

#include "check.h"
#include "srv.h"

#define T(cond, name, ...) chk_result(!!(cond), (name), __VA_ARGS__)

enum { INO_FILE = 2 };
#define BLOCK	(64 * 1024)
#define WRITERS 4
#define PER	10 /* blocks per writer */
#define MODES	5

static int backing = -1;
static pthread_mutex_t pos_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int writes, kinds[3], mode_done[MODES], misuse_bad;
static atomic_int fixed_ops; /* WRITE_FIXED the handlers caused, at least */
static char misuse_why[256];

static void note_bad(const char *fmt, long got)
{
	if (atomic_fetch_add(&misuse_bad, 1) == 0)
		snprintf(misuse_why, sizeof(misuse_why), fmt, got);
}

static void w_init(void *userdata, struct fring_conn *c)
{
	(void)userdata;
	/* the write handler takes every kind of buffer */
	c->fs_flags |= FRING_FS_ZERO_COPY;
}

static void w_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct fring_entry e = {0};

	if (parent != FRING_ROOT_INO || strcmp(name, "f"))
		return (void)fring_reply_err(req, ENOENT);
	e.ino = INO_FILE;
	chk_stat_fill(&e.attr, INO_FILE, 0, (off_t)WRITERS * PER * BLOCK);
	fring_reply_entry(req, &e);
}

static void w_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct stat st;

	(void)fi;
	chk_stat_fill(&st, ino, ino == FRING_ROOT_INO,
		      (off_t)WRITERS * PER * BLOCK);
	fring_reply_attr(req, &st, 0);
}

static void w_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	(void)ino;
	fi->direct_io = 1;
	fring_reply_open(req, fi);
}

/* into memory, then to the memfd: the count, or -errno */
static ssize_t via_memory(fring_req_t *req, size_t from, size_t len, off_t off)
{
	char *tmp = malloc(len ? len : 1);
	ssize_t n, w;

	if (!tmp)
		return -ENOMEM;
	n = fring_write_data_copy(req, from, tmp, len);
	w = n > 0 ? pwrite(backing, tmp, (size_t)n, off) : n;
	free(tmp);
	return w < 0 && n > 0 ? -errno : w;
}

static void answer(fring_req_t *req, ssize_t n)
{
	if (n < 0)
		fring_reply_err(req, (int)-n);
	else
		fring_reply_write(req, (size_t)n);
}

static void count_fixed(const struct fring_buf *src, int ops)
{
	if (src->kind == FRING_BUF_FIXED)
		atomic_fetch_add(&fixed_ops, ops);
}

/* 1: two pieces, the second at the descriptor's position */
static ssize_t two_pieces(fring_req_t *req, const struct fring_buf *src,
			  off_t off)
{
	size_t half = src->size / 2;
	ssize_t a, b;

	count_fixed(src, 2);
	a = fring_write_data_to_fd(req, 0, backing, off, half);
	if (a != (ssize_t)half)
		return a < 0 ? a : -EIO;
	/* the memfd's position is shared by the handlers: kept steady */
	pthread_mutex_lock(&pos_lock);
	if (lseek(backing, off + (off_t)half, SEEK_SET) < 0)
		b = -errno;
	else
		b = fring_write_data_to_fd(req, half, backing, -1,
					   src->size - half);
	pthread_mutex_unlock(&pos_lock);
	return b < 0 ? b : a + b;
}

struct later {
	fring_req_t *req;
	const struct fring_buf *src;
	off_t off;
};

/* 3: on another thread, after the handler returned */
static void *later_main(void *arg)
{
	struct later *l = arg;
	size_t half = l->src->size / 2;
	ssize_t a, b = 0;

	a = via_memory(l->req, 0, half, l->off);
	if (a == (ssize_t)half)
		b = fring_write_data_to_fd(l->req, half, backing,
					   l->off + (off_t)half,
					   l->src->size - half);
	answer(l->req, a < 0 ? a : b < 0 ? b : a + b);
	free(l);
	return NULL;
}

static void go_later(fring_req_t *req, const struct fring_buf *src, off_t off)
{
	struct later *l = malloc(sizeof(*l));
	pthread_t th;

	if (!l)
		return (void)fring_reply_err(req, ENOMEM);
	*l = (struct later){req, src, off};
	count_fixed(src, 2);
	fring_req_async(req);
	if (pthread_create(&th, NULL, later_main, l)) {
		free(l);
		return (void)fring_reply_err(req, EAGAIN);
	}
	pthread_detach(th);
}

#define EXPECT(got, want, what)                                                \
	do {                                                                   \
		ssize_t got_ = (got);                                          \
		if (got_ != (ssize_t)(want))                                   \
			note_bad(what ": got %ld", (long)got_);                \
	} while (0)

/* 4: every misuse answered with its errno, then the data done right */
static void misuse(fring_req_t *req, const struct fring_buf *src, off_t off)
{
	bool pipe = src->kind == FRING_BUF_PIPE;
	unsigned char tail[100], again;
	ssize_t all, n;

	EXPECT(fring_write_data_copy(req, src->size + 1, tail, 1), -EINVAL,
	       "data_off past the data");
	EXPECT(fring_write_data_to_fd(req, 0, -1, 0, 1), -EBADF, "fd -1");
	EXPECT(fring_write_data_to_fd(req, 0, backing, -2, 1), -EINVAL,
	       "off -2");
	EXPECT(fring_write_data_copy(req, 0, NULL, 1), -EFAULT, "dst NULL");
	EXPECT(fring_write_data_copy(req, src->size, tail, 1), 0, "at the end");
	if (pipe)
		EXPECT(fring_write_data_copy(req, 4096, tail, 1), -ESPIPE,
		       "pipe read out of order");
	count_fixed(src, 2);
	all = fring_write_data_to_fd(req, 0, backing, off, src->size);
	EXPECT(all, src->size, "all of it");
	/* the last bytes again: cut at the end; a pipe's are gone */
	n = fring_write_data_copy(req, src->size - 10, tail, sizeof(tail));
	if (pipe) {
		EXPECT(n, -ESPIPE, "a pipe read twice");
	} else {
		EXPECT(n, 10, "a range cut at the end");
		if (n == 10 && (pread(backing, &again, 1,
				      off + (off_t)src->size - 10) != 1 ||
				again != tail[0]))
			note_bad("the same bytes twice: got 0x%lx",
				 (long)tail[0]);
	}
	answer(req, all);
	EXPECT(fring_write_data_copy(req, 0, tail, 1), -EALREADY,
	       "after the answer");
}

/* ---- splice: the pipe held by another thread as the handler returns ---- */

#define HELD_OFF ((off_t)WRITERS * PER * BLOCK)
static int held_pipe[2] = {-1, -1};
static atomic_int held_tid, queue_tid, held_returned;

struct held {
	fring_req_t *req;
	size_t half;
};

/* The first half into a full pipe (the splice waits until the client side
 * reads it), then a short answer: the rest stays for the queue thread. */
static void *held_main(void *arg)
{
	struct held *h = arg;
	ssize_t n;

	atomic_store(&held_tid, (int)gettid());
	n = fring_write_data_to_fd(h->req, 0, held_pipe[1], -1, h->half);
	answer(h->req, n);
	free(h);
	return NULL;
}

/* The syscall tid is in: /proc's first field of its syscall file. */
static long task_syscall(int tid)
{
	char p[64], buf[64] = "";
	int fd;
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/self/task/%d/syscall", tid);
	fd = open(p, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* A thread's CPU time in clock ticks (utime + stime). */
static unsigned long task_ticks(int tid)
{
	char p[64], buf[512] = "", *s;
	unsigned long ut = 0, st = 0;
	int fd;
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/self/task/%d/stat", tid);
	fd = open(p, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	s = n > 0 ? strrchr(buf, ')') : NULL;
	/* after the name: state, then fields 4..13, then utime, stime */
	if (s && sscanf(s + 2,
			"%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			"%lu %lu",
			&ut, &st) == 2)
		return ut + st;
	return 0;
}

/* Returns once the other thread holds the pipe (it sits in splice). */
static void held(fring_req_t *req, const struct fring_buf *src)
{
	struct held *h = malloc(sizeof(*h));
	pthread_t th;
	int tid;

	atomic_store(&queue_tid, (int)gettid());
	if (!h || src->kind != FRING_BUF_PIPE) {
		free(h);
		return (void)fring_reply_err(req, EPROTO);
	}
	*h = (struct held){req, src->size / 2};
	fring_req_async(req);
	if (pthread_create(&th, NULL, held_main, h)) {
		free(h);
		return (void)fring_reply_err(req, EAGAIN);
	}
	pthread_detach(th);
	while (!(tid = atomic_load(&held_tid)) ||
	       task_syscall(tid) != SYS_splice)
		usleep(1000);
	atomic_store(&held_returned, 1);
}

/*
 * The client side: a WRITE whose handler returns while another thread
 * splices half of its data into a full pipe and then answers short. The
 * queue thread, which must put the rest of the payload into memory before
 * it reads the next request, waits while the pipe is held (it spins: its
 * CPU time grows), then drains what is left once the thread let go. The
 * write returns the half; the next write is served. A queue thread that
 * waited for the pipe to be emptied by someone else would never read
 * again, and the session would not end: the test's time limit fails it.
 */
struct held_writer {
	pthread_t th;
	int fd;
	const unsigned char *buf;
	ssize_t n;
};

static void *held_write(void *arg)
{
	struct held_writer *w = arg;

	w->n = pwrite(w->fd, w->buf, BLOCK, HELD_OFF);
	return NULL;
}

static void phase_held(const char *file)
{
	unsigned char *buf = aligned_alloc(4096, BLOCK), junk[4096];
	unsigned char *back = malloc(BLOCK / 2);
	int fd = open(file, O_WRONLY | O_DIRECT);
	struct held_writer w;
	unsigned long t0;
	size_t got = 0;

	if (!buf || !back || fd < 0 || pipe2(held_pipe, O_CLOEXEC) ||
	    fcntl(held_pipe[1], F_SETPIPE_SZ, 4096) < 0) {
		T(0, "held_setup", "%s", strerror(errno));
		goto out;
	}
	/* full: the splice into it waits */
	memset(junk, 0xee, sizeof(junk));
	if (write(held_pipe[1], junk, sizeof(junk)) != (ssize_t)sizeof(junk)) {
		T(0, "held_setup", "filling the pipe: %s", strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < BLOCK; i++)
		buf[i] = chk_pat(WRITERS * 1000, (uint64_t)i);
	w = (struct held_writer){.fd = fd, .buf = buf};
	pthread_create(&w.th, NULL, held_write, &w);
	while (!atomic_load(&held_returned))
		usleep(1000);
	/* the queue thread spins over the held pipe */
	t0 = task_ticks(atomic_load(&queue_tid));
	while (task_ticks(atomic_load(&queue_tid)) < t0 + 3)
		usleep(1000);
	/* let go: the junk, then the half the thread spliced */
	if (read(held_pipe[0], junk, sizeof(junk)) != (ssize_t)sizeof(junk))
		T(0, "held_drain", "junk: %s", strerror(errno));
	while (got < BLOCK / 2) {
		ssize_t n = read(held_pipe[0], back + got, BLOCK / 2 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	pthread_join(w.th, NULL);
	T(w.n == BLOCK / 2, "held_short_write", "pwrite %zd, spliced %zu", w.n,
	  got);
	for (size_t i = 0; i < got; i++)
		if (back[i] != chk_pat(WRITERS * 1000, (uint64_t)i)) {
			T(0, "held_bytes", "byte %zu differs", i);
			goto out;
		}
	T(got == BLOCK / 2, "held_bytes", "%zu spliced", got);
	/* the queue goes on */
	for (size_t i = 0; i < BLOCK; i++)
		buf[i] = chk_pat(WRITERS * 1000 + 1, (uint64_t)i);
	T(pwrite(fd, buf, BLOCK, HELD_OFF + BLOCK) == BLOCK, "held_next_write",
	  "%s", strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(back);
}

static void w_write(fring_req_t *req, fring_ino_t ino,
		    const struct fring_buf *src, off_t off,
		    struct fring_file *fi)
{
	int mode;

	(void)ino, (void)fi;
	if (off == HELD_OFF)
		return held(req, src);
	mode = atomic_fetch_add(&writes, 1) % MODES;
	if (src->kind <= FRING_BUF_PIPE)
		atomic_fetch_add(&kinds[src->kind], 1);
	atomic_fetch_add(&mode_done[mode], 1);
	switch (mode) {
	case 0:
		count_fixed(src, 1);
		answer(req,
		       fring_write_data_to_fd(req, 0, backing, off, src->size));
		break;
	case 1:
		answer(req, two_pieces(req, src, off));
		break;
	case 2:
		count_fixed(src, 1);
		answer(req, via_memory(req, 0, src->size, off));
		break;
	case 3:
		go_later(req, src, off);
		break;
	default:
		misuse(req, src, off);
		break;
	}
}

static const struct fring_ops ops = {
	.init = w_init,
	.lookup = w_lookup,
	.getattr = w_getattr,
	.open = w_open,
	.write = w_write,
};

static char path[96];

/* one client: its blocks, one pwrite each */
static void *writer_main(void *arg)
{
	unsigned w = (unsigned)(uintptr_t)arg;
	unsigned char *buf = aligned_alloc(4096, BLOCK);
	int fd = open(path, O_WRONLY | O_DIRECT);
	long bad = 0;

	for (unsigned b = 0; buf && fd >= 0 && b < PER; b++) {
		off_t off = ((off_t)w * PER + b) * BLOCK;

		for (size_t i = 0; i < BLOCK; i++)
			buf[i] = chk_pat(w * 1000 + b, (uint64_t)i);
		if (pwrite(fd, buf, BLOCK, off) != BLOCK)
			bad++;
	}
	if (fd < 0 || !buf)
		bad = -1;
	if (fd >= 0)
		close(fd);
	free(buf);
	return (void *)bad;
}

/* the memfd holds every block byte for byte */
static void check_backing(void)
{
	unsigned char *got = malloc(BLOCK), *want = malloc(BLOCK);

	for (unsigned w = 0; got && want && w < WRITERS; w++) {
		for (unsigned b = 0; b < PER; b++) {
			off_t off = ((off_t)w * PER + b) * BLOCK;
			ssize_t n = pread(backing, got, BLOCK, off);

			for (size_t i = 0; i < BLOCK; i++)
				want[i] = chk_pat(w * 1000 + b, (uint64_t)i);
			if (n != BLOCK || memcmp(got, want, BLOCK)) {
				T(0, chk_name("bytes_w%u_b%u", w, b),
				  "pread %zd, bytes %s", n,
				  n == BLOCK ? "differ" : "short");
				goto out;
			}
		}
	}
	T(got && want, "every_byte_arrived", "%d writers x %d blocks", WRITERS,
	  PER);
out:
	free(got);
	free(want);
}

int main(int argc, char *argv[])
{
	const char *transport = argc > 1 ? argv[1] : "dev";
	bool splice = argc > 2 && !strcmp(argv[2], "splice");
	bool zc = !strcmp(transport, "zerocopy");
	char mnt[] = "/tmp/fring-writedata.XXXXXX";
	fring_session_t *se;
	pthread_t th, wt[WRITERS];

	chk_init();
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount\n");
		return CHK_EXIT_SKIP;
	}
	backing = memfd_create("writedata_test", MFD_CLOEXEC);
	if (backing < 0 || !mkdtemp(mnt))
		return 1;
	/* splice: a pipe for a whole WRITE must fit fs.pipe-max-size */
	if (srv_start(transport, splice ? "splice_read,max_write=262144" : NULL,
		      &ops, sizeof(ops), mnt, &se, &th)) {
		rmdir(mnt);
		return 1;
	}

	snprintf(path, sizeof(path), "%s/f", mnt);
	for (unsigned w = 0; w < WRITERS; w++)
		pthread_create(&wt[w], NULL, writer_main, (void *)(uintptr_t)w);
	for (unsigned w = 0; w < WRITERS; w++) {
		void *bad;

		pthread_join(wt[w], &bad);
		T(bad == NULL, chk_name("writer%u", w), "%ld failed writes",
		  (long)bad);
	}
	check_backing();
	if (splice)
		phase_held(path);
	for (int m = 0; m < MODES; m++)
		T(atomic_load(&mode_done[m]) > 0, chk_name("mode%d_ran", m),
		  "%d", atomic_load(&mode_done[m]));
	T(atomic_load(&misuse_bad) == 0, "misuse_answers", "%d wrong: %s",
	  atomic_load(&misuse_bad), misuse_why);
	chk_note("buffers: %d memory, %d fixed, %d pipe",
		 atomic_load(&kinds[FRING_BUF_MEM]),
		 atomic_load(&kinds[FRING_BUF_FIXED]),
		 atomic_load(&kinds[FRING_BUF_PIPE]));
	if (zc) {
		T(atomic_load(&kinds[FRING_BUF_FIXED]) == atomic_load(&writes),
		  "every_write_fixed", "%d of %d",
		  atomic_load(&kinds[FRING_BUF_FIXED]), atomic_load(&writes));
		T(srv_counter(se, "zero_copy_writes") >=
			  (uint64_t)WRITERS * PER,
		  "zero_copy_writes", "%llu",
		  (unsigned long long)srv_counter(se, "zero_copy_writes"));
		T(srv_counter(se, "io_ring") >=
			  (uint64_t)atomic_load(&fixed_ops),
		  "fixed_ops_counted", "io_ring %llu, at least %d expected",
		  (unsigned long long)srv_counter(se, "io_ring"),
		  atomic_load(&fixed_ops));
	} else if (splice) {
		T(atomic_load(&kinds[FRING_BUF_PIPE]) > 0, "writes_see_pipes",
		  "%d of %d", atomic_load(&kinds[FRING_BUF_PIPE]),
		  atomic_load(&writes));
		T(srv_counter(se, "splice_read_data_bytes") > 0,
		  "spliced_bytes", "%llu",
		  (unsigned long long)srv_counter(se,
						  "splice_read_data_bytes"));
	} else {
		T(atomic_load(&kinds[FRING_BUF_MEM]) == atomic_load(&writes),
		  "every_write_memory", "%d of %d",
		  atomic_load(&kinds[FRING_BUF_MEM]), atomic_load(&writes));
	}
	srv_stop(se, th);
	rmdir(mnt);
	return chk_finish();
}
