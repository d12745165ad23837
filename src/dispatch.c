/* SPDX-License-Identifier: MIT */
/*
 * The decoder and dispatcher: one small function per opcode that checks
 * every length, builds typed arguments and calls the filesystem. It knows
 * nothing of the transport: a message is a header, an optional separate
 * arg0 (the ring's op_in) and a stream of further input bytes.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/file.h>

#include "fring_int.h"

#define XATTR_NAME_MAX_ 255
#define XATTR_SIZE_MAX_ 65536

/* ---------------- input cursor ---------------- */

static const void *take(struct fring_msg *m, size_t n)
{
	const char *p = m->p;

	if (m->left < n)
		return NULL;
	m->p += n;
	m->left -= n;
	return p;
}

/*
 * The op's first fixed-size argument: in the stream on /dev/fuse, in op_in
 * on the ring (where the kernel copies at most 128 bytes).
 */
static const void *take_arg0(struct fring_msg *m, size_t n)
{
	if (m->op_in)
		return n <= FUSE_URING_OP_IN_OUT_SZ ? m->op_in : NULL;
	return take(m, n);
}

static const char *take_str(struct fring_msg *m)
{
	const char *nul = m->left ? memchr(m->p, '\0', m->left) : NULL;

	if (!nul)
		return NULL;
	return take(m, (size_t)(nul - m->p) + 1);
}

/* ---------------- helpers ---------------- */

static void malformed(struct fring_req *req, const char *what)
{
	stat_add(req->q, malformed, 1);
	fr_warn("malformed %s request (unique %llu, len %zu): %s",
		fring_opname(req->opcode), (unsigned long long)req->unique,
		req->in_len, what);
	reply_errno(req, EIO);
}

/* A name the kernel hands us for a directory entry: no '/', not too long. */
static int check_name(const char *name)
{
	size_t len = strlen(name);

	if (len == 0)
		return EINVAL;
	if (len > NAME_MAX)
		return ENAMETOOLONG;
	if (memchr(name, '/', len))
		return EINVAL;
	return 0;
}

static bool name_ok(struct fring_req *req, const char *name)
{
	int err;

	if (!name) {
		malformed(req, "name not NUL-terminated");
		return false;
	}
	err = check_name(name);
	if (err) {
		/* The kernel passes any name a program asks for: a long one is
		 * the program's error, not a malformed message. */
		fr_dbg("%s: rejected name (%s)", fring_opname(req->opcode),
		       err == ENAMETOOLONG ? "too long" : "invalid");
		reply_errno(req, err);
		return false;
	}
	return true;
}

static uint32_t minor(const struct fring_req *req)
{
	return req->se->conn.proto_minor;
}

static struct fring_file *fi_fh(struct fring_req *req, uint64_t fh)
{
	memset(&req->fi, 0, sizeof(req->fi));
	req->fi.fh = fh;
	return &req->fi;
}

/* The data of a READ, WRITE or READDIR: memory (in a registered pool the
 * pool's index lets fixed ops use it), or the client's own pages in the
 * entry's zero-copy slot, addressed from 0. */
static void set_buf(struct fring_req *req, void *mem, size_t size)
{
	const struct fring_queue *q = req->q;

	req->buf.size = size;
	if (req->zc != ZC_NONE) {
		req->buf.kind = FRING_BUF_FIXED;
		req->buf.mem = NULL;
		req->buf.buf_index = req->zc_slot;
		req->buf.buf_addr = 0;
		return;
	}
	req->buf.kind = FRING_BUF_MEM;
	req->buf.mem = mem;
	req->buf.buf_index = q->pool && q->pool_index >= 0 &&
					     (char *)mem >= q->pool &&
					     (char *)mem < q->pool + q->pool_len
				     ? q->pool_index
				     : -1;
	req->buf.buf_addr = (uint64_t)(uintptr_t)mem;
}

#define NEED(ptr, what)                                                        \
	do {                                                                   \
		if (!(ptr)) {                                                  \
			malformed(req, what);                                  \
			return;                                                \
		}                                                              \
	} while (0)

#define CALL_OR(op, fallback_err, ...)                                         \
	do {                                                                   \
		if (req->se->ops.op)                                           \
			req->se->ops.op(__VA_ARGS__);                          \
		else                                                           \
			reply_errno(req, (fallback_err));                      \
	} while (0)

/* ---------------- one function per opcode ---------------- */

