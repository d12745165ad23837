/* SPDX-License-Identifier: MIT */
/*
 * Logging: fring_log_msg() and fring_log_vmsg() through the sink of
 * fring_set_log() and through the default one (standard error, without the
 * library's prefix), the level filter, long lines, and the syslog sink
 * (syslog(3) is replaced below, so nothing reaches the system's log).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

static unsigned nlog;
static enum fring_log_level lastlvl;
static char lastlog[2048];
static void *lastdata;

static void sink(enum fring_log_level lvl, const char *line, void *data)
{
	nlog++;
	lastlvl = lvl;
	lastdata = data;
	snprintf(lastlog, sizeof(lastlog), "%s", line);
}

/* syslog(3) as fring_log_syslog() calls it (and glibc's fortified name) */
static unsigned nsys;
static int syspri;
static char sysline[2048];

static void fake_vsyslog(int pri, const char *fmt, va_list ap)
{
	nsys++;
	syspri = pri;
	vsnprintf(sysline, sizeof(sysline), fmt, ap);
}

void syslog(int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fake_vsyslog(pri, fmt, ap);
	va_end(ap);
}

void __syslog_chk(int pri, int flag, const char *fmt, ...);
void __syslog_chk(int pri, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	fake_vsyslog(pri, fmt, ap);
	va_end(ap);
}

static int setup(void **state)
{
	(void)state;
	nlog = nsys = 0;
	lastlog[0] = sysline[0] = '\0';
	fring_set_log(sink, &nlog, FRING_LOG_DEBUG);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fring_set_log(NULL, NULL, FRING_LOG_INFO);
	return 0;
}

