/* SPDX-License-Identifier: MIT */
/* Private to the transport ladder (ladder.c, ladder_mem.c, ladder_probe.c). */
#ifndef FRING_LADDER_H
#define FRING_LADDER_H

#include "fring_int.h"
#include "ring.h"

#define ENABLE_URING_PARAM "/sys/module/fuse/parameters/enable_uring"
#define CAP_IPC_LOCK_BIT   14
#define CAP_SYS_ADMIN_BIT  21

FRING_HIDDEN bool ladder_has_cap(int bit);

/*
 * What the ring rungs allocate: max_payload_sz (kernel-protocol.md 3.6),
 * the uring entry buffers and the pools over all queues, the rings, and
 * what the rings and a registered pool charge to RLIMIT_MEMLOCK.
 */
struct ring_sizes {
	size_t payload;
	size_t entries, pools;
	size_t pool_locked; /* all queues' pools, registered */
	unsigned queues, pool_bufs;
	struct ring_plan plan;
};
/* payload 0: the negotiated one after INIT, else estimated from max_write */
FRING_HIDDEN void ladder_sizes(const struct fring_session *se, size_t payload,
			       struct ring_sizes *z);

/* RLIMIT_MEMLOCK as io_uring applies it to this process. */
struct memlock {
	bool charged;		  /* no CAP_IPC_LOCK in the initial namespace */
	unsigned long long limit; /* bytes; ~0ULL: unlimited */
};
FRING_HIDDEN void memlock_get(struct memlock *m);
FRING_HIDDEN bool memlock_fits(const struct memlock *m, size_t need);
/* What rung t can be charged: the rings (on kernels that charge them) and
 * the pools where they are pinned; and what every kernel charges: the
 * pinned pools. */
FRING_HIDDEN size_t rung_locked(const struct ring_sizes *z,
				enum fring_transport t);
FRING_HIDDEN size_t rung_pinned(const struct ring_sizes *z,
				enum fring_transport t);
/* "RLIMIT_MEMLOCK ... is below the ... io_uring pins for the pools": the
 * limit, what t's pools need, and what to do. */
FRING_HIDDEN void pools_why(char *buf, size_t len,
			    const struct fring_session *se,
			    const struct memlock *m, enum fring_transport t,
			    const struct ring_sizes *z);
/* Why building rung t failed with err: an ENOMEM explained with what
 * io_uring can charge, the limit and what to do, when it charges this
 * process. */
FRING_HIDDEN void build_why(char *buf, size_t len, int err,
			    const struct fring_session *se,
			    const struct memlock *m, enum fring_transport t,
			    const struct ring_sizes *z);
/* "64 KiB", "unlimited" */
FRING_HIDDEN void memlock_limit_str(const struct memlock *m, char *buf,
				    size_t len);

#endif
