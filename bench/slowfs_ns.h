/* SPDX-License-Identifier: MIT */
/*
 * The namespace and data of the slow-backend benchmark's filesystem, shared
 * by its two servers: bench/slowfs.c (libfring) and bench/slowfs_ll.c (the
 * libfuse twin). Everything here is computed, nothing stored, so both
 * servers answer every request identically and neither touches a disk:
 * what they differ in is how they wait for the "backend".
 *
 *   /            directory (inode 1)
 *   /stat        directory (inode 2) of SLOW_NSTAT empty files f0, f1, ...
 *                (inode SLOW_STAT_INO0 + i): the stat job's distinct names
 *   /r0 ... /rN  SLOW_NDATA read-only files of SLOW_DATA_SIZE bytes (inode
 *                SLOW_DATA_INO0 + i): the random-read job's files; byte k
 *                of a file is byte k % 8 (little-endian) of the 64-bit word
 *                ns_word(ino, k / 8), so a reader can check what it got
 *
 * Names and attributes never change: the servers let the kernel cache them
 * SLOW_TIMEOUT seconds, so a stat of a name already looked up reaches no
 * server, and a stat of a new name costs exactly one LOOKUP.
 *
 * Plain C11, no library: both servers include it.
 */
#ifndef SLOWFS_NS_H
#define SLOWFS_NS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define SLOW_ROOT_INO	 1
#define SLOW_STATDIR_INO 2
#define SLOW_DATA_INO0	 100
#define SLOW_NDATA	 256
#define SLOW_DATA_SIZE	 ((off_t)64 << 20)
#define SLOW_STAT_INO0	 1000000
#define SLOW_NSTAT	 4000000
#define SLOW_TIMEOUT	 86400.0

/* "<prefix><decimal>" with the number below n: the number, else -1 */
static inline long ns_numbered(const char *name, const char *prefix, long n)
{
	size_t len = strlen(prefix);
	char *end;
	long i;

	if (strncmp(name, prefix, len) || name[len] < '0' || name[len] > '9')
		return -1;
	/* no leading zeros: one name per number */
	if (name[len] == '0' && name[len + 1])
		return -1;
	errno = 0;
	i = strtol(name + len, &end, 10);
	return !*end && !errno && i < n ? i : -1;
}

/* The inode of parent/name, or 0 if there is none. */
static inline uint64_t ns_lookup(uint64_t parent, const char *name)
{
	long i;

	if (parent == SLOW_ROOT_INO) {
		if (!strcmp(name, "stat"))
			return SLOW_STATDIR_INO;
		i = ns_numbered(name, "r", SLOW_NDATA);
		return i < 0 ? 0 : SLOW_DATA_INO0 + (uint64_t)i;
	}
	if (parent == SLOW_STATDIR_INO) {
		i = ns_numbered(name, "f", SLOW_NSTAT);
		return i < 0 ? 0 : SLOW_STAT_INO0 + (uint64_t)i;
	}
	return 0;
}

static inline int ns_is_data(uint64_t ino)
{
	return ino >= SLOW_DATA_INO0 && ino < SLOW_DATA_INO0 + SLOW_NDATA;
}

/* The attributes of ino: 0, or -ENOENT for an inode that does not exist. */
static inline int ns_stat(uint64_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = (ino_t)ino;
	st->st_blksize = 4096;
	st->st_mtim.tv_sec = 1764633600; /* 2025-12-02, fixed */
	st->st_atim = st->st_ctim = st->st_mtim;
	if (ino == SLOW_ROOT_INO || ino == SLOW_STATDIR_INO) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		return 0;
	}
	if (ns_is_data(ino)) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = SLOW_DATA_SIZE;
		st->st_blocks = SLOW_DATA_SIZE / 512;
		return 0;
	}
	if (ino >= SLOW_STAT_INO0 && ino < SLOW_STAT_INO0 + SLOW_NSTAT) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		return 0;
	}
	return -ENOENT;
}

/* The k-th 64-bit word of data file ino. */
static inline uint64_t ns_word(uint64_t ino, uint64_t k)
{
	uint64_t x = (ino << 40) ^ (k * 0x9E3779B97F4A7C15ull);

	x ^= x >> 29;
	return x;
}

/* Writes the bytes [off, off + size) of data file ino to buf, up to the end
 * of the file: returns how many (0 at or past the end, or for an inode that
 * is not a data file). */
static inline size_t ns_fill(uint64_t ino, off_t off, void *buf, size_t size)
{
	unsigned char *p = buf;
	uint64_t pos, end;

	if (!ns_is_data(ino) || off < 0 || off >= SLOW_DATA_SIZE)
		return 0;
	if ((off_t)size > SLOW_DATA_SIZE - off)
		size = (size_t)(SLOW_DATA_SIZE - off);
	pos = (uint64_t)off;
	end = pos + size;
	while (pos < end) {
		uint64_t w = ns_word(ino, pos / 8);
		unsigned b = (unsigned)(pos % 8);

		if (b == 0 && end - pos >= 8) {
			for (unsigned j = 0; j < 8; j++)
				p[j] = (unsigned char)(w >> (8 * j));
			p += 8;
			pos += 8;
			continue;
		}
		*p++ = (unsigned char)(w >> (8 * b));
		pos++;
	}
	return size;
}

/*
 * The k-th entry of directory dir for readdir, after "." and ".." (the
 * caller lists those): its name into name (room for 32 bytes) and its
 * inode. Returns 0, or -1 past the last entry.
 */
static inline int ns_dirent(uint64_t dir, uint64_t k, char name[32],
			    uint64_t *ino)
{
	if (dir == SLOW_ROOT_INO) {
		if (k == 0) {
			snprintf(name, 32, "stat");
			*ino = SLOW_STATDIR_INO;
			return 0;
		}
		if (k - 1 >= SLOW_NDATA)
			return -1;
		snprintf(name, 32, "r%llu", (unsigned long long)(k - 1));
		*ino = SLOW_DATA_INO0 + k - 1;
		return 0;
	}
	if (dir == SLOW_STATDIR_INO && k < SLOW_NSTAT) {
		snprintf(name, 32, "f%llu", (unsigned long long)k);
		*ino = SLOW_STAT_INO0 + k;
		return 0;
	}
	return -1;
}

#endif
