/* SPDX-License-Identifier: MIT */
/*
 * fring-probe: what this machine offers libfring, without mounting
 * anything. The kernel and the FUSE ABI it implies, /dev/fuse,
 * FUSE-over-io_uring, io_uring itself, the capabilities and limits the
 * rungs need, and which rung transport=auto (or -o transport=NAME) would
 * take and why each better one is refused.
 *
 * The decision is the library's own: ladder_probe() (src/ladder/probe.c) runs the
 * check a mount runs, INIT negotiation and the ladder on what a kernel at
 * the inferred ABI would offer here. This file gathers only the facts the
 * library does not use (kernel version, /dev/fuse, fusermount3, the
 * io_uring sysctl) and prints. It links the internal static library: the
 * seam is hidden, not part of libfring's ABI.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config.h"
#include "ladder/ladder.h"
#include "ring/ring.h"

#define ENABLE_URING_PARAM "/sys/module/fuse/parameters/enable_uring"

/*
 * The FUSE ABI a kernel speaks, from its version: 7.3 speaks 7.46, 6.18 to
 * 7.2 speak 7.45, FUSE-over-io_uring came with 7.42 in 6.14
 * (doc/kernel-protocol.md, "Versions"). Only the steps that move the ladder
 * are told apart; the real minor is known at INIT.
 */
static const struct abi_step {
	unsigned major, minor; /* the first kernel of the step */
	unsigned abi;	       /* the minor the ladder is asked about */
	const char *shown;
	const char *what;
} abi_steps[] = {
	{7, 3, 46, "7.46", "Linux 7.3+: buffer pools and zero-copy"},
	{6, 18, 45, "7.45",
	 "Linux 6.18 to 7.2: FUSE-over-io_uring; buffer pools and zero-copy "
	 "need 7.46 (Linux 7.3+)"},
	{6, 14, 42, "7.42+",
	 "Linux 6.14+: FUSE-over-io_uring; buffer pools and zero-copy need "
	 "7.46 (Linux 7.3+)"},
	{0, 0, 41, "< 7.42",
	 "before Linux 6.14: no FUSE-over-io_uring (7.42, Linux 6.14+)"},
};

struct facts {
	struct utsname uts;
	unsigned abi;
	char abi_shown[16];
	const char *abi_what;
	const char *abi_source; /* "kernel version" or "--abi" */
	bool dev_present;
	unsigned dev_mode;  /* its permission bits */
	int dev_err;	    /* opening /dev/fuse read-write: 0 or an errno */
	int uring_disabled; /* kernel.io_uring_disabled, -1: no sysctl */
	char fusermount[PATH_MAX];
	bool fusermount_suid; /* setuid root */
	char possible[64];
	struct ladder_probe rung[FRING_TRANSPORT_DEV + 1]; /* [AUTO] too */
	enum fring_transport asked;
	struct fring_config cfg;
};

static void infer_abi(struct facts *f)
{
	unsigned maj = 0, min = 0;
	const struct abi_step *s = abi_steps;

	sscanf(f->uts.release, "%u.%u", &maj, &min);
	while (maj < s->major || (maj == s->major && min < s->minor))
		s++;
	f->abi = s->abi;
	snprintf(f->abi_shown, sizeof(f->abi_shown), "%s", s->shown);
	f->abi_what = s->what;
	f->abi_source = "kernel version";
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "re");

	buf[0] = '\0';
	if (!fp)
		return;
	if (fgets(buf, (int)len, fp))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(fp);
}

/* fusermount3 as execvp() finds it (mount.c runs it by name). */
static void find_fusermount(struct facts *f)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	struct stat st;

	copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = copy ? strtok_r(copy, ":", &save) : NULL; dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(f->fusermount, sizeof(f->fusermount), "%s/fusermount3",
			 dir);
		if (!access(f->fusermount, X_OK) && !stat(f->fusermount, &st)) {
			f->fusermount_suid =
				(st.st_mode & S_ISUID) && st.st_uid == 0;
			free(copy);
			return;
		}
	}
	f->fusermount[0] = '\0';
	free(copy);
}

