/* SPDX-License-Identifier: MIT */
/*
 * --stats-file: the JSON written where nobody else's file can be hit, even
 * in a directory others may write (/tmp) and with the daemon running as
 * root. The file is made under a fresh random name with O_EXCL|O_NOFOLLOW
 * (a name planted in advance, symlink or not, is never opened), written,
 * and renamed onto the target, which replaces the name itself: a symlink
 * or a hard link at the target is never written through. Everything is
 * relative to the directory opened when the command line was read.
 *
 * Mode 0644 (less the umask): the file holds counters and the transport's
 * name, nothing of the filesystem's contents, and the monitoring that reads
 * it often runs as another user; the directory decides who can get at it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "main_int.h"

#define TMP_TRIES 64

/* What is at the name now: 0 (nothing, or a regular file to replace), or
 * -errno with why it must not be replaced in *why. */
static int target_check(const struct stats_file *sf, const char **why)
{
	struct stat st;

	if (fstatat(sf->dirfd, sf->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		*why = strerror(errno);
		return -errno;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		*why = "is a symbolic link: refusing to replace it (name the "
		       "file it points to instead)";
		return -ELOOP;
	}
	if (S_ISDIR(st.st_mode)) {
		*why = "is a directory";
		return -EISDIR;
	}
	*why = "is not a regular file: refusing to replace it";
	return -EINVAL;
}

/* A new file under a random name next to the target: its fd, the name in
 * tmp. */
static int tmp_create(const struct stats_file *sf, char *tmp, size_t len)
{
	static unsigned seq;

	for (unsigned i = 0; i < TMP_TRIES; i++) {
		unsigned long long r;
		int fd;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = fring_now_ns() ^
			    ((unsigned long long)getpid() << 32) ^
			    (unsigned long long)++seq * 0x9e3779b97f4a7c15ull;
		/* dot first: not picked up by a reader's *.json */
		snprintf(tmp, len, ".%.200s.%016llx", sf->name, r);
		fd = openat(sf->dirfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int stats_file_open(struct stats_file *sf, const char *path)
{
	const char *slash = strrchr(path, '/'), *name, *why = NULL;
	char dir[PATH_MAX], tmp[256];
	int ret, fd;

	memset(sf, 0, sizeof(*sf));
	sf->path = path;
	sf->dirfd = -1;
	name = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir)) {
		fr_err("--stats-file %s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	} else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		fr_err("--stats-file %s: names a directory, not a file", path);
		return -EISDIR;
	}
	if (strlen(name) >= sizeof(sf->name)) {
		fr_err("--stats-file %s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	snprintf(sf->name, sizeof(sf->name), "%s", name);
	sf->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sf->dirfd < 0) {
		ret = -errno;
		fr_err("--stats-file %s: directory %s: %s", path, dir,
		       strerror(errno));
		return ret;
	}
	ret = target_check(sf, &why);
	if (ret) {
		fr_err("--stats-file %s: %s", path, why);
		stats_file_close(sf);
		return ret;
	}
	/* Can the daemon make its file there (read-only, no permission,
	 * full)? Better told now than at the first SIGUSR1 or at exit. */
	fd = tmp_create(sf, tmp, sizeof(tmp));
	if (fd < 0) {
		fr_err("--stats-file %s: cannot create a file in %s: %s", path,
		       dir, strerror(-fd));
		stats_file_close(sf);
		return fd;
	}
	close(fd);
	unlinkat(sf->dirfd, tmp, 0);
	return 0;
}

int stats_file_write(const struct stats_file *sf, const fring_session_t *se)
{
	const char *why = NULL;
	char tmp[256];
	int fd, ret;

	ret = target_check(sf, &why);
	if (ret) {
		fr_err("--stats-file %s: %s; not written", sf->path, why);
		return ret;
	}
	fd = tmp_create(sf, tmp, sizeof(tmp));
	if (fd < 0) {
		fr_err("--stats-file %s: cannot create a file beside it: %s",
		       sf->path, strerror(-fd));
		return fd;
	}
	ret = fring_session_write_stats(se, fd);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(sf->dirfd, tmp, sf->dirfd, sf->name))
		ret = -errno;
	if (ret) {
		fr_err("--stats-file %s: %s", sf->path, strerror(-ret));
		unlinkat(sf->dirfd, tmp, 0);
	}
	return ret;
}

void stats_file_close(struct stats_file *sf)
{
	if (sf->dirfd >= 0)
		close(sf->dirfd);
	sf->dirfd = -1;
}
