/* SPDX-License-Identifier: MIT */
/*
 * Every per-queue counter, named once. The rest of the library expands this
 * list: the atomic fields of struct fring_qstats, the sums over queues, the
 * JSON of --stats-file and the lookup by name behind
 * fring_session_counter().
 *
 * STAT(name, how) is a counter of the public struct fring_stats (its layout
 * is part of the 0.1 ABI, so that list is closed); STAT_EXT(name, how) is
 * one added since: in the JSON and readable by name only. `how` says how
 * queues combine: SUM, or MAX for the largest queue's value.
 */
#ifndef FRING_STATS_LIST_H
#define FRING_STATS_LIST_H

#define FRING_STATS_LIST(STAT, STAT_EXT)                                       \
	STAT(requests, SUM)                                                    \
	STAT(replies, SUM)                                                     \
	STAT(errors, SUM)                                                      \
	STAT(malformed, SUM)                                                   \
	STAT(bytes_read, SUM)                                                  \
	STAT(bytes_written, SUM)                                               \
	STAT(zero_copy_requests, SUM)                                          \
	STAT(pool_waits, SUM)                                                  \
	STAT(in_flight, SUM)                                                   \
	STAT(handler_bugs, SUM)                                                \
	STAT(max_latency_ns, MAX)                                              \
	STAT(ring_entries, SUM)                                                \
	STAT(pool_requests, SUM)                                               \
	STAT(zero_copy_reads, SUM)                                             \
	STAT(zero_copy_writes, SUM)                                            \
	STAT(zero_copy_staged, SUM)                                            \
	STAT(send_failures, SUM)                                               \
	STAT_EXT(passthrough_opens, SUM)                                       \
	/* splice (dev/splice.c), each named after the option whose splices    \
	 * it counts (libfuse's names: splice_read reads requests from         \
	 * /dev/fuse with splice, splice_write writes answers with it):        \
	 * requests splice_read took through a pipe, the WRITE data of those   \
	 * spliced on into the backing fd, READ data splice_write spliced      \
	 * into /dev/fuse, and the splices of any option that fell back to     \
	 * copying. fring_session_counter() still takes the old names, which   \
	 * named the FUSE operation instead (stats.c). */                      \
	STAT_EXT(splice_read_requests, SUM)                                    \
	STAT_EXT(splice_read_data_bytes, SUM)                                  \
	STAT_EXT(splice_write_data_bytes, SUM)                                 \
	STAT_EXT(splice_fallbacks, SUM)                                        \
	/* data helpers on a ring transport: transfers a queue thread did in   \
	 * place (fdclass.c), and READ/WRITE(_FIXED) it put on its ring */     \
	STAT_EXT(io_inline, SUM)                                               \
	STAT_EXT(io_ring, SUM)                                                 \
	/* zerocopy: fixed ops through the thread's pipe (ring/pipe.c) */      \
	STAT_EXT(zero_copy_piped, SUM)

#endif
