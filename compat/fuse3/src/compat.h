/* SPDX-License-Identifier: MIT */
/*
 * libfring-fuse3's private header: the session object behind libfuse's
 * opaque struct fuse_session, the request handle convention, and the
 * helpers the files of src/ share. Nothing here is exported: the version
 * script (fuse3.map) lets out only libfuse's names.
 *
 * The request handle. fuse_req_t is libfuse's opaque pointer; here it IS
 * the fring_req_t pointer, cast, so a request costs no allocation and no
 * lookup. Operations that have a request in libfuse but none in libfring
 * (forget, forget_multi, retrieve_reply) get a "pseudo request": the
 * session's address with bit 0 set. Real requests are aligned objects, so
 * bit 0 tells them apart; a pseudo request stays valid as long as the
 * session, whichever thread uses it, and every fuse_req_* and fuse_reply_*
 * function checks the bit before handing a pointer to libfring.
 */
#ifndef FRING_FUSE3_COMPAT_H
#define FRING_FUSE3_COMPAT_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 318
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <fring/fring.h>
#include <fuse_lowlevel.h>

/* Internal functions shared between the files: hidden from the dynamic
 * symbol table even before the version script hides them. */
#define FC_HIDDEN __attribute__((visibility("hidden")))

/*
 * Binds an implementation to a versioned name (name@VER: kept for programs
 * linked against an older libfuse; name@@VER: the default new links get).
 * Used at file scope after the definition, ending with ';'. gcc's
 * attribute survives LTO; clang 14 has only the assembler directive.
 */
#if defined(__has_attribute)
#if __has_attribute(symver)
#define FC_SYMVER(impl, versioned)                                             \
	extern __typeof__(impl) impl __attribute__((symver(versioned)))
#endif
#endif
#ifndef FC_SYMVER
#define FC_SYMVER(impl, versioned) __asm__(".symver " #impl "," versioned)
#endif

/* The kernel's opcode of READ (linux/fuse.h): fuse_reply_data() may hand an
 * fd buffer to fring_read_from_fd() only for it. */
#define FC_OP_READ 15

/* fuse_req_interrupt_func() registrations, per session. Few requests ever
 * register (blocking lock waits, long reads), so a locked array is enough;
 * `count` lets every answer skip the lock while nothing is registered. */
struct fc_intr_entry {
	fring_req_t *req;
	fuse_interrupt_func_t func;
	void *data;
	bool fired;	  /* func was called (it is called once) */
	bool running;	  /* func is running on `runner` */
	pthread_t runner; /* valid while running */
};

struct fc_intr {
	pthread_mutex_t lock;
	pthread_cond_t done; /* a func returned */
	atomic_uint count;   /* entries in use */
	size_t used, cap;
	struct fc_intr_entry *v;
};

struct fuse_session {
	/* the filesystem's operations, as large as this library's table
	 * (a shorter table from an older program is padded with NULLs) */
	struct fuse_lowlevel_ops op;
	void *userdata;
	/* the libfuse version the program was compiled against; 0.0.0 when
	 * it called the FUSE_3.0 fuse_session_new (an older program: its
	 * fuse_file_info ends at poll_events) */
	struct libfuse_version version;
	struct fring_ops fops; /* the bridges of lowlevel.c */
	fring_session_t *fs;
	char *mountpoint;
	int fd;	    /* /dev/fuse of the mount (fuse_session_fd()), or -1 */
	bool debug; /* -o debug */
	bool deny_others;  /* -o allow_root: only root and the owner */
	uid_t owner;	   /* who made the session */
	bool no_interrupt; /* conn->no_interrupt set in init */
	/* one callback at a time (fuse_session_loop(), or loop_mt with
	 * max_threads 1): set before serving starts, read by the queues */
	bool serialize;
	pthread_mutex_t serial;
	atomic_bool exited;	/* fuse_session_exit() was called */
	atomic_int exit_signal; /* the signal that ended it, or 0 */
	struct fc_intr intr;
	int stats_fd; /* -o stats_fd=N (statsfd.c), or -1 */
};

/* ---- request handles (req.c) ---- */
static inline bool fc_is_pseudo(fuse_req_t req)
{
	return ((uintptr_t)req & 1u) != 0;
}

static inline fring_req_t *fc_req(fuse_req_t req)
{
	return (fring_req_t *)(void *)req;
}

static inline fuse_req_t fc_fuse_req(fring_req_t *req)
{
	return (fuse_req_t)(void *)req;
}

static inline fuse_req_t fc_pseudo(struct fuse_session *se)
{
	return (fuse_req_t)(void *)((uintptr_t)se | 1u);
}

static inline struct fuse_session *fc_pseudo_session(fuse_req_t req)
{
	return (struct fuse_session *)(void *)((uintptr_t)req & ~(uintptr_t)1);
}

/* The session of a request (real or pseudo). */
static inline struct fuse_session *fc_session_of(fuse_req_t req)
{
	if (fc_is_pseudo(req))
		return fc_pseudo_session(req);
	return fring_req_userdata(fc_req(req));
}

/* Interrupt registrations (req.c). */
FC_HIDDEN int fc_intr_init(struct fc_intr *t);
FC_HIDDEN void fc_intr_destroy(struct fc_intr *t);
/* The kernel interrupted req: its registered function, once. */
FC_HIDDEN void fc_intr_fire(struct fuse_session *se, fring_req_t *req);
/* req is being answered: drop its registration, waiting for a function
 * running on another thread to return. */
FC_HIDDEN void fc_intr_forget(struct fuse_session *se, fring_req_t *req);

/* Every answer goes through here first: the real request, or NULL (with
 * the caller's error logged) for a pseudo request. */
