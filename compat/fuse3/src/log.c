/* SPDX-License-Identifier: MIT */
/*
 * fuse_log(): libfuse 3's logging hook.
 *
 * The default handler writes to stderr, not to libfring's log sink
 * (fring_set_log()): a program written for libfuse expects its messages, and
 * the ones fuse_opt_parse() and friends emit, on stderr exactly as given,
 * with no prefix and no line splitting, and a test harness or a wrapper
 * script may depend on that. A program that wants them elsewhere installs
 * its own handler with fuse_set_log_func(), as with libfuse.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>

#include "fuse_log.h"

/* Set by fuse_log_enable_syslog(); read by the default handler on any
 * thread, hence atomic. */
static atomic_bool use_syslog;

static void default_log(enum fuse_log_level level, const char *fmt, va_list ap)
{
	if (atomic_load_explicit(&use_syslog, memory_order_relaxed))
		/* The fuse_log_level values are syslog's priorities. */
		vsyslog((int)level, fmt, ap);
	else
		vfprintf(stderr, fmt, ap);
}

/* The current handler; swapped at any time, read by every fuse_log(). */
static _Atomic(fuse_log_func_t) log_func = default_log;

void fuse_set_log_func(fuse_log_func_t func)
{
	atomic_store(&log_func, func ? func : default_log);
}

void fuse_log(enum fuse_log_level level, const char *fmt, ...)
{
	fuse_log_func_t func = atomic_load(&log_func);
	va_list ap;

	va_start(ap, fmt);
	func(level, fmt, ap);
	va_end(ap);
}

void fuse_log_enable_syslog(const char *ident, int option, int facility)
{
	openlog(ident, option, facility);
	atomic_store(&use_syslog, true);
}

void fuse_log_close_syslog(void)
{
	/* Like libfuse, the default handler stays on syslog; syslog(3)
	 * reopens the connection by itself if anything is logged later. */
	closelog();
}
