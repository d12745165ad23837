/* SPDX-License-Identifier: MIT */
/*
 * The command line of a libfuse low-level program: fuse_parse_cmdline()
 * (the 3.12 structure and the older, shorter one), the help and version
 * texts, fuse_version() and fuse_pkgversion().
 *
 * fuse_parse_cmdline() takes what is the program's and the loop's (-h,
 * -V, -f, -s, -o clone_fd, -o max_idle_threads, -o max_threads and the
 * mountpoint) out of args and leaves the rest (-d / -o debug kept, since
 * the session reads it too) for fuse_session_new().
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

#undef fuse_parse_cmdline

/* "name=N" into *val: 1 taken, 0 another option, -1 a bad number. */
static int uint_opt(const char *arg, const char *name, unsigned *val)
{
	size_t n = strlen(name);
	unsigned long v;
	char *end;

	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	errno = 0;
	v = strtoul(arg + n + 1, &end, 10);
	if (errno || *end || end == arg + n + 1 || v > UINT_MAX) {
		fc_log(FUSE_LOG_ERR, "fuse: invalid value in `-o %s'\n", arg);
		return -1;
	}
	*val = (unsigned)v;
	return 1;
}

/* The first non-option is the mountpoint, made absolute (the daemon
 * changes to / later); a second one is an error. "/dev/fd/N" (a mount
 * made by a privileged helper, passed as its descriptor) is kept as it
 * is, as libfuse does: fuse_session_mount() serves that descriptor. */
static int mountpoint_arg(struct fuse_cmdline_opts *o, const char *arg)
{
	char abs[PATH_MAX];

	if (o->mountpoint) {
		fc_log(FUSE_LOG_ERR, "fuse: invalid argument `%s'\n", arg);
		return -1;
	}
	if (fc_is_dev_fd(arg))
		return (o->mountpoint = strdup(arg)) ? 0 : -1;
	if (!realpath(arg, abs)) {
		fc_log(FUSE_LOG_ERR, "fuse: bad mount point `%s': %s\n", arg,
		       strerror(errno));
		return -1;
	}
	o->mountpoint = strdup(abs);
	if (!o->mountpoint) {
		fc_log(FUSE_LOG_ERR, "fuse: out of memory\n");
		return -1;
	}
	return 0;
}

/* 0: consumed; 1: left in args; -1: an error. */
static int cmdline_proc(void *data, const char *arg, int key,
			struct fuse_args *outargs)
{
	struct fuse_cmdline_opts *o = data;
	int r;

	(void)outargs;
	if (key == FUSE_OPT_KEY_NONOPT)
		return mountpoint_arg(o, arg);
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		o->show_help = 1;
		return 0;
	}
	if (!strcmp(arg, "-V") || !strcmp(arg, "--version")) {
		o->show_version = 1;
		return 0;
	}
	if (!strcmp(arg, "-f")) {
		o->foreground = 1;
		return 0;
	}
	if (!strcmp(arg, "-s")) {
		o->singlethread = 1;
		return 0;
	}
	/* debug implies the foreground; the session logs with it too */
	if (!strcmp(arg, "-d") || !strcmp(arg, "debug")) {
		o->debug = 1;
		o->foreground = 1;
		return 1;
	}
	/* a name of the program's own: no default subtype then */
	if (!strncmp(arg, "fsname=", 7) || !strncmp(arg, "subtype=", 8)) {
		o->nodefault_subtype = 1;
		return 1;
	}
	if (!strcmp(arg, "clone_fd")) {
		o->clone_fd = 1;
		return 0;
	}
	if ((r = uint_opt(arg, "max_idle_threads", &o->max_idle_threads)) ||
	    (r = uint_opt(arg, "max_threads", &o->max_threads)))
		return r < 0 ? -1 : 0;
	return 1;
}

