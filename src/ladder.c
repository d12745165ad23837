/* SPDX-License-Identifier: MIT */
/*
 * The transport ladder: which rung runs, and why each better one does not.
 * Checked twice: before mounting (what the module and the process allow) and
 * at INIT (what the kernel offers).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sys/resource.h>
#include <unistd.h>

#include "fring_int.h"
#include "ring.h"

#define ENABLE_URING_PARAM "/sys/module/fuse/parameters/enable_uring"

/* 1: Y, 0: N, -1: the kernel has no such parameter (before 6.14). */
static int enable_uring(void)
{
	FILE *f = fopen(ENABLE_URING_PARAM, "re");
	int c;

	if (!f)
		return -1;
	c = fgetc(f);
	fclose(f);
	return c == 'Y' || c == '1';
}

static const char *uring_refusal(int en)
{
	return en < 0 ? "uring: this kernel has no FUSE-over-io_uring "
			"(Linux 6.14+ with CONFIG_FUSE_IO_URING)"
		      : "uring: enable_uring=N (as root: echo Y "
			"> " ENABLE_URING_PARAM ")";
}

static bool has_cap(int bit)
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

#define CAP_IPC_LOCK_BIT  14
#define CAP_SYS_ADMIN_BIT 21

/*
 * A registered pool is pinned and charged to RLIMIT_MEMLOCK unless the
 * process has CAP_IPC_LOCK. Returns true when `need` bytes may be pinned;
 * otherwise says why in `why`.
 */
static bool memlock_ok(size_t need, char *why, size_t whylen)
{
	struct rlimit rl;

	if (has_cap(CAP_IPC_LOCK_BIT))
		return true;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return true;
	snprintf(why, whylen,
		 "RLIMIT_MEMLOCK %llu KiB < %zu KiB the pools pin (raise it "
		 "with ulimit -l, or grant CAP_IPC_LOCK)",
		 (unsigned long long)rl.rlim_cur / 1024, need / 1024);
	return false;
}

#define NO_SYS_ADMIN                                                           \
	"zerocopy: no CAP_SYS_ADMIN (the kernel lets only it put client "      \
	"pages in a server's io_uring)"

/*
 * What the ring rungs allocate: max_payload_sz (kernel-protocol.md 3.6) from
 * the negotiated values, estimated from max_write before INIT; the uring
 * entry buffers and the pools, over all queues.
 */
struct ring_sizes {
	size_t payload, entries, pools;
	unsigned queues;
};

static void ring_sizes(const struct fring_session *se, struct ring_sizes *z)
{
	unsigned bufs =
		se->cfg.pool_bufs ? se->cfg.pool_bufs : se->cfg.queue_depth;
	size_t sz = FUSE_MIN_READ_BUFFER;

	if (se->got_init)
		sz = init_payload_size(&se->conn);
	else if (se->cfg.max_write > sz)
		sz = se->cfg.max_write;
	z->payload = FRING_ALIGN_UP(sz, FRING_PAGE);
	z->queues = ring_nr_queues();
	z->entries = z->payload * se->cfg.queue_depth * z->queues;
	z->pools = z->payload * bufs * z->queues;
}

/*
 * Before mounting, what the ring rungs will allocate and pin, so an
 * operator sees the cost before the kernel does (the rung itself is known
 * only at INIT). Returns the bytes a registered pool would pin.
 */
static size_t memory_report(const struct fring_session *se)
{
	struct ring_sizes z;
	struct rlimit rl;
	char lim[64] = "unlimited";

	ring_sizes(se, &z);
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof(lim), "%llu KiB",
			 (unsigned long long)rl.rlim_cur / 1024);
	fr_info("memory: %u queues x %u entries, up to %zu KiB a request: "
		"uring %zu KiB of entry buffers; bufpool %zu KiB of pools; "
		"bufpool-registered and zerocopy the same pools, pinned "
		"(RLIMIT_MEMLOCK %s%s)",
		z.queues, se->cfg.queue_depth, z.payload / 1024,
		z.entries / 1024, z.pools / 1024, lim,
		has_cap(CAP_IPC_LOCK_BIT) ? ", CAP_IPC_LOCK: not charged" : "");
	return z.pools;
}

/* An explicit transport refused before mounting: the reason is kept (the
 * session's transport reason) and logged. */
static int refuse(struct fring_session *se, int err, const char *why)
{
	snprintf(se->reason, sizeof(se->reason), "%s", why);
	fr_err("transport=%s refused: %s",
	       fring_transport_name(se->cfg.transport), why);
	return err;
}

