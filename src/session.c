/* SPDX-License-Identifier: MIT */
/*
 * Sessions and request slots: create, mount, run (INIT, choose the rung,
 * start and stop queues), exit, destroy; the request life cycle shared by
 * every transport.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fault.h"
#include "ring.h"

/* valgrind's client requests cost a few instructions outside valgrind */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#endif
#endif
#ifndef VALGRIND_MAKE_MEM_UNDEFINED
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n))
#endif

/* how long run() waits at the end for answers handlers still owe */
#define FRING_DRAIN_MS 2000

const char *fring_version(void)
{
	return FRING_VERSION;
}

/* ---------------- request slots ---------------- */

static struct fring_req *slot_new(struct fring_queue *q)
{
	struct fring_session *se = q->se;
	struct fring_req *req = calloc(1, sizeof(*req));
	struct fring_req **slots;

	if (!req)
		return NULL;
	/* Page-aligned and never zeroed per request (design.md 5). */
	req->mem = mmap(NULL, se->bufsize, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (req->mem == MAP_FAILED) {
		free(req);
		return NULL;
	}
	slots = realloc(q->slots, (q->nslots + 1) * sizeof(*slots));
	if (!slots) {
		munmap(req->mem, se->bufsize);
		free(req);
		return NULL;
	}
	q->slots = slots;
	q->slots[q->nslots++] = req;
	req->memsz = se->bufsize;
	req->data = req->mem + FRING_PAGE;
	req->datasz = se->bufsize - FRING_PAGE;
	req->se = se;
	req->q = q;
	return req;
}

/*
 * A free slot of q, or NULL when the session is ending. Blocks while the
 * handlers hold max_async unanswered requests of this queue.
 */
struct fring_req *req_get(struct fring_queue *q)
{
	struct fring_session *se = q->se;
	struct fring_req *req = NULL;

