/*
 * probe2: what one 1 MiB copy from the page cache costs, by the
 * destination's place (bench/reference/2026-12-02-vm-ext4-bpr/README.md).
 * probe2 FILE...: each FILE read once (cached), then read whole twice per
 * case, the second pass reported: pread() into a 2 MiB-aligned THP buffer
 * at offsets 0, 4 KiB, 68 KiB and 1 MiB; in 64 KiB and 4 KiB calls; and
 * READ_FIXED on io_uring into the same buffer registered (offsets 0 and
 * 4 KiB). First a copy in user space, 1 MiB at a time, as a baseline.
 * Build: cc -O2 -o probe2 probe2.c -luring
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#define MB (1u << 20)
static double cpu(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 +
	       r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
static char *map(size_t len, int huge)
{
	char *raw = mmap(NULL, len + 2 * MB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p = (char *)(((uintptr_t)raw + 2 * MB - 1) &
			   ~(uintptr_t)(2 * MB - 1));
	madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	madvise(p, len, MADV_POPULATE_WRITE);
	return p;
}
static struct io_uring ring;
/* mode 0 pread, 2 READ_FIXED; chunk bytes per call; dest = buf+doff */
static void run(const char *tag, const char *file, char *buf, size_t doff,
		size_t chunk, int mode)
{
	int fd = open(file, O_RDONLY);
	off_t sz = lseek(fd, 0, SEEK_END);
	char b[64];
	for (int pass = 0; pass < 2; pass++) {
		double t0 = now(), c0 = cpu();
		for (off_t off = 0; off < sz; off += chunk) {
			char *p = buf + doff;
			ssize_t n;
			if (mode == 0)
				n = pread(fd, p, chunk, off);
			else {
				struct io_uring_sqe *s =
					io_uring_get_sqe(&ring);
				io_uring_prep_read_fixed(s, fd, p, chunk, off,
							 0);
				io_uring_submit(&ring);
				struct io_uring_cqe *c;
				io_uring_wait_cqe(&ring, &c);
				n = c->res;
				io_uring_cqe_seen(&ring, c);
			}
			if (n != (ssize_t)chunk) {
				printf("short %zd\n", n);
				break;
			}
		}
		double t = now() - t0, c = cpu() - c0;
		if (pass)
			printf("@@PROBE2 %-8s %-10s doff=%-7zu chunk=%-7zu "
			       "MiB/s=%6.0f cpu-s/GiB=%6.2f@@\n",
			       tag, mode ? "READ_FIXED" : "pread", doff, chunk,
			       sz / MB / t, c * 1024 / (sz / MB));
	}
	fflush(stdout);
	close(fd);
	(void)b;
}
int main(int argc, char **argv)
{
	char *thp = map(4 * MB, 1);
	io_uring_queue_init(8, &ring, 0);
	struct iovec iov = {thp, 4 * MB};
	if (io_uring_register_buffers(&ring, &iov, 1))
		printf("noreg\n");
	char *a = map(64 * MB, 1), *b = map(64 * MB, 1);
	for (int k = 0; k < 2; k++) {
		size_t o = k ? 4096 : 0;
		double c0 = cpu();
		for (int i = 0; i < 2; i++)
			for (size_t m = 0; m + MB + o <= 64 * MB; m += 2 * MB)
				memcpy(b + m + o, a + m, MB);
		printf("@@PROBE2 memcpy in user space, 1 MiB at a time, dst "
		       "offset %zu: cpu-s/GiB=%.2f@@\n",
		       o, (cpu() - c0) * 16);
	}
	munmap(a, 64 * MB);
	munmap(b, 64 * MB);
	for (int f = 1; f < argc; f++) {
		const char *fn = argv[f];
		char tag[16];
		snprintf(tag, sizeof tag, "f%d", f);
		int fd = open(fn, O_RDONLY);
		char *t = malloc(MB);
		while (read(fd, t, MB) > 0)
			continue; /* into the page cache */
		close(fd);
		free(t);
		run(tag, fn, thp, 0, MB, 0);
		run(tag, fn, thp, 4096, MB, 0);
		run(tag, fn, thp, 69632, MB, 0);
		run(tag, fn, thp, MB, MB, 0);
		run(tag, fn, thp, 0, 65536, 0);
		run(tag, fn, thp, 0, 4096, 0);
		run(tag, fn, thp, 0, MB, 2);
		run(tag, fn, thp, 4096, MB, 2);
	}
	return 0;
}
