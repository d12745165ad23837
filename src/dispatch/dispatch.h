/* SPDX-License-Identifier: MIT */
/*
 * The dispatcher's entry points for the transports and the session: a
 * message from the kernel, in either framing, decoded and handed to the
 * filesystem; INIT's negotiation; the destroy callback.
 */
#ifndef FRING_DISPATCH_H
#define FRING_DISPATCH_H

#include "core.h"

/* One message from the kernel. */
struct fring_msg {
	const struct fuse_in_header *ih;
	const char *op_in; /* ring: where arg0 is (128 bytes); NULL: classic */
	const char *p;	   /* next input byte */
	size_t left;	   /* input bytes left (extensions excluded) */
	const char *ext;   /* extension block, or NULL */
	size_t ext_len;
	/* A WRITE's data the transport holds rather than the stream: out of
	 * band (not in the stream at all: the client's pages on zero-copy),
	 * or deferred (its place in the stream not filled yet: bytes left in
	 * a pipe by splice_read). The transport's set_buf describes it. */
	bool data_oob;
	uint32_t data_deferred;
	/* When the transport took the request (fring_now_ns()), the start of
	 * its latency; 0: dispatch reads the clock. A ring thread stamps a
	 * whole round of completions with one reading. */
	uint64_t t_start;
};

/* dispatch.c: decodes m into req, calls the filesystem, and answers EIO
 * for a handler that returned without answering (a handler bug). The slot
 * was the transport's to fill; it gets it back through tp->recycle. */
FRING_HIDDEN void fring_dispatch(struct fring_req *req, struct fring_msg *m);
/* Builds the classic framing of a message read from /dev/fuse; -EINVAL if
 * the header is short or disagrees with the length read. */
FRING_HIDDEN int msg_from_dev(struct fring_msg *m, const void *buf, size_t n);
/* Answers EIO to a message that cannot be decoded at all. */
FRING_HIDDEN void fring_reject(struct fring_req *req,
			       const struct fuse_in_header *ih,
			       const char *why);

/* proto.c: the filesystem's destroy callback, once, and only after INIT
 * (DESTROY, or the session's end). */
FRING_HIDDEN void dispatch_destroy(struct fring_session *se);

/* debug.c, the -d line of a request: only called when debug is on */
FRING_HIDDEN void debug_request(const struct fring_req *req,
				const struct fring_msg *m)
	__attribute__((cold, noinline));

/* init.c */
FRING_HIDDEN int init_negotiate(struct fring_session *se,
				const struct fuse_init_in *in, size_t inlen,
				struct fuse_init_out *out, size_t *outlen);
FRING_HIDDEN size_t init_payload_size(const struct fring_conn *c);
/* fs.fuse.max_pages_limit (256 where the file is missing), at most 65535 */
FRING_HIDDEN unsigned init_max_pages_limit(void);

#endif
