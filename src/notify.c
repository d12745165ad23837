/* SPDX-License-Identifier: MIT */
/*
 * Notifications: messages the server sends the kernel unasked (unique 0,
 * the notify code in `error`), and the bookkeeping two of them need: the
 * cookie of a retrieve until its NOTIFY_REPLY arrives, and poll handles.
 *
 * They are written to the session's /dev/fuse fd on every transport: the
 * kernel takes notifications only there (fuse_dev_do_write(); a ring commit
 * with unique 0 fails that entry's request: doc/kernel-protocol.md,
 * "Notifications"). One writev(2) is one message, so any number of threads
 * may notify at once without a lock.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "reply.h"

/* The ABI minor each notification appeared in (fs/fuse/notify.c). */
enum {
	MINOR_STORE = 15, /* store and retrieve */
	MINOR_DELETE = 18,
	MINOR_EXPIRE_ONLY = 38,
	MINOR_RESEND = 40,
	MINOR_INC_EPOCH = 44,
	MINOR_PRUNE = 45,
};

/*
 * Retrieve ids live at bit 62 and up, far above the kernel's own uniques
 * (even numbers counting from 0) and below FUSE_UNIQUE_RESEND (bit 63): on
 * the ring the commit of the NOTIFY_REPLY is looked up by this id in the
 * queue's table of requests in flight (fuse_uring_commit_fetch()), so it
 * must never equal a live kernel unique. Even, as every unique.
 */
#define RETRIEVE_ID_BASE (1ULL << 62)

#ifndef IOV_MAX
#define IOV_MAX 1024 /* UIO_MAXIOV: writev(2) takes no more */
#endif

struct retrieve_wait {
	uint64_t id;
	void *cookie;
	struct retrieve_wait *next;
};

struct fring_pollhandle {
	struct fring_session *se;
	uint64_t kh;
};

/*
 * A dead /dev/fuse fd polls POLLERR (fuse_dev_poll()). Asked before each
 * notification: kernels before 7.3 still act on one after the connection
 * was aborted (6.18: ENOENT, or 0 for resend and inc_epoch), and 7.3
 * answers EINVAL, the errno of a store to a directory too.
 */
static int conn_gone(int fd)
{
	struct pollfd p = {fd, 0, 0};

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLNVAL));
}

/* iov[0] is left for the header. */
static int notify_send(struct fring_session *se, int code, unsigned min_minor,
		       struct iovec *iov, int cnt)
{
	struct fuse_out_header oh = {.error = code};
	size_t len = sizeof(oh);
	ssize_t n;

	if (!se)
		return -EINVAL;
	if (!atomic_load(&se->notify_ready) || se->fd < 0 || conn_gone(se->fd))
		return -ENOTCONN;
	if (se->conn.proto_minor < min_minor)
		return -ENOSYS;
	iov[0].iov_base = &oh;
	iov[0].iov_len = sizeof(oh);
	for (int i = 1; i < cnt; i++)
		len += iov[i].iov_len;
	if (len > UINT32_MAX)
		return -E2BIG;
	oh.len = (uint32_t)len;
	do {
		n = writev(se->fd, iov, cnt);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = errno;

		if (err == ENODEV || err == ECONNABORTED ||
		    (err == EINVAL && conn_gone(se->fd)))
			return -ENOTCONN;
		return -err;
	}
	return (size_t)n == len ? 0 : -EIO;
}

int fring_notify_inval_inode(fring_session_t *se, fring_ino_t ino, off_t off,
			     off_t len)
{
	struct fuse_notify_inval_inode_out o = {
		.ino = ino, .off = off, .len = len};
	struct iovec iov[2] = {{0}, {&o, sizeof(o)}};

	return notify_send(se, FUSE_NOTIFY_INVAL_INODE, 0, iov, 2);
}

/* A message whose header is followed by a name: the kernel reads the name
 * with its NUL (fuse_notify_inval_entry(), fuse_notify_delete()). */
static int notify_named(fring_session_t *se, int code, unsigned min_minor,
			void *out, size_t outlen, const char *name,
			size_t namelen)
{
	struct iovec iov[4] = {
		{0}, {out, outlen}, {(void *)name, namelen}, {"", 1}};

	if (!name)
		return -EINVAL;
	if (namelen > UINT32_MAX)
		return -ENAMETOOLONG;
	return notify_send(se, code, min_minor, iov, 4);
}

static int inval_entry(fring_session_t *se, fring_ino_t parent,
		       const char *name, size_t namelen, uint32_t flags,
		       unsigned min_minor)
{
	struct fuse_notify_inval_entry_out o = {
		.parent = parent, .namelen = (uint32_t)namelen, .flags = flags};

	return notify_named(se, FUSE_NOTIFY_INVAL_ENTRY, min_minor, &o,
			    sizeof(o), name, namelen);
}

int fring_notify_inval_entry(fring_session_t *se, fring_ino_t parent,
			     const char *name, size_t namelen)
{
	return inval_entry(se, parent, name, namelen, 0, 0);
}

int fring_notify_expire_entry(fring_session_t *se, fring_ino_t parent,
			      const char *name, size_t namelen)
{
	return inval_entry(se, parent, name, namelen, FUSE_EXPIRE_ONLY,
			   MINOR_EXPIRE_ONLY);
}

int fring_notify_delete(fring_session_t *se, fring_ino_t parent,
			fring_ino_t child, const char *name, size_t namelen)
{
	struct fuse_notify_delete_out o = {
		.parent = parent, .child = child, .namelen = (uint32_t)namelen};

	return notify_named(se, FUSE_NOTIFY_DELETE, MINOR_DELETE, &o, sizeof(o),
			    name, namelen);
}

