/* SPDX-License-Identifier: MIT */
/*
 * The request life cycle: exactly one answer per request, the EIO safety
 * net for handlers that return without answering, fring_req_async() with
 * answers from other threads, interrupts, and transport failures.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_session.h"

static struct mb m;
static int r1, r2, r3;
static fring_req_t *saved[8];
static unsigned nsaved;

static void lookup(uint64_t nodeid, fk_hook hook)
{
	mb_init(&m, FUSE_LOOKUP, nodeid);
	mb_str(&m, "name");
	fk.hook = hook;
	assert_int_equal(fk_dispatch(&m), 0);
}

static void h_nothing(fring_req_t *req)
{
	(void)req;
}

static void test_unanswered_gets_eio(void **state)
{
	uint64_t bugs = fk_handler_bugs();

	(void)state;
	fk_reset();
	lookup(1, h_nothing);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk.last.len, 16);
	assert_int_equal(fk_out_error(), -EIO);
	assert_int_equal(fk_out_unique(), mb_ih(&m)->unique);
	assert_int_equal(fk_handler_bugs(), bugs + 1);
	assert_non_null(strstr(fk.lastlog, "without an answer"));
	fk_check_idle();
}

static void h_twice(fring_req_t *req)
{
	struct fring_entry e = {.ino = 5};

	r1 = fring_reply_err(req, ENOENT);
	r2 = fring_reply_entry(req, &e);
	r3 = fring_reply_err(req, EIO);
}

static void test_second_answer_refused(void **state)
{
	uint64_t bugs = fk_handler_bugs();

	(void)state;
	fk_reset();
	lookup(1, h_twice);
	assert_int_equal(r1, 0);
	assert_int_equal(r2, -EALREADY);
	assert_int_equal(r3, -EALREADY);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk_out_error(), -ENOENT);
	assert_int_equal(fk_handler_bugs(), bugs + 2);
	fk_check_idle();
}

static void h_bad_then_good(fring_req_t *req)
{
	r1 = fring_reply_err(req, 600); /* becomes EIO: still the answer */
	r2 = fring_reply_err(req, ENOENT);
}

static void test_answer_after_refused_answer(void **state)
{
	(void)state;
	fk_reset();
	lookup(1, h_bad_then_good);
	assert_int_equal(r2, -EALREADY);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk_out_error(), -EIO);
	fk_check_idle();
}

static void h_async(fring_req_t *req)
{
	fring_req_async(req);
	assert_true(nsaved < 8);
	saved[nsaved++] = req;
}

static void *answer_thread(void *arg)
{
	fring_req_t *req = arg;
	struct fring_entry e;

	memset(&e, 0, sizeof(e));
	e.ino = 1000 + fring_req_unique(req);
	e.attr.st_mode = S_IFREG | 0600;
	/* the answer's return goes back through pthread_join(): several of
	 * these threads answer at once (test_async_many) */
	return (void *)(intptr_t)fring_reply_entry(req, &e);
}

static void join_answer(pthread_t t)
{
	void *ret;

	assert_int_equal(pthread_join(t, &ret), 0);
	assert_int_equal((intptr_t)ret, 0);
}

static void test_async_answer_from_thread(void **state)
{
	pthread_t t;
	uint64_t unique;

	(void)state;
	fk_reset();
	nsaved = 0;
	lookup(1, h_async);
	unique = mb_ih(&m)->unique;
	/* no EIO, no answer yet, the slot still busy */
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(fk_handler_bugs(), 0);
	assert_int_equal(fk_in_flight(), 1);
	assert_null(fk.q->free);
	assert_int_equal(fring_req_unique(saved[0]), unique);

	assert_int_equal(pthread_create(&t, NULL, answer_thread, saved[0]), 0);
	join_answer(t);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk_out_error(), 0);
	assert_int_equal(fk_out_unique(), unique);
	assert_int_equal(fk_out_arglen(), 128);
	assert_int_equal(le64(fk_out_arg(), 0), 1000 + unique);
	fk_check_idle();
	assert_int_equal(fk_handler_bugs(), 0);
}

