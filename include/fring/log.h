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
 * fn == NULL restores the default (stderr, "fring: " prefix). Not thread-safe
 * against concurrent logging: call it before starting a session.
 *
 * @param fn        the sink, or NULL for stderr
 * @param data      passed to every call of fn
 * @param max_level lines above this level are dropped before formatting
 *                  (the default is FRING_LOG_INFO)
 */
void fring_set_log(fring_log_fn fn, void *data, enum fring_log_level max_level);
/**@}*/

#endif
