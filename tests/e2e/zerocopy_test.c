/* SPDX-License-Identifier: MIT */
/*
 * zerocopy_test TRANSPORT [wb]: an in-process server (files backed by
 * memfds, plus files whose handlers misbehave on purpose) and its client.
 * The server declares FRING_FS_ZERO_COPY, so every open but nozc's is
 * zero-copied.
 *
 * On transport=zerocopy it proves from the library's counters that READs
 * and WRITEs were zero-copied for O_DIRECT, buffered and mmap I/O (each
 * phase fails if its counter stays at zero), checks every byte, and covers
 * the failure paths: a READ answered from memory (staged), helpers called
 * on another thread, an open that declines zero-copy, a short backing
 * read, an error after part of the data moved, answers that claim bytes
 * no fixed op moved (EIO, never stale page contents), and an abort with a
 * zero-copied READ held by its handler (a late helper must not write into
 * the client's buffer). On the other rungs the same I/O must give the same
 * bytes with no zero-copy counted. "wb" turns on the writeback cache.
 *
 * zerocopy_test nocap [RUNG]: without CAP_SYS_ADMIN, transport=zerocopy
 * refuses to mount and auto ends on RUNG (bufpool-registered), saying why.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fring/fring.h>

#include "check.h"

#define T(cond, name, ...) chk_result(!!(cond), (name), __VA_ARGS__)

#define MIB	  (1024 * 1024)
#define SHORT_LEN (100 * 1024)

enum {
	I_DIRECT = 2,
	I_BUFFERED,
	I_MMAP,
	I_MEMBUF,
	I_OFFTHREAD,
	I_NOMOVE,
	I_SHORT,
	I_MIDFAIL,
	I_STUCK,
	I_NOZC,
	I_LAST
};

static const struct {
	const char *name;
	size_t size;
} files[I_LAST] = {
	[I_DIRECT] = {"direct", 4 * MIB},
	[I_BUFFERED] = {"buffered", 4 * MIB},
	[I_MMAP] = {"mmap", MIB},
	[I_MEMBUF] = {"membuf", MIB},
	[I_OFFTHREAD] = {"offthread", MIB},
	[I_NOMOVE] = {"nomove", 64 * 1024},
	[I_SHORT] = {"short", MIB},
	[I_MIDFAIL] = {"midfail", MIB},
	[I_STUCK] = {"stuck", MIB},
	[I_NOZC] = {"nozc", MIB},
};

static int backing[I_LAST]; /* memfds */
static int short_fd;	    /* SHORT_LEN bytes of pattern */
static char *membuf;	    /* the membuf file's bytes */
static bool want_wb;
static fring_req_t *_Atomic held;
static _Atomic unsigned nozc_fixed; /* nozc reads that got a FIXED dst */

static unsigned char pat(uint64_t off, unsigned seed)
{
	return (unsigned char)((off * 131 + seed * 7 + (off >> 12)) & 0xff);
}

static void fill(unsigned char *p, size_t len, uint64_t off, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pat(off + i, seed);
}

/* ---------------- the server ---------------- */

static void st_fill(fring_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_nlink = 1;
	if (ino == FRING_ROOT_INO) {
		st->st_mode = S_IFDIR | 0755;
		return;
	}
	st->st_mode = S_IFREG | 0644;
	st->st_size = (off_t)files[ino].size;
}

static void t_init(void *ud, struct fring_conn *conn)
{
	(void)ud;
	/* every handler takes FIXED buffers (nozc's declines them per
	 * open); memdata_test covers filesystems that do not declare this */
	conn->fs_flags |= FRING_FS_ZERO_COPY;
	if (want_wb)
		conn->want |= FRING_CAP_WRITEBACK_CACHE;
}

static void t_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct fring_entry e = {0};

	for (fring_ino_t i = I_DIRECT; i < I_LAST && parent == FRING_ROOT_INO;
	     i++) {
		if (strcmp(name, files[i].name))
			continue;
		e.ino = i;
		st_fill(i, &e.attr);
		e.attr_timeout = e.entry_timeout = 60;
		fring_reply_entry(req, &e);
		return;
	}
	fring_reply_err(req, ENOENT);
}

