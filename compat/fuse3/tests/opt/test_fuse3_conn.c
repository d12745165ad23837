/* SPDX-License-Identifier: MIT */
/*
 * libfring-fuse3's INIT bridge (fc_conn_init(), conn.c), compiled in with
 * the capability conversions: what a libfuse program's init sees and what
 * its changes do to libfring's struct fring_conn.
 *
 * The expectations are libfuse 3.18.3's, observed with its build on Linux
 * 6.18 (FUSE 7.45): a program whose init leaves FUSE_CAP_OVER_IO_URING out
 * of want_ext, directly or through the 32-bit want (hello_ll assigns want
 * outright), is served on /dev/fuse even with io_uring asked for; the
 * proposal holds READDIRPLUS_AUTO only for a filesystem with both readdir
 * and readdirplus (want_ext 0x8000b809 for readdirplus alone, 0x8000f809
 * with readdir as well).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat.h"

/* What the kernel of those observations offers (its INIT flags), the
 * ring included, as libfring hands them to the init bridge. */
static const uint64_t offered =
	FRING_CAP_ASYNC_READ | FRING_CAP_POSIX_LOCKS |
	FRING_CAP_ATOMIC_O_TRUNC | FRING_CAP_EXPORT_SUPPORT |
	FRING_CAP_BIG_WRITES | FRING_CAP_DONT_MASK | FRING_CAP_FLOCK_LOCKS |
	FRING_CAP_IOCTL_DIR | FRING_CAP_AUTO_INVAL_DATA |
	FRING_CAP_READDIRPLUS | FRING_CAP_READDIRPLUS_AUTO |
	FRING_CAP_ASYNC_DIO | FRING_CAP_WRITEBACK_CACHE |
	FRING_CAP_NO_OPEN_SUPPORT | FRING_CAP_PARALLEL_DIROPS |
	FRING_CAP_HANDLE_KILLPRIV | FRING_CAP_POSIX_ACL |
	FRING_CAP_ABORT_ERROR | FRING_CAP_MAX_PAGES | FRING_CAP_CACHE_SYMLINKS |
	FRING_CAP_NO_OPENDIR_SUPPORT | FRING_CAP_EXPLICIT_INVAL_DATA |
	FRING_CAP_HANDLE_KILLPRIV_V2 | FRING_CAP_SETXATTR_EXT |
	FRING_CAP_SECURITY_CTX | FRING_CAP_CREATE_SUPP_GROUP |
	FRING_CAP_DIRECT_IO_ALLOW_MMAP | FRING_CAP_PASSTHROUGH |
	FRING_CAP_NO_EXPORT_SUPPORT | FRING_CAP_OVER_IO_URING |
	FRING_CAP_REQUEST_TIMEOUT | FRING_CAP_SPLICE_READ |
	FRING_CAP_SPLICE_WRITE | FRING_CAP_SPLICE_MOVE;

/* What the callback saw, and what it is told to do. */
struct seen {
	uint64_t capable_ext, want_ext;
	uint32_t want;
	int calls;
	void (*change)(struct fuse_conn_info *conn);
};

static void record_init(void *userdata, struct fuse_conn_info *conn)
{
	struct seen *s = userdata;

	s->capable_ext = conn->capable_ext;
	s->want_ext = conn->want_ext;
	s->want = conn->want;
	s->calls++;
	if (s->change)
		s->change(conn);
}

static void dummy_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			  off_t off, struct fuse_file_info *fi)
{
	(void)req;
	(void)ino;
	(void)size;
	(void)off;
	(void)fi;
}

