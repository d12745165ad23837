/* SPDX-License-Identifier: MIT */
/*
 * -o size and -o nr_inodes: how much memfs may hold, as tmpfs's options of
 * the same names, and how much it holds now (statfs).
 *
 * Without a limit one client call could take the machine down:
 * fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 TiB) made the kernel's OOM killer
 * take memfs and the client. So, as tmpfs: data pages, extended attributes
 * and symlink targets are charged against size (half of RAM by default),
 * inodes and extra hard links against nr_inodes, and what does not fit
 * is ENOSPC before anything changes. The default also follows the memory
 * cgroup memfs runs in: a limit smaller than half of RAM would otherwise
 * let the data grow into the cgroup's OOM killer instead of into ENOSPC.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "memfs.h"

#define PAGE 4096ull

/* ------------------------------------------------------------------ */
/* Option values */

/* A count with an optional binary suffix among those of suffixes, in the
 * order k, m, g, t, p, e; 0 or -EINVAL (overflow included). */
static int parse_scaled(const char *value, const char *suffixes, uint64_t *out,
			char *tail)
{
	const char *p = value;
	uint64_t v = 0;

	*tail = '\0';
	if (!value || *p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p) {
		const char *s = strchr(suffixes, *p | 0x20);

		if (*p == '%' && strchr(suffixes, '%')) {
			*tail = '%';
		} else if (!s || *p == '%') {
			return -EINVAL;
		} else {
			for (long i = 0; i <= s - suffixes; i++) {
				if (v > UINT64_MAX / 1024)
					return -EINVAL;
				v *= 1024;
			}
		}
		if (p[1])
			return -EINVAL;
	}
	*out = v;
	return 0;
}

int space_parse_size(const char *value, struct memfs_opts *o)
{
	uint64_t v;
	char tail;

	if (parse_scaled(value, "kmgtpe%", &v, &tail))
		return -EINVAL;
	if (tail == '%') {
		if (v < 1 || v > 100)
			return -EINVAL;
		o->size_pct = (unsigned)v;
		o->size = 0;
	} else {
		/* what an off_t can count, in whole pages */
		if (v > (uint64_t)INT64_MAX - PAGE)
			return -EINVAL;
		o->size = (v + PAGE - 1) / PAGE * PAGE;
		o->size_pct = 0;
	}
	o->size_set = true;
	return 0;
}

int space_parse_inodes(const char *value, struct memfs_opts *o)
{
	uint64_t v;
	char tail;

	if (parse_scaled(value, "kmg", &v, &tail) || v > MEMFS_INODES_MAX)
		return -EINVAL;
	o->nr_inodes = v;
	o->nr_inodes_set = true;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The memory this process may use */

static uint64_t read_u64(const char *path, const char *key)
{
	char line[256];
	uint64_t v = 0;
	size_t klen = key ? strlen(key) : 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (key && (strncmp(line, key, klen) || line[klen] != ' '))
			continue;
		/* "max" (v2) reads as no number: no limit */
		if (sscanf(line + (key ? klen + 1 : 0), "%" SCNu64, &v) != 1)
			v = 0;
		break;
	}
	fclose(f);
	return v;
}

/* Whether the comma-separated list has the word w. */
static bool has_word(const char *list, const char *w)
{
	size_t len = strlen(w);

	for (const char *p = list; p; p = strchr(p, ','), p = p ? p + 1 : p)
		if (strncmp(p, w, len) == 0 && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/* Where the hierarchy named by want ("" for v2, "memory" for v1) is
 * mounted, and the cgroup path that mount shows as its root. */
static bool cgroup_mount(const char *want, char *mnt, size_t mlen, char *root,
			 size_t rlen)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char r[1024], m[1024], type[64], opts[1024];
		char *sep = strstr(line, " - ");

		if (!sep ||
		    sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) != 2 ||
		    sscanf(sep + 3, "%63s %*s %1023s", type, opts) != 2)
			continue;
		if (*want ? strcmp(type, "cgroup") == 0 && has_word(opts, want)
			  : strcmp(type, "cgroup2") == 0) {
			snprintf(mnt, mlen, "%s", m);
			snprintf(root, rlen, "%s", r);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The directory of this process's cgroup in the hierarchy want. */
static bool cgroup_dir(const char *want, char *dir, size_t len)
{
	char line[4096], mnt[1024], root[1024], *path = NULL;
	FILE *f = fopen("/proc/self/cgroup", "re");
	size_t rl;

	if (!f)
		return false;
	/* lines "ID:CONTROLLERS:PATH"; v2's has no controllers */
	while (!path && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'),
		     *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		line[strcspn(line, "\n")] = '\0';
		if (!c2)
			continue;
		*c2 = '\0';
		if (*want ? has_word(c1 + 1, want) : c1[1] == '\0')
			path = c2 + 1;
	}
	fclose(f);
	if (!path || !cgroup_mount(want, mnt, sizeof(mnt), root, sizeof(root)))
		return false;
	/* a mount of a sub-tree (a container's) shows the paths below it */
	rl = strlen(root);
	if (strcmp(root, "/") && strncmp(path, root, rl) == 0)
		path += rl;
	snprintf(dir, len, "%s%s", mnt, path);
	return true;
}

/* The memory cgroup's limit (the smallest of the cgroup's and its
 * ancestors'), or 0 when there is none to find. */
static uint64_t cgroup_limit(void)
{
	char dir[2048], file[2100], mnt[1024], root[1024];
	uint64_t lim = 0, v;

	if (cgroup_dir("memory", dir, sizeof(dir))) {
		/* v1: the kernel works out the hierarchy itself */
		snprintf(file, sizeof(file), "%s/memory.stat", dir);
		lim = read_u64(file, "hierarchical_memory_limit");
		if (!lim) {
			snprintf(file, sizeof(file), "%s/memory.limit_in_bytes",
				 dir);
			lim = read_u64(file, NULL);
		}
		return lim;
	}
	if (!cgroup_dir("", dir, sizeof(dir)) ||
	    !cgroup_mount("", mnt, sizeof(mnt), root, sizeof(root)))
		return 0;
	/* v2: each level's memory.max, up to the mount */
	for (;;) {
		char *slash;

		snprintf(file, sizeof(file), "%s/memory.max", dir);
		v = read_u64(file, NULL);
		if (v && (!lim || v < lim))
			lim = v;
		if (strlen(dir) <= strlen(mnt) || !(slash = strrchr(dir, '/')))
			break;
		*slash = '\0';
	}
	return lim;
}

static uint64_t ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	return pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz
				    : 1ull << 30;
}

/* memfds are shmem: with transparent huge pages on for it, a one-page file
 * can take 2 MiB, more than memfs charges. Said once at start. */
static void warn_huge_shmem(void)
{
	char line[256], *a = NULL, *b = NULL;
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled",
			"re");

	if (!f)
		return;
	/* "always within_size advise [never] deny force": the choice */
	if (fgets(line, sizeof(line), f) && (a = strchr(line, '[')))
		b = strchr(a, ']');
	fclose(f);
	if (!b)
		return;
	*b = '\0';
	if (!strcmp(a + 1, "always") || !strcmp(a + 1, "within_size") ||
	    !strcmp(a + 1, "force"))
		fring_log_msg(
			FRING_LOG_WARN,
			"memfs: warning: transparent_hugepage/"
			"shmem_enabled is %s: memfds may take huge pages, "
			"more memory than size= counts",
			a + 1);
}

