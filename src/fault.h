/* SPDX-License-Identifier: MIT */
/*
 * Fault injection (built with -Dfault_injection=true only): the places where
 * the library meets a failure it cannot provoke on demand ask fault_hit()
 * whether to fail now, and with which errno.
 * FRING_FAULT="point[:nth[:errno]],..." chooses, read once when the first
 * session is created (doc/reliability.md). In other builds fault_hit() is the
 * constant 0 and the hooks compile away.
 */
#ifndef FRING_FAULT_H
#define FRING_FAULT_H

#include <stdint.h>

#include "common.h"

enum fault_point {
	FAULT_RING_SETUP,    /* io_uring_queue_init of a ring thread */
	FAULT_BUF_REGISTER,  /* registering the pools as fixed buffers */
	FAULT_POOL_ALLOC,    /* mmap of a queue's buffer pool */
	FAULT_RING_SUBMIT,   /* io_uring_submit_and_wait of a ring thread */
	FAULT_DEV_WRITE,     /* the /dev/fuse write of an answer */
	FAULT_SPLICE_TO_FD,  /* splice_read: a WRITE's payload, pipe to file */
	FAULT_SPLICE_SEND,   /* splice_write: the answer's pipe to /dev/fuse */
	FAULT_RING_REGISTER, /* a ring thread's REGISTER of its entries */
	FAULT_ZC_PIPE_SHORT, /* zerocopy: a pipe READ_FIXED finds a byte less */
	FAULT_NPOINTS,
};

#ifdef FRING_FAULT_INJECTION
/* 0, or the -errno the caller must fail with instead of doing its job. */
FRING_HIDDEN int fault_hit(enum fault_point p);
/* Replaces the rules with spec (NULL: none) and zeroes the counters;
 * -EINVAL on a bad spec. */
FRING_HIDDEN int fault_parse(const char *spec);
/* FRING_FAULT, parsed on the first call only; its result every time. */
FRING_HIDDEN int fault_setup(void);
FRING_HIDDEN uint64_t fault_injected(enum fault_point p);
FRING_HIDDEN const char *fault_point_name(enum fault_point p);
#else
static inline int fault_hit(enum fault_point p)
{
	(void)p;
	return 0;
}
static inline int fault_setup(void)
{
	return 0;
}
#endif

#endif