static void do_lookup(struct fring_req *req, struct fring_msg *m)
{
	const char *name = take_str(m);

	if (!name_ok(req, name))
		return;
	CALL_OR(lookup, ENOSYS, req, req->nodeid, name);
}

static void do_forget(struct fring_req *req, struct fring_msg *m)
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

static void do_batch_forget(struct fring_req *req, struct fring_msg *m)
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

static void do_getattr(struct fring_req *req, struct fring_msg *m)
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

static void do_setattr(struct fring_req *req, struct fring_msg *m)
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

static void do_readlink(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	/* the kernel reads the target into one page, NUL included
	 * (fuse_readlink_page()) */
	req->max_out = FRING_PAGE - 1;
	CALL_OR(readlink, ENOSYS, req, req->nodeid);
}

static void do_symlink(struct fring_req *req, struct fring_msg *m)
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

static void do_mknod(struct fring_req *req, struct fring_msg *m)
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

static void do_mkdir(struct fring_req *req, struct fring_msg *m)
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

static void do_unlink(struct fring_req *req, struct fring_msg *m)
{
	const char *name = take_str(m);

	if (!name_ok(req, name))
		return;
	CALL_OR(unlink, ENOSYS, req, req->nodeid, name);
}

static void do_rmdir(struct fring_req *req, struct fring_msg *m)
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

static void do_rename(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_rename_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short rename_in");
	rename_common(req, m, in->newdir, 0);
}

static void do_rename2(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_rename2_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short rename2_in");
	rename_common(req, m, in->newdir, in->flags);
}

static void do_link(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_link_in *in = take_arg0(m, sizeof(*in));
	const char *name;

	NEED(in, "short link_in");
	name = take_str(m);
	if (!name_ok(req, name))
		return;
	CALL_OR(link, ENOSYS, req, in->oldnodeid, req->nodeid, name);
}

static void open_common(struct fring_req *req, struct fring_msg *m, bool dir)
{
	const struct fuse_open_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;

	NEED(in, "short open_in");
	fi = fi_fh(req, 0);
	fi->flags = (int)in->flags;
	fi->kill_suidgid = !!(in->open_flags & FUSE_OPEN_KILL_SUIDGID);
	if (dir ? req->se->ops.opendir : req->se->ops.open) {
		if (dir)
			req->se->ops.opendir(req, req->nodeid, fi);
		else
			req->se->ops.open(req, req->nodeid, fi);
	} else {
		fring_reply_open(req, fi);
	}
}

static void do_open(struct fring_req *req, struct fring_msg *m)
{
	open_common(req, m, false);
}

static void do_opendir(struct fring_req *req, struct fring_msg *m)
{
	open_common(req, m, true);
}

/* READ, READDIR, READDIRPLUS: read_in, and data out into the request's
 * buffer. */
static const struct fuse_read_in *read_common(struct fring_req *req,
					      struct fring_msg *m)
{
	const struct fuse_read_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;

	if (!in) {
		malformed(req, "short read_in");
		return NULL;
	}
	if (in->size > req->datasz) {
		malformed(req, "read size above the negotiated maximum");
		return NULL;
	}
	if (in->offset > (uint64_t)INT64_MAX) {
		reply_errno(req, EINVAL);
		return NULL;
	}
	fi = fi_fh(req, in->fh);
	if (minor(req) >= 9) {
		fi->flags = (int)in->flags;
		if (in->read_flags & FUSE_READ_LOCKOWNER)
			fi->lock_owner = in->lock_owner;
	}
	req->max_out = in->size;
	set_buf(req, req->data, in->size);
	return in;
}

static void do_read(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_read_in *in = read_common(req, m);

	if (in)
		CALL_OR(read, ENOSYS, req, req->nodeid, in->size,
			(off_t)in->offset, &req->fi, &req->buf);
}

static void do_readdir(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_read_in *in = read_common(req, m);

	if (in)
		CALL_OR(readdir, ENOSYS, req, req->nodeid, in->size,
			(off_t)in->offset, &req->fi, &req->buf);
}

static void do_readdirplus(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_read_in *in = read_common(req, m);

	if (in)
		CALL_OR(readdirplus, ENOSYS, req, req->nodeid, in->size,
			(off_t)in->offset, &req->fi, &req->buf);
}

