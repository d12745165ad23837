/* SPDX-License-Identifier: MIT */
/*
 * smokefs: a small filesystem written against libfuse 3's low-level API
 * (the compat headers), started the way a libfuse program starts
 * (fuse_parse_cmdline, fuse_session_new, signal handlers, mount,
 * daemonize, loop). It serves one directory, the root:
 *
 * - "hello": fixed text, read with fuse_reply_buf();
 * - "counters": what this program saw, one "name value" per line (the
 *   test reads it to know which paths the data took);
 * - "sleepy": a read that is never answered by its handler: it registers
 *   an interrupt function (fuse_req_interrupt_func()) and returns; the
 *   answer (EINTR) comes from that function when the reader is killed;
 * - files the client creates: each kept in a memfd. Writes come through
 *   write_buf and land with fuse_buf_copy() into the fd (every other one
 *   in two steps: its first bytes into memory, the rest into the fd); reads
 *   answer fuse_reply_data() with an fd buffer (FUSE_BUF_IS_FD |
 *   FUSE_BUF_FD_SEEK), which libfring-fuse3 hands to fring_read_from_fd().
 *   The counters say whether write_buf got memory or another buffer.
 *
 * With SMOKEFS_SPLICE_READ set (not empty) in its environment, init asks for
 * FUSE_CAP_SPLICE_READ, libfuse's way of saying that write_buf takes
 * buffers that are not memory (libfring-fuse3 then hands it the pipe of
 * splice_read on dev, the client's pages on zerocopy).
 *
 * smoke.sh mounts it and checks what a client sees.
 */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 18)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create() */
#endif

#include <errno.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_NODES   64
#define HELLO_INO   2
#define COUNTER_INO 3
#define SLEEPY_INO  4
#define FIRST_FILE  5

static const char hello_text[] = "hello from smokefs\n";

struct node {
	char name[64]; /* "" once unlinked */
	int fd;	       /* memfd of a created file, -1 when free */
	uint64_t nlookup;
};

static struct {
	pthread_mutex_t lock;
	struct node nodes[MAX_NODES]; /* index = inode */
	atomic_ulong write_bufs, fd_reads, buf_reads, creates, unlinks, forgets,
		inits, sleeping, interrupts, wbuf_mem, wbuf_other;
	atomic_uint proto_minor;
} fs = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---------------- attributes ---------------- */

static size_t counters_text(char *buf, size_t size)
{
	return (size_t)snprintf(
		buf, size,
		"write_buf %lu\nfd_read %lu\nbuf_read %lu\ncreate %lu\n"
		"unlink %lu\nforget %lu\ninit %lu\nsleeping %lu\n"
		"interrupts %lu\nproto_minor %u\nwrite_buf_mem %lu\n"
		"write_buf_other %lu\n",
		atomic_load(&fs.write_bufs), atomic_load(&fs.fd_reads),
		atomic_load(&fs.buf_reads), atomic_load(&fs.creates),
		atomic_load(&fs.unlinks), atomic_load(&fs.forgets),
		atomic_load(&fs.inits), atomic_load(&fs.sleeping),
		atomic_load(&fs.interrupts), atomic_load(&fs.proto_minor),
		atomic_load(&fs.wbuf_mem), atomic_load(&fs.wbuf_other));
}

/* Under fs.lock. 0 or an errno. */
static int node_stat(fuse_ino_t ino, struct stat *st)
{
	char tmp[512];

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_nlink = 1;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (ino == HELLO_INO) {
		st->st_mode = S_IFREG | 0444;
		st->st_size = sizeof(hello_text) - 1;
	} else if (ino == COUNTER_INO) {
		st->st_mode = S_IFREG | 0444;
		st->st_size = (off_t)counters_text(tmp, sizeof(tmp));
	} else if (ino == SLEEPY_INO) {
		st->st_mode = S_IFREG | 0444;
		st->st_size = 4096;
	} else if (ino >= FIRST_FILE && ino < MAX_NODES &&
		   fs.nodes[ino].fd >= 0) {
		struct stat real;

		if (fstat(fs.nodes[ino].fd, &real) < 0)
			return errno;
		st->st_mode = S_IFREG | 0644;
		st->st_size = real.st_size;
		st->st_nlink = fs.nodes[ino].name[0] ? 1 : 0;
	} else {
		return ENOENT;
	}
	return 0;
}

