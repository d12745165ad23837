/* SPDX-License-Identifier: MIT */
/*
 * A fake session for the unit tests: one queue, request slots from the
 * library's own req_get(), a transport that captures every answer as the
 * bytes the kernel would read, and recording callbacks for every member of
 * struct fring_ops. Single global instance `fk`; not thread-safe except for
 * answering from another thread (which the transport serialises).
 */
#ifndef FAKE_SESSION_H
#define FAKE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Which callback ran. */
enum cb_id {
	CB_NONE = 0,
	CB_INIT,
	CB_DESTROY,
	CB_LOOKUP,
	CB_FORGET,
	CB_FORGET_MULTI,
	CB_GETATTR,
	CB_SETATTR,
	CB_READLINK,
	CB_MKNOD,
	CB_MKDIR,
	CB_UNLINK,
	CB_RMDIR,
	CB_SYMLINK,
	CB_RENAME,
	CB_LINK,
	CB_OPEN,
	CB_READ,
	CB_WRITE,
	CB_FLUSH,
	CB_RELEASE,
	CB_FSYNC,
	CB_OPENDIR,
	CB_READDIR,
	CB_READDIRPLUS,
	CB_RELEASEDIR,
	CB_FSYNCDIR,
	CB_STATFS,
	CB_SETXATTR,
	CB_GETXATTR,
	CB_LISTXATTR,
	CB_REMOVEXATTR,
	CB_ACCESS,
	CB_CREATE,
	CB_TMPFILE,
	CB_GETLK,
	CB_SETLK,
	CB_FLOCK,
	CB_BMAP,
	CB_IOCTL,
	CB_POLL,
	CB_FALLOCATE,
	CB_LSEEK,
	CB_COPY_FILE_RANGE,
	CB_SYNCFS,
	CB_STATX,
	CB_INTERRUPT,
	CB_COUNT
};

#define FK_MAXDATA   70000
#define FK_MAXFORGET 16

/* What the last callback received (strings and data copied). */
struct fk_call {
	enum cb_id id;
	fring_req_t *req;
	uint32_t opcode; /* fring_req_opcode(req) */
	uint64_t unique;
	struct fring_ctx ctx;
	fring_ino_t ino, ino2;
	char name[4200], name2[4200];
	bool name_null; /* the string argument was NULL */
	mode_t mode;
	dev_t rdev;
	unsigned flags;
	int to_set;
	struct stat st;
	bool has_fi, has_fi2;
	struct fring_file fi, fi2;
	size_t size, size2;
	off_t off, off2;
	uint64_t u64;
	int i;
	struct flock fl;
	struct fring_buf buf;
	const void *ptr; /* the raw data pointer (write src, ioctl in_buf) */
	unsigned char data[FK_MAXDATA];
	size_t datalen;
	void *userdata;
};

/* One answer the kernel would have read. */
struct fk_sent {
	unsigned char *bytes; /* header + args, gathered */
	size_t len;
	int cnt; /* iovec count handed to send() */
};

typedef void (*fk_hook)(fring_req_t *req);

struct fake {
	struct fring_session *se;
	struct fring_queue *q;
	/* callbacks */
	unsigned ncalls;	  /* callbacks run (forget: one per ino) */
	unsigned calls[CB_COUNT]; /* per callback */
	struct fk_call c;	  /* the last one */
	struct fring_forget forgets[FK_MAXFORGET];
	size_t nforgets;
	/* After recording, a request-taking callback calls hook(req) if set,
	 * else answers fring_reply_err(req, FK_MARK). */
	fk_hook hook;
	/* init callback: sees conn (copied to init_seen), may change it */
	void (*init_hook)(struct fring_conn *conn);
	struct fring_conn init_seen;
	/* transport */
	pthread_mutex_t send_lock;
	unsigned nsent;
	unsigned nnoreply;
	struct fk_sent last;
	uint64_t sent_unique[64]; /* unique of each answer, in order */
	int32_t sent_error[64];
	int send_ret; /* what send() returns */
	/* log sink */
	unsigned nlog;
	char lastlog[1024];
	/* the message buffer (guard-paged) */
	unsigned char *guard_base;
	size_t guard_len; /* usable bytes before the guard page */
	void *exact;	  /* sanitizer builds: the malloc'd copy */
	uint64_t next_unique;
};

