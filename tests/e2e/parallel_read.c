/* SPDX-License-Identifier: MIT */
/*
 * parallel_read [--together] READERS MNT SRC FILE...: READERS threads per
 * FILE, all started at once, each reading MNT/FILE whole and comparing it
 * byte for byte with SRC/FILE. Prints "MS ms" (wall time of the reads) and
 * one "FAIL" line per mismatch; exits 0, or 1 on a mismatch or an error.
 * Threads rather than processes: on a loaded machine process start-up
 * would swamp the latencies remotefs.sh measures. --together: the threads
 * wait at a start line until all are created, then read (and the time
 * counts from there), so that on a loaded machine thread start-up cannot
 * spread the reads out either (remotefs.sh wants them in flight at once).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct reader {
	const char *mnt, *src, *file;
	pthread_t tid;
};

static atomic_int failures;
static bool together;
static pthread_barrier_t start_line;

/* The whole file, or NULL; *len its size. */
static char *slurp(const char *dir, const char *file, size_t *len)
{
	char path[4096];
	size_t cap = 65536;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		perror(path);
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*len = 0;
	while ((n = read(fd, buf + *len, cap - *len)) > 0) {
		*len += (size_t)n;
		if (*len == cap && !(buf = realloc(buf, cap *= 2)))
			break;
	}
	if (n < 0 || !buf) {
		perror(path);
		free(buf);
		buf = NULL;
	}
	close(fd);
	return buf;
}

static void *read_one(void *arg)
{
	struct reader *r = arg;
	size_t got_len = 0, want_len = 0;
	char *got, *want;

	if (together)
		pthread_barrier_wait(&start_line);
	got = slurp(r->mnt, r->file, &got_len);
	want = slurp(r->src, r->file, &want_len);

	if (!got || !want || got_len != want_len ||
	    memcmp(got, want, got_len)) {
		printf("FAIL %s: expected %zu bytes as in %s got %zu%s\n",
		       r->file, want_len, r->src, got_len,
		       got && want && got_len == want_len ? " that differ"
							  : "");
		atomic_fetch_add(&failures, 1);
	}
	free(got);
	free(want);
	return NULL;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char *argv[])
{
	int readers, nfiles, n = 0;
	struct reader *r;
	long long t0;

	if (argc > 1 && !strcmp(argv[1], "--together")) {
		together = true;
		argv++;
		argc--;
	}
	readers = argc > 4 ? atoi(argv[1]) : 0;
	nfiles = argc - 4;
	if (readers < 1) {
		fprintf(stderr,
			"usage: %s [--together] READERS MNT SRC FILE...\n",
			argv[0]);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	r = calloc((size_t)readers * (size_t)nfiles, sizeof(*r));
	if (!r || (together &&
		   pthread_barrier_init(&start_line, NULL,
					(unsigned)(readers * nfiles) + 1)))
		return 1;
	t0 = now_ms();
	for (int f = 0; f < nfiles; f++) {
		for (int k = 0; k < readers; k++, n++) {
			r[n] = (struct reader){argv[2], argv[3], argv[4 + f],
					       0};
			if (pthread_create(&r[n].tid, NULL, read_one, &r[n])) {
				printf("FAIL pthread_create\n");
				return 1;
			}
		}
	}
	if (together) {
		/* (timed from the start line: creating the threads is not
		 * what the reads took) */
		t0 = now_ms();
		pthread_barrier_wait(&start_line);
	}
	for (int i = 0; i < n; i++)
		pthread_join(r[i].tid, NULL);
	printf("%lld ms\n", now_ms() - t0);
	free(r);
	return atomic_load(&failures) ? 1 : 0;
}
