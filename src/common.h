/* SPDX-License-Identifier: MIT */
/*
 * What every file of the library needs: symbol visibility, sizes, the log
 * macros and the ThreadSanitizer ordering hint. Each module has its own
 * header for the rest (doc/architecture.md lists them with the layers).
 */
#ifndef FRING_COMMON_H
#define FRING_COMMON_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fring/fring.h"
#include "fuse_abi.h"

/* Internal functions that other files use: not exported by the shared
 * library, and localized in the installed static archive. */
#define FRING_HIDDEN	     __attribute__((visibility("hidden")))
#define FRING_PAGE	     4096u
#define FRING_ALIGN_UP(x, a) (((x) + (a)-1) / (a) * (a))
#define FRING_ARRAY_SIZE(a)  (sizeof(a) / sizeof((a)[0]))
#define FRING_CONTAINER_OF(p, type, member)                                    \
	((type *)(void *)((char *)(p)-offsetof(type, member)))

/* ---------------- logging (log.c) ---------------- */
FRING_HIDDEN void fring_log(enum fring_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
FRING_HIDDEN bool fring_log_enabled(enum fring_log_level lvl);
#define fr_err(...)  fring_log(FRING_LOG_ERR, __VA_ARGS__)
#define fr_warn(...) fring_log(FRING_LOG_WARN, __VA_ARGS__)
#define fr_info(...) fring_log(FRING_LOG_INFO, __VA_ARGS__)
#define fr_dbg(...)  fring_log(FRING_LOG_DEBUG, __VA_ARGS__)

/*
 * ThreadSanitizer sees no ordering through io_uring: an answer committed on
 * one ring, then a RELEASE or FORGET that the kernel sends only after it,
 * read on another ring or on /dev/fuse, look unordered (a descriptor
 * written in place by one queue thread and closed by another was reported).
 * The kernel does order them; kernel_order(), called by every serving
 * thread before it hands answers to the kernel and after it takes
 * requests, tells TSan so. It is nothing in other builds.
 */
#if defined(__SANITIZE_THREAD__)
#define FRING_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FRING_TSAN 1
#endif
#endif
#ifdef FRING_TSAN
FRING_HIDDEN extern _Atomic unsigned long fring_kernel_order;
static inline void kernel_order(void)
{
	atomic_fetch_add_explicit(&fring_kernel_order, 1, memory_order_acq_rel);
}
#else
static inline void kernel_order(void)
{
}
#endif

#endif