static void t_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct stat st;

	(void)fi;
	if (ino >= I_LAST)
		return (void)fring_reply_err(req, ENOENT);
	st_fill(ino, &st);
	fring_reply_attr(req, &st, 60);
}

/* Sizes never change; a SETATTR (writeback's times) just reports them. */
static void t_setattr(fring_req_t *req, fring_ino_t ino, struct stat *attr,
		      int to_set, struct fring_file *fi)
{
	(void)attr, (void)to_set;
	t_getattr(req, ino, fi);
}

static void t_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	fi->fh = ino;
	fi->no_zero_copy = ino == I_NOZC;
	fring_reply_open(req, fi);
}

struct job {
	fring_req_t *req;
	fring_ino_t ino;
	size_t size;
	off_t off;
	bool is_write;
};

static void *offthread_main(void *arg)
{
	struct job *j = arg;

	usleep(1000);
	if (j->is_write)
		fring_write_to_fd(j->req, backing[j->ino], j->off);
	else
		fring_read_from_fd(j->req, backing[j->ino], j->off, j->size);
	free(j);
	return NULL;
}

static void hand_off(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		     bool is_write)
{
	struct job *j = malloc(sizeof(*j));
	pthread_t th;

	fring_req_async(req);
	*j = (struct job){req, ino, size, off, is_write};
	if (pthread_create(&th, NULL, offthread_main, j)) {
		free(j);
		fring_reply_err(req, EAGAIN);
		return;
	}
	pthread_detach(th);
}

/* midfail: half the data moves, then the "backing store" fails */
static void midfail_done(fring_req_t *req, int res, void *data)
{
	(void)data;
	fring_reply_err(req, res < 0 ? -res : EIO);
}

static void midfail_read(fring_req_t *req, size_t size, off_t off,
			 const struct fring_buf *dst)
{
	struct io_uring_sqe *sqe = fring_io_sqe(req);

	if (!sqe || dst->kind != FRING_BUF_FIXED)
		return (void)fring_reply_err(req, EIO);
	io_uring_prep_read_fixed(
		sqe, backing[I_MIDFAIL], (void *)(uintptr_t)dst->buf_addr,
		(unsigned)(size / 2), (uint64_t)off, dst->buf_index);
	fring_io_submit(req, sqe, midfail_done, NULL);
}

static void t_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst)
{
	(void)fi;
	switch (ino) {
	case I_MEMBUF:
		if ((size_t)off >= files[ino].size)
			return (void)fring_reply_buf(req, NULL, 0);
		if (size > files[ino].size - (size_t)off)
			size = files[ino].size - (size_t)off;
		fring_reply_buf(req, membuf + off, size);
		return;
	case I_OFFTHREAD:
		hand_off(req, ino, size, off, false);
		return;
	case I_NOMOVE:
		/* claims data nobody put in the client's pages */
		fring_reply_data(req, size);
		return;
	case I_SHORT:
		fring_read_from_fd(req, short_fd, off, size);
		return;
	case I_MIDFAIL:
		midfail_read(req, size, off, dst);
		return;
	case I_STUCK:
		fring_req_async(req);
		atomic_store(&held, req);
		return;
	case I_NOZC:
		if (dst->kind == FRING_BUF_FIXED)
			atomic_fetch_add(&nozc_fixed, 1);
		break;
	}
	fring_read_from_fd(req, backing[ino], off, size);
}

static void t_write(fring_req_t *req, fring_ino_t ino,
		    const struct fring_buf *src, off_t off,
		    struct fring_file *fi)
{
	(void)fi;
	if (ino == I_NOMOVE)
		return (void)fring_reply_write(req, src->size);
	if (ino == I_OFFTHREAD)
		return hand_off(req, ino, src->size, off, true);
	fring_write_to_fd(req, backing[ino], off);
}

