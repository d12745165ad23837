/* SPDX-License-Identifier: MIT */
/*
 * Mount identity: statx(2) on a descriptor says which mount it is on
 * (STATX_MNT_ID, and STATX_MNT_ID_UNIQUE, which the kernel never gives to
 * another mount), /proc/self/mountinfo says where that mount is now and
 * what sits on it. Nothing here unmounts; mount.c decides.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mountid.h"

/* older headers than the kernels they run on */
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

/* the system call itself: glibc's fallback for kernels without statx is
 * fstatat(2), which asks the FUSE server, stuck or not answering yet */
static int statx_fd(int fd, unsigned mask, struct statx *sx)
{
	return (int)syscall(SYS_statx, fd, "",
			    AT_EMPTY_PATH | AT_STATX_DONT_SYNC, mask, sx);
}

int mountid_of_fd(int fd, struct mount_id *m, bool *at_root)
{
	/* DONT_SYNC: a FUSE root answers from what the kernel holds, so a
	 * stuck server is never waited for. Mask 0 first: FUSE refuses any
	 * attribute to a process it does not allow in (no allow_other), but
	 * the mount id and the device come from the VFS all the same. */
	struct statx sx;

	memset(m, 0, sizeof(*m));
	*at_root = true;
	if (statx_fd(fd, 0, &sx) < 0)
		return -errno;
	m->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	if (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
		*at_root = sx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
	if (!(sx.stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;
	m->id = sx.stx_mnt_id;
	if (statx_fd(fd, STATX_MNT_ID_UNIQUE, &sx) == 0 &&
	    (sx.stx_mask & STATX_MNT_ID_UNIQUE))
		m->uniq = sx.stx_mnt_id;
	return 0;
}

bool mountid_same(const struct mount_id *a, const struct mount_id *b)
{
	if (a->dev != b->dev)
		return false;
	if (a->uniq && b->uniq)
		return a->uniq == b->uniq;
	return a->id == b->id;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - TYPE SOURCE ..." */
static int parse_line(char *line, struct mnt_ent *e)
{
	char *f[6], *save = NULL, *tok, *type = NULL, *src = NULL;
	unsigned long long id, parent;
	unsigned maj, min;
	int n = 0;

	for (tok = strtok_r(line, " \n", &save); tok && n < 6;
	     tok = strtok_r(NULL, " \n", &save))
		f[n++] = tok;
	if (n < 6)
		return -EINVAL;
	while (tok && strcmp(tok, "-"))
		tok = strtok_r(NULL, " \n", &save);
	if (tok)
		type = strtok_r(NULL, " \n", &save);
	if (type)
		src = strtok_r(NULL, " \n", &save);
	if (!type || sscanf(f[0], "%llu", &id) != 1 ||
	    sscanf(f[1], "%llu", &parent) != 1 ||
	    sscanf(f[2], "%u:%u", &maj, &min) != 2)
		return -EINVAL;
	unescape(f[4]);
	unescape(type);
	if (src)
		unescape(src);
	e->id = id;
	e->parent = parent;
	e->dev = makedev(maj, min);
	e->path = strdup(f[4]);
	e->fstype = strdup(type);
	e->source = strdup(src ? src : "");
	if (!e->path || !e->fstype || !e->source) {
		free(e->path);
		free(e->fstype);
		free(e->source);
		return -ENOMEM;
	}
	return 0;
}

int mnt_table_read(const char *file, struct mnt_table *t)
{
	FILE *f = fopen(file ? file : "/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0, room = 0;
	int ret = 0;

	t->e = NULL;
	t->n = 0;
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (t->n == room) {
			size_t more = room ? room * 2 : 64;
			struct mnt_ent *e = realloc(t->e, more * sizeof(*e));

			if (!e) {
				ret = -ENOMEM;
				break;
			}
			t->e = e;
			room = more;
		}
		ret = parse_line(line, &t->e[t->n]);
		if (ret == -ENOMEM)
			break;
		if (!ret)
			t->n++;
		ret = 0; /* a line this code cannot read is skipped */
	}
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	if (ret)
		mnt_table_free(t);
	return ret;
}

void mnt_table_free(struct mnt_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].path);
		free(t->e[i].fstype);
		free(t->e[i].source);
	}
	free(t->e);
	t->e = NULL;
	t->n = 0;
}

const struct mnt_ent *mnt_table_by_id(const struct mnt_table *t, uint64_t id,
				      dev_t dev)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].id == id && (!dev || t->e[i].dev == dev))
			return &t->e[i];
	return NULL;
}

/* Decided by the tree, not the order of lines: a mount moved onto a path
 * can be listed before the one it sits on. */
const struct mnt_ent *mnt_table_top_at(const struct mnt_table *t,
				       const char *path)
{
	for (size_t i = 0; i < t->n; i++) {
		bool under = false;

		if (strcmp(t->e[i].path, path))
			continue;
		for (size_t j = 0; j < t->n && !under; j++)
			under = j != i && t->e[j].parent == t->e[i].id &&
				!strcmp(t->e[j].path, path);
		if (!under)
			return &t->e[i];
	}
	return NULL;
}

const struct mnt_ent *mnt_table_child(const struct mnt_table *t,
				      const struct mnt_ent *m, bool *on_root)
{
	const struct mnt_ent *inside = NULL;

	*on_root = false;
	for (size_t i = 0; i < t->n; i++) {
		if (&t->e[i] == m || t->e[i].parent != m->id)
			continue;
		if (!strcmp(t->e[i].path, m->path)) {
			*on_root = true;
			return &t->e[i];
		}
		if (!inside)
			inside = &t->e[i];
	}
	return inside;
}

bool mnt_type_is_fuse(const char *fstype)
{
	return !strcmp(fstype, "fuse") || !strcmp(fstype, "fuseblk") ||
	       !strncmp(fstype, "fuse.", 5);
}
