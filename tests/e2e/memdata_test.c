/* SPDX-License-Identifier: MIT */
/*
 * memdata_test TRANSPORT [RUNG]: zero-copy only where it was asked for.
 * With TRANSPORT auto, RUNG is the rung auto must end on (else any).
 *
 * An in-process server whose "mem" files have the handlers a filesystem
 * ported from libfuse has: write copies from src->mem, read fills dst->mem
 * and answers fring_reply_data(). They must get memory on every rung
 * (dev, uring, bufpool, bufpool-registered, zerocopy; "auto" is whatever
 * the kernel gives, zerocopy as root on 7.3), and the bytes written must
 * read back. Three mounts, one after the other:
 *
 *   plain     no declaration: "mem" is never zero-copied; "ask", whose
 *             open sets fi->zero_copy (its handlers use the data helpers),
 *             is on zerocopy; "helper" (helpers, asks nothing) is not.
 *   declared  the init callback declares FRING_FS_ZERO_COPY: "helper" is
 *             zero-copied on zerocopy; "nozc" (memory handlers, open sets
 *             fi->no_zero_copy) still gets memory.
 *   optin     declared, mounted with -o zero_copy_opt_in: "helper" is not
 *             zero-copied, "ask" still is.
 *
 * Each file gets 1 MiB written and read back with O_DIRECT and with
 * buffered I/O (only after checking /proc/mounts that the path is this
 * FUSE mount), its bytes checked; the library's zero_copy_requests,
 * zero_copy_reads and zero_copy_writes must grow on zerocopy exactly for
 * the files that asked (both ways), and stay 0 for all others and on the
 * other rungs. A memory handler that gets a buffer without memory answers
 * EIO and is counted (must stay 0).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fring/fring.h>

#include "check.h"

#define T(cond, name, ...) chk_result(!!(cond), (name), __VA_ARGS__)

#define FILE_SIZE (1024 * 1024)
#define CHUNK	  (256 * 1024)

enum { I_MEM = 2, I_ASK, I_HELPER, I_NOZC, I_LAST };

static const char *const names[I_LAST] = {
	[I_MEM] = "mem",
	[I_ASK] = "ask",
	[I_HELPER] = "helper",
	[I_NOZC] = "nozc",
};

/* memory handlers: the data lives here */
static unsigned char *store[I_LAST];
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
/* helper handlers: the data lives in memfds */
static int backing[I_LAST];

static bool declare;		  /* the init callback declares zero-copy */
static _Atomic unsigned no_mem;	  /* memory handler without memory */
static _Atomic unsigned fixed_in; /* helper handler given FIXED */

static bool mem_handlers(fring_ino_t ino)
{
	return ino == I_MEM || ino == I_NOZC;
}

/* ---------------- the server ---------------- */

static void m_init(void *ud, struct fring_conn *conn)
{
	(void)ud;
	if (declare)
		conn->fs_flags |= FRING_FS_ZERO_COPY;
}

static void m_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct fring_entry e = {0};

	for (fring_ino_t i = I_MEM; i < I_LAST && parent == FRING_ROOT_INO;
	     i++) {
		if (strcmp(name, names[i]))
			continue;
		e.ino = i;
		chk_stat_fill(&e.attr, i, 0, FILE_SIZE);
		e.attr_timeout = e.entry_timeout = 60;
		fring_reply_entry(req, &e);
		return;
	}
	fring_reply_err(req, ENOENT);
}

static void m_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct stat st;

	(void)fi;
	if (ino != FRING_ROOT_INO && (ino < I_MEM || ino >= I_LAST))
		return (void)fring_reply_err(req, ENOENT);
	chk_stat_fill(&st, ino, ino == FRING_ROOT_INO, FILE_SIZE);
	fring_reply_attr(req, &st, 60);
}

/* sizes never change; a SETATTR (times) reports them */
static void m_setattr(fring_req_t *req, fring_ino_t ino, struct stat *attr,
		      int to_set, struct fring_file *fi)
{
	(void)attr, (void)to_set;
	m_getattr(req, ino, fi);
}

