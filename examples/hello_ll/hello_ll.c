/* SPDX-License-Identifier: MIT */
/*
 * libfuse's low-level "hello" filesystem (example/hello_ll.c there), ported
 * to libfring as doc/porting-from-libfuse.md describes: one read-only file
 * "hello" in the root. Each handler keeps the shape of its libfuse
 * counterpart so the two can be read side by side; the comments mark what
 * the port changed. main() uses the session functions, the counterpart of
 * fuse_session_new() ... fuse_session_loop_mt(); most programs would call
 * fring_main() instead.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <fring/fring.h>

static const char hello_str[] = "Hello World!\n";
static const char hello_name[] = "hello";
#define HELLO_INO 2

static int hello_stat(fring_ino_t ino, struct stat *stbuf)
{
	memset(stbuf, 0, sizeof(*stbuf));
	stbuf->st_ino = ino;
	if (ino == FRING_ROOT_INO) {
		stbuf->st_mode = S_IFDIR | 0755;
		stbuf->st_nlink = 2;
	} else if (ino == HELLO_INO) {
		stbuf->st_mode = S_IFREG | 0444;
		stbuf->st_nlink = 1;
		stbuf->st_size = (off_t)strlen(hello_str);
	} else {
		return -1;
	}
	return 0;
}

static void hello_ll_getattr(fring_req_t *req, fring_ino_t ino,
			     struct fring_file *fi)
{
	struct stat stbuf;

	(void)fi;
	if (hello_stat(ino, &stbuf) == -1)
		fring_reply_err(req, ENOENT);
	else
		fring_reply_attr(req, &stbuf, 1.0);
}

static void hello_ll_lookup(fring_req_t *req, fring_ino_t parent,
			    const char *name)
{
	/* struct fuse_entry_param -> struct fring_entry: same fields */
	struct fring_entry e = {0};

	if (parent != FRING_ROOT_INO || strcmp(name, hello_name) != 0)
		return (void)fring_reply_err(req, ENOENT);
	e.ino = HELLO_INO;
	e.attr_timeout = 1.0;
	e.entry_timeout = 1.0;
	hello_stat(e.ino, &e.attr);
	fring_reply_entry(req, &e);
}

/*
 * libfuse's readdir gets no buffer: hello_ll builds the whole listing in
 * a malloc'd buffer and answers the slice [off, off + size). libfring hands
 * the handler the kernel's buffer (dst), so the entries go straight there,
 * from the one the kernel's offset names, and nothing is allocated.
 */
static void hello_ll_readdir(fring_req_t *req, fring_ino_t ino, size_t size,
			     off_t off, struct fring_file *fi,
			     const struct fring_buf *dst)
{
	static const struct {
		const char *name;
		fring_ino_t ino;
	} ents[] = {{".", FRING_ROOT_INO},
		    {"..", FRING_ROOT_INO},
		    {hello_name, HELLO_INO}};
	size_t used = 0;

	(void)fi;
	if (ino != FRING_ROOT_INO)
		return (void)fring_reply_err(req, ENOTDIR);
	for (size_t i = (size_t)off; i < sizeof(ents) / sizeof(ents[0]); i++) {
		struct stat st;
		size_t n;

		hello_stat(ents[i].ino, &st);
		n = fring_add_direntry(req, (char *)dst->mem + used,
				       size - used, ents[i].name, &st,
				       (off_t)i + 1);
		if (n > size - used)
			break;
		used += n;
	}
	fring_reply_data(req, used);
}

static void hello_ll_open(fring_req_t *req, fring_ino_t ino,
			  struct fring_file *fi)
{
	if (ino != HELLO_INO)
		fring_reply_err(req, EISDIR);
	else if ((fi->flags & O_ACCMODE) != O_RDONLY)
		fring_reply_err(req, EACCES);
	else
		fring_reply_open(req, fi);
}

/* read gains dst; fring_reply_buf() copies from our memory as
 * fuse_reply_buf() did, and works on every transport, zerocopy included */
static void hello_ll_read(fring_req_t *req, fring_ino_t ino, size_t size,
			  off_t off, struct fring_file *fi,
			  const struct fring_buf *dst)
{
	size_t len = strlen(hello_str);

	(void)ino, (void)fi, (void)dst;
	if ((size_t)off >= len)
		return (void)fring_reply_buf(req, NULL, 0);
	if (size > len - (size_t)off)
		size = len - (size_t)off;
	fring_reply_buf(req, hello_str + off, size);
}

static const struct fring_ops hello_ll_oper = {
	.lookup = hello_ll_lookup,
	.getattr = hello_ll_getattr,
	.readdir = hello_ll_readdir,
	.open = hello_ll_open,
	.read = hello_ll_read,
};

/* What fuse_set_signal_handlers() did: the session functions install no
 * handler, fring_session_exit() is async-signal-safe. */
static fring_session_t *volatile signal_session;

static void on_signal(int sig)
{
	(void)sig;
	if (signal_session)
		fring_session_exit(signal_session);
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-o opt[,opt...]] MOUNTPOINT\n", prog);
	fring_config_help(stderr);
	return 1;
}

int main(int argc, char *argv[])
{
	struct sigaction sa = {.sa_handler = on_signal};
	fring_config_t *cfg = fring_config_new();
	fring_session_t *se = NULL;
	const char *mountpoint = NULL;
	int opt, ret;

	if (!cfg)
		return 1;
	/* fuse_parse_cmdline() + the -o list of fuse_session_new() */
	while ((opt = getopt(argc, argv, "o:")) != -1) {
		if (opt != 'o' || fring_config_parse(cfg, optarg)) {
			fring_config_free(cfg);
			return usage(argv[0]);
		}
	}
	if (optind != argc - 1) {
		fring_config_free(cfg);
		return usage(argv[0]);
	}
	mountpoint = argv[optind];
	ret = fring_session_new(&hello_ll_oper, sizeof(hello_ll_oper), NULL,
				cfg, &se);
	fring_config_free(cfg);
	if (ret) {
		fprintf(stderr, "hello_ll: %s\n", strerror(-ret));
		return 1;
	}
	signal_session = se;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* errors are negative errnos, not -1; the log already said why */
	ret = fring_session_mount(se, mountpoint);
	/* fuse_session_loop_mt(): the queues' threads are the library's */
	if (!ret)
		ret = fring_session_run(se);
	signal_session = NULL;
	fring_session_destroy(se); /* unmounts, as fuse_session_unmount() */
	return ret ? 1 : 0;
}
