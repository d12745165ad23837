/* SPDX-License-Identifier: MIT */
/*
 * libfring-fuse3's fuse_opt_* and fuse_log*, compiled in directly.
 *
 * Unless a comment says otherwise, every expected value here (output
 * arguments, the processing function's calls, stored values, messages) was
 * observed by running the same input through libfuse 3.18.3: the point of
 * the layer is that a program sees exactly what libfuse would give it.
 *
 * The program is linked with -Wl,--wrap for the allocator, so the calls
 * made by opt.c (and by this file) go through the wrappers below: they
 * count live allocations (a leak shows as a non-zero balance) and can make
 * the n-th allocation fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "fuse_log.h"
#include "fuse_opt.h"

/* ---- allocator wrappers ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void __real_free(void *p);

static long live;	  /* allocations made and not yet freed */
static long fail_at = -1; /* the allocation number that fails, or -1 */
static long nalloc;	  /* allocations attempted since the last reset */

static bool fail_now(void)
{
	return fail_at >= 0 && nalloc++ == fail_at;
}

void *__wrap_malloc(size_t n)
{
	void *p = fail_now() ? NULL : __real_malloc(n);

	live += p != NULL;
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p = fail_now() ? NULL : __real_calloc(n, size);

	live += p != NULL;
	return p;
}

void *__wrap_realloc(void *old, size_t n)
{
	void *p = fail_now() ? NULL : __real_realloc(old, n);

	live += p != NULL && old == NULL;
	return p;
}

char *__wrap_strdup(const char *s)
{
	char *p = fail_now() ? NULL : __real_strdup(s);

	live += p != NULL;
	return p;
}

void __wrap_free(void *p)
{
	live -= p != NULL;
	__real_free(p);
}

/* ---- log capture ---- */

static int nlog;
static enum fuse_log_level lastlevel;
static char lastlog[512];

static void capture_log(enum fuse_log_level level, const char *fmt, va_list ap)
{
	nlog++;
	lastlevel = level;
	vsnprintf(lastlog, sizeof(lastlog), fmt, ap);
}

/* ---- the processing function ---- */

/*
 * Records each call as "key:arg@n", n being the output's argc at the time,
 * and answers by arg: "ERR" fails, "DROP" and "-DROP" drop, "ADD" appends
 * "added" to the output and drops itself, "ADDK" appends "added" and keeps
 * itself, "R2" and "RM2" answer 2 and -2; anything else gets proc_ret.
 */
static char calls[32][128];
static int ncalls;
static int proc_ret;

static int proc(void *data, const char *arg, int key, struct fuse_args *out)
{
	(void)data;
	assert_true(ncalls < 32);
	snprintf(calls[ncalls++], sizeof(calls[0]), "%d:%s@%d", key, arg,
		 out->argc);
	if (!strcmp(arg, "ERR"))
		return -1;
	if (!strcmp(arg, "DROP") || !strcmp(arg, "-DROP"))
		return 0;
	if (!strcmp(arg, "ADD") || !strcmp(arg, "ADDK")) {
		/* a failed append (out of memory) fails the parse */
		if (fuse_opt_add_arg(out, "added") != 0)
			return -1;
		return arg[3] == 'K';
	}
	if (!strcmp(arg, "R2"))
		return 2;
	if (!strcmp(arg, "RM2"))
		return -2;
	return proc_ret;
}

/* ---- the option tables ---- */

struct d {
	int flag, flag2, x;
	unsigned u;
	int i;
	long ld;
	unsigned long lu;
	unsigned long long llu;
	double dbl;
	char *s, *s2;
};

#define O(t, member, v)                                                        \
	{                                                                      \
		t, offsetof(struct d, member), v                               \
	}

