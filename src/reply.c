/* SPDX-License-Identifier: MIT */
/*
 * The reply encoder: typed answers into fuse_out_header + output args, with
 * the checks that keep the kernel protocol valid whatever the handler does
 * (one answer per request, the answer type the opcode expects, no more data
 * than the kernel asked for).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opname.h"
#include "reply.h"
#include "req.h"

enum reply_kind {
	RK_EMPTY = 1 << 0,
	RK_ENTRY = 1 << 1,
	RK_CREATE = 1 << 2,
	RK_ATTR = 1 << 3,
	RK_OPEN = 1 << 4,
	RK_WRITE = 1 << 5,
	RK_DATA = 1 << 6,
	RK_STATFS = 1 << 7,
	RK_XATTR = 1 << 8,
	RK_LOCK = 1 << 9,
	RK_BMAP = 1 << 10,
	RK_LSEEK = 1 << 11,
	RK_POLL = 1 << 12,
	RK_IOCTL = 1 << 13,
	RK_STATX = 1 << 14,
};

/* What a successful answer to each opcode must look like. */
static const uint16_t reply_kinds[FUSE_OPCODE_MAX] = {
	[FUSE_LOOKUP] = RK_ENTRY,
	[FUSE_GETATTR] = RK_ATTR,
	[FUSE_SETATTR] = RK_ATTR,
	[FUSE_READLINK] = RK_DATA,
	[FUSE_SYMLINK] = RK_ENTRY,
	[FUSE_MKNOD] = RK_ENTRY,
	[FUSE_MKDIR] = RK_ENTRY,
	[FUSE_UNLINK] = RK_EMPTY,
	[FUSE_RMDIR] = RK_EMPTY,
	[FUSE_RENAME] = RK_EMPTY,
	[FUSE_LINK] = RK_ENTRY,
	[FUSE_OPEN] = RK_OPEN,
	[FUSE_READ] = RK_DATA,
	[FUSE_WRITE] = RK_WRITE,
	[FUSE_STATFS] = RK_STATFS,
	[FUSE_RELEASE] = RK_EMPTY,
	[FUSE_FSYNC] = RK_EMPTY,
	[FUSE_SETXATTR] = RK_EMPTY,
	[FUSE_GETXATTR] = RK_DATA | RK_XATTR,
	[FUSE_LISTXATTR] = RK_DATA | RK_XATTR,
	[FUSE_REMOVEXATTR] = RK_EMPTY,
	[FUSE_FLUSH] = RK_EMPTY,
	[FUSE_OPENDIR] = RK_OPEN,
	[FUSE_READDIR] = RK_DATA,
	[FUSE_RELEASEDIR] = RK_EMPTY,
	[FUSE_FSYNCDIR] = RK_EMPTY,
	[FUSE_GETLK] = RK_LOCK,
	[FUSE_SETLK] = RK_EMPTY,
	[FUSE_SETLKW] = RK_EMPTY,
	[FUSE_ACCESS] = RK_EMPTY,
	[FUSE_CREATE] = RK_CREATE,
	[FUSE_BMAP] = RK_BMAP,
	[FUSE_DESTROY] = RK_EMPTY,
	[FUSE_IOCTL] = RK_IOCTL,
	[FUSE_POLL] = RK_POLL,
	[FUSE_FALLOCATE] = RK_EMPTY,
	[FUSE_READDIRPLUS] = RK_DATA,
	[FUSE_RENAME2] = RK_EMPTY,
	[FUSE_LSEEK] = RK_LSEEK,
	[FUSE_COPY_FILE_RANGE] = RK_WRITE,
	[FUSE_SYNCFS] = RK_EMPTY,
	[FUSE_TMPFILE] = RK_CREATE,
	[FUSE_STATX] = RK_STATX,
	[FUSE_COPY_FILE_RANGE_64] = RK_WRITE,
};

static bool has_data_limit(uint32_t op)
{
	return op == FUSE_READ || op == FUSE_READDIR || op == FUSE_READLINK ||
	       op == FUSE_READDIRPLUS || op == FUSE_GETXATTR ||
	       op == FUSE_LISTXATTR || op == FUSE_IOCTL;
}

