/* SPDX-License-Identifier: MIT */
/*
 * fring_main(): the command line shared by every example, daemonizing, and
 * the order of things: signals taken first (signals.c), --stats-file
 * checked before anything is mounted (stats_file.c), the session made,
 * mounted, served, unmounted, the signals given back last. Only fring_main
 * touches process-wide state; the session functions never do.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "main_int.h"

/* What the program gave: its hooks and its option table. */
struct main_prog {
	const struct fring_main_hooks *hooks; /* may be NULL */
	const struct fring_opt *table;	      /* may be NULL */
	void *conf;			      /* the table's structure */
	void *userdata;
};

static void usage(const char *prog, const struct main_prog *p, FILE *out)
{
	const struct fring_main_hooks *hooks = p->hooks;
	const char *base = prog ? strrchr(prog, '/') : NULL;

	fprintf(out,
		"usage: %s [options] %sMOUNTPOINT\n\n"
		"    -h, --help             this text\n"
		"    -V, --version          libfring version\n"
		"    -f                     stay in the foreground\n"
		"    -d                     debug: log every request and "
		"answer "
		"(implies -f)\n"
		"    -s                     one queue\n"
		"    -o opt[,opt...]        options, below\n"
		"    --stats-file=PATH      write statistics as JSON at "
		"exit and on SIGUSR1\n"
		"                           (without it, SIGUSR1 logs "
		"them)\n\n",
		prog, hooks && hooks->usage ? "... " : "");
	fring_config_help(out);
	if (p->table && p->table->name) {
		fprintf(out, "\n%s options (-o opt[,opt...]):\n",
			base ? base + 1 : prog);
		fring_opt_help(p->table, out);
	}
	if (hooks && hooks->usage)
		fprintf(out, "\n%s\n", hooks->usage);
}

/*
 * The command line as read so far (fring_main_info()): written on the
 * main thread only, before the session's threads start and after they
 * end, so the threads read it without a lock.
 */
static struct fring_main_info main_info;
static const struct fring_main_info *main_info_now;

const struct fring_main_info *fring_main_info(void)
{
	return main_info_now;
}

struct main_args {
	bool foreground;
	const char *mountpoint;
	const char *stats_file;
};

static int apply_opts(fring_config_t *cfg, const char *opts,
		      const struct main_prog *p)
{
	const struct fring_main_hooks *hooks = p->hooks;
	char *copy = strdup(opts), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq)
			*eq++ = '\0';
		ret = fring_config_set(cfg, tok, eq);
		if (!ret && !strcmp(tok, "debug"))
			main_info.debug = 1;
		if (ret == -ENOENT && p->table)
			ret = fring_opt_set(p->table, p->conf, tok, eq);
		if (ret == -ENOENT && hooks && hooks->opt)
			ret = hooks->opt(p->userdata, tok, eq);
		if (ret == -ENOENT)
			fprintf(stderr, "fring: unknown option '%s'\n", tok);
	}
	free(copy);
	return ret;
}

/* Returns 0 to go on, 1 for a bad command line, 2 for --help/--version. */
static int parse_args(int argc, char *argv[], fring_config_t *cfg,
		      struct main_args *a, const struct main_prog *p)
{
	const struct fring_main_hooks *hooks = p->hooks;
	const char *last = NULL;
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!options_done && arg[0] == '-' && arg[1]) {
			if (!strcmp(arg, "--")) {
				options_done = true;
			} else if (!strcmp(arg, "-h") ||
				   !strcmp(arg, "--help")) {
				usage(argv[0], p, stdout);
				return 2;
			} else if (!strcmp(arg, "-V") ||
				   !strcmp(arg, "--version")) {
				printf("libfring %s\n", fring_version());
				return 2;
			} else if (!strcmp(arg, "-f")) {
				a->foreground = true;
				main_info.foreground = 1;
			} else if (!strcmp(arg, "-d")) {
				a->foreground = true;
				main_info.foreground = 1;
				main_info.debug = 1;
				fring_config_set(cfg, "debug", NULL);
			} else if (!strcmp(arg, "-s")) {
				fring_config_set(cfg, "queues", "1");
			} else if (!strncmp(arg, "-o", 2)) {
				const char *o = arg[2] ? arg + 2 : argv[++i];

				if (!o) {
					fprintf(stderr, "fring: -o needs a "
							"value\n");
					return 1;
				}
				if (apply_opts(cfg, o, p))
					return 1;
			} else if (!strncmp(arg, "--stats-file=", 13) &&
				   arg[13]) {
				a->stats_file = arg + 13;
				main_info.stats_file = a->stats_file;
			} else {
				fprintf(stderr, "fring: unknown option '%s'\n",
					arg);
				return 1;
			}
			continue;
		}
		if (last) {
			if (!hooks || !hooks->arg) {
				fprintf(stderr,
					"fring: unexpected argument '%s'\n",
					last);
				return 1;
			}
			if (hooks->arg(p->userdata, last))
				return 1;
		}
		last = arg;
	}
	if (!last) {
		fprintf(stderr, "fring: no mountpoint given (see --help)\n");
		return 1;
	}
	a->mountpoint = last;
	main_info.mountpoint = last;
	return 0;
}