static const struct fuse_opt tbl[] = {
	O("foo=%s", s, 0),
	O("bar=%u", u, 0),
	O("-x %s", s2, 0),
	O("-y ", flag2, 7),
	O("flag", flag, 5),
	O("-d", flag, 9),
	O("--long=%lu", lu, 0),
	O("big=%llu", llu, 0),
	O("int=%i", i, 0),
	O("eq=", x, 3),
	O("ld=%ld", ld, 0),
	O("dbl=%lf", dbl, 0),
	O("chr=%c", x, 0),
	O("-n %u", u, 0),
	O("dup", flag, 1),
	O("dup", flag2, 2),
	FUSE_OPT_KEY("kk", 100),
	FUSE_OPT_KEY("-k", 101),
	FUSE_OPT_KEY("kv=", 102),
	FUSE_OPT_KEY("-K ", 103),
	FUSE_OPT_KEY("-K2 %s", 104),
	FUSE_OPT_KEY("keep", FUSE_OPT_KEY_KEEP),
	FUSE_OPT_KEY("disc", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("-keep", FUSE_OPT_KEY_KEEP),
	FUSE_OPT_KEY("-disc", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("dupk", 200),
	FUSE_OPT_KEY("dupk", 201),
	{"kfmt=%u", -1U, 300},
	FUSE_OPT_KEY("ERR", 400),
	FUSE_OPT_KEY("DROP", 401),
	FUSE_OPT_KEY("ADD", 402),
	FUSE_OPT_KEY("ADDK", 403),
	FUSE_OPT_KEY("-DROP", 404),
	/* never match in fuse_opt_parse(): "-o" and "--" are handled first */
	O("-o", x, 1),
	O("--", x, 2),
	FUSE_OPT_END,
};

/* two entries taking a separate parameter each, for the same option */
static const struct fuse_opt tbl_sep[] = {
	O("-a %s", s, 0),	O("-a %s", s2, 0),
	FUSE_OPT_KEY("-b ", 1), FUSE_OPT_KEY("-b %s", 2),
	FUSE_OPT_KEY("-c", 3),	FUSE_OPT_KEY("-c ", 4),
	FUSE_OPT_END,
};

/* templates whose '=' or space is not followed by a format or the end */
static const struct fuse_opt tbl_odd[] = {
	O("t=lit", x, 4),    O("a b=%s", s, 0), O("c=d %s", s2, 0),
	FUSE_OPT_KEY("", 9), FUSE_OPT_END,
};

/* ---- helpers ---- */

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

static struct d data;
static struct fuse_args args;
static char *in[64];

static int setup(void **state)
{
	(void)state;
	memset(&data, 0, sizeof(data));
	memset(&args, 0, sizeof(args));
	ncalls = 0;
	proc_ret = 1;
	nlog = 0;
	lastlog[0] = '\0';
	fail_at = -1;
	nalloc = 0;
	live = 0;
	fuse_set_log_func(capture_log);
	return 0;
}

/* Everything opt.c handed out has been given back by now. */
static int teardown(void **state)
{
	(void)state;
	fuse_opt_free_args(&args);
	free(data.s);
	free(data.s2);
	data.s = data.s2 = NULL;
	fuse_set_log_func(NULL);
	assert_int_equal(live, 0);
	return 0;
}

/* Parses argv (as the caller's own, unallocated vector) into args. */
static int parse(const struct fuse_opt *opts, bool with_proc,
		 const char *const *argv)
{
	int argc = 0;

	fuse_opt_free_args(&args);
	while (argv[argc]) {
		in[argc] = (char *)argv[argc];
		argc++;
	}
	in[argc] = NULL;
	args.argc = argc;
	args.argv = in;
	args.allocated = 0;
	ncalls = 0;
	return fuse_opt_parse(&args, &data, opts, with_proc ? proc : NULL);
}

static void expect_args(const struct fuse_args *a, const char *const *want)
{
	int n = 0;

	while (want[n])
		n++;
	assert_int_equal(a->argc, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(a->argv[i], want[i]);
	assert_null(a->argv[n]);
}

static void expect_calls(const char *const *want)
{
	int n = 0;

	while (want[n]) {
		assert_true(n < ncalls);
		assert_string_equal(calls[n], want[n]);
		n++;
	}
	assert_int_equal(ncalls, n);
}

/* A failed parse leaves the caller's vector as it was. */
static void expect_untouched(int argc)
{
	assert_ptr_equal(args.argv, in);
	assert_int_equal(args.argc, argc);
	assert_int_equal(args.allocated, 0);
}

/* ---- fuse_opt_parse(): the output's layout ---- */

static void test_layout_no_proc(void **state)
{
	(void)state;
	/* "-o" options gathered into one "-o" LIST pair after argv[0], the
	 * others in their order, a "--" kept before what follows it */
	assert_int_equal(parse(NULL, false,
			       ARGV("prog", "-o", "a,b", "-f", "mnt", "-oc",
				    "--", "x", "-y")),
			 0);
	expect_args(&args,
		    ARGV("prog", "-o", "a,b,c", "-f", "mnt", "--", "x", "-y"));
	assert_int_equal(args.allocated, 1);
	assert_ptr_not_equal(args.argv, in);
	assert_ptr_not_equal(args.argv[0], in[0]);
}

static void test_layout_proc_calls(void **state)
{
	(void)state;
	assert_int_equal(parse(NULL, true,
			       ARGV("prog", "-o", "a,b", "-f", "mnt", "-oc",
				    "--", "x", "-y")),
			 0);
	/* "-o" options reach proc without the "-o"; everything after "--"
	 * is a non-option; the "--" is already in the output then */
	expect_calls(ARGV("-1:a@1", "-1:b@1", "-1:-f@1", "-2:mnt@2", "-1:c@3",
			  "-2:x@4", "-2:-y@5"));
	expect_args(&args,
		    ARGV("prog", "-o", "a,b,c", "-f", "mnt", "--", "x", "-y"));

	proc_ret = 0;
	assert_int_equal(parse(NULL, true,
			       ARGV("prog", "-o", "a,b", "-f", "mnt", "-oc",
				    "--", "x", "-y")),
			 0);
	expect_calls(ARGV("-1:a@1", "-1:b@1", "-1:-f@1", "-2:mnt@1", "-1:c@1",
			  "-2:x@2", "-2:-y@2"));
	expect_args(&args, ARGV("prog"));
}

static void test_nonopt_order(void **state)
{
	(void)state;
	/* options and non-options may mix; a lone "-" is an option */
	assert_int_equal(
		parse(NULL, false, ARGV("prog", "mnt", "-f", "-o", "a", "src")),
		0);
	expect_args(&args, ARGV("prog", "-o", "a", "mnt", "-f", "src"));

	assert_int_equal(parse(NULL, true, ARGV("prog", "-", "-o", "a")), 0);
	expect_calls(ARGV("-1:-@1", "-1:a@2"));
	expect_args(&args, ARGV("prog", "-o", "a", "-"));

	/* argv[0] is the program, whatever it looks like */
	assert_int_equal(parse(NULL, false, ARGV("-o", "a")), 0);
	expect_args(&args, ARGV("-o", "a"));
}

static void test_dashdash(void **state)
{
	(void)state;
	/* a "--" with nothing after it goes ... */
	assert_int_equal(parse(NULL, false, ARGV("prog", "--")), 0);
	expect_args(&args, ARGV("prog"));
	assert_int_equal(parse(NULL, false, ARGV("prog", "-f", "--")), 0);
	expect_args(&args, ARGV("prog", "-f"));
	assert_int_equal(parse(NULL, true, ARGV("prog", "x", "--", "DROP")), 0);
	expect_calls(ARGV("-2:x@1", "-2:DROP@3"));
	expect_args(&args, ARGV("prog", "x"));
	/* ... unless there is a "-o" list (libfuse's quirk, kept) */
	assert_int_equal(parse(NULL, false, ARGV("prog", "-o", "a", "--")), 0);
	expect_args(&args, ARGV("prog", "-o", "a", "--"));

	/* after "--" even "--" and "-o" are non-options */
	assert_int_equal(parse(NULL, true, ARGV("prog", "--", "--", "a")), 0);
	expect_calls(ARGV("-2:--@2", "-2:a@3"));
	expect_args(&args, ARGV("prog", "--", "--", "a"));
	assert_int_equal(parse(NULL, false, ARGV("prog", "--", "--")), 0);
	expect_args(&args, ARGV("prog", "--", "--"));
	assert_int_equal(
		parse(tbl, true, ARGV("prog", "a", "--", "-o", "flag", "-d")),
		0);
	expect_calls(ARGV("-2:a@1", "-2:-o@3", "-2:flag@4", "-2:-d@5"));
	expect_args(&args, ARGV("prog", "a", "--", "-o", "flag", "-d"));
	assert_int_equal(data.flag, 0);

	/* what proc adds after the "--" keeps it */
	assert_int_equal(parse(NULL, true, ARGV("prog", "--", "ADD")), 0);
	expect_args(&args, ARGV("prog", "--", "added"));
}

/* ---- "-o" lists ---- */

static void test_o_list_split_escape(void **state)
{
	(void)state;
	/* a backslash makes the next character literal; a trailing one
	 * stays; kept options go back into the list escaped */
	assert_int_equal(
		parse(NULL, true, ARGV("prog", "-o", "a\\,b,c\\\\d,e\\x,f\\")),
		0);
	expect_calls(ARGV("-1:a,b@1", "-1:c\\d@1", "-1:ex@1", "-1:f\\@1"));
	expect_args(&args, ARGV("prog", "-o", "a\\,b,c\\\\d,ex,f\\\\"));

	assert_int_equal(parse(NULL, false, ARGV("prog", "-oa\\", "-o", "b")),
			 0);
	expect_args(&args, ARGV("prog", "-o", "a\\\\,b"));

	/* an escaped comma is part of a value too */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "foo=a\\,b")), 0);
	assert_string_equal(data.s, "a,b");
	expect_args(&args, ARGV("prog"));
}

