/* SPDX-License-Identifier: MIT */
/*
 * The ladder before mounting (ladder_precheck_with()) and at INIT
 * (ladder_settle_with()): which rung a negotiated connection gets on given
 * facts (enable_uring, the capabilities, RLIMIT_MEMLOCK), so that every
 * rung and every refusal is reached whoever runs the test, and what happens
 * when the rings cannot be built. The build step is a stub; nothing touches
 * a kernel.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static struct fring_session se;
static struct ladder_facts facts;
static unsigned builds;

#define UNLIMITED ~0ULL

/* root on a machine with FUSE-over-io_uring on: every capability, nothing
 * charged to RLIMIT_MEMLOCK */
static void facts_root(void)
{
	memset(&facts, 0, sizeof(facts));
	facts.enable_uring = 1;
	facts.cap_sys_admin = true;
	facts.cap_ipc_lock = true;
	facts.ml.charged = false;
	facts.ml.limit = UNLIMITED;
}

/* a process without capabilities: the pinned pools are charged to its
 * RLIMIT_MEMLOCK of `limit` bytes */
static void facts_user(unsigned long long limit)
{
	facts_root();
	facts.cap_sys_admin = false;
	facts.cap_ipc_lock = false;
	facts.ml.charged = true;
	facts.ml.limit = limit;
}

static int reset_facts(void **state)
{
	(void)state;
	facts_root();
	return 0;
}

static void quiet(enum fring_log_level lvl, const char *line, void *data)
{
	(void)lvl;
	(void)line;
	(void)data;
}

static int setup(void **state)
{
	(void)state;
	fring_set_log(quiet, NULL, FRING_LOG_DEBUG);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fring_set_log(NULL, NULL, FRING_LOG_INFO);
	return 0;
}

/* A session as fring_session_new() leaves it, with the default options
 * and transport=want. */
static void session_for(enum fring_transport want)
{
	memset(&se, 0, sizeof(se));
	fring_config_defaults(&se.cfg);
	se.cfg.transport = want;
	se.transport = FRING_TRANSPORT_AUTO;
}

/* ladder_settle_with() on a session as init_negotiate() leaves it for a
 * kernel at ABI 7.minor offering `capable`, on `facts` */
static uint32_t fs_flags; /* the filesystem's declarations for settle() */

static int settle(unsigned minor, uint64_t capable, enum fring_transport want,
		  int (*build)(struct fring_session *s))
{
	memset(&se, 0, sizeof(se));
	se.conn.fs_flags = fs_flags;
	fring_config_defaults(&se.cfg);
	se.cfg.transport = want;
	se.conn.proto_major = 7;
	se.conn.proto_minor = minor;
	se.conn.capable = capable;
	se.conn.max_write = se.cfg.max_write;
	se.conn.max_pages = se.cfg.max_write / FRING_PAGE;
	se.got_init = true;
	builds = 0;
	return ladder_settle_with(&se, &facts, build);
}

/* What the rungs weigh for the session settle() left: the pools' sizes. */
static struct ring_sizes sizes(void)
{
	struct ring_sizes z;

	ladder_sizes(&se, 0, &z);
	return z;
}

/* "pools N KiB per queue" of the rung taken */
static size_t pool_kib(void)
{
	struct ring_sizes z = sizes();

	return z.pools / z.queues / 1024;
}

static int build_ok(struct fring_session *s)
{
	(void)s;
	builds++;
	return 0;
}

static int build_eperm(struct fring_session *s)
{
	(void)s;
	builds++;
	return -EPERM;
}

#define WHY_BUF 400 /* a rung's reason (ladder.c) */
#define URING	(FUSE_INIT_EXT | FUSE_OVER_IO_URING)
#define BUFPOOL (URING | FUSE_HAS_IO_URING_BUFPOOL)

#define NO_SYS_ADMIN                                                           \
	"no CAP_SYS_ADMIN (only it may put client pages in the ring)"
#define URING_N                                                                \
	"enable_uring=N (as root: echo Y > "                                   \
	"/sys/module/fuse/parameters/enable_uring)"
#define NO_URING_PARAM                                                         \
	"this kernel has no FUSE-over-io_uring (Linux 6.14+ with "             \
	"CONFIG_FUSE_IO_URING)"

static void assert_prefix(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)))
		fail_msg("\"%s\" does not start with \"%s\"", s, prefix);
}

/* ---------------- the rungs, best first ---------------- */

/* 7.46 with buffer pools, CAP_SYS_ADMIN, and the pinned pools within
 * RLIMIT_MEMLOCK: zerocopy. */