static void reply_entry(fuse_req_t req, fuse_ino_t ino)
{
	struct fuse_entry_param e;
	int err;

	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.attr_timeout = 1.0;
	e.entry_timeout = 1.0;
	pthread_mutex_lock(&fs.lock);
	err = node_stat(ino, &e.attr);
	if (!err && ino >= FIRST_FILE)
		fs.nodes[ino].nlookup++;
	pthread_mutex_unlock(&fs.lock);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_entry(req, &e);
}

/* ---------------- operations ---------------- */

static void sm_init(void *userdata, struct fuse_conn_info *conn)
{
	const char *sr;

	(void)userdata;
	atomic_fetch_add(&fs.inits, 1);
	atomic_store(&fs.proto_minor, conn->proto_minor);
	/* the counters file changes size: no page cache for it */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	sr = getenv("SMOKEFS_SPLICE_READ");
	if (sr && *sr)
		fuse_set_feature_flag(conn, FUSE_CAP_SPLICE_READ);
}

static void sm_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_ino_t found = 0;

	if (parent != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (!strcmp(name, "hello"))
		found = HELLO_INO;
	else if (!strcmp(name, "counters"))
		found = COUNTER_INO;
	else if (!strcmp(name, "sleepy"))
		found = SLEEPY_INO;
	pthread_mutex_lock(&fs.lock);
	for (fuse_ino_t i = FIRST_FILE; !found && i < MAX_NODES; i++)
		if (fs.nodes[i].fd >= 0 && !strcmp(fs.nodes[i].name, name))
			found = i;
	pthread_mutex_unlock(&fs.lock);
	if (!found)
		fuse_reply_err(req, ENOENT);
	else
		reply_entry(req, found);
}

static void forget_one(fuse_ino_t ino, uint64_t nlookup)
{
	struct node *n;

	atomic_fetch_add(&fs.forgets, 1);
	if (ino < FIRST_FILE || ino >= MAX_NODES)
		return;
	pthread_mutex_lock(&fs.lock);
	n = &fs.nodes[ino];
	n->nlookup -= nlookup < n->nlookup ? nlookup : n->nlookup;
	/* unlinked and forgotten: the data goes */
	if (!n->nlookup && !n->name[0] && n->fd >= 0) {
		close(n->fd);
		n->fd = -1;
	}
	pthread_mutex_unlock(&fs.lock);
}

static void sm_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(ino, nlookup);
	fuse_reply_none(req);
}

static void sm_forget_multi(fuse_req_t req, size_t count,
			    struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		forget_one(forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void sm_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat st;
	int err;

	(void)fi;
	pthread_mutex_lock(&fs.lock);
	err = node_stat(ino, &st);
	pthread_mutex_unlock(&fs.lock);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_attr(req, &st, 0.0);
}

/* Only truncation is kept (open with O_TRUNC comes as a size change);
 * other changes are accepted and forgotten. */
static void sm_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct stat st;
	int err = 0;

	(void)fi;
	pthread_mutex_lock(&fs.lock);
	if (to_set & FUSE_SET_ATTR_SIZE) {
		if (ino < FIRST_FILE || ino >= MAX_NODES ||
		    fs.nodes[ino].fd < 0)
			err = EACCES;
		else if (ftruncate(fs.nodes[ino].fd, attr->st_size) < 0)
			err = errno;
	}
	if (!err)
		err = node_stat(ino, &st);
	pthread_mutex_unlock(&fs.lock);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_attr(req, &st, 0.0);
}

static void sm_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	fuse_ino_t ino = 0;
	int err = 0;

	(void)mode;
	if (parent != FUSE_ROOT_ID ||
	    strlen(name) >= sizeof(fs.nodes[0].name)) {
		fuse_reply_err(req,
			       parent != FUSE_ROOT_ID ? ENOENT : ENAMETOOLONG);
		return;
	}
	pthread_mutex_lock(&fs.lock);
	for (fuse_ino_t i = FIRST_FILE; i < MAX_NODES; i++) {
		if (fs.nodes[i].fd >= 0 && !strcmp(fs.nodes[i].name, name))
			err = EEXIST;
		else if (!ino && fs.nodes[i].fd < 0)
			ino = i;
	}
	if (!err && !ino)
		err = ENOSPC;
	if (!err) {
		int fd = memfd_create(name, MFD_CLOEXEC);

		if (fd < 0) {
			err = errno;
		} else {
			fs.nodes[ino].fd = fd;
			fs.nodes[ino].nlookup = 0;
			strcpy(fs.nodes[ino].name, name);
		}
	}
	pthread_mutex_unlock(&fs.lock);
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	atomic_fetch_add(&fs.creates, 1);
	{
		struct fuse_entry_param e;

		memset(&e, 0, sizeof(e));
		e.ino = ino;
		e.attr_timeout = 1.0;
		e.entry_timeout = 1.0;
		pthread_mutex_lock(&fs.lock);
		node_stat(ino, &e.attr);
		fs.nodes[ino].nlookup++;
		pthread_mutex_unlock(&fs.lock);
		fi->fh = ino;
		fuse_reply_create(req, &e, fi);
	}
}

