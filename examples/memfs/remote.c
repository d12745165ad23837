/* SPDX-License-Identifier: MIT */
/*
 * -o remote=FIFO: changes made "by another host", as a network filesystem
 * learns of them, and the notifications that keep the kernel's caches true.
 *
 * memfs creates FIFO and a thread reads commands from it, one a line:
 *	write PATH OFFSET TEXT   new bytes in a file; notify inval_inode
 *	store PATH OFFSET TEXT   the same; notify store (the new bytes go
 *	                         straight into the kernel's page cache)
 *	rename PATH NEWNAME      a new name in the same directory; notify
 *	                         inval_entry for both names
 *	unlink PATH              the name goes; notify delete
 * PATH is from the root of the filesystem ("/dir/file"). "quiet " before a
 * command makes the change without notifying: the client then sees the old
 * state for as long as the kernel may cache it (entry_timeout,
 * attr_timeout, and pages kept across opens). Each command ends with one
 * line on stderr, "memfs: remote: COMMAND: RESULT".
 *
 * Names are checked as the kernel's path walk would have them: a NEWNAME
 * with '/' once made a directory unreadable (EIO) and ".." a second ".."
 * in a listing. So a name is 1..255 bytes with no '/' and is not "." or
 * "..", PATH's components the same (empty ones, from "//", are skipped as
 * the kernel does), and a line with a NUL byte or longer than
 * REMOTE_LINE_MAX is refused whole rather than cut into commands.
 *
 * The notifications are sent with fs->ns released: inval_entry and delete
 * take the directory's lock in the kernel, which a LOOKUP waiting for
 * fs->ns may hold (doc/kernel-protocol.md, "Notifications").
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memfs.h"

#define REMOTE_LINE_MAX 8192

struct change {
	fring_ino_t parent, ino;
	const char *name;  /* the changed name (rename: the old one) */
	const char *name2; /* rename: the new name */
};

/* Why name cannot be one name of a directory, or NULL if it can. */
static const char *name_problem(const char *name)
{
	size_t len = strlen(name);

	if (len == 0)
		return "a name is not empty";
	if (len > MEMFS_NAME_MAX)
		return "a name is at most 255 bytes";
	if (strchr(name, '/'))
		return "a name has no '/'";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "a name is not . or ..";
	return NULL;
}

/* Why path cannot name a file from the root, or NULL if it can. */
static const char *path_problem(const char *path)
{
	const char *p = path, *why;
	char part[MEMFS_NAME_MAX + 2];

	if (*p != '/')
		return "PATH starts with /";
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len) {
			if (len > MEMFS_NAME_MAX)
				return "a name is at most 255 bytes";
			memcpy(part, p, len);
			part[len] = '\0';
			if ((why = name_problem(part)))
				return why;
		}
		p += len;
		p += *p == '/';
	}
	return NULL;
}

/* The directory holding PATH's last component, and that component; fs->ns
 * held. */
static struct memfs_inode *walk(struct memfs *fs, char *path, char **leaf)
{
	struct memfs_inode *dir = inode_get(fs, FRING_ROOT_INO);
	char *save = NULL, *next, *part = strtok_r(path, "/", &save);

	while (part && (next = strtok_r(NULL, "/", &save))) {
		struct memfs_dirent *e = dir_find(dir->dir, part);

		if (!e || !S_ISDIR(e->inode->type))
			return NULL;
		dir = e->inode;
		part = next;
	}
	*leaf = part;
	return part ? dir : NULL;
}

static int change_data(struct memfs *fs, struct memfs_inode *n, off_t off,
		       const char *text)
{
	int err;

	if (!S_ISREG(n->type))
		return EISDIR;
	pthread_mutex_lock(&n->lock);
	/* charged against -o size like a client's write */
	err = data_pwrite_locked(fs, n, text, strlen(text), off);
	if (!err)
		touch_mc(n);
	pthread_mutex_unlock(&n->lock);
	return err;
}