static void test_o_list_empty_elements(void **state)
{
	(void)state;
	assert_int_equal(parse(NULL, true, ARGV("prog", "-o", "a,,b,")), 0);
	expect_calls(ARGV("-1:a@1", "-1:@1", "-1:b@1", "-1:@1"));
	expect_args(&args, ARGV("prog", "-o", "a,,b,"));

	/* empty options before any other vanish from the rebuilt list */
	assert_int_equal(parse(NULL, true, ARGV("prog", "-o", ",")), 0);
	expect_calls(ARGV("-1:@1", "-1:@1"));
	expect_args(&args, ARGV("prog", "-o", ""));
	assert_int_equal(parse(NULL, true, ARGV("prog", "-o", "")), 0);
	expect_calls(ARGV("-1:@1"));
	expect_args(&args, ARGV("prog", "-o", ""));

	/* an empty template matches an empty option */
	assert_int_equal(parse(tbl_odd, true, ARGV("prog", "-o", ",x", "")), 0);
	expect_calls(ARGV("9:@1", "-1:x@1", "-2:@1"));
	expect_args(&args, ARGV("prog", "-o", "x", ""));

	/* a list nothing kept gives no "-o" */
	proc_ret = 0;
	assert_int_equal(parse(NULL, true, ARGV("prog", "-o", "a")), 0);
	expect_args(&args, ARGV("prog"));
}

static void test_o_list_odd(void **state)
{
	(void)state;
	/* "-o" "-o" is a list holding the option "-o"; so is "-o-o" */
	assert_int_equal(parse(NULL, true, ARGV("prog", "-o", "-o")), 0);
	expect_calls(ARGV("-1:-o@1"));
	expect_args(&args, ARGV("prog", "-o", "-o"));
	assert_int_equal(parse(NULL, true, ARGV("prog", "-o-o")), 0);
	expect_args(&args, ARGV("prog", "-o", "-o"));
	/* a "-o" template never sees a command-line "-o", but does match
	 * that option inside a list */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o-o")), 0);
	expect_calls(ARGV(NULL));
	expect_args(&args, ARGV("prog"));
	assert_int_equal(data.x, 1);

	/* dash templates match inside lists too; spaces are kept */
	assert_int_equal(
		parse(tbl, true, ARGV("prog", "-o", "-d,flag", "-o", " flag")),
		0);
	assert_int_equal(data.flag, 5);
	expect_calls(ARGV("-1: flag@1"));
	expect_args(&args, ARGV("prog", "-o", " flag"));

	/* a list may itself be a dash option's separate parameter */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "-x val")), 0);
	assert_string_equal(data.s2, " val");
}

static void test_o_missing_list(void **state)
{
	(void)state;
	assert_int_equal(parse(NULL, false, ARGV("prog", "-o", "a", "-o")), -1);
	expect_untouched(4);
	assert_int_equal(nlog, 1);
	assert_int_equal(lastlevel, FUSE_LOG_ERR);
	assert_string_equal(lastlog, "fuse: missing argument after `-o'\n");
}

/* ---- templates ---- */

