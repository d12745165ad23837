/* SPDX-License-Identifier: MIT */
/*
 * ring/pipe.c: zero-copy's small transfers through the ring thread's pipe.
 * Room is reserved per op and given back; an op that moved another length
 * puts the pipe out of step: no op starts, the ones in flight are not
 * trusted, and the last one back empties it. With a real ring (no FUSE
 * needed): bytes spliced from a memfd for two requests reach each one's
 * buffer by READ_FIXED from the pipe in their order, and a WRITE_FIXED into
 * the pipe reaches the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

struct fixture {
	struct fring_session se;
	struct ring_state rs;
	struct ring_thread rt;
	int file;
};

static struct fixture *setup_pipe(unsigned pipe_max)
{
	static struct fixture f;
	char block[4096];

	memset(&f, 0, sizeof(f));
	f.se.cfg.zc_pipe_max = pipe_max;
	f.rs.se = &f.se;
	f.rt.rs = &f.rs;
	assert_int_equal(rt_pipe_open(&f.rt), 0);
	f.file = memfd_create("test-pipe", MFD_CLOEXEC);
	assert_true(f.file >= 0);
	/* 64 KiB: byte i of the file is (i * 13 + i / 4096) & 0xff */
	for (unsigned b = 0; b < 16; b++) {
		for (unsigned i = 0; i < sizeof(block); i++)
			block[i] = (char)((b * 4096 + i) * 13 + b);
		assert_int_equal(write(f.file, block, sizeof(block)),
				 sizeof(block));
	}
	return &f;
}

static void teardown_pipe(struct fixture *f)
{
	rt_pipe_close(&f->rt);
	close(f->file);
}

static char file_byte(size_t i)
{
	return (char)(i * 13 + i / 4096);
}

static size_t in_pipe(const struct fixture *f)
{
	int n = -1;

	assert_int_equal(ioctl(f->rt.pipe_fd[0], FIONREAD, &n), 0);
	return (size_t)n;
}

static void test_fill_and_give(void **state)
{
	struct fixture *f = setup_pipe(65536);
	char got[5000];

	(void)state;
	assert_true(f->rt.pipe_room >= 65536);
	/* a range across pages, from the file at its offset */
	assert_int_equal(rt_pipe_fill(&f->rt, f->file, 3000, 5000), 5000);
	assert_int_equal(f->rt.pipe_inflight, 1);
	assert_true(f->rt.pipe_used >= 5000);
	assert_int_equal(in_pipe(f), 5000);
	assert_int_equal(read(f->rt.pipe_fd[0], got, sizeof(got)), 5000);
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], file_byte(3000 + i));
	rt_pipe_give(&f->rt, 5000, true);
	assert_int_equal(f->rt.pipe_inflight, 0);
	assert_int_equal(f->rt.pipe_used, 0);
	/* the end of the file: nothing reserved */
	assert_int_equal(rt_pipe_fill(&f->rt, f->file, 65536, 4096), 0);
	assert_int_equal(f->rt.pipe_inflight, 0);
	/* short at the end */
	assert_int_equal(rt_pipe_fill(&f->rt, f->file, 65536 - 100, 4096), 100);
	rt_pipe_discard(&f->rt, 4096, 100);
	assert_int_equal(in_pipe(f), 0);
	assert_int_equal(f->rt.pipe_used, 0);
	assert_false(f->rt.pipe_broken);
	teardown_pipe(f);
}

static void test_limits(void **state)
{
	struct fixture *f = setup_pipe(65536);
	unsigned taken = 0;

	(void)state;
	/* larger than zc_pipe_max, or nothing: the fixed op on the file */
	assert_false(rt_pipe_take(&f->rt, 65537));
	assert_false(rt_pipe_take(&f->rt, 0));
	assert_int_equal(rt_pipe_fill(&f->rt, f->file, 0, 65537), -EAGAIN);
	/* the room runs out: refused, never a blocked op */
	while (rt_pipe_take(&f->rt, 65536))
		taken++;
	assert_true(taken >= 1);
	assert_true(f->rt.pipe_used <= f->rt.pipe_room);
	assert_int_equal(rt_pipe_fill(&f->rt, f->file, 0, 65536), -EAGAIN);
	while (taken--)
		rt_pipe_give(&f->rt, 65536, true);
	assert_int_equal(f->rt.pipe_used, 0);
	teardown_pipe(f);

	/* zc_pipe_max=0: no pipe at all */
	f = setup_pipe(0);
	assert_int_equal(f->rt.pipe_fd[0], -1);
	assert_false(rt_pipe_take(&f->rt, 1));
	teardown_pipe(f);
}

static void test_out_of_step(void **state)
{
	struct fixture *f = setup_pipe(65536);

	(void)state;
	assert_int_equal(rt_pipe_fill(&f->rt, f->file, 0, 4096), 4096);
	assert_int_equal(rt_pipe_fill(&f->rt, f->file, 4096, 4096), 4096);
	/* the first op moved less than its length */
	rt_pipe_give(&f->rt, 4096, false);
	assert_true(f->rt.pipe_broken);
	assert_false(rt_pipe_take(&f->rt, 4096));
	assert_int_equal(in_pipe(f), 8192);
	/* the last one back: emptied, usable again */
	rt_pipe_give(&f->rt, 4096, true);
	assert_false(f->rt.pipe_broken);
	assert_int_equal(in_pipe(f), 0);
	assert_int_equal(f->rt.pipe_used, 0);
	assert_true(rt_pipe_take(&f->rt, 4096));
	rt_pipe_give(&f->rt, 4096, true);
	teardown_pipe(f);
}

