/* SPDX-License-Identifier: MIT */
/*
 * nullfs: a libfring server that does no work, for bench/run.sh's
 * fring-null-* configurations. It answers from a few bytes of state and
 * makes no system call of its own: READ answers the payload buffer as it
 * is (no copy), WRITE drops the data, LOOKUP and CREATE answer from a
 * bitmap. What it reaches is the ceiling of the transport on the machine,
 * the kernel's and libfring's work per request with nothing behind it; a
 * real server's rate is that minus its own work.
 *
 * Names it knows, the ones bench/run.sh's jobs use: "bench.N" in the root
 * (fio's files, 1 GiB each, always there), directories "mN" in the root
 * (metaops; exist once made) and files "fK" in them (exist once created).
 * Names and attributes are cached 86,400 s, as passthrough_hp's.
 *
 * Built by meson with the examples (BUILD/examples/nullfs), where
 * bench/run.sh takes it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <fring/fring.h>

#define NDIRS	   8
#define DIR_INO0   10
#define BENCH_INO0 100
#define FILE_INO0  1000000
#define NFILES	   1000000
#define BENCH_SIZE ((off_t)1 << 30)
#define TIMEOUT	   86400

static atomic_uchar dir_made[NDIRS];
static atomic_uchar file_made[NFILES];

static bool in(fring_ino_t ino, fring_ino_t first, long n)
{
	return ino >= first && ino < first + (fring_ino_t)n;
}

static int fill(fring_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_blksize = 4096;
	if (ino == FRING_ROOT_INO || in(ino, DIR_INO0, NDIRS)) {
		st->st_mode = S_IFDIR | 0777;
		st->st_nlink = 2;
	} else if (in(ino, BENCH_INO0, NDIRS)) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = BENCH_SIZE;
		st->st_blocks = BENCH_SIZE / 512;
	} else if (in(ino, FILE_INO0, NFILES)) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
	} else {
		return -ENOENT;
	}
	return 0;
}

/* "<prefix><number>" -> first + number, or 0 */
static fring_ino_t numbered(const char *name, const char *prefix,
			    fring_ino_t first, long n)
{
	size_t len = strlen(prefix);
	char *end;
	long i;

	if (strncmp(name, prefix, len) || !name[len])
		return 0;
	i = strtol(name + len, &end, 10);
	return !*end && i >= 0 && i < n ? first + (fring_ino_t)i : 0;
}

static fring_ino_t ino_of(fring_ino_t parent, const char *name)
{
	if (parent == FRING_ROOT_INO) {
		fring_ino_t ino = numbered(name, "m", DIR_INO0, NDIRS);

		return ino ? ino : numbered(name, "bench.", BENCH_INO0, NDIRS);
	}
	if (in(parent, DIR_INO0, NDIRS))
		return numbered(name, "f", FILE_INO0, NFILES);
	return 0;
}

static atomic_uchar *made_flag(fring_ino_t ino)
{
	if (in(ino, DIR_INO0, NDIRS))
		return &dir_made[ino - DIR_INO0];
	if (in(ino, FILE_INO0, NFILES))
		return &file_made[ino - FILE_INO0];
	return NULL;
}

static bool exists(fring_ino_t ino)
{
	atomic_uchar *made = made_flag(ino);

	return made ? *made : in(ino, BENCH_INO0, NDIRS);
}

static void answer_entry(fring_req_t *req, fring_ino_t ino,
			 const struct fring_file *fi)
{
	struct fring_entry e = {
		.ino = ino, .attr_timeout = TIMEOUT, .entry_timeout = TIMEOUT};

	fill(ino, &e.attr);
	if (fi)
		fring_reply_create(req, &e, fi);
	else
		fring_reply_entry(req, &e);
}

static void null_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	fring_ino_t ino = ino_of(parent, name);

	if (!exists(ino)) {
		/* a cached negative entry, as passthrough_hp's */
		struct fring_entry e = {.entry_timeout = TIMEOUT};

		fring_reply_entry(req, &e);
		return;
	}
	answer_entry(req, ino, NULL);
}

static void null_getattr(fring_req_t *req, fring_ino_t ino,
			 struct fring_file *fi)
{
	struct stat st;

	(void)fi;
	if (fill(ino, &st))
		fring_reply_err(req, ENOENT);
	else
		fring_reply_attr(req, &st, TIMEOUT);
}

static void null_setattr(fring_req_t *req, fring_ino_t ino, struct stat *attr,
			 int to_set, struct fring_file *fi)
{
	(void)attr, (void)to_set;
	null_getattr(req, ino, fi);
}

static void null_mkdir(fring_req_t *req, fring_ino_t parent, const char *name,
		       mode_t mode)
{
	fring_ino_t ino = ino_of(parent, name);

	(void)mode;
	if (!in(ino, DIR_INO0, NDIRS)) {
		fring_reply_err(req, EPERM);
		return;
	}
	dir_made[ino - DIR_INO0] = 1;
	answer_entry(req, ino, NULL);
}

static void null_remove(fring_req_t *req, fring_ino_t parent, const char *name)
{
	atomic_uchar *made = made_flag(ino_of(parent, name));

	if (made)
		*made = 0;
	fring_reply_err(req, 0);
}

static void direct_if_asked(struct fring_file *fi)
{
	if (fi->flags & O_DIRECT) {
		fi->direct_io = 1;
		fi->parallel_direct_writes = 1;
	}
}

static void null_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	(void)ino;
	direct_if_asked(fi);
	fring_reply_open(req, fi);
}

static void null_create(fring_req_t *req, fring_ino_t parent, const char *name,
			mode_t mode, struct fring_file *fi)
{
	fring_ino_t ino = ino_of(parent, name);
	atomic_uchar *made = made_flag(ino);

	(void)mode;
	if (!in(ino, FILE_INO0, NFILES) && !in(ino, BENCH_INO0, NDIRS)) {
		fring_reply_err(req, EPERM);
		return;
	}
	if (made)
		*made = 1;
	direct_if_asked(fi);
	answer_entry(req, ino, fi);
}

static void null_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		      struct fring_file *fi, const struct fring_buf *dst)
{
	(void)ino, (void)fi, (void)dst;
	if (off >= BENCH_SIZE)
		size = 0;
	else if ((off_t)size > BENCH_SIZE - off)
		size = (size_t)(BENCH_SIZE - off);
	fring_reply_data(req, size); /* the buffer as it is: no copy */
}

static void null_write(fring_req_t *req, fring_ino_t ino,
		       const struct fring_buf *src, off_t off,
		       struct fring_file *fi)
{
	(void)ino, (void)off, (void)fi;
	fring_reply_write(req, src->size);
}

static void null_readdir(fring_req_t *req, fring_ino_t ino, size_t size,
			 off_t off, struct fring_file *fi,
			 const struct fring_buf *dst)
{
	(void)ino, (void)size, (void)off, (void)fi, (void)dst;
	fring_reply_data(req, 0); /* nothing to list: names are known */
}

static const struct fring_ops null_ops = {
	.lookup = null_lookup,
	.getattr = null_getattr,
	.setattr = null_setattr,
	.mkdir = null_mkdir,
	.unlink = null_remove,
	.rmdir = null_remove,
	.open = null_open,
	.create = null_create,
	.read = null_read,
	.write = null_write,
	.readdir = null_readdir,
};

int main(int argc, char *argv[])
{
	return fring_main(argc, argv, &null_ops, sizeof(null_ops), NULL);
}
