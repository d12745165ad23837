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

#include "fring_int.h"

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
	assert_string_equal(se.reason,
			    "uring (zerocopy, bufpool-registered, bufpool: "
			    "kernel ABI 7.45 < 7.46)");
}

static void test_auto_dev_without_uring(void **state)
{
	(void)state;
	assert_int_equal(
		settle(45, FUSE_INIT_EXT, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(builds, 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	/* the ABI is named first: turning io_uring on would not help */
	assert_prefix(se.reason, "dev (zerocopy, bufpool-registered, bufpool: "
				 "kernel ABI 7.45 < 7.46; uring: ");
	assert_int_equal(
		settle(46, FUSE_INIT_EXT, FRING_TRANSPORT_AUTO, build_ok), 0);
	assert_int_equal(se.transport, FRING_TRANSPORT_DEV);
	assert_prefix(se.reason, "dev (zerocopy, bufpool-registered, bufpool: "
				 "no FUSE-over-io_uring; uring: ");
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
	assert_prefix(se.reason, "dev (io_uring setup failed (Operation not "
				 "permitted); fell back from: uring (");
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
		 "dev (uring: io_uring setup failed (Operation not "
		 "permitted))"},
		{FRING_TRANSPORT_BUFPOOL, 46, BUFPOOL,
		 "dev (bufpool: io_uring setup failed (Operation not "
		 "permitted))"},
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
	assert_string_equal(se.reason, "dev (zerocopy, bufpool-registered, "
				       "bufpool: kernel ABI 7.45 < 7.46)");
	assert_int_equal(settle(46, BUFPOOL, FRING_TRANSPORT_DEV, build_ok), 0);
	assert_int_equal(builds, 0);
	assert_string_equal(se.reason, "dev (asked for with transport=dev)");
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
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
