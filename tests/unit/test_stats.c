/* SPDX-License-Identifier: MIT */
/* Statistics: fring_session_stats() and fring_session_write_stats(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_session.h"

static struct mb m;

static void lookup(void)
{
	mb_init(&m, FUSE_LOOKUP, 1);
	mb_str(&m, "x");
	fk_reset();
	assert_int_equal(fk_dispatch(&m), 0);
}

/* Runs fring_session_write_stats() into memory; returns its result. */
static int write_stats(const fring_session_t *se, char **text)
{
	int fd = memfd_create("stats", MFD_CLOEXEC);
	off_t len;
	int ret;

	assert_true(fd >= 0);
	ret = fring_session_write_stats(se, fd);
	len = lseek(fd, 0, SEEK_END);
	*text = calloc(1, (size_t)len + 1);
	assert_non_null(*text);
	assert_int_equal(pread(fd, *text, (size_t)len, 0), len);
	close(fd);
	return ret;
}

/* Braces and brackets balance outside strings; strings are closed. */
static void check_json_shape(const char *s)
{
	int depth = 0;
	bool in_str = false;

	assert_int_equal(s[0], '{');
	for (const char *p = s; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
			else
				assert_true((unsigned char)*p >= 0x20);
			continue;
		}
		if (*p == '"')
			in_str = true;
		else if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		assert_true(depth >= 0);
	}
	assert_false(in_str);
	assert_int_equal(depth, 0);
	assert_int_equal(s[strlen(s) - 1], '\n');
}

static void test_stats_one_queue(void **state)
{
	struct fring_stats st;

	(void)state;
	lookup();
	lookup();
	assert_int_equal(fring_session_stats(fk.se, 0, &st), 0);
	assert_int_equal(st.requests, 2);
	assert_int_equal(st.replies, 2);
	assert_int_equal(st.errors, 2);
	assert_int_equal(st.in_flight, 0);
	assert_int_equal(st.by_opcode[FUSE_LOOKUP], 2);
	assert_int_equal(fring_session_stats(fk.se, FRING_STATS_ALL, &st), 0);
	assert_int_equal(st.requests, 2);
	assert_int_equal(fring_session_stats(fk.se, 1, &st), -EINVAL);
	assert_int_equal(fring_session_stats(NULL, 0, &st), -EINVAL);
	assert_int_equal(fring_session_stats(fk.se, 0, NULL), -EINVAL);
}

static void test_stats_side_channel(void **state)
{
	struct fring_queue side;
	struct fring_stats st;

	(void)state;
	memset(&side, 0, sizeof(side));
	atomic_store(&side.stats.requests, 5);
	atomic_store(&side.stats.max_latency_ns, 1u << 30);
	lookup();
	fk.se->side = &side;
	assert_int_equal(fring_session_stats(fk.se, FRING_STATS_ALL, &st), 0);
	assert_int_equal(st.requests, 6);
	assert_int_equal(st.max_latency_ns, 1u << 30);
	/* a single queue is just that queue */
	assert_int_equal(fring_session_stats(fk.se, 0, &st), 0);
	assert_int_equal(st.requests, 1);
	fk.se->side = NULL;
}

static fring_req_t *held;

static void hold(fring_req_t *req)
{
	fring_req_async(req);
	held = req;
}

/* A request the handler keeps shows its age until it is answered. */
static void test_oldest_pending(void **state)
{
	struct fring_stats st;
	char *text;

	(void)state;
	lookup();
	assert_int_equal(fring_session_stats(fk.se, 0, &st), 0);
	assert_int_equal(st.oldest_pending_ns, 0);
	fk.hook = hold;
	lookup();
	fk.hook = NULL;
	assert_non_null(held);
	usleep(20000);
	assert_int_equal(fring_session_stats(fk.se, FRING_STATS_ALL, &st), 0);
	assert_int_equal(st.in_flight, 1);
	assert_true(st.oldest_pending_ns >= 20000000u);
	assert_true(st.oldest_pending_ns < 10000000000u);
	assert_int_equal(write_stats(fk.se, &text), 0);
	assert_non_null(strstr(text, "\"oldest_pending_ns\":"));
	assert_null(strstr(text, "\"oldest_pending_ns\":0,"));
	free(text);
	assert_int_equal(fring_reply_err(held, ENOENT), 0);
	held = NULL;
	assert_int_equal(fring_session_stats(fk.se, 0, &st), 0);
	assert_int_equal(st.in_flight, 0);
	assert_int_equal(st.oldest_pending_ns, 0);
}

