/* SPDX-License-Identifier: MIT */
/* Directory listings: fring_add_direntry() and fring_add_direntry_plus(). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "fake_session.h"

static fring_req_t *req;
static unsigned char buf[4096];

static int setup(void **state)
{
	if (fk_setup(state))
		return -1;
	req = req_get(fk.q);
	memset(buf, 0xff, sizeof(buf));
	return req ? 0 : -1;
}

static int teardown(void **state)
{
	if (req)
		req_put(req);
	return fk_teardown(state);
}

static bool untouched(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0xff)
			return false;
	return true;
}

static struct stat st_of(ino_t ino, mode_t mode)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_ino = ino;
	st.st_mode = mode;
	return st;
}

static void check_dirent(const unsigned char *d, uint64_t ino, uint64_t off,
			 const char *name, uint32_t type)
{
	size_t len = strlen(name);
	size_t rec = (24 + len + 7) & ~(size_t)7;

	assert_int_equal(le64(d, 0), ino);
	assert_int_equal(le64(d, 8), off);
	assert_int_equal(le32(d, 16), len);
	assert_int_equal(le32(d, 20), type);
	assert_memory_equal(d + 24, name, len);
	for (size_t i = 24 + len; i < rec; i++)
		assert_int_equal(d[i], 0); /* padding zeroed */
}

static void test_direntry_sizes(void **state)
{
	static const char *const names[] = {
		"a", "ab", "abcdefg", "abcdefgh", "abcdefghi", ".", ".."};
	struct stat st = st_of(5, S_IFREG | 0644);

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len = strlen(names[i]);
		size_t want = (24 + len + 7) & ~(size_t)7;
		size_t got;

		memset(buf, 0xff, sizeof(buf));
		got = fring_add_direntry(req, (char *)buf, sizeof(buf),
					 names[i], &st, 42);
		assert_int_equal(got, want);
		assert_int_equal(got % 8, 0);
		check_dirent(buf, 5, 42, names[i], DT_REG);
		/* nothing written after the record */
		assert_true(untouched(buf + got, 64));
	}
	/* a 255-byte name */
	{
		char name[256];

		memset(name, 'z', 255);
		name[255] = '\0';
		assert_int_equal(fring_add_direntry(req, (char *)buf,
						    sizeof(buf), name, &st, 1),
				 280);
		check_dirent(buf, 5, 1, name, DT_REG);
	}
}

static void test_direntry_types(void **state)
{
	static const struct {
		mode_t mode;
		uint32_t type;
	} types[] = {
		{S_IFREG | 0644, DT_REG}, {S_IFDIR | 0755, DT_DIR},
		{S_IFLNK | 0777, DT_LNK}, {S_IFCHR, DT_CHR},
		{S_IFBLK, DT_BLK},	  {S_IFIFO, DT_FIFO},
		{S_IFSOCK, DT_SOCK},	  {0, DT_UNKNOWN},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct stat st = st_of(9, types[i].mode);

		fring_add_direntry(req, (char *)buf, sizeof(buf), "x", &st, 3);
		assert_int_equal(le32(buf, 20), types[i].type);
	}
}

static void test_direntry_full(void **state)
{
	struct stat st = st_of(5, S_IFREG);

	(void)state;
	/* one byte short: the size it needs, and nothing written */
	assert_int_equal(
		fring_add_direntry(req, (char *)buf, 31, "abcdefg", &st, 1),
		32);
	assert_true(untouched(buf, sizeof(buf)));
	assert_int_equal(fring_add_direntry(req, (char *)buf, 0, "a", &st, 1),
			 32);
	assert_true(untouched(buf, sizeof(buf)));
	/* no buffer: just the size */
	assert_int_equal(fring_add_direntry(req, NULL, 0, "abcdefghi", &st, 1),
			 40);
	/* exactly enough */
	assert_int_equal(
		fring_add_direntry(req, (char *)buf, 32, "abcdefg", &st, 1),
		32);
	check_dirent(buf, 5, 1, "abcdefg", DT_REG);
	assert_true(untouched(buf + 32, sizeof(buf) - 32));
}

