/* SPDX-License-Identifier: MIT */
/*
 * The transport ladder: which rung runs, and why each better one does not.
 * Checked twice: before mounting (what the module and the process allow) and
 * at INIT (what the kernel offers).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fring_int.h"

#define ENABLE_URING_PARAM "/sys/module/fuse/parameters/enable_uring"

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

static const char *uring_refusal(int en)
{
	return en < 0 ? "uring: this kernel has no FUSE-over-io_uring "
			"(Linux 6.14+ with CONFIG_FUSE_IO_URING)"
		      : "uring: enable_uring=N (as root: echo Y "
			"> " ENABLE_URING_PARAM ")";
}

int ladder_precheck(struct fring_session *se)
{
	enum fring_transport t = se->cfg.transport;
	int en;

	switch (t) {
	case FRING_TRANSPORT_ZEROCOPY:
	case FRING_TRANSPORT_BUFPOOL_REGISTERED:
	case FRING_TRANSPORT_BUFPOOL:
		fr_err("transport=%s: not implemented in this libfring yet "
		       "(it needs FUSE ABI 7.46, Linux 7.3+)",
		       fring_transport_name(t));
		return -EOPNOTSUPP;
	case FRING_TRANSPORT_URING:
		en = enable_uring();
		if (en != 1) {
			fr_err("transport=uring refused: %s",
			       uring_refusal(en));
			return -EOPNOTSUPP;
		}
		return 0;
	default:
		return 0;
	}
}

enum fring_transport ladder_choose(struct fring_session *se)
{
	const struct fring_conn *c = &se->conn;
	enum fring_transport want = se->cfg.transport;
	char pool[160], uring[200];
	bool can_uring;

	if (c->proto_minor < 46 || !(c->capable & FUSE_HAS_IO_URING_BUFPOOL))
		snprintf(pool, sizeof(pool),
			 "zerocopy, bufpool-registered, bufpool: kernel ABI "
			 "7.%u%s",
			 c->proto_minor,
			 c->proto_minor < 46
				 ? " < 7.46"
				 : " without FUSE_HAS_IO_URING_BUFPOOL");
	else
		snprintf(pool, sizeof(pool),
			 "zerocopy, bufpool-registered, bufpool: not "
			 "implemented in this libfring yet");

	can_uring = !!(c->capable & FUSE_OVER_IO_URING);
	if (want == FRING_TRANSPORT_DEV)
		snprintf(uring, sizeof(uring), "uring: not asked for");
	else if (!can_uring)
		snprintf(uring, sizeof(uring), "%s",
			 c->proto_minor < 42 ? "uring: kernel ABI < 7.42"
					     : uring_refusal(enable_uring()));
	else
		uring[0] = '\0';

	if (want == FRING_TRANSPORT_DEV) {
		snprintf(se->reason, sizeof(se->reason),
			 "dev (asked for with transport=dev)");
		return FRING_TRANSPORT_DEV;
	}
	if (can_uring) {
		snprintf(se->reason, sizeof(se->reason), "uring (%s)", pool);
		return FRING_TRANSPORT_URING;
	}
	snprintf(se->reason, sizeof(se->reason), "dev (%s; %s)", pool, uring);
	return FRING_TRANSPORT_DEV;
}

void ladder_fell_back(struct fring_session *se, const char *why)
{
	char old[200];

	/* keep only the head of the old reason: the line stays readable */
	snprintf(old, sizeof(old), "%.199s", se->reason);
	snprintf(se->reason, sizeof(se->reason),
		 "dev (uring: %.200s; fell back from: %s)", why, old);
	se->transport = FRING_TRANSPORT_DEV;
}