static void do_write(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_write_in *in = take_arg0(
		m, minor(req) >= 9 ? sizeof(*in) : FUSE_COMPAT_WRITE_IN_SIZE);
	struct fring_file *fi;
	const void *data;

	NEED(in, "short write_in");
	/* zero-copy: the data is in the client's pages, not the message */
	data = req->zc == ZC_WRITE ? NULL : take(m, in->size);
	NEED(data || req->zc == ZC_WRITE,
	     "write data shorter than write_in.size");
	if (in->offset > (uint64_t)INT64_MAX ||
	    in->offset + in->size > (uint64_t)INT64_MAX) {
		reply_errno(req, EFBIG);
		return;
	}
	fi = fi_fh(req, in->fh);
	fi->writepage = !!(in->write_flags & FUSE_WRITE_CACHE);
	fi->kill_suidgid = !!(in->write_flags & FUSE_WRITE_KILL_SUIDGID);
	if (in->write_flags & FUSE_WRITE_LOCKOWNER)
		fi->lock_owner = in->lock_owner;
	if (minor(req) >= 9)
		fi->flags = (int)in->flags;
	set_buf(req, (void *)data, in->size);
	stat_add(req->q, bytes_written, in->size);
	CALL_OR(write, ENOSYS, req, req->nodeid, &req->buf, (off_t)in->offset,
		fi);
}

static void do_statfs(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	if (req->se->ops.statfs) {
		req->se->ops.statfs(req, req->nodeid);
	} else {
		struct statvfs st = {.f_bsize = 512, .f_namemax = NAME_MAX};

		fring_reply_statfs(req, &st);
	}
}

static void release_common(struct fring_req *req, struct fring_msg *m, bool dir)
{
	const struct fuse_release_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;

	NEED(in, "short release_in");
	fi = fi_fh(req, in->fh);
	fi->flags = (int)in->flags;
	fi->lock_owner = in->lock_owner;
	fi->flush = !!(in->release_flags & FUSE_RELEASE_FLUSH);
	fi->flock_release = !!(in->release_flags & FUSE_RELEASE_FLOCK_UNLOCK);
	if (dir)
		CALL_OR(releasedir, 0, req, req->nodeid, fi);
	else
		CALL_OR(release, 0, req, req->nodeid, fi);
}

static void do_release(struct fring_req *req, struct fring_msg *m)
{
	release_common(req, m, false);
}

static void do_releasedir(struct fring_req *req, struct fring_msg *m)
{
	release_common(req, m, true);
}

static void fsync_common(struct fring_req *req, struct fring_msg *m, bool dir)
{
	const struct fuse_fsync_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;
	int datasync;

	NEED(in, "short fsync_in");
	fi = fi_fh(req, in->fh);
	datasync = !!(in->fsync_flags & FUSE_FSYNC_FDATASYNC);
	if (dir)
		CALL_OR(fsyncdir, 0, req, req->nodeid, datasync, fi);
	else
		CALL_OR(fsync, 0, req, req->nodeid, datasync, fi);
}

static void do_fsync(struct fring_req *req, struct fring_msg *m)
{
	fsync_common(req, m, false);
}

static void do_fsyncdir(struct fring_req *req, struct fring_msg *m)
{
	fsync_common(req, m, true);
}

static bool xattr_name_ok(struct fring_req *req, const char *name)
{
	if (!name) {
		malformed(req, "xattr name not NUL-terminated");
		return false;
	}
	if (!*name || strlen(name) > XATTR_NAME_MAX_) {
		reply_errno(req, *name ? ERANGE : EINVAL);
		return false;
	}
	return true;
}

static void do_setxattr(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_setxattr_in *in = take_arg0(
		m, req->se->setxattr_ext ? sizeof(*in)
					 : FUSE_COMPAT_SETXATTR_IN_SIZE);
	const char *name;
	const void *value;

	NEED(in, "short setxattr_in");
	name = take_str(m);
	if (!xattr_name_ok(req, name))
		return;
	if (in->size > XATTR_SIZE_MAX_) {
		reply_errno(req, E2BIG);
		return;
	}
	value = take(m, in->size);
	NEED(value, "xattr value shorter than setxattr_in.size");
	CALL_OR(setxattr, ENOSYS, req, req->nodeid, name, value, in->size,
		(int)in->flags);
}

static void do_getxattr(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_getxattr_in *in = take_arg0(m, sizeof(*in));
	const char *name;

	NEED(in, "short getxattr_in");
	name = take_str(m);
	if (!xattr_name_ok(req, name))
		return;
	req->max_out = in->size;
	CALL_OR(getxattr, ENOSYS, req, req->nodeid, name, in->size);
}

