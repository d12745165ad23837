/* SPDX-License-Identifier: MIT */
/*
 * posix_suite DIR [--nonroot-uid UID]
 *
 * POSIX/Linux semantics checks for the filesystem mounted at DIR. Every check
 * passes on tmpfs (Linux 6.x); a FUSE filesystem that "behaves like tmpfs"
 * must pass them too. Runs as root (exit 77 otherwise); one part runs as an
 * unprivileged user (65534 unless --nonroot-uid) in a forked child.
 *
 * Work happens in DIR/posix_suite.PID, removed at the end.
 * FRING_E2E_BIGDIR=N lowers the size of the large-directory test,
 * FRING_E2E_RENAMES=N the renames of the atomic-replace test (3000; the vm
 * tier, under emulation, uses fewer).
 */
#include "check.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif

#define MIB (1024 * 1024)

static uid_t nonroot_uid = 65534;
static gid_t nonroot_gid = 65534;
static char topdir[PATH_MAX]; /* DIR as given */
static char workname[64];     /* posix_suite.PID, inside DIR */

/* ------------------------------------------------------------------------ */
/* helpers */

/* Discards a result on purpose (the check comes later, or does not matter). */
static void ign(long r)
{
	(void)r;
}

static void msleep(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Deterministic bytes that depend on the seed and the absolute offset. */
static unsigned char pat_byte(unsigned seed, uint64_t off)
{
	uint64_t x = off * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;

	x ^= x >> 29;
	x *= 0x94D049BB133111EBull;
	x ^= x >> 32;
	return (unsigned char)x;
}

static void pat_fill(unsigned char *buf, size_t len, unsigned seed,
		     uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pat_byte(seed, off + i);
}

static ssize_t pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, p + done, len - done, off + (off_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static ssize_t pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, p + done, len - done, off + (off_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Creates (truncating) path with the given contents. 0 or -1. */
static int put_file(const char *path, const void *buf, size_t len, mode_t mode)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, mode);
	int e;

	if (fd < 0)
		return -1;
	if (pwrite_all(fd, buf, len, 0) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

static int put_str(const char *path, const char *s)
{
	return put_file(path, s, strlen(s), 0644);
}

/* Reads up to max bytes of path into buf; returns the count or -1. */
static ssize_t get_file(const char *path, void *buf, size_t max)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = pread_all(fd, buf, max, 0);
	e = errno;
	close(fd);
	errno = e;
	return n;
}

/* Checks that path holds exactly the string want. */
static int check_content(const char *name, const char *path, const char *want)
{
	char buf[4096];
	ssize_t n = get_file(path, buf, sizeof(buf) - 1);

	if (n < 0)
		return chk_result(
			0, name, "expected \"%s\" got -1 %s (%s) reading %s",
			want, chk_errname(errno), strerror(errno), path);
	buf[n] = 0;
	return CHECK_STR(name, buf, want);
}

static int check_zero(const char *name, const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return chk_result(0, name,
					  "expected zero bytes got 0x%02x at "
					  "offset %zu of %zu",
					  p[i], i, len);
	return chk_result(1, name, "%s", "");
}

static int ts_cmp(struct timespec a, struct timespec b)
{
	if (a.tv_sec != b.tv_sec)
		return a.tv_sec < b.tv_sec ? -1 : 1;
	if (a.tv_nsec != b.tv_nsec)
		return a.tv_nsec < b.tv_nsec ? -1 : 1;
	return 0;
}

static const char *ts_str(struct timespec t)
{
	static char bufs[4][48];
	static unsigned next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%lld.%09ld", (long long)t.tv_sec,
		 t.tv_nsec);
	return b;
}

/* a > b (strictly later) */
static int check_ts_gt(const char *name, struct timespec a, struct timespec b)
{
	return chk_result(ts_cmp(a, b) > 0, name,
			  "expected time later than %s got %s", ts_str(b),
			  ts_str(a));
}

static int check_ts_eq(const char *name, struct timespec a, struct timespec b)
{
	return chk_result(ts_cmp(a, b) == 0, name, "expected time %s got %s",
			  ts_str(b), ts_str(a));
}

/* The latest ctime xstat(), xlstat() and xfstat() saw: ts_advance() waits
 * past it. */
static struct timespec ctime_seen;

static int xstat_done(int ret, const struct stat *st)
{
	if (ret == 0 && ts_cmp(st->st_ctim, ctime_seen) > 0)
		ctime_seen = st->st_ctim;
	return ret;
}

static int xstat(const char *path, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	return xstat_done(stat(path, st), st);
}

static int xlstat(const char *path, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	return xstat_done(lstat(path, st), st);
}

static int xfstat(int fd, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	return xstat_done(fstat(fd, st), st);
}

/* Removes dirfd/name recursively (as root). */
static void rm_rf_at(int dirfd, const char *name)
{
	int fd;
	DIR *d;
	struct dirent *de;
	int again;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	do {
		again = 0;
		rewinddir(d);
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			if (unlinkat(fd, de->d_name, 0) == 0)
				again = 1;
			else if (errno == EISDIR || errno == EPERM) {
				ign(fchmodat(fd, de->d_name, 0700, 0));
				rm_rf_at(fd, de->d_name);
				again = 1;
			}
		}
	} while (again);
	closedir(d);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* mkdir + chdir into a fresh section directory. */
static int enter(const char *sec)
{
	if (mkdir(sec, 0755) < 0 || chdir(sec) < 0) {
		chk_result(0, chk_name("%s.setup", sec),
			   "expected mkdir/chdir got %s (%s)",
			   chk_errname(errno), strerror(errno));
		return 0;
	}
	return 1;
}

static void leave(void)
{
	if (chdir("..") < 0) {
		perror("chdir ..");
		exit(1);
	}
}

/* Waits for pid; returns the raw wait status (or -1). */
static int wait_pid(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return st;
}

static pid_t xfork(void)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	return pid;
}

static ssize_t list_dir(const char *path, char ***names_out)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	*names_out = names;
	return (ssize_t)n;
}

