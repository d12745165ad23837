/* SPDX-License-Identifier: MIT */
/*
 * hostile_test TRANSPORT: a filesystem whose handlers make every mistake,
 * served in-process, and a client in the same process that must only see
 * valid answers (reliability.md, "Hostile handlers").
 *
 * Two sessions run at once:
 *  - B, with -o request_timeout=1: one READ is never answered. The kernel
 *    raises the timeout to 15 s and checks every 15 s
 *    (fuse_init_server_timeout(), fuse_check_timeout()), then aborts the
 *    whole connection: the reader gets ECONNABORTED, later calls ENOTCONN,
 *    and the session ends by itself.
 *  - A, without a timeout, while B waits: a READ held unanswered shows in
 *    the stats (in_flight, oldest_pending_ns) while other requests are
 *    served, and gets its answer late; then each mistake once: a second
 *    answer (refused with -EALREADY, the client sees the first), more READ
 *    data than asked (EIO, nothing reaches the client's buffer), errnos out
 *    of 1..511 (EIO), answers of the wrong type (EIO), no answer at all
 *    (EIO). Each must add exactly one to handler_bugs and one line to the
 *    log, which the test captures with fring_set_log().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fring/fring.h>

#include "check.h"

#define T(cond, name, ...) chk_result(!!(cond), (name), __VA_ARGS__)
#define NS		   1000000000ull
/* Seconds to wait for what should come at once (a request reaching its
 * handler, a session ending): only waited for in full when it does not
 * come, so generous for a loaded machine. */
#define WAIT_S 30

enum {
	INO_HANG = 2,	   /* READ: held, answered late (A) or never (B) */
	INO_DOUBLE = 3,	   /* READ: answered twice */
	INO_BIG = 4,	   /* READ: one byte more than asked */
	INO_GOOD = 5,	   /* READ: the file's bytes */
	INO_NOANSWER = 6,  /* READ: returns without answering */
	INO_WRONGATTR = 7, /* GETATTR: answered with data */
	INO_WRONGREAD = 8, /* READ: answered with attributes */
	INO_ERR = 10,	   /* OPEN: answered with errs[ino - INO_ERR] */
};

/* fring_reply_* return 0 or a negative errno, never this */
#define SECOND_PENDING 1

static const char good[] = "good data, byte for byte\n";
static const char first[] = "the first answer\n";
static const char late[] = "answered late\n";
static char big[4097];

/* errnos handlers might pass; only 13 is valid */
static const int errs[] = {-ENOENT, 0, 512, 4096, 100000, INT_MIN, 13};
#define NERRS ((int)(sizeof(errs) / sizeof(errs[0])))

static const struct {
	const char *name;
	fring_ino_t ino;
} names[] = {
	{"hang", INO_HANG},
	{"double", INO_DOUBLE},
	{"big", INO_BIG},
	{"good", INO_GOOD},
	{"noanswer", INO_NOANSWER},
	{"wrongattr", INO_WRONGATTR},
	{"wrongread", INO_WRONGREAD},
};

struct srv {
	const char *name;
	_Atomic(fring_req_t *) held; /* the READ of INO_HANG */
	atomic_int second_ret;	     /* what the second answer returned,
				      SECOND_PENDING until it has */
};

/* ---------------- the log ---------------- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[1 << 16];
static size_t log_len;

static void log_sink(enum fring_log_level lvl, const char *line, void *data)
{
	size_t n = strlen(line);

	(void)data;
	printf("# log %d: %s\n", (int)lvl, line);
	pthread_mutex_lock(&log_lock);
	if (log_len + n + 2 < sizeof(log_text)) {
		memcpy(log_text + log_len, line, n);
		log_len += n;
		log_text[log_len++] = '\n';
		log_text[log_len] = '\0';
	}
	pthread_mutex_unlock(&log_lock);
}

/* Lines of the log containing all of a and b (b may be NULL). */
static int log_count(const char *a, const char *b)
{
	int n = 0;

	pthread_mutex_lock(&log_lock);
	for (char *l = log_text; *l;) {
		char *nl = strchr(l, '\n');

		*nl = '\0';
		if (strstr(l, a) && (!b || strstr(l, b)))
			n++;
		*nl = '\n';
		l = nl + 1;
	}
	pthread_mutex_unlock(&log_lock);
	return n;
}

