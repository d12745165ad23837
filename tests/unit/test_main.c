/* SPDX-License-Identifier: MIT */
/*
 * A program's option table (fring_opt_set(), fring_opt_help()) and
 * fring_main_opts() / fring_main_info() up to the check hook, which stops
 * every run before anything is mounted (no root, no /dev/fuse).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

static unsigned nlog;
static char lastlog[1024];

static void sink(enum fring_log_level lvl, const char *line, void *data)
{
	(void)lvl;
	(void)data;
	nlog++;
	snprintf(lastlog, sizeof(lastlog), "%s", line);
}

enum color { RED, GREEN, BLUE };

struct conf {
	bool flag;
	unsigned num;
	uint64_t size;
	double secs;
	mode_t mode;
	char *text;
	enum color color;
	int even; /* custom */
	unsigned checked;
};

static const char *const colors[] = {"red", "green", "blue", NULL};

static const char *even_parse(void *conf, void *field, const char *value)
{
	char *end;
	long v;

	(void)conf;
	if (!value)
		return "needs a number";
	v = strtol(value, &end, 10);
	if (*end || v % 2)
		return "not an even number";
	*(int *)field = (int)v;
	return NULL;
}

/* refuses 13 after the library stored it */
static const char *not13(void *conf, void *field, const char *value)
{
	(void)value;
	assert_ptr_equal(field, &((struct conf *)conf)->checked);
	return *(unsigned *)field == 13 ? "unlucky" : NULL;
}

static const char *no_x(void *conf, void *field, const char *value)
{
	(void)conf;
	(void)value;
	return strchr(*(char **)field, 'x') ? "has an x" : NULL;
}

#define O(f) offsetof(struct conf, f)
static const struct fring_opt table[] = {
	{.name = "flag",
	 .type = FRING_OPT_FLAG,
	 .offset = O(flag),
	 .help = "a flag"},
	{.name = "num",
	 .type = FRING_OPT_UINT,
	 .offset = O(num),
	 .min = 1,
	 .max = 65535,
	 .help = "pages\nsecond line"},
	{.name = "size",
	 .type = FRING_OPT_SIZE,
	 .offset = O(size),
	 .max = 1ULL << 40},
	{.name = "secs",
	 .type = FRING_OPT_SECONDS,
	 .offset = O(secs),
	 .help = "seconds"},
	{.name = "mode", .type = FRING_OPT_MODE, .offset = O(mode)},
	{.name = "text",
	 .type = FRING_OPT_STRING,
	 .offset = O(text),
	 .arg = "WORD",
	 .check = no_x},
	{.name = "color",
	 .type = FRING_OPT_ENUM,
	 .offset = O(color),
	 .names = colors,
	 .help = "a color"},
	{.name = "even",
	 .type = FRING_OPT_CUSTOM,
	 .offset = O(even),
	 .check = even_parse},
	{.name = "checked",
	 .type = FRING_OPT_UINT,
	 .offset = O(checked),
	 .check = not13},
	{.name = "a_very_long_option_name",
	 .type = FRING_OPT_UINT,
	 .offset = O(num),
	 .help = "long"},
	{.name = NULL},
};

static struct conf c;

static int setup(void **state)
{
	(void)state;
	memset(&c, 0, sizeof(c));
	nlog = 0;
	lastlog[0] = '\0';
	fring_set_log(sink, NULL, FRING_LOG_DEBUG);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(c.text);
	fring_set_log(NULL, NULL, FRING_LOG_INFO);
	return 0;
}

/* set(key, value) must fail -EINVAL saying exactly msg, c unchanged */
static void refused(const char *key, const char *value, const char *msg)
{
	struct conf before = c;

	nlog = 0;
	assert_int_equal(fring_opt_set(table, &c, key, value), -EINVAL);
	assert_int_equal(nlog, 1);
	assert_string_equal(lastlog, msg);
	assert_memory_equal(&before, &c, sizeof(c));
}

