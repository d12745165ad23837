/* SPDX-License-Identifier: MIT */
/*
 * auto_unmount with mount(2): a watcher process, forked right after the
 * mount, that unmounts the session's mount when the daemon ends without
 * having unmounted it (SIGKILL, a crash, exit() or exec without destroy).
 *
 * The watcher holds one end of a socket pair and nothing else: every other
 * descriptor is closed in it (a copy of /dev/fuse would keep the connection
 * alive, so the daemon's death would never show). The daemon holds the
 * other end (close-on-exec). When every copy of that end is closed the
 * watcher reads EOF: the daemon process is gone (or has exec'd, which
 * closes /dev/fuse as well). A session that ends normally sends one byte
 * first ('Q'), and the watcher then leaves without looking: whatever the
 * library decided about the mount (unmounted, or left for another mount's
 * sake) stands.
 *
 * On EOF it unmounts only the mount it watches, only at the path where it
 * was made, and only while nothing sits on it or inside it: the path is
 * opened O_PATH, statx on that descriptor must name the mount recorded at
 * mount time (mountid.c), the mount table must show no mount whose parent
 * it is, and umount2 with MNT_DETACH goes through the descriptor, so a
 * mount made at the path after the check is not what is unmounted.
 *
 * The child of fork() in a process that may have threads: only
 * async-signal-safe calls from fork to _exit (system calls, the statx of
 * mountid.c, a mount table read with read(2) into a buffer on the stack).
 * Whatever it needs is prepared before the fork.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mount.h"

#ifndef SYS_close_range
#define SYS_close_range 436 /* the same number on every architecture */
#endif

/* the byte of a session that ends normally, and the watcher's "ready" */
#define WATCH_QUIT  'Q'
#define WATCH_READY 'R'
/* how long destroy waits for the watcher (or fusermount3) to be gone */
#define WATCH_REAP_MS 2000

/* What the child needs, read before the fork. */
struct watch {
	const char *path;
	struct mount_id mnt;
	int sock;
	unsigned maxfd; /* highest descriptor to close without close_range */
};

static void close_others(int keep, unsigned maxfd)
{
	unsigned k = (unsigned)keep;

	if ((k == 0 || syscall(SYS_close_range, 0U, k - 1, 0U) == 0) &&
	    syscall(SYS_close_range, k + 1, ~0U, 0U) == 0)
		return;
	/* before Linux 5.9 */
	for (unsigned fd = 0; fd <= maxfd; fd++)
		if (fd != k)
			close((int)fd);
}

/*
 * Whether a mount has another mount on it or inside it: 1 yes, 0 no, -1
 * no table. The lines of /proc/self/mountinfo begin "ID PARENT ", which is
 * all this reads, a block at a time.
 */
static int has_children(uint64_t id)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	uint64_t num[2] = {0, 0};
	unsigned field = 0; /* 0, 1: reading ID, PARENT; 2: the rest */
	char buf[4096];
	int found = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (!found && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			found = -1;
			break;
		}
		for (ssize_t i = 0; i < n && !found; i++) {
			char c = buf[i];

			if (c == '\n') {
				field = 0;
				num[0] = num[1] = 0;
			} else if (field < 2 && c >= '0' && c <= '9') {
				num[field] =
					num[field] * 10 + (uint64_t)(c - '0');
			} else if (field < 2 && c == ' ') {
				field++;
				found = field == 2 && num[1] == id &&
					num[0] != id;
			}
		}
	}
	close(fd);
	return found;
}

/* "/proc/self/fd/N" without snprintf (not async-signal-safe) */
static void fd_link(int fd, char out[32])
{
	char digits[12];
	int n = 0;

	strcpy(out, "/proc/self/fd/");
	do {
		digits[n++] = (char)('0' + fd % 10);
		fd /= 10;
	} while (fd);
	out += strlen(out);
	while (n)
		*out++ = digits[--n];
	*out = '\0';
}

