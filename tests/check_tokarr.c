/*
 * check_tokarr.c - tests of short token arrays (src/tokarr.c): the units
 * repeated, and arrays written from them for masks of every shape, runs
 * longer than one copy, and both separators, each against the array
 * written out by hand.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "record.h"
#include "testutil.h"
#include "tokarr.h"

/* The units of x (and of 0) with separator seplen, as output.c makes
 * them. */
static void
rep_of(struct tokarr_rep *u, char rep[2][TOKARR_REPBUF], const char *x,
    size_t seplen)
{
	char num[TOKARR_UNIT] = { 0 };

	memcpy(num, x, strlen(x));
	u->k[1] = tokarr_fill(rep[1], seplen, num, strlen(x));
	u->ulen[1] = seplen + strlen(x);
	memset(num, 0, sizeof(num));
	num[0] = '0';
	u->k[0] = tokarr_fill(rep[0], seplen, num, 1);
	u->ulen[0] = seplen + 1;
	u->rep[0] = rep[0];
	u->rep[1] = rep[1];
}

/* The array of L tokens of x with the mask runs given (ones first; NULL:
 * no mask), compared with want; the bytes after it are left alone beyond
 * TOKARR_COPY. */
static void
array_is(const char *x, size_t seplen, size_t L, const uint32_t *runs,
    size_t nruns, const char *want)
{
	char rep[2][TOKARR_REPBUF], out[64 * TOKARR_UNIT + TOKARR_COPY + 16];
	struct tokarr_rep u;
	struct record r;
	char *end;

	memset(&r, 0, sizeof(r));
	r.L = L;
	r.has_mask = runs != NULL;
	r.runs = 0;
	r.nruns = nruns;
	rep_of(&u, rep, x, seplen);
	memset(out, '#', sizeof(out));
	end = tokarr_put(out, &r, runs, &u, seplen);
	ck_assert_msg((size_t)(end - out) == strlen(want) &&
	    memcmp(out, want, strlen(want)) == 0,
	    "tokarr_put(%s, L %zu) = \"%.*s\", expected \"%s\"", x, L,
	    (int)(end - out), out, want);
}

START_TEST(fill_repeats_the_unit)
{
	char rep[TOKARR_REPBUF], num[TOKARR_UNIT] = "0.5";
	size_t k;

	k = tokarr_fill(rep, 2, num, 3);
	/* ", 0.5" is 5 bytes: 25 whole units in 128 */
	ck_assert_uint_eq(k, 125);
	ck_assert(memcmp(rep, ", 0.5, 0.5, 0.5", 15) == 0);
	ck_assert(memcmp(rep + 120, ", 0.5", 5) == 0);
	k = tokarr_fill(rep, 1, num, 3);
	/* ",0.5" is 4 bytes: 32 whole units */
	ck_assert_uint_eq(k, 128);
	ck_assert(memcmp(rep, ",0.5,0.5,", 9) == 0);
}
END_TEST

/* 1 1 0 1 1 1; 0 0 1 (the first run, of ones, empty); 1 0 0 0 with the
 * mask longer than the response, cut at L. */
static const uint32_t m110111[] = { 2, 1, 3 }, m001[] = { 0, 2, 1 },
    m1000[] = { 1, 3, 4 };

static const struct {
	const char	*x;
	size_t		 seplen, L;
	const uint32_t	*runs;		/* NULL: no mask */
	const char	*want;
} arrays[] = {
	{ "0.5", 2, 1, NULL, "[0.5]" },
	{ "0.5", 2, 3, NULL, "[0.5, 0.5, 0.5]" },
	{ "-1.25", 1, 2, NULL, "[-1.25,-1.25]" },
	{ "0.5", 2, 6, m110111, "[0.5, 0.5, 0, 0.5, 0.5, 0.5]" },
	{ "0.5", 1, 3, m001, "[0,0,0.5]" },
	{ "7", 2, 4, m1000, "[7, 0, 0, 0]" },
	{ "0.5", 2, 1, m110111, "[0.5]" },	/* one token, trained */
	{ "0.5", 2, 1, m001, "[0]" },		/* and not */
};

START_TEST(masks_and_none)
{
	size_t k;

	for (k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++)
		array_is(arrays[k].x, arrays[k].seplen, arrays[k].L,
		    arrays[k].runs, 3, arrays[k].want);
}
END_TEST

START_TEST(runs_longer_than_one_copy)
{
	/* 64 tokens of ", -0.377963326" (14 bytes): 896 bytes, several
	 * copies of at most 126 bytes each; then 30 ones, 4 zeros, 30 ones. */
	static const uint32_t m[] = { 30, 4, 30 };
	char want[64 * 16 + 4], *p = want;
	int i;

	*p++ = '[';
	for (i = 0; i < 64; i++)
		p += sprintf(p, "%s-0.377963326", i ? ", " : "");
	strcpy(p, "]");
	array_is("-0.377963326", 2, 64, NULL, 0, want);
	p = want;
	*p++ = '[';
	for (i = 0; i < 64; i++)
		p += sprintf(p, "%s%s", i ? ", " : "",
		    i >= 30 && i < 34 ? "0" : "-0.377963326");
	strcpy(p, "]");
	array_is("-0.377963326", 2, 64, m, 3, want);
}
END_TEST

static Suite *
tokarr_suite(void)
{
	Suite *s = suite_create("tokarr");
	TCase *tc = tcase_create("put");

	tcase_add_test(tc, fill_repeats_the_unit);
	tcase_add_test(tc, masks_and_none);
	tcase_add_test(tc, runs_longer_than_one_copy);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(tokarr_suite());
}
