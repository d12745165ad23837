/* SPDX-License-Identifier: MIT */
/**
 * @file session.h
 * @brief Options (fring_config_*) and sessions (fring_session_*).
 *
 * Part of the public API: include <fring/fring.h>, not this file.
 */
#ifndef FRING_API_SESSION_H
#define FRING_API_SESSION_H
#ifndef FRING_FRING_H_INSIDE
#error "include <fring/fring.h>, not its parts"
#endif

/**
 * @name Configuration
 * The -o options (fring_config_help() lists them; fring_main(3) describes
 * each). A configuration belongs to one thread at a time; a session copies
 * it, so it may be freed once fring_session_new() returned.
 */
/**@{*/
/** A new configuration with defaults; NULL on ENOMEM. */
fring_config_t *fring_config_new(void);
/** Frees cfg; NULL is ignored. */
void fring_config_free(fring_config_t *cfg);
/**
 * Sets one option, e.g. ("transport", "uring"), ("allow_other", NULL).
 * Returns 0, -EINVAL for a bad value or -ENOENT for an unknown key; a
 * message saying why goes to the log.
 */
int fring_config_set(fring_config_t *cfg, const char *key, const char *value);
/** Parses "a,b=c,..." as given to -o; stops at the first error.
 * @return 0, or the error of fring_config_set() for the first bad option
 *         (-EINVAL, -ENOENT), or -ENOMEM. */
int fring_config_parse(fring_config_t *cfg, const char *opts);
/** Prints the option list for --help. */
void fring_config_help(FILE *out);
/**@}*/

/* ------------------------------------------------------------------------ */
/**
 * @name Sessions
 * new → mount → run → destroy, on one thread (the "main thread"), except
 * fring_session_exit() and the read-only accessors, which any thread may
 * call. fring_main() does all of it; see fring_session_new(3).
 */
/**@{*/
/**
 * Creates a session. ops_size is sizeof(struct fring_ops) as the caller
 * compiled it (newer callbacks the caller does not know stay NULL). cfg may be
 * NULL (defaults); it is copied. Returns 0 and *out, or a negative errno.
 *
 * @return 0; -EINVAL (ops or out NULL, ops_size larger than this library's
 *         table), -ENOMEM, or the errno of eventfd(2).
 */
int fring_session_new(const struct fring_ops *ops, size_t ops_size,
		      void *userdata, const fring_config_t *cfg,
		      fring_session_t **out);
/**
 * Mounts on mountpoint: mount(2) with CAP_SYS_ADMIN, fusermount3 otherwise.
 * Fails with a message (not a hang) when the mountpoint is missing, not a
 * directory or a dead FUSE mount (-ENOTCONN).
 *
 * With -o auto_unmount, mount(2) is followed by a fork: a watcher process
 * that unmounts the mount if this process ends (or execs) without
 * fring_session_destroy() or fring_session_unmount() having ended it
 * first; as a user, fusermount3 stays to do the same. A fork in a process
 * with threads is safe here (the child makes system calls only), but
 * mount before starting threads anyway: fork copies the whole address
 * space. A child the daemon forks and does not exec keeps the watch open
 * until it exits too.
 *
 * An explicit transport= the machine cannot give (e.g. uring with
 * enable_uring=N) is refused here, before anything is mounted.
 *
 * @return 0; -EBUSY if already mounted; -ENOENT, -ENOTDIR, -ENOTCONN for
 *         the mountpoint; an explicit rung's refusal (e.g. -EPERM,
 *         -EOPNOTSUPP); the errno of open(/dev/fuse) or mount(2);
 *         -ECONNRESET when fusermount3 failed (it printed why); the errno
 *         of socketpair(2) or fork(2) for auto_unmount's watcher (the
 *         mount is then undone).
 */
int fring_session_mount(fring_session_t *s, const char *mountpoint);
/**
 * Mounts on mountpoint and returns the mount's /dev/fuse descriptor,
 * without a session: the half of a mount helper (mount.fuse3 -o
 * drop_privileges) that mounts with its privilege and hands the descriptor
 * to an unprivileged daemon, which serves it as the mount point
 * "/dev/fd/N" (fring_session_mount() adopts it). The same mount as
 * fring_session_mount() makes, from cfg's mount options (NULL: defaults;
 * the transport options are the server's and are not looked at here).
 *
 * Nothing in this process unmounts it afterwards: whoever serves the
 * descriptor, or the user, does. With auto_unmount the watch is handed to
 * the program the helper becomes: its end of the watch socket is left open
 * across exec, and the mount is unmounted once every process holding that
 * end has ended.
 *
 * @return the descriptor (close-on-exec: clear it to pass it on), or
 *         fring_session_mount()'s errors; -EINVAL for a "/dev/fd/N"
 *         mount point (mounted already).
 */
int fring_mount_fd(const char *mountpoint, const fring_config_t *cfg);
/**
 * Answers INIT, starts the queues and serves until unmount or
 * fring_session_exit(). Returns 0 after a clean end.
 *
 * Chooses the transport at INIT and logs one line naming it and why each
 * better rung was refused. Blocks the calling thread; the destroy callback
 * runs on it before returning.
 *
 * @return 0; -EINVAL if not mounted; -EBUSY if already run; -EPROTO for
 *         an INIT the library cannot serve; or the error that stopped the
 *         queues.
 */
int fring_session_run(fring_session_t *s);
/** Asks run() to stop. Async-signal-safe; callable from any thread. While
 * another mount sits on the session's mount (or inside it) the first
 * request is declined, logged, and serving goes on; a second one ends run()
 * without unmounting. */
void fring_session_exit(fring_session_t *s);
/** Non-zero once the session is ending (or asked to, until such a request
 * is declined). Any thread. */
int fring_session_exited(const fring_session_t *s);
/** Unmounts the session's own mount if still mounted, wherever it is now
 * (also done by destroy); lazily (MNT_DETACH) when files are still open.
 * Nothing when it is gone, or when other mounts sit on or inside it.
 * @return 0 (also when it was gone), -EINVAL for a NULL session, -EBUSY
 *         when it was left for another mount's sake, or the umount
 *         error. */
int fring_session_unmount(fring_session_t *s);
/** Unmounts if needed and frees everything. Every request must have been
 * answered: fring_session_run() waits up to 2 s for late answers and logs
 * the ones still missing; answering after destroy is a use-after-free. */
void fring_session_destroy(fring_session_t *s);
/** The userdata given to fring_session_new(). */
void *fring_session_userdata(const fring_session_t *s);
/** The negotiated connection (valid after INIT; zeros before). */
const struct fring_conn *fring_session_conn(const fring_session_t *s);
/** The rung in use (AUTO before run() has chosen). */
enum fring_transport fring_session_transport(const fring_session_t *s);
/** One line: the rung and why each better rung was refused. */
const char *fring_session_transport_reason(const fring_session_t *s);
/** Number of queues (valid once run() started). */
unsigned fring_session_queues(const fring_session_t *s);
/**
 * The mount's /dev/fuse descriptor: the one mount(2) or fusermount3 gave,
 * or the N of a "/dev/fd/N" mount point a mount helper handed down. The
 * queues serve on clones of it (dev) or on rings (uring and above); the
 * notifications go through it. It belongs to the session: not to be
 * closed, read or written by the caller. Close-on-exec, except an
 * adopted /dev/fd/N, which stays as the helper gave it.
 * @return the descriptor from a successful fring_session_mount() until
 *         fring_session_destroy(); -1 before (or for a NULL session).
 */
int fring_session_fd(const fring_session_t *s);
/**@}*/

#endif
