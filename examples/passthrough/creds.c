/* SPDX-License-Identifier: MIT */
/*
 * Credentials and privileges.
 *
 * Create operations run with the caller's fsuid/fsgid so that new files
 * belong to the caller and the source filesystem applies its own rules
 * (setgid directories, protected links). setfsuid/setfsgid are used as raw
 * system calls: the kernel changes them per thread, while glibc's wrappers
 * of the set*id family would change every thread of the process.
 *
 * Supplementary groups are not switched: the daemon drops its own at
 * start, so a caller acts with its fsuid and fsgid only (see README.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "passthrough.h"

void pt_creds_enter(struct pt_fs *fs, fring_req_t *req, struct pt_creds *c)
{
	const struct fring_ctx *ctx = fring_req_ctx(req);

	c->uid_set = c->gid_set = false;
	/* (uid_t)-1: an idmapped mount the kernel could not map; act as
	 * the daemon then. */
	if (!fs->switch_creds || ctx->uid == (uid_t)-1 ||
	    ctx->gid == (gid_t)-1)
		return;
	/* The group first: changing fsuid away from 0 drops the file
	 * capabilities, not CAP_SETGID, but keep the order obvious. */
	if (ctx->gid != 0) {
		syscall(SYS_setfsgid, ctx->gid);
		c->gid_set = true;
	}
	if (ctx->uid != 0) {
		syscall(SYS_setfsuid, ctx->uid);
		c->uid_set = true;
	}
}

void pt_creds_leave(struct pt_creds *c)
{
	int saved = errno;

	if (c->uid_set)
		syscall(SYS_setfsuid, 0);
	if (c->gid_set)
		syscall(SYS_setfsgid, 0);
	c->uid_set = c->gid_set = false;
	errno = saved;
}

/*
 * With FUSE_HANDLE_KILLPRIV_V2 the kernel leaves clearing the set-id bits
 * to the server: it flags WRITEs, truncating SETATTRs and O_TRUNC opens of
 * callers without CAP_FSETID, and does not probe security.capability
 * before every write any more. The source would clear the bits itself, but
 * the daemon acts as root (CAP_FSETID), so it is done here: S_ISUID always,
 * S_ISGID if the group may execute, like the kernel for local files.
 */
void pt_kill_suidgid(int fd)
{
	struct pt_procpath pp;
	struct statx sx;
	mode_t m;

	/* STATX_MODE only: the times stay unread (see pt_stat_new()) */
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MODE,
		  &sx) < 0 ||
	    !S_ISREG(sx.stx_mode))
		return;
	m = sx.stx_mode & 07777;
	if (m & S_ISUID)
		m &= ~(mode_t)S_ISUID;
	if ((m & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		m &= ~(mode_t)S_ISGID;
	if (m != (sx.stx_mode & 07777))
		(void)fchmodat(AT_FDCWD, pt_procpath(&pp, fd), m, 0);
}