/* ---------------- the filesystem ---------------- */

static void st_fill(fring_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = ino == FRING_ROOT_INO ? S_IFDIR | 0755 : S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = 4096;
}

static void h_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct fring_entry e = {0};

	if (parent != FRING_ROOT_INO)
		return (void)fring_reply_err(req, ENOENT);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i].name))
			e.ino = names[i].ino;
	if (!strncmp(name, "err-", 4) && atoi(name + 4) < NERRS)
		e.ino = INO_ERR + (fring_ino_t)atoi(name + 4);
	if (!e.ino)
		return (void)fring_reply_err(req, ENOENT);
	st_fill(e.ino, &e.attr);
	/* attributes never cached: every stat() is a GETATTR */
	e.entry_timeout = 60;
	fring_reply_entry(req, &e);
}

static void h_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct stat st;

	(void)fi;
	if (ino == INO_WRONGATTR)
		return (void)fring_reply_buf(req, "x", 1);
	st_fill(ino, &st);
	fring_reply_attr(req, &st, 0);
}

static void h_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	if (ino >= INO_ERR)
		return (void)fring_reply_err(req, errs[ino - INO_ERR]);
	/* READs of exactly what the client asked, sent while it waits */
	fi->direct_io = 1;
	fring_reply_open(req, fi);
}

static void h_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst)
{
	struct srv *s = fring_req_userdata(req);
	struct stat st;

	(void)fi, (void)dst;
	switch (ino) {
	case INO_HANG:
		fring_req_async(req);
		atomic_store(&s->held, req);
		return;
	case INO_DOUBLE:
		fring_reply_buf(req, first, strlen(first));
		atomic_store(&s->second_ret, fring_reply_buf(req, "second", 6));
		return;
	case INO_BIG:
		/* from memory of ours: dst may be the client's pages
		 * (zerocopy), which only fixed io_uring ops reach */
		if (size >= sizeof(big))
			return (void)fring_reply_err(req, EFBIG);
		memset(big, 'B', size + 1);
		fring_reply_buf(req, big, size + 1);
		return;
	case INO_NOANSWER:
		return;
	case INO_WRONGREAD:
		st_fill(ino, &st);
		fring_reply_attr(req, &st, 0);
		return;
	default:
		if (off >= (off_t)strlen(good))
			return (void)fring_reply_buf(req, NULL, 0);
		fring_reply_buf(req, good + off,
				strlen(good) - (size_t)off < size
					? strlen(good) - (size_t)off
					: size);
	}
}

static const struct fring_ops ops = {
	.lookup = h_lookup,
	.getattr = h_getattr,
	.open = h_open,
	.read = h_read,
};

/* ---------------- sessions and clients ---------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct mount {
	char dir[64];
	struct srv srv;
	fring_session_t *se;
	pthread_t runner;
	atomic_bool ended;
	long run_ret;
};

static void *runner(void *arg)
{
	struct mount *m = arg;

	m->run_ret = fring_session_run(m->se);
	atomic_store(&m->ended, true);
	return NULL;
}

/* 0, or 77 when this transport cannot be mounted here */
static int start(struct mount *m, const char *transport, const char *opts)
{
	fring_config_t *cfg = fring_config_new();
	int ret;

	snprintf(m->dir, sizeof(m->dir), "/tmp/fring-hostile.XXXXXX");
	if (!mkdtemp(m->dir))
		return 1;
	m->srv.name = m->dir;
	atomic_init(&m->srv.second_ret, SECOND_PENDING);
	fring_config_set(cfg, "transport", transport);
	if (opts)
		fring_config_parse(cfg, opts);
	ret = fring_session_new(&ops, sizeof(ops), &m->srv, cfg, &m->se);
	fring_config_free(cfg);
	if (ret || fring_session_mount(m->se, m->dir)) {
		printf("SKIP: cannot mount with transport=%s\n", transport);
		rmdir(m->dir);
		return 77;
	}
	pthread_create(&m->runner, NULL, runner, m);
	return 0;
}

