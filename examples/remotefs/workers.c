/* SPDX-License-Identifier: MIT */
/*
 * The worker pool: the threads that talk to the "remote". A READ handler
 * hands its request here after fring_req_async() and returns at once, so
 * the queue thread goes on serving other requests while this one waits out
 * its latency; a worker answers it with fring_reply_buf() from its own
 * thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "remotefs.h"

/*
 * The file of a catalog path, or -1 and errno. The walk never leaves
 * SOURCE's filesystem (openat2 RESOLVE_NO_XDEV): a mount that came onto
 * the path since the scan, this very one bound inside SOURCE say, answers
 * ESTALE (the catalog's file is not there any more), where following it
 * would have this thread wait for a READ of its own (doc/operations.md,
 * "Hazards"). Before Linux 5.6 (no openat2), a file found on another
 * filesystem is refused the same way, before it is read; looking at it
 * (statx AT_STATX_DONT_SYNC, empty mask) asks nothing of that filesystem.
 */
static int open_remote(struct rfs_pool *pool, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC,
		.resolve = RESOLVE_NO_XDEV,
	};
	struct statx sx;
	int fd = (int)syscall(SYS_openat2, pool->rootfd, path, &how,
			      sizeof(how));

	if (fd < 0 && errno == EXDEV)
		errno = ESTALE;
	if (fd >= 0 || errno != ENOSYS)
		return fd;
	fd = openat(pool->rootfd, path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 &&
	    (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, 0, &sx) < 0 ||
	     makedev(sx.stx_dev_major, sx.stx_dev_minor) != pool->dev)) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

/* One range request, "GET path bytes=off-(off+size-1)": stateless, as over
 * HTTP, so no descriptor is kept between requests. buf grows to the
 * largest request seen (the kernel caps it at max_read). */
static void serve(struct rfs_pool *pool, struct rfs_job *job, char **buf,
		  size_t *cap)
{
	struct timespec delay = {
		.tv_sec = pool->latency_ms / 1000,
		.tv_nsec = (long)(pool->latency_ms % 1000) * 1000000,
	};
	ssize_t n = -1;
	int fd;

	nanosleep(&delay, NULL);
	if (*cap < job->size) {
		char *b = realloc(*buf, job->size);

		if (!b) {
			fring_reply_err(job->req, ENOMEM);
			return;
		}
		*buf = b;
		*cap = job->size;
	}
	fd = open_remote(pool, job->path);
	if (fd >= 0) {
		n = pread(fd, *buf, job->size, job->off);
		if (n < 0)
			n = -errno;
		close(fd);
	} else {
		n = -errno;
	}
	/* Any thread may answer; the library hands the answer to the
	 * request's queue (on the ring transports) and frees the request. */
	if (n < 0)
		fring_reply_err(job->req, (int)-n);
	else
		fring_reply_buf(job->req, *buf, (size_t)n);
}

static void *worker(void *arg)
{
	struct rfs_pool *pool = arg;
	char *buf = NULL;
	size_t cap = 0;

	for (;;) {
		struct rfs_job *job;

		pthread_mutex_lock(&pool->lock);
		while (!pool->head && !pool->stopping)
			pthread_cond_wait(&pool->more, &pool->lock);
		job = pool->head;
		if (job) {
			pool->head = job->next;
			if (!pool->head)
				pool->tail = &pool->head;
		}
		pthread_mutex_unlock(&pool->lock);
		/* Stop only once the queue is empty: every request handed
		 * over must be answered before the session is destroyed. */
		if (!job)
			break;
		serve(pool, job, &buf, &cap);
		free(job);
	}
	free(buf);
	return NULL;
}

/* Called from the init callback: after fring_main() has daemonized (a
 * fork keeps only the forking thread), before the first READ. */
int rfs_pool_start(struct rfs_pool *pool, unsigned workers)
{
	int err;

	pool->head = NULL;
	pool->tail = &pool->head;
	pool->stopping = false;
	pool->threads = calloc(workers, sizeof(*pool->threads));
	if (!pool->threads)
		return -ENOMEM;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->more, NULL);
	for (unsigned i = 0; i < workers; i++) {
		err = pthread_create(&pool->threads[i], NULL, worker, pool);
		if (err) {
			rfs_pool_stop(pool);
			return -err;
		}
		pool->nworkers = i + 1;
	}
	return 0;
}

void rfs_pool_submit(struct rfs_pool *pool, struct rfs_job *job)
{
	char *buf = NULL;
	size_t cap = 0;

	if (!pool->nworkers) { /* no threads: serve it here, slowly */
		serve(pool, job, &buf, &cap);
		free(buf);
		free(job);
		return;
	}
	job->next = NULL;
	pthread_mutex_lock(&pool->lock);
	*pool->tail = job;
	pool->tail = &job->next;
	pthread_cond_signal(&pool->more);
	pthread_mutex_unlock(&pool->lock);
}

/* From the destroy callback: the workers answer what is queued, then end. */
void rfs_pool_stop(struct rfs_pool *pool)
{
	if (!pool->threads)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stopping = true;
	pthread_cond_broadcast(&pool->more);
	pthread_mutex_unlock(&pool->lock);
	for (unsigned i = 0; i < pool->nworkers; i++)
		pthread_join(pool->threads[i], NULL);
	free(pool->threads);
	pool->threads = NULL;
	pool->nworkers = 0;
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->more);
}
