/* SPDX-License-Identifier: MIT */
/* Mounting and unmounting the session's own mount (mount.c). */
#ifndef FRING_MOUNT_H
#define FRING_MOUNT_H

#include "core.h"

/* mount.c */
/* Mounts at mnt and records which mount is ours; refuses (-EBUSY) a
 * mountpoint with a FUSE mount on top unless cfg.overmount. */
FRING_HIDDEN int mount_fuse(struct fring_session *se, const char *mnt);
/* Unmounts our mount wherever it is now; nothing when it is gone (0), or
 * when other mounts sit on or inside it, or another mount is what its path
 * leads to now (-EBUSY, logged). */
FRING_HIDDEN int unmount_fuse(struct fring_session *se);
/* true when other mounts sit on or inside ours; what names one of them */
FRING_HIDDEN bool mount_held(struct fring_session *se, char *what, size_t len);

#endif
