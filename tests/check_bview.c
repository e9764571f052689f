/*
 * check_bview.c - tests of src/bview.c, the views some variants compute
 * on: the batch without its groups of equal rewards (--drop-zero-std, as
 * DAPO's dynamic sampling drops them), without its unscored records
 * (--null-reward unscored, TRL's None), and each group's stratum labels
 * shuffled (--random-strata, Stratified GRPO's Table 7 control: random
 * strata of the same sizes).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "bview.h"
#include "testutil.h"

/*
 * Four groups: {1, 0}, {2, 2} (equal), {5} (one record: equal too) and
 * {0, 1, 1, 0, 1, 0} in strata 0, 0, 1, 1, 2, 2.
 */
static const double r[] = { 1, 0, 2, 2, 5, 0, 1, 1, 0, 1, 0 };
static const double T[] = { 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6 };
static const size_t goff[] = { 0, 2, 4, 5, 11 };
static const uint32_t strat[] = { 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2 };
static const uint32_t nstrat[] = { 1, 1, 1, 3 };
static const uint64_t ghash[] = { 10, 11, 12, 13 };
static const char *const gname[] = { "a", "b", "c", "d" };
static const char *const gfile[] = { "f", "f", "f", "f" };
static const unsigned long long gline[] = { 1, 3, 5, 6 };

static void
make(struct batch *b)
{
	memset(b, 0, sizeof(*b));
	b->n = 11;
	b->ngroups = 4;
	b->r = r;
	b->T = T;
	b->goff = goff;
	b->strat = strat;
	b->nstrat = nstrat;
	b->ghash = ghash;
	b->gname = gname;
	b->gfile = gfile;
	b->gline = gline;
}

START_TEST(unequal)
{
	struct batch b;
	struct bview w;
	size_t i;

	make(&b);
	ck_assert_int_eq(bview_unequal(&w, &b), 0);
	/* Groups a and d stay: records 0, 1 and 5..10. */
	ck_assert_uint_eq(w.v.ngroups, 2);
	ck_assert_uint_eq(w.v.n, 8);
	ck_assert(w.v.goff[0] == 0 && w.v.goff[1] == 2 && w.v.goff[2] == 8);
	ck_assert_str_eq(w.v.gname[1], "d");
	ck_assert_uint_eq(w.v.gline[1], 6);
	ck_assert_uint_eq(w.v.ghash[1], 13);
	ck_assert_uint_eq(w.v.nstrat[1], 3);
	for (i = 0; i < 8; i++) {
		ck_assert_uint_eq(w.from[i], i < 2 ? i : i + 3);
		ck_assert(w.v.r[i] == r[w.from[i]]);
		ck_assert(w.v.T[i] == T[w.from[i]]);
		ck_assert_uint_eq(w.v.strat[i], strat[w.from[i]]);
	}
	ck_assert_ptr_null(w.v.tie);
	bview_free(&w);
}
END_TEST

/*
 * --drop-zero-std beside --null-reward unscored: a group is judged on its
 * scored records and kept or dropped whole.  Unscored as below: a (1
 * scored), b (none) and c are equal; d's scored 0, 1, 0, 1 are not, and
 * it stays with its unscored 7 and 10.  Then d's 1s unscored: its scored
 * 0, 0, 0 are equal and it leaves, a (1, 0) stays.
 */
