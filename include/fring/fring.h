/* SPDX-License-Identifier: MIT */
/**
 * @file fring.h
 * @brief libfring: FUSE filesystem servers over io_uring, without libfuse.
 *
 * This header is the whole public API; it includes its parts, one per
 * topic (fring/log.h, conn.h, types.h, ops.h, req.h, reply.h, io.h,
 * session.h, stats.h, notify.h, main.h), which are not included alone.
 * A filesystem fills a struct fring_ops, and calls fring_main() (or the
 * fring_session_* functions). Each callback receives a request handle and must
 * answer it exactly once with one of the fring_reply_*() functions, either
 * before returning or later (from any thread) after calling fring_req_async().
 *
 * Conventions:
 *  - Library functions return 0 (or a count) on success and a negative errno
 *    on failure; they never set errno.
 *  - Reply functions take a *positive* errno, like libfuse's fuse_reply_err().
 *  - Unless said otherwise a callback runs on the worker thread of the queue
 *    that received the request ("queue thread"). Many callbacks run at once on
 *    different queues: the filesystem does its own locking.
 *  - Unless said otherwise a function behaves the same on every transport
 *    (see enum fring_transport and doc/transports.md).
 *
 * Man pages: fring(3), fring_main(3), fring_session_new(3),
 * fring_reply_err(3). Guides: doc/porting-from-libfuse.md,
 * doc/operations.md, doc/transports.md.
 */
#ifndef FRING_FRING_H
#define FRING_FRING_H

#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Major version of the headers compiled against. */
#define FRING_VERSION_MAJOR 0
/** Minor version of the headers compiled against. */
#define FRING_VERSION_MINOR 1
/** Patch level of the headers compiled against. */
#define FRING_VERSION_PATCH 0
/** Version of the headers as a string; see fring_version() for the
 * library actually linked. */
#define FRING_VERSION "0.1.0"
/** Encodes a version for comparisons: FRING_VERSION_NUM >= FRING_MKVER(0,2,0)
 */
#define FRING_MKVER(a, b, c) (((a) << 16) | ((b) << 8) | (c))
/** The headers' version as FRING_MKVER() encodes it. */
#define FRING_VERSION_NUM                                                      \
	FRING_MKVER(FRING_VERSION_MAJOR, FRING_VERSION_MINOR,                  \
		    FRING_VERSION_PATCH)

/**
 * Runtime version string of the linked library, e.g. "0.1.0".
 *
 * @return a static string; never NULL. Any thread.
 */
const char *fring_version(void);

/** Inode number as the kernel knows it. The root is FRING_ROOT_INO. */
typedef uint64_t fring_ino_t;
/** A poll waiter the kernel asked to be woken (fring_req_pollhandle()). */
typedef struct fring_pollhandle fring_pollhandle_t;
/** The inode number of the mount's root directory (the kernel's
 * FUSE_ROOT_ID). */
#define FRING_ROOT_INO ((fring_ino_t)1)

/** A request being served: passed to every callback that must answer. */
typedef struct fring_req fring_req_t;
/** A session: one mount and the threads serving it. */
typedef struct fring_session fring_session_t;
/** Options for a session (fring_config_new(), fring_config_set()). */
typedef struct fring_config fring_config_t;

/** @cond INTERNAL (the compiler checks a format against its arguments) */
#if defined(__GNUC__) || defined(__clang__)
#define FRING_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define FRING_PRINTF(fmt, first)
#endif
/** @endcond */

/* The API in one header per topic, in dependency order. */
/** @cond INTERNAL (lets the parts check they come through this header) */
#define FRING_FRING_H_INSIDE
/** @endcond */
#include <fring/log.h>
#include <fring/conn.h>
#include <fring/types.h>
#include <fring/ops.h>
#include <fring/req.h>
#include <fring/reply.h>
#include <fring/io.h>
#include <fring/session.h>
#include <fring/stats.h>
#include <fring/notify.h>
#include <fring/main.h>
#undef FRING_FRING_H_INSIDE

#ifdef __cplusplus
}
#endif
#endif
