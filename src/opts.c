/* SPDX-License-Identifier: MIT */
/* Options: "-o key[=value],..." strings into struct fring_config. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#define FRING_DEFAULT_MAX_WRITE (1u << 20)
#define FRING_MAX_MAX_WRITE	(16u << 20)
#define FRING_DEFAULT_MAX_ASYNC 256
/* see doc/transports.md for the measurement behind it */
#define FRING_DEFAULT_QUEUE_DEPTH 8

void fring_config_defaults(struct fring_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->transport = FRING_TRANSPORT_AUTO;
	cfg->max_write = FRING_DEFAULT_MAX_WRITE;
	cfg->max_async = FRING_DEFAULT_MAX_ASYNC;
	cfg->queue_depth = FRING_DEFAULT_QUEUE_DEPTH;
	cfg->inline_max = UINT_MAX;
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
	if (!strcmp(key, "max_async"))
		return parse_uint(key, val, 1, 65536, &cfg->max_async);
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