/* Every key of the JSON's totals reads by name, with the JSON's value. */
static void test_counter_by_name(void **state)
{
	struct fring_queue side;
	char *text, *p, key[64];
	unsigned long long jv;
	uint64_t v;
	int keys = 0;

	(void)state;
	memset(&side, 0, sizeof(side));
	atomic_store(&side.stats.max_latency_ns, 1u << 30);
	fk.se->side = &side;
	lookup();
	lookup();
	assert_int_equal(fring_session_counter(fk.se, 0, "requests", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(
		fring_session_counter(fk.se, FRING_STATS_ALL, "errors", &v), 0);
	assert_int_equal(v, 2);
	/* MAX, not a sum: the side channel's is the largest */
	assert_int_equal(fring_session_counter(fk.se, FRING_STATS_ALL,
					       "max_latency_ns", &v),
			 0);
	assert_int_equal(v, 1u << 30);
	assert_int_equal(fring_session_counter(fk.se, 0, "no_such", &v),
			 -ENOENT);
	/* the splice counters' earlier names read the renamed counters */
	atomic_store(&side.stats.splice_read_data_bytes, 7);
	atomic_store(&side.stats.splice_write_data_bytes, 9);
	assert_int_equal(fring_session_counter(fk.se, FRING_STATS_ALL,
					       "splice_write_bytes", &v),
			 0);
	assert_int_equal(v, 7);
	assert_int_equal(fring_session_counter(fk.se, FRING_STATS_ALL,
					       "splice_read_bytes", &v),
			 0);
	assert_int_equal(v, 9);
	assert_int_equal(fring_session_counter(fk.se, FRING_STATS_ALL,
					       "splice_requests", &v),
			 0);
	assert_int_equal(v, 0);
	assert_int_equal(fring_session_counter(fk.se, 1, "requests", &v),
			 -EINVAL);
	assert_int_equal(fring_session_counter(NULL, 0, "requests", &v),
			 -EINVAL);
	assert_int_equal(fring_session_counter(fk.se, 0, NULL, &v), -EINVAL);
	assert_int_equal(fring_session_counter(fk.se, 0, "requests", NULL),
			 -EINVAL);
	assert_int_equal(write_stats(fk.se, &text), 0);
	/* the totals run from "queues" to "proto_minor" */
	p = strstr(text, "\"queues\":");
	assert_non_null(p);
	p = strchr(p, ',') + 1;
	while (sscanf(p, "\"%63[^\"]\":%llu", key, &jv) == 2 &&
	       strcmp(key, "proto_minor")) {
		assert_int_equal(
			fring_session_counter(fk.se, FRING_STATS_ALL, key, &v),
			0);
		if (strcmp(key, "oldest_pending_ns"))
			assert_int_equal(v, jv);
		keys++;
		p = strchr(p, ',') + 1;
	}
	assert_true(keys >= 18);
	free(text);
	fk.se->side = NULL;
}

static void test_write_stats(void **state)
{
	char *text;

	(void)state;
	lookup();
	snprintf(session_reason_buf(fk.se), FRING_REASON_LEN,
		 "dev (\"quoted\" \\ reason)");
	assert_int_equal(write_stats(fk.se, &text), 0);
	check_json_shape(text);
	assert_non_null(strstr(text, "\"requests\":1"));
	assert_non_null(strstr(text, "\"LOOKUP\":1"));
	assert_non_null(strstr(text, "\"per_queue\":[{\"queue\":0,"));
	assert_non_null(strstr(text, "\\\"quoted\\\" \\\\ reason"));
	free(text);
	assert_int_equal(fring_session_write_stats(fk.se, -1), -EINVAL);
	assert_int_equal(fring_session_write_stats(NULL, 1), -EINVAL);
}

/*
 * The ring transports use one queue per possible CPU: big machines have
 * hundreds. The JSON must still be written whole.
 */
static void test_write_stats_many_queues(void **state)
{
	struct fring_session *se = calloc(1, sizeof(*se));
	const unsigned n = 512;
	char *text;
	int ret;

	(void)state;
	assert_non_null(se);
	se->queues = calloc(n, sizeof(*se->queues));
	assert_non_null(se->queues);
	se->nqueues = n;
	for (unsigned i = 0; i < n; i++) {
		se->queues[i].se = se;
		se->queues[i].idx = i;
		atomic_store(&se->queues[i].stats.requests, 1000000000ull + i);
		atomic_store(&se->queues[i].stats.replies, 1000000000ull + i);
		atomic_store(&se->queues[i].stats.max_latency_ns, 123456789);
	}
	ret = write_stats(se, &text);
	free(se->queues);
	free(se);
	if (ret) {
		free(text);
		fail_msg("fring_session_write_stats with %u queues: %s (%d)", n,
			 strerror(-ret), ret);
	}
	check_json_shape(text);
	assert_non_null(strstr(text, "{\"queue\":511,"));
	free(text);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, fk_setup, fk_teardown)
	const struct CMUnitTest tests[] = {
		T(test_stats_one_queue), T(test_stats_side_channel),
		T(test_oldest_pending),	 T(test_counter_by_name),
		T(test_write_stats),	 T(test_write_stats_many_queues),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