/* Waits up to secs for the session to end by itself, then ends it. */
static void stop(struct mount *m, double secs)
{
	for (double t0 = now(); !atomic_load(&m->ended) && now() - t0 < secs;)
		usleep(20000);
	fring_session_exit(m->se);
	pthread_join(m->runner, NULL);
}

struct reader {
	char path[96];
	char buf[256];
	ssize_t n;
	int err;
	double t0, took;
	atomic_bool done;
	pthread_t th;
};

static void *read_file(void *arg)
{
	struct reader *r = arg;
	int fd = open(r->path, O_RDONLY);

	r->t0 = now();
	errno = 0;
	r->n = fd < 0 ? -1 : read(fd, r->buf, sizeof(r->buf));
	r->err = errno;
	r->took = now() - r->t0;
	if (fd >= 0)
		close(fd);
	atomic_store(&r->done, true);
	return NULL;
}

static void start_reader(struct reader *r, const char *dir, const char *name)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s/%s", dir, name);
	pthread_create(&r->th, NULL, read_file, r);
}

static uint64_t bugs(struct mount *m)
{
	struct fring_stats st;

	fring_session_stats(m->se, FRING_STATS_ALL, &st);
	return st.handler_bugs;
}

/* Reads name on m: n bytes (or -1) into buf, errno in *err. */
static ssize_t read_name(struct mount *m, const char *name, char *buf,
			 size_t size, int *err)
{
	char path[96];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", m->dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	errno = 0;
	n = read(fd, buf, size);
	*err = errno;
	close(fd);
	return n;
}

/* One mistake: exactly one more handler bug and one more log line. */
static void expect_bug(struct mount *m, const char *what, uint64_t before,
		       int log_before, const char *log_a, const char *log_b)
{
	uint64_t after = bugs(m);
	int lines = log_count(log_a, log_b);

	T(after == before + 1, chk_name("%s.counted", what),
	  "expected handler_bugs %llu got %llu", (unsigned long long)before + 1,
	  (unsigned long long)after);
	T(lines == log_before + 1, chk_name("%s.logged", what),
	  "expected %d log line(s) with \"%s\"%s%s got %d", log_before + 1,
	  log_a, log_b ? " and " : "", log_b ? log_b : "", lines);
}

/* ---------------- A: held answer, then every mistake ---------------- */

