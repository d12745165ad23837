/* SPDX-License-Identifier: MIT */
/* Mount identity (src/mountid.c): the mount table as mount.c reads it. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "mountid.h"

/*
 * A table as a machine shows it: a tmpfs at /t with memfs on it, a tmpfs
 * moved onto memfs later (listed before it: lines come in creation order),
 * a mount inside memfs, and a path with a space and a backslash.
 */
static const char table[] =
	"1 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
	"40 1 0:40 / /t rw,relatime - tmpfs under rw,size=8192k\n"
	"45 47 0:45 / /t rw,relatime - tmpfs cover rw\n"
	"47 40 0:47 / /t rw,nosuid,nodev - fuse.memfs memfs rw,user_id=0\n"
	"48 47 0:48 / /t/in rw - tmpfs inside rw\n"
	"50 1 0:50 / /a\\040b\\134c rw - fuse fring rw\n"
	"this line is not a mount\n"
	"51 1 0:51 / /short\n";

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_mountid.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, table, sizeof(table) - 1) != (ssize_t)sizeof(table) - 1) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_read(void **state)
{
	struct mnt_table t;
	const struct mnt_ent *e;

	(void)state;
	assert_int_equal(mnt_table_read(path, &t), 0);
	/* the two lines that are not mounts are skipped */
	assert_int_equal(t.n, 6);
	e = mnt_table_by_id(&t, 50, 0);
	assert_non_null(e);
	assert_string_equal(e->path, "/a b\\c");
	assert_string_equal(e->fstype, "fuse");
	assert_string_equal(e->source, "fring");
	assert_int_equal(e->dev, makedev(0, 50));
	assert_int_equal(e->parent, 1);
	mnt_table_free(&t);
	assert_int_equal(mnt_table_read("/nonexistent/mountinfo", &t), -ENOENT);
}

static void test_by_id_and_dev(void **state)
{
	struct mnt_table t;

	(void)state;
	assert_int_equal(mnt_table_read(path, &t), 0);
	assert_non_null(mnt_table_by_id(&t, 47, makedev(0, 47)));
	/* an id given to another mount, on another device, is not ours */
	assert_null(mnt_table_by_id(&t, 47, makedev(0, 99)));
	assert_null(mnt_table_by_id(&t, 46, 0));
	mnt_table_free(&t);
}

static void test_top_at(void **state)
{
	struct mnt_table t;
	const struct mnt_ent *e;

	(void)state;
	assert_int_equal(mnt_table_read(path, &t), 0);
	/* three at /t: the cover (listed before what it covers) is on top */
	e = mnt_table_top_at(&t, "/t");
	assert_non_null(e);
	assert_int_equal(e->id, 45);
	assert_int_equal(mnt_table_top_at(&t, "/")->id, 1);
	assert_null(mnt_table_top_at(&t, "/nothing"));
	mnt_table_free(&t);
}

static void test_child(void **state)
{
	struct mnt_table t;
	const struct mnt_ent *c;
	bool on_root;

	(void)state;
	assert_int_equal(mnt_table_read(path, &t), 0);
	/* memfs: covered at its root (preferred to the one inside) */
	c = mnt_table_child(&t, mnt_table_by_id(&t, 47, 0), &on_root);
	assert_non_null(c);
	assert_int_equal(c->id, 45);
	assert_true(on_root);
	/* the tmpfs below memfs: memfs is on it */
	c = mnt_table_child(&t, mnt_table_by_id(&t, 40, 0), &on_root);
	assert_int_equal(c->id, 47);
	assert_true(on_root);
	/* nothing on the cover, nor on the mount inside */
	assert_null(mnt_table_child(&t, mnt_table_by_id(&t, 45, 0), &on_root));
	assert_false(on_root);
	assert_null(mnt_table_child(&t, mnt_table_by_id(&t, 48, 0), &on_root));
	/* / is its own parent: not a child of itself */
	c = mnt_table_child(&t, mnt_table_by_id(&t, 1, 0), &on_root);
	assert_non_null(c);
	assert_int_not_equal(c->id, 1);
	assert_false(on_root);
	mnt_table_free(&t);
}

static void test_child_inside(void **state)
{
	static const char inside[] =
		"1 1 254:0 / / rw - ext4 /dev/vda rw\n"
		"47 1 0:47 / /t rw - fuse.memfs memfs rw\n"
		"48 47 0:48 / /t/in rw - tmpfs inside rw\n";
	char p[64] = "/tmp/test_mountid.XXXXXX";
	struct mnt_table t;
	const struct mnt_ent *c;
	bool on_root;
	int fd = mkstemp(p);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, inside, sizeof(inside) - 1),
			 sizeof(inside) - 1);
	close(fd);
	assert_int_equal(mnt_table_read(p, &t), 0);
	unlink(p);
	c = mnt_table_child(&t, mnt_table_by_id(&t, 47, 0), &on_root);
	assert_non_null(c);
	assert_string_equal(c->path, "/t/in");
	assert_false(on_root);
	mnt_table_free(&t);
}

static void test_fuse_types(void **state)
{
	(void)state;
	assert_true(mnt_type_is_fuse("fuse"));
	assert_true(mnt_type_is_fuse("fuseblk"));
	assert_true(mnt_type_is_fuse("fuse.sshfs"));
	assert_false(mnt_type_is_fuse("fusectl"));
	assert_false(mnt_type_is_fuse("tmpfs"));
}

/* On this machine's own mounts: / is a mount root, a new directory is not. */
static void test_of_fd(void **state)
{
	char dir[] = "test_mountid.dir.XXXXXX";
	struct mount_id a, b;
	bool root;
	int fd, ret;

	(void)state;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	ret = mountid_of_fd(fd, &a, &root);
	close(fd);
	if (ret == -EOPNOTSUPP || ret == -ENOSYS)
		skip();
	assert_int_equal(ret, 0);
	assert_true(root);
	assert_true(mountid_same(&a, &a));
	assert_non_null(mkdtemp(dir));
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(mountid_of_fd(fd, &b, &root), 0);
	close(fd);
	rmdir(dir);
	assert_false(root);
	/* same id, other device: another mount */
	b = a;
	b.dev = makedev(0, 12345);
	assert_false(mountid_same(&a, &b));
	/* the unique id decides when both have it */
	b = a;
	b.id = a.id + 1;
	assert_true(mountid_same(&a, &b) == (a.uniq != 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_by_id_and_dev),
		cmocka_unit_test(test_top_at),
		cmocka_unit_test(test_child),
		cmocka_unit_test(test_child_inside),
		cmocka_unit_test(test_fuse_types),
		cmocka_unit_test(test_of_fd),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