FC_HIDDEN fring_req_t *fc_answering(fuse_req_t req, const char *what);

/* ---- buffers (buf.c) ---- */
/*
 * struct fuse_buf grew a mem_size field in libfuse 3.17, so the buffers
 * of a fuse_bufvec lie 40 bytes apart in a program built against an older
 * libfuse and 48 in a newer one. The session's creation tells which
 * (fuse_session_new@FUSE_3.0 or a version before 3.17: the old layout)
 * and sets the stride every bufvec of the process is read with.
 */
FC_HIDDEN extern atomic_size_t fc_buf_stride;
FC_HIDDEN void fc_buf_layout(const struct libfuse_version *v);

static inline const struct fuse_buf *fc_buf_at(const struct fuse_bufvec *v,
					       size_t i)
{
	return (const struct fuse_buf
			*)(const void *)((const char *)v->buf +
					 i * atomic_load_explicit(
						     &fc_buf_stride,
						     memory_order_relaxed));
}

/*
 * A WRITE's data that is not memory (the queue's pipe on dev with
 * splice_read, the client's pages on zerocopy), as write_buf gets it: a
 * flag bit libfuse does not define (its enum fuse_buf_flags has bits 1 to
 * 3), with FUSE_BUF_IS_FD so that a program that looks at the flags takes
 * the descriptor route, fd -1 and mem NULL so that one that reads either
 * itself fails instead of reading something else, and the request in pos
 * (meaningless without FUSE_BUF_FD_SEEK), so the buffer works on any
 * thread until the WRITE is answered. fuse_buf_copy() moves it with
 * fring_write_data_to_fd() / fring_write_data_copy().
 */
#define FC_BUF_WRITE_DATA (1 << 28)

static inline bool fc_buf_is_write_data(const struct fuse_buf *b)
{
	return ((unsigned)b->flags & FC_BUF_WRITE_DATA) != 0;
}

static inline fring_req_t *fc_buf_write_req(const struct fuse_buf *b)
{
	return (fring_req_t *)(uintptr_t)b->pos;
}

/* Bytes left in bufv from (idx, off); SIZE_MAX for an endless one. */
FC_HIDDEN size_t fc_bufvec_left(const struct fuse_bufvec *bufv);
/* The n memory buffers of bufv from its current position (idx, off) as an
 * iovec array, for the answers and notifications that gather them. */
FC_HIDDEN void fc_bufvec_iov(const struct fuse_bufvec *bufv, struct iovec *iov,
			     size_t n);

/* ---- conversions (convert.c) ---- */
FC_HIDDEN void fc_fi_from_fring(struct fuse_file_info *out,
				const struct fring_file *in);
FC_HIDDEN void fc_fi_to_fring(struct fring_file *out,
			      const struct fuse_file_info *in,
			      const struct fuse_session *se);
/* libfuse's FUSE_CAP_* (its own numbering) <-> the kernel's INIT flags */
FC_HIDDEN uint64_t fc_caps_to_kernel(uint64_t fuse_caps);
FC_HIDDEN uint64_t fc_caps_from_kernel(uint64_t kernel_caps);
/* the kernel bits fc_caps_to_kernel() can produce */
FC_HIDDEN uint64_t fc_caps_kernel_mask(void);

/* ---- the bridges (lowlevel.c) ---- */
FC_HIDDEN void fc_ops_build(struct fuse_session *se);
/* the retrieve_reply bridge, or NULL when the filesystem has none */
FC_HIDDEN fring_retrieve_reply_fn
fc_retrieve_bridge(const struct fuse_session *se);

/* ---- INIT (conn.c) ---- */
FC_HIDDEN void fc_conn_init(struct fuse_session *se, struct fring_conn *fc);

/* ---- options (sessopt.c) ---- */
/* Takes libfuse's session and mount options (and libfring's own) out of
 * args into cfg; 0, or -1 with the reason logged. */
FC_HIDDEN int fc_session_opts(struct fuse_session *se, struct fuse_args *args,
			      fring_config_t *cfg);
/* The same mapping, for a mount alone (fuse_open_channel()): options it
 * does not know stay in args, without a failure. */
FC_HIDDEN int fc_mount_opts(struct fuse_session *se, struct fuse_args *args,
			    fring_config_t *cfg);

/* -o stats_fd=N: 0, or -1 with the reason logged (statsfd.c); the
 * statistics written there as the session goes */
FC_HIDDEN int fc_stats_fd_opt(struct fuse_session *se, const char *val);
FC_HIDDEN void fc_stats_fd_write(struct fuse_session *se);

/* "/dev/fd/N": a mountpoint that is a descriptor, not a directory */
FC_HIDDEN bool fc_is_dev_fd(const char *path);

/* ---- serving (session.c, loopcfg.c, signals.c) ---- */
FC_HIDDEN int fc_serve(struct fuse_session *se, bool serialize);

/* The loop configuration behind 3.12's opaque pointer. libfring has no
 * worker pool: only max_threads == 1 (one callback at a time) matters. */
struct fuse_loop_config {
	int clone_fd;
	unsigned int max_idle_threads;
	unsigned int max_threads;
};

/* The session is going: the signal handlers must not reach it. */
FC_HIDDEN void fc_signals_forget(struct fuse_session *se);
/* The signal that ended a loop (its return value), from the handler. */
FC_HIDDEN void fc_session_signalled(struct fuse_session *se, int sig);

/* ---- logging (through fuse_log(), whose sink the program may set) ---- */
FC_HIDDEN void fc_log(enum fuse_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A function libfring cannot offer was called: one line naming it. */
FC_HIDDEN void fc_unsupported(const char *func, const char *why);

#endif