static void test_template_string(void **state)
{
	(void)state;
	assert_int_equal(parse(tbl, true,
			       ARGV("prog", "-o", "foo=hello,bar=42", "-x",
				    "sep", "-xjoined")),
			 0);
	expect_calls(ARGV(NULL));
	expect_args(&args, ARGV("prog"));
	assert_string_equal(data.s, "hello");
	assert_int_equal(data.u, 42);
	/* the second -x replaced (and freed: teardown checks) the first */
	assert_string_equal(data.s2, "joined");

	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "foo=")), 0);
	assert_string_equal(data.s, "");
	assert_int_equal(parse(tbl, true, ARGV("prog", "-x", "")), 0);
	assert_string_equal(data.s2, "");

	/* "foo=%s" wants the '=': plain "foo" is unmatched */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "foo")), 0);
	expect_calls(ARGV("-1:foo@1"));
	expect_args(&args, ARGV("prog", "-o", "foo"));
}

static void test_template_numbers(void **state)
{
	(void)state;
	/* sscanf() rules: trailing junk ignored, -1 wraps, %u reads no 0x,
	 * %i does */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "bar=12abc")), 0);
	assert_int_equal(data.u, 12);
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "bar=-1")), 0);
	assert_int_equal(data.u, 4294967295u);
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "bar=0x10")), 0);
	assert_int_equal(data.u, 0);
	assert_int_equal(
		parse(tbl, true, ARGV("prog", "-o", "int=0x10,ld=-5,dbl=1.5")),
		0);
	assert_int_equal(data.i, 16);
	assert_int_equal(data.ld, -5);
	assert_true(data.dbl == 1.5);
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "int=010")), 0);
	assert_int_equal(data.i, 8);
	assert_int_equal(parse(tbl, true,
			       ARGV("prog", "--long=123456789012", "-o",
				    "big=18446744073709551615")),
			 0);
	assert_true(data.lu == 123456789012ul);
	assert_true(data.llu == 18446744073709551615ull);
	/* "--long=" is no "-o" option but matches inside a list */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "--long=5")), 0);
	assert_true(data.lu == 5);
	/* %c stores one byte */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "chr=xyz")), 0);
	assert_int_equal(data.x, 'x');
	expect_args(&args, ARGV("prog"));
	assert_int_equal(ncalls, 0);
}

static void test_template_invalid(void **state)
{
	(void)state;
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "bar=abc")), -1);
	expect_untouched(3);
	assert_int_equal(lastlevel, FUSE_LOG_ERR);
	assert_string_equal(lastlog,
			    "fuse: invalid parameter in option `bar=abc'\n");

	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "bar=")), -1);
	assert_string_equal(lastlog,
			    "fuse: invalid parameter in option `bar='\n");

	/* a separate parameter is named joined to its option */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-n", "abc")), -1);
	expect_untouched(3);
	assert_string_equal(lastlog,
			    "fuse: invalid parameter in option `-nabc'\n");

	/* a list's option is named unescaped */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "bar=a\\,b")), -1);
	assert_string_equal(lastlog,
			    "fuse: invalid parameter in option `bar=a,b'\n");
	assert_int_equal(nlog, 4);

	/* a missing separate parameter */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-x")), -1);
	expect_untouched(2);
	assert_string_equal(lastlog, "fuse: missing argument after `-x'\n");
	/* also inside a list, where nothing follows */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "-y")), -1);
	assert_string_equal(lastlog, "fuse: missing argument after `-y'\n");
	assert_int_equal(nlog, 6);
}

static void test_template_values(void **state)
{
	(void)state;
	/* a template without format sets its int to the entry's value; the
	 * last match wins; the option is consumed */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "flag", "-d")), 0);
	assert_int_equal(data.flag, 9);
	expect_args(&args, ARGV("prog"));

	/* "eq=" takes any value, but needs its '=' */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "eq=anything,eq")),
			 0);
	assert_int_equal(data.x, 3);
	expect_calls(ARGV("-1:eq@1"));
	expect_args(&args, ARGV("prog", "-o", "eq"));

	/* every matching entry acts */
	data.flag = 0;
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "dup")), 0);
	assert_int_equal(data.flag, 1);
	assert_int_equal(data.flag2, 2);

	/* "-y " takes the next argument, whatever it is */
	data.flag = data.flag2 = 0;
	assert_int_equal(parse(tbl, true, ARGV("prog", "-y", "-d", "-yw")), 0);
	assert_int_equal(data.flag2, 7);
	assert_int_equal(data.flag, 0);
	expect_args(&args, ARGV("prog"));

	/* templates only match themselves, or their prefix before a '=' or
	 * space that ends them or is followed by a format */
	assert_int_equal(parse(tbl, true,
			       ARGV("prog", "-dx", "-d=1", "--longer=1", "flag",
				    "-flag", "-oflag=1")),
			 0);
	expect_calls(ARGV("-1:-dx@1", "-1:-d=1@2", "-1:--longer=1@3",
			  "-2:flag@4", "-1:-flag@5", "-1:flag=1@6"));
	expect_args(&args, ARGV("prog", "-o", "flag=1", "-dx", "-d=1",
				"--longer=1", "flag", "-flag"));
	data.x = 0;
	assert_int_equal(
		parse(tbl_odd, true,
		      ARGV("prog", "-o", "t=lit,t=other,t=,a b=1,c=d v,c=dv")),
		0);
	assert_int_equal(data.x, 4);
	assert_string_equal(data.s, "1");
	assert_null(data.s2);
	expect_calls(
		ARGV("-1:t=other@1", "-1:t=@1", "-1:c=d v@1", "-1:c=dv@1"));
}

/* ---- keys ---- */

