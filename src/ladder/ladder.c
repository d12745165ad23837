/* SPDX-License-Identifier: MIT */
/*
 * The transport ladder: which rung runs, and why each better one does not.
 * Checked twice: before mounting (what the module and the process allow) and
 * at INIT (what the kernel offers), each time on the facts of the moment
 * (struct ladder_facts: read by facts.c for a mount, given by fring-probe
 * and the tests). A reason reads "RUNG (not HIGHER: why; ...)" for the rung
 * taken, "RUNG: why" for an asked-for rung refused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ladder.h"

#define NRUNG	FRING_TRANSPORT_DEV
#define WHY_LEN 400

static const char *uring_off(int en)
{
	return en < 0 ? "this kernel has no FUSE-over-io_uring "
			"(Linux 6.14+ with CONFIG_FUSE_IO_URING)"
		      : "enable_uring=N (as root: echo Y "
			"> " ENABLE_URING_PARAM ")";
}

static bool pinned(enum fring_transport t)
{
	return t == FRING_TRANSPORT_ZEROCOPY ||
	       t == FRING_TRANSPORT_BUFPOOL_REGISTERED;
}

#define NO_SYS_ADMIN                                                           \
	"no CAP_SYS_ADMIN (only it may put client pages in the ring)"

/*
 * Before mounting, what the ring rungs will allocate and pin, so an
 * operator sees the cost before the kernel does (the rung itself is known
 * only at INIT).
 */
static void memory_report(const struct fring_session *se,
			  const struct ring_sizes *z, const struct memlock *ml)
{
	char lim[32];

	memlock_limit_str(ml, lim, sizeof(lim));
	fr_info("memory: %u queues (%u of online CPUs) x %u entries, %u "
		"ring thread%s, up to %zu KiB a request: uring %zu KiB of "
		"entry buffers; bufpool %zu KiB of pools; bufpool-registered "
		"and zerocopy %zu KiB of pools, pinned (buffers of the online "
		"CPUs' queues faulted in at the start, the others' on first "
		"use); RLIMIT_MEMLOCK %s%s: io_uring charges the pinned pools "
		"to it, and on some kernels %zu KiB for %u ring%s of %u "
		"entries",
		z->queues, z->online, se->cfg.queue_depth, z->plan.nthreads,
		z->plan.nthreads == 1 ? "" : "s", z->payload / 1024,
		z->entries / 1024, z->pools / 1024, z->pool_locked / 1024, lim,
		ml->charged ? "" : " (CAP_IPC_LOCK: nothing charged)",
		z->plan.locked / 1024, z->plan.nthreads,
		z->plan.nthreads == 1 ? "" : "s", z->plan.entries);
}

/* An explicit transport refused before mounting: the reason is kept (the
 * session's transport reason) and logged. */
static int refuse(struct fring_session *se, int err, const char *why)
{
	snprintf(session_reason_buf(se), FRING_REASON_LEN, "%s", why);
	fr_err("transport=%s refused: %s",
	       fring_transport_name(se->cfg.transport), why);
	return err;
}

int ladder_precheck(struct fring_session *se)
{
	struct ladder_facts f;

	ladder_facts_read(&f);
	return ladder_precheck_with(se, &f);
}

int ladder_precheck_with(struct fring_session *se, const struct ladder_facts *f)
{
	enum fring_transport t = se->cfg.transport;
	char why[WHY_LEN];
	struct ring_sizes z;

	if (t == FRING_TRANSPORT_AUTO || t == FRING_TRANSPORT_DEV) {
		if (t == FRING_TRANSPORT_AUTO && f->enable_uring == 1) {
			ladder_sizes(se, 0, &z);
			memory_report(se, &z, &f->ml);
		}
		return 0;
	}
	if (t == FRING_TRANSPORT_ZEROCOPY && !f->cap_sys_admin)
		return refuse(se, -EPERM, "zerocopy: " NO_SYS_ADMIN);
	if (f->enable_uring != 1) {
		snprintf(why, sizeof(why), "uring: %s",
			 uring_off(f->enable_uring));
		return refuse(se, -EOPNOTSUPP, why);
	}
	/* RLIMIT_MEMLOCK is weighed at INIT: the pools' size is known only
	 * then (the filesystem's init may change the payload), and whether
	 * the rings are charged only the kernel says */
	ladder_sizes(se, 0, &z);
	memory_report(se, &z, &f->ml);
	return 0;
}

/* ---------------- at INIT ---------------- */

/* Why each rung cannot run here; "" where it can. Indexed by the enum. */
struct rungs {
	char why[NRUNG + 1][WHY_LEN];
	int err[NRUNG + 1]; /* a build's error, for an asked-for rung */
};

