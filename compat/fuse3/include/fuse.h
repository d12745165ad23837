/* SPDX-License-Identifier: MIT */
/*
 * libfring-fuse3 provides libfuse's low-level API only. libfuse's
 * high-level, path-based API (struct fuse_operations, fuse_main) is not
 * part of it; a program that includes this file stops here with the
 * reason rather than failing later on missing declarations.
 */
#ifndef FUSE_H_
#define FUSE_H_

#error "libfring-fuse3 implements libfuse's low-level API only (fuse_lowlevel.h); the high-level path API (fuse.h) is not provided: port to fuse_lowlevel.h or use libfuse"

#endif /* FUSE_H_ */