static void gather(struct facts *f)
{
	struct stat st;
	char line[64];
	int fd;

	/* first: opening /dev/fuse loads the fuse module, and with it the
	 * enable_uring parameter */
	f->dev_present = !stat("/dev/fuse", &st) && S_ISCHR(st.st_mode);
	f->dev_mode = f->dev_present ? st.st_mode & 07777 : 0;
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	f->dev_err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	read_line("/proc/sys/kernel/io_uring_disabled", line, sizeof(line));
	f->uring_disabled = line[0] ? atoi(line) : -1;
	find_fusermount(f);
	read_line("/sys/devices/system/cpu/possible", f->possible,
		  sizeof(f->possible));
}

static void drop_log(enum fring_log_level lvl, const char *line, void *data)
{
	(void)lvl;
	(void)line;
	(void)data;
}

/* Every rung as if asked for, and auto: the library's answers. */
static void decide(struct facts *f)
{
	fring_set_log(drop_log, NULL, FRING_LOG_DEBUG);
	for (int t = FRING_TRANSPORT_AUTO; t <= FRING_TRANSPORT_DEV; t++) {
		struct fring_config cfg = f->cfg;

		cfg.transport = (enum fring_transport)t;
		f->rung[t].abi_minor = f->abi;
		ladder_probe(&cfg, &f->rung[t]);
	}
	fring_set_log(NULL, NULL, FRING_LOG_INFO);
}

static const char *ring_verdict(int err)
{
	switch (err) {
	case 0:
		return "works";
	case -ENOSYS:
		return "ENOSYS: no io_uring in this kernel, or a seccomp "
		       "filter blocks it (containers often do)";
	case -EPERM:
		return "EPERM: forbidden (kernel.io_uring_disabled, or a "
		       "security policy)";
	case -EINVAL:
		return "EINVAL: no SQE128 rings (Linux 5.19+)";
	case -ENOMEM:
		return "ENOMEM: RLIMIT_MEMLOCK, which io_uring charges for "
		       "them, is spent (by this uid's processes) or too low";
	default:
		return strerror(-err);
	}
}

/* How a mount would happen (mount.c): mount(2) with CAP_SYS_ADMIN, else
 * the setuid fusermount3, which opens /dev/fuse as the caller. NULL and
 * *why when it cannot. */
static const char *mount_path(const struct facts *f, const char **why)
{
	const struct ladder_probe *p = &f->rung[FRING_TRANSPORT_AUTO];

	*why = NULL;
	if (!f->dev_present)
		*why = "no /dev/fuse";
	else if (p->cap_sys_admin && !f->dev_err)
		return "mount(2)";
	else if (p->cap_sys_admin)
		*why = "/dev/fuse cannot be opened";
	else if (!f->fusermount[0])
		*why = "no CAP_SYS_ADMIN and no fusermount3 (package fuse3)";
	else if (!f->fusermount_suid)
		*why = "no CAP_SYS_ADMIN and fusermount3 is not setuid root";
	else if (f->dev_err)
		*why = "fusermount3 opens /dev/fuse as the caller, who cannot";
	else
		return "fusermount3";
	return NULL;
}

static unsigned pool_bufs(const struct facts *f)
{
	return f->cfg.pool_bufs ? f->cfg.pool_bufs : f->cfg.queue_depth;
}

/* ---------------- human-readable ---------------- */

static void print_uring_param(int en)
{
	if (en < 0)
		printf("enable_uring    no such parameter: this kernel has no "
		       "FUSE-over-io_uring (Linux 6.14+ with "
		       "CONFIG_FUSE_IO_URING)\n");
	else if (en)
		printf("enable_uring    Y: FUSE-over-io_uring is on\n");
	else
		printf("enable_uring    N: FUSE-over-io_uring is built in but "
		       "off (as root: echo Y > " ENABLE_URING_PARAM ")\n");
}

