/* SPDX-License-Identifier: MIT */
/* memfs: options, connection setup and the callback table. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "memfs.h"

/*
 * The -o options: fring_main_opts() parses them into struct memfs_opts,
 * lists them in --help and says why a value is refused.
 */
static const char *const rdplus_names[] = {"auto", "yes", "no", NULL};

_Static_assert(sizeof(enum memfs_rdplus) == sizeof(int), "an enum option");
_Static_assert(sizeof(uid_t) == sizeof(unsigned) &&
		       sizeof(gid_t) == sizeof(unsigned),
	       "uid and gid are unsigned options");

static const char *size_opt(void *conf, void *field, const char *value)
{
	(void)field;
	return space_parse_size(value, conf)
		       ? "expected bytes, 0 (no limit) to 2^63 - 4096, with an "
			 "optional k, m, g, t, p or e suffix (powers of 1024), "
			 "or 1% to 100% of RAM"
		       : NULL;
}

static const char *nr_inodes_opt(void *conf, void *field, const char *value)
{
	(void)field;
	return space_parse_inodes(value, conf)
		       ? "expected 0 (no limit) to 268435456, with an optional "
			 "k, m or g suffix (powers of 1024)"
		       : NULL;
}

#define O(field) offsetof(struct memfs_opts, field)
static const struct fring_opt memfs_opt_table[] = {
	{.name = "entry_timeout",
	 .type = FRING_OPT_SECONDS,
	 .offset = O(entry_timeout),
	 .help = "seconds names may be cached (1.0)"},
	{.name = "attr_timeout",
	 .type = FRING_OPT_SECONDS,
	 .offset = O(attr_timeout),
	 .help = "seconds attributes may be cached (1.0)"},
	{.name = "negative_timeout",
	 .type = FRING_OPT_SECONDS,
	 .offset = O(negative_timeout),
	 .help = "seconds absent names may be cached (0)"},
	{.name = "writeback",
	 .type = FRING_OPT_FLAG,
	 .offset = O(writeback),
	 .help = "let the kernel cache writes"},
	{.name = "readdirplus",
	 .type = FRING_OPT_ENUM,
	 .offset = O(readdirplus),
	 .names = rdplus_names,
	 .help = "attributes with listings (auto)"},
	{.name = "parallel_dirops",
	 .type = FRING_OPT_FLAG,
	 .offset = O(parallel_dirops),
	 .help = "concurrent lookups in a directory (on)"},
	{.name = "no_open",
	 .type = FRING_OPT_FLAG,
	 .offset = O(no_open),
	 .help = "open/opendir answer ENOSYS: the kernel\n"
		 "then opens without asking"},
	{.name = "killpriv_v2",
	 .type = FRING_OPT_FLAG,
	 .offset = O(killpriv_v2),
	 .help = "clear s[ug]id on the kernel's word (on)"},
	{.name = "acl",
	 .type = FRING_OPT_FLAG,
	 .offset = O(acl),
	 .help = "POSIX ACLs (implies default_permissions)"},
	{.name = "supp_group",
	 .type = FRING_OPT_FLAG,
	 .offset = O(supp_group),
	 .help = "the kernel sends the caller's matching\n"
		 "supplementary group with creates"},
	{.name = "security_ctx",
	 .type = FRING_OPT_FLAG,
	 .offset = O(security_ctx),
	 .help = "label new inodes as the kernel's LSM says\n"
		 "(the context comes with each create)"},
	{.name = "max_pages",
	 .type = FRING_OPT_UINT,
	 .offset = O(max_pages),
	 .min = 1,
	 .max = 65535,
	 .help = "pages per request (from max_write)"},
	{.name = "time_gran",
	 .type = FRING_OPT_UINT,
	 .offset = O(time_gran),
	 .min = 1,
	 .max = 1000000000,
	 .arg = "NS",
	 .help = "timestamp granularity, 1..1e9 ns (1)"},
	{.name = "lookup_delay_ms",
	 .type = FRING_OPT_UINT,
	 .offset = O(lookup_delay_ms),
	 .max = 60000,
	 .help = "each lookup takes N ms more (tests)"},
	{.name = "mode",
	 .type = FRING_OPT_MODE,
	 .offset = O(root_mode),
	 .help = "permissions of the root (1777)"},
	{.name = "remote",
	 .type = FRING_OPT_STRING,
	 .offset = O(remote),
	 .arg = "FIFO",
	 .help = "take remote changes from FIFO and notify\n"
		 "the kernel (README: Remote changes)"},
	{.name = "uid",
	 .type = FRING_OPT_UINT,
	 .offset = O(root_uid),
	 .max = 0xfffffffe,
	 .help = "owner of the root (the server's)"},
	{.name = "gid",
	 .type = FRING_OPT_UINT,
	 .offset = O(root_gid),
	 .max = 0xfffffffe,
	 .help = "group of the root (the server's)"},
	{.name = "size",
	 .type = FRING_OPT_CUSTOM,
	 .check = size_opt,
	 .arg = "N[k|m|g|t]",
	 .help = "most bytes of data, attributes and\n"
		 "symlinks, or N% of RAM (half of RAM,\n"
		 "at most half the memory cgroup's limit;\n"
		 "0: no limit)"},
	{.name = "nr_inodes",
	 .type = FRING_OPT_CUSTOM,
	 .check = nr_inodes_opt,
	 .arg = "N[k|m|g]",
	 .help = "most inodes and extra hard links (one\n"
		 "a page of that half, and at least\n"
		 "its KiBs up to 2M; 0: no limit)"},
	{.name = NULL},
};

