/* SPDX-License-Identifier: MIT */
/**
 * @file fuse_opt.h
 * @brief libfuse 3's command-line option parser, as libfring-fuse3 offers it.
 *
 * The declarations below match libfuse 3.18's by name, type, layout and
 * macro value, so that programs written against libfuse compile unchanged
 * and binaries built against the distribution's libfuse run on
 * libfring-fuse3. The header guard has libfuse's name because some programs
 * test it to learn whether the header was already included.
 */
#ifndef FUSE_OPT_H_
#define FUSE_OPT_H_

#ifdef __cplusplus
extern "C" {
#endif

/**
 * One entry of an option table handed to fuse_opt_parse().
 *
 * A table is an array of these, ended by FUSE_OPT_END. Every entry whose
 * template matches an argument acts, so one argument may act several times.
 *
 * Template forms:
 *  - "-x", "--foo": a whole argument that is exactly this text ("--" itself
 *    and anything starting with "-o" cannot be templates);
 *  - "foo": an option inside a "-o" list, given as "-ofoo", "-o foo" or as
 *    one element of "-o a,foo,b";
 *  - "foo=", "--foo=": like the two above, but any text may follow the '=';
 *  - "foo=%s", "--foo=%lu": as above, and the text after the '=' is
 *    converted with the sscanf() format after the '=' and stored at offset;
 *  - "-x ": matches "-xVALUE" and also "-x" followed by a separate VALUE
 *    argument;
 *  - "-x %s": the previous form, with the value converted and stored.
 *
 * What a match does:
 *  - template without a format, offset != -1U: the int at data + offset is
 *    set to value;
 *  - offset == -1U (see FUSE_OPT_KEY()): the processing function is called
 *    with value as its key;
 *  - template with a format: the converted value is stored at data + offset.
 *    For "%s" a copy of the string is allocated, and a non-NULL pointer that
 *    was there before is freed first.
 */
struct fuse_opt {
	/** The template: the text that matches, possibly with a format. */
	const char *templ;

	/** Where in fuse_opt_parse()'s data the result goes, or -1U. */
	unsigned long offset;

	/** The value stored, or the key given to the processing function;
	 *  unused when the template has a format. */
	int value;
};

/** A table entry that calls the processing function with key on a match. */
/* clang-format off */
#define FUSE_OPT_KEY(templ, key) { templ, -1U, key }
/* clang-format on */

/** Ends an option table: an entry whose template is NULL. */
/* clang-format off */
#define FUSE_OPT_END { NULL, 0, 0 }
/* clang-format on */

/** An argument vector, as fuse_opt_parse() reads and writes it. */
struct fuse_args {
	/** Number of arguments in argv. */
	int argc;

	/** The arguments; argv[argc] is NULL. */
	char **argv;

	/** Non-zero when argv and its strings are heap copies owned by this
	 *  structure (released by fuse_opt_free_args()). */
	int allocated;
};

/** Initialises a struct fuse_args over a caller's (not owned) argv. */
/* clang-format off */
#define FUSE_ARGS_INIT(argc, argv) { argc, argv, 0 }
/* clang-format on */

/** Key given to the processing function for an option no entry matched. */
#define FUSE_OPT_KEY_OPT -1

/** Key given to the processing function for a non-option: an argument not
 *  starting with '-', or any argument after "--". */
#define FUSE_OPT_KEY_NONOPT -2

/** A table key meaning "keep the argument" without calling the processing
 *  function (as if it had returned 1). */
#define FUSE_OPT_KEY_KEEP -3

/** A table key meaning "drop the argument" without calling the processing
 *  function (as if it had returned 0). */
#define FUSE_OPT_KEY_DISCARD -4

/**
 * The processing function given to fuse_opt_parse().
 *
 * Called for an option that matched no entry (key FUSE_OPT_KEY_OPT), for a
 * non-option (FUSE_OPT_KEY_NONOPT), and for a match of an entry whose offset
 * is -1U (the entry's value as key).
 *
 * arg is the whole option with its value: a "-x VALUE" pair arrives joined
 * as "-xVALUE", and an option from a "-o" list arrives without the "-o".
 *
 * @param data    the data pointer given to fuse_opt_parse()
 * @param arg     the option or argument
 * @param key     why the function is called (see above)
 * @param outargs the output arguments built so far
 * @return -1 to fail the parse, 0 to drop arg, 1 to keep it in the output
 */
typedef int (*fuse_opt_proc_t)(void *data, const char *arg, int key,
			       struct fuse_args *outargs);

/**
 * Parses args against opts, storing results in data and calling proc.
 *
 * On success args is replaced by a new, allocated vector of the kept
 * arguments: argv[0]; then, if any "-o" option was kept, "-o" and a list of
 * all of them (commas in an option escaped) as two arguments; then the other
 * kept arguments in their order, a "--" of the input included when anything
 * follows it. On failure args is left as it was. NULL args or an empty
 * vector is left alone and succeeds, NULL opts is an empty table, NULL proc
 * a function that keeps everything.
 *
 * @param args input, and output on success
 * @param data base address for the table's offsets; passed to proc
 * @param opts the option table, ended by FUSE_OPT_END
 * @param proc the processing function, or NULL
 * @return 0 on success, -1 on failure (a message is logged)
 */
int fuse_opt_parse(struct fuse_args *args, void *data,
		   const struct fuse_opt opts[], fuse_opt_proc_t proc);

/**
 * Appends opt to the comma-separated list *opts (a new list if *opts is
 * NULL), reallocating it.
 *
 * @return 0, or -1 when out of memory
 */
int fuse_opt_add_opt(char **opts, const char *opt);

/**
 * Like fuse_opt_add_opt(), but first escapes commas and backslashes in opt
 * with a backslash so that the list splits back into the same option.
 *
 * @return 0, or -1 when out of memory
 */
int fuse_opt_add_opt_escaped(char **opts, const char *opt);

/**
 * Appends a copy of arg to args. Where args does not own its vector yet
 * (FUSE_ARGS_INIT over main()'s argv, which libfuse refuses with an
 * assertion) the vector is copied first.
 *
 * @return 0, or -1 when out of memory or arg is NULL
 */
int fuse_opt_add_arg(struct fuse_args *args, const char *arg);

/**
 * Inserts a copy of arg so that it becomes argv[pos] (0 <= pos <= argc);
 * handy for adding an option that has to come before a "--".
 *
 * @return 0, or -1 when out of memory or pos is out of range
 */
int fuse_opt_insert_arg(struct fuse_args *args, int pos, const char *arg);

/**
 * Releases what args owns (when allocated) and empties it; args itself is
 * the caller's.
 */
void fuse_opt_free_args(struct fuse_args *args);

/**
 * Tells whether opt matches one of the table's templates.
 *
 * @return 1 if it does, 0 if not
 */
int fuse_opt_match(const struct fuse_opt opts[], const char *opt);

#ifdef __cplusplus
}
#endif

#endif /* FUSE_OPT_H_ */