static void do_listxattr(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_getxattr_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short getxattr_in");
	req->max_out = in->size;
	CALL_OR(listxattr, ENOSYS, req, req->nodeid, in->size);
}

static void do_removexattr(struct fring_req *req, struct fring_msg *m)
{
	const char *name = take_str(m);

	if (!xattr_name_ok(req, name))
		return;
	CALL_OR(removexattr, ENOSYS, req, req->nodeid, name);
}

static void do_flush(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_flush_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;

	NEED(in, "short flush_in");
	fi = fi_fh(req, in->fh);
	fi->lock_owner = in->lock_owner;
	CALL_OR(flush, 0, req, req->nodeid, fi);
}

static void do_init_again(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	fr_warn("INIT received twice; refused");
	reply_errno(req, EPROTO);
}

static void do_getlk(struct fring_req *req, struct fring_msg *m);
static void do_setlk(struct fring_req *req, struct fring_msg *m);

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

static void do_getlk(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_lk_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;
	struct flock fl;

	NEED(in, "short lk_in");
	fi = fi_fh(req, in->fh);
	fi->lock_owner = in->owner;
	lk_to_flock(&in->lk, &fl);
	CALL_OR(getlk, ENOSYS, req, req->nodeid, fi, &fl);
}

static void do_setlk(struct fring_req *req, struct fring_msg *m)
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
	lk_to_flock(&in->lk, &fl);
	CALL_OR(setlk, ENOSYS, req, req->nodeid, fi, &fl, sleep);
}

static void do_access(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_access_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short access_in");
	CALL_OR(access, 0, req, req->nodeid, (int)in->mask);
}

static void create_common(struct fring_req *req, struct fring_msg *m,
			  bool tmpfile)
{
	const struct fuse_create_in *in =
		take_arg0(m, minor(req) >= 12 ? sizeof(*in) : 8);
	struct fring_file *fi;
	const char *name;

	NEED(in, "short create_in");
	name = take_str(m);
	if (tmpfile)
		NEED(name, "tmpfile name not NUL-terminated");
	else if (!name_ok(req, name))
		return;
	fi = fi_fh(req, 0);
	fi->flags = (int)in->flags;
	if (minor(req) >= 12) {
		req->ctx.umask = in->umask;
		fi->kill_suidgid = !!(in->open_flags & FUSE_OPEN_KILL_SUIDGID);
	}
	if (tmpfile)
		CALL_OR(tmpfile, EOPNOTSUPP, req, req->nodeid, in->mode, fi);
	else
		CALL_OR(create, ENOSYS, req, req->nodeid, name, in->mode, fi);
}

static void do_create(struct fring_req *req, struct fring_msg *m)
{
	create_common(req, m, false);
}

static void do_tmpfile(struct fring_req *req, struct fring_msg *m)
{
	create_common(req, m, true);
}

static void do_interrupt(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_interrupt_in *in = take_arg0(m, sizeof(*in));

	req->flags |= REQ_NOREPLY;
	/* A target of 0 (free slots carry 0) or an odd unique (another
	 * INTERRUPT) names no request: never let it match a slot. */
	if (in && in->unique && !(in->unique & FUSE_INT_REQ_BIT))
		session_interrupt(req->se, in->unique);
	else
		stat_add(req->q, malformed, 1);
	reply_none(req);
}

static void do_bmap(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_bmap_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short bmap_in");
	CALL_OR(bmap, ENOSYS, req, req->nodeid, in->blocksize, in->block);
}

static void do_destroy(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	session_call_destroy(req->se);
	reply_errno(req, 0);
}

static void do_ioctl(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_ioctl_in *in = take_arg0(m, sizeof(*in));
	const void *in_buf;
	struct fring_file *fi;

	NEED(in, "short ioctl_in");
	in_buf = take(m, in->in_size);
	NEED(in_buf, "ioctl data shorter than in_size");
	/* Unrestricted ioctls need the retry protocol, which only CUSE
	 * uses. */
	if (in->flags & FUSE_IOCTL_UNRESTRICTED) {
		reply_errno(req, ENOSYS);
		return;
	}
	if (in->out_size > req->datasz) {
		reply_errno(req, EINVAL);
		return;
	}
	fi = fi_fh(req, in->fh);
	req->max_out = in->out_size;
	CALL_OR(ioctl, ENOTTY, req, req->nodeid, in->cmd,
		(void *)(uintptr_t)in->arg, fi, in->flags,
		in->in_size ? in_buf : NULL, in->in_size, in->out_size);
}

