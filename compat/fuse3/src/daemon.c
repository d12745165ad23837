/* SPDX-License-Identifier: MIT */
/*
 * fuse_daemonize(): into the background unless foreground. The parent
 * waits until the child has made itself a daemon (its own session, / as
 * its directory, /dev/null as its standard streams) and only then exits,
 * so whoever started the program sees it ready. Called after the mount,
 * before serving: libfring starts no thread before fring_session_run().
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"

/* The parent's end: 0 once the child said it is ready. */
_Noreturn static void parent_wait(int rfd)
{
	char ready;
	ssize_t n;

	do
		n = read(rfd, &ready, 1);
	while (n < 0 && errno == EINTR);
	/* the daemon goes on; the starter gets the child's verdict */
	_exit(n == 1 ? 0 : 1);
}

static void to_dev_null(void)
{
	int null = open("/dev/null", O_RDWR);

	if (null < 0)
		return;
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	if (null > STDERR_FILENO)
		close(null);
}

int fuse_daemonize(int foreground)
{
	int pfd[2];
	char ready = 1;
	ssize_t ignored;

	if (foreground)
		return 0;
	if (pipe(pfd) == -1) {
		fc_log(FUSE_LOG_ERR, "fuse: fuse_daemonize: pipe: %s\n",
		       strerror(errno));
		return -1;
	}
	switch (fork()) {
	case -1:
		fc_log(FUSE_LOG_ERR, "fuse: fuse_daemonize: fork: %s\n",
		       strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	case 0:
		break;
	default:
		close(pfd[1]);
		parent_wait(pfd[0]);
	}
	close(pfd[0]);
	if (setsid() == -1) {
		fc_log(FUSE_LOG_ERR, "fuse: fuse_daemonize: setsid: %s\n",
		       strerror(errno));
		close(pfd[1]);
		return -1;
	}
	if (chdir("/") == -1)
		fc_log(FUSE_LOG_WARNING, "fuse: fuse_daemonize: chdir /: %s\n",
		       strerror(errno));
	to_dev_null();
	ignored = write(pfd[1], &ready, 1);
	(void)ignored;
	close(pfd[1]);
	return 0;
}
