/* SPDX-License-Identifier: MIT */
#include "client_util.h"
#include "../e2e/check.h"

#include <dirent.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t cu_stop;

void cu_fill(unsigned char *buf, size_t len, uint64_t seed, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = chk_pat(seed, off + i);
}

long long cu_diff(const unsigned char *buf, size_t len, uint64_t seed,
		  uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != chk_pat(seed, off + i))
			return (long long)i;
	return -1;
}

int cu_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	/* not the descriptor opendir() used to list them */
	return n - 1;
}

static void on_stop(int sig)
{
	(void)sig;
	cu_stop = 1;
}

void cu_stop_on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

double cu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