/* Async, answered by another thread before the handler even returns. */
static void h_async_answer_now(fring_req_t *req)
{
	pthread_t t;

	fring_req_async(req);
	assert_int_equal(pthread_create(&t, NULL, answer_thread, req), 0);
	join_answer(t);
}

static void test_async_answered_before_return(void **state)
{
	uint64_t own = atomic_load(&fk.q->stats.replies_own);
	uint64_t shared = atomic_load(&fk.q->stats.replies);

	(void)state;
	fk_reset();
	lookup(1, h_async_answer_now);
	assert_int_equal(fk.nsent, 1);
	/* another thread answered while the handler ran: counted with a
	 * locked add, its reference dropped by itself (fk_check_idle()
	 * finds the slot free with no reference left) */
	assert_int_equal(atomic_load(&fk.q->stats.replies), shared + 1);
	assert_int_equal(atomic_load(&fk.q->stats.replies_own), own);
	assert_int_equal(fk_out_error(), 0);
	fk_check_idle();
	assert_int_equal(fk_handler_bugs(), 0);
}

static void test_async_many(void **state)
{
	pthread_t t[5];
	uint64_t uniq[5];

	(void)state;
	fk_reset();
	nsaved = 0;
	for (int i = 0; i < 5; i++) {
		lookup(10 + (uint64_t)i, h_async);
		uniq[i] = mb_ih(&m)->unique;
	}
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(fk_in_flight(), 5);
	assert_int_equal(fk.q->nslots, 5);
	/* every request got its own slot */
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			assert_ptr_not_equal(saved[i], saved[j]);
	/* answered concurrently, in reverse order */
	for (int i = 4; i >= 0; i--)
		assert_int_equal(
			pthread_create(&t[i], NULL, answer_thread, saved[i]),
			0);
	for (int i = 0; i < 5; i++)
		join_answer(t[i]);
	assert_int_equal(fk.nsent, 5);
	for (int i = 0; i < 5; i++) {
		bool seen = false;

		for (unsigned j = 0; j < fk.nsent; j++)
			seen |= fk.sent_unique[j] == uniq[i];
		assert_true(seen);
	}
	fk_check_idle();
	/* slots are reused, not made anew */
	lookup(1, NULL);
	assert_int_equal(fk.q->nslots, 5);
	fk_check_idle();
}

static void h_reply(fring_req_t *req)
{
	r1 = fring_reply_err(req, ENOENT);
}

static void test_send_failure(void **state)
{
	(void)state;
	fk_reset();
	fk.send_ret = -EPIPE;
	lookup(1, h_reply);
	assert_int_equal(r1, -EPIPE);
	assert_int_equal(fk.nsent, 1);
	/* the request is released anyway */
	fk_check_idle();
	fk.send_ret = 0;
}

static void test_interrupt(void **state)
{
	struct fuse_interrupt_in in;
	struct mb im;
	fring_req_t *req;

	(void)state;
	fk_reset();
	nsaved = 0;
	lookup(1, h_async);
	req = saved[0];
	assert_int_equal(fring_req_interrupted(req), 0);

	in.unique = fring_req_unique(req);
	mb_init(&im, FUSE_INTERRUPT, 0);
	mb_ih(&im)->unique = in.unique | FUSE_INT_REQ_BIT;
	mb_add(&im, &in, sizeof(in));
	fk_reset();
	assert_int_equal(fk_dispatch(&im), 0);
	/* the filesystem hears of it; the kernel gets no answer */
	assert_int_equal(fk.calls[CB_INTERRUPT], 1);
	assert_ptr_equal(fk.c.req, req);
	assert_int_equal(fk.c.unique, in.unique);
	assert_ptr_equal(fk.c.userdata, fk.se->userdata);
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(fk.nnoreply, 1);
	assert_int_equal(fring_req_interrupted(req), 1);

	/* the original is still answered normally */
	r1 = fring_reply_err(req, EINTR);
	assert_int_equal(r1, 0);
	assert_int_equal(fk.nsent, 1);
	assert_int_equal(fk_out_error(), -EINTR);
	assert_int_equal(fk_out_unique(), in.unique);
	fk_check_idle();

	/* too late: no callback */
	fk_reset();
	assert_int_equal(fk_dispatch(&im), 0);
	assert_int_equal(fk.calls[CB_INTERRUPT], 0);
	assert_int_equal(fk.nsent, 0);
	fk_check_idle();
}

