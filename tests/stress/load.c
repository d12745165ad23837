/* SPDX-License-Identifier: MIT */
/*
 * load DIR [--clients N] [--seconds S] [--window W] [--stall G]
 *      [--daemon-pid PID] [--until-error]
 *
 * Defaults: --seconds is 300 times FRING_STRESS_SCALE (1), --daemon-pid
 * FRING_E2E_DAEMON_PID (which tests/e2e/run-suite.sh sets).
 *
 * N client processes (16) mix data and metadata in DIR/load.PID/cI:
 * whole-file writes of up to 256 KiB in odd sizes (some fsync'ed), reads
 * compared byte for byte with what the client last wrote, partial
 * overwrites, and a metadata round (create, stat, rename, readdir with the
 * entry count checked, chmod, symlink/readlink, mkdir/rmdir, unlink). Each
 * client keeps at most 8 files, so the data set is bounded and a daemon's
 * memory must be too.
 *
 * Timed (the default, --seconds S): every W seconds (10) the ops/s and MiB/s
 * of the window, and the daemon's largest RSS in it, are printed; at the end
 * the min and median per window and the largest RSS. Fails on any error or
 * data mismatch, a stall, a client that leaked a descriptor, or an RSS that
 * kept growing: the largest in the second half of the run more than 25% +
 * 16 MiB over the first half's. A stall is G seconds (30) in which no
 * client completed an operation, or a client still in its last operation G
 * seconds after the clients were told to stop (then it is killed, not
 * waited for): a daemon that deadlocks does both, while a loaded machine,
 * which only slows every client down, does neither (the slowest window of
 * a run is printed, not judged).
 *
 * --until-error: the load of a fault test. Clients run until SIGTERM (or
 * --seconds) or their first error, which ends them; then each must hold as
 * many descriptors as it started with and must not have read wrong data.
 */
#include "../e2e/check.h"
#include "client_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXCLIENTS 64
#define FILES	   8
#define MAXSIZE	   (256 * 1024)
#define MAXWINDOWS 4096

struct client {
	atomic_ullong ops;
	atomic_ullong bytes;
	atomic_int ended; /* 1: by stop, 2: by an error */
	int bad;	  /* a wrong byte or a leaked descriptor */
	char why[192];
};

static struct shared {
	atomic_int stop;
	struct client c[MAXCLIENTS];
} * sh;

static int nclients = 16, until_error;
static double seconds = 300, window = 10, stall = 30;
static pid_t daemon_pid;
static char workdir[4096];

/* ------------------------------------------------------------------------ */

struct cstate {
	struct client *me;
	char dir[4200];
	uint64_t rng;
	uint64_t seed[FILES]; /* 0: no such file */
	size_t size[FILES];
	unsigned gen;
	unsigned char *buf;
};