static int change_name(struct memfs_inode *dir, struct memfs_dirent *e,
		       const char *newname)
{
	struct memfs_dirent *ne;

	if (dir_find(dir->dir, newname))
		return EEXIST;
	ne = dirent_new(newname);
	if (!ne || dir_reserve(dir->dir)) {
		free(ne);
		return ENOMEM;
	}
	dir_add(dir->dir, ne, e->inode);
	pthread_mutex_lock(&e->inode->lock);
	touch_c(e->inode);
	pthread_mutex_unlock(&e->inode->lock);
	dir_del(dir->dir, e);
	pthread_mutex_lock(&dir->lock);
	touch_mc(dir);
	pthread_mutex_unlock(&dir->lock);
	return 0;
}

/* Makes the change under fs->ns; fills ch for the notification. */
static int apply(struct memfs *fs, const char *cmd, char *path, char *arg,
		 char *text, struct change *ch)
{
	struct memfs_inode *dir;
	struct memfs_dirent *e;
	char *leaf;
	int err;

	pthread_rwlock_wrlock(&fs->ns);
	dir = walk(fs, path, &leaf);
	e = dir ? dir_find(dir->dir, leaf) : NULL;
	if (!e) {
		err = ENOENT;
		goto out;
	}
	ch->parent = dir->ino;
	ch->ino = e->inode->ino;
	ch->name = leaf;
	if (!strcmp(cmd, "write") || !strcmp(cmd, "store")) {
		char *end;
		long long off = arg ? strtoll(arg, &end, 10) : -1;

		err = off < 0 || *end || !text
			      ? EINVAL
			      : change_data(fs, e->inode, (off_t)off, text);
	} else if (!strcmp(cmd, "rename")) {
		err = arg ? change_name(dir, e, arg) : EINVAL;
		ch->name2 = arg;
	} else if (!strcmp(cmd, "unlink")) {
		err = S_ISDIR(e->inode->type) ? EISDIR : 0;
		if (!err)
			entry_remove(fs, dir, e);
	} else {
		err = EINVAL;
	}
out:
	pthread_rwlock_unlock(&fs->ns);
	return err;
}

/* The notification for a change made; 0 or a negative errno. */
static int notify(struct memfs *fs, const char *cmd, const struct change *ch,
		  off_t off, const char *text)
{
	fring_session_t *se = fs->se;
	int ret;

	if (!strcmp(cmd, "write"))
		return fring_notify_inval_inode(se, ch->ino, 0, 0);
	if (!strcmp(cmd, "store"))
		return fring_notify_store(se, ch->ino, off, text, strlen(text));
	if (!strcmp(cmd, "unlink"))
		return fring_notify_delete(se, ch->parent, ch->ino, ch->name,
					   strlen(ch->name));
	/* rename: the old name goes, and the new one may be cached as
	 * absent (negative_timeout); -ENOENT means "not cached": fine */
	ret = fring_notify_inval_entry(se, ch->parent, ch->name,
				       strlen(ch->name));
	if (ret == 0 || ret == -ENOENT)
		ret = fring_notify_inval_entry(se, ch->parent, ch->name2,
					       strlen(ch->name2));
	return ret == -ENOENT ? 0 : ret;
}

/* Why the command cannot be carried out as written, or NULL. */
static const char *command_problem(const char *cmd, const char *path,
				   const char *arg, const char *text)
{
	const char *why = path_problem(path);
	char *end;

	if (why)
		return why;
	if (!strcmp(cmd, "write") || !strcmp(cmd, "store")) {
		if (!arg || !text)
			return "write and store take PATH OFFSET TEXT";
		errno = 0;
		if (*arg < '0' || *arg > '9' || strtoll(arg, &end, 10) < 0 ||
		    errno || *end)
			return "OFFSET is a number of bytes, 0 or more";
		return NULL;
	}
	if (!strcmp(cmd, "rename")) {
		if (!arg || text)
			return "rename takes PATH NEWNAME";
		return name_problem(arg);
	}
	if (!strcmp(cmd, "unlink"))
		return arg ? "unlink takes PATH" : NULL;
	return "commands are write, store, rename and unlink";
}

