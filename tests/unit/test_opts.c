/* SPDX-License-Identifier: MIT */
/* Option parsing: fring_config_set() and fring_config_parse(). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static fring_config_t *cfg;
static unsigned nlog;
static char lastlog[1024];

static void sink(enum fring_log_level lvl, const char *line, void *data)
{
	(void)lvl;
	(void)data;
	nlog++;
	snprintf(lastlog, sizeof(lastlog), "%s", line);
}

static int setup(void **state)
{
	(void)state;
	fring_set_log(sink, NULL, FRING_LOG_DEBUG);
	nlog = 0;
	lastlog[0] = '\0';
	cfg = fring_config_new();
	return cfg ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fring_config_free(cfg);
	fring_set_log(NULL, NULL, FRING_LOG_INFO);
	return 0;
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(cfg->transport, FRING_TRANSPORT_AUTO);
	assert_int_equal(cfg->queues, 0);
	assert_int_equal(cfg->max_write, 1u << 20);
	assert_int_equal(cfg->max_read, 0);
	assert_int_equal(cfg->max_readahead, 0);
	assert_int_equal(cfg->max_async, 256);
	assert_int_equal(cfg->max_background, 256);
	assert_int_equal(cfg->congestion_threshold, 0);
	assert_int_equal(cfg->queue_depth, 8);
	assert_int_equal(cfg->threads, 0);
	assert_false(cfg->allow_other);
	assert_false(cfg->default_permissions);
	assert_false(cfg->ro);
	assert_false(cfg->debug);
	assert_false(cfg->dev);
	assert_false(cfg->suid);
	assert_string_equal(cfg->fsname, "");
	assert_string_equal(cfg->subtype, "");
	fring_config_free(NULL); /* harmless */
}

static void test_transport(void **state)
{
	static const struct {
		const char *name;
		enum fring_transport t;
	} names[] = {
		{"auto", FRING_TRANSPORT_AUTO},
		{"zerocopy", FRING_TRANSPORT_ZEROCOPY},
		{"bufpool-registered", FRING_TRANSPORT_BUFPOOL_REGISTERED},
		{"bufpool", FRING_TRANSPORT_BUFPOOL},
		{"uring", FRING_TRANSPORT_URING},
		{"dev", FRING_TRANSPORT_DEV},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		cfg->transport = FRING_TRANSPORT_AUTO;
		assert_int_equal(
			fring_config_set(cfg, "transport", names[i].name), 0);
		assert_int_equal(cfg->transport, names[i].t);
		assert_string_equal(fring_transport_name(names[i].t),
				    names[i].name);
	}
	cfg->transport = FRING_TRANSPORT_DEV;
	assert_int_equal(fring_config_set(cfg, "transport", "ring"), -EINVAL);
	assert_int_equal(fring_config_set(cfg, "transport", "DEV"), -EINVAL);
	assert_int_equal(fring_config_set(cfg, "transport", ""), -EINVAL);
	assert_int_equal(fring_config_set(cfg, "transport", NULL), -EINVAL);
	assert_int_equal(cfg->transport, FRING_TRANSPORT_DEV);
	assert_true(nlog > 0);
	assert_string_equal(fring_transport_name((enum fring_transport)6), "?");
	assert_string_equal(fring_transport_name((enum fring_transport) - 1),
			    "?");
}

struct num_case {
	const char *key;
	unsigned min, max;
	size_t off;
};

#define NUM(key, min, max)                                                     \
	{                                                                      \
#key, min, max, offsetof(struct fring_config, key)             \
	}

static const struct num_case nums[] = {
	NUM(queues, 1, 4096),
	NUM(max_write, 4096, 16u << 20),
	NUM(max_read, 4096, UINT_MAX),
	NUM(max_readahead, 0, UINT_MAX),
	NUM(max_async, 1, 65536),
	NUM(queue_depth, 1, 1024),
	NUM(threads, 1, 4096),
	NUM(request_timeout, 0, 65535),
	NUM(inline_max, 0, UINT_MAX),
	NUM(max_background, 0, 65535),
	NUM(congestion_threshold, 0, 65535),
};

static unsigned field(size_t off)
{
	return *(unsigned *)((char *)cfg + off);
}

