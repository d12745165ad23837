/* SPDX-License-Identifier: MIT */
/*
 * Request extensions (FUSE_EXT_*): the blocks the kernel appends after the
 * last argument of a creating request (fuse_in_header.total_extlen): the
 * security context (get_security_context(): a fuse_secctx_header whose
 * size and count are an extension header of type 0..31) and the
 * supplementary group (get_create_supp_group()).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "core.h"

/* The extension of the given type, its payload and size; NULL when absent
 * or when a header does not fit (the kernel sizes each in 8-byte units,
 * fuse_ext_size(), header included). */
static const void *ext_find(const struct fring_req *req, uint32_t type,
			    size_t *len)
{
	size_t off = 0;
	/* types 0..FUSE_MAX_NR_SECCTX: a security context block, whose
	 * header's second word is its count of contexts */
	bool secctx = type == FUSE_MAX_NR_SECCTX;

	while (req->ext &&
	       req->ext_len - off >= sizeof(struct fuse_ext_header)) {
		struct fuse_ext_header xh;

		memcpy(&xh, req->ext + off, sizeof(xh));
		if (xh.size < sizeof(xh) || xh.size % 8 ||
		    xh.size > req->ext_len - off)
			return NULL;
		if (secctx ? xh.type <= FUSE_MAX_NR_SECCTX : xh.type == type) {
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

/*
 * The kernel's layout (fs/fuse/dir.c, get_security_context()): after the
 * header, per context a struct fuse_secctx (the value's size), the name
 * with its NUL, the value; the whole padded to 8 bytes. It sends one
 * context at most (none when no LSM labels the new inode).
 */
int fring_req_secctx(const fring_req_t *req, const char **name,
		     const void **value, size_t *size)
{
	struct fuse_secctx_header sh;
	struct fuse_secctx sc;
	const char *p, *nul;
	size_t len, left;

	if (name)
		*name = NULL;
	if (value)
		*value = NULL;
	if (size)
		*size = 0;
	if (!req)
		return -EINVAL;
	/* ext_find() returns what follows the 8-byte header */
	p = ext_find(req, FUSE_MAX_NR_SECCTX, &len);
	if (!p)
		return 0;
	memcpy(&sh, p - sizeof(sh), sizeof(sh));
	if (sh.nr_secctx == 0)
		return 0;
	if (len < sizeof(sc))
		return -EPROTO;
	memcpy(&sc, p, sizeof(sc));
	p += sizeof(sc);
	left = len - sizeof(sc);
	nul = memchr(p, '\0', left);
	if (!nul || nul == p)
		return -EPROTO;
	left -= (size_t)(nul + 1 - p);
	if (sc.size > left)
		return -EPROTO;
	if (name)
		*name = p;
	if (value)
		*value = nul + 1;
	if (size)
		*size = sc.size;
	return 1;
}