static void test_keys(void **state)
{
	(void)state;
	assert_int_equal(parse(tbl, true,
			       ARGV("prog", "-o", "kk,kv=abc", "-k", "-K",
				    "sep", "-Kjoin", "-K2", "v2", "-K2w")),
			 0);
	/* proc gets the option whole, a separate parameter joined; "-K2"
	 * matches "-K " (parameter "2") and "-K2 %s" (parameter "v2") */
	expect_calls(ARGV("100:kk@1", "102:kv=abc@1", "101:-k@1", "103:-Ksep@2",
			  "103:-Kjoin@3", "103:-K2@4", "104:-K2v2@5",
			  "103:-K2w@6", "104:-K2w@7"));
	expect_args(&args, ARGV("prog", "-o", "kk,kv=abc", "-k", "-Ksep",
				"-Kjoin", "-K2", "-K2v2", "-K2w", "-K2w"));

	proc_ret = 0;
	assert_int_equal(
		parse(tbl, true,
		      ARGV("prog", "-o", "kk,kv=abc", "-k", "-K", "sep")),
		0);
	expect_args(&args, ARGV("prog"));

	/* a key with a format: proc gets it, no conversion, no check */
	proc_ret = 1;
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "kfmt=abc")), 0);
	expect_calls(ARGV("300:kfmt=abc@1"));
	expect_args(&args, ARGV("prog", "-o", "kfmt=abc"));
	assert_int_equal(data.u, 0);
}

static void test_keys_keep_discard(void **state)
{
	(void)state;
	/* KEEP and DISCARD never reach proc */
	proc_ret = 0;
	assert_int_equal(parse(tbl, true,
			       ARGV("prog", "-o", "keep,disc,other", "-keep",
				    "-disc", "-z")),
			 0);
	expect_calls(ARGV("-1:other@1", "-1:-z@2"));
	expect_args(&args, ARGV("prog", "-o", "keep", "-keep"));

	/* without proc, everything but DISCARD is kept, once per match */
	assert_int_equal(parse(tbl, false,
			       ARGV("prog", "-o", "keep,disc,other,dupk",
				    "-keep", "-disc", "-z")),
			 0);
	expect_args(&args,
		    ARGV("prog", "-o", "keep,other,dupk,dupk", "-keep", "-z"));

	/* two key entries: two calls, each answer counts */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "dupk")), 0);
	expect_calls(ARGV("200:dupk@1", "201:dupk@1"));
	expect_args(&args, ARGV("prog"));
}

static void test_keys_separate_param(void **state)
{
	(void)state;
	/* each entry wanting a separate parameter takes the next argument */
	assert_int_equal(parse(tbl_sep, true, ARGV("prog", "-a", "v", "w")), 0);
	assert_string_equal(data.s, "v");
	assert_string_equal(data.s2, "w");
	expect_args(&args, ARGV("prog"));

	assert_int_equal(parse(tbl_sep, true, ARGV("prog", "-b", "v", "w")), 0);
	expect_calls(ARGV("1:-bv@1", "2:-bw@2"));
	expect_args(&args, ARGV("prog", "-bv", "-bw"));

	/* inside a list the parameter is the next command-line argument */
	assert_int_equal(parse(tbl_sep, true, ARGV("prog", "-o", "-c", "-cq")),
			 0);
	expect_calls(ARGV("3:-c@1", "4:-c-cq@1"));
	expect_args(&args, ARGV("prog", "-o", "-c,-c-cq"));

	/* entries act in order: proc saw "-c" before the error */
	assert_int_equal(parse(tbl_sep, true, ARGV("prog", "-c")), -1);
	expect_calls(ARGV("3:-c@1"));
	assert_string_equal(lastlog, "fuse: missing argument after `-c'\n");
	expect_untouched(2);

	/* the next argument is taken even if it is "--" or "-o" */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-x", "--", "a")), 0);
	assert_string_equal(data.s2, "--");
	expect_args(&args, ARGV("prog", "a"));
	assert_int_equal(parse(tbl, true, ARGV("prog", "-x", "-o", "flag")), 0);
	assert_string_equal(data.s2, "-o");
	expect_calls(ARGV("-2:flag@1"));
}

/* ---- the processing function's answers ---- */

static void test_proc_error(void **state)
{
	(void)state;
	/* -1 fails the parse, silently (proc reports its own errors) */
	assert_int_equal(parse(tbl, true, ARGV("prog", "-o", "a,ERR,b", "c")),
			 -1);
	expect_calls(ARGV("-1:a@1", "400:ERR@1"));
	expect_untouched(4);
	assert_int_equal(nlog, 0);

	assert_int_equal(parse(NULL, true, ARGV("prog", "ERR")), -1);
	expect_calls(ARGV("-2:ERR@1"));
	expect_untouched(2);
	assert_int_equal(nlog, 0);
}

static void test_proc_answers(void **state)
{
	(void)state;
	/* 0 drops; any value but 0 and -1 keeps */
	assert_int_equal(parse(tbl, true,
			       ARGV("prog", "-o", "a,DROP,b", "-DROP", "c",
				    "R2", "-oR2", "RM2")),
			 0);
	expect_calls(ARGV("-1:a@1", "401:DROP@1", "-1:b@1", "404:-DROP@1",
			  "-2:c@1", "-2:R2@2", "-1:R2@3", "-2:RM2@3"));
	expect_args(&args, ARGV("prog", "-o", "a,b,R2", "c", "R2", "RM2"));
}

static void test_proc_adds_to_output(void **state)
{
	(void)state;
	/* what proc appends lands before the rest; the list still goes
	 * right after argv[0] */
	assert_int_equal(
		parse(tbl, true,
		      ARGV("prog", "-o", "a,ADD,b", "m", "-o", "ADDK")),
		0);
	expect_calls(
		ARGV("-1:a@1", "402:ADD@1", "-1:b@2", "-2:m@2", "403:ADDK@3"));
	expect_args(&args,
		    ARGV("prog", "-o", "a,b,ADDK", "added", "m", "added"));

	assert_int_equal(
		parse(NULL, true,
		      ARGV("prog", "x", "ADD", "y", "--", "ADDK", "z")),
		0);
	expect_calls(
		ARGV("-2:x@1", "-2:ADD@2", "-2:y@3", "-2:ADDK@5", "-2:z@7"));
	expect_args(&args, ARGV("prog", "x", "added", "y", "--", "added",
				"ADDK", "z"));
}