static void test_numbers(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		const struct num_case *n = &nums[i];
		char buf[64];
		unsigned before;

		snprintf(buf, sizeof(buf), "%u", n->min);
		assert_int_equal(fring_config_set(cfg, n->key, buf), 0);
		assert_int_equal(field(n->off), n->min);
		snprintf(buf, sizeof(buf), "%u", n->max);
		assert_int_equal(fring_config_set(cfg, n->key, buf), 0);
		assert_int_equal(field(n->off), n->max);
		before = field(n->off);
		if (n->min > 0) {
			snprintf(buf, sizeof(buf), "%u", n->min - 1);
			assert_int_equal(fring_config_set(cfg, n->key, buf),
					 -EINVAL);
		}
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)n->max + 1);
		assert_int_equal(fring_config_set(cfg, n->key, buf), -EINVAL);
		/* not numbers */
		assert_int_equal(fring_config_set(cfg, n->key, NULL), -EINVAL);
		assert_int_equal(fring_config_set(cfg, n->key, ""), -EINVAL);
		assert_int_equal(fring_config_set(cfg, n->key, "-1"), -EINVAL);
		assert_int_equal(fring_config_set(cfg, n->key, "12abc"),
				 -EINVAL);
		assert_int_equal(fring_config_set(cfg, n->key, "abc"), -EINVAL);
		assert_int_equal(fring_config_set(cfg, n->key, "4096 "),
				 -EINVAL);
		assert_int_equal(fring_config_set(cfg, n->key,
						  "99999999999999999999999"),
				 -EINVAL);
		/* a refused value leaves the old one */
		assert_int_equal(field(n->off), before);
	}
	/* the max_write bounds by name: 4 KiB to 16 MiB */
	assert_int_equal(fring_config_set(cfg, "max_write", "4095"), -EINVAL);
	assert_int_equal(fring_config_set(cfg, "max_write", "4096"), 0);
	assert_int_equal(fring_config_set(cfg, "max_write", "16777216"), 0);
	assert_int_equal(cfg->max_write, 16u << 20);
	assert_int_equal(fring_config_set(cfg, "max_write", "16777217"),
			 -EINVAL);
	assert_int_equal(fring_config_set(cfg, "queues", "0"), -EINVAL);
	assert_int_equal(fring_config_set(cfg, "queues", "4097"), -EINVAL);
	/* strtoul's bases */
	assert_int_equal(fring_config_set(cfg, "max_write", "0x10000"), 0);
	assert_int_equal(cfg->max_write, 0x10000);
}

static void test_flags(void **state)
{
	(void)state;
	assert_int_equal(fring_config_set(cfg, "allow_other", NULL), 0);
	assert_true(cfg->allow_other);
	assert_int_equal(fring_config_set(cfg, "default_permissions", NULL), 0);
	assert_true(cfg->default_permissions);
	assert_int_equal(fring_config_set(cfg, "no_default_permissions", NULL),
			 0);
	assert_false(cfg->default_permissions);
	assert_int_equal(fring_config_set(cfg, "ro", NULL), 0);
	assert_true(cfg->ro);
	assert_int_equal(fring_config_set(cfg, "rw", NULL), 0);
	assert_false(cfg->ro);
	assert_int_equal(fring_config_set(cfg, "debug", NULL), 0);
	assert_true(cfg->debug);
	assert_int_equal(fring_config_set(cfg, "dev", NULL), 0);
	assert_true(cfg->dev);
	assert_int_equal(fring_config_set(cfg, "suid", NULL), 0);
	assert_true(cfg->suid);
	assert_false(cfg->splice_read || cfg->splice_write || cfg->splice_move);
	assert_int_equal(fring_config_parse(cfg, "splice_read,splice_write,"
						 "splice_move"),
			 0);
	assert_true(cfg->splice_read && cfg->splice_write && cfg->splice_move);

	/* flags take no value, not even an empty one */
	static const char *const flags[] = {"allow_other",
					    "default_permissions",
					    "no_default_permissions",
					    "ro",
					    "rw",
					    "debug",
					    "dev",
					    "suid",
					    "splice_read",
					    "splice_write",
					    "splice_move"};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		assert_int_equal(fring_config_set(cfg, flags[i], "1"), -EINVAL);
		assert_int_equal(fring_config_set(cfg, flags[i], ""), -EINVAL);
	}
	/* and the refused ones changed nothing */
	assert_true(cfg->allow_other);
	assert_false(cfg->default_permissions);
	assert_false(cfg->ro);
}

static void test_names(void **state)
{
	static const char *const keys[] = {"fsname", "subtype"};
	char longest[256], too_long[257];

	(void)state;
	memset(longest, 'a', 255);
	longest[255] = '\0';
	memset(too_long, 'b', 256);
	too_long[256] = '\0';
	for (int i = 0; i < 2; i++) {
		char *dst = i ? cfg->subtype : cfg->fsname;

		assert_int_equal(fring_config_set(cfg, keys[i], "myfs"), 0);
		assert_string_equal(dst, "myfs");
		assert_int_equal(fring_config_set(cfg, keys[i], longest), 0);
		assert_string_equal(dst, longest);
		assert_int_equal(fring_config_set(cfg, keys[i], too_long),
				 -EINVAL);
		assert_int_equal(fring_config_set(cfg, keys[i], "a,b"),
				 -EINVAL);
		assert_int_equal(fring_config_set(cfg, keys[i], "a b"),
				 -EINVAL);
		assert_int_equal(fring_config_set(cfg, keys[i], "a\tb"),
				 -EINVAL);
		assert_int_equal(fring_config_set(cfg, keys[i], "a\nb"),
				 -EINVAL);
		assert_int_equal(fring_config_set(cfg, keys[i], ""), -EINVAL);
		assert_int_equal(fring_config_set(cfg, keys[i], NULL), -EINVAL);
		assert_string_equal(dst, longest);
	}
}