static void command(struct memfs *fs, char *line)
{
	char *save = NULL, *cmd, *path, *arg, *text = NULL, copy[1024];
	struct change ch = {0};
	bool quiet = false;
	const char *why;
	int err, ret = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	cmd = strtok_r(line, " ", &save);
	if (cmd && !strcmp(cmd, "quiet")) {
		quiet = true;
		cmd = strtok_r(NULL, " ", &save);
	}
	path = strtok_r(NULL, " ", &save);
	arg = strtok_r(NULL, " ", &save);
	if (arg)
		text = strtok_r(NULL, "", &save); /* the rest, spaces and all */
	if (!cmd || !path) {
		fring_log_msg(FRING_LOG_WARN, "memfs: remote: %s: bad command",
			      copy);
		return;
	}
	why = command_problem(cmd, path, arg, text);
	if (why) {
		fring_log_msg(FRING_LOG_WARN, "memfs: remote: %s: refused: %s",
			      copy, why);
		return;
	}
	err = apply(fs, cmd, path, arg, text, &ch);
	if (!err && !quiet)
		ret = notify(fs, cmd, &ch, arg ? atoll(arg) : 0, text);
	fring_log_msg(FRING_LOG_INFO, "memfs: remote: %s: %s%s%s", copy,
		      err ? strerror(err) : "done",
		      quiet || err ? "" : ", notified: ",
		      quiet || err ? ""
		      : ret	   ? strerror(-ret)
				   : "ok");
}

static void *remote_thread(void *arg)
{
	struct memfs *fs = arg;
	/* read and write: the FIFO never reads EOF when writers come and go */
	FILE *f = fopen(fs->opt.remote, "r+");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f) {
		fring_log_msg(FRING_LOG_ERR, "memfs: remote: %s: %s",
			      fs->opt.remote, strerror(errno));
		return NULL;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (memchr(line, '\0', (size_t)len))
			fring_log_msg(FRING_LOG_WARN,
				      "memfs: remote: a line with a NUL byte "
				      "refused");
		else if (len > REMOTE_LINE_MAX)
			fring_log_msg(FRING_LOG_WARN,
				      "memfs: remote: a line of %zd bytes "
				      "refused (at most %d)",
				      len, REMOTE_LINE_MAX);
		else if (len)
			command(fs, line);
	}
	free(line);
	fclose(f);
	return NULL;
}

/*
 * Before the mount: the FIFO is made now, while its path still resolves
 * in the filesystem below the mountpoint. One inside the mountpoint is
 * refused: the mount would hide it, and a path walk into the mount before
 * it serves (the ready hook's) waits on memfs itself for ever.
 */
int remote_check(struct memfs *fs, const char *mountpoint)
{
	char *copy = strdup(fs->opt.remote), *dir, mnt[PATH_MAX],
	     where[PATH_MAX];
	struct stat st;
	size_t n;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (!realpath(dir, where)) {
		err = -errno;
		fprintf(stderr, "memfs: -o remote=%s: %s: %s\n", fs->opt.remote,
			dir, strerror(errno));
	} else if (mountpoint && realpath(mountpoint, mnt) &&
		   (n = strlen(mnt),
		    !strncmp(where, mnt, n) &&
			    (where[n] == '/' || !where[n] || n == 1))) {
		err = -EINVAL;
		fprintf(stderr,
			"memfs: -o remote=%s: the FIFO is inside the "
			"mountpoint "
			"%s: the mount would hide it (and memfs would wait on "
			"itself); give a path outside it\n",
			fs->opt.remote, mnt);
	} else if (mkfifo(fs->opt.remote, 0600) && errno != EEXIST) {
		err = -errno;
		fprintf(stderr, "memfs: -o remote=%s: %s\n", fs->opt.remote,
			strerror(errno));
	} else if (lstat(fs->opt.remote, &st) || !S_ISFIFO(st.st_mode)) {
		err = -EEXIST;
		fprintf(stderr, "memfs: -o remote=%s: not a FIFO\n",
			fs->opt.remote);
	}
	free(copy);
	return err;
}

int remote_start(struct memfs *fs, fring_session_t *se)
{
	pthread_t th;
	int err;

	/* the FIFO is there: remote_check() made it before the mount */
	fs->se = se;
	err = pthread_create(&th, NULL, remote_thread, fs);
	if (err)
		return -err;
	pthread_detach(th);
	return 0;
}
