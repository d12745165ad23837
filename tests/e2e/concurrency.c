/* SPDX-License-Identifier: MIT */
/*
 * concurrency DIR [--procs N]
 *
 * Several processes (8 unless --procs) at once on the filesystem at DIR:
 *  1. each on its own file: patterned writes in odd chunk sizes, read back;
 *  2. all on one shared file: each writes its own non-overlapping stripes
 *     (pwrite, then a second round through MAP_SHARED), then everyone
 *     verifies the whole file;
 *  3. all appending fixed-size records to one O_APPEND file: every record
 *     lands whole and exactly once;
 *  4. all creating, unlinking, renaming and linking a small set of names in
 *     one directory (collisions on purpose: EEXIST/ENOENT are expected, any
 *     other error fails); the final listing must match what lookups say.
 * Work happens in DIR/concurrency.PID, removed at the end. A watchdog kills
 * everything and fails after --timeout seconds (300).
 */
#include "check.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXPROCS	 64
#define PRIV_SIZE	 (3 * 1024 * 1024 + 123)
#define STRIPE		 12289 /* odd: neighbouring stripes share pages */
#define STRIPES_PER_PROC 24
#define REC_SIZE	 100
#define RECS_PER_PROC	 2000
#define NAMES		 24
#define NS_OPS		 4000

static int nprocs = 8;
static char workdir[4096];

/* ------------------------------------------------------------------------ */

/* Children of the main process, for the watchdog. */
static pid_t kids[4 * MAXPROCS];
static int nkids;
static int watchdog_secs = 300;

static void watchdog(int sig)
{
	static const char msg[] =
		"FAIL concurrency.watchdog: expected to finish in time, "
		"killing the children\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	for (int i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	{
		char line[64];
		int n = snprintf(line, sizeof(line), "%u passed, %u failed\n",
				 chk_passed(), chk_failed() + 1);

		if (write(1, line, (size_t)n) < 0)
			_exit(1);
	}
	_exit(1);
}

static pid_t xfork(void)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		alarm(0);
		signal(SIGALRM, SIG_DFL);
		nkids = 0;
	} else if (nkids < (int)(sizeof(kids) / sizeof(kids[0]))) {
		kids[nkids++] = pid;
	}
	return pid;
}

static int wait_all(pid_t *pids, int n)
{
	int bad = 0;

	for (int i = 0; i < n; i++) {
		int st;

		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			bad++;
			if (WIFSIGNALED(st))
				chk_note("child %d killed by signal %d", i,
					 WTERMSIG(st));
		}
	}
	return bad;
}

/* A barrier for the children: each writes a byte to 'arrive'; the parent
 * collects them all and releases everyone through that round's own 'depart'
 * pipe (one pipe per round, so a fast child cannot take a byte meant for a
 * slow one of the previous round). */
#define BARRIER_ROUNDS 4

struct barrier {
	int arrive[2];
	int depart[BARRIER_ROUNDS][2];
	int round; /* the child's own count (each has its copy) */
};

static void barrier_init(struct barrier *b)
{
	if (pipe(b->arrive) < 0) {
		perror("pipe");
		exit(1);
	}
	for (int r = 0; r < BARRIER_ROUNDS; r++)
		if (pipe(b->depart[r]) < 0) {
			perror("pipe");
			exit(1);
		}
	b->round = 0;
}

static void barrier_wait_child(struct barrier *b)
{
	char c = 'a';

	if (b->round >= BARRIER_ROUNDS || write(b->arrive[1], &c, 1) != 1 ||
	    read(b->depart[b->round][0], &c, 1) != 1)
		_exit(2);
	b->round++;
}

static void barrier_run_parent(struct barrier *b, int rounds)
{
	char c;

	for (int r = 0; r < rounds && r < BARRIER_ROUNDS; r++) {
		for (int i = 0; i < nprocs; i++)
			if (read(b->arrive[0], &c, 1) != 1)
				return;
		for (int i = 0; i < nprocs; i++)
			if (write(b->depart[r][1], "d", 1) != 1)
				return;
	}
}