	pthread_mutex_lock(&q->lock);
	while (!atomic_load(&se->exiting)) {
		if (q->free) {
			req = q->free;
			q->free = req->next_free;
			break;
		}
		if (q->nslots <= se->cfg.max_async) {
			req = slot_new(q);
			if (req)
				break;
			fr_err("q%u: out of memory for a request buffer",
			       q->idx);
		}
		pthread_cond_wait(&q->slot_freed, &q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	if (req)
		atomic_store(&req->refs, 1);
	return req;
}

void req_put(struct fring_req *req)
{
	struct fring_queue *q = req->q;

	/* The decision to recycle is made before taking the lock, so the
	 * interrupt scan (which only adds a reference to a live slot) can
	 * never revive a slot on its way to the free list. */
	if (atomic_fetch_sub(&req->refs, 1) != 1)
		return;
	atomic_store(&req->unique, 0);
	if (q->tp->recycle) {
		q->tp->recycle(req);
		return;
	}
	pthread_mutex_lock(&q->lock);
	req->next_free = q->free;
	q->free = req;
	pthread_cond_signal(&q->slot_freed);
	pthread_mutex_unlock(&q->lock);
}

void req_begin(struct fring_req *req, uint64_t unique)
{
	/* one reference for the handler's scope, one for the answer */
	atomic_store(&req->refs, 2);
	atomic_store(&req->answered, false);
	atomic_store(&req->interrupted, false);
	req->flags = 0;
	/* What an earlier answer left in the encoding areas counts as never
	 * written under valgrind: an encoder sending a byte it did not set
	 * then fails e2e-dev-valgrind-posix_suite instead of leaking it. */
	(void)VALGRIND_MAKE_MEM_UNDEFINED(req->out.raw, sizeof(req->out.raw));
	(void)VALGRIND_MAKE_MEM_UNDEFINED(req->small, sizeof(req->small));
	atomic_store_explicit(&req->t_start, fring_now_ns(),
			      memory_order_relaxed);
	atomic_store(&req->unique, unique);
	stat_add(req->q, requests, 1);
	stat_add(req->q, in_flight, 1);
}

void req_end_handler(struct fring_req *req)
{
	if (!atomic_load(&req->answered) && !(req->flags & REQ_ASYNC)) {
		stat_add(req->q, handler_bugs, 1);
		fr_err("handler bug: %s (unique %llu) returned without an "
		       "answer and without fring_req_async(); answering EIO",
		       fring_opname(req->opcode),
		       (unsigned long long)atomic_load(&req->unique));
		reply_send(req, -EIO, NULL, 0);
	}
	req_put(req);
}

void queue_free_slots(struct fring_queue *q)
{
	for (unsigned i = 0; i < q->nslots; i++) {
		if (q->slots[i]->mem)
			munmap(q->slots[i]->mem, q->slots[i]->memsz);
		free(q->slots[i]);
	}
	free(q->slots);
	q->slots = NULL;
	q->nslots = 0;
	q->free = NULL;
}

/* Takes a reference on a slot that is still serving `unique`. */
static bool slot_try_hold(struct fring_req *req, uint64_t unique)
{
	int refs = atomic_load(&req->refs);

	if (atomic_load(&req->unique) != unique)
		return false;
	while (refs > 0)
		if (atomic_compare_exchange_weak(&req->refs, &refs, refs + 1))
			return atomic_load(&req->unique) == unique;
	return false;
}

void session_interrupt(struct fring_session *se, uint64_t unique)
{
	for (unsigned i = 0; i <= se->nqueues; i++) {
		struct fring_queue *q =
			i < se->nqueues ? &se->queues[i] : se->side;

		if (!q)
			break;
		struct fring_req *hit = NULL;

		pthread_mutex_lock(&q->lock);
		for (unsigned j = 0; j < q->nslots && !hit; j++)
			if (slot_try_hold(q->slots[j], unique))
				hit = q->slots[j];
		pthread_mutex_unlock(&q->lock);
		if (!hit)
			continue;
		if (!atomic_load(&hit->answered)) {
			atomic_store(&hit->interrupted, true);
			if (se->ops.interrupt)
				se->ops.interrupt(hit, se->userdata);
		}
		req_put(hit);
		return;
	}
	/* Already answered, or not read yet: nothing to interrupt. */
	fr_dbg("INTERRUPT for unique %llu: no such request in flight",
	       (unsigned long long)unique);
}

/* ---------------- request accessors ---------------- */

const struct fring_ctx *fring_req_ctx(const fring_req_t *req)
{
	return &req->ctx;
}

void *fring_req_userdata(const fring_req_t *req)
{
	return req->se->userdata;
}

fring_session_t *fring_req_session(const fring_req_t *req)
{
	return req->se;
}

uint64_t fring_req_unique(const fring_req_t *req)
{
	return atomic_load(&((fring_req_t *)req)->unique);
}

uint32_t fring_req_opcode(const fring_req_t *req)
{
	return req->opcode;
}

unsigned fring_req_queue(const fring_req_t *req)
{
	return req->q->idx;
}

int fring_req_interrupted(const fring_req_t *req)
{
	return atomic_load(&((fring_req_t *)req)->interrupted);
}

void fring_req_async(fring_req_t *req)
{
	req->flags |= REQ_ASYNC;
}

int fring_req_getgroups(const fring_req_t *req, int size, gid_t list[])
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int count = -ENOENT;

	if (size < 0 || (size && !list))
		return -EINVAL;
	/* the header's pid is the caller's thread id; /proc/TID is that
	 * thread (groups are per thread in Linux) */
	snprintf(path, sizeof(path), "/proc/%u/status", (unsigned)req->ctx.pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* getline: the Groups line of a member of many groups is long */
	while (getline(&line, &cap, f) > 0) {
		char *p, *end;

		if (strncmp(line, "Groups:", 7))
			continue;
		count = 0;
		for (p = line + 7;; p = end) {
			unsigned long g = strtoul(p, &end, 10);

			if (end == p)
				break;
			if (count < size)
				list[count] = (gid_t)g;
			count++;
		}
		break;
	}
	free(line);
	fclose(f);
	return count;
}

/* ---------------- sessions ---------------- */

int fring_session_new(const struct fring_ops *ops, size_t ops_size,
		      void *userdata, const fring_config_t *cfg,
		      fring_session_t **out)
{
	struct fring_session *se;
	int ret;

	if (!ops || !out)
		return -EINVAL;
	ret = fault_setup();
	if (ret)
		return ret;
	if (ops_size > sizeof(struct fring_ops)) {
		fr_err("struct fring_ops is larger than this library knows "
		       "(%zu > %zu): built against a newer libfring?",
		       ops_size, sizeof(struct fring_ops));
		return -EINVAL;
	}
	se = calloc(1, sizeof(*se));
	if (!se)
		return -ENOMEM;
	memcpy(&se->ops, ops, ops_size);
	se->userdata = userdata;
	if (cfg)
		se->cfg = *cfg;
	else
		fring_config_defaults(&se->cfg);
	se->fd = -1;
	se->exit_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	se->ask_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (se->exit_efd < 0 || se->ask_efd < 0) {
		int err = -errno;

		if (se->exit_efd >= 0)
			close(se->exit_efd);
		if (se->ask_efd >= 0)
			close(se->ask_efd);
		free(se);
		return err;
	}
	pthread_mutex_init(&se->lock, NULL);
	se->transport = FRING_TRANSPORT_AUTO;
	snprintf(se->reason, sizeof(se->reason), "not started");
	*out = se;
	return 0;
}

int fring_session_mount(fring_session_t *se, const char *mountpoint)
{
	int ret;

	if (!se)
		return -EINVAL;
	if (se->mounted)
		return -EBUSY;
	ret = ladder_precheck(se);
	if (ret)
		return ret;
	return mount_fuse(se, mountpoint);
}

void session_stop(struct fring_session *se)
{
	uint64_t one = 1;
	ssize_t n;

	/* async-signal-safe: an atomic store and a write(2) */
	atomic_store(&se->exiting, 1);
	n = write(se->exit_efd, &one, sizeof(one));
	(void)n;
}

void fring_session_exit(fring_session_t *se)
{
	uint64_t one = 1;
	ssize_t n;

	/* async-signal-safe: an atomic add and a write(2); the run thread
	 * weighs the request (wait_for_exit) */
	atomic_fetch_add(&se->exit_asked, 1);
	n = write(se->ask_efd, &one, sizeof(one));
	(void)n;
}

int fring_session_exited(const fring_session_t *se)
{
	fring_session_t *s = (fring_session_t *)se;

	/* ending, or asked to and not (yet) declined */
	return atomic_load(&s->exiting) ||
	       atomic_load(&s->exit_asked) != atomic_load(&s->exit_declined);
}

void session_call_destroy(struct fring_session *se)
{
	bool call;

	pthread_mutex_lock(&se->lock);
	call = !se->destroyed_called && se->got_init;
	se->destroyed_called = true;
	pthread_mutex_unlock(&se->lock);
	if (call && se->ops.destroy)
		se->ops.destroy(se->userdata);
}

static unsigned default_queues(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

static size_t dev_buffer_size(const struct fring_conn *c)
{
	/* The largest request: a WRITE of max_write, or a SETXATTR with a
	 * 64 KiB value (kernel-protocol.md 2.3); READ data needs max_pages
	 * pages after the first page. */
	size_t in = 80 + (size_t)c->max_write;
	size_t data = (size_t)c->max_pages * FRING_PAGE;

	if (in < 65848)
		in = 65848;
	if (data < in)
		data = in;
	return FRING_PAGE + FRING_ALIGN_UP(data, FRING_PAGE);
}

static void queue_init(struct fring_session *se, struct fring_queue *q,
		       unsigned idx)
{
	q->se = se;
	q->idx = idx;
	q->fd = -1;
	q->tp = &fring_tp_dev;
	q->pool_index = -1;
	q->pipe[0] = q->pipe[1] = -1;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->slot_freed, NULL);
}

static void queue_fini(struct fring_queue *q)
{
	queue_free_slots(q);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->slot_freed);
}

static int queues_alloc(struct fring_session *se, unsigned n)
{
	se->queues = calloc(n, sizeof(*se->queues));
	if (!se->queues)
		return -ENOMEM;
	se->nqueues = n;
	for (unsigned i = 0; i < n; i++)
		queue_init(se, &se->queues[i], i);
	return 0;
}

static void queues_free(struct fring_session *se)
{
	for (unsigned i = 0; se->queues && i < se->nqueues; i++)
		queue_fini(&se->queues[i]);
	free(se->queues);
	se->queues = NULL;
	se->nqueues = 0;
}

static void ring_abandon(struct fring_session *se)
{
	if (!se->ring)
		return;
	ring_go(se, false);
	ring_stop(se);
	ring_free(se);
	queues_free(se);
}

/* What a ring rung needs, built before INIT is answered (ladder_settle()). */
static int build_rings(struct fring_session *se)
{
	int ret = queues_alloc(se, ring_nr_queues());

	if (!ret)
		ret = ring_prepare(se);
	if (ret) {
		ring_abandon(se);
		queues_free(se);
	}
	return ret;
}

/*
 * Between negotiating INIT and answering it: choose the rung, and build
 * everything the ring needs now, so the answer offers FUSE_OVER_IO_URING
 * only when the rings exist (a REGISTER that fails later would disable
 * io_uring for the connection, or hang it).
 */
static int before_init_reply(struct fring_session *se,
			     struct fuse_init_out *out)
{
	int ret = ladder_settle(se, build_rings);

