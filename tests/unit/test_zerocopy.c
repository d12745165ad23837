/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy answers, without a kernel: what the ring transport puts in the
 * entry for a READ or WRITE whose data is in the client's pages. An answer
 * may never claim more bytes than fixed ops moved (stale page contents for
 * a READ, lost data for a WRITE): EIO and a handler bug instead. A READ
 * answered from memory is staged in the thread's memfd at the entry's slot.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

struct fixture {
	struct fring_session se;
	struct ring_state rs;
	struct ring_thread rt;
	struct fring_queue q;
	struct ring_ent ent;
	char pool[8192];
};

static struct fixture *setup_zc(int kind)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	f.rs.se = &f.se;
	f.rs.payload_sz = 8192;
	f.rs.zero_copy = true;
	f.rt.rs = &f.rs;
	f.rt.stage_fd = memfd_create("test-stage", 0);
	assert_true(f.rt.stage_fd >= 0);
	f.q.rt = &f.rt;
	f.q.pool = f.pool;
	f.q.pool_len = sizeof(f.pool);
	f.ent.req.se = &f.se;
	f.ent.req.q = &f.q;
	f.ent.zc = kind;
	f.ent.zc_slot = 3;
	f.ent.req.data = kind == ZC_WRITE ? f.pool : NULL;
	return &f;
}

static void teardown_zc(struct fixture *f)
{
	close(f->rt.stage_fd);
}

static int answer(struct fixture *f, const void *data, size_t len)
{
	struct fuse_out_header oh = {sizeof(oh) + len, 0, 7};
	struct iovec iov[2] = {{&oh, sizeof(oh)}, {(void *)data, len}};

	return fring_tp_ring.send(&f->ent.req, iov, 2);
}

static const struct fuse_out_header *hdr(const struct fixture *f)
{
	return (const void *)f->ent.hdr.in_out;
}

static uint32_t payload(const struct fixture *f)
{
	return f->ent.hdr.ring_ent_in_out.payload_sz;
}

static void test_read_placed(void **state)
{
	struct fixture *f = setup_zc(ZC_READ);

	(void)state;
	/* fring_reply_data(): the bytes are where fixed ops put them */
	f->ent.zc_moved = 4096;
	assert_int_equal(answer(f, NULL, 4096), 0);
	assert_int_equal(hdr(f)->error, 0);
	assert_int_equal(payload(f), 4096);
	/* a short read is fine */
	assert_int_equal(answer(f, NULL, 100), 0);
	assert_int_equal(payload(f), 100);
	/* claiming bytes no fixed op moved: EIO, counted */
	assert_int_equal(answer(f, NULL, 4097), -EIO);
	assert_int_equal(hdr(f)->error, -EIO);
	assert_int_equal(payload(f), 0);
	assert_int_equal(f->q.stats.handler_bugs, 1);
	teardown_zc(f);
}

static void test_read_staged(void **state)
{
	struct fixture *f = setup_zc(ZC_READ);
	char data[3000], back[3000];

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7);
	assert_int_equal(answer(f, data, sizeof(data)), 0);
	assert_int_equal(hdr(f)->error, 0);
	assert_int_equal(payload(f), sizeof(data));
	assert_int_equal(f->ent.zc_staged, sizeof(data));
	assert_int_equal(f->q.stats.zero_copy_staged, 1);
	/* at the slot's place in the stage file, for READ_FIXED to take */
	assert_int_equal(pread(f->rt.stage_fd, back, sizeof(back), 3 * 8192),
			 sizeof(back));
	assert_memory_equal(back, data, sizeof(data));
	assert_int_equal(f->q.stats.handler_bugs, 0);
	teardown_zc(f);
}

static void test_read_error(void **state)
{
	struct fixture *f = setup_zc(ZC_READ);
	struct fuse_out_header oh = {sizeof(oh), -ENOENT, 7};
	struct iovec iov[1] = {{&oh, sizeof(oh)}};

	(void)state;
	assert_int_equal(fring_tp_ring.send(&f->ent.req, iov, 1), 0);
	assert_int_equal(hdr(f)->error, -ENOENT);
	assert_int_equal(payload(f), 0);
	assert_int_equal(f->ent.zc_staged, 0);
	teardown_zc(f);
}

static void test_write(void **state)
{
	struct fixture *f = setup_zc(ZC_WRITE);
	struct fuse_write_out wo = {.size = 8192};

	(void)state;
	f->ent.zc_moved = 8192;
	assert_int_equal(answer(f, &wo, sizeof(wo)), 0);
	assert_int_equal(hdr(f)->error, 0);
	/* write_out goes to the entry's pool buffer, at its start */
	assert_int_equal(payload(f), sizeof(wo));
	assert_memory_equal(f->pool, &wo, sizeof(wo));
	/* more than left the client's pages: EIO, counted */
	f->ent.zc_moved = 4096;
	assert_int_equal(answer(f, &wo, sizeof(wo)), -EIO);
	assert_int_equal(hdr(f)->error, -EIO);
	assert_int_equal(payload(f), 0);
	assert_int_equal(f->q.stats.handler_bugs, 1);
	teardown_zc(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_placed),
		cmocka_unit_test(test_read_staged),
		cmocka_unit_test(test_read_error),
		cmocka_unit_test(test_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
