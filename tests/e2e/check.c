/* SPDX-License-Identifier: MIT */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

struct chk_counts {
	unsigned passed;
	unsigned failed;
	unsigned skipped;
};

static struct chk_counts local_counts;
static struct chk_counts *counts = &local_counts;

void chk_init(void)
{
	void *p = mmap(NULL, sizeof(struct chk_counts), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		counts = p;
		memset(counts, 0, sizeof(*counts));
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
}

static void bump(unsigned *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
}

unsigned chk_passed(void)
{
	return __atomic_load_n(&counts->passed, __ATOMIC_SEQ_CST);
}

unsigned chk_failed(void)
{
	return __atomic_load_n(&counts->failed, __ATOMIC_SEQ_CST);
}

unsigned chk_skipped(void)
{
	return __atomic_load_n(&counts->skipped, __ATOMIC_SEQ_CST);
}

int chk_finish(void)
{
	unsigned p = chk_passed(), f = chk_failed(), s = chk_skipped();

	if (s)
		printf("%u passed, %u failed, %u skipped\n", p, f, s);
	else
		printf("%u passed, %u failed\n", p, f);
	fflush(stdout);
	return f ? 1 : 0;
}

int chk_result(int ok, const char *name, const char *fmt, ...)
{
	if (ok) {
		bump(&counts->passed);
		printf("ok %s\n", name);
	} else {
		char msg[1024];
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		bump(&counts->failed);
		printf("FAIL %s: %s\n", name, msg);
	}
	fflush(stdout);
	return ok;
}

void chk_skip(const char *name, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bump(&counts->skipped);
	printf("skip %s: %s\n", name, msg);
	fflush(stdout);
}

void chk_note(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("# %s\n", msg);
	fflush(stdout);
}

const char *chk_name(const char *fmt, ...)
{
	static char bufs[8][256];
	static unsigned next;
	char *b = bufs[next++ % 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(bufs[0]), fmt, ap);
	va_end(ap);
	return b;
}

const char *chk_errname(int e)
{
	static char bufs[4][32];
	static unsigned next;
	const char *n = e ? strerrorname_np(e) : "0";
	char *b;

	if (n)
		return n;
	b = bufs[next++ % 4];
	snprintf(b, sizeof(bufs[0]), "errno %d", e);
	return b;
}

int chk_sys(const char *name, long ret, int err, const char *expr)
{
	if (ret != -1)
		return chk_result(1, name, "%s", "");
	return chk_result(0, name, "expected success of %s got -1 %s (%s)",
			  expr, chk_errname(err), strerror(err));
}

int chk_errno(const char *name, long ret, int err, int want)
{
	if (ret != -1)
		return chk_result(0, name, "expected -1 %s got %ld",
				  chk_errname(want), ret);
	if (err != want)
		return chk_result(0, name, "expected %s got %s (%s)",
				  chk_errname(want), chk_errname(err),
				  strerror(err));
	return chk_result(1, name, "%s", "");
}

int chk_errno2(const char *name, long ret, int err, int want1, int want2)
{
	if (ret != -1)
		return chk_result(0, name, "expected -1 %s or %s got %ld",
				  chk_errname(want1), chk_errname(want2), ret);
	if (err != want1 && err != want2)
		return chk_result(0, name, "expected %s or %s got %s (%s)",
				  chk_errname(want1), chk_errname(want2),
				  chk_errname(err), strerror(err));
	return chk_result(1, name, "%s", "");
}

int chk_eq(const char *name, long long got, long long want, long hint, int err)
{
	if (got == want)
		return chk_result(1, name, "%s", "");
	if (hint && got == -1 && err)
		return chk_result(0, name, "expected %lld got -1 %s (%s)", want,
				  chk_errname(err), strerror(err));
	return chk_result(0, name, "expected %lld (0x%llx) got %lld (0x%llx)",
			  want, (unsigned long long)want, got,
			  (unsigned long long)got);
}

int chk_mem(const char *name, const void *got, const void *want, size_t len)
{
	const unsigned char *g = got, *w = want;
	size_t i, j;
	char gs[3 * 16 + 1], ws[3 * 16 + 1];

	if (memcmp(g, w, len) == 0)
		return chk_result(1, name, "%s", "");
	for (i = 0; i < len && g[i] == w[i]; i++)
		;
	gs[0] = ws[0] = 0;
	for (j = 0; j < 16 && i + j < len; j++) {
		snprintf(gs + 3 * j, 4, "%02x ", g[i + j]);
		snprintf(ws + 3 * j, 4, "%02x ", w[i + j]);
	}
	return chk_result(0, name,
			  "expected bytes [%s] got [%s] at offset %zu of %zu",
			  ws, gs, i, len);
}

int chk_str(const char *name, const char *got, const char *want)
{
	if (got && want && strcmp(got, want) == 0)
		return chk_result(1, name, "%s", "");
	return chk_result(0, name, "expected \"%.200s\" got \"%.200s\"",
			  want ? want : "(null)", got ? got : "(null)");
}

unsigned char chk_pat(uint64_t seed, uint64_t off)
{
	uint64_t x = off * 0x9E3779B97F4A7C15ull +
		     (seed + 1) * 0xD1B54A32D192ED03ull;

	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 29;
	return (unsigned char)x;
}

void chk_stat_fill(struct stat *st, uint64_t ino, int dir, off_t size)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_nlink = 1;
	st->st_mode = dir ? S_IFDIR | 0755 : S_IFREG | 0644;
	st->st_size = dir ? 0 : size;
}