static void test_auto_zerocopy(void **state)
{
	char want[FRING_REASON_LEN];

	(void)state;
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_ok),
			 0);
	assert_int_equal(builds, 1);
	assert_int_equal(se.transport, FRING_TRANSPORT_ZEROCOPY);
	snprintf(want, sizeof(want),
		 "zerocopy (pools %zu KiB per queue, pinned; client pages in "
		 "a fixed-buffer slot per entry)",
		 pool_kib());
	assert_string_equal(se.reason, want);
}

/* ... also when the pools are charged to RLIMIT_MEMLOCK (no CAP_IPC_LOCK)
 * and the limit holds them exactly, to the page */
static void test_auto_zerocopy_memlock_fits(void **state)
{
	(void)state;
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_ok),
			 0);
	facts_user(sizes().pool_locked);
	facts.cap_sys_admin = true;
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_ok),
			 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_ZEROCOPY);
	assert_prefix(se.reason, "zerocopy (pools ");
}

/* Without CAP_SYS_ADMIN: bufpool-registered, and why not zerocopy. */
static void test_auto_bufpool_registered(void **state)
{
	char want[FRING_REASON_LEN];

	(void)state;
	facts.cap_sys_admin = false;
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_ok),
			 0);
	assert_int_equal(builds, 1);
	assert_int_equal(se.transport, FRING_TRANSPORT_BUFPOOL_REGISTERED);
	snprintf(want, sizeof(want),
		 "bufpool-registered (not zerocopy: " NO_SYS_ADMIN
		 "; pools %zu KiB per queue, pinned)",
		 pool_kib());
	assert_string_equal(se.reason, want);
}

/* ... or asked for, where zerocopy could run */
static void test_explicit_bufpool_registered(void **state)
{
	char want[FRING_REASON_LEN];

	(void)state;
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_BUFPOOL_REGISTERED,
				build_ok),
			 0);
	assert_int_equal(builds, 1);
	assert_int_equal(se.transport, FRING_TRANSPORT_BUFPOOL_REGISTERED);
	snprintf(want, sizeof(want),
		 "bufpool-registered (asked for with "
		 "transport=bufpool-registered; pools %zu KiB per queue, "
		 "pinned)",
		 pool_kib());
	assert_string_equal(se.reason, want);
}

/* "RLIMIT_MEMLOCK 64 KiB is below the N KiB io_uring pins for Q pools of
 * P KiB (none with CAP_IPC_LOCK): raise it (...)fix" for the session
 * settle() left */
static void memlock_why(char *buf, size_t len, const char *lim, const char *fix)
{
	struct ring_sizes z = sizes();
	size_t need = z.pool_locked / 1024;

	snprintf(buf, len,
		 "RLIMIT_MEMLOCK %s is below the %zu KiB io_uring pins for %u "
		 "pool%s of %zu KiB (none with CAP_IPC_LOCK): raise it "
		 "(ulimit -l %zu, LimitMEMLOCK=%zuK)%s",
		 lim, need, z.queues, z.queues == 1 ? "" : "s", need / z.queues,
		 need, need, fix);
}

/* RLIMIT_MEMLOCK too small for the pinned pools: bufpool, its pools not
 * pinned, and the reason names the limit and what would fit. */
static void test_auto_bufpool_memlock(void **state)
{
	char why[WHY_BUF], want[FRING_REASON_LEN];

	(void)state;
	facts_user(64 * 1024);
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_ok),
			 0);
	assert_int_equal(builds, 1);
	assert_int_equal(se.transport, FRING_TRANSPORT_BUFPOOL);
	memlock_why(why, sizeof(why), "64 KiB",
		    ", or smaller pools (pool_bufs=, max_write=)");
	/* zerocopy's first reason is the capability */
	snprintf(want, sizeof(want),
		 "bufpool (not zerocopy: " NO_SYS_ADMIN
		 "; not bufpool-registered: %s; pools %zu KiB per queue)",
		 why, pool_kib());
	assert_string_equal(se.reason, want);
	assert_non_null(strstr(se.reason, "not bufpool-registered: "
					  "RLIMIT_MEMLOCK 64 KiB is below"));

	/* with CAP_SYS_ADMIN, both pinned rungs for the one reason */
	facts.cap_sys_admin = true;
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_ok),
			 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_BUFPOOL);
	snprintf(want, sizeof(want),
		 "bufpool (not zerocopy, bufpool-registered: %s; pools %zu "
		 "KiB per queue)",
		 why, pool_kib());
	assert_string_equal(se.reason, want);

	/* a page short of the pools is short */
	facts.ml.limit = sizes().pool_locked - ring_page_size();
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_ok),
			 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_BUFPOOL);
	assert_non_null(
		strstr(se.reason, "bufpool-registered: RLIMIT_MEMLOCK "));

	/* CAP_IPC_LOCK (in the initial namespace): nothing is charged */
	facts.ml.charged = false;
	facts.ml.limit = 64 * 1024;
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_ok),
			 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_ZEROCOPY);
}

