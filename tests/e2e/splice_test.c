/* SPDX-License-Identifier: MIT */
/*
 * splice_test: the handler side of -o splice_read,splice_write on dev, in
 * one process. One file backed by a memfd; its write handler takes turns:
 *  - fring_write_to_fd() at once: the payload goes pipe to memfd (spliced);
 *  - fring_req_async() and fring_write_to_fd() from another thread after the
 *    handler returned: the queue thread must have read the payload out of
 *    the pipe into memory meanwhile (src becomes FRING_BUF_MEM);
 *  - an error answer without touching the payload: the next request must
 *    not read it as its own.
 * READs are answered from another thread with fring_read_from_fd() (that
 * thread's own pipes). The client writes and reads back 64 KiB blocks with
 * O_DIRECT, byte for byte; the counters must show both splice directions.
 * Exit 0 pass, 1 fail, 77 skip (not root, no mount, or NOT OFFERED when the
 * kernel does not offer FUSE_SPLICE_*).
 */
#include <errno.h>
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
#include "srv.h"

#define T(cond, name, ...) chk_result(!!(cond), (name), __VA_ARGS__)

enum { INO_FILE = 2 };
#define BLOCK	    (64 * 1024)
#define BLOCKS	    24
#define REFUSED_OFF ((off_t)BLOCKS * BLOCK) /* writes here get ENOSPC */

static int backing = -1;
static atomic_int writes, pipe_seen, mem_after_async, refused;
static atomic_ullong offered;

static void s_init(void *userdata, struct fring_conn *c)
{
	(void)userdata;
	atomic_store(&offered, c->capable);
	/* the write handler takes pipes (fring_write_to_fd()): without this
	 * splice_read would read every payload into memory first */
	c->fs_flags |= FRING_FS_ZERO_COPY;
}

static void st_fill(fring_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = ino == FRING_ROOT_INO ? S_IFDIR | 0755 : S_IFREG | 0644;
	st->st_nlink = 1;
	if (ino == INO_FILE && fstat(backing, st) == 0) {
		st->st_ino = ino;
		st->st_mode = S_IFREG | 0644;
	}
}

static void s_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct fring_entry e = {0};

	if (parent != FRING_ROOT_INO || strcmp(name, "f"))
		return (void)fring_reply_err(req, ENOENT);
	e.ino = INO_FILE;
	st_fill(e.ino, &e.attr);
	fring_reply_entry(req, &e);
}

static void s_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct stat st;

	(void)fi;
	st_fill(ino, &st);
	fring_reply_attr(req, &st, 0);
}

static void s_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	(void)ino;
	fi->direct_io = 1;
	fring_reply_open(req, fi);
}

struct later {
	fring_req_t *req;
	const struct fring_buf *buf;
	off_t off;
	size_t size;
	bool is_write;
};

static void *answer_later(void *arg)
{
	struct later *l = arg;

	usleep(20000); /* the handler has returned, the queue moved on */
	if (l->is_write) {
		if (l->buf->kind == FRING_BUF_MEM && l->buf->mem)
			atomic_fetch_add(&mem_after_async, 1);
		fring_write_to_fd(l->req, backing, l->off);
	} else {
		fring_read_from_fd(l->req, backing, l->off, l->size);
	}
	free(l);
	return NULL;
}

static void later(fring_req_t *req, const struct fring_buf *buf, off_t off,
		  size_t size, bool is_write)
{
	struct later *l = malloc(sizeof(*l));
	pthread_t th;

	if (!l)
		return (void)fring_reply_err(req, ENOMEM);
	*l = (struct later){req, buf, off, size, is_write};
	fring_req_async(req);
	if (pthread_create(&th, NULL, answer_later, l)) {
		free(l);
		return (void)fring_reply_err(req, EAGAIN);
	}
	pthread_detach(th);
}

static void s_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst)
{
	(void)ino, (void)fi;
	later(req, dst, off, size, false);
}

static void s_write(fring_req_t *req, fring_ino_t ino,
		    const struct fring_buf *src, off_t off,
		    struct fring_file *fi)
{
	int n = atomic_fetch_add(&writes, 1);

	(void)ino, (void)fi;
	if (src->kind == FRING_BUF_PIPE)
		atomic_fetch_add(&pipe_seen, 1);
	if (off >= REFUSED_OFF) {
		atomic_fetch_add(&refused, 1);
		return (void)fring_reply_err(req, ENOSPC);
	}
	if (n % 2)
		later(req, src, off, src->size, true);
	else
		fring_write_to_fd(req, backing, off);
}

