/*
 * check_mask.c - tests of masks as runs (src/mask.c): masks of random
 * runs in each spelling rladv takes at speed ("1,0,1", "1, 0, 1") and in
 * the others (booleans, floats), with every length of what follows the
 * ']' in the buffer, against the runs the values make; and masks with a
 * bad element, which must name it.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "mask.h"
#include "testutil.h"

#define MAXL	300

/* A small generator of our own, so that every machine tests the same
 * masks. */
static uint64_t rng = 88172645463325252ULL;

static unsigned
next(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* L values of runs of random lengths, long or short. */
static void
values(int *v, size_t L)
{
	size_t i = 0, n;
	int cur = (int)next(2), longer = (int)next(2);

	while (i < L) {
		n = 1 + next(longer ? 40 : 4);
		for (; n > 0 && i < L; n--)
			v[i++] = cur;
		cur = !cur;
	}
}

/* The runs v makes (ones first, so a first run of zeros follows an empty
 * one). */
static size_t
runs_of(const int *v, size_t L, uint32_t *r)
{
	size_t i, n = 0;
	int cur = 1;

	r[0] = 0;
	for (i = 0; i < L; i++) {
		if (v[i] != cur) {
			r[++n] = 0;
			cur = v[i];
		}
		r[n]++;
	}
	return L == 0 ? 0 : n + 1;
}

/* v written in a spelling: 0 "1,0", 1 "1, 0", 2 one element in another
 * spelling (true, 0.0, 1e0), 3 none to three blanks after each comma
 * ("1,1,1,1, 1", which a fast path must not stop on); tail bytes after
 * the ']'. */
static size_t
spell(char *s, const int *v, size_t L, int how, size_t tail, size_t odd)
{
	static const char *const other[2][3] = {
		{ "false", "0.0", "-0" }, { "true", "1.0", "1e0" } };
	size_t i, n = 0;

	s[n++] = '[';
	for (i = 0; i < L; i++) {
		if (i > 0)
			n += (size_t)sprintf(s + n, "%.*s", how == 1 ? 2 :
			    how == 3 ? 1 + (int)next(4) : 1, ",   ");
		if (how == 2 && i == odd)
			n += (size_t)sprintf(s + n, "%s",
			    other[v[i]][next(3)]);
		else
			s[n++] = (char)('0' + v[i]);
	}
	s[n++] = ']';
	memcpy(s + n, ", \"meta\": {\"k\": 1}}", tail);
	return n;
}

static void
parse_is(const char *s, size_t len, size_t arrlen, const int *v, size_t L,
    const char *what)
{
	struct buf runs;
	struct mask m;
	uint32_t want[MAXL + 2];
	size_t nwant = runs_of(v, L, want), ones = 0, i;
	const char *end;

	for (i = 0; i < L; i++)
		ones += (size_t)v[i];
	memset(&runs, 0, sizeof(runs));
	buf_add(&runs, "xxxx", 4);	/* runs of an earlier mask */
	end = mask_parse(s, s + len, &runs, &m);
	ck_assert_msg(end == s + arrlen, "%s: %.*s: ends at %td, not %zu",
	    what, (int)len, s, end ? end - s : -1, arrlen);
	ck_assert_msg(m.count == L && m.ones == ones && m.nruns == nwant &&
	    m.runs == 1, "%s: %.*s: count %zu ones %zu runs %zu at %zu",
	    what, (int)len, s, m.count, m.ones, m.nruns, m.runs);
	ck_assert_msg(runs.len == 4 + nwant * 4 &&
	    memcmp(runs.p + 4, want, nwant * 4) == 0, "%s: %.*s: runs differ",
	    what, (int)len, s);
	buf_free(&runs);
}

START_TEST(random_masks)
{
	static char s[MAXL * 8 + 64];
	int v[MAXL];
	size_t L, n, tail;
	int how, k;

	for (k = 0; k < 20000; k++) {
		L = next(k < 10000 ? 40 : MAXL);
		how = (int)next(4);
		if (how == 2 && L == 0)
			how = 0;
		tail = next(20);
		values(v, L);
		n = spell(s, v, L, how, tail, L > 0 ? next((unsigned)L) : 0);
		parse_is(s, n + tail, n, v, L, how == 0 ? "compact" :
		    how == 1 ? "spaced" : how == 2 ? "another spelling" :
		    "blanks mixed");
	}
}
END_TEST

START_TEST(every_length_and_tail)
{
	static char s[MAXL * 8 + 64];
	int v[MAXL];
	size_t L, n, tail;

	/* Each length of ones, of zeros and of alternating values, with
	 * each length of what follows: every way a mask ends in a chunk. */
	for (L = 0; L <= 40; L++)
		for (tail = 0; tail < 20; tail++) {
			size_t i;

			for (i = 0; i < L; i++)
				v[i] = 1;
			n = spell(s, v, L, 0, tail, 0);
			parse_is(s, n + tail, n, v, L, "ones");
			for (i = 0; i < L; i++)
				v[i] = 0;
			n = spell(s, v, L, 0, tail, 0);
			parse_is(s, n + tail, n, v, L, "zeros");
			for (i = 0; i < L; i++)
				v[i] = (int)(i & 1);
			n = spell(s, v, L, 0, tail, 0);
			parse_is(s, n + tail, n, v, L, "alternating");
		}
}
END_TEST

/* s must fail at element bad. */
static void
bad_is(const char *s, size_t bad)
{
	char buf[256];
	struct buf runs;
	struct mask m;
	size_t n = strlen(s);

	/* With room after it and without. */
	memcpy(buf, s, n);
	memset(buf + n, ' ', 20);
	memset(&runs, 0, sizeof(runs));
	ck_assert_msg(mask_parse(buf, buf + n + 20, &runs, &m) == NULL &&
	    m.bad_elem == bad && runs.len == 0,
	    "%s: bad element %zu, expected %zu", s, m.bad_elem, bad);
	ck_assert_msg(mask_parse(buf, buf + n, &runs, &m) == NULL &&
	    m.bad_elem == bad && runs.len == 0,
	    "%s (at the end): bad element %zu, expected %zu", s, m.bad_elem,
	    bad);
	buf_free(&runs);
}

START_TEST(bad_elements)
{
	bad_is("[1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1]", 10);
	bad_is("[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,10,1]", 17);
	bad_is("[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.5]", 16);
	bad_is("[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,]", 17);
	bad_is("[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,\"1\"]", 17);
	bad_is("[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", 18);
	bad_is("[1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,2]", 16);
	bad_is("[1,0,1,0,1,0,1,0,x,0,1,0,1,0,1,0,1]", 8);
	bad_is("[1,1,1,1, ]", 4);
}
END_TEST

static Suite *
mask_suite(void)
{
	Suite *s = suite_create("mask");
	TCase *tc = tcase_create("parse");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, random_masks);
	tcase_add_test(tc, every_length_and_tail);
	tcase_add_test(tc, bad_elements);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(mask_suite());
}