static void test_empty_to(void **state)
{
	struct fixture *f = setup_pipe(65536);
	char data[6000], back[6000];

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 31 + 7);
	/* what a WRITE_FIXED into the pipe leaves there */
	assert_true(rt_pipe_take(&f->rt, sizeof(data)));
	assert_int_equal(write(f->rt.pipe_fd[1], data, sizeof(data)),
			 sizeof(data));
	assert_int_equal(rt_pipe_empty_to(&f->rt, f->file, 10000, sizeof(data),
					  sizeof(data)),
			 sizeof(data));
	assert_int_equal(pread(f->file, back, sizeof(back), 10000),
			 sizeof(back));
	assert_memory_equal(back, data, sizeof(data));
	assert_int_equal(in_pipe(f), 0);
	assert_int_equal(f->rt.pipe_used, 0);
	/* a WRITE_FIXED that moved less: nothing reaches the file, the
	 * caller writes again without the pipe */
	assert_true(rt_pipe_take(&f->rt, 4096));
	assert_int_equal(write(f->rt.pipe_fd[1], data, 100), 100);
	assert_int_equal(rt_pipe_empty_to(&f->rt, f->file, 0, 4096, 100),
			 -EAGAIN);
	assert_int_equal(in_pipe(f), 0); /* emptied: nothing in flight */
	assert_false(f->rt.pipe_broken);
	assert_int_equal(pread(f->file, back, 100, 0), 100);
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(back[i], file_byte(i));
	teardown_pipe(f);
}

static void test_fill_iov(void **state)
{
	struct fixture *f = setup_pipe(65536);
	char a[100], b[3000], got[3100];
	struct iovec iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};

	(void)state;
	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	assert_int_equal(rt_pipe_fill_iov(&f->rt, iov, 2, 3100), 3100);
	assert_int_equal(read(f->rt.pipe_fd[0], got, sizeof(got)), 3100);
	assert_memory_equal(got, a, sizeof(a));
	assert_memory_equal(got + 100, b, sizeof(b));
	rt_pipe_give(&f->rt, 3100, true);
	/* too large for the pipe: the memfd then */
	assert_int_equal(rt_pipe_fill_iov(&f->rt, iov, 2, 70000), -EAGAIN);
	teardown_pipe(f);
}

/* Two requests' reads queued back to back: each buffer gets its own
 * range, because the pipe's ops run in the order they were queued and each
 * completes while being submitted. Then a write the other way. */
static void test_real_ring(void **state)
{
	struct fixture *f = setup_pipe(65536);
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	char *buf = aligned_alloc(4096, 16384);
	struct iovec reg = {buf, 16384};
	char back[4096];

	(void)state;
	assert_non_null(buf);
	memset(buf, 0, 16384);
	assert_int_equal(io_uring_queue_init(8, &ring, 0), 0);
	assert_int_equal(io_uring_register_buffers(&ring, &reg, 1), 0);
	assert_int_equal(rt_pipe_fill(&f->rt, f->file, 40960, 4096), 4096);
	assert_int_equal(rt_pipe_fill(&f->rt, f->file, 1000, 8192), 8192);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, f->rt.pipe_fd[0], buf + 8192, 4096,
				 UINT64_MAX, 0);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, f->rt.pipe_fd[0], buf, 8192, UINT64_MAX,
				 0);
	sqe->user_data = 2;
	assert_int_equal(io_uring_submit_and_wait(&ring, 2), 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(io_uring_wait_cqe(&ring, &cqe), 0);
		assert_int_equal(cqe->res, cqe->user_data == 1 ? 4096 : 8192);
		rt_pipe_give(&f->rt, cqe->user_data == 1 ? 4096 : 8192, true);
		io_uring_cqe_seen(&ring, cqe);
	}
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(buf[8192 + i], file_byte(40960 + i));
	for (size_t i = 0; i < 8192; i++)
		assert_int_equal(buf[i], file_byte(1000 + i));

	/* the other way: WRITE_FIXED into the pipe, spliced into the file */
	for (size_t i = 0; i < 4096; i++)
		buf[12288 + i] = (char)(i ^ 0x5a);
	assert_true(rt_pipe_take(&f->rt, 4096));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write_fixed(sqe, f->rt.pipe_fd[1], buf + 12288, 4096,
				  UINT64_MAX, 0);
	assert_int_equal(io_uring_submit_and_wait(&ring, 1), 1);
	assert_int_equal(io_uring_wait_cqe(&ring, &cqe), 0);
	assert_int_equal(
		rt_pipe_empty_to(&f->rt, f->file, 20000, 4096, cqe->res), 4096);
	io_uring_cqe_seen(&ring, cqe);
	assert_int_equal(pread(f->file, back, sizeof(back), 20000),
			 sizeof(back));
	assert_memory_equal(back, buf + 12288, sizeof(back));
	assert_int_equal(f->rt.pipe_used, 0);
	io_uring_queue_exit(&ring);
	free(buf);
	teardown_pipe(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_and_give),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_out_of_step),
		cmocka_unit_test(test_empty_to),
		cmocka_unit_test(test_fill_iov),
		cmocka_unit_test(test_real_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
