/* SPDX-License-Identifier: MIT */
/*
 * -o stats_fd=N: libfring's statistics for a libfuse program, which has no
 * fring_main() and so no --stats-file. When the session is destroyed the
 * layer writes the same JSON object to descriptor N, which whoever started
 * the program opened (a shell's `3>stats.json`). A descriptor rather than a
 * path: the layer never creates or replaces a file, so a daemon running as
 * root cannot be pointed at one it should not write, and no name is needed
 * when the reader is a pipe. It is the way to see, from outside, which rung
 * a libfuse program ran on and what it did there (zero-copy reads, pool
 * requests, ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"

int fc_stats_fd_opt(struct fuse_session *se, const char *val)
{
	char *end;
	long n;

	errno = 0;
	n = val ? strtol(val, &end, 10) : -1;
	if (!val || !*val || *end || errno || n < 0 || n > INT_MAX) {
		fc_log(FUSE_LOG_ERR,
		       "fuse: -o stats_fd=%s: give a descriptor "
		       "number\n",
		       val ? val : "");
		return -1;
	}
	/* checked now, so that a wrong number fails before anything is
	 * mounted rather than at the end, when nobody looks */
	if (fcntl((int)n, F_GETFD) == -1 ||
	    (fcntl((int)n, F_GETFL) & O_ACCMODE) == O_RDONLY) {
		fc_log(FUSE_LOG_ERR,
		       "fuse: -o stats_fd=%ld: not a descriptor open for "
		       "writing\n",
		       n);
		return -1;
	}
	/* the program's children (a helper it execs) have no use for it */
	(void)fcntl((int)n, F_SETFD, FD_CLOEXEC);
	se->stats_fd = (int)n;
	return 0;
}

void fc_stats_fd_write(struct fuse_session *se)
{
	int ret;

	if (se->stats_fd < 0 || !se->fs)
		return;
	ret = fring_session_write_stats(se->fs, se->stats_fd);
	if (ret)
		fc_log(FUSE_LOG_ERR,
		       "fuse: -o stats_fd=%d: cannot write the statistics: "
		       "%s\n",
		       se->stats_fd, strerror(-ret));
	/* the descriptor was handed over for this one report */
	close(se->stats_fd);
	se->stats_fd = -1;
}
