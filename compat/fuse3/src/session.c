/* SPDX-License-Identifier: MIT */
/*
 * The session: fuse_session_new() (the 3.17 versioned form and the 3.0
 * one older programs call), mount, the loops, exit, unmount, destroy.
 *
 * One fring_session per fuse_session, made in fuse_session_new() with
 * the options mapped (sessopt.c) and the bridges (lowlevel.c). The loops
 * all run fring_session_run(): libfring serves with its own queues and
 * threads. fuse_session_loop() (libfuse's single thread) and loop_mt with
 * max_threads 1 keep their promise of one callback at a time by
 * serializing the callbacks; the clone_fd and idle-thread settings have no
 * counterpart (libfring's dev transport has an fd per queue anyway).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"

/* fuse_session_new is a macro of the 3.17 headers; this file defines the
 * function of that name that older programs link to. */
#undef fuse_session_new

static void session_free(struct fuse_session *se)
{
	fc_stats_fd_write(se);
	if (se->fs)
		fring_session_destroy(se->fs);
	fc_signals_forget(se);
	fc_intr_destroy(&se->intr);
	pthread_mutex_destroy(&se->serial);
	free(se->mountpoint);
	free(se);
}

struct fuse_session *
fuse_session_new_versioned(struct fuse_args *args,
			   const struct fuse_lowlevel_ops *op, size_t op_size,
			   struct libfuse_version *version, void *userdata)
{
	struct fuse_session *se;
	fring_config_t *cfg;
	int ret;

	if (!op || !op_size) {
		fc_log(FUSE_LOG_ERR, "fuse: fuse_session_new() without "
				     "operations\n");
		return NULL;
	}
	if (!version) {
		fc_log(FUSE_LOG_ERR, "fuse: fuse_session_new() without the "
				     "program's libfuse version\n");
		return NULL;
	}
	if (!args || args->argc == 0) {
		fc_log(FUSE_LOG_ERR,
		       "fuse: fuse_session_new() with an empty argv\n");
		return NULL;
	}
	if (op_size > sizeof(struct fuse_lowlevel_ops)) {
		fc_log(FUSE_LOG_WARNING,
		       "fuse: the program knows operations this library does "
		       "not (built for a newer libfuse): they stay unused\n");
		op_size = sizeof(struct fuse_lowlevel_ops);
	}
	se = calloc(1, sizeof(*se));
	if (!se) {
		fc_log(FUSE_LOG_ERR, "fuse: out of memory\n");
		return NULL;
	}
	memcpy(&se->op, op, op_size);
	se->userdata = userdata;
	se->version = *version;
	se->owner = getuid();
	se->fd = -1;
	se->stats_fd = -1;
	atomic_init(&se->exited, false);
	atomic_init(&se->exit_signal, 0);
	if (fc_intr_init(&se->intr)) {
		free(se);
		fc_log(FUSE_LOG_ERR, "fuse: out of memory\n");
		return NULL;
	}
	pthread_mutex_init(&se->serial, NULL);
	fc_buf_layout(version);

	cfg = fring_config_new();
	if (!cfg) {
		fc_log(FUSE_LOG_ERR, "fuse: out of memory\n");
		goto fail;
	}
	if (fc_session_opts(se, args, cfg)) {
		fring_config_free(cfg);
		goto fail;
	}
	fc_ops_build(se);
	ret = fring_session_new(&se->fops, sizeof(se->fops), se, cfg, &se->fs);
	fring_config_free(cfg);
	if (ret) {
		fc_log(FUSE_LOG_ERR, "fuse: cannot create the session: %s\n",
		       strerror(-ret));
		se->fs = NULL;
		goto fail;
	}
	fring_session_set_retrieve_reply(se->fs, fc_retrieve_bridge(se));
	if (se->debug)
		fc_log(FUSE_LOG_DEBUG,
		       "FUSE library version: %s (libfring %s)\n",
		       fuse_pkgversion(), fring_version());
	return se;
fail:
	session_free(se);
	return NULL;
}

