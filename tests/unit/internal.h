/* SPDX-License-Identifier: MIT */
/* Every internal header of the library, for the unit tests and fuzzers,
 * which reach across the layers on purpose (src/ is on their include
 * path). */
#ifndef FRING_TEST_INTERNAL_H
#define FRING_TEST_INTERNAL_H

#include "bufmem.h"
#include "config.h"
#include "core.h"
#include "dev/dev.h"
#include "dispatch/dispatch.h"
#include "fdclass.h"
#include "ladder/ladder.h"
#include "opname.h"
#include "qstats.h"
#include "reply.h"
#include "req.h"
#include "ring/ring_int.h"
#include "session/mount.h"

#endif
