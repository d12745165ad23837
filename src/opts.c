/* SPDX-License-Identifier: MIT */
/* Options: "-o key[=value],..." strings into struct fring_config. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#define FRING_DEFAULT_MAX_WRITE (1u << 20)
#define FRING_MAX_MAX_WRITE	(16u << 20)
#define FRING_DEFAULT_MAX_ASYNC 256
/* how many asynchronous requests (async direct I/O, readahead, writeback)
 * the kernel lets out at once: its own default, 12, puts a client with more
 * in flight to sleep until one is answered, which halved 4 KiB random read
 * rates (doc/operations.md, "Tuning", has the measurement) */
#define FRING_DEFAULT_MAX_BACKGROUND 256
/* see doc/transports.md for the measurement behind it */
#define FRING_DEFAULT_QUEUE_DEPTH 8
/* zerocopy: transfers on in-memory files up to this many bytes go through
 * the thread's pipe (ring/pipe.c); doc/transports.md has the measurement */
#define FRING_DEFAULT_ZC_PIPE_MAX (64u << 10)

void fring_config_defaults(struct fring_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->transport = FRING_TRANSPORT_AUTO;
	cfg->max_write = FRING_DEFAULT_MAX_WRITE;
	cfg->max_async = FRING_DEFAULT_MAX_ASYNC;
	cfg->max_background = FRING_DEFAULT_MAX_BACKGROUND;
	cfg->queue_depth = FRING_DEFAULT_QUEUE_DEPTH;
	cfg->inline_max = UINT_MAX;
	cfg->zc_pipe_max = FRING_DEFAULT_ZC_PIPE_MAX;
}

fring_config_t *fring_config_new(void)
{
	struct fring_config *cfg = malloc(sizeof(*cfg));

	if (cfg)
		fring_config_defaults(cfg);
	return cfg;
}

void fring_config_free(fring_config_t *cfg)
{
	free(cfg);
}

static const char *const transport_names[] = {
	[FRING_TRANSPORT_AUTO] = "auto",
	[FRING_TRANSPORT_ZEROCOPY] = "zerocopy",
	[FRING_TRANSPORT_BUFPOOL_REGISTERED] = "bufpool-registered",
	[FRING_TRANSPORT_BUFPOOL] = "bufpool",
	[FRING_TRANSPORT_URING] = "uring",
	[FRING_TRANSPORT_DEV] = "dev",
};

const char *fring_transport_name(enum fring_transport t)
{
	if ((unsigned)t >= FRING_ARRAY_SIZE(transport_names))
		return "?";
	return transport_names[t];
}

