/* SPDX-License-Identifier: MIT */
/*
 * notify_test TRANSPORT [basic|resend|epoch|all]: notifications, end to
 * end ("all": the three parts on one mount, for the vm tier's 7.3 jobs).
 *
 * An in-process server caches hard: entries and attributes for 1000 s and
 * keep_cache on every open. Its test thread changes files and names behind
 * the kernel's back, as a network filesystem sees remote changes. Each step
 * first shows the client still sees the old state when nothing is sent
 * (so the check can fail), then sends the notification and checks the
 * client sees the new state, byte for byte.
 *
 *  basic: inval_inode, store (no READ reaches the server), retrieve (the
 *         bytes the client wrote, from its page cache; on the ring the
 *         NOTIFY_REPLY arrives as a ring entry), inval_entry, expire_entry,
 *         delete, poll (a client blocked in poll(2) wakes), notifications
 *         from several threads at once, and the errors: -ENOTCONN before
 *         the mount and after unmount, -ENOENT for an inode the kernel
 *         does not hold.
 *  resend: ABI 7.40. On dev a LOOKUP held unanswered is sent again with
 *         bit 63 of its unique; on the ring (not resent by the kernel) the
 *         call succeeds and the held request still completes.
 *  epoch:  inc_epoch (7.44): a name cached before is looked up again;
 *         prune (7.45): an unused inode is dropped and FORGET comes.
 * A part the negotiated ABI lacks prints "NOT OFFERED: ..." and exits 77
 * after checking the call says -ENOSYS.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fring/fring.h>

#include "check.h"

#define T(cond, name, ...) chk_result(!!(cond), (name), __VA_ARGS__)

#define NNODES	   40
#define FILE_INO   2  /* "file": inval_inode, store, retrieve */
#define POLL_INO   5  /* "poll" */
#define THREAD_INO 20 /* "t0".."t3": one per notifying thread */
#define NTHREADS   4
#define ITERS	   100
#define CACHE_S	   1000.0
/* Seconds to wait for what should come at once (an answer, a request, a
 * wakeup): only waited for in full when it does not come, so generous for
 * a loaded machine, and within the meson test's 60 s. */
#define WAIT_S 20

struct node {
	char data[4096];
	size_t size;
};

struct name {
	char name[16];
	fring_ino_t ino; /* 0: gone */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct node nodes[NNODES];
static struct name names[NNODES];
static atomic_int reads, forgets[NNODES];
static int poll_ready;
static fring_pollhandle_t *poll_ph;
static bool resend_mode;
static fring_req_t *held_lookup;
static uint64_t resent_unique;
/* retrieve_reply's arguments */
static int retrieved;
static void *ret_cookie;
static fring_ino_t ret_ino;
static off_t ret_off;
static char ret_data[4096];
static size_t ret_size;

static void st_fill(fring_ino_t ino, struct stat *st)
{
	chk_stat_fill(st, ino, ino == FRING_ROOT_INO, (off_t)nodes[ino].size);
}

static void set_name(const char *name, fring_ino_t ino)
{
	int free_at = -1;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < NNODES; i++) {
		if (!strcmp(names[i].name, name)) {
			names[i].ino = ino;
			free_at = -2;
			break;
		}
		if (free_at == -1 && !names[i].name[0])
			free_at = i;
	}
	if (free_at >= 0) {
		snprintf(names[free_at].name, sizeof(names[0].name), "%s",
			 name);
		names[free_at].ino = ino;
	}
	pthread_mutex_unlock(&lock);
}

static void set_size(fring_ino_t ino, size_t size)
{
	pthread_mutex_lock(&lock);
	nodes[ino].size = size;
	pthread_mutex_unlock(&lock);
}

static void set_data(fring_ino_t ino, const void *data, size_t size)
{
	pthread_mutex_lock(&lock);
	memcpy(nodes[ino].data, data, size);
	nodes[ino].size = size;
	pthread_mutex_unlock(&lock);
}

