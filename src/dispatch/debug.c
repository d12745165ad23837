/* SPDX-License-Identifier: MIT */
/*
 * The -d (debug) line of a request, with what identifies it (the name a
 * LOOKUP, CREATE, MKDIR, UNLINK, RENAME... carries, the offset and size of
 * a READ or WRITE); its answer's line is reply.c's. Reached only when
 * debug is on (one branch on the hot path); the request is decoded from a
 * copy of the cursor, so the handler sees it untouched.
 *
 * Names come from the kernel as the client gave them: anything outside
 * printable ASCII (a newline would forge a log line) is written as \xNN.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "handlers.h"

#define NAME_SHOWN 255 /* a symlink target may be longer: cut, with "..." */

struct line {
	char b[900];
	size_t o;
};

static void add(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->o >= sizeof(l->b))
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->b + l->o, sizeof(l->b) - l->o, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->o += (size_t)n;
}

static void add_name(struct line *l, const char *label, const char *s)
{
	size_t i;

	if (!s) {
		add(l, " %s (not NUL-terminated)", label);
		return;
	}
	add(l, " %s \"", label);
	for (i = 0; s[i] && i < NAME_SHOWN; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			add(l, "\\x%02x", c);
		else
			add(l, "%c", c);
	}
	add(l, "\"%s", s[i] ? "..." : "");
}

/* What identifies the request, decoded as its handler will decode it. */
static void details(struct line *l, const struct fring_req *req,
		    struct fring_msg *m)
{
	const uint32_t minor = req->se->conn.proto_minor;

	switch (req->opcode) {
	case FUSE_LOOKUP:
	case FUSE_UNLINK:
	case FUSE_RMDIR:
	case FUSE_REMOVEXATTR:
		add_name(l, "name", take_str(m));
		break;
	case FUSE_MKDIR: {
		const struct fuse_mkdir_in *in = take_arg0(m, sizeof(*in));

		if (in)
			add(l, " mode 0%o", in->mode);
		add_name(l, "name", in ? take_str(m) : NULL);
		break;
	}
	case FUSE_MKNOD: {
		const struct fuse_mknod_in *in =
			take_arg0(m, minor >= 12 ? sizeof(*in) : 8);

		if (in)
			add(l, " mode 0%o rdev 0x%x", in->mode, in->rdev);
		add_name(l, "name", in ? take_str(m) : NULL);
		break;
	}
	case FUSE_CREATE:
	case FUSE_TMPFILE: {
		const struct fuse_create_in *in =
			take_arg0(m, minor >= 12 ? sizeof(*in) : 8);

		if (in)
			add(l, " flags 0%o mode 0%o", in->flags, in->mode);
		if (req->opcode == FUSE_CREATE)
			add_name(l, "name", in ? take_str(m) : NULL);
		break;
	}
	case FUSE_SYMLINK: {
		const char *name = take_str(m);

		add_name(l, "name", name);
		add_name(l, "target", name ? take_str(m) : NULL);
		break;
	}
	case FUSE_LINK: {
		const struct fuse_link_in *in = take_arg0(m, sizeof(*in));

		if (in)
			add(l, " oldnodeid %" PRIu64, in->oldnodeid);
		add_name(l, "name", in ? take_str(m) : NULL);
		break;
	}
	case FUSE_RENAME:
	case FUSE_RENAME2: {
		const struct fuse_rename2_in *in =
			take_arg0(m, req->opcode == FUSE_RENAME2
					     ? sizeof(*in)
					     : sizeof(struct fuse_rename_in));
		const char *name = in ? take_str(m) : NULL;

		add_name(l, "name", name);
		if (in)
			add(l, " newdir %" PRIu64, in->newdir);
		add_name(l, "newname", name ? take_str(m) : NULL);
		if (in && req->opcode == FUSE_RENAME2 && in->flags)
			add(l, " flags 0x%x", in->flags);
		break;
	}
	case FUSE_READ:
	case FUSE_READDIR:
	case FUSE_READDIRPLUS: {
		const struct fuse_read_in *in = take_arg0(m, sizeof(*in));

		if (in)
			add(l, " fh %" PRIu64 " offset %" PRIu64 " size %u",
			    in->fh, in->offset, in->size);
		break;
	}
	case FUSE_WRITE: {
		const struct fuse_write_in *in =
			take_arg0(m, minor >= 9 ? sizeof(*in)
						: FUSE_COMPAT_WRITE_IN_SIZE);

		if (in)
			add(l, " fh %" PRIu64 " offset %" PRIu64 " size %u",
			    in->fh, in->offset, in->size);
		break;
	}
	case FUSE_SETXATTR: {
		const struct fuse_setxattr_in *in =
			take_arg0(m, req->se->setxattr_ext
					     ? sizeof(*in)
					     : FUSE_COMPAT_SETXATTR_IN_SIZE);

		add_name(l, "name", in ? take_str(m) : NULL);
		if (in)
			add(l, " size %u flags 0x%x", in->size, in->flags);
		break;
	}
	case FUSE_GETXATTR:
	case FUSE_LISTXATTR: {
		const struct fuse_getxattr_in *in = take_arg0(m, sizeof(*in));

		if (in && req->opcode == FUSE_GETXATTR)
			add_name(l, "name", take_str(m));
		if (in)
			add(l, " size %u", in->size);
		break;
	}
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		const struct fuse_open_in *in = take_arg0(m, sizeof(*in));

		if (in)
			add(l, " flags 0%o", in->flags);
		break;
	}
	case FUSE_FALLOCATE: {
		const struct fuse_fallocate_in *in = take_arg0(m, sizeof(*in));

		if (in)
			add(l,
			    " fh %" PRIu64 " offset %" PRIu64 " length %" PRIu64
			    " mode 0x%x",
			    in->fh, in->offset, in->length, in->mode);
		break;
	}
	case FUSE_LSEEK: {
		const struct fuse_lseek_in *in = take_arg0(m, sizeof(*in));

		if (in)
			add(l, " fh %" PRIu64 " offset %" PRIu64 " whence %u",
			    in->fh, in->offset, in->whence);
		break;
	}
	case FUSE_SETATTR: {
		const struct fuse_setattr_in *in = take_arg0(m, sizeof(*in));

		if (in)
			add(l, " valid 0x%x", in->valid);
		if (in && (in->valid & FATTR_SIZE))
			add(l, " size %" PRIu64, in->size);
		break;
	}
	case FUSE_FORGET: {
		const struct fuse_forget_in *in = take_arg0(m, sizeof(*in));

		if (in)
			add(l, " nlookup %" PRIu64, in->nlookup);
		break;
	}
	case FUSE_INTERRUPT: {
		const struct fuse_interrupt_in *in = take_arg0(m, sizeof(*in));

		if (in)
			add(l, " of unique %" PRIu64, in->unique);
		break;
	}
	default:
		break;
	}
}

void debug_request(const struct fring_req *req, const struct fring_msg *m)
{
	const struct fuse_in_header *ih = m->ih;
	struct fring_msg copy = *m;
	struct line l = {.o = 0};

	add(&l, "q%u unique %" PRIu64 " %s nodeid %" PRIu64, req->q->idx,
	    ih->unique, fring_opname(ih->opcode), ih->nodeid);
	details(&l, req, &copy);
	add(&l, " len %u uid %u pid %u", ih->len, ih->uid, ih->pid);
	/* the extension blocks of a creating request: security context,
	 * supplementary group (fring_req_secctx(), fring_req_supp_groups()) */
	if (m->ext_len)
		add(&l, " ext %zu", m->ext_len);
	fr_info("%s", l.b);
}
