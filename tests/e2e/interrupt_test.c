/* SPDX-License-Identifier: MIT */
/*
 * interrupt_test TRANSPORT: a server whose READ handler never answers by
 * itself. A client reading the file is signalled; the kernel sends
 * INTERRUPT (through /dev/fuse, also in ring mode); the library must find
 * the request, mark it interrupted and call the interrupt callback, which
 * answers EINTR; the client's read fails with EINTR. Afterwards nothing is
 * in flight and no handler bug was counted.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fring/fring.h>

#include "check.h"

/* T(cond, name, "detail if it fails", ...) */
#define T(cond, name, ...) chk_result(!!(cond), (name), __VA_ARGS__)

#define FILE_INO 2

static atomic_int read_started;
static atomic_int saw_interrupt;
static atomic_int flag_was_set;
static fring_req_t *_Atomic held;

static void st_fill(fring_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = ino == FRING_ROOT_INO ? S_IFDIR | 0755 : S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = ino == FRING_ROOT_INO ? 0 : 4096;
}

static void t_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct fring_entry e = {.ino = FILE_INO};

	if (parent != FRING_ROOT_INO || strcmp(name, "slow"))
		return (void)fring_reply_err(req, ENOENT);
	st_fill(FILE_INO, &e.attr);
	fring_reply_entry(req, &e);
}

static void t_getattr(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	struct stat st;

	(void)fi;
	st_fill(ino, &st);
	fring_reply_attr(req, &st, 0);
}

static void t_open(fring_req_t *req, fring_ino_t ino, struct fring_file *fi)
{
	(void)ino;
	fi->direct_io = 1; /* every read reaches us */
	fi->zero_copy = 1; /* zerocopy: the READ interrupted is zero-copied */
	fring_reply_open(req, fi);
}

static void t_read(fring_req_t *req, fring_ino_t ino, size_t size, off_t off,
		   struct fring_file *fi, const struct fring_buf *dst)
{
	(void)ino, (void)size, (void)off, (void)fi, (void)dst;
	fring_req_async(req);
	atomic_store(&held, req);
	atomic_store(&read_started, 1);
}

static void t_interrupt(fring_req_t *req, void *ud)
{
	(void)ud;
	if (req != atomic_load(&held))
		return;
	/* flag first: the main thread reads it once saw_interrupt is set */
	atomic_store(&flag_was_set, fring_req_interrupted(req));
	atomic_store(&saw_interrupt, 1);
	atomic_store(&held, NULL);
	fring_reply_err(req, EINTR);
}

static const struct fring_ops ops = {
	.lookup = t_lookup,
	.getattr = t_getattr,
	.open = t_open,
	.read = t_read,
	.interrupt = t_interrupt,
};

static void *runner(void *arg)
{
	fring_session_t *se = arg;
	long ret = fring_session_run(se);

	return (void *)ret;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int client(const char *path)
{
	struct sigaction sa = {.sa_handler = on_usr1}; /* no SA_RESTART */
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	sigaction(SIGUSR1, &sa, NULL);
	if (fd < 0)
		return 10;
	n = read(fd, buf, sizeof(buf));
	if (n >= 0)
		return 11;
	return errno == EINTR ? 0 : 12;
}

/* Seconds to wait for what should come at once: only waited for in full
 * when it does not come, so generous for a loaded machine. */
#define WAIT_S 30

static bool wait_for(atomic_int *v, int seconds)
{
	for (int i = 0; i < seconds * 100; i++) {
		if (atomic_load(v))
			return true;
		usleep(10000);
	}
	return false;
}

int main(int argc, char *argv[])
{
	const char *transport = argc > 1 ? argv[1] : "dev";
	char mnt[] = "/tmp/fring-intr.XXXXXX", path[64];
	fring_config_t *cfg;
	fring_session_t *se;
	struct fring_stats st;
	pthread_t th;
	void *run_ret;
	pid_t child;
	int status, ret;

	chk_init();
	if (geteuid() != 0) {
		printf("SKIP: needs root to mount\n");
		return 77;
	}
	if (!mkdtemp(mnt))
		return 1;
	snprintf(path, sizeof(path), "%s/slow", mnt);
	cfg = fring_config_new();
	fring_config_set(cfg, "transport", transport);
	ret = fring_session_new(&ops, sizeof(ops), NULL, cfg, &se);
	fring_config_free(cfg);
	T(ret == 0, "session_new", "expected 0 got %d", ret);
	ret = fring_session_mount(se, mnt);
	if (ret) {
		printf("SKIP: cannot mount with transport=%s: %s\n", transport,
		       strerror(-ret));
		rmdir(mnt);
		return 77;
	}
	pthread_create(&th, NULL, runner, se);

	child = fork();
	if (child == 0)
		_exit(client(path));
	T(wait_for(&read_started, WAIT_S), "read_reached_handler",
	  "expected the READ within %d s", WAIT_S);
	kill(child, SIGUSR1);
	T(wait_for(&saw_interrupt, WAIT_S), "interrupt_callback",
	  "expected the interrupt callback within %d s", WAIT_S);
	T(atomic_load(&flag_was_set), "interrupted_flag",
	  "expected fring_req_interrupted() != 0 in the callback");
	if (!atomic_load(&saw_interrupt)) {
		/* do not leave the client hanging */
		fring_req_t *r = atomic_exchange(&held, NULL);

		if (r)
			fring_reply_err(r, EIO);
	}
	waitpid(child, &status, 0);
	T(WIFEXITED(status) && WEXITSTATUS(status) == 0, "client_eintr",
	  "expected the client's read to fail with EINTR, client status "
	  "%d",
	  WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	fring_session_exit(se);
	pthread_join(th, &run_ret);
	T(run_ret == NULL, "run_returns_0", "expected 0 got %ld",
	  (long)run_ret);
	fring_session_stats(se, FRING_STATS_ALL, &st);
	T(!strcmp(fring_transport_name(fring_session_transport(se)), transport),
	  "transport", "expected %s got %s", transport,
	  fring_transport_name(fring_session_transport(se)));
	T(st.in_flight == 0, "nothing_in_flight", "in_flight %llu",
	  (unsigned long long)st.in_flight);
	T(st.handler_bugs == 0, "no_handler_bugs", "handler_bugs %llu",
	  (unsigned long long)st.handler_bugs);
	T(st.by_opcode[36] >= 1, "interrupt_counted",
	  "expected an INTERRUPT in the stats");
	/* the open asked for zero-copy: the READ interrupted was one */
	if (!strcmp(transport, "zerocopy"))
		T(st.zero_copy_reads > 0, "read_zero_copied",
		  "%llu zero-copied READs",
		  (unsigned long long)st.zero_copy_reads);
	fring_session_destroy(se);
	rmdir(mnt);
	return chk_finish();
}
