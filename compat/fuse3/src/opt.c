/* SPDX-License-Identifier: MIT */
/*
 * fuse_opt_*: libfuse 3's command-line option parser.
 *
 * Programs ported from libfuse hand their argv and an option table to
 * fuse_opt_parse() and then pass the arguments it leaves to
 * fuse_parse_cmdline() and friends, so the output has to be what libfuse
 * produces, argument for argument; the behaviour here was established by
 * running libfuse 3.18.3 on many inputs (tests/opt/ pins those results).
 *
 * Internally errors are negative errno values; the public functions turn
 * them into libfuse's -1 and log the way libfuse does (through fuse_log(),
 * so a program's own log function sees them).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_log.h"
#include "fuse_opt.h"

/*
 * Whether a table entry calls the processing function. FUSE_OPT_KEY() puts
 * -1U in the unsigned long offset, which is 0xffffffff and not ULONG_MAX;
 * a table written by hand with -1 gives ULONG_MAX. Neither can be a real
 * offset into a structure, so both mean "key".
 */
static bool is_key(const struct fuse_opt *opt)
{
	return opt->offset == (unsigned long)-1U || opt->offset == -1UL;
}

static int nomem(void)
{
	fuse_log(FUSE_LOG_ERR, "fuse: memory allocation failed\n");
	return -ENOMEM;
}

void fuse_opt_free_args(struct fuse_args *args)
{
	if (!args)
		return;
	if (args->allocated && args->argv) {
		for (int i = 0; i < args->argc; i++)
			free(args->argv[i]);
		free(args->argv);
	}
	/* A caller's own argv is forgotten but not freed: it is not ours. */
	args->argc = 0;
	args->argv = NULL;
	args->allocated = 0;
}

/*
 * Makes args own its vector and strings. libfuse asserts instead when
 * asked to grow a vector it does not own (FUSE_ARGS_INIT over main()'s
 * argv); a library must not abort, and copying is the only answer that
 * leaves the caller with a usable result.
 */