static void free_names(char **names, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int count_name(char **names, ssize_t n, const char *name)
{
	int c = 0;

	for (ssize_t i = 0; i < n; i++)
		c += !strcmp(names[i], name);
	return c;
}

/* ------------------------------------------------------------------------ */
/* files */

static void files_rw_at(size_t size, off_t off)
{
	const char *nm = chk_name("files.rw_%zu_at_%lld", size, (long long)off);
	size_t total = (size_t)off + size;
	unsigned char *want = calloc(1, total + 1),
		      *got = calloc(1, total + 64);
	struct stat st;
	int fd;
	ssize_t n;

	pat_fill(want + off, size, (unsigned)size, (uint64_t)off);
	fd = open("rw", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (!CHECK_SYS(chk_name("%s.open", nm), fd))
		goto out;
	CHECK_EQ(chk_name("%s.pwrite", nm),
		 pwrite_all(fd, want + off, size, off), (long long)size);
	CHECK_EQ(chk_name("%s.size", nm), fstat(fd, &st) ? -1 : st.st_size,
		 (long long)total);
	/* whole file in one go, asking for more than there is */
	n = pread_all(fd, got, total + 64, 0);
	if (CHECK_EQ(chk_name("%s.pread_len", nm), n, (long long)total))
		CHECK_MEM(chk_name("%s.pread_data", nm), got, want, total);
	/* sequential read(2) in odd chunks through a fresh descriptor */
	close(fd);
	fd = open("rw", O_RDONLY);
	memset(got, 0xa5, total + 64);
	{
		size_t done = 0;
		ssize_t r;

		while ((r = read(fd, got + done,
				 4097 < total + 64 - done
					 ? 4097
					 : total + 64 - done)) > 0)
			done += (size_t)r;
		if (CHECK_EQ(chk_name("%s.read_len", nm),
			     r == 0 ? (long long)done : -1, (long long)total))
			CHECK_MEM(chk_name("%s.read_data", nm), got, want,
				  total);
	}
	close(fd);
out:
	free(want);
	free(got);
}

static void test_files(void)
{
	int fd, fd2;
	struct stat st;
	char buf[256];
	unsigned char *big;

	if (!enter("files"))
		return;

	fd = open("a", O_CREAT | O_EXCL | O_RDWR, 0640);
	CHECK_SYS("files.create_excl", fd);
	CHECK_ERRNO("files.create_excl_eexist",
		    open("a", O_CREAT | O_EXCL | O_RDWR, 0644), EEXIST);
	CHECK_ERRNO("files.open_missing_enoent", open("missing", O_RDONLY),
		    ENOENT);
	if (fstat(fd, &st) == 0) {
		CHECK("files.create_is_reg", S_ISREG(st.st_mode));
		CHECK_EQ("files.create_mode", st.st_mode & 07777, 0640);
		CHECK_EQ("files.create_size0", st.st_size, 0);
		CHECK_EQ("files.create_nlink1", st.st_nlink, 1);
		CHECK_EQ("files.create_uid", st.st_uid, geteuid());
		CHECK_EQ("files.create_gid", st.st_gid, getegid());
	}
	CHECK_EQ("files.write", write(fd, "hello world", 11), 11);
	CHECK_EQ("files.lseek_cur", lseek(fd, 0, SEEK_CUR), 11);
	CHECK_EQ("files.lseek_end", lseek(fd, 0, SEEK_END), 11);
	CHECK_EQ("files.pread_mid", pread(fd, buf, 5, 6), 5);
	CHECK_MEM("files.pread_mid_data", buf, "world", 5);
	close(fd);
	/* O_CREAT without O_EXCL on an existing file keeps its mode and data */
	fd = open("a", O_CREAT | O_RDONLY, 0600);
	CHECK_SYS("files.creat_existing", fd);
	CHECK_EQ("files.creat_existing_mode",
		 fstat(fd, &st) ? -1 : (long long)(st.st_mode & 07777), 0640);
	CHECK_EQ("files.creat_existing_size", st.st_size, 11);
	CHECK_ERRNO("files.write_rdonly_ebadf", write(fd, "x", 1), EBADF);
	CHECK_ERRNO("files.ftruncate_rdonly_einval", ftruncate(fd, 0), EINVAL);
	close(fd);
	fd = open("a", O_WRONLY);
	CHECK_ERRNO("files.read_wronly_ebadf", read(fd, buf, 1), EBADF);
	close(fd);
	CHECK_ERRNO("files.o_directory_on_file",
		    open("a", O_RDONLY | O_DIRECTORY), ENOTDIR);

	/* O_TRUNC */
	fd = open("a", O_WRONLY | O_TRUNC);
	CHECK_SYS("files.o_trunc_open", fd);
	CHECK_EQ("files.o_trunc_size", fstat(fd, &st) ? -1 : st.st_size, 0);
	close(fd);
	CHECK_EQ("files.o_trunc_path_size", xstat("a", &st) ? -1 : st.st_size,
		 0);

	/* O_APPEND */
	put_str("ap", "abc");
	fd = open("ap", O_WRONLY | O_APPEND);
	CHECK_SYS("files.append_open", fd);
	CHECK_EQ("files.append_lseek0", lseek(fd, 0, SEEK_SET), 0);
	CHECK_EQ("files.append_write", write(fd, "def", 3), 3);
	CHECK_EQ("files.append_pos_after", lseek(fd, 0, SEEK_CUR), 6);
	/* Linux: pwrite on an O_APPEND descriptor appends too */
	CHECK_EQ("files.append_pwrite", pwrite(fd, "ghi", 3, 0), 3);
	CHECK_EQ("files.append_pos_after_pwrite", lseek(fd, 0, SEEK_CUR), 6);
	close(fd);
	check_content("files.append_data", "ap", "abcdefghi");
	fd = open("ap", O_RDWR | O_APPEND);
	lseek(fd, 2, SEEK_SET);
	CHECK_EQ("files.append_rdwr_write", write(fd, "J", 1), 1);
	close(fd);
	check_content("files.append_rdwr_data", "ap", "abcdefghiJ");

	/* odd sizes and offsets */
	{
		static const size_t sizes[] = {1, 4095, 4097, MIB + 3};
		static const off_t offs[] = {0, 1, 4095, 4097, 65537};

		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (size_t j = 0; j < sizeof(offs) / sizeof(offs[0]);
			     j++)
				files_rw_at(sizes[i], offs[j]);
	}
	/* overwrite in the middle of existing data at odd places */
	big = malloc(3 * 4096 + 7);
	pat_fill(big, 3 * 4096 + 7, 7, 0);
	put_file("ow", big, 3 * 4096 + 7, 0644);
	fd = open("ow", O_RDWR);
	{
		unsigned char patch[5000], got[3 * 4096 + 7];

		pat_fill(patch, sizeof(patch), 8, 4093);
		CHECK_EQ("files.overwrite_pwrite",
			 pwrite(fd, patch, sizeof(patch), 4093), 5000);
		memcpy(big + 4093, patch, sizeof(patch));
		CHECK_EQ("files.overwrite_len",
			 pread_all(fd, got, sizeof(got), 0), 3 * 4096 + 7);
		CHECK_MEM("files.overwrite_data", got, big, 3 * 4096 + 7);
		CHECK_EQ("files.overwrite_size",
			 fstat(fd, &st) ? -1 : st.st_size, 3 * 4096 + 7);
	}
	close(fd);
	free(big);

	/* EOF reads */
	put_str("eof", "0123456789");
	fd = open("eof", O_RDONLY);
	CHECK_EQ("files.eof_pread_at_size", pread(fd, buf, 10, 10), 0);
	CHECK_EQ("files.eof_pread_straddle", pread(fd, buf, 10, 9), 1);
	CHECK_EQ("files.eof_pread_straddle_byte", buf[0], '9');
	CHECK_EQ("files.eof_pread_far", pread(fd, buf, 10, 1LL << 40), 0);
	lseek(fd, 0, SEEK_END);
	CHECK_EQ("files.eof_read_at_end", read(fd, buf, 10), 0);
	CHECK_EQ("files.eof_lseek_beyond", lseek(fd, 100000, SEEK_SET), 100000);
	CHECK_EQ("files.eof_read_beyond", read(fd, buf, 10), 0);
	CHECK_ERRNO("files.lseek_negative_einval", lseek(fd, -1, SEEK_SET),
		    EINVAL);
	close(fd);

	/* write beyond EOF leaves a hole of zeros; ftruncate grow/shrink */
	{
		unsigned char *b = malloc(200000);

		fd = open("hole", O_CREAT | O_RDWR | O_TRUNC, 0644);
		pat_fill(b, 100, 1, 0);
		pwrite_all(fd, b, 100, 0);
		CHECK_EQ("files.hole_pwrite_far", pwrite(fd, "X", 1, 100000),
			 1);
		CHECK_EQ("files.hole_size", fstat(fd, &st) ? -1 : st.st_size,
			 100001);
		memset(b, 0xee, 200000);
		CHECK_EQ("files.hole_read_len", pread_all(fd, b, 200000, 0),
			 100001);
		check_zero("files.hole_zeros", b + 100, 100000 - 100);
		CHECK_EQ("files.hole_last_byte", b[100000], 'X');
		{
			unsigned char p[100];

			pat_fill(p, 100, 1, 0);
			CHECK_MEM("files.hole_head_intact", b, p, 100);
		}
		CHECK_SYS("files.ftruncate_grow", ftruncate(fd, 200000));
		CHECK_EQ("files.ftruncate_grow_size",
			 fstat(fd, &st) ? -1 : st.st_size, 200000);
		memset(b, 0xee, 200000);
		CHECK_EQ("files.ftruncate_grow_read",
			 pread_all(fd, b, 200000, 0), 200000);
		check_zero("files.ftruncate_grow_zeros", b + 100001,
			   200000 - 100001);
		CHECK_SYS("files.ftruncate_shrink", ftruncate(fd, 50));
		CHECK_EQ("files.ftruncate_shrink_size",
			 fstat(fd, &st) ? -1 : st.st_size, 50);
		CHECK_EQ("files.ftruncate_shrink_read",
			 pread_all(fd, b, 200000, 0), 50);
		{
			unsigned char p[50];

			pat_fill(p, 50, 1, 0);
			CHECK_MEM("files.ftruncate_shrink_data", b, p, 50);
		}
		/* growing again must not resurrect the old bytes */
		CHECK_SYS("files.ftruncate_regrow", ftruncate(fd, 100001));
		memset(b, 0xee, 200000);
		CHECK_EQ("files.ftruncate_regrow_read",
			 pread_all(fd, b, 200000, 0), 100001);
		check_zero("files.ftruncate_regrow_zeros", b + 50, 100001 - 50);
		CHECK_ERRNO("files.ftruncate_negative_einval",
			    ftruncate(fd, -1), EINVAL);
		close(fd);
		CHECK_SYS("files.truncate_path", truncate("hole", 10));
		CHECK_EQ("files.truncate_path_size",
			 xstat("hole", &st) ? -1 : st.st_size, 10);
		CHECK_SYS("files.truncate_path_grow", truncate("hole", 5000));
		CHECK_EQ("files.truncate_path_grow_size",
			 xstat("hole", &st) ? -1 : st.st_size, 5000);
		CHECK_EQ("files.truncate_path_grow_read",
			 get_file("hole", b, 200000), 5000);
		check_zero("files.truncate_path_grow_zeros", b + 10, 5000 - 10);
		CHECK_ERRNO("files.truncate_missing_enoent",
			    truncate("nothere", 0), ENOENT);
		free(b);
	}

	/* unlink of an open file */
	{
		unsigned char w[10000], g[10000];

		pat_fill(w, sizeof(w), 3, 0);
		put_file("ul", w, sizeof(w), 0644);
		fd = open("ul", O_RDWR);
		CHECK_SYS("files.unlink_open", unlink("ul"));
		CHECK_ERRNO("files.unlink_open_gone", xstat("ul", &st), ENOENT);
		CHECK_EQ("files.unlink_open_nlink0",
			 fstat(fd, &st) ? -1 : (long long)st.st_nlink, 0);
		CHECK_EQ("files.unlink_open_size", st.st_size,
			 (long long)sizeof(w));
		CHECK_EQ("files.unlink_open_read",
			 pread_all(fd, g, sizeof(g), 0), (long long)sizeof(g));
		CHECK_MEM("files.unlink_open_data", g, w, sizeof(w));
		CHECK_EQ("files.unlink_open_write", pwrite(fd, "ZZ", 2, 20000),
			 2);
		CHECK_EQ("files.unlink_open_write_read",
			 pread(fd, g, 10, 19999), 3);
		CHECK_MEM("files.unlink_open_write_data", g, "\0ZZ", 3);
		close(fd);
		CHECK_ERRNO("files.unlink_again_enoent", unlink("ul"), ENOENT);
	}

	/* rename over an open file */
	put_str("ro_new", "new contents");
	put_str("ro_old", "old contents");
	fd = open("ro_old", O_RDONLY);
	fd2 = open("ro_old", O_RDWR);
	CHECK_SYS("files.rename_over_open", rename("ro_new", "ro_old"));
	memset(buf, 0, sizeof(buf));
	CHECK_EQ("files.rename_over_open_read_old",
		 pread(fd, buf, sizeof(buf), 0), 12);
	CHECK_STR("files.rename_over_open_old_data", buf, "old contents");
	CHECK_EQ("files.rename_over_open_old_nlink0",
		 fstat(fd, &st) ? -1 : (long long)st.st_nlink, 0);
	CHECK_EQ("files.rename_over_open_write_old", pwrite(fd2, "OLD", 3, 0),
		 3);
	check_content("files.rename_over_open_new_data", "ro_old",
		      "new contents");
	memset(buf, 0, sizeof(buf));
	ign(pread(fd, buf, sizeof(buf), 0));
	CHECK_STR("files.rename_over_open_old_written", buf, "OLD contents");
	close(fd);
	close(fd2);

	/* readv/writev at odd places */
	{
		char a[7] = "abcdefg", b[4097], c[3] = "xyz", ra[7], rb[4097],
		     rc[3];
		struct iovec wv[3] = {{a, 7}, {b, 4097}, {c, 3}};
		struct iovec rv[3] = {{ra, 7}, {rb, 4097}, {rc, 3}};

		pat_fill((unsigned char *)b, sizeof(b), 13, 0);
		fd = open("iov", O_CREAT | O_RDWR | O_TRUNC, 0644);
		CHECK_EQ("files.pwritev", pwritev(fd, wv, 3, 4093),
			 7 + 4097 + 3);
		CHECK_EQ("files.preadv", preadv(fd, rv, 3, 4093), 7 + 4097 + 3);
		CHECK("files.preadv_data", !memcmp(a, ra, 7) &&
						   !memcmp(b, rb, 4097) &&
						   !memcmp(c, rc, 3));
		CHECK_EQ("files.writev_size", fstat(fd, &st) ? -1 : st.st_size,
			 4093 + 7 + 4097 + 3);
		close(fd);
	}

	/* a very sparse file: one byte at 1 TiB */
	fd = open("sparse1t", O_CREAT | O_RDWR | O_TRUNC, 0644);
	CHECK_EQ("files.sparse_1tib_pwrite", pwrite(fd, "T", 1, 1LL << 40), 1);
	CHECK_EQ("files.sparse_1tib_size", fstat(fd, &st) ? -1 : st.st_size,
		 (1LL << 40) + 1);
	CHECK("files.sparse_1tib_blocks_small", st.st_blocks < 1024);
	memset(buf, 0x55, 16);
	CHECK_EQ("files.sparse_1tib_pread", pread(fd, buf, 16, (1LL << 40) - 8),
		 9);
	CHECK_MEM("files.sparse_1tib_data", buf, "\0\0\0\0\0\0\0\0T", 9);
	CHECK_EQ("files.sparse_1tib_pread_start", pread(fd, buf, 4, 0), 4);
	CHECK_MEM("files.sparse_1tib_zero_start", buf, "\0\0\0\0", 4);
	CHECK_SYS("files.sparse_1tib_truncate", ftruncate(fd, 0));
	close(fd);
	/* st_blocks follows the data (as tmpfs does) */
	{
		unsigned char *d = calloc(1, MIB);

		fd = open("blocks", O_CREAT | O_RDWR | O_TRUNC, 0644);
		pwrite_all(fd, d, MIB, 0);
		fsync(fd);
		CHECK("files.blocks_dense",
		      fstat(fd, &st) == 0 && st.st_blocks * 512 >= MIB);
		close(fd);
		free(d);
	}
	CHECK_ERRNO("files.truncate_dir_eisdir", truncate(".", 0), EISDIR);

	/* copy_file_range within the filesystem */
	{
		unsigned char w[10000], g[10000];
		int in, out;
		loff_t io = 100, oo = 5;

		pat_fill(w, sizeof(w), 17, 0);
		put_file("cfr_in", w, sizeof(w), 0644);
		in = open("cfr_in", O_RDONLY);
		out = open("cfr_out", O_CREAT | O_RDWR | O_TRUNC, 0644);
		CHECK_EQ("files.copy_file_range",
			 copy_file_range(in, &io, out, &oo, 9000, 0), 9000);
		CHECK_EQ("files.copy_file_range_size",
			 fstat(out, &st) ? -1 : st.st_size, 9005);
		memset(g, 0x55, sizeof(g));
		pread_all(out, g, 9005, 0);
		CHECK_MEM("files.copy_file_range_zero_head", g, "\0\0\0\0\0",
			  5);
		CHECK_MEM("files.copy_file_range_data", g + 5, w + 100, 9000);
		close(in);
		close(out);
	}

	/* the file size and content after many small appends */
	fd = open("small", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	for (int i = 0; i < 1000; i++)
		if (write(fd, &"0123456789"[i % 10], 1) != 1)
			break;
	close(fd);
	{
		char s[1001], w[1001];

		for (int i = 0; i < 1000; i++)
			w[i] = (char)('0' + i % 10);
		w[1000] = 0;
		CHECK_EQ("files.small_writes_len", get_file("small", s, 1000),
			 1000);
		s[1000] = 0;
		CHECK_STR("files.small_writes_data", s, w);
	}
	leave();
}

/* ------------------------------------------------------------------------ */
/* directories */

static void test_dirs(void)
{
	struct stat st, st2, pst;
	char name[300];
	char **names;
	ssize_t n;

	if (!enter("dirs"))
		return;
	xstat(".", &pst);

	CHECK_SYS("dirs.mkdir", mkdir("d", 0755));
	CHECK_EQ("dirs.mkdir_mode",
		 xstat("d", &st) ? -1 : (long long)(st.st_mode & 07777), 0755);
	CHECK("dirs.mkdir_is_dir", S_ISDIR(st.st_mode));
	CHECK_EQ("dirs.mkdir_nlink2", st.st_nlink, 2);
	CHECK_EQ("dirs.parent_nlink_plus1",
		 xstat(".", &st2) ? -1 : (long long)st2.st_nlink,
		 (long long)pst.st_nlink + 1);
	CHECK_ERRNO("dirs.mkdir_eexist", mkdir("d", 0755), EEXIST);
	put_str("file", "x");
	CHECK_ERRNO("dirs.mkdir_over_file_eexist", mkdir("file", 0755), EEXIST);
	CHECK_ERRNO("dirs.mkdir_noparent_enoent", mkdir("nx/d", 0755), ENOENT);
	CHECK_ERRNO("dirs.mkdir_under_file_enotdir", mkdir("file/x", 0755),
		    ENOTDIR);
	CHECK_ERRNO("dirs.open_under_file_enotdir", open("file/x", O_RDONLY),
		    ENOTDIR);
	CHECK_ERRNO("dirs.creat_under_file_enotdir",
		    open("file/x", O_CREAT | O_WRONLY, 0644), ENOTDIR);
	CHECK_ERRNO("dirs.stat_under_file_enotdir", xstat("file/x", &st),
		    ENOTDIR);
	CHECK_ERRNO("dirs.stat_file_slash_enotdir", xstat("file/", &st),
		    ENOTDIR);
	CHECK_ERRNO("dirs.rmdir_file_enotdir", rmdir("file"), ENOTDIR);
	CHECK_ERRNO("dirs.rmdir_missing_enoent", rmdir("missing"), ENOENT);
	CHECK_ERRNO("dirs.chdir_file_enotdir", chdir("file"), ENOTDIR);

	CHECK_SYS("dirs.mkdir_sub1", mkdir("d/sub1", 0755));
	CHECK_SYS("dirs.mkdir_sub2", mkdir("d/sub2", 0755));
	put_str("d/f", "file in d");
	CHECK_EQ("dirs.nlink_2_plus_subdirs",
		 xstat("d", &st) ? -1 : (long long)st.st_nlink, 4);
	CHECK_ERRNO("dirs.rmdir_nonempty_enotempty", rmdir("d"), ENOTEMPTY);
	put_str("d/sub1/f", "x");
	CHECK_ERRNO("dirs.rmdir_nonempty_file_enotempty", rmdir("d/sub1"),
		    ENOTEMPTY);

	CHECK_ERRNO("dirs.open_dir_wronly_eisdir", open("d", O_WRONLY), EISDIR);
	CHECK_ERRNO("dirs.open_dir_rdwr_eisdir", open("d", O_RDWR), EISDIR);
	CHECK_ERRNO("dirs.open_dir_creat_eisdir",
		    open("d", O_CREAT | O_WRONLY, 0644), EISDIR);
	{
		int fd = open("d", O_RDONLY);

		CHECK_SYS("dirs.open_dir_rdonly", fd);
		CHECK_ERRNO("dirs.read_dir_eisdir", read(fd, name, 10), EISDIR);
		close(fd);
	}
	CHECK_ERRNO("dirs.unlink_dir_eisdir", unlink("d"), EISDIR);
	CHECK_ERRNO("dirs.rename_into_own_subdir_einval",
		    rename("d", "d/sub2/x"), EINVAL);
	CHECK_ERRNO("dirs.rename_into_itself_einval", rename("d", "d/x"),
		    EINVAL);
	CHECK_ERRNO("dirs.rmdir_dot_einval", rmdir("d/."), EINVAL);
	CHECK_ERRNO("dirs.rmdir_cwd_dot_einval", rmdir("."), EINVAL);
	CHECK_ERRNO("dirs.rmdir_dotdot_enotempty", rmdir("d/sub2/.."),
		    ENOTEMPTY);

	/* names: 255 is fine, 256 is ENAMETOOLONG */
	memset(name, 'n', 255);
	name[255] = 0;
	CHECK_SYS("dirs.name255_create", put_str(name, "255"));
	CHECK_SYS("dirs.name255_stat", xstat(name, &st));
	CHECK_SYS("dirs.name255_mkdir", mkdir((name[0] = 'm', name), 0755));
	name[255] = 'n';
	name[256] = 0;
	CHECK_ERRNO("dirs.name256_mkdir_enametoolong", mkdir(name, 0755),
		    ENAMETOOLONG);
	CHECK_ERRNO("dirs.name256_creat_enametoolong",
		    open(name, O_CREAT | O_WRONLY, 0644), ENAMETOOLONG);
	CHECK_ERRNO("dirs.name256_stat_enametoolong", xstat(name, &st),
		    ENAMETOOLONG);
	name[255] = 0;

	/* readdir: . and .., inode numbers, d_type */
	n = list_dir("d", &names);
	if (CHECK_EQ("dirs.readdir_count", n, 5)) {
		CHECK_EQ("dirs.readdir_dot_once", count_name(names, n, "."), 1);
		CHECK_EQ("dirs.readdir_dotdot_once", count_name(names, n, ".."),
			 1);
		CHECK_EQ("dirs.readdir_sub1_once", count_name(names, n, "sub1"),
			 1);
		CHECK_EQ("dirs.readdir_f_once", count_name(names, n, "f"), 1);
	}
	if (n > 0)
		free_names(names, n);
	{
		DIR *dp = opendir("d");
		struct dirent *de;
		struct stat dst, ddst, fst, sst;
		int seen = 0;

		xstat("d", &dst);
		xstat(".", &ddst);
		xstat("d/f", &fst);
		xstat("d/sub1", &sst);
		while (dp && (de = readdir(dp))) {
			if (!strcmp(de->d_name, ".")) {
				CHECK_EQ("dirs.readdir_dot_ino", de->d_ino,
					 dst.st_ino);
				seen++;
			} else if (!strcmp(de->d_name, "..")) {
				CHECK_EQ("dirs.readdir_dotdot_ino", de->d_ino,
					 ddst.st_ino);
				seen++;
			} else if (!strcmp(de->d_name, "f")) {
				CHECK_EQ("dirs.readdir_file_ino", de->d_ino,
					 fst.st_ino);
				CHECK_EQ("dirs.readdir_file_dtype", de->d_type,
					 DT_REG);
				seen++;
			} else if (!strcmp(de->d_name, "sub1")) {
				CHECK_EQ("dirs.readdir_dir_ino", de->d_ino,
					 sst.st_ino);
				CHECK_EQ("dirs.readdir_dir_dtype", de->d_type,
					 DT_DIR);
				seen++;
			}
		}
		CHECK_EQ("dirs.readdir_seen", seen, 4);
		if (dp)
			closedir(dp);
	}
	CHECK_EQ("dirs.dotdot_ino",
		 xstat("d/sub1/..", &st) ? -1 : (long long)st.st_ino,
		 xstat("d", &st2) ? -1 : (long long)st2.st_ino);

	/* empty the tree; nlink goes back down */
	CHECK_SYS("dirs.unlink_sub1_f", unlink("d/sub1/f"));
	CHECK_SYS("dirs.rmdir_sub1", rmdir("d/sub1"));
	CHECK_EQ("dirs.nlink_after_rmdir",
		 xstat("d", &st) ? -1 : (long long)st.st_nlink, 3);
	CHECK_ERRNO("dirs.rmdir_sub1_again_enoent", rmdir("d/sub1"), ENOENT);
	CHECK_ERRNO("dirs.stat_removed_enoent", xstat("d/sub1", &st), ENOENT);
	/* a removed directory that is still open (as cwd-like dirfd) */
	{
		int dfd;

		mkdir("gone", 0755);
		dfd = open("gone", O_RDONLY | O_DIRECTORY);
		CHECK_SYS("dirs.rmdir_open_dir", rmdir("gone"));
		CHECK_EQ("dirs.removed_dir_nlink0",
			 fstat(dfd, &st) ? -1 : (long long)st.st_nlink, 0);
		CHECK_ERRNO("dirs.create_in_removed_dir_enoent",
			    openat(dfd, "x", O_CREAT | O_WRONLY, 0644), ENOENT);
		CHECK_ERRNO("dirs.mkdir_in_removed_dir_enoent",
			    mkdirat(dfd, "x", 0755), ENOENT);
		{
			DIR *dp = fdopendir(dfd);
			struct dirent *de;
			int cnt = 0;

			errno = 0;
			while (dp && (de = readdir(dp)))
				cnt++;
			CHECK_EQ("dirs.readdir_removed_dir_empty", cnt, 0);
			if (dp)
				closedir(dp);
			else
				close(dfd);
		}
	}
	leave();
}

/* ------------------------------------------------------------------------ */
/* a large directory */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct churn {
	volatile int stop;
	volatile long ops;
	volatile long errors;
	volatile long created; /* x0 .. x(created-1) were created */
	char errmsg[256];
};

#define CHURN_KEEP 16

/* Creates x0, x1, ... and unlinks x(k-CHURN_KEEP): never reuses a name. */
static void churn_child(struct churn *c)
{
	char nm[32];
	long k = 0;

	while (!c->stop) {
		int fd;

		snprintf(nm, sizeof(nm), "x%ld", k);
		fd = open(nm, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			c->errors++;
			snprintf(c->errmsg, sizeof(c->errmsg), "create %s: %s",
				 nm, strerror(errno));
			break;
		}
		close(fd);
		k++;
		c->created = k;
		if (k > CHURN_KEEP) {
			snprintf(nm, sizeof(nm), "x%ld", k - 1 - CHURN_KEEP);
			if (unlink(nm) < 0) {
				c->errors++;
				snprintf(c->errmsg, sizeof(c->errmsg),
					 "unlink %s: %s", nm, strerror(errno));
				break;
			}
		}
		c->ops++;
	}
	/* clean up our own names */
	for (long i = k - 1 - CHURN_KEEP < 0 ? 0 : k - 1 - CHURN_KEEP; i < k;
	     i++) {
		snprintf(nm, sizeof(nm), "x%ld", i);
		unlink(nm);
	}
	_exit(0);
}

/* Parses "f<decimal>" into an index below n, or returns -1. */
static long fname_idx(const char *s, long n)
{
	char *end;
	long v;

	if (s[0] != 'f' || s[1] < '0' || s[1] > '9')
		return -1;
	v = strtol(s + 1, &end, 10);
	if (*end || v < 0 || v >= n)
		return -1;
	return v;
}

/* One listing of "." with getdents64 and a buffer of bufsz bytes while the
 * churn child runs. */
static void bigdir_concurrent_listing(long nfiles, size_t bufsz)
{
	const char *tag = chk_name("bigdir.concurrent_%zu", bufsz);
	struct churn *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned char *seen = calloc((size_t)nfiles, 1);
	size_t xcap = 1 << 20;
	unsigned char *xseen = calloc(xcap, 1);
	char *buf = malloc(bufsz);
	long dups = 0, missing = 0, bad = 0, dots = 0, xs = 0, ops_before,
	     ops_after;
	char firstdup[300] = "", firstbad[300] = "";
	pid_t pid;
	int fd, ok = 1;
	long calls = 0;

	memset(c, 0, sizeof(*c));
	pid = xfork();
	if (pid == 0)
		churn_child(c);
	/* wait until the churn is going (bounded) */
	for (int i = 0; i < 5000 && c->ops < 50 && !c->errors; i++)
		msleep(1);
	ops_before = c->ops;
	fd = open(".", O_RDONLY | O_DIRECTORY);
	for (;;) {
		long nr = syscall(SYS_getdents64, fd, buf, bufsz);

		if (nr < 0) {
			chk_result(0, chk_name("%s.getdents", tag),
				   "expected success got %s (%s)",
				   chk_errname(errno), strerror(errno));
			ok = 0;
			break;
		}
		if (nr == 0)
			break;
		/* give the churn time to interleave with the listing */
		if (bufsz >= 4096 || ++calls % 16 == 0)
			msleep(1);
		for (long off = 0; off < nr;) {
			struct linux_dirent64 *de = (void *)(buf + off);
			long idx = fname_idx(de->d_name, nfiles);

			off += de->d_reclen;
			if (idx >= 0) {
				if (seen[idx]++ && !dups++)
					snprintf(firstdup, sizeof(firstdup),
						 "%s", de->d_name);
			} else if (!strcmp(de->d_name, ".") ||
				   !strcmp(de->d_name, "..")) {
				dots++;
			} else if (de->d_name[0] == 'x' &&
				   de->d_name[1] >= '0' &&
				   de->d_name[1] <= '9') {
				unsigned long xi =
					strtoul(de->d_name + 1, NULL, 10);

				xs++;
				if (xi >= xcap) {
					size_t ncap = xi * 2;

					xseen = realloc(xseen, ncap);
					memset(xseen + xcap, 0, ncap - xcap);
					xcap = ncap;
				}
				if (xseen[xi]++ && !dups++)
					snprintf(firstdup, sizeof(firstdup),
						 "%s", de->d_name);
			} else if (!bad++) {
				snprintf(firstbad, sizeof(firstbad), "%s",
					 de->d_name);
			}
		}
	}
	close(fd);
	ops_after = c->ops;
	c->stop = 1;
	wait_pid(pid);
	for (long i = 0; i < nfiles; i++)
		missing += !seen[i];
	chk_note("%s: %ld churn creates+unlinks ran during the listing, %ld "
		 "x-names seen",
		 tag, ops_after - ops_before, xs);
	if (ok) {
		chk_result(c->errors == 0, chk_name("%s.churn_ok", tag),
			   "expected no churn errors got %ld (%s)", c->errors,
			   c->errmsg);
		chk_result(missing == 0,
			   chk_name("%s.all_stable_names_seen", tag),
			   "expected 0 missing got %ld missing of %ld", missing,
			   nfiles);
		chk_result(dups == 0, chk_name("%s.no_duplicates", tag),
			   "expected 0 duplicate names got %ld (first: %s)",
			   dups, firstdup);
		CHECK_EQ(chk_name("%s.dots", tag), dots, 2);
		chk_result(bad == 0, chk_name("%s.no_unknown_names", tag),
			   "expected no other names got %ld (first: %s)", bad,
			   firstbad);
	}
	munmap(c, sizeof(*c));
	free(seen);
	free(xseen);
	free(buf);
}

static void test_bigdir(long nfiles)
{
	char nm[32];
	long created = 0, failed = 0;
	int ferr = 0;
	unsigned char *seen;
	DIR *d;
	struct dirent *de;
	long dups = 0, missing = 0, other = 0, dots = 0, total = 0;
	char **names;
	long *pos;
	struct timespec t0, t1;

	if (!enter("bigdir"))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < nfiles; i++) {
		int fd;

		snprintf(nm, sizeof(nm), "f%ld", i);
		fd = open(nm, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			if (!failed++)
				ferr = errno;
			continue;
		}
		close(fd);
		created++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	chk_note("bigdir: created %ld files in %.2f s", created,
		 (double)(t1.tv_sec - t0.tv_sec) +
			 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (!chk_result(failed == 0, "bigdir.create_all",
			"expected %ld files created got %ld (first error %s)",
			nfiles, created, chk_errname(ferr)))
		goto out;

	/* plain listing: every name exactly once */
	seen = calloc((size_t)nfiles, 1);
	names = calloc((size_t)nfiles + 2, sizeof(*names));
	pos = calloc((size_t)nfiles + 3, sizeof(*pos));
	d = opendir(".");
	for (;;) {
		long idx;

		pos[total] = telldir(d);
		if (!(de = readdir(d)))
			break;
		if (total < nfiles + 2)
			names[total] = strdup(de->d_name);
		total++;
		if (total > nfiles + 2)
			break;
		idx = fname_idx(de->d_name, nfiles);
		if (idx >= 0)
			dups += seen[idx]++ != 0;
		else if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			dots++;
		else
			other++;
	}
	for (long i = 0; i < nfiles; i++)
		missing += !seen[i];
	CHECK_EQ("bigdir.list_count", total, nfiles + 2);
	chk_result(missing == 0, "bigdir.list_all_present",
		   "expected 0 missing got %ld", missing);
	chk_result(dups == 0, "bigdir.list_no_duplicates",
		   "expected 0 duplicates got %ld", dups);
	CHECK_EQ("bigdir.list_dots", dots, 2);
	CHECK_EQ("bigdir.list_no_other", other, 0);

	/* seekdir/telldir: going back to a saved position resumes there */
	if (total == nfiles + 2) {
		long probes[] = {0,	     1,		 2,	 3,
				 17,	     100,	 1000,	 nfiles / 3,
				 nfiles / 2, nfiles - 1, nfiles, nfiles + 1,
				 nfiles + 2};
		long bad = 0, first_bad = -1;
		char got_name[300] = "";

		for (int k = (int)(sizeof(probes) / sizeof(probes[0])) - 1;
		     k >= 0; k--) {
			long i = probes[k];

			if (i < 0 || i > nfiles + 2)
				continue;
			seekdir(d, pos[i]);
			de = readdir(d);
			if (i == nfiles + 2) {
				if (de) {
					bad++;
					first_bad = i;
					snprintf(got_name, sizeof(got_name),
						 "%s", de->d_name);
				}
			} else if (!de || strcmp(de->d_name, names[i])) {
				if (!bad++) {
					first_bad = i;
					snprintf(got_name, sizeof(got_name),
						 "%s",
						 de ? de->d_name : "(end)");
				}
			} else if (i + 1 < nfiles + 2) {
				/* and the stream goes on in the same order */
				de = readdir(d);
				if (!de || strcmp(de->d_name, names[i + 1])) {
					if (!bad++) {
						first_bad = i + 1;
						snprintf(got_name,
							 sizeof(got_name), "%s",
							 de ? de->d_name
							    : "(end)");
					}
				}
			}
		}
		chk_result(bad == 0, "bigdir.seekdir_telldir",
			   "expected entry #%ld \"%s\" after seekdir got "
			   "\"%s\" (%ld bad)",
			   first_bad,
			   first_bad >= 0 && first_bad < nfiles + 2
				   ? names[first_bad]
				   : "(end)",
			   got_name, bad);
		/* positions stay valid while other entries come and go */
		{
			long again[] = {17, 100, nfiles / 2, nfiles - 1};
			long bad2 = 0, fb = -1;
			char gn[300] = "";

			for (long i = 4; i < 10; i++)
				ign(unlink(names[i]));
			for (int i = 0; i < 10; i++) {
				snprintf(nm, sizeof(nm), "y%d", i);
				close(open(nm, O_CREAT | O_WRONLY, 0644));
			}
			for (int k = 0; k < 4; k++) {
				long i = again[k];

				if (i <= 10 || i >= nfiles + 2)
					continue;
				seekdir(d, pos[i]);
				de = readdir(d);
				if ((!de || strcmp(de->d_name, names[i])) &&
				    !bad2++) {
					fb = i;
					snprintf(gn, sizeof(gn), "%s",
						 de ? de->d_name : "(end)");
				}
			}
			chk_result(bad2 == 0, "bigdir.seekdir_after_changes",
				   "expected entry #%ld \"%s\" after seekdir "
				   "got \"%s\" (%ld bad)",
				   fb, fb >= 0 ? names[fb] : "", gn, bad2);
			for (int i = 0; i < 10; i++) {
				snprintf(nm, sizeof(nm), "y%d", i);
				ign(unlink(nm));
			}
			for (long i = 4; i < 10; i++)
				close(open(names[i], O_CREAT | O_WRONLY, 0644));
		}
		rewinddir(d);
		de = readdir(d);
		chk_result(de && !strcmp(de->d_name, names[0]),
			   "bigdir.rewinddir", "expected \"%s\" got \"%s\"",
			   names[0], de ? de->d_name : "(end)");
	}
	closedir(d);
	for (long i = 0; i < nfiles + 2; i++)
		free(names[i]);
	free(names);
	free(pos);
	free(seen);

	/* listings while another process creates and unlinks other names */
	bigdir_concurrent_listing(nfiles, 1024);
	bigdir_concurrent_listing(nfiles, 32768);

	/* remove everything */
	failed = 0;
	for (long i = 0; i < nfiles; i++) {
		snprintf(nm, sizeof(nm), "f%ld", i);
		if (unlink(nm) < 0 && !failed++)
			ferr = errno;
	}
	chk_result(failed == 0, "bigdir.unlink_all",
		   "expected 0 unlink failures got %ld (%s)", failed,
		   chk_errname(ferr));
	{
		ssize_t n = list_dir(".", &names);

		CHECK_EQ("bigdir.empty_after", n, 2);
		if (n > 0)
			free_names(names, n);
	}
out:
	leave();
	if (rmdir("bigdir") < 0)
		rm_rf_at(AT_FDCWD, "bigdir");
}

/* ------------------------------------------------------------------------ */
/* hard links and symlinks */

static void test_links(void)
{
	struct stat st1, st2;
	char buf[8192];
	char *target;
	ssize_t n;

	if (!enter("links"))
		return;
	put_str("l1", "linked data");
	CHECK_SYS("links.link", link("l1", "l2"));
	xstat("l1", &st1);
	xstat("l2", &st2);
	CHECK_EQ("links.same_ino", st2.st_ino, st1.st_ino);
	CHECK_EQ("links.nlink2", st1.st_nlink, 2);
	check_content("links.content_via_l2", "l2", "linked data");
	CHECK_ERRNO("links.link_eexist", link("l1", "l2"), EEXIST);
	CHECK_ERRNO("links.link_missing_enoent", link("nothere", "l3"), ENOENT);
	CHECK_ERRNO("links.link_noparent_enoent", link("l1", "nodir/l3"),
		    ENOENT);
	mkdir("dir", 0755);
	CHECK_ERRNO("links.link_dir_eperm", link("dir", "dirlink"), EPERM);
	CHECK_SYS("links.link_into_subdir", link("l1", "dir/l3"));
	CHECK_EQ("links.nlink3",
		 xstat("l1", &st1) ? -1 : (long long)st1.st_nlink, 3);
	{
		int fd = open("dir/l3", O_WRONLY | O_APPEND);

		ign(write(fd, "+", 1));
		close(fd);
	}
	check_content("links.write_via_other_name", "l2", "linked data+");
	CHECK_SYS("links.unlink_first", unlink("l1"));
	CHECK_EQ("links.nlink_after_unlink",
		 xstat("l2", &st2) ? -1 : (long long)st2.st_nlink, 2);
	check_content("links.survives_unlink", "l2", "linked data+");
	unlink("dir/l3");
	CHECK_EQ("links.nlink1",
		 xstat("l2", &st2) ? -1 : (long long)st2.st_nlink, 1);
	chk_note("links: EXDEV for link(2) across filesystems is not tested "
		 "(not applicable)");

	/* symlinks */
	put_str("target", "target data");
	CHECK_SYS("symlinks.symlink", symlink("target", "s1"));
	memset(buf, 0, sizeof(buf));
	n = readlink("s1", buf, sizeof(buf));
	CHECK_EQ("symlinks.readlink_len", n, 6);
	CHECK_STR("symlinks.readlink", buf, "target");
	CHECK_EQ("symlinks.readlink_truncated", readlink("s1", buf, 3), 3);
	CHECK("symlinks.lstat_is_link",
	      xlstat("s1", &st1) == 0 && S_ISLNK(st1.st_mode));
	CHECK_EQ("symlinks.lstat_size", st1.st_size, 6);
	CHECK("symlinks.stat_follows",
	      xstat("s1", &st2) == 0 && S_ISREG(st2.st_mode));
	{
		struct stat tst;

		xstat("target", &tst);
		CHECK_EQ("symlinks.stat_ino_is_target", st2.st_ino, tst.st_ino);
		CHECK("symlinks.link_ino_differs", st1.st_ino != tst.st_ino);
	}
	check_content("symlinks.open_follows", "s1", "target data");
	CHECK_ERRNO("symlinks.o_nofollow_eloop",
		    open("s1", O_RDONLY | O_NOFOLLOW), ELOOP);
	CHECK_ERRNO("symlinks.symlink_eexist", symlink("x", "s1"), EEXIST);
	CHECK_ERRNO("symlinks.symlink_empty_enoent", symlink("", "s_empty"),
		    ENOENT);
	CHECK_ERRNO("symlinks.readlink_regular_einval",
		    readlink("target", buf, sizeof(buf)), EINVAL);
	CHECK_SYS("symlinks.relative_in_subdir", symlink("../target", "dir/s"));
	check_content("symlinks.relative_resolves", "dir/s", "target data");
	CHECK_SYS("symlinks.link_to_dir", symlink("dir", "sdir"));
	CHECK("symlinks.path_through_link_to_dir",
	      xstat("sdir/s", &st1) == 0 && S_ISREG(st1.st_mode));
	/* a hard link to a symlink is a symlink */
	CHECK_SYS("symlinks.hardlink_to_symlink", link("s1", "s1hard"));
	CHECK("symlinks.hardlink_to_symlink_is_link",
	      xlstat("s1hard", &st2) == 0 && S_ISLNK(st2.st_mode) &&
		      xlstat("s1", &st1) == 0 && st1.st_ino == st2.st_ino &&
		      st1.st_nlink == 2);

	/* dangling */
	CHECK_SYS("symlinks.dangling_create", symlink("nowhere", "s2"));
	CHECK_SYS("symlinks.dangling_lstat", xlstat("s2", &st1));
	CHECK_ERRNO("symlinks.dangling_stat_enoent", xstat("s2", &st1), ENOENT);
	CHECK_ERRNO("symlinks.dangling_open_enoent", open("s2", O_RDONLY),
		    ENOENT);
	CHECK_ERRNO("symlinks.dangling_creat_excl_eexist",
		    open("s2", O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST);
	{
		/* O_CREAT through a dangling symlink creates its target */
		int fd = open("s2", O_CREAT | O_WRONLY, 0644);

		CHECK_SYS("symlinks.dangling_creat_follows", fd);
		if (fd >= 0)
			close(fd);
		CHECK("symlinks.dangling_creat_made_target",
		      xlstat("nowhere", &st1) == 0 && S_ISREG(st1.st_mode));
	}
	CHECK_SYS("symlinks.unlink_removes_link_only", unlink("s1"));
	CHECK_SYS("symlinks.target_still_there", xstat("target", &st1));

	/* loops */
	ign(symlink("loop2", "loop1"));
	ign(symlink("loop1", "loop2"));
	CHECK_ERRNO("symlinks.loop_stat_eloop", xstat("loop1", &st1), ELOOP);
	CHECK_ERRNO("symlinks.loop_open_eloop", open("loop1", O_RDONLY), ELOOP);
	ign(symlink("self", "self"));
	CHECK_ERRNO("symlinks.self_loop_eloop", xstat("self/x", &st1), ELOOP);
	CHECK("symlinks.loop_lstat_ok",
	      xlstat("loop1", &st1) == 0 && S_ISLNK(st1.st_mode));

	/* a 4095-byte target (the maximum), and 4096 is too long */
	target = malloc(4097);
	for (int i = 0; i < 4095; i++)
		target[i] = (i % 64 == 63) ? '/' : (char)('a' + i % 26);
	target[4095] = 0;
	CHECK_SYS("symlinks.target4095", symlink(target, "longlink"));
	memset(buf, 0, sizeof(buf));
	CHECK_EQ("symlinks.target4095_readlink_len",
		 readlink("longlink", buf, sizeof(buf)), 4095);
	CHECK_MEM("symlinks.target4095_readlink", buf, target, 4096);
	CHECK_EQ("symlinks.target4095_lstat_size",
		 xlstat("longlink", &st1) ? -1 : st1.st_size, 4095);
	target[4095] = 'z';
	target[4096] = 0;
	CHECK_ERRNO("symlinks.target4096_enametoolong",
		    symlink(target, "toolong"), ENAMETOOLONG);
	free(target);
	leave();
}

/* ------------------------------------------------------------------------ */
/* rename */

static int rename2(const char *a, const char *b, unsigned flags)
{
	return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, flags);
}

static ino_t ino_of(const char *p)
{
	struct stat st;

	return xlstat(p, &st) ? 0 : st.st_ino;
}

static nlink_t nlink_of(const char *p)
{
	struct stat st;

	return xlstat(p, &st) ? 0 : st.st_nlink;
}

/* rename(DIR/file, OTHER_FS/file) must fail with EXDEV */
static void rename_exdev(void)
{
	const char *cands[] = {"/tmp", "/dev/shm", "/var/tmp", NULL};
	struct stat here, st;
	char path[PATH_MAX], mnt[64] = "";
	const char *other = NULL;
	char cwd[PATH_MAX];

	if (xstat(".", &here) < 0 || !getcwd(cwd, sizeof(cwd)))
		return;
	for (int i = 0; cands[i]; i++) {
		if (xstat(cands[i], &st) == 0 && S_ISDIR(st.st_mode) &&
		    st.st_dev != here.st_dev && access(cands[i], W_OK) == 0) {
			other = cands[i];
			break;
		}
	}
	if (!other) {
		/* our own tmpfs on a directory made here (as root) */
		snprintf(mnt, sizeof(mnt), "/tmp/posix_suite_xdev.%d",
			 (int)getpid());
		if (mkdir(mnt, 0700) == 0 &&
		    mount("none", mnt, "tmpfs", 0, NULL) == 0)
			other = mnt;
		else {
			rmdir(mnt);
			mnt[0] = 0;
		}
	}
	if (!other) {
		chk_skip("rename.cross_fs_exdev",
			 "no other writable filesystem (tried /tmp, /dev/shm, "
			 "/var/tmp, own tmpfs)");
		return;
	}
	snprintf(path, sizeof(path), "%s/posix_suite_xdev_%d", other,
		 (int)getpid());
	put_str("xdev", "cross");
	CHECK_ERRNO(chk_name("rename.cross_fs_exdev(%s)", other),
		    rename("xdev", path), EXDEV);
	CHECK_ERRNO("rename.cross_fs_link_exdev", link("xdev", path), EXDEV);
	unlink(path);
	CHECK("rename.cross_fs_source_kept", xstat("xdev", &st) == 0);
	if (mnt[0]) {
		umount(mnt);
		rmdir(mnt);
	}
}

/* renames of rename_atomic_replace() (FRING_E2E_RENAMES) */
static long nrenames = 3000;

static void rename_atomic_replace(void)
{
	struct churn *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long opened = 0, enoent = 0, bad = 0, other = 0;
	int other_err = 0;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	put_str("atom", "v");
	pid = xfork();
	if (pid == 0) {
		for (long i = 0; i < nrenames && !c->stop; i++) {
			if (put_str("atom.tmp", "v") < 0 ||
			    rename("atom.tmp", "atom") < 0) {
				c->errors++;
				snprintf(c->errmsg, sizeof(c->errmsg), "%s",
					 strerror(errno));
				break;
			}
			c->ops++;
		}
		_exit(0);
	}
	for (int i = 0; i < 200000 && c->ops < nrenames && !c->errors; i++) {
		int fd = open("atom", O_RDONLY);
		char b[4];

		if (fd < 0) {
			if (errno == ENOENT)
				enoent++;
			else if (!other++)
				other_err = errno;
			continue;
		}
		opened++;
		if (read(fd, b, 4) != 1 || b[0] != 'v')
			bad++;
		close(fd);
	}
	c->stop = 1;
	wait_pid(pid);
	chk_note("rename: %ld renames, %ld opens of the target during them",
		 c->ops, opened);
	chk_result(c->errors == 0, "rename.atomic_replace_renames",
		   "expected no rename errors got %ld (%s)", c->errors,
		   c->errmsg);
	chk_result(enoent == 0 && other == 0,
		   "rename.atomic_replace_never_missing",
		   "expected the target always present got %ld ENOENT, %ld "
		   "other (%s)",
		   enoent, other, chk_errname(other_err));
	chk_result(bad == 0, "rename.atomic_replace_content",
		   "expected content \"v\" always got %ld bad reads", bad);
	munmap(c, sizeof(*c));
}

static void test_rename(void)
{
	struct stat st;
	ino_t i1, i2;

	if (!enter("rename"))
		return;
	put_str("r1", "one");
	i1 = ino_of("r1");
	CHECK_SYS("rename.plain", rename("r1", "r2"));
	CHECK_ERRNO("rename.plain_old_gone", xstat("r1", &st), ENOENT);
	check_content("rename.plain_content", "r2", "one");
	CHECK_EQ("rename.plain_same_ino", ino_of("r2"), i1);
	CHECK_ERRNO("rename.missing_enoent", rename("r1", "r9"), ENOENT);

	put_str("r3", "three");
	CHECK_SYS("rename.over_file", rename("r2", "r3"));
	check_content("rename.over_file_content", "r3", "one");
	CHECK_EQ("rename.over_file_ino", ino_of("r3"), i1);
	CHECK_ERRNO("rename.over_file_source_gone", xstat("r2", &st), ENOENT);
	rename_atomic_replace();

	/* to itself and between two links of one inode: no-op */
	CHECK_SYS("rename.same_name", rename("r3", "r3"));
	check_content("rename.same_name_content", "r3", "one");
	ign(link("r3", "r3link"));
	CHECK_SYS("rename.same_inode_links", rename("r3", "r3link"));
	CHECK("rename.same_inode_links_both_stay",
	      ino_of("r3") == i1 && ino_of("r3link") == i1);
	CHECK_EQ("rename.same_inode_links_nlink", nlink_of("r3"), 2);

	/* directories */
	mkdir("da", 0755);
	put_str("da/f", "in da");
	mkdir("db", 0755);
	i1 = ino_of("da");
	CHECK_SYS("rename.dir_over_empty_dir", rename("da", "db"));
	CHECK_EQ("rename.dir_over_empty_dir_ino", ino_of("db"), i1);
	check_content("rename.dir_over_empty_dir_content", "db/f", "in da");
	CHECK_ERRNO("rename.dir_over_empty_dir_source_gone", xstat("da", &st),
		    ENOENT);
	mkdir("dc", 0755);
	put_str("dc/g", "in dc");
	CHECK_ERRNO2("rename.dir_over_nonempty_dir", rename("db", "dc"),
		     ENOTEMPTY, EEXIST);
	CHECK("rename.dir_over_nonempty_dir_both_kept",
	      xstat("db/f", &st) == 0 && xstat("dc/g", &st) == 0);
	mkdir("de", 0755);
	put_str("rf", "file");
	CHECK_ERRNO("rename.file_over_dir_eisdir", rename("rf", "de"), EISDIR);
	CHECK_ERRNO("rename.dir_over_file_enotdir", rename("de", "rf"),
		    ENOTDIR);
	CHECK_ERRNO("rename.to_under_file_enotdir", rename("rf", "rf/x"),
		    ENOTDIR);
	CHECK_ERRNO("rename.dot_ebusy", rename("de/.", "dz"), EBUSY);
	CHECK_ERRNO("rename.dir_into_own_subdir_einval", rename("dc", "dc/sub"),
		    EINVAL);

	/* moving a directory between parents fixes nlink and .. */
	{
		nlink_t a0, b0;

		mkdir("pa", 0755);
		mkdir("pb", 0755);
		mkdir("pa/m", 0755);
		a0 = nlink_of("pa");
		b0 = nlink_of("pb");
		CHECK_SYS("rename.dir_across_parents", rename("pa/m", "pb/m"));
		CHECK_EQ("rename.dir_across_old_parent_nlink", nlink_of("pa"),
			 a0 - 1);
		CHECK_EQ("rename.dir_across_new_parent_nlink", nlink_of("pb"),
			 b0 + 1);
		CHECK_EQ("rename.dir_across_dotdot", ino_of("pb/m/.."),
			 ino_of("pb"));
	}

	/* renameat2 */
	put_str("n1", "n1");
	put_str("n2", "n2");
	CHECK_ERRNO("rename.noreplace_eexist",
		    rename2("n1", "n2", RENAME_NOREPLACE), EEXIST);
	check_content("rename.noreplace_target_kept", "n2", "n2");
	CHECK_SYS("rename.noreplace_new_name",
		  rename2("n1", "n3", RENAME_NOREPLACE));
	check_content("rename.noreplace_moved", "n3", "n1");
	CHECK_ERRNO("rename.exchange_and_noreplace_einval",
		    rename2("n2", "n3", RENAME_EXCHANGE | RENAME_NOREPLACE),
		    EINVAL);
	i1 = ino_of("n2");
	i2 = ino_of("n3");
	CHECK_SYS("rename.exchange_files",
		  rename2("n2", "n3", RENAME_EXCHANGE));
	check_content("rename.exchange_files_a", "n2", "n1");
	check_content("rename.exchange_files_b", "n3", "n2");
	CHECK("rename.exchange_files_inos",
	      ino_of("n2") == i2 && ino_of("n3") == i1);
	CHECK_ERRNO("rename.exchange_missing_enoent",
		    rename2("n2", "nx", RENAME_EXCHANGE), ENOENT);
	/* a file and a directory, in different parents */
	{
		nlink_t a0, b0;

		mkdir("xa", 0755);
		mkdir("xb", 0755);
		mkdir("xa/d", 0755);
		put_str("xa/d/child", "child");
		put_str("xb/f", "xf");
		a0 = nlink_of("xa");
		b0 = nlink_of("xb");
		CHECK_SYS("rename.exchange_file_dir",
			  rename2("xa/d", "xb/f", RENAME_EXCHANGE));
		CHECK("rename.exchange_file_dir_types",
		      xlstat("xa/d", &st) == 0 && S_ISREG(st.st_mode) &&
			      xlstat("xb/f", &st) == 0 && S_ISDIR(st.st_mode));
		check_content("rename.exchange_file_dir_file", "xa/d", "xf");
		check_content("rename.exchange_file_dir_child", "xb/f/child",
			      "child");
		CHECK_EQ("rename.exchange_file_dir_nlink_a", nlink_of("xa"),
			 a0 - 1);
		CHECK_EQ("rename.exchange_file_dir_nlink_b", nlink_of("xb"),
			 b0 + 1);
		CHECK_EQ("rename.exchange_file_dir_dotdot", ino_of("xb/f/.."),
			 ino_of("xb"));
	}
	rename_exdev();
	leave();
}

/* ------------------------------------------------------------------------ */
/* xattrs */

/* The user.* names in a listxattr buffer, sorted and joined by ','. */
static void user_names(const char *list, ssize_t len, char *out, size_t outsz)
{
	const char *names[64];
	int n = 0;

	for (ssize_t off = 0; off < len && n < 64;
	     off += (ssize_t)strlen(list + off) + 1)
		if (!strncmp(list + off, "user.", 5))
			names[n++] = list + off;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0;
		     j--) {
			const char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		if (i)
			strncat(out, ",", outsz - strlen(out) - 1);
		strncat(out, names[i], outsz - strlen(out) - 1);
	}
}

static void test_xattr(void)
{
	char buf[256], list[1024], names[1024];
	unsigned char *big, *got;
	ssize_t n;

	if (!enter("xattr"))
		return;
	put_str("f", "xattr file");
	n = setxattr("f", "user.a", "val1", 4, 0);
	if (n < 0 && (errno == EOPNOTSUPP || errno == ENOTSUP)) {
		chk_result(0, "xattr.user_set",
			   "expected success got EOPNOTSUPP (no xattrs)");
		leave();
		return;
	}
	CHECK_EQ("xattr.user_set", n, 0);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ("xattr.get_len", getxattr("f", "user.a", buf, sizeof(buf)), 4);
	CHECK_MEM("xattr.get_value", buf, "val1", 5);
	CHECK_EQ("xattr.size_probe", getxattr("f", "user.a", NULL, 0), 4);
	CHECK_ERRNO("xattr.small_buffer_erange",
		    getxattr("f", "user.a", buf, 2), ERANGE);
	CHECK_ERRNO("xattr.missing_enodata",
		    getxattr("f", "user.nothere", buf, sizeof(buf)), ENODATA);
	CHECK_ERRNO("xattr.missing_probe_enodata",
		    getxattr("f", "user.nothere", NULL, 0), ENODATA);
	CHECK_ERRNO("xattr.create_existing_eexist",
		    setxattr("f", "user.a", "v", 1, XATTR_CREATE), EEXIST);
	CHECK_ERRNO("xattr.replace_missing_enodata",
		    setxattr("f", "user.b", "v", 1, XATTR_REPLACE), ENODATA);
	CHECK_SYS("xattr.create_new",
		  setxattr("f", "user.b", "bee", 3, XATTR_CREATE));
	CHECK_SYS("xattr.replace",
		  setxattr("f", "user.a", "v2longer", 8, XATTR_REPLACE));
	memset(buf, 0, sizeof(buf));
	CHECK_EQ("xattr.replace_len", getxattr("f", "user.a", buf, sizeof(buf)),
		 8);
	CHECK_MEM("xattr.replace_value", buf, "v2longer", 9);
	CHECK_SYS("xattr.overwrite_shorter",
		  setxattr("f", "user.a", "s", 1, 0));
	CHECK_EQ("xattr.overwrite_shorter_len",
		 getxattr("f", "user.a", buf, sizeof(buf)), 1);
	CHECK_SYS("xattr.empty_value", setxattr("f", "user.empty", "", 0, 0));
	CHECK_EQ("xattr.empty_value_len",
		 getxattr("f", "user.empty", buf, sizeof(buf)), 0);
	{
		/* binary value with NULs */
		const unsigned char bin[8] = {0, 1, 2, 0, 0xff, 0x80, 0, 7};

		CHECK_SYS("xattr.binary_set",
			  setxattr("f", "user.bin", bin, 8, 0));
		CHECK_EQ("xattr.binary_len",
			 getxattr("f", "user.bin", buf, sizeof(buf)), 8);
		CHECK_MEM("xattr.binary_value", buf, bin, 8);
	}

	n = listxattr("f", NULL, 0);
	CHECK("xattr.list_probe", n > 0);
	memset(list, 0, sizeof(list));
	n = listxattr("f", list, sizeof(list));
	CHECK("xattr.list", n > 0);
	user_names(list, n, names, sizeof(names));
	CHECK_STR("xattr.list_contents", names,
		  "user.a,user.b,user.bin,user.empty");
	CHECK_EQ("xattr.list_probe_matches", listxattr("f", NULL, 0), n);
	CHECK_ERRNO("xattr.list_small_erange", listxattr("f", list, 3), ERANGE);

	CHECK_SYS("xattr.remove", removexattr("f", "user.b"));
	CHECK_ERRNO("xattr.removed_enodata",
		    getxattr("f", "user.b", buf, sizeof(buf)), ENODATA);
	CHECK_ERRNO("xattr.remove_again_enodata", removexattr("f", "user.b"),
		    ENODATA);
	n = listxattr("f", list, sizeof(list));
	user_names(list, n, names, sizeof(names));
	CHECK_STR("xattr.list_after_remove", names,
		  "user.a,user.bin,user.empty");

	/* 64 KiB value (the VFS maximum); one more byte is E2BIG */
	big = malloc(65537);
	got = malloc(65537);
	pat_fill(big, 65537, 64, 0);
	CHECK_SYS("xattr.value_64k_set",
		  setxattr("f", "user.big", big, 65536, 0));
	CHECK_EQ("xattr.value_64k_probe", getxattr("f", "user.big", NULL, 0),
		 65536);
	memset(got, 0, 65537);
	CHECK_EQ("xattr.value_64k_get", getxattr("f", "user.big", got, 65536),
		 65536);
	CHECK_MEM("xattr.value_64k_data", got, big, 65536);
	CHECK_ERRNO("xattr.value_64k_small_buffer_erange",
		    getxattr("f", "user.big", got, 65535), ERANGE);
	CHECK_ERRNO("xattr.value_too_big_e2big",
		    setxattr("f", "user.big2", big, 65537, 0), E2BIG);
	free(big);
	free(got);
	{
		char nm[300] = "user.";

		memset(nm + 5, 'k', 250);
		nm[255] = 0;
		CHECK_SYS("xattr.name_255", setxattr("f", nm, "x", 1, 0));
		nm[255] = 'k';
		nm[256] = 0;
		CHECK_ERRNO("xattr.name_256_erange",
			    setxattr("f", nm, "x", 1, 0), ERANGE);
	}
	CHECK_ERRNO("xattr.unknown_namespace_eopnotsupp",
		    setxattr("f", "bogus.x", "x", 1, 0), EOPNOTSUPP);
	CHECK_ERRNO("xattr.missing_file_enoent",
		    getxattr("nothere", "user.a", buf, 10), ENOENT);

	/* fd variants */
	{
		int fd = open("f", O_RDONLY);

		CHECK_SYS("xattr.fsetxattr",
			  fsetxattr(fd, "user.fd", "fdv", 3, 0));
		CHECK_EQ("xattr.fgetxattr",
			 fgetxattr(fd, "user.fd", buf, sizeof(buf)), 3);
		CHECK_SYS("xattr.fremovexattr", fremovexattr(fd, "user.fd"));
		close(fd);
	}

	/* survives rename, shared by hard links */
	rename("f", "f2");
	ign(link("f2", "f3"));
	memset(buf, 0, sizeof(buf));
	CHECK_EQ("xattr.after_rename_and_link",
		 getxattr("f3", "user.a", buf, sizeof(buf)), 1);

	/* on a directory */
	mkdir("d", 0755);
	CHECK_SYS("xattr.dir_set", setxattr("d", "user.dir", "dv", 2, 0));
	memset(buf, 0, sizeof(buf));
	CHECK_EQ("xattr.dir_get", getxattr("d", "user.dir", buf, sizeof(buf)),
		 2);
	CHECK_MEM("xattr.dir_value", buf, "dv", 3);
	n = listxattr("d", list, sizeof(list));
	user_names(list, n, names, sizeof(names));
	CHECK_STR("xattr.dir_list", names, "user.dir");

	/* trusted.* on a symlink (root), user.* is not allowed on symlinks */
	ign(symlink("f2", "sl"));
	CHECK_SYS("xattr.trusted_on_symlink",
		  lsetxattr("sl", "trusted.t", "tv", 2, 0));
	memset(buf, 0, sizeof(buf));
	CHECK_EQ("xattr.trusted_on_symlink_get",
		 lgetxattr("sl", "trusted.t", buf, sizeof(buf)), 2);
	CHECK_MEM("xattr.trusted_on_symlink_value", buf, "tv", 3);
	CHECK_ERRNO("xattr.trusted_not_on_target",
		    getxattr("sl", "trusted.t", buf, sizeof(buf)), ENODATA);
	n = llistxattr("sl", list, sizeof(list));
	CHECK("xattr.trusted_on_symlink_listed",
	      n > 0 && memmem(list, (size_t)n, "trusted.t", 10) != NULL);
	CHECK_SYS("xattr.trusted_on_symlink_remove",
		  lremovexattr("sl", "trusted.t"));
	CHECK_ERRNO("xattr.user_on_symlink_eperm",
		    lsetxattr("sl", "user.x", "x", 1, 0), EPERM);
	CHECK_SYS("xattr.trusted_on_file",
		  setxattr("f2", "trusted.t", "ft", 2, 0));
	CHECK_EQ("xattr.trusted_on_file_get",
		 getxattr("f2", "trusted.t", buf, sizeof(buf)), 2);
	leave();
}

/* ------------------------------------------------------------------------ */
/* truncate, fallocate, SEEK_DATA/SEEK_HOLE, statfs */

static void test_falloc(void)
{
	struct stat st;
	unsigned char *b, *w;
	int fd;

	if (!enter("falloc"))
		return;
	b = malloc(2 * MIB);
	w = malloc(2 * MIB);

	fd = open("fa", O_CREAT | O_RDWR | O_TRUNC, 0644);
	/* tmpfs allocates: mode 0 past the end succeeds and extends the file
	 * (any errno is a failure, not only EOPNOTSUPP and ENOSYS); what
	 * follows from it is checked only when it did */
	if (CHECK_SYS("falloc.mode0", fallocate(fd, 0, 0, 10000))) {
		CHECK_EQ("falloc.mode0_size", fstat(fd, &st) ? -1 : st.st_size,
			 10000);
		memset(b, 0xee, 20000);
		CHECK_EQ("falloc.mode0_read_len", pread_all(fd, b, 20000, 0),
			 10000);
		check_zero("falloc.mode0_zeros", b, 10000);
		/* mode 0 inside the file changes nothing */
		pwrite_all(fd, "data", 4, 100);
		CHECK_SYS("falloc.mode0_inside", fallocate(fd, 0, 0, 5000));
		CHECK_EQ("falloc.mode0_inside_size",
			 fstat(fd, &st) ? -1 : st.st_size, 10000);
		pread_all(fd, b, 4, 100);
		CHECK_MEM("falloc.mode0_inside_data_kept", b, "data", 4);
		CHECK_SYS("falloc.keep_size",
			  fallocate(fd, FALLOC_FL_KEEP_SIZE, 5000, 50000));
		CHECK_EQ("falloc.keep_size_size",
			 fstat(fd, &st) ? -1 : st.st_size, 10000);
		CHECK_EQ("falloc.keep_size_read_len",
			 pread_all(fd, b, 100000, 0), 10000);
		/* a later extension reads zeros from the preallocated part */
		CHECK_SYS("falloc.keep_size_then_truncate",
			  ftruncate(fd, 60000));
		CHECK_EQ("falloc.keep_size_then_truncate_read",
			 pread_all(fd, b, 100000, 0), 60000);
		check_zero("falloc.keep_size_then_truncate_zeros", b + 104,
			   60000 - 104);
	}
	/* the VFS answers these before the filesystem is asked */
	CHECK_ERRNO("falloc.len0_einval", fallocate(fd, 0, 0, 0), EINVAL);
	CHECK_ERRNO("falloc.negative_einval", fallocate(fd, 0, -1, 10), EINVAL);
	CHECK_ERRNO("falloc.punch_without_keep_size_eopnotsupp",
		    fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 10), EOPNOTSUPP);
	close(fd);
	fd = open("fa", O_RDONLY);
	CHECK_ERRNO("falloc.rdonly_ebadf", fallocate(fd, 0, 0, 10), EBADF);
	close(fd);

	/* punch holes at aligned and odd places */
	{
		size_t len = 5 * 4096 + 100;
		struct {
			off_t off, len;
		} holes[] = {{4096, 4096},
			     {4096 * 3 + 10, 5000},
			     {7, 3},
			     {(off_t)len - 50, 1000}};

		pat_fill(w, len, 5, 0);
		fd = open("ph", O_CREAT | O_RDWR | O_TRUNC, 0644);
		pwrite_all(fd, w, len, 0);
		for (size_t i = 0; i < sizeof(holes) / sizeof(holes[0]); i++) {
			const char *nm = chk_name("falloc.punch_%lld_%lld",
						  (long long)holes[i].off,
						  (long long)holes[i].len);
			off_t end = holes[i].off + holes[i].len;

			if (!CHECK_SYS(nm,
				       fallocate(fd,
						 FALLOC_FL_PUNCH_HOLE |
							 FALLOC_FL_KEEP_SIZE,
						 holes[i].off, holes[i].len)))
				continue;
			memset(w + holes[i].off, 0,
			       (size_t)((end > (off_t)len ? (off_t)len : end) -
					holes[i].off));
			CHECK_EQ(chk_name("%s.size", nm),
				 fstat(fd, &st) ? -1 : st.st_size,
				 (long long)len);
			memset(b, 0xee, len + 10);
			CHECK_EQ(chk_name("%s.read_len", nm),
				 pread_all(fd, b, len + 10, 0), (long long)len);
			CHECK_MEM(chk_name("%s.data", nm), b, w, len);
		}
		close(fd);
	}

	/* SEEK_DATA / SEEK_HOLE: data at 0..4K, a hole, data at 1 MiB..+4K */
	fd = open("sp", O_CREAT | O_RDWR | O_TRUNC, 0644);
	pat_fill(w, 4096, 9, 0);
	pwrite_all(fd, w, 4096, 0);
	pwrite_all(fd, w, 4096, MIB);
	CHECK_EQ("seek.data_0", lseek(fd, 0, SEEK_DATA), 0);
	CHECK_EQ("seek.data_100", lseek(fd, 100, SEEK_DATA), 100);
	CHECK_EQ("seek.hole_0", lseek(fd, 0, SEEK_HOLE), 4096);
	CHECK_EQ("seek.hole_100", lseek(fd, 100, SEEK_HOLE), 4096);
	CHECK_EQ("seek.hole_in_hole", lseek(fd, 8192, SEEK_HOLE), 8192);
	CHECK_EQ("seek.data_from_hole", lseek(fd, 4096, SEEK_DATA), MIB);
	CHECK_EQ("seek.data_from_mid_hole", lseek(fd, 5000, SEEK_DATA), MIB);
	CHECK_EQ("seek.data_second", lseek(fd, MIB + 10, SEEK_DATA), MIB + 10);
	CHECK_EQ("seek.hole_at_eof", lseek(fd, MIB, SEEK_HOLE), MIB + 4096);
	CHECK_ERRNO("seek.data_at_eof_enxio", lseek(fd, MIB + 4096, SEEK_DATA),
		    ENXIO);
	CHECK_ERRNO("seek.data_past_eof_enxio", lseek(fd, 2 * MIB, SEEK_DATA),
		    ENXIO);
	CHECK_ERRNO("seek.hole_past_eof_enxio", lseek(fd, 2 * MIB, SEEK_HOLE),
		    ENXIO);
	/* a trailing hole made by ftruncate */
	ign(ftruncate(fd, 2 * MIB));
	CHECK_EQ("seek.hole_trailing", lseek(fd, MIB, SEEK_HOLE), MIB + 4096);
	CHECK_ERRNO("seek.data_in_trailing_hole_enxio",
		    lseek(fd, MIB + 8192, SEEK_DATA), ENXIO);
	CHECK_EQ("seek.hole_in_trailing_hole", lseek(fd, MIB + 8192, SEEK_HOLE),
		 MIB + 8192);
	/* a punched page becomes a hole */
	fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096);
	CHECK_EQ("seek.punched_is_hole", lseek(fd, 0, SEEK_DATA), MIB);
	close(fd);

	/* statfs */
	{
		struct statfs sf;
		struct statvfs sv;

		fd = open(".", O_RDONLY | O_DIRECTORY);
		if (CHECK_SYS("statfs.statfs", statfs(".", &sf))) {
			CHECK("statfs.bsize_positive", sf.f_bsize > 0);
			CHECK_EQ("statfs.namelen_255", sf.f_namelen, 255);
			CHECK("statfs.bfree_le_blocks",
			      sf.f_bfree <= sf.f_blocks);
			CHECK("statfs.bavail_le_bfree",
			      sf.f_bavail <= sf.f_bfree);
			CHECK("statfs.ffree_le_files",
			      sf.f_ffree <= sf.f_files);
		}
		if (CHECK_SYS("statfs.fstatvfs", fstatvfs(fd, &sv))) {
			CHECK("statfs.fstatvfs_bsize_positive", sv.f_bsize > 0);
			CHECK("statfs.fstatvfs_frsize_positive",
			      sv.f_frsize > 0);
			CHECK_EQ("statfs.fstatvfs_namemax_255", sv.f_namemax,
				 255);
		}
		close(fd);
	}
	free(b);
	free(w);
	leave();
}

/* ------------------------------------------------------------------------ */
/* timestamps */

/*
 * Waits until a timestamp taken from now on is later than every one taken
 * before the call. Filesystems stamp inodes from the kernel's coarse clock
 * (a tick: 1-10 ms), and in a TCG guest whose virtual CPUs the host did
 * not run, that clock stood still through a 20 ms sleep (6.12 guest, a CI
 * run beside the other tiers: ctime unchanged after utimensat). So wait
 * for the clock to move, not for a time; and past the latest ctime seen
 * (ctime_seen): a server that keeps a floor under its coarse stamps, as
 * tmpfs and memfs do for the fine ones they gave out, stamps that floor
 * until the coarse clock passes it, and in loaded TCG guests a stamp
 * stayed equal after the coarse clock had moved once (create's parent
 * mtime, 6.1 and 7.3 guests in one CI run). A ctime is never set
 * explicitly, so it is never in the future. After 30 s it gives up, and
 * the check after it fails with its own message.
 */
static void ts_advance(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_REALTIME_COARSE, &t0);
	if (ts_cmp(ctime_seen, t0) > 0)
		t0 = ctime_seen;
	for (int i = 0; i < 30000; i++) {
		msleep(1);
		clock_gettime(CLOCK_REALTIME_COARSE, &t);
		if (ts_cmp(t, t0) > 0)
			return;
	}
}