/*
 * The FUSE_3.0 entry of programs built against a libfuse before 3.17: no
 * version passed (0.0 marks the older structure layouts), and a NULL
 * table allowed (a session used only to mount).
 */
struct fuse_session *fuse_session_new(struct fuse_args *args,
				      const struct fuse_lowlevel_ops *op,
				      size_t op_size, void *userdata);
struct fuse_session *fuse_session_new(struct fuse_args *args,
				      const struct fuse_lowlevel_ops *op,
				      size_t op_size, void *userdata)
{
	static const struct fuse_lowlevel_ops none;
	struct libfuse_version unknown = {0};

	if (!op) {
		op = &none;
		op_size = sizeof(none);
	}
	return fuse_session_new_versioned(args, op, op_size, &unknown,
					  userdata);
}

/* ---------------- mount ---------------- */

int fuse_session_mount(struct fuse_session *se, const char *mountpoint)
{
	int ret;

	if (!se || !mountpoint) {
		fc_log(FUSE_LOG_ERR, "fuse: no mount point given\n");
		return -1;
	}
	if (se->mountpoint) {
		fc_log(FUSE_LOG_ERR, "fuse: the session is mounted already\n");
		return -1;
	}
	/* libfring says why on failure (missing mountpoint, a dead mount,
	 * a transport= this machine cannot give, a /dev/fd/N that is no
	 * /dev/fuse descriptor, ...). "/dev/fd/N" is a descriptor that a
	 * mount helper (mount.fuse3 -o drop_privileges) opened, mounted and
	 * handed down: libfring serves it instead of mounting. */
	ret = fring_session_mount(se->fs, mountpoint);
	if (ret) {
		fc_log(FUSE_LOG_ERR, "fuse: cannot mount on %s: %s\n",
		       mountpoint, strerror(-ret));
		return -1;
	}
	se->mountpoint = strdup(mountpoint);
	/* for a helper's /dev/fd/N it is N itself, as libfuse answers */
	se->fd = fring_session_fd(se->fs);
	return 0;
}

/*
 * mount.fuse3's half of -o drop_privileges: mount with its privilege, then
 * hand the descriptor to the filesystem it starts as /dev/fd/N (which
 * fuse_session_mount() adopts). The options are fuse_session_new()'s
 * mount options, mapped the same way (sessopt.c).
 */
/* Declared by libfuse's fuse.h (which stops with #error here). */
int fuse_open_channel(const char *mountpoint, const char *options);
int fuse_open_channel(const char *mountpoint, const char *options)
{
	char *argv[] = {"", "-o", (char *)options, NULL};
	struct fuse_args args =
		FUSE_ARGS_INIT(options && *options ? 3 : 1, argv);
	struct fuse_session *se = calloc(1, sizeof(*se));
	fring_config_t *cfg = fring_config_new();
	int fd = -1;

	if (!se || !cfg) {
		fc_log(FUSE_LOG_ERR, "fuse: out of memory\n");
	} else if (!mountpoint) {
		fc_log(FUSE_LOG_ERR, "fuse: no mount point given\n");
	} else if (fc_mount_opts(se, &args, cfg) == 0) {
		fd = fring_mount_fd(mountpoint, cfg);
		if (fd < 0) {
			fc_log(FUSE_LOG_ERR, "fuse: cannot mount on %s: %s\n",
			       mountpoint, strerror(-fd));
			fd = -1;
		}
	}
	fuse_opt_free_args(&args);
	fring_config_free(cfg);
	free(se);
	return fd;
}

