/* SPDX-License-Identifier: MIT */
/*
 * libfring-fuse3 provides libfuse's low-level FUSE API only: CUSE
 * (character devices in userspace, cuse_lowlevel_*) is not part of it, as
 * libfring serves FUSE mounts only. A program that includes this file
 * stops here with the reason.
 */
#ifndef CUSE_LOWLEVEL_H_
#define CUSE_LOWLEVEL_H_

#error "libfring-fuse3 implements libfuse's low-level API only (fuse_lowlevel.h); CUSE (cuse_lowlevel.h) is not provided: use libfuse for character devices"

#endif /* CUSE_LOWLEVEL_H_ */
