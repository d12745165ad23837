/* SPDX-License-Identifier: MIT */
/*
 * This library's own messages. They go through fuse_log(), so a program
 * that set fuse_set_log_func() receives them with everything else; the
 * text is formatted here because fuse_log() has no va_list form.
 */
#include <stdarg.h>
#include <stdio.h>

#include "compat.h"

void fc_log(enum fuse_log_level level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fuse_log(level, "%s", line);
}

void fc_unsupported(const char *func, const char *why)
{
	fc_log(FUSE_LOG_ERR, "fuse: %s() is not available on libfring: %s\n",
	       func, why);
}
