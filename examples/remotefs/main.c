/* SPDX-License-Identifier: MIT */
/*
 * remotefs [options] SOURCE MOUNTPOINT: shows SOURCE read-only, as if its
 * file data were on a slow remote server. The command line, the callbacks
 * and the process setup.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remotefs.h"

struct rfs_fs {
	const char *source;
	const char *mountpoint; /* the last argument, as fring_main sees it */
	struct rfs_catalog cat;
	struct rfs_pool pool;
	unsigned workers;
};

/* The catalog never changes while mounted: let the kernel cache it. */
static const double cache_timeout = 3600.0;

static const char usage_text[] =
	"remotefs: SOURCE read-only at MOUNTPOINT, its file data read by\n"
	"worker threads with an added latency, as from a remote server\n"
	"    usage: remotefs [options] SOURCE MOUNTPOINT";

/* The -o options, parsed by fring_main_opts() (listed in --help). */
static const struct fring_opt rfs_opt_table[] = {
	{.name = "latency_ms",
	 .type = FRING_OPT_UINT,
	 .offset = offsetof(struct rfs_fs, pool.latency_ms),
	 .max = 100000,
	 .help = "delay of every read (default 2)"},
	{.name = "workers",
	 .type = FRING_OPT_UINT,
	 .offset = offsetof(struct rfs_fs, workers),
	 .min = 1,
	 .max = 100000,
	 .help = "threads serving reads (default 4)"},
	{.name = NULL},
};

/* SOURCE: opened and scanned here, so a bad one fails before mounting
 * (and a relative path survives the daemon's chdir("/")). */
static int rfs_arg(void *userdata, const char *arg)
{
	struct rfs_fs *fs = userdata;
	int err;

	if (fs->source) {
		fprintf(stderr,
			"remotefs: one SOURCE only (got '%s' and '%s')\n",
			fs->source, arg);
		return -EINVAL;
	}
	fs->pool.rootfd = open(arg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = fs->pool.rootfd < 0 ? -errno
				  : rfs_catalog_scan(&fs->cat, fs->pool.rootfd);
	if (err) {
		fprintf(stderr, "remotefs: SOURCE %s: %s\n", arg,
			strerror(-err));
		return err;
	}
	fs->source = arg;
	fs->pool.dev = fs->cat.nodes[0].st.st_dev;
	return 0;
}

/*
 * How many levels below SOURCE the mountpoint is (0: not below it, or it
 * is SOURCE itself), in any spelling of either path (symlinks, "..", a
 * bind mount of SOURCE): the source's (st_dev, st_ino) against those of
 * every ancestor of the mountpoint, walking ".." up through mounts.
 */
static unsigned levels_below_source(const struct rfs_fs *fs)
{
	const struct stat *src = &fs->cat.nodes[0].st;
	struct stat st, up;
	unsigned depth = 0, found = 0;
	int fd = open(fs->mountpoint, O_PATH | O_DIRECTORY | O_CLOEXEC);

	while (fd >= 0 && !found && fstat(fd, &st) == 0) {
		int parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (depth && st.st_dev == src->st_dev &&
		    st.st_ino == src->st_ino)
			found = depth;
		close(fd);
		fd = parent;
		if (fd < 0 || fstat(fd, &up) < 0 ||
		    (up.st_dev == st.st_dev && up.st_ino == st.st_ino))
			break; /* at the root, whose ".." is itself */
		depth++;
	}
	if (fd >= 0)
		close(fd);
	return found;
}

static int rfs_check(void *userdata)
{
	struct rfs_fs *fs = userdata;
	unsigned depth;

	if (!fs->source) {
		fprintf(stderr, "remotefs: no SOURCE given (remotefs [options] "
				"SOURCE MOUNTPOINT)\n");
		return -EINVAL;
	}
	fs->mountpoint = fring_main_info()->mountpoint;
	/* Reads never leave SOURCE's filesystem (workers.c), so this one
	 * could not hang; it is refused as passthrough refuses it, whose
	 * lookups would (doc/operations.md, "Hazards"). */
	depth = fs->mountpoint ? levels_below_source(fs) : 0;
	if (depth) {
		fprintf(stderr,
			"remotefs: MOUNTPOINT %s is inside SOURCE %s (%u "
			"level%s below it); choose a mountpoint outside the "
			"source (or the source itself)\n",
			fs->mountpoint, fs->source, depth,
			depth == 1 ? "" : "s");
		return -ELOOP;
	}
	return 0;
}

static void rfs_init(void *userdata, struct fring_conn *conn)
{
	struct rfs_fs *fs = userdata;
	int err = rfs_pool_start(&fs->pool, fs->workers);

	(void)conn;
	if (err)
		fring_log_msg(FRING_LOG_WARN,
			      "remotefs: no worker threads (%s): reads are "
			      "served on the queue threads",
			      strerror(-err));
}

static void rfs_destroy(void *userdata)
{
	rfs_pool_stop(&((struct rfs_fs *)userdata)->pool);
}

static void rfs_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct rfs_fs *fs = fring_req_userdata(req);
	const struct rfs_node *dir = rfs_node_get(&fs->cat, parent);
	const struct rfs_node *n = dir ? rfs_child(&fs->cat, dir, name) : NULL;
	struct fring_entry e = {
		.attr_timeout = cache_timeout,
		.entry_timeout = cache_timeout,
	};

	if (!n) /* ino 0: the kernel caches the absence too */
		return (void)fring_reply_entry(req, &e);
	e.ino = rfs_node_ino(&fs->cat, n);
	e.attr = n->st;
	fring_reply_entry(req, &e);
}