/* Claims the right to answer; false (and logged) for a second answer. */
static bool claim(struct fring_req *req)
{
	if (atomic_exchange(&req->answered, true)) {
		stat_add(req->q, handler_bugs, 1);
		fr_err("handler bug: second answer to %s (unique %llu) "
		       "ignored",
		       fring_opname(req->opcode),
		       (unsigned long long)atomic_load(&req->unique));
		return false;
	}
	return true;
}

/* The -d line of an answer: "ok" or its errno's name (not the word
 * "error": log scanners, libfuse's test suite among them, take that for a
 * daemon's failure), its length and how long the request took. Reached
 * only with debug on. */
static __attribute__((cold, noinline)) void
debug_reply(const struct fring_req *req, uint64_t unique, int error, size_t len,
	    int ret)
{
	const char *name = fring_errno_name(error);
	char num[24];

	if (error && !name) {
		snprintf(num, sizeof(num), "errno %d", -error);
		name = num;
	}
	fr_info("q%u unique %" PRIu64 " %s -> %s len %zu (%llu us)%s",
		req->q->idx, unique, fring_opname(req->opcode),
		error ? name : "ok", len,
		(unsigned long long)(fring_now_ns() - req->t_start) / 1000,
		ret ? " [send failed]" : "");
}

/* Whether this answer is given on the dispatching thread inside the
 * handler: then only this thread counts into the queue's *_own counters,
 * and the handler's end drops the answer's reference with its own
 * (req_end_handler()). Another thread never reads its own id there. */
static bool answering_inline(const struct fring_req *req)
{
	return atomic_load_explicit(&req->handler_thread,
				    memory_order_relaxed) ==
	       (uintptr_t)pthread_self();
}

static void put_answer(struct fring_req *req, bool inl)
{
	if (inl)
		req->put_deferred = true;
	else
		req_put(req);
}

static int send_claimed(struct fring_req *req, int error,
			const struct iovec *args, int nargs)
{
	struct fring_queue *q = req->q;
	struct iovec iov[1 + 8];
	size_t len = sizeof(struct fuse_out_header);
	uint64_t unique = atomic_load(&req->unique);
	bool inl = answering_inline(req);
	int cnt = 1, ret;

	if (!error) {
		for (int i = 0; i < nargs; i++) {
			if (!args[i].iov_len)
				continue;
			iov[cnt++] = args[i];
			len += args[i].iov_len;
		}
	}
	req->out.oh.len = (uint32_t)len;
	req->out.oh.error = error;
	req->out.oh.unique = unique;
	iov[0].iov_base = &req->out.oh;
	iov[0].iov_len = sizeof(req->out.oh);

	if (inl)
		stat_add_own(q, replies_own, 1);
	else
		stat_add(q, replies, 1);
	if (error)
		stat_add(q, errors, 1);
	else if (req->opcode == FUSE_READ && inl)
		stat_add_own(q, bytes_read_own,
			     len - sizeof(struct fuse_out_header));
	else if (req->opcode == FUSE_READ)
		stat_add(q, bytes_read, len - sizeof(struct fuse_out_header));
	if (!q->tp->notes_latency)
		stats_note_latency(&q->stats, fring_now_ns() - req->t_start);

	ret = req->q->tp->send(req, iov, cnt);
	if (__builtin_expect(req->se->cfg.debug, 0))
		debug_reply(req, unique, error, len, ret);
	put_answer(req, inl);
	return ret;
}

/*
 * A handler bug in an answer this call claimed: logged, counted in
 * handler_bugs and answered EIO in its place. Every reply function (and
 * data helper) returns -EIO for it, whatever sending the EIO returned: the
 * answer the handler gave never reached the kernel, so nothing it would
 * have started (a lookup reference, an open file) exists.
 */
static int refuse_claimed(struct fring_req *req, const char *what)
{
	stat_add(req->q, handler_bugs, 1);
	fr_err("handler bug: %s (%s, unique %llu); answering EIO", what,
	       fring_opname(req->opcode),
	       (unsigned long long)atomic_load(&req->unique));
	send_claimed(req, -EIO, NULL, 0);
	return -EIO;
}

int reply_bug(struct fring_req *req, const char *what)
{
	if (!claim(req))
		return -EALREADY;
	return refuse_claimed(req, what);
}

/*
 * Sends a success with args (checked against what the opcode expects) or an
 * error (error < 0). A wrong answer type or size becomes EIO: the kernel
 * would otherwise fail the caller with a less helpful error.
 */