static void barrier_close(struct barrier *b)
{
	close(b->arrive[0]);
	close(b->arrive[1]);
	for (int r = 0; r < BARRIER_ROUNDS; r++) {
		close(b->depart[r][0]);
		close(b->depart[r][1]);
	}
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int first_diff(const unsigned char *got, unsigned seed, uint64_t off,
		      size_t len, size_t *at)
{
	for (size_t i = 0; i < len; i++)
		if (got[i] != chk_pat(seed, off + i)) {
			*at = i;
			return 1;
		}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* 1. private files */

static void private_child(int id)
{
	static const size_t chunks[] = {1,	4095, 4097,   65536,
					131079, 7,    262144, 333};
	const char *nm = chk_name("concurrency.private_file.p%d", id);
	char path[64];
	unsigned char *buf = malloc(PRIV_SIZE);
	size_t off = 0, at;
	int fd, k = id;

	snprintf(path, sizeof(path), "priv.%d", id);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0644);
	if (fd < 0) {
		chk_result(0, nm, "expected create of %s got %s", path,
			   chk_errname(errno));
		_exit(1);
	}
	for (size_t i = 0; i < PRIV_SIZE; i++)
		buf[i] = chk_pat((unsigned)id, i);
	while (off < PRIV_SIZE) {
		size_t len = chunks[k++ % 8];
		ssize_t n;

		if (len > PRIV_SIZE - off)
			len = PRIV_SIZE - off;
		n = pwrite(fd, buf + off, len, (off_t)off);
		if (n <= 0) {
			chk_result(0, nm,
				   "expected pwrite of %zu at %zu got %zd (%s)",
				   len, off, n, chk_errname(errno));
			_exit(1);
		}
		off += (size_t)n;
	}
	if (id % 2)
		fsync(fd);
	close(fd);
	/* read back through a new descriptor in other chunk sizes */
	memset(buf, 0, PRIV_SIZE);
	fd = open(path, O_RDONLY);
	off = 0;
	k = id + 3;
	for (;;) {
		size_t len = chunks[k++ % 8];
		ssize_t n;

		if (off + len > PRIV_SIZE)
			len = PRIV_SIZE - off;
		if (len == 0)
			len = 1;
		n = read(fd, buf + off, len);
		if (n < 0) {
			chk_result(0, nm, "expected read at %zu got %s", off,
				   chk_errname(errno));
			_exit(1);
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	if (off != PRIV_SIZE) {
		chk_result(0, nm, "expected %d bytes back got %zu", PRIV_SIZE,
			   off);
		_exit(1);
	}
	if (first_diff(buf, (unsigned)id, 0, PRIV_SIZE, &at)) {
		chk_result(0, nm, "expected 0x%02x at offset %zu got 0x%02x",
			   chk_pat((unsigned)id, at), at, buf[at]);
		_exit(1);
	}
	unlink(path);
	chk_result(1, nm, "%s", "");
	free(buf);
	_exit(0);
}

static void test_private(void)
{
	pid_t pids[MAXPROCS];

	for (int i = 0; i < nprocs; i++) {
		pids[i] = xfork();
		if (pids[i] == 0)
			private_child(i);
	}
	chk_result(wait_all(pids, nprocs) == 0, "concurrency.private_files",
		   "expected all %d children to pass", nprocs);
}

/* ------------------------------------------------------------------------ */
/* 2. one shared file, striped */

#define SHARED_SIZE ((size_t)STRIPE * STRIPES_PER_PROC * (size_t)nprocs)

/* the byte at off after round r: owner of the stripe, seeded by round */
static unsigned stripe_seed(size_t off, int round)
{
	return (unsigned)((off / STRIPE) % (size_t)nprocs) +
	       1000u * (unsigned)round;
}

static int verify_shared(int fd, int round, const char *nm)
{
	unsigned char *buf = malloc(SHARED_SIZE + 1);
	size_t off = 0;

	while (off < SHARED_SIZE + 1) {
		ssize_t n =
			pread(fd, buf + off, SHARED_SIZE + 1 - off, (off_t)off);

		if (n < 0) {
			chk_result(0, nm, "expected pread got %s",
				   chk_errname(errno));
			free(buf);
			return 0;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	if (off != SHARED_SIZE) {
		chk_result(0, nm, "expected %zu bytes got %zu", SHARED_SIZE,
			   off);
		free(buf);
		return 0;
	}
	for (off = 0; off < SHARED_SIZE; off++) {
		unsigned s = stripe_seed(off, round);

		if (buf[off] != chk_pat(s, off)) {
			chk_result(0, nm,
				   "expected 0x%02x at offset %zu (stripe %zu "
				   "of process %zu) got 0x%02x",
				   chk_pat(s, off), off, off / STRIPE,
				   (off / STRIPE) % (size_t)nprocs, buf[off]);
			free(buf);
			return 0;
		}
	}
	free(buf);
	return 1;
}

static void shared_child(int id, struct barrier *b)
{
	int fd = open("shared", O_RDWR);
	int order[STRIPES_PER_PROC];
	uint64_t rs = (uint64_t)id * 77 + 1;
	unsigned char *buf = malloc(STRIPE);
	int ok = 1;

	if (fd < 0) {
		chk_result(0, chk_name("concurrency.shared_open.p%d", id),
			   "expected open got %s", chk_errname(errno));
		for (int r = 0; r < 3; r++)
			barrier_wait_child(b);
		_exit(1);
	}
	for (int i = 0; i < STRIPES_PER_PROC; i++)
		order[i] = i;
	for (int i = STRIPES_PER_PROC - 1; i > 0; i--) {
		int j = (int)(rng(&rs) % (uint64_t)(i + 1)), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	/* round 1: pwrite */
	for (int i = 0; i < STRIPES_PER_PROC; i++) {
		size_t stripe = (size_t)order[i] * (size_t)nprocs + (size_t)id;
		size_t off = stripe * STRIPE;

		for (size_t j = 0; j < STRIPE; j++)
			buf[j] = chk_pat(stripe_seed(off, 1), off + j);
		if (pwrite(fd, buf, STRIPE, (off_t)off) != STRIPE) {
			chk_result(
				0,
				chk_name("concurrency.shared_pwrite.p%d", id),
				"expected a %d-byte pwrite at %zu got %s",
				STRIPE, off, chk_errname(errno));
			ok = 0;
		}
	}
	barrier_wait_child(b);
	ok &= verify_shared(
		fd, 1, chk_name("concurrency.shared_pwrite_verify.p%d", id));
	barrier_wait_child(b);
	/* round 2: stores through a shared mapping of the whole file */
	{
		unsigned char *p =
			mmap(NULL, SHARED_SIZE, PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 0);

		if (p == MAP_FAILED) {
			chk_result(0,
				   chk_name("concurrency.shared_mmap.p%d", id),
				   "expected mmap got %s", chk_errname(errno));
			ok = 0;
		} else {
			for (int i = 0; i < STRIPES_PER_PROC; i++) {
				size_t stripe = (size_t)order[STRIPES_PER_PROC -
							      1 - i] *
							(size_t)nprocs +
						(size_t)id;
				size_t off = stripe * STRIPE;

				for (size_t j = 0; j < STRIPE; j++)
					p[off + j] = chk_pat(
						stripe_seed(off, 2), off + j);
			}
			if (msync(p, SHARED_SIZE, MS_SYNC) < 0)
				ok = 0;
			munmap(p, SHARED_SIZE);
		}
	}
	barrier_wait_child(b);
	ok &= verify_shared(fd, 2,
			    chk_name("concurrency.shared_mmap_verify.p%d", id));
	close(fd);
	free(buf);
	_exit(ok ? 0 : 1);
}

static void test_shared(void)
{
	pid_t pids[MAXPROCS];
	struct barrier b;
	int fd = open("shared", O_CREAT | O_EXCL | O_RDWR, 0644);

	if (!CHECK_SYS("concurrency.shared_create", fd))
		return;
	/* the full size first, so that the mapping covers every stripe */
	if (!CHECK_SYS("concurrency.shared_truncate",
		       ftruncate(fd, (off_t)SHARED_SIZE)))
		return;
	barrier_init(&b);
	for (int i = 0; i < nprocs; i++) {
		pids[i] = xfork();
		if (pids[i] == 0)
			shared_child(i, &b);
	}
	barrier_run_parent(&b, 3);
	chk_result(wait_all(pids, nprocs) == 0, "concurrency.shared_children",
		   "expected all %d children to pass", nprocs);
	barrier_close(&b);
	if (verify_shared(fd, 2, "concurrency.shared_final"))
		chk_result(1, "concurrency.shared_final", "%s", "");
	close(fd);
	unlink("shared");
}

/* ------------------------------------------------------------------------ */
/* 3. O_APPEND records */

static void append_child(int id)
{
	int fd = open("log", O_WRONLY | O_APPEND);
	char rec[REC_SIZE];

	if (fd < 0)
		_exit(1);
	for (int j = 0; j < RECS_PER_PROC; j++) {
		memset(rec, 'a' + id % 26, sizeof(rec));
		snprintf(rec, sizeof(rec), "p%02d r%05d ", id, j);
		rec[strlen(rec)] = ' ';
		rec[REC_SIZE - 1] = '\n';
		if (write(fd, rec, REC_SIZE) != REC_SIZE) {
			chk_result(0, chk_name("concurrency.append.p%d", id),
				   "expected a %d-byte write got %s", REC_SIZE,
				   chk_errname(errno));
			_exit(1);
		}
	}
	close(fd);
	_exit(0);
}

static void test_append(void)
{
	pid_t pids[MAXPROCS];
	int fd = open("log", O_CREAT | O_EXCL | O_WRONLY, 0644);
	size_t total = (size_t)nprocs * RECS_PER_PROC * REC_SIZE;
	unsigned char *seen;
	char *buf;
	struct stat st;
	ssize_t n;
	long bad = 0, missing = 0, dup = 0, firstbad = -1;

	if (!CHECK_SYS("concurrency.append_create", fd))
		return;
	close(fd);
	for (int i = 0; i < nprocs; i++) {
		pids[i] = xfork();
		if (pids[i] == 0)
			append_child(i);
	}
	chk_result(wait_all(pids, nprocs) == 0, "concurrency.append_children",
		   "expected all %d children to pass", nprocs);
	CHECK_EQ("concurrency.append_size", stat("log", &st) ? -1 : st.st_size,
		 (long long)total);
	buf = malloc(total + 1);
	seen = calloc((size_t)nprocs * RECS_PER_PROC, 1);
	fd = open("log", O_RDONLY);
	n = 0;
	while ((size_t)n < total + 1) {
		ssize_t r = read(fd, buf + n, total + 1 - (size_t)n);

		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	CHECK_EQ("concurrency.append_read", n, (long long)total);
	for (size_t off = 0; off + REC_SIZE <= (size_t)n; off += REC_SIZE) {
		int p, r;
		char want[REC_SIZE];

		if (sscanf(buf + off, "p%d r%d ", &p, &r) != 2 || p < 0 ||
		    p >= nprocs || r < 0 || r >= RECS_PER_PROC) {
			if (!bad++)
				firstbad = (long)off;
			continue;
		}
		memset(want, 'a' + p % 26, sizeof(want));
		snprintf(want, sizeof(want), "p%02d r%05d ", p, r);
		want[strlen(want)] = ' ';
		want[REC_SIZE - 1] = '\n';
		if (memcmp(buf + off, want, REC_SIZE)) {
			if (!bad++)
				firstbad = (long)off;
			continue;
		}
		if (seen[p * RECS_PER_PROC + r]++)
			dup++;
	}
	for (size_t i = 0; i < (size_t)nprocs * RECS_PER_PROC; i++)
		missing += !seen[i];
	chk_result(bad == 0, "concurrency.append_records_intact",
		   "expected every record whole got %ld torn (first at offset "
		   "%ld)",
		   bad, firstbad);
	chk_result(missing == 0 && dup == 0, "concurrency.append_records_once",
		   "expected each record once got %ld missing, %ld duplicated",
		   missing, dup);
	free(buf);
	free(seen);
	unlink("log");
}

/* ------------------------------------------------------------------------ */
/* 4. namespace churn */

struct ns_stats {
	long ops[MAXPROCS];
	long errors;
	char msg[256];
};

static void ns_error(struct ns_stats *s, const char *what, const char *a, int e)
{
	__atomic_fetch_add(&s->errors, 1, __ATOMIC_SEQ_CST);
	snprintf(s->msg, sizeof(s->msg), "%s %s: %s (%s)", what, a,
		 chk_errname(e), strerror(e));
}

static void ns_child(int id, struct ns_stats *s)
{
	uint64_t rs = (uint64_t)id * 1234567 + 89;
	char a[32], b[32];

	for (int i = 0; i < NS_OPS; i++) {
		int op = (int)(rng(&rs) % 7);
		int fd;

		snprintf(a, sizeof(a), "ns/n%d", (int)(rng(&rs) % NAMES));
		snprintf(b, sizeof(b), "ns/n%d", (int)(rng(&rs) % NAMES));
		switch (op) {
		case 0:
		case 1:
			fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd >= 0) {
				if (write(fd, a, strlen(a)) < 0)
					ns_error(s, "write", a, errno);
				close(fd);
			} else if (errno != EEXIST) {
				ns_error(s, "create", a, errno);
			}
			break;
		case 2:
			if (unlink(a) < 0 && errno != ENOENT)
				ns_error(s, "unlink", a, errno);
			break;
		case 3:
			if (rename(a, b) < 0 && errno != ENOENT)
				ns_error(s, "rename", a, errno);
			break;
		case 4:
			if (link(a, b) < 0 && errno != ENOENT &&
			    errno != EEXIST)
				ns_error(s, "link", a, errno);
			break;
		case 5: {
			struct stat st;

			if (lstat(a, &st) == 0) {
				if (!S_ISREG(st.st_mode))
					ns_error(s, "lstat type", a, EINVAL);
			} else if (errno != ENOENT) {
				ns_error(s, "lstat", a, errno);
			}
			break;
		}
		default:
			fd = open(a, O_RDONLY);
			if (fd >= 0) {
				char buf[64];

				if (read(fd, buf, sizeof(buf)) < 0)
					ns_error(s, "read", a, errno);
				close(fd);
			} else if (errno != ENOENT) {
				ns_error(s, "open", a, errno);
			}
		}
		s->ops[id]++;
	}
	_exit(0);
}

static void test_namespace(void)
{
	pid_t pids[MAXPROCS];
	struct ns_stats *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int listed[NAMES] = {0};
	int exists[NAMES] = {0};
	ino_t inos[NAMES];
	nlink_t nlinks[NAMES];
	long other = 0, mism = 0, nlink_bad = 0, total = 0;
	char firstmism[64] = "";
	DIR *d;
	struct dirent *de;

	memset(s, 0, sizeof(*s));
	if (!CHECK_SYS("concurrency.ns_mkdir", mkdir("ns", 0755)))
		return;
	for (int i = 0; i < nprocs; i++) {
		pids[i] = xfork();
		if (pids[i] == 0)
			ns_child(i, s);
	}
	chk_result(wait_all(pids, nprocs) == 0, "concurrency.ns_children",
		   "expected all %d children to exit 0", nprocs);
	for (int i = 0; i < nprocs; i++)
		total += s->ops[i];
	chk_result(
		s->errors == 0, "concurrency.ns_only_expected_errors",
		"expected only EEXIST/ENOENT got %ld other errors (last: %s)",
		s->errors, s->msg);
	chk_note("concurrency: %ld namespace operations by %d processes", total,
		 nprocs);

	d = opendir("ns");
	while (d && (de = readdir(d))) {
		int k;
		char *end;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		k = (int)strtol(de->d_name + 1, &end, 10);
		if (de->d_name[0] != 'n' || *end || k < 0 || k >= NAMES) {
			other++;
			continue;
		}
		listed[k]++;
	}
	if (d)
		closedir(d);
	for (int k = 0; k < NAMES; k++) {
		char p[32];
		struct stat st;

		snprintf(p, sizeof(p), "ns/n%d", k);
		exists[k] = lstat(p, &st) == 0;
		inos[k] = exists[k] ? st.st_ino : 0;
		nlinks[k] = exists[k] ? st.st_nlink : 0;
		if (listed[k] != exists[k] && !mism++)
			snprintf(firstmism, sizeof(firstmism),
				 "n%d listed %d times, lstat %s", k, listed[k],
				 exists[k] ? "finds it" : "does not");
	}
	chk_result(mism == 0 && other == 0,
		   "concurrency.ns_listing_matches_lookup",
		   "expected listing == lookups got %ld mismatches (%s), %ld "
		   "unknown names",
		   mism, firstmism, other);
	/* nlink of each inode equals the number of names it has */
	for (int k = 0; k < NAMES; k++) {
		int c = 0;

		if (!exists[k])
			continue;
		for (int j = 0; j < NAMES; j++)
			c += exists[j] && inos[j] == inos[k];
		if ((nlink_t)c != nlinks[k])
			nlink_bad++;
	}
	chk_result(nlink_bad == 0, "concurrency.ns_nlink_consistent",
		   "expected nlink == number of names got %ld inodes off",
		   nlink_bad);
	for (int k = 0; k < NAMES; k++) {
		char p[32];

		snprintf(p, sizeof(p), "ns/n%d", k);
		unlink(p);
	}
	CHECK_SYS("concurrency.ns_rmdir", rmdir("ns"));
	munmap(s, sizeof(*s));
}

/* ------------------------------------------------------------------------ */

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s DIR [--procs N] [--timeout SECONDS]\n",
		argv0);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	struct stat st;
	struct timespec t0, t1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--procs") && i + 1 < argc)
			nprocs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			watchdog_secs = atoi(argv[++i]);
		else if (argv[i][0] == '-' || dir)
			usage(argv[0]);
		else
			dir = argv[i];
	}
	if (!dir || nprocs < 1 || nprocs > MAXPROCS)
		usage(argv[0]);
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "concurrency: %s is not a directory\n", dir);
		return 1;
	}
	chk_init();
	signal(SIGPIPE, SIG_IGN);
	snprintf(workdir, sizeof(workdir), "concurrency.%d", (int)getpid());
	if (chdir(dir) < 0 || mkdir(workdir, 0755) < 0 || chdir(workdir) < 0) {
		fprintf(stderr, "concurrency: cannot make %s/%s: %s\n", dir,
			workdir, strerror(errno));
		return 1;
	}
	signal(SIGALRM, watchdog);
	alarm((unsigned)watchdog_secs);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	test_private();
	nkids = 0;
	test_shared();
	nkids = 0;
	test_append();
	nkids = 0;
	test_namespace();
	alarm(0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	chk_note("concurrency: %d processes, %.2f s", nprocs,
		 (double)(t1.tv_sec - t0.tv_sec) +
			 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (chdir("..") < 0)
		perror("chdir");
	CHECK_SYS("concurrency.cleanup", rmdir(workdir));
	return chk_finish();
}
