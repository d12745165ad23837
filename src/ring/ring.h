/* SPDX-License-Identifier: MIT */
/*
 * The io_uring transport as the session and the ladder see it: how many
 * queues and rings a session gets and what they cost (plan.c, which builds
 * nothing but a probe ring), and the main thread's side of the rings' life
 * (setup.c). Everything else of the ring is private to src/ring/.
 */
#ifndef FRING_RING_H
#define FRING_RING_H

#include <liburing.h>

#include "core.h"

/* ---------------- plan.c ---------------- */
/* The kernel's queues: one per possible CPU. */
FRING_HIDDEN unsigned ring_nr_queues(void);
/* Which of the queues' CPUs are online now (online[q] for q < nqueues;
 * online may be NULL), and how many. */
FRING_HIDDEN unsigned ring_online_map(bool *online, unsigned nqueues);
/*
 * The memory of a queue, by whether its CPU was online at the start.
 * Every queue has queue_depth entries and their buffers (uring) or a pool
 * of ring_pool_bufs() buffers. Online: faulted in at the start, and on
 * the registered rungs registered (pinned). Offline (it serves only
 * clients of a CPU brought online later): faulted on first use, never
 * registered, since io_uring would pin and fault the whole pool at once.
 */
FRING_HIDDEN unsigned ring_pool_bufs(const struct fring_config *cfg);
/* The rings a session builds, and what the kernel charges for them to
 * RLIMIT_MEMLOCK (without CAP_IPC_LOCK). */
struct ring_plan {
	unsigned nthreads; /* one ring each */
	unsigned entries;  /* SQ entries of the largest ring */
	size_t locked;	   /* bytes charged for all the rings */
};
FRING_HIDDEN size_t ring_page_size(void);
/* -o threads=N (0: one per online CPU), for nqueues queues */
FRING_HIDDEN unsigned ring_nthreads(unsigned threads, unsigned nqueues,
				    unsigned nonline);
FRING_HIDDEN unsigned ring_sq_entries(unsigned nq, unsigned depth);
FRING_HIDDEN size_t ring_locked_bytes(unsigned entries);
FRING_HIDDEN void ring_plan(unsigned nqueues, unsigned nonline,
			    unsigned threads, unsigned depth,
			    struct ring_plan *p);
/* what registering a pool of pool_len bytes charges */
FRING_HIDDEN size_t ring_pool_locked_bytes(size_t pool_len);
/* A ring as every ring thread builds it; 0 or -errno (io_uring_setup's). */
FRING_HIDDEN int ring_init(struct io_uring *ring, unsigned entries);

/* ---------------- setup.c (the session's run thread) ---------------- */
/* Builds the rings, entries and buffers of the rung se->transport for
 * se->queues, before INIT is answered. */
FRING_HIDDEN int ring_prepare(struct fring_session *se);
/* INIT was answered with FUSE_OVER_IO_URING (go), or the ring is not used. */
FRING_HIDDEN void ring_go(struct fring_session *se, bool go);
FRING_HIDDEN void ring_stop(struct fring_session *se);
FRING_HIDDEN void ring_free(struct fring_session *se);
/* The first ring command the kernel refused, once: its errno and a
 * sentence for the reason (the connection now flows through /dev/fuse);
 * 0 when there is none, or it was taken already. Run thread only. */
FRING_HIDDEN int ring_take_failure(struct fring_session *se, char *why,
				   size_t len);
/* The io_uring_enter error that ended the session, or 0. */
FRING_HIDDEN int ring_fatal_err(const struct fring_session *se);

#endif
