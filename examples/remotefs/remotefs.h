/* SPDX-License-Identifier: MIT */
/*
 * remotefs: a read-only filesystem whose file data is "remote". The names
 * and attributes (the catalog) are fetched once at start, as a client of a
 * remote store would fetch a manifest; every READ is a slow range request
 * served by a pool of worker threads, which answer it asynchronously.
 */
#ifndef REMOTEFS_H
#define REMOTEFS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <fring/fring.h>

/* One file or directory of the catalog; its inode number is its index + 1,
 * so the root (index 0) is FRING_ROOT_INO. Never changes after the scan, so
 * queue threads read it without locks. */
struct rfs_node {
	char *name;
	char *path; /* relative to SOURCE: what a worker asks the "remote" */
	struct stat st;
	uint32_t parent, first_child, next_sibling; /* indexes; 0 = none */
};

struct rfs_catalog {
	struct rfs_node *nodes;
	uint32_t count, cap;
};

int rfs_catalog_scan(struct rfs_catalog *cat, int rootfd);
void rfs_catalog_free(struct rfs_catalog *cat);
const struct rfs_node *rfs_node_get(const struct rfs_catalog *cat,
				    fring_ino_t ino);
fring_ino_t rfs_node_ino(const struct rfs_catalog *cat,
			 const struct rfs_node *n);
const struct rfs_node *rfs_child(const struct rfs_catalog *cat,
				 const struct rfs_node *dir, const char *name);

/* A READ waiting for a worker: a range request for path. */
struct rfs_job {
	fring_req_t *req;
	const char *path;
	off_t off;
	size_t size;
	struct rfs_job *next;
};

struct rfs_pool {
	int rootfd;	     /* the "remote": SOURCE */
	dev_t dev;	     /* its filesystem, the only one read */
	unsigned latency_ms; /* added to every request, as a network would */
	unsigned nworkers;   /* 0 until started: then jobs run inline */
	pthread_t *threads;
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct rfs_job *head, **tail;
	bool stopping;
};

int rfs_pool_start(struct rfs_pool *pool, unsigned workers);
void rfs_pool_submit(struct rfs_pool *pool, struct rfs_job *job);
void rfs_pool_stop(struct rfs_pool *pool);

#endif
