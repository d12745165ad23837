/* SPDX-License-Identifier: MIT */
/**
 * @file main.h
 * @brief The 90% case: fring_main() and fring_main_ext().
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_MAIN_H
#define FRING_API_MAIN_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/** @name The 90% case */
/**@{*/
/** Optional hooks for programs with options of their own. Every member may
 * be NULL; all run on the thread that called fring_main_ext(). */
struct fring_main_hooks {
	/** Extra usage text after the library's. */
	const char *usage;
	/** An -o option the library does not know: return 0 if taken, a
	 * negative errno to fail, -ENOENT if unknown as well. */
	int (*opt)(void *userdata, const char *key, const char *value);
	/** A positional argument before the mountpoint: 0 or -errno. */
	int (*arg)(void *userdata, const char *arg);
	/** After mounting, before serving (e.g. to print or register). */
	void (*ready)(void *userdata, fring_session_t *s);
	/** Options applied before the command line's (e.g. "fsname=src"). */
	const char *default_opts;
	/** After parsing, before mounting: 0 to go on, or -errno to stop
	 * with exit status 1 (print why). */
	int (*check)(void *userdata);
};
/**
 * Parses "[options] MOUNTPOINT" (-f, -d, -s, -o opts, --help, --version,
 * --stats-file=PATH), mounts, daemonizes unless -f, serves until unmount or
 * SIGINT/SIGTERM/SIGHUP, unmounts and returns the exit status: 0 on success,
 * 1 on a bad command line (nothing mounted) or a failure.
 *
 * It turns default_permissions on (-o no_default_permissions turns it off),
 * installs handlers for SIGINT, SIGTERM and SIGHUP (fring_session_exit())
 * and, with --stats-file, writes the statistics at exit and on SIGUSR1.
 * Call it from the main thread, once. See fring_main(3).
 *
 * @param argc, argv the command line
 * @param ops        the callbacks
 * @param ops_size   sizeof(*ops) as the caller compiled it
 * @param userdata   passed to callbacks (fring_req_userdata())
 * @return the exit status for main(): 0 or 1 (never a negative errno).
 */
int fring_main(int argc, char *argv[], const struct fring_ops *ops,
	       size_t ops_size, void *userdata);
/**
 * fring_main() with hooks for the program's own options, positional
 * arguments and start-up (hooks may be NULL).
 * @return 0 or 1, as fring_main().
 */
int fring_main_ext(int argc, char *argv[], const struct fring_ops *ops,
		   size_t ops_size, void *userdata,
		   const struct fring_main_hooks *hooks);
/**@}*/

#endif
