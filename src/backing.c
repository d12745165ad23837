/* SPDX-License-Identifier: MIT */
/*
 * FUSE passthrough: backing ids (FUSE_DEV_IOC_BACKING_OPEN/CLOSE on the
 * session's /dev/fuse, which every transport keeps open) and the rules an
 * open answer carrying one must follow.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>

#include "reply.h"

/* Without the negotiated flag the kernel answers EPERM
 * (fuse_backing_open()), which reads like a missing capability. */
static bool passthrough_on(const struct fring_session *se)
{
	return se && se->got_init && (se->conn.want & FUSE_PASSTHROUGH);
}

int fring_backing_open(fring_session_t *se, int fd)
{
	struct fuse_backing_map map;
	int id;

	if (!passthrough_on(se))
		return -EOPNOTSUPP;
	memset(&map, 0, sizeof(map)); /* flags and padding must be 0 */
	map.fd = fd;
	id = ioctl(se->fd, FUSE_DEV_IOC_BACKING_OPEN, &map);
	return id < 0 ? -errno : id;
}

int fring_backing_close(fring_session_t *se, int backing_id)
{
	uint32_t id = (uint32_t)backing_id;

	if (!passthrough_on(se))
		return -EOPNOTSUPP;
	if (backing_id <= 0)
		return -EINVAL;
	return ioctl(se->fd, FUSE_DEV_IOC_BACKING_CLOSE, &id) < 0 ? -errno : 0;
}

/*
 * The kernel fails an open whose answer breaks these rules with EIO
 * (fuse_file_io_open(), fuse_file_passthrough_open() allow only
 * FOPEN_PASSTHROUGH_MASK: direct_io, parallel_direct_writes, noflush),
 * where the handler's mistake is invisible. Refusing here names it.
 */
const char *backing_refusal(const struct fring_session *se, uint32_t opcode,
			    const struct fring_file *fi)
{
	if (!fi->backing_id)
		return NULL;
	if (opcode == FUSE_OPENDIR)
		return "backing_id on a directory open";
	if (fi->backing_id < 0)
		return "negative backing_id";
	if (!passthrough_on(se))
		return "backing_id without FUSE_PASSTHROUGH negotiated";
	if (fi->zero_copy)
		return "backing_id with zero_copy on the same open (the "
		       "kernel refuses FOPEN_PASSTHROUGH with "
		       "FOPEN_IO_URING_ZERO_COPY)";
	if (fi->keep_cache || fi->nonseekable || fi->cache_readdir)
		return "backing_id with keep_cache, nonseekable or "
		       "cache_readdir (the kernel refuses them with "
		       "FOPEN_PASSTHROUGH)";
	return NULL;
}
