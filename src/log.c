/* SPDX-License-Identifier: MIT */
/*
 * Logging through a settable sink; one complete line per call. The
 * library's lines (fring_log()) and a filesystem's (fring_log_msg()) go to
 * the same sink; on the default one, standard error, only the library's
 * carry the "fring: " prefix.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "common.h"

/*
 * The sink: read under the lock for the whole call, so once
 * fring_set_log() returns no thread calls the previous one (its data may
 * go). The level is read first, without it: a line that is not wanted
 * costs one atomic load.
 */
static pthread_rwlock_t log_lock = PTHREAD_RWLOCK_INITIALIZER;
static fring_log_fn log_fn;
static void *log_data;
static _Atomic int log_max = FRING_LOG_INFO;

void fring_set_log(fring_log_fn fn, void *data, enum fring_log_level max_level)
{
	pthread_rwlock_wrlock(&log_lock);
	log_fn = fn;
	log_data = data;
	atomic_store_explicit(&log_max, (int)max_level, memory_order_relaxed);
	pthread_rwlock_unlock(&log_lock);
}

bool fring_log_enabled(enum fring_log_level lvl)
{
	return (int)lvl <= atomic_load_explicit(&log_max, memory_order_relaxed);
}

static void log_line(enum fring_log_level lvl, const char *prefix,
		     const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void log_line(enum fring_log_level lvl, const char *prefix,
		     const char *fmt, va_list ap)
{
	char line[1024];

	if (!fring_log_enabled(lvl))
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	pthread_rwlock_rdlock(&log_lock);
	if (log_fn)
		log_fn(lvl, line, log_data);
	else /* one fprintf per line: lines of several queues do not mix */
		fprintf(stderr, "%s%s\n", prefix, line);
	pthread_rwlock_unlock(&log_lock);
}

void fring_log(enum fring_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(lvl, "fring: ", fmt, ap);
	va_end(ap);
}

void fring_log_vmsg(enum fring_log_level level, const char *fmt, va_list ap)
{
	/* syslog's levels: 0 (LOG_EMERG) to 7 (LOG_DEBUG) */
	if ((unsigned)level > LOG_DEBUG)
		level = (int)level < 0 ? FRING_LOG_ERR : FRING_LOG_DEBUG;
	if (!fmt)
		return;
	log_line(level, "", fmt, ap);
}

void fring_log_msg(enum fring_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fring_log_vmsg(level, fmt, ap);
	va_end(ap);
}

void fring_log_syslog(enum fring_log_level level, const char *line, void *data)
{
	(void)data;
	syslog((int)level & LOG_PRIMASK, "%s", line ? line : "");
}