static int reply_kind(struct fring_req *req, unsigned kind,
		      const struct iovec *args, int nargs)
{
	uint32_t op = req->opcode;
	size_t datalen = 0;

	if (!claim(req))
		return -EALREADY;
	for (int i = 0; i < nargs; i++)
		datalen += args[i].iov_len;
	if (op >= FUSE_OPCODE_MAX || !(reply_kinds[op] & kind)) {
		return refuse_claimed(req, "wrong reply type");
	}
	if (kind == RK_DATA && has_data_limit(op) && datalen > req->max_out) {
		return refuse_claimed(req,
				      "more data than the kernel asked for");
	}
	if (kind == RK_XATTR && req->max_out) {
		return refuse_claimed(
			req, "size-probe answer to a sized xattr request");
	}
	if (kind == RK_DATA && (op == FUSE_GETXATTR || op == FUSE_LISTXATTR) &&
	    !req->max_out) {
		return refuse_claimed(req,
				      "data answer to an xattr size probe");
	}
	return send_claimed(req, 0, args, nargs);
}

int reply_send(struct fring_req *req, int error, const struct iovec *args,
	       int nargs)
{
	if (!claim(req))
		return -EALREADY;
	return send_claimed(req, error, args, nargs);
}

int reply_errno(struct fring_req *req, int err)
{
	if (err < 0 || err >= 512) {
		char what[48];

		/* the kernel refuses an error outside -511..-1 (and the
		 * answer with it) in fuse_dev_do_write() */
		snprintf(what, sizeof(what), "errno %d out of range 1..511",
			 err);
		return reply_bug(req, what);
	}
	if (err == 0)
		return reply_kind(req, RK_EMPTY, NULL, 0);
	return reply_send(req, -err, NULL, 0);
}

void reply_none(struct fring_req *req)
{
	bool inl = answering_inline(req);

	if (!claim(req))
		return;
	if (inl)
		stat_add_own(req->q, noreplies_own, 1);
	else
		stat_add(req->q, noreplies, 1);
	if (req->q->tp->noreply)
		req->q->tp->noreply(req);
	put_answer(req, inl);
}

/* ---------------- encoders ---------------- */

void timeout_split(double t, uint64_t *sec, uint32_t *nsec)
{
	if (!(t > 0)) {
		*sec = 0;
		*nsec = 0;
	} else if (t >= 1e18) {
		*sec = (uint64_t)1e18;
		*nsec = 0;
	} else {
		*sec = (uint64_t)t;
		*nsec = (uint32_t)((t - (double)*sec) * 1e9);
		if (*nsec >= 1000000000u)
			*nsec = 999999999u;
	}
}

void fill_attr(struct fuse_attr *a, const struct stat *st, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->size = (uint64_t)st->st_size;
	a->blocks = (uint64_t)st->st_blocks;
	a->atime = (uint64_t)st->st_atim.tv_sec;
	a->mtime = (uint64_t)st->st_mtim.tv_sec;
	a->ctime = (uint64_t)st->st_ctim.tv_sec;
	a->atimensec = (uint32_t)st->st_atim.tv_nsec;
	a->mtimensec = (uint32_t)st->st_mtim.tv_nsec;
	a->ctimensec = (uint32_t)st->st_ctim.tv_nsec;
	a->mode = st->st_mode;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = (uint32_t)st->st_rdev;
	a->blksize = (uint32_t)st->st_blksize;
}

static void fill_entry(struct fuse_entry_out *o, const struct fring_entry *e)
{
	memset(o, 0, sizeof(*o));
	o->nodeid = e->ino;
	o->generation = e->generation;
	timeout_split(e->entry_timeout, &o->entry_valid, &o->entry_valid_nsec);
	timeout_split(e->attr_timeout, &o->attr_valid, &o->attr_valid_nsec);
	/* st_ino is what programs see; the node id is the kernel's handle */
	fill_attr(&o->attr, &e->attr, e->attr.st_ino ? e->attr.st_ino : e->ino);
}

/* Zero-copy is per open, on a zerocopy session: where the handler asked
 * (fi->zero_copy), or everywhere when the filesystem declared that its
 * read and write handlers take FIXED buffers (FRING_FS_ZERO_COPY) and the
 * mount did not limit it to the opens that ask (-o zero_copy_opt_in).
 * Never where the handler declined it: a handler that uses src->mem or
 * dst->mem always gets memory. */
