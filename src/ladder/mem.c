/* SPDX-License-Identifier: MIT */
/*
 * The ring rungs' memory as the ladder weighs it: their sizes, and
 * RLIMIT_MEMLOCK as io_uring applies it (ring/plan.c counts what it
 * charges). One verdict for a mount and for fring-probe, and messages that
 * say what to change.
 *
 * What io_uring charges depends on the kernel: registered buffers always
 * (the pinned pools), the rings on some kernels only (6.18 does, 7.3 does
 * not; ring/plan.c). And the count is per user: every process of the uid
 * draws on one RLIMIT_MEMLOCK-sized budget, and what the others hold
 * cannot be seen from here. So only pinned pools above the limit are
 * refused before the kernel is asked (every kernel would refuse them); the
 * rest is left to the kernel, whose ENOMEM is then explained with the
 * count (build_why()). The limit is read by facts.c (ladder_facts_read()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ladder.h"

/* __io_account_mem(): pages charged so far plus these, against the limit
 * in whole pages */
bool memlock_fits(const struct memlock *m, size_t need)
{
	size_t pg = ring_page_size();

	if (!m->charged || m->limit == ~0ULL)
		return true;
	return (need + pg - 1) / pg <= m->limit / pg;
}

void memlock_limit_str(const struct memlock *m, char *buf, size_t len)
{
	if (m->limit == ~0ULL)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu KiB", m->limit / 1024);
}

/* What registering the pools pins, with b buffers in each: only the
 * pools of online CPUs' queues are registered (ring/pool.c) */
static size_t pinned_pools(const struct ring_sizes *z, unsigned b)
{
	return z->online * ring_pool_locked_bytes(z->payload * b);
}

void ladder_sizes(const struct fring_session *se, size_t payload,
		  struct ring_sizes *z)
{
	unsigned depth = se->cfg.queue_depth;
	size_t sz = payload;

	if (!sz) {
		sz = FUSE_MIN_READ_BUFFER;
		if (se->got_init)
			sz = init_payload_size(&se->conn);
		else if (se->cfg.max_write > sz)
			sz = se->cfg.max_write;
	}
	z->payload = FRING_ALIGN_UP(sz, FRING_PAGE);
	z->queues = ring_nr_queues();
	z->online = ring_online_map(NULL, z->queues);
	z->pool_bufs = ring_pool_bufs(&se->cfg);
	/* every queue has its buffers or pool, mapped; those of offline
	 * CPUs' queues fault on first use and are never registered (ring.h) */
	z->entries = z->payload * depth * z->queues;
	z->pools = z->payload * z->pool_bufs * z->queues;
	z->pool_locked = pinned_pools(z, z->pool_bufs);
	ring_plan(z->queues, z->online, se->cfg.threads, depth, &z->plan);
}

size_t rung_faulted(const struct ring_sizes *z, enum fring_transport t)
{
	switch (t) {
	case FRING_TRANSPORT_URING:
		return z->entries / z->queues * z->online;
	case FRING_TRANSPORT_BUFPOOL:
		return z->pools / z->queues * z->online;
	case FRING_TRANSPORT_BUFPOOL_REGISTERED:
	case FRING_TRANSPORT_ZEROCOPY:
		return z->pool_locked;
	default:
		return 0;
	}
}

static bool pinned(enum fring_transport t)
{
	return t == FRING_TRANSPORT_ZEROCOPY ||
	       t == FRING_TRANSPORT_BUFPOOL_REGISTERED;
}

size_t rung_locked(const struct ring_sizes *z, enum fring_transport t)
{
	if (t == FRING_TRANSPORT_AUTO || t == FRING_TRANSPORT_DEV)
		return 0;
	return z->plan.locked + rung_pinned(z, t);
}

size_t rung_pinned(const struct ring_sizes *z, enum fring_transport t)
{
	return pinned(t) ? z->pool_locked : 0;
}

static size_t kib_up(size_t bytes)
{
	return (bytes + 1023) / 1024;
}

/* What rung t would have charged at queue_depth d and pool_bufs b: the
 * pools, and the rings where `rings`. */
static size_t need_at(const struct fring_session *se,
		      const struct ring_sizes *z, enum fring_transport t,
		      bool rings, unsigned d, unsigned b)
{
	size_t need = 0;

	if (rings) {
		struct ring_plan p;

		ring_plan(z->queues, z->online, se->cfg.threads, d, &p);
		need = p.locked;
	}
	if (pinned(t))
		need += pinned_pools(z, b);
	return need;
}

/* The largest queue_depth below the configured one that fits, 0 if none
 * does (the pools follow the depth unless pool_bufs is set). */