static void n_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct fring_entry e = {.attr_timeout = CACHE_S,
				.entry_timeout = CACHE_S};

	if (resend_mode && !strcmp(name, "r")) {
		/* the first LOOKUP is held; the resent one is answered */
		pthread_mutex_lock(&lock);
		if (!held_lookup) {
			fring_req_async(req);
			held_lookup = req;
			pthread_cond_broadcast(&cond);
			pthread_mutex_unlock(&lock);
			return;
		}
		resent_unique = fring_req_unique(req);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	for (int i = 0; parent == FRING_ROOT_INO && i < NNODES; i++)
		if (!strcmp(names[i].name, name))
			e.ino = names[i].ino;
	if (e.ino)
		st_fill(e.ino, &e.attr);
	pthread_mutex_unlock(&lock);
	if (!e.ino)
		return (void)fring_reply_err(req, ENOENT);
	fring_reply_entry(req, &e);
}

static void n_forget(void *ud, fring_ino_t ino, uint64_t n)
{
	(void)ud, (void)n;
	if (ino < NNODES)
		atomic_fetch_add(&forgets[ino], 1);
}

static void n_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct stat st;

	(void)fi;
	if (ino >= NNODES)
		return (void)fring_reply_err(req, ENOENT);
	pthread_mutex_lock(&lock);
	st_fill(ino, &st);
	pthread_mutex_unlock(&lock);
	fring_reply_attr(req, &st, CACHE_S);
}

static void n_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	(void)ino;
	fi->keep_cache = 1;   /* only notifications change the cache */
	fi->no_zero_copy = 1; /* write data in memory */
	fring_reply_open(req, fi);
}

static void n_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst)
{
	char buf[4096];
	size_t n = 0;

	(void)fi, (void)dst;
	atomic_fetch_add(&reads, 1);
	pthread_mutex_lock(&lock);
	if ((size_t)off < nodes[ino].size) {
		n = nodes[ino].size - (size_t)off;
		n = n < size ? n : size;
		memcpy(buf, nodes[ino].data + off, n);
	}
	pthread_mutex_unlock(&lock);
	fring_reply_buf(req, buf, n);
}

static void n_write(fring_req_t *req, fring_ino_t ino,
		    const struct fring_buf *src, off_t off,
		    struct fring_file *fi)
{
	(void)fi;
	if (src->kind != FRING_BUF_MEM || (size_t)off + src->size > 4096)
		return (void)fring_reply_err(req, EIO);
	pthread_mutex_lock(&lock);
	memcpy(nodes[ino].data + off, src->mem, src->size);
	if ((size_t)off + src->size > nodes[ino].size)
		nodes[ino].size = (size_t)off + src->size;
	pthread_mutex_unlock(&lock);
	fring_reply_write(req, src->size);
}

