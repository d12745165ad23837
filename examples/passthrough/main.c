/* SPDX-License-Identifier: MIT */
/*
 * passthrough [options] SOURCE MOUNTPOINT: the command line, the callback
 * table and the process setup.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "passthrough.h"

static const char usage_text[] =
	"passthrough: mirrors the directory SOURCE at MOUNTPOINT\n"
	"    usage: passthrough [options] SOURCE MOUNTPOINT";

/*
 * The -o options: fring_main_opts() parses them into struct pt_fs, lists
 * them in --help and says why a value is refused.
 */
static const char *const cache_names[] = {
	[PT_CACHE_NEVER] = "never",
	[PT_CACHE_AUTO] = "auto",
	[PT_CACHE_ALWAYS] = "always",
	NULL,
};
_Static_assert(sizeof(enum pt_cache) == sizeof(int), "an enum option");

#ifdef FRING_FAULT_INJECTION
static const char *fault_opt(void *conf, void *field, const char *value)
{
	(void)field;
	return pt_fault_opt(conf, value) ? "expected eio, enospc or short, "
					   "then :N (every Nth request)"
					 : NULL;
}
#endif

#define O(field) offsetof(struct pt_fs, field)
static const struct fring_opt pt_opt_table[] = {
	{.name = "entry_timeout",
	 .type = FRING_OPT_SECONDS,
	 .offset = O(entry_timeout),
	 .help = "seconds the kernel caches names, also\n"
		 "missing ones (default 1.0)"},
	{.name = "attr_timeout",
	 .type = FRING_OPT_SECONDS,
	 .offset = O(attr_timeout),
	 .help = "seconds the kernel caches attributes\n"
		 "(default 1.0)"},
	{.name = "cache",
	 .type = FRING_OPT_ENUM,
	 .offset = O(cache),
	 .names = cache_names,
	 .arg = "MODE",
	 .help = "never: direct I/O, no page cache;\n"
		 "auto (default): keep the page cache of a\n"
		 "file that did not change since last seen;\n"
		 "always: always keep it"},
	{.name = "passthrough",
	 .type = FRING_OPT_FLAG,
	 .offset = O(passthrough),
	 .help = "the kernel reads and writes regular files\n"
		 "on the source itself (FUSE passthrough,\n"
		 "Linux 6.9+, root); cache= then does not\n"
		 "apply"},
	{.name = "max_stack_depth",
	 .type = FRING_OPT_UINT,
	 .offset = O(max_stack_depth),
	 .min = 1,
	 .max = 2,
	 .help = "with passthrough: 1 (default) or 2, to\n"
		 "allow a stacked source (e.g. overlayfs)"},
#ifdef FRING_FAULT_INJECTION
	{.name = "fault",
	 .type = FRING_OPT_CUSTOM,
	 .check = fault_opt,
	 .arg = "KIND[:N]",
	 .help = "every Nth READ/WRITE fails: eio,\n"
		 "enospc (writes) or short (writes store\n"
		 "half) (fault injection builds only)"},
#endif
	{.name = NULL},
};

/* SOURCE: opened here, so a bad one fails before anything is mounted. */
static int pt_arg(void *userdata, const char *arg)
{
	struct pt_fs *fs = userdata;
	struct rlimit rl;
	struct stat st;
	int fd, err;

	if (fs->source) {
		fprintf(stderr,
			"passthrough: one SOURCE only (got '%s' and '%s')\n",
			fs->source, arg);
		return -EINVAL;
	}
	fd = open(arg, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		err = errno;
		fprintf(stderr, "passthrough: SOURCE %s: %s\n", arg,
			strerror(err));
		if (fd >= 0)
			close(fd);
		return -err;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "passthrough: SOURCE %s: not a directory\n",
			arg);
		close(fd);
		return -ENOTDIR;
	}
	err = pt_table_init(fs, fd);
	if (err) {
		fprintf(stderr, "passthrough: SOURCE %s: %s\n", arg,
			strerror(-err));
		close(fd);
		return err;
	}
	/* syncfs(2) and open_by_handle_at(2) want a real descriptor; -1
	 * makes SYNCFS fail EBADF and keeps every inode descriptor open. */
	fs->root_rdfd = open(arg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fs->source = arg;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		pt_table_budget(fs, (long)rl.rlim_cur);
	return 0;
}

/* After the command line, before mounting. */
static int pt_check(void *userdata)
{
	struct pt_fs *fs = userdata;

	if (!fs->source) {
		fprintf(stderr,
			"passthrough: no SOURCE given (usage: %s "
			"[options] SOURCE MOUNTPOINT)\n",
			fring_main_info()->progname);
		return -EINVAL;
	}
	fs->mountpoint = fring_main_info()->mountpoint;
	return pt_check_mountpoint(fs, fs->mountpoint);
}

/* Mounted, nothing served yet. */
static void pt_ready(void *userdata, fring_session_t *s)
{
	(void)s;
	/* in the background standard error is /dev/null */
	if (fring_main_info()->daemonized)
		fring_set_log(fring_log_syslog, NULL, FRING_LOG_INFO);
	pt_learn_own_dev(userdata);
}

