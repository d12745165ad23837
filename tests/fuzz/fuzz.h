/* SPDX-License-Identifier: MIT */
/* What the fuzz targets share: their input layout and the checks. */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_input.h"

/* libFuzzer's entry points */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failed check: each target says what failed (and in which context),
 * then abort()s, which libFuzzer reports as a crash with the input. */
void fz_check_failed(const char *what, int line);
#define FZ_CHECK(c)                                                            \
	do {                                                                   \
		if (!(c))                                                      \
			fz_check_failed(#c, __LINE__);                         \
	} while (0)

static inline uint32_t fz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#endif
