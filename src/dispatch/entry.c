/* SPDX-License-Identifier: MIT */
/*
 * Names and attributes: LOOKUP, FORGET, GETATTR / STATX / SETATTR, ACCESS,
 * and the calls that make, link, rename and remove directory entries.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "handlers.h"

void do_lookup(struct fring_req *req, struct fring_msg *m)
{
	const char *name = take_str(m);

	if (!name_ok(req, name))
		return;
	CALL_OR(lookup, ENOSYS, req, req->nodeid, name);
}

void do_forget(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_forget_in *in = take_arg0(m, sizeof(*in));
	struct fring_session *se = req->se;

	req->flags |= REQ_NOREPLY;
	if (!in) {
		stat_add(req->q, malformed, 1);
		fr_warn("malformed FORGET (len %zu)", req->in_len);
	} else if (se->ops.forget) {
		se->ops.forget(se->userdata, req->nodeid, in->nlookup);
	} else if (se->ops.forget_multi) {
		struct fring_forget f = {req->nodeid, in->nlookup};

		se->ops.forget_multi(se->userdata, 1, &f);
	}
	reply_none(req);
}

_Static_assert(sizeof(struct fring_forget) == sizeof(struct fuse_forget_one),
	       "forget layouts");
_Static_assert(offsetof(struct fring_forget, nlookup) ==
		       offsetof(struct fuse_forget_one, nlookup),
	       "forget layouts");

void do_batch_forget(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_batch_forget_in *in = take_arg0(m, sizeof(*in));
	const struct fuse_forget_one *one = NULL;
	struct fring_session *se = req->se;

	req->flags |= REQ_NOREPLY;
	if (in)
		one = take(m, (size_t)in->count * sizeof(*one));
	if (!in || (!one && in->count)) {
		stat_add(req->q, malformed, 1);
		fr_warn("malformed BATCH_FORGET (len %zu)", req->in_len);
	} else if (se->ops.forget_multi) {
		se->ops.forget_multi(se->userdata, in->count,
				     (const struct fring_forget *)one);
	} else if (se->ops.forget) {
		for (uint32_t i = 0; i < in->count; i++)
			se->ops.forget(se->userdata, one[i].nodeid,
				       one[i].nlookup);
	}
	reply_none(req);
}

void do_getattr(struct fring_req *req, struct fring_msg *m)
{
	struct fring_file *fi = NULL;

	if (minor(req) >= 9) {
		const struct fuse_getattr_in *in = take_arg0(m, sizeof(*in));

		NEED(in, "short getattr_in");
		if (in->getattr_flags & FUSE_GETATTR_FH)
			fi = fi_fh(req, in->fh);
	}
	CALL_OR(getattr, ENOSYS, req, req->nodeid, fi);
}

void do_statx(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_statx_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi = NULL;

	NEED(in, "short statx_in");
	if (in->getattr_flags & FUSE_GETATTR_FH)
		fi = fi_fh(req, in->fh);
	CALL_OR(statx, ENOSYS, req, req->nodeid, (int)in->sx_flags, in->sx_mask,
		fi);
}

void do_setattr(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_setattr_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi = NULL;
	struct stat st;
	int to_set;

	NEED(in, "short setattr_in");
	memset(&st, 0, sizeof(st));
	st.st_mode = in->mode;
	st.st_uid = in->uid;
	st.st_gid = in->gid;
	st.st_size = (off_t)in->size;
	st.st_atim.tv_sec = (time_t)in->atime;
	st.st_atim.tv_nsec = in->atimensec;
	st.st_mtim.tv_sec = (time_t)in->mtime;
	st.st_mtim.tv_nsec = in->mtimensec;
	st.st_ctim.tv_sec = (time_t)in->ctime;
	st.st_ctim.tv_nsec = in->ctimensec;
	if ((in->valid & FATTR_SIZE) && in->size > (uint64_t)INT64_MAX) {
		reply_errno(req, EFBIG);
		return;
	}
	if (in->valid & FATTR_FH) {
		fi = fi_fh(req, in->fh);
		if (in->valid & FATTR_LOCKOWNER)
			fi->lock_owner = in->lock_owner;
	}
	to_set = (int)(in->valid &
		       (FATTR_MODE | FATTR_UID | FATTR_GID | FATTR_SIZE |
			FATTR_ATIME | FATTR_MTIME | FATTR_ATIME_NOW |
			FATTR_MTIME_NOW | FATTR_CTIME | FATTR_KILL_SUIDGID));
	CALL_OR(setattr, ENOSYS, req, req->nodeid, &st, to_set, fi);
}

void do_access(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_access_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short access_in");
	CALL_OR(access, 0, req, req->nodeid, (int)in->mask);
}

void do_readlink(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	/* the kernel reads the target into one page, NUL included
	 * (fuse_readlink_page()) */
	req->max_out = FRING_PAGE - 1;
	CALL_OR(readlink, ENOSYS, req, req->nodeid);
}