static void n_poll(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		   uint64_t kh)
{
	fring_pollhandle_t *ph = fring_req_pollhandle(req);
	int ready;

	(void)ino, (void)fi, (void)kh;
	pthread_mutex_lock(&lock);
	ready = poll_ready;
	if (ph) {
		fring_pollhandle_destroy(poll_ph);
		poll_ph = ph;
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
	fring_reply_poll(req, ready ? POLLIN : 0);
}

static void n_retrieve_reply(void *ud, void *cookie, fring_ino_t ino, off_t off,
			     const void *data, size_t size)
{
	(void)ud;
	pthread_mutex_lock(&lock);
	ret_cookie = cookie;
	ret_ino = ino;
	ret_off = off;
	ret_size = size;
	memcpy(ret_data, data,
	       size < sizeof(ret_data) ? size : sizeof(ret_data));
	retrieved++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static const struct fring_ops ops = {
	.lookup = n_lookup,
	.forget = n_forget,
	.getattr = n_getattr,
	.open = n_open,
	.read = n_read,
	.write = n_write,
	.poll = n_poll,
};

/* ---------------- client side ---------------- */

static char mnt[] = "/tmp/fring-notify.XXXXXX";
static fring_session_t *se;

static const char *at(const char *name)
{
	static char path[8][96];
	static int k;

	k = (k + 1) % 8;
	snprintf(path[k], sizeof(path[k]), "%s/%s", mnt, name);
	return path[k];
}

/* The file's bytes as the client reads them (open, read, close). */
static ssize_t client_read(const char *name, char *buf, size_t size)
{
	int fd = open(at(name), O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	return n;
}

static fring_ino_t client_ino(const char *name)
{
	struct stat st;

	return stat(at(name), &st) ? 0 : st.st_ino;
}

/* Waits for *flag to reach want (under lock) for up to secs. */
static bool wait_for(int *flag, int want, int secs)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += secs;
	pthread_mutex_lock(&lock);
	while (*flag < want && pthread_cond_timedwait(&cond, &lock, &ts) == 0)
		;
	ok = *flag >= want;
	pthread_mutex_unlock(&lock);
	return ok;
}

static void fill(char *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)chk_pat(seed, i);
}

static void test_inode_data(void)
{
	char a[3000], b[3500], c[3500], d[3500], got[4096];
	ssize_t n;
	int r0, ret;
	void *cookie = &cookie;

	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	fill(c, sizeof(c), 3);
	fill(d, sizeof(d), 4);
	set_data(FILE_INO, a, sizeof(a));
	set_name("file", FILE_INO);
	n = client_read("file", got, sizeof(got));
	T(n == (ssize_t)sizeof(a) && !memcmp(got, a, sizeof(a)), "first_read",
	  "read %zd", n);

	/* inval_inode: new size and bytes */
	set_data(FILE_INO, b, sizeof(b));
	n = client_read("file", got, sizeof(got));
	T(n == (ssize_t)sizeof(a) && !memcmp(got, a, sizeof(a)),
	  "inval_inode.stale_without",
	  "read %zd bytes (the cache should "
	  "still hold the old %zu)",
	  n, sizeof(a));
	ret = fring_notify_inval_inode(se, FILE_INO, 0, 0);
	T(ret == 0, "inval_inode.ret", "%d", ret);
	n = client_read("file", got, sizeof(got));
	T(n == (ssize_t)sizeof(b), "inval_inode.new_size", "read %zd", n);
	CHECK_MEM("inval_inode.new_bytes", got, b, sizeof(b));

	/* store: the new bytes go into the page cache, no READ */
	set_data(FILE_INO, c, sizeof(c));
	n = client_read("file", got, sizeof(got));
	T(n == (ssize_t)sizeof(b) && !memcmp(got, b, sizeof(b)),
	  "store.stale_without", "read %zd", n);
	r0 = atomic_load(&reads);
	ret = fring_notify_store(se, FILE_INO, 0, c, sizeof(c));
	T(ret == 0, "store.ret", "%d", ret);
	n = client_read("file", got, sizeof(got));
	T(n == (ssize_t)sizeof(c), "store.size", "read %zd", n);
	CHECK_MEM("store.new_bytes", got, c, sizeof(c));
	T(atomic_load(&reads) == r0, "store.no_read",
	  "%d READs reached the server", atomic_load(&reads) - r0);

	/* retrieve: what the client wrote, from its page cache */
	{
		int fd = open(at("file"), O_WRONLY);

		T(fd >= 0 && pwrite(fd, d, sizeof(d), 0) == (ssize_t)sizeof(d),
		  "retrieve.client_write", "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	memset(got, 'X', sizeof(d));
	set_data(FILE_INO, got, sizeof(d)); /* the server lost it */
	ret = fring_notify_retrieve_range(
		se, FILE_INO, (struct fring_range){.off = 0, .size = sizeof(d)},
		cookie);
	T(ret == 0, "retrieve.ret", "%d", ret);
	T(wait_for(&retrieved, 1, WAIT_S), "retrieve.reply_came",
	  "no reply in %d s", WAIT_S);
	pthread_mutex_lock(&lock);
	T(ret_cookie == cookie && ret_ino == FILE_INO && ret_off == 0 &&
		  ret_size == sizeof(d),
	  "retrieve.args", "cookie %s ino %llu off %lld size %zu",
	  ret_cookie == cookie ? "ok" : "wrong", (unsigned long long)ret_ino,
	  (long long)ret_off, ret_size);
	CHECK_MEM("retrieve.bytes_client_wrote", ret_data, d,
		  ret_size < sizeof(d) ? ret_size : sizeof(d));
	pthread_mutex_unlock(&lock);
	/* a part of it, from an offset */
	ret = fring_notify_retrieve_range(
		se, FILE_INO, (struct fring_range){.off = 100, .size = 50},
		NULL);
	T(ret == 0 && wait_for(&retrieved, 2, WAIT_S), "retrieve.range",
	  "ret %d", ret);
	pthread_mutex_lock(&lock);
	T(ret_off == 100 && ret_size == 50 && !memcmp(ret_data, d + 100, 50),
	  "retrieve.range_bytes", "off %lld size %zu", (long long)ret_off,
	  ret_size);
	pthread_mutex_unlock(&lock);
	/* libfring 0.1.0's symbol, (off, size), as a program built against
	 * it calls it (the parentheses get past the header's macro) */
	ret = (fring_notify_retrieve)(se, FILE_INO, 200, 30, NULL);
	T(ret == 0 && wait_for(&retrieved, 3, WAIT_S), "retrieve.abi_0_1",
	  "ret %d", ret);
	pthread_mutex_lock(&lock);
	T(ret_off == 200 && ret_size == 30 && !memcmp(ret_data, d + 200, 30),
	  "retrieve.abi_0_1_bytes", "off %lld size %zu", (long long)ret_off,
	  ret_size);
	pthread_mutex_unlock(&lock);
	ret = fring_notify_retrieve_range(
		se, FILE_INO, (struct fring_range){.off = -1, .size = 1}, NULL);
	T(ret == -EINVAL, "retrieve.negative_off", "%d", ret);
	/* The queues' counters leave out the ring's /dev/fuse side channel:
	 * on a ring rung all three NOTIFY_REPLYs came in ring entries. */
	{
		struct fring_stats st;
		uint64_t n = 0;

		for (unsigned q = 0; q < fring_session_queues(se); q++)
			if (!fring_session_stats(se, q, &st))
				n += st.by_opcode[41]; /* FUSE_NOTIFY_REPLY */
		T(n == 3, "retrieve.replies_on_queues", "%llu NOTIFY_REPLYs",
		  (unsigned long long)n);
	}
}

/* name: cached as old_ino; the server points it at new_ino (0: removes
 * it); send() must make the client see that. */
static void test_name(const char *what, const char *name, fring_ino_t old_ino,
		      fring_ino_t new_ino,
		      int (*send)(const char *name, fring_ino_t old_ino))
{
	fring_ino_t got;
	int ret;

	set_size(old_ino, 10);
	set_size(new_ino, 20);
	set_name(name, old_ino);
	got = client_ino(name);
	T(got == old_ino, chk_name("%s.first", what), "ino %llu",
	  (unsigned long long)got);
	set_name(name, new_ino);
	got = client_ino(name);
	T(got == old_ino, chk_name("%s.stale_without", what),
	  "ino %llu, expected the cached %llu", (unsigned long long)got,
	  (unsigned long long)old_ino);
	ret = send(name, old_ino);
	T(ret == 0, chk_name("%s.ret", what), "%d", ret);
	got = client_ino(name);
	T(got == new_ino, chk_name("%s.new", what), "ino %llu, expected %llu",
	  (unsigned long long)got, (unsigned long long)new_ino);
}

static int send_inval_entry(const char *name, fring_ino_t old)
{
	(void)old;
	return fring_notify_inval_entry(se, FRING_ROOT_INO, name, strlen(name));
}

static int send_expire_entry(const char *name, fring_ino_t old)
{
	(void)old;
	return fring_notify_expire_entry(se, FRING_ROOT_INO, name,
					 strlen(name));
}

static int send_delete(const char *name, fring_ino_t old)
{
	return fring_notify_delete(se, FRING_ROOT_INO, old, name, strlen(name));
}

static int send_inc_epoch(const char *name, fring_ino_t old)
{
	(void)name, (void)old;
	return fring_notify_inc_epoch(se);
}

static atomic_int poll_returned, poll_revents;

static void *poller(void *arg)
{
	struct pollfd p = {*(int *)arg, POLLIN, 0};
	/* longer than test_poll waits for it in all, so that only a wakeup
	 * that never comes ends it by the timeout */
	int n = poll(&p, 1, (2 * WAIT_S + 5) * 1000);

	atomic_store(&poll_revents, n > 0 ? p.revents : -1);
	atomic_store(&poll_returned, 1);
	return NULL;
}

static void test_poll(void)
{
	int fd, have_ph = 0, ret;
	pthread_t th;

	set_name("poll", POLL_INO);
	fd = open(at("poll"), O_RDONLY);
	if (!CHECK_SYS("poll.open", fd))
		return;
	pthread_create(&th, NULL, poller, &fd);
	/* the kernel asks with SCHEDULE_NOTIFY: the handler keeps ph */
	for (int i = 0; i < WAIT_S * 10 && !have_ph; i++) {
		usleep(100000);
		pthread_mutex_lock(&lock);
		have_ph = poll_ph != NULL;
		pthread_mutex_unlock(&lock);
	}
	T(have_ph, "poll.handle", "no poll handle in %d s", WAIT_S);
	pthread_mutex_lock(&lock);
	poll_ready = 1;
	pthread_mutex_unlock(&lock);
	usleep(300000);
	T(!atomic_load(&poll_returned), "poll.blocked_without",
	  "poll(2) returned before the notification");
	pthread_mutex_lock(&lock);
	ret = poll_ph ? fring_notify_poll(poll_ph) : -EINVAL;
	pthread_mutex_unlock(&lock);
	T(ret == 0, "poll.notify_ret", "%d", ret);
	for (int i = 0; i < WAIT_S * 10 && !atomic_load(&poll_returned); i++)
		usleep(100000);
	T(atomic_load(&poll_returned) && (atomic_load(&poll_revents) & POLLIN),
	  "poll.woken", "returned %d revents %d", atomic_load(&poll_returned),
	  atomic_load(&poll_revents));
	pthread_join(th, NULL);
	close(fd);
}

static atomic_int thread_fails;

static void *notifier(void *arg)
{
	int t = (int)(long)arg;
	fring_ino_t ino = THREAD_INO + (fring_ino_t)t;
	char buf[4096];

	for (int i = 0; i < ITERS; i++) {
		fill(buf, sizeof(buf), 1000u * (unsigned)t + (unsigned)i);
		if (fring_notify_store(se, ino, 0, buf, sizeof(buf)) ||
		    fring_notify_inval_inode(se, ino, -1, 0) ||
		    fring_notify_inval_entry(se, FRING_ROOT_INO, "none", 4) !=
			    -ENOENT)
			atomic_fetch_add(&thread_fails, 1);
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[NTHREADS];
	char got[4096], want[4096], name[8];
	int r0;

	for (int t = 0; t < NTHREADS; t++) {
		snprintf(name, sizeof(name), "t%d", t);
		set_size(THREAD_INO + (fring_ino_t)t, 4096); /* zeros */
		set_name(name, THREAD_INO + (fring_ino_t)t);
		client_ino(name);
	}
	r0 = atomic_load(&reads);
	for (int t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, notifier, (void *)(long)t);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	T(atomic_load(&thread_fails) == 0, "threads.all_ok",
	  "%d iterations failed", atomic_load(&thread_fails));
	for (int t = 0; t < NTHREADS; t++) {
		ssize_t n;

		snprintf(name, sizeof(name), "t%d", t);
		fill(want, sizeof(want), 1000u * (unsigned)t + ITERS - 1);
		n = client_read(name, got, sizeof(got));
		T(n == 4096, chk_name("threads.read%d", t), "read %zd", n);
		CHECK_MEM(chk_name("threads.last_store%d", t), got, want,
			  sizeof(want));
	}
	T(atomic_load(&reads) == r0, "threads.no_read",
	  "%d READs reached the server", atomic_load(&reads) - r0);
}

static void test_errors(void)
{
	char b[8] = "x";
	int ret;

	ret = fring_notify_inval_inode(se, 999, 0, 0);
	T(ret == -ENOENT, "error.inval_inode_unknown", "%d", ret);
	ret = fring_notify_store(se, 999, 0, b, sizeof(b));
	T(ret == -ENOENT, "error.store_unknown", "%d", ret);
	ret = fring_notify_retrieve_range(
		se, 999, (struct fring_range){.off = 0, .size = 10}, NULL);
	T(ret == -ENOENT, "error.retrieve_unknown", "%d", ret);
	ret = fring_notify_inval_entry(se, FRING_ROOT_INO, "nothing", 7);
	T(ret == -ENOENT, "error.inval_entry_unknown", "%d", ret);
	ret = fring_notify_store(se, FRING_ROOT_INO, 0, b, sizeof(b));
	T(ret == -EINVAL, "error.store_directory", "%d", ret);
}

/* ---------------- the newer ones ---------------- */

static void *lookup_r(void *arg)
{
	(void)arg;
	return (void *)(uintptr_t)client_ino("r");
}

static void test_resend(bool ring)
{
	pthread_t th;
	int have = 0, ret;
	void *got = NULL;

	set_size(11, 1);
	set_name("r", 11);
	/* a client thread looks "r" up; the server holds the LOOKUP */
	pthread_create(&th, NULL, lookup_r, NULL);
	pthread_mutex_lock(&lock);
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += WAIT_S;
		while (!held_lookup &&
		       !pthread_cond_timedwait(&cond, &lock, &ts))
			;
		have = held_lookup != NULL;
	}
	pthread_mutex_unlock(&lock);
	T(have, "resend.held", "no LOOKUP held");
	ret = fring_notify_resend(se);
	T(ret == 0, "resend.ret", "%d", ret);
	if (ring) {
		chk_note("the ring's requests are not resent "
			 "(doc/kernel-protocol.md, \"Notifications\"): "
			 "answering the held one");
		usleep(300000);
		pthread_mutex_lock(&lock);
		T(!resent_unique, "resend.ring_not_resent", "resent %llx",
		  (unsigned long long)resent_unique);
		pthread_mutex_unlock(&lock);
		n_lookup(held_lookup, FRING_ROOT_INO, "r");
	}
	pthread_join(th, &got);
	T((uintptr_t)got == 11, "resend.client_got_entry", "ino %llu",
	  (unsigned long long)(uintptr_t)got);
	if (!ring) {
		T(resent_unique >> 63, "resend.bit63",
		  "the second LOOKUP's unique %llx",
		  (unsigned long long)resent_unique);
		/* the original is gone: its late answer is harmless */
		fring_reply_err(held_lookup, EIO);
		T(client_ino("r") == 11, "resend.after_late_answer",
		  "the entry changed");
	}
}

static void test_prune(void)
{
	int ret;

	set_size(14, 1);
	set_name("pr", 14);
	T(client_ino("pr") == 14, "prune.lookup", "not found");
	usleep(300000);
	T(atomic_load(&forgets[14]) == 0, "prune.cached_without",
	  "FORGET came without a prune");
	{
		fring_ino_t inos[2] = {14, 999};

		ret = fring_notify_prune(se, inos, 2);
	}
	T(ret == 0, "prune.ret", "%d", ret);
	for (int i = 0; i < WAIT_S * 10 && !atomic_load(&forgets[14]); i++)
		usleep(100000);
	T(atomic_load(&forgets[14]) == 1, "prune.forget_came",
	  "%d FORGETs for the pruned inode", atomic_load(&forgets[14]));
}

static int not_offered(const char *what, unsigned need, int ret)
{
	T(ret == -ENOSYS, chk_name("%s.enosys", what), "%d", ret);
	printf("NOT OFFERED: %s needs FUSE ABI 7.%u; this kernel negotiated "
	       "7.%u\n",
	       what, need, fring_session_conn(se)->proto_minor);
	return chk_failed() ? 1 : 77;
}

static void *runner(void *arg)
{
	return (void *)(long)fring_session_run(arg);
}

int main(int argc, char *argv[])
{
	const char *transport = argc > 1 ? argv[1] : "dev";
	const char *part = argc > 2 ? argv[2] : "basic";
	bool all = !strcmp(part, "all");
	bool ring = strcmp(transport, "dev") != 0;
	fring_config_t *cfg;
	unsigned minor;
	pthread_t th;
	void *rr;
	int ret, status = -1;

	chk_init();
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount\n");
		return 77;
	}
	if (strcmp(part, "basic") && strcmp(part, "resend") &&
	    strcmp(part, "epoch") && !all) {
		fprintf(stderr,
			"usage: %s TRANSPORT [basic|resend|epoch|all]\n",
			argv[0]);
		return 1;
	}
	resend_mode = all || !strcmp(part, "resend");
	if (!mkdtemp(mnt) || (cfg = fring_config_new()) == NULL ||
	    fring_config_set(cfg, "transport", transport))
		return 1;
	ret = fring_session_new(&ops, sizeof(ops), NULL, cfg, &se);
	fring_config_free(cfg);
	if (!ret)
		ret = fring_session_set_retrieve_reply(se, n_retrieve_reply);
	if (ret)
		return chk_result(0, "session_new", "%d", ret), 1;
	ret = fring_notify_inval_inode(se, FRING_ROOT_INO, 0, 0);
	T(ret == -ENOTCONN, "error.before_mount", "%d", ret);
	if (fring_session_mount(se, mnt)) {
		printf("SKIP: cannot mount with transport=%s\n", transport);
		fring_session_destroy(se);
		rmdir(mnt);
		return 77;
	}
	pthread_create(&th, NULL, runner, se);
	client_ino("."); /* INIT answered */
	minor = fring_session_conn(se)->proto_minor;
	chk_note("transport %s, FUSE 7.%u", transport, minor);

	if (all || !strcmp(part, "basic")) {
		test_inode_data();
		test_name("inval_entry", "a", 3, 4, send_inval_entry);
		if (minor >= 38)
			test_name("expire_entry", "x", 6, 7, send_expire_entry);
		else
			T(send_expire_entry("x", 6) == -ENOSYS,
			  "expire_entry.enosys", "before 7.38");
		test_name("delete", "d", 8, 0, send_delete);
		test_poll();
		test_threads();
		test_errors();
	}
	if (all || !strcmp(part, "resend")) {
		if (minor < 40)
			status = not_offered("notify_resend", 40,
					     fring_notify_resend(se));
		else
			test_resend(ring);
	}
	if ((all || !strcmp(part, "epoch")) && minor < 44) {
		status = not_offered("notify_inc_epoch", 44,
				     fring_notify_inc_epoch(se));
	} else if (all || !strcmp(part, "epoch")) {
		test_name("inc_epoch", "e", 12, 13, send_inc_epoch);
		if (minor < 45)
			status = not_offered("notify_prune", 45,
					     fring_notify_prune(se, NULL, 0));
		else
			test_prune();
	}

	T(!strcmp(fring_transport_name(fring_session_transport(se)), transport),
	  "transport", "expected %s got %s", transport,
	  fring_transport_name(fring_session_transport(se)));
	/* after unmount: the connection is gone */
	umount2(mnt, MNT_DETACH);
	pthread_join(th, &rr);
	T(rr == NULL, "run_returns_0", "got %ld", (long)rr);
	ret = fring_notify_inval_inode(se, FRING_ROOT_INO, 0, 0);
	T(ret == -ENOTCONN, "error.after_unmount", "%d", ret);
	pthread_mutex_lock(&lock);
	fring_pollhandle_destroy(poll_ph);
	poll_ph = NULL;
	pthread_mutex_unlock(&lock);
	fring_session_destroy(se);
	rmdir(mnt);
	if (status >= 0 && !chk_failed())
		return status;
	return chk_finish();
}