static void test_interrupt_without_callback(void **state)
{
	struct fuse_interrupt_in in;
	struct mb im;
	fring_req_t *req;

	(void)state;
	FK_UNSET(interrupt);
	fk_reset();
	nsaved = 0;
	lookup(1, h_async);
	req = saved[0];
	in.unique = fring_req_unique(req);
	mb_init(&im, FUSE_INTERRUPT, 0);
	mb_ih(&im)->unique = in.unique | 1;
	mb_add(&im, &in, sizeof(in));
	assert_int_equal(fk_dispatch(&im), 0);
	assert_int_equal(fring_req_interrupted(req), 1);
	assert_int_equal(fk.nsent, 0);
	fring_reply_err(req, EINTR);
	fk_check_idle();
}

static fring_req_t *acc_req;
static const struct fring_ctx *acc_ctx;

static void h_accessors(fring_req_t *req)
{
	acc_req = req;
	acc_ctx = fring_req_ctx(req);
	assert_ptr_equal(fring_req_userdata(req), fk.se->userdata);
	assert_ptr_equal(fring_req_session(req), fk.se);
	assert_int_equal(fring_req_opcode(req), FUSE_LOOKUP);
	assert_int_equal(fring_req_unique(req), mb_ih(&m)->unique);
	assert_int_equal(fring_req_queue(req), 0);
	assert_int_equal(fring_req_interrupted(req), 0);
	assert_int_equal(acc_ctx->uid, 1000);
	assert_int_equal(acc_ctx->gid, 1001);
	assert_int_equal(acc_ctx->pid, 4242);
	assert_int_equal(acc_ctx->umask, 0);
	fring_reply_err(req, ENOENT);
}

static void test_accessors(void **state)
{
	(void)state;
	fk_reset();
	lookup(1, h_accessors);
	assert_int_equal(fk.nsent, 1);
	fk_check_idle();
}

/*
 * An INTERRUPT whose target is not an ordinary request id: 0 (never used)
 * or odd (an INTERRUPT's own id). Other queue threads hold idle slots
 * (unique 0, one reference) while they wait in read(); the interrupt scan
 * must not take one of those, or the INTERRUPT itself, for the target.
 */
static void test_interrupt_bogus_target(void **state)
{
	struct fuse_interrupt_in in = {.unique = 0};
	struct fring_req *idle;
	struct mb im;

	(void)state;
	idle = req_get(fk.q); /* another worker, blocked in read() */
	assert_non_null(idle);

	mb_init(&im, FUSE_INTERRUPT, 0);
	mb_ih(&im)->unique = 0x41;
	mb_add(&im, &in, sizeof(in));
	fk_reset();
	assert_int_equal(fk_dispatch(&im), 0);
	assert_int_equal(fk.calls[CB_INTERRUPT], 0);
	assert_int_equal(fk.nsent, 0);
	assert_int_equal(atomic_load(&idle->refs), 1);
	assert_false(atomic_load(&idle->interrupted));

	/* an INTERRUPT naming itself */
	in.unique = 0x43;
	mb_init(&im, FUSE_INTERRUPT, 0);
	mb_ih(&im)->unique = 0x43;
	mb_add(&im, &in, sizeof(in));
	fk_reset();
	assert_int_equal(fk_dispatch(&im), 0);
	assert_int_equal(fk.calls[CB_INTERRUPT], 0);
	assert_int_equal(fk.nsent, 0);

	req_put(idle);
	fk_check_idle();
}

