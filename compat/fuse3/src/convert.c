/* SPDX-License-Identifier: MIT */
/*
 * Conversions between libfuse's structures and libfring's where the two
 * differ: struct fuse_file_info <-> struct fring_file (other bit-field
 * order, other tail), and libfuse's FUSE_CAP_* numbering <-> the kernel's
 * INIT flags that FRING_CAP_* use. Structures laid out alike are cast
 * instead, and checked here once.
 */
#include <stddef.h>
#include <string.h>

#include "compat.h"

/* Cast, not copied: the same fields in the same order. */
_Static_assert(sizeof(struct fuse_entry_param) == sizeof(struct fring_entry),
	       "fuse_entry_param and fring_entry must match");
_Static_assert(offsetof(struct fuse_entry_param, attr) ==
			       offsetof(struct fring_entry, attr) &&
		       offsetof(struct fuse_entry_param, attr_timeout) ==
			       offsetof(struct fring_entry, attr_timeout) &&
		       offsetof(struct fuse_entry_param, entry_timeout) ==
			       offsetof(struct fring_entry, entry_timeout),
	       "fuse_entry_param and fring_entry must match");
_Static_assert(sizeof(struct fuse_ctx) == sizeof(struct fring_ctx) &&
		       offsetof(struct fuse_ctx, pid) ==
			       offsetof(struct fring_ctx, pid) &&
		       offsetof(struct fuse_ctx, umask) ==
			       offsetof(struct fring_ctx, umask),
	       "fuse_ctx and fring_ctx must match");
_Static_assert(sizeof(struct fuse_forget_data) == sizeof(struct fring_forget),
	       "fuse_forget_data and fring_forget must match");
/* libfuse's setattr bits are the kernel's FATTR_* as libfring's are */
_Static_assert(FUSE_SET_ATTR_MODE == FRING_SET_MODE &&
		       FUSE_SET_ATTR_SIZE == FRING_SET_SIZE &&
		       FUSE_SET_ATTR_ATIME_NOW == FRING_SET_ATIME_NOW &&
		       FUSE_SET_ATTR_CTIME == FRING_SET_CTIME &&
		       FUSE_SET_ATTR_KILL_SUID == FRING_SET_KILL_SUIDGID,
	       "setattr bits");

/* The fields of struct fuse_file_info that struct fring_file has too, by
 * the same names, copied in each direction; the second list came with
 * libfuse 3.17 and lies past the end of an older program's struct. */
/* clang-format off */
#define FI_FIELDS(X)                                                  \
	X(flags) X(fh) X(lock_owner) X(writepage) X(direct_io)        \
	X(keep_cache) X(flush) X(nonseekable) X(flock_release)        \
	X(cache_readdir) X(noflush) X(poll_events)
#define FI_FIELDS_3_17(X) X(parallel_direct_writes) X(kill_suidgid) X(backing_id)
/* clang-format on */

/* What a request brings to the filesystem, in storage of the layer's own
 * (its full struct, so the 3.17 fields too; a program built against an
 * older libfuse reads only its part). The one zeroing of that storage:
 * callers hand it over uninitialized. */
void fc_fi_from_fring(struct fuse_file_info *out, const struct fring_file *in)
{
	memset(out, 0, sizeof(*out));
#define COPY(field) out->field = in->field;
	FI_FIELDS(COPY)
	FI_FIELDS_3_17(COPY)
#undef COPY
}

/*
 * What an open or create answer sends back. A program built against a
 * libfuse older than 3.17 has a shorter fuse_file_info that ends at
 * poll_events: what lies after it in memory is not its, so backing_id (a
 * 3.17 addition, and passthrough with it) is read only from newer ones.
 */
void fc_fi_to_fring(struct fring_file *out, const struct fuse_file_info *in,
		    const struct fuse_session *se)
{
	memset(out, 0, sizeof(*out));
#define COPY(field) out->field = in->field;
	FI_FIELDS(COPY)
	if (se && (se->version.major > 3 ||
		   (se->version.major == 3 && se->version.minor >= 17))) {
		FI_FIELDS_3_17(COPY)
	}
#undef COPY
}