/* ---- degenerate input, reparsing ---- */

static void test_empty_input(void **state)
{
	char *av[] = {"prog", "-o", "a", NULL};
	struct fuse_args a = FUSE_ARGS_INIT(0, NULL);

	(void)state;
	assert_int_equal(fuse_opt_parse(NULL, &data, tbl, proc), 0);
	assert_int_equal(fuse_opt_parse(&a, &data, tbl, proc), 0);
	assert_int_equal(a.argc, 0);
	assert_null(a.argv);
	assert_int_equal(a.allocated, 0);
	/* argc 0: nothing is looked at, nothing copied */
	a.argv = av;
	assert_int_equal(fuse_opt_parse(&a, &data, tbl, proc), 0);
	assert_ptr_equal(a.argv, av);
	assert_int_equal(a.allocated, 0);
	assert_int_equal(ncalls, 0);

	/* just the program: an allocated copy */
	assert_int_equal(parse(NULL, false, ARGV("prog")), 0);
	expect_args(&args, ARGV("prog"));
	assert_int_equal(args.allocated, 1);
}

static void test_reparse(void **state)
{
	(void)state;
	assert_int_equal(
		parse(NULL, false, ARGV("prog", "-o", "a", "m", "-o", "b")), 0);
	expect_args(&args, ARGV("prog", "-o", "a,b", "m"));
	/* parsing the output again gives it back (and frees the old one) */
	assert_int_equal(fuse_opt_parse(&args, NULL, NULL, NULL), 0);
	expect_args(&args, ARGV("prog", "-o", "a,b", "m"));

	assert_int_equal(fuse_opt_add_arg(&args, "-o"), 0);
	assert_int_equal(fuse_opt_add_arg(&args, "c"), 0);
	assert_int_equal(fuse_opt_parse(&args, NULL, NULL, NULL), 0);
	expect_args(&args, ARGV("prog", "-o", "a,b,c", "m"));
}

static void test_key_offset_minus_one(void **state)
{
	/* Not from libfuse: an offset of -1 written by hand (ULONG_MAX, not
	 * FUSE_OPT_KEY's 0xffffffff) is taken as a key as well. */
	static const struct fuse_opt hand[] = {
		{"hk", (unsigned long)-1, 7},
		FUSE_OPT_END,
	};

	(void)state;
	assert_int_equal(parse(hand, true, ARGV("prog", "-o", "hk")), 0);
	expect_calls(ARGV("7:hk@1"));
	expect_args(&args, ARGV("prog", "-o", "hk"));
}

/* ---- fuse_opt_add_opt(), fuse_opt_add_opt_escaped() ---- */

static void test_add_opt(void **state)
{
	char *o = NULL;

	(void)state;
	assert_int_equal(fuse_opt_add_opt(&o, "a"), 0);
	assert_string_equal(o, "a");
	assert_int_equal(fuse_opt_add_opt(&o, "b,c"), 0);
	assert_string_equal(o, "a,b,c");
	assert_int_equal(fuse_opt_add_opt(&o, ""), 0);
	assert_string_equal(o, "a,b,c,");
	assert_int_equal(fuse_opt_add_opt_escaped(&o, "x,y\\z"), 0);
	assert_string_equal(o, "a,b,c,,x\\,y\\\\z");
	free(o);

	/* an empty list takes the next option without a comma */
	o = NULL;
	assert_int_equal(fuse_opt_add_opt(&o, ""), 0);
	assert_string_equal(o, "");
	assert_int_equal(fuse_opt_add_opt(&o, ""), 0);
	assert_string_equal(o, "");
	assert_int_equal(fuse_opt_add_opt(&o, "x"), 0);
	assert_string_equal(o, "x");
	free(o);

	o = NULL;
	assert_int_equal(fuse_opt_add_opt_escaped(&o, "a,b"), 0);
	assert_string_equal(o, "a\\,b");
	assert_int_equal(fuse_opt_add_opt_escaped(&o, ""), 0);
	assert_string_equal(o, "a\\,b,");
	free(o);
	o = NULL;
	assert_int_equal(fuse_opt_add_opt_escaped(&o, "\\,\\\\"), 0);
	assert_string_equal(o, "\\\\\\,\\\\\\\\");
	free(o);

	/* not from libfuse (it crashes): NULL is refused */
	o = NULL;
	assert_int_equal(fuse_opt_add_opt(&o, NULL), -1);
	assert_int_equal(fuse_opt_add_opt_escaped(&o, NULL), -1);
	assert_null(o);
}

/* ---- fuse_opt_add_arg(), fuse_opt_insert_arg(), fuse_opt_free_args() ---- */

static void test_add_insert_free(void **state)
{
	(void)state;
	assert_int_equal(fuse_opt_add_arg(&args, "prog"), 0);
	assert_int_equal(args.allocated, 1);
	assert_int_equal(fuse_opt_add_arg(&args, "b"), 0);
	expect_args(&args, ARGV("prog", "b"));
	assert_int_equal(fuse_opt_insert_arg(&args, 0, "z"), 0);
	expect_args(&args, ARGV("z", "prog", "b"));
	assert_int_equal(fuse_opt_insert_arg(&args, 2, "m"), 0);
	expect_args(&args, ARGV("z", "prog", "m", "b"));
	assert_int_equal(fuse_opt_insert_arg(&args, args.argc, "end"), 0);
	expect_args(&args, ARGV("z", "prog", "m", "b", "end"));

	fuse_opt_free_args(&args);
	assert_int_equal(args.argc, 0);
	assert_null(args.argv);
	assert_int_equal(args.allocated, 0);
	assert_int_equal(live, 0);

	/* a freed (or empty) args starts over */
	assert_int_equal(fuse_opt_insert_arg(&args, 0, "y"), 0);
	expect_args(&args, ARGV("y"));
}