static void do_poll(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_poll_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;

	NEED(in, "short poll_in");
	fi = fi_fh(req, in->fh);
	fi->poll_events = in->events;
	CALL_OR(poll, ENOSYS, req, req->nodeid, fi, in->kh);
}

static void do_notify_reply(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	/* No retrieve is ever issued yet; the kernel wants no answer on
	 * /dev/fuse, and the ring transport commits it. */
	req->flags |= REQ_NOREPLY;
	reply_none(req);
}

static void do_fallocate(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_fallocate_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short fallocate_in");
	if (in->offset > (uint64_t)INT64_MAX ||
	    in->length > (uint64_t)INT64_MAX ||
	    in->offset + in->length > (uint64_t)INT64_MAX) {
		reply_errno(req, EFBIG);
		return;
	}
	CALL_OR(fallocate, EOPNOTSUPP, req, req->nodeid, (int)in->mode,
		(off_t)in->offset, (off_t)in->length, fi_fh(req, in->fh));
}

static void do_lseek(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_lseek_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short lseek_in");
	CALL_OR(lseek, ENOSYS, req, req->nodeid, (off_t)in->offset,
		(int)in->whence, fi_fh(req, in->fh));
}

static void do_copy_file_range(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_copy_file_range_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi_in, *fi_out = &req->fi_out;

	NEED(in, "short copy_file_range_in");
	if (in->off_in > (uint64_t)INT64_MAX ||
	    in->off_out > (uint64_t)INT64_MAX) {
		reply_errno(req, EINVAL);
		return;
	}
	fi_in = fi_fh(req, in->fh_in);
	memset(fi_out, 0, sizeof(*fi_out));
	fi_out->fh = in->fh_out;
	CALL_OR(copy_file_range, ENOSYS, req, req->nodeid, (off_t)in->off_in,
		fi_in, in->nodeid_out, (off_t)in->off_out, fi_out,
		(size_t)in->len, (int)in->flags);
}

static void do_syncfs(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_syncfs_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short syncfs_in");
	CALL_OR(syncfs, ENOSYS, req, req->nodeid);
}

static void do_statx(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_statx_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi = NULL;

	NEED(in, "short statx_in");
	if (in->getattr_flags & FUSE_GETATTR_FH)
		fi = fi_fh(req, in->fh);
	CALL_OR(statx, ENOSYS, req, req->nodeid, (int)in->sx_flags, in->sx_mask,
		fi);
}

static void do_enosys(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	reply_errno(req, ENOSYS);
}

/* ---------------- the table ---------------- */

struct op_desc {
	const char *name;
	void (*fn)(struct fring_req *req, struct fring_msg *m);
};

