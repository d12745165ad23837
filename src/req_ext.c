/* SPDX-License-Identifier: MIT */
/*
 * Request extensions (FUSE_EXT_*): the blocks the kernel appends after the
 * last argument of a creating request (fuse_in_header.total_extlen).
 */
#include <errno.h>
#include <string.h>

#include "core.h"

/* The extension of the given type, its payload and size; NULL when absent
 * or when a header does not fit (the kernel sizes each in 8-byte units,
 * fuse_ext_size(), header included). */
static const void *ext_find(const struct fring_req *req, uint32_t type,
			    size_t *len)
{
	size_t off = 0;

	while (req->ext &&
	       req->ext_len - off >= sizeof(struct fuse_ext_header)) {
		struct fuse_ext_header xh;

		memcpy(&xh, req->ext + off, sizeof(xh));
		if (xh.size < sizeof(xh) || xh.size % 8 ||
		    xh.size > req->ext_len - off)
			return NULL;
		if (xh.type == type) {
			*len = xh.size - sizeof(xh);
			return req->ext + off + sizeof(xh);
		}
		off += xh.size;
	}
	return NULL;
}

int fring_req_supp_groups(const fring_req_t *req, int size, gid_t list[])
{
	struct fuse_supp_groups sg;
	const char *p;
	size_t len;

	if (!req || size < 0 || (size && !list))
		return -EINVAL;
	p = ext_find(req, FUSE_EXT_GROUPS, &len);
	if (!p || len < sizeof(sg))
		return 0;
	memcpy(&sg, p, sizeof(sg));
	if (sg.nr_groups > (len - sizeof(sg)) / sizeof(uint32_t))
		return 0;
	for (uint32_t i = 0; i < sg.nr_groups && i < (uint32_t)size; i++) {
		uint32_t g;

		memcpy(&g, p + sizeof(sg) + i * sizeof(g), sizeof(g));
		list[i] = (gid_t)g;
	}
	return (int)sg.nr_groups;
}
