/* SPDX-License-Identifier: MIT */
#ifndef FRING_FDCLASS_H
#define FRING_FDCLASS_H

#include "common.h"

/* fdclass.c: how a queue thread moves a transfer on a descriptor */
enum fd_class {
	FD_CLASS_UNKNOWN,
	FD_CLASS_NOWAIT, /* preadv2/pwritev2 with RWF_NOWAIT in place */
	FD_CLASS_MEMORY, /* pread/pwrite in place: tmpfs, ramfs */
	FD_CLASS_RING,	 /* READ/WRITE on the ring (io-wq if it blocks) */
};
/* FD_CLASS_UNKNOWN unless this thread learnt it recently */
FRING_HIDDEN enum fd_class fd_class_get(int fd, bool is_write);
/* Remembers what an RWF_NOWAIT read or write on fd answered (0 or errno) */
FRING_HIDDEN enum fd_class fd_class_learn(int fd, bool is_write,
					  int nowait_errno);
/* Whether fd's file is in memory, learnt from its file system alone (for
 * transfers that cannot try RWF_NOWAIT: zero-copy's client pages); a file
 * elsewhere is then remembered as FD_CLASS_RING */
FRING_HIDDEN bool fd_class_in_memory(int fd, bool is_write);
/* Descriptors may be closed and reused from now on (a RELEASE came) */
FRING_HIDDEN void fd_class_forget_all(void);

#endif
