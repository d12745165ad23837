/* SPDX-License-Identifier: MIT */
/* Names for log lines (opname.c): opcodes and errno values. A leaf, so
 * every layer can name what it logs without depending on the dispatcher. */
#ifndef FRING_OPNAME_H
#define FRING_OPNAME_H

#include "common.h"

/* "LOOKUP"; "UNKNOWN" for an opcode it does not name */
FRING_HIDDEN const char *fring_opname(uint32_t opcode);
/* "ENOENT" for ENOENT or -ENOENT; NULL for an errno it does not name */
FRING_HIDDEN const char *fring_errno_name(int err);

#endif
