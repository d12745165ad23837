/* SPDX-License-Identifier: MIT */
/*
 * INIT: libfuse's struct fuse_conn_info around libfring's struct
 * fring_conn, the feature flag helpers, and the connection options
 * (fuse_parse_conn_info_opts(), fuse_apply_conn_info_opts()).
 *
 * The filesystem's init sees libfring's proposal in libfuse's terms:
 * capable/want in libfuse's FUSE_CAP_* numbering (convert.c maps them to
 * and from the kernel's flags), in both the 32-bit fields older programs
 * use and the 64-bit *_ext ones of 3.17. What it changes in either is
 * merged and written back; kernel flags libfuse has no name for keep
 * libfring's choice. FUSE_CAP_OVER_IO_URING is the filesystem's say on
 * the transport: left out, the session declines the ring
 * (FRING_FS_NO_RING) and serves on /dev/fuse, as libfuse does.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

/* The 32-bit want holds the low half of want_ext; a program may change
 * either (or both): each change made relative to the proposal counts. */
static uint64_t merged_want(const struct fuse_conn_info *ci, uint64_t w0)
{
	uint32_t low0 = (uint32_t)w0;
	uint64_t set = ci->want & ~low0;
	uint64_t clr = low0 & ~ci->want;

	return (ci->want_ext | set) & ~clr;
}

void fc_conn_init(struct fuse_session *se, struct fring_conn *fc)
{
	uint64_t mappable = fc_caps_kernel_mask() & ~FRING_CAP_OVER_IO_URING;
	struct fuse_conn_info ci;
	uint64_t w0, want;

	memset(&ci, 0, sizeof(ci));
	ci.proto_major = fc->proto_major;
	ci.proto_minor = fc->proto_minor;
	ci.max_write = fc->max_write;
	ci.max_read = fc->max_read;
	ci.max_readahead = fc->max_readahead;
	ci.max_background = fc->max_background;
	ci.congestion_threshold = fc->congestion_threshold;
	ci.time_gran = fc->time_gran;
	ci.capable_ext = fc_caps_from_kernel(fc->capable);
	/* no INIT flag: expiring without dropping came with ABI 7.38 */
	if (fc->proto_major > 7 || fc->proto_minor >= 38)
		ci.capable_ext |= FUSE_CAP_EXPIRE_ONLY;
	ci.capable = (uint32_t)ci.capable_ext;
	/*
	 * The proposal a libfuse program expects: libfring's, except that
	 * libfuse always asks for IOCTL_DIR and never for SETXATTR_EXT
	 * unless the filesystem does (with it the kernel leaves clearing
	 * the set-group-ID bit on an ACL change to the server).
	 * READDIRPLUS_AUTO lets the kernel send plain READDIR as well, so
	 * it is proposed only to a filesystem that has both handlers (libfring
	 * looks at readdirplus alone): one with readdirplus only would
	 * otherwise see READDIR fail with ENOSYS.
	 */
	w0 = (fc_caps_from_kernel(fc->want) & ~FUSE_CAP_SETXATTR_EXT) |
	     FUSE_CAP_IOCTL_DIR | FUSE_CAP_OVER_IO_URING;
	if (!se->op.readdir)
		w0 &= ~FUSE_CAP_READDIRPLUS_AUTO;
	w0 &= ci.capable_ext;
	ci.want_ext = w0;
	ci.want = (uint32_t)w0;
	/* libfuse counts the filesystems below, the kernel the whole stack */
	ci.max_backing_stack_depth =
		fc->max_stack_depth > 1 ? fc->max_stack_depth - 1 : 0;
	ci.request_timeout = fc->request_timeout > UINT16_MAX
				     ? UINT16_MAX
				     : (uint16_t)fc->request_timeout;

	if (se->op.init)
		se->op.init(se->userdata, &ci);

	want = merged_want(&ci, w0);
	if (want & ~ci.capable_ext)
		fc_log(FUSE_LOG_WARNING,
		       "fuse: init asked for capabilities the kernel does not "
		       "offer (0x%llx): not requested\n",
		       (unsigned long long)(want & ~ci.capable_ext));
	want &= ci.capable_ext;
	/*
	 * libfuse starts its rings only when want_ext still holds
	 * FUSE_CAP_OVER_IO_URING after init (a 32-bit want the callback
	 * changed is folded into want_ext first, as merged_want() does), and
	 * serves on /dev/fuse otherwise. hello_ll, which assigns want
	 * outright, is served on /dev/fuse that way. The bit is proposed
	 * only when the kernel offers a ring, so taking it away is always
	 * the filesystem's choice: declined here, transport=auto (-o
	 * io_uring) ends on dev; an explicit ring transport= fails INIT
	 * saying why, as the mount asked for something init refused.
	 */
	if ((w0 & FUSE_CAP_OVER_IO_URING) && !(want & FUSE_CAP_OVER_IO_URING)) {
		fc->fs_flags |= FRING_FS_NO_RING;
		if (se->debug)
			fc_log(FUSE_LOG_DEBUG,
			       "fuse: init turned FUSE_CAP_OVER_IO_URING off: "
			       "io_uring declined (FRING_FS_NO_RING)\n");
	}
	fc->want =
		(fc->want & ~mappable) | (fc_caps_to_kernel(want) & mappable);
	fc->max_write = ci.max_write;
	fc->max_readahead = ci.max_readahead;
	fc->max_background = ci.max_background;
	fc->congestion_threshold = ci.congestion_threshold;
	fc->time_gran = ci.time_gran;
	fc->request_timeout = ci.request_timeout;
	fc->max_stack_depth = ci.max_backing_stack_depth + 1;
	se->no_interrupt = ci.no_interrupt;
	/*
	 * Zero-copy (FRING_FS_ZERO_COPY) for a filesystem whose handlers
	 * never read the data from memory themselves. Its answers
	 * (fuse_reply_buf/_iov/_data) go through fring_reply_buf(),
	 * fring_reply_iov() and fring_read_from_fd(), which serve a
	 * client's pages too; so one without write handlers qualifies. Of
	 * those that write, libfuse hands non-memory buffers only to
	 * write_buf, and only when init wants FUSE_CAP_SPLICE_READ: such a
	 * program moves the data with fuse_buf_copy() (ll_write()). write
	 * alone, or write_buf without the flag, gets memory.
	 */
	if ((!se->op.write && !se->op.write_buf) ||
	    (se->op.write_buf && (want & FUSE_CAP_SPLICE_READ)))
		fc->fs_flags |= FRING_FS_ZERO_COPY;
}