static void test_unknown_and_bad_args(void **state)
{
	(void)state;
	assert_int_equal(fring_config_set(cfg, "bogus", NULL), -ENOENT);
	assert_int_equal(fring_config_set(cfg, "bogus", "1"), -ENOENT);
	assert_int_equal(fring_config_set(cfg, "", NULL), -ENOENT);
	assert_int_equal(fring_config_set(cfg, "Debug", NULL), -ENOENT);
	assert_int_equal(fring_config_set(cfg, "debug ", NULL), -ENOENT);
	assert_int_equal(fring_config_set(NULL, "debug", NULL), -EINVAL);
	assert_int_equal(fring_config_set(cfg, NULL, NULL), -EINVAL);
	assert_int_equal(fring_config_parse(NULL, "debug"), -EINVAL);
	assert_int_equal(fring_config_parse(cfg, NULL), -EINVAL);
}

static void test_parse(void **state)
{
	(void)state;
	assert_int_equal(fring_config_parse(
				 cfg, "transport=dev,queues=3,max_write=65536,"
				      "allow_other,ro,fsname=src,"
				      "subtype=memfs,max_readahead=0,"
				      "max_async=10,max_read=8192"),
			 0);
	assert_int_equal(cfg->transport, FRING_TRANSPORT_DEV);
	assert_int_equal(cfg->queues, 3);
	assert_int_equal(cfg->max_write, 65536);
	assert_true(cfg->allow_other);
	assert_true(cfg->ro);
	assert_string_equal(cfg->fsname, "src");
	assert_string_equal(cfg->subtype, "memfs");
	assert_int_equal(cfg->max_readahead, 0);
	assert_int_equal(cfg->max_async, 10);
	assert_int_equal(cfg->max_read, 8192);
	/* empty strings and empty items are nothing */
	assert_int_equal(fring_config_parse(cfg, ""), 0);
	assert_int_equal(fring_config_parse(cfg, ",,debug,,"), 0);
	assert_true(cfg->debug);
	/* the last value wins */
	assert_int_equal(fring_config_parse(cfg, "queues=1,queues=2"), 0);
	assert_int_equal(cfg->queues, 2);
	/* a value with '=' in it: split at the first */
	assert_int_equal(fring_config_parse(cfg, "fsname=a=b"), 0);
	assert_string_equal(cfg->fsname, "a=b");
}

static void test_parse_stops_at_first_error(void **state)
{
	(void)state;
	nlog = 0;
	assert_int_equal(fring_config_parse(cfg, "ro,bogus,debug"), -ENOENT);
	assert_true(cfg->ro);
	assert_false(cfg->debug);
	assert_true(nlog > 0);
	assert_non_null(strstr(lastlog, "bogus"));
	assert_int_equal(fring_config_parse(cfg, "queues=0,debug"), -EINVAL);
	assert_false(cfg->debug);
	/* a comma inside fsname splits it: the rest is an unknown key */
	assert_int_equal(fring_config_parse(cfg, "fsname=a,b"), -ENOENT);
	assert_string_equal(cfg->fsname, "a");
	/* an empty value is not "no value" */
	assert_int_equal(fring_config_parse(cfg, "debug="), -EINVAL);
	assert_int_equal(fring_config_parse(cfg, "queues="), -EINVAL);
}

static void test_help(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	fring_config_help(f);
	fclose(f);
	/* every key the parser takes is in the help */
	static const char *const keys[] = {
		"transport=",
		"queues=",
		"max_write=",
		"max_read=",
		"max_readahead=",
		"max_async=",
		"max_background=",
		"congestion_threshold=",
		"queue_depth=",
		"inline_max=",
		"threads=",
		"allow_other",
		"default_permissions",
		"no_default_permissions",
		"ro",
		"fsname=",
		"subtype=",
		"debug",
		"dev",
		"suid",
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strstr(text, keys[i]))
			fail_msg("--help does not mention %s", keys[i]);
	free(text);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_defaults), T(test_transport),
		T(test_numbers),  T(test_flags),
		T(test_names),	  T(test_unknown_and_bad_args),
		T(test_parse),	  T(test_parse_stops_at_first_error),
		T(test_help),
	};

	return cmocka_run_group_tests_name("opts", tests, NULL, NULL);
}
