/* SPDX-License-Identifier: MIT */
/*
 * libfuse's high-level API (fuse.h: paths instead of inodes) is out of
 * scope. Its functions are exported all the same, at their libfuse
 * versions, so that a high-level program linked against libfuse loads on
 * the drop-in and is told what is missing when it calls one (fuse_main()
 * first, usually) instead of failing in the dynamic loader with a bare
 * "symbol not found". Each logs one line naming itself and fails:
 * NULL, -1, -ENOSYS, or 1 for the main functions (a failure exit status).
 *
 * No header declares them here (fuse.h stops with #error): the
 * declarations below follow libfuse's, with its structures opaque.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <time.h>

#include "compat.h"

struct fuse;
struct fuse_fs;
struct fuse_operations;
struct fuse_config;
struct fuse_context;

static const char why[] = "the high-level API (fuse.h) is out of scope; "
			  "port the filesystem to fuse_lowlevel.h";

/* Declares and defines fn, which logs and returns ret. */
#define HL_STUB(type, fn, ret, ...)                                            \
	type fn(__VA_ARGS__);                                                  \
	type fn(__VA_ARGS__)                                                   \
	{                                                                      \
		fc_unsupported(#fn, why);                                      \
		return ret;                                                    \
	}

#define HL_VOID(fn, ...)                                                       \
	void fn(__VA_ARGS__);                                                  \
	void fn(__VA_ARGS__)                                                   \
	{                                                                      \
		fc_unsupported(#fn, why);                                      \
	}

/* The arguments are unused by design; naming them only for the
 * prototypes' sake would need a (void) line each. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* ---------------- running a filesystem ---------------- */

HL_STUB(int, fuse_main_real, 1, int argc, char *argv[],
	const struct fuse_operations *op, size_t op_size, void *user_data)
HL_STUB(int, fuse_main_real_versioned, 1, int argc, char *argv[],
	const struct fuse_operations *op, size_t op_size,
	struct libfuse_version *version, void *user_data)
HL_STUB(struct fuse *, fuse_new_30, NULL, struct fuse_args *args,
	const struct fuse_operations *op, size_t op_size, void *user_data)
HL_STUB(struct fuse *, fuse_new_31, NULL, struct fuse_args *args,
	const struct fuse_operations *op, size_t op_size, void *user_data)
HL_STUB(struct fuse *, _fuse_new_30, NULL, struct fuse_args *args,
	const struct fuse_operations *op, size_t op_size,
	struct libfuse_version *version, void *user_data)
HL_STUB(struct fuse *, _fuse_new_31, NULL, struct fuse_args *args,
	const struct fuse_operations *op, size_t op_size,
	struct libfuse_version *version, void *user_data)
FC_SYMVER(fuse_new_30, "fuse_new@FUSE_3.0");
FC_SYMVER(fuse_new_31, "fuse_new@FUSE_3.1");
HL_STUB(int, fuse_mount, -1, struct fuse *f, const char *mountpoint)
HL_VOID(fuse_unmount, struct fuse *f)
HL_VOID(fuse_destroy, struct fuse *f)
HL_STUB(int, fuse_loop, -1, struct fuse *f)
HL_VOID(fuse_exit, struct fuse *f)
HL_STUB(int, fuse_loop_mt_31, -1, struct fuse *f, int clone_fd)
HL_STUB(int, fuse_loop_mt_32, -1, struct fuse *f,
	struct fuse_loop_config_v1 *config)
HL_STUB(int, fuse_loop_mt_312, -1, struct fuse *f,
	struct fuse_loop_config *config)
FC_SYMVER(fuse_loop_mt_31, "fuse_loop_mt@FUSE_3.0");
FC_SYMVER(fuse_loop_mt_32, "fuse_loop_mt@FUSE_3.2");
FC_SYMVER(fuse_loop_mt_312, "fuse_loop_mt@@FUSE_3.12");
HL_VOID(fuse_lib_help, struct fuse_args *args)
HL_STUB(struct fuse_session *, fuse_get_session, NULL, struct fuse *f)

/* ---------------- inside a filesystem's callbacks ---------------- */

HL_STUB(struct fuse_context *, fuse_get_context, NULL, void)
HL_STUB(int, fuse_getgroups, -ENOSYS, int size, gid_t list[])
HL_STUB(int, fuse_interrupted, 0, void)
HL_STUB(int, fuse_invalidate_path, -ENOSYS, struct fuse *f, const char *path)
HL_STUB(int, fuse_notify_poll, -ENOSYS, struct fuse_pollhandle *ph)
HL_STUB(int, fuse_start_cleanup_thread, -1, struct fuse *fuse)
HL_VOID(fuse_stop_cleanup_thread, struct fuse *fuse)
HL_STUB(int, fuse_clean_cache, -1, struct fuse *fuse)

/* ---------------- stacking (struct fuse_fs) ---------------- */

HL_STUB(struct fuse_fs *, fuse_fs_new, NULL, const struct fuse_operations *op,
	size_t op_size, void *private_data)
HL_VOID(fuse_fs_init, struct fuse_fs *fs, struct fuse_conn_info *conn,
	struct fuse_config *cfg)
HL_VOID(fuse_fs_destroy, struct fuse_fs *fs)
HL_STUB(int, fuse_fs_getattr, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct stat *buf, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_rename, -ENOSYS, struct fuse_fs *fs, const char *oldpath,
	const char *newpath, unsigned int flags)
HL_STUB(int, fuse_fs_unlink, -ENOSYS, struct fuse_fs *fs, const char *path)
HL_STUB(int, fuse_fs_rmdir, -ENOSYS, struct fuse_fs *fs, const char *path)
HL_STUB(int, fuse_fs_symlink, -ENOSYS, struct fuse_fs *fs, const char *linkname,
	const char *path)
HL_STUB(int, fuse_fs_link, -ENOSYS, struct fuse_fs *fs, const char *oldpath,
	const char *newpath)
HL_STUB(int, fuse_fs_release, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_open, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_read, -ENOSYS, struct fuse_fs *fs, const char *path,
	char *buf, size_t size, off_t off, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_read_buf, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_bufvec **bufp, size_t size, off_t off,
	struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_write, -ENOSYS, struct fuse_fs *fs, const char *path,
	const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_write_buf, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_bufvec *buf, off_t off, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_fsync, -ENOSYS, struct fuse_fs *fs, const char *path,
	int datasync, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_flush, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_statfs, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct statvfs *buf)
HL_STUB(int, fuse_fs_opendir, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_file_info *fi)
/* filler is fuse_fill_dir_t and flags enum fuse_readdir_flags in libfuse:
 * a function pointer and an int-sized enum, passed alike */
HL_STUB(int, fuse_fs_readdir, -ENOSYS, struct fuse_fs *fs, const char *path,
	void *buf, void (*filler)(void), off_t off, struct fuse_file_info *fi,
	int flags)
HL_STUB(int, fuse_fs_fsyncdir, -ENOSYS, struct fuse_fs *fs, const char *path,
	int datasync, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_releasedir, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_create, -ENOSYS, struct fuse_fs *fs, const char *path,
	mode_t mode, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_lock, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_file_info *fi, int cmd, struct flock *lock)
HL_STUB(int, fuse_fs_flock, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_file_info *fi, int op)
HL_STUB(int, fuse_fs_chmod, -ENOSYS, struct fuse_fs *fs, const char *path,
	mode_t mode, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_chown, -ENOSYS, struct fuse_fs *fs, const char *path,
	uid_t uid, gid_t gid, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_truncate, -ENOSYS, struct fuse_fs *fs, const char *path,
	off_t size, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_utimens, -ENOSYS, struct fuse_fs *fs, const char *path,
	const struct timespec tv[2], struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_access, -ENOSYS, struct fuse_fs *fs, const char *path,
	int mask)
HL_STUB(int, fuse_fs_readlink, -ENOSYS, struct fuse_fs *fs, const char *path,
	char *buf, size_t len)
HL_STUB(int, fuse_fs_mknod, -ENOSYS, struct fuse_fs *fs, const char *path,
	mode_t mode, dev_t rdev)
HL_STUB(int, fuse_fs_mkdir, -ENOSYS, struct fuse_fs *fs, const char *path,
	mode_t mode)
HL_STUB(int, fuse_fs_setxattr, -ENOSYS, struct fuse_fs *fs, const char *path,
	const char *name, const char *value, size_t size, int flags)
HL_STUB(int, fuse_fs_getxattr, -ENOSYS, struct fuse_fs *fs, const char *path,
	const char *name, char *value, size_t size)
HL_STUB(int, fuse_fs_listxattr, -ENOSYS, struct fuse_fs *fs, const char *path,
	char *list, size_t size)
HL_STUB(int, fuse_fs_removexattr, -ENOSYS, struct fuse_fs *fs, const char *path,
	const char *name)
HL_STUB(int, fuse_fs_bmap, -ENOSYS, struct fuse_fs *fs, const char *path,
	size_t blocksize, uint64_t *idx)
HL_STUB(int, fuse_fs_ioctl, -ENOSYS, struct fuse_fs *fs, const char *path,
	unsigned int cmd, void *arg, struct fuse_file_info *fi,
	unsigned int flags, void *data)
HL_STUB(int, fuse_fs_poll, -ENOSYS, struct fuse_fs *fs, const char *path,
	struct fuse_file_info *fi, struct fuse_pollhandle *ph,
	unsigned *reventsp)
HL_STUB(int, fuse_fs_fallocate, -ENOSYS, struct fuse_fs *fs, const char *path,
	int mode, off_t offset, off_t length, struct fuse_file_info *fi)
HL_STUB(ssize_t, fuse_fs_copy_file_range, -ENOSYS, struct fuse_fs *fs,
	const char *path_in, struct fuse_file_info *fi_in, off_t off_in,
	const char *path_out, struct fuse_file_info *fi_out, off_t off_out,
	size_t len, int flags)
HL_STUB(off_t, fuse_fs_lseek, -ENOSYS, struct fuse_fs *fs, const char *path,
	off_t off, int whence, struct fuse_file_info *fi)
HL_STUB(int, fuse_fs_statx, -ENOSYS, struct fuse_fs *fs, const char *path,
	int flags, int mask, struct statx *stxbuf, struct fuse_file_info *fi)