static void test_times(void)
{
	struct stat s0, s1, p0, p1, q0, q1;
	struct timespec ts[2], before, after;
	int fd;

	if (!enter("times"))
		return;
	put_str("t", "times");

	/* explicit nanosecond values come back exactly */
	ts[0] = (struct timespec){1234567890, 123456789};
	ts[1] = (struct timespec){1111111111, 987654321};
	xstat("t", &s0);
	ts_advance();
	CHECK_SYS("times.utimensat_explicit", utimensat(AT_FDCWD, "t", ts, 0));
	xstat("t", &s1);
	check_ts_eq("times.explicit_atime", s1.st_atim, ts[0]);
	check_ts_eq("times.explicit_mtime", s1.st_mtim, ts[1]);
	check_ts_gt("times.explicit_ctime_now", s1.st_ctim, s0.st_ctim);
	ts[0] = (struct timespec){0, 1};
	ts[1] = (struct timespec){4102444800LL, 999999999}; /* 2100-01-01 */
	CHECK_SYS("times.utimensat_extremes", utimensat(AT_FDCWD, "t", ts, 0));
	xstat("t", &s1);
	check_ts_eq("times.extreme_atime", s1.st_atim, ts[0]);
	check_ts_eq("times.extreme_mtime", s1.st_mtim, ts[1]);
	ts[0] = (struct timespec){1, 1000000000};
	CHECK_ERRNO("times.bad_nsec_einval", utimensat(AT_FDCWD, "t", ts, 0),
		    EINVAL);

	/* UTIME_OMIT */
	ts[0] = (struct timespec){1500000000, 5};
	ts[1] = (struct timespec){1600000000, 6};
	utimensat(AT_FDCWD, "t", ts, 0);
	xstat("t", &s0);
	ts_advance();
	ts[0] = (struct timespec){1700000000, 7};
	ts[1] = (struct timespec){0, UTIME_OMIT};
	CHECK_SYS("times.utime_omit", utimensat(AT_FDCWD, "t", ts, 0));
	xstat("t", &s1);
	check_ts_eq("times.utime_omit_atime_set", s1.st_atim, ts[0]);
	check_ts_eq("times.utime_omit_mtime_kept", s1.st_mtim, s0.st_mtim);
	check_ts_gt("times.utime_omit_ctime", s1.st_ctim, s0.st_ctim);
	ts[0] = (struct timespec){0, UTIME_OMIT};
	ts[1] = (struct timespec){0, UTIME_OMIT};
	xstat("t", &s0);
	CHECK_SYS("times.utime_omit_both", utimensat(AT_FDCWD, "t", ts, 0));
	xstat("t", &s1);
	check_ts_eq("times.utime_omit_both_atime", s1.st_atim, s0.st_atim);
	check_ts_eq("times.utime_omit_both_mtime", s1.st_mtim, s0.st_mtim);

	/* UTIME_NOW: between (coarse) before and after */
	clock_gettime(CLOCK_REALTIME_COARSE, &before);
	ts[0] = (struct timespec){0, UTIME_NOW};
	ts[1] = (struct timespec){0, UTIME_NOW};
	CHECK_SYS("times.utime_now", utimensat(AT_FDCWD, "t", ts, 0));
	clock_gettime(CLOCK_REALTIME, &after);
	after.tv_nsec +=
		1000000; /* 1 ms of slack for the server's clock read */
	if (after.tv_nsec >= 1000000000) {
		after.tv_sec++;
		after.tv_nsec -= 1000000000;
	}
	xstat("t", &s1);
	chk_result(ts_cmp(s1.st_atim, before) >= 0 &&
			   ts_cmp(s1.st_atim, after) <= 0,
		   "times.utime_now_atime", "expected atime in [%s, %s] got %s",
		   ts_str(before), ts_str(after), ts_str(s1.st_atim));
	chk_result(ts_cmp(s1.st_mtim, before) >= 0 &&
			   ts_cmp(s1.st_mtim, after) <= 0,
		   "times.utime_now_mtime", "expected mtime in [%s, %s] got %s",
		   ts_str(before), ts_str(after), ts_str(s1.st_mtim));
	utimensat(AT_FDCWD, "t", (struct timespec[]){{5, 0}, {5, 0}}, 0);
	clock_gettime(CLOCK_REALTIME_COARSE, &before);
	CHECK_SYS("times.utimes_null", utimensat(AT_FDCWD, "t", NULL, 0));
	xstat("t", &s1);
	CHECK("times.utimes_null_is_now",
	      ts_cmp(s1.st_mtim, before) >= 0 &&
		      ts_cmp(s1.st_atim, before) >= 0);
	/* futimens and AT_SYMLINK_NOFOLLOW on a symlink */
	fd = open("t", O_RDONLY);
	ts[0] = (struct timespec){1300000000, 11};
	ts[1] = (struct timespec){1300000001, 12};
	CHECK_SYS("times.futimens", futimens(fd, ts));
	xfstat(fd, &s1);
	check_ts_eq("times.futimens_mtime", s1.st_mtim, ts[1]);
	close(fd);
	ign(symlink("t", "tl"));
	ts[1] = (struct timespec){1200000000, 13};
	CHECK_SYS("times.utimensat_nofollow",
		  utimensat(AT_FDCWD, "tl", ts, AT_SYMLINK_NOFOLLOW));
	xlstat("tl", &s1);
	check_ts_eq("times.symlink_own_mtime", s1.st_mtim, ts[1]);
	xstat("t", &s1);
	check_ts_eq("times.symlink_target_untouched", s1.st_mtim,
		    ((struct timespec){1300000001, 12}));

	/* write updates mtime and ctime; read changes neither */
	xstat("t", &s0);
	ts_advance();
	fd = open("t", O_RDWR);
	CHECK_EQ("times.write", pwrite(fd, "W", 1, 0), 1);
	xfstat(fd, &s1);
	check_ts_gt("times.write_mtime", s1.st_mtim, s0.st_mtim);
	check_ts_gt("times.write_ctime", s1.st_ctim, s0.st_ctim);
	s0 = s1;
	ts_advance();
	{
		char b[8];

		ign(pread(fd, b, sizeof(b), 0));
	}
	xfstat(fd, &s1);
	check_ts_eq("times.read_keeps_mtime", s1.st_mtim, s0.st_mtim);
	check_ts_eq("times.read_keeps_ctime", s1.st_ctim, s0.st_ctim);
	/* ftruncate to a new size updates both */
	ts_advance();
	CHECK_SYS("times.ftruncate", ftruncate(fd, 100));
	xfstat(fd, &s1);
	check_ts_gt("times.ftruncate_mtime", s1.st_mtim, s0.st_mtim);
	check_ts_gt("times.ftruncate_ctime", s1.st_ctim, s0.st_ctim);
	close(fd);
	xstat("t", &s0);
	ts_advance();
	CHECK_SYS("times.truncate_path", truncate("t", 50));
	xstat("t", &s1);
	check_ts_gt("times.truncate_path_mtime", s1.st_mtim, s0.st_mtim);
	check_ts_gt("times.truncate_path_ctime", s1.st_ctim, s0.st_ctim);

	/* chmod/chown: ctime only */
	xstat("t", &s0);
	ts_advance();
	CHECK_SYS("times.chmod", chmod("t", 0600));
	xstat("t", &s1);
	check_ts_gt("times.chmod_ctime", s1.st_ctim, s0.st_ctim);
	check_ts_eq("times.chmod_keeps_mtime", s1.st_mtim, s0.st_mtim);
	s0 = s1;
	ts_advance();
	CHECK_SYS("times.chown", chown("t", 1, 1));
	xstat("t", &s1);
	check_ts_gt("times.chown_ctime", s1.st_ctim, s0.st_ctim);
	check_ts_eq("times.chown_keeps_mtime", s1.st_mtim, s0.st_mtim);
	s0 = s1;
	ts_advance();
	CHECK_SYS("times.setxattr", setxattr("t", "user.t", "1", 1, 0));
	xstat("t", &s1);
	check_ts_gt("times.setxattr_ctime", s1.st_ctim, s0.st_ctim);
	check_ts_eq("times.setxattr_keeps_mtime", s1.st_mtim, s0.st_mtim);

	/* create / mkdir / unlink / rmdir update the parent */
	mkdir("p", 0755);
	xstat("p", &p0);
	ts_advance();
	put_str("p/new", "n");
	xstat("p", &p1);
	check_ts_gt("times.create_parent_mtime", p1.st_mtim, p0.st_mtim);
	check_ts_gt("times.create_parent_ctime", p1.st_ctim, p0.st_ctim);
	p0 = p1;
	ts_advance();
	mkdir("p/sub", 0755);
	xstat("p", &p1);
	check_ts_gt("times.mkdir_parent_mtime", p1.st_mtim, p0.st_mtim);
	check_ts_gt("times.mkdir_parent_ctime", p1.st_ctim, p0.st_ctim);
	/* a new (empty, never written) file's three times are equal */
	close(open("p/empty", O_CREAT | O_WRONLY, 0644));
	xstat("p/empty", &s1);
	CHECK("times.create_new_times_equal",
	      ts_cmp(s1.st_mtim, s1.st_ctim) == 0 &&
		      ts_cmp(s1.st_atim, s1.st_mtim) == 0);
	p0 = p1;
	ts_advance();
	rmdir("p/sub");
	xstat("p", &p1);
	check_ts_gt("times.rmdir_parent_mtime", p1.st_mtim, p0.st_mtim);
	check_ts_gt("times.rmdir_parent_ctime", p1.st_ctim, p0.st_ctim);
	/* link: target ctime and parent */
	xstat("p/new", &s0);
	p0 = p1;
	ts_advance();
	CHECK_SYS("times.link", link("p/new", "p/new2"));
	xstat("p/new", &s1);
	xstat("p", &p1);
	check_ts_gt("times.link_target_ctime", s1.st_ctim, s0.st_ctim);
	check_ts_eq("times.link_target_keeps_mtime", s1.st_mtim, s0.st_mtim);
	check_ts_gt("times.link_parent_mtime", p1.st_mtim, p0.st_mtim);
	/* unlink with links remaining: parent and target ctime */
	s0 = s1;
	p0 = p1;
	ts_advance();
	CHECK_SYS("times.unlink", unlink("p/new2"));
	xstat("p/new", &s1);
	xstat("p", &p1);
	check_ts_gt("times.unlink_parent_mtime", p1.st_mtim, p0.st_mtim);
	check_ts_gt("times.unlink_parent_ctime", p1.st_ctim, p0.st_ctim);
	check_ts_gt("times.unlink_target_ctime", s1.st_ctim, s0.st_ctim);
	check_ts_eq("times.unlink_target_keeps_mtime", s1.st_mtim, s0.st_mtim);

	/* rename: tmpfs updates both parents and the moved inode's ctime */
	mkdir("q", 0755);
	xstat("p/new", &s0);
	xstat("p", &p0);
	xstat("q", &q0);
	ts_advance();
	CHECK_SYS("times.rename", rename("p/new", "q/moved"));
	xstat("q/moved", &s1);
	xstat("p", &p1);
	xstat("q", &q1);
	check_ts_gt("times.rename_old_parent_mtime", p1.st_mtim, p0.st_mtim);
	check_ts_gt("times.rename_old_parent_ctime", p1.st_ctim, p0.st_ctim);
	check_ts_gt("times.rename_new_parent_mtime", q1.st_mtim, q0.st_mtim);
	check_ts_gt("times.rename_new_parent_ctime", q1.st_ctim, q0.st_ctim);
	check_ts_gt("times.rename_moved_ctime", s1.st_ctim, s0.st_ctim);
	check_ts_eq("times.rename_moved_keeps_mtime", s1.st_mtim, s0.st_mtim);
	/* rename over an existing file: the replaced inode's ctime (seen via a
	 * link) */
	put_str("q/victim", "v");
	ign(link("q/victim", "q/victim_link"));
	put_str("q/src", "s");
	xstat("q/victim_link", &s0);
	ts_advance();
	CHECK_SYS("times.rename_over", rename("q/src", "q/victim"));
	xstat("q/victim_link", &s1);
	check_ts_gt("times.rename_over_replaced_ctime", s1.st_ctim, s0.st_ctim);
	CHECK_EQ("times.rename_over_replaced_nlink", s1.st_nlink, 1);
	leave();
}

