/* SPDX-License-Identifier: MIT */
/*
 * libfuse installs a copy of the kernel's FUSE protocol header as
 * <fuse_kernel.h>, and some low-level programs include it for the wire
 * structs (struct fuse_in_header and the like). libfring-fuse3 carries no
 * copy: the protocol is the kernel's, so this is the system's uapi
 * <linux/fuse.h> (from the kernel headers package) under libfuse's name.
 * Its FUSE_KERNEL_MINOR_VERSION is therefore the installed kernel
 * headers', which may be older than libfuse 3.18's 7.45.
 *
 * The few macros both this header and <fuse_lowlevel.h> define
 * (FUSE_ROOT_ID, FUSE_IOCTL_*) are spelled identically in both, so the two
 * can be included together.
 */
#ifndef FUSE_KERNEL_H_
#define FUSE_KERNEL_H_

#include <linux/fuse.h>

#endif /* FUSE_KERNEL_H_ */
