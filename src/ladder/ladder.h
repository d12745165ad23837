/* SPDX-License-Identifier: MIT */
/*
 * The transport ladder (src/ladder/): which rung a session runs and why,
 * for a mount (ladder.c), its memory verdicts (mem.c), what it decides
 * from (facts.c) and fring-probe (probe.c). The first part is for the
 * session; the rest is shared by the ladder's own files.
 */
#ifndef FRING_LADDER_H
#define FRING_LADDER_H

#include "core.h"
#include "dispatch/dispatch.h"
#include "ring/ring.h"

/* RLIMIT_MEMLOCK as io_uring applies it to this process. */
struct memlock {
	bool charged;		  /* no CAP_IPC_LOCK in the initial namespace */
	unsigned long long limit; /* bytes; ~0ULL: unlimited */
};

/*
 * What the ladder decides from, besides the options and what INIT
 * negotiated: the process and the machine, read at once by
 * ladder_facts_read() (facts.c, the ladder's only reader of them), or made
 * up by a test.
 */
struct ladder_facts {
	int enable_uring; /* 1 Y, 0 N, -1 no such parameter (before 6.14) */
	bool cap_sys_admin, cap_ipc_lock; /* effective */
	struct memlock ml;
};
FRING_HIDDEN void ladder_facts_read(struct ladder_facts *f);

/*
 * ladder.c: the session's two questions. Each reads the facts when it is
 * asked (the fuse module, and enable_uring with it, may load only when the
 * mount opens /dev/fuse) and answers on them through its _with() twin,
 * which fring-probe and the tests call with facts of their own.
 *
 * Before mounting: an explicit transport the module or the process rules
 * out is refused (-errno, with its reason); the ring rungs' memory is
 * reported.
 */
FRING_HIDDEN int ladder_precheck(struct fring_session *se);
FRING_HIDDEN int ladder_precheck_with(struct fring_session *se,
				      const struct ladder_facts *f);
/*
 * At INIT: the best rung the kernel, the process and RLIMIT_MEMLOCK allow,
 * then build(se) for a ring rung (what the rung needs before INIT is
 * answered; it cleans up after itself on failure); a rung that fails to
 * build gives its turn to the next one down (auto only), with its reason.
 * Returns 0 with se->transport and se->reason set, or the -errno INIT fails
 * with: an explicit transport that cannot be had. Warns once about options
 * the rung taken ignores.
 */
FRING_HIDDEN int ladder_settle(struct fring_session *se,
			       int (*build)(struct fring_session *se));
FRING_HIDDEN int ladder_settle_with(struct fring_session *se,
				    const struct ladder_facts *f,
				    int (*build)(struct fring_session *se));
/* The run thread, after the ring reported a command the kernel refused
 * (ring_take_failure()): the session now runs on dev, and says why. */
FRING_HIDDEN void ladder_fell_back(struct fring_session *se, const char *why);
/*
 * fring-probe's question (tools/fring-probe.c), answered by the code a
 * mount runs, without mounting, on this machine's facts read once:
 * ladder_precheck_with(), then INIT negotiated with what a kernel at ABI
 * 7.abi_minor offers here, then ladder_settle_with() with the result of
 * building a ring here.
 */
struct ladder_probe {
	unsigned abi_minor; /* in: the kernel's ABI minor (inferred) */
	/* out: what the decision was made from */
	int enable_uring; /* 1 Y, 0 N, -1 no such parameter */
	int ring_err;	  /* building the rings as ring/setup.c does */
	bool cap_sys_admin, cap_ipc_lock;
	bool memlock_charged;	    /* io_uring charges RLIMIT_MEMLOCK */
	unsigned long long memlock; /* RLIMIT_MEMLOCK bytes, ~0: none */
	unsigned queues;	    /* one per possible CPU */
	unsigned nthreads;	    /* ring threads, one ring each */
	unsigned ring_entries;	    /* SQ entries of the largest ring */
	size_t payload;		    /* max_payload_sz, page-aligned */
	size_t entry_bytes;	    /* uring: entry buffers, all queues */
	size_t pool_bytes;	    /* bufpool rungs: pools, all queues */
	size_t ring_locked;	    /* the rings' RLIMIT_MEMLOCK charge */
	size_t pool_locked;	    /* the registered pools' charge */
	/* out: the answer */
	enum fring_transport transport; /* the rung, unless refused */
	int refused; /* 0, or the -errno the mount or INIT fails with */
	char reason[768];
	char ineffective[1024]; /* options the rung ignores, one a line */
};
FRING_HIDDEN void ladder_probe(const struct fring_config *cfg,
			       struct ladder_probe *p);

#define ENABLE_URING_PARAM "/sys/module/fuse/parameters/enable_uring"

/*
 * What the ring rungs allocate: max_payload_sz
 * (doc/kernel-protocol.md, "Ring payload size"), the uring entry buffers
 * and the pools over all queues (mapped; those of offline CPUs' queues
 * fault on first use, ring.h), the rings, and what the rings and the
 * registered pools (those of online CPUs' queues only) charge to
 * RLIMIT_MEMLOCK.
 */
struct ring_sizes {
	size_t payload;
	size_t entries, pools;
	size_t pool_locked; /* the online CPUs' queues' pools, registered */
	unsigned queues, online, pool_bufs;
	struct ring_plan plan;
};
/* payload 0: the negotiated one after INIT, else estimated from max_write */
FRING_HIDDEN void ladder_sizes(const struct fring_session *se, size_t payload,
			       struct ring_sizes *z);

FRING_HIDDEN bool memlock_fits(const struct memlock *m, size_t need);
/* What rung t can be charged: the rings (on kernels that charge them) and
 * the pools where they are pinned; and what every kernel charges: the
 * pinned pools. */
FRING_HIDDEN size_t rung_locked(const struct ring_sizes *z,
				enum fring_transport t);
FRING_HIDDEN size_t rung_pinned(const struct ring_sizes *z,
				enum fring_transport t);
/* What rung t's buffers occupy once set up: the online CPUs' queues', and
 * every registered pool. */
FRING_HIDDEN size_t rung_faulted(const struct ring_sizes *z,
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