/* ------------------------------------------------------------------------ */
/* permissions and ownership */

static mode_t mode_of(const char *p)
{
	struct stat st;

	return xlstat(p, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

static void test_perms_root(void)
{
	struct stat st;
	int fd;

	if (!enter("perms"))
		return;
	/* umask */
	umask(022);
	fd = open("u1", O_CREAT | O_WRONLY, 0777);
	close(fd);
	CHECK_EQ("perms.umask_022_file", mode_of("u1"), 0755);
	umask(077);
	mkdir("u2", 0777);
	CHECK_EQ("perms.umask_077_dir", mode_of("u2"), 0700);
	umask(0);
	fd = open("u3", O_CREAT | O_WRONLY, 0666);
	close(fd);
	CHECK_EQ("perms.umask_0_file", mode_of("u3"), 0666);
	mknod("u4", S_IFIFO | 0666, 0);
	CHECK_EQ("perms.umask_0_fifo", mode_of("u4"), 0666);
	umask(027);
	mknod("u5", S_IFIFO | 0666, 0);
	CHECK_EQ("perms.umask_027_fifo", mode_of("u5"), 0640);
	umask(022);

	/* chmod keeps special bits as root */
	put_str("m", "m");
	CHECK_SYS("perms.chmod_suid", chmod("m", 04755));
	CHECK_EQ("perms.chmod_suid_mode", mode_of("m"), 04755);
	CHECK_SYS("perms.chmod_all_bits", chmod("m", 07777));
	CHECK_EQ("perms.chmod_all_bits_mode", mode_of("m"), 07777);
	CHECK_SYS("perms.mkdir_sticky", mkdir("stk", 01777));
	CHECK_EQ("perms.mkdir_sticky_mode", mode_of("stk"), 01755);
	CHECK_SYS("perms.chmod_sticky_dir", chmod("u2", 01777));
	CHECK_EQ("perms.chmod_sticky_dir_mode", mode_of("u2"), 01777);

	/* root and access(2) */
	put_str("r0", "r0");
	chmod("r0", 0);
	CHECK_SYS("perms.root_access_rw_mode0", access("r0", R_OK | W_OK));
	CHECK_ERRNO("perms.root_access_x_mode0_eacces", access("r0", X_OK),
		    EACCES);
	CHECK_SYS("perms.root_open_mode0", fd = open("r0", O_RDWR));
	close(fd);
	chmod("r0", 0010);
	CHECK_SYS("perms.root_access_x_any_bit", access("r0", X_OK));
	CHECK_ERRNO("perms.access_missing_enoent", access("nothere", F_OK),
		    ENOENT);

	/* chown by root: owner and group change, suid/sgid dropped on files */
	put_str("co", "co");
	chmod("co", 06755);
	CHECK_SYS("perms.root_chown", chown("co", 65534, 65534));
	CHECK("perms.root_chown_ids", xstat("co", &st) == 0 &&
					      st.st_uid == 65534 &&
					      st.st_gid == 65534);
	CHECK_EQ("perms.root_chown_clears_suid_sgid", st.st_mode & 07777, 0755);
	chmod("co", 04755);
	CHECK_SYS("perms.root_chgrp", chown("co", -1, 0));
	CHECK_EQ("perms.root_chgrp_clears_suid", mode_of("co"), 0755);
	mkdir("cd", 0755);
	chmod("cd", 02755);
	CHECK_SYS("perms.root_chown_dir", chown("cd", 65534, 65534));
	CHECK_EQ("perms.root_chown_dir_keeps_sgid", mode_of("cd"), 02755);
	/* root writing keeps suid (CAP_FSETID) */
	put_str("sw", "sw");
	chmod("sw", 04755);
	fd = open("sw", O_WRONLY);
	ign(write(fd, "x", 1));
	close(fd);
	CHECK_EQ("perms.root_write_keeps_suid", mode_of("sw"), 04755);

	/* setgid directory: group and S_ISGID inherited */
	mkdir("sg", 0755);
	ign(chown("sg", 0, 65534));
	chmod("sg", 02775);
	put_str("sg/f", "f");
	CHECK_EQ("perms.setgid_dir_file_gid",
		 xstat("sg/f", &st) ? -1 : (long long)st.st_gid, 65534);
	CHECK_EQ("perms.setgid_dir_file_no_sgid", st.st_mode & S_ISGID, 0);
	mkdir("sg/sub", 0755);
	CHECK_EQ("perms.setgid_dir_subdir_gid",
		 xstat("sg/sub", &st) ? -1 : (long long)st.st_gid, 65534);
	CHECK_EQ("perms.setgid_dir_subdir_sgid", st.st_mode & 07777, 02755);
	mkdir("sg/sub/deeper", 0700);
	CHECK_EQ("perms.setgid_dir_inherited_twice",
		 xstat("sg/sub/deeper", &st) ? -1
					     : (long long)(st.st_mode & 07777),
		 02700);
	CHECK_EQ("perms.setgid_dir_inherited_twice_gid", st.st_gid, 65534);
	ign(symlink("f", "sg/sl"));
	CHECK_EQ("perms.setgid_dir_symlink_gid",
		 xlstat("sg/sl", &st) ? -1 : (long long)st.st_gid, 65534);
	mknod("sg/fifo", S_IFIFO | 0644, 0);
	CHECK_EQ("perms.setgid_dir_fifo_gid",
		 xlstat("sg/fifo", &st) ? -1 : (long long)st.st_gid, 65534);
	/* without setgid the creator's gid is used */
	mkdir("nsg", 0755);
	ign(chown("nsg", 0, 65534));
	put_str("nsg/f", "f");
	CHECK_EQ("perms.plain_dir_file_gid",
		 xstat("nsg/f", &st) ? -1 : (long long)st.st_gid, getegid());
	leave();
}

/* Setup for the non-root child, made by root in perms_user/ */
static void nonroot_setup(void)
{
	mkdir("pu", 0777);
	chmod("pu", 0777);
	put_file("pu/rootfile", "secret", 6, 0600);
	put_file("pu/rootpub", "public", 6, 0644);
	put_file("pu/rootrw", "rw", 2, 0666);
	chmod("pu/rootrw", 0666);
	put_file("pu/rootexec", "#!/bin/sh\n", 10, 0755);
	mkdir("pu/rootdir", 0755);
	put_str("pu/rootdir/f", "f");
	mkdir("pu/sticky", 0777);
	chmod("pu/sticky", 01777);
	put_file("pu/sticky/rootf", "rootf", 5, 0666);
	chmod("pu/sticky/rootf", 0666);
	mkdir("pu/sticky/rootd", 0777);
	chmod("pu/sticky/rootd", 0777);
	mkdir("pu/priv", 0700);
	put_str("pu/priv/f", "f");
	mkdir("pu/xonly", 0711);
	put_str("pu/xonly/f", "xf");
	mkdir("pu/ronly", 0744);
	put_str("pu/ronly/f", "rf");
	put_file("pu/suid", "suid", 4, 0777);
	chmod("pu/suid", 06777);
	put_file("pu/suid2", "suid", 4, 0777);
	chmod("pu/suid2", 04777);
	mkdir("pu/sgroot", 0777);
	ign(chown("pu/sgroot", 0, 0));
	chmod("pu/sgroot", 02777);
	setxattr("pu/rootpub", "trusted.secret", "s", 1, 0);
}

/* Runs in the child, as the unprivileged user, in perms_user/ */
static void nonroot_checks(void)
{
	struct stat st;
	int fd;
	char buf[16];
	uid_t u = getuid();
	gid_t g = getgid();

	CHECK_ERRNO("perm_user.open_0600_root_file_eacces",
		    open("pu/rootfile", O_RDONLY), EACCES);
	CHECK_ERRNO("perm_user.open_0644_root_file_write_eacces",
		    open("pu/rootpub", O_WRONLY), EACCES);
	CHECK_ERRNO("perm_user.o_trunc_no_write_eacces",
		    open("pu/rootpub", O_RDONLY | O_TRUNC), EACCES);
	fd = open("pu/rootpub", O_RDONLY);
	CHECK_SYS("perm_user.open_0644_read", fd);
	close(fd);
	CHECK_ERRNO("perm_user.truncate_no_write_eacces",
		    truncate("pu/rootpub", 0), EACCES);
	CHECK_ERRNO("perm_user.create_in_0755_root_dir_eacces",
		    open("pu/rootdir/new", O_CREAT | O_WRONLY, 0644), EACCES);
	CHECK_ERRNO("perm_user.mkdir_in_0755_root_dir_eacces",
		    mkdir("pu/rootdir/new", 0755), EACCES);
	CHECK_ERRNO("perm_user.unlink_in_0755_root_dir_eacces",
		    unlink("pu/rootdir/f"), EACCES);
	put_str("pu/mine", "mine");
	CHECK_ERRNO("perm_user.rename_into_root_dir_eacces",
		    rename("pu/mine", "pu/rootdir/m"), EACCES);
	CHECK_ERRNO("perm_user.chmod_other_users_file_eperm",
		    chmod("pu/rootpub", 0777), EPERM);
	CHECK_ERRNO("perm_user.chown_other_users_file_eperm",
		    chown("pu/rootpub", u, g), EPERM);
	CHECK_ERRNO("perm_user.utimes_explicit_not_owner_eperm",
		    utimensat(AT_FDCWD, "pu/rootrw",
			      (struct timespec[]){{1, 0}, {1, 0}}, 0),
		    EPERM);
	CHECK_SYS("perm_user.utimes_now_with_write_access",
		  utimensat(AT_FDCWD, "pu/rootrw", NULL, 0));
	CHECK_ERRNO("perm_user.utimes_now_without_write_eacces",
		    utimensat(AT_FDCWD, "pu/rootpub", NULL, 0), EACCES);

	/* own file: chmod ok, chown away EPERM, chgrp to a foreign group EPERM
	 */
	fd = open("pu/own", O_CREAT | O_WRONLY, 0644);
	CHECK_SYS("perm_user.create_own", fd);
	close(fd);
	CHECK("perm_user.own_ids",
	      xstat("pu/own", &st) == 0 && st.st_uid == u && st.st_gid == g);
	CHECK_SYS("perm_user.chmod_own", chmod("pu/own", 0600));
	CHECK_EQ("perm_user.chmod_own_mode", mode_of("pu/own"), 0600);
	CHECK_ERRNO("perm_user.chown_own_to_root_eperm", chown("pu/own", 0, -1),
		    EPERM);
	CHECK_ERRNO("perm_user.chgrp_own_to_foreign_group_eperm",
		    chown("pu/own", -1, 0), EPERM);
	CHECK_SYS("perm_user.chgrp_own_to_own_group", chown("pu/own", -1, g));
	CHECK_SYS("perm_user.chown_own_noop", chown("pu/own", u, -1));
	CHECK_SYS("perm_user.chmod_own_suid", chmod("pu/own", 04755));
	CHECK_EQ("perm_user.chmod_own_suid_kept", mode_of("pu/own"), 04755);
	CHECK_ERRNO("perm_user.mknod_chr_eperm",
		    mknod("pu/null", S_IFCHR | 0666, makedev(1, 3)), EPERM);

	/* sticky directory */
	CHECK_ERRNO("perm_user.sticky_unlink_others_file_eperm",
		    unlink("pu/sticky/rootf"), EPERM);
	CHECK_ERRNO("perm_user.sticky_rename_others_file_eperm",
		    rename("pu/sticky/rootf", "pu/sticky/mv"), EPERM);
	CHECK_ERRNO("perm_user.sticky_rmdir_others_dir_eperm",
		    rmdir("pu/sticky/rootd"), EPERM);
	fd = open("pu/sticky/rootf", O_WRONLY);
	CHECK_SYS("perm_user.sticky_write_others_0666_file", fd);
	close(fd);
	fd = open("pu/sticky/mine", O_CREAT | O_WRONLY, 0644);
	close(fd);
	CHECK_SYS("perm_user.sticky_rename_own",
		  rename("pu/sticky/mine", "pu/sticky/mine2"));
	CHECK_SYS("perm_user.sticky_unlink_own", unlink("pu/sticky/mine2"));

	/* search permission */
	CHECK_ERRNO("perm_user.lookup_through_0700_dir_eacces",
		    xstat("pu/priv/f", &st), EACCES);
	CHECK_ERRNO("perm_user.open_through_0700_dir_eacces",
		    open("pu/priv/f", O_RDONLY), EACCES);
	CHECK_ERRNO("perm_user.opendir_0700_eacces",
		    open("pu/priv", O_RDONLY | O_DIRECTORY), EACCES);
	CHECK_SYS("perm_user.lookup_through_0711_dir",
		  xstat("pu/xonly/f", &st));
	CHECK_ERRNO("perm_user.opendir_0711_eacces",
		    open("pu/xonly", O_RDONLY | O_DIRECTORY), EACCES);
	{
		char **names;
		ssize_t n = list_dir("pu/ronly", &names);

		CHECK_EQ("perm_user.readdir_0744_dir", n, 3);
		if (n > 0)
			free_names(names, n);
	}
	CHECK_ERRNO("perm_user.lookup_through_0744_dir_eacces",
		    xstat("pu/ronly/f", &st), EACCES);
	CHECK_ERRNO("perm_user.chdir_0700_eacces", chdir("pu/priv"), EACCES);

	/* access(2) with the real ids */
	CHECK_SYS("perm_user.access_r_0644", access("pu/rootpub", R_OK));
	CHECK_ERRNO("perm_user.access_w_0644_eacces",
		    access("pu/rootpub", W_OK), EACCES);
	CHECK_ERRNO("perm_user.access_x_0644_eacces",
		    access("pu/rootpub", X_OK), EACCES);
	CHECK_SYS("perm_user.access_x_0755", access("pu/rootexec", X_OK));
	CHECK_ERRNO("perm_user.access_r_0600_eacces",
		    access("pu/rootfile", R_OK), EACCES);
	CHECK_SYS("perm_user.access_rw_0666", access("pu/rootrw", R_OK | W_OK));
	CHECK_SYS("perm_user.faccessat_eaccess",
		  faccessat(AT_FDCWD, "pu/rootpub", R_OK, AT_EACCESS));

	/* writing to a setuid file by a non-owner clears S_ISUID (and S_ISGID
	 * with g+x) */
	fd = open("pu/suid", O_WRONLY);
	if (CHECK_SYS("perm_user.suid_open_write", fd)) {
		CHECK_EQ("perm_user.suid_write", write(fd, "w", 1), 1);
		CHECK_EQ("perm_user.suid_write_clears_suid_sgid",
			 fstat(fd, &st) ? -1 : (long long)(st.st_mode & 07777),
			 0777);
		close(fd);
	}
	CHECK_EQ("perm_user.suid_write_clears_suid_path", mode_of("pu/suid"),
		 0777);
	fd = open("pu/suid2", O_WRONLY);
	if (fd >= 0) {
		CHECK_SYS("perm_user.suid_ftruncate", ftruncate(fd, 1));
		close(fd);
		CHECK_EQ("perm_user.suid_truncate_clears_suid",
			 mode_of("pu/suid2"), 0777);
	}

	/* setgid dir owned by a group we are not in */
	fd = open("pu/sgroot/f", O_CREAT | O_WRONLY, 02755);
	close(fd);
	CHECK_EQ("perm_user.sgid_dir_foreign_gid",
		 xstat("pu/sgroot/f", &st) ? -1 : (long long)st.st_gid, 0);
	CHECK_EQ("perm_user.sgid_dir_foreign_file_sgid_stripped",
		 st.st_mode & 07777, 0755);
	mkdir("pu/sgroot/d", 0755);
	CHECK_EQ("perm_user.sgid_dir_foreign_subdir",
		 xstat("pu/sgroot/d", &st) ? -1
					   : (long long)(st.st_mode & 07777),
		 02755);
	CHECK_EQ("perm_user.sgid_dir_foreign_subdir_gid", st.st_gid, 0);
	/* chmod g+s on an own file whose group we are not in: S_ISGID is
	 * dropped */
	CHECK_SYS("perm_user.chmod_sgid_foreign_group",
		  chmod("pu/sgroot/f", 02755));
	CHECK_EQ("perm_user.chmod_sgid_foreign_group_stripped",
		 mode_of("pu/sgroot/f"), 0755);

	/* xattrs */
	CHECK_ERRNO("perm_user.user_xattr_no_write_eacces",
		    setxattr("pu/rootpub", "user.x", "x", 1, 0), EACCES);
	CHECK_SYS("perm_user.user_xattr_own",
		  setxattr("pu/own", "user.x", "x", 1, 0));
	CHECK_ERRNO("perm_user.trusted_xattr_get_enodata",
		    getxattr("pu/rootpub", "trusted.secret", buf, sizeof(buf)),
		    ENODATA);
	CHECK_ERRNO("perm_user.trusted_xattr_set_eperm",
		    setxattr("pu/own", "trusted.x", "x", 1, 0), EPERM);

	/* links and renames of others' files in a writable non-sticky dir are
	 * fine */
	CHECK_SYS("perm_user.rename_others_file_nonsticky",
		  rename("pu/rootrw", "pu/rootrw2"));
	CHECK_SYS("perm_user.unlink_others_file_nonsticky",
		  unlink("pu/rootrw2"));
}

static void test_perms_nonroot(void)
{
	pid_t pid;
	int st;
	int pfd[2];
	char msg[256] = "";

	if (!enter("perms_user"))
		return;
	chmod(".", 0777);
	nonroot_setup();
	if (pipe(pfd) < 0)
		goto out;
	pid = xfork();
	if (pid == 0) {
		struct stat sb;

		close(pfd[0]);
		if (setgroups(0, NULL) < 0 ||
		    setresgid(nonroot_gid, nonroot_gid, nonroot_gid) < 0 ||
		    setresuid(nonroot_uid, nonroot_uid, nonroot_uid) < 0) {
			dprintf(pfd[1],
				"setresuid(%u)/setresgid(%u) failed: %s",
				(unsigned)nonroot_uid, (unsigned)nonroot_gid,
				strerror(errno));
			_exit(3);
		}
		if (xstat("pu", &sb) < 0 || access("pu", W_OK | X_OK) < 0) {
			dprintf(pfd[1],
				"the work directory is not accessible to uid "
				"%u (%s); "
				"mount with allow_other and make every parent "
				"of DIR searchable",
				(unsigned)nonroot_uid, strerror(errno));
			_exit(3);
		}
		close(pfd[1]);
		nonroot_checks();
		_exit(0);
	}
	close(pfd[1]);
	{
		ssize_t n = read(pfd[0], msg, sizeof(msg) - 1);

		msg[n > 0 ? n : 0] = 0;
	}
	close(pfd[0]);
	st = wait_pid(pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
		chk_skip("perm_user", "non-root checks skipped: %s", msg);
	else
		chk_result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			   "perm_user.child_exit",
			   "expected exit 0 got status 0x%x", st);
out:
	leave();
}

/* ------------------------------------------------------------------------ */
/* O_TMPFILE */

static void test_tmpfile(void)
{
	struct stat st, st2;
	unsigned char w[10000], g[10000];
	char proc[64];
	int fd, fd2;
	ssize_t before, after;
	char **names;

	if (!enter("tmpfile"))
		return;
	before = list_dir(".", &names);
	if (before > 0)
		free_names(names, before);
	fd = open(".", O_TMPFILE | O_RDWR, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
		chk_skip("tmpfile", "O_TMPFILE not supported here (%s)",
			 chk_errname(errno));
		leave();
		return;
	}
	if (!CHECK_SYS("tmpfile.open", fd)) {
		leave();
		return;
	}
	CHECK("tmpfile.is_reg_nlink0",
	      fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0);
	CHECK_EQ("tmpfile.mode", st.st_mode & 07777, 0600);
	after = list_dir(".", &names);
	if (after > 0)
		free_names(names, after);
	CHECK_EQ("tmpfile.not_in_listing", after, before);
	pat_fill(w, sizeof(w), 11, 0);
	CHECK_EQ("tmpfile.write", pwrite_all(fd, w, sizeof(w), 0),
		 (long long)sizeof(w));
	CHECK_EQ("tmpfile.read", pread_all(fd, g, sizeof(g), 0),
		 (long long)sizeof(g));
	CHECK_MEM("tmpfile.read_data", g, w, sizeof(w));
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	CHECK_SYS("tmpfile.linkat",
		  linkat(AT_FDCWD, proc, AT_FDCWD, "named", AT_SYMLINK_FOLLOW));
	CHECK("tmpfile.linked_same_ino", xstat("named", &st2) == 0 &&
						 st2.st_ino == st.st_ino &&
						 st2.st_nlink == 1);
	memset(g, 0, sizeof(g));
	CHECK_EQ("tmpfile.read_by_name", get_file("named", g, sizeof(g)),
		 (long long)sizeof(g));
	CHECK_MEM("tmpfile.read_by_name_data", g, w, sizeof(w));
	CHECK_EQ("tmpfile.fstat_nlink1",
		 fstat(fd, &st) ? -1 : (long long)st.st_nlink, 1);
	close(fd);

	fd2 = open(".", O_TMPFILE | O_WRONLY | O_EXCL, 0600);
	if (CHECK_SYS("tmpfile.excl_open", fd2)) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd2);
		CHECK_ERRNO("tmpfile.excl_linkat_enoent",
			    linkat(AT_FDCWD, proc, AT_FDCWD, "named2",
				   AT_SYMLINK_FOLLOW),
			    ENOENT);
		close(fd2);
	}
	CHECK_ERRNO("tmpfile.rdonly_einval",
		    open(".", O_TMPFILE | O_RDONLY, 0600), EINVAL);
	CHECK_ERRNO("tmpfile.on_file_enotdir",
		    open("named", O_TMPFILE | O_RDWR, 0600), ENOTDIR);
	leave();
}