static void test_types(void **state)
{
	(void)state;
	assert_int_equal(fring_opt_set(table, &c, "flag", NULL), 0);
	assert_true(c.flag);
	assert_int_equal(fring_opt_set(table, &c, "flag", "0"), 0);
	assert_false(c.flag);
	assert_int_equal(fring_opt_set(table, &c, "flag", "1"), 0);
	assert_true(c.flag);
	refused("flag", "2", "option flag: '2' is not 0 or 1 (nothing is 1)");
	refused("flag", "", "option flag: '' is not 0 or 1 (nothing is 1)");

	assert_int_equal(fring_opt_set(table, &c, "num", "65535"), 0);
	assert_int_equal(c.num, 65535);
	assert_int_equal(fring_opt_set(table, &c, "num", "1"), 0);
	assert_int_equal(c.num, 1);
	refused("num", "0", "option num: '0' is not a number from 1 to 65535");
	refused("num", "65536",
		"option num: '65536' is not a number from 1 to 65535");
	refused("num", "-1",
		"option num: '-1' is not a number from 1 to 65535");
	refused("num", "0x10",
		"option num: '0x10' is not a number from 1 to 65535");
	refused("num", " 5",
		"option num: ' 5' is not a number from 1 to 65535");
	refused("num", NULL,
		"option num needs a value: a number from 1 to 65535");
	/* max 0: the type's largest */
	assert_int_equal(fring_opt_set(table, &c, "checked", "4294967295"), 0);
	assert_int_equal(c.checked, UINT_MAX);
	refused("checked", "4294967296",
		"option checked: '4294967296' is not a number from 0 to "
		"4294967295");
	refused("checked", "99999999999999999999999",
		"option checked: '99999999999999999999999' is not a number "
		"from 0 to 4294967295");

	assert_int_equal(fring_opt_set(table, &c, "size", "123"), 0);
	assert_int_equal(c.size, 123);
	assert_int_equal(fring_opt_set(table, &c, "size", "4k"), 0);
	assert_int_equal(c.size, 4096);
	assert_int_equal(fring_opt_set(table, &c, "size", "3M"), 0);
	assert_int_equal(c.size, 3 << 20);
	assert_int_equal(fring_opt_set(table, &c, "size", "1t"), 0);
	assert_int_equal(c.size, 1ULL << 40);
	refused("size", "2t",
		"option size: '2t' is not a size from 0 to 1099511627776 "
		"bytes: a number with an optional k, m, g, t, p or e suffix "
		"(powers of 1024)");
	refused("size", "1q",
		"option size: '1q' is not a size from 0 to 1099511627776 "
		"bytes: a number with an optional k, m, g, t, p or e suffix "
		"(powers of 1024)");
	refused("size", "k",
		"option size: 'k' is not a size from 0 to 1099511627776 "
		"bytes: a number with an optional k, m, g, t, p or e suffix "
		"(powers of 1024)");
	refused("size", NULL,
		"option size needs a size from 0 to 1099511627776 "
		"bytes: a number with an optional k, m, g, t, p or e suffix "
		"(powers of 1024)");

	assert_int_equal(fring_opt_set(table, &c, "secs", "0.25"), 0);
	assert_true(c.secs == 0.25);
	assert_int_equal(fring_opt_set(table, &c, "secs", "3600"), 0);
	assert_true(c.secs == 3600);
	refused("secs", "-1",
		"option secs: '-1' is not a number of seconds, 0 or more");
	refused("secs", "inf",
		"option secs: 'inf' is not a number of seconds, 0 or more");
	refused("secs", "nan",
		"option secs: 'nan' is not a number of seconds, 0 or more");
	refused("secs", "1s",
		"option secs: '1s' is not a number of seconds, 0 or more");
	refused("secs", NULL,
		"option secs needs a number of seconds, 0 or more");

	assert_int_equal(fring_opt_set(table, &c, "mode", "1777"), 0);
	assert_int_equal(c.mode, 01777);
	assert_int_equal(fring_opt_set(table, &c, "mode", "0644"), 0);
	assert_int_equal(c.mode, 0644);
	refused("mode", "9",
		"option mode: '9' is not an octal mode from 0 to 7777");
	refused("mode", "17777",
		"option mode: '17777' is not an octal mode from 0 to 7777");

	assert_int_equal(fring_opt_set(table, &c, "text", "one"), 0);
	assert_string_equal(c.text, "one");
	assert_int_equal(fring_opt_set(table, &c, "text", "two"), 0);
	assert_string_equal(c.text, "two"); /* "one" freed (ASan: no leak) */
	refused("text", "", "option text needs a value");
	refused("text", NULL, "option text needs a value");
	/* refused by the check: the copy freed, "two" back */
	refused("text", "xyz", "option text: 'xyz': has an x");
	assert_string_equal(c.text, "two");

	assert_int_equal(fring_opt_set(table, &c, "color", "blue"), 0);
	assert_int_equal(c.color, BLUE);
	assert_int_equal(fring_opt_set(table, &c, "color", "red"), 0);
	assert_int_equal(c.color, RED);
	refused("color", "bogus",
		"option color: 'bogus' is not one of: red, green, blue");
	refused("color", "Red",
		"option color: 'Red' is not one of: red, green, blue");
	refused("color", NULL,
		"option color needs a value, one of: red, green, blue");

	assert_int_equal(fring_opt_set(table, &c, "even", "42"), 0);
	assert_int_equal(c.even, 42);
	refused("even", "3", "option even: '3': not an even number");
	refused("even", NULL, "option even: needs a number");

	/* the check after the store: refused, the old value back */
	assert_int_equal(fring_opt_set(table, &c, "checked", "12"), 0);
	refused("checked", "13", "option checked: '13': unlucky");
	assert_int_equal(c.checked, 12);

	/* not in the table: nothing said */
	nlog = 0;
	assert_int_equal(fring_opt_set(table, &c, "nope", "1"), -ENOENT);
	assert_int_equal(fring_opt_set(table, &c, "", NULL), -ENOENT);
	assert_int_equal(nlog, 0);
	assert_int_equal(fring_opt_set(NULL, &c, "flag", NULL), -EINVAL);
	assert_int_equal(fring_opt_set(table, &c, NULL, NULL), -EINVAL);
}

