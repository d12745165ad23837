/* SPDX-License-Identifier: MIT */
/*
 * Low-level functions libfring cannot offer. Each fails when called, with
 * one line naming it, never silently:
 *
 * - fuse_session_custom_io(): libfring owns the transport (/dev/fuse or
 *   its io_uring rungs); a program cannot bring its own reads and writes.
 * - fuse_session_receive_buf() / fuse_session_process_buf(): libfring
 *   owns the event loop as well; fuse_session_loop() or _loop_mt() serve.
 * - CUSE (cuse_lowlevel_*): character devices are out of scope.
 */
#include <errno.h>
#include <stddef.h>

#include "compat.h"

int fuse_session_custom_io_317(struct fuse_session *se,
			       const struct fuse_custom_io *io, size_t op_size,
			       int fd);
int fuse_session_custom_io_317(struct fuse_session *se,
			       const struct fuse_custom_io *io, size_t op_size,
			       int fd)
{
	(void)se;
	(void)io;
	(void)op_size;
	(void)fd;
	fc_unsupported("fuse_session_custom_io",
		       "libfring does its own I/O on /dev/fuse and io_uring");
	return -EOPNOTSUPP;
}
FC_SYMVER(fuse_session_custom_io_317, "fuse_session_custom_io@@FUSE_3.17");

int fuse_session_custom_io_30(struct fuse_session *se,
			      const struct fuse_custom_io *io, int fd);
int fuse_session_custom_io_30(struct fuse_session *se,
			      const struct fuse_custom_io *io, int fd)
{
	return fuse_session_custom_io_317(se, io, 0, fd);
}
FC_SYMVER(fuse_session_custom_io_30, "fuse_session_custom_io@FUSE_3.0");

int fuse_session_receive_buf(struct fuse_session *se, struct fuse_buf *buf)
{
	(void)se;
	(void)buf;
	fc_unsupported("fuse_session_receive_buf",
		       "libfring owns the loop; call fuse_session_loop() or "
		       "fuse_session_loop_mt()");
	return -EOPNOTSUPP;
}

void fuse_session_process_buf(struct fuse_session *se,
			      const struct fuse_buf *buf)
{
	(void)se;
	(void)buf;
	fc_unsupported("fuse_session_process_buf",
		       "libfring owns the loop; call fuse_session_loop() or "
		       "fuse_session_loop_mt()");
}

/* ---------------- CUSE ---------------- */

struct cuse_info;
struct cuse_lowlevel_ops;

static void no_cuse(const char *func)
{
	fc_unsupported(func, "CUSE (character devices in user space) is out "
			     "of libfring's scope");
}

struct fuse_session *cuse_lowlevel_new(struct fuse_args *args,
				       const struct cuse_info *ci,
				       const struct cuse_lowlevel_ops *clop,
				       void *userdata);
struct fuse_session *cuse_lowlevel_new(struct fuse_args *args,
				       const struct cuse_info *ci,
				       const struct cuse_lowlevel_ops *clop,
				       void *userdata)
{
	(void)args;
	(void)ci;
	(void)clop;
	(void)userdata;
	no_cuse("cuse_lowlevel_new");
	return NULL;
}

struct fuse_session *cuse_lowlevel_setup(int argc, char *argv[],
					 const struct cuse_info *ci,
					 const struct cuse_lowlevel_ops *clop,
					 int *multithreaded, void *userdata);
struct fuse_session *cuse_lowlevel_setup(int argc, char *argv[],
					 const struct cuse_info *ci,
					 const struct cuse_lowlevel_ops *clop,
					 int *multithreaded, void *userdata)
{
	(void)argc;
	(void)argv;
	(void)ci;
	(void)clop;
	(void)multithreaded;
	(void)userdata;
	no_cuse("cuse_lowlevel_setup");
	return NULL;
}

void cuse_lowlevel_teardown(struct fuse_session *se);
void cuse_lowlevel_teardown(struct fuse_session *se)
{
	(void)se;
	no_cuse("cuse_lowlevel_teardown");
}

int cuse_lowlevel_main(int argc, char *argv[], const struct cuse_info *ci,
		       const struct cuse_lowlevel_ops *clop, void *userdata);
int cuse_lowlevel_main(int argc, char *argv[], const struct cuse_info *ci,
		       const struct cuse_lowlevel_ops *clop, void *userdata)
{
	(void)argc;
	(void)argv;
	(void)ci;
	(void)clop;
	(void)userdata;
	no_cuse("cuse_lowlevel_main");
	return 1;
}
