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

/* watch.c: auto_unmount after mount(2) */
/* Forks the watcher of the session's mount (identified already); 0, or
 * -errno with nothing left running. */
FRING_HIDDEN int watch_start(struct fring_session *se);
/* The session ends normally: the watcher (or fusermount3's) leaves without
 * touching the mount, and is reaped if it is this process's child. */
FRING_HIDDEN void watch_end(struct fring_session *se);
/* fring_mount_fd(): the watch goes to whatever this process becomes (its
 * end of the socket survives exec) and is no longer the session's */
FRING_HIDDEN void watch_hand_over(struct fring_session *se);

#endif
