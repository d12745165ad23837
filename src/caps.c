/* SPDX-License-Identifier: MIT */
/* The process's effective capabilities, from /proc/self/status. */
#include <stdio.h>

#include "caps.h"

bool cap_effective(int bit, bool unreadable)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	bool ret = false;

	if (!f)
		return unreadable;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			ret = caps & (1ULL << bit);
			break;
		}
	}
	fclose(f);
	return ret;
}
