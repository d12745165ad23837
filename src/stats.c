/* SPDX-License-Identifier: MIT */
/* Per-queue counters, their sums and the JSON dump behind --stats-file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"
#include "fring_int.h"

uint64_t fring_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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

#define LD(f) atomic_load_explicit(&in->f, memory_order_relaxed)
static void stats_read(const struct fring_qstats *in, struct fring_stats *o)
{
	memset(o, 0, sizeof(*o));
	o->requests = LD(requests);
	o->replies = LD(replies);
	o->errors = LD(errors);
	o->malformed = LD(malformed);
	o->bytes_read = LD(bytes_read);
	o->bytes_written = LD(bytes_written);
	o->zero_copy_requests = LD(zero_copy_requests);
	o->pool_waits = LD(pool_waits);
	o->in_flight = LD(in_flight);
	o->handler_bugs = LD(handler_bugs);
	o->max_latency_ns = LD(max_latency_ns);
	o->ring_entries = LD(ring_entries);
	o->pool_requests = LD(pool_requests);
	o->zero_copy_reads = LD(zero_copy_reads);
	o->zero_copy_writes = LD(zero_copy_writes);
	o->zero_copy_staged = LD(zero_copy_staged);
	o->send_failures = LD(send_failures);
	for (unsigned i = 0; i < FRING_STATS_OPCODES; i++)
		o->by_opcode[i] = LD(by_opcode[i]);
}
#undef LD

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

static void queue_read(const struct fring_queue *q, struct fring_stats *o)
{
	stats_read(&q->stats, o);
	o->oldest_pending_ns = oldest_pending(q, fring_now_ns());
}

static void stats_sum(struct fring_stats *t, const struct fring_stats *s)
{
	t->requests += s->requests;
	t->replies += s->replies;
	t->errors += s->errors;
	t->malformed += s->malformed;
	t->bytes_read += s->bytes_read;
	t->bytes_written += s->bytes_written;
	t->zero_copy_requests += s->zero_copy_requests;
	t->pool_waits += s->pool_waits;
	t->in_flight += s->in_flight;
	t->handler_bugs += s->handler_bugs;
	t->ring_entries += s->ring_entries;
	t->pool_requests += s->pool_requests;
	t->zero_copy_reads += s->zero_copy_reads;
	t->zero_copy_writes += s->zero_copy_writes;
	t->zero_copy_staged += s->zero_copy_staged;
	t->send_failures += s->send_failures;
	if (s->max_latency_ns > t->max_latency_ns)
		t->max_latency_ns = s->max_latency_ns;
	if (s->oldest_pending_ns > t->oldest_pending_ns)
		t->oldest_pending_ns = s->oldest_pending_ns;
	for (unsigned i = 0; i < FRING_STATS_OPCODES; i++)
		t->by_opcode[i] += s->by_opcode[i];
}

int fring_session_stats(const fring_session_t *s, unsigned q,
			struct fring_stats *out)
{
	struct fring_stats one;

	if (!s || !out)
		return -EINVAL;
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
	/* the /dev/fuse side channel of the ring transports */
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

static void json_counters(FILE *f, const struct fring_stats *st)
{
	fprintf(f,
		"\"requests\":%llu,\"replies\":%llu,\"errors\":%llu,"
		"\"malformed\":%llu,\"bytes_read\":%llu,"
		"\"bytes_written\":%llu,\"zero_copy_requests\":%llu,"
		"\"pool_waits\":%llu,\"in_flight\":%llu,"
		"\"handler_bugs\":%llu,\"max_latency_ns\":%llu,"
		"\"ring_entries\":%llu,\"pool_requests\":%llu,"
		"\"zero_copy_reads\":%llu,\"zero_copy_writes\":%llu,"
		"\"zero_copy_staged\":%llu,\"send_failures\":%llu,"
		"\"oldest_pending_ns\":%llu",
		(unsigned long long)st->requests,
		(unsigned long long)st->replies, (unsigned long long)st->errors,
		(unsigned long long)st->malformed,
		(unsigned long long)st->bytes_read,
		(unsigned long long)st->bytes_written,
		(unsigned long long)st->zero_copy_requests,
		(unsigned long long)st->pool_waits,
		(unsigned long long)st->in_flight,
		(unsigned long long)st->handler_bugs,
		(unsigned long long)st->max_latency_ns,
		(unsigned long long)st->ring_entries,
		(unsigned long long)st->pool_requests,
		(unsigned long long)st->zero_copy_reads,
		(unsigned long long)st->zero_copy_writes,
		(unsigned long long)st->zero_copy_staged,
		(unsigned long long)st->send_failures,
		(unsigned long long)st->oldest_pending_ns);
}

/* The JSON grows with the number of queues (one per possible CPU on the
 * ring), so it is built in a memory stream, then written whole. */
int fring_session_write_stats(const fring_session_t *s, int fd)
{
	struct fring_stats st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret = 0;

	if (!s || fd < 0)
		return -EINVAL;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fring_session_stats(s, FRING_STATS_ALL, &st);
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
	fring_session_stats(s, FRING_STATS_ALL, &st);
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
		fring_session_stats(s, q, &st);
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
	for (const char *r = s->reason; *r; r++) {
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