/* ------------------------------------------------------------------------ */
/* mmap */

/* Forks a child that touches p[off]; returns its termination signal (0 if
 * it exited normally). */
static int touch_sig(volatile unsigned char *p, size_t off, int write_it)
{
	pid_t pid = xfork();
	int st;

	if (pid == 0) {
		signal(SIGBUS, SIG_DFL);
		if (write_it)
			p[off] = 1;
		else
			(void)p[off];
		_exit(0);
	}
	st = wait_pid(pid);
	return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

static void test_mmap(void)
{
	size_t len = 3 * 4096 + 100;
	unsigned char *w = malloc(len), *g = malloc(len);
	unsigned char *p, *q, *r;
	int fd, fd2;

	if (!enter("mmap"))
		goto out;
	pat_fill(w, len, 21, 0);
	put_file("m", w, len, 0644);
	fd = open("m", O_RDWR);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!chk_result(p != MAP_FAILED, "mmap.shared_map",
			"expected a mapping got %s", chk_errname(errno))) {
		close(fd);
		leave();
		goto out;
	}
	CHECK_MEM("mmap.shared_initial", p, w, len);
	p[10] = 'A';
	p[5000] = 'B';
	p[len - 1] = 'C';
	w[10] = 'A';
	w[5000] = 'B';
	w[len - 1] = 'C';
	CHECK_SYS("mmap.msync", msync(p, len, MS_SYNC));
	CHECK_EQ("mmap.read_after_store_len", pread_all(fd, g, len, 0),
		 (long long)len);
	CHECK_MEM("mmap.read_after_store", g, w, len);
	fd2 = open("m", O_RDONLY);
	q = mmap(NULL, len, PROT_READ, MAP_SHARED, fd2, 0);
	if (q != MAP_FAILED) {
		CHECK_MEM("mmap.second_mapping_sees_store", q, w, len);
		/* write(2) shows up in both mappings */
		ign(pwrite(fd, "xyz", 3, 4090));
		memcpy(w + 4090, "xyz", 3);
		CHECK_MEM("mmap.mapping_sees_write", p + 4088, w + 4088, 8);
		CHECK_MEM("mmap.second_mapping_sees_write", q + 4088, w + 4088,
			  8);
		munmap(q, len);
	}
	close(fd2);
	/* MAP_PRIVATE: copy on write, invisible to others */
	r = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (r != MAP_FAILED) {
		CHECK_MEM("mmap.private_initial", r, w, len);
		r[0] = 'P';
		r[4096] = 'Q';
		CHECK_EQ("mmap.private_sees_own", r[0], 'P');
		CHECK_EQ("mmap.private_not_in_shared", p[0], w[0]);
		pread_all(fd, g, len, 0);
		CHECK_MEM("mmap.private_not_in_file", g, w, len);
		munmap(r, len);
	}
	munmap(p, len);
	close(fd);
	CHECK_EQ("mmap.data_after_close_len", get_file("m", g, len),
		 (long long)len);
	CHECK_MEM("mmap.data_after_close", g, w, len);

	/* beyond EOF: the rest of the last page reads zero, the next page
	 * SIGBUS */
	put_file("small", "0123456789", 10, 0644);
	fd = open("small", O_RDWR);
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED) {
		check_zero("mmap.tail_of_last_page_zero", p + 10, 4096 - 10);
		CHECK_EQ("mmap.beyond_eof_sigbus", touch_sig(p, 4096, 0),
			 SIGBUS);
		/* stores past EOF in the last page do not grow the file */
		p[20] = 'z';
		msync(p, 4096, MS_SYNC);
		{
			struct stat st;

			CHECK_EQ("mmap.store_past_eof_size",
				 fstat(fd, &st) ? -1 : st.st_size, 10);
		}
		/* ftruncate while mapped */
		CHECK_SYS("mmap.ftruncate_grow_mapped", ftruncate(fd, 8192));
		CHECK_EQ("mmap.grown_page_accessible", touch_sig(p, 5000, 1),
			 0);
		p[6000] = 'G';
		CHECK_EQ("mmap.grown_store",
			 pread(fd, g, 1, 6000) == 1 ? g[0] : -1, 'G');
		CHECK_SYS("mmap.ftruncate_shrink_mapped", ftruncate(fd, 4096));
		CHECK_EQ("mmap.shrunk_page_sigbus", touch_sig(p, 6000, 0),
			 SIGBUS);
		CHECK_SYS("mmap.ftruncate_regrow_mapped", ftruncate(fd, 8192));
		CHECK_EQ("mmap.regrown_page_zero", p[6000], 0);
		CHECK_MEM("mmap.head_kept", p, "0123456789", 10);
		munmap(p, 2 * 4096);
	}
	close(fd);
	/* a store into a hole of a sparse file */
	fd = open("sparse", O_CREAT | O_RDWR | O_TRUNC, 0644);
	ign(ftruncate(fd, MIB));
	p = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED) {
		check_zero("mmap.sparse_zero", p, MIB);
		memcpy(p + 512 * 1024 + 3, "hole!", 5);
		munmap(p, MIB);
		CHECK_EQ("mmap.sparse_store_read",
			 pread(fd, g, 5, 512 * 1024 + 3), 5);
		CHECK_MEM("mmap.sparse_store_data", g, "hole!", 5);
	}
	close(fd);
	leave();
