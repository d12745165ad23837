/* SPDX-License-Identifier: MIT */
/*
 * The decoder and dispatcher: one small function per opcode that checks
 * every length, builds typed arguments and calls the filesystem. It knows
 * nothing of the transport: a message is a header, an optional separate
 * arg0 (the ring's op_in) and a stream of further input bytes.
 *
 * This file holds the opcode table and the entry points (fring_dispatch(),
 * fring_reject(), msg_from_dev()); the checks every handler shares are in
 * check.c, the handlers in one file per family (entry.c, file.c, dir.c,
 * xattr.c, lock.c, fs.c, proto.c), the decoding helpers in handlers.h.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "handlers.h"

static void do_enosys(struct fring_req *req, struct fring_msg *m)
{
	(void)m;
	reply_errno(req, ENOSYS);
}

/* ---------------- the table ---------------- */

/* The handler of each opcode; its name for logs is opname.c's. */
static void (*const ops[])(struct fring_req *req, struct fring_msg *m) = {
	[FUSE_LOOKUP] = do_lookup,
	[FUSE_FORGET] = do_forget,
	[FUSE_GETATTR] = do_getattr,
	[FUSE_SETATTR] = do_setattr,
	[FUSE_READLINK] = do_readlink,
	[FUSE_SYMLINK] = do_symlink,
	[FUSE_MKNOD] = do_mknod,
	[FUSE_MKDIR] = do_mkdir,
	[FUSE_UNLINK] = do_unlink,
	[FUSE_RMDIR] = do_rmdir,
	[FUSE_RENAME] = do_rename,
	[FUSE_LINK] = do_link,
	[FUSE_OPEN] = do_open,
	[FUSE_READ] = do_read,
	[FUSE_WRITE] = do_write,
	[FUSE_STATFS] = do_statfs,
	[FUSE_RELEASE] = do_release,
	[FUSE_FSYNC] = do_fsync,
	[FUSE_SETXATTR] = do_setxattr,
	[FUSE_GETXATTR] = do_getxattr,
	[FUSE_LISTXATTR] = do_listxattr,
	[FUSE_REMOVEXATTR] = do_removexattr,
	[FUSE_FLUSH] = do_flush,
	[FUSE_INIT] = do_init_again,
	[FUSE_OPENDIR] = do_opendir,
	[FUSE_READDIR] = do_readdir,
	[FUSE_RELEASEDIR] = do_releasedir,
	[FUSE_FSYNCDIR] = do_fsyncdir,
	[FUSE_GETLK] = do_getlk,
	[FUSE_SETLK] = do_setlk,
	[FUSE_SETLKW] = do_setlk,
	[FUSE_ACCESS] = do_access,
	[FUSE_CREATE] = do_create,
	[FUSE_INTERRUPT] = do_interrupt,
	[FUSE_BMAP] = do_bmap,
	[FUSE_DESTROY] = do_destroy,
	[FUSE_IOCTL] = do_ioctl,
	[FUSE_POLL] = do_poll,
	[FUSE_NOTIFY_REPLY] = do_notify_reply,
	[FUSE_BATCH_FORGET] = do_batch_forget,
	[FUSE_FALLOCATE] = do_fallocate,
	[FUSE_READDIRPLUS] = do_readdirplus,
	[FUSE_RENAME2] = do_rename2,
	[FUSE_LSEEK] = do_lseek,
	[FUSE_COPY_FILE_RANGE] = do_copy_file_range,
	[FUSE_SETUPMAPPING] = do_enosys,
	[FUSE_REMOVEMAPPING] = do_enosys,
	[FUSE_SYNCFS] = do_syncfs,
	[FUSE_TMPFILE] = do_tmpfile,
	[FUSE_STATX] = do_statx,
	[FUSE_COPY_FILE_RANGE_64] = do_copy_file_range,
};

_Static_assert(FRING_ARRAY_SIZE(ops) <= FRING_STATS_OPCODES,
	       "stats must count every opcode");

/* The handler runs on this thread from here (send_claimed()) */
static void req_enter_handler(struct fring_req *req)
{
	req->put_deferred = false;
	atomic_store_explicit(&req->handler_thread, (uintptr_t)pthread_self(),
			      memory_order_relaxed);
}

/* The handler returned: one that neither answered nor took the request
 * over (fring_req_async()) is a bug, answered EIO so the client does not
 * hang; then the handler's reference goes, and the answer's if it was
 * given inline. */
static void req_end_handler(struct fring_req *req)
{
	atomic_store_explicit(&req->handler_thread, 0, memory_order_relaxed);
	if (!atomic_load(&req->answered) && !(req->flags & REQ_ASYNC)) {
		stat_add(req->q, handler_bugs, 1);
		fr_err("handler bug: %s (unique %llu) returned without an "
		       "answer and without fring_req_async(); answering EIO",
		       fring_opname(req->opcode),
		       (unsigned long long)atomic_load(&req->unique));
		reply_send(req, -EIO, NULL, 0);
	}
	/* the answer's reference too, when it was given inline */
	req_put_n(req, req->put_deferred ? 2 : 1);
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
	req->ext = m->ext;
	req->ext_len = m->ext_len;
	req_begin(req, ih->unique, m->t_start);
	req_enter_handler(req);
	stat_add_own(req->q, by_opcode[op < FRING_STATS_OPCODES ? op : 0], 1);
	if (__builtin_expect(req->se->cfg.debug, 0))
		debug_request(req, m);
	if (op < FRING_ARRAY_SIZE(ops) && ops[op])
		ops[op](req, m);
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
	req->ext = NULL;
	req->ext_len = 0;
	req_begin(req, ih->unique, 0);
	req_enter_handler(req);
	malformed(req, why);
	req_end_handler(req);
}
