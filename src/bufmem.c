/* SPDX-License-Identifier: MIT */
/*
 * Memory for the buffers the kernel copies payloads into and out of: the
 * ring entries' payload buffers and the queues' pools.
 *
 * A 1 MiB READ answer is copied twice on the ring rungs without zero copy
 * (backing file to payload, payload to the client's pages), and on 4 KiB
 * pages each copy walks 256 translations. A region of at least 2 MiB is
 * therefore placed on a 2 MiB boundary and advised for transparent huge
 * pages (MADV_HUGEPAGE: the distributions' default THP mode, "madvise",
 * gives huge pages only to regions that ask): 1 MiB sequential reads and
 * writes through the passthrough went up about 6% (doc/benchmarks.md).
 * Without THP (mode "never", or no huge page free) the region simply keeps
 * 4 KiB pages: the advice is not a requirement.
 *
 * A region a queue will use is faulted in here, once: the kernel's copies
 * must not fault on the serving path, and a region that cannot be backed
 * should fail at setup, not in the middle of a request. A region that may
 * never be used (the queue of a CPU that is offline: the kernel has a
 * queue per possible CPU, and only clients running on that CPU use it) is
 * left to fault page by page on first use, so that it costs address space
 * and nothing else until then.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bufmem.h"

#define HUGE_SZ ((size_t)2 << 20)

/* 0, or -1 when the memory cannot be had (madvise's ENOMEM, EFAULT...) */
static int prefault(char *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

#ifdef MADV_POPULATE_WRITE
	if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
		return 0;
	if (errno != EINVAL)
		return -1;
#endif
	/* before Linux 5.14: one write a page (the memory is zero already) */
	for (size_t off = 0; off < len; off += pg)
		p[off] = 0;
	return 0;
}

void *buf_map(size_t len, bool populate)
{
	char *raw, *p;
	size_t rawlen;

	if (len < HUGE_SZ) {
		/* prefault() below, not MAP_POPULATE: that one maps memory
		 * it cannot back and says nothing */
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
#ifdef MADV_NOHUGEPAGE
		/* Too small for a huge page of its own; but merged with a
		 * neighbouring mapping, THP "always" backs it with one it
		 * shares: a pool registered by two rings then pins (and
		 * charges to RLIMIT_MEMLOCK) the whole 2 MiB in each
		 * (io_buffer_account_pin()). Seen with the 1 MiB pools of
		 * offline CPUs' queues, when they were registered: VmPin
		 * 102 MiB for 78 MiB of pools. */
		(void)madvise(p, len, MADV_NOHUGEPAGE);
#endif
	} else {
		/* Over-allocate by 2 MiB, keep the aligned part, give back
		 * the rest: each end is unmapped separately, so the region
		 * stays exactly len bytes and its parts can be unmapped one
		 * by one later. */
		rawlen = len + HUGE_SZ;
		raw = mmap(NULL, rawlen, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (raw == MAP_FAILED)
			return NULL;
		p = (char *)(((uintptr_t)raw + HUGE_SZ - 1) &
			     ~(uintptr_t)(HUGE_SZ - 1));
		if (p > raw)
			munmap(raw, (size_t)(p - raw));
		if (raw + rawlen > p + len)
			munmap(p + len, (size_t)(raw + rawlen - (p + len)));
#ifdef MADV_HUGEPAGE
		(void)madvise(p, len, MADV_HUGEPAGE);
#endif
	}
	if (populate && prefault(p, len)) {
		munmap(p, len);
		return NULL;
	}
	return p;
}
