/* SPDX-License-Identifier: MIT */
/*
 * The catalog: SOURCE's directories and regular files, scanned once before
 * mounting. Lookups and listings are answered from it on the queue threads:
 * they are cheap and local, only file data is remote.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "remotefs.h"

static int add_node(struct rfs_catalog *cat, uint32_t parent, const char *name,
		    const char *path, const struct stat *st)
{
	struct rfs_node *n;

	if (cat->count == cat->cap) {
		uint32_t cap = cat->cap ? cat->cap * 2 : 64;
		struct rfs_node *nodes =
			realloc(cat->nodes, cap * sizeof(*nodes));

		if (!nodes)
			return -ENOMEM;
		cat->nodes = nodes;
		cat->cap = cap;
	}
	n = &cat->nodes[cat->count];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	n->path = strdup(path);
	if (!n->name || !n->path) {
		free(n->name);
		free(n->path);
		return -ENOMEM;
	}
	n->st = *st;
	n->st.st_ino = cat->count + 1;
	n->parent = parent;
	if (cat->count) { /* link it into its parent's list of children */
		n->next_sibling = cat->nodes[parent].first_child;
		cat->nodes[parent].first_child = cat->count;
	}
	return (int)cat->count++;
}

/* Adds the entries of directory node idx (open as dirfd, which this
 * closes), recursively. */
static int scan_dir(struct rfs_catalog *cat, uint32_t idx, int dirfd)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = -errno;
		close(dirfd);
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;
		int child, fd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone since listed */
		/* Files and directories only: the smallest catalog that
		 * shows the point; symlinks and devices are left out. So is
		 * whatever another filesystem mounted below SOURCE holds:
		 * the "remote" is one store, and a read never leaves it
		 * (workers.c), so none can reach this very mount. */
		if ((!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) ||
		    st.st_dev != cat->nodes[0].st.st_dev)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", cat->nodes[idx].path,
			     de->d_name) >= (int)sizeof(path)) {
			ret = -ENAMETOOLONG;
			break;
		}
		child = add_node(cat, idx, de->d_name, path, &st);
		if (child < 0) {
			ret = child;
			break;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		fd = openat(dirfd, de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		ret = fd < 0 ? -errno : scan_dir(cat, (uint32_t)child, fd);
	}
	closedir(d);
	return ret;
}

int rfs_catalog_scan(struct rfs_catalog *cat, int rootfd)
{
	struct stat st;
	int fd, ret;

	if (fstat(rootfd, &st) < 0)
		return -errno;
	ret = add_node(cat, 0, "", ".", &st);
	if (ret < 0)
		return ret;
	/* a descriptor of its own: scan_dir() closes what it is given */
	fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : scan_dir(cat, 0, fd);
}

void rfs_catalog_free(struct rfs_catalog *cat)
{
	for (uint32_t i = 0; i < cat->count; i++) {
		free(cat->nodes[i].name);
		free(cat->nodes[i].path);
	}
	free(cat->nodes);
	memset(cat, 0, sizeof(*cat));
}

const struct rfs_node *rfs_node_get(const struct rfs_catalog *cat,
				    fring_ino_t ino)
{
	return ino >= 1 && ino <= cat->count ? &cat->nodes[ino - 1] : NULL;
}

fring_ino_t rfs_node_ino(const struct rfs_catalog *cat,
			 const struct rfs_node *n)
{
	return (fring_ino_t)(n - cat->nodes) + 1;
}

/* A linear walk: fine for an example; a real client would hash. */
const struct rfs_node *rfs_child(const struct rfs_catalog *cat,
				 const struct rfs_node *dir, const char *name)
{
	for (uint32_t i = dir->first_child; i; i = cat->nodes[i].next_sibling)
		if (!strcmp(cat->nodes[i].name, name))
			return &cat->nodes[i];
	return NULL;
}