static void test_free_caller_args(void **state)
{
	char *av[] = {"prog", "a", NULL};
	struct fuse_args a = FUSE_ARGS_INIT(2, av);

	(void)state;
	/* the caller's vector is forgotten, not freed */
	fuse_opt_free_args(&a);
	assert_int_equal(a.argc, 0);
	assert_null(a.argv);
	assert_int_equal(a.allocated, 0);
	assert_string_equal(av[0], "prog");
	assert_string_equal(av[1], "a");
	fuse_opt_free_args(NULL);
}

static void test_add_insert_deviations(void **state)
{
	char *av[] = {"prog", "a", NULL};

	(void)state;
	/*
	 * Not from libfuse, which fails an assertion (aborting the program)
	 * in each of these: we may not abort, so growing a caller's vector
	 * copies it first, and a bad position or a NULL argument is refused.
	 */
	args = (struct fuse_args)FUSE_ARGS_INIT(2, av);
	assert_int_equal(fuse_opt_add_arg(&args, "b"), 0);
	assert_ptr_not_equal(args.argv, av);
	assert_int_equal(args.allocated, 1);
	expect_args(&args, ARGV("prog", "a", "b"));
	assert_string_equal(av[1], "a");
	assert_null(av[2]);
	fuse_opt_free_args(&args);

	args = (struct fuse_args)FUSE_ARGS_INIT(2, av);
	assert_int_equal(fuse_opt_insert_arg(&args, 1, "i"), 0);
	expect_args(&args, ARGV("prog", "i", "a"));

	assert_int_equal(fuse_opt_insert_arg(&args, 4, "x"), -1);
	assert_string_equal(
		lastlog, "fuse: cannot insert argument at position 4 of 3\n");
	assert_int_equal(fuse_opt_insert_arg(&args, -1, "x"), -1);
	assert_int_equal(fuse_opt_add_arg(&args, NULL), -1);
	assert_int_equal(fuse_opt_insert_arg(&args, 0, NULL), -1);
	expect_args(&args, ARGV("prog", "i", "a"));
}

/* ---- fuse_opt_match() ---- */

static void test_match(void **state)
{
	static const struct {
		const char *opt;
		int want;
	} m[] = {
		{"foo=%s", 1},
		{"foo=x", 1},
		{"foo", 0},
		{"-x", 1},
		{"-x %s", 1},
		{"-xval", 1},
		{"-y", 1},
		{"flag", 1},
		{"-oflag", 0},
		{"-d", 1},
		{"eq=", 1},
		{"eq", 0},
		{"kk", 1},
		{"-K", 1},
		{"-Kv", 1},
		{"nope", 0},
		/* unlike fuse_opt_parse(), matching takes "-o" and "--" as
		 * ordinary options */
		{"-o", 1},
		{"--", 1},
		{"", 0},
	};
	static const struct {
		const char *opt;
		int want;
	} m_odd[] = {
		{"t=lit", 1}, {"t=x", 0}, {"t", 0},	 {"a b=1", 1},
		{"a", 0},     {"a b", 0}, {"c=d", 0},	 {"c=dx", 0},
		{"c=", 0},    {"", 1},	  {"c=d %s", 1},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (fuse_opt_match(tbl, m[i].opt) != m[i].want)
			fail_msg("fuse_opt_match(\"%s\") != %d", m[i].opt,
				 m[i].want);
	}
	for (size_t i = 0; i < sizeof(m_odd) / sizeof(m_odd[0]); i++) {
		if (fuse_opt_match(tbl_odd, m_odd[i].opt) != m_odd[i].want)
			fail_msg("fuse_opt_match(odd, \"%s\") != %d",
				 m_odd[i].opt, m_odd[i].want);
	}
	assert_int_equal(fuse_opt_match(NULL, "x"), 0);
	/* not from libfuse (it crashes) */
	assert_int_equal(fuse_opt_match(tbl, NULL), 0);
}

/* ---- out of memory ---- */

/*
 * Makes each allocation of a parse fail in turn: every such parse must
 * fail with libfuse's message, leave the caller's vector alone and leak
 * nothing; once no allocation is left to fail, the parse succeeds.
 */
