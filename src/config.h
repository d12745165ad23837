/* SPDX-License-Identifier: MIT */
/* The session's configuration: `-o` options parsed into it (opts.c). */
#ifndef FRING_CONFIG_H
#define FRING_CONFIG_H

#include "common.h"

#define FRING_NAME_LEN 256
struct fring_config {
	enum fring_transport transport;
	unsigned queues;	 /* 0: one per possible CPU */
	unsigned max_write;	 /* bytes */
	unsigned max_read;	 /* 0: unlimited */
	unsigned max_readahead;	 /* 0: kernel's offer */
	unsigned max_async;	 /* per-queue cap on unanswered requests */
	unsigned max_background; /* INIT's; 0: the kernel's 12 */
	unsigned congestion_threshold; /* INIT's; 0: 3/4 of max_background */
	unsigned queue_depth;	       /* ring entries per queue */
	unsigned threads;	       /* ring threads; 0: one per queue */
	unsigned pool_bufs;	  /* buffers per queue pool; 0: queue_depth */
	unsigned request_timeout; /* seconds; 0: none asked (kernel default) */
	unsigned inline_max;	  /* ring: largest helper transfer in place */
	unsigned zc_pipe_max;	  /* zerocopy: largest through the pipe */
	bool allow_other;
	bool default_permissions;
	bool ro;
	bool dev;  /* device files work (root only; default nodev) */
	bool suid; /* set-id bits work (root only; default nosuid) */
	bool debug;
	bool zero_copy_opt_in; /* zero-copy only where open sets zero_copy */
	bool splice_read, splice_write, splice_move; /* dev only (splice.c) */
	bool overmount; /* mount even where a FUSE mount is on top (mount.c) */
	/* a watcher unmounts the mount when the process ends without having
	 * unmounted it (session/watch.c; fusermount3's own as a user) */
	bool auto_unmount;
	char fsname[FRING_NAME_LEN];
	char subtype[FRING_NAME_LEN];
};
FRING_HIDDEN void fring_config_defaults(struct fring_config *cfg);
/* Each option set to what rung t cannot use (threads= on dev, queues= on a
 * ring rung...): one sentence each to say(), naming it and why. nqueues:
 * the ring rungs' queues. */
FRING_HIDDEN void config_ineffective(const struct fring_config *cfg,
				     enum fring_transport t, unsigned nqueues,
				     void (*say)(const char *msg, void *arg),
				     void *arg);

#endif
