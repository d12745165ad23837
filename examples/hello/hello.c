/* SPDX-License-Identifier: MIT */
/* The smallest useful libfring filesystem: one read-only file. */
#include <errno.h>
#include <string.h>

#include <fring/fring.h>

static const char text[] = "Hello from libfring!\n";
#define HELLO_INO 2

static void fill(fring_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = ino == FRING_ROOT_INO ? S_IFDIR | 0755 : S_IFREG | 0444;
	st->st_nlink = ino == FRING_ROOT_INO ? 2 : 1;
	st->st_size = ino == FRING_ROOT_INO ? 0 : (off_t)strlen(text);
}

static void hello_lookup(fring_req_t *req, fring_ino_t parent, const char *name)
{
	struct fring_entry e = {
		.ino = HELLO_INO, .attr_timeout = 1, .entry_timeout = 1};

	if (parent != FRING_ROOT_INO || strcmp(name, "hello"))
		return (void)fring_reply_err(req, ENOENT);
	fill(HELLO_INO, &e.attr);
	fring_reply_entry(req, &e);
}

static void hello_getattr(fring_req_t *req, fring_ino_t ino,
			  struct fring_file *fi)
{
	struct stat st;

	(void)fi;
	fill(ino, &st);
	fring_reply_attr(req, &st, 1.0);
}

static void hello_readdir(fring_req_t *req, fring_ino_t ino, size_t size,
			  off_t off, struct fring_file *fi,
			  const struct fring_buf *dst)
{
	static const char *const names[] = {".", "..", "hello"};
	size_t used = 0;

	(void)fi;
	for (off_t i = off; i < 3; i++) {
		struct stat st;
		size_t n;

		fill(i == 2 ? HELLO_INO : ino, &st);
		n = fring_add_direntry(req, (char *)dst->mem + used,
				       size - used, names[i], &st, i + 1);
		if (n > size - used)
			break;
		used += n;
	}
	fring_reply_data(req, used);
}

static void hello_read(fring_req_t *req, fring_ino_t ino, size_t size,
		       off_t off, struct fring_file *fi,
		       const struct fring_buf *dst)
{
	size_t len = strlen(text);

	(void)ino, (void)fi, (void)dst;
	if ((size_t)off >= len)
		return (void)fring_reply_buf(req, NULL, 0);
	fring_reply_buf(req, text + off,
			size < len - (size_t)off ? size : len - (size_t)off);
}

static const struct fring_ops hello_ops = {
	.lookup = hello_lookup,
	.getattr = hello_getattr,
	.readdir = hello_readdir,
	.read = hello_read,
};

int main(int argc, char *argv[])
{
	return fring_main(argc, argv, &hello_ops, sizeof(hello_ops), NULL);
}