void do_symlink(struct fring_req *req, struct fring_msg *m)
{
	const char *name = take_str(m);
	const char *target = name ? take_str(m) : NULL;

	NEED(target, "symlink names not NUL-terminated");
	if (!name_ok(req, name))
		return;
	if (strlen(target) >= PATH_MAX) {
		reply_errno(req, ENAMETOOLONG);
		return;
	}
	CALL_OR(symlink, ENOSYS, req, target, req->nodeid, name);
}

void do_mknod(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_mknod_in *in =
		take_arg0(m, minor(req) >= 12 ? sizeof(*in) : 8);
	const char *name;

	NEED(in, "short mknod_in");
	name = take_str(m);
	if (!name_ok(req, name))
		return;
	if (minor(req) >= 12)
		req->ctx.umask = in->umask;
	CALL_OR(mknod, ENOSYS, req, req->nodeid, name, in->mode,
		(dev_t)in->rdev);
}

void do_mkdir(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_mkdir_in *in = take_arg0(m, sizeof(*in));
	const char *name;

	NEED(in, "short mkdir_in");
	name = take_str(m);
	if (!name_ok(req, name))
		return;
	if (minor(req) >= 12)
		req->ctx.umask = in->umask;
	CALL_OR(mkdir, ENOSYS, req, req->nodeid, name, in->mode | S_IFDIR);
}

void do_unlink(struct fring_req *req, struct fring_msg *m)
{
	const char *name = take_str(m);

	if (!name_ok(req, name))
		return;
	CALL_OR(unlink, ENOSYS, req, req->nodeid, name);
}

void do_rmdir(struct fring_req *req, struct fring_msg *m)
{
	const char *name = take_str(m);

	if (!name_ok(req, name))
		return;
	CALL_OR(rmdir, ENOSYS, req, req->nodeid, name);
}

static void rename_common(struct fring_req *req, struct fring_msg *m,
			  uint64_t newdir, uint32_t flags)
{
	const char *name = take_str(m);
	const char *newname = name ? take_str(m) : NULL;

	NEED(newname, "rename names not NUL-terminated");
	if (!name_ok(req, name) || !name_ok(req, newname))
		return;
	CALL_OR(rename, ENOSYS, req, req->nodeid, name, newdir, newname, flags);
}

void do_rename(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_rename_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short rename_in");
	rename_common(req, m, in->newdir, 0);
}

void do_rename2(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_rename2_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short rename2_in");
	rename_common(req, m, in->newdir, in->flags);
}

void do_link(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_link_in *in = take_arg0(m, sizeof(*in));
	const char *name;

	NEED(in, "short link_in");
	name = take_str(m);
	if (!name_ok(req, name))
		return;
	CALL_OR(link, ENOSYS, req, in->oldnodeid, req->nodeid, name);
}
