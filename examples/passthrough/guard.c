/* SPDX-License-Identifier: MIT */
/*
 * The daemon never waits on its own mount.
 *
 * Every request the daemon serves ends in system calls on the source. Were
 * the source to lead into the daemon's own mount, such a call would be a
 * request to the daemon itself, and the thread making it is the one that
 * should answer: on the ring transports the kernel queues it on the ring of
 * the CPU the thread runs on, the thread's own, and the thread and its
 * client wait for each other for good (doc/operations.md, "Hazards").
 *
 * Two ways the source can lead there:
 *  - the mountpoint is inside the source (passthrough SRC SRC/sub, also
 *    through a symlink, "..", or a bind mount of the source elsewhere):
 *    refused at start, comparing the source's (st_dev, st_ino) with those
 *    of the mountpoint's every ancestor, which no spelling of a path hides;
 *  - the mount (or a bind mount of it) appears inside the source later: a
 *    name of the source on which a mount sits is looked at without asking
 *    anything of the filesystem behind it, and one of the daemon's own
 *    device answers ELOOP.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "passthrough.h"

int pt_check_mountpoint(struct pt_fs *fs, const char *mnt)
{
	struct stat st, up;
	int fd, parent;
	unsigned depth = 0;

	if (!mnt)
		return 0;
	/* A relative path would not survive the daemon's chdir("/"). */
	fs->mnt_abs = realpath(mnt, NULL);
	/* A mountpoint that does not open is the library's to report. */
	fd = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		if (fstat(fd, &st) < 0)
			break;
		if (st.st_dev == fs->root.dev && st.st_ino == fs->root.ino &&
		    depth > 0) {
			fprintf(stderr,
				"passthrough: MOUNTPOINT %s is inside SOURCE "
				"%s (%u level%s below it): the daemon would "
				"serve its own mount and hang at the first "
				"walk into it; choose a mountpoint outside the "
				"source (or the source itself)\n",
				mnt, fs->source, depth, depth == 1 ? "" : "s");
			close(fd);
			return -ELOOP;
		}
		/* ".." of a mount's root is the parent of its mountpoint:
		 * the walk goes up through mounts as the kernel's does. */
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) < 0) {
			if (parent >= 0)
				close(parent);
			break;
		}
		close(fd);
		fd = parent;
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			break; /* the root: its ".." is itself */
		depth++;
	}
	close(fd);
	return 0;
}

/*
 * The device of the daemon's own mount, from its mountpoint: statx with
 * AT_STATX_DONT_SYNC and an empty mask, which FUSE answers from what the
 * kernel holds, without a request (nothing serves requests yet when this
 * runs, and none would be answered).
 */
void pt_learn_own_dev(struct pt_fs *fs)
{
	struct statx sx;

	if (!fs->mnt_abs ||
	    statx(AT_FDCWD, fs->mnt_abs, AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT,
		  0, &sx) < 0) {
		fring_log_msg(FRING_LOG_WARN,
			      "passthrough: cannot tell the device of the "
			      "mount (%s): a mount of it inside the source "
			      "would not be noticed",
			      fs->mnt_abs ? strerror(errno) : "no mountpoint");
		return;
	}
	fs->own_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	fs->own_dev_known = true;
}

bool pt_is_own(struct pt_fs *fs, int fd)
{
	struct statx sx;

	if (!fs->own_dev_known)
		return false;
	/* No request even when fd is of the daemon's own mount. */
	if (statx(fd, "",
		  AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, 0,
		  &sx) < 0)
		return false;
	return makedev(sx.stx_dev_major, sx.stx_dev_minor) == fs->own_dev;
}

/*
 * openat2(RESOLVE_NO_XDEV) costs what openat() does and fails EXDEV where
 * the name is a mountpoint, the rare case that needs the closer look. On a
 * kernel without it (before 5.6) every name gets the closer look.
 */
static atomic_bool no_openat2;

int pt_openat(struct pt_fs *fs, int dirfd, const char *name, int flags,
	      mode_t mode)
{
	struct pt_procpath pp;
	int fd, pfd, err;

	if (!atomic_load_explicit(&no_openat2, memory_order_relaxed)) {
		struct open_how how = {
			.flags = (uint64_t)(unsigned)flags,
			.mode = (flags & O_CREAT) ||
						(flags & O_TMPFILE) == O_TMPFILE
					? mode
					: 0,
			.resolve = RESOLVE_NO_XDEV,
		};

		fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno == ENOSYS)
			atomic_store_explicit(&no_openat2, true,
					      memory_order_relaxed);
		else if (errno != EXDEV && errno != EINVAL)
			return -1; /* EINVAL: flags it refuses; see below */
	}
	/* The name leads onto another mount (or openat2 could not tell):
	 * an O_PATH descriptor of where it leads asks nothing of the
	 * filesystem there, nor does pt_is_own(). */
	pfd = openat(dirfd, name,
		     O_PATH | O_CLOEXEC | (flags & (O_NOFOLLOW | O_DIRECTORY)));
	if (pfd < 0)
		return -1;
	if (pt_is_own(fs, pfd)) {
		close(pfd);
		errno = ELOOP;
		return -1;
	}
	if (flags & O_PATH)
		return pfd;
	/* The very inode looked at, opened as asked (a symlink fails
	 * ELOOP, as O_NOFOLLOW makes it; on the /proc link itself that
	 * flag would refuse every inode). */
	fd = open(pt_procpath(&pp, pfd),
		  flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW), mode);
	err = errno;
	close(pfd);
	errno = err;
	return fd;
}