out:
	free(w);
	free(g);
}

/* ------------------------------------------------------------------------ */
/* O_DIRECT */

/*
 * Data moved around the page cache agrees with what buffered descriptors
 * and shared mappings of the same file see, both ways, and an O_DIRECT
 * descriptor can be mapped shared (a server that answers O_DIRECT opens
 * with direct_io, as examples/passthrough does, needs
 * FUSE_DIRECT_IO_ALLOW_MMAP for that). A second O_DIRECT writer of the same
 * file at another offset (the kernel's parallel direct writes) leaves both
 * ranges right.
 */
static void test_direct(void)
{
	size_t len = MIB + 4096, pg = 4096;
	unsigned char *w = aligned_alloc(pg, len), *g = aligned_alloc(pg, len);
	unsigned char *p;
	int fd, bfd, fd2;

	if (!w || !g || !enter("direct"))
		goto out;
	pat_fill(w, len, 33, 0);
	fd = open("d", O_RDWR | O_CREAT | O_EXCL | O_DIRECT, 0644);
	if (!CHECK_SYS("direct.open", fd)) {
		leave();
		goto out;
	}
	CHECK_EQ("direct.write", pwrite(fd, w, len, 0), (long long)len);
	bfd = open("d", O_RDWR);
	CHECK_SYS("direct.open_buffered", bfd);
	CHECK_EQ("direct.buffered_read_len", pread_all(bfd, g, len, 0),
		 (long long)len);
	CHECK_MEM("direct.buffered_read_sees_direct_write", g, w, len);
	memset(w + pg, 0x5c, pg);
	CHECK_EQ("direct.buffered_write", pwrite(bfd, w + pg, pg, pg),
		 (long long)pg);
	memset(g, 0, len);
	CHECK_EQ("direct.read_len", pread(fd, g, len, 0), (long long)len);
	CHECK_MEM("direct.direct_read_sees_buffered_write", g, w, len);

	fd2 = open("d", O_WRONLY | O_DIRECT);
	CHECK_SYS("direct.open_second_writer", fd2);
	memset(w, 0x11, pg);
	memset(w + len - pg, 0x22, pg);
	CHECK_EQ("direct.first_writer", pwrite(fd, w, pg, 0), (long long)pg);
	CHECK_EQ("direct.second_writer",
		 pwrite(fd2, w + len - pg, pg, len - pg), (long long)pg);
	close(fd2);
	CHECK_EQ("direct.both_writers_len", pread_all(bfd, g, len, 0),
		 (long long)len);
	CHECK_MEM("direct.both_writers_data", g, w, len);

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (chk_result(p != MAP_FAILED, "direct.shared_map",
		       "expected a mapping got %s", chk_errname(errno))) {
		CHECK_MEM("direct.map_sees_data", p, w, len);
		p[100] = 'Q';
		w[100] = 'Q';
		CHECK_SYS("direct.msync", msync(p, len, MS_SYNC));
		CHECK_EQ("direct.read_after_store", pread(fd, g, pg, 0),
			 (long long)pg);
		CHECK_MEM("direct.direct_read_sees_store", g, w, pg);
		munmap(p, len);
	}
	close(bfd);
	close(fd);
	leave();
out:
	free(w);
	free(g);
}

