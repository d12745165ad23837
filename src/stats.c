/* SPDX-License-Identifier: MIT */
/* Per-queue counters, their sums and the JSON dump behind --stats-file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"
#include "core.h"
#include "opname.h"

uint64_t fring_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t stats_in_flight(const struct fring_qstats *st)
{
	uint64_t done, begun;

	/* Ended requests before begun ones: a request is counted begun before
	 * it can end, so this order never sees more ended than begun (the
	 * clamp is for a reader on a weaker memory model than x86's). */
	done = atomic_load_explicit(&st->replies, memory_order_acquire) +
	       atomic_load_explicit(&st->replies_own, memory_order_acquire) +
	       atomic_load_explicit(&st->noreplies, memory_order_acquire) +
	       atomic_load_explicit(&st->noreplies_own, memory_order_acquire);
	begun = atomic_load_explicit(&st->requests, memory_order_acquire);
	return begun > done ? begun - done : 0;
}

void stats_note_latency(struct fring_qstats *st, uint64_t ns)
{
	uint64_t cur =
		atomic_load_explicit(&st->max_latency_ns, memory_order_relaxed);

	while (ns > cur && !atomic_compare_exchange_weak_explicit(
				   &st->max_latency_ns, &cur, ns,
				   memory_order_relaxed, memory_order_relaxed))
		;
}

/* Every counter of a queue at one moment (each exact, the set not a
 * snapshot), indexed by enum stat_id, plus what is computed when read. */
enum stat_id {
#define STAT_ID(name, how) STAT_##name,
	FRING_STATS_LIST(STAT_ID, STAT_ID)
#undef STAT_ID
		STAT_COUNT
};

enum stat_how { SUM, MAX };

static const struct {
	const char *name;
	enum stat_how how;
	bool ext; /* not in struct fring_stats */
} stat_info[STAT_COUNT] = {
#define STAT_PUB(name, how) {#name, how, false},
#define STAT_EXT(name, how) {#name, how, true},
	FRING_STATS_LIST(STAT_PUB, STAT_EXT)
#undef STAT_PUB
#undef STAT_EXT
};

struct stats_snap {
	uint64_t c[STAT_COUNT];
	uint64_t by_opcode[FRING_STATS_OPCODES];
	uint64_t oldest_pending_ns;
	uint64_t faults_injected;
};