struct fixture {
	struct fuse_session se;
	struct fring_conn fc;
	struct seen seen;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->se.op.init = record_init;
	f->se.userdata = &f->seen;
	f->fc.proto_major = 7;
	f->fc.proto_minor = 45;
	f->fc.capable = offered;
	/* libfring's own proposal (src/dispatch/init.c) for a filesystem
	 * without lock, flock or ioctl handlers; never the ring, which it
	 * sets from the transport after INIT */
	f->fc.want = FRING_CAP_ASYNC_READ | FRING_CAP_ATOMIC_O_TRUNC |
		     FRING_CAP_BIG_WRITES | FRING_CAP_AUTO_INVAL_DATA |
		     FRING_CAP_ASYNC_DIO | FRING_CAP_MAX_PAGES |
		     FRING_CAP_SETXATTR_EXT;
	f->fc.max_write = 1u << 20;
	f->fc.max_readahead = 128u << 10;
	f->fc.time_gran = 1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void run(struct fixture *f, void (*change)(struct fuse_conn_info *))
{
	f->seen.change = change;
	fc_conn_init(&f->se, &f->fc);
}

/* ---- FUSE_CAP_OVER_IO_URING: the filesystem's say on the ring ---- */

static void test_ring_proposed_and_kept(void **state)
{
	struct fixture *f = *state;

	run(f, NULL);
	assert_int_equal(f->seen.calls, 1);
	assert_true(f->seen.capable_ext & FUSE_CAP_OVER_IO_URING);
	assert_true(f->seen.want_ext & FUSE_CAP_OVER_IO_URING);
	assert_true(f->seen.want & FUSE_CAP_OVER_IO_URING);
	assert_false(f->fc.fs_flags & FRING_FS_NO_RING);
}

/* hello_ll: want assigned outright (then its one bit cleared) */
static void assign_want(struct fuse_conn_info *conn)
{
	conn->want = FUSE_CAP_ASYNC_READ;
	conn->want &= ~FUSE_CAP_ASYNC_READ;
}

static void test_ring_declined_by_assigned_want(void **state)
{
	struct fixture *f = *state;

	run(f, assign_want);
	assert_true(f->fc.fs_flags & FRING_FS_NO_RING);
	/* the low half of want_ext went with it: no async reads either */
	assert_false(f->fc.want & FRING_CAP_ASYNC_READ);
	assert_false(f->fc.want & FRING_CAP_AUTO_INVAL_DATA);
}

static void unset_ext(struct fuse_conn_info *conn)
{
	fuse_unset_feature_flag(conn, FUSE_CAP_OVER_IO_URING);
}

static void test_ring_declined_in_want_ext(void **state)
{
	struct fixture *f = *state;

	run(f, unset_ext);
	assert_true(f->fc.fs_flags & FRING_FS_NO_RING);
	/* nothing else changed */
	assert_true(f->fc.want & FRING_CAP_ASYNC_READ);
}

static void clear_32(struct fuse_conn_info *conn)
{
	conn->want &= ~FUSE_CAP_OVER_IO_URING;
}

static void test_ring_declined_in_32bit_want(void **state)
{
	struct fixture *f = *state;

	run(f, clear_32);
	assert_true(f->fc.fs_flags & FRING_FS_NO_RING);
	assert_true(f->fc.want & FRING_CAP_ASYNC_READ);
}

/* other changes leave the ring alone, in either field */
static void other_changes(struct fuse_conn_info *conn)
{
	conn->want &= ~FUSE_CAP_ASYNC_READ;
	fuse_set_feature_flag(conn, FUSE_CAP_WRITEBACK_CACHE);
}

static void test_ring_kept_through_other_changes(void **state)
{
	struct fixture *f = *state;

	run(f, other_changes);
	assert_false(f->fc.fs_flags & FRING_FS_NO_RING);
	assert_false(f->fc.want & FRING_CAP_ASYNC_READ);
	assert_true(f->fc.want & FRING_CAP_WRITEBACK_CACHE);
}

/* a kernel without a ring to offer: nothing proposed, nothing declined */
static void test_ring_not_offered(void **state)
{
	struct fixture *f = *state;

	f->fc.capable &= ~FRING_CAP_OVER_IO_URING;
	run(f, assign_want);
	assert_false(f->seen.capable_ext & FUSE_CAP_OVER_IO_URING);
	assert_false(f->seen.want_ext & FUSE_CAP_OVER_IO_URING);
	assert_false(f->fc.fs_flags & FRING_FS_NO_RING);
}

static void test_ring_without_init(void **state)
{
	struct fixture *f = *state;

	f->se.op.init = NULL;
	run(f, NULL);
	assert_int_equal(f->seen.calls, 0);
	assert_false(f->fc.fs_flags & FRING_FS_NO_RING);
}

/* ---- READDIRPLUS_AUTO: only with both directory handlers ---- */

static void test_readdirplus_alone(void **state)
{
	struct fixture *f = *state;

	f->se.op.readdirplus = dummy_readdir;
	/* libfring proposes both for a filesystem with readdirplus */
	f->fc.want |= FRING_CAP_READDIRPLUS | FRING_CAP_READDIRPLUS_AUTO;
	run(f, NULL);
	assert_true(f->seen.want_ext & FUSE_CAP_READDIRPLUS);
	assert_false(f->seen.want_ext & FUSE_CAP_READDIRPLUS_AUTO);
	assert_true(f->fc.want & FRING_CAP_READDIRPLUS);
	assert_false(f->fc.want & FRING_CAP_READDIRPLUS_AUTO);
}

static void test_readdirplus_with_readdir(void **state)
{
	struct fixture *f = *state;

	f->se.op.readdirplus = dummy_readdir;
	f->se.op.readdir = dummy_readdir;
	f->fc.want |= FRING_CAP_READDIRPLUS | FRING_CAP_READDIRPLUS_AUTO;
	run(f, NULL);
	assert_true(f->seen.want_ext & FUSE_CAP_READDIRPLUS);
	assert_true(f->seen.want_ext & FUSE_CAP_READDIRPLUS_AUTO);
	assert_true(f->fc.want & FRING_CAP_READDIRPLUS_AUTO);
}

/* ---- FRING_FS_ZERO_COPY: only where no handler reads memory ---- */

static void dummy_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
			size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)req;
	(void)ino;
	(void)buf;
	(void)size;
	(void)off;
	(void)fi;
}

