/*
 * check_compute.c - tests of src/compute.c's power-of-two prescaling:
 * rewards past 2^500 or below 2^-500 are computed on r * 2^-k (eps along,
 * as far as it stays a double), and the advantages of the
 * estimators that scale with r (drgrpo, rloo, opo, gpg) are scaled back
 * by 2^k, while those that do not (grpo, msgrpo) are left alone, and
 * those that read more than the rewards (remax, loo) are not prescaled.
 * Rewards near the largest double, whose sums overflow unless prescaled,
 * and exact powers of two, so that every expected value below is exact.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "advantage.h"
#include "compute.h"
#include "testbatch.h"
#include "testutil.h"

/* One group of two: 2^1023 and 1.5 * 2^1023, T = 1 and 3, remax's
 * baselines 2^1023. */
static void
two_make(struct tb *t, double scale)
{
	const double r[2] = { scale, 1.5 * scale }, T[2] = { 1, 3 };
	const size_t size = 2;

	tb_make(t, r, T, 2, &size, 1, NULL);
	t->base[0] = t->base[1] = scale;
}

/* compute_advantages() of estimator "name" on the group at scale, eps
 * given (NAN: the default). */
static void
run_eps(struct tb *t, const char *name, double scale, double eps,
    struct adv_params *p)
{
	const struct estimator *e = advantage_find(name);
	struct diag d = { 0 };

	ck_assert_ptr_nonnull(e);
	two_make(t, scale);
	advantage_defaults(p);
	if (!isnan(eps))
		p->eps = eps;
	ck_assert_int_eq(compute_advantages(e, p, &t->b, t->adv, &d), 0);
}

static void
run(struct tb *t, const char *name, double scale, struct adv_params *p)
{
	run_eps(t, name, scale, NAN, p);
}

/* An estimator and the two advantages it must give, exactly. */
struct pair_case {
	const char	*name;
	double		 a0, a1;
};

static void
assert_pair(const struct tb *t, const struct pair_case *c)
{
	ck_assert_msg(t->adv[0] == c->a0 && t->adv[1] == c->a1,
	    "%s: %a %a, expected %a %a", c->name, t->adv[0], t->adv[1],
	    c->a0, c->a1);
}

#define ck_assert_exact(got, want) do {					\
	double g_ = (got), w_ = (want);					\
	ck_assert_msg(g_ == w_, "%s = %a, expected %a", #got, g_, w_);	\
} while (0)

/*
 * At 2^1023 the rewards are 1 and 1.5 once prescaled by 2^-1023.
 *  - drgrpo: A = r - mean = -+0.25, scaled back: -+2^1021.
 *  - rloo: A_i = r_i - r_j = -+0.5, back: -+2^1022.
 *  - opo: baseline sum T r / sum T = (1 + 3 * 1.5) / 4 = 1.375, so
 *    A = -0.375 and 0.125, back: -3 * 2^1020 and 2^1020.
 *  - gpg: alpha = 2/2 = 1, A = r - mean: -+0.25, back: -+2^1021.
 *  - grpo divides by the deviation: -+0.25 / (0.25 + eps 2^-1023), and
 *    eps 2^-1023 is lost next to 0.25, so exactly -+1, not scaled back.
 *  - msgrpo of a group of two is the one subgroup's z, grpo's -+1.
 *  - remax and loo are not prescaled: r - b = 0 and 2^1022; a group of
 *    two under loo: r_i - r_j = -+2^1022, computed as it is.
 */
static const struct pair_case near_max[] = {
	{ "drgrpo", -0x1p1021, 0x1p1021 },
	{ "rloo", -0x1p1022, 0x1p1022 },
	{ "opo", -0x3p1020, 0x1p1020 },
	{ "gpg", -0x1p1021, 0x1p1021 },
	{ "grpo", -1, 1 },
	{ "msgrpo", -1, 1 },
	{ "remax", 0, 0x1p1022 },
	{ "loo", -0x1p1022, 0x1p1022 },
};

START_TEST(near_max_rewards)
{
	struct adv_params p;
	struct tb t;

	run(&t, near_max[_i].name, 0x1p1023, &p);
	assert_pair(&t, &near_max[_i]);
}
END_TEST

/*
 * The whitening's eps follows what it whitens.  grpo-whiten whitens GN,
 * which does not scale: GN = -+1 (eps lost), T = 1, 3: mean 0.5,
 * AReaL's deviation sqrt((2.25 + 0.75)/3) = 1, plus 1e-5 unscaled:
 * A = -1.5/1.00001, 0.5/1.00001.  rpp whitens the rewards: 1, 1.5
 * prescaled, mean 1.375, deviation sqrt((0.140625 + 3 * 0.015625)/3)
 * = 0.25, plus 1e-5 scaled away: A = -1.5 and 0.5 exactly.
 */
