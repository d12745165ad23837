/* SPDX-License-Identifier: MIT */
/*
 * mount_helper MNT OPTS PROG [ARGS...]
 *
 * What a mount helper such as mount.fuse3 -o drop_privileges does, on
 * libfring's fring_mount_fd(): mounts MNT with the libfring options OPTS
 * ("-" for none), lets the descriptor survive exec, and becomes PROG with
 * every argument "@FD@" replaced by /dev/fd/N, which the daemon adopts as
 * its mount point. The unmount edge tier (edges-unmount.sh) runs memfs so.
 * Exit status 1 when the mount fails (the library said why), 127 when PROG
 * cannot be run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fring/fring.h>

int main(int argc, char *argv[])
{
	fring_config_t *cfg;
	char path[32];
	int fd, ret = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: %s MNT OPTS|- PROG [ARGS...]\n",
			argv[0]);
		return 2;
	}
	cfg = fring_config_new();
	if (!cfg)
		return 1;
	if (strcmp(argv[2], "-"))
		ret = fring_config_parse(cfg, argv[2]);
	fd = ret ? ret : fring_mount_fd(argv[1], cfg);
	fring_config_free(cfg);
	if (fd < 0) {
		fprintf(stderr, "mount_helper: cannot mount %s: %s\n", argv[1],
			strerror(-fd));
		return 1;
	}
	if (fcntl(fd, F_SETFD, 0) < 0) {
		perror("mount_helper: fcntl");
		return 1;
	}
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	for (int i = 3; i < argc; i++)
		if (!strcmp(argv[i], "@FD@"))
			argv[i] = path;
	execvp(argv[3], argv + 3);
	fprintf(stderr, "mount_helper: cannot run %s: %s\n", argv[3],
		strerror(errno));
	return 127;
}
