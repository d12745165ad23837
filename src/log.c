/* SPDX-License-Identifier: MIT */
/* Logging through a settable sink; one complete line per call. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void fring_log(enum fring_log_level lvl, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (lvl > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (log_fn) {
		log_fn(lvl, line, log_data);
		return;
	}
	/* One fprintf per line so lines from several queues do not mix. */
	fprintf(stderr, "fring: %s\n", line);
}