static void rung_whys(const struct fring_session *se,
		      const struct ladder_facts *f, const struct rungs *failed,
		      const struct ring_sizes *z, struct rungs *v)
{
	const struct fring_conn *c = &se->conn;
	bool can_uring = !!(c->capable & FUSE_OVER_IO_URING);
	bool can_pool = can_uring && c->proto_minor >= 46 &&
			(c->capable & FUSE_HAS_IO_URING_BUFPOOL);
	char pools[WHY_LEN] = "";

	memset(v, 0, sizeof(*v));
	/* the ABI first: enable_uring=Y would not help a 7.45 kernel */
	if (!can_pool && (can_uring || c->proto_minor < 46))
		snprintf(pools, sizeof(pools), "kernel ABI 7.%u%s",
			 c->proto_minor,
			 c->proto_minor < 46
				 ? " < 7.46"
				 : " without FUSE_HAS_IO_URING_BUFPOOL");
	else if (!can_uring)
		snprintf(pools, sizeof(pools), "no FUSE-over-io_uring");
	for (int r = FRING_TRANSPORT_ZEROCOPY; r <= FRING_TRANSPORT_BUFPOOL;
	     r++)
		snprintf(v->why[r], WHY_LEN, "%s", pools);
	if (!can_uring)
		snprintf(v->why[FRING_TRANSPORT_URING], WHY_LEN, "%s",
			 c->proto_minor < 42 ? "kernel ABI < 7.42"
					     : uring_off(f->enable_uring));
	if (!v->why[FRING_TRANSPORT_ZEROCOPY][0] && !f->cap_sys_admin)
		snprintf(v->why[FRING_TRANSPORT_ZEROCOPY], WHY_LEN, "%s",
			 NO_SYS_ADMIN);
	/* the filesystem's own word comes before what the machine allows */
	if (c->fs_flags & FRING_FS_NO_RING)
		for (int r = FRING_TRANSPORT_ZEROCOPY;
		     r <= FRING_TRANSPORT_URING; r++)
			snprintf(v->why[r], WHY_LEN, "%s",
				 "the filesystem declined io_uring "
				 "(FRING_FS_NO_RING)");
	for (int r = FRING_TRANSPORT_ZEROCOPY; r <= FRING_TRANSPORT_URING;
	     r++) {
		if (v->why[r][0])
			continue;
		if (failed->why[r][0]) {
			memcpy(v->why[r], failed->why[r], WHY_LEN);
			v->err[r] = failed->err[r];
		} else if (!memlock_fits(&f->ml, rung_pinned(z, r))) {
			pools_why(v->why[r], WHY_LEN, se, &f->ml, r, z);
		}
	}
}

static enum fring_transport pick(const struct rungs *v,
				 enum fring_transport want)
{
	if (want != FRING_TRANSPORT_AUTO)
		return want == FRING_TRANSPORT_DEV || v->why[want][0]
			       ? FRING_TRANSPORT_DEV
			       : want;
	for (int r = FRING_TRANSPORT_ZEROCOPY; r <= FRING_TRANSPORT_URING; r++)
		if (!v->why[r][0])
			return (enum fring_transport)r;
	return FRING_TRANSPORT_DEV;
}

/* "not zerocopy, bufpool-registered: why; not uring: why" for the rungs
 * above t, those with the same reason named together. */
static void higher_rungs(char *buf, size_t len, const struct rungs *v,
			 enum fring_transport t)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int r = FRING_TRANSPORT_ZEROCOPY; r < (int)t && off < len;) {
		int first = r;

		off += (size_t)snprintf(buf + off, len - off, "%snot %s",
					off ? "; " : "",
					fring_transport_name(first));
		while (++r < (int)t && !strcmp(v->why[r], v->why[first]) &&
		       off < len)
			off += (size_t)snprintf(buf + off, len - off, ", %s",
						fring_transport_name(r));
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, ": %s",
						v->why[first]);
	}
}

/* What the rung taken costs, after the reasons. */
static void rung_detail(char *buf, size_t len, enum fring_transport t,
			const struct ring_sizes *z)
{
	size_t per = z->pools / z->queues / 1024;
	char off[96] = "";

	/* an offline CPU's pool is neither registered nor faulted in */
	if (z->online < z->queues && t != FRING_TRANSPORT_BUFPOOL)
		snprintf(off, sizeof(off),
			 " (not those of the %u queues of offline CPUs)",
			 z->queues - z->online);
	if (t == FRING_TRANSPORT_ZEROCOPY)
		snprintf(buf, len,
			 "pools %zu KiB per queue, pinned%s; client pages in a "
			 "fixed-buffer slot per entry",
			 per, off);
	else if (t == FRING_TRANSPORT_BUFPOOL_REGISTERED)
		snprintf(buf, len, "pools %zu KiB per queue, pinned%s", per,
			 off);
	else if (t == FRING_TRANSPORT_BUFPOOL)
		snprintf(buf, len, "pools %zu KiB per queue", per);
	else
		buf[0] = '\0';
}