static uint64_t rnd(struct cstate *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static int fail_op(struct cstate *s, const char *what, int bad)
{
	snprintf(s->me->why, sizeof(s->me->why), "%s: %s", what,
		 bad ? "wrong data" : strerror(errno));
	s->me->bad |= bad;
	return -1;
}

static void done(struct cstate *s, size_t bytes)
{
	atomic_fetch_add(&s->me->ops, 1);
	atomic_fetch_add(&s->me->bytes, bytes);
}

static void fpath(struct cstate *s, char *p, size_t n, const char *name, int k)
{
	snprintf(p, n, "%s/%s%d", s->dir, name, k);
}

static int write_file(struct cstate *s, int k)
{
	char p[4300];
	size_t size = 1 + rnd(s) % MAXSIZE;
	uint64_t seed = ((uint64_t)(s->me - sh->c) << 40) + ++s->gen;
	int fd, sync = rnd(s) % 8 == 0;

	fpath(s, p, sizeof(p), "f", k);
	cu_fill(s->buf, size, seed, 0);
	/* until the write is whole, the model knows no contents */
	s->seed[k] = 0;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail_op(s, "create", 0);
	if (write(fd, s->buf, size) != (ssize_t)size ||
	    (sync && fsync(fd) != 0)) {
		close(fd);
		return fail_op(s, "write", 0);
	}
	if (close(fd) != 0)
		return fail_op(s, "close", 0);
	s->seed[k] = seed;
	s->size[k] = size;
	done(s, size);
	return 0;
}

/* A piece in the middle rewritten with the same file's pattern. */
static int overwrite(struct cstate *s, int k)
{
	char p[4300];
	size_t off, len;
	int fd;

	if (!s->seed[k])
		return write_file(s, k);
	off = rnd(s) % s->size[k];
	len = 1 + rnd(s) % (s->size[k] - off);
	fpath(s, p, sizeof(p), "f", k);
	cu_fill(s->buf, len, s->seed[k], off);
	fd = open(p, O_WRONLY);
	if (fd < 0)
		return fail_op(s, "open for overwrite", 0);
	if (pwrite(fd, s->buf, len, (off_t)off) != (ssize_t)len) {
		close(fd);
		return fail_op(s, "pwrite", 0);
	}
	if (close(fd) != 0)
		return fail_op(s, "close", 0);
	done(s, len);
	return 0;
}

static int read_file(struct cstate *s, int k)
{
	char p[4300];
	ssize_t r;
	int fd;

	if (!s->seed[k])
		return write_file(s, k);
	fpath(s, p, sizeof(p), "f", k);
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return fail_op(s, "open for read", 0);
	/* one byte more than the file: a read past the end must see EOF */
	r = read(fd, s->buf, s->size[k] + 1);
	close(fd);
	if (r < 0)
		return fail_op(s, "read", 0);
	if (cu_diff(s->buf, (size_t)r, s->seed[k], 0) >= 0)
		return fail_op(s, "read back", 1);
	/* a fault may cut a read short; what it returned must be right */
	if ((size_t)r != s->size[k])
		return fail_op(s, "read size",
			       !until_error || (size_t)r > s->size[k]);
	done(s, (size_t)r);
	return 0;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	/* readdir() ends with NULL both at the end and on an error */
	while ((errno = 0, e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	if (errno)
		n = -1;
	closedir(d);
	return n;
}

static int meta_round(struct cstate *s)
{
	char a[4300], b[4300], l[4300], t[64];
	struct stat st;
	int fd, n, want = 0;

	fpath(s, a, sizeof(a), "m", 0);
	fpath(s, b, sizeof(b), "m", 1);
	fpath(s, l, sizeof(l), "l", 0);
	fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return fail_op(s, "create m0", 0);
	close(fd);
	if (stat(a, &st) != 0 || chmod(a, 0640) != 0 || rename(a, b) != 0 ||
	    symlink("m1", l) != 0)
		return fail_op(s, "stat/chmod/rename/symlink", 0);
	n = (int)readlink(l, t, sizeof(t));
	if (n < 0)
		return fail_op(s, "readlink", 0);
	if (n != 2 || memcmp(t, "m1", 2))
		return fail_op(s, "readlink", 1);
	if (mkdir(a, 0700) != 0)
		return fail_op(s, "mkdir", 0);
	for (int k = 0; k < FILES; k++)
		want += s->seed[k] != 0;
	/* the files, m1, l0 and the directory m0 */
	n = count_entries(s->dir);
	if (n < 0)
		return fail_op(s, "readdir", 0);
	if (n != want + 3)
		return fail_op(s, "readdir count", 1);
	if (stat(b, &st) != 0)
		return fail_op(s, "stat after rename", 0);
	if ((st.st_mode & 07777) != 0640)
		return fail_op(s, "mode after rename", 1);
	if (rmdir(a) != 0 || unlink(b) != 0 || unlink(l) != 0)
		return fail_op(s, "rmdir/unlink", 0);
	done(s, 0);
	return 0;
}

static int client_op(struct cstate *s)
{
	int k = (int)(rnd(s) % FILES);

	switch (rnd(s) % 8) {
	case 0:
	case 1:
		return write_file(s, k);
	case 2:
		return overwrite(s, k);
	case 3:
	case 4:
	case 5:
		return read_file(s, k);
	default:
		return meta_round(s);
	}
}

static void client(int i)
{
	struct cstate s = {.me = &sh->c[i],
			   .rng = 0x9E3779B97F4A7C15ull * (i + 1)};
	int before, after, null = open("/dev/null", O_RDWR);

	/* A client says what went wrong through sh, never on the output:
	 * one stalled in the kernel outlives load (reap_clients()), and
	 * must not hold the pipe load's caller reads its output from. */
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	before = cu_fd_count();
	signal(SIGTERM, SIG_IGN);
	snprintf(s.dir, sizeof(s.dir), "%s/c%d", workdir, i);
	s.buf = malloc(MAXSIZE + 1);
	if (!s.buf || mkdir(s.dir, 0755) != 0)
		fail_op(&s, "mkdir", 0);
	else
		while (!atomic_load(&sh->stop) && client_op(&s) == 0)
			;
	atomic_store(&s.me->ended, s.me->why[0] ? 2 : 1);
	free(s.buf);
	after = cu_fd_count();
	if (after != before) {
		s.me->bad = 1;
		snprintf(s.me->why, sizeof(s.me->why),
			 "%d descriptors open at the end, %d at the start",
			 after, before);
	}
	_exit(0);
}

/* ------------------------------------------------------------------------ */

static long rss_kib(void)
{
	char p[64], line[256];
	long kib = -1;
	FILE *f;

	if (!daemon_pid)
		return -1;
	snprintf(p, sizeof(p), "/proc/%d/status", (int)daemon_pid);
	f = fopen(p, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = strtol(line + 6, NULL, 10);
	fclose(f);
	return kib;
}

static void totals(unsigned long long *ops, unsigned long long *bytes,
		   int *running)
{
	*ops = *bytes = 0;
	*running = 0;
	for (int i = 0; i < nclients; i++) {
		*ops += atomic_load(&sh->c[i].ops);
		*bytes += atomic_load(&sh->c[i].bytes);
		*running += !atomic_load(&sh->c[i].ended);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct windows {
	int n;
	double ops[MAXWINDOWS], mib[MAXWINDOWS];
	long rss[MAXWINDOWS];
	double longest_gap; /* seconds without a completed operation */
};

/* Samples each second until the time is up (or every client ended). */
static void watch(struct windows *w)
{
	unsigned long long ops0 = 0, bytes0 = 0, ops, bytes, last_ops = 0;
	double start = cu_now(), wstart = start, now, progress = start;
	long rss, wrss = -1;
	int running;

	for (;;) {
		usleep(200 * 1000);
		now = cu_now();
		totals(&ops, &bytes, &running);
		if (ops != last_ops) {
			last_ops = ops;
			progress = now;
		}
		if (now - progress > w->longest_gap)
			w->longest_gap = now - progress;
		rss = rss_kib();
		if (rss > wrss)
			wrss = rss;
		if (!until_error && now - wstart >= window &&
		    w->n < MAXWINDOWS) {
			w->ops[w->n] = (double)(ops - ops0) / (now - wstart);
			w->mib[w->n] = (double)(bytes - bytes0) /
				       (now - wstart) / 1048576.0;
			w->rss[w->n] = wrss;
			printf("# window %d: %.0f ops/s, %.1f MiB/s, daemon "
			       "RSS %ld "
			       "KiB\n",
			       w->n + 1, w->ops[w->n], w->mib[w->n], wrss);
			w->n++;
			ops0 = ops;
			bytes0 = bytes;
			wstart = now;
			wrss = -1;
		}
		/* (a stall longer than G fails the run: no use going on) */
		if (cu_stop || running == 0 || now - start >= seconds ||
		    (!until_error && w->longest_gap >= stall))
			break;
	}
	printf("# %llu operations, %.1f MiB in %.1f s\n", ops,
	       (double)bytes / 1048576.0, now - start);
}

static void report(struct windows *w)
{
	double o[MAXWINDOWS], m[MAXWINDOWS];
	long first = -1, second = -1, max = -1;
	int stalls = 0;

	if (!CHECK("load.windows", w->n > 0))
		return;
	for (int i = 0; i < w->n; i++) {
		o[i] = w->ops[i];
		m[i] = w->mib[i];
		stalls += w->ops[i] == 0;
		if (i < w->n / 2 && w->rss[i] > first)
			first = w->rss[i];
		if (i >= w->n / 2 && w->rss[i] > second)
			second = w->rss[i];
		if (w->rss[i] > max)
			max = w->rss[i];
	}
	qsort(o, (size_t)w->n, sizeof(double), cmp_double);
	qsort(m, (size_t)w->n, sizeof(double), cmp_double);
	printf("# per %.0f s window (%d): ops/s min %.0f median %.0f; MiB/s "
	       "min "
	       "%.1f median %.1f; %d window(s) without an operation, the "
	       "longest time without one %.1f s\n",
	       window, w->n, o[0], median(o, w->n), m[0], median(m, w->n),
	       stalls, w->longest_gap);
	chk_result(w->longest_gap < stall, "load.no_stall",
		   "expected an operation completed at least every %.0f s "
		   "got none for %.1f s",
		   stall, w->longest_gap);
	if (!daemon_pid)
		return;
	printf("# daemon RSS max %ld KiB (first half %ld, second half %ld)\n",
	       max, first, second);
	if (w->n >= 2)
		chk_result(
			second <= first + first / 4 + 16384, "load.rss_bounded",
			"expected the second half's RSS within 25%% + 16 MiB "
			"of the first half's (%ld KiB) got %ld KiB",
			first, second);
}

/* Waits for the clients told to stop, up to the stall time (an operation
 * in progress ends first); one still in it then is stalled: it is killed
 * and counted. A request the daemon already took is waited out even by a
 * killed process, so the reaping is bounded too (such a client ends when
 * the daemon or its connection does). */
static int reap_clients(const pid_t *pids)
{
	double t0 = cu_now();
	int left, stalled = 0;

	do {
		left = 0;
		for (int i = 0; i < nclients; i++)
			if (pids[i] > 0 && !sh->c[i].ended)
				left++;
		if (left)
			usleep(100 * 1000);
	} while (left && cu_now() - t0 < stall);
	for (int i = 0; i < nclients; i++) {
		if (pids[i] > 0 && !sh->c[i].ended) {
			printf("FAIL load.client%d: still in an operation "
			       "%.0f s after the stop (a stall)\n",
			       i, stall);
			stalled++;
			kill(pids[i], SIGKILL);
		}
	}
	/* (5 s for them all: what is left then is left to the daemon's end) */
	t0 = cu_now();
	for (int i = 0; i < nclients; i++)
		while (pids[i] > 0 && waitpid(pids[i], NULL, WNOHANG) == 0 &&
		       cu_now() - t0 < 5)
			usleep(50 * 1000);
	return stalled;
}

static void usage(void)
{
	fprintf(stderr, "usage: load DIR [--clients N] [--seconds S] [--window "
			"W] [--stall G] [--daemon-pid PID] [--until-error]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	static struct windows w;
	pid_t pids[MAXCLIENTS];
	int errors = 0;

	if (argc < 2)
		usage();
	if (getenv("FRING_STRESS_SCALE"))
		seconds = 300 * atof(getenv("FRING_STRESS_SCALE"));
	if (getenv("FRING_E2E_DAEMON_PID"))
		daemon_pid = (pid_t)atoi(getenv("FRING_E2E_DAEMON_PID"));
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--until-error"))
			until_error = 1;
		else if (i + 1 >= argc)
			usage();
		else if (!strcmp(argv[i], "--clients"))
			nclients = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--window"))
			window = atof(argv[++i]);
		else if (!strcmp(argv[i], "--stall"))
			stall = atof(argv[++i]);
		else if (!strcmp(argv[i], "--daemon-pid"))
			daemon_pid = (pid_t)atoi(argv[++i]);
		else
			usage();
	}
	if (nclients < 1 || nclients > MAXCLIENTS || seconds <= 0 ||
	    window <= 0 || stall <= 0)
		usage();
	chk_init();
	cu_stop_on_signals();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	snprintf(workdir, sizeof(workdir), "%s/load.%d", argv[1],
		 (int)getpid());
	if (!CHECK_SYS("load.mkdir", mkdir(workdir, 0755)))
		return until_error ? 0 : chk_finish();
	for (int i = 0; i < nclients; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			client(i);
	}
	watch(&w);
	atomic_store(&sh->stop, 1);
	if (until_error) {
		/* (the fault test bounds the clients' return itself) */
		for (int i = 0; i < nclients; i++)
			if (pids[i] > 0)
				waitpid(pids[i], NULL, 0);
	} else {
		errors += reap_clients(pids);
	}
	for (int i = 0; i < nclients; i++) {
		struct client *c = &sh->c[i];

		if (c->why[0] && (c->bad || !until_error)) {
			printf("FAIL load.client%d: %s\n", i, c->why);
			errors++;
		} else if (c->why[0]) {
			printf("# client %d ended by: %s\n", i, c->why);
		}
	}
	chk_result(errors == 0, "load.clients",
		   "expected no client error got %d", errors);
	if (!until_error)
		report(&w);
	return chk_finish();
}