START_TEST(unequal_scored)
{
	static const unsigned char u[] = { 0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	static const unsigned char u2[] = { 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0 };
	struct batch b;
	struct bview w;
	size_t i;

	make(&b);
	b.unscored = u;
	ck_assert_int_eq(bview_unequal(&w, &b), 0);
	ck_assert_uint_eq(w.v.ngroups, 1);
	ck_assert_uint_eq(w.v.n, 6);
	ck_assert_str_eq(w.v.gname[0], "d");
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(w.from[i], 5 + i);
	bview_free(&w);
	b.unscored = u2;
	ck_assert_int_eq(bview_unequal(&w, &b), 0);
	ck_assert(w.v.ngroups == 1 && w.v.n == 2);
	ck_assert_str_eq(w.v.gname[0], "a");
	ck_assert(w.from[0] == 0 && w.from[1] == 1);
	bview_free(&w);
}
END_TEST

/* Unscored: record 1 of a, both of b (b vanishes), records 7 and 10 of
 * d; c stays whole: which records the view maps back to. */
START_TEST(scored_mapping)
{
	static const unsigned char u[] = { 0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	static const size_t want[] = { 0, 4, 5, 6, 8, 9 };
	struct batch b;
	struct bview w;
	size_t i;

	make(&b);
	b.unscored = u;
	ck_assert_int_eq(bview_scored(&w, &b), 0);
	ck_assert_uint_eq(w.v.ngroups, 3);
	ck_assert_uint_eq(w.v.n, 6);
	ck_assert(w.v.goff[0] == 0 && w.v.goff[1] == 1 && w.v.goff[2] == 2 &&
	    w.v.goff[3] == 6);
	ck_assert_str_eq(w.v.gname[0], "a");
	ck_assert_str_eq(w.v.gname[1], "c");
	ck_assert_str_eq(w.v.gname[2], "d");
	ck_assert_uint_eq(w.v.gline[2], 6);
	ck_assert_uint_eq(w.v.nstrat[2], 3);
	ck_assert_ptr_null(w.v.unscored);
	for (i = 0; i < 6; i++) {
		ck_assert_uint_eq(w.from[i], want[i]);
		ck_assert(w.v.r[i] == r[want[i]] && w.v.T[i] == T[want[i]]);
		ck_assert_uint_eq(w.v.strat[i], strat[want[i]]);
	}
	bview_free(&w);
	/* Group a alone; then every record unscored: an empty view. */
	b.n = 2;
	b.ngroups = 1;
	ck_assert_int_eq(bview_scored(&w, &b), 0);
	ck_assert(w.v.n == 1 && w.v.ngroups == 1 && w.from[0] == 0);
	bview_free(&w);
	b.unscored = u + 1;
	ck_assert_int_eq(bview_scored(&w, &b), 0);
	ck_assert(w.v.n == 0 && w.v.ngroups == 0 && w.v.goff[0] == 0);
	bview_free(&w);
}
END_TEST

/* Counts of each stratum label in group g. */
static void
counts(const struct batch *b, size_t g, size_t *c)
{
	size_t i;

	memset(c, 0, 3 * sizeof(*c));
	for (i = b->goff[g]; i < b->goff[g + 1]; i++)
		c[b->strat[i]]++;
}

START_TEST(shuffle)
{
	struct batch b;
	struct bview w, w2;
	size_t c[3], c0[3], seed, ndiff = 0;

	make(&b);
	counts(&b, 3, c0);
	for (seed = 0; seed < 20; seed++) {
		ck_assert_int_eq(bview_shuffle(&w, &b, seed), 0);
		ck_assert_uint_eq(w.v.n, 11);
		ck_assert(w.v.r == w.r && w.r[7] == 1);
		/* The same sizes, 2, 2, 2, in group d; the others keep
		 * their one stratum. */
		counts(&w.v, 3, c);
		ck_assert(memcmp(c, c0, sizeof(c)) == 0);
		ck_assert_uint_eq(w.v.strat[0], 0);
		if (memcmp(w.v.strat + 5, strat + 5, 6 * sizeof(*strat)) != 0)
			ndiff++;
		/* Seeded: the same seed, the same labels. */
		ck_assert_int_eq(bview_shuffle(&w2, &b, seed), 0);
		ck_assert(memcmp(w.v.strat, w2.v.strat, 11 *
		    sizeof(*strat)) == 0);
		bview_free(&w);
		bview_free(&w2);
	}
	/* 90 arrangements of 2, 2, 2: most seeds move some label. */
	ck_assert_uint_ge(ndiff, 15);
}
END_TEST

/*
 * --null-reward unscored: record 1 of group a, the whole of b and of d
 * (the last group) unscored; a keeps record 0, c its one record.  A group
 * left empty at the end is where a view sized by the groups that stay
 * wrote past its arrays (AddressSanitizer, make check SANITIZE=1).
 */
START_TEST(scored)
{
	static const unsigned char unscored[11] = { 0, 1, 1, 1, 0,
	    1, 1, 1, 1, 1, 1 };
	struct batch b;
	struct bview w;

	make(&b);
	b.unscored = unscored;
	ck_assert_int_eq(bview_scored(&w, &b), 0);
	ck_assert_uint_eq(w.v.n, 2);
	ck_assert_uint_eq(w.v.ngroups, 2);
	ck_assert(w.v.goff[0] == 0 && w.v.goff[1] == 1 && w.v.goff[2] == 2);
	ck_assert(w.from[0] == 0 && w.from[1] == 4);
	ck_assert(w.v.r[0] == 1 && w.v.r[1] == 5);
	ck_assert_str_eq(w.v.gname[0], "a");
	ck_assert_str_eq(w.v.gname[1], "c");
	ck_assert_uint_eq(w.v.gline[1], 5);
	ck_assert_uint_eq(w.v.ghash[1], 12);
	bview_free(&w);
}
END_TEST

static Suite *
bview_suite(void)
{
	Suite *s = suite_create("bview");
	TCase *tc = tcase_create("views");

	tcase_add_test(tc, unequal);
	tcase_add_test(tc, unequal_scored);
	tcase_add_test(tc, scored_mapping);
	tcase_add_test(tc, shuffle);
	tcase_add_test(tc, scored);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(bview_suite());
}
