/* SPDX-License-Identifier: MIT */
/*
 * journal write FILE PROGRESS
 *	Writes 4 KiB records to FILE (record i in slot i % 4096, at offset
 *	slot * 4096, its bytes named by i: the file stays at 16 MiB however
 *	long it runs), each followed by fsync(); once fsync() returned, the
 *	count of records so acknowledged goes to PROGRESS (a file outside the
 *	mount). Runs until an error (the fault under test) or SIGTERM, then
 *	closes FILE: exit 0 if the process holds as many descriptors as it
 *	started with, 1 if one leaked.
 * journal check FILE N
 *	Each slot of FILE (the source directory's copy) holds the last of
 *	records 0..N-1 written there: what was fsync'ed before the fault
 *	survived it. Not slot N % 4096, where record N (never acknowledged)
 *	may have been half written over an older one. Exit 0 or 1.
 */
#include "client_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REC   4096
#define SLOTS 4096

static int do_write(const char *path, const char *progress)
{
	unsigned char buf[REC];
	char line[32];
	int before = cu_fd_count(), fd, pfd, after, len;
	unsigned long n = 0;

	cu_stop_on_signals();
	pfd = open(progress, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (pfd < 0) {
		perror(progress);
		return 1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		/* the fault came first: nothing acknowledged */
		printf("journal: open %s: %s (0 records)\n", path,
		       strerror(errno));
		close(pfd);
		return 0;
	}
	while (!cu_stop) {
		cu_fill(buf, REC, n, 0);
		if (pwrite(fd, buf, REC, (off_t)(n % SLOTS) * REC) != REC ||
		    fsync(fd) != 0)
			break;
		n++;
		len = snprintf(line, sizeof(line), "%lu\n", n);
		if (pwrite(pfd, line, (size_t)len, 0) != len) {
			perror(progress);
			return 1;
		}
	}
	printf("journal: %lu records fsync'ed, ended by %s\n", n,
	       cu_stop ? "SIGTERM" : strerror(errno));
	close(fd);
	close(pfd);
	after = cu_fd_count();
	if (after != before) {
		printf("FAIL journal.fds: expected %d open descriptors got "
		       "%d\n",
		       before, after);
		return 1;
	}
	return 0;
}

static int do_check(const char *path, unsigned long n)
{
	unsigned char buf[REC];
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		if (n == 0)
			return 0;
		printf("FAIL journal.check: %s: %s, %lu records expected\n",
		       path, strerror(errno), n);
		return 1;
	}
	for (unsigned long i = n > SLOTS ? n - SLOTS : 0; i < n; i++) {
		ssize_t r;

		if (n >= SLOTS && i % SLOTS == n % SLOTS)
			continue;
		r = pread(fd, buf, REC, (off_t)(i % SLOTS) * REC);
		long long d = r == REC ? cu_diff(buf, REC, i, 0) : 0;

		if (r != REC || d >= 0) {
			printf("FAIL journal.check: record %lu of %lu: read "
			       "%zd, "
			       "first bad byte %lld\n",
			       i, n, r, d);
			close(fd);
			return 1;
		}
	}
	close(fd);
	printf("ok journal.check (%lu fsync'ed records intact)\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "write"))
		return do_write(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "check"))
		return do_check(argv[2], strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: journal write FILE PROGRESS | check FILE N\n");
	return 1;
}