static bool open_zero_copy(const struct fring_req *req,
			   const struct fring_file *fi)
{
	const struct fring_session *se = req->se;

	/* a passthrough open's data never reaches the server */
	if (se->transport != FRING_TRANSPORT_ZEROCOPY || fi->no_zero_copy ||
	    req->opcode == FUSE_OPENDIR || fi->backing_id)
		return false;
	return fi->zero_copy || ((se->conn.fs_flags & FRING_FS_ZERO_COPY) &&
				 !se->cfg.zero_copy_opt_in);
}

static void fill_open(const struct fring_req *req, struct fuse_open_out *o,
		      const struct fring_file *fi)
{
	memset(o, 0, sizeof(*o));
	if (open_zero_copy(req, fi))
		o->open_flags |= FOPEN_IO_URING_ZERO_COPY;
	o->fh = fi->fh;
	if (fi->direct_io)
		o->open_flags |= FOPEN_DIRECT_IO;
	if (fi->keep_cache)
		o->open_flags |= FOPEN_KEEP_CACHE;
	if (fi->nonseekable)
		o->open_flags |= FOPEN_NONSEEKABLE;
	if (fi->cache_readdir)
		o->open_flags |= FOPEN_CACHE_DIR;
	if (fi->noflush)
		o->open_flags |= FOPEN_NOFLUSH;
	if (fi->parallel_direct_writes)
		o->open_flags |= FOPEN_PARALLEL_DIRECT_WRITES;
	if (fi->backing_id) {
		o->open_flags |= FOPEN_PASSTHROUGH;
		o->backing_id = fi->backing_id;
		stat_add(req->q, passthrough_opens, 1);
	}
}

/* An open answer the kernel would fail with EIO: EIO here, as a bug. The
 * -EIO tells the caller no RELEASE will come. */
static int refuse_open(struct fring_req *req, const struct fring_file *fi)
{
	const char *why = backing_refusal(req->se, req->opcode, fi);

	return why ? reply_bug(req, why) : 0;
}

#define ONE(ptr)                                                               \
	((struct iovec){.iov_base = (void *)(ptr), .iov_len = sizeof(*(ptr))})

int fring_reply_err(fring_req_t *req, int err)
{
	return reply_errno(req, err);
}

int fring_reply_entry(fring_req_t *req, const struct fring_entry *e)
{
	struct fuse_entry_out *o = (void *)req->small;
	struct iovec iov;

	/* A negative entry (ino 0) is only meaningful for LOOKUP. */
	if (!e->ino && req->opcode != FUSE_LOOKUP)
		return reply_errno(req, ENOENT);
	fill_entry(o, e);
	iov = ONE(o);
	return reply_kind(req, RK_ENTRY, &iov, 1);
}

int fring_reply_create(fring_req_t *req, const struct fring_entry *e,
		       const struct fring_file *fi)
{
	struct {
		struct fuse_entry_out e;
		struct fuse_open_out o;
	} *o = (void *)req->small;
	struct iovec iov;
	int ret = refuse_open(req, fi);

	if (ret)
		return ret;
	fill_entry(&o->e, e);
	fill_open(req, &o->o, fi);
	iov = ONE(o);
	return reply_kind(req, RK_CREATE, &iov, 1);
}

int fring_reply_attr(fring_req_t *req, const struct stat *attr,
		     double attr_timeout)
{
	struct fuse_attr_out *o = (void *)req->small;
	struct iovec iov;

	memset(o, 0, sizeof(*o));
	timeout_split(attr_timeout, &o->attr_valid, &o->attr_valid_nsec);
	fill_attr(&o->attr, attr, attr->st_ino ? attr->st_ino : req->nodeid);
	iov = ONE(o);
	return reply_kind(req, RK_ATTR, &iov, 1);
}

int fring_reply_readlink(fring_req_t *req, const char *target)
{
	struct iovec iov = {(void *)target, strlen(target)};

	return reply_kind(req, RK_DATA, &iov, 1);
}

int fring_reply_open(fring_req_t *req, const struct fring_file *fi)
{
	struct fuse_open_out *o = (void *)req->small;
	struct iovec iov;
	int ret = refuse_open(req, fi);

	if (ret)
		return ret;
	fill_open(req, o, fi);
	iov = ONE(o);
	return reply_kind(req, RK_OPEN, &iov, 1);
}

