/* SPDX-License-Identifier: MIT */
/*
 * passthrough_io DIR: the data paths a FUSE passthrough open hands to the
 * backing file (read, write, O_APPEND, mmap, truncation, several opens of
 * one inode), each checked byte for byte. It passes on any filesystem;
 * passthrough-io.sh runs it on examples/passthrough -o passthrough and
 * proves from the daemon's counters that no READ or WRITE reached it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define BIG   (8u << 20)
#define CHUNK (128u << 10)
#define SMALL (1u << 20)

static const char *dir;

static const char *path(const char *name)
{
	return chk_name("%s/%s", dir, name);
}

static void fill(unsigned char *p, size_t len, uint64_t seed, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		p[i] = chk_pat(seed, off + i);
}

/* Reads the whole file at name and compares it with want. */
static void check_contents(const char *name, const unsigned char *want,
			   size_t len)
{
	unsigned char *got = malloc(len + 1);
	int fd = open(path(name), O_RDONLY);
	size_t done = 0;
	ssize_t n = 1;

	if (!CHECK_SYS(chk_name("%s.open_read", name), fd) || !got) {
		free(got);
		return;
	}
	while (done <= len && n > 0) {
		n = pread(fd, got + done, len + 1 - done, (off_t)done);
		if (n > 0)
			done += (size_t)n;
	}
	CHECK_EQ(chk_name("%s.size", name), done, len);
	if (done == len)
		CHECK_MEM(chk_name("%s.bytes", name), got, want, len);
	close(fd);
	free(got);
}

/* Sequential writes in chunks, read back through a fresh open. */
static void seq(void)
{
	unsigned char *want = malloc(BIG);
	int fd = open(path("seq"), O_CREAT | O_TRUNC | O_WRONLY, 0644);
	int ok = 1;

	if (!CHECK_SYS("seq.create", fd) || !want)
		goto out;
	fill(want, BIG, 1, 0);
	for (size_t off = 0; off < BIG && ok; off += CHUNK)
		ok = write(fd, want + off, CHUNK) == (ssize_t)CHUNK;
	CHECK("seq.write", ok);
	CHECK_SYS("seq.fsync", fsync(fd));
	CHECK_SYS("seq.close", close(fd));
	check_contents("seq", want, BIG);
out:
	free(want);
}

/* Random pwrites against a model; a second open of the inode (read only,
 * open the whole time) must see each write at once. */
static void rnd(void)
{
	unsigned char *model = calloc(1, SMALL), buf[4096];
	int fd = open(path("rnd"), O_CREAT | O_TRUNC | O_RDWR, 0644);
	int rfd = -1, ok = 1;
	size_t size = 0;

	if (!CHECK_SYS("rnd.create", fd) || !model)
		goto out;
	rfd = open(path("rnd"), O_RDONLY);
	if (!CHECK_SYS("rnd.second_open", rfd))
		goto out;
	srand(7);
	for (int i = 0; i < 500 && ok; i++) {
		size_t len = 1 + (size_t)rand() % sizeof(buf);
		size_t off = (size_t)rand() % (SMALL - len);

		fill(buf, len, 2 + (uint64_t)i, off);
		ok = pwrite(fd, buf, len, (off_t)off) == (ssize_t)len;
		memcpy(model + off, buf, len);
		if (off + len > size)
			size = off + len;
		/* the other open reads what was just written */
		ok = ok && pread(rfd, buf, len, (off_t)off) == (ssize_t)len &&
		     !memcmp(buf, model + off, len);
	}
	CHECK("rnd.pwrite_then_other_open_reads_it", ok);
	CHECK_SYS("rnd.close", close(fd));
	fd = -1;
	check_contents("rnd", model, size);
out:
	if (fd >= 0)
		close(fd);
	if (rfd >= 0)
		close(rfd);
	free(model);
}

/* O_APPEND records land at the end, in order. */
static void append(void)
{
	unsigned char want[64 * 100];
	int fd = open(path("append"), O_CREAT | O_TRUNC | O_WRONLY | O_APPEND,
		      0644);
	int ok = 1;

	if (!CHECK_SYS("append.create", fd))
		return;
	fill(want, sizeof(want), 3, 0);
	for (size_t off = 0; off < sizeof(want) && ok; off += 100) {
		/* lseek(0) first: O_APPEND must win over the position */
		lseek(fd, 0, SEEK_SET);
		ok = write(fd, want + off, 100) == 100;
	}
	CHECK("append.write", ok);
	close(fd);
	check_contents("append", want, sizeof(want));
}

/* A shared mapping writes to the same file the reads see; truncation
 * shortens it. */
static void mapped(void)
{
	unsigned char want[3 * 4096];
	unsigned char *m;
	int fd = open(path("mmap"), O_CREAT | O_TRUNC | O_RDWR, 0644);

	if (!CHECK_SYS("mmap.create", fd))
		return;
	if (!CHECK_SYS("mmap.ftruncate", ftruncate(fd, sizeof(want))))
		goto out;
	m = mmap(NULL, sizeof(want), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK("mmap.map", m != MAP_FAILED))
		goto out;
	fill(want, sizeof(want), 4, 0);
	memcpy(m, want, sizeof(want));
	CHECK_SYS("mmap.msync", msync(m, sizeof(want), MS_SYNC));
	munmap(m, sizeof(want));
	check_contents("mmap", want, sizeof(want));
	CHECK_SYS("mmap.shrink", ftruncate(fd, 4096));
	check_contents("mmap", want, 4096);
out:
	close(fd);
}

int main(int argc, char *argv[])
{
	chk_init();
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 1;
	}
	dir = argv[1];
	seq();
	rnd();
	append();
	mapped();
	return chk_finish();
}