static const struct fring_ops ops = {
	.init = s_init,
	.lookup = s_lookup,
	.getattr = s_getattr,
	.open = s_open,
	.read = s_read,
	.write = s_write,
};

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 131 + seed * 7919 + (i >> 9)) &
				       0xff);
}

int main(void)
{
	char mnt[] = "/tmp/fring-splice.XXXXXX", path[96];
	unsigned char *wbuf, *rbuf;
	fring_config_t *cfg;
	fring_session_t *se;
	pthread_t th;
	int ret, fd;

	chk_init();
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount\n");
		return 77;
	}
	backing = memfd_create("splice_test", MFD_CLOEXEC);
	if (backing < 0 || !mkdtemp(mnt))
		return 1;
	cfg = fring_config_new();
	fring_config_parse(cfg, "transport=dev,splice_read,splice_write,"
				"max_write=262144");
	ret = fring_session_new(&ops, sizeof(ops), NULL, cfg, &se);
	fring_config_free(cfg);
	if (ret || fring_session_mount(se, mnt)) {
		printf("SKIP: cannot mount with transport=dev\n");
		rmdir(mnt);
		return 77;
	}
	pthread_create(&th, NULL, srv_run, se);

	snprintf(path, sizeof(path), "%s/f", mnt);
	fd = open(path, O_RDWR | O_DIRECT);
	T(fd >= 0, "open", "open %s: %s", path, strerror(errno));
	if ((atomic_load(&offered) &
	     (FRING_CAP_SPLICE_READ | FRING_CAP_SPLICE_WRITE)) !=
	    (FRING_CAP_SPLICE_READ | FRING_CAP_SPLICE_WRITE)) {
		printf("NOT OFFERED: the kernel's INIT offers no "
		       "FUSE_SPLICE_READ/WRITE\n");
		if (fd >= 0)
			close(fd);
		fring_session_exit(se);
		pthread_join(th, NULL);
		fring_session_destroy(se);
		rmdir(mnt);
		return 77;
	}
	wbuf = aligned_alloc(4096, BLOCK);
	rbuf = aligned_alloc(4096, BLOCK);
	for (unsigned b = 0; fd >= 0 && b < BLOCKS; b++) {
		ssize_t n;

		fill(wbuf, BLOCK, b);
		n = pwrite(fd, wbuf, BLOCK, (off_t)b * BLOCK);
		T(n == BLOCK, chk_name("write%u", b), "pwrite %zd: %s", n,
		  strerror(errno));
		/* a refused WRITE between two good ones */
		if (b % 4 == 1) {
			n = pwrite(fd, wbuf, BLOCK, REFUSED_OFF);
			T(n < 0 && errno == ENOSPC, chk_name("refused%u", b),
			  "expected ENOSPC got %zd (%s)", n, strerror(errno));
		}
	}
	for (unsigned b = 0; fd >= 0 && b < BLOCKS; b++) {
		ssize_t n = pread(fd, rbuf, BLOCK, (off_t)b * BLOCK);

		fill(wbuf, BLOCK, b);
		T(n == BLOCK && !memcmp(rbuf, wbuf, BLOCK),
		  chk_name("readback%u", b), "pread %zd, bytes %s", n,
		  n == BLOCK ? "differ" : "short");
	}
	if (fd >= 0)
		close(fd);
	T(atomic_load(&pipe_seen) > 0, "write_src_is_pipe", "%d of %d writes",
	  atomic_load(&pipe_seen), atomic_load(&writes));
	T(atomic_load(&mem_after_async) > 0, "async_write_sees_memory", "%d",
	  atomic_load(&mem_after_async));
	T(atomic_load(&refused) > 0, "refused_writes", "%d",
	  atomic_load(&refused));
	T(srv_counter(se, "splice_read_data_bytes") > 0,
	  "splice_read_data_bytes", "%llu",
	  (unsigned long long)srv_counter(se, "splice_read_data_bytes"));
	T(srv_counter(se, "splice_write_data_bytes") >=
		  (uint64_t)BLOCKS * BLOCK,
	  "splice_write_data_bytes", "%llu",
	  (unsigned long long)srv_counter(se, "splice_write_data_bytes"));
	srv_stop(se, th);
	rmdir(mnt);
	free(wbuf);
	free(rbuf);
	return chk_finish();
}