/* Tables a program got wrong are refused, not followed. */
static void test_bad_tables(void **state)
{
	static const struct fring_opt bad[] = {
		{.name = "enum_without_names", .type = FRING_OPT_ENUM},
		{.name = "custom_without_check", .type = FRING_OPT_CUSTOM},
		{.name = "no_type"},
		{.name = "bad_type", .type = (enum fring_opt_type)99},
		{.name = NULL},
	};

	(void)state;
	for (const struct fring_opt *o = bad; o->name; o++) {
		nlog = 0;
		assert_int_equal(fring_opt_set(bad, &c, o->name, "1"), -EINVAL);
		assert_int_equal(nlog, 1);
		assert_non_null(strstr(lastlog, "no valid entry"));
	}
	assert_int_equal(fring_opt_set(table, NULL, "flag", NULL), -EINVAL);
	assert_non_null(strstr(lastlog, "no structure"));
}

static void test_help(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	fring_opt_help(table, f);
	fring_opt_help(NULL, f);
	fclose(f);
	assert_string_equal(buf, "    flag[=0|1]             a flag\n"
				 "    num=N                  pages\n"
				 "                           second line\n"
				 "    size=SIZE\n"
				 "    secs=S                 seconds\n"
				 "    mode=OCTAL\n"
				 "    text=WORD\n"
				 "    color=red|green|blue   a color\n"
				 "    even=N\n"
				 "    checked=N\n"
				 "    a_very_long_option_name=N\n"
				 "                           long\n");
	free(buf);
}

/* ---- fring_main_opts() and fring_main_info() ---- */

struct seen {
	unsigned opts, args, checks;
	struct fring_main_info at_opt, at_arg, at_check;
	bool mnt_null_at_opt;
	char arg[64];
};
static struct seen seen;

static int h_opt(void *ud, const char *key, const char *value)
{
	(void)value;
	assert_ptr_equal(ud, &seen);
	if (strcmp(key, "hookopt"))
		return -ENOENT;
	seen.opts++;
	seen.at_opt = *fring_main_info();
	return 0;
}

static int h_arg(void *ud, const char *arg)
{
	(void)ud;
	seen.args++;
	seen.at_arg = *fring_main_info();
	snprintf(seen.arg, sizeof(seen.arg), "%s", arg);
	return 0;
}

static int h_check(void *ud)
{
	(void)ud;
	seen.checks++;
	seen.at_check = *fring_main_info();
	return -ECANCELED; /* never mount */
}

static const struct fring_main_hooks hooks = {
	.opt = h_opt,
	.arg = h_arg,
	.check = h_check,
	.usage = "hook usage text",
};

static int run(int argc, char **argv)
{
	memset(&seen, 0, sizeof(seen));
	return fring_main_opts(argc, argv, NULL, 0, &seen, &hooks, table, &c);
}