static void unmount_if_ours(const struct watch *w)
{
	int fd = open(w->path, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	struct mount_id now;
	bool root;
	char link[32];
	int ret;

	if (fd < 0)
		return;
	ret = mountid_of_fd(fd, &now, &root);
	if (ret == -EOPNOTSUPP && root && now.dev == w->mnt.dev) {
		/* before Linux 5.8, no mount ids: by path, without
		 * MNT_DETACH, which the kernel refuses (EBUSY) while
		 * anything is mounted on or inside it */
		close(fd);
		umount2(w->path, UMOUNT_NOFOLLOW);
		return;
	}
	if (ret || !root || !mountid_same(&now, &w->mnt)) {
		close(fd);
		return;
	}
	switch (has_children(now.id)) {
	case 0:
		fd_link(fd, link);
		umount2(link, MNT_DETACH);
		close(fd);
		return;
	case -1: /* no /proc: the kernel's EBUSY guards what is on it */
		close(fd);
		umount2(w->path, UMOUNT_NOFOLLOW);
		return;
	default: /* held: unmounting would take another mount along */
		close(fd);
		return;
	}
}

static __attribute__((noreturn)) void watcher(const struct watch *w)
{
	struct sigaction dfl;
	sigset_t none;
	char b = WATCH_READY;
	ssize_t n;

	close_others(w->sock, w->maxfd);
	/* the daemon's handlers are not this process's business: a signal
	 * now does what it does to any process (SIGTERM ends the watch) */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* out of the daemon's session (a terminal's ^C is the daemon's),
	 * and not holding the mount point or anything under it busy */
	setsid();
	if (chdir("/"))
		_exit(1);
	prctl(PR_SET_NAME, "fring-unmount", 0, 0, 0);
	if (send(w->sock, &b, 1, MSG_NOSIGNAL) != 1)
		_exit(1);
	for (;;) {
		n = read(w->sock, &b, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 1 && b == WATCH_QUIT)
			_exit(0);
		if (n != 1)
			break; /* EOF (or ECONNRESET): the daemon is gone */
	}
	unmount_if_ours(w);
	_exit(0);
}

int watch_start(struct fring_session *se)
{
	struct watch w = {.path = se->mountpoint, .mnt = se->mnt};
	struct rlimit rl;
	sigset_t all, old;
	int sv[2], err;
	ssize_t n;
	pid_t pid;
	char b;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	w.sock = sv[1];
	w.maxfd = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
				  rl.rlim_cur != RLIM_INFINITY &&
				  rl.rlim_cur < 1048576
			  ? (unsigned)rl.rlim_cur
			  : 1048576;
	/* blocked across the fork: a handler of the daemon's must not run
	 * in the child before the child has reset them */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid == 0)
		watcher(&w);
	err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -err;
	}
	/* it has closed its copies of /dev/fuse (and everything else) */
	do {
		n = read(sv[0], &b, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1 || b != WATCH_READY) {
		close(sv[0]);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -ECHILD;
	}
	se->watch_fd = sv[0];
	se->watch_pid = pid;
	fr_info("auto_unmount: watcher process %d unmounts %s if this "
		"process ends without unmounting it",
		(int)pid, se->mountpoint);
	return 0;
}

void watch_hand_over(struct fring_session *se)
{
	int flags;

	if (se->watch_fd < 0)
		return;
	flags = fcntl(se->watch_fd, F_GETFD);
	if (flags >= 0)
		fcntl(se->watch_fd, F_SETFD, flags & ~FD_CLOEXEC);
	fr_info("auto_unmount: descriptor %d (kept across exec) is what "
		"process %d watches: the mount is unmounted once it is closed "
		"everywhere",
		se->watch_fd, (int)se->watch_pid);
	se->watch_fd = -1;
	se->watch_pid = -1;
}

void watch_end(struct fring_session *se)
{
	char b = WATCH_QUIT;
	ssize_t n;

	if (se->watch_fd < 0)
		return;
	n = send(se->watch_fd, &b, 1, MSG_NOSIGNAL);
	(void)n; /* gone already: nothing to tell */
	close(se->watch_fd);
	se->watch_fd = -1;
	if (se->via_fusermount)
		fr_info("auto_unmount: the session ended; %d (fusermount3) "
			"looks at the mount table and leaves",
			(int)se->watch_pid);
	else
		fr_info("auto_unmount: the session ended; watcher process %d "
			"leaves without touching the mount",
			(int)se->watch_pid);
	/* Our child (unless a daemonizing fork made it init's): reaped here
	 * so that it does not stay a zombie. It ends at once (fusermount3
	 * after its look at the mount table); one that does not is left to
	 * init when this process ends. */
	for (int i = 0; se->watch_pid > 0 && i < WATCH_REAP_MS / 10; i++) {
		pid_t r = waitpid(se->watch_pid, NULL, WNOHANG);

		if (r == se->watch_pid || (r < 0 && errno != EINTR))
			break;
		if (r == 0)
			usleep(10000);
	}
	se->watch_pid = -1;
}