static void sm_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int err = ENOENT;

	if (parent == FUSE_ROOT_ID &&
	    (!strcmp(name, "hello") || !strcmp(name, "counters") ||
	     !strcmp(name, "sleepy"))) {
		fuse_reply_err(req, EPERM);
		return;
	}
	pthread_mutex_lock(&fs.lock);
	for (fuse_ino_t i = FIRST_FILE; parent == FUSE_ROOT_ID && i < MAX_NODES;
	     i++) {
		if (fs.nodes[i].fd >= 0 && !strcmp(fs.nodes[i].name, name)) {
			fs.nodes[i].name[0] = '\0';
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&fs.lock);
	if (!err)
		atomic_fetch_add(&fs.unlinks, 1);
	fuse_reply_err(req, err);
}

static void sm_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if ((ino == HELLO_INO || ino == COUNTER_INO || ino == SLEEPY_INO) &&
	    (fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EACCES);
		return;
	}
	/* the counters change behind the page cache's back; each read of
	 * sleepy must reach the handler */
	if (ino == COUNTER_INO || ino == SLEEPY_INO)
		fi->direct_io = 1;
	fi->fh = ino;
	fuse_reply_open(req, fi);
}

/* Memory the program owns, answered as a slice. */
static void read_from_memory(fuse_req_t req, const char *data, size_t len,
			     size_t size, off_t off)
{
	atomic_fetch_add(&fs.buf_reads, 1);
	if ((size_t)off >= len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, data + off,
			       len - (size_t)off < size ? len - (size_t)off
							: size);
}

/* The reader was killed: the answer the read handler left open. */
static void sleepy_interrupted(fuse_req_t req, void *data)
{
	(void)data;
	atomic_fetch_add(&fs.interrupts, 1);
	atomic_fetch_sub(&fs.sleeping, 1);
	fuse_reply_err(req, EINTR);
}

static void sm_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(size);
	char text[512];
	int fd;

	(void)fi;
	if (ino == HELLO_INO) {
		read_from_memory(req, hello_text, sizeof(hello_text) - 1, size,
				 off);
		return;
	}
	if (ino == COUNTER_INO) {
		size_t len = counters_text(text, sizeof(text));

		read_from_memory(req, text, len, size, off);
		return;
	}
	if (ino == SLEEPY_INO) {
		/* returns unanswered: libfuse allows it, the answer comes
		 * from the interrupt function on another thread */
		atomic_fetch_add(&fs.sleeping, 1);
		fuse_req_interrupt_func(req, sleepy_interrupted, NULL);
		return;
	}
	pthread_mutex_lock(&fs.lock);
	fd = ino < MAX_NODES ? fs.nodes[ino].fd : -1;
	pthread_mutex_unlock(&fs.lock);
	if (fd < 0) {
		fuse_reply_err(req, EBADF);
		return;
	}
	/* the library reads the fd (fring_read_from_fd()) */
	atomic_fetch_add(&fs.fd_reads, 1);
	bv.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	bv.buf[0].fd = fd;
	bv.buf[0].pos = off;
	fuse_reply_data(req, &bv, FUSE_BUF_SPLICE_MOVE);
}