	if (ret || se->transport == FRING_TRANSPORT_DEV)
		return ret;
	se->conn.want |= FUSE_OVER_IO_URING;
	out->flags |= (uint32_t)FUSE_INIT_EXT;
	out->flags2 |= (uint32_t)(FUSE_OVER_IO_URING >> 32);
	return 0;
}

/*
 * An exit request while other mounts sit on ours or inside it: unmounting
 * would take them along (MNT_DETACH) or fail, and ending the daemon leaves
 * a dead mount under them. So the first request is declined, loudly, and
 * the filesystem keeps serving (memfs keeps its data); a second one ends
 * the session without unmounting. True when the session should stop.
 */
static bool weigh_exit(struct fring_session *se, unsigned asked,
		       unsigned *weighed, bool *declined)
{
	char what[PATH_MAX + 64];
	unsigned n = asked - *weighed;

	*weighed = asked;
	if (!mount_held(se, what, sizeof(what)))
		return true;
	if (*declined || n > 1) {
		fr_warn("exit asked again: ending without unmounting %s (it "
			"is %s); the mount stays there, dead, until that one "
			"is gone and it is unmounted (umount %s)",
			se->mountpoint, what, se->mountpoint);
		return true;
	}
	*declined = true;
	atomic_store(&se->exit_declined, asked);
	fr_warn("exit asked, but the mount at %s is %s: not unmounting "
		"anything, and serving on (its files stay as they are); ask "
		"again (a second SIGTERM, SIGINT or SIGHUP) to end the daemon "
		"without unmounting",
		se->mountpoint, what);
	return false;
}

/* Until the queues must stop: session_stop(), or an exit request that
 * weigh_exit() grants. */
static void wait_for_exit(struct fring_session *se)
{
	struct pollfd p[2] = {{se->exit_efd, POLLIN, 0},
			      {se->ask_efd, POLLIN, 0}};
	unsigned weighed = 0;
	bool declined = false;

	while (!atomic_load(&se->exiting)) {
		unsigned asked = atomic_load(&se->exit_asked);
		uint64_t v;

		if (asked != weighed &&
		    weigh_exit(se, asked, &weighed, &declined)) {
			session_stop(se);
			break;
		}
		p[0].revents = p[1].revents = 0;
		if (poll(p, 2, -1) < 0 && errno != EINTR) {
			session_stop(se);
			break;
		}
		/* drained before `asked` is read again: a request counted
		 * after this read wakes the next poll */
		if (p[1].revents && read(se->ask_efd, &v, sizeof(v)) < 0)
			v = 0;
	}
}

static void wake_slot_waiters(struct fring_session *se)
{
	for (unsigned i = 0; i < se->nqueues; i++) {
		pthread_mutex_lock(&se->queues[i].lock);
		pthread_cond_broadcast(&se->queues[i].slot_freed);
		pthread_mutex_unlock(&se->queues[i].lock);
	}
}

static uint64_t unanswered(struct fring_session *se)
{
	struct fring_stats st;

	fring_session_stats(se, FRING_STATS_ALL, &st);
	return st.in_flight;
}

/*
 * Requests handlers still hold (fring_req_async) get a bounded time to be
 * answered; whatever is left is named in the log, so every slot is accounted
 * for. Answers given after fring_session_destroy() are a use-after-free.
 */
static void drain(struct fring_session *se)
{
	uint64_t left = unanswered(se);

	for (int i = 0; left && i < FRING_DRAIN_MS / 10; i++) {
		usleep(10000);
		left = unanswered(se);
	}
	if (!left)
		return;
	fr_warn("%llu request(s) still unanswered by the filesystem at exit:",
		(unsigned long long)left);
	for (unsigned i = 0; i <= se->nqueues; i++) {
		struct fring_queue *q =
			i < se->nqueues ? &se->queues[i] : se->side;

		for (unsigned j = 0; q && j < q->nslots; j++) {
			struct fring_req *r = q->slots[j];
			uint64_t u = atomic_load(&r->unique);

			if (u && !atomic_load(&r->answered))
				fr_warn("  q%u: %s unique %llu, held %llu ms",
					i, fring_opname(r->opcode),
					(unsigned long long)u,
					(unsigned long long)(fring_now_ns() -
							     r->t_start) /
						1000000);
		}
	}
}

int fring_session_run(fring_session_t *se)
{
	int ret;

	if (!se || !se->mounted)
		return -EINVAL;
	if (se->queues)
		return -EBUSY;
	ret = dev_read_init(se, before_init_reply);
	if (ret) {
		ring_abandon(se);
		return ret == -ECANCELED ? 0 : ret;
	}
	se->bufsize = dev_buffer_size(&se->conn);
	splice_session_start(se);
	if (se->ring) { /* uring and the pool rungs */
		/* FORGET, INTERRUPT and whatever comes before the ring is
		 * ready keep arriving on /dev/fuse */
		se->side = calloc(1, sizeof(*se->side));
		ret = se->side ? 0 : -ENOMEM;
		if (!ret) {
			queue_init(se, se->side, se->nqueues);
			se->side->fd = se->fd;
			ret = dev_start_queue(se->side);
		}
		ring_go(se, ret == 0);
	} else {
		ret = queues_alloc(se, se->cfg.queues ? se->cfg.queues
						      : default_queues());
		if (!ret)
			ret = dev_start(se);
	}
	fr_info("mounted %s: FUSE %u.%u, transport %s, %u queue%s, "
		"max_write %u",
		se->mountpoint, se->conn.proto_major, se->conn.proto_minor,
		se->reason, se->nqueues, se->nqueues == 1 ? "" : "s",
		se->conn.max_write);
	if (se->transport == FRING_TRANSPORT_ZEROCOPY)
		fr_info("zero-copy: %s",
			se->cfg.zero_copy_opt_in
				? "only opens that set zero_copy "
				  "(-o zero_copy_opt_in)"
			: se->conn.fs_flags & FRING_FS_ZERO_COPY
				? "every open that does not set no_zero_copy "
				  "(the filesystem declared FRING_FS_ZERO_COPY)"
				: "only opens that set zero_copy (the "
				  "filesystem did not declare "
				  "FRING_FS_ZERO_COPY)");
	atomic_store(&se->serving, true);
	if (ret)
		session_stop(se);
	wait_for_exit(se);
	wake_slot_waiters(se);
	ring_stop(se);
	/* the kernel fails what the dead ring held (ENOTCONN) when the
	 * device closes; the process says the session failed */
	if (!ret && se->ring)
		ret = atomic_load(&se->ring->fatal_err);
	dev_stop(se);
	drain(se);
	session_call_destroy(se);
	return ret;
}

int fring_session_unmount(fring_session_t *se)
{
	if (!se)
		return -EINVAL;
	return unmount_fuse(se);
}

void fring_session_destroy(fring_session_t *se)
{
	if (!se)
		return;
	unmount_fuse(se);
	ring_free(se);
	queues_free(se);
	if (se->side) {
		queue_fini(se->side);
		free(se->side);
	}
	if (se->fd >= 0)
		close(se->fd);
	close(se->exit_efd);
	close(se->ask_efd);
	notify_free(se);
	pthread_mutex_destroy(&se->lock);
	free(se->mountpoint);
	free(se);
}

void *fring_session_userdata(const fring_session_t *se)
{
	return se->userdata;
}

const struct fring_conn *fring_session_conn(const fring_session_t *se)
{
	return &se->conn;
}

enum fring_transport fring_session_transport(const fring_session_t *se)
{
	return se->transport;
}

const char *fring_session_transport_reason(const fring_session_t *se)
{
	return se->reason;
}

unsigned fring_session_queues(const fring_session_t *se)
{
	return se->nqueues;
}
