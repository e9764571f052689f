/*
 * testutil.h - small helpers shared by the unit suites: float comparison,
 * a scratch directory for temporary files, whole-file reads and writes
 * (plain and gzip), and the main() every suite uses.  Header-only, every
 * function static, so each test program stays one translation unit.
 */
#ifndef RLADV_TESTUTIL_H
#define RLADV_TESTUTIL_H

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* got within rel (relative) of want; want == 0 demands got == 0. */
#define ck_assert_rel(got, want, rel) do {				\
	double g_ = (got), w_ = (want);					\
	ck_assert_msg(fabs(g_ - w_) <= (rel) * fabs(w_),		\
	    "%s = %.17g, expected %.17g (rel %g)", #got, g_, w_,	\
	    (double)(rel));						\
} while (0)

/* Group g of a batch's view v is labelled want in messages, the label
 * made when asked (batch_view_label()). */
#define ck_assert_label(v, g, want) do {				\
	struct buf l_ = { 0 };						\
	ck_assert((v)->gname == NULL);					\
	ck_assert_str_eq(batch_view_label((v), (g), &l_), (want));	\
	buf_free(&l_);							\
} while (0)

/* Exactly +0.0: not -0, not a rounding residue. */
#define ck_assert_pos_zero(got) do {					\
	double z_ = (got);						\
	ck_assert_msg(z_ == 0.0 && !signbit(z_),			\
	    "%s = %.17g, expected exactly +0.0", #got, z_);		\
} while (0)

/* s contains sub. */
#define ck_assert_has(s, sub) do {					\
	const char *s_ = (s), *u_ = (sub);				\
	ck_assert_msg(strstr(s_, u_) != NULL,				\
	    "\"%s\" does not contain \"%s\"", s_, u_);			\
} while (0)

/* s starts with pre. */
#define ck_assert_prefix(s, pre) do {					\
	const char *s_ = (s), *p_ = (pre);				\
	ck_assert_msg(strncmp(s_, p_, strlen(p_)) == 0,			\
	    "\"%s\" does not start with \"%s\"", s_, p_);		\
} while (0)

/* The scratch directory of the running test case (made in the parent by
 * an unchecked fixture, so the forked tests share it). */
static char tu_dir[256] __attribute__((unused));

static inline void
tu_mkdir(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tu_dir, sizeof(tu_dir), "%s/rladv-test-XXXXXX",
	    t && *t ? t : "/tmp");
	if (mkdtemp(tu_dir) == NULL) {
		perror("mkdtemp");
		abort();
	}
}

static inline void
tu_rmdir(void)
{
	DIR *dp;
	struct dirent *de;
	char p[512];

	if (tu_dir[0] == '\0' || (dp = opendir(tu_dir)) == NULL)
		return;
	while ((de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", tu_dir, de->d_name);
		unlink(p);
	}
	closedir(dp);
	rmdir(tu_dir);
	tu_dir[0] = '\0';
}

/* A path in the scratch directory; returns a static buffer of four
 * rotating slots, so a few can be live at once. */
static inline const char *
tu_path(const char *name)
{
	static char slot[4][512];
	static int k;
	char *p = slot[k++ & 3];

	snprintf(p, 512, "%s/%s", tu_dir, name);
	return p;
}

static inline void
tu_write(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f != NULL, "cannot create %s", path);
	ck_assert(fwrite(p, 1, n, f) == n);
	ck_assert(fclose(f) == 0);
}

static inline void
tu_write_str(const char *path, const char *s)
{
	tu_write(path, s, strlen(s));
}

/* Writes (mode "wb") or appends a member (mode "ab") of gzip data. */
static inline void
tu_gzwrite(const char *path, const char *mode, const void *p, size_t n)
{
	gzFile z = gzopen(path, mode);

	ck_assert_msg(z != NULL, "gzopen %s", path);
	if (n > 0)
		ck_assert(gzwrite(z, p, (unsigned)n) == (int)n);
	ck_assert(gzclose(z) == Z_OK);
}

/* The whole file, NUL-terminated (malloc'd); *n its length. */
static inline char *
tu_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long len;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert(fseek(f, 0, SEEK_END) == 0);
	len = ftell(f);
	ck_assert(len >= 0);
	rewind(f);
	b = malloc((size_t)len + 1);
	ck_assert(b != NULL);
	ck_assert(fread(b, 1, (size_t)len, f) == (size_t)len);
	b[len] = '\0';
	fclose(f);
	if (n)
		*n = (size_t)len;
	return b;
}

/* The whole gunzipped content of a gzip file (malloc'd, NUL-terminated). */
static inline char *
tu_gzread(const char *path, size_t *n)
{
	gzFile z = gzopen(path, "rb");
	size_t cap = 1 << 16, len = 0;
	char *b = malloc(cap + 1);
	int r;

	ck_assert_msg(z != NULL, "gzopen %s", path);
	ck_assert(b != NULL);
	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			b = realloc(b, cap + 1);
			ck_assert(b != NULL);
		}
		r = gzread(z, b + len, (unsigned)(cap - len));
		ck_assert(r >= 0);
		if (r == 0)
			break;
		len += (size_t)r;
	}
	gzclose(z);
	b[len] = '\0';
	if (n)
		*n = len;
	return b;
}

static inline int
tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
