/* SPDX-License-Identifier: MIT */
/*
 * FUSE_INIT negotiation. The kernel trusts our reply as sent
 * (process_init_reply() stores minor and flags without intersecting them),
 * so everything is intersected and clamped here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dispatch.h"

/* Capability bits that only describe the kernel; echoing them means
 * nothing, and FUSE_HAS_IO_URING_BUFPOOL must never be echoed. */
#define KERNEL_ONLY_CAPS                                                       \
	(FUSE_SPLICE_READ | FUSE_SPLICE_WRITE | FUSE_SPLICE_MOVE |             \
	 FUSE_NO_OPEN_SUPPORT | FUSE_NO_OPENDIR_SUPPORT | FUSE_INIT_EXT |      \
	 FUSE_INIT_RESERVED | FUSE_HAS_INODE_DAX | FUSE_HAS_EXPIRE_ONLY |      \
	 FUSE_HAS_RESEND | FUSE_HAS_IO_URING_BUFPOOL | FUSE_MAP_ALIGNMENT |    \
	 FUSE_SUBMOUNTS)

/* The kernel says it can open without the server (FUSE_NO_OPEN_SUPPORT);
 * the server says "no open" by answering ENOSYS (fuse_file_open()), never
 * in INIT. A filesystem wanting one of these without an open / opendir
 * callback gets that ENOSYS from the library, as with libfuse. */
#define LIBRARY_CAPS (FUSE_NO_OPEN_SUPPORT | FUSE_NO_OPENDIR_SUPPORT)

/* The filesystem's declarations this library knows (conn.h, FRING_FS_*). */
#define KNOWN_FS_FLAGS (FRING_FS_ZERO_COPY | FRING_FS_NO_RING)

unsigned init_max_pages_limit(void)
{
	unsigned v = 256;
	FILE *f = fopen("/proc/sys/fs/fuse/max_pages_limit", "re");

	if (f) {
		if (fscanf(f, "%u", &v) != 1 || v == 0)
			v = 256;
		fclose(f);
	}
	return v > 65535 ? 65535 : v;
}

static uint64_t default_want(const struct fring_session *se)
{
	const struct fring_ops *ops = &se->ops;
	uint64_t want = FUSE_ASYNC_READ | FUSE_ATOMIC_O_TRUNC |
			FUSE_BIG_WRITES | FUSE_AUTO_INVAL_DATA |
			FUSE_ASYNC_DIO | FUSE_MAX_PAGES | FUSE_SETXATTR_EXT;

	/* Without lock callbacks the kernel keeps locks locally, which is
	 * right for a filesystem with one client host. */
	if (ops->getlk && ops->setlk)
		want |= FUSE_POSIX_LOCKS;
	if (ops->flock)
		want |= FUSE_FLOCK_LOCKS;
	if (ops->readdirplus)
		want |= FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO;
	if (ops->ioctl)
		want |= FUSE_HAS_IOCTL_DIR;
	return want;
}

static uint64_t splice_want(const struct fring_config *cfg)
{
	return (cfg->splice_read ? FUSE_SPLICE_READ : 0) |
	       (cfg->splice_write ? FUSE_SPLICE_WRITE : 0) |
	       (cfg->splice_move ? FUSE_SPLICE_MOVE : 0);
}

static uint32_t clamp_max_write(uint32_t v)
{
	if (v < 4096)
		return 4096;
	return v > (16u << 20) ? 16u << 20 : v;
}

/* FILESYSTEM_MAX_STACK_DEPTH (include/linux/fs.h) */
#define MAX_STACK_DEPTH 2

/*
 * process_init_reply() turns passthrough on only with 0 < max_stack_depth
 * <= FILESYSTEM_MAX_STACK_DEPTH and without FUSE_WRITEBACK_CACHE, and says
 * nothing otherwise: every backing open would then fail EPERM. So the
 * flag is dropped here, with a reason, whenever the kernel would ignore it.
 */