static void test_out_of_memory(void **state)
{
	const char *const *argv = ARGV("prog", "-o", "a\\,b,foo=s,kk,ADD", "-x",
				       "v", "m", "--", "n", "-y", "w");
	char *av[] = {"prog", "a", NULL};
	char *o = NULL;
	long n;

	(void)state;
	for (n = 0;; n++) {
		int r;

		nlog = 0;
		lastlog[0] = '\0';
		nalloc = 0;
		fail_at = n;
		r = parse(tbl, true, argv);
		fail_at = -1;
		if (r == 0)
			break;
		assert_int_equal(r, -1);
		expect_untouched(10);
		if (strcmp(lastlog, "fuse: memory allocation failed\n") != 0)
			fail_msg("allocation %ld: log \"%s\"", n, lastlog);
		free(data.s);
		free(data.s2);
		data.s = data.s2 = NULL;
		if (live != 0)
			fail_msg("allocation %ld failed: %ld leaked", n, live);
	}
	/* there was something to fail */
	assert_true(n > 10);
	expect_args(&args, ARGV("prog", "-o", "a\\,b,kk", "added", "m", "--",
				"n", "-y", "w"));
	fuse_opt_free_args(&args);
	free(data.s);
	free(data.s2);
	data.s = data.s2 = NULL;
	assert_int_equal(live, 0);

	/* the helpers fail cleanly too, leaving their target as it was */
	assert_int_equal(fuse_opt_add_opt(&o, "a"), 0);
	for (n = 0; n < 2; n++) {
		nalloc = 0;
		fail_at = n;
		assert_int_equal(fuse_opt_add_opt_escaped(&o, "b,c"), -1);
		fail_at = -1;
		assert_string_equal(o, "a");
		nalloc = 0;
		fail_at = n;
		assert_int_equal(fuse_opt_add_arg(&args, "x"), -1);
		fail_at = -1;
		assert_int_equal(args.argc, 0);
		assert_null(args.argv);
	}
	free(o);
	assert_int_equal(fuse_opt_add_arg(&args, "x"), 0);
	nalloc = 0;
	fail_at = 0;
	assert_int_equal(fuse_opt_insert_arg(&args, 0, "y"), -1);
	fail_at = -1;
	expect_args(&args, ARGV("x"));
	assert_string_equal(lastlog, "fuse: memory allocation failed\n");
	fuse_opt_free_args(&args);

	/* copying a caller's vector (our extension) fails cleanly as well */
	for (n = 0; n < 3; n++) {
		args = (struct fuse_args)FUSE_ARGS_INIT(2, av);
		nalloc = 0;
		fail_at = n;
		assert_int_equal(fuse_opt_add_arg(&args, "b"), -1);
		fail_at = -1;
		assert_ptr_equal(args.argv, av);
		assert_int_equal(args.allocated, 0);
		assert_int_equal(live, 0);
	}
}

/* ---- fuse_log ---- */

/* Runs fn with stderr sent to a file; returns what it wrote. */
static void capture_stderr(void (*fn)(void), char *buf, size_t size)
{
	FILE *f = tmpfile();
	int saved;
	ssize_t n;

	assert_non_null(f);
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(f), 2) == 2);
	fn();
	fflush(stderr);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	n = pread(fileno(f), buf, size - 1, 0);
	assert_true(n >= 0);
	buf[n] = '\0';
	fclose(f);
}

static void log_three(void)
{
	fuse_log(FUSE_LOG_WARNING, "w %d %s\n", 5, "five");
	fuse_log(FUSE_LOG_DEBUG, "no newline");
	fuse_log(FUSE_LOG_EMERG, "|%5s|\n", "ab");
}

static int parse_result;

static void parse_missing_o(void)
{
	parse_result = parse(NULL, false, ARGV("prog", "-o"));
}

static void test_log_custom_and_default(void **state)
{
	char out[256];

	(void)state;
	/* a custom function gets level and formatted text; stderr nothing */
	capture_stderr(log_three, out, sizeof(out));
	assert_string_equal(out, "");
	assert_int_equal(nlog, 3);
	assert_int_equal(lastlevel, FUSE_LOG_EMERG);
	assert_string_equal(lastlog, "|   ab|\n");

	/* NULL restores the default: stderr, the text as given */
	fuse_set_log_func(NULL);
	capture_stderr(log_three, out, sizeof(out));
	assert_string_equal(out, "w 5 five\nno newline|   ab|\n");
	assert_int_equal(nlog, 3);

	/* the parser's messages take the same way */
	capture_stderr(parse_missing_o, out, sizeof(out));
	assert_int_equal(parse_result, -1);
	assert_string_equal(out, "fuse: missing argument after `-o'\n");
	assert_int_equal(nlog, 3);
}

static void log_one(void)
{
	fuse_log(FUSE_LOG_INFO, "fuse3-opt test: one line to syslog\n");
}

/* Last: switching the default handler to syslog cannot be undone. */
static void test_log_syslog(void **state)
{
	char out[256];

	(void)state;
	fuse_set_log_func(NULL);
	fuse_log_enable_syslog("fuse3-opt-test", LOG_PID, LOG_USER);
	capture_stderr(log_one, out, sizeof(out));
	assert_string_equal(out, "");
	/* after closing, as in libfuse, the default stays on syslog */
	fuse_log_close_syslog();
	capture_stderr(log_one, out, sizeof(out));
	assert_string_equal(out, "");
	fuse_log_close_syslog();
	/* a custom function still takes precedence */
	fuse_set_log_func(capture_log);
	capture_stderr(log_one, out, sizeof(out));
	assert_string_equal(out, "");
	assert_int_equal(nlog, 1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_layout_no_proc),
		T(test_layout_proc_calls),
		T(test_nonopt_order),
		T(test_dashdash),
		T(test_o_list_split_escape),
		T(test_o_list_empty_elements),
		T(test_o_list_odd),
		T(test_o_missing_list),
		T(test_template_string),
		T(test_template_numbers),
		T(test_template_invalid),
		T(test_template_values),
		T(test_keys),
		T(test_keys_keep_discard),
		T(test_keys_separate_param),
		T(test_proc_error),
		T(test_proc_answers),
		T(test_proc_adds_to_output),
		T(test_empty_input),
		T(test_reparse),
		T(test_key_offset_minus_one),
		T(test_add_opt),
		T(test_add_insert_free),
		T(test_free_caller_args),
		T(test_add_insert_deviations),
		T(test_match),
		T(test_out_of_memory),
		T(test_log_custom_and_default),
		T(test_log_syslog),
	};

	return cmocka_run_group_tests_name("fuse3-opt", tests, NULL, NULL);
}