static int daemonize(void)
{
	pid_t pid = signals_fork();
	int null;

	if (pid < 0)
		return -errno;
	if (pid > 0)
		_exit(0);
	setsid();
	if (chdir("/") < 0)
		return -errno;
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	return 0;
}

/* What SIGUSR1 does: the statistics, to the file or to the log. */
struct usr1_work {
	fring_session_t *se;
	const struct stats_file *sf; /* NULL: to the log */
};

static bool on_usr1(void *arg)
{
	struct usr1_work *w = arg;

	/* Until run() has built its queues they are not there to read (and
	 * may be freed again when a ring rung falls back): asked again a
	 * little later, or dropped if the session ends first (the file is
	 * written at exit anyway). */
	if (!atomic_load(&w->se->serving))
		return fring_session_exited(w->se);
	if (w->sf)
		stats_file_write(w->sf, w->se);
	else
		stats_log(w->se);
	return true;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	}
	return "a signal";
}

static int main_run(int argc, char *argv[], const struct fring_ops *ops,
		    size_t ops_size, const struct main_prog *p)
{
	const struct fring_main_hooks *hooks = p->hooks;
	void *userdata = p->userdata;
	struct main_args a = {0};
	struct stats_file sf = {.dirfd = -1};
	struct usr1_work work = {0};
	fring_config_t *cfg = fring_config_new();
	fring_session_t *se = NULL;
	int ret, status = 1;

	if (!cfg)
		return 1;
	/* The examples' security default: the kernel checks permissions
	 * unless -o no_default_permissions says otherwise. */
	fring_config_set(cfg, "default_permissions", NULL);
	ret = hooks && hooks->default_opts
		      ? apply_opts(cfg, hooks->default_opts, p)
		      : 0;
	if (!ret)
		ret = parse_args(argc, argv, cfg, &a, p);
	if (!ret && hooks && hooks->check && hooks->check(userdata))
		ret = 1;
	/* a stats file that cannot be written stops the daemon before it
	 * mounts, not with a message at exit */
	if (!ret && a.stats_file && stats_file_open(&sf, a.stats_file))
		ret = 1;
	if (ret) {
		fring_config_free(cfg);
		return ret == 2 ? 0 : 1;
	}
	ret = fring_session_new(ops, ops_size, userdata, cfg, &se);
	fring_config_free(cfg);
	if (ret) {
		fprintf(stderr, "fring: cannot create a session: %s\n",
			strerror(-ret));
		stats_file_close(&sf);
		return 1;
	}
	signals_attach(se);
	if (signals_ending()) {
		fr_info("%s before the mount: not mounting %s",
			signame(signals_ending()), a.mountpoint);
		status = 0;
		goto out;
	}
	ret = fring_session_mount(se, a.mountpoint);
	if (ret)
		goto out;
	if (!a.foreground && (ret = daemonize()) != 0) {
		fr_err("cannot daemonize: %s", strerror(-ret));
		goto out;
	}
	main_info.daemonized = !a.foreground;
	/* after the fork: a thread does not survive it */
	work.se = se;
	work.sf = a.stats_file ? &sf : NULL;
	ret = signals_start_usr1(on_usr1, &work);
	if (ret) {
		fr_err("cannot start the SIGUSR1 thread: %s", strerror(-ret));
		goto out;
	}
	if (hooks && hooks->ready)
		hooks->ready(userdata, se);
	ret = fring_session_run(se);
	signals_stop_usr1();
	if (signals_ending())
		fr_info("%s: unmounting %s", signame(signals_ending()),
			a.mountpoint);
	if (ret)
		fr_err("session ended with an error: %s", strerror(-ret));
	if (a.stats_file)
		stats_file_write(&sf, se);
	status = ret ? 1 : 0;
out:
	/* Signals stay caught until the mount is gone: one that came now
	 * with the default action would leave it dead. */
	signals_attach(NULL);
	fring_session_destroy(se);
	stats_file_close(&sf);
	return status;
}

int fring_main_opts(int argc, char *argv[], const struct fring_ops *ops,
		    size_t ops_size, void *userdata,
		    const struct fring_main_hooks *hooks,
		    const struct fring_opt *table, void *conf)
{
	struct main_prog p = {
		.hooks = hooks,
		.table = table,
		.conf = conf,
		.userdata = userdata,
	};
	int ret = signals_install(), status;

	if (ret) {
		fprintf(stderr, "fring: cannot take the signals: %s\n",
			ret == -EBUSY ? "another fring_main() runs in this "
					"process"
				      : strerror(-ret));
		return 1;
	}
	memset(&main_info, 0, sizeof(main_info));
	main_info.progname = argc > 0 ? argv[0] : NULL;
	main_info_now = &main_info;
	status = main_run(argc, argv, ops, ops_size, &p);
	main_info_now = NULL;
	signals_restore();
	return status;
}

int fring_main_ext(int argc, char *argv[], const struct fring_ops *ops,
		   size_t ops_size, void *userdata,
		   const struct fring_main_hooks *hooks)
{
	return fring_main_opts(argc, argv, ops, ops_size, userdata, hooks, NULL,
			       NULL);
}

int fring_main(int argc, char *argv[], const struct fring_ops *ops,
	       size_t ops_size, void *userdata)
{
	return fring_main_ext(argc, argv, ops, ops_size, userdata, NULL);
}
