/* SPDX-License-Identifier: MIT */
/*
 * The process's effective capabilities (caps.c), as the ladder weighs its
 * rungs and mount.c chooses how to mount.
 */
#ifndef FRING_CAPS_H
#define FRING_CAPS_H

#include "common.h"

/* capability bits (linux/capability.h) */
#define CAP_IPC_LOCK_BIT  14
#define CAP_SYS_ADMIN_BIT 21

/* Whether capability `bit` is in this process's effective set (CapEff in
 * /proc/self/status); `unreadable` when that file cannot be opened (no
 * /proc). */
FRING_HIDDEN bool cap_effective(int bit, bool unreadable);

#endif