static void stats_read(const struct fring_qstats *in, struct stats_snap *o)
{
	memset(o, 0, sizeof(*o));
#define STAT_LD(name, how)                                                     \
	o->c[STAT_##name] =                                                    \
		atomic_load_explicit(&in->name, memory_order_relaxed);
	FRING_STATS_LIST(STAT_LD, STAT_LD)
#undef STAT_LD
	o->c[STAT_replies] +=
		atomic_load_explicit(&in->replies_own, memory_order_relaxed);
	o->c[STAT_bytes_read] +=
		atomic_load_explicit(&in->bytes_read_own, memory_order_relaxed);
	o->c[STAT_in_flight] = stats_in_flight(in);
	for (unsigned i = 0; i < FRING_STATS_OPCODES; i++)
		o->by_opcode[i] = atomic_load_explicit(&in->by_opcode[i],
						       memory_order_relaxed);
}

/* The slot table only grows while the session lives, under the queue's
 * lock; a slot is pending from req_begin() until its answer is claimed. */
static uint64_t oldest_pending(const struct fring_queue *cq, uint64_t now)
{
	struct fring_queue *q = (struct fring_queue *)cq;
	uint64_t oldest = 0;

	pthread_mutex_lock(&q->lock);
	for (unsigned i = 0; i < q->nslots; i++) {
		struct fring_req *r = q->slots[i];
		uint64_t t;

		if (!atomic_load(&r->unique) || atomic_load(&r->answered))
			continue;
		t = atomic_load_explicit(&r->t_start, memory_order_relaxed);
		if (t && t < now && now - t > oldest)
			oldest = now - t;
	}
	pthread_mutex_unlock(&q->lock);
	return oldest;
}

static void queue_read(const struct fring_queue *q, struct stats_snap *o)
{
	stats_read(&q->stats, o);
	o->oldest_pending_ns = oldest_pending(q, fring_now_ns());
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void stats_sum(struct stats_snap *t, const struct stats_snap *s)
{
	for (unsigned i = 0; i < STAT_COUNT; i++)
		t->c[i] = stat_info[i].how == MAX ? max_u64(t->c[i], s->c[i])
						  : t->c[i] + s->c[i];
	t->oldest_pending_ns =
		max_u64(t->oldest_pending_ns, s->oldest_pending_ns);
	for (unsigned i = 0; i < FRING_STATS_OPCODES; i++)
		t->by_opcode[i] += s->by_opcode[i];
}

/* Queue q's counters, or the sum over the queues and the ring transports'
 * /dev/fuse side channel for FRING_STATS_ALL. */
static int session_snap(const fring_session_t *s, unsigned q,
			struct stats_snap *out)
{
	struct stats_snap one;

	if (q != FRING_STATS_ALL) {
		if (q >= s->nqueues || !s->queues)
			return -EINVAL;
		queue_read(&s->queues[q], out);
		return 0;
	}
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; s->queues && i < s->nqueues; i++) {
		queue_read(&s->queues[i], &one);
		stats_sum(out, &one);
	}
	if (s->side) {
		queue_read(s->side, &one);
		stats_sum(out, &one);
	}
#ifdef FRING_FAULT_INJECTION
	for (int p = 0; p < FAULT_NPOINTS; p++)
		out->faults_injected += fault_injected((enum fault_point)p);
#endif
	return 0;
}

int fring_session_stats(const fring_session_t *s, unsigned q,
			struct fring_stats *out)
{
	struct stats_snap snap;
	int ret;

	if (!s || !out)
		return -EINVAL;
	ret = session_snap(s, q, &snap);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
#define STAT_PUB(name, how) out->name = snap.c[STAT_##name];
#define STAT_EXT(name, how)
	FRING_STATS_LIST(STAT_PUB, STAT_EXT)
#undef STAT_PUB
#undef STAT_EXT
	memcpy(out->by_opcode, snap.by_opcode, sizeof(out->by_opcode));
	out->oldest_pending_ns = snap.oldest_pending_ns;
	out->faults_injected = snap.faults_injected;
	return 0;
}

/* Names fring_session_counter() still takes for counters renamed since:
 * the splice counters were named after the FUSE operation whose data they
 * moved, which is the other option's name (splice_write_bytes counted what
 * splice_read moved). Not in the JSON. */
static const struct {
	const char *old, *name;
} counter_aliases[] = {
	{"splice_requests", "splice_read_requests"},
	{"splice_write_bytes", "splice_read_data_bytes"},
	{"splice_read_bytes", "splice_write_data_bytes"},
};

int fring_session_counter(const fring_session_t *s, unsigned q,
			  const char *name, uint64_t *value)
{
	struct stats_snap snap;
	int ret;

	if (!s || !name || !value)
		return -EINVAL;
	ret = session_snap(s, q, &snap);
	if (ret)
		return ret;
	for (size_t i = 0; i < FRING_ARRAY_SIZE(counter_aliases); i++) {
		if (!strcmp(name, counter_aliases[i].old)) {
			name = counter_aliases[i].name;
			break;
		}
	}
	for (unsigned i = 0; i < STAT_COUNT; i++)
		if (!strcmp(name, stat_info[i].name)) {
			*value = snap.c[i];
			return 0;
		}
	if (!strcmp(name, "oldest_pending_ns"))
		*value = snap.oldest_pending_ns;
	else if (!strcmp(name, "faults_injected"))
		*value = snap.faults_injected;
	else
		return -ENOENT;
	return 0;
}

static void json_counters(FILE *f, const struct stats_snap *st)
{
	for (unsigned i = 0; i < STAT_COUNT; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", stat_info[i].name,
			(unsigned long long)st->c[i]);
	fprintf(f, ",\"oldest_pending_ns\":%llu",
		(unsigned long long)st->oldest_pending_ns);
}

/* The JSON grows with the number of queues (one per possible CPU on the
 * ring), so it is built in a memory stream, then written whole. */
int fring_session_write_stats(const fring_session_t *s, int fd)
{
	struct stats_snap st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret = 0;

	if (!s || fd < 0)
		return -EINVAL;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	session_snap(s, FRING_STATS_ALL, &st);
	fprintf(f, "{\"transport\":\"%s\",\"queues\":%u,",
		fring_transport_name(s->transport), s->nqueues);
	json_counters(f, &st);
	fprintf(f, ",\"proto_minor\":%u,\"max_write\":%u,\"by_opcode\":{",
		s->conn.proto_minor, s->conn.max_write);
	bool first = true;
	for (unsigned i = 0; i < FRING_STATS_OPCODES; i++) {
		if (!st.by_opcode[i])
			continue;
		fprintf(f, "%s\"%s\":%llu", first ? "" : ",", fring_opname(i),
			(unsigned long long)st.by_opcode[i]);
		first = false;
	}
	fputc('}', f);
#ifdef FRING_FAULT_INJECTION
	fprintf(f, ",\"faults_injected\":%llu,\"faults\":{",
		(unsigned long long)st.faults_injected);
	for (int p = 0; p < FAULT_NPOINTS; p++)
		fprintf(f, "%s\"%s\":%llu", p ? "," : "",
			fault_point_name((enum fault_point)p),
			(unsigned long long)fault_injected(
				(enum fault_point)p));
	fputc('}', f);
#endif
	fputs(",\"per_queue\":[", f);
	for (unsigned q = 0; q < s->nqueues; q++) {
		session_snap(s, q, &st);
		fprintf(f, "%s{\"queue\":%u,", q ? "," : "", q);
		json_counters(f, &st);
		fputc('}', f);
	}
	fputc(']', f);
	if (s->side) {
		queue_read(s->side, &st);
		fputs(",\"side_channel\":{", f);
		json_counters(f, &st);
		fputc('}', f);
	}
	fputs(",\"transport_reason\":\"", f);
	for (const char *r = session_reason(s); *r; r++) {
		if (*r == '"' || *r == '\\')
			fputc('\\', f);
		fputc(*r, f);
	}
	fputs("\"}\n", f);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		off += (size_t)w;
	}
	free(buf);
	return ret;
}

