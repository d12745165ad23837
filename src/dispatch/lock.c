/* SPDX-License-Identifier: MIT */
/*
 * Locks: GETLK, SETLK / SETLKW (POSIX locks, or flock(2) with FUSE_LK_FLOCK).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>

#include "handlers.h"

static void lk_to_flock(const struct fuse_file_lock *lk, struct flock *fl)
{
	memset(fl, 0, sizeof(*fl));
	fl->l_type = (short)lk->type;
	fl->l_whence = SEEK_SET;
	fl->l_start = (off_t)lk->start;
	/* the kernel sends OFFSET_MAX for "to EOF" */
	fl->l_len = lk->end >= (uint64_t)INT64_MAX
			    ? 0
			    : (off_t)(lk->end - lk->start + 1);
	fl->l_pid = (pid_t)lk->pid;
}

/* The kernel sends a range inside 0..OFFSET_MAX with start <= end (from a
 * file_lock it checked, fuse_lk_fill()); anything else is no lock. */
static bool lk_range_ok(struct fring_req *req, const struct fuse_file_lock *lk)
{
	if (lk->start > (uint64_t)INT64_MAX || lk->end < lk->start) {
		reply_errno(req, EINVAL);
		return false;
	}
	return true;
}

void do_getlk(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_lk_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;
	struct flock fl;

	NEED(in, "short lk_in");
	if (!lk_range_ok(req, &in->lk))
		return;
	fi = fi_fh(req, in->fh);
	fi->lock_owner = in->owner;
	lk_to_flock(&in->lk, &fl);
	CALL_OR(getlk, ENOSYS, req, req->nodeid, fi, &fl);
}

void do_setlk(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_lk_in *in = take_arg0(m, sizeof(*in));
	int sleep = req->opcode == FUSE_SETLKW;
	struct fring_file *fi;
	struct flock fl;

	NEED(in, "short lk_in");
	fi = fi_fh(req, in->fh);
	fi->lock_owner = in->owner;
	if (in->lk_flags & FUSE_LK_FLOCK) {
		int op;

		switch (in->lk.type) {
		case F_RDLCK:
			op = LOCK_SH;
			break;
		case F_WRLCK:
			op = LOCK_EX;
			break;
		case F_UNLCK:
			op = LOCK_UN;
			break;
		default:
			reply_errno(req, EINVAL);
			return;
		}
		if (!sleep)
			op |= LOCK_NB;
		CALL_OR(flock, ENOSYS, req, req->nodeid, fi, op);
		return;
	}
	if (!lk_range_ok(req, &in->lk))
		return;
	lk_to_flock(&in->lk, &fl);
	CALL_OR(setlk, ENOSYS, req, req->nodeid, fi, &fl, sleep);
}