/* What memfs asks of INIT from its options; the library's proposal for
 * these is replaced, the rest of it kept. */
static void memfs_init(void *userdata, struct fring_conn *conn)
{
	struct memfs *fs = userdata;
	const struct memfs_opts *o = &fs->opt;
	struct memfs_inode *root = inode_get(fs, FRING_ROOT_INO);
	uint64_t want = FRING_CAP_ATOMIC_O_TRUNC | FRING_CAP_CACHE_SYMLINKS;
	uint64_t got;

	/* the limits, before the first request can charge anything */
	space_setup(fs);

	conn->want &=
		~(FRING_CAP_POSIX_ACL | FRING_CAP_DONT_MASK |
		  FRING_CAP_HANDLE_KILLPRIV | FRING_CAP_HANDLE_KILLPRIV_V2 |
		  FRING_CAP_WRITEBACK_CACHE | FRING_CAP_READDIRPLUS |
		  FRING_CAP_READDIRPLUS_AUTO | FRING_CAP_PARALLEL_DIROPS |
		  FRING_CAP_CREATE_SUPP_GROUP);
	if (o->readdirplus != RDPLUS_NO)
		want |= FRING_CAP_READDIRPLUS;
	if (o->readdirplus == RDPLUS_AUTO)
		want |= FRING_CAP_READDIRPLUS_AUTO;
	/* HANDLE_KILLPRIV (v1) is not asked for: there the kernel never
	 * says when to drop s[ug]id, and memfs would have to guess. */
	if (o->killpriv_v2)
		want |= FRING_CAP_HANDLE_KILLPRIV_V2;
	if (o->parallel_dirops)
		want |= FRING_CAP_PARALLEL_DIROPS;
	if (o->writeback)
		want |= FRING_CAP_WRITEBACK_CACHE;
	/* With ACLs a default ACL takes the umask's place, so the kernel
	 * must not apply it first (it does unless DONT_MASK, fuse_mknod()) */
	if (o->acl)
		want |= FRING_CAP_POSIX_ACL | FRING_CAP_DONT_MASK;
	if (o->supp_group)
		want |= FRING_CAP_CREATE_SUPP_GROUP;
	if (o->security_ctx)
		want |= FRING_CAP_SECURITY_CTX;
	if (o->no_open) {
		/* With ATOMIC_O_TRUNC the kernel leaves O_TRUNC to the OPEN
		 * it no longer sends (fuse_do_setattr(), ATTR_OPEN). */
		want &= ~FRING_CAP_ATOMIC_O_TRUNC;
		conn->want &= ~FRING_CAP_ATOMIC_O_TRUNC;
		want |= FRING_CAP_NO_OPEN_SUPPORT |
			FRING_CAP_NO_OPENDIR_SUPPORT;
	}
	/* With -o remote the server says when data changed: the kernel must
	 * not drop pages when it sees a new mtime (it asks for attributes at
	 * every read with auto_inval_data, as atime changes). */
	if (o->remote) {
		conn->want &= ~FRING_CAP_AUTO_INVAL_DATA;
		want |= FRING_CAP_EXPLICIT_INVAL_DATA;
	}
	/* what the kernel lacks the library drops, and says so in the log
	 * (tests/e2e/features.sh reads it) */
	conn->want |= want;
	if (o->max_pages)
		conn->max_pages = o->max_pages;
	conn->time_gran = o->time_gran;
	memfs_set_time_gran((long)o->time_gran);
	/* read and write move data with the data helpers only: on
	 * transport=zerocopy every open may be zero-copied */
	conn->fs_flags |= FRING_FS_ZERO_COPY;
	/* Only bits the kernel offers survive INIT. */
	got = conn->want & conn->capable;
	fs->killpriv_v2 = (got & FRING_CAP_HANDLE_KILLPRIV_V2) != 0;
	fs->writeback = (got & FRING_CAP_WRITEBACK_CACHE) != 0;
	fs->acl = (got & FRING_CAP_POSIX_ACL) && (got & FRING_CAP_DONT_MASK);
	fs->secctx = (got & FRING_CAP_SECURITY_CTX) != 0;
	/* ENOSYS is an error where the kernel cannot open on its own */
	fs->no_open = o->no_open && (got & FRING_CAP_NO_OPEN_SUPPORT) &&
		      (got & FRING_CAP_NO_OPENDIR_SUPPORT);
	if (o->acl && !fs->acl)
		fring_log_msg(
			FRING_LOG_WARN,
			"memfs: the kernel does not offer POSIX ACLs; acl "
			"ignored");

	/* The options are known only now; no request has come yet. */
	pthread_mutex_lock(&root->lock);
	root->mode = S_IFDIR | fs->opt.root_mode;
	root->uid = fs->opt.root_uid;
	root->gid = fs->opt.root_gid;
	pthread_mutex_unlock(&root->lock);
}