static void t_fsync(fring_req_t *req, fring_ino_t ino, int datasync,
		    struct fring_file *fi)
{
	(void)ino, (void)datasync, (void)fi;
	fring_reply_err(req, 0);
}

static const struct fring_ops ops = {
	.init = t_init,
	.lookup = t_lookup,
	.getattr = t_getattr,
	.setattr = t_setattr,
	.open = t_open,
	.read = t_read,
	.write = t_write,
	.fsync = t_fsync,
};

/* ---------------- the client ---------------- */

static fring_session_t *se;
static char mnt[] = "/tmp/fring-zc.XXXXXX";
static bool zc;

static const char *path_of(fring_ino_t ino)
{
	static char p[8][128];
	static unsigned n;
	char *s = p[n++ % 8];

	snprintf(s, 128, "%s/%s", mnt, files[ino].name);
	return s;
}

static struct fring_stats stats_now(void)
{
	struct fring_stats st;

	fring_session_stats(se, FRING_STATS_ALL, &st);
	return st;
}

static void drop_cache(const char *path)
{
	int fd = open(path, O_RDONLY);
	int dc = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd >= 0) {
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	if (dc >= 0) {
		if (write(dc, "1", 1) < 0)
			chk_note("drop_caches: %s", strerror(errno));
		close(dc);
	}
}

/* The zero-copy counters of a phase: > 0 on zerocopy, 0 elsewhere. */
static void expect_zc(const char *phase, const struct fring_stats *a,
		      const struct fring_stats *b, bool reads, bool writes)
{
	uint64_t r = b->zero_copy_reads - a->zero_copy_reads;
	uint64_t w = b->zero_copy_writes - a->zero_copy_writes;

	if (reads)
		T(zc ? r > 0 : r == 0, chk_name("%s_zero_copy_reads", phase),
		  "%llu zero-copied READs (transport %s)",
		  (unsigned long long)r,
		  fring_transport_name(fring_session_transport(se)));
	if (writes)
		T(zc ? w > 0 : w == 0, chk_name("%s_zero_copy_writes", phase),
		  "%llu zero-copied WRITEs (transport %s)",
		  (unsigned long long)w,
		  fring_transport_name(fring_session_transport(se)));
}

static ssize_t full_io(int fd, void *buf, size_t len, off_t off, bool wr)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = wr ? pwrite(fd, (char *)buf + done, len - done,
					off + (off_t)done)
			       : pread(fd, (char *)buf + done, len - done,
				       off + (off_t)done);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Writes the file with pattern seed, reads it back, compares. */
static void phase_rw(const char *phase, fring_ino_t ino, int oflags,
		     unsigned seed)
{
	size_t len = files[ino].size;
	unsigned char *w, *r;
	struct fring_stats a, b, c;
	int fd;

	if (posix_memalign((void **)&w, 4096, len) ||
	    posix_memalign((void **)&r, 4096, len))
		return;
	fill(w, len, 0, seed);
	memset(r, 0, len);
	a = stats_now();
	fd = open(path_of(ino), O_RDWR | oflags);
	CHECK_SYS(chk_name("%s_open", phase), fd);
	T(full_io(fd, w, len, 0, true) == (ssize_t)len,
	  chk_name("%s_write", phase), "short or failed write");
	CHECK_SYS(chk_name("%s_fsync", phase), fsync(fd));
	close(fd);
	b = stats_now();
	expect_zc(chk_name("%s_write", phase), &a, &b, false, true);
	drop_cache(path_of(ino));
	fd = open(path_of(ino), O_RDONLY | oflags);
	T(full_io(fd, r, len, 0, false) == (ssize_t)len,
	  chk_name("%s_read", phase), "short or failed read");
	close(fd);
	c = stats_now();
	chk_mem(chk_name("%s_data", phase), r, w, len);
	expect_zc(chk_name("%s_read", phase), &b, &c, true, false);
	free(w);
	free(r);
}

