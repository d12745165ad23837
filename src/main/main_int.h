/* SPDX-License-Identifier: MIT */
/*
 * What fring_main() (main.c) is made of besides its command line: the
 * process's signals (signals.c) and the --stats-file writer (stats_file.c).
 * Process-wide state lives here and nowhere else in the library.
 */
#ifndef FRING_MAIN_INT_H
#define FRING_MAIN_INT_H

#include <stdbool.h>
#include <sys/types.h>

#include "core.h"

/* ---------------- signals.c ---------------- */
/*
 * From its first line to its last, fring_main() catches SIGINT, SIGTERM,
 * SIGHUP (the end of the session), SIGUSR1 (usr1(arg) on a thread of its
 * own) and SIGPIPE (dropped). -EBUSY when another fring_main() of this
 * process has them already.
 */
FRING_HIDDEN int signals_install(void);
/* The previous dispositions back; whatever is pending is dropped. */
FRING_HIDDEN void signals_restore(void);
/*
 * The session an ending signal ends (one that came before is applied now),
 * or NULL: once this returns, no handler touches the old one.
 */
FRING_HIDDEN void signals_attach(fring_session_t *se);
/* The first ending signal taken, or 0. */
FRING_HIDDEN int signals_ending(void);
/*
 * The SIGUSR1 thread. usr1(arg) runs there once per wake-up however many
 * signals came; it returns false to be called again a little later (the
 * session is not serving yet).
 */
FRING_HIDDEN int signals_start_usr1(bool (*usr1)(void *arg), void *arg);
FRING_HIDDEN void signals_stop_usr1(void);
/*
 * fork() for daemonizing, before signals_start_usr1(): in the parent, every
 * signal it still gets is handed on to the child (the parent is about to
 * _exit, the child is the daemon the sender means).
 */
FRING_HIDDEN pid_t signals_fork(void);

/* ---------------- stats_file.c ---------------- */
/*
 * --stats-file PATH: its directory, opened (O_PATH) when the command line
 * is read, so the file lands there whatever happens to the path or the
 * working directory later; the name in it is replaced by rename only.
 */
struct stats_file {
	const char *path; /* as given, for messages */
	int dirfd;
	char name[256]; /* the last component */
};
/* Checks PATH as the daemon will use it; -errno with the reason logged. */
FRING_HIDDEN int stats_file_open(struct stats_file *sf, const char *path);
/* Writes the session's JSON aside and renames it onto the name. */
FRING_HIDDEN int stats_file_write(const struct stats_file *sf,
				  const fring_session_t *se);
FRING_HIDDEN void stats_file_close(struct stats_file *sf);

#endif