static void taken_reason(struct fring_session *se, const struct rungs *v,
			 enum fring_transport t, const struct ring_sizes *z)
{
	enum fring_transport want = se->cfg.transport;
	char list[FRING_REASON_LEN], detail[256];
	const char *name = fring_transport_name(t);

	rung_detail(detail, sizeof(detail), t, z);
	if (want != FRING_TRANSPORT_AUTO)
		snprintf(session_reason_buf(se), FRING_REASON_LEN,
			 "%s (asked for with transport=%s%s%s)", name, name,
			 detail[0] ? "; " : "", detail);
	else {
		higher_rungs(list, sizeof(list), v, t);
		snprintf(session_reason_buf(se), FRING_REASON_LEN,
			 "%s (%s%s%s)", name, list,
			 list[0] && detail[0] ? "; " : "", detail);
	}
}

static void say_warning(const char *msg, void *arg)
{
	(void)arg;
	fr_warn("%s", msg);
}

int ladder_settle(struct fring_session *se,
		  int (*build)(struct fring_session *se))
{
	struct ladder_facts f;

	ladder_facts_read(&f);
	return ladder_settle_with(se, &f, build);
}

int ladder_settle_with(struct fring_session *se, const struct ladder_facts *f,
		       int (*build)(struct fring_session *se))
{
	enum fring_transport want = se->cfg.transport;
	struct rungs failed, v;
	struct ring_sizes z;

	memset(&failed, 0, sizeof(failed));
	ladder_sizes(se, 0, &z);
	for (;;) {
		enum fring_transport t;
		int ret;

		rung_whys(se, f, &failed, &z, &v);
		t = pick(&v, want);
		se->transport = t;
		if (want != FRING_TRANSPORT_AUTO && t != want) {
			/* an explicit rung is taken or refused, never
			 * swapped; auto's choice says what would work */
			enum fring_transport a = pick(&v, FRING_TRANSPORT_AUTO);
			char hint[64] = "";

			if (!v.err[want])
				snprintf(hint, sizeof(hint),
					 "; transport=auto takes %s",
					 fring_transport_name(a));
			snprintf(session_reason_buf(se), FRING_REASON_LEN,
				 "%s: %s%s", fring_transport_name(want),
				 v.why[want], hint);
			fr_err("transport=%s refused: %s%s",
			       fring_transport_name(want), v.why[want], hint);
			return v.err[want] ? v.err[want] : -EOPNOTSUPP;
		}
		taken_reason(se, &v, t, &z);
		ret = t == FRING_TRANSPORT_DEV ? 0 : build(se);
		if (!ret) {
			config_ineffective(&se->cfg, t, z.queues, say_warning,
					   NULL);
			return 0;
		}
		/* The next rung down that does not need what failed gets its
		 * turn (an explicit rung is refused with this reason on the
		 * next pass): both pinned rungs pin the same pools, so their
		 * ENOMEM (RLIMIT_MEMLOCK, or memory) leaves bufpool; anything
		 * else failed in what every ring rung needs, leaving dev. */
		build_why(failed.why[t], WHY_LEN, ret, se, &f->ml, t, &z);
		failed.err[t] = ret;
		for (int r = FRING_TRANSPORT_ZEROCOPY;
		     r <= FRING_TRANSPORT_URING; r++) {
			if (r == (int)t || v.why[r][0] || failed.why[r][0] ||
			    (ret == -ENOMEM && pinned(t) && !pinned(r)))
				continue;
			memcpy(failed.why[r], failed.why[t], WHY_LEN);
			failed.err[r] = ret;
		}
		if (want == FRING_TRANSPORT_AUTO)
			fr_warn("transport %s: %s", fring_transport_name(t),
				failed.why[t]);
	}
}

void ladder_fell_back(struct fring_session *se, const char *why)
{
	const char *old = session_reason(se);
	const char *inner = strchr(old, '(');
	int n = 0;

	/* "RUNG (reasons)" becomes "dev (not RUNG: why; reasons)", in the
	 * second buffer: a reader of the first one is never disturbed */
	if (inner) {
		inner++;
		n = (int)strlen(inner);
		if (n && inner[n - 1] == ')')
			n--;
	}
	snprintf(se->reasons[1], sizeof(se->reasons[1]),
		 "dev (not %s: %.200s%s%.*s)",
		 fring_transport_name(se->transport), why, n ? "; " : "",
		 n > 250 ? 250 : n, inner ? inner : "");
	atomic_store(&se->reason, se->reasons[1]);
	atomic_store(&se->transport, FRING_TRANSPORT_DEV);
}
