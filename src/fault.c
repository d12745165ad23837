/* SPDX-License-Identifier: MIT */
/*
 * The rules behind fault_hit(): per point, which hit fails (the nth only,
 * or the nth and every later one) and with which errno; counters of hits
 * and of faults injected, which the statistics show.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

struct fault_rule {
	bool armed;
	bool onwards; /* "N+": the Nth hit and every later one */
	unsigned nth;
	int err;
};

static const struct {
	const char *name;
	int err; /* what the real call most plausibly fails with */
} points[FAULT_NPOINTS] = {
	[FAULT_RING_SETUP] = {"ring_setup", ENOMEM},
	[FAULT_BUF_REGISTER] = {"buf_register", ENOMEM},
	[FAULT_POOL_ALLOC] = {"pool_alloc", ENOMEM},
	[FAULT_RING_SUBMIT] = {"ring_submit", EAGAIN},
	/* what fuse_dev_do_write() says to an answer it refuses */
	[FAULT_DEV_WRITE] = {"dev_write", EINVAL},
	/* a file that cannot splice (an O_APPEND fd: do_splice()) */
	[FAULT_SPLICE_TO_FD] = {"splice_to_fd", EINVAL},
	/* fuse_dev_splice_write() refusing before it took the buffers */
	[FAULT_SPLICE_SEND] = {"splice_send", EINVAL},
	/* the one failure a well-formed REGISTER meets (fuse_uring_register():
	 * the ring, queue or entry cannot be allocated) */
	[FAULT_RING_REGISTER] = {"ring_register", ENOMEM},
	/* no real call fails: the pipe goes out of step (ring/pipe.c), as it
	 * would if an op on it moved another length */
	[FAULT_ZC_PIPE_SHORT] = {"zc_pipe_short", EIO},
};

static const struct {
	const char *name;
	int err;
} errnames[] = {
	{"EIO", EIO},	    {"ENOSPC", ENOSPC}, {"ENOMEM", ENOMEM},
	{"EAGAIN", EAGAIN}, {"EBUSY", EBUSY},	{"EINTR", EINTR},
	{"EINVAL", EINVAL}, {"EFAULT", EFAULT}, {"EBADF", EBADF},
	{"ENODEV", ENODEV}, {"ENOENT", ENOENT}, {"EPERM", EPERM},
};

static struct fault_rule rules[FAULT_NPOINTS];
static _Atomic unsigned hits[FAULT_NPOINTS];
static _Atomic uint64_t injected[FAULT_NPOINTS];
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int env_ret;

const char *fault_point_name(enum fault_point p)
{
	return p < FAULT_NPOINTS ? points[p].name : "?";
}

static int parse_errno(const char *s, int *out)
{
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++) {
		if (!strcmp(s, errnames[i].name)) {
			*out = errnames[i].err;
			return 0;
		}
	}
	v = strtol(s, &end, 10);
	if (end == s || *end || v <= 0 || v > 4095)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* One "point[:nth[+][:errno]]". */
static int parse_rule(char *item)
{
	char *nth = strchr(item, ':'), *err = NULL;
	struct fault_rule r = {.armed = true, .nth = 1};
	int p;

	if (nth) {
		*nth++ = '\0';
		err = strchr(nth, ':');
		if (err)
			*err++ = '\0';
	}
	for (p = 0; p < FAULT_NPOINTS; p++)
		if (!strcmp(item, points[p].name))
			break;
	if (p == FAULT_NPOINTS) {
		fr_err("FRING_FAULT: no fault point \"%s\"", item);
		return -EINVAL;
	}
	r.err = points[p].err;
	if (nth && *nth) {
		char *end;
		unsigned long v = strtoul(nth, &end, 10);

		r.onwards = *end == '+';
		if (end == nth || v == 0 || v > 1000000000 ||
		    *(end + r.onwards)) {
			fr_err("FRING_FAULT: %s: bad count \"%s\"", item, nth);
			return -EINVAL;
		}
		r.nth = (unsigned)v;
	}
	if (err && parse_errno(err, &r.err)) {
		fr_err("FRING_FAULT: %s: bad errno \"%s\"", item, err);
		return -EINVAL;
	}
	rules[p] = r;
	return 0;
}

int fault_parse(const char *spec)
{
	char *copy, *save = NULL;
	int ret = 0;

	memset(rules, 0, sizeof(rules));
	for (int p = 0; p < FAULT_NPOINTS; p++) {
		atomic_store(&hits[p], 0);
		atomic_store(&injected[p], 0);
	}
	if (!spec || !*spec)
		return 0;
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (char *item = strtok_r(copy, ",", &save); item && !ret;
	     item = strtok_r(NULL, ",", &save))
		ret = parse_rule(item);
	free(copy);
	if (ret) {
		memset(rules, 0, sizeof(rules));
		return ret;
	}
	fr_warn("fault injection armed: FRING_FAULT=%s", spec);
	return 0;
}

static void setup_once(void)
{
	env_ret = fault_parse(getenv("FRING_FAULT"));
}

int fault_setup(void)
{
	pthread_once(&env_once, setup_once);
	return env_ret;
}

int fault_hit(enum fault_point p)
{
	const struct fault_rule *r = &rules[p];
	unsigned n;

	if (!r->armed)
		return 0;
	n = atomic_fetch_add(&hits[p], 1) + 1;
	if (n != r->nth && !(r->onwards && n > r->nth))
		return 0;
	atomic_fetch_add(&injected[p], 1);
	fr_warn("fault injection: %s, hit %u: failing with %s", points[p].name,
		n, strerror(r->err));
	return -r->err;
}

uint64_t fault_injected(enum fault_point p)
{
	return atomic_load(&injected[p]);
}