static int parse_uint(const char *key, const char *val, unsigned min,
		      unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!val || !*val) {
		fr_err("option %s needs a value", key);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(val, &end, 0);
	if (errno || *end || val[0] == '-' || v < min || v > max) {
		fr_err("option %s=%s: expected a number from %u to %u", key,
		       val, min, max);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_flag(const char *key, const char *val, bool *out)
{
	if (val) {
		fr_err("option %s takes no value", key);
		return -EINVAL;
	}
	*out = true;
	return 0;
}

static int parse_name(const char *key, const char *val, char *dst)
{
	if (!val || !*val || strlen(val) >= FRING_NAME_LEN ||
	    strpbrk(val, ", \t\n")) {
		fr_err("option %s needs a value of 1 to %d characters without "
		       "commas or spaces",
		       key, FRING_NAME_LEN - 1);
		return -EINVAL;
	}
	strcpy(dst, val);
	return 0;
}

int fring_config_set(fring_config_t *cfg, const char *key, const char *val)
{
	if (!cfg || !key)
		return -EINVAL;
	if (!strcmp(key, "transport")) {
		for (unsigned i = 0; i < FRING_ARRAY_SIZE(transport_names);
		     i++) {
			if (val && !strcmp(val, transport_names[i])) {
				cfg->transport = (enum fring_transport)i;
				return 0;
			}
		}
		fr_err("option transport=%s: expected auto, zerocopy, "
		       "bufpool-registered, bufpool, uring or dev",
		       val ? val : "");
		return -EINVAL;
	}
	if (!strcmp(key, "queues"))
		return parse_uint(key, val, 1, 4096, &cfg->queues);
	if (!strcmp(key, "max_write"))
		return parse_uint(key, val, 4096, FRING_MAX_MAX_WRITE,
				  &cfg->max_write);
	if (!strcmp(key, "max_read"))
		return parse_uint(key, val, 4096, UINT_MAX, &cfg->max_read);
	if (!strcmp(key, "max_readahead"))
		return parse_uint(key, val, 0, UINT_MAX, &cfg->max_readahead);
	if (!strcmp(key, "queue_depth"))
		return parse_uint(key, val, 1, 1024, &cfg->queue_depth);
	if (!strcmp(key, "pool_bufs"))
		return parse_uint(key, val, 1, 65536, &cfg->pool_bufs);
	if (!strcmp(key, "threads"))
		return parse_uint(key, val, 1, 4096, &cfg->threads);
	/* the kernel's field is 16 bits (fuse_init_out.request_timeout) */
	if (!strcmp(key, "request_timeout"))
		return parse_uint(key, val, 0, 65535, &cfg->request_timeout);
	if (!strcmp(key, "inline_max"))
		return parse_uint(key, val, 0, UINT_MAX, &cfg->inline_max);
	if (!strcmp(key, "zc_pipe_max"))
		return parse_uint(key, val, 0, 1u << 20, &cfg->zc_pipe_max);
	if (!strcmp(key, "max_async"))
		return parse_uint(key, val, 1, 65536, &cfg->max_async);
	/* 16 bits in fuse_init_out */
	if (!strcmp(key, "max_background"))
		return parse_uint(key, val, 0, 65535, &cfg->max_background);
	if (!strcmp(key, "congestion_threshold"))
		return parse_uint(key, val, 0, 65535,
				  &cfg->congestion_threshold);
	if (!strcmp(key, "allow_other"))
		return parse_flag(key, val, &cfg->allow_other);
	if (!strcmp(key, "default_permissions"))
		return parse_flag(key, val, &cfg->default_permissions);
	if (!strcmp(key, "no_default_permissions")) {
		bool on;
		int ret = parse_flag(key, val, &on);

		if (!ret)
			cfg->default_permissions = false;
		return ret;
	}
	if (!strcmp(key, "ro"))
		return parse_flag(key, val, &cfg->ro);
	if (!strcmp(key, "rw")) {
		bool on;
		int ret = parse_flag(key, val, &on);

		if (!ret)
			cfg->ro = false;
		return ret;
	}
	if (!strcmp(key, "dev"))
		return parse_flag(key, val, &cfg->dev);
	if (!strcmp(key, "suid"))
		return parse_flag(key, val, &cfg->suid);
	if (!strcmp(key, "debug"))
		return parse_flag(key, val, &cfg->debug);
	if (!strcmp(key, "zero_copy_opt_in"))
		return parse_flag(key, val, &cfg->zero_copy_opt_in);
	if (!strcmp(key, "splice_read"))
		return parse_flag(key, val, &cfg->splice_read);
	if (!strcmp(key, "splice_write"))
		return parse_flag(key, val, &cfg->splice_write);
	if (!strcmp(key, "splice_move"))
		return parse_flag(key, val, &cfg->splice_move);
	if (!strcmp(key, "overmount"))
		return parse_flag(key, val, &cfg->overmount);
	if (!strcmp(key, "auto_unmount"))
		return parse_flag(key, val, &cfg->auto_unmount);
	if (!strcmp(key, "fsname"))
		return parse_name(key, val, cfg->fsname);
	if (!strcmp(key, "subtype"))
		return parse_name(key, val, cfg->subtype);
	return -ENOENT;
}

int fring_config_parse(fring_config_t *cfg, const char *opts)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;

	if (!cfg || !opts)
		return -EINVAL;
	copy = strdup(opts);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq)
			*eq++ = '\0';
		ret = fring_config_set(cfg, tok, eq);
		if (ret == -ENOENT)
			fr_err("unknown option '%s'", tok);
		if (ret)
			break;
	}
	free(copy);
	return ret;
}

