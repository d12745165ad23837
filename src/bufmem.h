/* SPDX-License-Identifier: MIT */
#ifndef FRING_BUFMEM_H
#define FRING_BUFMEM_H

#include "common.h"

/* bufmem.c: len bytes (a multiple of the page size) of zeroed anonymous
 * memory for payload buffers, 2 MiB-aligned and advised for huge pages from
 * 2 MiB on; faulted in now when `populate`, else page by page on first use;
 * NULL when it cannot be had. munmap() frees it, in one piece or
 * page-aligned parts. */
FRING_HIDDEN void *buf_map(size_t len, bool populate);

#endif
