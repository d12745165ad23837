/* SPDX-License-Identifier: MIT */
/*
 * fsx DIR [--ops N] [--seed S] [--size MAX]
 *
 * A randomised data-integrity exerciser: one file in DIR and an in-memory
 * model of its contents and size. Random writes, reads, truncates, hole
 * punches, fallocates, mmap stores and loads, reopens and fsyncs; every read
 * is compared with the model byte for byte, and the size after every
 * operation. On a mismatch it prints the seed, the operation number, the
 * offset, the first differing bytes and the last 20 operations.
 *
 * Defaults: 100000 operations, a 1 MiB maximum file size, seed 1.
 */
#include "check.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif

#define MAX_IO	(256 * 1024)
#define LOG_LEN 20
#define PAGE	4096

enum op {
	OP_WRITE,
	OP_READ,
	OP_TRUNCATE,
	OP_PUNCH,
	OP_FALLOC_KEEP,
	OP_FALLOC,
	OP_MAPWRITE,
	OP_MAPREAD,
	OP_REOPEN,
	OP_FSYNC,
	OP_VERIFY_ALL, /* not random: the final whole-file check */
	OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"write",      "read",	  "truncate", "punch_hole", "falloc_keep_size",
	"falloc",     "mapwrite", "mapread",  "reopen",	    "fsync",
	"verify_all",
};

/* weights out of 100 */
static const int op_weights[OP_COUNT] = {24, 24, 8, 8, 5, 5, 9, 9, 3, 5, 0};

struct logent {
	long n;
	enum op op;
	int64_t off, len, size_before;
};

static uint64_t rng_state;
static uint64_t seed = 1;
static long nops = 100000;
static int64_t maxsize = 1024 * 1024;

static char path[4096];
static int fd = -1;
static unsigned char *model; /* maxsize bytes; zero beyond size */
static int64_t size;	     /* model file size */
static unsigned char *buf;   /* I/O buffer, MAX_IO + slack */
static struct logent logring[LOG_LEN];
static long opno;
static long counts[OP_COUNT];
static int failed;

static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* uniform in [0, n) (n > 0) */
static int64_t rnd_below(int64_t n)
{
	return (int64_t)(rnd() % (uint64_t)n);
}

static void rnd_fill(unsigned char *p, size_t len)
{
	uint64_t x = rnd() | 1;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	for (; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

static int64_t pick_len(int64_t limit)
{
	int64_t l;

	if (limit <= 0)
		return 0;
	switch (rnd_below(4)) {
	case 0: /* tiny and around a page */
		l = 1 + rnd_below(PAGE + 2);
		break;
	case 1: /* whole pages */
		l = PAGE * (1 + rnd_below(16));
		break;
	default:
		l = 1 + rnd_below(MAX_IO);
	}
	return l > limit ? limit : l;
}

/* An offset in [0, limit): uniform, page aligned, or near the current EOF. */
static int64_t pick_off(int64_t limit)
{
	int64_t o;

	if (limit <= 0)
		return 0;
	switch (rnd_below(3)) {
	case 0:
		o = rnd_below(limit);
		break;
	case 1:
		o = rnd_below(limit) & ~(int64_t)(PAGE - 1);
		break;
	default:
		o = size - 2 * PAGE + rnd_below(4 * PAGE);
		if (o < 0)
			o = rnd_below(PAGE);
	}
	if (o >= limit)
		o = limit - 1;
	return o;
}

static void log_op(enum op op, int64_t off, int64_t len)
{
	struct logent *e = &logring[opno % LOG_LEN];

	e->n = opno;
	e->op = op;
	e->off = off;
	e->len = len;
	e->size_before = size;
	counts[op]++;
}

static void dump_log(void)
{
	long first = opno - LOG_LEN + 1 < 0 ? 0 : opno - LOG_LEN + 1;

	chk_note("seed %" PRIu64 ", failing op #%ld; the last operations:",
		 seed, opno);
	for (long i = first; i <= opno; i++) {
		struct logent *e = &logring[i % LOG_LEN];

		chk_note("  #%ld %-16s off %" PRId64 " (0x%" PRIx64
			 ") len %" PRId64 " (0x%" PRIx64
			 ") size before %" PRId64,
			 e->n, op_names[e->op], e->off, e->off, e->len, e->len,
			 e->size_before);
	}
}

static void fail(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(const char *what, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	chk_result(0, what, "seed %" PRIu64 " op #%ld (%s): %s", seed, opno,
		   op_names[logring[opno % LOG_LEN].op], msg);
	dump_log();
	failed = 1;
}

static void fail_errno(const char *call)
{
	int e = errno;

	fail("fsx.syscall", "%s failed: %s (%s)", call, chk_errname(e),
	     strerror(e));
}

/* Compares got (from the file at off) with the model. */
static int verify(const char *what, const unsigned char *got, int64_t off,
		  int64_t len)
{
	const unsigned char *want = model + off;
	int64_t i;
	char gs[3 * 16 + 1] = "", ws[3 * 16 + 1] = "";

	if (memcmp(got, want, (size_t)len) == 0)
		return 1;
	for (i = 0; i < len && got[i] == want[i]; i++)
		;
	for (int j = 0; j < 16 && i + j < len; j++) {
		snprintf(gs + 3 * j, 4, "%02x ", got[i + j]);
		snprintf(ws + 3 * j, 4, "%02x ", want[i + j]);
	}
	fail(what,
	     "data mismatch at file offset %" PRId64 " (0x%" PRIx64
	     "), %" PRId64 " bytes into a %" PRId64 "-byte access at %" PRId64
	     ": expected [%s] got [%s]",
	     off + i, off + i, i, len, off, ws, gs);
	return 0;
}

static int check_size(void)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		fail_errno("fstat");
		return 0;
	}
	if (st.st_size != size) {
		fail("fsx.size", "expected size %" PRId64 " got %lld", size,
		     (long long)st.st_size);
		return 0;
	}
	return 1;
}

static int do_write(void)
{
	int64_t off = pick_off(maxsize);
	int64_t len = pick_len(maxsize - off);
	int64_t done = 0;

	log_op(OP_WRITE, off, len);
	rnd_fill(buf, (size_t)len);
	while (done < len) {
		ssize_t n = pwrite(fd, buf + done, (size_t)(len - done),
				   off + done);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			fail_errno("pwrite");
			return 0;
		}
		done += n;
	}
	memcpy(model + off, buf, (size_t)len);
	if (off + len > size)
		size = off + len;
	return 1;
}

