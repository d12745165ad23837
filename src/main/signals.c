/* SPDX-License-Identifier: MIT */
/*
 * fring_main()'s signals, from its first line to its last, so none of them
 * finds the default action (which kills the process and leaves a dead
 * mount) while a mount is being made, served or removed:
 *
 * - SIGINT, SIGTERM, SIGHUP end the session (fring_session_exit() is
 *   async-signal-safe); one that comes before the session exists is kept
 *   and applied when it does, so the daemon then does not mount at all;
 * - SIGUSR1 wakes a thread of this file, which runs what main.c asked for
 *   (the statistics: JSON and files need malloc, which a handler may not
 *   call); signals that come while it works fold into one more run;
 * - SIGPIPE is caught and dropped: a write to a closed pipe answers EPIPE.
 *
 * They are caught, not blocked: whichever thread the kernel picks (the
 * library's own threads block every signal, the program's may not) runs
 * the handler, and a program the filesystem starts gets the default
 * dispositions back at exec (a blocked mask or SIG_IGN would be inherited).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "main_int.h"

/* how often a SIGUSR1 that came before the session serves looks again */
#define USR1_RETRY_MS 20

static const int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGPIPE};
static struct sigaction saved[FRING_ARRAY_SIZE(handled)];
static sigset_t saved_mask;
static atomic_bool installed;

static _Atomic(fring_session_t *) cur_se;
static atomic_int in_handler;  /* handlers between reading cur_se and done */
static atomic_int ending_sig;  /* the first SIGINT/TERM/HUP, or 0 */
static atomic_int forward_pid; /* daemonizing parent: the child, or 0 */

/* eventfd: the SIGUSR1 thread has work. Made once and kept for the life of
 * the process: a handler still running on another thread as fring_main()
 * returns may write it, and must never hit a descriptor reused since. */
static int wake_fd = -1;
static atomic_bool usr1_pending, usr1_stop;
static pthread_t usr1_th;
static bool usr1_running;
static bool (*usr1_fn)(void *arg);
static void *usr1_arg;

static void wake(void)
{
	uint64_t one = 1;
	ssize_t n = write(wake_fd, &one, sizeof(one));

	(void)n; /* full: the thread is woken already */
}

static void on_signal(int sig)
{
	int saved_errno = errno;
	int fwd = atomic_load(&forward_pid), none = 0;
	fring_session_t *se;

	if (sig == SIGPIPE)
		goto out;
	if (fwd > 0) {
		kill((pid_t)fwd, sig);
		goto out;
	}
	if (sig == SIGUSR1) {
		atomic_store(&usr1_pending, true);
		wake();
		goto out;
	}
	atomic_compare_exchange_strong(&ending_sig, &none, sig);
	/* in_handler first: signals_attach() waits for it to drop after it
	 * cleared cur_se, so a session is never used after it is let go */
	atomic_fetch_add(&in_handler, 1);
	se = atomic_load(&cur_se);
	if (se)
		fring_session_exit(se);
	atomic_fetch_sub(&in_handler, 1);
out:
	errno = saved_errno;
}

int signals_install(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t set;
	bool no = false;

	if (!atomic_compare_exchange_strong(&installed, &no, true))
		return -EBUSY;
	if (wake_fd < 0)
		wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0) {
		int err = -errno;

		atomic_store(&installed, false);
		return err;
	}
	atomic_store(&ending_sig, 0);
	atomic_store(&forward_pid, 0);
	atomic_store(&usr1_pending, false);
	/* One handler at a time per thread; SA_RESTART, so a program's own
	 * reads and waits on the main thread go on (the library's waits poll
	 * an eventfd the handler writes, EINTR or not). */
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigemptyset(&set);
	for (unsigned i = 0; i < FRING_ARRAY_SIZE(handled); i++) {
		sigaction(handled[i], &sa, &saved[i]);
		sigaddset(&set, handled[i]);
	}
	/* A mask inherited blocking them (exec keeps it) would leave them
	 * pending for ever: every other thread of the library blocks all. */
	pthread_sigmask(SIG_UNBLOCK, &set, &saved_mask);
	return 0;
}

void signals_restore(void)
{
	sigset_t set;
	struct timespec zero = {0, 0};

	if (!atomic_load(&installed))
		return;
	signals_stop_usr1();
	signals_attach(NULL);
	/* what is still pending was meant for the daemon that just ended:
	 * taken here, it does not hit the caller's old dispositions */
	sigemptyset(&set);
	for (unsigned i = 0; i < FRING_ARRAY_SIZE(handled); i++)
		sigaddset(&set, handled[i]);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;
	for (unsigned i = 0; i < FRING_ARRAY_SIZE(handled); i++)
		sigaction(handled[i], &saved[i], NULL);
	pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
	atomic_store(&installed, false);
}

void signals_attach(fring_session_t *se)
{
	atomic_store(&cur_se, se);
	if (se && atomic_load(&ending_sig))
		fring_session_exit(se);
	/* a handler that read the previous session finishes with it first */
	while (!se && atomic_load(&in_handler))
		sched_yield();
}

int signals_ending(void)
{
	return atomic_load(&ending_sig);
}

static void *usr1_main(void *arg)
{
	sigset_t all;
	bool retry = false;

	(void)arg;
	/* the handlers run elsewhere: a stats write is never cut by EINTR */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!atomic_load(&usr1_stop)) {
		struct pollfd p = {wake_fd, POLLIN, 0};
		uint64_t n;

		if (retry || !atomic_load(&usr1_pending))
			poll(&p, 1, retry ? USR1_RETRY_MS : -1);
		if (read(wake_fd, &n, sizeof(n)) < 0)
			n = 0; /* EAGAIN: a retry's timeout */
		if (atomic_load(&usr1_stop))
			break;
		retry = false;
		if (atomic_exchange(&usr1_pending, false) &&
		    !usr1_fn(usr1_arg)) {
			atomic_store(&usr1_pending, true);
			retry = true;
		}
	}
	return NULL;
}

int signals_start_usr1(bool (*usr1)(void *arg), void *arg)
{
	int ret;

	if (usr1_running)
		return -EBUSY;
	usr1_fn = usr1;
	usr1_arg = arg;
	atomic_store(&usr1_stop, false);
	ret = pthread_create(&usr1_th, NULL, usr1_main, NULL);
	if (ret)
		return -ret;
	usr1_running = true;
	return 0;
}

void signals_stop_usr1(void)
{
	if (!usr1_running)
		return;
	atomic_store(&usr1_stop, true);
	wake();
	pthread_join(usr1_th, NULL);
	usr1_running = false;
}

pid_t signals_fork(void)
{
	sigset_t all, old;
	pid_t pid;

	/* Blocked across fork(), so the parent decides where a signal goes
	 * before it takes one: a handler that ran in the parent between the
	 * fork and forward_pid would end the parent's copy of the session and
	 * wake the child's exit eventfd (the same file) without its flag. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid > 0)
		atomic_store(&forward_pid, (int)pid);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return pid;
}
