/* SPDX-License-Identifier: MIT */
/*
 * fuse_loop_cfg_*: the loop configuration of libfuse 3.12 (an opaque
 * object, struct fuse_loop_config in compat.h). The values are kept for
 * the program to set as it likes; fuse_session_loop_mt() reads only
 * max_threads (1: one callback at a time), since libfring's queues do not
 * grow or shrink a worker pool.
 */
#include <limits.h>
#include <stdlib.h>

#include "compat.h"

struct fuse_loop_config *fuse_loop_cfg_create(void)
{
	struct fuse_loop_config *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	/* libfuse's defaults: no idle limit, at most 10 workers */
	c->max_idle_threads = UINT_MAX;
	c->max_threads = 10;
	return c;
}

void fuse_loop_cfg_destroy(struct fuse_loop_config *config)
{
	free(config);
}

void fuse_loop_cfg_set_idle_threads(struct fuse_loop_config *config,
				    unsigned int value)
{
	if (config)
		config->max_idle_threads = value;
}

void fuse_loop_cfg_set_max_threads(struct fuse_loop_config *config,
				   unsigned int value)
{
	if (config)
		config->max_threads = value;
}

void fuse_loop_cfg_set_clone_fd(struct fuse_loop_config *config,
				unsigned int value)
{
	if (config)
		config->clone_fd = (int)value;
}

void fuse_loop_cfg_convert(struct fuse_loop_config *config,
			   struct fuse_loop_config_v1 *v1_conf)
{
	if (!config || !v1_conf)
		return;
	config->clone_fd = v1_conf->clone_fd;
	config->max_idle_threads = v1_conf->max_idle_threads;
}