void fring_config_help(FILE *out)
{
	fputs("libfring options (-o opt[,opt...]):\n"
	      "    transport=NAME         auto (default), zerocopy, "
	      "bufpool-registered,\n"
	      "                           bufpool, uring or dev\n"
	      "    queues=N               worker queues (default: one per "
	      "CPU)\n"
	      "    max_write=N            largest write in bytes (default "
	      "1048576)\n"
	      "    max_read=N             largest read in bytes\n"
	      "    max_readahead=N        readahead in bytes\n"
	      "    max_async=N            unanswered requests per queue "
	      "(default 256)\n"
	      "    max_background=N       asynchronous requests the kernel "
	      "sends at once\n"
	      "                           (default 256; 0: the kernel's "
	      "12)\n"
	      "    congestion_threshold=N asynchronous requests at which "
	      "readahead\n"
	      "                           holds back (default: 3/4 of "
	      "max_background)\n"
	      "    queue_depth=N          ring entries per queue (default 8)\n"
	      "    threads=N              ring threads (default: one per "
	      "online CPU)\n"
	      "    pool_bufs=N            buffers per queue pool (bufpool "
	      "rungs; default: queue_depth)\n"
	      "    inline_max=N           ring: data helper transfers up to N "
	      "bytes done\n"
	      "                           in place when they cannot block "
	      "(default: all;\n"
	      "                           0: always on the ring)\n"
	      "    zc_pipe_max=N          zerocopy: transfers on in-memory "
	      "files up to N\n"
	      "                           bytes through a pipe (default "
	      "65536; 0: never)\n"
	      "    request_timeout=S      abort the connection when a request "
	      "is\n"
	      "                           unanswered for S s (kernel: 15 s "
	      "or more)\n"
	      "    zero_copy_opt_in       zerocopy: only opens that set "
	      "zero_copy get it,\n"
	      "                           also on a filesystem declaring "
	      "FRING_FS_ZERO_COPY\n"
	      "                           (always so on one that does "
	      "not)\n"
	      "    splice_read            dev: splice requests from /dev/fuse;"
	      "\n"
	      "                           WRITE data reaches the write "
	      "handler in a pipe\n"
	      "    splice_write           dev: fring_read_from_fd() splices "
	      "the file\n"
	      "                           into /dev/fuse\n"
	      "    splice_move            dev: SPLICE_F_MOVE on those splices\n"
	      "    allow_other            let other users in (root, or "
	      "user_allow_other)\n"
	      "    default_permissions    the kernel checks permissions\n"
	      "    no_default_permissions the filesystem checks them\n"
	      "    ro, rw                 read-only or read-write mount\n"
	      "    dev, suid              device files, set-id bits work (as "
	      "root; default off)\n"
	      "    overmount              mount even where a FUSE mount is "
	      "on top (hides it;\n"
	      "                           each daemon unmounts only its "
	      "own)\n"
	      "    auto_unmount           unmount the mount if the process "
	      "dies without\n"
	      "                           unmounting it (killed, crashed)\n"
	      "    fsname=NAME            source shown in /proc/mounts\n"
	      "    subtype=NAME           type shown as fuse.NAME\n"
	      "    debug                  log every request and answer\n",
	      out);
}

/* ---------------- options the rung taken ignores ---------------- */

