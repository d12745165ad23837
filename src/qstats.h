/* SPDX-License-Identifier: MIT */
/* Per-queue counters and the clock they use (stats.c). */
#ifndef FRING_QSTATS_H
#define FRING_QSTATS_H

#include "common.h"
#include "stats_list.h"

#define STAT_FIELD(name, how) _Atomic uint64_t name;
struct fring_qstats {
	/* in_flight stays 0 here: it is requests - replies - noreplies,
	 * computed when read (stats.c), which spares every request two
	 * locked increments */
	FRING_STATS_LIST(STAT_FIELD, STAT_FIELD)
	_Atomic uint64_t by_opcode[FRING_STATS_OPCODES];
	_Atomic uint64_t noreplies; /* requests ended without an answer */
	/* What answers given on the dispatching thread inside the handler
	 * count (reply.c), with stat_add_own(): the common case spared two
	 * locked adds per answer. Readers add them to replies, bytes_read
	 * and noreplies (stats.c). */
	_Atomic uint64_t replies_own, bytes_read_own, noreplies_own;
};
#undef STAT_FIELD
#define stat_add(q, field, n)                                                  \
	atomic_fetch_add_explicit(&(q)->stats.field, (n), memory_order_relaxed)
#define stat_sub(q, field, n)                                                  \
	atomic_fetch_sub_explicit(&(q)->stats.field, (n), memory_order_relaxed)
/* A counter only the queue's dispatching thread writes (requests,
 * by_opcode, what its ring thread does in place): each queue has one such
 * thread on every transport, so a plain load and store count exactly,
 * without the locked instruction of an atomic add; the stats reader's
 * relaxed loads still see whole values. Answers can come from any thread:
 * their counters keep stat_add(). */
#define stat_add_own(q, field, n)                                              \
	atomic_store_explicit(&(q)->stats.field,                               \
			      atomic_load_explicit(&(q)->stats.field,          \
						   memory_order_relaxed) +     \
				      (n),                                     \
			      memory_order_relaxed)
/* requests begun and not yet answered (nor ended without an answer) */
FRING_HIDDEN uint64_t stats_in_flight(const struct fring_qstats *st);
FRING_HIDDEN void stats_note_latency(struct fring_qstats *st, uint64_t ns);
FRING_HIDDEN uint64_t fring_now_ns(void);
/* The session's totals as log lines (SIGUSR1 without --stats-file). */
FRING_HIDDEN void stats_log(const fring_session_t *s);

#endif
