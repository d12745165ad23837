/* SPDX-License-Identifier: MIT */
/*
 * Names for log lines: every opcode the kernel sends and the errno values
 * answers carry. A leaf: the dispatcher, the reply encoder, the transports
 * and the counters all name what they log with it.
 */
#include <errno.h>

#include "opname.h"

static const char *const op_names[] = {
	[FUSE_LOOKUP] = "LOOKUP",
	[FUSE_FORGET] = "FORGET",
	[FUSE_GETATTR] = "GETATTR",
	[FUSE_SETATTR] = "SETATTR",
	[FUSE_READLINK] = "READLINK",
	[FUSE_SYMLINK] = "SYMLINK",
	[FUSE_MKNOD] = "MKNOD",
	[FUSE_MKDIR] = "MKDIR",
	[FUSE_UNLINK] = "UNLINK",
	[FUSE_RMDIR] = "RMDIR",
	[FUSE_RENAME] = "RENAME",
	[FUSE_LINK] = "LINK",
	[FUSE_OPEN] = "OPEN",
	[FUSE_READ] = "READ",
	[FUSE_WRITE] = "WRITE",
	[FUSE_STATFS] = "STATFS",
	[FUSE_RELEASE] = "RELEASE",
	[FUSE_FSYNC] = "FSYNC",
	[FUSE_SETXATTR] = "SETXATTR",
	[FUSE_GETXATTR] = "GETXATTR",
	[FUSE_LISTXATTR] = "LISTXATTR",
	[FUSE_REMOVEXATTR] = "REMOVEXATTR",
	[FUSE_FLUSH] = "FLUSH",
	[FUSE_INIT] = "INIT",
	[FUSE_OPENDIR] = "OPENDIR",
	[FUSE_READDIR] = "READDIR",
	[FUSE_RELEASEDIR] = "RELEASEDIR",
	[FUSE_FSYNCDIR] = "FSYNCDIR",
	[FUSE_GETLK] = "GETLK",
	[FUSE_SETLK] = "SETLK",
	[FUSE_SETLKW] = "SETLKW",
	[FUSE_ACCESS] = "ACCESS",
	[FUSE_CREATE] = "CREATE",
	[FUSE_INTERRUPT] = "INTERRUPT",
	[FUSE_BMAP] = "BMAP",
	[FUSE_DESTROY] = "DESTROY",
	[FUSE_IOCTL] = "IOCTL",
	[FUSE_POLL] = "POLL",
	[FUSE_NOTIFY_REPLY] = "NOTIFY_REPLY",
	[FUSE_BATCH_FORGET] = "BATCH_FORGET",
	[FUSE_FALLOCATE] = "FALLOCATE",
	[FUSE_READDIRPLUS] = "READDIRPLUS",
	[FUSE_RENAME2] = "RENAME2",
	[FUSE_LSEEK] = "LSEEK",
	[FUSE_COPY_FILE_RANGE] = "COPY_FILE_RANGE",
	[FUSE_SETUPMAPPING] = "SETUPMAPPING",
	[FUSE_REMOVEMAPPING] = "REMOVEMAPPING",
	[FUSE_SYNCFS] = "SYNCFS",
	[FUSE_TMPFILE] = "TMPFILE",
	[FUSE_STATX] = "STATX",
	[FUSE_COPY_FILE_RANGE_64] = "COPY_FILE_RANGE_64",
};

_Static_assert(FRING_ARRAY_SIZE(op_names) <= FRING_STATS_OPCODES,
	       "stats must count every opcode");

const char *fring_opname(uint32_t opcode)
{
	if (opcode < FRING_ARRAY_SIZE(op_names) && op_names[opcode])
		return op_names[opcode];
	return "UNKNOWN";
}

static const char *const errno_names[] = {
	[EPERM] = "EPERM",
	[ENOENT] = "ENOENT",
	[ESRCH] = "ESRCH",
	[EINTR] = "EINTR",
	[EIO] = "EIO",
	[ENXIO] = "ENXIO",
	[E2BIG] = "E2BIG",
	[ENOEXEC] = "ENOEXEC",
	[EBADF] = "EBADF",
	[ECHILD] = "ECHILD",
	[EAGAIN] = "EAGAIN",
	[ENOMEM] = "ENOMEM",
	[EACCES] = "EACCES",
	[EFAULT] = "EFAULT",
	[EBUSY] = "EBUSY",
	[EEXIST] = "EEXIST",
	[EXDEV] = "EXDEV",
	[ENODEV] = "ENODEV",
	[ENOTDIR] = "ENOTDIR",
	[EISDIR] = "EISDIR",
	[EINVAL] = "EINVAL",
	[ENFILE] = "ENFILE",
	[EMFILE] = "EMFILE",
	[ENOTTY] = "ENOTTY",
	[ETXTBSY] = "ETXTBSY",
	[EFBIG] = "EFBIG",
	[ENOSPC] = "ENOSPC",
	[ESPIPE] = "ESPIPE",
	[EROFS] = "EROFS",
	[EMLINK] = "EMLINK",
	[EPIPE] = "EPIPE",
	[EDOM] = "EDOM",
	[ERANGE] = "ERANGE",
	[EDEADLK] = "EDEADLK",
	[ENAMETOOLONG] = "ENAMETOOLONG",
	[ENOLCK] = "ENOLCK",
	[ENOSYS] = "ENOSYS",
	[ENOTEMPTY] = "ENOTEMPTY",
	[ELOOP] = "ELOOP",
	[ENODATA] = "ENODATA",
	[ETIME] = "ETIME",
	[EPROTO] = "EPROTO",
	[EBADMSG] = "EBADMSG",
	[EOVERFLOW] = "EOVERFLOW",
	[EILSEQ] = "EILSEQ",
	[EOPNOTSUPP] = "EOPNOTSUPP",
	[ECONNABORTED] = "ECONNABORTED",
	[ENOBUFS] = "ENOBUFS",
	[ENOTCONN] = "ENOTCONN",
	[ESHUTDOWN] = "ESHUTDOWN",
	[ETIMEDOUT] = "ETIMEDOUT",
	[EALREADY] = "EALREADY",
	[EINPROGRESS] = "EINPROGRESS",
	[ESTALE] = "ESTALE",
	[EDQUOT] = "EDQUOT",
	[ECANCELED] = "ECANCELED",
	[EOWNERDEAD] = "EOWNERDEAD",
};

const char *fring_errno_name(int err)
{
	if (err < 0)
		err = -err;
	if ((size_t)err < FRING_ARRAY_SIZE(errno_names) && errno_names[err])
		return errno_names[err];
	return NULL;
}
