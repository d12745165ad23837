/* SPDX-License-Identifier: MIT */
/*
 * static-names: a program linked against the installed libfring.a that
 * defines functions of its own under names libfring uses internally (names
 * libfring.a once exported as global symbols). Linked statically, the
 * library must keep using its own functions and the program its own: a
 * clash shows as a "multiple definition" link error, or as the library
 * calling one of these (its counter then moves) and going wrong.
 *
 * static-names MISSING_DIR: MISSING_DIR is a path that does not exist (the
 * session's mount must fail there with ENOENT, having logged why).
 * Prints "own: N sentinels ok" and "library: ok" and exits 0 when both
 * sides behaved.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <fring/fring.h>

/* name, number: each returns OWN_BASE + number */
#define OWN_NAMES(X)                                                           \
	X(do_getattr, 1)                                                       \
	X(do_lookup, 2)                                                        \
	X(buf_map, 3)                                                          \
	X(dev_start, 4)                                                        \
	X(malformed, 5)                                                        \
	X(name_ok, 6)                                                          \
	X(req_get, 7)                                                          \
	X(req_put, 8)                                                          \
	X(reply_send, 9)                                                       \
	X(reply_errno, 10)                                                     \
	X(ring_init, 11)                                                       \
	X(ring_free, 12)                                                       \
	X(fill_attr, 13)                                                       \
	X(ladder_settle, 14)                                                   \
	X(ladder_precheck, 15)                                                 \
	X(ladder_sizes, 16)                                                    \
	X(memlock_get, 17)                                                     \
	X(mount_fuse, 18)                                                      \
	X(unmount_fuse, 19)                                                    \
	X(notify_free, 20)                                                     \
	X(signals_install, 21)                                                 \
	X(stats_log, 22)                                                       \
	X(timeout_split, 23)                                                   \
	X(config_ineffective, 24)

#define OWN_BASE  0x51ee00
#define OWN_COUNT 24

static unsigned own_calls[OWN_COUNT + 1];

#define DEFINE_OWN(name, n)                                                    \
	int name(void);                                                        \
	int name(void)                                                         \
	{                                                                      \
		own_calls[n]++;                                                \
		return OWN_BASE + n;                                           \
	}
OWN_NAMES(DEFINE_OWN)

struct own {
	const char *name;
	int (*fn)(void);
	int n;
};
#define OWN_ENTRY(name, n) {#name, name, n},
static const struct own owns[] = {OWN_NAMES(OWN_ENTRY)};

struct sink {
	const char *want; /* a line containing this arrived */
	int seen;
};

static void sink(enum fring_log_level level, const char *line, void *data)
{
	struct sink *s = data;

	(void)level;
	if (s->want && strstr(line, s->want))
		s->seen = 1;
}

static int fail(const char *what)
{
	printf("FAIL: %s\n", what);
	return 1;
}

/* the library's side: each step runs its internal functions (option
 * parsing and logging, the ladder's precheck, mount_fuse, and on destroy
 * unmount_fuse, ring_free, notify_free) */
static int use_library(const char *missing)
{
	static const struct fring_ops ops;
	struct sink s = {0};
	fring_config_t *cfg;
	fring_session_t *se;
	int ret;

	if (strcmp(fring_version(), FRING_VERSION))
		return fail("fring_version() is not FRING_VERSION");
	printf("libfring %s\n", fring_version());
	fring_set_log(sink, &s, FRING_LOG_DEBUG);
	cfg = fring_config_new();
	if (!cfg)
		return fail("fring_config_new");
	if (fring_config_parse(cfg, "queues=2,max_write=65536"))
		return fail("fring_config_parse of valid options");
	if (fring_config_set(cfg, "no_such_option", "1") != -ENOENT)
		return fail("an unknown option: not -ENOENT");
	s.want = "queue_depth=0";
	if (fring_config_set(cfg, "queue_depth", "0") != -EINVAL || !s.seen)
		return fail("queue_depth=0: not -EINVAL, or not logged");
	if (fring_session_new(&ops, sizeof(ops), NULL, cfg, &se))
		return fail("fring_session_new");
	fring_config_free(cfg);
	if (fring_session_transport(se) != FRING_TRANSPORT_AUTO)
		return fail("a new session's transport is not auto");
	s.seen = 0;
	s.want = missing;
	ret = fring_session_mount(se, missing);
	if (ret != -ENOENT || !s.seen) {
		printf("fring_session_mount(%s) = %d\n", missing, ret);
		return fail("a missing mountpoint: not -ENOENT, or not logged");
	}
	fring_session_destroy(se);
	fring_set_log(NULL, NULL, FRING_LOG_INFO);
	return 0;
}

int main(int argc, char *argv[])
{
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: static-names MISSING_DIR\n");
		return 2;
	}
	if (use_library(argv[1]))
		return 1;
	/* the library never reached the program's functions */
	for (size_t i = 0; i < sizeof(owns) / sizeof(owns[0]); i++) {
		if (own_calls[owns[i].n]) {
			printf("FAIL: libfring called the program's %s\n",
			       owns[i].name);
			bad = 1;
		}
	}
	/* and the program's names are its own */
	for (size_t i = 0; i < sizeof(owns) / sizeof(owns[0]); i++) {
		int got = owns[i].fn();

		printf("own %s() = %#x\n", owns[i].name, (unsigned)got);
		if (got != OWN_BASE + owns[i].n || own_calls[owns[i].n] != 1) {
			printf("FAIL: %s is not the program's\n", owns[i].name);
			bad = 1;
		}
	}
	if (bad)
		return 1;
	printf("own: %d sentinels ok\n", OWN_COUNT);
	printf("library: ok\n");
	return 0;
}
