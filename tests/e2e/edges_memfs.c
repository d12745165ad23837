/* SPDX-License-Identifier: MIT */
/*
 * edges_memfs: the system calls tests/e2e/edges-memfs.sh needs and the
 * shell has no tool for (renameat2 flags, fallocate modes, errno names),
 * and many files made and checked in one process, fast enough for a case.
 *
 *   edges_memfs mkfiles DIR N BYTES [JOBS]  DIR/fI, I < N, of BYTES bytes
 *                                           each (0: mknod, no open)
 *   edges_memfs checkfiles DIR N BYTES      each reads back its bytes
 *   edges_memfs write FILE OFF LEN          pwrite LEN bytes at OFF
 *   edges_memfs fallocate FILE MODE OFF LEN MODE 0, keep or punch
 *   edges_memfs truncate FILE SIZE
 *   edges_memfs copy IN OUT LEN             copy_file_range from 0 to 0
 *   edges_memfs setxattr FILE NAME SIZE     a value of SIZE bytes
 *   edges_memfs rmxattr FILE NAME
 *   edges_memfs rename2 OLD NEW FLAGS       FLAGS: 0 or noreplace,
 *                                           exchange, whiteout joined by ,
 *   edges_memfs statfs DIR                  "bsize blocks bfree files ffree"
 *
 * Each prints one line: "ok", a count, or the errno's name (ENOSPC, ...),
 * and exits 0 when the call was made (whatever it answered), 2 on a usage
 * error; mkfiles and checkfiles exit 1 at the first file that fails.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

static const char *ename(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static int answer(long long r)
{
	if (r < 0)
		printf("%s\n", ename(errno));
	else
		printf("ok\n");
	return 0;
}

static long long num(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (*end == 'g' || *end == 'G')
		v <<= 30, end++;
	else if (*end == 't' || *end == 'T')
		v <<= 40, end++;
	if (*end || v < 0) {
		fprintf(stderr, "edges_memfs: bad number %s\n", s);
		exit(2);
	}
	return v;
}

/* The bytes of file i: a pattern of its own. */
static void fill(unsigned char *b, size_t n, long long i)
{
	for (size_t k = 0; k < n; k++)
		b[k] = (unsigned char)(1 + (i * 7 + (long long)k) % 251);
}

static int make_range(const char *dir, long long from, long long to,
		      size_t bytes)
{
	unsigned char *b = malloc(bytes ? bytes : 1);
	char path[4096];

	for (long long i = from; i < to; i++) {
		snprintf(path, sizeof(path), "%s/f%lld", dir, i);
		if (!bytes) {
			if (mknod(path, S_IFREG | 0644, 0) < 0)
				goto fail;
			continue;
		}
		int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);

		if (fd < 0)
			goto fail;
		fill(b, bytes, i);
		if (write(fd, b, bytes) != (ssize_t)bytes) {
			int e = errno;

			close(fd);
			errno = e;
			goto fail;
		}
		if (close(fd) < 0)
			goto fail;
		continue;
	fail:
		printf("file %lld: %s\n", i, ename(errno));
		free(b);
		return 1;
	}
	free(b);
	return 0;
}

static int mkfiles(const char *dir, long long n, size_t bytes, int jobs)
{
	int bad = 0;

	if (jobs < 1)
		jobs = 1;
	for (int j = 0; j < jobs; j++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0)
			_exit(make_range(dir, n * j / jobs, n * (j + 1) / jobs,
					 bytes));
	}
	for (int j = 0; j < jobs; j++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	if (!bad)
		printf("%lld\n", n);
	return bad;
}

static int checkfiles(const char *dir, long long n, size_t bytes)
{
	unsigned char *want = malloc(bytes + 1), *got = malloc(bytes + 1);
	char path[4096];
	struct stat st;

	for (long long i = 0; i < n; i++) {
		ssize_t r;
		int fd;

		snprintf(path, sizeof(path), "%s/f%lld", dir, i);
		if (!bytes) {
			if (stat(path, &st) < 0) {
				printf("file %lld: %s\n", i, ename(errno));
				return 1;
			}
			if (!S_ISREG(st.st_mode) || st.st_size) {
				printf("file %lld: not an empty file\n", i);
				return 1;
			}
			continue;
		}
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			printf("file %lld: %s\n", i, ename(errno));
			return 1;
		}
		r = read(fd, got, bytes + 1);
		close(fd);
		fill(want, bytes, i);
		if (r != (ssize_t)bytes || memcmp(got, want, bytes)) {
			printf("file %lld: read %zd bytes, not its %zu\n", i, r,
			       bytes);
			return 1;
		}
	}
	printf("%lld\n", n);
	return 0;
}

