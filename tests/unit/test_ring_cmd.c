/* SPDX-License-Identifier: MIT */
/*
 * The FUSE uring_cmd SQEs as the kernel reads them (doc/kernel-protocol.md,
 * "Ring commands"),
 * built into slots pre-filled with 0xAA: every byte the builders do not set
 * must be zero, since a stale byte at offset 72 makes REGISTER fail and
 * turns io_uring off for the connection.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ring/cmd.h"

static uint8_t slot[128] __attribute__((aligned(64)));

static struct io_uring_sqe *stale_sqe(void)
{
	memset(slot, 0xaa, sizeof(slot));
	return (struct io_uring_sqe *)slot;
}

static uint64_t u64_at(size_t off)
{
	uint64_t v;

	memcpy(&v, slot + off, sizeof(v));
	return v;
}

static uint32_t u32_at(size_t off)
{
	uint32_t v;

	memcpy(&v, slot + off, sizeof(v));
	return v;
}

static uint16_t u16_at(size_t off)
{
	uint16_t v;

	memcpy(&v, slot + off, sizeof(v));
	return v;
}

/* Every byte outside the listed [off, off+len) ranges is zero. */
static void assert_zero_except(const size_t (*keep)[2], size_t n)
{
	for (size_t i = 0; i < sizeof(slot); i++) {
		bool kept = false;

		for (size_t k = 0; k < n; k++)
			if (i >= keep[k][0] && i < keep[k][0] + keep[k][1])
				kept = true;
		if (!kept && slot[i]) {
			print_error("byte %zu is 0x%02x, expected 0\n", i,
				    slot[i]);
			fail();
		}
	}
}

static void test_register_plain(void **state)
{
	struct iovec iov[2];
	static const size_t keep[][2] = {
		{0, 1}, {4, 4}, {8, 4}, {16, 8}, {24, 4}, {32, 8}, {64, 2},
	};

	(void)state;
	ring_prep_register(stale_sqe(), 7, 1, iov, -1, 0, 0x1234);
	assert_int_equal(slot[0], IORING_OP_URING_CMD);
	assert_int_equal(slot[1], 0);	/* no IOSQE flags, no BUFFER_SELECT */
	assert_int_equal(u16_at(2), 0); /* ioprio must be 0 */
	assert_int_equal(u32_at(4), 7);
	assert_int_equal(u32_at(8), FUSE_IO_URING_CMD_REGISTER);
	assert_int_equal(u32_at(12), 0); /* __pad1 */
	assert_true(u64_at(16) == (uint64_t)(uintptr_t)iov);
	assert_int_equal(u32_at(24), 2);
	assert_int_equal(u32_at(28), 0); /* no FIXED without a pool */
	assert_true(u64_at(32) == 0x1234);
	assert_int_equal(u16_at(40), 0);
	assert_int_equal(u16_at(48 + 16), 1); /* cmd_req.qid */
	assert_int_equal(u16_at(48 + 24), 0); /* zero-copy slot */
	assert_zero_except(keep, sizeof(keep) / sizeof(keep[0]));
}

static void test_register_pool_zerocopy(void **state)
{
	struct iovec iov[2];
	static const size_t keep[][2] = {
		{0, 1},	 {4, 4},  {8, 4},  {16, 8}, {24, 4},
		{28, 4}, {32, 8}, {40, 2}, {64, 2}, {72, 2},
	};

	(void)state;
	ring_prep_register(stale_sqe(), 3, 0, iov, 0, 5, 99);
	assert_int_equal(u32_at(28), IORING_URING_CMD_FIXED);
	assert_int_equal(u16_at(40), 0); /* the pool's buffer index */
	assert_int_equal(u16_at(48 + 24), 5);
	assert_zero_except(keep, sizeof(keep) / sizeof(keep[0]));

	ring_prep_register(stale_sqe(), 3, 0, iov, 9, 0, 99);
	assert_int_equal(u32_at(28), IORING_URING_CMD_FIXED);
	assert_int_equal(u16_at(40), 9);
}

static void test_commit(void **state)
{
	static const size_t keep[][2] = {
		{0, 1}, {4, 4}, {8, 4}, {32, 8}, {48 + 8, 8}, {64, 2},
	};

	(void)state;
	ring_prep_commit(stale_sqe(), 5, 1, 0xdeadbeef02ULL, -1, 0x40);
	assert_int_equal(slot[0], IORING_OP_URING_CMD);
	assert_int_equal(u32_at(4), 5);
	assert_int_equal(u32_at(8), FUSE_IO_URING_CMD_COMMIT_AND_FETCH);
	assert_true(u64_at(48 + 8) == 0xdeadbeef02ULL); /* commit_id */
	assert_int_equal(u16_at(64), 1);
	assert_true(u64_at(32) == 0x40);
	assert_zero_except(keep, sizeof(keep) / sizeof(keep[0]));

	/* a registered pool is named on every COMMIT too */
	ring_prep_commit(stale_sqe(), 5, 1, 2, 0, 0x40);
	assert_int_equal(u32_at(28), IORING_URING_CMD_FIXED);
	assert_int_equal(u16_at(40), 0);
}

static void test_add_queue(void **state)
{
	static const size_t keep[][2] = {
		{0, 1}, {4, 4}, {8, 4}, {32, 8}, {48, 8}, {64, 2},
	};

	(void)state;
	ring_prep_add_queue(stale_sqe(), 4, 1, true, 8);
	assert_int_equal(u32_at(8), FUSE_IO_URING_CMD_ADD_QUEUE);
	assert_true(u64_at(48) == FUSE_URING_ZERO_COPY);
	assert_int_equal(u16_at(64), 1);
	assert_zero_except(keep, sizeof(keep) / sizeof(keep[0]));
	ring_prep_add_queue(stale_sqe(), 4, 1, false, 8);
	assert_true(u64_at(48) == 0);
}

static void test_add_bufpool(void **state)
{
	static char pool[8192];
	static const size_t keep[][2] = {
		{0, 1},	 {4, 4},  {8, 4},  {28, 4}, {32, 8},
		{40, 2}, {64, 2}, {72, 8}, {80, 4},
	};

	(void)state;
	ring_prep_add_bufpool(stale_sqe(), 4, 0, pool, sizeof(pool), 0, 8);
	assert_int_equal(u32_at(8), FUSE_IO_URING_CMD_ADD_BUFPOOL);
	assert_true(u64_at(48) == 0); /* flags must be 0 */
	assert_true(u64_at(72) == (uint64_t)(uintptr_t)pool);
	assert_int_equal(u32_at(80), sizeof(pool));
	assert_int_equal(u32_at(84), 0); /* reserved */
	assert_int_equal(u32_at(28), IORING_URING_CMD_FIXED);
	assert_zero_except(keep, sizeof(keep) / sizeof(keep[0]));

	ring_prep_add_bufpool(stale_sqe(), 4, 0, pool, sizeof(pool), -1, 8);
	assert_int_equal(u32_at(28), 0);
	assert_int_equal(u16_at(40), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_plain),
		cmocka_unit_test(test_register_pool_zerocopy),
		cmocka_unit_test(test_commit),
		cmocka_unit_test(test_add_queue),
		cmocka_unit_test(test_add_bufpool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