static void print_memory(const struct facts *f, const struct ladder_probe *p)
{
	if (!p->memlock_charged)
		printf("CAP_IPC_LOCK    yes: io_uring charges nothing to "
		       "RLIMIT_MEMLOCK\n");
	else if (p->cap_ipc_lock)
		printf("CAP_IPC_LOCK    only in a user namespace: io_uring "
		       "charges RLIMIT_MEMLOCK all the same\n");
	else
		printf("CAP_IPC_LOCK    no: io_uring charges registered pools "
		       "(and on some kernels its rings) to RLIMIT_MEMLOCK\n");
	if (p->memlock == ~0ULL)
		printf("RLIMIT_MEMLOCK  unlimited");
	else
		printf("RLIMIT_MEMLOCK  %llu KiB", p->memlock / 1024);
	printf("; registered pools would pin %zu KiB%s; some kernels (6.18) "
	       "charge the rings too: %zu KiB (%u rings of %u entries)\n",
	       p->pool_locked / 1024,
	       !p->memlock_charged || p->memlock == ~0ULL ? ""
	       : p->memlock < p->pool_locked		  ? " (too much)"
							  : "",
	       p->ring_locked / 1024, p->nthreads, p->ring_entries);
	printf("queues          %u (one per possible CPU: %s), %u ring "
	       "thread%s\n",
	       p->queues, f->possible[0] ? f->possible : "?", p->nthreads,
	       p->nthreads == 1 ? "" : "s");
	printf("memory          up to %zu KiB a request; uring %zu KiB of "
	       "entry buffers, bufpool rungs %zu KiB of pools (all queues)\n",
	       p->payload / 1024, p->entry_bytes / 1024, p->pool_bytes / 1024);
	printf("options         queue_depth=%u pool_bufs=%u max_write=%u\n",
	       f->cfg.queue_depth, pool_bufs(f), f->cfg.max_write);
}

static void print_verdict(const char *asked, const struct ladder_probe *p)
{
	const char *w = p->ineffective;

	if (p->refused)
		printf("transport=%s -> refused: %s\n", asked, p->reason);
	else
		printf("transport=%s -> %s\n", asked, p->reason);
	/* what the mount would warn about: options the rung ignores */
	while (*w) {
		int n = (int)strcspn(w, "\n");

		printf("  warning: %.*s\n", n, w);
		w += n + (w[n] == '\n');
	}
}

static void print_text(const struct facts *f)
{
	const struct ladder_probe *p = &f->rung[FRING_TRANSPORT_AUTO];
	const char *why, *mnt = mount_path(f, &why);

	printf("fring-probe (libfring %s): what this machine offers; nothing "
	       "is mounted\n\n",
	       fring_version());
	printf("kernel          Linux %s\n", f->uts.release);
	printf("FUSE ABI        %s (%s; the real ABI is known at INIT)\n",
	       f->abi_shown,
	       strcmp(f->abi_source, "--abi") ? "inferred from the kernel "
						"version"
					      : "given with --abi");
	printf("                %s\n", f->abi_what);
	if (!f->dev_present)
		printf("/dev/fuse       missing (modprobe fuse)\n");
	else if (f->dev_err)
		printf("/dev/fuse       mode %04o, cannot be opened: %s\n",
		       f->dev_mode, strerror(f->dev_err));
	else
		printf("/dev/fuse       mode %04o, opens read-write\n",
		       f->dev_mode);
	print_uring_param(p->enable_uring);
	if (f->uring_disabled < 0)
		printf("io_uring        no kernel.io_uring_disabled sysctl");
	else
		printf("io_uring        kernel.io_uring_disabled=%d",
		       f->uring_disabled);
	printf("; the rings: %s\n", ring_verdict(p->ring_err));
	printf("CAP_SYS_ADMIN   %s\n",
	       p->cap_sys_admin ? "yes: mount(2) directly; zero-copy allowed"
				: "no: no mount(2) (fusermount3 instead); "
				  "no zero-copy");
	if (f->fusermount[0])
		printf("fusermount3     %s (%s)\n", f->fusermount,
		       f->fusermount_suid ? "setuid root" : "not setuid root");
	else
		printf("fusermount3     not found (package fuse3)\n");
	printf("mount           %s%s\n",
	       mnt ? mnt : "impossible: ", mnt ? "" : why);
	print_memory(f, p);

	printf("\nrungs (each as if asked for with -o transport=NAME):\n");
	for (int t = FRING_TRANSPORT_ZEROCOPY; t <= FRING_TRANSPORT_DEV; t++) {
		const struct ladder_probe *r = &f->rung[t];

		printf("  %-20s %s%s\n",
		       fring_transport_name((enum fring_transport)t),
		       r->refused ? "refused: " : "yes",
		       r->refused ? r->reason : "");
	}
	printf("\n");
	print_verdict("auto", p);
	if (f->asked != FRING_TRANSPORT_AUTO)
		print_verdict(fring_transport_name(f->asked),
			      &f->rung[f->asked]);
}