static void phase_mmap(void)
{
	size_t len = files[I_MMAP].size;
	unsigned char *want = malloc(len), *m;
	struct fring_stats a, b, c;
	int fd = open(path_of(I_MMAP), O_RDWR);

	CHECK_SYS("mmap_open", fd);
	fill(want, len, 0, 9);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK("mmap_map", m != MAP_FAILED)) {
		close(fd);
		free(want);
		return;
	}
	a = stats_now();
	memcpy(m, want, len);
	CHECK_SYS("mmap_msync", msync(m, len, MS_SYNC));
	munmap(m, len);
	close(fd);
	b = stats_now();
	expect_zc("mmap_write", &a, &b, false, true);
	drop_cache(path_of(I_MMAP));
	fd = open(path_of(I_MMAP), O_RDONLY);
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (CHECK("mmap_map_read", m != MAP_FAILED)) {
		chk_mem("mmap_data", m, want, len);
		munmap(m, len);
	}
	close(fd);
	c = stats_now();
	expect_zc("mmap_read", &b, &c, true, false);
	free(want);
}

/* Reads with O_DIRECT: the request size is the read size. */
static ssize_t direct_read(fring_ino_t ino, void *buf, size_t len)
{
	int fd = open(path_of(ino), O_RDONLY | O_DIRECT);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, 0);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

static uint64_t piped_now(void)
{
	uint64_t v = 0;

	fring_session_counter(se, FRING_STATS_ALL, "zero_copy_piped", &v);
	return v;
}

/* One small O_DIRECT transfer of ino at off, checked against want. */
static void small_io(const char *name, fring_ino_t ino, unsigned char *buf,
		     const unsigned char *want, size_t len, off_t off, bool wr)
{
	int fd = open(path_of(ino), (wr ? O_RDWR : O_RDONLY) | O_DIRECT);
	ssize_t n;

	if (!CHECK_SYS(chk_name("%s_open", name), fd))
		return;
	if (wr)
		memcpy(buf, want, len);
	else
		memset(buf, 0, len);
	n = wr ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
	T(n == (ssize_t)len, name, "%zu bytes at %lld: got %zd", len,
	  (long long)off, n);
	if (!wr && n == (ssize_t)len)
		chk_mem(chk_name("%s_data", name), buf, want, len);
	close(fd);
}

/*
 * Small transfers on files in memory (memfds) go through the queue
 * thread's pipe on zerocopy: zero_copy_piped counts every one of these
 * (nothing else runs meanwhile, so the pipe always has room), on the
 * other rungs none. Scattered 4 KiB writes and reads, a read across the
 * end of the file, a READ answered from memory (staged through the pipe)
 * and helpers called on another thread (started by the queue thread).
 */
static void phase_piped(void)
{
	size_t len = files[I_DIRECT].size;
	unsigned char *buf, *want;
	uint64_t p0 = piped_now(), p1;
	unsigned ops = 0;

	if (posix_memalign((void **)&buf, 4096, 65536))
		return;
	want = malloc(65536);
	for (unsigned i = 0; i < 8; i++) {
		unsigned blk = i * 5 % 8; /* another order than the reads' */
		off_t off = (off_t)(blk * 65536 + (blk % 3) * 4096);

		fill(want, 4096, (uint64_t)off, 21);
		small_io("piped_write", I_DIRECT, buf, want, 4096, off, true);
		ops++;
	}
	for (unsigned i = 0; i < 8; i++) {
		off_t off = (off_t)(i * 65536 + (i % 3) * 4096);

		fill(want, 4096, (uint64_t)off, 21);
		small_io("piped_read", I_DIRECT, buf, want, 4096, off, false);
		ops++;
	}
	/* the last 4 KiB, asked for 8: phase_rw's bytes, short at the end */
	{
		int fd = open(path_of(I_DIRECT), O_RDONLY | O_DIRECT);
		ssize_t n = pread(fd, buf, 8192, (off_t)(len - 4096));

		fill(want, 4096, len - 4096, 11);
		T(n == 4096, "piped_read_end", "got %zd", n);
		if (n == 4096)
			chk_mem("piped_read_end_data", buf, want, 4096);
		close(fd);
		ops++;
	}
	small_io("piped_membuf", I_MEMBUF, buf,
		 (const unsigned char *)membuf + 8192, 16384, 8192, false);
	ops++;
	fill(want, 4096, 40960, 22);
	small_io("piped_offthread_write", I_OFFTHREAD, buf, want, 4096, 40960,
		 true);
	small_io("piped_offthread_read", I_OFFTHREAD, buf, want, 4096, 40960,
		 false);
	ops += 2;
	p1 = piped_now();
	T(zc ? p1 - p0 == ops : p1 == p0, "piped_count",
	  "%llu of %u small transfers through the pipe (transport %s)",
	  (unsigned long long)(p1 - p0), ops,
	  fring_transport_name(fring_session_transport(se)));
	free(want);
	free(buf);
}