static void ineffective(void (*say)(const char *msg, void *arg), void *arg,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ineffective(void (*say)(const char *msg, void *arg), void *arg,
			const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say(msg, arg);
}

/*
 * An option is "set" when it differs from its default: the same value
 * given explicitly changes nothing anyway. Said once, at the mount (and by
 * fring-probe), because a silent no-op looks like a tuning that failed.
 */
void config_ineffective(const struct fring_config *cfg, enum fring_transport t,
			unsigned nqueues,
			void (*say)(const char *msg, void *arg), void *arg)
{
	const char *name = fring_transport_name(t);
	bool ring = t != FRING_TRANSPORT_DEV && t != FRING_TRANSPORT_AUTO;
	bool pools = t == FRING_TRANSPORT_ZEROCOPY ||
		     t == FRING_TRANSPORT_BUFPOOL_REGISTERED ||
		     t == FRING_TRANSPORT_BUFPOOL;

	if (t == FRING_TRANSPORT_AUTO)
		return;
	if (!ring && cfg->threads)
		ineffective(say, arg,
			    "option threads=%u has no effect on transport %s: "
			    "it sets the ring rungs' threads; dev serves each "
			    "queue with a thread of its own (queues=N sets "
			    "how many)",
			    cfg->threads, name);
	if (ring && cfg->threads > nqueues)
		ineffective(say, arg,
			    "option threads=%u has no effect beyond the %u "
			    "ring queues: %u threads serve them",
			    cfg->threads, nqueues, nqueues);
	if (ring && cfg->queues)
		ineffective(say, arg,
			    "option queues=%u%s has no effect on transport %s: "
			    "the kernel gives the ring one queue per possible "
			    "CPU (%u here); threads=N sets how many threads "
			    "serve them",
			    cfg->queues, cfg->queues == 1 ? " (or -s)" : "",
			    name, nqueues);
	if (!ring && cfg->queue_depth != FRING_DEFAULT_QUEUE_DEPTH)
		ineffective(say, arg,
			    "option queue_depth=%u has no effect on transport "
			    "%s: it sizes the ring rungs' queues (max_async "
			    "bounds dev's unanswered requests)",
			    cfg->queue_depth, name);
	if (!pools && cfg->pool_bufs)
		ineffective(say, arg,
			    "option pool_bufs=%u has no effect on transport "
			    "%s: only the bufpool rungs have pools",
			    cfg->pool_bufs, name);
	if (!ring && cfg->inline_max != UINT_MAX)
		ineffective(say, arg,
			    "option inline_max=%u has no effect on transport "
			    "%s: it bounds the ring rungs' in-place transfers",
			    cfg->inline_max, name);
	if (t != FRING_TRANSPORT_ZEROCOPY &&
	    cfg->zc_pipe_max != FRING_DEFAULT_ZC_PIPE_MAX)
		ineffective(say, arg,
			    "option zc_pipe_max=%u has no effect on transport "
			    "%s: only zerocopy moves data with fixed ops",
			    cfg->zc_pipe_max, name);
	if (t != FRING_TRANSPORT_ZEROCOPY && cfg->zero_copy_opt_in)
		ineffective(say, arg,
			    "option zero_copy_opt_in has no effect on "
			    "transport %s: only zerocopy puts client pages in "
			    "the ring",
			    name);
	for (int i = 0; ring && i < 3; i++) {
		static const char *const splice[] = {
			"splice_read", "splice_write", "splice_move"};
		bool on = i == 0   ? cfg->splice_read
			  : i == 1 ? cfg->splice_write
				   : cfg->splice_move;

		if (on)
			ineffective(say, arg,
				    "option %s has no effect on transport %s: "
				    "splicing through pipes is dev's",
				    splice[i], name);
	}
}

/* ---------------- a program's option table (struct fring_opt) ---------- */

static const char *const size_suffixes = "kmgtpe";

static void opt_refuse(const struct fring_opt *o, const char *value,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "option NAME: 'VALUE' WHY", or "option NAME WHY" without a value */
static void opt_refuse(const struct fring_opt *o, const char *value,
		       const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (value)
		fr_err("option %s: '%s' %s", o->name, value, why);
	else
		fr_err("option %s %s", o->name, why);
}

static bool all_digits(const char *s, int base)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > (base == 8 ? '7' : '9'))
			return false;
	return true;
}

/* A decimal or octal number without sign, space or suffix. */
static bool parse_u64(const char *s, int base, uint64_t *out)
{
	unsigned long long v;

	if (!all_digits(s, base))
		return false;
	errno = 0;
	v = strtoull(s, NULL, base);
	if (errno)
		return false;
	*out = v;
	return true;
}

static bool parse_size(const char *s, uint64_t *out)
{
	size_t n = strlen(s);
	const char *suf;
	char digits[32];
	uint64_t v;
	unsigned shift = 0;

	if (n && (suf = strchr(size_suffixes, s[n - 1] | 0x20))) {
		shift = 10 * (unsigned)(suf - size_suffixes + 1);
		n--;
	}
	if (!n || n >= sizeof(digits))
		return false;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (!parse_u64(digits, 10, &v) || (shift && v > UINT64_MAX >> shift))
		return false;
	*out = v << shift;
	return true;
}

