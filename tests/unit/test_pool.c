/* SPDX-License-Identifier: MIT */
/*
 * Pool arithmetic: the kernel reports a request's buffer as an offset from
 * the pool base. Every offset that is not the start of a buffer inside the
 * pool must be refused (no pointer outside the pool is ever formed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static void test_pool_offsets(void **state)
{
	static char pool[4 * 8192];
	struct fring_queue q;
	const size_t bsz = 8192;

	(void)state;
	memset(&q, 0, sizeof(q));
	q.pool = pool;
	q.pool_len = sizeof(pool);
	for (uint32_t i = 0; i < 4; i++)
		assert_ptr_equal(ring_pool_buf(&q, bsz, i * (uint32_t)bsz),
				 pool + i * bsz);
	/* past the end, unaligned, in the middle of a buffer, huge */
	assert_null(ring_pool_buf(&q, bsz, 4 * 8192));
	assert_null(ring_pool_buf(&q, bsz, 1));
	assert_null(ring_pool_buf(&q, bsz, 8192 + 4096));
	assert_null(ring_pool_buf(&q, bsz, UINT32_MAX));
	assert_null(ring_pool_buf(&q, bsz, UINT32_MAX - 8191));
	/* a tail shorter than a buffer is not a buffer */
	q.pool_len = sizeof(pool) - 1;
	assert_null(ring_pool_buf(&q, bsz, 3 * 8192));
	assert_non_null(ring_pool_buf(&q, bsz, 2 * 8192));
	/* no pool, or no buffer size */
	q.pool = NULL;
	assert_null(ring_pool_buf(&q, bsz, 0));
	q.pool = pool;
	assert_null(ring_pool_buf(&q, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_offsets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