/* Log lines of one statistics report: pairs appended to a line that is
 * sent when the next pair would not fit (fring_log's lines are 1 KiB). */
struct stats_line {
	char buf[900];
	size_t len;
	const char *head;
};

static void line_flush(struct stats_line *l)
{
	if (l->len)
		fr_info("%s", l->buf);
	l->len = 0;
}

static void line_add(struct stats_line *l, const char *key,
		     unsigned long long v)
{
	char pair[160];
	int n = snprintf(pair, sizeof(pair), " %s=%llu", key, v);

	if (n < 0)
		return;
	if (l->len && l->len + (size_t)n >= sizeof(l->buf))
		line_flush(l);
	if (!l->len)
		l->len =
			(size_t)snprintf(l->buf, sizeof(l->buf), "%s", l->head);
	if (l->len + (size_t)n < sizeof(l->buf)) {
		memcpy(l->buf + l->len, pair, (size_t)n + 1);
		l->len += (size_t)n;
	}
}

/*
 * SIGUSR1 without --stats-file: the totals in the log, key=value as the
 * JSON names them. The counters every report has, then the others that
 * are not 0, then a line of requests by opcode.
 */
void stats_log(const fring_session_t *s)
{
	static const char *const always[] = {"requests", "replies", "errors",
					     "in_flight", "handler_bugs"};
	struct stats_line l = {.head = "statistics:"};
	struct stats_snap st;
	char head[160];

	session_snap(s, FRING_STATS_ALL, &st);
	snprintf(head, sizeof(head), "statistics: transport=%s queues=%u",
		 fring_transport_name(s->transport), s->nqueues);
	l.head = head;
	for (unsigned a = 0; a < FRING_ARRAY_SIZE(always); a++)
		for (unsigned i = 0; i < STAT_COUNT; i++)
			if (!strcmp(stat_info[i].name, always[a]))
				line_add(&l, stat_info[i].name, st.c[i]);
	for (unsigned i = 0; i < STAT_COUNT; i++) {
		bool shown = false;

		for (unsigned a = 0; a < FRING_ARRAY_SIZE(always); a++)
			shown |= !strcmp(stat_info[i].name, always[a]);
		if (!shown && st.c[i])
			line_add(&l, stat_info[i].name, st.c[i]);
	}
	if (st.oldest_pending_ns)
		line_add(&l, "oldest_pending_ns", st.oldest_pending_ns);
	line_flush(&l);
	l.head = "statistics: by_opcode";
	for (unsigned i = 0; i < FRING_STATS_OPCODES; i++)
		if (st.by_opcode[i])
			line_add(&l, fring_opname(i), st.by_opcode[i]);
	line_flush(&l);
}
