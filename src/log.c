/* SPDX-License-Identifier: MIT */
/*
 * Logging through a settable sink; one complete line per call. The
 * library's lines (fring_log()) and a filesystem's (fring_log_msg()) go to
 * the same sink; on the default one, standard error, only the library's
 * carry the "fring: " prefix.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "common.h"

static fring_log_fn log_fn;
static void *log_data;
static enum fring_log_level log_max = FRING_LOG_INFO;

void fring_set_log(fring_log_fn fn, void *data, enum fring_log_level max_level)
{
	log_fn = fn;
	log_data = data;
	log_max = max_level;
}

bool fring_log_enabled(enum fring_log_level lvl)
{
	return lvl <= log_max;
}

static void log_line(enum fring_log_level lvl, const char *prefix,
		     const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void log_line(enum fring_log_level lvl, const char *prefix,
		     const char *fmt, va_list ap)
{
	char line[1024];

	if (lvl > log_max)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (log_fn) {
		log_fn(lvl, line, log_data);
		return;
	}
	/* One fprintf per line so lines from several queues do not mix. */
	fprintf(stderr, "%s%s\n", prefix, line);
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