void space_setup(struct memfs *fs)
{
	struct memfs_space *sp = &fs->space;
	const struct memfs_opts *o = &fs->opt;
	uint64_t ram = ram_bytes(), cg = cgroup_limit(), mem = ram, half;

	if (cg && cg < mem)
		mem = cg;
	half = mem / 2 / PAGE * PAGE;
	if (!o->size_set)
		sp->max_bytes = half;
	else if (o->size_pct)
		sp->max_bytes = ram / 100 * o->size_pct / PAGE * PAGE;
	else
		sp->max_bytes = o->size;
	if (o->size_set && (!sp->max_bytes || sp->max_bytes > mem))
		fring_log_msg(FRING_LOG_WARN,
			      "memfs: warning: size %" PRIu64
			      "%s is more than the %" PRIu64
			      " bytes of %s: filling it can get memfs killed "
			      "for want of memory",
			      sp->max_bytes, sp->max_bytes ? "" : " (no limit)",
			      mem,
			      mem < ram ? "its memory cgroup's limit" : "RAM");
	/* tmpfs's default is an inode per two pages of RAM (per page of the
	 * half); an inode costs
	 * memfs well under 1 KiB, so at least a 1 KiB share of that half
	 * (up to 2M inodes) is as safe and holds a million files on a
	 * small machine too */
	if (o->nr_inodes_set) {
		sp->max_inodes = o->nr_inodes;
	} else {
		uint64_t by_page = half / PAGE, by_kib = half / 1024;

		if (by_kib > 2u << 20)
			by_kib = 2u << 20;
		sp->max_inodes = by_page > by_kib ? by_page : by_kib;
	}
	if (sp->max_inodes > MEMFS_INODES_MAX)
		sp->max_inodes = MEMFS_INODES_MAX;
	warn_huge_shmem();
	fring_log_msg(FRING_LOG_INFO,
		      "memfs: size %" PRIu64 " bytes%s, nr_inodes %" PRIu64
		      "%s",
		      sp->max_bytes, sp->max_bytes ? "" : " (no limit)",
		      sp->max_inodes, sp->max_inodes ? "" : " (no limit)");
}

/* ------------------------------------------------------------------ */
/* Charging */

static int take(atomic_uint_fast64_t *used, uint64_t max, uint64_t n)
{
	uint_fast64_t cur = atomic_load(used);

	do {
		if (max && (n > max || cur > max - n))
			return ENOSPC;
	} while (!atomic_compare_exchange_weak(used, &cur, cur + n));
	return 0;
}

int space_take(struct memfs *fs, uint64_t bytes)
{
	return bytes ? take(&fs->space.bytes, fs->space.max_bytes, bytes) : 0;
}

void space_give(struct memfs *fs, uint64_t bytes)
{
	if (bytes)
		atomic_fetch_sub(&fs->space.bytes, bytes);
}

int space_take_inode(struct memfs *fs)
{
	return take(&fs->space.inodes, fs->space.max_inodes, 1);
}

void space_give_inode(struct memfs *fs)
{
	atomic_fetch_sub(&fs->space.inodes, 1);
}

void space_statfs(struct memfs *fs, struct statvfs *st)
{
	const struct memfs_space *sp = &fs->space;
	uint64_t used = (atomic_load(&sp->bytes) + PAGE - 1) / PAGE;
	uint64_t files = atomic_load(&sp->inodes);

	memset(st, 0, sizeof(*st));
	st->f_bsize = PAGE;
	st->f_frsize = PAGE;
	/* with no limit, tmpfs reports zeros too */
	st->f_blocks = sp->max_bytes / PAGE;
	st->f_bfree = used < st->f_blocks ? st->f_blocks - used : 0;
	st->f_bavail = st->f_bfree;
	st->f_files = sp->max_inodes;
	st->f_ffree = files < sp->max_inodes ? sp->max_inodes - files : 0;
	st->f_favail = st->f_ffree;
	st->f_namemax = MEMFS_NAME_MAX;
}
