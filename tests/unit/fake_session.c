/* SPDX-License-Identifier: MIT */
/* The fake session shared by the unit tests; see fake_session.h. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "../fuzz/fuzz_input.h"
#include "fake_session.h"

struct fake fk;

#define FK_BUFSIZE   (2u << 20) /* per-request buffer: 2 MiB */
#define FK_GUARD_LEN (128u << 10)

/* ---------------- transport ---------------- */

static int fk_send(struct fring_req *req, struct iovec *iov, int cnt)
{
	size_t len = 0, off = 0;
	unsigned char *b;

	(void)req;
	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	b = malloc(len ? len : 1);
	assert_non_null(b);
	for (int i = 0; i < cnt; i++) {
		memcpy(b + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	pthread_mutex_lock(&fk.send_lock);
	free(fk.last.bytes);
	fk.last.bytes = b;
	fk.last.len = len;
	fk.last.cnt = cnt;
	if (fk.nsent < 64) {
		fk.sent_unique[fk.nsent] = le64(b, 8);
		fk.sent_error[fk.nsent] = (int32_t)le32(b, 4);
	}
	fk.nsent++;
	pthread_mutex_unlock(&fk.send_lock);
	return fk.send_ret;
}

static void fk_noreply(struct fring_req *req)
{
	(void)req;
	fk.nnoreply++;
}

/* Slots large enough to be driven as ring entries too (the fuzzer frames
 * them with rt_entry_request()). */
static const struct fring_tp fk_tp = {
	.name = "fake",
	.slot_size = sizeof(struct ring_ent),
	.send = fk_send,
	.noreply = fk_noreply,
};

/* ---------------- log sink ---------------- */

static void fk_log(enum fring_log_level lvl, const char *line, void *data)
{
	(void)lvl;
	(void)data;
	fk.nlog++;
	snprintf(fk.lastlog, sizeof(fk.lastlog), "%s", line);
	if (getenv("FK_VERBOSE"))
		fprintf(stderr, "log: %s\n", line);
}

/* ---------------- recording callbacks ---------------- */

static void rec(enum cb_id id, fring_req_t *req)
{
	memset(&fk.c, 0, sizeof(fk.c));
	fk.c.id = id;
	fk.c.req = req;
	fk.ncalls++;
	fk.calls[id]++;
	if (req) {
		fk.c.opcode = fring_req_opcode(req);
		fk.c.unique = fring_req_unique(req);
		fk.c.ctx = *fring_req_ctx(req);
		fk.c.userdata = fring_req_userdata(req);
	}
}

static void cpy(char *dst, size_t dstsz, const char *s, bool *was_null)
{
	if (!s) {
		if (was_null)
			*was_null = true;
		dst[0] = '\0';
		return;
	}
	snprintf(dst, dstsz, "%s", s);
}

static void cpy_fi(struct fring_file *dst, bool *has,
		   const struct fring_file *fi)
{
	*has = fi != NULL;
	if (fi)
		*dst = *fi;
}

static void cpy_data(const void *p, size_t n)
{
	fk.c.ptr = p;
	fk.c.datalen = n;
	if (p && n)
		memcpy(fk.c.data, p, n < FK_MAXDATA ? n : FK_MAXDATA);
}

static void finish(fring_req_t *req)
{
	if (fk.hook)
		fk.hook(req);
	else
		fring_reply_err(req, FK_MARK);
}

static void cb_init(void *ud, struct fring_conn *conn)
{
	rec(CB_INIT, NULL);
	fk.c.userdata = ud;
	fk.init_seen = *conn;
	if (fk.init_hook)
		fk.init_hook(conn);
}

static void cb_destroy(void *ud)
{
	rec(CB_DESTROY, NULL);
	fk.c.userdata = ud;
}

static void cb_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	rec(CB_LOOKUP, req);
	fk.c.ino = parent;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	finish(req);
}

static void add_forget(fring_ino_t ino, uint64_t nlookup)
{
	if (fk.nforgets < FK_MAXFORGET) {
		fk.forgets[fk.nforgets].ino = ino;
		fk.forgets[fk.nforgets].nlookup = nlookup;
	}
	fk.nforgets++;
}

static void cb_forget(void *ud, fring_ino_t ino, uint64_t nlookup)
{
	fk.ncalls++;
	fk.calls[CB_FORGET]++;
	fk.c.userdata = ud;
	add_forget(ino, nlookup);
}

static void cb_forget_multi(void *ud, size_t count,
			    const struct fring_forget *f)
{
	fk.ncalls++;
	fk.calls[CB_FORGET_MULTI]++;
	fk.c.userdata = ud;
	fk.c.size = count;
	for (size_t i = 0; i < count; i++)
		add_forget(f[i].ino, f[i].nlookup);
}

static void cb_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	rec(CB_GETATTR, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_setattr(fring_req_t *req, fring_ino_t ino, struct stat *attr,
		       int to_set, struct fring_file *fi)
{
	rec(CB_SETATTR, req);
	fk.c.ino = ino;
	fk.c.st = *attr;
	fk.c.to_set = to_set;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_readlink(fring_req_t *req, fring_ino_t ino)
{
	rec(CB_READLINK, req);
	fk.c.ino = ino;
	finish(req);
}

static void cb_mknod(fring_req_t *req, fring_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	rec(CB_MKNOD, req);
	fk.c.ino = parent;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	fk.c.mode = mode;
	fk.c.rdev = rdev;
	finish(req);
}

static void cb_mkdir(fring_req_t *req, fring_ino_t parent, const char *name,
		     mode_t mode)
{
	rec(CB_MKDIR, req);
	fk.c.ino = parent;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	fk.c.mode = mode;
	finish(req);
}

static void cb_unlink(fring_req_t *req, fring_ino_t parent, const char *name)
{
	rec(CB_UNLINK, req);
	fk.c.ino = parent;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	finish(req);
}

static void cb_rmdir(fring_req_t *req, fring_ino_t parent, const char *name)
{
	rec(CB_RMDIR, req);
	fk.c.ino = parent;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	finish(req);
}

static void cb_symlink(fring_req_t *req, const char *target, fring_ino_t parent,
		       const char *name)
{
	rec(CB_SYMLINK, req);
	fk.c.ino = parent;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	cpy(fk.c.name2, sizeof(fk.c.name2), target, &fk.c.name_null);
	finish(req);
}

static void cb_rename(fring_req_t *req, fring_ino_t parent, const char *name,
		      fring_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	rec(CB_RENAME, req);
	fk.c.ino = parent;
	fk.c.ino2 = newparent;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	cpy(fk.c.name2, sizeof(fk.c.name2), newname, &fk.c.name_null);
	fk.c.flags = flags;
	finish(req);
}

static void cb_link(fring_req_t *req, fring_ino_t ino, fring_ino_t newparent,
		    const char *newname)
{
	rec(CB_LINK, req);
	fk.c.ino = ino;
	fk.c.ino2 = newparent;
	cpy(fk.c.name, sizeof(fk.c.name), newname, &fk.c.name_null);
	finish(req);
}

static void cb_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	rec(CB_OPEN, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		    struct fring_file *fi, const struct fring_buf *dst)
{
	rec(CB_READ, req);
	fk.c.ino = ino;
	fk.c.size = size;
	fk.c.off = off;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	fk.c.buf = *dst;
	finish(req);
}

static void cb_write(fring_req_t *req, fring_ino_t ino,
		     const struct fring_buf *src, off_t off,
		     struct fring_file *fi)
{
	rec(CB_WRITE, req);
	fk.c.ino = ino;
	fk.c.buf = *src;
	fk.c.off = off;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	cpy_data(src->mem, src->size);
	finish(req);
}

static void cb_flush(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	rec(CB_FLUSH, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_release(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	rec(CB_RELEASE, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_fsync(fring_req_t *req, fring_ino_t ino, int datasync,
		     struct fring_file *fi)
{
	rec(CB_FSYNC, req);
	fk.c.ino = ino;
	fk.c.i = datasync;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_opendir(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	rec(CB_OPENDIR, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_readdir(fring_req_t *req, fring_ino_t ino, size_t size,
		       off_t off, struct fring_file *fi,
		       const struct fring_buf *dst)
{
	rec(CB_READDIR, req);
	fk.c.ino = ino;
	fk.c.size = size;
	fk.c.off = off;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	fk.c.buf = *dst;
	finish(req);
}

static void cb_readdirplus(fring_req_t *req, fring_ino_t ino, size_t size,
			   off_t off, struct fring_file *fi,
			   const struct fring_buf *dst)
{
	rec(CB_READDIRPLUS, req);
	fk.c.ino = ino;
	fk.c.size = size;
	fk.c.off = off;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	fk.c.buf = *dst;
	finish(req);
}

static void cb_releasedir(fring_req_t *req, fring_ino_t ino,
			  struct fring_file *fi)
{
	rec(CB_RELEASEDIR, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_fsyncdir(fring_req_t *req, fring_ino_t ino, int datasync,
			struct fring_file *fi)
{
	rec(CB_FSYNCDIR, req);
	fk.c.ino = ino;
	fk.c.i = datasync;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_statfs(fring_req_t *req, fring_ino_t ino)
{
	rec(CB_STATFS, req);
	fk.c.ino = ino;
	finish(req);
}

static void cb_setxattr(fring_req_t *req, fring_ino_t ino, const char *name,
			const void *value, size_t size, int flags)
{
	rec(CB_SETXATTR, req);
	fk.c.ino = ino;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	cpy_data(value, size);
	fk.c.size = size;
	fk.c.i = flags;
	finish(req);
}

static void cb_getxattr(fring_req_t *req, fring_ino_t ino, const char *name,
			size_t size)
{
	rec(CB_GETXATTR, req);
	fk.c.ino = ino;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	fk.c.size = size;
	finish(req);
}

static void cb_listxattr(fring_req_t *req, fring_ino_t ino, size_t size)
{
	rec(CB_LISTXATTR, req);
	fk.c.ino = ino;
	fk.c.size = size;
	finish(req);
}

static void cb_removexattr(fring_req_t *req, fring_ino_t ino, const char *name)
{
	rec(CB_REMOVEXATTR, req);
	fk.c.ino = ino;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	finish(req);
}

static void cb_access(fring_req_t *req, fring_ino_t ino, int mask)
{
	rec(CB_ACCESS, req);
	fk.c.ino = ino;
	fk.c.i = mask;
	finish(req);
}

static void cb_create(fring_req_t *req, fring_ino_t parent, const char *name,
		      mode_t mode, struct fring_file *fi)
{
	rec(CB_CREATE, req);
	fk.c.ino = parent;
	cpy(fk.c.name, sizeof(fk.c.name), name, &fk.c.name_null);
	fk.c.mode = mode;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_tmpfile(fring_req_t *req, fring_ino_t parent, mode_t mode,
		       struct fring_file *fi)
{
	rec(CB_TMPFILE, req);
	fk.c.ino = parent;
	fk.c.mode = mode;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_getlk(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		     struct flock *lock)
{
	rec(CB_GETLK, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	fk.c.fl = *lock;
	finish(req);
}

static void cb_setlk(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		     struct flock *lock, int sleep)
{
	rec(CB_SETLK, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	fk.c.fl = *lock;
	fk.c.i = sleep;
	finish(req);
}

static void cb_flock(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		     int op)
{
	rec(CB_FLOCK, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	fk.c.i = op;
	finish(req);
}

static void cb_bmap(fring_req_t *req, fring_ino_t ino, size_t blocksize,
		    uint64_t idx)
{
	rec(CB_BMAP, req);
	fk.c.ino = ino;
	fk.c.size = blocksize;
	fk.c.u64 = idx;
	finish(req);
}

static void cb_ioctl(fring_req_t *req, fring_ino_t ino, unsigned int cmd,
		     void *arg, struct fring_file *fi, unsigned flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	rec(CB_IOCTL, req);
	fk.c.ino = ino;
	fk.c.i = (int)cmd;
	fk.c.u64 = (uint64_t)(uintptr_t)arg;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	fk.c.flags = flags;
	cpy_data(in_buf, in_bufsz);
	fk.c.size = in_bufsz;
	fk.c.size2 = out_bufsz;
	finish(req);
}

static void cb_poll(fring_req_t *req, fring_ino_t ino, struct fring_file *fi,
		    uint64_t kh)
{
	rec(CB_POLL, req);
	fk.c.ino = ino;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	fk.c.u64 = kh;
	finish(req);
}

static void cb_fallocate(fring_req_t *req, fring_ino_t ino, int mode,
			 off_t offset, off_t length, struct fring_file *fi)
{
	rec(CB_FALLOCATE, req);
	fk.c.ino = ino;
	fk.c.i = mode;
	fk.c.off = offset;
	fk.c.off2 = length;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_lseek(fring_req_t *req, fring_ino_t ino, off_t off, int whence,
		     struct fring_file *fi)
{
	rec(CB_LSEEK, req);
	fk.c.ino = ino;
	fk.c.off = off;
	fk.c.i = whence;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_copy_file_range(fring_req_t *req, fring_ino_t ino_in,
			       off_t off_in, struct fring_file *fi_in,
			       fring_ino_t ino_out, off_t off_out,
			       struct fring_file *fi_out, size_t len, int flags)
{
	rec(CB_COPY_FILE_RANGE, req);
	fk.c.ino = ino_in;
	fk.c.off = off_in;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi_in);
	fk.c.ino2 = ino_out;
	fk.c.off2 = off_out;
	cpy_fi(&fk.c.fi2, &fk.c.has_fi2, fi_out);
	fk.c.size = len;
	fk.c.i = flags;
	finish(req);
}

static void cb_syncfs(fring_req_t *req, fring_ino_t ino)
{
	rec(CB_SYNCFS, req);
	fk.c.ino = ino;
	finish(req);
}

static void cb_statx(fring_req_t *req, fring_ino_t ino, int flags,
		     unsigned int mask, struct fring_file *fi)
{
	rec(CB_STATX, req);
	fk.c.ino = ino;
	fk.c.i = flags;
	fk.c.flags = mask;
	cpy_fi(&fk.c.fi, &fk.c.has_fi, fi);
	finish(req);
}

static void cb_interrupt(fring_req_t *req, void *ud)
{
	fk.ncalls++;
	fk.calls[CB_INTERRUPT]++;
	fk.c.id = CB_INTERRUPT;
	fk.c.req = req;
	fk.c.userdata = ud;
	fk.c.unique = fring_req_unique(req);
}

static const struct fring_ops fk_ops = {
	.init = cb_init,
	.destroy = cb_destroy,
	.lookup = cb_lookup,
	.forget = cb_forget,
	.forget_multi = cb_forget_multi,
	.getattr = cb_getattr,
	.setattr = cb_setattr,
	.readlink = cb_readlink,
	.mknod = cb_mknod,
	.mkdir = cb_mkdir,
	.unlink = cb_unlink,
	.rmdir = cb_rmdir,
	.symlink = cb_symlink,
	.rename = cb_rename,
	.link = cb_link,
	.open = cb_open,
	.read = cb_read,
	.write = cb_write,
	.flush = cb_flush,
	.release = cb_release,
	.fsync = cb_fsync,
	.opendir = cb_opendir,
	.readdir = cb_readdir,
	.readdirplus = cb_readdirplus,
	.releasedir = cb_releasedir,
	.fsyncdir = cb_fsyncdir,
	.statfs = cb_statfs,
	.setxattr = cb_setxattr,
	.getxattr = cb_getxattr,
	.listxattr = cb_listxattr,
	.removexattr = cb_removexattr,
	.access = cb_access,
	.create = cb_create,
	.tmpfile = cb_tmpfile,
	.getlk = cb_getlk,
	.setlk = cb_setlk,
	.flock = cb_flock,
	.bmap = cb_bmap,
	.ioctl = cb_ioctl,
	.poll = cb_poll,
	.fallocate = cb_fallocate,
	.lseek = cb_lseek,
	.copy_file_range = cb_copy_file_range,
	.syncfs = cb_syncfs,
	.statx = cb_statx,
	.interrupt = cb_interrupt,
};

/* ---------------- setup / teardown ---------------- */

static int fk_userdata_token;

int fk_setup(void **state)
{
	struct fring_session *se;
	struct fring_queue *q;
	long page = sysconf(_SC_PAGESIZE);

	(void)state;
	memset(&fk, 0, sizeof(fk));
	pthread_mutex_init(&fk.send_lock, NULL);
	fring_set_log(fk_log, NULL, FRING_LOG_DEBUG);

	se = calloc(1, sizeof(*se));
	q = calloc(1, sizeof(*q));
	if (!se || !q)
		return -1;
	se->ops = fk_ops;
	se->userdata = &fk_userdata_token;
	fring_config_defaults(&se->cfg);
	se->fd = -1;
	se->exit_efd = -1;
	se->conn.proto_major = 7;
	se->conn.proto_minor = 46;
	se->got_init = true;
	se->setxattr_ext = true;
	se->bufsize = FK_BUFSIZE;
	se->nqueues = 1;
	se->queues = q;
	pthread_mutex_init(&se->lock, NULL);
	q->se = se;
	q->idx = 0;
	q->fd = -1;
	q->tp = &fk_tp;
	q->pool_index = -1;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->slot_freed, NULL);
	fk.se = se;
	fk.q = q;
	fk.next_unique = 2;

	fk.guard_len = FK_GUARD_LEN;
	fk.guard_base =
		mmap(NULL, fk.guard_len + (size_t)page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fk.guard_base == MAP_FAILED)
		return -1;
	if (mprotect(fk.guard_base + fk.guard_len, (size_t)page, PROT_NONE))
		return -1;
	return 0;
}

int fk_teardown(void **state)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)state;
	/* Every request answered and its slot back on the free list. */
	queue_free_slots(fk.q);
	pthread_mutex_destroy(&fk.q->lock);
	pthread_cond_destroy(&fk.q->slot_freed);
	pthread_mutex_destroy(&fk.se->lock);
	free(fk.q);
	free(fk.se);
	munmap(fk.guard_base, fk.guard_len + (size_t)page);
	free(fk.exact);
	free(fk.last.bytes);
	pthread_mutex_destroy(&fk.send_lock);
	fring_set_log(NULL, NULL, FRING_LOG_INFO);
	memset(&fk, 0, sizeof(fk));
	return 0;
}

/* ---------------- messages ---------------- */

void mb_init(struct mb *m, uint32_t opcode, uint64_t nodeid)
{
	struct fuse_in_header ih = {
		.opcode = opcode,
		.unique = fk.next_unique,
		.nodeid = nodeid,
		.uid = 1000,
		.gid = 1001,
		.pid = 4242,
	};

	fk.next_unique += 2;
	memcpy(m->b, &ih, sizeof(ih));
	m->len = sizeof(ih);
	mb_done(m);
}

void mb_add(struct mb *m, const void *p, size_t n)
{
	assert_true(m->len + n <= sizeof(m->b));
	memcpy(m->b + m->len, p, n);
	m->len += n;
	mb_done(m);
}

void mb_str(struct mb *m, const char *s)
{
	mb_add(m, s, strlen(s) + 1);
}

struct fuse_in_header *mb_ih(struct mb *m)
{
	return (struct fuse_in_header *)m->b;
}

void mb_done(struct mb *m)
{
	mb_ih(m)->len = (uint32_t)m->len;
}

/* Where n message bytes go so that the byte after them is unreadable. */
static void *place(const void *src, size_t n)
{
	unsigned char *dst;

#ifdef FK_EXACT_MALLOC
	/* Sanitizer build: the whole library is instrumented, and an exact
	 * allocation reports even a one-byte overread. */
	free(fk.exact);
	fk.exact = malloc(n ? n : 1);
	assert_non_null(fk.exact);
	dst = fk.exact;
#else
	assert_true(n <= fk.guard_len);
	dst = fk.guard_base + fk.guard_len - n;
#if !defined(__x86_64__) && !defined(__i386__) && !defined(__aarch64__)
	/* Keep the header aligned where misaligned loads trap. */
	dst = (unsigned char *)((uintptr_t)dst & ~(uintptr_t)7);
#endif
#endif
	memcpy(dst, src, n);
	return dst;
}

/* ---------------- seeds for the fuzz targets ---------------- */

void fk_record(const char *target, const void *head, size_t hlen,
	       const void *msg, size_t n)
{
	static unsigned seq;
	const char *dir = getenv("FK_RECORD_DIR");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s/%ld-%u", dir, target,
		 (long)getpid(), seq++);
	f = fopen(path, "we");
	if (!f)
		return;
	fwrite(head, 1, hlen, f);
	fwrite(msg, 1, n, f);
	fclose(f);
}

/* A message as one record of a fuzz_decode input (tests/fuzz). */
static void record_msg(enum fz_framing framing, const void *msg, size_t n)
{
	unsigned char head[FZ_HEAD_LEN + FZ_REC_LEN] = {0};

	if (!getenv("FK_RECORD_DIR") || n > 0xffff)
		return;
	head[0] = (unsigned char)framing;
	head[1] = fk.se->setxattr_ext ? 0 : FZS_NO_SETXATTR_EXT;
	head[2] = (unsigned char)fk.se->conn.proto_minor;
	/* one record: natural answer, the message's own lengths */
	head[FZ_HEAD_LEN + 7] = (unsigned char)n;
	head[FZ_HEAD_LEN + 8] = (unsigned char)(n >> 8);
	fk_record("decode", head, sizeof(head), msg, n);
}

int fk_dispatch_n(const struct mb *m, size_t n)
{
	struct fuse_in_header ih;
	struct fring_msg msg;
	struct fring_req *req;
	unsigned char *p;
	int ret;

	assert_true(n >= sizeof(ih) && n <= m->len);
	p = place(m->b, n);
	memcpy(&ih, p, sizeof(ih));
	ih.len = (uint32_t)n;
	memcpy(p, &ih, sizeof(ih));
	record_msg(FZ_DEV, p, n);
	ret = msg_from_dev(&msg, p, n);
	if (ret)
		return ret;
	req = req_get(fk.q);
	assert_non_null(req);
	req->in_len = n;
	fring_dispatch(req, &msg);
	return 0;
}

int fk_dispatch(const struct mb *m)
{
	return fk_dispatch_n(m, m->len);
}

void fk_dispatch_ring(const struct fuse_in_header *ih, const void *op_in,
		      size_t op_in_len, const void *payload, size_t plen)
{
	static struct fuse_in_header hdr;
	static char opin[FUSE_URING_OP_IN_OUT_SZ] __attribute__((aligned(8)));
	static union {
		struct fuse_uring_req_header h;
		unsigned char b[8192];
	} ent;
	struct fring_msg msg;
	struct fring_req *req;

	hdr = *ih;
	/* The ring's op_in area is stale beyond what the kernel wrote. */
	memset(opin, 0xa5, sizeof(opin));
	assert_true(op_in_len <= sizeof(opin));
	if (op_in_len)
		memcpy(opin, op_in, op_in_len);
	memset(&msg, 0, sizeof(msg));
	msg.ih = &hdr;
	msg.op_in = opin;
	msg.p = plen ? place(payload, plen)
		     : (const char *)fk.guard_base + fk.guard_len;
	msg.left = plen;
	if (getenv("FK_RECORD_DIR") && plen <= sizeof(ent.b) - sizeof(ent.h)) {
		memcpy(ent.h.in_out, &hdr, sizeof(hdr));
		memcpy(ent.h.op_in, opin, sizeof(opin));
		ent.h.ring_ent_in_out.payload_sz = (uint32_t)plen;
		if (plen)
			memcpy(ent.b + sizeof(ent.h), payload, plen);
		record_msg(FZ_RING, ent.b, sizeof(ent.h) + plen);
		record_msg(FZ_RING_POOL, ent.b, sizeof(ent.h) + plen);
		if (hdr.opcode == FUSE_READ || hdr.opcode == FUSE_WRITE) {
			ent.h.ring_ent_in_out.flags = FUSE_URING_ENT_ZERO_COPY;
			record_msg(FZ_RING_ZC, ent.b, sizeof(ent.h) + plen);
			ent.h.ring_ent_in_out.flags = 0;
		}
	}
	req = req_get(fk.q);
	assert_non_null(req);
	req->in_len = sizeof(hdr) + plen;
	fring_dispatch(req, &msg);
}

/* ---------------- answers ---------------- */

uint16_t le16(const void *p, size_t off)
{
	const unsigned char *b = (const unsigned char *)p + off;

	return (uint16_t)(b[0] | b[1] << 8);
}

uint32_t le32(const void *p, size_t off)
{
	const unsigned char *b = (const unsigned char *)p + off;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

uint64_t le64(const void *p, size_t off)
{
	return (uint64_t)le32(p, off) | (uint64_t)le32(p, off + 4) << 32;
}

uint32_t fk_out_len(void)
{
	assert_true(fk.last.len >= 16);
	return le32(fk.last.bytes, 0);
}

int32_t fk_out_error(void)
{
	assert_true(fk.last.len >= 16);
	return (int32_t)le32(fk.last.bytes, 4);
}

uint64_t fk_out_unique(void)
{
	assert_true(fk.last.len >= 16);
	return le64(fk.last.bytes, 8);
}

const unsigned char *fk_out_arg(void)
{
	return fk.last.bytes + 16;
}

size_t fk_out_arglen(void)
{
	assert_true(fk.last.len >= 16);
	return fk.last.len - 16;
}

uint64_t fk_malformed(void)
{
	return atomic_load(&fk.q->stats.malformed);
}

uint64_t fk_handler_bugs(void)
{
	return atomic_load(&fk.q->stats.handler_bugs);
}

uint64_t fk_in_flight(void)
{
	return stats_in_flight(&fk.q->stats);
}

uint64_t fk_replies(void)
{
	return atomic_load(&fk.q->stats.replies) +
	       atomic_load(&fk.q->stats.replies_own);
}

uint64_t fk_bytes_read(void)
{
	return atomic_load(&fk.q->stats.bytes_read) +
	       atomic_load(&fk.q->stats.bytes_read_own);
}

/* ---------------- expectations ---------------- */

void fk_reset(void)
{
	memset(&fk.c, 0, sizeof(fk.c));
	memset(fk.calls, 0, sizeof(fk.calls));
	fk.ncalls = 0;
	fk.nsent = 0;
	fk.nnoreply = 0;
	fk.nforgets = 0;
	free(fk.last.bytes);
	memset(&fk.last, 0, sizeof(fk.last));
}

void fk_check_idle(void)
{
	struct fring_req *r;
	unsigned nfree = 0;

	assert_int_equal(fk_in_flight(), 0);
	pthread_mutex_lock(&fk.q->lock);
	for (r = fk.q->free; r; r = r->next_free) {
		assert_int_equal(atomic_load(&r->refs), 0);
		assert_int_equal(atomic_load(&r->unique), 0);
		nfree++;
	}
	pthread_mutex_unlock(&fk.q->lock);
	assert_int_equal(nfree, fk.q->nslots);
}

static const struct fuse_in_header *hdr(const struct mb *m)
{
	return (const struct fuse_in_header *)m->b;
}

void fk_expect_called(enum cb_id id, const struct mb *m)
{
	assert_int_equal(fk.ncalls, 1);
	assert_int_equal(fk.calls[id], 1);
	assert_int_equal(fk.c.id, id);
	assert_int_equal(fk.c.opcode, hdr(m)->opcode);
	assert_int_equal(fk.c.unique, hdr(m)->unique);
	assert_int_equal(fk.c.ctx.uid, 1000);
	assert_int_equal(fk.c.ctx.gid, 1001);
	assert_int_equal(fk.c.ctx.pid, 4242);
	assert_ptr_equal(fk.c.userdata, fk.se->userdata);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk.last.len, 16);
	assert_int_equal(fk_out_len(), 16);
	assert_int_equal(fk_out_error(), -FK_MARK);
	assert_int_equal(fk_out_unique(), hdr(m)->unique);
	fk_check_idle();
}

void fk_expect_err(const struct mb *m, int err)
{
	assert_int_equal(fk.ncalls, 0);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk.last.len, 16);
	assert_int_equal(fk_out_len(), 16);
	assert_int_equal(fk_out_error(), -err);
	assert_int_equal(fk_out_unique(), hdr(m)->unique);
	fk_check_idle();
}

void fk_expect_silence(void)
{
	assert_int_equal(fk.ncalls, 0);
	assert_int_equal(fk.nsent, 0);
	fk_check_idle();
}

void fk_truncations(const struct mb *m, int err, unsigned flags)
{
	for (size_t n = sizeof(struct fuse_in_header); n < m->len; n++) {
		uint64_t bad = fk_malformed();

		fk_reset();
		assert_int_equal(fk_dispatch_n(m, n), 0);
		if (fk.ncalls ||
		    (flags & TR_NOREPLY ? fk.nsent != 0 : fk.nsent != 1))
			fail_msg("%s truncated to %zu of %zu bytes: %u "
				 "callbacks, %u answers",
				 fring_opname(hdr(m)->opcode), n, m->len,
				 fk.ncalls, fk.nsent);
		if (flags & TR_NOREPLY)
			fk_expect_silence();
		else
			fk_expect_err(m, err);
		if (fk_malformed() != bad + (flags & TR_MALFORMED ? 1 : 0))
			fail_msg("%s truncated to %zu bytes: malformed went "
				 "from %llu to %llu",
				 fring_opname(hdr(m)->opcode), n,
				 (unsigned long long)bad,
				 (unsigned long long)fk_malformed());
	}
	fk_reset();
}