/* ---------------- feature flags (3.17.3) ---------------- */

bool fuse_set_feature_flag(struct fuse_conn_info *conn, uint64_t flag)
{
	if (!conn || !(conn->capable_ext & flag))
		return false;
	conn->want_ext |= flag;
	return true;
}

void fuse_unset_feature_flag(struct fuse_conn_info *conn, uint64_t flag)
{
	if (conn)
		conn->want_ext &= ~flag;
}

/* libfuse's header speaks of want_ext, but libfuse answers from
 * capable_ext (what the kernel offers), and programs such as its
 * printcap example rely on that: so does this. */
bool fuse_get_feature_flag(struct fuse_conn_info *conn, uint64_t flag)
{
	return conn && (conn->capable_ext & flag) != 0;
}

/*
 * Brings want_ext in line with changes made to the 32-bit want (what
 * fc_conn_init() does after init). Not part of libfuse's API (its tests
 * use it); 0, or -EINVAL without a connection.
 */
int fuse_convert_to_conn_want_ext(struct fuse_conn_info *conn)
{
	if (!conn)
		return -EINVAL;
	if (conn->want != (uint32_t)conn->want_ext)
		conn->want_ext =
			(conn->want_ext & ~(uint64_t)UINT32_MAX) | conn->want;
	return 0;
}

/* ---------------- connection options ---------------- */

/* What the options said; applied in the filesystem's init. */
struct fuse_conn_info_opts {
	uint64_t set;	/* FUSE_CAP_* to turn on (when offered) */
	uint64_t clear; /* FUSE_CAP_* to turn off */
	bool has_max_write, has_max_readahead, has_max_background,
		has_congestion_threshold, has_time_gran;
	unsigned max_write, max_readahead, max_background, congestion_threshold,
		time_gran;
};

/* The flag options: name, capabilities turned on, turned off. */
static const struct {
	const char *name;
	uint64_t on, off;
} flag_opts[] = {
	{"sync_read", 0, FUSE_CAP_ASYNC_READ},
	{"async_read", FUSE_CAP_ASYNC_READ, 0},
	{"atomic_o_trunc", FUSE_CAP_ATOMIC_O_TRUNC, 0},
	{"no_remote_lock", 0, FUSE_CAP_POSIX_LOCKS | FUSE_CAP_FLOCK_LOCKS},
	{"no_remote_flock", 0, FUSE_CAP_FLOCK_LOCKS},
	{"no_remote_posix_lock", 0, FUSE_CAP_POSIX_LOCKS},
	{"splice_write", FUSE_CAP_SPLICE_WRITE, 0},
	{"no_splice_write", 0, FUSE_CAP_SPLICE_WRITE},
	{"splice_move", FUSE_CAP_SPLICE_MOVE, 0},
	{"no_splice_move", 0, FUSE_CAP_SPLICE_MOVE},
	{"splice_read", FUSE_CAP_SPLICE_READ, 0},
	{"no_splice_read", 0, FUSE_CAP_SPLICE_READ},
	{"auto_inval_data", FUSE_CAP_AUTO_INVAL_DATA, 0},
	{"no_auto_inval_data", 0, FUSE_CAP_AUTO_INVAL_DATA},
	{"readdirplus=no", 0, FUSE_CAP_READDIRPLUS},
	{"readdirplus=yes", FUSE_CAP_READDIRPLUS, FUSE_CAP_READDIRPLUS_AUTO},
	{"readdirplus=auto", FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO,
	 0},
	{"async_dio", FUSE_CAP_ASYNC_DIO, 0},
	{"no_async_dio", 0, FUSE_CAP_ASYNC_DIO},
	{"writeback_cache", FUSE_CAP_WRITEBACK_CACHE, 0},
	{"no_writeback_cache", 0, FUSE_CAP_WRITEBACK_CACHE},
};

