/* SPDX-License-Identifier: MIT */
/* memfs: options, connection setup and the callback table. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "memfs.h"

static const char memfs_usage[] =
	"memfs options:\n"
	"    -o entry_timeout=S     seconds names may be cached (1.0)\n"
	"    -o attr_timeout=S      seconds attributes may be cached (1.0)\n"
	"    -o negative_timeout=S  seconds absent names may be cached (0)\n"
	"    -o writeback           let the kernel cache writes\n"
	"    -o readdirplus=auto|yes|no  attributes with listings (auto)\n"
	"    -o parallel_dirops[=0] concurrent lookups in a directory (on)\n"
	"    -o no_open             open/opendir answer ENOSYS: the kernel\n"
	"                           then opens without asking\n"
	"    -o killpriv_v2[=0]     clear s[ug]id on the kernel's word (on)\n"
	"    -o acl                 POSIX ACLs (implies default_permissions)\n"
	"    -o supp_group          the kernel sends the caller's matching\n"
	"                           supplementary group with creates\n"
	"    -o max_pages=N         pages per request (from max_write)\n"
	"    -o time_gran=NS        timestamp granularity, 1..1e9 ns (1)\n"
	"    -o lookup_delay_ms=N   each lookup takes N ms more (tests)\n"
	"    -o mode=OCTAL          permissions of the root (1777)\n"
	"    -o remote=FIFO         take remote changes from FIFO and notify\n"
	"                           the kernel (README: Remote changes)\n"
	"    -o uid=N,gid=N         owner of the root (the server's)\n"
	"    -o size=N[k|m|g|t]     most bytes of data, attributes and\n"
	"                           symlinks, or N% of RAM (half of RAM,\n"
	"                           at most half the memory cgroup's limit;\n"
	"                           0: no limit)\n"
	"    -o nr_inodes=N[k|m|g]  most inodes and extra hard links (one\n"
	"                           a page of that half, and at least\n"
	"                           its KiBs up to 2M; 0: no limit)\n";

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

/* NAME turns a feature on, NAME=0 or NAME=1 says which. */
static int parse_flag(const char *value, bool *out)
{
	if (!value || strcmp(value, "1") == 0)
		*out = true;
	else if (strcmp(value, "0") == 0)
		*out = false;
	else
		return -EINVAL;
	return 0;
}

static int parse_rdplus(const char *value, enum memfs_rdplus *out)
{
	static const char *const names[] = {"auto", "yes", "no"};

	for (unsigned i = 0; value && i < 3; i++)
		if (strcmp(value, names[i]) == 0) {
			*out = (enum memfs_rdplus)i;
			return 0;
		}
	return -EINVAL;
}

static int parse_unsigned(const char *value, unsigned long min,
			  unsigned long max, unsigned *out)
{
	unsigned long v;
	int err = parse_ulong(value, 10, max, &v);

	if (!err && v < min)
		err = -EINVAL;
	if (!err)
		*out = (unsigned)v;
	return err;
}

static int memfs_feature_opt(struct memfs_opts *o, const char *key,
			     const char *value)
{
	static const struct {
		const char *name;
		size_t off;
	} flags[] = {
		{"writeback", offsetof(struct memfs_opts, writeback)},
		{"parallel_dirops",
		 offsetof(struct memfs_opts, parallel_dirops)},
		{"no_open", offsetof(struct memfs_opts, no_open)},
		{"killpriv_v2", offsetof(struct memfs_opts, killpriv_v2)},
		{"acl", offsetof(struct memfs_opts, acl)},
		{"supp_group", offsetof(struct memfs_opts, supp_group)},
	};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strcmp(key, flags[i].name) == 0)
			return parse_flag(value,
					  (bool *)((char *)o + flags[i].off));
	if (strcmp(key, "readdirplus") == 0)
		return parse_rdplus(value, &o->readdirplus);
	if (strcmp(key, "max_pages") == 0)
		return parse_unsigned(value, 1, 65535, &o->max_pages);
	if (strcmp(key, "time_gran") == 0)
		return parse_unsigned(value, 1, 1000000000, &o->time_gran);
	if (strcmp(key, "lookup_delay_ms") == 0)
		return parse_unsigned(value, 0, 60000, &o->lookup_delay_ms);
	return -ENOENT;
}