static void phase_special(void)
{
	unsigned char *buf, *want;
	struct fring_stats a, b;
	ssize_t n;
	int fd;

	if (posix_memalign((void **)&buf, 4096, MIB))
		return;
	want = malloc(MIB);

	/* a READ answered from memory: staged into the client's pages */
	a = stats_now();
	n = direct_read(I_MEMBUF, buf, MIB);
	T(n == MIB, "membuf_read", "expected %d got %zd", MIB, n);
	chk_mem("membuf_data", buf, membuf, MIB);
	b = stats_now();
	T(zc ? b.zero_copy_staged > a.zero_copy_staged
	     : b.zero_copy_staged == a.zero_copy_staged,
	  "membuf_staged", "staged %llu -> %llu",
	  (unsigned long long)a.zero_copy_staged,
	  (unsigned long long)b.zero_copy_staged);

	/* helpers called on another thread */
	fill(want, MIB, 0, 5);
	fd = open(path_of(I_OFFTHREAD), O_RDWR | O_DIRECT);
	T(full_io(fd, want, MIB, 0, true) == MIB, "offthread_write",
	  "short or failed write");
	memset(buf, 0, MIB);
	T(full_io(fd, buf, MIB, 0, false) == MIB, "offthread_read",
	  "short or failed read");
	close(fd);
	chk_mem("offthread_data", buf, want, MIB);

	/* an open that declines zero-copy gets memory */
	a = stats_now();
	n = direct_read(I_NOZC, buf, 65536);
	b = stats_now();
	T(n == 65536, "nozc_read", "got %zd", n);
	T(b.zero_copy_reads == a.zero_copy_reads &&
		  atomic_load(&nozc_fixed) == 0,
	  "nozc_not_zero_copied", "%llu zero-copied, %u FIXED dst",
	  (unsigned long long)(b.zero_copy_reads - a.zero_copy_reads),
	  atomic_load(&nozc_fixed));

	/* the backing store has less than asked: a short read, exact */
	memset(buf, 0xee, MIB);
	n = direct_read(I_SHORT, buf, MIB);
	/* with the writeback cache the kernel owns the size: it reports the
	 * whole 1 MiB the file has, past the data either zeros or the
	 * client's own bytes, never anything else */
	T(n == (want_wb ? MIB : SHORT_LEN), "short_read", "expected %d got %zd",
	  want_wb ? MIB : SHORT_LEN, n);
	fill(want, SHORT_LEN, 0, 3);
	chk_mem("short_data", buf, want, SHORT_LEN);
	for (n = SHORT_LEN; n < MIB && (buf[n] == 0 || buf[n] == 0xee); n++)
		;
	T(n == MIB, "short_tail_clean", "byte %zd is %#x", n,
	  n < MIB ? buf[n] : 0);

	if (!zc)
		goto out;
	/* part of the data moved, then an error: the error wins */
	n = direct_read(I_MIDFAIL, buf, MIB);
	T(n == -EIO, "midfail_eio", "expected -EIO got %zd", n);

	/* answers claiming bytes that never moved: EIO, counted */
	a = stats_now();
	memset(buf, 0x5a, 65536);
	n = direct_read(I_NOMOVE, buf, 65536);
	T(n == -EIO, "nomove_read_eio", "expected -EIO got %zd", n);
	fd = open(path_of(I_NOMOVE), O_RDONLY);
	n = pread(fd, buf, 4096, 0) < 0 ? -errno : 0;
	close(fd);
	T(n == -EIO, "nomove_buffered_read_eio", "expected -EIO got %zd", n);
	fd = open(path_of(I_NOMOVE), O_WRONLY | O_DIRECT);
	n = pwrite(fd, buf, 65536, 0) < 0 ? -errno : 0;
	close(fd);
	T(n == -EIO, "nomove_write_eio", "expected -EIO got %zd", n);
	b = stats_now();
	T(b.handler_bugs - a.handler_bugs >= 3, "nomove_counted",
	  "handler_bugs %llu -> %llu", (unsigned long long)a.handler_bugs,
	  (unsigned long long)b.handler_bugs);
out:
	free(buf);
	free(want);
}