static void m_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	fi->fh = ino;
	fi->zero_copy = ino == I_ASK;
	fi->no_zero_copy = ino == I_NOZC;
	fring_reply_open(req, fi);
}

static void m_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst)
{
	(void)fi;
	if (!mem_handlers(ino)) {
		if (dst->kind == FRING_BUF_FIXED)
			atomic_fetch_add(&fixed_in, 1);
		fring_read_from_fd(req, backing[ino], off, size);
		return;
	}
	/* what a libfuse port does: fill the buffer, answer its bytes */
	if (dst->kind != FRING_BUF_MEM || !dst->mem || dst->size < size) {
		atomic_fetch_add(&no_mem, 1);
		fring_reply_err(req, EIO);
		return;
	}
	if ((size_t)off >= FILE_SIZE)
		size = 0;
	else if (size > FILE_SIZE - (size_t)off)
		size = FILE_SIZE - (size_t)off;
	pthread_mutex_lock(&store_lock);
	memcpy(dst->mem, store[ino] + off, size);
	pthread_mutex_unlock(&store_lock);
	fring_reply_data(req, size);
}

static void m_write(fring_req_t *req, fring_ino_t ino,
		    const struct fring_buf *src, off_t off,
		    struct fring_file *fi)
{
	(void)fi;
	if (!mem_handlers(ino)) {
		if (src->kind == FRING_BUF_FIXED)
			atomic_fetch_add(&fixed_in, 1);
		fring_write_to_fd(req, backing[ino], off);
		return;
	}
	if (src->kind != FRING_BUF_MEM || !src->mem) {
		atomic_fetch_add(&no_mem, 1);
		fring_reply_err(req, EIO);
		return;
	}
	if (off < 0 || (size_t)off > FILE_SIZE ||
	    src->size > FILE_SIZE - (size_t)off)
		return (void)fring_reply_err(req, EFBIG);
	pthread_mutex_lock(&store_lock);
	memcpy(store[ino] + off, src->mem, src->size);
	pthread_mutex_unlock(&store_lock);
	fring_reply_write(req, src->size);
}

static void m_fsync(fring_req_t *req, fring_ino_t ino, int datasync,
		    struct fring_file *fi)
{
	(void)ino, (void)datasync, (void)fi;
	fring_reply_err(req, 0);
}

static const struct fring_ops ops = {
	.init = m_init,
	.lookup = m_lookup,
	.getattr = m_getattr,
	.setattr = m_setattr,
	.open = m_open,
	.read = m_read,
	.write = m_write,
	.fsync = m_fsync,
};

/* ---------------- the client ---------------- */

static fring_session_t *se;
static char mnt[] = "/tmp/fring-memdata.XXXXXX";
static bool zc; /* the session runs on zerocopy */

static const char *path_of(fring_ino_t ino)
{
	static char p[4][128];
	static unsigned n;
	char *s = p[n++ % 4];

	snprintf(s, 128, "%s/%s", mnt, names[ino]);
	return s;
}

/* mnt is a FUSE mount in /proc/mounts (the last line for it wins) */
static bool is_fuse_mount(void)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[256], dir[256], type[64];
	bool fuse = false;

	if (!f)
		return false;
	while (fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(dir, mnt))
			fuse = !strncmp(type, "fuse", 4);
	fclose(f);
	return fuse;
}

static struct fring_stats stats_now(void)
{
	struct fring_stats st;

	fring_session_stats(se, FRING_STATS_ALL, &st);
	return st;
}

static void fill(unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = chk_pat(seed, i);
}

/* len bytes at 0 in CHUNK pieces; 0 or -errno (-EIO for a short one) */
static int chunked_io(int fd, unsigned char *buf, size_t len, bool wr)
{
	for (size_t done = 0; done < len; done += CHUNK) {
		ssize_t n = wr ? pwrite(fd, buf + done, CHUNK, (off_t)done)
			       : pread(fd, buf + done, CHUNK, (off_t)done);

		if (n < 0)
			return -errno;
		if (n != CHUNK)
			return -EIO;
	}
	return 0;
}

/* Writes the file with seed, reads it back, compares; oflags O_DIRECT or
 * 0 (buffered: fsync, then the cached pages dropped before reading). */
