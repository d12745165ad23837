/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: FUSE_INIT negotiation. init_negotiate() gets a fuse_init_in
 * of any length, major, minor and flags, from a session whose callbacks,
 * options and init callback (which may set any limit or capability) the
 * input chooses. The kernel stores our answer without intersecting it
 * (process_init_reply()), so the answer is checked here against what was
 * offered: no flag that was not offered or only describes the kernel,
 * flags2 only with INIT_EXT, every limit in its range, a length the
 * kernel's minor accepts, and max_pages following max_write unless the
 * callback chose it.
 *
 * Input: FZI_HEAD_LEN bytes (all zero: the unit tests' fixture, every
 * callback set and no change in the init callback), then the fuse_init_in.
 *   [0] callbacks removed: 1 getlk, 2 setlk, 4 flock, 8 readdirplus,
 *       16 ioctl, 32 init
 *   [1] what the init callback sets: 1 max_write = A, 2 max_pages = B,
 *       4 max_background = A and congestion_threshold = B, 8 time_gran = A,
 *       16 max_readahead = B, 32 request_timeout = A, 64 want |= A:B,
 *       128 want = A:B
 *   [2..5] A, [6..9] B, [10..13] -o max_write (0: default, else 4095 + n),
 *   [14] -o max_readahead in pages, [15] -o max_read in pages
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_session.h"
#include "fuzz.h"

/* Flags never sent back (init.c's KERNEL_ONLY_CAPS, by the ABI); of them
 * the library keeps the no-open pair in want (LIBRARY_CAPS). */
#define LIBRARY_ONLY (FUSE_NO_OPEN_SUPPORT | FUSE_NO_OPENDIR_SUPPORT)
#define KERNEL_ONLY                                                            \
	(FUSE_SPLICE_READ | FUSE_SPLICE_WRITE | FUSE_SPLICE_MOVE |             \
	 FUSE_NO_OPEN_SUPPORT | FUSE_NO_OPENDIR_SUPPORT | FUSE_INIT_RESERVED | \
	 FUSE_HAS_INODE_DAX | FUSE_HAS_EXPIRE_ONLY | FUSE_HAS_RESEND |         \
	 FUSE_HAS_IO_URING_BUFPOOL | FUSE_MAP_ALIGNMENT | FUSE_SUBMOUNTS)

/* callbacks whose presence changes what is asked for, by head[0] bit */
static const size_t optional[] = {
	offsetof(struct fring_ops, getlk),
	offsetof(struct fring_ops, setlk),
	offsetof(struct fring_ops, flock),
	offsetof(struct fring_ops, readdirplus),
	offsetof(struct fring_ops, ioctl),
	offsetof(struct fring_ops, init),
};

static const uint8_t *head;
static uint32_t arg_a, arg_b;
static uint32_t proposed_pages; /* what the callback was offered */

void fz_check_failed(const char *what, int line)
{
	fprintf(stderr, "fuzz_init.c:%d: check failed: %s\n", line, what);
	abort();
}

static void init_hook(struct fring_conn *c)
{
	uint8_t set = head[1];
	uint64_t ab = (uint64_t)arg_a << 32 | arg_b;

	proposed_pages = c->max_pages;
	if (set & 1)
		c->max_write = arg_a;
	if (set & 2)
		c->max_pages = arg_b;
	if (set & 4) {
		c->max_background = arg_a;
		c->congestion_threshold = arg_b;
	}
	if (set & 8)
		c->time_gran = arg_a;
	if (set & 16)
		c->max_readahead = arg_b;
	if (set & 32)
		c->request_timeout = arg_a;
	if (set & 64)
		c->want |= ab;
	if (set & 128)
		c->want = ab;
}

