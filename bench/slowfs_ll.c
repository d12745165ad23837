/* SPDX-License-Identifier: MIT */
/*
 * slowfs_ll [options] MOUNTPOINT: bench/slowfs.c's filesystem
 * (bench/slowfs_ns.h) on libfuse 3.18's low-level API, written the way a
 * libfuse filesystem is ordinarily written: each LOOKUP, GETATTR and READ
 * handler calls its backend and blocks until the answer is there, here a
 * sleep of latency_us (default 1000), then replies. How many calls wait at
 * once is then how many threads libfuse runs handlers on: one per ring
 * with -o io_uring, up to max_threads (10 by default) in the classic
 * multi-threaded loop.
 *
 * The loop is fuse_session_loop_mt() with the configuration the command
 * line gives (libfuse's defaults unless -o max_threads= or the like), or
 * fuse_session_loop() with -s. -o io_uring asks libfuse for its io_uring
 * transport (the kernel must have enable_uring=Y).
 *
 * Built by bench/slow.sh against the libfuse bench/build-libfuse.sh builds
 * (never by the project's meson: libfring does not depend on libfuse).
 */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 18)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <fuse_lowlevel.h>

#include "slowfs_ns.h"

struct slowfs_ll {
	unsigned latency_us;
};

/* The backend call: this thread waits for it. */
static void backend_wait(fuse_req_t req)
{
	const struct slowfs_ll *fs = fuse_req_userdata(req);
	struct timespec d = {fs->latency_us / 1000000,
			     (long)(fs->latency_us % 1000000) * 1000};

	while (nanosleep(&d, &d) < 0 && errno == EINTR)
		;
}

static void sl_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* as slowfs: concurrent lookups in one directory */
	fuse_set_feature_flag(conn, FUSE_CAP_PARALLEL_DIROPS);
}

static void sl_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	uint64_t ino = ns_lookup(parent, name);

	memset(&e, 0, sizeof(e));
	e.attr_timeout = SLOW_TIMEOUT;
	e.entry_timeout = SLOW_TIMEOUT;
	backend_wait(req);
	/* ino 0 is a negative entry, cached as long */
	if (ino && ns_stat(ino, &e.attr) == 0)
		e.ino = ino;
	fuse_reply_entry(req, &e);
}

static void sl_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	backend_wait(req);
	if (ns_stat(ino, &st))
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, SLOW_TIMEOUT);
}

static void sl_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (!ns_is_data(ino)) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EROFS);
		return;
	}
	/* as slowfs: O_DIRECT reads each a synchronous READ */
	if (fi->flags & O_DIRECT)
		fi->direct_io = 1;
	else
		fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

static void sl_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	char *buf = malloc(size ? size : 1);
	size_t n;

	(void)fi;
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	backend_wait(req);
	n = ns_fill(ino, off, buf, size);
	fuse_reply_buf(req, buf, n);
	free(buf);
}

/* The same listing as slowfs: ".", "..", then ns_dirent()'s entries, the
 * cookie after entry k (counting "." as 0) being k + 1. */
static void sl_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	char *buf;
	size_t used = 0;

	(void)fi;
	if (ino != SLOW_ROOT_INO && ino != SLOW_STATDIR_INO) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	buf = malloc(size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (uint64_t k = (uint64_t)off;; k++) {
		struct stat st;
		char name[32];
		uint64_t child = ino;
		size_t len;

		if (k < 2)
			snprintf(name, sizeof(name), k ? ".." : ".");
		else if (ns_dirent(ino, k - 2, name, &child))
			break;
		memset(&st, 0, sizeof(st));
		st.st_ino = (ino_t)child;
		st.st_mode = child == SLOW_ROOT_INO || child == SLOW_STATDIR_INO
				     ? S_IFDIR
				     : S_IFREG;
		len = fuse_add_direntry(req, buf + used, size - used, name, &st,
					(off_t)(k + 1));
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static const struct fuse_lowlevel_ops sl_ops = {
	.init = sl_init,
	.lookup = sl_lookup,
	.getattr = sl_getattr,
	.open = sl_open,
	.read = sl_read,
	.readdir = sl_readdir,
};

static const struct fuse_opt sl_opts[] = {
	{"latency_us=%u", offsetof(struct slowfs_ll, latency_us), 0},
	FUSE_OPT_END,
};

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct slowfs_ll fs = {.latency_us = 1000};
	struct fuse_cmdline_opts opts;
	struct fuse_session *se;
	int ret = 1;

	/* the same backend time as slowfs: no timer slack on the sleeps
	 * (threads made later inherit it) */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (fuse_parse_cmdline(&args, &opts) != 0)
		return 1;
	if (opts.show_help || opts.show_version || !opts.mountpoint) {
		if (!opts.mountpoint && !opts.show_help && !opts.show_version)
			fprintf(stderr, "usage: %s [options] MOUNTPOINT\n",
				argv[0]);
		printf("slowfs_ll [options] MOUNTPOINT\n"
		       "    -o latency_us=N   the backend's time per lookup, "
		       "getattr and read (default 1000)\n");
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = opts.mountpoint || opts.show_help || opts.show_version
			      ? 0
			      : 1;
		goto out_args;
	}
	if (fuse_opt_parse(&args, &fs, sl_opts, NULL) == -1)
		goto out_args;
	se = fuse_session_new(&args, &sl_ops, sizeof(sl_ops), &fs);
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
		struct fuse_loop_config *cfg = fuse_loop_cfg_create();

		fuse_loop_cfg_set_clone_fd(cfg, (unsigned)opts.clone_fd);
		fuse_loop_cfg_set_idle_threads(cfg, opts.max_idle_threads);
		fuse_loop_cfg_set_max_threads(cfg, opts.max_threads);
		ret = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
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
