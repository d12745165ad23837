/* SPDX-License-Identifier: MIT */
/*
 * metaops: a metadata rate benchmark for bench/run.sh.
 *
 * N files are created (open O_CREAT|O_EXCL, close), then stat()ed, then
 * unlink()ed by P processes, each in its own subdirectory of DIR. Each phase
 * starts all processes at once (a pipe is the starting gun) and is timed
 * from the gun to the last process's exit. With --pid, the utime+stime of
 * that process (the FUSE server) is read from /proc/PID/stat around each
 * phase. With --drop-dentries, the kernel's dentry and inode caches are
 * dropped (vm.drop_caches=2) before the stat phase, so that each stat() is
 * a LOOKUP answered by the server and not the kernel's attribute cache,
 * whatever the server's cache timeouts are. --stat-rounds N runs the stat
 * phase N times (each after its own drop) and reports their sum: one
 * round of 20,000 lookups lasts about 0.15 s on a 2-vCPU machine, where
 * the server's 10 ms CPU ticks and the machine's noise are a large part
 * of it.
 *
 * Output: one JSON object per phase and line:
 * {"phase":"create","files":20000,"procs":2,"rounds":1,"seconds":..,
 *  "ops_per_s":..,"server_cpu_s":..,"p50_us":..,"p99_us":..} (seconds and
 * CPU summed over the rounds; ops_per_s counts files times rounds; p50 and
 * p99 of the time one call took, over every call of the phase: a create
 * is its open and its close)
 *
 * Build: cc -O2 -o metaops bench/metaops.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum phase { CREATE, STAT, UNLINK };
static const char *const phase_name[] = {"create", "stat", "unlink"};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the q-quantile of n sorted values (nearest rank) */
static double quantile(const double *v, size_t n, double q)
{
	size_t k = (size_t)(q * (double)n + 0.999999);

	return v[k ? k - 1 : 0];
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* utime+stime of PID in seconds, or -1 */
static double proc_cpu(pid_t pid)
{
	char path[64], buf[4096], *p;
	unsigned long long ut, st;
	ssize_t n;
	int fd;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* after ") ": state(3) ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime(14) stime(15) */
	if (sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
		   &st) != 2)
		return -1;
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

/* lat: the round's slots, one per file (shared with the parent); each
 * call's time in µs goes into its file's slot */
static int run_child(const char *dir, int idx, long first, long count,
		     enum phase ph, double *lat)
{
	char path[PATH_MAX];
	struct stat st;
	double t;
	long i;
	int fd;

	for (i = first; i < first + count; i++) {
		snprintf(path, sizeof(path), "%s/m%d/f%ld", dir, idx, i);
		t = now();
		switch (ph) {
		case CREATE:
			fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
				  0644);
			if (fd < 0 || close(fd) < 0)
				goto fail;
			break;
		case STAT:
			if (stat(path, &st) < 0)
				goto fail;
			break;
		case UNLINK:
			if (unlink(path) < 0)
				goto fail;
			break;
		}
		lat[i] = (now() - t) * 1e6;
	}
	return 0;
fail:
	fprintf(stderr, "metaops: %s %s: %s\n", phase_name[ph], path,
		strerror(errno));
	return 1;
}

static void drop_dentries(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "2\n", 2) != 2)
		fprintf(stderr, "metaops: cannot drop caches: %s\n",
			strerror(errno));
	if (fd >= 0)
		close(fd);
	/* let the server work off the FORGETs before the clock starts */
	usleep(1000 * 1000);
}

/*
 * One timed round of a phase: PROCS processes share FILES, all started at
 * once (a pipe is the starting gun), timed from the gun to the last exit.
 * *cpu is the server's CPU-seconds over the round, or -1; lat gets each
 * call's time (FILES slots, shared). 0, or 1 when a process failed.
 */
