/* SPDX-License-Identifier: MIT */
/*
 * The decoder and dispatcher: one small function per opcode that checks
 * every length, builds typed arguments and calls the filesystem. It knows
 * nothing of the transport: a message is a header, an optional separate
 * arg0 (the ring's op_in) and a stream of further input bytes.
 *
 * This file holds the opcode table, the entry points (fring_dispatch(),
 * fring_reject(), msg_from_dev()) and the shared checks; the handlers are
 * in dispatch_<family>.c, the helpers in dispatch_int.h.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "dispatch_int.h"

/* ---------------- shared checks ---------------- */

void malformed(struct fring_req *req, const char *what)
{
	stat_add(req->q, malformed, 1);
	fr_warn("malformed %s request (unique %llu, len %zu): %s",
		fring_opname(req->opcode), (unsigned long long)req->unique,
		req->in_len, what);
	reply_errno(req, EIO);
}

#ifdef FRING_TSAN
_Atomic unsigned long fring_kernel_order; /* kernel_order(), fring_int.h */
#endif

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

bool name_ok(struct fring_req *req, const char *name)
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
	req->ext = m->ext;
	req->ext_len = m->ext_len;
	req_begin(req, ih->unique);
	stat_add(req->q, by_opcode[op < FRING_STATS_OPCODES ? op : 0], 1);
	if (__builtin_expect(req->se->cfg.debug, 0))
		debug_request(req, m);
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
	req->ext = NULL;
	req->ext_len = 0;
	req_begin(req, ih->unique);
	malformed(req, why);
	req_end_handler(req);
}