bool fc_is_dev_fd(const char *path)
{
	const char *p = path;

	if (strncmp(p, "/dev/fd/", 8) || !p[8])
		return false;
	for (p += 8; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

int fuse_session_fd(struct fuse_session *se)
{
	return se ? se->fd : -1;
}

/* ---------------- the loops ---------------- */

int fc_serve(struct fuse_session *se, bool serialize)
{
	int ret, sig;

	if (!se)
		return -EINVAL;
	/* a signal before serving: libfuse's loop ends at once too */
	if (!atomic_load(&se->exited)) {
		/* read by the queue threads, which run() starts after this */
		se->serialize = serialize;
		ret = fring_session_run(se->fs);
	} else {
		ret = 0;
	}
	sig = atomic_load(&se->exit_signal);
	if (sig)
		return sig;
	if (ret)
		fc_log(FUSE_LOG_ERR,
		       "fuse: the session ended with an error: "
		       "%s\n",
		       strerror(-ret));
	return ret;
}

int fuse_session_loop(struct fuse_session *se)
{
	return fc_serve(se, true);
}

/* 3.12: the opaque configuration; max_threads 1 means one at a time */
int fuse_session_loop_mt_312(struct fuse_session *se,
			     struct fuse_loop_config *config);
int fuse_session_loop_mt_312(struct fuse_session *se,
			     struct fuse_loop_config *config)
{
	return fc_serve(se, config && config->max_threads == 1);
}
FC_SYMVER(fuse_session_loop_mt_312, "fuse_session_loop_mt@@FUSE_3.12");

/* 3.2 to 3.11: the public { clone_fd, max_idle_threads } */
int fuse_session_loop_mt_32(struct fuse_session *se,
			    struct fuse_loop_config_v1 *config);
int fuse_session_loop_mt_32(struct fuse_session *se,
			    struct fuse_loop_config_v1 *config)
{
	(void)config;
	return fc_serve(se, false);
}
FC_SYMVER(fuse_session_loop_mt_32, "fuse_session_loop_mt@FUSE_3.2");

/* 3.0 and 3.1: clone_fd alone */
int fuse_session_loop_mt_31(struct fuse_session *se, int clone_fd);
int fuse_session_loop_mt_31(struct fuse_session *se, int clone_fd)
{
	(void)clone_fd;
	return fc_serve(se, false);
}
FC_SYMVER(fuse_session_loop_mt_31, "fuse_session_loop_mt@FUSE_3.0");

/* ---------------- the end ---------------- */

/* Async-signal-safe: an atomic store and fring_session_exit(). */
void fuse_session_exit(struct fuse_session *se)
{
	if (!se)
		return;
	atomic_store(&se->exited, true);
	if (se->fs)
		fring_session_exit(se->fs);
}

/* From a signal handler: the loop then returns sig. */
void fc_session_signalled(struct fuse_session *se, int sig)
{
	atomic_store(&se->exit_signal, sig);
	fuse_session_exit(se);
}

int fuse_session_exited(struct fuse_session *se)
{
	if (!se)
		return 1;
	return atomic_load(&se->exited) ||
	       (se->fs && fring_session_exited(se->fs));
}

/*
 * Clears the exit request so that a loop may be entered again. libfring
 * serves a session once: a second loop after one that ran returns the
 * error fring_session_run() gives (-EBUSY).
 */
void fuse_session_reset(struct fuse_session *se)
{
	if (!se)
		return;
	atomic_store(&se->exited, false);
	atomic_store(&se->exit_signal, 0);
}

void fuse_session_unmount(struct fuse_session *se)
{
	int ret;

	if (!se || !se->fs || !se->mountpoint)
		return;
	/* a helper's /dev/fd/N mount is the helper's: libfring leaves it
	 * (and says nothing); the descriptor goes with the session */
	ret = fring_session_unmount(se->fs);
	if (ret)
		fc_log(FUSE_LOG_ERR, "fuse: cannot unmount %s: %s\n",
		       se->mountpoint, strerror(-ret));
	se->fd = -1;
}

void fuse_session_destroy(struct fuse_session *se)
{
	if (se)
		session_free(se);
}