static void test_main_info(void **state)
{
	char *argv[] = {"/usr/bin/prog",
			"-o",
			"hookopt,num=7",
			"-f",
			"-o",
			"color=green,flag",
			"--stats-file=/tmp/s.json",
			"SRC",
			"/mnt/x",
			NULL};
	char *argv_d[] = {"prog", "-o", "hookopt", "-d", "/m", NULL};
	char *argv_odebug[] = {"prog", "-o", "debug", "/m", NULL};

	(void)state;
	assert_null(fring_main_info());
	assert_int_equal(run(9, argv), 1); /* the check stopped it */
	assert_null(fring_main_info());
	assert_int_equal(c.num, 7);
	assert_int_equal(c.color, GREEN);
	assert_true(c.flag);
	assert_int_equal(seen.opts, 1);
	assert_int_equal(seen.args, 1);
	assert_int_equal(seen.checks, 1);
	assert_string_equal(seen.arg, "SRC");
	/* the opt hook ran before -f and before the mountpoint was read */
	assert_string_equal(seen.at_opt.progname, "/usr/bin/prog");
	assert_null(seen.at_opt.mountpoint);
	assert_int_equal(seen.at_opt.foreground, 0);
	/* the arg hook: -f and the stats file read, no mountpoint yet */
	assert_null(seen.at_arg.mountpoint);
	assert_int_equal(seen.at_arg.foreground, 1);
	assert_string_equal(seen.at_arg.stats_file, "/tmp/s.json");
	/* the check hook: all of it */
	assert_string_equal(seen.at_check.mountpoint, "/mnt/x");
	assert_string_equal(seen.at_check.stats_file, "/tmp/s.json");
	assert_int_equal(seen.at_check.foreground, 1);
	assert_int_equal(seen.at_check.debug, 0);
	assert_int_equal(seen.at_check.daemonized, 0);

	assert_int_equal(run(5, argv_d), 1);
	assert_int_equal(seen.at_opt.foreground, 0);
	assert_string_equal(seen.at_check.mountpoint, "/m");
	assert_null(seen.at_check.stats_file);
	assert_int_equal(seen.at_check.foreground, 1);
	assert_int_equal(seen.at_check.debug, 1);

	assert_int_equal(run(4, argv_odebug), 1);
	assert_int_equal(seen.at_check.foreground, 0);
	assert_int_equal(seen.at_check.debug, 1);
	assert_null(fring_main_info());
}

/* A refused value of the table stops before the check with the reason. */
static void test_main_refused(void **state)
{
	char *argv[] = {"prog", "-o", "color=bogus", "/m", NULL};
	char *unknown[] = {"prog", "-o", "nosuch=1", "/m", NULL};

	(void)state;
	assert_int_equal(run(4, argv), 1);
	assert_int_equal(seen.checks, 0);
	assert_string_equal(lastlog,
			    "option color: 'bogus' is not one of: red, green, "
			    "blue");
	/* in neither the library, the table nor the hook */
	assert_int_equal(run(4, unknown), 1);
	assert_int_equal(seen.checks, 0);
}

/* --help: the library's options, then the table under the program's
 * name, then the hooks' usage text; exit status 0, nothing parsed. */
static void test_main_help(void **state)
{
	char *argv[] = {"/usr/bin/prog", "--help", NULL};
	char tmpl[] = "/tmp/fring-test-help.XXXXXX", got[16384];
	int fd = mkstemp(tmpl), saved = dup(1);
	const char *lib, *tab, *hook;
	ssize_t n;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	unlink(tmpl);
	fflush(stdout);
	assert_int_equal(dup2(fd, 1), 1);
	assert_int_equal(run(2, argv), 0);
	fflush(stdout);
	assert_int_equal(dup2(saved, 1), 1);
	close(saved);
	n = pread(fd, got, sizeof(got) - 1, 0);
	close(fd);
	assert_true(n > 0);
	got[n] = '\0';
	assert_int_equal(seen.checks, 0);
	lib = strstr(got, "libfring options (-o opt[,opt...]):");
	tab = strstr(got, "\nprog options (-o opt[,opt...]):\n"
			  "    flag[=0|1]             a flag\n");
	hook = strstr(got, "\nhook usage text\n");
	assert_non_null(lib);
	assert_non_null(tab);
	assert_non_null(hook);
	assert_true(lib < tab && tab < hook);
	assert_non_null(strstr(tab, "    color=red|green|blue   a color\n"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_types),	   T(test_bad_tables),	 T(test_help),
		T(test_main_info), T(test_main_refused), T(test_main_help),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
