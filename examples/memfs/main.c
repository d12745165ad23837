/* SPDX-License-Identifier: MIT */
/* memfs: options, connection setup and the callback table. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include "memfs.h"

static const char memfs_usage[] =
	"memfs options:\n"
	"    -o entry_timeout=S     seconds names may be cached (1.0)\n"
	"    -o attr_timeout=S      seconds attributes may be cached (1.0)\n"
	"    -o negative_timeout=S  seconds absent names may be cached (0)\n"
	"    -o writeback           let the kernel cache writes\n"
	"    -o mode=OCTAL          permissions of the root (1777)\n"
	"    -o remote=FIFO         take remote changes from FIFO and notify\n"
	"                           the kernel (README: Remote changes)\n"
	"    -o uid=N,gid=N         owner of the root (the server's)\n";

static int parse_seconds(const char *value, double *out)
{
	char *end;
	double v;

	if (!value || !*value)
		return -EINVAL;
	errno = 0;
	v = strtod(value, &end);
	if (errno || *end || !isfinite(v) || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_ulong(const char *value, int base, unsigned long max,
		       unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!value || !*value || *value == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(value, &end, base);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int memfs_opt_parse(struct memfs_opts *o, const char *key,
			   const char *value);

static int memfs_opt(void *userdata, const char *key, const char *value)
{
	int err = memfs_opt_parse(&((struct memfs *)userdata)->opt, key, value);

	if (err == -EINVAL)
		fprintf(stderr, "memfs: bad value for option %s: %s\n", key,
			value ? value : "(none)");
	return err;
}

static int memfs_opt_parse(struct memfs_opts *o, const char *key,
			   const char *value)
{
	unsigned long v;
	int err;

	if (strcmp(key, "entry_timeout") == 0)
		return parse_seconds(value, &o->entry_timeout);
	if (strcmp(key, "attr_timeout") == 0)
		return parse_seconds(value, &o->attr_timeout);
	if (strcmp(key, "negative_timeout") == 0)
		return parse_seconds(value, &o->negative_timeout);
	if (strcmp(key, "writeback") == 0) {
		if (value)
			return -EINVAL;
		o->writeback = true;
		return 0;
	}
	if (strcmp(key, "remote") == 0) {
		if (!value || !*value)
			return -EINVAL;
		free(o->remote);
		o->remote = strdup(value);
		return o->remote ? 0 : -ENOMEM;
	}
	if (strcmp(key, "mode") == 0) {
		err = parse_ulong(value, 8, 07777, &v);
		if (!err)
			o->root_mode = (mode_t)v;
		return err;
	}
	if (strcmp(key, "uid") == 0 || strcmp(key, "gid") == 0) {
		err = parse_ulong(value, 10, 0xfffffffeul, &v);
		if (!err && key[0] == 'u')
			o->root_uid = (uid_t)v;
		else if (!err)
			o->root_gid = (gid_t)v;
		return err;
	}
	return -ENOENT;
}

static void memfs_init(void *userdata, struct fring_conn *conn)
{
	struct memfs *fs = userdata;
	struct memfs_inode *root = inode_get(fs, FRING_ROOT_INO);
	uint64_t want = FRING_CAP_READDIRPLUS | FRING_CAP_READDIRPLUS_AUTO |
			FRING_CAP_PARALLEL_DIROPS | FRING_CAP_ATOMIC_O_TRUNC |
			FRING_CAP_HANDLE_KILLPRIV_V2 | FRING_CAP_CACHE_SYMLINKS;
	uint64_t got;

	/* memfs has no ACLs, and does its own s[ug]id killing only in the
	 * v2 protocol, where the kernel says when. */
	conn->want &= ~(FRING_CAP_POSIX_ACL | FRING_CAP_HANDLE_KILLPRIV |
			FRING_CAP_WRITEBACK_CACHE);
	if (fs->opt.writeback)
		want |= FRING_CAP_WRITEBACK_CACHE;
	/* With -o remote the server says when data changed: the kernel must
	 * not drop pages when it sees a new mtime (it asks for attributes at
	 * every read with auto_inval_data, as atime changes). */
	if (fs->opt.remote) {
		conn->want &= ~FRING_CAP_AUTO_INVAL_DATA;
		want |= FRING_CAP_EXPLICIT_INVAL_DATA;
	}
	conn->want |= want & conn->capable;
	conn->time_gran = 1;
	/* Only bits the kernel offers survive INIT. */
	got = conn->want & conn->capable;
	fs->killpriv_v2 = (got & FRING_CAP_HANDLE_KILLPRIV_V2) != 0;
	fs->writeback = (got & FRING_CAP_WRITEBACK_CACHE) != 0;

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
	int err = fs->opt.remote ? remote_start(fs, s) : 0;

	if (err)
		fprintf(stderr, "memfs: -o remote=%s: %s\n", fs->opt.remote,
			strerror(-err));
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

/* Each file with data holds a memfd: allow as many as the system lets. */
static void raise_nofile(void)
{
	struct rlimit rl;
	unsigned long nr_open = 0;
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	f = fopen("/proc/sys/fs/nr_open", "re");
	if (f) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (nr_open > rl.rlim_max) {
		struct rlimit more = {nr_open, nr_open};

		if (setrlimit(RLIMIT_NOFILE, &more) == 0)
			return;
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

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
		.usage = memfs_usage,
		.opt = memfs_opt,
		.ready = memfs_ready,
	};
	pthread_rwlockattr_t attr;
	struct memfs_inode *root;
	uint64_t seed = 0;
	int err, ret;

	fs.opt.entry_timeout = 1.0;
	fs.opt.attr_timeout = 1.0;
	fs.opt.root_mode = 01777;
	fs.opt.root_uid = getuid();
	fs.opt.root_gid = getgid();
	fs.protected_hardlinks = sysctl_on("/proc/sys/fs/protected_hardlinks");
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		dir_hash_seed(seed);
	raise_nofile();

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

	ret = fring_main_ext(argc, argv, &memfs_ops, sizeof(memfs_ops), &fs,
			     &hooks);
	table_fini(&fs);
	pthread_rwlock_destroy(&fs.ns);
	return ret;
}