/* ------------------------------------------------------------------------ */
/* locks */

/* A child that takes a lock with fn, reports on 'ready', and waits on 'go'. */
struct locker {
	pid_t pid;
	int ready, go;
};

static struct locker lock_in_child(const char *path, int kind, short type,
				   off_t start, off_t len)
{
	struct locker l = {-1, -1, -1};
	int r[2], g[2];

	if (pipe(r) < 0 || pipe(g) < 0)
		return l;
	l.pid = xfork();
	if (l.pid == 0) {
		int fd = open(path, O_RDWR);
		int ok;
		char c = 0;

		close(r[0]);
		close(g[1]);
		if (kind == 0) {
			struct flock fl = {.l_type = type,
					   .l_whence = SEEK_SET,
					   .l_start = start,
					   .l_len = len};

			ok = fcntl(fd, F_SETLK, &fl) == 0;
		} else if (kind == 1) {
			struct flock fl = {.l_type = type,
					   .l_whence = SEEK_SET,
					   .l_start = start,
					   .l_len = len};

			ok = fcntl(fd, F_OFD_SETLK, &fl) == 0;
		} else {
			ok = flock(fd, type == F_WRLCK ? LOCK_EX : LOCK_SH) ==
			     0;
		}
		c = ok ? 'y' : 'n';
		ign(write(r[1], &c, 1));
		ign(read(g[0], &c, 1));
		_exit(0);
	}
	close(r[1]);
	close(g[0]);
	l.ready = r[0];
	l.go = g[1];
	{
		char c = 0;

		if (read(l.ready, &c, 1) != 1 || c != 'y')
			chk_result(0, "locks.child_lock",
				   "expected the child to get its lock");
	}
	return l;
}

