/* SPDX-License-Identifier: MIT */
/*
 * -o passthrough: the kernel does the reads, writes and mmap of open
 * regular files on the source file itself, and READ/WRITE never come here.
 *
 * The kernel lets an inode have one backing file at a time: while one open
 * of it is in passthrough mode, every other open must name the same
 * backing file (fuse_inode_uncached_io_start() fails a different one with
 * EBUSY, the open with EIO). So one backing id per node id, counted per
 * open and closed at the last release. The count is taken before the open
 * is answered, so a release racing with an open never closes the id the
 * open is about to hand the kernel.
 *
 * The other way round, an inode with a cached (non-passthrough) open fails
 * a passthrough open (ETXTBSY there, EIO to the caller). So an inode whose
 * first open was served by the daemon stays so until its last release:
 * the table counts those opens too, with id 0.
 *
 * Set-id files are served by the daemon: the kernel writes a backing file
 * with the credentials of whoever registered it (root here), which keeps
 * the set-id bits a write by the caller must clear (pt_kill_suidgid()).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "passthrough.h"

struct backing {
	struct backing *next;
	fring_ino_t nodeid;
	int id; /* 0: the inode's opens are served by the daemon */
	unsigned opens;
};

#define NBUCKETS 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct backing *buckets[NBUCKETS];
static atomic_bool warned;

static struct backing **slot_of(fring_ino_t nodeid)
{
	struct backing **b = &buckets[(nodeid * 0x9e3779b97f4a7c15ull) >> 54];

	while (*b && (*b)->nodeid != nodeid)
		b = &(*b)->next;
	return b;
}

/* Once per run: why files go through the daemon after all. */
static void warn_once(int err)
{
	if (!atomic_exchange(&warned, true))
		fring_log_msg(FRING_LOG_WARN,
			      "passthrough: fring_backing_open: %s; such files "
			      "are served by the daemon%s",
			      strerror(-err),
			      err == -ELOOP ? " (the source is stacked: see "
					      "max_stack_depth)"
					    : "");
}

/* Write data must reach the daemon for these: it clears the bits. */
static bool is_setid(int fd)
{
	struct stat st;

	return fstat(fd, &st) < 0 || (st.st_mode & S_ISUID) ||
	       (st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP);
}

bool pt_backing_attach(fring_req_t *req, struct pt_fs *fs,
		       fring_ino_t nodeid, int fd, struct fring_file *fi)
{
	struct backing **b;
	int id = 0;

	if (!fs->passthrough)
		return false;
	pthread_mutex_lock(&lock);
	b = slot_of(nodeid);
	if (!*b) {
		struct backing *n = calloc(1, sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&lock);
			return false; /* untracked: as without -o passthrough */
		}
		if (!is_setid(fd)) {
			id = fring_backing_open(fring_req_session(req), fd);
			if (id < 0) {
				warn_once(id);
				id = 0;
			}
		}
		n->nodeid = nodeid;
		n->id = id;
		*b = n;
	}
	(*b)->opens++;
	id = (*b)->id;
	pthread_mutex_unlock(&lock);
	if (id) {
		/* The kernel refuses keep_cache with passthrough, and
		 * direct_io would send the data to the daemon again; the
		 * backing file's own page cache serves reads. */
		fi->backing_id = id;
		fi->keep_cache = 0;
		fi->direct_io = 0;
		fi->parallel_direct_writes = 0;
	}
	return true;
}

void pt_backing_detach(fring_req_t *req, fring_ino_t nodeid)
{
	struct backing **b, *gone = NULL;

	pthread_mutex_lock(&lock);
	b = slot_of(nodeid);
	if (*b && --(*b)->opens == 0) {
		gone = *b;
		*b = gone->next;
	}
	pthread_mutex_unlock(&lock);
	if (gone && gone->id) {
		int err = fring_backing_close(fring_req_session(req), gone->id);

		if (err)
			fring_log_msg(FRING_LOG_WARN,
				      "passthrough: closing backing id %d: %s",
				      gone->id, strerror(-err));
	}
	free(gone);
}