static void my_log(enum fring_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void my_log(enum fring_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fring_log_vmsg(lvl, fmt, ap);
	va_end(ap);
}

static void test_sink(void **state)
{
	(void)state;
	fring_log_msg(FRING_LOG_WARN, "memfs: %s has %d bytes", "f", 42);
	assert_int_equal(nlog, 1);
	assert_int_equal(lastlvl, FRING_LOG_WARN);
	assert_string_equal(lastlog, "memfs: f has 42 bytes");
	assert_ptr_equal(lastdata, &nlog);
	/* the library's own lines: the same sink, no prefix either */
	fring_log(FRING_LOG_ERR, "x%u", 1u);
	assert_int_equal(nlog, 2);
	assert_string_equal(lastlog, "x1");
	/* through a va_list */
	my_log(FRING_LOG_INFO, "%s=%llu", "size", 1ULL << 40);
	assert_int_equal(nlog, 3);
	assert_int_equal(lastlvl, FRING_LOG_INFO);
	assert_string_equal(lastlog, "size=1099511627776");
}

static void test_levels(void **state)
{
	(void)state;
	fring_set_log(sink, NULL, FRING_LOG_WARN);
	fring_log_msg(FRING_LOG_INFO, "dropped");
	fring_log_msg(FRING_LOG_DEBUG, "dropped");
	assert_int_equal(nlog, 0);
	fring_log_msg(FRING_LOG_WARN, "kept");
	fring_log_msg(FRING_LOG_ERR, "kept");
	/* other syslog levels: 2 is LOG_CRIT */
	fring_log_msg((enum fring_log_level)2, "crit");
	assert_int_equal(nlog, 3);
	assert_int_equal(lastlvl, 2);
	/* out of syslog's range: below 0 is an error, above 7 debug */
	fring_log_msg((enum fring_log_level) - 4, "below");
	assert_int_equal(nlog, 4);
	assert_int_equal(lastlvl, FRING_LOG_ERR);
	fring_log_msg((enum fring_log_level)99, "above: dropped at WARN");
	assert_int_equal(nlog, 4);
	fring_set_log(sink, NULL, FRING_LOG_DEBUG);
	fring_log_msg((enum fring_log_level)99, "above");
	assert_int_equal(nlog, 5);
	assert_int_equal(lastlvl, FRING_LOG_DEBUG);
}

static void test_long_line(void **state)
{
	char big[3000];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fring_log_msg(FRING_LOG_ERR, "%s", big);
	assert_int_equal(nlog, 1);
	assert_int_equal(strlen(lastlog), 1023);
}

/* The default sink: one line on standard error, the filesystem's without
 * the "fring: " prefix. */
static void test_stderr(void **state)
{
	char tmpl[] = "/tmp/fring-test-log.XXXXXX", got[256];
	int fd = mkstemp(tmpl), saved = dup(2);
	ssize_t n;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	unlink(tmpl);
	fring_set_log(NULL, NULL, FRING_LOG_INFO);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	fring_log_msg(FRING_LOG_WARN, "memfs: remote: %s: done", "x");
	fring_log(FRING_LOG_ERR, "library %d", 7);
	fring_log_msg(FRING_LOG_DEBUG, "dropped at INFO");
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	n = pread(fd, got, sizeof(got) - 1, 0);
	close(fd);
	assert_true(n > 0);
	got[n] = '\0';
	assert_string_equal(got, "memfs: remote: x: done\nfring: library 7\n");
}

static void test_syslog_sink(void **state)
{
	(void)state;
	fring_set_log(fring_log_syslog, NULL, FRING_LOG_INFO);
	fring_log_msg(FRING_LOG_WARN, "memfs: %d%% full", 90);
	assert_int_equal(nsys, 1);
	assert_int_equal(syspri, LOG_WARNING);
	assert_string_equal(sysline, "memfs: 90% full");
	fring_log(FRING_LOG_ERR, "mount failed");
	assert_int_equal(nsys, 2);
	assert_int_equal(syspri, LOG_ERR);
	assert_string_equal(sysline, "mount failed");
	fring_log_msg(FRING_LOG_DEBUG, "dropped");
	assert_int_equal(nsys, 2);
	/* called directly, a level never reaches the facility bits */
	fring_log_syslog((enum fring_log_level)(LOG_DAEMON | LOG_INFO), "f",
			 NULL);
	assert_int_equal(syspri, LOG_INFO);
	fring_log_syslog(FRING_LOG_INFO, NULL, NULL);
	assert_int_equal(nsys, 4);
	assert_string_equal(sysline, "");
	assert_int_equal(nlog, 0);
}

/* fring_set_log() while other threads log: each sink is always called
 * with its own data, and never after the call that replaced it. */
static _Atomic unsigned calls_a, calls_b, mismatches;
static _Atomic int replaced_a;
static int tag_a, tag_b;

static void sink_a(enum fring_log_level lvl, const char *line, void *data)
{
	(void)lvl;
	(void)line;
	if (data != &tag_a || atomic_load(&replaced_a))
		atomic_fetch_add(&mismatches, 1);
	atomic_fetch_add(&calls_a, 1);
}

static void sink_b(enum fring_log_level lvl, const char *line, void *data)
{
	(void)lvl;
	(void)line;
	if (data != &tag_b)
		atomic_fetch_add(&mismatches, 1);
	atomic_fetch_add(&calls_b, 1);
}

static _Atomic int stop;

static void *logger(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		fring_log_msg(FRING_LOG_INFO, "line %d", 1);
	return NULL;
}

static void test_set_while_logging(void **state)
{
	pthread_t th[3];

	(void)state;
	for (int round = 0; round < 50; round++) {
		atomic_store(&replaced_a, 0);
		atomic_store(&calls_a, 0);
		fring_set_log(sink_a, &tag_a, FRING_LOG_INFO);
		atomic_store(&stop, 0);
		for (int i = 0; i < 3; i++)
			assert_int_equal(
				pthread_create(&th[i], NULL, logger, NULL), 0);
		while (atomic_load(&calls_a) < 10)
			sched_yield();
		fring_set_log(sink_b, &tag_b, FRING_LOG_INFO);
		/* from here sink_a must not run */
		atomic_store(&replaced_a, 1);
		atomic_store(&calls_b, 0);
		while (atomic_load(&calls_b) < 10)
			sched_yield();
		atomic_store(&stop, 1);
		for (int i = 0; i < 3; i++)
			pthread_join(th[i], NULL);
	}
	assert_int_equal(atomic_load(&mismatches), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_sink),	T(test_levels),	     T(test_long_line),
		T(test_stderr), T(test_syslog_sink), T(test_set_while_logging),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