/* ---------------- JSON ---------------- */

static void json_str(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_kv(const char *key, const char *val, const char *after)
{
	printf("\"%s\":", key);
	json_str(val);
	fputs(after, stdout);
}

static void json_verdict(const char *key, const char *asked,
			 const struct ladder_probe *p)
{
	printf("\"%s\":{\"asked\":\"%s\",\"refused\":%s,\"transport\":", key,
	       asked, p->refused ? "true" : "false");
	json_str(p->refused ? NULL : fring_transport_name(p->transport));
	fputs(",", stdout);
	json_kv("reason", p->reason, "}");
}

static void print_json(const struct facts *f)
{
	const struct ladder_probe *p = &f->rung[FRING_TRANSPORT_AUTO];
	const char *why;

	putchar('{');
	json_kv("libfring", fring_version(), ",");
	json_kv("kernel", f->uts.release, ",");
	printf("\"abi\":{\"minor\":%u,", f->abi);
	json_kv("shown", f->abi_shown, ",");
	json_kv("source", f->abi_source, ",");
	json_kv("what", f->abi_what, "},");
	printf("\"dev_fuse\":{\"present\":%s,\"opens\":%s,",
	       f->dev_present ? "true" : "false",
	       f->dev_err ? "false" : "true");
	json_kv("error", f->dev_err ? strerror(f->dev_err) : NULL, "},");
	json_kv("enable_uring",
		p->enable_uring < 0 ? NULL
		: p->enable_uring   ? "Y"
				    : "N",
		",");
	printf("\"io_uring\":{\"disabled_sysctl\":");
	if (f->uring_disabled < 0)
		fputs("null", stdout);
	else
		printf("%d", f->uring_disabled);
	printf(",\"ring\":%s,", p->ring_err ? "false" : "true");
	json_kv("error", p->ring_err ? ring_verdict(p->ring_err) : NULL, "},");
	printf("\"cap_sys_admin\":%s,\"cap_ipc_lock\":%s,",
	       p->cap_sys_admin ? "true" : "false",
	       p->cap_ipc_lock ? "true" : "false");
	json_kv("fusermount3", f->fusermount[0] ? f->fusermount : NULL, ",");
	printf("\"fusermount3_setuid\":%s,",
	       f->fusermount_suid ? "true" : "false");
	json_kv("mount", mount_path(f, &why), ",");
	json_kv("mount_problem", why, ",");
	if (p->memlock == ~0ULL)
		fputs("\"rlimit_memlock\":null,", stdout);
	else
		printf("\"rlimit_memlock\":%llu,", p->memlock);
	printf("\"memlock_charged\":%s,\"ring_threads\":%u,"
	       "\"ring_entries\":%u,\"ring_locked_bytes\":%zu,"
	       "\"pool_locked_bytes\":%zu,",
	       p->memlock_charged ? "true" : "false", p->nthreads,
	       p->ring_entries, p->ring_locked, p->pool_locked);
	printf("\"queues\":%u,", p->queues);
	json_kv("possible_cpus", f->possible, ",");
	printf("\"max_payload\":%zu,\"entry_buffer_bytes\":%zu,"
	       "\"pool_bytes\":%zu,",
	       p->payload, p->entry_bytes, p->pool_bytes);
	printf("\"options\":{\"queue_depth\":%u,\"pool_bufs\":%u,"
	       "\"max_write\":%u},",
	       f->cfg.queue_depth, pool_bufs(f), f->cfg.max_write);
	fputs("\"rungs\":{", stdout);
	for (int t = FRING_TRANSPORT_ZEROCOPY; t <= FRING_TRANSPORT_DEV; t++) {
		const struct ladder_probe *r = &f->rung[t];

		printf("%s\"%s\":{\"ok\":%s,", t > 1 ? "," : "",
		       fring_transport_name((enum fring_transport)t),
		       r->refused ? "false" : "true");
		json_kv("reason", r->reason, "}");
	}
	fputs("},", stdout);
	json_verdict("auto", "auto", p);
	fputs(",", stdout);
	json_verdict("result", fring_transport_name(f->asked),
		     &f->rung[f->asked]);
	fputs(",\"warnings\":[", stdout);
	for (const char *w = f->rung[f->asked].ineffective; *w;) {
		char one[400];
		size_t n = strcspn(w, "\n"),
		       k = n < sizeof(one) ? n : sizeof(one) - 1;

		/* (a copy, not snprintf's %.*s: gcc 12's -O2 with the
		 * sanitizers takes w for NULL there and fails the build) */
		memcpy(one, w, k);
		one[k] = '\0';
		if (w != f->rung[f->asked].ineffective)
			putchar(',');
		json_str(one);
		w += n + (w[n] == '\n');
	}
	fputs("]}\n", stdout);
}

/* ---------------- command line ---------------- */

static void usage(FILE *out)
{
	fputs("usage: fring-probe [--json] [--abi 7.N] [-o opt[,opt...]]\n\n"
	      "Says what this machine offers libfring, without mounting:\n"
	      "the kernel and its FUSE ABI, /dev/fuse, FUSE-over-io_uring,\n"
	      "io_uring, capabilities, RLIMIT_MEMLOCK, queues, and which\n"
	      "transport rung a filesystem would get and why each better\n"
	      "one is refused.\n\n"
	      "    -o opt[,opt...]  the options of a filesystem's command "
	      "line (transport=,\n"
	      "                     queue_depth=, pool_bufs=, max_write=, "
	      "...)\n"
	      "    --json           one JSON object instead of text\n"
	      "    --abi 7.N        assume the kernel speaks FUSE ABI 7.N "
	      "(what if)\n"
	      "    -h, --help       this text\n"
	      "    -V, --version    libfring version\n\n"
	      "Exit status: 0; 1 when the transport asked for with -o would "
	      "be refused;\n"
	      "2 on a bad command line.\n",
	      out);
}

static int parse_abi(struct facts *f, const char *arg)
{
	unsigned maj, min;
	char end;

	if (!arg || sscanf(arg, "%u.%u%c", &maj, &min, &end) != 2 || maj != 7 ||
	    min < 12 || min > 255) {
		fprintf(stderr, "fring-probe: --abi takes 7.N (N from 12)\n");
		return -1;
	}
	f->abi = min;
	snprintf(f->abi_shown, sizeof(f->abi_shown), "7.%u", min);
	f->abi_what = min >= 46	  ? "buffer pools and zero-copy"
		      : min >= 42 ? "FUSE-over-io_uring; buffer pools and "
				    "zero-copy need 7.46"
				  : "no FUSE-over-io_uring (7.42)";
	f->abi_source = "--abi";
	return 0;
}

int main(int argc, char *argv[])
{
	static struct facts f;
	const char *abi = NULL;
	bool json = false;

	fring_config_defaults(&f.cfg);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("fring-probe (libfring %s)\n", fring_version());
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--abi") && i + 1 < argc) {
			abi = argv[++i];
		} else if (!strncmp(a, "--abi=", 6)) {
			abi = a + 6;
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			if (fring_config_parse(&f.cfg, argv[++i]))
				return 2;
		} else if (!strncmp(a, "-o", 2) && a[2]) {
			if (fring_config_parse(&f.cfg, a + 2))
				return 2;
		} else {
			fprintf(stderr,
				"fring-probe: unexpected argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	f.asked = f.cfg.transport;
	if (uname(&f.uts)) {
		perror("fring-probe: uname");
		return 2;
	}
	infer_abi(&f);
	if (abi && parse_abi(&f, abi))
		return 2;
	gather(&f);
	decide(&f);
	if (json)
		print_json(&f);
	else
		print_text(&f);
	return f.asked != FRING_TRANSPORT_AUTO && f.rung[f.asked].refused;
}