static void held_but_serving(struct mount *a)
{
	struct reader r;
	struct fring_stats st;
	fring_req_t *req;
	char buf[64];
	int err, served = 0;

	start_reader(&r, a->dir, "hang");
	for (int i = 0; i < WAIT_S * 100 && !atomic_load(&a->srv.held); i++)
		usleep(10000);
	req = atomic_load(&a->srv.held);
	if (!T(req != NULL, "pending.handler_holds", "no READ arrived in %d s",
	       WAIT_S))
		return;
	usleep(1200000);
	for (int i = 0; i < 20; i++) {
		ssize_t n = read_name(a, "good", buf, sizeof(buf), &err);

		served += n == (ssize_t)strlen(good) &&
			  !memcmp(buf, good, strlen(good));
	}
	T(served == 20, "pending.others_served", "%d of 20 reads right",
	  served);
	fring_session_stats(a->se, FRING_STATS_ALL, &st);
	T(st.in_flight >= 1, "pending.in_flight", "in_flight %llu",
	  (unsigned long long)st.in_flight);
	T(st.oldest_pending_ns >= 1200000000ull &&
		  st.oldest_pending_ns < 60 * NS,
	  "pending.oldest_age", "expected 1.2 s..60 s got %.3f s",
	  (double)st.oldest_pending_ns / 1e9);
	T(!atomic_load(&r.done), "pending.client_waits",
	  "the reader returned before the answer");

	T(fring_reply_buf(req, late, strlen(late)) == 0, "pending.late_answer",
	  "the late answer failed");
	pthread_join(r.th, NULL);
	T(r.n == (ssize_t)strlen(late) && !memcmp(r.buf, late, strlen(late)),
	  "pending.client_gets_late_answer", "read %zd (%s)", r.n,
	  strerror(r.err));
	/* The held READ (1.2 s old and more) no longer counts. Polled: the
	 * reader's close sends a RELEASE, which may be pending a moment,
	 * longer on a loaded machine; the READ, if still counted, would
	 * stay the oldest for good. */
	for (int i = 0; i < WAIT_S * 100; i++) {
		fring_session_stats(a->se, FRING_STATS_ALL, &st);
		if (st.oldest_pending_ns < NS)
			break;
		usleep(10000);
	}
	T(st.oldest_pending_ns < NS, "pending.cleared",
	  "oldest_pending %.3f s after the answer",
	  (double)st.oldest_pending_ns / 1e9);
}

static void double_answer(struct mount *a)
{
	uint64_t b = bugs(a);
	int l = log_count("second answer to READ", NULL), err;
	char buf[64];
	ssize_t n = read_name(a, "double", buf, sizeof(buf), &err);

	T(n == (ssize_t)strlen(first) && !memcmp(buf, first, strlen(first)),
	  "double.client_sees_first", "read %zd (%s)", n, strerror(err));
	/* The client can have the first answer before the handler's second
	 * one has returned (and logged): wait for it, WAIT_S at most. */
	for (int i = 0; i < WAIT_S * 1000 &&
			atomic_load(&a->srv.second_ret) == SECOND_PENDING;
	     i++)
		usleep(1000);
	T(atomic_load(&a->srv.second_ret) == -EALREADY, "double.refused",
	  "expected -EALREADY got %d", atomic_load(&a->srv.second_ret));
	expect_bug(a, "double", b, l, "second answer to READ", NULL);
}

static void too_much_data(struct mount *a)
{
	uint64_t b = bugs(a);
	int l = log_count("more data than the kernel asked for", "READ"), err;
	char buf[256], want[256];
	char path[96];
	int fd;
	ssize_t n;

	memset(buf, 0xee, sizeof(buf));
	memset(want, 0xee, sizeof(want));
	snprintf(path, sizeof(path), "%s/big", a->dir);
	fd = open(path, O_RDONLY);
	errno = 0;
	n = fd < 0 ? -1 : read(fd, buf, 100);
	err = errno;
	if (fd >= 0)
		close(fd);
	T(n == -1 && err == EIO, "big.client_eio", "expected EIO got %zd (%s)",
	  n, strerror(err));
	T(!memcmp(buf, want, sizeof(buf)), "big.nothing_delivered",
	  "the client's buffer was written");
	expect_bug(a, "big", b, l, "more data than the kernel asked for",
		   "READ");
}

static void bad_errnos(struct mount *a)
{
	for (int i = 0; i < NERRS; i++) {
		char range[64];
		const char *why = range;
		uint64_t b;
		int l;

		snprintf(range, sizeof(range), "errno %d out of range 1..511",
			 errs[i]);
		if (errs[i] == 0)
			why = "wrong reply type";
		else if (errs[i] == 13)
			why = NULL;
		b = bugs(a);
		l = why ? log_count(why, "OPEN") : 0;
		char path[96];
		int fd;

		snprintf(path, sizeof(path), "%s/err-%d", a->dir, i);
		errno = 0;
		fd = open(path, O_RDONLY);
		T(fd == -1 && errno == (why ? EIO : errs[i]),
		  chk_name("errno.%d.client", errs[i]),
		  "expected %s got %d (%s)", why ? "EIO" : chk_errname(errs[i]),
		  fd, strerror(errno));
		if (fd >= 0)
			close(fd);
		if (why)
			expect_bug(a, chk_name("errno.%d", errs[i]), b, l, why,
				   "OPEN");
		else
			T(bugs(a) == b, "errno.valid_not_counted",
			  "handler_bugs %llu -> %llu", (unsigned long long)b,
			  (unsigned long long)bugs(a));
	}
}