static void sm_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in,
			 off_t off, struct fuse_file_info *fi)
{
	struct fuse_bufvec out = FUSE_BUFVEC_INIT(fuse_buf_size(in));
	char head[1000];
	ssize_t n, first = 0;
	int fd;

	(void)fi;
	pthread_mutex_lock(&fs.lock);
	fd = ino >= FIRST_FILE && ino < MAX_NODES ? fs.nodes[ino].fd : -1;
	pthread_mutex_unlock(&fs.lock);
	if (fd < 0) {
		fuse_reply_err(req, EBADF);
		return;
	}
	if (in->buf[0].flags & FUSE_BUF_IS_FD)
		atomic_fetch_add(&fs.wbuf_other, 1);
	else
		atomic_fetch_add(&fs.wbuf_mem, 1);
	if (atomic_fetch_add(&fs.write_bufs, 1) % 2 &&
	    fuse_buf_size(in) > sizeof(head)) {
		/* the first bytes through memory: the source's position
		 * moves on, and the rest comes from there */
		struct fuse_bufvec hv = FUSE_BUFVEC_INIT(sizeof(head));

		hv.buf[0].mem = head;
		first = fuse_buf_copy(&hv, in, 0);
		if (first < 0 ||
		    pwrite(fd, head, (size_t)first, off) != first) {
			fuse_reply_err(req, first < 0 ? (int)-first : EIO);
			return;
		}
		out.buf[0].size -= (size_t)first;
	}
	out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	out.buf[0].fd = fd;
	out.buf[0].pos = off + first;
	n = fuse_buf_copy(&out, in, FUSE_BUF_SPLICE_MOVE);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)(n + first));
}

/* The listing: ".", "..", hello, counters, then the files. */
static void sm_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	char *buf;
	size_t used = 0;
	off_t next = 0;
	struct stat st;

	(void)fi;
	if (ino != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	memset(&st, 0, sizeof(st));
	pthread_mutex_lock(&fs.lock);
	for (fuse_ino_t i = 0; i < MAX_NODES; i++) {
		const char *name = NULL;

		if (i == 0)
			name = ".";
		else if (i == 1)
			name = "..";
		else if (i == HELLO_INO)
			name = "hello";
		else if (i == COUNTER_INO)
			name = "counters";
		else if (i == SLEEPY_INO)
			name = "sleepy";
		else if (fs.nodes[i].fd >= 0 && fs.nodes[i].name[0])
			name = fs.nodes[i].name;
		if (!name)
			continue;
		/* the cookie of an entry is its index + 1 */
		next = (off_t)i + 1;
		if (next <= off)
			continue;
		st.st_ino = i < 2 ? FUSE_ROOT_ID : i;
		st.st_mode = i < 2 ? S_IFDIR : S_IFREG;
		size_t len = fuse_add_direntry(req, buf + used, size - used,
					       name, &st, next);
		if (len > size - used)
			break;
		used += len;
	}
	pthread_mutex_unlock(&fs.lock);
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static const struct fuse_lowlevel_ops ops = {
	.init = sm_init,
	.lookup = sm_lookup,
	.forget = sm_forget,
	.forget_multi = sm_forget_multi,
	.getattr = sm_getattr,
	.setattr = sm_setattr,
	.create = sm_create,
	.unlink = sm_unlink,
	.open = sm_open,
	.read = sm_read,
	.write_buf = sm_write_buf,
	.readdir = sm_readdir,
};

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts;
	struct fuse_loop_config *config;
	struct fuse_session *se;
	int ret = 1;

	for (int i = 0; i < MAX_NODES; i++)
		fs.nodes[i].fd = -1;
	if (fuse_parse_cmdline(&args, &opts) != 0)
		return 1;
	if (opts.show_help) {
		printf("usage: %s [options] <mountpoint>\n\n", argv[0]);
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = 0;
		goto out_args;
	}
	if (opts.show_version) {
		printf("FUSE library version %s\n", fuse_pkgversion());
		fuse_lowlevel_version();
		ret = 0;
		goto out_args;
	}
	if (!opts.mountpoint) {
		fprintf(stderr, "usage: %s [options] <mountpoint>\n", argv[0]);
		goto out_args;
	}
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (!se)
		goto out_args;
	if (fuse_set_signal_handlers(se) != 0)
		goto out_session;
	if (fuse_session_mount(se, opts.mountpoint) != 0)
		goto out_signals;
	fuse_daemonize(opts.foreground);
	if (opts.singlethread) {
		ret = fuse_session_loop(se);
	} else {
		config = fuse_loop_cfg_create();
		fuse_loop_cfg_set_clone_fd(config, (unsigned)opts.clone_fd);
		fuse_loop_cfg_set_max_threads(config, opts.max_threads);
		ret = fuse_session_loop_mt(se, config);
		fuse_loop_cfg_destroy(config);
	}
	/* a loop ended by SIGTERM returns the signal: a clean end */
	if (ret == SIGTERM || ret == SIGINT || ret == SIGHUP)
		ret = 0;
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
out_args:
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret ? 1 : 0;
}
