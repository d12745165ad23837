/* SPDX-License-Identifier: MIT */
/*
 * Sessions: create, mount, run (INIT, choose the rung, start and stop the
 * queues, weigh exit requests, take a transport's news), exit, destroy.
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

#include "dev/dev.h"
#include "dispatch/dispatch.h"
#include "fault.h"
#include "ladder/ladder.h"
#include "mount.h"
#include "opname.h"
#include "reply.h"
#include "req.h"
#include "ring/ring.h"

/* how long run() waits at the end for answers handlers still owe */
#define FRING_DRAIN_MS 2000

const char *fring_version(void)
{
	return FRING_VERSION;
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
	se->watch_fd = -1;
	se->watch_pid = -1;
	se->exit_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	se->ask_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	se->note_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (se->exit_efd < 0 || se->ask_efd < 0 || se->note_efd < 0) {
		int err = -errno;

		if (se->exit_efd >= 0)
			close(se->exit_efd);
		if (se->ask_efd >= 0)
			close(se->ask_efd);
		if (se->note_efd >= 0)
			close(se->note_efd);
		free(se);
		return err;
	}
	pthread_mutex_init(&se->lock, NULL);
	se->transport = FRING_TRANSPORT_AUTO;
	snprintf(session_reason_buf(se), FRING_REASON_LEN, "not started");
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

int fring_mount_fd(const char *mountpoint, const fring_config_t *cfg)
{
	static const struct fring_ops none;
	fring_session_t *se;
	int ret = fring_session_new(&none, sizeof(none), NULL, cfg, &se);

	if (ret)
		return ret;
	/* the session's own mount code (no ladder: nothing is served here,
	 * the transport is the server's to choose) */
	ret = mount_fuse(se, mountpoint);
	if (!ret && se->adopted) {
		fr_err("mountpoint %s: a descriptor handed down is mounted "
		       "already",
		       mountpoint);
		se->fd = -1; /* not this call's to close */
		ret = -EINVAL;
	}
	if (!ret) {
		ret = se->fd;
		se->fd = -1;
		/* from now on the mount is whoever serves the descriptor's */
		se->mounted = false;
		watch_hand_over(se);
	}
	fring_session_destroy(se);
	return ret;
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

static unsigned default_queues(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

static size_t dev_buffer_size(const struct fring_conn *c)
{
	/* The largest request: a WRITE of max_write, or a SETXATTR with a
	 * 64 KiB value (doc/kernel-protocol.md, "Reading requests"); READ
	 * data needs max_pages pages after the first page. */
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

/*
 * A transport's news (session_note()): a ring command the kernel refused
 * means the connection now flows through /dev/fuse. Only this thread
 * rewrites the session's transport and reason; the ring thread that met
 * the failure just recorded it.
 */
static void take_news(struct fring_session *se)
{
	char why[128];
	uint64_t v;

	if (read(se->note_efd, &v, sizeof(v)) < 0)
		v = 0;
	if (!ring_take_failure(se, why, sizeof(why)))
		return;
	ladder_fell_back(se, why);
	fr_warn("transport fell back: %s", session_reason(se));
}

/* Until the queues must stop: session_stop(), or an exit request that
 * weigh_exit() grants. Meanwhile, the transports' news. */
static void wait_for_exit(struct fring_session *se)
{
	struct pollfd p[3] = {{se->exit_efd, POLLIN, 0},
			      {se->ask_efd, POLLIN, 0},
			      {se->note_efd, POLLIN, 0}};
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
		p[0].revents = p[1].revents = p[2].revents = 0;
		if (poll(p, 3, -1) < 0 && errno != EINTR) {
			session_stop(se);
			break;
		}
		/* drained before `asked` is read again: a request counted
		 * after this read wakes the next poll */
		if (p[1].revents && read(se->ask_efd, &v, sizeof(v)) < 0)
			v = 0;
		if (p[2].revents)
			take_news(se);
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
		session_reason(se), se->nqueues, se->nqueues == 1 ? "" : "s",
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
	if (!ret)
		ret = ring_fatal_err(se);
	dev_stop(se);
	drain(se);
	dispatch_destroy(se);
	return ret;
}

int fring_session_unmount(fring_session_t *se)
{
	int ret;

	if (!se)
		return -EINVAL;
	ret = unmount_fuse(se);
	/* gone: nothing left for auto_unmount's watcher to do */
	if (!se->mounted)
		watch_end(se);
	return ret;
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
	/* The library's decision about the mount stands, whatever it was.
	 * After the close: a fusermount3 that looks at a mount left in place
	 * must find its connection ended, not one nobody serves. */
	watch_end(se);
	close(se->exit_efd);
	close(se->ask_efd);
	close(se->note_efd);
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
	return session_reason(se);
}

unsigned fring_session_queues(const fring_session_t *se)
{
	return se->nqueues;
}

int fring_session_fd(const fring_session_t *se)
{
	return se ? se->fd : -1;
}
