/* SPDX-License-Identifier: MIT */
/*
 * Tiny check helpers for the libfring end-to-end test programs.
 *
 * Every check prints one line: "ok NAME", "FAIL NAME: expected X got Y" or
 * "skip NAME: why". A failed check is recorded and the program goes on.
 * The counters live in a shared anonymous mapping, so checks made in forked
 * children count too. chk_finish() prints "N passed, N failed[, N skipped]"
 * and returns the exit status (0 pass, 1 fail).
 *
 * Each CHECK_* macro evaluates to 1 when the check passed and 0 when it
 * failed, so a test can stop when a prerequisite did not hold:
 *	if (!CHECK_SYS("files.open", fd = open(...))) return;
 */
#ifndef FRING_E2E_CHECK_H
#define FRING_E2E_CHECK_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Exit status for a skipped test program (automake / meson convention). */
#define CHK_EXIT_SKIP 77

/* Maps the shared counters and makes stdout line buffered. Call first. */
void chk_init(void);
/* Prints the closing line; returns 1 if any check failed, else 0. */
int chk_finish(void);
/* Counters (as of now, including children that already exited). */
unsigned chk_passed(void);
unsigned chk_failed(void);
unsigned chk_skipped(void);

/* Records a pass (ok != 0) or a failure whose detail is fmt. Returns ok. */
int chk_result(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Records a skipped check. */
void chk_skip(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints a "# ..." comment line (ignored by the counters). */
void chk_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The byte at offset off of test data named by seed (a 64-bit mix, so
 * neighbouring offsets and seeds differ). */
unsigned char chk_pat(uint64_t seed, uint64_t off);

/* A stat for an in-process test server: ino, a 0755 directory when dir,
 * else a 0644 regular file of size bytes, one link. */
struct stat;
void chk_stat_fill(struct stat *st, uint64_t ino, int dir, off_t size);

/* A formatted check name, in one of 8 rotating static buffers. */
const char *chk_name(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* "ENOENT" for ENOENT (falls back to the number). */
const char *chk_errname(int e);

/* Helpers behind the macros. */
int chk_sys(const char *name, long ret, int err, const char *expr);
int chk_errno(const char *name, long ret, int err, int want);
int chk_errno2(const char *name, long ret, int err, int want1, int want2);
int chk_eq(const char *name, long long got, long long want, long ret_errno_hint,
	   int err);
int chk_mem(const char *name, const void *got, const void *want, size_t len);
int chk_str(const char *name, const char *got, const char *want);

/* cond must hold. */
#define CHECK(name, cond)                                                      \
	chk_result(!!(cond), (name), "expected %s got false", #cond)

/* expr is a syscall-like call that must not return -1. */
#define CHECK_SYS(name, expr)                                                  \
	__extension__({                                                        \
		errno = 0;                                                     \
		long chk_r_ = (long)(expr);                                    \
		chk_sys((name), chk_r_, errno, #expr);                         \
	})

/* expr must fail with -1 and errno e. */
#define CHECK_ERRNO(name, expr, e)                                             \
	__extension__({                                                        \
		errno = 0;                                                     \
		long chk_r_ = (long)(expr);                                    \
		chk_errno((name), chk_r_, errno, (e));                         \
	})

/* expr must fail with -1 and errno e1 or e2. */
#define CHECK_ERRNO2(name, expr, e1, e2)                                       \
	__extension__({                                                        \
		errno = 0;                                                     \
		long chk_r_ = (long)(expr);                                    \
		chk_errno2((name), chk_r_, errno, (e1), (e2));                 \
	})

/* Integer equality. If got is -1 the errno text is printed too. */
#define CHECK_EQ(name, got, want)                                              \
	__extension__({                                                        \
		errno = 0;                                                     \
		long long chk_g_ = (long long)(got);                           \
		int chk_e_ = errno;                                            \
		chk_eq((name), chk_g_, (long long)(want), 1, chk_e_);          \
	})

/* Byte-for-byte equality; reports the first differing offset. */
#define CHECK_MEM(name, got, want, len) chk_mem((name), (got), (want), (len))
#define CHECK_STR(name, got, want)	chk_str((name), (got), (want))

#endif