static void memfs_ready(void *userdata, fring_session_t *s)
{
	struct memfs *fs = userdata;
	int err;

	/* In the background standard error is /dev/null: the log lines
	 * (the library's, remote commands, the limits at INIT) go to
	 * syslog instead. */
	if (fring_main_info()->daemonized)
		fring_set_log(fring_log_syslog, NULL, FRING_LOG_INFO);
	err = fs->opt.remote ? remote_start(fs, s) : 0;
	if (err)
		fring_log_msg(FRING_LOG_ERR, "memfs: -o remote=%s: %s",
			      fs->opt.remote, strerror(-err));
}

/* After the command line, before mounting. */
static int memfs_check(void *userdata)
{
	struct memfs *fs = userdata;

	return fs->opt.remote ? remote_check(fs, fring_main_info()->mountpoint)
			      : 0;
}

static const struct fring_ops memfs_ops = {
	.init = memfs_init,
	.lookup = memfs_lookup,
	.forget = memfs_forget,
	.forget_multi = memfs_forget_multi,
	.getattr = memfs_getattr,
	.setattr = memfs_setattr,
	.readlink = memfs_readlink,
	.mknod = memfs_mknod,
	.mkdir = memfs_mkdir,
	.unlink = memfs_unlink,
	.rmdir = memfs_rmdir,
	.symlink = memfs_symlink,
	.rename = memfs_rename,
	.link = memfs_link,
	.open = memfs_open,
	.read = memfs_read,
	.write = memfs_write,
	.flush = memfs_flush,
	.release = memfs_release,
	.fsync = memfs_fsync,
	.opendir = memfs_opendir,
	.readdir = memfs_readdir,
	.readdirplus = memfs_readdirplus,
	.releasedir = memfs_releasedir,
	.fsyncdir = memfs_fsyncdir,
	.statfs = memfs_statfs,
	.setxattr = memfs_setxattr,
	.getxattr = memfs_getxattr,
	.listxattr = memfs_listxattr,
	.removexattr = memfs_removexattr,
	.access = memfs_access,
	.create = memfs_create,
	.tmpfile = memfs_tmpfile,
	.fallocate = memfs_fallocate,
	.lseek = memfs_lseek,
	.copy_file_range = memfs_copy_file_range,
	.syncfs = memfs_syncfs,
	.statx = memfs_statx,
	/* No getlk/setlk/flock: the kernel then keeps locks itself, which
	 * is right for a filesystem only this host sees. */
};

static bool sysctl_on(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v != 0;
}

int main(int argc, char *argv[])
{
	static struct memfs fs;
	struct fring_main_hooks hooks = {
		.ready = memfs_ready,
		.check = memfs_check,
	};
	pthread_rwlockattr_t attr;
	struct memfs_inode *root;
	uint64_t seed = 0;
	int err, ret;

	fs.opt.entry_timeout = 1.0;
	fs.opt.attr_timeout = 1.0;
	fs.opt.root_mode = 01777;
	fs.opt.parallel_dirops = true;
	fs.opt.killpriv_v2 = true;
	fs.opt.time_gran = 1;
	fs.opt.root_uid = getuid();
	fs.opt.root_gid = getgid();
	fs.protected_hardlinks = sysctl_on("/proc/sys/fs/protected_hardlinks");
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		dir_hash_seed(seed);
	err = data_setup(&fs);
	if (err) {
		fprintf(stderr, "memfs: cannot make a memfd: %s\n",
			strerror(err));
		return 1;
	}

	/* Writers first: lookups and listings must not starve renames. */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(
		&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&fs.ns, &attr);
	pthread_rwlockattr_destroy(&attr);

	if (table_init(&fs)) {
		fprintf(stderr, "memfs: out of memory\n");
		return 1;
	}
	root = inode_new(&fs, S_IFDIR | fs.opt.root_mode, fs.opt.root_uid,
			 fs.opt.root_gid, 0, NULL, &err);
	if (!root || root->ino != FRING_ROOT_INO) {
		fprintf(stderr, "memfs: cannot create the root: %s\n",
			strerror(err));
		return 1;
	}
	root->parent = FRING_ROOT_INO; /* ".." of the root is the root */

	ret = fring_main_opts(argc, argv, &memfs_ops, sizeof(memfs_ops), &fs,
			      &hooks, memfs_opt_table, &fs.opt);
	if (fs.opt.lookup_delay_ms)
		fprintf(stderr, "memfs: lookups held at once: at most %u\n",
			atomic_load(&fs.delayed_peak));
	table_fini(&fs);
	data_fini(&fs);
	pthread_rwlock_destroy(&fs.ns);
	free(fs.opt.remote);
	return ret;
}
