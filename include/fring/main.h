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
/**
 * How the value of an option of a program's table (struct fring_opt) is
 * read, and the type of the field it is stored in.
 */
enum fring_opt_type {
	/** bool: "NAME" or "NAME=1" sets it, "NAME=0" clears it. */
	FRING_OPT_FLAG = 1,
	/** unsigned: a decimal number from min to max (max 0: UINT_MAX). */
	FRING_OPT_UINT = 2,
	/** uint64_t: a decimal number with an optional k, m, g, t, p or e
	 * suffix (powers of 1024, either case), from min to max (max 0:
	 * UINT64_MAX). */
	FRING_OPT_SIZE = 3,
	/** double: seconds, 0 or more, fractions allowed (e.g. a cache
	 * timeout); max, when not 0, is the most. */
	FRING_OPT_SECONDS = 4,
	/** mode_t: permission bits in octal, from min to max (max 0:
	 * 07777). */
	FRING_OPT_MODE = 5,
	/** char *: a copy of the value (not empty) from malloc(); the
	 * field's previous value is freed, so it must be NULL or from
	 * malloc() too, and the program frees the last one. */
	FRING_OPT_STRING = 6,
	/** int: the index in names of the value, which must be one of
	 * them (an enum whose values are 0, 1, ... in the same order). */
	FRING_OPT_ENUM = 7,
	/** The check function reads the value itself (NULL for a bare
	 * "NAME") into the field or wherever it likes: for what the other
	 * types do not cover. */
	FRING_OPT_CUSTOM = 8,
};
/**
 * Checks an option's value: NULL to take it, or the reason it is refused,
 * which the library prints after the option's name and value, e.g. "option
 * size: '7%': at least 10%". For FRING_OPT_CUSTOM it reads the value
 * itself; for the other types it runs after the library has stored the
 * value in the field, and a refusal puts the previous value back. Runs on
 * the thread parsing the options (fring_main()'s: the main thread).
 *
 * @param conf  the structure the table describes
 * @param field conf plus the option's offset
 * @param value the text after '=', or NULL for a bare "NAME"
 * @return NULL, or a message that stays valid until the next call (a
 *         string literal, or a static buffer)
 */
typedef const char *(*fring_opt_check_fn)(void *conf, void *field,
					  const char *value);
/**
 * One -o option of a program, in a table ended by an entry whose name is
 * NULL: fring_main_opts() (or fring_opt_set()) parses "-o NAME=VALUE" into
 * the program's own structure, --help lists the table, and a refused value
 * is printed with the reason ("option cache: 'bogus' is not one of: never,
 * auto, always") before the program exits with status 1. Unused members
 * are 0 (designated initializers).
 */
struct fring_opt {
	/** The option's name, as after -o; NULL ends the table. */
	const char *name;
	/** How its value is read, and the type of the field. */
	enum fring_opt_type type;
	/** Where the field is: offsetof(struct the_conf, field). */
	size_t offset;
	/** --help text: what the option does, with its default. A newline
	 * in it starts another line, indented as the first. */
	const char *help;
	/** What --help shows after "NAME=" ("N", "FIFO"); NULL: the type's
	 * ("N", "SIZE", "S", "OCTAL", "TEXT", the names of an enum). */
	const char *arg;
	/** FRING_OPT_ENUM: the values, ended by NULL. */
	const char *const *names;
	/** FRING_OPT_UINT, FRING_OPT_SIZE, FRING_OPT_MODE: the least value. */
	uint64_t min;
	/** The most (0: the type's, see enum fring_opt_type). */
	uint64_t max;
	/** Optional for every type but FRING_OPT_CUSTOM, which needs it. */
	fring_opt_check_fn check;
	void *reserved[4]; /**< zero; room for later members */
};
/**
 * Sets one option of a table in conf: what fring_main_opts() does for
 * each -o option the library does not know, for programs that parse
 * their command line themselves.
 *
 * @param table the options, ended by an entry whose name is NULL
 * @param conf  the structure the offsets point into
 * @param key   the option's name
 * @param value the text after '=', or NULL when there was none
 * @return 0; -ENOENT when the table has no such option (nothing said);
 *         -EINVAL when the value is refused, with the reason logged at
 *         FRING_LOG_ERR ("option NAME: ..."); -ENOMEM.
 */
int fring_opt_set(const struct fring_opt *table, void *conf, const char *key,
		  const char *value);
/**
 * Writes the table as --help shows it: a line per option, "NAME=ARG" and
 * its help text in a column.
 * @param table the options, ended by an entry whose name is NULL
 * @param out   where to write
 */
void fring_opt_help(const struct fring_opt *table, FILE *out);
/**
 * fring_main_ext() for a program whose -o options are a table: each option
 * the library does not know is looked up in table and parsed into conf
 * (fring_opt_set()), then, if table has no such name, handed to
 * hooks->opt. --help lists the table after the library's options (then
 * hooks->usage). A refused value exits with status 1 after a line saying
 * why, as an unknown option does.
 *
 * @param argc, argv, ops, ops_size, userdata, hooks as for fring_main_ext()
 *              (hooks may be NULL)
 * @param table the options, ended by an entry whose name is NULL (NULL:
 *              none)
 * @param conf  the structure their offsets point into
 * @return 0 or 1, as fring_main().
 */
int fring_main_opts(int argc, char *argv[], const struct fring_ops *ops,
		    size_t ops_size, void *userdata,
		    const struct fring_main_hooks *hooks,
		    const struct fring_opt *table, void *conf);
/**
 * What fring_main() (or fring_main_ext()) made of the command line, for the
 * program's hooks and callbacks: fring_main_info().
 */
struct fring_main_info {
	/** The program's name: argv[0] (NULL when argc is 0). */
	const char *progname;
	/** The mountpoint as the command line gives it (not resolved);
	 * NULL until the command line has been read, so in the opt and arg
	 * hooks. */
	const char *mountpoint;
	/** The path of --stats-file, or NULL. */
	const char *stats_file;
	/** 1 with -f or -d: the process stays in the foreground, standard
	 * error open. 0: after mounting it forks to the background, with
	 * standard error on /dev/null (log through fring_log_syslog() or a
	 * sink of the program's to keep the lines). */
	uint32_t foreground;
	/** 1 with -d or -o debug: every request and answer is logged. */
	uint32_t debug;
	/** 1 from the moment the process is in the background (after the
	 * mount, before the ready hook); 0 before and with -f. */
	uint32_t daemonized;
	uint32_t reserved[9]; /**< zero; room for later fields */
};
/**
 * The command line as fring_main() or fring_main_ext() reads it, while one
 * of them runs: in every hook (filled as the command line is read: the opt
 * and arg hooks see what came before them; complete from the check hook
 * on) and in every callback of the session it serves, on any thread.
 * fring_main_ext() never had room for this in struct fring_main_hooks,
 * whose size old programs fixed.
 *
 * @return the information, valid until fring_main() returns; NULL when
 *         neither runs (a program built on the fring_session_* functions).
 */
const struct fring_main_info *fring_main_info(void);
/**@}*/

#endif
