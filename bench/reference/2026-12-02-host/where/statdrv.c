/* SPDX-License-Identifier: MIT */
/* statdrv DIR N: 2 processes stat DIR/d0/f0..f(N-1) and DIR/d1/...; prints
 * seconds and stats per second. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: statdrv DIR N\n");
		return 2;
	}
	const char *dir = argv[1];
	int n = atoi(argv[2]), p = 2;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < p; i++)
		if (fork() == 0) {
			char path[4096];
			struct stat st;
			for (int j = 0; j < n; j++) {
				snprintf(path, sizeof(path), "%s/d%d/f%d", dir,
					 i, j);
				if (stat(path, &st) < 0) {
					perror(path);
					_exit(1);
				}
			}
			_exit(0);
		}
	int bad = 0, s;
	while (wait(&s) > 0)
		bad |= !WIFEXITED(s) || WEXITSTATUS(s);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double t = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%.6f %.0f\n", t, p * n / t);
	return bad;
}