static int own_args(struct fuse_args *args)
{
	char **copy;

	if (args->allocated || !args->argv)
		return 0;
	copy = calloc((size_t)args->argc + 1, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	for (int i = 0; i < args->argc; i++) {
		copy[i] = strdup(args->argv[i] ? args->argv[i] : "");
		if (!copy[i]) {
			while (i--)
				free(copy[i]);
			free(copy);
			return -ENOMEM;
		}
	}
	args->argv = copy;
	args->allocated = 1;
	return 0;
}

static int add_arg(struct fuse_args *args, const char *arg)
{
	char **argv;
	char *dup;
	int err;

	if (!args || !arg || args->argc < 0)
		return -EINVAL;
	err = own_args(args);
	if (err)
		return err;
	dup = strdup(arg);
	if (!dup)
		return -ENOMEM;
	/* One more slot for the new argument and one for the NULL. */
	argv = realloc(args->argv, ((size_t)args->argc + 2) * sizeof(*argv));
	if (!argv) {
		free(dup);
		return -ENOMEM;
	}
	argv[args->argc++] = dup;
	argv[args->argc] = NULL;
	args->argv = argv;
	args->allocated = 1;
	return 0;
}

int fuse_opt_add_arg(struct fuse_args *args, const char *arg)
{
	int err = add_arg(args, arg);

	if (err == -ENOMEM)
		nomem();
	return err ? -1 : 0;
}

static int insert_arg(struct fuse_args *args, int pos, const char *arg)
{
	int err;

	if (!args || pos < 0 || pos > args->argc)
		return -EINVAL;
	err = add_arg(args, arg);
	if (err)
		return err;
	/* The new argument went to the end; rotate it into place. */
	if (pos < args->argc - 1) {
		char *moved = args->argv[args->argc - 1];

		memmove(&args->argv[pos + 1], &args->argv[pos],
			(size_t)(args->argc - 1 - pos) * sizeof(char *));
		args->argv[pos] = moved;
	}
	return 0;
}

int fuse_opt_insert_arg(struct fuse_args *args, int pos, const char *arg)
{
	int err = insert_arg(args, pos, arg);

	if (err == -ENOMEM)
		nomem();
	else if (err == -EINVAL && args && arg)
		/* libfuse asserts here; we refuse and say why. */
		fuse_log(FUSE_LOG_ERR,
			 "fuse: cannot insert argument at position %d of %d\n",
			 pos, args->argc);
	return err ? -1 : 0;
}

/*
 * Appends opt to a comma-separated list. An empty list takes opt without a
 * comma in front, so adding "" and then "x" gives "x" (libfuse does the
 * same; empty elements survive only between or after non-empty ones).
 */
static int add_opt(char **opts, const char *opt)
{
	size_t oldlen, len;
	char *list;

	if (!opts || !opt)
		return -EINVAL;
	len = strlen(opt);
	if (!*opts) {
		*opts = strdup(opt);
		return *opts ? 0 : -ENOMEM;
	}
	oldlen = strlen(*opts);
	list = realloc(*opts, oldlen + 1 + len + 1);
	if (!list)
		return -ENOMEM;
	if (oldlen)
		list[oldlen++] = ',';
	memcpy(list + oldlen, opt, len + 1);
	*opts = list;
	return 0;
}

int fuse_opt_add_opt(char **opts, const char *opt)
{
	int err = add_opt(opts, opt);

	if (err == -ENOMEM)
		nomem();
	return err ? -1 : 0;
}

/*
 * Escapes the two characters that the list splitter treats specially, so
 * that splitting the list gives opt back unchanged.
 */
static int add_opt_escaped(char **opts, const char *opt)
{
	size_t n = 0;
	char *esc;
	int err;

	if (!opts || !opt)
		return -EINVAL;
	esc = malloc(2 * strlen(opt) + 1);
	if (!esc)
		return -ENOMEM;
	for (const char *s = opt; *s; s++) {
		if (*s == ',' || *s == '\\')
			esc[n++] = '\\';
		esc[n++] = *s;
	}
	esc[n] = '\0';
	err = add_opt(opts, esc);
	free(esc);
	return err;
}

int fuse_opt_add_opt_escaped(char **opts, const char *opt)
{
	int err = add_opt_escaped(opts, opt);

	if (err == -ENOMEM)
		nomem();
	return err ? -1 : 0;
}

/*
 * Template matching.
 *
 * A template's separator is its first '=' or, if it has none, its first
 * space, and it counts only when the template ends right after it or a
 * format ('%') follows. With a separator, the template matches any text
 * that starts with the part before the separator (for '=' the '=' itself
 * too); without one it matches only itself. So "t=lit" matches only
 * "t=lit", and "c=d %s" only "c=d %s", as libfuse does.
 */
static bool template_sep(const char *t, size_t *sep)
{
	const char *s = strchr(t, '=');

	if (!s)
		s = strchr(t, ' ');
	if (s && (s[1] == '\0' || s[1] == '%')) {
		*sep = (size_t)(s - t);
		return true;
	}
	return false;
}

/*
 * Returns whether arg matches template t. *param_at is the offset of the
 * parameter inside arg (where the format applies): after the '=', or after
 * the option's name for a space template (the parameter is then in the next
 * argument when nothing follows the name).
 */
static bool template_match(const char *t, const char *arg, size_t *param_at)
{
	size_t sep;

	if (!template_sep(t, &sep)) {
		*param_at = strlen(arg);
		return strcmp(t, arg) == 0;
	}
	if (t[sep] == '=') {
		if (strncmp(t, arg, sep + 1) != 0)
			return false;
		*param_at = sep + 1;
		return true;
	}
	if (strncmp(t, arg, sep) != 0)
		return false;
	*param_at = sep;
	return true;
}

/* The next entry of the table, from opt on, that matches arg. */
static const struct fuse_opt *find_match(const struct fuse_opt *opt,
					 const char *arg, size_t *param_at)
{
	for (; opt && opt->templ; opt++)
		if (template_match(opt->templ, arg, param_at))
			return opt;
	return NULL;
}

int fuse_opt_match(const struct fuse_opt opts[], const char *opt)
{
	size_t param_at;

	if (!opt)
		return 0;
	return find_match(opts, opt, &param_at) ? 1 : 0;
}

/* One fuse_opt_parse() call's state. */
struct parse {
	void *data;
	const struct fuse_opt *opts;
	fuse_opt_proc_t proc;
	int argc;
	char **argv;
	int i; /* index of the input argument being processed */
	struct fuse_args out;
	char *optlist;	 /* the kept "-o" options, gathered */
	bool nonopt;	 /* a "--" was seen: the rest are non-options */
	int dashdash_at; /* where that "--" went in out */
};

/* A space template's parameter in a separate argument: the next one. */
static int next_param(struct parse *p, const char *name, const char **param)
{
	if (p->i + 1 >= p->argc) {
		fuse_log(FUSE_LOG_ERR, "fuse: missing argument after `%s'\n",
			 name);
		return -EINVAL;
	}
	*param = p->argv[++p->i];
	return 0;
}

/*
 * Keeps or drops arg as proc (or the special keys) decides. Kept "-o"
 * options go, escaped, into the gathered option list; other arguments are
 * appended to the output in their order.
 */
static int call_proc(struct parse *p, const char *arg, int key, bool in_list)
{
	int res = 1;
	int err;

	if (key == FUSE_OPT_KEY_DISCARD)
		return 0;
	if (key != FUSE_OPT_KEY_KEEP && p->proc) {
		res = p->proc(p->data, arg, key, &p->out);
		/* Only -1 is an error; any other non-zero value keeps. */
		if (res == -1)
			return -EINVAL;
		if (res == 0)
			return 0;
	}
	if (in_list)
		err = add_opt_escaped(&p->optlist, arg);
	else
		err = add_arg(&p->out, arg);
	return err == -ENOMEM ? nomem() : err;
}

/* Stores a converted parameter at the entry's offset in data. */
static int store_param(struct parse *p, const struct fuse_opt *opt,
		       const char *format, const char *param, const char *arg)
{
	void *var = (char *)p->data + opt->offset;

	if (strcmp(format, "%s") == 0) {
		/* A string is copied whole (sscanf() would stop at a space)
		 * and replaces, freeing it, what was stored before. */
		char *copy = strdup(param);
		char **slot = var;

		if (!copy)
			return nomem();
		free(*slot);
		*slot = copy;
		return 0;
	}
	if (sscanf(param, format, var) != 1) {
		fuse_log(FUSE_LOG_ERR,
			 "fuse: invalid parameter in option `%s'\n", arg);
		return -EINVAL;
	}
	return 0;
}

/*
 * Acts on one match of opt against arg. A space template whose name was
 * given alone takes its parameter from the next input argument (also for an
 * option inside a "-o" list, as libfuse does); the processing function and
 * error messages then see name and parameter joined ("-x" "v" as "-xv").
 */
static int act_on_match(struct parse *p, const struct fuse_opt *opt,
			const char *arg, size_t param_at, bool in_list)
{
	const char *param = arg + param_at;
	const char *format = NULL;
	char *joined = NULL;
	size_t sep;
	int err = 0;

	if (template_sep(opt->templ, &sep)) {
		if (opt->templ[sep] == ' ' && *param == '\0') {
			size_t len = strlen(arg);

			err = next_param(p, arg, &param);
			if (err)
				return err;
			joined = malloc(len + strlen(param) + 1);
			if (!joined)
				return nomem();
			memcpy(joined, arg, len);
			strcpy(joined + len, param);
			arg = joined;
		}
		if (opt->templ[sep + 1] == '%')
			format = opt->templ + sep + 1;
	}

	if (is_key(opt))
		err = call_proc(p, arg, opt->value, in_list);
	else if (format)
		err = store_param(p, opt, format, param, arg);
	else
		*(int *)(void *)((char *)p->data + opt->offset) = opt->value;
	free(joined);
	return err;
}

/*
 * One option, from the command line or from a "-o" list: every matching
 * entry acts, in table order; an option no entry matches goes to the
 * processing function as FUSE_OPT_KEY_OPT.
 */
static int process_opt(struct parse *p, const char *arg, bool in_list)
{
	const struct fuse_opt *opt = p->opts;
	bool matched = false;
	size_t param_at;
	int err;

	while ((opt = find_match(opt, arg, &param_at))) {
		matched = true;
		err = act_on_match(p, opt, arg, param_at, in_list);
		if (err)
			return err;
		opt++;
	}
	if (!matched)
		return call_proc(p, arg, FUSE_OPT_KEY_OPT, in_list);
	return 0;
}

/*
 * A "-o" argument: a comma-separated list, where a backslash makes the
 * next character literal (so "\," is a comma inside an option) and a
 * trailing lone backslash stays. Empty elements are options too.
 */
static int process_opt_list(struct parse *p, const char *list)
{
	char *buf = malloc(strlen(list) + 1);
	const char *s = list;
	int err = 0;

	if (!buf)
		return nomem();
	for (;;) {
		size_t n = 0;

		while (*s && *s != ',') {
			if (*s == '\\' && s[1])
				s++;
			buf[n++] = *s++;
		}
		buf[n] = '\0';
		err = process_opt(p, buf, true);
		if (err || !*s)
			break;
		s++; /* past the comma */
	}
	free(buf);
	return err;
}

static int process_arg(struct parse *p)
{
	const char *arg = p->argv[p->i];
	int err;

	if (p->nonopt || arg[0] != '-')
		return call_proc(p, arg, FUSE_OPT_KEY_NONOPT, false);
	if (arg[1] == 'o') {
		/* "-oLIST" or "-o" LIST; never matched against templates. */
		if (arg[2])
			return process_opt_list(p, arg + 2);
		err = next_param(p, arg, &arg);
		return err ? err : process_opt_list(p, arg);
	}
	if (strcmp(arg, "--") == 0) {
		/* Kept, so the program's own parser also sees where options
		 * end; dropped at the end if nothing came after it. */
		err = add_arg(&p->out, arg);
		if (err)
			return err == -ENOMEM ? nomem() : err;
		p->nonopt = true;
		p->dashdash_at = p->out.argc - 1;
		return 0;
	}
	return process_opt(p, arg, false);
}

/*
 * Puts the gathered "-o" list right after argv[0], as "-o" LIST, or drops a
 * "--" that nothing followed. With a list, libfuse keeps such a trailing
 * "--" (its check runs after the list has moved the "--" along); we do the
 * same, so that the output matches argument for argument.
 */
static int finish(struct parse *p)
{
	int err;

	if (!p->optlist) {
		if (p->nonopt && p->out.argc == p->dashdash_at + 1) {
			free(p->out.argv[--p->out.argc]);
			p->out.argv[p->out.argc] = NULL;
		}
		return 0;
	}
	err = insert_arg(&p->out, 1, "-o");
	if (!err)
		err = insert_arg(&p->out, 2, p->optlist);
	return err == -ENOMEM ? nomem() : err;
}

int fuse_opt_parse(struct fuse_args *args, void *data,
		   const struct fuse_opt opts[], fuse_opt_proc_t proc)
{
	struct parse p = {
		.data = data,
		.opts = opts,
		.proc = proc,
		.dashdash_at = -1,
	};
	int err;

	/* Nothing to parse: args stays as it is (not even copied). */
	if (!args || !args->argv || args->argc <= 0)
		return 0;
	p.argc = args->argc;
	p.argv = args->argv;

	/* argv[0] is the program's name, kept whatever it looks like. */
	err = add_arg(&p.out, args->argv[0] ? args->argv[0] : "");
	if (err == -ENOMEM)
		nomem();
	for (p.i = 1; !err && p.i < p.argc; p.i++)
		err = process_arg(&p);
	if (!err)
		err = finish(&p);
	free(p.optlist);
	if (err) {
		/* On failure the input is left untouched. */
		fuse_opt_free_args(&p.out);
		return -1;
	}
	fuse_opt_free_args(args);
	*args = p.out;
	return 0;
}