static void rfs_getattr(fring_req_t *req, fring_ino_t ino,
			struct fring_file *fi)
{
	struct rfs_fs *fs = fring_req_userdata(req);
	const struct rfs_node *n = rfs_node_get(&fs->cat, ino);

	(void)fi;
	if (!n)
		return (void)fring_reply_err(req, ENOENT);
	fring_reply_attr(req, &n->st, cache_timeout);
}

/* ".", "..", then the children; the cookie after the k-th entry is k + 1. */
static void rfs_readdir(fring_req_t *req, fring_ino_t ino, size_t size,
			off_t off, struct fring_file *fi,
			const struct fring_buf *dst)
{
	struct rfs_fs *fs = fring_req_userdata(req);
	const struct rfs_node *dir = rfs_node_get(&fs->cat, ino);
	uint32_t child;
	size_t used = 0;

	(void)fi;
	if (!dir || !S_ISDIR(dir->st.st_mode))
		return (void)fring_reply_err(req, ENOTDIR);
	child = dir->first_child;
	for (off_t k = 0; k < 2 || child; k++) {
		const struct rfs_node *n =
			k ? &fs->cat.nodes[dir->parent] : dir;
		const char *name = k ? ".." : ".";
		size_t len;

		if (k >= 2) {
			n = &fs->cat.nodes[child];
			name = n->name;
			child = n->next_sibling;
		}
		if (k < off)
			continue;
		len = fring_add_direntry(req, (char *)dst->mem + used,
					 size - used, name, &n->st, k + 1);
		if (len > size - used)
			break;
		used += len;
	}
	fring_reply_data(req, used);
}

static void rfs_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	(void)ino;
	/* The mount is "ro", so the kernel refuses writes itself; this is
	 * for a mount made without it. */
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return (void)fring_reply_err(req, EROFS);
	fi->keep_cache = 1; /* the data never changes */
	fring_reply_open(req, fi);
}

/* The asynchronous part: hand the request to a worker and return. */
static void rfs_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		     struct fring_file *fi, const struct fring_buf *dst)
{
	struct rfs_fs *fs = fring_req_userdata(req);
	const struct rfs_node *n = rfs_node_get(&fs->cat, ino);
	struct rfs_job *job;

	(void)fi, (void)dst; /* the worker answers with its own buffer */
	if (!n || !S_ISREG(n->st.st_mode))
		return (void)fring_reply_err(req, EISDIR);
	job = malloc(sizeof(*job));
	if (!job)
		return (void)fring_reply_err(req, ENOMEM);
	*job = (struct rfs_job){
		.req = req, .path = n->path, .off = off, .size = size};
	/* Before another thread sees req: from here the library waits for
	 * the answer instead of answering EIO when this handler returns. */
	fring_req_async(req);
	rfs_pool_submit(&fs->pool, job);
}

static const struct fring_ops rfs_ops = {
	.init = rfs_init,
	.destroy = rfs_destroy,
	.lookup = rfs_lookup,
	.getattr = rfs_getattr,
	.readdir = rfs_readdir,
	.open = rfs_open,
	.read = rfs_read,
};

int main(int argc, char *argv[])
{
	static struct rfs_fs fs = {
		.pool = {.rootfd = -1, .latency_ms = 2},
		.workers = 4,
	};
	const struct fring_main_hooks hooks = {
		.usage = usage_text,
		.arg = rfs_arg,
		.check = rfs_check,
		/* the kernel answers EROFS to every change, before asking */
		.default_opts = "ro,fsname=remotefs",
	};
	int status;

	status = fring_main_opts(argc, argv, &rfs_ops, sizeof(rfs_ops), &fs,
				 &hooks, rfs_opt_table, &fs);

	rfs_catalog_free(&fs.cat);
	if (fs.pool.rootfd >= 0)
		close(fs.pool.rootfd);
	return status;
}