/*
 * libfuse numbers its capabilities itself; the kernel's INIT flags (what
 * struct fring_conn carries) differ from bit 19 on. One row per libfuse
 * capability that has a kernel flag. FUSE_CAP_EXPIRE_ONLY has none (it
 * is protocol 7.38), see conn.c.
 */
static const struct {
	uint64_t fuse;
	uint64_t kernel;
} cap_map[] = {
	{FUSE_CAP_ASYNC_READ, FRING_CAP_ASYNC_READ},
	{FUSE_CAP_POSIX_LOCKS, FRING_CAP_POSIX_LOCKS},
	{FUSE_CAP_ATOMIC_O_TRUNC, FRING_CAP_ATOMIC_O_TRUNC},
	{FUSE_CAP_EXPORT_SUPPORT, FRING_CAP_EXPORT_SUPPORT},
	{FUSE_CAP_DONT_MASK, FRING_CAP_DONT_MASK},
	{FUSE_CAP_SPLICE_WRITE, FRING_CAP_SPLICE_WRITE},
	{FUSE_CAP_SPLICE_MOVE, FRING_CAP_SPLICE_MOVE},
	{FUSE_CAP_SPLICE_READ, FRING_CAP_SPLICE_READ},
	{FUSE_CAP_FLOCK_LOCKS, FRING_CAP_FLOCK_LOCKS},
	{FUSE_CAP_IOCTL_DIR, FRING_CAP_IOCTL_DIR},
	{FUSE_CAP_AUTO_INVAL_DATA, FRING_CAP_AUTO_INVAL_DATA},
	{FUSE_CAP_READDIRPLUS, FRING_CAP_READDIRPLUS},
	{FUSE_CAP_READDIRPLUS_AUTO, FRING_CAP_READDIRPLUS_AUTO},
	{FUSE_CAP_ASYNC_DIO, FRING_CAP_ASYNC_DIO},
	{FUSE_CAP_WRITEBACK_CACHE, FRING_CAP_WRITEBACK_CACHE},
	{FUSE_CAP_NO_OPEN_SUPPORT, FRING_CAP_NO_OPEN_SUPPORT},
	{FUSE_CAP_PARALLEL_DIROPS, FRING_CAP_PARALLEL_DIROPS},
	{FUSE_CAP_POSIX_ACL, FRING_CAP_POSIX_ACL},
	{FUSE_CAP_HANDLE_KILLPRIV, FRING_CAP_HANDLE_KILLPRIV},
	{FUSE_CAP_HANDLE_KILLPRIV_V2, FRING_CAP_HANDLE_KILLPRIV_V2},
	{FUSE_CAP_CACHE_SYMLINKS, FRING_CAP_CACHE_SYMLINKS},
	{FUSE_CAP_NO_OPENDIR_SUPPORT, FRING_CAP_NO_OPENDIR_SUPPORT},
	{FUSE_CAP_EXPLICIT_INVAL_DATA, FRING_CAP_EXPLICIT_INVAL_DATA},
	{FUSE_CAP_SETXATTR_EXT, FRING_CAP_SETXATTR_EXT},
	{FUSE_CAP_DIRECT_IO_ALLOW_MMAP, FRING_CAP_DIRECT_IO_ALLOW_MMAP},
	{FUSE_CAP_PASSTHROUGH, FRING_CAP_PASSTHROUGH},
	{FUSE_CAP_NO_EXPORT_SUPPORT, FRING_CAP_NO_EXPORT_SUPPORT},
	{FUSE_CAP_OVER_IO_URING, FRING_CAP_OVER_IO_URING},
};

uint64_t fc_caps_to_kernel(uint64_t fuse_caps)
{
	uint64_t k = 0;

	for (size_t i = 0; i < sizeof(cap_map) / sizeof(cap_map[0]); i++)
		if (fuse_caps & cap_map[i].fuse)
			k |= cap_map[i].kernel;
	return k;
}

uint64_t fc_caps_from_kernel(uint64_t kernel_caps)
{
	uint64_t f = 0;

	for (size_t i = 0; i < sizeof(cap_map) / sizeof(cap_map[0]); i++)
		if (kernel_caps & cap_map[i].kernel)
			f |= cap_map[i].fuse;
	return f;
}

uint64_t fc_caps_kernel_mask(void)
{
	return fc_caps_to_kernel(~(uint64_t)0);
}
