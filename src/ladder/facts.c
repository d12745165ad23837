/* SPDX-License-Identifier: MIT */
/*
 * What the ladder decides from, read from the process and the machine: the
 * fuse module's enable_uring, the effective capabilities, RLIMIT_MEMLOCK as
 * io_uring applies it. The only file of the ladder that reads them; the
 * decisions (ladder.c, mem.c) take them as given, so that a test can give
 * any combination.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "caps.h"
#include "ladder.h"

/* 1: Y, 0: N, -1: the kernel has no such parameter (before 6.14). */
static int enable_uring(void)
{
	FILE *f = fopen(ENABLE_URING_PARAM, "re");
	int c;

	if (!f)
		return -1;
	c = fgetc(f);
	fclose(f);
	return c == 'Y' || c == '1';
}

/*
 * io_uring asks for CAP_IPC_LOCK in the initial user namespace; a
 * container's root has it only in its own. The initial namespace maps every
 * uid to itself. When unsure, the answer is "initial": then nothing is
 * refused ahead and the kernel decides.
 */
static bool initial_userns(void)
{
	FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long long a, b, n;
	bool init = true;

	if (!f)
		return true;
	if (fscanf(f, "%llu %llu %llu", &a, &b, &n) == 3)
		init = a == 0 && b == 0 && n == 4294967295ULL;
	fclose(f);
	return init;
}

void ladder_facts_read(struct ladder_facts *f)
{
	struct rlimit rl;

	f->enable_uring = enable_uring();
	/* without /proc: no capability is counted on */
	f->cap_sys_admin = cap_effective(CAP_SYS_ADMIN_BIT, false);
	f->cap_ipc_lock = cap_effective(CAP_IPC_LOCK_BIT, false);
	f->ml.charged = !(f->cap_ipc_lock && initial_userns());
	f->ml.limit =
		getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY
			? ~0ULL
			: (unsigned long long)rl.rlim_cur;
}
