/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the request decoder and the reply encoder, given any bytes
 * as kernel messages, through every framing the library reads:
 *
 *   dev       the message as read(2) from /dev/fuse, at the offset dev.c
 *             reads it to, then msg_from_dev() and fring_dispatch();
 *   ring      a struct fuse_uring_req_header (in_out, op_in, ring_ent_in_out
 *             with payload_sz, offset and flags) and the payload in the
 *             entry's buffer, through the ring transport's
 *             rt_entry_request();
 *   pool      the same with the payload in the buffer of a per-queue pool
 *             that ring_ent_in_out.offset names (ring_pool_buf());
 *   zerocopy  a registered pool and FUSE_URING_ENT_ZERO_COPY requests.
 *
 * The session is the unit tests' fake session (every callback set and
 * recording what it was given, so every pointer the decoder hands out is
 * read), with a hook that answers each request the way the input says:
 * the expected answer type with edge-case values, an error, a wrong type,
 * two answers, none, a later (asynchronous) answer, or a data helper.
 * Answers go through the real encoders (reply.c, and on the ring framings
 * the ring transport's own send, which writes the entry) into a transport
 * that checks what the kernel would read.
 *
 * Bytes the kernel did not write are poisoned (ASan), so a decoder that
 * reads one byte past the message fails even inside a large buffer. Input
 * layout: tests/fuzz/fuzz_input.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <sanitizer/asan_interface.h>

#include "fake_session.h"
#include "fuzz.h"
#include "internal.h"

/* where dev.c reads a message into its slot (DEV_READ_OFF) */
#define FZ_DEV_OFF                                                             \
	(FRING_PAGE - sizeof(struct fuse_in_header) -                          \
	 sizeof(struct fuse_write_in))
#define FZ_SLOT_SIZE (FRING_PAGE + (72u << 10))
#define FZ_POOL_BUFS 4u
#define FZ_PENDING   8u /* asynchronous answers held at most */
#define FZ_TRACK     16u

/* ring payload sizes (head[3]): the kernel's minimum (FUSE_MIN_READ_BUFFER)
 * to 64 KiB + a page; small, so that size limits are reached often */
static const size_t fz_payload_sizes[4] = {8192, 12288, 32768, 69632};
static const double fz_times[8] = {0,	     1.5,   -1,	  NAN,
				   INFINITY, 1e300, 1e18, 5e-10};

struct fz_pending {
	fring_req_t *req;
	uint8_t param;
	uint32_t value;
	struct flock fl;
};

static struct {
	int zero_fd, null_fd, stage_fd;
	char bytes[1u << 17]; /* answer data */
	char name[1024];
	enum fz_framing framing;
	struct ring_state rs;
	struct ring_thread rt;
	struct ring_queue rq; /* the queue's (qid 0) ring state */
	char *pool;
	/* the record being served */
	uint8_t answer, param;
	uint32_t value;
	struct fz_pending pending[FZ_PENDING];
	unsigned npending;
	/* answers owed: one per request handed to the library */
	struct {
		const struct fring_req *req;
		int owed;
	} track[FZ_TRACK];
} fz;

/* the request whose answer is being checked, for the failure report */
static const struct fring_req *fz_cur;

void fz_check_failed(const char *what, int line)
{
	fprintf(stderr, "fuzz_decode.c:%d: check failed: %s\n", line, what);
	if (fz_cur)
		fprintf(stderr,
			"  answering %s (framing %d, zc %d): max_out %u, "
			"buf size %zu, data room %zu\n",
			fring_opname(fz_cur->opcode), fz.framing,
			ring_ent_c(fz_cur)->zc, fz_cur->max_out,
			fz_cur->buf.size, fz_cur->datasz);
	abort();
}

static int *owed(const struct fring_req *req)
{
	for (unsigned i = 0; i < FZ_TRACK; i++) {
		if (fz.track[i].req == req)
			return &fz.track[i].owed;
		if (!fz.track[i].req) {
			fz.track[i].req = req;
			return &fz.track[i].owed;
		}
	}
	fz_check_failed("too many request slots", __LINE__);
	return NULL;
}

static unsigned slot_index(const struct fring_req *req)
{
	for (unsigned i = 0; i < fk.q->nslots; i++)
		if (fk.q->slots[i] == req)
			return i;
	fz_check_failed("request is not a slot of the queue", __LINE__);
	return 0;
}

/* ---------------- the kernel's side of the buffers ---------------- */

static void unpoison(const struct fring_req *req)
{
	ASAN_UNPOISON_MEMORY_REGION(req->mem, req->memsz);
	if (fk.q->pool)
		ASAN_UNPOISON_MEMORY_REGION(fk.q->pool, fk.q->pool_len);
}

/* n bytes of src into dst[0..valid), zeros after src runs out, and
 * dst[valid..size) made unreadable: the kernel wrote only `valid`. */
static void kernel_write(char *dst, size_t size, size_t valid, const void *src,
			 size_t n)
{
	ASAN_UNPOISON_MEMORY_REGION(dst, size);
	if (valid > size)
		valid = size;
	if (n > valid)
		n = valid;
	memcpy(dst, src, n);
	memset(dst + n, 0, valid - n);
	ASAN_POISON_MEMORY_REGION(dst + valid, size - valid);
}

/* ---------------- what the kernel would read ---------------- */

/* What the kernel would read after the header, gathered (every byte of
 * every piece is read: a bad pointer fails here). */
static char fz_copy[256u << 10];

/* The size of a success with a fixed-size answer (0: empty or data). */
static const size_t fixed_answer_size[FUSE_OPCODE_MAX] = {
	[FUSE_LOOKUP] = sizeof(struct fuse_entry_out),
	[FUSE_MKNOD] = sizeof(struct fuse_entry_out),
	[FUSE_MKDIR] = sizeof(struct fuse_entry_out),
	[FUSE_SYMLINK] = sizeof(struct fuse_entry_out),
	[FUSE_LINK] = sizeof(struct fuse_entry_out),
	[FUSE_CREATE] =
		sizeof(struct fuse_entry_out) + sizeof(struct fuse_open_out),
	[FUSE_TMPFILE] =
		sizeof(struct fuse_entry_out) + sizeof(struct fuse_open_out),
	[FUSE_GETATTR] = sizeof(struct fuse_attr_out),
	[FUSE_SETATTR] = sizeof(struct fuse_attr_out),
	[FUSE_OPEN] = sizeof(struct fuse_open_out),
	[FUSE_OPENDIR] = sizeof(struct fuse_open_out),
	[FUSE_WRITE] = sizeof(struct fuse_write_out),
	[FUSE_COPY_FILE_RANGE] = sizeof(struct fuse_write_out),
	[FUSE_COPY_FILE_RANGE_64] = sizeof(struct fuse_copy_file_range_out),
	[FUSE_STATFS] = sizeof(struct fuse_statfs_out),
	[FUSE_BMAP] = sizeof(struct fuse_bmap_out),
	[FUSE_LSEEK] = sizeof(struct fuse_lseek_out),
	[FUSE_POLL] = sizeof(struct fuse_poll_out),
	[FUSE_STATX] = sizeof(struct fuse_statx_out),
};

/* A success the kernel can parse: the size the opcode's answer has, or
 * for data answers no more than the request asked for. */
static void check_success(const struct fring_req *req, size_t len)
{
	uint32_t op = req->opcode;

	switch (op) {
	case FUSE_READ:
	case FUSE_READDIR:
	case FUSE_READDIRPLUS:
	case FUSE_READLINK:
		FZ_CHECK(len <= req->max_out);
		break;
	case FUSE_GETXATTR:
	case FUSE_LISTXATTR:
		if (req->max_out)
			FZ_CHECK(len <= req->max_out);
		else
			FZ_CHECK(len == sizeof(struct fuse_getxattr_out));
		break;
	case FUSE_IOCTL:
		FZ_CHECK(len >= sizeof(struct fuse_ioctl_out) &&
			 len - sizeof(struct fuse_ioctl_out) <= req->max_out);
		break;
	case FUSE_GETLK: {
		const struct fuse_lk_out *o = (const void *)fz_copy;

		FZ_CHECK(len == sizeof(*o));
		/* convert_fuse_file_lock() refuses anything else */
		FZ_CHECK(o->lk.type == F_UNLCK ||
			 (o->lk.start <= o->lk.end &&
			  o->lk.end <= (uint64_t)INT64_MAX));
		break;
	}
	default:
		/* an unknown opcode's only answer is ENOSYS */
		FZ_CHECK(op < FUSE_OPCODE_MAX);
		FZ_CHECK(len == fixed_answer_size[op]);
	}
}

/* Checks an answer as the encoder hands it to the transport; returns the
 * argument bytes gathered into fz_copy (the ring checks the entry against
 * them). */
static size_t check_answer(struct fring_req *req, const struct iovec *iov,
			   int cnt)
{
	const struct fuse_out_header *oh = iov[0].iov_base;
	size_t len = sizeof(*oh), off = 0;
	int *o = owed(req);

	fz_cur = req;
	FZ_CHECK(cnt >= 1 && cnt <= 9);
	FZ_CHECK(iov[0].iov_len == sizeof(*oh));
	for (int i = 1; i < cnt; i++) {
		const char *p = iov[i].iov_base;

		len += iov[i].iov_len;
		/* zero-copy READ data placed by fixed ops: not in memory */
		if (!p && ring_ent(req)->zc == ZC_READ)
			continue;
		FZ_CHECK(p || !iov[i].iov_len);
		if (p && off + iov[i].iov_len <= sizeof(fz_copy))
			memcpy(fz_copy + off, p, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	FZ_CHECK(oh->len == len);
	FZ_CHECK(oh->error <= 0 && oh->error > -512);
	FZ_CHECK(!oh->error || len == sizeof(*oh));
	FZ_CHECK(oh->unique == atomic_load(&req->unique));
	if (!oh->error)
		check_success(req, len - sizeof(*oh));
	FZ_CHECK(*o == 1);
	(*o)--;
	return off;
}

static int fz_dev_send(struct fring_req *req, struct iovec *iov, int cnt)
{
	unpoison(req);
	check_answer(req, iov, cnt);
	return 0;
}

static void fz_noreply(struct fring_req *req)
{
	int *o = owed(req);

	FZ_CHECK(*o == 1);
	(*o)--;
}

/* Slots as large as a ring entry: one slot serves both framings. */
static const struct fring_tp fz_dev_tp = {
	.name = "fuzz-dev",
	.slot_size = sizeof(struct ring_ent),
	.send = fz_dev_send,
	.noreply = fz_noreply,
};

/* The ring transport's send writes the answer into the entry: check the
 * entry is what the kernel must read. */
static int fz_ring_send(struct fring_req *req, struct iovec *iov, int cnt)
{
	const struct fuse_out_header *oh = iov[0].iov_base;
	const struct fuse_out_header *eh =
		(const void *)ring_ent(req)->hdr.in_out;
	uint32_t psz;
	size_t n;
	int ret;

	unpoison(req);
	n = check_answer(req, iov, cnt);
	ret = fring_tp_ring.send(req, iov, cnt);
	psz = ring_ent(req)->hdr.ring_ent_in_out.payload_sz;
	FZ_CHECK(eh->unique == oh->unique);
	/* data is limited to what was asked, which fits the entry except for
	 * xattr and ioctl sizes (not bounded by the payload size): those
	 * answers become EIO in ring_send() */
	FZ_CHECK(ret != -EOVERFLOW || oh->len - sizeof(*oh) > req->datasz);
	if (ret) {
		/* refused: an EIO header and nothing else goes to the kernel */
		FZ_CHECK(eh->error == -EIO && eh->len == sizeof(*eh) &&
			 psz == 0);
		return ret;
	}
	FZ_CHECK(eh->error <= 0 && eh->error > -512);
	if (eh->error) {
		FZ_CHECK(psz == 0);
		return 0;
	}
	if (ring_ent(req)->zc == ZC_NONE) {
		FZ_CHECK(eh->len == oh->len && eh->error == oh->error);
		FZ_CHECK(psz == n && psz <= req->datasz);
		FZ_CHECK(psz > sizeof(fz_copy) ||
			 !memcmp(req->data, fz_copy, psz));
	} else if (ring_ent(req)->zc == ZC_WRITE) {
		FZ_CHECK(psz == sizeof(struct fuse_write_out));
		FZ_CHECK(
			((const struct fuse_write_out *)(const void *)req->data)
				->size <= ring_ent(req)->zc_moved);
	} else {
		FZ_CHECK(psz <= ring_ent(req)->zc_size);
		FZ_CHECK(psz <= ring_ent(req)->zc_moved ||
			 psz == ring_ent(req)->zc_staged);
	}
	return 0;
}

static void fz_ring_noreply(struct fring_req *req)
{
	fz_noreply(req);
	fring_tp_ring.noreply(req);
	FZ_CHECK(ring_ent(req)->hdr.ring_ent_in_out.payload_sz == 0);
}

/* The ring's own buffer descriptions and data helpers (set_buf,
 * transfer, released), filled in from fring_tp_ring on first use. */
static struct fring_tp fz_ring_tp = {
	.name = "fuzz-ring",
	.slot_size = sizeof(struct ring_ent),
	.send = fz_ring_send,
	.noreply = fz_ring_noreply,
};

/* ---------------- answers ---------------- */

static void fz_stat(struct stat *st, uint32_t value)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = value & 0x10 ? value : 0;
	st->st_mode = (mode_t)value;
	st->st_nlink = value >> 8;
	st->st_size = (off_t)(int32_t)value;
	st->st_blocks = value >> 3;
	st->st_mtim.tv_sec = (time_t)(int32_t)value;
	st->st_mtim.tv_nsec = (long)(value % 2000000000u);
	st->st_rdev = value;
}

static void fz_entry(struct fring_entry *e, uint8_t param, uint32_t value)
{
	memset(e, 0, sizeof(*e));
	e->ino = param & 0x40 ? 0 : (uint64_t)value << (param & 0x20);
	e->generation = value;
	fz_stat(&e->attr, value);
	e->attr_timeout = fz_times[param & 7];
	e->entry_timeout = fz_times[(param >> 3) & 7];
}

static void fz_file(struct fring_file *fi, uint8_t param, uint32_t value)
{
	memset(fi, 0, sizeof(*fi));
	fi->fh = value;
	fi->direct_io = param & 1;
	fi->keep_cache = !!(param & 2);
	fi->nonseekable = !!(param & 4);
	fi->cache_readdir = !!(param & 8);
	fi->noflush = !!(param & 16);
	fi->parallel_direct_writes = !!(param & 32);
	fi->zero_copy = !!(param & 64);
	fi->no_zero_copy = !!(param & 128);
}

/* A NUL-terminated string of n characters (at most 1023). */
static const char *fz_str(size_t n, char c)
{
	if (n >= sizeof(fz.name))
		n = sizeof(fz.name) - 1;
	memset(fz.name, c, n);
	fz.name[n] = '\0';
	return fz.name;
}

static size_t cap(size_t n, size_t max)
{
	return n < max ? n : max;
}

/* Zero-copy: what the fixed ops of a handler would have moved. */
static void fz_zc_moved(struct fring_req *req, uint8_t param, uint32_t value)
{
	if (ring_ent(req)->zc == ZC_NONE)
		return;
	ring_ent(req)->zc_moved =
		param & 0x80 ? ring_ent(req)->zc_size
			     : (uint32_t)(value >> 8) %
				       (ring_ent(req)->zc_size + 1u);
}

static void answer_read(fring_req_t *req, uint8_t param, uint32_t value)
{
	const struct fring_buf *b = &req->buf;
	size_t n = value % (b->size + 2);
	struct iovec iov[10];
	int cnt;

	fz_zc_moved(req, param, value);
	switch ((param >> 4) % 5) {
	case 0: /* written in place */
		if (b->kind == FRING_BUF_MEM)
			memset(b->mem, 'r', cap(n, b->size));
		fring_reply_data(req, n);
		break;
	case 1: /* from other memory */
		fring_reply_buf(req, fz.bytes, cap(n, sizeof(fz.bytes)));
		break;
	case 2: /* pieces, from the buffer itself in any order, or not */
		cnt = (int)((value >> 24) % 11) - 1;
		for (int i = 0; i < 10; i++) {
			size_t off = ((value >> i) & 0xff) * 64;
			size_t len = ((value >> (i + 8)) & 0x3f) * 16;

			if (b->kind == FRING_BUF_MEM && (param & 8) &&
			    off + len <= b->size)
				iov[i].iov_base = (char *)b->mem + off;
			else
				iov[i].iov_base = fz.bytes + off;
			iov[i].iov_len = len;
		}
		fring_reply_iov(req, iov, cnt);
		break;
	case 3: /* placed by fixed ops (zero-copy), or unwritten memory */
		fring_reply_data(req, n);
		break;
	default:
		fring_reply_data(req, 0);
	}
}

static void answer_readdir(fring_req_t *req, uint8_t param, uint32_t value)
{
	const struct fring_buf *b = &req->buf;
	bool plus = req->opcode == FUSE_READDIRPLUS;
	size_t used = 0;

	if (b->kind != FRING_BUF_MEM) {
		fring_reply_data(req, 0);
		return;
	}
	for (unsigned i = 0; i < 64; i++) {
		size_t len = i < 2 ? i + 1 : (value >> (i % 24)) % 300 + 1;
		const char *name = fz_str(len, i < 2 ? '.' : 'a' + i % 26);
		char *at = param & 1 ? NULL : (char *)b->mem + used;
		struct fring_entry e;
		size_t rec;

		fz_entry(&e, (uint8_t)(param + i), value + i);
		rec = plus ? fring_add_direntry_plus(req, at, b->size - used,
						     name, &e, (off_t)i + 1)
			   : fring_add_direntry(req, at, b->size - used, name,
						&e.attr, (off_t)i + 1);
		if (rec > b->size - used)
			break;
		used += rec;
	}
	fring_reply_data(req, param & 2 ? used + (value & 7) : used);
}

static void answer_lock(fring_req_t *req, uint8_t param, uint32_t value,
			struct flock *fl)
{
	static const short types[4] = {F_RDLCK, F_WRLCK, F_UNLCK, 99};

	if (param & 4)
		fl->l_type = types[param & 3];
	if (param & 8)
		fl->l_len = (off_t)(int32_t)value;
	if (param & 16)
		fl->l_start = INT64_MAX - (off_t)(value & 0xff);
	fring_reply_lock(req, fl);
}

static void answer_natural(fring_req_t *req, uint8_t param, uint32_t value,
			   struct flock *fl)
{
	struct fring_entry e;
	struct fring_file fi;
	struct stat st;
	struct statx stx;
	struct statvfs sv;

	switch (req->opcode) {
	case FUSE_LOOKUP:
	case FUSE_MKNOD:
	case FUSE_MKDIR:
	case FUSE_SYMLINK:
	case FUSE_LINK:
		fz_entry(&e, param, value);
		fring_reply_entry(req, &e);
		break;
	case FUSE_CREATE:
	case FUSE_TMPFILE:
		fz_entry(&e, param, value);
		fz_file(&fi, param, value);
		fring_reply_create(req, &e, &fi);
		break;
	case FUSE_GETATTR:
	case FUSE_SETATTR:
		fz_stat(&st, value);
		fring_reply_attr(req, &st, fz_times[param & 7]);
		break;
	case FUSE_STATX:
		memset(&stx, 0xa5, sizeof(stx));
		stx.stx_mask = value;
		fring_reply_statx(req, &stx, fz_times[param & 7]);
		break;
	case FUSE_READLINK:
		fring_reply_readlink(req, fz_str(value % 5000, 'l'));
		break;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		fz_file(&fi, param, value);
		fring_reply_open(req, &fi);
		break;
	case FUSE_READ:
		answer_read(req, param, value);
		break;
	case FUSE_READDIR:
	case FUSE_READDIRPLUS:
		answer_readdir(req, param, value);
		break;
	case FUSE_GETXATTR:
	case FUSE_LISTXATTR:
		if (param & 1)
			fring_reply_xattr(req, value);
		else
			fring_reply_buf(req, fz.bytes,
					cap(value % (req->max_out + 2u),
					    sizeof(fz.bytes)));
		break;
	case FUSE_WRITE:
		fz_zc_moved(req, param, value);
		fring_reply_write(req, param & 1 ? value
						 : value % (req->buf.size + 2));
		break;
	case FUSE_COPY_FILE_RANGE:
	case FUSE_COPY_FILE_RANGE_64:
		fring_reply_write(req, (size_t)value << (param & 31));
		break;
	case FUSE_STATFS:
		memset(&sv, 0, sizeof(sv));
		sv.f_bsize = value;
		sv.f_blocks = (fsblkcnt_t)value << 20;
		sv.f_namemax = param;
		fring_reply_statfs(req, &sv);
		break;
	case FUSE_GETLK:
		answer_lock(req, param, value, fl);
		break;
	case FUSE_BMAP:
		fring_reply_bmap(req, (uint64_t)value << 12);
		break;
	case FUSE_LSEEK:
		fring_reply_lseek(req, (off_t)(int32_t)value);
		break;
	case FUSE_POLL:
		fring_reply_poll(req, value);
		break;
	case FUSE_IOCTL:
		fring_reply_ioctl(req, (int)value, param & 1 ? NULL : fz.bytes,
				  cap((value >> 8) % (req->max_out + 2u),
				      sizeof(fz.bytes)));
		break;
	default:
		fring_reply_err(req, 0);
	}
}

/* Answer function number k, whatever the opcode; returns its result. */
static int answer_any(fring_req_t *req, unsigned k, uint32_t value)
{
	struct fring_entry e;
	struct fring_file fi;
	struct stat st;
	struct statx stx;
	struct statvfs sv;
	struct flock fl = {.l_type = F_WRLCK, .l_len = 10};
	struct iovec iov = {fz.bytes, value & 0xfff};

	fz_entry(&e, (uint8_t)k, value);
	fz_file(&fi, (uint8_t)k, value);
	fz_stat(&st, value);
	memset(&stx, 0, sizeof(stx));
	memset(&sv, 0, sizeof(sv));
	switch (k % 18) {
	case 0:
		return fring_reply_err(req, EIO);
	case 1:
		return fring_reply_entry(req, &e);
	case 2:
		return fring_reply_create(req, &e, &fi);
	case 3:
		return fring_reply_attr(req, &st, 1.0);
	case 4:
		return fring_reply_readlink(req, fz_str(value & 0xfff, 'x'));
	case 5:
		return fring_reply_open(req, &fi);
	case 6:
		return fring_reply_write(req, value);
	case 7:
		return fring_reply_buf(req, fz.bytes, value & 0xffff);
	case 8:
		return fring_reply_iov(req, &iov, 1);
	case 9:
		return fring_reply_data(req, value & 0xffff);
	case 10:
		return fring_reply_statfs(req, &sv);
	case 11:
		return fring_reply_xattr(req, value);
	case 12:
		return fring_reply_lock(req, &fl);
	case 13:
		return fring_reply_bmap(req, value);
	case 14:
		return fring_reply_lseek(req, value);
	case 15:
		return fring_reply_poll(req, value);
	case 16:
		return fring_reply_ioctl(req, 0, fz.bytes, value & 0xff);
	default:
		return fring_reply_statx(req, &stx, 1.0);
	}
}

static void answer_helper(fring_req_t *req, uint8_t param, uint32_t value,
			  struct flock *fl)
{
	/* fixed buffers need the queue's ring: not here */
	if (req->buf.kind == FRING_BUF_FIXED &&
	    (req->opcode == FUSE_READ || req->opcode == FUSE_WRITE)) {
		answer_natural(req, param, value, fl);
		return;
	}
	if (param & 1)
		fring_write_to_fd(req, fz.null_fd, (off_t)value);
	else
		fring_read_from_fd(req, fz.zero_fd, (off_t)value,
				   value % (req->buf.size + 2));
}

static void answer_later(struct fz_pending *p)
{
	if (fring_req_interrupted(p->req) && (p->param & 1))
		fring_reply_err(p->req, EINTR);
	else
		answer_natural(p->req, p->param, p->value, &p->fl);
}

static void flush_pending(unsigned keep)
{
	while (fz.npending > keep) {
		struct fz_pending p = fz.pending[0];

		memmove(fz.pending, fz.pending + 1,
			--fz.npending * sizeof(fz.pending[0]));
		unpoison(p.req);
		answer_later(&p);
	}
}

/* Every request-taking callback of the fake session ends here. */
static void fz_hook(fring_req_t *req)
{
	struct flock fl = fk.c.fl;
	gid_t groups[4];
	int ngroups;

	unpoison(req);
	/* the extension block is the kernel's bytes too: every header and
	 * count is bounded by the block */
	ngroups = fring_req_supp_groups(req, 4, groups);
	FZ_CHECK(ngroups >= 0 &&
		 (size_t)ngroups * sizeof(uint32_t) <= req->ext_len);
	switch (fz.answer % FZA_NANSWERS) {
	case FZA_NATURAL:
		answer_natural(req, fz.param, fz.value, &fl);
		break;
	case FZA_ERRNO:
		fring_reply_err(req, (int)fz.value);
		break;
	case FZA_WRONG:
		answer_any(req, fz.param, fz.value);
		break;
	case FZA_TWICE:
		answer_natural(req, fz.param, fz.value, &fl);
		FZ_CHECK(answer_any(req, fz.param, fz.value) == -EALREADY);
		break;
	case FZA_NONE:
		break;
	case FZA_ASYNC:
		flush_pending(FZ_PENDING - 1);
		fring_req_async(req);
		fz.pending[fz.npending++] = (struct fz_pending){
			.req = req,
			.param = fz.param,
			.value = fz.value,
			.fl = fl,
		};
		break;
	default:
		answer_helper(req, fz.param, fz.value, &fl);
	}
}

/* ---------------- framings ---------------- */

static void dispatch_dev(uint8_t flags, const uint8_t *msg, size_t n)
{
	struct fring_req *req = req_get(fk.q);
	char *at = req->mem + FZ_DEV_OFF;
	struct fring_msg m;

	FZ_CHECK(req);
	n = cap(n, req->memsz - FZ_DEV_OFF);
	kernel_write(at, req->memsz - FZ_DEV_OFF, n, msg, n);
	if (!(flags & FZR_RAW) && n >= sizeof(struct fuse_in_header))
		((struct fuse_in_header *)(void *)at)->len = (uint32_t)n;
	req->in_len = n;
	if (msg_from_dev(&m, at, n)) {
		/* dev.c answers EIO on the fd itself; no slot is used */
		req_put(req);
		return;
	}
	(*owed(req))++;
	fring_dispatch(req, &m);
}

static void dispatch_ring(uint8_t flags, const uint8_t *msg, size_t n)
{
	struct fring_req *req = req_get(fk.q);
	struct fuse_uring_ent_in_out *ent = &ring_ent(req)->hdr.ring_ent_in_out;
	size_t hlen = cap(n, FZ_RING_HDR_LEN), bsz = fz.rs.payload_sz;
	const uint8_t *pl = msg + hlen;
	size_t plen = n - hlen;
	unsigned idx;
	char *dst;

	_Static_assert(sizeof(ring_ent(req)->hdr) == FZ_RING_HDR_LEN,
		       "ring header");
	FZ_CHECK(req);
	idx = slot_index(req);
	memset(&ring_ent(req)->hdr, 0, sizeof(ring_ent(req)->hdr));
	memcpy(&ring_ent(req)->hdr, msg, hlen);
	if (!(flags & FZR_RAW)) {
		ent->payload_sz = (uint32_t)cap(plen, bsz);
		ent->offset = (uint32_t)((idx % FZ_POOL_BUFS) * bsz);
	}
	/* the entry's own buffer, as src/ring/setup.c allocates it */
	req->data = req->mem;
	req->datasz = bsz;
	ring_ent(req)->zc_slot = (uint16_t)idx;
	dst = fk.q->pool ? ring_pool_buf(fk.q, bsz, ent->offset) : req->mem;
	if (dst)
		kernel_write(dst, fk.q->pool ? bsz : req->memsz,
			     ent->payload_sz, pl, plen);
	(*owed(req))++;
	rt_entry_request(&fz.rt, req);
}

/* ---------------- one input ---------------- */

static void session_setup(const uint8_t *head)
{
	uint8_t bits = head[1];
	size_t bsz = fz_payload_sizes[head[3] % 4];

	fk_setup(NULL);
	fk.hook = fz_hook;
	fk.se->bufsize = FZ_SLOT_SIZE;
	fk.se->conn.proto_minor = head[2] >= 12 && head[2] <= 46 ? head[2] : 46;
	fk.se->setxattr_ext = !(bits & FZS_NO_SETXATTR_EXT);
	fk.se->cfg.debug = !!(bits & FZS_DEBUG);
	fk.se->cfg.zero_copy_opt_in = !!(bits & FZS_ZC_OPT_IN);
	fk.se->conn.fs_flags = bits & FZS_ZC_DECLARED ? FRING_FS_ZERO_COPY : 0;
	if (bits & FZS_NO_OPS)
		memset(&fk.se->ops, 0, sizeof(fk.se->ops));
	if (bits & FZS_NO_FORGET)
		fk.se->ops.forget = NULL;
	if (bits & FZS_NO_FORGET_MULTI)
		fk.se->ops.forget_multi = NULL;

	fz.framing = (enum fz_framing)(head[0] % FZ_NFRAMINGS);
	memset(&fz.rs, 0, sizeof(fz.rs));
	memset(&fz.rt, 0, sizeof(fz.rt));
	memset(&fz.rq, 0, sizeof(fz.rq));
	fk.q->qid = 0;
	fz.rq.online = true;
	fz.rq.nbufs = FZ_POOL_BUFS;
	fz.rs.rq = &fz.rq;
	fz.pool = NULL;
	if (fz.framing == FZ_DEV) {
		fk.se->transport = FRING_TRANSPORT_DEV;
		fk.q->tp = &fz_dev_tp;
		return;
	}
	fz_ring_tp.set_buf = fring_tp_ring.set_buf;
	fz_ring_tp.transfer = fring_tp_ring.transfer;
	fz_ring_tp.released = fring_tp_ring.released;
	fk.q->tp = &fz_ring_tp;
	fk.se->transport = FRING_TRANSPORT_URING;
	fz.rs.se = fk.se;
	fz.rs.payload_sz = bsz;
	fz.rs.depth = FZ_PENDING + 1;
	fz.rt.rs = &fz.rs;
	fz.rt.state = RT_SERVING;
	fz.rt.ring_built = true;
	fz.rt.stage_fd = fz.stage_fd;
	fz.rt.qs = &fk.q;
	fz.rt.nq = 1;
	fk.q->rt = &fz.rt;
	if (fz.framing == FZ_RING)
		return;
	fz.pool = malloc(FZ_POOL_BUFS * bsz);
	FZ_CHECK(fz.pool);
	fk.q->pool = fz.pool;
	fk.q->pool_len = FZ_POOL_BUFS * bsz;
	fz.rs.pool = POOL_PLAIN;
	fk.se->transport = FRING_TRANSPORT_BUFPOOL;
	if (fz.framing == FZ_RING_ZC) {
		fz.rs.pool = POOL_REGISTERED;
		fz.rs.zero_copy = true;
		fk.q->pool_index = 0;
		fk.se->transport = FRING_TRANSPORT_ZEROCOPY;
	}
}

/* Everything answered exactly once and every slot free. */
static void session_check_idle(void)
{
	unsigned nfree = 0;

	for (unsigned i = 0; i < FZ_TRACK && fz.track[i].req; i++)
		FZ_CHECK(fz.track[i].owed == 0);
	FZ_CHECK(stats_in_flight(&fk.q->stats) == 0);
	for (struct fring_req *r = fk.q->free; r; r = r->next_free) {
		FZ_CHECK(atomic_load(&r->refs) == 0);
		FZ_CHECK(atomic_load(&r->unique) == 0);
		nfree++;
	}
	FZ_CHECK(nfree == fk.q->nslots);
}

static void session_teardown(void)
{
	for (unsigned i = 0; i < fk.q->nslots; i++)
		ASAN_UNPOISON_MEMORY_REGION(fk.q->slots[i]->mem,
					    fk.q->slots[i]->memsz);
	if (fz.pool)
		ASAN_UNPOISON_MEMORY_REGION(fz.pool, fk.q->pool_len);
	fk_teardown(NULL);
	free(fz.pool);
	fz.pool = NULL;
	memset(fz.track, 0, sizeof(fz.track));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz.zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	fz.null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	fz.stage_fd = memfd_create("fuzz-stage", MFD_CLOEXEC);
	if (fz.zero_fd < 0 || fz.null_fd < 0 || fz.stage_fd < 0) {
		perror("fuzz_decode: setup");
		exit(1);
	}
	for (size_t i = 0; i < sizeof(fz.bytes); i++)
		fz.bytes[i] = (char)(i * 7 + 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < FZ_HEAD_LEN)
		return 0;
	session_setup(data);
	data += FZ_HEAD_LEN;
	size -= FZ_HEAD_LEN;
	while (size >= FZ_REC_LEN) {
		size_t n = (size_t)data[7] | (size_t)data[8] << 8;

		fz.answer = data[1];
		fz.param = data[2];
		fz.value = fz_le32(data + 3);
		n = cap(n, size - FZ_REC_LEN);
		if (fz.framing == FZ_DEV)
			dispatch_dev(data[0], data + FZ_REC_LEN, n);
		else
			dispatch_ring(data[0], data + FZ_REC_LEN, n);
		data += FZ_REC_LEN + n;
		size -= FZ_REC_LEN + n;
	}
	flush_pending(0);
	fz_cur = NULL;
	session_check_idle();
	session_teardown();
	return 0;
}