static void wrong_types(struct mount *a)
{
	char path[96], buf[64];
	uint64_t b = bugs(a);
	int l = log_count("wrong reply type", "GETATTR"), err;
	struct stat sb;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/wrongattr", a->dir);
	errno = 0;
	T(stat(path, &sb) == -1 && errno == EIO, "wrongtype.getattr_eio",
	  "expected EIO got %s", strerror(errno));
	expect_bug(a, "wrongtype.getattr", b, l, "wrong reply type", "GETATTR");

	b = bugs(a);
	l = log_count("wrong reply type", "READ");
	n = read_name(a, "wrongread", buf, sizeof(buf), &err);
	T(n == -1 && err == EIO, "wrongtype.read_eio",
	  "expected EIO got %zd (%s)", n, strerror(err));
	expect_bug(a, "wrongtype.read", b, l, "wrong reply type", "READ");
}

static void no_answer(struct mount *a)
{
	uint64_t b = bugs(a);
	int l = log_count("returned without an answer", "READ"), err;
	char buf[64];
	ssize_t n = read_name(a, "noanswer", buf, sizeof(buf), &err);

	T(n == -1 && err == EIO, "noanswer.client_eio",
	  "expected EIO got %zd (%s)", n, strerror(err));
	expect_bug(a, "noanswer", b, l, "returned without an answer", "READ");
}

/* After all that the connection is intact and serves the right bytes. */
static void still_valid(struct mount *a)
{
	struct fring_stats st;
	char buf[64];
	int err;
	ssize_t n = read_name(a, "good", buf, sizeof(buf), &err);

	T(n == (ssize_t)strlen(good) && !memcmp(buf, good, strlen(good)),
	  "after.good_read", "read %zd (%s)", n, strerror(err));
	fring_session_stats(a->se, FRING_STATS_ALL, &st);
	T(st.malformed == 0, "after.no_malformed", "%llu",
	  (unsigned long long)st.malformed);
	T(!atomic_load(&a->ended), "after.session_alive", "session A ended");
}

/* ---------------- B: the kernel's request timeout ---------------- */

/* What the kernel answers a new request on a connection it has ended:
 * ENOTCONN; the other three are what a dead mount may answer too (on the
 * ring transports, tests/e2e/mount-lib.sh's DEAD_RE), never a live
 * server's ENOENT or a success. */
static bool dead_errno(int e)
{
	return e == ENOTCONN || e == ECONNABORTED || e == ECANCELED ||
	       e == ECONNREFUSED;
}