static void init_passthrough(struct fring_conn *c)
{
	if (!(c->want & FUSE_PASSTHROUGH)) {
		c->max_stack_depth = 0;
		return;
	}
	if (c->want & FUSE_WRITEBACK_CACHE) {
		fr_warn("INIT: passthrough and the writeback cache exclude "
			"each other (the kernel ignores passthrough with "
			"both); passthrough dropped");
		c->want &= ~FUSE_PASSTHROUGH;
		c->max_stack_depth = 0;
		return;
	}
	if (c->max_stack_depth == 0)
		c->max_stack_depth = 1;
	if (c->max_stack_depth > MAX_STACK_DEPTH) {
		fr_warn("INIT: max_stack_depth %u is above the kernel's "
			"limit; %u used",
			c->max_stack_depth, MAX_STACK_DEPTH);
		c->max_stack_depth = MAX_STACK_DEPTH;
	}
}

size_t init_payload_size(const struct fring_conn *c)
{
	size_t sz = FUSE_MIN_READ_BUFFER;

	if (c->max_write > sz)
		sz = c->max_write;
	if ((size_t)c->max_pages * FRING_PAGE > sz)
		sz = (size_t)c->max_pages * FRING_PAGE;
	return sz;
}

int init_negotiate(struct fring_session *se, const struct fuse_init_in *inp,
		   size_t inlen, struct fuse_init_out *out, size_t *outlen)
{
	struct fuse_init_in in;
	struct fring_conn *c = &se->conn;
	unsigned limit = init_max_pages_limit();
	uint64_t dropped;

	memset(out, 0, sizeof(*out));
	out->major = FUSE_KERNEL_VERSION;
	out->minor = FUSE_KERNEL_MINOR_VERSION;
	if (inlen < 8)
		return -EINVAL;
	memset(&in, 0, sizeof(in));
	memcpy(&in, inp, inlen < sizeof(in) ? inlen : sizeof(in));
	if (in.major > FUSE_KERNEL_VERSION) {
		/* Answer with our major only; the kernel then sends a new
		 * INIT in our version. */
		*outlen = 8;
		return 1;
	}
	if (in.major < FUSE_KERNEL_VERSION || in.minor < 12) {
		fr_err("kernel FUSE ABI %u.%u is too old (7.12 or newer "
		       "needed)",
		       in.major, in.minor);
		return -EPROTO;
	}

	memset(c, 0, sizeof(*c));
	c->proto_major = in.major;
	c->proto_minor = in.minor;
	c->capable = in.flags;
	if (in.minor >= 36 && (in.flags & FUSE_INIT_EXT))
		c->capable |= (uint64_t)in.flags2 << 32;
	c->want = default_want(se) & c->capable;
	c->want |= splice_want(&se->cfg) & c->capable;
	c->max_write = se->cfg.max_write;
	c->max_read = se->cfg.max_read;
	c->max_readahead = se->cfg.max_readahead && se->cfg.max_readahead <
							    in.max_readahead
				   ? se->cfg.max_readahead
				   : in.max_readahead;
	c->max_pages = (c->max_write + FRING_PAGE - 1) / FRING_PAGE;
	if (c->max_pages > limit)
		c->max_pages = limit;
	c->time_gran = 1;
	c->max_background = se->cfg.max_background;
	c->congestion_threshold = se->cfg.congestion_threshold;
	if (se->cfg.request_timeout) {
		/* The kernel ignores the field without the flag
		 * (process_init_reply()), so asking an old kernel is moot. */
		if (c->capable & FUSE_REQUEST_TIMEOUT) {
			c->want |= FUSE_REQUEST_TIMEOUT;
			c->request_timeout = se->cfg.request_timeout;
		} else {
			fr_warn("request_timeout=%u: the kernel (FUSE %u.%u) "
				"does not offer request timeouts; ignored",
				se->cfg.request_timeout, in.major, in.minor);
		}
	}

	if (se->ops.init) {
		uint32_t proposed_pages = c->max_pages;

		se->ops.init(se->userdata, c);
		/* like libfuse: pages follow max_write unless the callback
		 * chose them itself (from max_write as clamped below: from
		 * the callback's value, 0 or UINT32_MAX gave 32 pages) */
		if (c->max_pages == proposed_pages)
			c->max_pages = (clamp_max_write(c->max_write) +
					FRING_PAGE - 1) /
				       FRING_PAGE;
	}

	if (c->fs_flags & ~KNOWN_FS_FLAGS)
		fr_warn("INIT: unknown filesystem declarations fs_flags 0x%x; "
			"dropped",
			c->fs_flags & ~KNOWN_FS_FLAGS);
	c->fs_flags &= KNOWN_FS_FLAGS;

	/* 7.36 and 7.37 append the security context as one more argument,
	 * not counted in total_extlen (7.38), where the decoders and
	 * fring_req_secctx() would not find it */
	if ((c->want & c->capable & FUSE_SECURITY_CTX) && in.minor < 38) {
		fr_warn("INIT: the kernel (FUSE %u.%u) sends security "
			"contexts without the extension header of 7.38; "
			"FRING_CAP_SECURITY_CTX dropped",
			in.major, in.minor);
		c->want &= ~FUSE_SECURITY_CTX;
	}

	/* the kernel never sees these (KERNEL_ONLY_CAPS): they only say how
	 * this side reads and answers /dev/fuse */
	se->splice = c->want & c->capable &
		     (FUSE_SPLICE_READ | FUSE_SPLICE_WRITE | FUSE_SPLICE_MOVE);
	dropped = c->want & ~c->capable;
	if (dropped)
		fr_warn("INIT: the kernel does not offer capabilities 0x%llx; "
			"dropped",
			(unsigned long long)dropped);
	c->want &= c->capable & ~(KERNEL_ONLY_CAPS & ~LIBRARY_CAPS);
	se->no_open = !se->ops.open && (c->want & FUSE_NO_OPEN_SUPPORT);
	se->no_opendir =
		!se->ops.opendir && (c->want & FUSE_NO_OPENDIR_SUPPORT);
	c->max_write = clamp_max_write(c->max_write);
	if (!(c->want & FUSE_MAX_PAGES) || c->max_pages == 0)
		c->max_pages = FUSE_DEFAULT_MAX_PAGES_PER_REQ;
	if (c->max_pages > limit)
		c->max_pages = limit;
	if (c->max_readahead > in.max_readahead)
		c->max_readahead = in.max_readahead;
	if (c->time_gran == 0 || c->time_gran > 1000000000u)
		c->time_gran = 1;
	if (c->max_background > 65535)
		c->max_background = 65535;
	/* Readahead holds back at the threshold, so one above the limit
	 * would never be reached; unset, it keeps the kernel's own ratio to
	 * its limit (9 of 12, 3/4 rounded up) for ours. 0 for both leaves the
	 * kernel's. */
	if (c->max_background && c->congestion_threshold > c->max_background)
		c->congestion_threshold = c->max_background;
	if (!c->congestion_threshold)
		c->congestion_threshold =
			c->max_background - c->max_background / 4;
	if (c->congestion_threshold > 65535)
		c->congestion_threshold = 65535;
	if (c->request_timeout > 65535)
		c->request_timeout = 65535;
	if (!(c->want & FUSE_REQUEST_TIMEOUT))
		c->request_timeout = 0;
	init_passthrough(c);

	out->minor = in.minor < FUSE_KERNEL_MINOR_VERSION
			     ? in.minor
			     : FUSE_KERNEL_MINOR_VERSION;
	out->max_readahead = c->max_readahead;
	out->flags = (uint32_t)(c->want & ~LIBRARY_CAPS);
	out->max_background = (uint16_t)c->max_background;
	out->congestion_threshold = (uint16_t)c->congestion_threshold;
	out->max_write = c->max_write;
	out->time_gran = c->time_gran;
	out->max_pages = (uint16_t)c->max_pages;
	if (c->want >> 32) {
		/* flags2 counts only with INIT_EXT in flags. */
		out->flags |= (uint32_t)FUSE_INIT_EXT;
		out->flags2 = (uint32_t)(c->want >> 32);
	}
	out->request_timeout = (uint16_t)c->request_timeout;
	out->max_stack_depth = c->max_stack_depth;
	se->setxattr_ext = !!(c->want & FUSE_SETXATTR_EXT);

	/* Older kernels reject replies longer than the struct they know. */
	if (in.minor < 5)
		*outlen = 8;
	else if (in.minor < 23)
		*outlen = FUSE_COMPAT_22_INIT_OUT_SIZE;
	else
		*outlen = sizeof(*out);
	se->got_init = true;
	atomic_store(&se->notify_ready, true);
	return 0;
}