static void check_answer(const struct fuse_init_in *in,
			 const struct fuse_init_out *out, size_t outlen)
{
	const struct fring_conn *c = &fk.se->conn;
	uint64_t offered = in->flags, got = out->flags;
	uint64_t pages_for_write;
	unsigned limit = init_max_pages_limit();

	if (in->minor >= 36 && (in->flags & FUSE_INIT_EXT))
		offered |= (uint64_t)in->flags2 << 32;
	if (out->flags & FUSE_INIT_EXT)
		got |= (uint64_t)out->flags2 << 32;
	else
		FZ_CHECK(out->flags2 == 0);
	FZ_CHECK(out->major == FUSE_KERNEL_VERSION);
	FZ_CHECK(out->minor == (in->minor < FUSE_KERNEL_MINOR_VERSION
					? in->minor
					: FUSE_KERNEL_MINOR_VERSION));
	FZ_CHECK(outlen == (in->minor < 23 ? FUSE_COMPAT_22_INIT_OUT_SIZE
					   : sizeof(*out)));
	/* INIT_EXT only to carry flags2, and only if the kernel has it */
	FZ_CHECK(!(got & FUSE_INIT_EXT) ||
		 ((offered & FUSE_INIT_EXT) && out->flags2));
	FZ_CHECK((got & ~(uint64_t)FUSE_INIT_EXT & ~offered) == 0);
	FZ_CHECK((got & KERNEL_ONLY) == 0);
	/* the no-open pair stays in want, for the library, and is not sent */
	FZ_CHECK((c->want & ~LIBRARY_ONLY) == (got & ~(uint64_t)FUSE_INIT_EXT));
	FZ_CHECK((c->want & LIBRARY_ONLY & ~offered) == 0);
	FZ_CHECK(fk.se->no_open ==
		 (!fk.se->ops.open && (c->want & FUSE_NO_OPEN_SUPPORT)));
	FZ_CHECK(fk.se->no_opendir ==
		 (!fk.se->ops.opendir && (c->want & FUSE_NO_OPENDIR_SUPPORT)));
	FZ_CHECK(fk.se->setxattr_ext == !!(got & FUSE_SETXATTR_EXT));
	FZ_CHECK(fk.se->got_init);

	FZ_CHECK(out->max_write >= 4096 && out->max_write <= (16u << 20));
	FZ_CHECK(c->max_write == out->max_write);
	FZ_CHECK(out->max_pages >= 1 && out->max_pages <= limit);
	FZ_CHECK(c->max_pages == out->max_pages);
	if (!(got & FUSE_MAX_PAGES))
		FZ_CHECK(out->max_pages == FUSE_DEFAULT_MAX_PAGES_PER_REQ);
	/* pages follow max_write unless the callback chose them */
	pages_for_write =
		((uint64_t)out->max_write + FRING_PAGE - 1) / FRING_PAGE;
	if ((got & FUSE_MAX_PAGES) &&
	    (!fk.se->ops.init || !(head[1] & 2) || arg_b == proposed_pages))
		FZ_CHECK(out->max_pages ==
			 (pages_for_write < limit ? pages_for_write : limit));
	FZ_CHECK(out->max_readahead <= in->max_readahead);
	FZ_CHECK(out->time_gran >= 1 && out->time_gran <= 1000000000u);
	FZ_CHECK(c->max_background <= 65535 &&
		 c->congestion_threshold <= 65535);
	FZ_CHECK(out->max_background == c->max_background);
	FZ_CHECK(out->congestion_threshold == c->congestion_threshold);
	FZ_CHECK(c->request_timeout <= 65535);
	FZ_CHECK(out->request_timeout == c->request_timeout);
	FZ_CHECK(init_payload_size(c) >= FUSE_MIN_READ_BUFFER &&
		 init_payload_size(c) >= out->max_write &&
		 init_payload_size(c) >= (size_t)out->max_pages * FRING_PAGE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t h[FZI_HEAD_LEN] = {0};
	struct fuse_init_in in;
	struct fuse_init_out out;
	size_t inlen, outlen = 0;
	uint32_t mw;
	void *msg;
	int ret;

	memcpy(h, data, size < sizeof(h) ? size : sizeof(h));
	head = h;
	inlen = size > sizeof(h) ? size - sizeof(h) : 0;
	arg_a = fz_le32(h + 2);
	arg_b = fz_le32(h + 6);

	fk_setup(NULL);
	fk.se->got_init = false;
	memset(&fk.se->conn, 0, sizeof(fk.se->conn));
	fk.se->setxattr_ext = false;
	fk.init_hook = init_hook;
	for (unsigned i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		if (h[0] & (1u << i))
			memset((char *)&fk.se->ops + optional[i], 0,
			       sizeof(fk.se->ops.init));
	/* options as the parser allows them */
	mw = fz_le32(h + 10);
	if (mw)
		fk.se->cfg.max_write =
			4096 + (mw - 1) % ((16u << 20) - 4096 + 1);
	fk.se->cfg.max_readahead = (uint32_t)h[14] * FRING_PAGE;
	fk.se->cfg.max_read = (uint32_t)h[15] * FRING_PAGE;

	/* exactly inlen readable bytes, aligned as the kernel's message */
	msg = malloc(inlen ? inlen : 1);
	FZ_CHECK(msg);
	memcpy(msg, data + sizeof(h), inlen);
	ret = init_negotiate(fk.se, msg, inlen, &out, &outlen);
	memset(&in, 0, sizeof(in));
	memcpy(&in, msg, inlen < sizeof(in) ? inlen : sizeof(in));
	free(msg);

	if (inlen < 8) {
		FZ_CHECK(ret == -EINVAL);
	} else if (in.major > FUSE_KERNEL_VERSION) {
		/* our major only; the kernel then retries in our version */
		FZ_CHECK(ret == 1 && outlen == 8);
		FZ_CHECK(out.major == FUSE_KERNEL_VERSION);
		FZ_CHECK(!fk.se->got_init);
	} else if (in.major < FUSE_KERNEL_VERSION || in.minor < 12) {
		FZ_CHECK(ret == -EPROTO);
		FZ_CHECK(!fk.se->got_init);
	} else {
		FZ_CHECK(ret == 0);
		check_answer(&in, &out, outlen);
	}
	fk_teardown(NULL);
	return 0;
}