/* ---------------- uring and dev ---------------- */

static void test_auto_uring_745(void **state)
{
	(void)state;
	assert_int_equal(settle(45, URING, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(builds, 1);
	assert_int_equal(se.transport, FRING_TRANSPORT_URING);
	/* the rung taken, then why each better one is not */
	assert_string_equal(se.reason,
			    "uring (not zerocopy, bufpool-registered, "
			    "bufpool: kernel ABI 7.45 < 7.46)");
	/* 7.46 whose INIT does not offer the pools */
	assert_int_equal(settle(46, URING, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_URING);
	assert_string_equal(se.reason,
			    "uring (not zerocopy, bufpool-registered, "
			    "bufpool: kernel ABI 7.46 without "
			    "FUSE_HAS_IO_URING_BUFPOOL)");
}

/* FRING_FS_NO_RING: the filesystem's init declined io_uring; auto ends
 * on dev saying so, an asked-for ring rung is refused with that reason. */
static void test_fs_declines_ring(void **state)
{
	(void)state;
	fs_flags = FRING_FS_NO_RING;
	assert_int_equal(settle(45, URING, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(builds, 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	assert_string_equal(se.reason,
			    "dev (not zerocopy, bufpool-registered, bufpool, "
			    "uring: the filesystem declined io_uring "
			    "(FRING_FS_NO_RING))");
	assert_true(settle(45, URING, FRING_TRANSPORT_URING, build_ok) < 0);
	assert_int_equal(builds, 0);
	assert_non_null(strstr(se.reason, "declined io_uring"));
	fs_flags = 0;
	/* without the declaration the same kernel gives the ring */
	assert_int_equal(settle(45, URING, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_URING);
}

static void test_auto_dev_without_uring(void **state)
{
	(void)state;
	facts.enable_uring = 0;
	assert_int_equal(
		settle(45, FUSE_INIT_EXT, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(builds, 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	/* the ABI is named first: turning io_uring on would not help */
	assert_string_equal(se.reason, "dev (not zerocopy, bufpool-registered, "
				       "bufpool: kernel ABI 7.45 < 7.46; "
				       "not uring: " URING_N ")");
	facts.enable_uring = -1;
	assert_int_equal(
		settle(46, FUSE_INIT_EXT, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	assert_string_equal(se.reason, "dev (not zerocopy, bufpool-registered, "
				       "bufpool: no FUSE-over-io_uring; "
				       "not uring: " NO_URING_PARAM ")");
}

static void test_auto_old_kernel(void **state)
{
	(void)state;
	assert_int_equal(
		settle(38, FUSE_INIT_EXT, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	assert_non_null(strstr(se.reason, "uring: kernel ABI < 7.42"));
}

/* The rings cannot be built: auto falls back to dev and says why. */
static void test_auto_falls_back(void **state)
{
	(void)state;
	assert_int_equal(settle(45, URING, FRING_TRANSPORT_AUTO, build_eperm),
			 0);
	assert_int_equal(builds, 1);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	assert_string_equal(se.reason,
			    "dev (not zerocopy, bufpool-registered, bufpool: "
			    "kernel ABI 7.45 < 7.46; not uring: io_uring "
			    "setup failed (Operation not permitted))");
}

/* ... an explicit rung is refused instead, whichever ring rung it is */
static void test_explicit_refused(void **state)
{
	static const struct {
		enum fring_transport t;
		unsigned minor;
		uint64_t capable;
		const char *reason;
	} cases[] = {
		{FRING_TRANSPORT_URING, 45, URING,
		 "uring: io_uring setup failed (Operation not permitted)"},
		{FRING_TRANSPORT_BUFPOOL, 46, BUFPOOL,
		 "bufpool: io_uring setup failed (Operation not permitted)"},
	};

	(void)state;
	for (unsigned i = 0; i < FRING_ARRAY_SIZE(cases); i++) {
		assert_int_equal(settle(cases[i].minor, cases[i].capable,
					cases[i].t, build_eperm),
				 -EPERM);
		assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
		assert_string_equal(se.reason, cases[i].reason);
	}
}

/* An explicit rung the kernel does not offer: refused, build not tried. */
static void test_explicit_not_offered(void **state)
{
	(void)state;
	assert_int_equal(settle(45, URING, FRING_TRANSPORT_BUFPOOL, build_ok),
			 -EOPNOTSUPP);
	assert_int_equal(builds, 0);
	/* why the asked-for rung cannot be had, and what auto would take:
	 * not "refused: dev (...)" while uring is there */
	assert_string_equal(se.reason, "bufpool: kernel ABI 7.45 < 7.46; "
				       "transport=auto takes uring");
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_DEV, build_ok), 0);
	assert_int_equal(builds, 0);
	assert_string_equal(se.reason, "dev (asked for with transport=dev)");
}

/* An explicit rung the process rules out at INIT: refused with its reason
 * and what auto would take, build not tried. */
static void test_explicit_refused_facts(void **state)
{
	char why[WHY_BUF], want[FRING_REASON_LEN];

	(void)state;
	facts.cap_sys_admin = false;
	assert_int_equal(
		settle(46, BUFPOOL, FRING_TRANSPORT_ZEROCOPY, build_ok),
		-EOPNOTSUPP);
	assert_int_equal(builds, 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	assert_string_equal(se.reason,
			    "zerocopy: " NO_SYS_ADMIN
			    "; transport=auto takes bufpool-registered");

	/* pinned pools above RLIMIT_MEMLOCK, where fewer buffers fit */
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_ok),
			 0);
	facts_user(sizes().pool_locked / sizes().pool_bufs * 3);
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_BUFPOOL_REGISTERED,
				build_ok),
			 -EOPNOTSUPP);
	assert_int_equal(builds, 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	{
		char lim[32];

		memlock_limit_str(&facts.ml, lim, sizeof(lim));
		memlock_why(why, sizeof(why), lim,
			    ", or fewer pool buffers (pool_bufs=3 fits)");
	}
	snprintf(want, sizeof(want),
		 "bufpool-registered: %s; transport=auto takes bufpool", why);
	assert_string_equal(se.reason, want);
}

/* Before mounting: an explicit transport the process or the module rules
 * out is refused at once, with its reason; auto and dev are not. */
static void test_precheck(void **state)
{
	(void)state;
	session_for(FRING_TRANSPORT_ZEROCOPY);
	assert_int_equal(ladder_precheck_with(&se, &facts), 0);
	facts.cap_sys_admin = false;
	assert_int_equal(ladder_precheck_with(&se, &facts), -EPERM);
	assert_string_equal(se.reason, "zerocopy: " NO_SYS_ADMIN);

	/* every ring rung needs enable_uring=Y */
	session_for(FRING_TRANSPORT_BUFPOOL_REGISTERED);
	assert_int_equal(ladder_precheck_with(&se, &facts), 0);
	facts.enable_uring = 0;
	assert_int_equal(ladder_precheck_with(&se, &facts), -EOPNOTSUPP);
	assert_string_equal(se.reason, "uring: " URING_N);
	session_for(FRING_TRANSPORT_URING);
	facts.enable_uring = -1;
	assert_int_equal(ladder_precheck_with(&se, &facts), -EOPNOTSUPP);
	assert_string_equal(se.reason, "uring: " NO_URING_PARAM);

	/* auto and dev wait for INIT */
	session_for(FRING_TRANSPORT_AUTO);
	assert_int_equal(ladder_precheck_with(&se, &facts), 0);
	session_for(FRING_TRANSPORT_DEV);
	assert_int_equal(ladder_precheck_with(&se, &facts), 0);
	assert_string_equal(session_reason(&se), "");
}

/* A rung that fails to build for memory (RLIMIT_MEMLOCK, as the kernel
 * answers it) gives its turn to the next one down, and the reason says so. */
static int build_enomem_pinned(struct fring_session *s)
{
	builds++;
	return s->transport == FRING_TRANSPORT_ZEROCOPY ||
			       s->transport ==
				       FRING_TRANSPORT_BUFPOOL_REGISTERED
		       ? -ENOMEM
		       : 0;
}

static void test_auto_next_rung(void **state)
{
	char want[FRING_REASON_LEN];

	(void)state;
	assert_int_equal(
		settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_enomem_pinned),
		0);
	assert_int_equal(se.transport, FRING_TRANSPORT_BUFPOOL);
	/* both pinned rungs pin the same pools, so zerocopy's build says it
	 * for bufpool-registered too: two builds */
	assert_int_equal(builds, 2);
	snprintf(want, sizeof(want),
		 "bufpool (not zerocopy, bufpool-registered: io_uring setup "
		 "failed (Cannot allocate memory); pools %zu KiB per queue)",
		 pool_kib());
	assert_string_equal(se.reason, want);

	/* charged, with a limit that holds the pools but not the rings on
	 * top: the ENOMEM is explained with RLIMIT_MEMLOCK */
	facts.ml.charged = true;
	facts.ml.limit = sizes().pool_locked;
	assert_int_equal(
		settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_enomem_pinned),
		0);
	assert_int_equal(se.transport, FRING_TRANSPORT_BUFPOOL);
	assert_int_equal(builds, 2);
	assert_prefix(se.reason,
		      "bufpool (not zerocopy, bufpool-registered: io_uring "
		      "setup failed (Cannot allocate memory): RLIMIT_MEMLOCK ");
	assert_non_null(strstr(se.reason, "KiB io_uring can charge to it "
					  "here ("));
}

/* Any other failure is in what every ring rung needs: dev, one build. */
static void test_auto_other_failure_dev(void **state)
{
	(void)state;
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_eperm),
			 0);
	assert_int_equal(builds, 1);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	assert_non_null(strstr(se.reason, "uring: io_uring setup failed "
					  "(Operation not permitted))"));
}

/* What io_uring charges for a ring (6.18, measured as nobody: a 16-entry
 * SQE128 ring costs 2 pages, a 256-entry one 11) and how many entries a
 * thread's ring gets (src/ring/plan.c). */
static void test_ring_charge(void **state)
{
	struct ring_plan p;

	(void)state;
	if (ring_page_size() != 4096)
		skip();
	assert_int_equal(ring_locked_bytes(16), 2 * 4096);
	assert_int_equal(ring_locked_bytes(32), 2 * 4096);
	assert_int_equal(ring_locked_bytes(256), 11 * 4096);
	assert_int_equal(ring_sq_entries(1, 8), 32);
	assert_int_equal(ring_sq_entries(1, 64), 256);
	assert_int_equal(ring_sq_entries(2, 64), 512);
	ring_plan(2, 2, 0, 64, &p);
	assert_int_equal(p.nthreads, 2);
	assert_int_equal(p.entries, 256);
	assert_int_equal(p.locked, 22 * 4096);
	ring_plan(3, 3, 2, 8, &p); /* thread 0: 2 queues, thread 1: 1 */
	assert_int_equal(p.nthreads, 2);
	assert_int_equal(p.entries, 64);
	assert_int_equal(p.locked,
			 ring_locked_bytes(64) + ring_locked_bytes(32));
	/* 64 possible CPUs, 2 online: a thread per online CPU, each ring
	 * with room for 32 queues' entries (32 x 8 x 2 + 8 -> 1024) */
	ring_plan(64, 2, 0, 8, &p);
	assert_int_equal(p.nthreads, 2);
	assert_int_equal(p.entries, 1024);
	assert_int_equal(p.locked, 2 * ring_locked_bytes(1024));
}

/* Threads: -o threads=N up to the queues, else one per online CPU. */
static void test_ring_threads(void **state)
{
	(void)state;
	assert_int_equal(ring_nthreads(0, 64, 2), 2);
	assert_int_equal(ring_nthreads(0, 2, 2), 2);
	assert_int_equal(ring_nthreads(0, 64, 0), 1);
	assert_int_equal(ring_nthreads(5, 64, 2), 5);
	assert_int_equal(ring_nthreads(128, 64, 2), 64);
}

/* Pool buffers: pool_bufs=N, else queue_depth. */
static void test_ring_pool_bufs(void **state)
{
	struct fring_config c;

	(void)state;
	fring_config_defaults(&c);
	assert_int_equal(ring_pool_bufs(&c), c.queue_depth);
	c.queue_depth = 64;
	assert_int_equal(ring_pool_bufs(&c), 64);
	c.pool_bufs = 2;
	assert_int_equal(ring_pool_bufs(&c), 2);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, reset_facts)
	const struct CMUnitTest tests[] = {
		T(test_auto_zerocopy),
		T(test_auto_zerocopy_memlock_fits),
		T(test_auto_bufpool_registered),
		T(test_explicit_bufpool_registered),
		T(test_auto_bufpool_memlock),
		T(test_auto_uring_745),
		T(test_fs_declines_ring),
		T(test_auto_dev_without_uring),
		T(test_auto_old_kernel),
		T(test_auto_falls_back),
		T(test_explicit_refused),
		T(test_explicit_not_offered),
		T(test_explicit_refused_facts),
		T(test_precheck),
		T(test_auto_next_rung),
		T(test_auto_other_failure_dev),
		T(test_ring_charge),
		T(test_ring_threads),
		T(test_ring_pool_bufs),
	};
#undef T

	return cmocka_run_group_tests(tests, setup, teardown);
}