/* ---------------- abort with a zero-copied READ held ---------------- */

/* report: the client's errno goes there; go: read once the server's late
 * helper has run (a byte, or EOF) */
static int abort_client(int report, int go)
{
	unsigned char *buf;
	int fd = open(path_of(I_STUCK), O_RDONLY | O_DIRECT), e;
	ssize_t n;

	if (fd < 0 || posix_memalign((void **)&buf, 4096, 65536))
		return 10;
	memset(buf, 0xab, 65536);
	n = pread(fd, buf, 65536, 0);
	e = n < 0 ? errno : 0;
	if (write(report, &e, sizeof(e)) != sizeof(e))
		return 11;
	/* the server's late helper runs now, and its session ends: after
	 * that (not after a while, which a loaded machine may stretch) the
	 * buffer must be as it was */
	if (read(go, &e, 1) < 0)
		return 14;
	for (int i = 0; i < 65536; i++)
		if (buf[i] != 0xab)
			return 12;
	return n < 0 ? 0 : 13;
}

/* Asks run (on th) to end and waits for it, 60 s at most: false if it
 * did not end. */
static bool end_session(pthread_t th)
{
	struct timespec until;

	fring_session_exit(se);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	return pthread_timedjoin_np(th, NULL, &until) == 0;
}

/* false when the session did not end (run still running): nothing of it
 * may be destroyed then */