static void test_direntry_sequence(void **state)
{
	struct stat st;
	size_t used = 0, n;
	const size_t size = 100;
	char names[3][8] = {"one", "two", "three"};
	int added = 0;

	(void)state;
	/* fill a 100-byte listing the way a readdir handler does */
	for (int i = 0; i < 3; i++) {
		st = st_of(10 + (ino_t)i, S_IFREG);
		n = fring_add_direntry(req, (char *)buf + used, size - used,
				       names[i], &st, i + 1);
		if (n > size - used)
			break;
		used += n;
		added++;
	}
	assert_int_equal(added, 3);
	assert_int_equal(used, 96);
	check_dirent(buf, 10, 1, "one", DT_REG);
	check_dirent(buf + 32, 11, 2, "two", DT_REG);
	check_dirent(buf + 64, 12, 3, "three", DT_REG);
	st = st_of(13, S_IFREG);
	assert_int_equal(fring_add_direntry(req, (char *)buf + used,
					    size - used, "four", &st, 4),
			 32);
	assert_true(untouched(buf + used, sizeof(buf) - used));
}

static struct fring_entry entry_of(fring_ino_t ino)
{
	struct fring_entry e;

	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.generation = 3;
	e.attr.st_ino = 0; /* attr.ino and dirent.ino: the node id */
	e.attr.st_mode = S_IFDIR | 0755;
	e.attr.st_size = 4096;
	e.attr.st_nlink = 2;
	e.attr.st_uid = 10;
	e.attr.st_gid = 20;
	e.attr.st_mtim.tv_sec = 1700000000;
	e.attr.st_mtim.tv_nsec = 123;
	e.attr.st_blksize = 512;
	e.entry_timeout = 1.25;
	e.attr_timeout = 2.5;
	return e;
}

static void test_direntry_plus(void **state)
{
	struct fring_entry e = entry_of(0x55);
	const unsigned char *a = buf + 40;
	size_t got;

	(void)state;
	got = fring_add_direntry_plus(req, (char *)buf, sizeof(buf), "sub", &e,
				      9);
	assert_int_equal(got, 160);
	/* entry_out */
	assert_int_equal(le64(buf, 0), 0x55);
	assert_int_equal(le64(buf, 8), 3);
	assert_int_equal(le64(buf, 16), 1);
	assert_int_equal(le64(buf, 24), 2);
	assert_int_equal(le32(buf, 32), 250000000);
	assert_int_equal(le32(buf, 36), 500000000);
	assert_int_equal(le64(a, 0), 0x55); /* attr.ino */
	assert_int_equal(le64(a, 8), 4096);
	assert_int_equal(le64(a, 32), 1700000000);
	assert_int_equal(le32(a, 52), 123);
	assert_int_equal(le32(a, 60), S_IFDIR | 0755);
	assert_int_equal(le32(a, 64), 2);
	assert_int_equal(le32(a, 68), 10);
	assert_int_equal(le32(a, 72), 20);
	assert_int_equal(le32(a, 80), 512);
	assert_int_equal(le32(a, 84), 0);
	/* dirent at 128, name at 152 */
	check_dirent(buf + 128, 0x55, 9, "sub", DT_DIR);
	assert_true(untouched(buf + 160, 64));

	/* sizes: 152 + name, 8-aligned */
	assert_int_equal(fring_add_direntry_plus(req, (char *)buf, sizeof(buf),
						 "abcdefgh", &e, 1),
			 160);
	assert_int_equal(fring_add_direntry_plus(req, (char *)buf, sizeof(buf),
						 "abcdefghi", &e, 1),
			 168);
	check_dirent(buf + 128, 0x55, 1, "abcdefghi", DT_DIR);
}

/* st_ino, when set, is what programs see, in attr and dirent alike */
static void test_direntry_plus_st_ino(void **state)
{
	struct fring_entry e = entry_of(0x55);

	(void)state;
	e.attr.st_ino = 777;
	assert_int_equal(fring_add_direntry_plus(req, (char *)buf, sizeof(buf),
						 "s", &e, 4),
			 160);
	assert_int_equal(le64(buf, 0), 0x55); /* nodeid */
	assert_int_equal(le64(buf, 40), 777); /* attr.ino */
	check_dirent(buf + 128, 777, 4, "s", DT_DIR);
}

static struct fring_entry cmp_entry;

static void h_entry(fring_req_t *r)
{
	fring_reply_entry(r, &cmp_entry);
}

/* A direntplus record's entry_out is what LOOKUP would have answered for
 * the same entry, timeouts included: huge ones mean "very long" (reply.c
 * clamps them to 1e18 s), never garbage or zero. */