static void dummy_write_buf(fuse_req_t req, fuse_ino_t ino,
			    struct fuse_bufvec *bufv, off_t off,
			    struct fuse_file_info *fi)
{
	(void)req;
	(void)ino;
	(void)bufv;
	(void)off;
	(void)fi;
}

/* passthrough_hp's init (without --nosplice) */
static void want_splice(struct fuse_conn_info *conn)
{
	fuse_set_feature_flag(conn, FUSE_CAP_SPLICE_WRITE);
	fuse_set_feature_flag(conn, FUSE_CAP_SPLICE_READ);
	fuse_set_feature_flag(conn, FUSE_CAP_SPLICE_MOVE);
}

static void test_zero_copy_without_write_handlers(void **state)
{
	struct fixture *f = *state;

	run(f, NULL);
	assert_true(f->fc.fs_flags & FRING_FS_ZERO_COPY);
}

static void test_zero_copy_write_buf_with_splice_read(void **state)
{
	struct fixture *f = *state;

	f->se.op.write_buf = dummy_write_buf;
	run(f, want_splice);
	assert_true(f->fc.fs_flags & FRING_FS_ZERO_COPY);
	/* and libfring splices requests from /dev/fuse (dev) */
	assert_true(f->fc.want & FRING_CAP_SPLICE_READ);
}

static void test_no_zero_copy_write_buf_alone(void **state)
{
	struct fixture *f = *state;

	f->se.op.write_buf = dummy_write_buf;
	run(f, NULL);
	assert_false(f->fc.fs_flags & FRING_FS_ZERO_COPY);
}

static void test_no_zero_copy_write_with_splice_read(void **state)
{
	struct fixture *f = *state;

	f->se.op.write = dummy_write;
	run(f, want_splice);
	assert_false(f->fc.fs_flags & FRING_FS_ZERO_COPY);
}

/* the flag offered but not kept: no promise */
static void drop_splice_read(struct fuse_conn_info *conn)
{
	want_splice(conn);
	fuse_unset_feature_flag(conn, FUSE_CAP_SPLICE_READ);
}

static void test_no_zero_copy_splice_read_dropped(void **state)
{
	struct fixture *f = *state;

	f->se.op.write_buf = dummy_write_buf;
	f->se.op.write = dummy_write;
	run(f, drop_splice_read);
	assert_false(f->fc.fs_flags & FRING_FS_ZERO_COPY);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ring_proposed_and_kept),
		T(test_ring_declined_by_assigned_want),
		T(test_ring_declined_in_want_ext),
		T(test_ring_declined_in_32bit_want),
		T(test_ring_kept_through_other_changes),
		T(test_ring_not_offered),
		T(test_ring_without_init),
		T(test_readdirplus_alone),
		T(test_readdirplus_with_readdir),
		T(test_zero_copy_without_write_handlers),
		T(test_zero_copy_write_buf_with_splice_read),
		T(test_no_zero_copy_write_buf_alone),
		T(test_no_zero_copy_write_with_splice_read),
		T(test_no_zero_copy_splice_read_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
