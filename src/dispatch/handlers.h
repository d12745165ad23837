/* SPDX-License-Identifier: MIT */
/*
 * Private to the dispatcher (the files of src/dispatch/): the input cursor,
 * the decoding helpers and every opcode's handler, which the table in
 * dispatch.c names. Nothing here is exported.
 */
#ifndef FRING_DISPATCH_HANDLERS_H
#define FRING_DISPATCH_HANDLERS_H

#include <errno.h>
#include <string.h>

#include "dispatch.h"
#include "opname.h"
#include "reply.h"
#include "req.h"

/* ---------------- input cursor ---------------- */

static inline const void *take(struct fring_msg *m, size_t n)
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
static inline const void *take_arg0(struct fring_msg *m, size_t n)
{
	if (m->op_in)
		return n <= FUSE_URING_OP_IN_OUT_SZ ? m->op_in : NULL;
	return take(m, n);
}

static inline const char *take_str(struct fring_msg *m)
{
	const char *nul = m->left ? memchr(m->p, '\0', m->left) : NULL;

	if (!nul)
		return NULL;
	return take(m, (size_t)(nul - m->p) + 1);
}

/* ---------------- helpers ---------------- */

/* Counts and logs a request that does not decode, and answers EIO. */
FRING_HIDDEN void malformed(struct fring_req *req, const char *what);
/* A directory entry name: false (and answered) if missing or invalid. */
FRING_HIDDEN bool name_ok(struct fring_req *req, const char *name);

static inline uint32_t minor(const struct fring_req *req)
{
	return req->se->conn.proto_minor;
}

static inline struct fring_file *fi_fh(struct fring_req *req, uint64_t fh)
{
	memset(&req->fi, 0, sizeof(req->fi));
	req->fi.fh = fh;
	return &req->fi;
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

/* ---------------- the handlers, by file ---------------- */

/* entry.c: names and attributes */
FRING_HIDDEN void do_lookup(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_forget(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_batch_forget(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_getattr(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_statx(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_setattr(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_access(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_readlink(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_symlink(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_mknod(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_mkdir(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_unlink(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_rmdir(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_rename(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_rename2(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_link(struct fring_req *req, struct fring_msg *m);

/* file.c: open files and their data */
FRING_HIDDEN void open_common(struct fring_req *req, struct fring_msg *m,
			      bool dir);
FRING_HIDDEN void do_open(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_create(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_tmpfile(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN const struct fuse_read_in *read_common(struct fring_req *req,
						    struct fring_msg *m);
FRING_HIDDEN void do_read(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_write(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_flush(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void release_common(struct fring_req *req, struct fring_msg *m,
				 bool dir);
FRING_HIDDEN void do_release(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void fsync_common(struct fring_req *req, struct fring_msg *m,
			       bool dir);
FRING_HIDDEN void do_fsync(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_fallocate(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_lseek(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_copy_file_range(struct fring_req *req,
				     struct fring_msg *m);

/* dir.c: directories */
FRING_HIDDEN void do_opendir(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_readdir(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_readdirplus(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_releasedir(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_fsyncdir(struct fring_req *req, struct fring_msg *m);

/* xattr.c: extended attributes */
FRING_HIDDEN void do_setxattr(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_getxattr(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_listxattr(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_removexattr(struct fring_req *req, struct fring_msg *m);

/* lock.c: locks */
FRING_HIDDEN void do_getlk(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_setlk(struct fring_req *req, struct fring_msg *m);

/* fs.c: whole-filesystem and device-style calls */
FRING_HIDDEN void do_statfs(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_syncfs(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_bmap(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_ioctl(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_poll(struct fring_req *req, struct fring_msg *m);

/* proto.c: protocol messages */
FRING_HIDDEN void do_init_again(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_destroy(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_interrupt(struct fring_req *req, struct fring_msg *m);
FRING_HIDDEN void do_notify_reply(struct fring_req *req, struct fring_msg *m);

#endif
