/* SPDX-License-Identifier: MIT */
/*
 * passthrough [options] SOURCE MOUNTPOINT: the command line, the callback
 * table and the process setup.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "passthrough.h"

static const char usage_text[] =
	"passthrough: mirrors the directory SOURCE at MOUNTPOINT\n"
	"    usage: passthrough [options] SOURCE MOUNTPOINT\n"
	"    -o entry_timeout=S     seconds the kernel caches names, also\n"
	"                           missing ones (default 1.0)\n"
	"    -o attr_timeout=S      seconds the kernel caches attributes\n"
	"                           (default 1.0)\n"
	"    -o cache=MODE          never: direct I/O, no page cache;\n"
	"                           auto (default): keep the page cache of a\n"
	"                           file that did not change since last seen;\n"
	"                           always: always keep it\n"
	"    -o passthrough         the kernel reads and writes regular files\n"
	"                           on the source itself (FUSE passthrough,\n"
	"                           Linux 6.9+, root); cache= then does not\n"
	"                           apply\n"
	"    -o max_stack_depth=N   with passthrough: 1 (default) or 2, to\n"
	"                           allow a stacked source (e.g. overlayfs)"
#ifdef FRING_FAULT_INJECTION
	"\n    -o fault=KIND[:N]      every Nth READ/WRITE fails: eio,\n"
	"                           enospc (writes) or short (writes store\n"
	"                           half) (fault injection builds only)"
#endif
	;

static int parse_seconds(const char *key, const char *value, double *out)
{
	char *end = NULL;
	double v = value ? strtod(value, &end) : NAN;

	if (!value || !*value || *end || !isfinite(v) || v < 0) {
		fprintf(stderr,
			"passthrough: -o %s=%s: expected seconds, 0 or more\n",
			key, value ? value : "");
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int pt_opt(void *userdata, const char *key, const char *value)
{
	struct pt_fs *fs = userdata;

	if (!strcmp(key, "entry_timeout"))
		return parse_seconds(key, value, &fs->entry_timeout);
	if (!strcmp(key, "attr_timeout"))
		return parse_seconds(key, value, &fs->attr_timeout);
	if (!strcmp(key, "cache")) {
		if (value && !strcmp(value, "never"))
			fs->cache = PT_CACHE_NEVER;
		else if (value && !strcmp(value, "auto"))
			fs->cache = PT_CACHE_AUTO;
		else if (value && !strcmp(value, "always"))
			fs->cache = PT_CACHE_ALWAYS;
		else {
			fprintf(stderr,
				"passthrough: -o cache=%s: expected never, "
				"auto or always\n",
				value ? value : "");
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(key, "passthrough") && !value) {
		fs->passthrough = true;
		return 0;
	}
	if (!strcmp(key, "max_stack_depth")) {
		if (!value || (strcmp(value, "1") && strcmp(value, "2"))) {
			fprintf(stderr,
				"passthrough: -o max_stack_depth=%s: "
				"expected 1 or 2\n",
				value ? value : "");
			return -EINVAL;
		}
		fs->max_stack_depth = (unsigned)atoi(value);
		return 0;
	}
#ifdef FRING_FAULT_INJECTION
	if (!strcmp(key, "fault"))
		return pt_fault_opt(fs, value);
#endif
	return -ENOENT;
}

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

/* The positional arguments fring_main_ext() will see, to tell a missing
 * SOURCE from a missing MOUNTPOINT; -1 for --help/--version. *last: the
 * last of them, the one fring_main_ext() mounts on. */
static int count_positionals(int argc, char *argv[], const char **last)
{
	bool options_done = false;
	int n = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!options_done && a[0] == '-' && a[1]) {
			if (!strcmp(a, "--"))
				options_done = true;
			else if (!strcmp(a, "-h") || !strcmp(a, "--help") ||
				 !strcmp(a, "-V") || !strcmp(a, "--version"))
				return -1;
			else if (!strcmp(a, "-o"))
				i++;
			continue;
		}
		*last = a;
		n++;
	}
	return n;
}

/* After the command line, before mounting. */
static int pt_check(void *userdata)
{
	struct pt_fs *fs = userdata;

	if (!fs->source)
		return 0; /* main() said so already */
	return pt_check_mountpoint(fs, fs->mountpoint);
}

/* Mounted, nothing served yet. */
static void pt_ready(void *userdata, fring_session_t *s)
{
	(void)s;
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
		fprintf(stderr,
			"NOT OFFERED: FUSE_PASSTHROUGH: the kernel (FUSE "
			"%u.%u) does not offer it (Linux 6.9+ with "
			"CONFIG_FUSE_PASSTHROUGH); reads and writes go "
			"through the daemon\n",
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
		.opt = pt_opt,
		.arg = pt_arg,
		.check = pt_check,
		.ready = pt_ready,
	};
	int status;

	if (count_positionals(argc, argv, &fs.mountpoint) == 1) {
		fprintf(stderr,
			"passthrough: no SOURCE given (usage: %s "
			"[options] SOURCE MOUNTPOINT)\n",
			argv[0]);
		return 1;
	}
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
	status = fring_main_ext(argc, argv, &pt_ops, sizeof(pt_ops), &fs,
				&hooks);
	if (fs.source) {
		pt_table_destroy(&fs);
		close(fs.root.fd);
		if (fs.root_rdfd >= 0)
			close(fs.root_rdfd);
	}
	free(fs.mnt_abs);
	return status;
}