static void rw_once(const char *what, fring_ino_t ino, int oflags,
		    unsigned seed, unsigned char *w, unsigned char *r)
{
	int fd, ret;

	fill(w, FILE_SIZE, seed);
	memset(r, 0, FILE_SIZE);
	fd = open(path_of(ino), O_RDWR | oflags);
	if (!CHECK_SYS(chk_name("%s_open", what), fd))
		return;
	ret = chunked_io(fd, w, FILE_SIZE, true);
	T(ret == 0, chk_name("%s_write", what), "write: %s", chk_errname(-ret));
	CHECK_SYS(chk_name("%s_fsync", what), fsync(fd));
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	fd = open(path_of(ino), O_RDONLY | oflags);
	if (!CHECK_SYS(chk_name("%s_reopen", what), fd))
		return;
	ret = chunked_io(fd, r, FILE_SIZE, false);
	T(ret == 0, chk_name("%s_read", what), "read: %s", chk_errname(-ret));
	close(fd);
	chk_mem(chk_name("%s_data", what), r, w, FILE_SIZE);
}

/*
 * One file through O_DIRECT and buffered I/O; want_zc: its open must be
 * zero-copied on zerocopy (never elsewhere).
 */
static void file_io(const char *phase, fring_ino_t ino, bool want_zc,
		    unsigned seed)
{
	unsigned char *w, *r;
	struct fring_stats a, b;
	unsigned bad0 = atomic_load(&no_mem);
	uint64_t req, rd, wr;
	bool expect = want_zc && zc;

	if (posix_memalign((void **)&w, 4096, FILE_SIZE) ||
	    posix_memalign((void **)&r, 4096, FILE_SIZE))
		return;
	a = stats_now();
	rw_once(chk_name("%s_%s_direct", phase, names[ino]), ino, O_DIRECT,
		seed, w, r);
	rw_once(chk_name("%s_%s_buffered", phase, names[ino]), ino, 0, seed + 1,
		w, r);
	b = stats_now();
	req = b.zero_copy_requests - a.zero_copy_requests;
	rd = b.zero_copy_reads - a.zero_copy_reads;
	wr = b.zero_copy_writes - a.zero_copy_writes;
	chk_note("%s %s: zero_copy_requests %llu (reads %llu, writes %llu)",
		 phase, names[ino], (unsigned long long)req,
		 (unsigned long long)rd, (unsigned long long)wr);
	if (expect)
		T(rd > 0 && wr > 0,
		  chk_name("%s_%s_zero_copied", phase, names[ino]),
		  "expected zero-copied READs and WRITEs, got %llu and %llu",
		  (unsigned long long)rd, (unsigned long long)wr);
	else
		T(req == 0,
		  chk_name("%s_%s_not_zero_copied", phase, names[ino]),
		  "expected none got %llu zero-copied requests",
		  (unsigned long long)req);
	if (mem_handlers(ino))
		T(atomic_load(&no_mem) == bad0,
		  chk_name("%s_%s_handlers_got_memory", phase, names[ino]),
		  "%u requests reached a memory handler without memory",
		  atomic_load(&no_mem) - bad0);
	free(w);
	free(r);
}

static void *runner(void *arg)
{
	return (void *)(long)fring_session_run(arg);
}

/* Mounts a session; false (checks failed) when it could not. */
static const char *want_rung; /* auto must end on it (NULL: any) */
/* "splice" (dev): -o splice_read, which leaves a WRITE's payload in a pipe
 * only for a filesystem that declared it takes every kind of buffer */
static bool splice_opt;

