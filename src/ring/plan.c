/* SPDX-License-Identifier: MIT */
/*
 * The plan of the ring rungs, what the ladder may know without the loop:
 * how many queues the kernel has (one per possible CPU), a ring as every
 * ring thread builds it, and what io_uring charges to RLIMIT_MEMLOCK for
 * them, counted the way it counts (a mount and fring-probe run the same
 * code): to refuse what the kernel would refuse, and to say how much.
 *
 * A registered buffer is charged page by page (io_buffer_account_pin(): a
 * huge page counts whole, and a pool from buf_map() is whole huge pages
 * plus small ones, so the count is its pages), on every kernel. A ring's
 * own memory, its SQ/CQ rings and SQE array, is charged by some: 6.18
 * charges both regions page by page (io_create_region()), the 7.3 guest's
 * kernel charges neither. Measured without CAP_IPC_LOCK: on 6.18 a
 * 16-entry SQE128 ring costs 2 pages (8 of them fit 64 KiB), a 256-entry
 * one 11 (2 take 88 KiB, and 84 refuse them); on 7.3 a ring is taken
 * under ulimit -l 0, and a 68 KiB buffer refused under 64. Nothing is
 * charged with CAP_IPC_LOCK in the initial user namespace.
 *
 * The entry buffers (uring), plain pools (bufpool), eventfds and the
 * registered ring descriptor are never charged.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ring.h"

/* struct io_rings up to its cqes[] (cacheline-aligned), an io_uring_cqe, a
 * 128-byte SQE (SQE128), an SQ array slot. */
#define RINGS_HEAD 64
#define CQE_BYTES  16
#define SQE_BYTES  128
#define SQ_SLOT	   4

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

size_t ring_page_size(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 ? (size_t)pg : FRING_PAGE;
}

/* -o threads=N, else one thread per online CPU: the queues of offline
 * CPUs only serve clients of a CPU that comes online later, and share the
 * threads (ring_prepare() spreads them). */
unsigned ring_nthreads(unsigned threads, unsigned nqueues, unsigned nonline)
{
	unsigned n = threads ? threads : nonline ? nonline : 1;

	return n < nqueues ? n : nqueues;
}

/* Buffers per queue pool: -o pool_bufs=N, else queue_depth. Nearly every
 * request holds a pool buffer while it is served (an answer's arguments are
 * copied through it too); only zero-copied READs need none. So fewer
 * buffers than entries is a smaller queue depth for everything but those:
 * in the 7.3 guest pool_bufs=4 made pool_waits 16% of the requests of a
 * 4 KiB random read at iodepth 32 on bufpool-registered, 2 up to 33% of
 * every job's (doc/transports.md, "Memory and threads"). */
unsigned ring_pool_bufs(const struct fring_config *cfg)
{
	return cfg->pool_bufs ? cfg->pool_bufs : cfg->queue_depth;
}

/* The SQEs of a thread's ring serving nq queues (rt_setup() builds it so):
 * a power of two with room for twice its queues' entries, plus a few for
 * its own wake-up read and exit poll. */
unsigned ring_sq_entries(unsigned nq, unsigned depth)
{
	unsigned entries = 16;

	while (entries < nq * depth * 2 + 8)
		entries *= 2;
	return entries;
}

/*
 * One ring of `entries` SQEs (a power of two, as the kernel rounds it) and
 * twice as many CQEs, where the kernel charges rings: rings_size() of
 * io_uring.c, page-aligned, plus the SQE array. liburing from 2.5 on may ask
 * for IORING_SETUP_NO_SQARRAY, which drops the SQ array: where its headers know
 * the flag the array is left out, so the count is never above the kernel's.
 */
