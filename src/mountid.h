/* SPDX-License-Identifier: MIT */
/*
 * A mount's identity (mountid.c): which mount a descriptor is on, and what
 * this process's mount table (/proc/self/mountinfo) says about a mount now.
 * mount.c uses it so a daemon unmounts the mount it made, wherever that
 * mount has been moved, and nothing else.
 */
#ifndef FRING_MOUNTID_H
#define FRING_MOUNTID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef FRING_HIDDEN
#define FRING_HIDDEN __attribute__((visibility("hidden")))
#endif

struct mount_id {
	/* the id mountinfo shows; the kernel gives it to a new mount once
	 * this one is gone */
	uint64_t id;
	/* STATX_MNT_ID_UNIQUE (Linux 6.8+): never given to another mount;
	 * 0 where the kernel has none */
	uint64_t uniq;
	/* st_dev of the mount's root: its superblock, for FUSE the
	 * connection (an anonymous 0:N) */
	dev_t dev;
};

/*
 * The mount fd is on, without asking a FUSE server anything (a stuck or
 * dead one is never waited for): 0 and *m (uniq 0 when the kernel cannot
 * say it, or refuses it to this process), *at_root whether fd is that
 * mount's root (true when the kernel cannot say); -errno otherwise, and
 * -EOPNOTSUPP when the kernel has no mount ids in statx (before 5.8; dev
 * and *at_root are set then).
 */
FRING_HIDDEN int mountid_of_fd(int fd, struct mount_id *m, bool *at_root);
/* a and b are the same mount: by uniq when both have it, else by id, and
 * on the same superblock */
FRING_HIDDEN bool mountid_same(const struct mount_id *a,
			       const struct mount_id *b);

/* One line of the mount table. */
struct mnt_ent {
	uint64_t id, parent;
	dev_t dev;
	char *path;   /* mount point, \ooo escapes undone */
	char *fstype; /* "fuse", "fuse.memfs", "tmpfs", ... */
	char *source;
};
struct mnt_table {
	struct mnt_ent *e;
	size_t n;
};

/* Reads a mountinfo file (NULL: /proc/self/mountinfo). 0 or -errno. */
FRING_HIDDEN int mnt_table_read(const char *file, struct mnt_table *t);
FRING_HIDDEN void mnt_table_free(struct mnt_table *t);
/* The mount with this id (and this dev, unless dev is 0), or NULL. */
FRING_HIDDEN const struct mnt_ent *mnt_table_by_id(const struct mnt_table *t,
						   uint64_t id, dev_t dev);
/* The mount on top at path (none of the others there is mounted on it),
 * or NULL. */
FRING_HIDDEN const struct mnt_ent *mnt_table_top_at(const struct mnt_table *t,
						    const char *path);
/*
 * A mount whose parent is m, preferring one on m's root (*on_root then
 * true): NULL when nothing is mounted on or inside m.
 */
FRING_HIDDEN const struct mnt_ent *mnt_table_child(const struct mnt_table *t,
						   const struct mnt_ent *m,
						   bool *on_root);
/* fuse, fuseblk or fuse.SUBTYPE */
FRING_HIDDEN bool mnt_type_is_fuse(const char *fstype);

#endif