static void pt_init(void *userdata, struct fring_conn *conn)
{
	struct pt_fs *fs = userdata;
	/* KILLPRIV_V2: set-id bits are cleared here (pt_kill_suidgid()), and
	 * the kernel stops asking for security.capability before each
	 * write. Shared mappings of files opened with direct_io (cache=never,
	 * O_DIRECT) are allowed: the kernel keeps them coherent. */
	uint64_t want = FRING_CAP_PARALLEL_DIROPS |
			FRING_CAP_HANDLE_KILLPRIV_V2 |
			FRING_CAP_DIRECT_IO_ALLOW_MMAP;

	/* A symlink's target never changes while its inode lives. */
	if (fs->cache != PT_CACHE_NEVER)
		want |= FRING_CAP_CACHE_SYMLINKS;
	conn->want |= want & conn->capable;
	/* read and write move data with the data helpers (the fault path's
	 * short write uses src->mem only when there is one): on
	 * transport=zerocopy every open may be zero-copied */
	conn->fs_flags |= FRING_FS_ZERO_COPY;
	if (!fs->passthrough)
		return;
	if (!(conn->capable & FRING_CAP_PASSTHROUGH)) {
		/* the tests read this line (tests/e2e/passthrough-io.sh) */
		fring_log_msg(FRING_LOG_WARN,
			      "NOT OFFERED: FUSE_PASSTHROUGH: the kernel (FUSE "
			      "%u.%u) does not offer it (Linux 6.9+ with "
			      "CONFIG_FUSE_PASSTHROUGH); reads and writes go "
			      "through the daemon",
			      conn->proto_major, conn->proto_minor);
		fs->passthrough = false;
		return;
	}
	/* the kernel ignores passthrough with the writeback cache (not
	 * asked here); keep_cache and direct_io are cleared per open */
	conn->want |= FRING_CAP_PASSTHROUGH;
	conn->max_stack_depth = fs->max_stack_depth;
}

/* Every inode the kernel holds keeps a descriptor: allow many. */
static void raise_nofile(void)
{
	struct rlimit rl;
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (geteuid() == 0 && (f = fopen("/proc/sys/fs/nr_open", "re"))) {
		unsigned long long max;

		if (fscanf(f, "%llu", &max) == 1 && max > rl.rlim_max)
			rl.rlim_max = (rlim_t)max;
		fclose(f);
	}
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 &&
	    getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static const struct fring_ops pt_ops = {
	.init = pt_init,
	.lookup = pt_lookup,
	.forget = pt_forget,
	.forget_multi = pt_forget_multi,
	.getattr = pt_getattr,
	.setattr = pt_setattr,
	.readlink = pt_readlink,
	.mknod = pt_mknod,
	.mkdir = pt_mkdir,
	.unlink = pt_unlink,
	.rmdir = pt_rmdir,
	.symlink = pt_symlink,
	.rename = pt_rename,
	.link = pt_link,
	.open = pt_open,
	.read = pt_read,
	.write = pt_write,
	.flush = pt_flush,
	.release = pt_release,
	.fsync = pt_fsync,
	.opendir = pt_opendir,
	.readdir = pt_readdir,
	.readdirplus = pt_readdirplus,
	.releasedir = pt_releasedir,
	.fsyncdir = pt_fsyncdir,
	.statfs = pt_statfs,
	.setxattr = pt_setxattr,
	.getxattr = pt_getxattr,
	.listxattr = pt_listxattr,
	.removexattr = pt_removexattr,
	/* access: none; the kernel checks permissions (default_permissions,
	 * on unless -o no_default_permissions) */
	.create = pt_create,
	.tmpfile = pt_tmpfile,
	.fallocate = pt_fallocate,
	.lseek = pt_lseek,
	.copy_file_range = pt_copy_file_range,
	.syncfs = pt_syncfs,
};

int main(int argc, char *argv[])
{
	static struct pt_fs fs = {
		.entry_timeout = 1.0,
		.attr_timeout = 1.0,
		.cache = PT_CACHE_AUTO,
		.root_rdfd = -1,
	};
	const struct fring_main_hooks hooks = {
		.usage = usage_text,
		.arg = pt_arg,
		.check = pt_check,
		.ready = pt_ready,
	};
	int status;

	/* The kernel applied the caller's umask already (no DONT_MASK). */
	umask(0);
	if (geteuid() == 0) {
		/* Callers act with their fsuid/fsgid and no supplementary
		 * groups, not with the daemon's. */
		fs.switch_creds = true;
		if (setgroups(0, NULL) < 0)
			perror("passthrough: setgroups");
	}
	raise_nofile();
	status = fring_main_opts(argc, argv, &pt_ops, sizeof(pt_ops), &fs,
				 &hooks, pt_opt_table, &fs);
	if (fs.source) {
		pt_table_destroy(&fs);
		close(fs.root.fd);
		if (fs.root_rdfd >= 0)
			close(fs.root_rdfd);
	}
	free(fs.mnt_abs);
	return status;
}