static int do_write(const char *file, off_t off, long long len)
{
	size_t chunk = 1 << 20;
	char *b = calloc(1, chunk);
	long long done = 0;
	int fd = open(file, O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		return answer(-1);
	memset(b, 0x5a, chunk);
	while (done < len) {
		size_t want = len - done < (long long)chunk
				      ? (size_t)(len - done)
				      : chunk;
		ssize_t w = pwrite(fd, b, want, off + done);

		if (w <= 0) {
			printf("wrote %lld %s\n", done,
			       w < 0 ? ename(errno) : "0");
			close(fd);
			return 0;
		}
		done += w;
	}
	close(fd);
	printf("wrote %lld ok\n", done);
	return 0;
}

static int do_fallocate(const char *file, const char *mode, off_t off,
			off_t len)
{
	int m = 0, fd = open(file, O_CREAT | O_RDWR, 0644);

	if (fd < 0)
		return answer(-1);
	if (!strcmp(mode, "keep"))
		m = FALLOC_FL_KEEP_SIZE;
	else if (!strcmp(mode, "punch"))
		m = FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE;
	else if (strcmp(mode, "0"))
		return 2;
	answer(fallocate(fd, m, off, len));
	close(fd);
	return 0;
}

static int do_copy(const char *in, const char *out, size_t len)
{
	int fi = open(in, O_RDONLY), fo = open(out, O_CREAT | O_WRONLY, 0644);
	loff_t oi = 0, oo = 0;
	ssize_t r;

	if (fi < 0 || fo < 0)
		return answer(-1);
	r = copy_file_range(fi, &oi, fo, &oo, len, 0);
	if (r < 0)
		return answer(-1);
	printf("%zd\n", r);
	return 0;
}

static int do_setxattr(const char *file, const char *name, size_t size)
{
	char *v = malloc(size ? size : 1);

	memset(v, 'x', size);
	return answer(setxattr(file, name, v, size, 0));
}

static int do_rename2(const char *from, const char *to, char *flags)
{
	unsigned f = 0;

	for (char *t = strtok(flags, ","); t; t = strtok(NULL, ",")) {
		if (!strcmp(t, "noreplace"))
			f |= RENAME_NOREPLACE;
		else if (!strcmp(t, "exchange"))
			f |= RENAME_EXCHANGE;
		else if (!strcmp(t, "whiteout"))
			f |= RENAME_WHITEOUT;
		else if (strcmp(t, "0"))
			return 2;
	}
	return answer(renameat2(AT_FDCWD, from, AT_FDCWD, to, f));
}

static int do_statfs(const char *dir)
{
	struct statvfs s;

	if (statvfs(dir, &s) < 0)
		return answer(-1);
	printf("%lu %llu %llu %llu %llu\n", s.f_frsize,
	       (unsigned long long)s.f_blocks, (unsigned long long)s.f_bfree,
	       (unsigned long long)s.f_files, (unsigned long long)s.f_ffree);
	return 0;
}

int main(int argc, char *argv[])
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(c, "mkfiles") && (argc == 5 || argc == 6))
		return mkfiles(argv[2], num(argv[3]), (size_t)num(argv[4]),
			       argc == 6 ? (int)num(argv[5]) : 1);
	if (!strcmp(c, "checkfiles") && argc == 5)
		return checkfiles(argv[2], num(argv[3]), (size_t)num(argv[4]));
	if (!strcmp(c, "write") && argc == 5)
		return do_write(argv[2], (off_t)num(argv[3]), num(argv[4]));
	if (!strcmp(c, "fallocate") && argc == 6)
		return do_fallocate(argv[2], argv[3], (off_t)num(argv[4]),
				    (off_t)num(argv[5]));
	if (!strcmp(c, "truncate") && argc == 4)
		return answer(truncate(argv[2], (off_t)num(argv[3])));
	if (!strcmp(c, "copy") && argc == 5)
		return do_copy(argv[2], argv[3], (size_t)num(argv[4]));
	if (!strcmp(c, "setxattr") && argc == 5)
		return do_setxattr(argv[2], argv[3], (size_t)num(argv[4]));
	if (!strcmp(c, "rmxattr") && argc == 4)
		return answer(removexattr(argv[2], argv[3]));
	if (!strcmp(c, "rename2") && argc == 5)
		return do_rename2(argv[2], argv[3], argv[4]);
	if (!strcmp(c, "statfs") && argc == 3)
		return do_statfs(argv[2]);
	fprintf(stderr, "usage: see the comment at the top of edges_memfs.c\n");
	return 2;
}