int ladder_precheck(struct fring_session *se)
{
	enum fring_transport t = se->cfg.transport;
	size_t need;
	int en;

	switch (t) {
	case FRING_TRANSPORT_ZEROCOPY:
		if (!has_cap(CAP_SYS_ADMIN_BIT))
			return refuse(se, -EPERM, NO_SYS_ADMIN);
		/* fall through */
	case FRING_TRANSPORT_BUFPOOL_REGISTERED:
	case FRING_TRANSPORT_BUFPOOL:
	case FRING_TRANSPORT_URING:
		en = enable_uring();
		if (en != 1)
			return refuse(se, -EOPNOTSUPP, uring_refusal(en));
		need = memory_report(se);
		if (t == FRING_TRANSPORT_BUFPOOL_REGISTERED ||
		    t == FRING_TRANSPORT_ZEROCOPY) {
			char why[200];

			if (!memlock_ok(need, why, sizeof(why)))
				return refuse(se, -ENOMEM, why);
		}
		return 0;
	case FRING_TRANSPORT_AUTO:
		if (enable_uring() == 1)
			memory_report(se);
		return 0;
	default:
		return 0;
	}
}

enum fring_transport ladder_choose(struct fring_session *se)
{
	const struct fring_conn *c = &se->conn;
	enum fring_transport want = se->cfg.transport;
	char pool[200], reg[240] = "", uring[200] = "";
	bool can_uring = !!(c->capable & FUSE_OVER_IO_URING);
	bool can_pool = can_uring && c->proto_minor >= 46 &&
			(c->capable & FUSE_HAS_IO_URING_BUFPOOL);
	bool can_zc = false;
	struct ring_sizes z;
	size_t need;

	ring_sizes(se, &z);
	need = z.pools;

	/* the ABI first: enable_uring=Y would not help a 7.45 kernel */
	if (!can_pool && (can_uring || c->proto_minor < 46))
		snprintf(pool, sizeof(pool),
			 "zerocopy, bufpool-registered, bufpool: kernel ABI "
			 "7.%u%s",
			 c->proto_minor,
			 c->proto_minor < 46
				 ? " < 7.46"
				 : " without FUSE_HAS_IO_URING_BUFPOOL");
	else if (!can_uring)
		snprintf(pool, sizeof(pool),
			 "zerocopy, bufpool-registered, bufpool: no "
			 "FUSE-over-io_uring");
	else if (!has_cap(CAP_SYS_ADMIN_BIT))
		snprintf(pool, sizeof(pool), "%s", NO_SYS_ADMIN);
	else
		can_zc = true;

	if (can_zc && want != FRING_TRANSPORT_AUTO &&
	    want != FRING_TRANSPORT_ZEROCOPY)
		snprintf(pool, sizeof(pool), "zerocopy: not asked for");
	if (want == FRING_TRANSPORT_DEV)
		snprintf(uring, sizeof(uring), "uring: not asked for");
	else if (!can_uring)
		snprintf(uring, sizeof(uring), "%s",
			 c->proto_minor < 42 ? "uring: kernel ABI < 7.42"
					     : uring_refusal(enable_uring()));

	if (want == FRING_TRANSPORT_DEV) {
		snprintf(se->reason, sizeof(se->reason),
			 "dev (asked for with transport=dev)");
		return FRING_TRANSPORT_DEV;
	}
	if (can_zc && (want == FRING_TRANSPORT_AUTO ||
		       want == FRING_TRANSPORT_ZEROCOPY)) {
		if (memlock_ok(need, reg, sizeof(reg))) {
			snprintf(se->reason, sizeof(se->reason),
				 "zerocopy (pools %zu KiB per queue, pinned; "
				 "client pages in a fixed-buffer slot per "
				 "entry)",
				 need / z.queues / 1024);
			return FRING_TRANSPORT_ZEROCOPY;
		}
		if (want == FRING_TRANSPORT_ZEROCOPY) {
			snprintf(se->reason, sizeof(se->reason),
				 "dev (zerocopy: %s)", reg);
			return FRING_TRANSPORT_DEV;
		}
		snprintf(pool, sizeof(pool), "zerocopy: %s", reg);
	}
	if (can_pool && (want == FRING_TRANSPORT_AUTO ||
			 want == FRING_TRANSPORT_BUFPOOL_REGISTERED)) {
		if (memlock_ok(need, reg, sizeof(reg))) {
			snprintf(se->reason, sizeof(se->reason),
				 "bufpool-registered (%s; pools %zu KiB per "
				 "queue, pinned)",
				 pool, need / z.queues / 1024);
			return FRING_TRANSPORT_BUFPOOL_REGISTERED;
		}
		if (want == FRING_TRANSPORT_BUFPOOL_REGISTERED) {
			snprintf(se->reason, sizeof(se->reason),
				 "dev (bufpool-registered: %s)", reg);
			return FRING_TRANSPORT_DEV;
		}
	}
	if (can_pool &&
	    (want == FRING_TRANSPORT_AUTO || want == FRING_TRANSPORT_BUFPOOL)) {
		snprintf(se->reason, sizeof(se->reason),
			 "bufpool (%s%s%s; pools %zu KiB per queue)", pool,
			 reg[0] ? "; bufpool-registered: " : "", reg,
			 need / z.queues / 1024);
		return FRING_TRANSPORT_BUFPOOL;
	}
	if (can_uring &&
	    (want == FRING_TRANSPORT_AUTO || want == FRING_TRANSPORT_URING)) {
		snprintf(se->reason, sizeof(se->reason), "uring (%s)", pool);
		return FRING_TRANSPORT_URING;
	}
	snprintf(se->reason, sizeof(se->reason), "dev (%s%s%s)", pool,
		 uring[0] ? "; " : "", uring);
	return FRING_TRANSPORT_DEV;
}

