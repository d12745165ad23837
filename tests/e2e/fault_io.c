/* SPDX-License-Identifier: MIT */
/*
 * fault_io FILE OP...: the client side of faults.sh. Runs each OP on FILE
 * (created if missing; FILE/f when FILE is a directory, as run-suite.sh
 * passes the mountpoint) and checks its outcome exactly:
 *   wK=X    pwrite block K (4 KiB of K's pattern): returns X bytes, or
 *           fails with errno X (EIO, ENOSPC, ENOTCONN, ...)
 *   rK=X    pread block K: X bytes, which must be K's pattern, or errno X
 *   loop=N:E:M
 *           N rounds of open + pread block 0 + close of FILE: every failed
 *           call fails with errno E (or E/E2/...: any of up to 4; a dead
 *           connection's answer depends on when a call met it), at most M
 *           of them fail, and every read that works returns block 0's
 *           pattern
 *   held=N:E:M
 *           the same with N preads on the descriptor already open
 * The blocks use direct I/O where the mount allows it (cache=never makes
 * each call one request), so a fault on the nth request hits a known call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define BLK 4096

static const struct {
	const char *name;
	int err;
} errs[] = {{"EIO", EIO},
	    {"ENOSPC", ENOSPC},
	    {"ENOTCONN", ENOTCONN},
	    {"ECONNABORTED", ECONNABORTED},
	    {"ECANCELED", ECANCELED},
	    {"ECONNREFUSED", ECONNREFUSED},
	    {"EINVAL", EINVAL}};

#define MAXERRS 4

static void pattern(unsigned blk, char *buf)
{
	for (unsigned i = 0; i < BLK; i++)
		buf[i] = (char)((blk * 131 + i * 7 + i / 251) & 0xff);
}

/* "4096" -> 4096 (bytes); "EIO" -> -EIO; 0 on "garbage" */
static long parse_want(const char *s)
{
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (!strcmp(s, errs[i].name))
			return -errs[i].err;
	v = strtol(s, &end, 10);
	return end != s && !*end && v >= 0 && v <= BLK ? v : -1000;
}

static void check_outcome(const char *name, long got, int err, long want,
			  const char *data, unsigned blk)
{
	char exp[BLK];

	if (want < 0) {
		chk_errno(name, got, err, (int)-want);
		return;
	}
	if (!chk_eq(name, got, want, got < 0 ? 1 : 0, err) || !data)
		return;
	pattern(blk, exp);
	chk_mem(chk_name("%s.bytes", name), data, exp, (size_t)got);
}

/* 1 when the call's errno is none of the ne expected (the first kept) */
static int loop_err(const int *want, int ne, int *other)
{
	for (int i = 0; i < ne; i++)
		if (errno == want[i])
			return 0;
	if (!*other)
		*other = errno;
	return 1;
}

/* "E1/E2/..." -> e[], their count; 0 when one is not an errno name */
static int parse_errs(const char *list, int e[MAXERRS])
{
	char copy[64], *save = NULL, *name;
	int ne = 0;

	snprintf(copy, sizeof(copy), "%s", list);
	for (name = strtok_r(copy, "/", &save); name;
	     name = strtok_r(NULL, "/", &save)) {
		long v = -parse_want(name);

		if (ne == MAXERRS || v <= 0 || v == 1000)
			return 0;
		e[ne++] = (int)v;
	}
	return ne;
}

static void do_loop(const char *file, int held, const char *arg)
{
	unsigned n = 0, max = 0, failed = 0, bad = 0;
	int other = 0; /* the first errno that was not e */
	char err[64] = "", buf[BLK], exp[BLK];
	int e[MAXERRS], ne;

	if (sscanf(arg, "%u:%63[A-Z/]:%u", &n, err, &max) != 3)
		n = 0;
	ne = parse_errs(err, e);
	if (!n || !ne) {
		chk_result(0, "loop.args", "expected N:E[/E2...]:MAX got %s",
			   arg);
		return;
	}
	pattern(0, exp);
	for (unsigned i = 0; i < n; i++) {
		int fd = held >= 0 ? held : open(file, O_RDONLY);
		ssize_t r;

		if (fd < 0) {
			failed++;
			bad += loop_err(e, ne, &other);
			continue;
		}
		r = pread(fd, buf, BLK, 0);
		if (r < 0) {
			failed++;
			bad += loop_err(e, ne, &other);
		} else if (r != BLK || memcmp(buf, exp, BLK)) {
			bad++;
		}
		if (held < 0 && close(fd)) {
			failed++;
			bad += loop_err(e, ne, &other);
		}
	}
	chk_note("loop: %u rounds, %u calls failed", n, failed);
	chk_result(bad == 0, "loop.errors",
		   "expected failures with %s only and whole reads got %u "
		   "others (the first: %s)",
		   err, bad, other ? chk_errname(other) : "a short read");
	chk_result(failed <= max, "loop.failed",
		   "expected at most %u failed calls got %u", max, failed);
}

int main(int argc, char *argv[])
{
	/* aligned for O_DIRECT */
	static char buf[BLK] __attribute__((aligned(BLK)));
	static char path[4096];
	struct stat st;
	int fd;

	chk_init();
	if (argc < 3) {
		fprintf(stderr, "usage: %s FILE OP...\n", argv[0]);
		return 1;
	}
	if (stat(argv[1], &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/f", argv[1]);
		argv[1] = path;
	}
	/* (a loop opens the file itself: its open may be what fails) */
	fd = strncmp(argv[2], "loop=", 5)
		     ? open(argv[1], O_RDWR | O_CREAT | O_DIRECT, 0644)
		     : -2;
	if (fd == -1 && errno == EINVAL)
		fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd != -2 && !CHECK_SYS("open", fd))
		return chk_finish();
	for (int i = 2; i < argc; i++) {
		const char *op = argv[i];
		char *eq = strchr(op, '=');
		unsigned blk;
		long want, got;

		if (!strncmp(op, "loop=", 5) || !strncmp(op, "held=", 5)) {
			do_loop(argv[1], op[0] == 'h' ? fd : -1, op + 5);
			continue;
		}
		if (!eq || (op[0] != 'w' && op[0] != 'r') ||
		    sscanf(op + 1, "%u=", &blk) != 1 ||
		    (want = parse_want(eq + 1)) == -1000) {
			chk_result(0, "op", "expected wK=X or rK=X got %s", op);
			continue;
		}
		errno = 0;
		if (op[0] == 'w') {
			pattern(blk, buf);
			got = pwrite(fd, buf, BLK, (off_t)blk * BLK);
			check_outcome(op, got, errno, want, NULL, blk);
		} else {
			memset(buf, 0, sizeof(buf));
			got = pread(fd, buf, BLK, (off_t)blk * BLK);
			check_outcome(op, got, errno, want, buf, blk);
		}
	}
	if (fd >= 0)
		close(fd);
	return chk_finish();
}
