/* SPDX-License-Identifier: MIT */
/*
 * slowstat [-p PROCS] [-t SECONDS] [-b BASE] [-s STRIDE] DIR: the stat job
 * of bench/slow.sh. PROCS processes (default 16) stat files of DIR that
 * nobody looked at before, each its own names: process i stats
 * DIR/f<BASE + i*STRIDE>, DIR/f<BASE + i*STRIDE + 1>, ... (bench/slowfs_ns.h
 * names them) until SECONDS (default 10) have passed since they all
 * started together, or its STRIDE names (default 100000) are used up.
 * Each stat of a new name costs the server one LOOKUP.
 *
 * Prints one JSON line: ops, seconds (from the common start to the last
 * process's end), ops_per_s, errors, and the latency of one stat in
 * microseconds: mean, p50, p90, p99, p99.9, max (over every stat of every
 * process; the percentile is the nearest rank).
 *
 * fio has no job for "stat of distinct files with N processes": its
 * filestat engine stats the files of its file set, which are named per job
 * and reused across loops, so after the first pass the kernel's cache
 * answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Per process, in shared memory: its count, errors, end time, then its
 * latencies in ns (each below 4.29 s; longer ones are clipped). */
struct slot {
	uint64_t ops, errors;
	double end;
};

static double pct(const uint32_t *v, uint64_t n, double p)
{
	uint64_t rank;

	if (!n)
		return 0;
	rank = (uint64_t)(p / 100.0 * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1] / 1000.0;
}

static void child(const char *dir, unsigned long first, unsigned long stride,
		  const volatile double *deadline, struct slot *s,
		  uint32_t *lat, int go)
{
	char path[PATH_MAX], c;
	struct stat st;

	/* wait for the common start: the parent closes the pipe */
	if (read(go, &c, 1) < 0)
		_exit(2);
	for (unsigned long k = 0; k < stride; k++) {
		double t0, t1;

		snprintf(path, sizeof(path), "%s/f%lu", dir, first + k);
		t0 = now();
		if (t0 >= *deadline)
			break;
		if (stat(path, &st) < 0)
			s->errors++;
		t1 = now();
		lat[k] = t1 - t0 >= 4.29 ? UINT32_MAX
					 : (uint32_t)((t1 - t0) * 1e9);
		s->ops++;
	}
	s->end = now();
	_exit(0);
}

int main(int argc, char *argv[])
{
	unsigned long procs = 16, base = 0, stride = 100000;
	double secs = 10, start, end = 0, sum = 0;
	volatile double *deadline;
	struct slot *slots;
	uint32_t *lat, *all;
	uint64_t ops = 0, errors = 0;
	size_t bytes;
	int opt, go[2], failed = 0;

	while ((opt = getopt(argc, argv, "p:t:b:s:")) != -1) {
		switch (opt) {
		case 'p':
			procs = strtoul(optarg, NULL, 10);
			break;
		case 't':
			secs = strtod(optarg, NULL);
			break;
		case 'b':
			base = strtoul(optarg, NULL, 10);
			break;
		case 's':
			stride = strtoul(optarg, NULL, 10);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || !procs || procs > 1024 || !stride ||
	    stride > 10000000 || secs <= 0)
		goto usage;

	/* the deadline, the slots, then every process's latencies */
	bytes = 64 + procs * sizeof(*slots) + procs * stride * sizeof(*lat);
	deadline = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (deadline == MAP_FAILED || pipe(go) < 0) {
		perror("slowstat");
		return 1;
	}
	slots = (struct slot *)((char *)deadline + 64);
	lat = (uint32_t *)(slots + procs);
	*deadline = 1e300;
	for (unsigned long i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("slowstat: fork");
			return 1;
		}
		if (pid == 0) {
			close(go[1]);
			child(argv[optind], base + i * stride, stride, deadline,
			      &slots[i], lat + i * stride, go[0]);
		}
	}
	close(go[0]);
	start = now();
	*deadline = start + secs;
	close(go[1]); /* go */
	for (unsigned long i = 0; i < procs; i++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	if (failed) {
		fprintf(stderr, "slowstat: a process failed\n");
		return 1;
	}

	for (unsigned long i = 0; i < procs; i++) {
		ops += slots[i].ops;
		errors += slots[i].errors;
		if (slots[i].end > end)
			end = slots[i].end;
	}
	all = malloc((ops ? ops : 1) * sizeof(*all));
	if (!all) {
		perror("slowstat");
		return 1;
	}
	ops = 0;
	for (unsigned long i = 0; i < procs; i++)
		for (uint64_t k = 0; k < slots[i].ops; k++) {
			all[ops++] = lat[i * stride + k];
			sum += lat[i * stride + k] / 1000.0;
		}
	qsort(all, ops, sizeof(*all), cmp_u32);
	printf("{\"procs\":%lu,\"ops\":%llu,\"errors\":%llu,\"seconds\":%.4f,"
	       "\"ops_per_s\":%.1f,\"lat_us\":{\"mean\":%.1f,\"p50\":%.1f,"
	       "\"p90\":%.1f,\"p99\":%.1f,\"p99.9\":%.1f,\"max\":%.1f}}\n",
	       procs, (unsigned long long)ops, (unsigned long long)errors,
	       end - start, ops / (end - start), ops ? sum / ops : 0,
	       pct(all, ops, 50), pct(all, ops, 90), pct(all, ops, 99),
	       pct(all, ops, 99.9), ops ? all[ops - 1] / 1000.0 : 0);
	free(all);
	return errors ? 3 : 0;
usage:
	fprintf(stderr, "usage: slowstat [-p PROCS] [-t SECONDS] [-b BASE] "
			"[-s STRIDE] DIR\n");
	return 2;
}
