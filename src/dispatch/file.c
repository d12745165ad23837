/* SPDX-License-Identifier: MIT */
/*
 * File data and open files: OPEN / CREATE / TMPFILE, READ, WRITE, FLUSH,
 * RELEASE, FSYNC, FALLOCATE, LSEEK, COPY_FILE_RANGE. The open, read,
 * release and fsync decoding is shared with the directory calls.
 */
#include <errno.h>
#include <string.h>

#include "handlers.h"

void open_common(struct fring_req *req, struct fring_msg *m, bool dir)
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
	} else if (dir ? req->se->no_opendir : req->se->no_open) {
		/* the kernel then opens locally and never asks again
		 * (fuse_file_open()) */
		reply_errno(req, ENOSYS);
	} else {
		fring_reply_open(req, fi);
	}
}

void do_open(struct fring_req *req, struct fring_msg *m)
{
	open_common(req, m, false);
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

void do_create(struct fring_req *req, struct fring_msg *m)
{
	create_common(req, m, false);
}

void do_tmpfile(struct fring_req *req, struct fring_msg *m)
{
	create_common(req, m, true);
}

/* The data of a READ, WRITE or READDIR, as the handler gets it: memory,
 * unless the transport holds it elsewhere (its set_buf says where: the
 * client's pages in a fixed-buffer slot, a registered pool's index, a
 * pipe). */
static void set_buf(struct fring_req *req, void *mem, size_t size)
{
	const struct fring_tp *tp = req->q->tp;

	req->buf.size = size;
	req->buf.kind = FRING_BUF_MEM;
	req->buf.mem = mem;
	req->buf.buf_index = -1;
	req->buf.buf_addr = (uint64_t)(uintptr_t)mem;
	if (tp->set_buf)
		tp->set_buf(req, mem, size);
}

/* READ, READDIR, READDIRPLUS: read_in, and data out into the request's
 * buffer. */
const struct fuse_read_in *read_common(struct fring_req *req,
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
	/* A file's bytes end at INT64_MAX (the kernel's s_maxbytes), so a
	 * handler may add off + size in off_t; directory offsets are the
	 * filesystem's cookies and are left alone. */
	if (req->opcode == FUSE_READ &&
	    in->size > (uint64_t)INT64_MAX - in->offset)
		req->max_out = (uint32_t)((uint64_t)INT64_MAX - in->offset);
	set_buf(req, req->data, req->max_out);
	return in;
}

void do_read(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_read_in *in = read_common(req, m);

	if (in)
		CALL_OR(read, ENOSYS, req, req->nodeid, req->max_out,
			(off_t)in->offset, &req->fi, &req->buf);
}

void do_write(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_write_in *in = take_arg0(
		m, minor(req) >= 9 ? sizeof(*in) : FUSE_COMPAT_WRITE_IN_SIZE);
	struct fring_file *fi;
	const void *data;

	NEED(in, "short write_in");
	/* out of band (zero-copy): the data is not in the message; deferred
	 * (splice_read): its place is, counted in in_header.len */
	data = m->data_oob ? NULL : take(m, in->size);
	NEED(data || m->data_oob, "write data shorter than write_in.size");
	NEED(!m->data_deferred || m->data_deferred == in->size,
	     "write_in.size is not the payload's size");
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
	/* only here, on the queue's dispatching thread: no locked add */
	stat_add_own(req->q, bytes_written, in->size);
	CALL_OR(write, ENOSYS, req, req->nodeid, &req->buf, (off_t)in->offset,
		fi);
}

void do_flush(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_flush_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;

	NEED(in, "short flush_in");
	fi = fi_fh(req, in->fh);
	fi->lock_owner = in->lock_owner;
	CALL_OR(flush, ENOSYS, req, req->nodeid, fi);
}

void release_common(struct fring_req *req, struct fring_msg *m, bool dir)
{
	const struct fuse_release_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;

	NEED(in, "short release_in");
	fi = fi_fh(req, in->fh);
	fi->flags = (int)in->flags;
	fi->lock_owner = in->lock_owner;
	fi->flush = !!(in->release_flags & FUSE_RELEASE_FLUSH);
	fi->flock_release = !!(in->release_flags & FUSE_RELEASE_FLOCK_UNLOCK);
	if (dir) {
		CALL_OR(releasedir, 0, req, req->nodeid, fi);
	} else {
		/* the filesystem may close descriptors now */
		if (req->q->tp->released)
			req->q->tp->released(req);
		CALL_OR(release, 0, req, req->nodeid, fi);
	}
}

void do_release(struct fring_req *req, struct fring_msg *m)
{
	release_common(req, m, false);
}

void fsync_common(struct fring_req *req, struct fring_msg *m, bool dir)
{
	const struct fuse_fsync_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi;
	int datasync;

	NEED(in, "short fsync_in");
	fi = fi_fh(req, in->fh);
	datasync = !!(in->fsync_flags & FUSE_FSYNC_FDATASYNC);
	if (dir)
		CALL_OR(fsyncdir, ENOSYS, req, req->nodeid, datasync, fi);
	else
		CALL_OR(fsync, ENOSYS, req, req->nodeid, datasync, fi);
}

void do_fsync(struct fring_req *req, struct fring_msg *m)
{
	fsync_common(req, m, false);
}

void do_fallocate(struct fring_req *req, struct fring_msg *m)
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

void do_lseek(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_lseek_in *in = take_arg0(m, sizeof(*in));

	NEED(in, "short lseek_in");
	CALL_OR(lseek, ENOSYS, req, req->nodeid, (off_t)in->offset,
		(int)in->whence, fi_fh(req, in->fh));
}

void do_copy_file_range(struct fring_req *req, struct fring_msg *m)
{
	const struct fuse_copy_file_range_in *in = take_arg0(m, sizeof(*in));
	struct fring_file *fi_in, *fi_out = &req->fi_out;
	uint64_t far, len;

	NEED(in, "short copy_file_range_in");
	if (in->off_in > (uint64_t)INT64_MAX ||
	    in->off_out > (uint64_t)INT64_MAX) {
		reply_errno(req, EINVAL);
		return;
	}
	/* copy_file_range() may copy less than asked: neither range may end
	 * past INT64_MAX, where a handler's off + len would overflow */
	far = in->off_in > in->off_out ? in->off_in : in->off_out;
	len = in->len > (uint64_t)INT64_MAX - far ? (uint64_t)INT64_MAX - far
						  : in->len;
	fi_in = fi_fh(req, in->fh_in);
	memset(fi_out, 0, sizeof(*fi_out));
	fi_out->fh = in->fh_out;
	CALL_OR(copy_file_range, ENOSYS, req, req->nodeid, (off_t)in->off_in,
		fi_in, in->nodeid_out, (off_t)in->off_out, fi_out, (size_t)len,
		(int)in->flags);
}
