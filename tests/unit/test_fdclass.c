/* SPDX-License-Identifier: MIT */
/*
 * fdclass.c: what a queue thread learns about a descriptor, and how long
 * it trusts it. Real descriptors: a memfd (shmem, like tmpfs) and a file
 * in the current directory (the build tree: a disk filesystem here).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

/* a thread's cache, as a ring thread has one */
static struct fd_class_cache cc;

static void test_memory_file(void **state)
{
	int fd = memfd_create("fdclass", MFD_CLOEXEC);
	char b[16] = {0};
	struct iovec iov = {b, sizeof(b)};

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, sizeof(b)), sizeof(b));
	/* shmem refuses RWF_NOWAIT: that is why the class exists */
	assert_int_equal(preadv2(fd, &iov, 1, 0, RWF_NOWAIT), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(fd_class_get(&cc, fd, false), FD_CLASS_UNKNOWN);
	assert_int_equal(fd_class_learn(&cc, fd, false, EOPNOTSUPP),
			 FD_CLASS_MEMORY);
	assert_int_equal(fd_class_get(&cc, fd, false), FD_CLASS_MEMORY);
	close(fd);
}

/* A file of the current directory's filesystem, gone when closed */
static int disk_fd(void)
{
	int fd = open(".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0)
		fd = open("test_fdclass.tmp", O_CREAT | O_RDWR | O_CLOEXEC,
			  0600);
	assert_true(fd >= 0);
	unlink("test_fdclass.tmp");
	return fd;
}

static void test_other_files(void **state)
{
	int fd = disk_fd();
	int p[2];

	(void)state;
	/* takes RWF_NOWAIT (answered, or EAGAIN when it would block) */
	assert_int_equal(fd_class_learn(&cc, fd, false, 0), FD_CLASS_NOWAIT);
	assert_int_equal(fd_class_learn(&cc, fd, false, EAGAIN),
			 FD_CLASS_NOWAIT);
	/* refuses it but is not in memory: the ring */
	assert_int_equal(fd_class_learn(&cc, fd, false, EOPNOTSUPP),
			 FD_CLASS_RING);
	assert_int_equal(fd_class_get(&cc, fd, false), FD_CLASS_RING);
	/* a pipe refuses it too and is no memory filesystem */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(fd_class_learn(&cc, p[0], false, EOPNOTSUPP),
			 FD_CLASS_RING);
	close(p[0]);
	close(p[1]);
	close(fd);
}

/* ext4's buffered writes refuse RWF_NOWAIT where its reads take it: one
 * answer per direction */
static void test_directions(void **state)
{
	int fd = disk_fd();

	(void)state;
	fd_class_learn(&cc, fd, false, 0);
	fd_class_learn(&cc, fd, true, EOPNOTSUPP);
	assert_int_equal(fd_class_get(&cc, fd, false), FD_CLASS_NOWAIT);
	assert_int_equal(fd_class_get(&cc, fd, true), FD_CLASS_RING);
	close(fd);
}

/* An answer lasts FDCLASS_USES (64) lookups, until a RELEASE, or until
 * another descriptor takes the slot: a reused number is learnt again. */
static void test_forgetting(void **state)
{
	int fd = memfd_create("fdclass", MFD_CLOEXEC), uses = 1;

	(void)state;
	assert_true(fd >= 0);
	fd_class_learn(&cc, fd, false, EOPNOTSUPP);
	while (fd_class_get(&cc, fd, false) == FD_CLASS_MEMORY)
		uses++;
	assert_int_equal(uses, 64);

	fd_class_learn(&cc, fd, false, EOPNOTSUPP);
	fd_class_forget_all();
	assert_int_equal(fd_class_get(&cc, fd, false), FD_CLASS_UNKNOWN);

	fd_class_learn(&cc, fd, false, EOPNOTSUPP);
	fd_class_learn(&cc, fd + 64, false, 0); /* same slot */
	assert_int_equal(fd_class_get(&cc, fd, false), FD_CLASS_UNKNOWN);
	assert_int_equal(fd_class_get(&cc, fd + 64, false), FD_CLASS_NOWAIT);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_file),
		cmocka_unit_test(test_other_files),
		cmocka_unit_test(test_directions),
		cmocka_unit_test(test_forgetting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
