/* SPDX-License-Identifier: MIT */
/*
 * Mounting: mount(2) with CAP_SYS_ADMIN, otherwise the setuid fusermount3
 * helper, which hands the /dev/fuse fd back over a unix socket named by
 * $_FUSE_COMMFD (one byte of data and one SCM_RIGHTS fd).
 *
 * Unmounting touches only the mount this session made: its identity
 * (mountid.c) is taken right after mounting, and at the end the mount with
 * that identity is found wherever it is now (mount --move) and unmounted
 * through a descriptor checked to be on it; nothing when it is gone, and
 * nothing while other mounts sit on it or inside it.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "mount.h"

#define FUSERMOUNT "fusermount3"
#define FUSE_CONF  "/etc/fuse.conf"

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

/* Opens the mountpoint without asking any FUSE server (O_PATH): a stuck
 * one at the path must not hang the check. */
static int open_mountpoint(const char *mnt)
{
	int fd, err;

	if (!mnt || !*mnt) {
		fr_err("no mountpoint given");
		return -EINVAL;
	}
	fd = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = errno;
	/* A dead FUSE mount answers ENOTCONN once its connection is gone;
	 * on the ring transports its first accesses after the daemon died
	 * can also end ECONNABORTED (the rings torn down after the
	 * process), ECANCELED (an aborted ring entry) or ECONNREFUSED
	 * (a failed INIT): the same advice for each. */
	if (err == ENOTCONN || err == ECONNABORTED || err == ECANCELED ||
	    err == ECONNREFUSED)
		fr_err("mountpoint %s is in a dead FUSE mount (its server "
		       "exited); unmount that first (fusermount3 -u DIR)",
		       mnt);
	else if (err == ENOTDIR)
		fr_err("mountpoint %s is not a directory", mnt);
	else
		fr_err("mountpoint %s: %s", mnt, strerror(err));
	return -err;
}

/* The absolute path of fd as the kernel names it (realpath(3) would stat
 * each component, and a dead FUSE mount answers that ENOTCONN). */
static int fd_path(int fd, const char *mnt, char out[PATH_MAX])
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, PATH_MAX - 1);
	if (n > 0 && n < PATH_MAX - 1 && out[0] == '/') {
		out[n] = '\0';
		return 0;
	}
	return realpath(mnt, out) ? 0 : -errno;
}

/*
 * A second FUSE mount on top of a FUSE mount, live or dead, hides the
 * first, and a plain umount of the path then takes the top one: refused
 * unless the caller says it means it (overmount). A directory inside a
 * FUSE mount is not stacking and is let through.
 */