static int timed_round(const char *dir, int procs, long files, enum phase ph,
		       pid_t server, double *secs, double *cpu, double *lat)
{
	int gun[2], i, ret = 0;
	double t0, t1, c0, c1;
	pid_t kids[256];
	char b;

	if (pipe(gun) < 0)
		return 1;
	for (i = 0; i < procs; i++) {
		long share = files / procs, first = share * i;

		if (i == procs - 1)
			share = files - first;
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("metaops: fork");
			return 1;
		}
		if (kids[i] == 0) {
			close(gun[1]);
			if (read(gun[0], &b, 1) < 0)
				_exit(2);
			_exit(run_child(dir, i, first, share, ph, lat));
		}
	}
	close(gun[0]);
	c0 = proc_cpu(server);
	t0 = now();
	close(gun[1]);
	for (i = 0; i < procs; i++) {
		int status;

		if (waitpid(kids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			ret = 1;
	}
	t1 = now();
	c1 = proc_cpu(server);
	*secs = t1 - t0;
	*cpu = (c0 >= 0 && c1 >= 0) ? c1 - c0 : -1.0;
	return ret;
}

int main(int argc, char *argv[])
{
	static const struct option lopts[] = {
		{"files", required_argument, NULL, 'n'},
		{"procs", required_argument, NULL, 'p'},
		{"pid", required_argument, NULL, 'P'},
		{"drop-dentries", no_argument, NULL, 'D'},
		{"stat-rounds", required_argument, NULL, 'r'},
		{NULL, 0, NULL, 0},
	};
	long files = 20000;
	int procs = 2, drop = 0, stat_rounds = 1, c, i, ret = 0;
	pid_t server = 0;
	const char *dir;
	char path[PATH_MAX];

	while ((c = getopt_long(argc, argv, "n:p:P:Dr:", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			files = atol(optarg);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 'P':
			server = atoi(optarg);
			break;
		case 'D':
			drop = 1;
			break;
		case 'r':
			stat_rounds = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || files < 1 || procs < 1 || procs > 256 ||
	    stat_rounds < 1 || stat_rounds > 1000)
		goto usage;
	dir = argv[optind];

	for (i = 0; i < procs; i++) {
		snprintf(path, sizeof(path), "%s/m%d", dir, i);
		if (mkdir(path, 0755) < 0) {
			fprintf(stderr, "metaops: mkdir %s: %s\n", path,
				strerror(errno));
			return 1;
		}
	}

	for (enum phase ph = CREATE; ph <= UNLINK && !ret; ph++) {
		int rounds = ph == STAT ? stat_rounds : 1;
		size_t n = (size_t)files * (size_t)rounds;
		double secs = 0, cpu = 0, *lat;

		/* the children write each call's time here */
		lat = mmap(NULL, n * sizeof(*lat), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (lat == MAP_FAILED) {
			perror("metaops: mmap");
			return 1;
		}
		for (int r = 0; r < rounds && !ret; r++) {
			double s1 = 0, c1 = -1;

			if (ph == STAT && drop)
				drop_dentries();
			ret = timed_round(dir, procs, files, ph, server, &s1,
					  &c1, lat + (size_t)r * (size_t)files);
			secs += s1;
			cpu = (cpu < 0 || c1 < 0) ? -1.0 : cpu + c1;
		}
		if (!ret) {
			qsort(lat, n, sizeof(*lat), cmp_double);
			printf("{\"phase\":\"%s\",\"files\":%ld,\"procs\":%d,"
			       "\"rounds\":%d,\"seconds\":%.6f,\"ops_per_s\":%."
			       "1f,"
			       "\"server_cpu_s\":%.3f,\"p50_us\":%.2f,"
			       "\"p99_us\":%.2f}\n",
			       phase_name[ph], files, procs, rounds, secs,
			       (double)n / secs, cpu, quantile(lat, n, 0.50),
			       quantile(lat, n, 0.99));
			fflush(stdout);
		}
		munmap(lat, n * sizeof(*lat));
	}

	for (i = 0; i < procs; i++) {
		snprintf(path, sizeof(path), "%s/m%d", dir, i);
		rmdir(path);
	}
	return ret;

usage:
	fprintf(stderr,
		"usage: metaops [-n FILES] [-p PROCS] [--pid SERVER_PID] "
		"[--drop-dentries] [--stat-rounds N] DIR\n");
	return 2;
}
