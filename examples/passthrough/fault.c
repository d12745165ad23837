/* SPDX-License-Identifier: MIT */
/*
 * -o fault=eio|enospc|short[:N] (builds with -Dfault_injection=true only):
 * the backing store fails every Nth data request (default every one), so
 * tests see what a client gets from a failing disk. eio: every Nth READ or
 * WRITE answers EIO; enospc: every Nth WRITE answers ENOSPC; short: every
 * Nth WRITE stores only the first half of its data and says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passthrough.h"

int pt_fault_opt(struct pt_fs *fs, const char *value)
{
	static const char *const names[] = {
		[PT_FAULT_EIO] = "eio",
		[PT_FAULT_ENOSPC] = "enospc",
		[PT_FAULT_SHORT] = "short",
	};
	const char *colon = value ? strchr(value, ':') : NULL;
	size_t len = colon   ? (size_t)(colon - value)
		     : value ? strlen(value)
			     : 0;

	for (int k = PT_FAULT_EIO; k <= PT_FAULT_SHORT; k++) {
		char *end;
		unsigned long n = 1;

		if (strlen(names[k]) != len || strncmp(value, names[k], len))
			continue;
		if (colon) {
			n = strtoul(colon + 1, &end, 10);
			if (end == colon + 1 || *end || n == 0 || n > 1000000)
				break;
		}
		fs->fault = (enum pt_fault)k;
		fs->fault_every = (unsigned)n;
		return 0;
	}
	return -EINVAL;
}

int pt_fault_next(struct pt_fs *fs, bool is_write)
{
	unsigned n;

	if (fs->fault == PT_FAULT_NONE ||
	    (!is_write && fs->fault != PT_FAULT_EIO))
		return 0;
	n = atomic_fetch_add(&fs->fault_count, 1) + 1;
	if (n % fs->fault_every)
		return 0;
	fring_log_msg(FRING_LOG_INFO, "passthrough: fault injected: %s %u",
		      is_write ? "write" : "read", n);
	switch (fs->fault) {
	case PT_FAULT_EIO:
		return EIO;
	case PT_FAULT_ENOSPC:
		return ENOSPC;
	default:
		return -1;
	}
}