static void release_child(struct locker *l)
{
	close(l->go);
	close(l->ready);
	wait_pid(l->pid);
}

static void test_locks(void)
{
	struct flock fl;
	struct locker l;
	int fd, fd2;

	if (!enter("locks"))
		return;
	put_str("lk", "lock file contents");
	fd = open("lk", O_RDWR);

	/* POSIX record locks between processes */
	l = lock_in_child("lk", 0, F_WRLCK, 0, 100);
	fl = (struct flock){.l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 50,
			    .l_len = 10};
	CHECK_SYS("locks.getlk", fcntl(fd, F_GETLK, &fl));
	CHECK_EQ("locks.getlk_type", fl.l_type, F_WRLCK);
	CHECK_EQ("locks.getlk_pid", fl.l_pid, l.pid);
	CHECK_EQ("locks.getlk_start", fl.l_start, 0);
	CHECK_EQ("locks.getlk_len", fl.l_len, 100);
	fl = (struct flock){.l_type = F_RDLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 10};
	CHECK_ERRNO2("locks.setlk_conflict", fcntl(fd, F_SETLK, &fl), EAGAIN,
		     EACCES);
	fl = (struct flock){.l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 100,
			    .l_len = 10};
	CHECK_SYS("locks.setlk_adjacent_ok", fcntl(fd, F_SETLK, &fl));
	fl = (struct flock){.l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 200,
			    .l_len = 10};
	CHECK_SYS("locks.getlk_free", fcntl(fd, F_GETLK, &fl));
	CHECK_EQ("locks.getlk_free_unlck", fl.l_type, F_UNLCK);
	release_child(&l);
	fl = (struct flock){.l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 100};
	CHECK_SYS("locks.setlk_after_holder_exit", fcntl(fd, F_SETLK, &fl));
	fl.l_type = F_UNLCK;
	fl.l_len = 0;
	fcntl(fd, F_SETLK, &fl);

	/* read locks are shared */
	l = lock_in_child("lk", 0, F_RDLCK, 0, 0);
	fl = (struct flock){.l_type = F_RDLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 10};
	CHECK_SYS("locks.rdlck_shared", fcntl(fd, F_SETLK, &fl));
	fl = (struct flock){.l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 5,
			    .l_len = 10};
	CHECK_ERRNO2("locks.wrlck_vs_rdlck", fcntl(fd, F_SETLK, &fl), EAGAIN,
		     EACCES);
	fl.l_type = F_UNLCK;
	fl.l_start = 0;
	fl.l_len = 0;
	fcntl(fd, F_SETLK, &fl);
	release_child(&l);

	/* F_SETLKW waits for the holder. Judged by order, not by time: the
	 * lock must come after the releaser said it lets the holder go (a
	 * flag it sets before), which a loaded machine cannot reorder; a
	 * measured wait could be cut short by this process being descheduled
	 * before it asked. */
	l = lock_in_child("lk", 0, F_WRLCK, 0, 0);
	{
		volatile int *released =
			mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		pid_t rel;
		int was_released;

		if (released == MAP_FAILED) {
			chk_result(0, "locks.setlkw_mmap", "%s",
				   strerror(errno));
			goto setlkw_done;
		}
		*released = 0;
		rel = xfork();
		if (rel == 0) {
			msleep(200);
			*released = 1;
			__sync_synchronize();
			if (write(l.go, "g", 1) != 1) /* lets the holder exit */
				_exit(1);
			_exit(0);
		}
		/* (a watchdog: a lock never granted ends the suite) */
		alarm(60);
		fl = (struct flock){.l_type = F_WRLCK,
				    .l_whence = SEEK_SET,
				    .l_start = 0,
				    .l_len = 1};
		CHECK_SYS("locks.setlkw_waits", fcntl(fd, F_SETLKW, &fl));
		alarm(0);
		__sync_synchronize();
		was_released = *released;
		chk_result(was_released == 1,
			   "locks.setlkw_blocked_until_release",
			   "expected the lock only after the holder was let "
			   "go, got it while it still held it");
		munmap((void *)released, sizeof(int));
		wait_pid(rel);
		fl.l_type = F_UNLCK;
		fcntl(fd, F_SETLK, &fl);
	}
setlkw_done:
	release_child(&l);

	/* OFD locks */
	fd2 = open("lk", O_RDWR);
	fl = (struct flock){.l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 10};
	CHECK_SYS("locks.ofd_setlk", fcntl(fd, F_OFD_SETLK, &fl));
	fl = (struct flock){.l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 10};
	CHECK_ERRNO("locks.ofd_conflict_same_process",
		    fcntl(fd2, F_OFD_SETLK, &fl), EAGAIN);
	fl = (struct flock){.l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 5,
			    .l_len = 1};
	CHECK_SYS("locks.ofd_getlk", fcntl(fd2, F_OFD_GETLK, &fl));
	CHECK_EQ("locks.ofd_getlk_type", fl.l_type, F_WRLCK);
	CHECK_EQ("locks.ofd_getlk_pid", fl.l_pid, -1);
	close(fd);
	fd = open("lk", O_RDWR);
	fl = (struct flock){.l_type = F_WRLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 10};
	CHECK_SYS("locks.ofd_released_on_close", fcntl(fd2, F_OFD_SETLK, &fl));
	fl.l_type = F_UNLCK;
	fcntl(fd2, F_OFD_SETLK, &fl);
	l = lock_in_child("lk", 1, F_WRLCK, 0, 10);
	fl = (struct flock){.l_type = F_RDLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 1};
	CHECK_ERRNO("locks.ofd_conflict_between_processes",
		    fcntl(fd, F_OFD_SETLK, &fl), EAGAIN);
	fl = (struct flock){.l_type = F_RDLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 1};
	CHECK_ERRNO2("locks.ofd_vs_posix_conflict", fcntl(fd, F_SETLK, &fl),
		     EAGAIN, EACCES);
	fl = (struct flock){.l_type = F_RDLCK,
			    .l_whence = SEEK_SET,
			    .l_start = 0,
			    .l_len = 1};
	fcntl(fd, F_GETLK, &fl);
	CHECK_EQ("locks.getlk_on_ofd_lock_pid", fl.l_pid, -1);
	release_child(&l);
	close(fd2);

	/* flock */
	l = lock_in_child("lk", 2, F_WRLCK, 0, 0);
	CHECK_ERRNO("locks.flock_ex_conflict", flock(fd, LOCK_EX | LOCK_NB),
		    EWOULDBLOCK);
	CHECK_ERRNO("locks.flock_sh_vs_ex", flock(fd, LOCK_SH | LOCK_NB),
		    EWOULDBLOCK);
	release_child(&l);
	CHECK_SYS("locks.flock_after_holder_exit",
		  flock(fd, LOCK_EX | LOCK_NB));
	fd2 = open("lk", O_RDWR);
	CHECK_ERRNO("locks.flock_conflict_same_process",
		    flock(fd2, LOCK_SH | LOCK_NB), EWOULDBLOCK);
	flock(fd, LOCK_UN);
	CHECK_SYS("locks.flock_after_unlock", flock(fd2, LOCK_SH | LOCK_NB));
	l = lock_in_child("lk", 2, F_RDLCK, 0, 0);
	CHECK_SYS("locks.flock_shared", flock(fd, LOCK_SH | LOCK_NB));
	release_child(&l);
	close(fd2);
	close(fd);
	leave();
}

/* ------------------------------------------------------------------------ */
/* misc: special files, cwd, long paths */

static void test_misc(void)
{
	struct stat st;
	char buf[PATH_MAX + 64];
	char start[PATH_MAX];
	int fd;

	if (!enter("misc"))
		return;
	/* FIFOs */
	CHECK_SYS("misc.mkfifo", mkfifo("fifo", 0644));
	CHECK("misc.fifo_type",
	      xlstat("fifo", &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK_EQ("misc.fifo_mode", st.st_mode & 07777, 0644);
	fd = open("fifo", O_RDWR);
	if (CHECK_SYS("misc.fifo_open_rdwr", fd)) {
		CHECK_EQ("misc.fifo_write", write(fd, "pipe", 4), 4);
		memset(buf, 0, 8);
		CHECK_EQ("misc.fifo_read", read(fd, buf, 8), 4);
		CHECK_MEM("misc.fifo_data", buf, "pipe", 4);
		close(fd);
	}
	CHECK_SYS("misc.mknod_fifo", mknod("fifo2", S_IFIFO | 0600, 0));
	CHECK("misc.mknod_fifo_type",
	      xlstat("fifo2", &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK_SYS("misc.mknod_reg", mknod("reg", S_IFREG | 0640, 0));
	CHECK("misc.mknod_reg_type",
	      xlstat("reg", &st) == 0 && S_ISREG(st.st_mode) &&
		      st.st_size == 0 && (st.st_mode & 07777) == 0640);
	CHECK_ERRNO("misc.mknod_eexist", mknod("reg", S_IFREG | 0640, 0),
		    EEXIST);

	/* a unix socket bound here, and a connection through it */
	{
		int s = socket(AF_UNIX, SOCK_STREAM, 0),
		    c = socket(AF_UNIX, SOCK_STREAM, 0), a;
		struct sockaddr_un sa = {.sun_family = AF_UNIX};

		strcpy(sa.sun_path, "sock");
		CHECK_SYS("misc.socket_bind",
			  bind(s, (struct sockaddr *)&sa, sizeof(sa)));
		CHECK("misc.socket_type",
		      xlstat("sock", &st) == 0 && S_ISSOCK(st.st_mode));
		listen(s, 1);
		CHECK_SYS("misc.socket_connect",
			  connect(c, (struct sockaddr *)&sa, sizeof(sa)));
		a = accept(s, NULL, NULL);
		ign(write(c, "sock", 4));
		memset(buf, 0, 8);
		CHECK_EQ("misc.socket_data", read(a, buf, 8), 4);
		CHECK_ERRNO("misc.socket_bind_eaddrinuse",
			    bind(socket(AF_UNIX, SOCK_STREAM, 0),
				 (struct sockaddr *)&sa, sizeof(sa)),
			    EADDRINUSE);
		close(a);
		close(c);
		close(s);
		CHECK_ERRNO("misc.socket_open_enxio", open("sock", O_RDWR),
			    ENXIO);
	}

	/* device node (root) */
	CHECK_SYS("misc.mknod_chr",
		  mknod("null", S_IFCHR | 0666, makedev(1, 3)));
	CHECK("misc.mknod_chr_type",
	      xlstat("null", &st) == 0 && S_ISCHR(st.st_mode));
	CHECK_EQ("misc.mknod_chr_rdev", st.st_rdev, makedev(1, 3));
	CHECK_SYS("misc.mknod_blk",
		  mknod("blk", S_IFBLK | 0600, makedev(7, 200)));
	CHECK_EQ("misc.mknod_blk_rdev", xlstat("blk", &st) ? 0 : st.st_rdev,
		 makedev(7, 200));
	{
		struct statvfs sv;

		if (statvfs(".", &sv) == 0 && (sv.f_flag & ST_NODEV)) {
			chk_skip("misc.chr_device_usable", "mounted nodev");
		} else {
			fd = open("null", O_RDWR);
			CHECK_EQ("misc.chr_device_usable",
				 fd >= 0 ? write(fd, "abc", 3) : -1, 3);
			if (fd >= 0) {
				CHECK_EQ("misc.chr_device_read_eof",
					 read(fd, buf, 3), 0);
				close(fd);
			}
		}
	}
	CHECK_ERRNO("misc.mknod_dir_eperm", mknod("mkdir", S_IFDIR | 0755, 0),
		    EPERM);

	/* d_type of every kind of file */
	{
		static const struct {
			const char *name;
			unsigned char type;
		} kinds[] = {{"fifo", DT_FIFO}, {"sock", DT_SOCK},
			     {"null", DT_CHR},	{"blk", DT_BLK},
			     {"reg", DT_REG},	{"slink", DT_LNK},
			     {"sdir", DT_DIR}};
		unsigned char got[7] = {0};
		DIR *dp;
		struct dirent *de;

		ign(symlink("reg", "slink"));
		mkdir("sdir", 0755);
		dp = opendir(".");
		while (dp && (de = readdir(dp)))
			for (int i = 0; i < 7; i++)
				if (!strcmp(de->d_name, kinds[i].name))
					got[i] = de->d_type;
		if (dp)
			closedir(dp);
		for (int i = 0; i < 7; i++)
			CHECK_EQ(chk_name("misc.d_type_%s", kinds[i].name),
				 got[i], kinds[i].type);
	}

	/* chdir/getcwd */
	if (!getcwd(start, sizeof(start)))
		start[0] = 0;
	mkdir("cw", 0755);
	mkdir("cw/sub", 0755);
	CHECK_SYS("misc.chdir", chdir("cw/sub"));
	snprintf(buf, sizeof(buf), "%s/cw/sub", start);
	{
		char cwd[PATH_MAX];

		CHECK_STR("misc.getcwd", getcwd(cwd, sizeof(cwd)), buf);
		CHECK_EQ("misc.cwd_dot_ino", ino_of("."), ino_of("../sub"));
		rename("../sub", "../sub2");
		snprintf(buf, sizeof(buf), "%s/cw/sub2", start);
		CHECK_STR("misc.getcwd_after_rename", getcwd(cwd, sizeof(cwd)),
			  buf);
		CHECK_SYS("misc.rmdir_cwd", rmdir("../sub2"));
		errno = 0;
		CHECK("misc.getcwd_removed_enoent",
		      getcwd(cwd, sizeof(cwd)) == NULL && errno == ENOENT);
		CHECK_ERRNO("misc.create_in_removed_cwd_enoent",
			    open("x", O_CREAT | O_WRONLY, 0644), ENOENT);
	}
	if (chdir(start) < 0) {
		perror("chdir back");
		exit(1);
	}

	/* a 4095-byte relative path through nested directories; 4096 is too
	 * long */
	{
		char *p = malloc(PATH_MAX + 16);
		char comp[251];
		size_t len;
		int ok = 1;

		memset(comp, 'd', 250);
		comp[250] = 0;
		strcpy(p, "lp");
		mkdir(p, 0755);
		while (strlen(p) + 1 + 250 + 1 + 50 < 4095) {
			strcat(p, "/");
			strcat(p, comp);
			if (mkdir(p, 0755) < 0) {
				ok = 0;
				break;
			}
		}
		CHECK("misc.long_path_dirs", ok);
		strcat(p, "/");
		len = strlen(p);
		memset(p + len, 'f', 4095 - len);
		p[4095] = 0;
		fd = open(p, O_CREAT | O_WRONLY, 0644);
		CHECK_SYS("misc.path_4095_create", fd);
		if (fd >= 0) {
			ign(write(fd, "deep", 4));
			close(fd);
		}
		CHECK_EQ("misc.path_4095_stat", xstat(p, &st) ? -1 : st.st_size,
			 4);
		check_content("misc.path_4095_read", p, "deep");
		p[4095] = 'f';
		p[4096] = 0;
		CHECK_ERRNO("misc.path_4096_enametoolong",
			    open(p, O_CREAT | O_WRONLY, 0644), ENAMETOOLONG);
		CHECK_ERRNO("misc.path_4096_stat_enametoolong", xstat(p, &st),
			    ENAMETOOLONG);
		free(p);
	}
	leave();
}

/* ------------------------------------------------------------------------ */

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s DIR [--nonroot-uid UID]\n", argv0);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	long nbig = 100000;
	const char *env;
	struct stat st;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--nonroot-uid") && i + 1 < argc) {
			nonroot_uid = (uid_t)strtoul(argv[++i], NULL, 10);
		} else if (argv[i][0] == '-') {
			usage(argv[0]);
		} else if (!dir) {
			dir = argv[i];
		} else {
			usage(argv[0]);
		}
	}
	if (!dir)
		usage(argv[0]);
	{
		struct passwd *pw = getpwuid(nonroot_uid);

		nonroot_gid = pw ? pw->pw_gid : (gid_t)nonroot_uid;
	}
	env = getenv("FRING_E2E_BIGDIR");
	if (env && *env)
		nbig = strtol(env, NULL, 10);
	if (nbig < 10)
		nbig = 10;
	env = getenv("FRING_E2E_RENAMES");
	if (env && *env)
		nrenames = strtol(env, NULL, 10);
	if (nrenames < 100)
		nrenames = 100;
	if (geteuid() != 0) {
		printf("SKIP: posix_suite must run as root\n");
		return CHK_EXIT_SKIP;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "posix_suite: %s is not a directory\n", dir);
		return 1;
	}
	chk_init();
	signal(SIGPIPE, SIG_IGN);
	umask(022);
	snprintf(topdir, sizeof(topdir), "%s", dir);
	snprintf(workname, sizeof(workname), "posix_suite.%d", (int)getpid());
	if (chdir(topdir) < 0 || mkdir(workname, 0755) < 0 ||
	    chdir(workname) < 0) {
		fprintf(stderr, "posix_suite: cannot make %s/%s: %s\n", dir,
			workname, strerror(errno));
		return 1;
	}
	chmod(".", 0755);

	test_files();
	test_dirs();
	test_bigdir(nbig);
	test_links();
	test_rename();
	test_xattr();
	test_falloc();
	test_times();
	test_perms_root();
	test_perms_nonroot();
	test_tmpfile();
	test_mmap();
	test_direct();
	test_locks();
	test_misc();

	if (chdir(topdir) < 0)
		perror("chdir");
	rm_rf_at(AT_FDCWD, workname);
	CHECK_ERRNO("cleanup.workdir_removed", xlstat(workname, &st), ENOENT);
	rc = chk_finish();
	return rc;
}