int fring_notify_store_iov(fring_session_t *se, fring_ino_t ino, off_t off,
			   const struct iovec *data, int cnt)
{
	struct fuse_notify_store_out o = {.nodeid = ino,
					  .offset = (uint64_t)off};
	struct iovec stack[16], *iov = stack;
	size_t size = 0;
	int ret;

	if (off < 0 || cnt < 0 || (cnt && !data) || cnt > IOV_MAX - 2)
		return -EINVAL;
	for (int i = 0; i < cnt; i++)
		size += data[i].iov_len;
	if (size > UINT32_MAX)
		return -E2BIG;
	o.size = (uint32_t)size;
	if (cnt + 2 > (int)FRING_ARRAY_SIZE(stack)) {
		iov = calloc((size_t)cnt + 2, sizeof(*iov));
		if (!iov)
			return -ENOMEM;
	}
	iov[1] = (struct iovec){&o, sizeof(o)};
	if (cnt)
		memcpy(iov + 2, data, (size_t)cnt * sizeof(*iov));
	ret = notify_send(se, FUSE_NOTIFY_STORE, MINOR_STORE, iov, cnt + 2);
	if (iov != stack)
		free(iov);
	return ret;
}

int fring_notify_store(fring_session_t *se, fring_ino_t ino, off_t off,
		       const void *data, size_t size)
{
	struct iovec d = {(void *)data, size};

	if (size && !data)
		return -EINVAL;
	return fring_notify_store_iov(se, ino, off, &d, 1);
}

int fring_session_set_retrieve_reply(fring_session_t *se,
				     fring_retrieve_reply_fn fn)
{
	if (!se)
		return -EINVAL;
	atomic_store(&se->retrieve_reply, fn);
	return 0;
}

int fring_notify_retrieve_range(fring_session_t *se, fring_ino_t ino,
				struct fring_range range, void *cookie)
{
	off_t off = range.off;
	size_t size = range.size;
	struct fuse_notify_retrieve_out o = {
		.nodeid = ino, .offset = (uint64_t)off, .size = (uint32_t)size};
	struct iovec iov[2] = {{0}, {&o, sizeof(o)}};
	struct retrieve_wait *w, **pp;
	int ret;

	if (!se || off < 0 || size > UINT32_MAX)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->cookie = cookie;
	/* Listed before the write: the reply may be served before it
	 * returns. */
	pthread_mutex_lock(&se->lock);
	w->id = RETRIEVE_ID_BASE + 2 * ++se->retrieve_seq;
	w->next = se->retrieves;
	se->retrieves = w;
	pthread_mutex_unlock(&se->lock);
	o.notify_unique = w->id;
	ret = notify_send(se, FUSE_NOTIFY_RETRIEVE, MINOR_STORE, iov, 2);
	if (ret == 0)
		return 0;
	pthread_mutex_lock(&se->lock);
	for (pp = &se->retrieves; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&se->lock);
	free(w);
	return ret;
}

/* 0.1.0's (off, size): for the programs built against it; the header makes
 * the name a compile-time error for programs built now. */
int(fring_notify_retrieve)(fring_session_t *se, fring_ino_t ino, off_t off,
			   size_t size, void *cookie)
{
	return fring_notify_retrieve_range(
		se, ino, (struct fring_range){.off = off, .size = size},
		cookie);
}

bool notify_take_retrieve(struct fring_session *se, uint64_t id, void **cookie)
{
	struct retrieve_wait *w = NULL, **pp;

	pthread_mutex_lock(&se->lock);
	for (pp = &se->retrieves; *pp; pp = &(*pp)->next) {
		if ((*pp)->id == id) {
			w = *pp;
			*pp = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&se->lock);
	if (!w)
		return false;
	*cookie = w->cookie;
	free(w);
	return true;
}

void notify_free(struct fring_session *se)
{
	while (se->retrieves) {
		struct retrieve_wait *w = se->retrieves;

		se->retrieves = w->next;
		free(w);
	}
}

fring_pollhandle_t *fring_req_pollhandle(fring_req_t *req)
{
	struct fring_pollhandle *ph;

	if (!req || req->opcode != FUSE_POLL || !req->poll_kh)
		return NULL;
	ph = malloc(sizeof(*ph));
	if (ph) {
		ph->se = req->se;
		ph->kh = req->poll_kh;
	}
	return ph;
}

int fring_notify_poll(fring_pollhandle_t *ph)
{
	struct fuse_notify_poll_wakeup_out o;
	struct iovec iov[2] = {{0}, {&o, sizeof(o)}};

	if (!ph)
		return -EINVAL;
	o.kh = ph->kh;
	return notify_send(ph->se, FUSE_NOTIFY_POLL, 0, iov, 2);
}

void fring_pollhandle_destroy(fring_pollhandle_t *ph)
{
	free(ph);
}

int fring_notify_resend(fring_session_t *se)
{
	struct iovec iov[1];

	return notify_send(se, FUSE_NOTIFY_RESEND, MINOR_RESEND, iov, 1);
}

int fring_notify_inc_epoch(fring_session_t *se)
{
	struct iovec iov[1];

	return notify_send(se, FUSE_NOTIFY_INC_EPOCH, MINOR_INC_EPOCH, iov, 1);
}

int fring_notify_prune(fring_session_t *se, const fring_ino_t *inos,
		       size_t count)
{
	struct fuse_notify_prune_out o = {.count = (uint32_t)count};
	struct iovec iov[3] = {
		{0}, {&o, sizeof(o)}, {(void *)inos, count * sizeof(*inos)}};

	if ((count && !inos) || count > UINT32_MAX / sizeof(*inos))
		return -EINVAL;
	return notify_send(se, FUSE_NOTIFY_PRUNE, MINOR_PRUNE, iov, 3);
}
