/* SPDX-License-Identifier: MIT */
/*
 * Mounting: mount(2) with CAP_SYS_ADMIN, otherwise the setuid fusermount3
 * helper, which hands the /dev/fuse fd back over a unix socket named by
 * $_FUSE_COMMFD (one byte of data and one SCM_RIGHTS fd).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fring_int.h"

#define FUSERMOUNT	  "fusermount3"
#define FUSE_CONF	  "/etc/fuse.conf"
#define CAP_SYS_ADMIN_BIT 21

static bool has_cap_sys_admin(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	bool ret = false;

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			ret = caps & (1ULL << CAP_SYS_ADMIN_BIT);
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * fusermount3 gives a user allow_other only when fuse.conf has a line
 * "user_allow_other" (comments and blanks stripped, as its read_conf()
 * does); it would refuse later with a message of its own, after forking.
 */
static bool user_allow_other(void)
{
	FILE *f = fopen(FUSE_CONF, "re");
	char line[256];
	bool ok = false;

	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f)) {
		char *s = line, *e;

		s[strcspn(s, "#")] = '\0';
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		ok = !strcmp(s, "user_allow_other");
	}
	fclose(f);
	return ok;
}

int check_mountpoint(const char *mnt)
{
	struct stat st;

	if (!mnt || !*mnt) {
		fr_err("no mountpoint given");
		return -EINVAL;
	}
	if (stat(mnt, &st) < 0) {
		int err = errno;

		if (err == ENOTCONN)
			fr_err("mountpoint %s is a dead FUSE mount (its server "
			       "exited); unmount it first: fusermount3 -u %s",
			       mnt, mnt);
		else
			fr_err("mountpoint %s: %s", mnt, strerror(err));
		return -err;
	}
	if (!S_ISDIR(st.st_mode)) {
		fr_err("mountpoint %s is not a directory", mnt);
		return -ENOTDIR;
	}
	return 0;
}

static void add_opt(char *buf, size_t size, const char *fmt, const char *val)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s", len ? "," : "");
	len = strlen(buf);
	snprintf(buf + len, size - len, fmt, val);
}

static const char *fs_source(const struct fring_session *se)
{
	if (se->cfg.fsname[0])
		return se->cfg.fsname;
	if (se->cfg.subtype[0])
		return se->cfg.subtype;
	return "fring";
}

static int mount_direct(struct fring_session *se, const char *mnt)
{
	char opts[1024] = "", type[FRING_NAME_LEN + 8], num[64];
	unsigned long flags = 0;
	int fd, ret;

	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fr_err("cannot open /dev/fuse: %s", strerror(errno));
		return ret;
	}
	snprintf(num, sizeof(num), "%d", fd);
	add_opt(opts, sizeof(opts), "fd=%s", num);
	add_opt(opts, sizeof(opts), "rootmode=%s", "40000");
	snprintf(num, sizeof(num), "%u", (unsigned)getuid());
	add_opt(opts, sizeof(opts), "user_id=%s", num);
	snprintf(num, sizeof(num), "%u", (unsigned)getgid());
	add_opt(opts, sizeof(opts), "group_id=%s", num);
	if (se->cfg.default_permissions)
		add_opt(opts, sizeof(opts), "%s", "default_permissions");
	if (se->cfg.allow_other)
		add_opt(opts, sizeof(opts), "%s", "allow_other");
	if (se->cfg.max_read) {
		snprintf(num, sizeof(num), "%u", se->cfg.max_read);
		add_opt(opts, sizeof(opts), "max_read=%s", num);
	}
	if (se->cfg.ro)
		flags |= MS_RDONLY;
	if (!se->cfg.dev)
		flags |= MS_NODEV;
	if (!se->cfg.suid)
		flags |= MS_NOSUID;
	if (se->cfg.subtype[0])
		snprintf(type, sizeof(type), "fuse.%s", se->cfg.subtype);
	else
		snprintf(type, sizeof(type), "fuse");

	ret = mount(fs_source(se), mnt, type, flags, opts);
	if (ret < 0 && errno == ENODEV && se->cfg.subtype[0])
		ret = mount(fs_source(se), mnt, "fuse", flags, opts);
	if (ret < 0) {
		ret = -errno;
		fr_err("mount of %s failed: %s", mnt, strerror(errno));
		close(fd);
		return ret;
	}
	se->fd = fd;
	se->via_fusermount = false;
	return 0;
}