static const struct op_desc ops[] = {
	[FUSE_LOOKUP] = {"LOOKUP", do_lookup},
	[FUSE_FORGET] = {"FORGET", do_forget},
	[FUSE_GETATTR] = {"GETATTR", do_getattr},
	[FUSE_SETATTR] = {"SETATTR", do_setattr},
	[FUSE_READLINK] = {"READLINK", do_readlink},
	[FUSE_SYMLINK] = {"SYMLINK", do_symlink},
	[FUSE_MKNOD] = {"MKNOD", do_mknod},
	[FUSE_MKDIR] = {"MKDIR", do_mkdir},
	[FUSE_UNLINK] = {"UNLINK", do_unlink},
	[FUSE_RMDIR] = {"RMDIR", do_rmdir},
	[FUSE_RENAME] = {"RENAME", do_rename},
	[FUSE_LINK] = {"LINK", do_link},
	[FUSE_OPEN] = {"OPEN", do_open},
	[FUSE_READ] = {"READ", do_read},
	[FUSE_WRITE] = {"WRITE", do_write},
	[FUSE_STATFS] = {"STATFS", do_statfs},
	[FUSE_RELEASE] = {"RELEASE", do_release},
	[FUSE_FSYNC] = {"FSYNC", do_fsync},
	[FUSE_SETXATTR] = {"SETXATTR", do_setxattr},
	[FUSE_GETXATTR] = {"GETXATTR", do_getxattr},
	[FUSE_LISTXATTR] = {"LISTXATTR", do_listxattr},
	[FUSE_REMOVEXATTR] = {"REMOVEXATTR", do_removexattr},
	[FUSE_FLUSH] = {"FLUSH", do_flush},
	[FUSE_INIT] = {"INIT", do_init_again},
	[FUSE_OPENDIR] = {"OPENDIR", do_opendir},
	[FUSE_READDIR] = {"READDIR", do_readdir},
	[FUSE_RELEASEDIR] = {"RELEASEDIR", do_releasedir},
	[FUSE_FSYNCDIR] = {"FSYNCDIR", do_fsyncdir},
	[FUSE_GETLK] = {"GETLK", do_getlk},
	[FUSE_SETLK] = {"SETLK", do_setlk},
	[FUSE_SETLKW] = {"SETLKW", do_setlk},
	[FUSE_ACCESS] = {"ACCESS", do_access},
	[FUSE_CREATE] = {"CREATE", do_create},
	[FUSE_INTERRUPT] = {"INTERRUPT", do_interrupt},
	[FUSE_BMAP] = {"BMAP", do_bmap},
	[FUSE_DESTROY] = {"DESTROY", do_destroy},
	[FUSE_IOCTL] = {"IOCTL", do_ioctl},
	[FUSE_POLL] = {"POLL", do_poll},
	[FUSE_NOTIFY_REPLY] = {"NOTIFY_REPLY", do_notify_reply},
	[FUSE_BATCH_FORGET] = {"BATCH_FORGET", do_batch_forget},
	[FUSE_FALLOCATE] = {"FALLOCATE", do_fallocate},
	[FUSE_READDIRPLUS] = {"READDIRPLUS", do_readdirplus},
	[FUSE_RENAME2] = {"RENAME2", do_rename2},
	[FUSE_LSEEK] = {"LSEEK", do_lseek},
	[FUSE_COPY_FILE_RANGE] = {"COPY_FILE_RANGE", do_copy_file_range},
	[FUSE_SETUPMAPPING] = {"SETUPMAPPING", do_enosys},
	[FUSE_REMOVEMAPPING] = {"REMOVEMAPPING", do_enosys},
	[FUSE_SYNCFS] = {"SYNCFS", do_syncfs},
	[FUSE_TMPFILE] = {"TMPFILE", do_tmpfile},
	[FUSE_STATX] = {"STATX", do_statx},
	[FUSE_COPY_FILE_RANGE_64] = {"COPY_FILE_RANGE_64", do_copy_file_range},
};

_Static_assert(FRING_ARRAY_SIZE(ops) <= FRING_STATS_OPCODES,
	       "stats must count every opcode");

const char *fring_opname(uint32_t opcode)
{
	if (opcode < FRING_ARRAY_SIZE(ops) && ops[opcode].name)
		return ops[opcode].name;
	return "UNKNOWN";
}

int msg_from_dev(struct fring_msg *m, const void *buf, size_t n)
{
	const struct fuse_in_header *ih = buf;
	size_t ext;

	memset(m, 0, sizeof(*m));
	if (n < sizeof(*ih) || ih->len != n)
		return -EINVAL;
	ext = (size_t)ih->total_extlen * 8;
	if (ext > n - sizeof(*ih))
		return -EINVAL;
	m->ih = ih;
	m->p = (const char *)buf + sizeof(*ih);
	m->left = n - sizeof(*ih) - ext;
	if (ext) {
		m->ext = m->p + m->left;
		m->ext_len = ext;
	}
	return 0;
}

void fring_dispatch(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_in_header *ih = m->ih;
	uint32_t op = ih->opcode;

	req->opcode = op;
	req->nodeid = ih->nodeid;
	req->ctx.uid = ih->uid;
	req->ctx.gid = ih->gid;
	req->ctx.pid = (pid_t)ih->pid;
	req->ctx.umask = 0;
	req->max_out = 0;
	req_begin(req, ih->unique);
	stat_add(req->q, by_opcode[op < FRING_STATS_OPCODES ? op : 0], 1);
	if (req->se->cfg.debug)
		fr_info("q%u unique %llu %s nodeid %llu len %u uid %u pid %u",
			req->q->idx, (unsigned long long)ih->unique,
			fring_opname(op), (unsigned long long)ih->nodeid,
			ih->len, ih->uid, ih->pid);
	if (op < FRING_ARRAY_SIZE(ops) && ops[op].fn)
		ops[op].fn(req, m);
	else
		do_enosys(req, m);
	req_end_handler(req);
}

void fring_reject(struct fring_req *req, const struct fuse_in_header *ih,
		  const char *why)
{
	req->opcode = ih->opcode;
	req->nodeid = ih->nodeid;
	req->max_out = 0;
	req_begin(req, ih->unique);
	malformed(req, why);
	req_end_handler(req);
}