/* "name=N" for one of the numeric options: 1 taken, 0 not this one, -1
 * a bad number. */
static int number_opt(const char *arg, const char *name, bool *has,
		      unsigned *val)
{
	size_t n = strlen(name);
	char *end;
	unsigned long v;

	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	errno = 0;
	v = strtoul(arg + n + 1, &end, 0);
	if (errno || *end || end == arg + n + 1 || v > UINT_MAX) {
		fc_log(FUSE_LOG_ERR, "fuse: invalid value in `-o %s'\n", arg);
		return -1;
	}
	*has = true;
	*val = (unsigned)v;
	return 1;
}

static int conn_opt_proc(void *data, const char *arg, int key,
			 struct fuse_args *outargs)
{
	struct fuse_conn_info_opts *o = data;
	int r;

	(void)outargs;
	if (key != FUSE_OPT_KEY_OPT)
		return 1;
	for (size_t i = 0; i < sizeof(flag_opts) / sizeof(flag_opts[0]); i++) {
		if (strcmp(arg, flag_opts[i].name))
			continue;
		/* the later option wins over an earlier opposite one */
		o->set = (o->set & ~flag_opts[i].off) | flag_opts[i].on;
		o->clear = (o->clear & ~flag_opts[i].on) | flag_opts[i].off;
		return 0;
	}
	if ((r = number_opt(arg, "max_write", &o->has_max_write,
			    &o->max_write)) ||
	    (r = number_opt(arg, "max_readahead", &o->has_max_readahead,
			    &o->max_readahead)) ||
	    (r = number_opt(arg, "max_background", &o->has_max_background,
			    &o->max_background)) ||
	    (r = number_opt(arg, "congestion_threshold",
			    &o->has_congestion_threshold,
			    &o->congestion_threshold)) ||
	    (r = number_opt(arg, "time_gran", &o->has_time_gran,
			    &o->time_gran)))
		return r < 0 ? -1 : 0;
	return 1;
}

struct fuse_conn_info_opts *fuse_parse_conn_info_opts(struct fuse_args *args)
{
	struct fuse_conn_info_opts *o = calloc(1, sizeof(*o));

	if (!o) {
		fc_log(FUSE_LOG_ERR, "fuse: out of memory\n");
		return NULL;
	}
	if (fuse_opt_parse(args, o, NULL, conn_opt_proc) == -1) {
		free(o);
		return NULL;
	}
	return o;
}

/* Both want fields, so a program that reads either sees the change. */
static void want_flag(struct fuse_conn_info *conn, uint64_t flag, bool on)
{
	if (on) {
		if (!(conn->capable_ext & flag))
			return;
		conn->want_ext |= flag;
		conn->want |= (uint32_t)flag;
	} else {
		conn->want_ext &= ~flag;
		conn->want &= ~(uint32_t)flag;
	}
}

void fuse_apply_conn_info_opts(struct fuse_conn_info_opts *opts,
			       struct fuse_conn_info *conn)
{
	if (!opts || !conn)
		return;
	for (int bit = 0; bit < 64; bit++) {
		uint64_t flag = (uint64_t)1 << bit;

		if (opts->set & flag)
			want_flag(conn, flag, true);
		if (opts->clear & flag)
			want_flag(conn, flag, false);
	}
	if (opts->has_max_write)
		conn->max_write = opts->max_write;
	if (opts->has_max_readahead)
		conn->max_readahead = opts->max_readahead;
	if (opts->has_max_background)
		conn->max_background = opts->max_background;
	if (opts->has_congestion_threshold)
		conn->congestion_threshold = opts->congestion_threshold;
	if (opts->has_time_gran)
		conn->time_gran = opts->time_gran;
}
