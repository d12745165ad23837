/* SPDX-License-Identifier: MIT */
/*
 * fring_main(): the command line shared by every example, signals,
 * daemonizing and the --stats-file dump. Only this file installs signal
 * handlers; the session functions never touch process-wide state.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fring_int.h"

static fring_session_t *volatile signal_session;

static void on_signal(int sig)
{
	(void)sig;
	if (signal_session)
		fring_session_exit(signal_session);
}

static void set_signals(fring_session_t *se)
{
	struct sigaction sa = {.sa_handler = on_signal};

	signal_session = se;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocked read must see EINTR and notice the exit */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void clear_signals(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal_session = NULL;
}

static void usage(const char *prog, const struct fring_main_hooks *hooks,
		  FILE *out)
{
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
		"exit and on SIGUSR1\n\n",
		prog, hooks && hooks->usage ? "... " : "");
	fring_config_help(out);
	if (hooks && hooks->usage)
		fprintf(out, "\n%s\n", hooks->usage);
}

struct main_args {
	bool foreground;
	const char *mountpoint;
	const char *stats_file;
};

static int apply_opts(fring_config_t *cfg, const char *opts, void *ud,
		      const struct fring_main_hooks *hooks)
{
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
		if (ret == -ENOENT && hooks && hooks->opt)
			ret = hooks->opt(ud, tok, eq);
		if (ret == -ENOENT)
			fprintf(stderr, "fring: unknown option '%s'\n", tok);
	}
	free(copy);
	return ret;
}

/* Returns 0 to go on, 1 for a bad command line, 2 for --help/--version. */
static int parse_args(int argc, char *argv[], fring_config_t *cfg,
		      struct main_args *a, void *ud,
		      const struct fring_main_hooks *hooks)
{
	const char *last = NULL;
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!options_done && arg[0] == '-' && arg[1]) {
			if (!strcmp(arg, "--")) {
				options_done = true;
			} else if (!strcmp(arg, "-h") ||
				   !strcmp(arg, "--help")) {
				usage(argv[0], hooks, stdout);
				return 2;
			} else if (!strcmp(arg, "-V") ||
				   !strcmp(arg, "--version")) {
				printf("libfring %s\n", fring_version());
				return 2;
			} else if (!strcmp(arg, "-f")) {
				a->foreground = true;
			} else if (!strcmp(arg, "-d")) {
				a->foreground = true;
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
				if (apply_opts(cfg, o, ud, hooks))
					return 1;
			} else if (!strncmp(arg, "--stats-file=", 13) &&
				   arg[13]) {
				a->stats_file = arg + 13;
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
			if (hooks->arg(ud, last))
				return 1;
		}
		last = arg;
	}
	if (!last) {
		fprintf(stderr, "fring: no mountpoint given (see --help)\n");
		return 1;
	}
	a->mountpoint = last;
	return 0;
}

static int daemonize(void)
{
	pid_t pid = fork();
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

/* Written aside and renamed, so a reader never sees half a file. */
static void write_stats_file(fring_session_t *se, const char *path)
{
	char tmp[PATH_MAX];
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fr_err("--stats-file %s: %s", tmp, strerror(errno));
		return;
	}
	if (fring_session_write_stats(se, fd))
		fr_err("--stats-file %s: write failed", path);
	close(fd);
	if (rename(tmp, path))
		fr_err("--stats-file %s: %s", path, strerror(errno));
}

/*
 * SIGUSR1 writes the statistics file while the filesystem runs, so a test
 * (or an operator) can see what the last operations did. JSON needs malloc,
 * which a signal handler may not call: SIGUSR1 stays blocked in every
 * thread and this one takes it with sigwait().
 */
struct stats_dumper {
	fring_session_t *se;
	const char *path;
	pthread_t th;
	atomic_bool stop;
	bool running;
};

static void *stats_dumper_main(void *arg)
{
	struct stats_dumper *d = arg;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	while (!sigwait(&set, &sig) && !atomic_load(&d->stop))
		write_stats_file(d->se, d->path);
	return NULL;
}

static void stats_dumper_start(struct stats_dumper *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	d->running = !pthread_create(&d->th, NULL, stats_dumper_main, d);
}

static void stats_dumper_stop(struct stats_dumper *d)
{
	if (!d->running)
		return;
	atomic_store(&d->stop, true);
	pthread_kill(d->th, SIGUSR1);
	pthread_join(d->th, NULL);
}

int fring_main_ext(int argc, char *argv[], const struct fring_ops *ops,
		   size_t ops_size, void *userdata,
		   const struct fring_main_hooks *hooks)
{
	struct main_args a = {0};
	struct stats_dumper dumper = {0};
	char stats_abs[PATH_MAX];
	fring_config_t *cfg = fring_config_new();
	fring_session_t *se = NULL;
	int ret, status = 1;

	if (!cfg)
		return 1;
	/* The examples' security default: the kernel checks permissions
	 * unless -o no_default_permissions says otherwise. */
	fring_config_set(cfg, "default_permissions", NULL);
	ret = hooks && hooks->default_opts
		      ? apply_opts(cfg, hooks->default_opts, userdata, hooks)
		      : 0;
	if (!ret)
		ret = parse_args(argc, argv, cfg, &a, userdata, hooks);
	if (!ret && hooks && hooks->check && hooks->check(userdata))
		ret = 1;
	if (ret) {
		fring_config_free(cfg);
		return ret == 2 ? 0 : 1;
	}
	if (a.stats_file && a.stats_file[0] != '/') {
		/* daemonizing changes directory: keep the path usable */
		char cwd[PATH_MAX];

		if (getcwd(cwd, sizeof(cwd)) &&
		    (size_t)snprintf(stats_abs, sizeof(stats_abs), "%s/%s", cwd,
				     a.stats_file) < sizeof(stats_abs))
			a.stats_file = stats_abs;
	}
	ret = fring_session_new(ops, ops_size, userdata, cfg, &se);
	fring_config_free(cfg);
	if (ret) {
		fprintf(stderr, "fring: cannot create a session: %s\n",
			strerror(-ret));
		return 1;
	}
	ret = fring_session_mount(se, a.mountpoint);
	if (ret)
		goto out;
	if (!a.foreground && (ret = daemonize()) != 0) {
		fr_err("cannot daemonize: %s", strerror(-ret));
		goto out;
	}
	set_signals(se);
	if (a.stats_file) {
		dumper.se = se;
		dumper.path = a.stats_file;
		stats_dumper_start(&dumper);
	}
	if (hooks && hooks->ready)
		hooks->ready(userdata, se);
	ret = fring_session_run(se);
	stats_dumper_stop(&dumper);
	clear_signals();
	if (ret)
		fr_err("session ended with an error: %s", strerror(-ret));
	if (a.stats_file)
		write_stats_file(se, a.stats_file);
	status = ret ? 1 : 0;
out:
	fring_session_destroy(se);
	return status;
}

int fring_main(int argc, char *argv[], const struct fring_ops *ops,
	       size_t ops_size, void *userdata)
{
	return fring_main_ext(argc, argv, ops, ops_size, userdata, NULL);
}
