/* SPDX-License-Identifier: MIT */
/*
 * The ring rungs' memory as the ladder weighs it: their sizes, and
 * RLIMIT_MEMLOCK as io_uring applies it (ring_mem.c counts what it
 * charges). One verdict for a mount and for fring-probe, and messages that
 * say what to change.
 *
 * The kernel's count is per user: every process of the uid draws on one
 * RLIMIT_MEMLOCK-sized budget, and what the others hold cannot be seen from
 * here. So a need above the limit is refused before the kernel is asked (it
 * would refuse it whatever the others hold); a need within it is left to
 * the kernel, whose ENOMEM is then explained (build_why()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ladder.h"

bool ladder_has_cap(int bit)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	bool ret = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			ret = caps & (1ULL << bit);
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * io_uring asks for CAP_IPC_LOCK in the initial user namespace; a
 * container's root has it only in its own. The initial namespace maps every
 * uid to itself. When unsure, the answer is "initial": then nothing is
 * refused ahead and the kernel decides.
 */
static bool initial_userns(void)
{
	FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long long a, b, n;
	bool init = true;

	if (!f)
		return true;
	if (fscanf(f, "%llu %llu %llu", &a, &b, &n) == 3)
		init = a == 0 && b == 0 && n == 4294967295ULL;
	fclose(f);
	return init;
}

void memlock_get(struct memlock *m)
{
	struct rlimit rl;

	m->charged = !(ladder_has_cap(CAP_IPC_LOCK_BIT) && initial_userns());
	m->limit =
		getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY
			? ~0ULL
			: (unsigned long long)rl.rlim_cur;
}

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
	z->pool_bufs = se->cfg.pool_bufs ? se->cfg.pool_bufs : depth;
	z->entries = z->payload * depth * z->queues;
	z->pools = z->payload * z->pool_bufs * z->queues;
	z->pool_locked =
		z->queues * ring_pool_locked_bytes(z->payload * z->pool_bufs);
	ring_plan(z->queues, se->cfg.threads, depth, &z->plan);
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
	return z->plan.locked + (pinned(t) ? z->pool_locked : 0);
}

static size_t kib_up(size_t bytes)
{
	return (bytes + 1023) / 1024;
}

/* The largest queue_depth below the configured one whose rung t fits, 0
 * if none does (the pools follow the depth unless pool_bufs is set). */
static unsigned fitting_depth(const struct fring_session *se,
			      const struct memlock *m, enum fring_transport t,
			      const struct ring_sizes *z)
{
	for (unsigned d = se->cfg.queue_depth; d-- > 1;) {
		unsigned bufs = se->cfg.pool_bufs ? se->cfg.pool_bufs : d;
		struct ring_plan p;
		size_t need;

		ring_plan(z->queues, se->cfg.threads, d, &p);
		need = p.locked;
		if (pinned(t))
			need += z->queues *
				ring_pool_locked_bytes(z->payload * bufs);
		if (memlock_fits(m, need))
			return d;
	}
	return 0;
}

/* The largest pool_bufs below the current one whose pinned rung fits. */
static unsigned fitting_bufs(const struct memlock *m,
			     const struct ring_sizes *z)
{
	for (unsigned b = z->pool_bufs; b-- > 1;) {
		size_t need =
			z->plan.locked +
			z->queues * ring_pool_locked_bytes(z->payload * b);

		if (memlock_fits(m, need))
			return b;
	}
	return 0;
}

void memlock_why(char *buf, size_t len, const struct fring_session *se,
		 const struct memlock *m, enum fring_transport t,
		 const struct ring_sizes *z)
{
	size_t need = kib_up(rung_locked(z, t));
	unsigned d = fitting_depth(se, m, t, z);
	unsigned b = pinned(t) && !d ? fitting_bufs(m, z) : 0;
	char lim[32], what[160], fix[96] = "";

	memlock_limit_str(m, lim, sizeof(lim));
	if (pinned(t))
		snprintf(what, sizeof(what),
			 "%u ring%s of %u entries and %u registered pool%s of "
			 "%zu KiB",
			 z->plan.nthreads, z->plan.nthreads == 1 ? "" : "s",
			 z->plan.entries, z->queues, z->queues == 1 ? "" : "s",
			 kib_up(z->pool_locked / z->queues));
	else
		snprintf(what, sizeof(what), "%u ring%s of %u entries",
			 z->plan.nthreads, z->plan.nthreads == 1 ? "" : "s",
			 z->plan.entries);
	if (d)
		snprintf(fix, sizeof(fix),
			 ", or a smaller queue_depth "
			 "(queue_depth=%u fits)",
			 d);
	else if (b)
		snprintf(fix, sizeof(fix),
			 ", or fewer pool buffers "
			 "(pool_bufs=%u fits)",
			 b);
	else if (pinned(t))
		snprintf(fix, sizeof(fix),
			 ", or smaller pools (pool_bufs=N, "
			 "max_write=N)");
	snprintf(buf, len,
		 "RLIMIT_MEMLOCK %s is below the %zu KiB io_uring charges to "
		 "it for %s (none with CAP_IPC_LOCK): raise it (ulimit "
		 "-l %zu; LimitMEMLOCK=%zuK in a systemd unit)%s",
		 lim, need, what, need, need, fix);
}

void build_why(char *buf, size_t len, int err, const struct memlock *m,
	       enum fring_transport t, const struct ring_sizes *z)
{
	size_t need = kib_up(rung_locked(z, t));
	char lim[32];

	if (err != -ENOMEM || !m->charged || m->limit == ~0ULL) {
		snprintf(buf, len, "io_uring setup failed (%s)",
			 strerror(-err));
		return;
	}
	/* The count above fitted the limit, or the kernel would not have
	 * been asked: the rest is held by other processes of the uid (or
	 * memory is short). */
	memlock_limit_str(m, lim, sizeof(lim));
	snprintf(buf, len,
		 "io_uring setup failed (%s): io_uring charges its %zu KiB "
		 "here to RLIMIT_MEMLOCK %s, which every process of uid %u "
		 "shares (those using io_uring already hold part of it), "
		 "unless the memory is short: raise it (ulimit -l; "
		 "LimitMEMLOCK= in a systemd unit), or a smaller queue_depth",
		 strerror(-err), need, lim, (unsigned)getuid());
}