int fring_reply_write(fring_req_t *req, size_t count)
{
	struct iovec iov;

	if (req->opcode == FUSE_WRITE && count > req->buf.size) {
		return reply_bug(req,
				 "wrote more bytes than the request carried");
	}
	if (req->opcode == FUSE_COPY_FILE_RANGE_64) {
		struct fuse_copy_file_range_out *o = (void *)req->small;

		o->bytes_copied = count;
		iov = ONE(o);
	} else {
		struct fuse_write_out *o = (void *)req->small;

		memset(o, 0, sizeof(*o));
		o->size = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
		iov = ONE(o);
	}
	return reply_kind(req, RK_WRITE, &iov, 1);
}

int fring_reply_buf(fring_req_t *req, const void *buf, size_t size)
{
	struct iovec iov = {(void *)buf, size};

	return reply_kind(req, RK_DATA, &iov, 1);
}

/* Up to this many pieces travel as they are (one writev, or one copy into
 * the ring entry); more are gathered into one piece first. */
#define REPLY_PIECES 8

int fring_reply_iov(fring_req_t *req, const struct iovec *iov, int count)
{
	struct iovec one;
	size_t total = 0;
	char *p;
	int ret;

	if (count < 0 || (count && !iov))
		return reply_bug(req, "fring_reply_iov: negative count or no "
				      "pieces");
	if (count <= REPLY_PIECES)
		return reply_kind(req, RK_DATA, iov, count);
	for (int i = 0; i < count; i++) {
		if (iov[i].iov_len > SIZE_MAX - total)
			return reply_bug(req, "fring_reply_iov: pieces "
					      "larger than memory");
		total += iov[i].iov_len;
	}
	/* a private buffer: a piece may point into the request's own
	 * buffer, which gathering in place would overwrite */
	p = malloc(total ? total : 1);
	if (!p) {
		/* the client gets ENOMEM; the caller learns why */
		reply_errno(req, ENOMEM);
		return -ENOMEM;
	}
	one.iov_base = p;
	one.iov_len = total;
	for (int i = 0; i < count; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	ret = reply_kind(req, RK_DATA, &one, 1);
	free(one.iov_base);
	return ret;
}

int fring_reply_data(fring_req_t *req, size_t size)
{
	struct iovec iov = {req->data, size};

	return reply_kind(req, RK_DATA, &iov, 1);
}

int fring_reply_statfs(fring_req_t *req, const struct statvfs *st)
{
	struct fuse_statfs_out *o = (void *)req->small;
	struct iovec iov;

	memset(o, 0, sizeof(*o));
	o->st.blocks = st->f_blocks;
	o->st.bfree = st->f_bfree;
	o->st.bavail = st->f_bavail;
	o->st.files = st->f_files;
	o->st.ffree = st->f_ffree;
	o->st.bsize = (uint32_t)st->f_bsize;
	o->st.namelen = (uint32_t)st->f_namemax;
	o->st.frsize = (uint32_t)st->f_frsize;
	iov = ONE(o);
	return reply_kind(req, RK_STATFS, &iov, 1);
}

int fring_reply_xattr(fring_req_t *req, size_t count)
{
	struct fuse_getxattr_out *o = (void *)req->small;
	struct iovec iov;

	memset(o, 0, sizeof(*o));
	o->size = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
	iov = ONE(o);
	return reply_kind(req, RK_XATTR, &iov, 1);
}

/*
 * A lock's byte range (l_start from the file's start) as the kernel's
 * inclusive start..end; false if it is not inside 0..OFFSET_MAX, which the
 * kernel would refuse with EIO (convert_fuse_file_lock()). l_len 0 means
 * to the end of the file, a negative l_len the bytes before l_start.
 */
static bool lock_range(const struct flock *lock, uint64_t *start, uint64_t *end)
{
	int64_t s = lock->l_start, n = lock->l_len;

	if (s < 0)
		return false;
	if (n == 0) {
		*start = (uint64_t)s;
		*end = INT64_MAX;
	} else if (n > 0) {
		if (n - 1 > INT64_MAX - s)
			return false;
		*start = (uint64_t)s;
		*end = (uint64_t)(s + (n - 1));
	} else {
		/* s >= 0 and n < 0: the sum cannot overflow */
		if (s + n < 0)
			return false;
		*start = (uint64_t)(s + n);
		*end = (uint64_t)(s - 1);
	}
	return true;
}

int fring_reply_lock(fring_req_t *req, const struct flock *lock)
{
	struct fuse_lk_out *o = (void *)req->small;
	struct iovec iov;

	memset(o, 0, sizeof(*o));
	o->lk.type = (uint32_t)lock->l_type;
	if (lock->l_type != F_UNLCK) {
		if (!lock_range(lock, &o->lk.start, &o->lk.end)) {
			return reply_bug(req,
					 "lock range outside 0..OFFSET_MAX");
		}
		o->lk.pid = (uint32_t)lock->l_pid;
	}
	iov = ONE(o);
	return reply_kind(req, RK_LOCK, &iov, 1);
}

int fring_reply_bmap(fring_req_t *req, uint64_t idx)
{
	struct fuse_bmap_out *o = (void *)req->small;
	struct iovec iov;

	o->block = idx;
	iov = ONE(o);
	return reply_kind(req, RK_BMAP, &iov, 1);
}

int fring_reply_lseek(fring_req_t *req, off_t off)
{
	struct fuse_lseek_out *o = (void *)req->small;
	struct iovec iov;

	o->offset = (uint64_t)off;
	iov = ONE(o);
	return reply_kind(req, RK_LSEEK, &iov, 1);
}

int fring_reply_poll(fring_req_t *req, unsigned revents)
{
	struct fuse_poll_out *o = (void *)req->small;
	struct iovec iov;

	memset(o, 0, sizeof(*o));
	o->revents = revents;
	iov = ONE(o);
	return reply_kind(req, RK_POLL, &iov, 1);
}

int fring_reply_ioctl(fring_req_t *req, int result, const void *buf,
		      size_t size)
{
	struct fuse_ioctl_out *o = (void *)req->small;
	struct iovec iov[2];

	if (size > req->max_out) {
		return reply_bug(req, "ioctl answer larger than out_size");
	}
	memset(o, 0, sizeof(*o));
	o->result = result;
	iov[0] = ONE(o);
	iov[1].iov_base = (void *)buf;
	iov[1].iov_len = buf ? size : 0;
	return reply_kind(req, RK_IOCTL, iov, 2);
}

static void sx_time(struct fuse_sx_time *d, const struct statx_timestamp *s)
{
	d->tv_sec = s->tv_sec;
	d->tv_nsec = s->tv_nsec;
}

int fring_reply_statx_flags(fring_req_t *req, uint32_t flags,
			    const struct statx *stx, double attr_timeout)
{
	struct fuse_statx_out *o = (void *)req->small;
	struct iovec iov;

	memset(o, 0, sizeof(*o));
	timeout_split(attr_timeout, &o->attr_valid, &o->attr_valid_nsec);
	o->flags = flags;
	o->stat.mask = stx->stx_mask;
	o->stat.blksize = stx->stx_blksize;
	o->stat.attributes = stx->stx_attributes;
	o->stat.nlink = stx->stx_nlink;
	o->stat.uid = stx->stx_uid;
	o->stat.gid = stx->stx_gid;
	o->stat.mode = stx->stx_mode;
	o->stat.ino = stx->stx_ino;
	o->stat.size = stx->stx_size;
	o->stat.blocks = stx->stx_blocks;
	o->stat.attributes_mask = stx->stx_attributes_mask;
	sx_time(&o->stat.atime, &stx->stx_atime);
	sx_time(&o->stat.btime, &stx->stx_btime);
	sx_time(&o->stat.ctime, &stx->stx_ctime);
	sx_time(&o->stat.mtime, &stx->stx_mtime);
	o->stat.rdev_major = stx->stx_rdev_major;
	o->stat.rdev_minor = stx->stx_rdev_minor;
	o->stat.dev_major = stx->stx_dev_major;
	o->stat.dev_minor = stx->stx_dev_minor;
	iov = ONE(o);
	return reply_kind(req, RK_STATX, &iov, 1);
}

int fring_reply_statx(fring_req_t *req, const struct statx *stx,
		      double attr_timeout)
{
	return fring_reply_statx_flags(req, 0, stx, attr_timeout);
}

_Static_assert(sizeof(((struct fring_req *)0)->small) >=
		       sizeof(struct fuse_statx_out),
	       "small reply area holds the largest fixed answer");
