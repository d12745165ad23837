/* SPDX-License-Identifier: MIT */
/**
 * @file stats.h
 * @brief Statistics: per-queue counters, by name, and as JSON.
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_STATS_H
#define FRING_API_STATS_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/** @name Statistics */
/**@{*/
/** Size of fring_stats.by_opcode; opcodes beyond it count in slot 0. */
#define FRING_STATS_OPCODES 64
/** Counters of one queue (or their sum). Read at any time; each counter is
 * exact, a set of them is not a snapshot. */
struct fring_stats {
	uint64_t requests;	     /**< requests received */
	uint64_t replies;	     /**< answers sent */
	uint64_t errors;	     /**< answers with an error */
	uint64_t malformed;	     /**< requests rejected as malformed */
	uint64_t bytes_read;	     /**< READ data returned to the kernel */
	uint64_t bytes_written;	     /**< WRITE data received */
	uint64_t zero_copy_requests; /**< requests whose data went zero-copy */
	uint64_t pool_waits;	     /**< times a pool buffer was not free */
	uint64_t in_flight;	     /**< requests received but unanswered */
	/** handler mistakes, each logged: no answer, a second answer, the
	 * wrong answer type, more data than asked, an errno outside 1..511 */
	uint64_t handler_bugs;
	uint64_t max_latency_ns;		 /**< slowest request */
	uint64_t by_opcode[FRING_STATS_OPCODES]; /**< requests per opcode */
	uint64_t ring_entries;	/**< ring entries registered with the kernel */
	uint64_t pool_requests; /**< requests whose data was in a pool buffer */
	uint64_t zero_copy_reads;  /**< READs served into client pages */
	uint64_t zero_copy_writes; /**< WRITEs served from client pages */
	/** zero-copy READs answered from memory, staged through a memfd */
	uint64_t zero_copy_staged;
	/** answers /dev/fuse refused (each then answered EIO instead) */
	uint64_t send_failures;
	/** faults injected (FRING_FAULT; builds with fault injection only),
	 * process-wide: in the sum over all queues only */
	uint64_t faults_injected;
	/** age of the oldest request received and not answered yet (0: none);
	 * measured when read, the largest of the queues for the total. A
	 * handler that never answers shows here long before the kernel's
	 * request_timeout, if any, aborts the connection. */
	uint64_t oldest_pending_ns;
};
/** fring_session_stats()'s q for the sum of all queues. */
#define FRING_STATS_ALL (~0u)
/** Counters of queue q (q < fring_session_queues()), or of all queues
 * summed when q == FRING_STATS_ALL. Returns 0 or -EINVAL.
 * Any thread, while the session exists (before fring_session_destroy()).
 */
int fring_session_stats(const fring_session_t *s, unsigned q,
			struct fring_stats *out);
/** One counter by its name, as the JSON of fring_session_write_stats()
 * names it ("requests", "pool_waits", "oldest_pending_ns", ...): every
 * counter of struct fring_stats and those added after its layout was
 * fixed, which only this function and the JSON show; also the earlier
 * names of renamed counters (splice_requests, splice_write_bytes,
 * splice_read_bytes: doc/transports.md, "splice on dev"). q as for
 * fring_session_stats(). Any thread, while the session exists.
 * @return 0, -ENOENT for a name this version does not count, -EINVAL. */
int fring_session_counter(const fring_session_t *s, unsigned q,
			  const char *name, uint64_t *value);
/** Writes the statistics as one JSON object (with "transport", "queues",
 * totals and "per_queue") and a newline to fd.
 * Any thread, while the session exists. Not async-signal-safe (it
 * allocates): fring_main() writes --stats-file from a thread of its own.
 * @return 0, -EINVAL, -ENOMEM, or the errno of write(2). */
int fring_session_write_stats(const fring_session_t *s, int fd);
/**@}*/

#endif