static int do_read(void)
{
	int64_t off = pick_off(maxsize + 2 * PAGE);
	int64_t len = pick_len(MAX_IO);
	int64_t want = off >= size ? 0 : (off + len > size ? size - off : len);
	int64_t done = 0;

	log_op(OP_READ, off, len);
	while (done < len) {
		ssize_t n =
			pread(fd, buf + done, (size_t)(len - done), off + done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail_errno("pread");
			return 0;
		}
		if (n == 0)
			break;
		done += n;
	}
	if (done != want) {
		fail("fsx.read_len",
		     "pread at %" PRId64 " len %" PRId64 " with size %" PRId64
		     ": expected %" PRId64 " bytes got %" PRId64,
		     off, len, size, want, done);
		return 0;
	}
	return verify("fsx.read", buf, off, done);
}

static int do_truncate(void)
{
	int64_t ns;

	switch (rnd_below(4)) {
	case 0:
		ns = size - PAGE + rnd_below(2 * PAGE);
		break;
	case 1:
		ns = rnd_below(maxsize + 1) & ~(int64_t)(PAGE - 1);
		break;
	default:
		ns = rnd_below(maxsize + 1);
	}
	if (ns < 0)
		ns = 0;
	if (ns > maxsize)
		ns = maxsize;
	log_op(OP_TRUNCATE, ns, 0);
	if (ftruncate(fd, ns) < 0) {
		fail_errno("ftruncate");
		return 0;
	}
	if (ns < size)
		memset(model + ns, 0, (size_t)(size - ns));
	size = ns;
	return 1;
}

static int do_punch(void)
{
	int64_t off, len, end;

	if (size == 0)
		return do_write();
	off = pick_off(size);
	len = pick_len(maxsize - off);
	log_op(OP_PUNCH, off, len);
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
		      len) < 0) {
		fail_errno("fallocate(PUNCH_HOLE|KEEP_SIZE)");
		return 0;
	}
	end = off + len > size ? size : off + len;
	if (end > off)
		memset(model + off, 0, (size_t)(end - off));
	return 1;
}

static int do_falloc(int keep)
{
	int64_t off = pick_off(maxsize);
	int64_t len = pick_len(maxsize - off);

	log_op(keep ? OP_FALLOC_KEEP : OP_FALLOC, off, len);
	if (fallocate(fd, keep ? FALLOC_FL_KEEP_SIZE : 0, off, len) < 0) {
		fail_errno(keep ? "fallocate(KEEP_SIZE)" : "fallocate(0)");
		return 0;
	}
	if (!keep && off + len > size)
		size = off + len;
	return 1;
}

static int do_map(int store)
{
	int64_t off, len, pg, maplen;
	unsigned char *p;
	int ok = 1;

	if (size == 0)
		return store ? do_write() : do_read();
	off = pick_off(size);
	len = pick_len(size - off);
	log_op(store ? OP_MAPWRITE : OP_MAPREAD, off, len);
	pg = off & ~(int64_t)(PAGE - 1);
	maplen = off + len - pg;
	p = mmap(NULL, (size_t)maplen,
		 store ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd,
		 pg);
	if (p == MAP_FAILED) {
		fail_errno("mmap");
		return 0;
	}
	if (store) {
		rnd_fill(buf, (size_t)len);
		memcpy(p + (off - pg), buf, (size_t)len);
		memcpy(model + off, buf, (size_t)len);
		if (rnd_below(2) && msync(p, (size_t)maplen, MS_SYNC) < 0) {
			fail_errno("msync");
			ok = 0;
		}
	} else {
		ok = verify("fsx.mapread", p + (off - pg), off, len);
	}
	if (munmap(p, (size_t)maplen) < 0) {
		fail_errno("munmap");
		ok = 0;
	}
	return ok;
}