static int ngroups_got, ngroups_small, ngroups_none;
static gid_t groups_got[256], groups_small[1];

static void h_groups(fring_req_t *req)
{
	ngroups_got = fring_req_getgroups(req, 256, groups_got);
	ngroups_small = fring_req_getgroups(req, 1, groups_small);
	ngroups_none = fring_req_getgroups(req, 0, NULL);
	r1 = fring_req_getgroups(req, -1, groups_got);
	r2 = fring_req_getgroups(req, 3, NULL);
	fring_reply_err(req, ENOENT);
}

static void test_getgroups(void **state)
{
	gid_t mine[256];
	int n = getgroups(0, NULL);

	(void)state;
	if (n < 0 || n > 256)
		skip(); /* more groups than this test looks at */
	n = getgroups(256, mine);
	assert_true(n >= 0);
	/* a request from this very process */
	mb_init(&m, FUSE_LOOKUP, 1);
	mb_ih(&m)->pid = (uint32_t)getpid();
	mb_str(&m, "x");
	fk_reset();
	fk.hook = h_groups;
	assert_int_equal(fk_dispatch(&m), 0);
	assert_int_equal(ngroups_got, n);
	for (int i = 0; i < n; i++) {
		bool found = false;

		for (int j = 0; j < n; j++)
			found |= groups_got[i] == mine[j];
		assert_true(found);
	}
	assert_int_equal(ngroups_small, n);
	if (n)
		assert_int_equal(groups_small[0], groups_got[0]);
	assert_int_equal(ngroups_none, n);
	assert_int_equal(r1, -EINVAL);
	assert_int_equal(r2, -EINVAL);
	/* a caller that is gone (or not visible) */
	mb_init(&m, FUSE_LOOKUP, 1);
	mb_ih(&m)->pid = 0;
	mb_str(&m, "x");
	assert_int_equal(fk_dispatch(&m), 0);
	assert_true(ngroups_got < 0);
	fk_check_idle();
}

static void test_destroy_before_init(void **state)
{
	(void)state;
	/* destroy() is only for a session that saw INIT */
	fk.se->got_init = false;
	fk_reset();
	mb_init(&m, FUSE_DESTROY, 0);
	assert_int_equal(fk_dispatch(&m), 0);
	assert_int_equal(fk.calls[CB_DESTROY], 0);
	fk_expect_err(&m, 0);
}

static void test_counters(void **state)
{
	uint64_t req = atomic_load(&fk.q->stats.requests);
	uint64_t rep = fk_replies();

	(void)state;
	fk_reset();
	nsaved = 0;
	lookup(1, h_async);
	assert_int_equal(atomic_load(&fk.q->stats.requests), req + 1);
	assert_int_equal(fk_replies(), rep);
	assert_int_equal(fk_in_flight(), 1);
	fring_reply_err(saved[0], ENOENT);
	assert_int_equal(fk_replies(), rep + 1);
	assert_int_equal(fk_in_flight(), 0);
	assert_true(atomic_load(&fk.q->stats.max_latency_ns) > 0);
	fk_check_idle();
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, fk_setup, fk_teardown)
	const struct CMUnitTest tests[] = {
		T(test_unanswered_gets_eio),
		T(test_second_answer_refused),
		T(test_answer_after_refused_answer),
		T(test_async_answer_from_thread),
		T(test_async_answered_before_return),
		T(test_async_many),
		T(test_send_failure),
		T(test_interrupt),
		T(test_interrupt_without_callback),
		T(test_accessors),
		T(test_destroy_before_init),
		T(test_counters),
		T(test_interrupt_bogus_target),
		T(test_getgroups),
	};

	return cmocka_run_group_tests_name("lifecycle", tests, NULL, NULL);
}
