/* SPDX-License-Identifier: MIT */
/*
 * The ladder at INIT (ladder_settle()): which rung a negotiated connection
 * gets, and what happens when the rings cannot be built. The build step is
 * a stub; nothing touches a kernel.
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
static unsigned builds;

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

/* ladder_settle() on a session as init_negotiate() leaves it for a kernel
 * at ABI 7.minor offering `capable` */
static int settle(unsigned minor, uint64_t capable, enum fring_transport want,
		  int (*build)(struct fring_session *s))
{
	memset(&se, 0, sizeof(se));
	fring_config_defaults(&se.cfg);
	se.cfg.transport = want;
	se.conn.proto_major = 7;
	se.conn.proto_minor = minor;
	se.conn.capable = capable;
	se.conn.max_write = se.cfg.max_write;
	se.conn.max_pages = se.cfg.max_write / FRING_PAGE;
	se.got_init = true;
	builds = 0;
	return ladder_settle(&se, build);
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

#define URING	(FUSE_INIT_EXT | FUSE_OVER_IO_URING)
#define BUFPOOL (URING | FUSE_HAS_IO_URING_BUFPOOL)

static void assert_prefix(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)))
		fail_msg("\"%s\" does not start with \"%s\"", s, prefix);
}

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
}

static void test_auto_dev_without_uring(void **state)
{
	(void)state;
	assert_int_equal(
		settle(45, FUSE_INIT_EXT, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(builds, 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	/* the ABI is named first: turning io_uring on would not help */
	assert_prefix(se.reason,
		      "dev (not zerocopy, bufpool-registered, "
		      "bufpool: kernel ABI 7.45 < 7.46; not uring: ");
	assert_int_equal(
		settle(46, FUSE_INIT_EXT, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	assert_prefix(se.reason, "dev (not zerocopy, bufpool-registered, "
				 "bufpool: no FUSE-over-io_uring; not uring: ");
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
	(void)state;
	assert_int_equal(
		settle(46, BUFPOOL, FRING_TRANSPORT_AUTO, build_enomem_pinned),
		0);
	assert_int_equal(se.transport, FRING_TRANSPORT_BUFPOOL);
	assert_prefix(se.reason, "bufpool (not zerocopy");
	/* bufpool-registered was weighed (RLIMIT_MEMLOCK, as a non-root
	 * test), or refused with zerocopy: both pin the same pools, so one
	 * build says it for both */
	if (!strstr(se.reason, "not bufpool-registered: RLIMIT_MEMLOCK"))
		assert_non_null(strstr(se.reason,
				       "bufpool-registered: io_uring setup "
				       "failed (Cannot allocate memory)"));
	assert_true(builds <= 2);
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
	ring_plan(2, 0, 64, &p);
	assert_int_equal(p.nthreads, 2);
	assert_int_equal(p.entries, 256);
	assert_int_equal(p.locked, 22 * 4096);
	ring_plan(3, 2, 8, &p); /* thread 0: 2 queues, thread 1: 1 */
	assert_int_equal(p.nthreads, 2);
	assert_int_equal(p.entries, 64);
	assert_int_equal(p.locked,
			 ring_locked_bytes(64) + ring_locked_bytes(32));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_uring_745),
		cmocka_unit_test(test_auto_dev_without_uring),
		cmocka_unit_test(test_auto_old_kernel),
		cmocka_unit_test(test_auto_falls_back),
		cmocka_unit_test(test_explicit_refused),
		cmocka_unit_test(test_explicit_not_offered),
		cmocka_unit_test(test_auto_next_rung),
		cmocka_unit_test(test_auto_other_failure_dev),
		cmocka_unit_test(test_ring_charge),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