static void test_direntry_plus_like_lookup(void **state)
{
	static const double timeouts[] = {0,   0.5,	 1.5,	   86400.25,
					  -3,  1e9,	 1e18,	   1e30,
					  NAN, INFINITY, -INFINITY};
	static struct mb mm;
	struct mb *m = &mm;

	(void)state;
	for (size_t i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
		cmp_entry = entry_of(0x55);
		cmp_entry.entry_timeout = timeouts[i];
		cmp_entry.attr_timeout = timeouts[i];
		assert_int_equal(fring_add_direntry_plus(req, (char *)buf,
							 sizeof(buf), "n",
							 &cmp_entry, 1),
				 160);
		mb_init(m, FUSE_LOOKUP, 1);
		mb_str(m, "n");
		fk_reset();
		fk.hook = h_entry;
		assert_int_equal(fk_dispatch(m), 0);
		assert_int_equal(fk_out_arglen(), 128);
		if (memcmp(buf, fk_out_arg(), 128))
			fail_msg("timeout %g: direntplus entry_valid %llu.%09u "
				 "attr_valid %llu.%09u, LOOKUP %llu.%09u "
				 "%llu.%09u",
				 timeouts[i], (unsigned long long)le64(buf, 16),
				 le32(buf, 32),
				 (unsigned long long)le64(buf, 24),
				 le32(buf, 36),
				 (unsigned long long)le64(fk_out_arg(), 16),
				 le32(fk_out_arg(), 32),
				 (unsigned long long)le64(fk_out_arg(), 24),
				 le32(fk_out_arg(), 36));
	}
}

static void test_direntry_plus_negative(void **state)
{
	struct fring_entry e = entry_of(0);

	(void)state;
	e.attr.st_ino = 777;
	/* ino 0: no lookup (the kernel ignores the rest of entry_out); no
	 * timeouts or attributes, the dirent's ino from st_ino */
	assert_int_equal(fring_add_direntry_plus(req, (char *)buf, sizeof(buf),
						 "..", &e, 2),
			 160);
	assert_int_equal(le64(buf, 0), 0);
	for (size_t i = 16; i < 128; i++)
		assert_int_equal(buf[i], 0);
	check_dirent(buf + 128, 777, 2, "..", DT_DIR);
}

static void test_direntry_plus_full(void **state)
{
	struct fring_entry e = entry_of(1);

	(void)state;
	assert_int_equal(
		fring_add_direntry_plus(req, (char *)buf, 159, "x", &e, 1),
		160);
	assert_true(untouched(buf, sizeof(buf)));
	assert_int_equal(
		fring_add_direntry_plus(req, (char *)buf, 24, "x", &e, 1), 160);
	assert_true(untouched(buf, sizeof(buf)));
	assert_int_equal(fring_add_direntry_plus(req, NULL, 0, "xyz", &e, 1),
			 160);
	assert_int_equal(
		fring_add_direntry_plus(req, (char *)buf, 160, "x", &e, 1),
		160);
	assert_true(untouched(buf + 160, sizeof(buf) - 160));
}

/* A readdir handler end to end: entries into dst, fring_reply_data(). */
static void h_readdir(fring_req_t *r)
{
	const struct fring_buf *dst = &fk.c.buf;
	char *p = dst->mem;
	size_t used = 0, n;
	static const char *const names[] = {".", "..", "file", "longername"};

	for (int i = 0; i < 4; i++) {
		struct stat st =
			st_of(100 + (ino_t)i, i < 2 ? S_IFDIR : S_IFREG);

		n = fring_add_direntry(r, p + used, dst->size - used, names[i],
				       &st, i + 1);
		if (n > dst->size - used)
			break;
		used += n;
	}
	fring_reply_data(r, used);
}

static void test_readdir_end_to_end(void **state)
{
	struct fuse_read_in in = {.fh = 1, .size = 100};
	struct mb *m = test_malloc(sizeof(*m));

	(void)state;
	req_put(req); /* the slot serves the READDIR */
	req = NULL;
	mb_init(m, FUSE_READDIR, 1);
	mb_add(m, &in, sizeof(in));
	fk_reset();
	fk.hook = h_readdir;
	assert_int_equal(fk_dispatch(m), 0);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk_out_error(), 0);
	/* ".", "..", "file" fit in 100 bytes (32 each); "longername" not */
	assert_int_equal(fk_out_arglen(), 96);
	check_dirent(fk_out_arg(), 100, 1, ".", DT_DIR);
	check_dirent(fk_out_arg() + 32, 101, 2, "..", DT_DIR);
	check_dirent(fk_out_arg() + 64, 102, 3, "file", DT_REG);
	fk_check_idle();
	test_free(m);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_direntry_sizes),
		T(test_direntry_types),
		T(test_direntry_full),
		T(test_direntry_sequence),
		T(test_direntry_plus),
		T(test_direntry_plus_st_ino),
		T(test_direntry_plus_like_lookup),
		T(test_direntry_plus_negative),
		T(test_direntry_plus_full),
		T(test_readdir_end_to_end),
	};

	return cmocka_run_group_tests_name("dirent", tests, NULL, NULL);
}