static bool mount_phase(const char *phase, const char *transport, bool declared,
			bool opt_in, pthread_t *th)
{
	fring_config_t *cfg = fring_config_new();
	const char *got;
	int ret;

	declare = declared;
	fring_config_set(cfg, "transport", transport);
	if (splice_opt) {
		/* a pipe holds the largest request (fs.pipe-max-size: 1 MiB) */
		fring_config_set(cfg, "splice_read", NULL);
		fring_config_set(cfg, "max_write", "524288");
	}
	if (opt_in)
		fring_config_set(cfg, "zero_copy_opt_in", NULL);
	ret = fring_session_new(&ops, sizeof(ops), NULL, cfg, &se);
	fring_config_free(cfg);
	if (!ret)
		ret = fring_session_mount(se, mnt);
	if (!T(ret == 0, chk_name("%s_mount", phase), "transport=%s: %s",
	       transport, chk_errname(-ret))) {
		fring_session_destroy(se);
		se = NULL;
		return false;
	}
	pthread_create(th, NULL, runner, se);
	/* the first request tells the rung (run() answers INIT) */
	CHECK_SYS(chk_name("%s_root_stat", phase), access(mnt, F_OK));
	got = fring_transport_name(fring_session_transport(se));
	if (strcmp(transport, "auto") || want_rung)
		T(!strcmp(got, want_rung ? want_rung : transport),
		  chk_name("%s_transport", phase), "expected %s got %s (%s)",
		  want_rung ? want_rung : transport, got,
		  fring_session_transport_reason(se));
	zc = !strcmp(got, "zerocopy");
	chk_note("%s: transport %s", phase, fring_session_transport_reason(se));
	T(fring_session_conn(se)->fs_flags ==
		  (declared ? FRING_FS_ZERO_COPY : 0u),
	  chk_name("%s_fs_flags", phase), "fs_flags %#x",
	  fring_session_conn(se)->fs_flags);
	/* large writes only into the mount under test */
	return T(is_fuse_mount(), chk_name("%s_is_fuse_mount", phase),
		 "%s is not a FUSE mount in /proc/mounts", mnt);
}

static void end_phase(pthread_t th)
{
	fring_session_exit(se);
	pthread_join(th, NULL);
	fring_session_destroy(se);
	se = NULL;
}

int main(int argc, char *argv[])
{
	const char *transport = argc > 1 ? argv[1] : "auto";
	unsigned fixed0;
	pthread_t th;

	chk_init();
	if (!strcmp(transport, "auto") && argc > 2)
		want_rung = argv[2];
	if (!strcmp(transport, "dev") && argc > 2 && !strcmp(argv[2], "splice"))
		splice_opt = true;
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount\n");
		return CHK_EXIT_SKIP;
	}
	if (!mkdtemp(mnt))
		return 1;
	for (int i = I_MEM; i < I_LAST; i++) {
		store[i] = calloc(1, FILE_SIZE);
		backing[i] = memfd_create(names[i], MFD_CLOEXEC);
		if (!store[i] || backing[i] < 0 ||
		    ftruncate(backing[i], FILE_SIZE))
			return 1;
	}

	/* plain: zero-copy only where an open asks */
	if (mount_phase("plain", transport, false, false, &th)) {
		file_io("plain", I_MEM, false, 1);
		file_io("plain", I_ASK, true, 3);
		fixed0 = atomic_load(&fixed_in);
		file_io("plain", I_HELPER, false, 5);
		T(atomic_load(&fixed_in) == fixed0, "plain_helper_got_memory",
		  "%u FIXED buffers", atomic_load(&fixed_in) - fixed0);
		if (splice_opt) {
			uint64_t spliced = 0;

			fring_session_counter(se, FRING_STATS_ALL,
					      "splice_read_requests", &spliced);
			T(spliced > 0, "plain_spliced",
			  "no request was read with splice");
		}
		end_phase(th);
	}
	/* with splice_read only the plain mount: a declared filesystem's
	 * write handlers take pipes whatever an open says */
	if (splice_opt)
		goto out;
	/* declared: every open unless it declines */
	if (mount_phase("declared", transport, true, false, &th)) {
		file_io("declared", I_HELPER, true, 7);
		file_io("declared", I_NOZC, false, 9);
		end_phase(th);
	}
	/* declared, but -o zero_copy_opt_in: only opens that ask */
	if (mount_phase("optin", transport, true, true, &th)) {
		file_io("optin", I_HELPER, false, 11);
		file_io("optin", I_ASK, true, 13);
		end_phase(th);
	}
out:
	rmdir(mnt);
	return chk_finish();
}
