/* SPDX-License-Identifier: MIT */
/**
 * @file log.h
 * @brief Logging: where libfring's log lines go.
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_LOG_H
#define FRING_API_LOG_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/** @name Logging */
/**@{*/
/** Severity of a log line; the values are syslog(3)'s. */
enum fring_log_level {
	FRING_LOG_ERR = 3,   /**< a failure: mount, INIT, a handler bug */
	FRING_LOG_WARN = 4,  /**< something degraded, e.g. a fallback */
	FRING_LOG_INFO = 6,  /**< the mount line; -d request/answer lines */
	FRING_LOG_DEBUG = 7, /**< internals */
};
/**
 * Receives one complete line (no trailing newline). May run on any thread,
 * several at once: the sink does its own locking.
 *
 * @param level the line's severity (at most the max_level given to
 *              fring_set_log())
 * @param line  the text; valid only during the call
 * @param data  the data pointer given to fring_set_log()
 */
typedef void (*fring_log_fn)(enum fring_log_level level, const char *line,
			     void *data);
/**
 * Sets the process-wide log sink and the most verbose level passed to it.
 * fn == NULL restores the default (stderr, "fring: " prefix). Any thread,
 * any time, also while sessions log: once it returns no thread calls the
 * previous sink any more (so its data may be freed). Not from a sink.
 *
 * @param fn        the sink, or NULL for stderr
 * @param data      passed to every call of fn
 * @param max_level lines above this level are dropped before formatting
 *                  (the default is FRING_LOG_INFO)
 */
void fring_set_log(fring_log_fn fn, void *data, enum fring_log_level max_level);
/**
 * Logs a line of the filesystem's own through the library's sink: the
 * function fring_set_log() set, with its level filter, or by default
 * standard error. The same place as the library's lines, and from every
 * thread at once, so a filesystem's diagnostics need no logging of their
 * own (libfuse: fuse_log()).
 *
 * The line is formatted as printf(3) does (the compiler checks fmt against
 * the arguments), at most 1023 bytes (cut there), without a trailing
 * newline. The default sink writes it alone on a line, without the
 * library's "fring: " prefix: give the program's own ("memfs: ...").
 * Any thread.
 *
 * @param level a FRING_LOG_* level, or another syslog(3) level (0 to 7);
 *              above the max_level of fring_set_log() the line is dropped
 *              before formatting
 * @param fmt   printf(3) format of the line
 */
void fring_log_msg(enum fring_log_level level, const char *fmt, ...)
	FRING_PRINTF(2, 3);
/**
 * fring_log_msg() with the arguments in a va_list, for a program's own
 * logging function.
 * @param level as fring_log_msg()
 * @param fmt   printf(3) format of the line
 * @param ap    its arguments
 */
void fring_log_vmsg(enum fring_log_level level, const char *fmt, va_list ap)
	FRING_PRINTF(2, 0);
/**
 * A ready-made sink that sends each line to syslog(3) at its level, the
 * library's lines and those of fring_log_msg() alike:
 * `fring_set_log(fring_log_syslog, NULL, FRING_LOG_INFO)`. A daemon needs
 * it or a sink of its own, since fring_main() points standard error to
 * /dev/null when it goes to the background (fring_main_info() says
 * whether it did). The ident, options and facility are those of the
 * program's openlog(3) call, or syslog's defaults (the program's name,
 * LOG_USER) without one.
 *
 * @param level the line's level (FRING_LOG_* are syslog's)
 * @param line  the text
 * @param data  not used (give NULL)
 */
void fring_log_syslog(enum fring_log_level level, const char *line, void *data);
/**@}*/

#endif