static size_t opt_field_size(enum fring_opt_type t)
{
	switch (t) {
	case FRING_OPT_FLAG:
		return sizeof(bool);
	case FRING_OPT_UINT:
		return sizeof(unsigned);
	case FRING_OPT_SIZE:
		return sizeof(uint64_t);
	case FRING_OPT_SECONDS:
		return sizeof(double);
	case FRING_OPT_MODE:
		return sizeof(mode_t);
	case FRING_OPT_STRING:
		return sizeof(char *);
	case FRING_OPT_ENUM:
		return sizeof(int);
	case FRING_OPT_CUSTOM:
		return 0;
	}
	return 0;
}

/* "a, b, c" of an enum's names */
static void enum_list(const struct fring_opt *o, const char *sep, char *buf,
		      size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; o->names[i] && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? sep : "", o->names[i]);
}

/* Parses value into field by o's type: 0, -EINVAL (said why), -ENOMEM. */
static int opt_store(const struct fring_opt *o, void *field, const char *value)
{
	uint64_t v, max = o->max;
	char list[400];

	switch (o->type) {
	case FRING_OPT_FLAG:
		if (value && strcmp(value, "0") && strcmp(value, "1")) {
			opt_refuse(o, value, "is not 0 or 1 (nothing is 1)");
			return -EINVAL;
		}
		*(bool *)field = !value || value[0] == '1';
		return 0;
	case FRING_OPT_UINT:
		if (!max || max > UINT_MAX)
			max = UINT_MAX;
		if (!value || !*value) {
			opt_refuse(o, NULL,
				   "needs a value: a number from %llu to %llu",
				   (unsigned long long)o->min,
				   (unsigned long long)max);
			return -EINVAL;
		}
		if (!parse_u64(value, 10, &v) || v < o->min || v > max) {
			opt_refuse(o, value,
				   "is not a number from %llu to %llu",
				   (unsigned long long)o->min,
				   (unsigned long long)max);
			return -EINVAL;
		}
		*(unsigned *)field = (unsigned)v;
		return 0;
	case FRING_OPT_SIZE:
		if (!max)
			max = UINT64_MAX;
		if (!value || !*value || !parse_size(value, &v) || v < o->min ||
		    v > max) {
			opt_refuse(
				o, value,
				"%s a size from %llu to %llu bytes: a number "
				"with an optional k, m, g, t, p or e suffix "
				"(powers of 1024)",
				value && *value ? "is not" : "needs",
				(unsigned long long)o->min,
				(unsigned long long)max);
			return -EINVAL;
		}
		*(uint64_t *)field = v;
		return 0;
	case FRING_OPT_SECONDS: {
		char *end = NULL;
		double d = value && *value ? strtod(value, &end) : NAN;

		/* no sign, space, "inf" or "nan" */
		if (!value || !*value || *end || !isfinite(d) || d < 0 ||
		    !(value[0] == '.' ||
		      (value[0] >= '0' && value[0] <= '9')) ||
		    (max && d > (double)max)) {
			if (max)
				opt_refuse(o, value,
					   "%s a number of seconds from 0 to "
					   "%llu",
					   value && *value ? "is not" : "needs",
					   (unsigned long long)max);
			else
				opt_refuse(o, value,
					   "%s a number of seconds, 0 or more",
					   value && *value ? "is not"
							   : "needs");
			return -EINVAL;
		}
		*(double *)field = d;
		return 0;
	}
	case FRING_OPT_MODE:
		if (!max || max > 07777)
			max = 07777;
		if (!value || !parse_u64(value, 8, &v) || v < o->min ||
		    v > max) {
			opt_refuse(o, value,
				   "%s an octal mode from %llo to %llo",
				   value ? "is not" : "needs",
				   (unsigned long long)o->min,
				   (unsigned long long)max);
			return -EINVAL;
		}
		*(mode_t *)field = (mode_t)v;
		return 0;
	case FRING_OPT_STRING: {
		char *copy;

		if (!value || !*value) {
			opt_refuse(o, NULL, "needs a value");
			return -EINVAL;
		}
		copy = strdup(value);
		if (!copy)
			return -ENOMEM;
		/* the previous value is freed by the caller once checked */
		*(char **)field = copy;
		return 0;
	}
	case FRING_OPT_ENUM:
		for (int i = 0; value && o->names[i]; i++)
			if (!strcmp(value, o->names[i])) {
				*(int *)field = i;
				return 0;
			}
		enum_list(o, ", ", list, sizeof(list));
		if (value)
			opt_refuse(o, value, "is not one of: %s", list);
		else
			opt_refuse(o, NULL, "needs a value, one of: %s", list);
		return -EINVAL;
	case FRING_OPT_CUSTOM:
		break;
	}
	return -EINVAL;
}