size_t ring_locked_bytes(unsigned entries)
{
	size_t pg = ring_page_size();
	size_t rings =
		align_up(RINGS_HEAD + (size_t)entries * 2 * CQE_BYTES, 64);

#ifndef IORING_SETUP_NO_SQARRAY
	rings += (size_t)entries * SQ_SLOT;
#endif
	return align_up(rings, pg) + align_up((size_t)entries * SQE_BYTES, pg);
}

void ring_plan(unsigned nqueues, unsigned nonline, unsigned threads,
	       unsigned depth, struct ring_plan *p)
{
	unsigned n = ring_nthreads(threads, nqueues, nonline);

	p->nthreads = n;
	p->entries = 0;
	p->locked = 0;
	/* the queues are dealt out to the threads in turn (ring_prepare());
	 * each ring has room for every entry its queues may grow to */
	for (unsigned t = 0; t < n; t++) {
		unsigned nq = nqueues / n + (t < nqueues % n);
		unsigned e = ring_sq_entries(nq, depth);

		if (e > p->entries)
			p->entries = e;
		p->locked += ring_locked_bytes(e);
	}
}

size_t ring_pool_locked_bytes(size_t pool_len)
{
	return align_up(pool_len, ring_page_size());
}

/*
 * A sysfs CPU list ("0-3,6,8-9"): how many CPUs it names, and for each
 * below n whether it is in it (map may be NULL). -1 when it cannot be
 * read.
 */
static int cpu_list(const char *path, bool *map, unsigned n)
{
	FILE *f = fopen(path, "re");
	unsigned count = 0, a, b;
	int c;

	if (!f)
		return -1;
	if (map)
		memset(map, 0, n * sizeof(*map));
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%u", &b) != 1 || b < a)
				break;
			c = fgetc(f);
		}
		count += b - a + 1;
		for (unsigned i = a; map && i <= b && i < n; i++)
			map[i] = true;
		if (c != ',')
			break;
	}
	fclose(f);
	return count ? (int)count : -1;
}

unsigned ring_nr_queues(void)
{
	int n = cpu_list("/sys/devices/system/cpu/possible", NULL, 0);

	if (n < 1)
		n = (int)sysconf(_SC_NPROCESSORS_CONF);
	return n < 1 ? 1 : (unsigned)n;
}

unsigned ring_online_map(bool *online, unsigned nqueues)
{
	bool mine[online ? 1 : nqueues];
	bool *map = online ? online : mine;
	unsigned count = 0;

	if (cpu_list("/sys/devices/system/cpu/online", map, nqueues) < 0) {
		/* no sysfs: the first CPUs, as many as are online */
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		for (unsigned q = 0; q < nqueues; q++)
			map[q] = n < 1 || q < (unsigned long)n;
	}
	for (unsigned q = 0; q < nqueues; q++)
		count += map[q];
	/* a queue for a CPU past the possible ones cannot exist; with none
	 * online (a broken list), treat every queue as online */
	if (!count) {
		for (unsigned q = 0; q < nqueues; q++)
			map[q] = true;
		count = nqueues;
	}
	return count;
}

/*
 * One thread's ring: SQE128 (the kernel refuses FUSE commands on 64-byte
 * SQEs: doc/kernel-protocol.md, "Ring commands"); SINGLE_ISSUER because one
 * thread owns it; COOP_TASKRUN so that the kernel's copy of a request into an
 * entry waits for the thread's next kernel entry instead of interrupting a
 * handler. Not DEFER_TASKRUN: on the 4 KiB randread bench it was 3% slower at
 * 2% more CPU (doc/benchmarks.md), as libfuse's authors also found.
 */
int ring_init(struct io_uring *ring, unsigned entries)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_SINGLE_ISSUER |
		  IORING_SETUP_COOP_TASKRUN;
	ret = io_uring_queue_init_params(entries, ring, &p);
	if (ret == -EINVAL) {
		/* kernels before 6.0 lack SINGLE_ISSUER */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SQE128;
		ret = io_uring_queue_init_params(entries, ring, &p);
	}
	return ret;
}
