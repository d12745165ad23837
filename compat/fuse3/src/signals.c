/* SPDX-License-Identifier: MIT */
/*
 * fuse_set_signal_handlers() and friends. SIGINT, SIGTERM and SIGHUP end
 * the session's loop (fuse_session_exit(), which the loop then returns as
 * the signal's number); SIGPIPE is ignored, so a client that went away
 * does not kill the daemon. A handler the program installed itself is
 * left alone, as libfuse does. One session receives the signals: the
 * last one given.
 *
 * fuse_set_fail_signal_handlers() adds a line on stderr for the crashes
 * (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT), then lets the signal do
 * what it would have done (the default action, re-raised).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"

static _Atomic(struct fuse_session *) signal_session;

static const int exit_signals[] = {SIGINT, SIGTERM, SIGHUP};
static const int fail_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

static void on_exit_signal(int sig)
{
	struct fuse_session *se = atomic_load(&signal_session);

	if (se)
		fc_session_signalled(se, sig);
}

/* Async-signal-safe formatting of a small number. */
static size_t put_uint(char *p, unsigned v)
{
	char tmp[12];
	size_t n = 0, i = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		p[i++] = tmp[--n];
	return i;
}

static void on_fail_signal(int sig)
{
	static const char head[] = "fuse: fatal signal ";
	char line[64];
	size_t n = sizeof(head) - 1;
	ssize_t ignored;

	memcpy(line, head, n);
	n += put_uint(line + n, (unsigned)sig);
	line[n++] = '\n';
	ignored = write(STDERR_FILENO, line, n);
	(void)ignored;
	/* the default action, as if no handler had been there */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Installs handler for sig unless the program has one: 0, or -1. */
static int take(int sig, void (*handler)(int))
{
	struct sigaction old, sa;

	if (sigaction(sig, NULL, &old) == -1)
		return -1;
	if (old.sa_handler != SIG_DFL)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/* Puts the default back where handler is still installed. */
static void give_back(int sig, void (*handler)(int))
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == handler)
		signal(sig, SIG_DFL);
}

int fuse_set_signal_handlers(struct fuse_session *se)
{
	if (!se)
		return -1;
	/* the session first: a signal arriving now must find it */
	atomic_store(&signal_session, se);
	for (size_t i = 0; i < sizeof(exit_signals) / sizeof(int); i++)
		if (take(exit_signals[i], on_exit_signal) == -1)
			goto fail;
	if (take(SIGPIPE, SIG_IGN) == -1)
		goto fail;
	return 0;
fail:
	fc_log(FUSE_LOG_ERR, "fuse: cannot set the signal handlers: %s\n",
	       strerror(errno));
	return -1;
}

int fuse_set_fail_signal_handlers(struct fuse_session *se)
{
	if (!se)
		return -1;
	atomic_store(&signal_session, se);
	for (size_t i = 0; i < sizeof(fail_signals) / sizeof(int); i++)
		if (take(fail_signals[i], on_fail_signal) == -1) {
			fc_log(FUSE_LOG_ERR,
			       "fuse: cannot set the signal handlers: %s\n",
			       strerror(errno));
			return -1;
		}
	return 0;
}

void fuse_remove_signal_handlers(struct fuse_session *se)
{
	struct fuse_session *expected = se;

	if (!atomic_compare_exchange_strong(&signal_session, &expected, NULL))
		fc_log(FUSE_LOG_ERR, "fuse: fuse_remove_signal_handlers: "
				     "not the session the signals go to\n");
	for (size_t i = 0; i < sizeof(exit_signals) / sizeof(int); i++)
		give_back(exit_signals[i], on_exit_signal);
	for (size_t i = 0; i < sizeof(fail_signals) / sizeof(int); i++)
		give_back(fail_signals[i], on_fail_signal);
	give_back(SIGPIPE, SIG_IGN);
}

void fc_signals_forget(struct fuse_session *se)
{
	struct fuse_session *expected = se;

	atomic_compare_exchange_strong(&signal_session, &expected, NULL);
}