START_TEST(whiten_eps_scaled)
{
	const struct estimator *gw = advantage_find("grpo-whiten"),
	    *rpp = advantage_find("rpp");
	struct adv_params p;
	struct tb t;
	struct diag d = { 0 };

	two_make(&t, 0x1p1023);
	advantage_defaults(&p);
	p.wh.kind = WHITEN_STD;
	ck_assert_int_eq(compute_advantages(gw, &p, &t.b, t.adv, &d), 0);
	ck_assert_rel(t.adv[0], -1.5 / 1.00001, 1e-15);
	ck_assert_rel(t.adv[1], 0.5 / 1.00001, 1e-15);
	ck_assert_int_eq(compute_advantages(rpp, &p, &t.b, t.adv, &d), 0);
	ck_assert_exact(t.adv[0], -1.5);
	ck_assert_exact(t.adv[1], 0.5);
}
END_TEST

/* AReaL's transform of gsm8k_grpo.yaml: clip((r - 0.5) 10, +-20). */
static void
areal_transform(struct adv_params *p)
{
	advantage_defaults(p);
	p->rscale = 10;
	p->rbias = -0.5;
	p->rclip = 20;
}

/*
 * AReaL's reward transform: the estimator sees clip((r - 0.5) 10, +-20).
 * r = 0, 1, 5 -> x = -5, 5, 20 (45 clipped); drgrpo: mean 20/3, A =
 * -35/3, -5/3, 40/3.  Huge rewards clip to +-20, no prescaling: 2^1023
 * and 1.5 2^1023 are both 20, equal: 0.
 */
START_TEST(reward_transform)
{
	static const double r[] = { 0, 1, 5 }, rb[] = { 1, 0 };
	const struct estimator *e = advantage_find("drgrpo");
	struct adv_params p;
	const size_t size = 3, two = 2;
	struct tb t;
	struct diag d = { 0 };

	tb_make(&t, r, NULL, 3, &size, 1, NULL);
	areal_transform(&p);
	ck_assert_int_eq(compute_advantages(e, &p, &t.b, t.adv, &d), 0);
	ck_assert_rel(t.adv[0], -35.0 / 3, 1e-15);
	ck_assert_rel(t.adv[1], -5.0 / 3, 1e-15);
	ck_assert_rel(t.adv[2], 40.0 / 3, 1e-15);
	two_make(&t, 0x1p1023);
	ck_assert_int_eq(compute_advantages(e, &p, &t.b, t.adv, &d), 0);
	ck_assert(t.adv[0] == 0 && t.adv[1] == 0);
	/* remax: its baseline, the greedy response's reward, is mapped as
	 * the rewards are.  r = 1, 0 and b = 0.5: x = 5, -5, b' = 0, so A =
	 * 5, -5 (with b unmapped, 4.5 and -5.5). */
	tb_make(&t, rb, NULL, 2, &two, 1, NULL);
	t.base[0] = t.base[1] = 0.5;
	ck_assert_int_eq(compute_advantages(advantage_find("remax"), &p, &t.b,
	    t.adv, &d), 0);
	ck_assert_exact(t.adv[0], 5);
	ck_assert_exact(t.adv[1], -5);
}
END_TEST

/* The group MS-GRPO computed on the prescaled copy is counted in the
 * caller's parameters. */
START_TEST(msgrpo_counts_kept)
{
	struct adv_params p;
	struct tb t;

	run(&t, "msgrpo", 0x1p1023, &p);
	ck_assert_uint_eq(p.ms_exact, 1);
	ck_assert_uint_eq(p.ms_sampled, 0);
}
END_TEST

/*
 * At 2^510 (past 2^500, so prescaled) squares still fit in a double, and
 * at 2^-505 (below 2^-500, so brought up) they are still normal: the
 * prescaled result is then the estimator's own, bit for bit, for every
 * row of the table (at 2^510 eps and rpp-baseline's 1e-8 are lost next to
 * the deviations, at 2^-505 the deviations next to them, either way).
 */
START_TEST(same_as_unscaled)
{
	const double scale = _i ? 0x1p-505 : 0x1p510;
	const struct estimator *e;
	struct adv_params p, q;
	struct tb t, u;
	struct diag d = { 0 };

	for (e = advantage_table; e->name != NULL; e++) {
		run(&t, e->name, scale, &p);
		two_make(&u, scale);
		advantage_defaults(&q);
		ck_assert_int_eq(advantage_run(e, &u.b, &q, u.adv, &d), 0);
		ck_assert_msg(memcmp(t.adv, u.adv, sizeof(t.adv)) == 0,
		    "%s: %a %a prescaled, %a %a not", e->name, t.adv[0],
		    t.adv[1], u.adv[0], u.adv[1]);
	}
}
END_TEST