static int do_reopen(void)
{
	log_op(OP_REOPEN, 0, 0);
	if (close(fd) < 0) {
		fail_errno("close");
		return 0;
	}
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fail_errno("open");
		return 0;
	}
	return 1;
}

static int do_fsync(void)
{
	int data = (int)rnd_below(2);

	log_op(OP_FSYNC, data, 0);
	if ((data ? fdatasync(fd) : fsync(fd)) < 0) {
		fail_errno(data ? "fdatasync" : "fsync");
		return 0;
	}
	return 1;
}

static int one_op(void)
{
	int r = (int)rnd_below(100);
	enum op op = OP_WRITE;

	for (int i = 0; i < OP_COUNT; i++) {
		if (r < op_weights[i]) {
			op = (enum op)i;
			break;
		}
		r -= op_weights[i];
	}
	switch (op) {
	case OP_WRITE:
		return do_write();
	case OP_READ:
		return do_read();
	case OP_TRUNCATE:
		return do_truncate();
	case OP_PUNCH:
		return do_punch();
	case OP_FALLOC_KEEP:
		return do_falloc(1);
	case OP_FALLOC:
		return do_falloc(0);
	case OP_MAPWRITE:
		return do_map(1);
	case OP_MAPREAD:
		return do_map(0);
	case OP_REOPEN:
		return do_reopen();
	case OP_FSYNC:
	default:
		return do_fsync();
	}
}

/* Reads the whole file (through fd) and compares it with the model. */
static int verify_all(const char *what)
{
	int64_t off = 0;
	unsigned char *all = malloc((size_t)size + PAGE);
	ssize_t n;

	opno++;
	log_op(OP_VERIFY_ALL, 0, size);

	while (off < size + PAGE) {
		n = pread(fd, all + off, (size_t)(size + PAGE - off), off);
		if (n < 0) {
			fail_errno("pread");
			free(all);
			return 0;
		}
		if (n == 0)
			break;
		off += n;
	}
	if (off != size) {
		fail(what, "expected %" PRId64 " bytes got %" PRId64, size,
		     off);
		free(all);
		return 0;
	}
	n = verify(what, all, 0, size);
	free(all);
	if (n)
		chk_result(1, what, "%s", "");
	return (int)n;
}

/* A number with an optional K, M or G suffix (powers of 1024). */
static int64_t parse_size(const char *s)
{
	char *end;
	int64_t v = strtoll(s, &end, 0);

	switch (*end) {
	case 'k':
	case 'K':
		return v << 10;
	case 'm':
	case 'M':
		return v << 20;
	case 'g':
	case 'G':
		return v << 30;
	default:
		return *end ? -1 : v;
	}
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s DIR [--ops N] [--seed S] [--size MAX[K|M|G]]\n",
		argv0);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	struct timespec t0, t1;
	double secs;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			nops = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			maxsize = parse_size(argv[++i]);
		else if (argv[i][0] == '-' || dir)
			usage(argv[0]);
		else
			dir = argv[i];
	}
	if (!dir || nops < 0 || maxsize < 1)
		usage(argv[0]);
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "fsx: %s is not a directory\n", dir);
		return 1;
	}
	chk_init();
	rng_state = seed;
	model = calloc(1, (size_t)maxsize + PAGE);
	buf = malloc(MAX_IO + 2 * PAGE);
	if (!model || !buf) {
		fprintf(stderr, "fsx: out of memory\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/fsx.%d.%" PRIu64, dir, (int)getpid(),
		 seed);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0644);
	if (!CHECK_SYS("fsx.create", fd))
		return chk_finish();
	chk_note("fsx: seed %" PRIu64 ", %ld operations, max size %" PRId64
		 ", file %s",
		 seed, nops, maxsize, path);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (opno = 0; opno < nops; opno++) {
		if (!one_op() || !check_size())
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!failed) {
		char summary[512];
		int l = 0;

		for (int i = 0; i < OP_VERIFY_ALL; i++)
			l += snprintf(summary + l, sizeof(summary) - (size_t)l,
				      "%s%s %ld", i ? ", " : "", op_names[i],
				      counts[i]);
		chk_result(1, "fsx.ops", "%s", "");
		chk_note("fsx: %ld ops in %.2f s (%.0f ops/s); %s", nops, secs,
			 secs > 0 ? (double)nops / secs : 0.0, summary);
		opno = nops - 1;
		if (verify_all("fsx.final_data")) {
			opno++;
			do_reopen();
			if (fd >= 0)
				verify_all("fsx.final_data_after_reopen");
		}
	}
	if (fd >= 0)
		close(fd);
	if (!failed)
		CHECK_SYS("fsx.unlink", unlink(path));
	else
		chk_note("fsx: left %s in place for inspection", path);
	return chk_finish();
}
