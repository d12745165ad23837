/* SPDX-License-Identifier: MIT */
/*
 * fuse_session_new()'s options: libfuse's session and mount options,
 * mapped onto libfring's (fring_config_set()); libfring's own (transport=,
 * queues=, queue_depth=, max_write=, ...) are taken as well. An option
 * neither knows stays in args, and fuse_session_new() then fails naming
 * it, as libfuse does. Mount options libfring cannot pass to the kernel
 * fail with a message saying so rather than being dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

struct opt_state {
	struct fuse_session *se;
	fring_config_t *cfg;
};

/* Accepted with no effect: libfring's mounts already are so (exec, async,
 * nodev and nosuid unless -o dev / -o suid), or they concern the mtab
 * that libfuse's fusermount keeps. */
static const char *const no_effect[] = {
	"exec", "async", "nodev", "nosuid", "symfollow", "nonempty", "user",
};

/* Mount options libfring has no way to give the kernel. */
static const char *const not_offered[] = {
	"blkdev",      "blksize",     "context",    "fscontext",
	"defcontext",  "rootcontext", "noexec",	    "sync",
	"dirsync",     "noatime",     "nodiratime", "nostrictatime",
	"nosymfollow",
};

static bool in(const char *const *list, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], key))
			return true;
	return false;
}

#define IN(list, key) in(list, sizeof(list) / sizeof(list[0]), key)

/* One libfring option; 0 taken, 1 unknown (kept), -1 a bad value. */
static int fring_opt(struct opt_state *st, const char *key, const char *val)
{
	int ret = fring_config_set(st->cfg, key, val);

	if (ret == -ENOENT)
		return 1;
	return ret ? -1 : 0;
}

/* key is "name" or "name=value" (a copy the caller owns). */
static int one_opt(struct opt_state *st, char *key)
{
	struct fuse_session *se = st->se;
	char *val = strchr(key, '=');

	if (val)
		*val++ = '\0';
	if (!strcmp(key, "debug")) {
		se->debug = true;
		return fring_opt(st, "debug", NULL);
	}
	/* the kernel lets everyone in; lowlevel.c turns others away */
	if (!strcmp(key, "allow_root") && !val) {
		se->deny_others = true;
		return fring_opt(st, "allow_other", NULL);
	}
	/* libfuse's io_uring is a wish, not a demand: it serves on /dev/fuse
	 * when the kernel has no ring or the filesystem turns it down in
	 * init. libfring's auto does the same (and takes the 7.46 rungs
	 * where there are some); transport=uring would fail INIT instead. */
	if (!strcmp(key, "io_uring") && !val)
		return fring_opt(st, "transport", "auto");
	if (!strcmp(key, "io_uring_q_depth") && val)
		return fring_opt(st, "queue_depth", val);
	if (!strcmp(key, "stats_fd"))
		return fc_stats_fd_opt(se, val);
	if (IN(no_effect, key))
		return 0;
	if (IN(not_offered, key)) {
		/* native gap: libfring passes no other mount flags */
		fc_log(FUSE_LOG_ERR,
		       "fuse: mount option `%s' is not supported by libfring\n",
		       key);
		return -1;
	}
	return fring_opt(st, key, val);
}

static int session_opt_proc(void *data, const char *arg, int key,
			    struct fuse_args *outargs)
{
	struct opt_state *st = data;
	char *copy;
	int ret;

	(void)outargs;
	if (key == FUSE_OPT_KEY_NONOPT)
		return 1;
	if (!strcmp(arg, "-d") || !strcmp(arg, "--debug"))
		arg = "debug";
	else if (!strcmp(arg, "-r"))
		arg = "ro";
	else if (!strcmp(arg, "-n"))
		return 0; /* (no mtab entry: there is none to write) */
	else if (arg[0] == '-')
		return 1;
	copy = strdup(arg);
	if (!copy) {
		fc_log(FUSE_LOG_ERR, "fuse: out of memory\n");
		return -1;
	}
	/* 1 (unknown): left in args, named by fc_session_opts() */
	ret = one_opt(st, copy);
	free(copy);
	return ret;
}

/*
 * The transport follows libfuse's default: /dev/fuse, unless io_uring is
 * asked for (-o io_uring, or FUSE_URING_ENABLE=1 in the environment, which
 * libfuse's test suites use). Asked for, it is libfring's transport=auto:
 * like libfuse, a ring where the kernel has one and the filesystem's init
 * keeps FUSE_CAP_OVER_IO_URING (conn.c), /dev/fuse otherwise. libfring's
 * own -o transport=NAME still picks a rung outright. Options on the
 * command line come after the environment and win.
 */
static int env_opts(struct opt_state *st)
{
	const char *on = getenv("FUSE_URING_ENABLE");
	const char *depth = getenv("FUSE_URING_QUEUE_DEPTH");
	bool uring = on && atoi(on) > 0;

	if (fring_opt(st, "transport", uring ? "auto" : "dev"))
		return -1;
	if (depth && *depth && fring_opt(st, "queue_depth", depth))
		return -1;
	return 0;
}

/* The options libfuse's mount code reads (fuse_open_channel()): the same
 * mapping; options for the session or the program are the daemon's, and
 * are left in args without a word, as libfuse leaves them. */
int fc_mount_opts(struct fuse_session *se, struct fuse_args *args,
		  fring_config_t *cfg)
{
	struct opt_state st = {.se = se, .cfg = cfg};

	return fuse_opt_parse(args, &st, NULL, session_opt_proc) == -1 ? -1 : 0;
}

int fc_session_opts(struct fuse_session *se, struct fuse_args *args,
		    fring_config_t *cfg)
{
	struct opt_state st = {.se = se, .cfg = cfg};

	if (env_opts(&st))
		return -1;
	if (fc_mount_opts(se, args, cfg))
		return -1;
	if (args->argc == 1 && args->argv[0][0] == '-') {
		fc_log(FUSE_LOG_WARNING, "fuse: warning: argv[0] looks like an "
					 "option, but will be ignored\n");
	} else if (args->argc > 1) {
		fc_log(FUSE_LOG_ERR, "fuse: unknown option(s): `");
		for (int i = 1; i < args->argc; i++)
			fc_log(FUSE_LOG_ERR, "%s%s", args->argv[i],
			       i + 1 < args->argc ? " " : "'\n");
		return -1;
	}
	return 0;
}