/* -o subtype=<program name>, so /proc/mounts shows fuse.<name>. */
static int default_subtype(struct fuse_args *args)
{
	const char *prog = args->argv[0], *slash = strrchr(prog, '/');
	char *opt;
	int ret;

	if (slash && slash[1])
		prog = slash + 1;
	opt = malloc(strlen(prog) + sizeof("-osubtype="));
	if (!opt) {
		fc_log(FUSE_LOG_ERR, "fuse: out of memory\n");
		return -1;
	}
	strcpy(opt, "-osubtype=");
	strcat(opt, prog);
	ret = fuse_opt_add_arg(args, opt);
	free(opt);
	return ret;
}

int fuse_parse_cmdline_312(struct fuse_args *args,
			   struct fuse_cmdline_opts *opts);
int fuse_parse_cmdline_312(struct fuse_args *args,
			   struct fuse_cmdline_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->max_idle_threads = UINT_MAX;
	opts->max_threads = 10;
	if (fuse_opt_parse(args, opts, NULL, cmdline_proc) == -1)
		goto fail;
	if (!opts->nodefault_subtype && args->argc > 0 &&
	    default_subtype(args) == -1)
		goto fail;
	return 0;
fail:
	free(opts->mountpoint);
	opts->mountpoint = NULL;
	return -1;
}
FC_SYMVER(fuse_parse_cmdline_312, "fuse_parse_cmdline@@FUSE_3.12");

/* Before 3.12 the structure ended at max_idle_threads: only that much of
 * the caller's is written. */
int fuse_parse_cmdline_30(struct fuse_args *args,
			  struct fuse_cmdline_opts *opts);
int fuse_parse_cmdline_30(struct fuse_args *args,
			  struct fuse_cmdline_opts *opts)
{
	struct fuse_cmdline_opts full;
	int ret = fuse_parse_cmdline_312(args, &full);

	if (ret == 0)
		memcpy(opts, &full,
		       offsetof(struct fuse_cmdline_opts, max_threads));
	return ret;
}
FC_SYMVER(fuse_parse_cmdline_30, "fuse_parse_cmdline@FUSE_3.0");

/* ---------------- help and versions ---------------- */

void fuse_cmdline_help(void)
{
	printf("    -h   --help            show this help\n"
	       "    -V   --version         show the versions\n"
	       "    -d   -o debug          log every request (stays in the "
	       "foreground)\n"
	       "    -f                     stay in the foreground\n"
	       "    -s                     one callback at a time\n"
	       "    -o clone_fd            accepted; libfring's dev transport "
	       "always has\n"
	       "                           a /dev/fuse descriptor per queue\n"
	       "    -o max_idle_threads=N  accepted, no effect (libfring's "
	       "queues have\n"
	       "                           fixed threads)\n"
	       "    -o max_threads=N       1: one callback at a time; other "
	       "values have\n"
	       "                           no effect\n");
}

void fuse_lowlevel_help(void)
{
	printf("    -o allow_other         let all users in\n"
	       "    -o allow_root          let root in as well as the owner\n"
	       "    -o auto_unmount        unmount when the process dies "
	       "(libfring's\n"
	       "                           auto_unmount)\n"
	       "    -o io_uring            FUSE-over-io_uring where the "
	       "kernel offers it and\n"
	       "                           init keeps FUSE_CAP_OVER_IO_URING, "
	       "/dev/fuse\n"
	       "                           otherwise (libfring's "
	       "transport=auto); without\n"
	       "                           it /dev/fuse (transport=dev)\n"
	       "    -o io_uring_q_depth=N  ring entries per queue "
	       "(queue_depth=N)\n");
	fring_config_help(stdout);
}

void fuse_lowlevel_version(void)
{
	printf("libfring %s serves the libfuse %d.%d low-level API; the "
	       "FUSE kernel interface is negotiated when mounting\n",
	       fring_version(), FUSE_MAJOR_VERSION, FUSE_MINOR_VERSION);
}

int fuse_version(void)
{
	return FUSE_VERSION;
}

const char *fuse_pkgversion(void)
{
	return "3.18.3 (libfring-fuse3)";
}
