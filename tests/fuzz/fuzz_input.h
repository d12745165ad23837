/* SPDX-License-Identifier: MIT */
/*
 * The byte layout of the fuzz targets' inputs, shared with the recorder in
 * tests/unit/fake_session.c that turns the unit tests' messages into seeds.
 * Every byte is meaningful whatever its value (selectors are taken modulo),
 * so a mutation never makes an input unusable.
 *
 * fuzz_decode: a head, then records until the input ends:
 *
 *   head   [0] framing (FZ_DEV...FZ_RING_ZC, modulo)  [1] FZS_* bits
 *          [2] protocol minor (12..46; anything else 46)
 *          [3] ring payload size: 8192, 12288, 32768 or 69632 (modulo)
 *   record [0] FZR_* bits  [1] answer (FZA_*, modulo)  [2] answer parameter
 *          [3..6] answer value, little-endian  [7..8] message length L
 *          then L message bytes (fewer if the input ends first):
 *          dev:  the message as read from /dev/fuse (fuse_in_header ...)
 *          ring: struct fuse_uring_req_header (288 bytes), then payload
 *
 * fuzz_init: FZI_HEAD_LEN bytes of knobs, then a fuse_init_in of any length.
 * fuzz_opts: [0] mode (parse a list, or set one key=value), then the text.
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stdint.h>

enum fz_framing {
	FZ_DEV = 0,	  /* classic: msg_from_dev() + fring_dispatch() */
	FZ_RING = 1,	  /* ring entry, payload in the entry's own buffer */
	FZ_RING_POOL = 2, /* ring entry, payload in a pool buffer (offset) */
	FZ_RING_ZC = 3,	  /* zerocopy rung: registered pool, zero-copy flag */
	FZ_NFRAMINGS
};

/* head[1] */
#define FZS_NO_OPS	    0x01u /* no callbacks: the library's defaults */
#define FZS_NO_SETXATTR_EXT 0x02u
#define FZS_DEBUG	    0x04u /* -o debug: every request logged */
#define FZS_ZC_OPT_IN	    0x08u /* -o zero_copy_opt_in */
#define FZS_NO_FORGET	    0x10u /* forget_multi serves FORGET */
#define FZS_NO_FORGET_MULTI 0x20u /* forget serves BATCH_FORGET */
#define FZS_ZC_DECLARED	    0x40u /* init declared FRING_FS_ZERO_COPY */

/* record[0] */
#define FZR_RAW 0x01u /* as given; else ih.len, payload_sz, pool offset fit */

enum fz_answer {
	FZA_NATURAL = 0, /* the answer type the opcode expects */
	FZA_ERRNO = 1,	 /* fring_reply_err(value) */
	FZA_WRONG = 2,	 /* answer function number `param`, any opcode */
	FZA_TWICE = 3,	 /* natural, then a second answer */
	FZA_NONE = 4,	 /* return without answering */
	FZA_ASYNC = 5,	 /* fring_req_async(), natural answer later */
	FZA_HELPER = 6,	 /* fring_read_from_fd() / fring_write_to_fd() */
	FZA_NANSWERS
};

#define FZ_HEAD_LEN	4
#define FZ_REC_LEN	9
#define FZ_RING_HDR_LEN 288 /* sizeof(struct fuse_uring_req_header) */

#define FZI_HEAD_LEN 16

#endif