static int receive_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;
	ssize_t n;
	int fd;

	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET; /* fusermount3 failed and said why */
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

static int run_fusermount(const char *const argv[], int commfd)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char env[32];

		if (commfd >= 0) {
			snprintf(env, sizeof(env), "%d", commfd);
			setenv("_FUSE_COMMFD", env, 1);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "fring: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (commfd >= 0)
		close(commfd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

static int mount_fusermount(struct fring_session *se, const char *mnt)
{
	char opts[1024] = "";
	const char *argv[] = {FUSERMOUNT, "-o", opts, "--", mnt, NULL};
	int sv[2], fd, ret;

	add_opt(opts, sizeof(opts), "%s", se->cfg.ro ? "ro" : "rw");
	add_opt(opts, sizeof(opts), "%s", "nosuid");
	add_opt(opts, sizeof(opts), "%s", "nodev");
	if (se->cfg.default_permissions)
		add_opt(opts, sizeof(opts), "%s", "default_permissions");
	if (se->cfg.allow_other)
		add_opt(opts, sizeof(opts), "%s", "allow_other");
	add_opt(opts, sizeof(opts), "fsname=%s", fs_source(se));
	if (se->cfg.subtype[0])
		add_opt(opts, sizeof(opts), "subtype=%s", se->cfg.subtype);
	if (se->cfg.max_read) {
		char num[32];

		snprintf(num, sizeof(num), "%u", se->cfg.max_read);
		add_opt(opts, sizeof(opts), "max_read=%s", num);
	}
	/* sv[0] goes to fusermount3 and must survive exec. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -errno;
	fcntl(sv[1], F_SETFD, FD_CLOEXEC);
	ret = run_fusermount(argv, sv[0]);
	fd = receive_fd(sv[1]);
	close(sv[1]);
	if (fd < 0) {
		if (ret == -ENOENT)
			fr_err("mount of %s needs %s (package fuse3) or "
			       "CAP_SYS_ADMIN",
			       mnt, FUSERMOUNT);
		else
			fr_err("mount of %s through %s failed (its message "
			       "is above)",
			       mnt, FUSERMOUNT);
		return ret ? ret : fd;
	}
	se->fd = fd;
	se->via_fusermount = true;
	return 0;
}

int mount_fuse(struct fring_session *se, const char *mnt)
{
	char abs[PATH_MAX];
	int ret = check_mountpoint(mnt);

	if (ret)
		return ret;
	if (!realpath(mnt, abs))
		return -errno;
	free(se->mountpoint);
	se->mountpoint = strdup(abs);
	if (!se->mountpoint)
		return -ENOMEM;
	if (has_cap_sys_admin()) {
		ret = mount_direct(se, abs);
	} else if (se->cfg.allow_other && !user_allow_other()) {
		/* allow_other lets every user reach this daemon's code */
		fr_err("mount of %s refused: allow_other needs root "
		       "(CAP_SYS_ADMIN) or a line \"user_allow_other\" in %s",
		       abs, FUSE_CONF);
		return -EPERM;
	} else {
		ret = mount_fusermount(se, abs);
	}
	if (ret)
		return ret;
	se->mounted = true;
	return 0;
}

int unmount_fuse(struct fring_session *se)
{
	int ret = 0;

	if (!se->mounted || !se->mountpoint)
		return 0;
	se->mounted = false;
	if (se->via_fusermount) {
		const char *argv[] = {FUSERMOUNT, "-u",		  "-q", "-z",
				      "--",	  se->mountpoint, NULL};

		return run_fusermount(argv, -1);
	}
	if (umount2(se->mountpoint, UMOUNT_NOFOLLOW) == 0)
		return 0;
	if (errno == EBUSY) {
		/* Clients still hold files: detach now, the kernel finishes
		 * when they close. */
		fr_info("%s is busy; detaching it (lazy unmount)",
			se->mountpoint);
		if (umount2(se->mountpoint, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
			return 0;
	}
	/* EINVAL: already unmounted by someone else. */
	if (errno != EINVAL && errno != ENOENT) {
		ret = -errno;
		fr_err("unmount of %s failed: %s", se->mountpoint,
		       strerror(errno));
	}
	return ret;
}
