/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the in-process test servers (a libfring session and its
 * client in one program): serving on a thread, the library's counters,
 * a mount on a given rung, checked.
 */
#ifndef FRING_E2E_SRV_H
#define FRING_E2E_SRV_H

#include <pthread.h>
#include <stdint.h>

#include <fring/fring.h>

/* fring_session_run(se) as a thread's function; its result as the
 * thread's value. */
void *srv_run(void *se);
/* A counter of every queue together (fring_session_counter()); 0 when
 * the name is unknown. */
uint64_t srv_counter(fring_session_t *se, const char *name);
/*
 * Mounts ops at the directory mnt with transport= and the options opts
 * (NULL: none), serves on *th, and checks ("transport") that the rung
 * asked for is the one that runs. 0, or 1 after printing why it could
 * not mount (nothing to clean up then).
 */
int srv_start(const char *transport, const char *opts,
	      const struct fring_ops *ops, size_t ops_size, const char *mnt,
	      fring_session_t **se, pthread_t *th);
/* The end of a test: no handler bug counted ("no_handler_bugs"), the
 * session told to exit, its thread joined ("run_returns_0"), destroyed. */
void srv_stop(fring_session_t *se, pthread_t th);

#endif
