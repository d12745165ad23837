/* SPDX-License-Identifier: MIT */
/*
 * How a queue thread moves a transfer on a backing descriptor: in
 * place without blocking (the file takes RWF_NOWAIT), in place because the
 * file lives in memory (tmpfs and ramfs refuse RWF_NOWAIT but never wait
 * for a device), or on the ring (anything else: io_uring gives a transfer
 * that may block to an io-wq worker).
 *
 * Reads and writes are told apart: ext4, for one, takes RWF_NOWAIT for
 * buffered reads but not for buffered writes.
 *
 * Finding out costs one or two system calls, as much as the transfer
 * itself, so the answer is remembered per thread (in the thread's struct
 * fd_class_cache) by descriptor number. A number can be closed and reused
 * for another file without the library seeing it, so an answer is trusted
 * for FDCLASS_USES transfers only and every answer is dropped when a
 * RELEASE arrives (when servers close descriptors). A stale answer costs
 * time, never data: the worst case is a blocking read of a slow file in
 * place, for at most FDCLASS_USES transfers.
 */
#include <errno.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <sys/vfs.h>

#include "fdclass.h"

#define FDCLASS_USES 64

static atomic_uint fdclass_epoch = 1;

void fd_class_forget_all(void)
{
	atomic_fetch_add_explicit(&fdclass_epoch, 1, memory_order_relaxed);
}

static bool in_memory(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 &&
	       (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC);
}

static struct fd_class_slot *slot_of(struct fd_class_cache *c, int fd,
				     bool is_write)
{
	return &c->s[(unsigned)fd % FD_CLASS_SLOTS][is_write];
}

enum fd_class fd_class_get(struct fd_class_cache *c, int fd, bool is_write)
{
	struct fd_class_slot *s = slot_of(c, fd, is_write);
	unsigned epoch =
		atomic_load_explicit(&fdclass_epoch, memory_order_relaxed);

	if (s->epoch == epoch && s->fd == fd && s->uses < FDCLASS_USES) {
		s->uses++;
		return s->cls;
	}
	return FD_CLASS_UNKNOWN;
}

enum fd_class fd_class_learn(struct fd_class_cache *c, int fd, bool is_write,
			     int nowait_errno)
{
	struct fd_class_slot *s = slot_of(c, fd, is_write);
	enum fd_class cls = FD_CLASS_RING;

	if (nowait_errno == 0 || nowait_errno == EAGAIN)
		cls = FD_CLASS_NOWAIT;
	else if (nowait_errno == EOPNOTSUPP && in_memory(fd))
		cls = FD_CLASS_MEMORY;
	s->fd = fd;
	s->uses = 1;
	s->epoch = atomic_load_explicit(&fdclass_epoch, memory_order_relaxed);
	s->cls = cls;
	return cls;
}

bool fd_class_in_memory(struct fd_class_cache *c, int fd, bool is_write)
{
	enum fd_class cls = fd_class_get(c, fd, is_write);

	/* as an RWF_NOWAIT transfer refused on a file in memory would teach */
	if (cls == FD_CLASS_UNKNOWN)
		cls = fd_class_learn(c, fd, is_write, EOPNOTSUPP);
	return cls == FD_CLASS_MEMORY;
}