static unsigned fitting_depth(const struct fring_session *se,
			      const struct memlock *m, enum fring_transport t,
			      const struct ring_sizes *z, bool rings)
{
	for (unsigned d = se->cfg.queue_depth; d-- > 1;) {
		struct fring_config c = se->cfg;

		c.queue_depth = d;
		if (memlock_fits(
			    m, need_at(se, z, t, rings, d, ring_pool_bufs(&c))))
			return d;
	}
	return 0;
}

/* The largest pool_bufs below the current one that fits, 0 if none. */
static unsigned fitting_bufs(const struct fring_session *se,
			     const struct memlock *m, enum fring_transport t,
			     const struct ring_sizes *z, bool rings)
{
	for (unsigned b = z->pool_bufs; b-- > 1;)
		if (memlock_fits(m, need_at(se, z, t, rings,
					    se->cfg.queue_depth, b)))
			return b;
	return 0;
}

/* ", or ..." naming a smaller setting that fits, or nothing */
static void smaller(char *buf, size_t len, const struct fring_session *se,
		    const struct memlock *m, enum fring_transport t,
		    const struct ring_sizes *z, bool rings)
{
	unsigned v;

	buf[0] = '\0';
	if (pinned(t) && (v = fitting_bufs(se, m, t, z, rings)))
		snprintf(buf, len,
			 ", or fewer pool buffers (pool_bufs=%u fits)", v);
	else if ((v = fitting_depth(se, m, t, z, rings)))
		snprintf(buf, len, ", or a smaller queue_depth (%u fits)", v);
	else if (pinned(t))
		snprintf(buf, len,
			 ", or smaller pools (pool_bufs=, max_write=)");
}

void pools_why(char *buf, size_t len, const struct fring_session *se,
	       const struct memlock *m, enum fring_transport t,
	       const struct ring_sizes *z)
{
	size_t need = kib_up(rung_pinned(z, t));
	char lim[32], fix[80], pools[128];

	memlock_limit_str(m, lim, sizeof(lim));
	smaller(fix, sizeof(fix), se, m, t, z, false);
	if (z->online < z->queues)
		snprintf(pools, sizeof(pools),
			 "%u pools (%u of %zu KiB, for the online CPUs' "
			 "queues, and %u of %zu KiB)",
			 z->queues, z->online,
			 kib_up(ring_pool_locked_bytes(z->payload *
						       z->pool_bufs)),
			 z->queues - z->online,
			 kib_up(ring_pool_locked_bytes(z->payload)));
	else
		snprintf(pools, sizeof(pools), "%u pool%s of %zu KiB",
			 z->queues, z->queues == 1 ? "" : "s",
			 kib_up(z->pool_locked / z->queues));
	snprintf(buf, len,
		 "RLIMIT_MEMLOCK %s is below the %zu KiB io_uring pins for %s "
		 "(none with CAP_IPC_LOCK): raise it (ulimit -l %zu, "
		 "LimitMEMLOCK=%zuK)%s",
		 lim, need, pools, need, need, fix);
}

void build_why(char *buf, size_t len, int err, const struct fring_session *se,
	       const struct memlock *m, enum fring_transport t,
	       const struct ring_sizes *z)
{
	size_t need = kib_up(rung_locked(z, t));
	char lim[32], what[96], fix[80];

	if (err != -ENOMEM || !m->charged || m->limit == ~0ULL) {
		snprintf(buf, len, "io_uring setup failed (%s)",
			 strerror(-err));
		return;
	}
	memlock_limit_str(m, lim, sizeof(lim));
	if (memlock_fits(m, rung_locked(z, t))) {
		/* the count fits: the rest is held by other processes of the
		 * uid, or memory is short */
		snprintf(buf, len,
			 "io_uring setup failed (%s): io_uring can charge %zu "
			 "KiB here to RLIMIT_MEMLOCK %s, which all processes "
			 "of uid %u share (others may hold the rest), unless "
			 "memory is short: raise it (ulimit -l, "
			 "LimitMEMLOCK=) or a smaller queue_depth",
			 strerror(-err), need, lim, (unsigned)getuid());
		return;
	}
	snprintf(what, sizeof(what), "%u ring%s of %u entries%s",
		 z->plan.nthreads, z->plan.nthreads == 1 ? "" : "s",
		 z->plan.entries, pinned(t) ? " and the pinned pools" : "");
	smaller(fix, sizeof(fix), se, m, t, z, true);
	snprintf(buf, len,
		 "io_uring setup failed (%s): RLIMIT_MEMLOCK %s is below the "
		 "%zu KiB io_uring can charge to it here (%s; none with "
		 "CAP_IPC_LOCK): raise it (ulimit -l %zu, LimitMEMLOCK=%zuK)%s",
		 strerror(-err), lim, need, what, need, need, fix);
}
