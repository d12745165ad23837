/* SPDX-License-Identifier: MIT */
/*
 * bufmem.c: payload buffer memory is zeroed, resident from the start (or,
 * asked so, faulted only on first use), 2 MiB-aligned and advised for huge
 * pages from 2 MiB on, and can be unmapped in the parts the ring entries
 * own.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

#define MIB ((size_t)1 << 20)

static size_t page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* every page of [p, p + len) resident */
static void assert_resident(char *p, size_t len)
{
	size_t n = len / page();
	unsigned char *vec = malloc(n);

	assert_non_null(vec);
	assert_int_equal(mincore(p, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		assert_true(vec[i] & 1);
	free(vec);
}

static void assert_zero(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			fail_msg("byte %zu is %d", i, p[i]);
}

/* Size (KiB) and VmFlags of the mapping that starts at p, from smaps */
static size_t region_info(const void *p, char *flags, size_t n)
{
	char line[512];
	unsigned long a, b;
	size_t size_kb = 0;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	assert_non_null(f);
	flags[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
			if (in)
				break;
			in = a == (unsigned long)(uintptr_t)p;
		} else if (in && !strncmp(line, "Size:", 5)) {
			size_kb = strtoul(line + 5, NULL, 10);
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(flags, n, "%s", line + 8);
		}
	}
	fclose(f);
	return size_kb;
}

static void test_small_region(void **state)
{
	size_t len = 16 * page();
	char *p = buf_map(len, true);

	(void)state;
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % page(), 0);
	assert_resident(p, len);
	assert_zero(p, len);
	/* never a huge page shared with a neighbour ("nh") */
	if (access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0) {
		char flags[512];

		assert_int_equal(region_info(p, flags, sizeof(flags)),
				 len / 1024);
		assert_non_null(strstr(flags, " nh"));
	}
	memset(p, 0xa5, len);
	assert_int_equal(munmap(p, len), 0);
}

static void test_large_region(void **state)
{
	size_t len = 8 * MIB + 4 * page(); /* not a multiple of 2 MiB */
	char *p = buf_map(len, true);
	bool thp = access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0;

	unsigned char v;

	(void)state;
	assert_non_null(p);
	/* The page after the region belonged to the 2 MiB over-allocation
	 * (its end lies beyond p + len whatever the alignment), so it must
	 * have gone back; nothing else was mapped since. */
	assert_int_equal(mincore(p + len, page(), &v), -1);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal((uintptr_t)p % (2 * MIB), 0);
	assert_resident(p, len);
	assert_zero(p, len);
	/* The advice is on the region itself ("hg" in VmFlags), and the
	 * mapping is the region alone: the 2 MiB of over-allocation went
	 * back (a region with "hg" does not merge with plain neighbours). */
	if (thp) {
		char flags[512];

		assert_int_equal(region_info(p, flags, sizeof(flags)),
				 len / 1024);
		assert_non_null(strstr(flags, " hg"));
	}
	memset(p, 0x5a, len);
	/* Parts as the ring entries own them: each unmaps on its own, and
	 * the rest stays usable and intact */
	for (size_t off = 0; off + MIB <= len; off += MIB) {
		assert_int_equal((unsigned char)p[len - 1], 0x5a);
		assert_int_equal(munmap(p + off, MIB), 0);
	}
	assert_int_equal(munmap(p + 8 * MIB, 4 * page()), 0);
	/* nothing of it is left mapped */
	assert_int_equal(mincore(p, page(), &v), -1);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mincore(p + len - page(), page(), &v), -1);
	assert_int_equal(errno, ENOMEM);
}

/* no page resident in [p, p + len) */
static void assert_absent(char *p, size_t len)
{
	size_t n = len / page();
	unsigned char *vec = malloc(n);

	assert_non_null(vec);
	assert_int_equal(mincore(p, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		if (vec[i] & 1)
			fail_msg("page %zu of %zu is resident", i, n);
	free(vec);
}

/* The memory of an offline CPU's queue: mapped, aligned and advised as
 * any, but nothing resident until used; then zeroed like the rest. */
static void test_lazy_region(void **state)
{
	size_t len = 4 * MIB;
	char *p = buf_map(len, false);
	char *q = buf_map(16 * page(), false);

	(void)state;
	assert_non_null(p);
	assert_non_null(q);
	assert_int_equal((uintptr_t)p % (2 * MIB), 0);
	assert_absent(p, len);
	assert_absent(q, 16 * page());
	assert_zero(p + 3 * MIB, page());
	p[MIB] = 1;
	assert_resident(p + MIB, page());
	assert_int_equal(munmap(p, len), 0);
	assert_int_equal(munmap(q, 16 * page()), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_region),
		cmocka_unit_test(test_large_region),
		cmocka_unit_test(test_lazy_region),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