/* What a bad value of key should have been. */
static const char *opt_hint(const char *key)
{
	static const struct {
		const char *key, *hint;
	} hints[] = {
		{"entry_timeout", "seconds, a number 0 or more"},
		{"attr_timeout", "seconds, a number 0 or more"},
		{"negative_timeout", "seconds, a number 0 or more"},
		{"readdirplus", "auto, yes or no"},
		{"max_pages", "1 to 65535"},
		{"time_gran", "nanoseconds, 1 to 1000000000"},
		{"lookup_delay_ms", "0 to 60000"},
		{"mode", "octal, 0 to 7777"},
		{"uid", "0 to 4294967294"},
		{"gid", "0 to 4294967294"},
		{"remote", "the path of a FIFO"},
		{"size", "bytes, 0 (no limit) to 2^63 - 4096, with an optional "
			 "k, m, g, t, p or e suffix (powers of 1024), or 1% to "
			 "100% of RAM"},
		{"nr_inodes", "0 (no limit) to 268435456, with an optional k, "
			      "m or g suffix (powers of 1024)"},
	};

	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (strcmp(key, hints[i].key) == 0)
			return hints[i].hint;
	/* the on/off features */
	return "nothing, 0 or 1";
}

static int memfs_opt(void *userdata, const char *key, const char *value)
{
	int err = memfs_opt_parse(&((struct memfs *)userdata)->opt, key, value);

	if (err == -EINVAL)
		fprintf(stderr,
			"memfs: bad value for option %s: %s (valid: %s)\n", key,
			value ? value : "(none)", opt_hint(key));
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
	if (strcmp(key, "size") == 0)
		return space_parse_size(value, o);
	if (strcmp(key, "nr_inodes") == 0)
		return space_parse_inodes(value, o);
	if (strcmp(key, "remote") == 0) {
		if (!value || !*value)
			return -EINVAL;
		free(o->remote);
		o->remote = strdup(value);
		return o->remote ? 0 : -ENOMEM;
	}
	err = memfs_feature_opt(o, key, value);
	if (err != -ENOENT)
		return err;
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
	/* ENOSYS is an error where the kernel cannot open on its own */
	fs->no_open = o->no_open && (got & FRING_CAP_NO_OPEN_SUPPORT) &&
		      (got & FRING_CAP_NO_OPENDIR_SUPPORT);
	if (o->acl && !fs->acl)
		fprintf(stderr, "memfs: the kernel does not offer POSIX ACLs; "
				"acl ignored\n");

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

/* After the command line, before mounting. */
static int memfs_check(void *userdata)
{
	struct memfs *fs = userdata;

	return fs->opt.remote ? remote_check(fs, fs->opt.mountpoint) : 0;
}

/*
 * The mountpoint as fring_main() will take it: the last argument that is
 * neither an option nor -o's value (memfs takes no other positional).
 */
static const char *find_mountpoint(int argc, char *argv[])
{
	const char *last = NULL;
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		if (!options_done && argv[i][0] == '-' && argv[i][1]) {
			if (!strcmp(argv[i], "--"))
				options_done = true;
			else if (!strcmp(argv[i], "-o"))
				i++;
			continue;
		}
		last = argv[i];
	}
	return last;
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
		.usage = memfs_usage,
		.opt = memfs_opt,
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

	fs.opt.mountpoint = find_mountpoint(argc, argv);
	ret = fring_main_ext(argc, argv, &memfs_ops, sizeof(memfs_ops), &fs,
			     &hooks);
	if (fs.opt.lookup_delay_ms)
		fprintf(stderr, "memfs: lookups held at once: at most %u\n",
			atomic_load(&fs.delayed_peak));
	table_fini(&fs);
	data_fini(&fs);
	pthread_rwlock_destroy(&fs.ns);
	return ret;
}