/* The errno a recording callback answers with when no hook is set. */
#define FK_MARK ENOTRECOVERABLE

extern struct fake fk;

/* cmocka setup/teardown: a fresh fake session with every callback set. */
int fk_setup(void **state);
int fk_teardown(void **state);
/* Clears a callback (to test the library's default for it). */
#define FK_UNSET(member) (fk.se->ops.member = NULL)

/* Message builder: header + args, as read from /dev/fuse. */
struct mb {
	unsigned char b[FK_MAXDATA + 4096] __attribute__((aligned(8)));
	size_t len;
};
/* Starts a message; uid 1000, gid 1001, pid 4242, a fresh even unique. */
void mb_init(struct mb *m, uint32_t opcode, uint64_t nodeid);
void mb_add(struct mb *m, const void *p, size_t n);
void mb_str(struct mb *m, const char *s); /* with its NUL */
struct fuse_in_header *mb_ih(struct mb *m);
/* Sets ih.len = len. */
void mb_done(struct mb *m);

/*
 * Dispatches the first n bytes of msg (with in_header.len patched to n) as
 * /dev/fuse would deliver them: the copy ends exactly where readable memory
 * ends (guard page; an exact malloc under sanitizers). Returns 0, or the
 * -errno of msg_from_dev() (then nothing is dispatched).
 */
int fk_dispatch_n(const struct mb *m, size_t n);
int fk_dispatch(const struct mb *m);
/* Ring framing: header, arg0 in a separate 128-byte op_in, payload. */
void fk_dispatch_ring(const struct fuse_in_header *ih, const void *op_in,
		      size_t op_in_len, const void *payload, size_t plen);

/*
 * Seeds for the fuzz targets (tests/fuzz): with FK_RECORD_DIR set, every
 * message dispatched above is also written to $FK_RECORD_DIR/decode/ as a
 * fuzz_decode input, and fk_record() writes head + msg as an input of
 * `target` to $FK_RECORD_DIR/target/ (scripts/fuzz-corpus.sh).
 */
void fk_record(const char *target, const void *head, size_t hlen,
	       const void *msg, size_t n);

/* The last answer: header fields and the bytes after it. */
uint32_t fk_out_len(void);
int32_t fk_out_error(void);
uint64_t fk_out_unique(void);
const unsigned char *fk_out_arg(void); /* after the 16-byte header */
size_t fk_out_arglen(void);

/* Little-endian readers at a byte offset. */
uint16_t le16(const void *p, size_t off);
uint32_t le32(const void *p, size_t off);
uint64_t le64(const void *p, size_t off);

/* ---- expectations (cmocka asserts) ---- */
/* Forgets every recorded call and answer (not the statistics). */
void fk_reset(void);
/* No request in flight and every slot back on the free list. */
void fk_check_idle(void);
/* Callback id ran exactly once for m, with m's header values, and its
 * FK_MARK answer was the only one sent. */
void fk_expect_called(enum cb_id id, const struct mb *m);
/* No callback ran and exactly one answer went out for m: header-only with
 * error -err (err 0: an empty success). */
void fk_expect_err(const struct mb *m, int err);
/* No callback ran and nothing was sent. */
void fk_expect_silence(void);

/* fk_truncations() flags */
#define TR_NOREPLY   1u /* no answer at all (FORGET & co) */
#define TR_MALFORMED 2u /* each truncation counts one malformed request */
/*
 * Dispatches every prefix of m from the bare header (40 bytes) to len-1
 * bytes: none may reach a callback, each gets the header-only answer -err
 * (or none with TR_NOREPLY), and with TR_MALFORMED each counts once in
 * stats.malformed.
 */
void fk_truncations(const struct mb *m, int err, unsigned flags);

/* Statistics of the one queue. */
uint64_t fk_malformed(void);
uint64_t fk_handler_bugs(void);
uint64_t fk_in_flight(void);
/* answers and READ bytes, however counted (an answer given inside the
 * handler on its thread counts into the *_own fields) */
uint64_t fk_replies(void);
uint64_t fk_bytes_read(void);

#endif