int ladder_settle(struct fring_session *se,
		  int (*build)(struct fring_session *se))
{
	enum fring_transport t = ladder_choose(se);
	char why[96];
	int ret;

	se->transport = t;
	if (se->cfg.transport != FRING_TRANSPORT_AUTO &&
	    t != se->cfg.transport) {
		fr_err("transport=%s refused: %s",
		       fring_transport_name(se->cfg.transport), se->reason);
		return -EOPNOTSUPP;
	}
	if (t == FRING_TRANSPORT_DEV)
		return 0;
	ret = build(se);
	if (!ret)
		return 0;
	snprintf(why, sizeof(why), "io_uring setup failed (%s)",
		 strerror(-ret));
	if (se->cfg.transport != FRING_TRANSPORT_AUTO) {
		/* an explicit rung is taken or refused, never swapped */
		snprintf(se->reason, sizeof(se->reason), "dev (%s: %s)",
			 fring_transport_name(t), why);
		se->transport = FRING_TRANSPORT_DEV;
		fr_err("transport=%s refused: %s", fring_transport_name(t),
		       why);
		return ret;
	}
	fr_warn("uring: %s", why);
	ladder_fell_back(se, why);
	return 0;
}

void ladder_fell_back(struct fring_session *se, const char *why)
{
	char old[200];

	/* keep only the head of the old reason: the line stays readable */
	snprintf(old, sizeof(old), "%.199s", se->reason);
	snprintf(se->reason, sizeof(se->reason),
		 "dev (%.200s; fell back from: %s)", why, old);
	se->transport = FRING_TRANSPORT_DEV;
}

/*
 * The INIT a kernel at ABI 7.minor sends (kernel-protocol.md 3.2): the
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

/* What building the rings gives, for ladder_settle(): measured once. */
static int probe_build(struct fring_session *se)
{
	const struct ladder_probe *p = se->userdata;

	return p->ring_err;
}

void ladder_probe(const struct fring_config *cfg, struct ladder_probe *p)
{
	struct fring_session se;
	struct fuse_init_in in;
	struct fuse_init_out out;
	struct io_uring ring;
	struct ring_sizes z;
	struct rlimit rl;
	size_t outlen;
	int ret;

	memset(&se, 0, sizeof(se));
	se.cfg = *cfg;
	se.userdata = p;
	se.transport = FRING_TRANSPORT_AUTO;
	p->enable_uring = enable_uring();
	p->ring_err = ring_init(&ring, 16);
	if (!p->ring_err)
		io_uring_queue_exit(&ring);
	p->cap_sys_admin = has_cap(CAP_SYS_ADMIN_BIT);
	p->cap_ipc_lock = has_cap(CAP_IPC_LOCK_BIT);
	p->memlock =
		getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY
			? ~0ULL
			: (unsigned long long)rl.rlim_cur;

	/* the order of a mount: the check before mounting, then INIT */
	p->refused = ladder_precheck(&se);
	probe_init_in(&in, p->abi_minor, p->enable_uring == 1);
	ret = init_negotiate(&se, &in, sizeof(in), &out, &outlen);
	if (ret > 0)
		ret = -EPROTO;
	if (!p->refused && ret) {
		p->refused = ret;
		snprintf(se.reason, sizeof(se.reason), "INIT: %s",
			 strerror(-ret));
	}
	if (!p->refused)
		p->refused = ladder_settle(&se, probe_build);
	ring_sizes(&se, &z);
	p->queues = z.queues;
	p->payload = z.payload;
	p->entry_bytes = z.entries;
	p->pool_bytes = z.pools;
	p->transport = se.transport;
	snprintf(p->reason, sizeof(p->reason), "%s", se.reason);
}