/* "option NAME: 'VALUE': WHY" for the table's check function */
static void check_refused(const struct fring_opt *o, const char *value,
			  const char *why)
{
	if (value)
		fr_err("option %s: '%s': %s", o->name, value, why);
	else
		fr_err("option %s: %s", o->name, why);
}

static bool opt_entry_ok(const struct fring_opt *o)
{
	if (o->type == FRING_OPT_CUSTOM)
		return o->check != NULL;
	if (o->type == FRING_OPT_ENUM && !o->names)
		return false;
	return opt_field_size(o->type) != 0;
}

int fring_opt_set(const struct fring_opt *table, void *conf, const char *key,
		  const char *value)
{
	const struct fring_opt *o;
	unsigned char saved[sizeof(uint64_t) > sizeof(double) ? sizeof(uint64_t)
							      : sizeof(double)];
	const char *why;
	void *field;
	int ret;

	if (!table || !key)
		return -EINVAL;
	for (o = table; o->name && strcmp(o->name, key); o++)
		;
	if (!o->name)
		return -ENOENT;
	if (!conf || !opt_entry_ok(o)) {
		fr_err("option %s: the program's option table has no %s for "
		       "it",
		       key, !conf ? "structure" : "valid entry");
		return -EINVAL;
	}
	field = (char *)conf + o->offset;
	if (o->type == FRING_OPT_CUSTOM) {
		why = o->check(conf, field, value);
		if (why) {
			check_refused(o, value, why);
			return -EINVAL;
		}
		return 0;
	}
	_Static_assert(sizeof(char *) <= sizeof(saved), "saved holds a field");
	memcpy(saved, field, opt_field_size(o->type));
	ret = opt_store(o, field, value);
	if (ret)
		return ret;
	why = o->check ? o->check(conf, field, value) : NULL;
	if (o->type == FRING_OPT_STRING) {
		char *old;

		/* the one of the two strings that is no longer used */
		if (why)
			free(*(char **)field);
		else
			memcpy(&old, saved, sizeof(old)), free(old);
	}
	if (!why)
		return 0;
	memcpy(field, saved, opt_field_size(o->type));
	check_refused(o, value, why);
	return -EINVAL;
}

void fring_opt_help(const struct fring_opt *table, FILE *out)
{
	for (const struct fring_opt *o = table; o && o->name; o++) {
		char left[256], list[400];
		const char *arg = o->arg, *help = o->help ? o->help : "";
		int n;

		if (!arg) {
			switch (o->type) {
			case FRING_OPT_FLAG:
				arg = "";
				break;
			case FRING_OPT_ENUM:
				if (o->names)
					enum_list(o, "|", list, sizeof(list));
				arg = o->names ? list : "NAME";
				break;
			case FRING_OPT_SIZE:
				arg = "SIZE";
				break;
			case FRING_OPT_SECONDS:
				arg = "S";
				break;
			case FRING_OPT_MODE:
				arg = "OCTAL";
				break;
			case FRING_OPT_STRING:
				arg = "TEXT";
				break;
			default:
				arg = "N";
			}
		}
		if (o->type == FRING_OPT_FLAG && !o->arg)
			n = snprintf(left, sizeof(left), "%s[=0|1]", o->name);
		else if (*arg)
			n = snprintf(left, sizeof(left), "%s=%s", o->name, arg);
		else
			n = snprintf(left, sizeof(left), "%s", o->name);
		/* the column of fring_config_help(); a longer name gets its
		 * text on the next line */
		if (!*help) {
			fprintf(out, "    %s\n", left);
			continue;
		}
		if (n > 22)
			fprintf(out, "    %s\n%27s", left, "");
		else
			fprintf(out, "    %-23s", left);
		for (const char *p = help;;) {
			const char *nl = strchr(p, '\n');
			int len = nl ? (int)(nl - p) : (int)strlen(p);

			fprintf(out, "%.*s\n", len, p);
			if (!nl || !nl[1])
				break;
			p = nl + 1;
			fprintf(out, "%27s", "");
		}
	}
}
