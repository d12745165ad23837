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
#define FD_CLASS_SLOTS 64

/* What one thread learnt, by descriptor number: the thread that moves the
 * data owns it (a ring thread, in its struct: a thread-local array in a
 * shared library costs a __tls_get_addr() call per lookup). Zeroed is
 * empty. */
struct fd_class_cache {
	struct fd_class_slot {
		int fd;
		unsigned uses;
		unsigned epoch;
		enum fd_class cls;
	} s[FD_CLASS_SLOTS][2]; /* [fd % FD_CLASS_SLOTS][is_write] */
};

/* FD_CLASS_UNKNOWN unless this cache learnt it recently */
FRING_HIDDEN enum fd_class fd_class_get(struct fd_class_cache *c, int fd,
					bool is_write);
/* Remembers what an RWF_NOWAIT read or write on fd answered (0 or errno) */
FRING_HIDDEN enum fd_class fd_class_learn(struct fd_class_cache *c, int fd,
					  bool is_write, int nowait_errno);
/* Whether fd's file is in memory, learnt from its file system alone (for
 * transfers that cannot try RWF_NOWAIT: zero-copy's client pages); a file
 * elsewhere is then remembered as FD_CLASS_RING */
FRING_HIDDEN bool fd_class_in_memory(struct fd_class_cache *c, int fd,
				     bool is_write);
/* Descriptors may be closed and reused from now on (a RELEASE came) */
FRING_HIDDEN void fd_class_forget_all(void);

#endif
