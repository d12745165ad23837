/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the option parser. Input byte 0 picks the entry point, the
 * rest is the text:
 *   0  fring_config_parse(cfg, text), as -o gives it
 *   1  fring_config_set(cfg, key, value): key up to the first NUL byte,
 *      the value after it (NULL when there is none)
 *   2  fring_config_set(cfg, key, value) split at the first '='
 * Whatever the text, the call returns 0 or a -errno the API names, and the
 * configuration it leaves (options before a bad one are applied) holds
 * only values the options allow.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "fuzz.h"

void fz_check_failed(const char *what, int line)
{
	fprintf(stderr, "fuzz_opts.c:%d: check failed: %s\n", line, what);
	abort();
}

static void quiet(enum fring_log_level lvl, const char *line, void *data)
{
	(void)lvl;
	(void)line;
	(void)data;
}

static void check_name(const char *s)
{
	size_t len = strnlen(s, FRING_NAME_LEN);

	FZ_CHECK(len < FRING_NAME_LEN);
	FZ_CHECK(!strpbrk(s, ", \t\n"));
}

static void check_config(const struct fring_config *cfg)
{
	FZ_CHECK((unsigned)cfg->transport <= FRING_TRANSPORT_DEV);
	FZ_CHECK(strcmp(fring_transport_name(cfg->transport), "?"));
	FZ_CHECK(cfg->queues <= 4096);
	FZ_CHECK(cfg->max_write >= 4096 && cfg->max_write <= (16u << 20));
	FZ_CHECK(cfg->max_read == 0 || cfg->max_read >= 4096);
	FZ_CHECK(cfg->queue_depth >= 1 && cfg->queue_depth <= 1024);
	FZ_CHECK(cfg->threads <= 4096);
	FZ_CHECK(cfg->pool_bufs <= 65536);
	FZ_CHECK(cfg->max_async >= 1 && cfg->max_async <= 65536);
	check_name(cfg->fsname);
	check_name(cfg->subtype);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fring_set_log(quiet, NULL, FRING_LOG_DEBUG);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fring_config_t *cfg;
	char *text, *val;
	int ret;

	if (size < 1)
		return 0;
	/* the text exactly as long as given, NUL-terminated */
	text = malloc(size);
	cfg = fring_config_new();
	FZ_CHECK(text && cfg);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		ret = fring_config_parse(cfg, text);
		break;
	case 1:
		val = memchr(text, '\0', size - 1);
		ret = fring_config_set(cfg, text, val ? val + 1 : NULL);
		break;
	default:
		val = strchr(text, '=');
		if (val)
			*val++ = '\0';
		ret = fring_config_set(cfg, text, val);
	}
	FZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENOENT ||
		 ret == -ENOMEM);
	check_config(cfg);
	/* a transport name read back selects the same transport */
	{
		enum fring_transport t = cfg->transport;

		FZ_CHECK(fring_config_set(cfg, "transport",
					  fring_transport_name(t)) == 0);
		FZ_CHECK(cfg->transport == t);
	}
	fring_config_free(cfg);
	free(text);
	return 0;
}