static bool phase_abort(pthread_t th)
{
	struct timespec until;
	int pfd[2], gfd[2], e = 0, status, joined;
	char ctl[128];
	struct stat st;
	pid_t child;
	void *run_ret;
	int afd;

	if (!CHECK_SYS("abort_pipe_report", pipe(pfd)))
		return end_session(th);
	if (!CHECK_SYS("abort_pipe_go", pipe(gfd))) {
		close(pfd[0]);
		close(pfd[1]);
		return end_session(th);
	}
	stat(mnt, &st);
	child = fork();
	if (child == 0) {
		close(gfd[1]);
		_exit(abort_client(pfd[1], gfd[0]));
	}
	close(gfd[0]);
	/* (30 s: only waited for in full when the READ does not come) */
	for (int i = 0; i < 3000 && !atomic_load(&held); i++)
		usleep(10000);
	if (!T(atomic_load(&held) != NULL, "abort_read_held",
	       "the READ never reached the handler")) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		close(gfd[1]);
		/* the session still serves: end it */
		return end_session(th);
	}
	mkdir("/sys/fs/fuse/connections", 0755);
	mount("fusectl", "/sys/fs/fuse/connections", "fusectl", 0, NULL);
	snprintf(ctl, sizeof(ctl), "/sys/fs/fuse/connections/%u/abort",
		 minor(st.st_dev));
	afd = open(ctl, O_WRONLY);
	CHECK_SYS("abort_connection", afd >= 0 ? write(afd, "1", 1) : -1);
	if (afd >= 0)
		close(afd);
	T(read(pfd[0], &e, sizeof(e)) == sizeof(e) &&
		  (e == ECONNABORTED || e == ENOTCONN),
	  "abort_client_error", "client read ended with %s", chk_errname(e));
	/* the handler finally moves data: there is no client any more */
	fring_read_from_fd(atomic_exchange(&held, NULL), backing[I_STUCK], 0,
			   65536);
	/* the session ends by itself (the connection is gone): run returns
	 * 0, an abort being a clean end (ENODEV/ECONNABORTED on /dev/fuse,
	 * ECONNABORTED/ENOTCONN on the ring), and the session says it ended
	 * without fring_session_exit() being called. Once run has returned,
	 * nothing of it can touch the client's pages. Bounded: a session
	 * that never ends is a failure named here, not a test killed by its
	 * timeout. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	joined = pthread_timedjoin_np(th, &run_ret, &until);
	if (!T(joined == 0, "abort_session_ended",
	       "run has not returned 60 s after the abort (%s)",
	       strerror(joined))) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		close(gfd[1]);
		return false;
	}
	T((long)run_ret == 0, "abort_run_returned_0",
	  "fring_session_run returned %ld (%s)", (long)run_ret,
	  strerror((int)-(long)run_ret));
	T(fring_session_exited(se), "abort_session_exited",
	  "fring_session_exited() is 0 after run returned");
	close(gfd[1]);
	waitpid(child, &status, 0);
	T(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	  "abort_client_buffer_untouched", "client status %d",
	  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	umount2(mnt, MNT_DETACH);
	return true;
}

static void *runner(void *arg)
{
	return (void *)(long)fring_session_run(arg);
}

static int make_backing(void)
{
	unsigned char *p = malloc(4 * MIB);

	if (!p)
		return -1;
	for (int i = I_DIRECT; i < I_LAST; i++) {
		backing[i] = memfd_create(files[i].name, MFD_CLOEXEC);
		if (backing[i] < 0 ||
		    ftruncate(backing[i], (off_t)files[i].size))
			return -1;
	}
	fill(p, 4 * MIB, 0, 1);
	if (pwrite(backing[I_NOZC], p, MIB, 0) != MIB ||
	    pwrite(backing[I_MIDFAIL], p, MIB, 0) != MIB ||
	    pwrite(backing[I_STUCK], p, MIB, 0) != MIB)
		return -1;
	short_fd = memfd_create("short", MFD_CLOEXEC);
	fill(p, SHORT_LEN, 0, 3);
	if (short_fd < 0 || pwrite(short_fd, p, SHORT_LEN, 0) != SHORT_LEN)
		return -1;
	membuf = malloc(MIB);
	fill((unsigned char *)membuf, MIB, 0, 7);
	free(p);
	return 0;
}

/* ---------------- without CAP_SYS_ADMIN ---------------- */

/* Raises or lowers CAP_SYS_ADMIN in the effective set only, so it can
 * come back (mount(2) needs it; the rung choice must not see it). */