static void timeout_checks(struct mount *b, struct reader *r)
{
	struct fring_stats st;
	char path[96];
	struct stat sb;
	int ret;

	/* The READ stays unanswered: without the kernel's timeout the join
	 * waits for good (the meson test's own timeout then fails it). */
	pthread_join(r->th, NULL);
	T(r->n == -1 && r->err == ECONNABORTED, "timeout.client_econnaborted",
	  "expected ECONNABORTED got %zd (%s)", r->n, strerror(r->err));
	/* 15 s at least (the kernel's lowest timeout: never sooner), and
	 * the abort comes at the first 15 s check after that, about 30 s
	 * after INIT. The upper bound only tells the timeout from anything
	 * later; the check is kernel work queued on a timer, which a loaded
	 * machine may run late, so it is far off. */
	T(r->took >= 14.5 && r->took < 90, "timeout.when",
	  "expected 15..90 s got %.1f s", r->took);
	chk_note("the kernel aborted the connection after %.1f s", r->took);
	/* A name never looked up on B: its LOOKUP must go to the connection
	 * (a name looked up before could be answered from the kernel's
	 * cache, whatever the connection's state). */
	snprintf(path, sizeof(path), "%s/never-looked-up-%ld", b->dir,
		 (long)getpid());
	errno = 0;
	ret = stat(path, &sb);
	T(ret == -1 && dead_errno(errno), "timeout.then_enotconn",
	  "expected ENOTCONN (or another dead mount's error) got %s",
	  ret == 0 ? "success" : strerror(errno));
	stop(b, WAIT_S);
	T(b->run_ret == 0, "timeout.session_ended", "run returned %ld",
	  b->run_ret);
	fring_session_stats(b->se, FRING_STATS_ALL, &st);
	T(st.in_flight == 1 && st.oldest_pending_ns >= 14 * NS,
	  "timeout.stats_pending", "in_flight %llu, oldest %.1f s",
	  (unsigned long long)st.in_flight, (double)st.oldest_pending_ns / 1e9);
	T(log_count("still unanswered by the filesystem at exit", NULL) >= 1,
	  "timeout.logged_unanswered", "no log line");
}

int main(int argc, char *argv[])
{
	const char *transport = argc > 1 ? argv[1] : "dev";
	static struct mount a, b;
	struct reader rb;
	const struct fring_conn *c;
	bool timeout;
	int ret;

	chk_init();
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount\n");
		return 77;
	}
	fring_set_log(log_sink, NULL, FRING_LOG_INFO);
	ret = start(&b, transport, "request_timeout=1");
	if (ret)
		return ret;
	/* the first request answers INIT; then B's hanging READ */
	start_reader(&rb, b.dir, "hang");
	for (int i = 0; i < WAIT_S * 100 && !atomic_load(&b.srv.held); i++)
		usleep(10000);
	if (!T(atomic_load(&b.srv.held) != NULL, "timeout.read_held",
	       "B's READ did not arrive in %d s", WAIT_S))
		return chk_finish();
	c = fring_session_conn(b.se);
	timeout = c->want & FRING_CAP_REQUEST_TIMEOUT;
	if (c->capable & FRING_CAP_REQUEST_TIMEOUT) {
		T(timeout && c->request_timeout == 1, "timeout.negotiated",
		  "want 0x%llx, request_timeout %u",
		  (unsigned long long)c->want, c->request_timeout);
	} else {
		chk_skip("timeout",
			 "the kernel offers no FUSE_REQUEST_TIMEOUT");
	}
	ret = start(&a, transport, NULL);
	if (ret)
		return ret;
	T(!(fring_session_conn(a.se)->want & FRING_CAP_REQUEST_TIMEOUT),
	  "notimeout.not_negotiated", "want 0x%llx",
	  (unsigned long long)fring_session_conn(a.se)->want);

	held_but_serving(&a);
	double_answer(&a);
	too_much_data(&a);
	bad_errnos(&a);
	wrong_types(&a);
	no_answer(&a);
	still_valid(&a);
	T(!strcmp(fring_transport_name(fring_session_transport(a.se)),
		  transport),
	  "transport", "expected %s got %s", transport,
	  fring_transport_name(fring_session_transport(a.se)));
	stop(&a, 0);
	T(a.run_ret == 0, "run_returns_0", "got %ld", a.run_ret);
	fring_session_destroy(a.se);
	rmdir(a.dir);

	if (timeout) {
		timeout_checks(&b, &rb);
	} else {
		/* no timeout: answer the READ so the session can end */
		fring_req_t *req = atomic_load(&b.srv.held);

		if (req)
			fring_reply_err(req, EINTR);
		pthread_join(rb.th, NULL);
		stop(&b, 0);
	}
	/* B's held request dies with the session: never answered */
	fring_session_destroy(b.se);
	rmdir(b.dir);
	fring_set_log(NULL, NULL, FRING_LOG_INFO);
	return chk_finish();
}