static int check_stacking(struct fring_session *se, int fd, const char *path)
{
	const struct mnt_ent *top;
	struct mount_id m;
	struct mnt_table t;
	bool root;
	int ret = mountid_of_fd(fd, &m, &root);

	if ((ret && ret != -EOPNOTSUPP) || !root)
		return 0;
	if (mnt_table_read(NULL, &t)) {
		fr_dbg("cannot read the mount table; not checking what is "
		       "mounted at %s",
		       path);
		return 0;
	}
	top = ret ? mnt_table_top_at(&t, path) : mnt_table_by_id(&t, m.id, 0);
	ret = 0;
	if (top && mnt_type_is_fuse(top->fstype)) {
		if (se->cfg.overmount) {
			fr_info("mounting on top of the FUSE mount at %s (%s "
				"from %s): overmount",
				path, top->fstype, top->source);
		} else {
			fr_err("mountpoint %s already has a FUSE mount on top "
			       "(%s from %s; its server alive or dead): a "
			       "second one there would hide it, and one "
			       "umount of the path would take the wrong one. "
			       "Unmount it first (fusermount3 -u %s), or mount "
			       "on top of it anyway with -o overmount",
			       path, top->fstype, top->source, path);
			ret = -EBUSY;
		}
	}
	mnt_table_free(&t);
	return ret;
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

/* fusermount3 started with argv, commfd its end of the socket (-1: none):
 * its pid, or -errno */
static pid_t spawn_fusermount(const char *const argv[], int commfd)
{
	pid_t pid = fork();

	if (pid < 0) {
		int err = errno;

		if (commfd >= 0)
			close(commfd);
		return -err;
	}
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
	return pid;
}

static int wait_fusermount(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

static int run_fusermount(const char *const argv[], int commfd)
{
	pid_t pid = spawn_fusermount(argv, commfd);

	return pid < 0 ? pid : wait_fusermount(pid);
}

static int mount_fusermount(struct fring_session *se, const char *mnt)
{
	char opts[1024] = "";
	const char *argv[] = {FUSERMOUNT, "-o", opts, "--", mnt, NULL};
	int sv[2], fd, ret = 0;
	pid_t pid;

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
	/* fusermount3's own: it stays, holding its end of the socket, and
	 * unmounts when that end reads EOF (by its rules: the mount on top at
	 * the path is still a FUSE one and answers ENOTCONN) */
	if (se->cfg.auto_unmount)
		add_opt(opts, sizeof(opts), "%s", "auto_unmount");
	/* sv[0] goes to fusermount3 and must survive exec. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -errno;
	fcntl(sv[1], F_SETFD, FD_CLOEXEC);
	pid = spawn_fusermount(argv, sv[0]);
	fd = pid < 0 ? (int)pid : receive_fd(sv[1]);
	if (fd >= 0 && se->cfg.auto_unmount) {
		/* it runs on: sv[1] is what it watches (watch_end()) */
		se->watch_fd = sv[1];
		se->watch_pid = pid;
		fr_info("auto_unmount: %s (process %d) unmounts %s if this "
			"process ends without unmounting it",
			FUSERMOUNT, (int)pid, mnt);
	} else {
		close(sv[1]);
		if (pid >= 0)
			ret = wait_fusermount(pid);
	}
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

/*
 * Right after mounting: which mount at path is ours. Nothing has answered
 * INIT yet, so nothing here may ask the new FUSE mount anything
 * (mountid_of_fd does not). A mount on top at path that is not FUSE, or
 * not in the table with the id and device just read, would mean another
 * one was made at path in the same instant: then the identity stays
 * unknown and nothing is unmounted later.
 */
static void identify(struct fring_session *se, const char *path)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	const struct mnt_ent *e = NULL;
	struct mnt_table t;
	bool root = false, table;
	int ret = fd < 0 ? -errno : mountid_of_fd(fd, &se->mnt, &root);

	if (fd >= 0)
		close(fd);
	table = mnt_table_read(NULL, &t) == 0;
	if (ret == -EOPNOTSUPP && table) {
		/* before Linux 5.8: the mount on top at path, by the table */
		e = mnt_table_top_at(&t, path);
		if (e && e->dev == se->mnt.dev) {
			se->mnt.id = e->id;
			ret = 0;
		}
	} else if (!ret && table) {
		e = mnt_table_by_id(&t, se->mnt.id, se->mnt.dev);
	}
	se->mnt_known =
		!ret && root && (!table || (e && mnt_type_is_fuse(e->fstype)));
	if (!se->mnt_known)
		fr_warn("cannot tell which mount at %s is this session's (%s); "
			"it will not be unmounted at exit",
			path,
			ret ? strerror(-ret)
			: e ? "another mount sits there"
			    : "not in the mount table");
	if (table)
		mnt_table_free(&t);
}

/*
 * "/dev/fd/N": a /dev/fuse descriptor that a mount helper opened, mounted
 * and handed down (mount.fuse3 -o drop_privileges starts the daemon that
 * way, without the privilege to mount). The session adopts it instead of
 * mounting; the mount is the helper's, so nothing identifies it as ours
 * and nothing is unmounted at exit. 1 when mnt is not of that form.
 */
static int adopt_fd(struct fring_session *se, const char *mnt)
{
	const char *p = mnt + strlen("/dev/fd/");
	struct stat st;
	char *end;
	long n;

	if (strncmp(mnt, "/dev/fd/", strlen("/dev/fd/")) || !isdigit(*p))
		return 1;
	n = strtol(p, &end, 10);
	if (*end || n < 0 || n > INT_MAX)
		return 1;
	if (fstat((int)n, &st) || !S_ISCHR(st.st_mode) ||
	    st.st_rdev != makedev(10, 229)) {
		fr_err("mountpoint %s: not a /dev/fuse descriptor handed down "
		       "by a mount helper",
		       mnt);
		return -EINVAL;
	}
	free(se->mountpoint);
	se->mountpoint = strdup(mnt);
	if (!se->mountpoint)
		return -ENOMEM;
	se->fd = (int)n;
	se->mounted = true;
	se->mnt_known = false;
	se->adopted = true;
	if (se->cfg.auto_unmount)
		fr_info("auto_unmount: a mount handed down is its helper's "
			"to watch (a helper that mounted with auto_unmount "
			"does); no watcher here");
	fr_info("serving the /dev/fuse descriptor %ld a mount helper mounted "
		"(%s); it unmounts, not this process",
		n, mnt);
	return 0;
}

/* -o auto_unmount after mount(2): the watcher, or no mount at all (the
 * option is a promise about the mount's end). */
static int auto_unmount(struct fring_session *se)
{
	int ret;

	if (!se->mnt_known) {
		fr_warn("auto_unmount: which mount at %s is this session's is "
			"not known (above): nothing watches it",
			se->mountpoint);
		return 0;
	}
	ret = watch_start(se);
	if (!ret)
		return 0;
	fr_err("auto_unmount: cannot start the watcher of %s: %s; not "
	       "leaving a mount nothing would unmount",
	       se->mountpoint, strerror(-ret));
	unmount_fuse(se);
	close(se->fd);
	se->fd = -1;
	return ret;
}

int mount_fuse(struct fring_session *se, const char *mnt)
{
	char abs[PATH_MAX];
	int fd, ret = adopt_fd(se, mnt);

	if (ret <= 0)
		return ret;
	fd = open_mountpoint(mnt);

	if (fd < 0)
		return fd;
	ret = fd_path(fd, mnt, abs);
	if (!ret)
		ret = check_stacking(se, fd, abs);
	close(fd);
	if (ret)
		return ret;
	free(se->mountpoint);
	se->mountpoint = strdup(abs);
	if (!se->mountpoint)
		return -ENOMEM;
	/* without /proc, root is taken to have CAP_SYS_ADMIN */
	if (cap_effective(CAP_SYS_ADMIN_BIT, geteuid() == 0)) {
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
	identify(se, abs);
	if (se->cfg.auto_unmount && !se->via_fusermount)
		return auto_unmount(se);
	return 0;
}

enum mnt_state {
	MNT_FREE,    /* in the table at path, nothing on or inside it */
	MNT_HELD,    /* other mounts sit on or inside it */
	MNT_GONE,    /* not in this process's table any more */
	MNT_UNKNOWN, /* no identity, or no table to look in */
};

/* The connection still stands (unmounting ends it: the device then polls
 * POLLERR). */
static bool conn_alive(const struct fring_session *se)
{
	struct pollfd p = {se->fd, POLLIN, 0};

	return se->fd >= 0 && poll(&p, 1, 0) >= 0 && !(p.revents & POLLERR);
}

/* Where our mount is now (path, when FREE), or what holds it (what). */
static enum mnt_state locate(struct fring_session *se, char path[PATH_MAX],
			     char *what, size_t len)
{
	const struct mnt_ent *e, *c;
	struct mnt_table t;
	enum mnt_state st = MNT_GONE;
	bool on_root;

	if (!se->mnt_known || mnt_table_read(NULL, &t))
		return MNT_UNKNOWN;
	e = mnt_table_by_id(&t, se->mnt.id, se->mnt.dev);
	/*
	 * Mount ids and anonymous devices are handed out lowest free first:
	 * once ours is gone, a mount made at once (a tmpfs at the same path)
	 * can get both. Linux 6.8+ gives a unique id, which open_ours()
	 * compares; without it, a mount that is not FUSE, or any while our
	 * connection has ended (its superblock is gone, or it was aborted),
	 * is not taken for ours.
	 */
	if (e && (!mnt_type_is_fuse(e->fstype) ||
		  (!se->mnt.uniq && !conn_alive(se))))
		e = NULL;
	c = e ? mnt_table_child(&t, e, &on_root) : NULL;
	if (c) {
		snprintf(what, len, "%s %s mount at %s",
			 on_root ? "covered by the" : "holding the", c->fstype,
			 c->path);
		st = MNT_HELD;
	} else if (e) {
		snprintf(path, PATH_MAX, "%s", e->path);
		st = MNT_FREE;
	}
	mnt_table_free(&t);
	return st;
}

bool mount_held(struct fring_session *se, char *what, size_t len)
{
	char path[PATH_MAX];

	return se->mounted && locate(se, path, what, len) == MNT_HELD;
}

/*
 * Opens path and checks that the mount on top there is ours; -EBUSY and a
 * log line otherwise. A mount made on ours between the table read and here
 * is on top at path, so this catches it.
 */
static int open_ours(struct fring_session *se, const char *path)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	struct mount_id now;
	bool root;

	if (fd >= 0 && !mountid_of_fd(fd, &now, &root) && root &&
	    mountid_same(&now, &se->mnt))
		return fd;
	if (fd >= 0)
		close(fd);
	fr_warn("not unmounting %s: that path leads to another mount now "
		"(one was just mounted there, or the way to it changed)",
		path);
	return -EBUSY;
}

/*
 * No mount table (no /proc): the mount on top at the path is checked to be
 * ours, then unmounted by path without MNT_DETACH, which fails (EBUSY)
 * rather than take along anything mounted on or inside it.
 */
static int unmount_by_path(struct fring_session *se)
{
	const char *argv[] = {FUSERMOUNT, "-u",		  "-q",
			      "--",	  se->mountpoint, NULL};
	int fd = open_ours(se, se->mountpoint), ret;

	if (fd < 0)
		return fd;
	close(fd);
	if (se->via_fusermount)
		ret = run_fusermount(argv, -1);
	else
		ret = umount2(se->mountpoint, UMOUNT_NOFOLLOW) ? -errno : 0;
	if (ret)
		fr_warn("not unmounting %s: %s (no mount table to tell what "
			"holds it)",
			se->mountpoint, strerror(-ret));
	else
		se->mounted = false;
	return ret;
}

int unmount_fuse(struct fring_session *se)
{
	char path[PATH_MAX], what[PATH_MAX + 64], proc[64];
	int fd, ret;

	if (!se->mounted || !se->mountpoint)
		return 0;
	if (se->adopted) {
		/* the helper's mount: it unmounts (said at adoption) */
		se->mounted = false;
		return 0;
	}
	switch (locate(se, path, what, sizeof(what))) {
	case MNT_UNKNOWN:
		if (se->mnt_known)
			return unmount_by_path(se);
		se->mounted = false;
		fr_warn("not unmounting %s: which mount is this session's is "
			"not known",
			se->mountpoint);
		return -EBUSY;
	case MNT_GONE:
		/* unmounted, or detached (umount -l), by someone else: what
		 * is at the path now is not ours */
		se->mounted = false;
		if (conn_alive(se))
			fr_info("the mount made at %s is no longer in the "
				"mount table (detached, or unmounted while "
				"another mount of it remains); nothing to "
				"unmount",
				se->mountpoint);
		return 0;
	case MNT_HELD:
		fr_warn("not unmounting %s: it is %s, which unmounting it "
			"would take along",
			se->mountpoint, what);
		return -EBUSY;
	case MNT_FREE:
		break;
	}
	if (strcmp(path, se->mountpoint))
		fr_info("the mount made at %s is at %s now; unmounting it "
			"there",
			se->mountpoint, path);
	fd = open_ours(se, path);
	if (fd < 0)
		return fd;
	if (se->via_fusermount) {
		/* fusermount3 unmounts by path: the check above is as close
		 * as it can be made to it */
		const char *argv[] = {FUSERMOUNT, "-u", "-q", "-z",
				      "--",	  path, NULL};

		close(fd);
		ret = run_fusermount(argv, -1);
		if (!ret)
			se->mounted = false;
		return ret;
	}
	/* Through the descriptor: exactly the mount checked, even if another
	 * now sits at its path. Without MNT_DETACH the descriptor itself
	 * makes it busy; detaching is safe as nothing is on or inside it,
	 * and leaves files clients still hold open working until closed. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ret = umount2(proc, MNT_DETACH) ? -errno : 0;
	close(fd);
	/* EINVAL: it went in the meantime */
	if (!ret || ret == -EINVAL) {
		se->mounted = false;
		return 0;
	}
	fr_err("unmount of %s failed: %s", path, strerror(-ret));
	return ret;
}
