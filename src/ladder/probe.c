/* SPDX-License-Identifier: MIT */
/*
 * fring-probe's question (tools/fring-probe.c): what would a mount with
 * these options get here? Answered by the code a mount runs, without
 * mounting, on this machine's facts (ladder_facts_read(), once for both
 * steps): ladder_precheck_with(), INIT negotiated with what a kernel at the
 * inferred ABI would offer, then ladder_settle_with(), whose build step builds
 * the very rings a mount would (ring_init() of the same sizes, one per
 * thread), so that the kernel's answer, RLIMIT_MEMLOCK and all, is the one
 * a mount would get. The pools are weighed, not built.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ladder.h"

/*
 * The INIT a kernel at ABI 7.minor sends (doc/kernel-protocol.md, "INIT"): the
 * flags libfring asks for, which such kernels offer, and the io_uring bits
 * only while enable_uring is Y (FUSE_HAS_IO_URING_BUFPOOL from 7.46 on).
 */
static void probe_init_in(struct fuse_init_in *in, unsigned minor, bool uring)
{
	uint64_t flags = FUSE_ASYNC_READ | FUSE_ATOMIC_O_TRUNC |
			 FUSE_BIG_WRITES | FUSE_AUTO_INVAL_DATA |
			 FUSE_ASYNC_DIO | FUSE_MAX_PAGES | FUSE_SETXATTR_EXT |
			 FUSE_INIT_EXT;

	if (uring && minor >= 42)
		flags |= FUSE_OVER_IO_URING;
	if (uring && minor >= 46)
		flags |= FUSE_HAS_IO_URING_BUFPOOL;
	memset(in, 0, sizeof(*in));
	in->major = FUSE_KERNEL_VERSION;
	in->minor = minor;
	in->max_readahead = 128 * 1024;
	in->flags = (uint32_t)flags;
	in->flags2 = (uint32_t)(flags >> 32);
}

/*
 * The rings a mount builds, all alive at once as in a mount: 0 or the first
 * error. Built once per process: fring-probe asks for every rung with the
 * same options, and a closed ring's pages are uncharged only later (by a
 * kernel worker), so a second build could meet the first one's count.
 */
static struct {
	bool built;
	int result;
} rings_once;

static int build_rings_once(const struct ring_plan *plan, unsigned nqueues,
			    unsigned depth)
{
	struct io_uring *rings;
	unsigned built = 0;
	int ret = 0;

	if (rings_once.built)
		return rings_once.result;
	rings = calloc(plan->nthreads, sizeof(*rings));
	if (!rings)
		return -ENOMEM;
	for (unsigned t = 0; t < plan->nthreads && !ret; t++) {
		unsigned nq = nqueues / plan->nthreads +
			      (t < nqueues % plan->nthreads);

		ret = ring_init(&rings[t], ring_sq_entries(nq, depth));
		if (!ret)
			built++;
	}
	while (built)
		io_uring_queue_exit(&rings[--built]);
	free(rings);
	rings_once.built = true;
	rings_once.result = ret;
	return ret;
}

/* Whether io_uring works at all: the rings above if they were built, else
 * one small ring (once, for the same reason). */
static int ring_works(void)
{
	static bool done;
	static int result;
	struct io_uring ring;

	if (rings_once.built)
		return rings_once.result;
	if (!done) {
		result = ring_init(&ring, 16);
		if (!result)
			io_uring_queue_exit(&ring);
		done = true;
	}
	return result;
}

static int probe_build(struct fring_session *se)
{
	struct ring_sizes z;

	ladder_sizes(se, 0, &z);
	return build_rings_once(&z.plan, z.queues, se->cfg.queue_depth);
}

struct said {
	char *buf;
	size_t len, off;
};

static void collect(const char *msg, void *arg)
{
	struct said *s = arg;

	if (s->off < s->len)
		s->off += (size_t)snprintf(s->buf + s->off, s->len - s->off,
					   "%s%s", s->off ? "\n" : "", msg);
}

void ladder_probe(const struct fring_config *cfg, struct ladder_probe *p)
{
	struct fring_session se;
	struct fuse_init_in in;
	struct fuse_init_out out;
	struct ladder_facts f;
	struct ring_sizes z;
	size_t outlen;
	int ret;

	memset(&se, 0, sizeof(se));
	se.cfg = *cfg;
	se.transport = FRING_TRANSPORT_AUTO;
	ladder_facts_read(&f);
	p->enable_uring = f.enable_uring;
	p->cap_sys_admin = f.cap_sys_admin;
	p->cap_ipc_lock = f.cap_ipc_lock;
	p->memlock = f.ml.limit;
	p->memlock_charged = f.ml.charged;

	/* the order of a mount: the check before mounting, then INIT */
	p->refused = ladder_precheck_with(&se, &f);
	probe_init_in(&in, p->abi_minor, f.enable_uring == 1);
	ret = init_negotiate(&se, &in, sizeof(in), &out, &outlen);
	if (ret > 0)
		ret = -EPROTO;
	if (!p->refused && ret) {
		p->refused = ret;
		snprintf(session_reason_buf(&se), FRING_REASON_LEN, "INIT: %s",
			 strerror(-ret));
	}
	if (!p->refused)
		p->refused = ladder_settle_with(&se, &f, probe_build);
	p->ineffective[0] = '\0';
	if (!p->refused) {
		struct said s = {p->ineffective, sizeof(p->ineffective), 0};

		config_ineffective(&se.cfg, se.transport, ring_nr_queues(),
				   collect, &s);
	}
	p->ring_err = ring_works();
	ladder_sizes(&se, 0, &z);
	p->queues = z.queues;
	p->payload = z.payload;
	p->entry_bytes = z.entries;
	p->pool_bytes = z.pools;
	p->nthreads = z.plan.nthreads;
	p->ring_entries = z.plan.entries;
	p->ring_locked = z.plan.locked;
	p->pool_locked = z.pool_locked;
	p->transport = se.transport;
	snprintf(p->reason, sizeof(p->reason), "%s", se.reason);
}