static int sys_admin(bool on)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	if (on)
		d[0].effective |= 1u << CAP_SYS_ADMIN;
	else
		d[0].effective &= ~(1u << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/*
 * transport=zerocopy refuses to mount without CAP_SYS_ADMIN, with the
 * reason; auto mounts (mount(2) with the capability), then chooses its rung
 * without it: on a 7.46 kernel bufpool-registered, saying why.
 */
static int nocap_mode(const char *want_auto)
{
	fring_config_t *cfg = fring_config_new();
	fring_session_t *s = NULL;
	pthread_t th;
	int ret;

	CHECK("lower_sys_admin", sys_admin(false) == 0);
	fring_config_set(cfg, "transport", "zerocopy");
	ret = fring_session_new(&ops, sizeof(ops), NULL, cfg, &s);
	if (!ret)
		ret = fring_session_mount(s, mnt);
	T(ret == -EPERM, "zerocopy_refused", "expected -EPERM got %d", ret);
	fring_session_destroy(s);
	fring_config_set(cfg, "transport", "auto");
	ret = fring_session_new(&ops, sizeof(ops), NULL, cfg, &se);
	fring_config_free(cfg);
	sys_admin(true);
	if (!ret)
		ret = fring_session_mount(se, mnt);
	sys_admin(false);
	if (!T(ret == 0, "auto_mounts", "mount: %d", ret))
		return chk_finish();
	pthread_create(&th, NULL, runner, se);
	CHECK_SYS("root_stat", access(mnt, F_OK));
	T(!strcmp(fring_transport_name(fring_session_transport(se)), want_auto),
	  "auto_rung", "expected %s got %s", want_auto,
	  fring_transport_name(fring_session_transport(se)));
	T(strstr(fring_session_transport_reason(se), "CAP_SYS_ADMIN") != NULL,
	  "auto_says_why", "reason: %s", fring_session_transport_reason(se));
	chk_note("transport: %s", fring_session_transport_reason(se));
	phase_rw("nocap_direct", I_DIRECT, O_DIRECT, 21);
	fring_session_exit(se);
	pthread_join(th, NULL);
	sys_admin(true); /* umount(2) */
	fring_session_destroy(se);
	rmdir(mnt);
	return chk_finish();
}

int main(int argc, char *argv[])
{
	const char *transport = argc > 1 ? argv[1] : "zerocopy";
	fring_config_t *cfg;
	struct fring_stats st;
	pthread_t th;
	int ret;

	chk_init();
	want_wb = argc > 2 && !strcmp(argv[2], "wb");
	zc = !strcmp(transport, "zerocopy");
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount\n");
		return CHK_EXIT_SKIP;
	}
	if (!mkdtemp(mnt) || make_backing())
		return 1;
	if (!strcmp(transport, "nocap"))
		return nocap_mode(argc > 2 ? argv[2] : "bufpool-registered");
	cfg = fring_config_new();
	fring_config_set(cfg, "transport", transport);
	ret = fring_session_new(&ops, sizeof(ops), NULL, cfg, &se);
	fring_config_free(cfg);
	if (ret || (ret = fring_session_mount(se, mnt))) {
		printf("FAIL: cannot mount with transport=%s: %s\n", transport,
		       strerror(-ret));
		return 1;
	}
	pthread_create(&th, NULL, runner, se);
	/* the first request tells the rung (run() answers INIT) */
	CHECK_SYS("root_stat", access(mnt, F_OK));
	T(!strcmp(fring_transport_name(fring_session_transport(se)), transport),
	  "transport", "expected %s got %s (%s)", transport,
	  fring_transport_name(fring_session_transport(se)),
	  fring_session_transport_reason(se));
	chk_note("transport: %s", fring_session_transport_reason(se));

	phase_rw("direct", I_DIRECT, O_DIRECT, 11);
	phase_rw("buffered", I_BUFFERED, 0, 12);
	phase_mmap();
	phase_piped();
	phase_special();
	if (!phase_abort(th)) {
		/* run still holds the session: it cannot be destroyed */
		printf("# the session did not end: it is not destroyed\n");
		umount2(mnt, MNT_DETACH);
		chk_finish();
		return 1;
	}

	fring_session_stats(se, FRING_STATS_ALL, &st);
	T(st.in_flight == 0, "nothing_in_flight", "in_flight %llu",
	  (unsigned long long)st.in_flight);
	chk_note("zero-copy: %llu reads, %llu writes, %llu staged; "
		 "handler_bugs %llu",
		 (unsigned long long)st.zero_copy_reads,
		 (unsigned long long)st.zero_copy_writes,
		 (unsigned long long)st.zero_copy_staged,
		 (unsigned long long)st.handler_bugs);
	fring_session_destroy(se);
	rmdir(mnt);
	return chk_finish();
}
