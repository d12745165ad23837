/* SPDX-License-Identifier: MIT */
/* The FRING_FAULT rules (src/fault.c): syntax, which hit fails, with which
 * errno, and the counters (a -Dfault_injection=true build only). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "fault.h"

static void sink(enum fring_log_level lvl, const char *line, void *data)
{
	(void)lvl;
	(void)line;
	(void)data;
}

/* The hits 1..n of p: which failed (bit i-1) and the errno they gave. */
static unsigned fired(enum fault_point p, unsigned n, int *err)
{
	unsigned mask = 0;

	for (unsigned i = 1; i <= n; i++) {
		int r = fault_hit(p);

		if (r) {
			mask |= 1u << (i - 1);
			*err = r;
		}
	}
	return mask;
}

static void test_nth(void **state)
{
	int err = 0;

	(void)state;
	assert_int_equal(fault_parse("ring_submit:3:EIO,dev_write"), 0);
	assert_int_equal(fired(FAULT_RING_SUBMIT, 6, &err), 1u << 2);
	assert_int_equal(err, -EIO);
	/* no count: the first hit, with the point's own errno */
	assert_int_equal(fired(FAULT_DEV_WRITE, 4, &err), 1u);
	assert_int_equal(err, -EINVAL);
	assert_int_equal(fired(FAULT_RING_SETUP, 4, &err), 0);
	assert_int_equal(fault_injected(FAULT_RING_SUBMIT), 1);
	assert_int_equal(fault_injected(FAULT_DEV_WRITE), 1);
	assert_int_equal(fault_injected(FAULT_RING_SETUP), 0);
}

static void test_onwards(void **state)
{
	int err = 0;

	(void)state;
	assert_int_equal(fault_parse("pool_alloc:2+:28"), 0);
	assert_int_equal(fired(FAULT_POOL_ALLOC, 5, &err), 0x1eu);
	assert_int_equal(err, -ENOSPC);
	assert_int_equal(fault_injected(FAULT_POOL_ALLOC), 4);
	/* a new spec starts the counts again */
	assert_int_equal(fault_parse("buf_register"), 0);
	assert_int_equal(fault_injected(FAULT_POOL_ALLOC), 0);
	assert_int_equal(fired(FAULT_POOL_ALLOC, 3, &err), 0);
	assert_int_equal(fired(FAULT_BUF_REGISTER, 2, &err), 1u);
	assert_int_equal(err, -ENOMEM);
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
		"nosuch",
		"ring_setup:0",
		"ring_setup:x",
		"ring_setup:1:EWHAT",
		"ring_setup:1:0",
		"ring_setup:2++",
		"ring_setup:1:5000",
		"dev_write,bogus",
	};
	int err = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(fault_parse(bad[i]), -EINVAL);
		/* a refused spec arms nothing, not even its good part */
		assert_int_equal(fired(FAULT_DEV_WRITE, 2, &err), 0);
	}
	assert_int_equal(fault_parse(NULL), 0);
	assert_int_equal(fault_parse(""), 0);
	assert_int_equal(fired(FAULT_RING_SETUP, 2, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nth),
		cmocka_unit_test(test_onwards),
		cmocka_unit_test(test_bad),
	};

	fring_set_log(sink, NULL, FRING_LOG_DEBUG);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