/*
 * --eps-inside adds eps to the variance (Balanced Aggregation Eq. 2), so
 * prescaling by s = 2^-k must scale eps by s^2, not s.  At 2^510 with
 * eps = 3 * 2^1016: var = (2^510 / 4)^2 = 2^1016, sqrt(var + eps) =
 * 2^509, A = -+2^508 / 2^509 = -+0.5 exactly, prescaled or not.
 */
START_TEST(eps_inside_scaled)
{
	struct adv_params p;
	struct tb t;
	struct diag d = { 0 };

	two_make(&t, 0x1p510);
	advantage_defaults(&p);
	p.eps_inside = 1;
	p.eps = 3 * 0x1p1016;
	ck_assert_int_eq(compute_advantages(advantage_find("grpo"), &p,
	    &t.b, t.adv, &d), 0);
	ck_assert_exact(t.adv[0], -0.5);
	ck_assert_exact(t.adv[1], 0.5);
}
END_TEST

/*
 * Below 2^-500 squares underflow, so the rewards are brought near 1.  At
 * 2^-1000 and 1.5 2^-1000 (T = 1, 3; eps 0), prescaled by 2^999 to 0.5
 * and 0.75:
 *  - drgrpo: -+2^-1002; rloo: -+2^-1001; opo: baseline 1.375 2^-1000,
 *    A = -3 2^-1003 and 2^-1003; gpg: -+2^-1002 (scaled back).
 *  - grpo: -+2^-1002 / 2^-1002 = -+1 (unscaled, the squared deviation
 *    2^-2004 is 0 and A was Inf); msgrpo: grpo's -+1.
 *  - remax and loo are not prescaled: r - b = 0 and 2^-1001; loo's
 *    group of two: r_i - r_j = -+2^-1001.
 */
static const struct pair_case near_min[] = {
	{ "drgrpo", -0x1p-1002, 0x1p-1002 },
	{ "rloo", -0x1p-1001, 0x1p-1001 },
	{ "opo", -0x3p-1003, 0x1p-1003 },
	{ "gpg", -0x1p-1002, 0x1p-1002 },
	{ "grpo", -1, 1 },
	{ "msgrpo", -1, 1 },
	{ "remax", 0, 0x1p-1001 },
	{ "loo", -0x1p-1001, 0x1p-1001 },
};

START_TEST(near_min_rewards)
{
	struct adv_params p;
	struct tb t;

	run_eps(&t, near_min[_i].name, 0x1p-1000, 0, &p);
	assert_pair(&t, &near_min[_i]);
}
END_TEST

/*
 * Brought up, eps grows with the rewards, and eps_inside's as their
 * square: at 2^-1000 that would be 1e-6 2^1998, Inf, and A 0.  The scale
 * stops where eps stays below 2^1000 (2^509 here), where the squared
 * deviation 2^-986 is still a double and lost next to eps anyway:
 * A = -+2^-1002 / sqrt(1e-6) = -+2^-1002 / 1e-3, as unscaled (which
 * loses the squared deviation to 0 and nothing else).
 */
START_TEST(eps_inside_not_inf)
{
	struct adv_params p;
	struct tb t;
	struct diag d = { 0 };

	two_make(&t, 0x1p-1000);
	advantage_defaults(&p);
	p.eps_inside = 1;
	p.eps = 1e-6;
	ck_assert_int_eq(compute_advantages(advantage_find("grpo"), &p,
	    &t.b, t.adv, &d), 0);
	ck_assert_rel(t.adv[0], -0x1p-1002 / 1e-3, 1e-15);
	ck_assert_rel(t.adv[1], 0x1p-1002 / 1e-3, 1e-15);
}
END_TEST

static Suite *
compute_suite(void)
{
	Suite *s = suite_create("compute");
	TCase *tc = tcase_create("prescale");

	tcase_add_loop_test(tc, near_max_rewards, 0,
	    sizeof(near_max) / sizeof(near_max[0]));
	tcase_add_test(tc, whiten_eps_scaled);
	tcase_add_test(tc, reward_transform);
	tcase_add_test(tc, msgrpo_counts_kept);
	tcase_add_loop_test(tc, same_as_unscaled, 0, 2);
	tcase_add_test(tc, eps_inside_scaled);
	tcase_add_loop_test(tc, near_min_rewards, 0,
	    sizeof(near_min) / sizeof(near_min[0]));
	tcase_add_test(tc, eps_inside_not_inf);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(compute_suite());
}
