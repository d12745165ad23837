/* SPDX-License-Identifier: MIT */
/**
 * @file fuse_log.h
 * @brief libfuse 3's logging hook, as libfring-fuse3 offers it.
 *
 * Matches libfuse 3.18's declarations by name, type and value; the header
 * guard has libfuse's name because programs may test it.
 */
#ifndef FUSE_LOG_H_
#define FUSE_LOG_H_

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A message's severity; the numbers are syslog(3)'s LOG_EMERG..LOG_DEBUG. */
enum fuse_log_level {
	FUSE_LOG_EMERG,
	FUSE_LOG_ALERT,
	FUSE_LOG_CRIT,
	FUSE_LOG_ERR,
	FUSE_LOG_WARNING,
	FUSE_LOG_NOTICE,
	FUSE_LOG_INFO,
	FUSE_LOG_DEBUG
};

/**
 * A log handler. It may be called from any thread, also concurrently, and
 * before any session exists (option parsing logs too), so it must be
 * thread-safe.
 *
 * @param level the message's severity
 * @param fmt   a printf format; the message normally ends with a newline
 * @param ap    the format's arguments
 */
typedef void (*fuse_log_func_t)(enum fuse_log_level level, const char *fmt,
				va_list ap);

/**
 * Sends every later fuse_log() message of the process to func; NULL
 * restores the default handler, which writes to stderr.
 */
void fuse_set_log_func(fuse_log_func_t func);

/** Emits one message through the current handler. */
void fuse_log(enum fuse_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Makes the default handler write to syslog instead of stderr; ident,
 * option and facility are openlog(3)'s.
 */
void fuse_log_enable_syslog(const char *ident, int option, int facility);

/**
 * Closes the syslog connection opened by fuse_log_enable_syslog(), for use at
 * teardown. As in libfuse, the default handler stays on syslog: a later
 * message reopens the connection the way syslog(3) does by itself.
 */
void fuse_log_close_syslog(void);

#ifdef __cplusplus
}
#endif

#endif /* FUSE_LOG_H_ */
