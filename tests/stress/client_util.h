/* SPDX-License-Identifier: MIT */
/*
 * What the stress clients share: filling and checking their files with
 * check.h's chk_pat() pattern, the count of open descriptors (a client
 * ends with as many as it started with, or it leaked one), and a stop flag
 * that SIGTERM and SIGINT set.
 */
#ifndef FRING_STRESS_CLIENT_UTIL_H
#define FRING_STRESS_CLIENT_UTIL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

/* Fills buf with len bytes of chk_pat(seed, ...) starting at offset off. */
void cu_fill(unsigned char *buf, size_t len, uint64_t seed, uint64_t off);
/* The first offset in buf (len bytes from off) that differs, or -1. */
long long cu_diff(const unsigned char *buf, size_t len, uint64_t seed,
		  uint64_t off);
/* Open descriptors of this process, or -1. */
int cu_fd_count(void);
/* Set by SIGTERM and SIGINT after cu_stop_on_signals(). */
extern volatile sig_atomic_t cu_stop;
/* Installs the handlers (no SA_RESTART: a blocked call sees EINTR). */
void cu_stop_on_signals(void);
/* Monotonic seconds. */
double cu_now(void);

#endif
