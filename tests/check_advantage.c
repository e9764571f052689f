/*
 * check_advantage.c - tests of the estimators of SPEC §3 (src/advantage.c)
 * through advantage_table, on small hand-made batches whose values are
 * computed by hand in the comments: grpo (population and sample std),
 * drgrpo, rloo, san, stratified, opo, rpp-baseline, and the frameworks'
 * rpp, passk, gpg, remax, loo and grpo-whiten with each whitening kind;
 * equal rewards giving exactly 0, groups of one (and verl's rule),
 * --std-scope and --gn-scope, the frameworks' names.
 * MS-GRPO has its own suite (check_msgrpo.c).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advantage.h"
#include "alias.h"
#include "testbatch.h"
#include "testutil.h"

#define EPS	1e-6
#define REL	1e-12

/* One group of n records. */
static void
tb_one(struct tb *t, const double *r, const double *T, size_t n,
    const uint32_t *strat)
{
	size_t sz = n;

	tb_make(t, r, T, n, &sz, 1, strat);
}

static void
run(const char *name, struct tb *t, struct adv_params *p)
{
	const struct estimator *e = advantage_find(name);
	struct diag d = { 0 };
	size_t i;

	ck_assert_msg(e != NULL, "no estimator %s", name);
	ck_assert_msg(advantage_run(e, &t->b, p, t->adv, &d) == 0, "%s: %s",
	    name, d.msg);
	for (i = 0; i < t->b.n; i++) {
		ck_assert_msg(isfinite(t->adv[i]), "%s: adv[%zu] = %g", name,
		    i, t->adv[i]);
		ck_assert_msg(!(t->adv[i] == 0 && signbit(t->adv[i])),
		    "%s: adv[%zu] is -0", name, i);
	}
}

static struct adv_params
defaults(void)
{
	struct adv_params p;

	advantage_defaults(&p);
	return p;
}

START_TEST(defaults_and_table)
{
	static const char *const names[] = { "grpo", "drgrpo", "rloo", "san",
	    "stratified", "msgrpo", "opo", "rpp-baseline", "rpp", "passk",
	    "gpg", "remax", "loo", "grpo-whiten", "gdpo" };
	/* The kind callers switch on (the CUDA backend, the MS-GRPO
	 * summary), row by row: a row must not borrow another's kind. */
	static const enum est_kind kinds[] = { EST_GRPO, EST_DRGRPO,
	    EST_RLOO, EST_SAN, EST_STRATIFIED, EST_MSGRPO, EST_OPO,
	    EST_RPP_BASELINE, EST_RPP, EST_PASSK, EST_GPG, EST_REMAX, EST_LOO,
	    EST_GRPO_WHITEN, EST_GDPO };
	struct adv_params p = defaults();
	const struct estimator *e;
	size_t i, rows = 0;
	unsigned seen = 0;

	ck_assert(p.eps == 1e-6);
	ck_assert(p.alpha == 0.6);
	ck_assert_int_eq(p.sample, 0);
	ck_assert_int_eq(p.std_scope, STD_GROUP);
	ck_assert_int_eq(p.gn_batch, 0);
	ck_assert_uint_eq(p.single, 0);
	ck_assert_int_eq(p.wh.kind, WHITEN_VERL);
	ck_assert(p.wh.var_eps == 1e-8);
	ck_assert_int_eq(p.rpp_tokens, 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ck_assert_ptr_nonnull(advantage_find(names[i]));
		ck_assert_str_eq(advantage_find(names[i])->name, names[i]);
		ck_assert_int_eq(advantage_find(names[i])->kind, kinds[i]);
	}
	for (e = advantage_table; e->name != NULL; e++, rows++) {
		ck_assert_msg(!(seen & 1u << e->kind), "%s: kind %d twice",
		    e->name, e->kind);
		seen |= 1u << e->kind;
	}
	ck_assert_uint_eq(rows, sizeof(names) / sizeof(names[0]));
	ck_assert_ptr_null(advantage_find("GRPO"));
	ck_assert_ptr_null(advantage_find("ppo"));
	ck_assert_ptr_null(advantage_find(""));
	ck_assert(advantage_find("san")->flags & ADV_STRATA);
	ck_assert(advantage_find("stratified")->flags & ADV_STRATA);
	ck_assert_int_eq(advantage_find("grpo")->flags & ADV_STRATA, 0);
	ck_assert(advantage_find("remax")->flags & ADV_BASE);
	ck_assert_int_eq(advantage_find("grpo")->flags & ADV_BASE, 0);
}
END_TEST

START_TEST(framework_names)
{
	/* Each framework's name finds the row it means; none is a row's
	 * own name; a row's names are in one entry. */
	static const char *const pairs[][2] = {
		{ "group_norm", "grpo" }, { "grpo_vectorized", "grpo" },
		{ "gspo", "grpo" }, { "cispo", "grpo" },
		{ "dr_grpo", "drgrpo" }, { "rloo_vectorized", "rloo" },
		{ "reinforce_plus_plus_baseline", "rpp-baseline" },
		{ "reinforce_baseline", "rpp-baseline" },
		{ "reinforce_plus_plus", "rpp" }, { "reinforce", "rpp" },
		{ "reinforce++", "rpp" }, { "grpo_passk", "passk" } };
	const struct alias *a, *b;
	const struct estimator *e;
	size_t i, n = 0;
	int j;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		ck_assert_ptr_nonnull(advantage_find(pairs[i][0]));
		ck_assert_str_eq(advantage_find(pairs[i][0])->name,
		    pairs[i][1]);
	}
	for (a = alias_table; a->target != NULL; a++) {
		if (a->of != ALIAS_ESTIMATOR)
			continue;
		ck_assert_ptr_nonnull(advantage_find(a->target));
		ck_assert_str_eq(advantage_find(a->target)->name, a->target);
		for (b = alias_table; b != a; b++)
			ck_assert(b->of != a->of ||
			    strcmp(b->target, a->target) != 0);
		ck_assert_ptr_nonnull(a->names[0].name);
		for (j = 0; j < ALIAS_MAX && a->names[j].name != NULL; j++) {
			n++;
			for (e = advantage_table; e->name != NULL; e++)
				ck_assert_str_ne(e->name, a->names[j].name);
		}
	}
	ck_assert_uint_eq(n, sizeof(pairs) / sizeof(pairs[0]));
	ck_assert_ptr_null(advantage_find("reinforce_plus"));
	ck_assert_str_eq(alias_resolve(ALIAS_ESTIMATOR, "x"), "x");
	/* A loss mode's framework name is no estimator's. */
	ck_assert_ptr_null(advantage_find("token-mean"));
	ck_assert_str_eq(alias_resolve(ALIAS_ESTIMATOR, "token_mean"),
	    "token_mean");
}
END_TEST

START_TEST(flags_batch)
{
	struct adv_params p = defaults();

	/* ADV_DEV: the estimators --eps-inside applies to */
	ck_assert_uint_eq(advantage_flags(advantage_find("grpo"), &p),
	    ADV_DEV);
	/* ADV_WHITEN: whitened over the batch after its groups */
	ck_assert_uint_eq(advantage_flags(advantage_find("rpp-baseline"), &p),
	    ADV_BATCH | ADV_WHITEN);
	p.std_scope = STD_BATCH;
	ck_assert_uint_eq(advantage_flags(advantage_find("grpo"), &p),
	    ADV_BATCH | ADV_DEV);
	ck_assert_uint_eq(advantage_flags(advantage_find("stratified"), &p),
	    ADV_BATCH | ADV_STRATA | ADV_DEV);
	/* drgrpo never divides, so the batch's deviation is not used; its
	 * advantages scale with the rewards */
	ck_assert_uint_eq(advantage_flags(advantage_find("drgrpo"), &p),
	    ADV_SCALES);
	/* -a san takes --std-scope: the batch's deviation */
	ck_assert_uint_eq(advantage_flags(advantage_find("san"), &p),
	    ADV_BATCH | ADV_STRATA | ADV_DEV);
	p.std_scope = STD_GROUP;
	p.gn_batch = 1;
	ck_assert_uint_eq(advantage_flags(advantage_find("grpo"), &p),
	    ADV_BATCH | ADV_DEV);
	/* drgrpo's mean is the batch's: Stratified GRPO's global baseline */
	ck_assert_uint_eq(advantage_flags(advantage_find("drgrpo"), &p),
	    ADV_BATCH | ADV_SCALES);
	ck_assert_uint_eq(advantage_flags(advantage_find("rloo"), &p),
	    ADV_SCALES);
	/* --std-scope none: GN is r - mean, which scales (with the batch's
	 * mean too); stratified then mixes a scaling part with SAN, which
	 * does not; -a san is r - mean_k */
	p.std_scope = STD_NONE;
	ck_assert_uint_eq(advantage_flags(advantage_find("grpo"), &p),
	    ADV_BATCH | ADV_SCALES | ADV_DEV);
	p.gn_batch = 0;
	ck_assert_uint_eq(advantage_flags(advantage_find("grpo"), &p),
	    ADV_SCALES | ADV_DEV);
	ck_assert_uint_eq(advantage_flags(advantage_find("stratified"), &p),
	    ADV_STRATA | ADV_MIXED | ADV_DEV);
	ck_assert_uint_eq(advantage_flags(advantage_find("san"), &p),
	    ADV_STRATA | ADV_SCALES | ADV_DEV);
	/* passk without a deviation scales; grpo-whiten is whitened */
	ck_assert_uint_eq(advantage_flags(advantage_find("passk"), &p),
	    ADV_SCALES);
	ck_assert_uint_eq(advantage_flags(advantage_find("grpo-whiten"), &p),
	    ADV_BATCH | ADV_DEV | ADV_WHITEN);
	p.std_scope = STD_BATCH;
	ck_assert_uint_eq(advantage_flags(advantage_find("passk"), &p),
	    ADV_BATCH);
	p.std_scope = STD_GROUP;
	ck_assert_uint_eq(advantage_flags(advantage_find("passk"), &p), 0);
	ck_assert_uint_eq(advantage_flags(advantage_find("gpg"), &p),
	    ADV_BATCH | ADV_SCALES);
	ck_assert_uint_eq(advantage_flags(advantage_find("rpp"), &p),
	    ADV_BATCH | ADV_WHITEN);
	ck_assert_uint_eq(advantage_flags(advantage_find("loo"), &p),
	    ADV_MIXED);
	ck_assert_uint_eq(advantage_flags(advantage_find("remax"), &p),
	    ADV_MIXED | ADV_BASE);
}
END_TEST

START_TEST(grpo_population)
{
	static const double r[] = { 1, 0, 0, 0 };
	struct adv_params p = defaults();
	struct tb t;
	/* mu = 0.25; var = (0.75^2 + 3 * 0.25^2) / 4 = (0.5625 + 0.1875) / 4
	 * = 0.1875; sigma = sqrt(0.1875) = sqrt(3)/4 = 0.43301270189221935 */
	const double sigma = 0.43301270189221935;

	tb_one(&t, r, NULL, 4, NULL);
	run("grpo", &t, &p);
	/* A_1 = (1 - 0.25) / (0.4330127 + 1e-6) = 1.7320468... ~ sqrt(3) */
	ck_assert_rel(t.adv[0], 0.75 / (sigma + EPS), REL);
	ck_assert_msg(fabs(t.adv[0] - sqrt(3.0)) < 1e-5, "%.17g", t.adv[0]);
	/* A_2..4 = -0.25 / (0.4330127 + 1e-6) = -0.5773489... ~ -1/sqrt(3) */
	ck_assert_rel(t.adv[1], -0.25 / (sigma + EPS), REL);
	ck_assert_rel(t.adv[2], -0.25 / (sigma + EPS), REL);
	ck_assert_rel(t.adv[3], -0.25 / (sigma + EPS), REL);
	ck_assert_msg(fabs(t.adv[1] + 1 / sqrt(3.0)) < 1e-5, "%.17g",
	    t.adv[1]);
}
END_TEST

START_TEST(grpo_sample)
{
	static const double r[] = { 1, 0, 0, 0 };
	struct adv_params p = defaults();
	struct tb t;

	/* sample var = 0.75 / 3 = 0.25, sigma = 0.5:
	 * A_1 = 0.75 / 0.500001 = 1.499997000006, A_2 = -0.25 / 0.500001 */
	p.sample = 1;
	tb_one(&t, r, NULL, 4, NULL);
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], 0.75 / 0.500001, REL);
	ck_assert_rel(t.adv[0], 1.499997000006, 1e-11);
	ck_assert_rel(t.adv[3], -0.25 / 0.500001, REL);
	/* eps 0: exactly 1.5 and -0.5 */
	p.eps = 0;
	run("grpo", &t, &p);
	ck_assert(t.adv[0] == 1.5);
	ck_assert(t.adv[1] == -0.5);
}
END_TEST

START_TEST(grpo_several_groups)
{
	/* g1 = 1,0,0,0 as above; g2 = 2,2 (equal: 0); g3 = 3,5: mu 4,
	 * sigma 1: A = -1/(1+1e-6), +1/(1+1e-6). */
	static const double r[] = { 1, 0, 0, 0, 2, 2, 3, 5 };
	static const size_t sz[] = { 4, 2, 2 };
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, NULL, 8, sz, 3, NULL);
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], 0.75 / (0.43301270189221935 + EPS), REL);
	ck_assert_pos_zero(t.adv[4]);
	ck_assert_pos_zero(t.adv[5]);
	ck_assert_rel(t.adv[6], -1 / (1 + EPS), REL);
	ck_assert_rel(t.adv[7], 1 / (1 + EPS), REL);
}
END_TEST

START_TEST(drgrpo)
{
	static const double r[] = { 1, 0, 0, 0, 3, 1 };
	static const size_t sz[] = { 4, 2 };
	struct adv_params p = defaults();
	struct tb t;

	/* r - mu: 0.75, -0.25 x3; g2 mu 2: 1, -1 (no division) */
	tb_make(&t, r, NULL, 6, sz, 2, NULL);
	run("drgrpo", &t, &p);
	ck_assert(t.adv[0] == 0.75);
	ck_assert(t.adv[1] == -0.25);
	ck_assert(t.adv[3] == -0.25);
	ck_assert(t.adv[4] == 1);
	ck_assert(t.adv[5] == -1);
	/* --std-scope does not change drgrpo */
	p.std_scope = STD_BATCH;
	run("drgrpo", &t, &p);
	ck_assert(t.adv[0] == 0.75);
	ck_assert(t.adv[4] == 1);
	/*
	 * --gn-scope batch: the baseline shared by the whole batch, A_G =
	 * R - R_global of Stratified GRPO Sec. 3.2 (Proposition 1), here
	 * the mean of the six rewards, 5/6: 1/6, -5/6, 13/6, 1/6.
	 */
	p.gn_batch = 1;
	run("drgrpo", &t, &p);
	ck_assert_rel(t.adv[0], 1.0 / 6, 1e-15);
	ck_assert_rel(t.adv[1], -5.0 / 6, 1e-15);
	ck_assert_rel(t.adv[4], 13.0 / 6, 1e-15);
	ck_assert_rel(t.adv[5], 1.0 / 6, 1e-15);
}
END_TEST

START_TEST(rloo)
{
	static const double r[] = { 1, 0, 0, 0, 1, 2, 3, 6 };
	static const size_t sz[] = { 4, 4 };
	struct adv_params p = defaults();
	struct tb t;

	/* g1: A_1 = 1 - 0 = 1; A_2 = 0 - (1+0+0)/3 = -1/3.
	 * g2: sum 12; A = r - (12 - r)/3: 1 - 11/3 = -8/3, 2 - 10/3 = -4/3,
	 * 3 - 9/3 = 0, 6 - 6/3 = 4. */
	tb_make(&t, r, NULL, 8, sz, 2, NULL);
	run("rloo", &t, &p);
	ck_assert_rel(t.adv[0], 1, REL);
	ck_assert_rel(t.adv[1], -1.0 / 3, REL);
	ck_assert_rel(t.adv[3], -1.0 / 3, REL);
	ck_assert_rel(t.adv[4], -8.0 / 3, REL);
	ck_assert_rel(t.adv[5], -4.0 / 3, REL);
	ck_assert_pos_zero(t.adv[6]);
	ck_assert_rel(t.adv[7], 4, REL);
}
END_TEST

START_TEST(san)
{
	/* One group, rewards 1,0,1,1,0,0 in strata 0,0,1,1,1,2.
	 * Stratum 0 = {1,0}: mu 0.5, sigma 0.5: A = +-0.5/0.500001.
	 * Stratum 1 = {1,1,0}: mu 2/3, var = (2 (1/3)^2 + (2/3)^2)/3 = 2/9,
	 * sigma = sqrt(2)/3 = 0.47140452079103168:
	 * A(1) = (1/3)/(sigma + eps), A(0) = (-2/3)/(sigma + eps).
	 * Stratum 2 = {0}: one record, no peer: 0. */
	static const double r[] = { 1, 0, 1, 1, 0, 0 };
	static const uint32_t s[] = { 0, 0, 1, 1, 1, 2 };
	const double s1 = 0.47140452079103168;
	struct adv_params p = defaults();
	struct tb t;

	tb_one(&t, r, NULL, 6, s);
	ck_assert_uint_eq(t.nstrat[0], 3);
	run("san", &t, &p);
	ck_assert_rel(t.adv[0], 0.5 / 0.500001, REL);
	ck_assert_rel(t.adv[1], -0.5 / 0.500001, REL);
	ck_assert_rel(t.adv[2], (1.0 / 3) / (s1 + EPS), REL);
	ck_assert_rel(t.adv[3], (1.0 / 3) / (s1 + EPS), REL);
	ck_assert_rel(t.adv[4], (-2.0 / 3) / (s1 + EPS), REL);
	ck_assert_pos_zero(t.adv[5]);
}
END_TEST

START_TEST(san_sample_std)
{
	/* Stratum {1,1,0} with --std sample: var = (2/3)/2 = 1/3,
	 * sigma = 0.57735026918962576; stratum {4, 2}: mu 3, sample
	 * sigma = sqrt(2) = 1.4142135623730951. */
	static const double r[] = { 1, 4, 1, 0, 2 };
	static const uint32_t s[] = { 0, 1, 0, 0, 1 };
	const double s0 = 0.57735026918962576, s1 = 1.4142135623730951;
	struct adv_params p = defaults();
	struct tb t;

	p.sample = 1;
	tb_one(&t, r, NULL, 5, s);
	run("san", &t, &p);
	ck_assert_rel(t.adv[0], (1.0 / 3) / (s0 + EPS), REL);
	ck_assert_rel(t.adv[3], (-2.0 / 3) / (s0 + EPS), REL);
	ck_assert_rel(t.adv[1], 1 / (s1 + EPS), REL);
	ck_assert_rel(t.adv[4], -1 / (s1 + EPS), REL);
}
END_TEST

START_TEST(stratified)
{
	/* The san batch above.  GN over the whole group 1,0,1,1,0,0: mu 0.5,
	 * sigma 0.5: GN = +-0.5/0.500001 = +-0.999998000004.
	 * A = 0.6 SAN + 0.4 GN:
	 *  i0 (r=1, s0): 0.6 (0.5/0.500001) + 0.4 (0.5/0.500001)
	 *  i2 (r=1, s1): 0.6 (1/3)/(s1+eps) + 0.4 (0.5/0.500001)
	 *  i4 (r=0, s1): 0.6 (-2/3)/(s1+eps) - 0.4 (0.5/0.500001)
	 *  i5 (r=0, s2): 0.6 * 0 - 0.4 (0.5/0.500001) */
	static const double r[] = { 1, 0, 1, 1, 0, 0 };
	static const uint32_t s[] = { 0, 0, 1, 1, 1, 2 };
	const double s1 = 0.47140452079103168, gn = 0.5 / 0.500001;
	struct adv_params p = defaults();
	struct tb t;

	tb_one(&t, r, NULL, 6, s);
	run("stratified", &t, &p);
	ck_assert_rel(t.adv[0], 0.6 * gn + 0.4 * gn, REL);
	ck_assert_rel(t.adv[1], -(0.6 * gn + 0.4 * gn), REL);
	ck_assert_rel(t.adv[2], 0.6 * (1.0 / 3) / (s1 + EPS) + 0.4 * gn, REL);
	ck_assert_rel(t.adv[4], 0.6 * (-2.0 / 3) / (s1 + EPS) - 0.4 * gn,
	    REL);
	ck_assert_rel(t.adv[5], -0.4 * gn, REL);
	/* --alpha 1 is SAN, --alpha 0 is GRPO */
	p.alpha = 1;
	run("stratified", &t, &p);
	ck_assert_rel(t.adv[2], (1.0 / 3) / (s1 + EPS), REL);
	ck_assert_pos_zero(t.adv[5]);
	p.alpha = 0;
	run("stratified", &t, &p);
	ck_assert_rel(t.adv[2], gn, REL);
	ck_assert_rel(t.adv[5], -gn, REL);
	/* alpha 0.25 */
	p.alpha = 0.25;
	run("stratified", &t, &p);
	ck_assert_rel(t.adv[4], 0.25 * (-2.0 / 3) / (s1 + EPS) - 0.75 * gn,
	    REL);
}
END_TEST

START_TEST(stratified_two_groups)
{
	/* g1 = 1,0 (strata 0,1: each alone, SAN 0); GN +-0.5/0.500001.
	 * g2 = 2,4,6,8 strata 0,0,1,1: SAN +-1/(1+eps) in each stratum;
	 * GN: mu 5, var (9+1+1+9)/4 = 5, sigma 2.2360679774997898:
	 * GN(2) = -3/(sigma+eps), GN(4) = -1/(sigma+eps). */
	static const double r[] = { 1, 0, 2, 4, 6, 8 };
	static const uint32_t s[] = { 0, 1, 0, 0, 1, 1 };
	static const size_t sz[] = { 2, 4 };
	const double sg = 2.2360679774997898;
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, NULL, 6, sz, 2, s);
	run("stratified", &t, &p);
	ck_assert_rel(t.adv[0], 0.4 * 0.5 / 0.500001, REL);
	ck_assert_rel(t.adv[1], -0.4 * 0.5 / 0.500001, REL);
	ck_assert_rel(t.adv[2], 0.6 * (-1 / (1 + EPS)) + 0.4 * (-3 / (sg +
	    EPS)), REL);
	ck_assert_rel(t.adv[3], 0.6 * (1 / (1 + EPS)) + 0.4 * (-1 / (sg +
	    EPS)), REL);
	ck_assert_rel(t.adv[5], 0.6 * (1 / (1 + EPS)) + 0.4 * (3 / (sg +
	    EPS)), REL);
}
END_TEST

START_TEST(opo)
{
	/* rewards 1,0,0 with T 2,4,4: baseline = (2*1)/(2+4+4) = 0.2:
	 * A = 0.8, -0.2, -0.2.  Plain mean would give 2/3, -1/3. */
	static const double r[] = { 1, 0, 0, 1, 0, 0 };
	static const double T[] = { 2, 4, 4, 0, 0, 0 };
	static const size_t sz[] = { 3, 3 };
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, T, 6, sz, 2, NULL);
	run("opo", &t, &p);
	ck_assert_rel(t.adv[0], 0.8, REL);
	ck_assert_rel(t.adv[1], -0.2, REL);
	ck_assert_rel(t.adv[2], -0.2, REL);
	/* g2 has no trained token: the plain mean 1/3 stands in */
	ck_assert_rel(t.adv[3], 2.0 / 3, REL);
	ck_assert_rel(t.adv[4], -1.0 / 3, REL);
}
END_TEST

START_TEST(mean_rounded_once)
{
	/*
	 * 0.1 + 0.2 + 0.3 is 0.6000000000000001 in doubles, and over 3 it is
	 * 0.20000000000000004: summed plainly, the middle reward's advantage
	 * is -3.4e-16 under grpo and -2.8e-17 under drgrpo and rloo, and the
	 * balanced modes count it negative.  The doubles' exact mean,
	 * 0.2000000000000000018, rounds to 0.2: exactly 0.  rloo's and loo's
	 * mean of the others (0.1 and 0.3 for the middle) likewise, and rpp's
	 * whitening mean.  (rpp-baseline and grpo-whiten are not held to it:
	 * 0.1 - 0.2 and 0.3 - 0.2 are not opposites in doubles, so the mean
	 * they whiten about is not 0.)
	 */
	static const double r[] = { 0.1, 0.2, 0.3 };
	static const size_t sz[] = { 3 };
	static const char *const est[] = { "grpo", "drgrpo", "rloo", "loo",
	    "san", "stratified", "rpp" };
	struct adv_params p = defaults();
	struct tb t;
	size_t i;

	for (i = 0; i < sizeof(est) / sizeof(est[0]); i++) {
		tb_make(&t, r, NULL, 3, sz, 1, NULL);
		run(est[i], &t, &p);
		ck_assert_msg(t.adv[1] == 0.0, "%s: %.17g", est[i], t.adv[1]);
		ck_assert_msg(t.adv[0] < 0 && t.adv[2] > 0, "%s", est[i]);
	}
}
END_TEST

START_TEST(opo_weighted_equal)
{
	/*
	 * The records that train a token all have 0.1; the 0.3 has no
	 * trained token, so the baseline is 0.1 and their advantage is 0
	 * exactly.  (3 + 2 + 1) * 0.1 / 6 rounds to 0.09999999999999999,
	 * which gave them 1.4e-17, and balanced counted them as positive.
	 */
	static const double r[] = { 0.1, 0.1, 0.1, 0.3 };
	static const double T[] = { 3, 2, 1, 0 };
	static const size_t sz[] = { 4 };
	struct adv_params p = defaults();
	struct tb t;
	int i;

	tb_make(&t, r, T, 4, sz, 1, NULL);
	run("opo", &t, &p);
	for (i = 0; i < 3; i++)
		ck_assert(t.adv[i] == 0.0);
	ck_assert(t.adv[3] == 0.3 - 0.1);
}
END_TEST

START_TEST(rpp_baseline)
{
	/* g1 = 1,0 with T 1,3; g2 = 2,2 with T 2,2.
	 * a = r - group mean = 0.5, -0.5, 0, 0.
	 * N = 1+3+2+2 = 8; abar = (0.5 - 1.5 + 0 + 0)/8 = -0.125.
	 * v = [1 (0.625)^2 + 3 (0.375)^2 + 2 (0.125)^2 + 2 (0.125)^2] / 7
	 *   = (0.390625 + 0.421875 + 0.03125 + 0.03125) / 7 = 0.875/7 = 0.125
	 * scale = sqrt(0.125 + 1e-8) = 0.35355340474...
	 * A = 0.625/scale, -0.375/scale, 0.125/scale, 0.125/scale. */
	static const double r[] = { 1, 0, 2, 2 };
	static const double T[] = { 1, 3, 2, 2 };
	static const size_t sz[] = { 2, 2 };
	const double sc = sqrt(0.125 + 1e-8);
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, T, 4, sz, 2, NULL);
	run("rpp-baseline", &t, &p);
	ck_assert_rel(t.adv[0], 0.625 / sc, REL);
	ck_assert_rel(t.adv[1], -0.375 / sc, REL);
	ck_assert_rel(t.adv[2], 0.125 / sc, REL);
	ck_assert_rel(t.adv[3], 0.125 / sc, REL);
	ck_assert_rel(sc, 0.35355340474, 1e-10);
	/* --std sample and --eps do not enter the whitening */
	p.sample = 1;
	p.eps = 0.5;
	run("rpp-baseline", &t, &p);
	ck_assert_rel(t.adv[0], 0.625 / sc, REL);
}
END_TEST

/* Every estimator except msgrpo. */
static const char *const all_est[] = { "grpo", "drgrpo", "rloo", "san",
	"stratified", "opo", "rpp-baseline" };
#define NEST (sizeof(all_est) / sizeof(all_est[0]))

START_TEST(equal_rewards_exact_zero)
{
	/* Three rewards of 0.1: (0.1+0.1+0.1)/3 = 0.10000000000000002, so
	 * the naive 0.1 - mean is -1.4e-17, and / (0 + 1e-6) -1.4e-11.
	 * SPEC §3 demands exactly 0.0. */
	static const double r[] = { 0.1, 0.1, 0.1 };
	volatile double naive = 0.1 - (0.1 + 0.1 + 0.1) / 3;
	struct adv_params p = defaults();
	struct tb t;
	size_t e, i;
	int sample;

	ck_assert(naive != 0.0);	/* the trap is real */
	for (sample = 0; sample <= 1; sample++)
		for (e = 0; e < NEST; e++) {
			p = defaults();
			p.sample = sample;
			tb_one(&t, r, NULL, 3, NULL);
			run(all_est[e], &t, &p);
			for (i = 0; i < 3; i++)
				ck_assert_msg(t.adv[i] == 0.0 &&
				    !signbit(t.adv[i]), "%s: adv[%zu] = %.17g",
				    all_est[e], i, t.adv[i]);
		}
}
END_TEST

START_TEST(equal_rewards_scopes)
{
	/* g1 = 0.1 x3 (equal), g2 = 0, 1: under --std-scope batch and
	 * none g1 still gives exactly 0. */
	static const double r[] = { 0.1, 0.1, 0.1, 0, 1 };
	static const size_t sz[] = { 3, 2 };
	struct adv_params p = defaults();
	struct tb t;
	size_t i;

	tb_make(&t, r, NULL, 5, sz, 2, NULL);
	p.std_scope = STD_BATCH;
	run("grpo", &t, &p);
	for (i = 0; i < 3; i++)
		ck_assert(t.adv[i] == 0.0);
	ck_assert(t.adv[4] > 0);
	p.std_scope = STD_NONE;
	run("grpo", &t, &p);
	for (i = 0; i < 3; i++)
		ck_assert(t.adv[i] == 0.0);
	ck_assert(t.adv[4] == 0.5);
	/* --gn-scope batch over a batch of equal rewards: 0 */
	{
		static const double q[] = { 0.1, 0.1, 0.1, 0.1, 0.1 };

		tb_make(&t, q, NULL, 5, sz, 2, NULL);
		p = defaults();
		p.gn_batch = 1;
		run("grpo", &t, &p);
		for (i = 0; i < 5; i++)
			ck_assert(t.adv[i] == 0.0);
	}
}
END_TEST

START_TEST(equal_rewards_in_stratum)
{
	/* Group 0.1,0.1,0.1,1 with strata 0,0,0,1: stratum 0 is equal, so
	 * its SAN is exactly 0 though the group is not equal. */
	static const double r[] = { 0.1, 0.1, 0.1, 1 };
	static const uint32_t s[] = { 0, 0, 0, 1 };
	struct adv_params p = defaults();
	struct tb t;
	size_t i;

	tb_one(&t, r, NULL, 4, s);
	run("san", &t, &p);
	for (i = 0; i < 4; i++)
		ck_assert_msg(t.adv[i] == 0.0, "adv[%zu] = %.17g", i,
		    t.adv[i]);
}
END_TEST

START_TEST(group_of_one)
{
	/* A group of one has no peer: 0 under every estimator. */
	static const double r[] = { 0.5 };
	struct adv_params p = defaults();
	struct tb t;
	size_t e;

	for (e = 0; e < NEST; e++) {
		tb_one(&t, r, NULL, 1, NULL);
		run(all_est[e], &t, &p);
		ck_assert_msg(t.adv[0] == 0.0, "%s: %.17g", all_est[e],
		    t.adv[0]);
	}
}
END_TEST

START_TEST(group_of_one_verl)
{
	/* --like verl: mean 0, std 1: grpo r/(1+eps) = 0.5/1.000001;
	 * drgrpo, rloo, opo: r = 0.5. */
	static const double r[] = { 0.5 };
	struct adv_params p = defaults();
	struct tb t;

	p.single = ~0u;
	p.sample = 1;
	tb_one(&t, r, NULL, 1, NULL);
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], 0.5 / (1 + EPS), REL);
	ck_assert_rel(t.adv[0], 0.4999995000005, 1e-12);
	run("drgrpo", &t, &p);
	ck_assert(t.adv[0] == 0.5);
	run("rloo", &t, &p);
	ck_assert(t.adv[0] == 0.5);
	run("opo", &t, &p);
	ck_assert(t.adv[0] == 0.5);
	/* eps 1e-4 (as trl's, with verl's rule): 0.5/1.0001 */
	p.eps = 1e-4;
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], 0.5 / 1.0001, REL);
}
END_TEST

START_TEST(group_of_one_verl_rpp)
{
	/* rpp-baseline under verl: two groups of one, r = 1, 3, T = 1, 1:
	 * a = r (mean 0) = 1, 3; abar = 2; v = (1 + 1)/(2 - 1) = 2;
	 * A = -1/sqrt(2 + 1e-8), +1/sqrt(2 + 1e-8).  Without verl's rule
	 * a = 0, 0: all equal, A = 0. */
	static const double r[] = { 1, 3 };
	static const size_t sz[] = { 1, 1 };
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, NULL, 2, sz, 2, NULL);
	p.single = EST_BIT(EST_RPP_BASELINE);
	run("rpp-baseline", &t, &p);
	ck_assert_rel(t.adv[0], -1 / sqrt(2 + 1e-8), REL);
	ck_assert_rel(t.adv[1], 1 / sqrt(2 + 1e-8), REL);
	/* the rule is the kind's: grpo's bit leaves rpp-baseline alone */
	p.single = ~EST_BIT(EST_RPP_BASELINE);
	run("rpp-baseline", &t, &p);
	ck_assert_pos_zero(t.adv[0]);
	ck_assert_pos_zero(t.adv[1]);
}
END_TEST

START_TEST(group_of_one_in_batch)
{
	/* A group of one beside a normal group: 0, the other untouched. */
	static const double r[] = { 7, 1, 0, 0, 0 };
	static const size_t sz[] = { 1, 4 };
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, NULL, 5, sz, 2, NULL);
	run("grpo", &t, &p);
	ck_assert_pos_zero(t.adv[0]);
	ck_assert_rel(t.adv[1], 0.75 / (0.43301270189221935 + EPS), REL);
	run("stratified", &t, &p);
	ck_assert_pos_zero(t.adv[0]);
}
END_TEST

START_TEST(std_scope_batch)
{
	/* g1 = 1,0 and g2 = 3,1.  Batch: mu 1.25, deviations -0.25, -1.25,
	 * 1.75, -0.25; squares 0.0625 + 1.5625 + 3.0625 + 0.0625 = 4.75;
	 * population sigma = sqrt(4.75/4) = sqrt(1.1875) =
	 * 1.0897247358851685.  Group means stay: 0.5 and 2.
	 * A = (0.5, -0.5, 1, -1) / (sigma_b + eps). */
	static const double r[] = { 1, 0, 3, 1 };
	static const size_t sz[] = { 2, 2 };
	const double sb = 1.0897247358851685;
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, NULL, 4, sz, 2, NULL);
	p.std_scope = STD_BATCH;
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], 0.5 / (sb + EPS), REL);
	ck_assert_rel(t.adv[1], -0.5 / (sb + EPS), REL);
	ck_assert_rel(t.adv[2], 1 / (sb + EPS), REL);
	ck_assert_rel(t.adv[3], -1 / (sb + EPS), REL);
	/* sample: sqrt(4.75/3) = 1.2583057392117916 */
	p.sample = 1;
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[2], 1 / (1.2583057392117916 + EPS), REL);
	/* stratified takes its GN from the same place: one stratum per
	 * group here, SAN = GN of the group (+-0.5/0.500001 in g1 with
	 * population std) */
	p.sample = 0;
	run("stratified", &t, &p);
	ck_assert_rel(t.adv[0], 0.6 * 0.5 / 0.500001 + 0.4 * 0.5 / (sb + EPS),
	    REL);
}
END_TEST

START_TEST(std_scope_none)
{
	static const double r[] = { 1, 0, 3, 1 };
	static const size_t sz[] = { 2, 2 };
	struct adv_params p = defaults();
	struct tb t;

	/* r - group mean: 0.5, -0.5, 1, -1 */
	tb_make(&t, r, NULL, 4, sz, 2, NULL);
	p.std_scope = STD_NONE;
	run("grpo", &t, &p);
	ck_assert(t.adv[0] == 0.5);
	ck_assert(t.adv[1] == -0.5);
	ck_assert(t.adv[2] == 1);
	ck_assert(t.adv[3] == -1);
}
END_TEST

START_TEST(gn_scope_batch)
{
	/* Mean and deviation of the batch 1,0,3,1: mu 1.25,
	 * sigma 1.0897247358851685:
	 * A = (-0.25, -1.25, 1.75, -0.25) / (sigma + eps). */
	static const double r[] = { 1, 0, 3, 1 };
	static const size_t sz[] = { 2, 2 };
	const double sb = 1.0897247358851685;
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, NULL, 4, sz, 2, NULL);
	p.gn_batch = 1;
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], -0.25 / (sb + EPS), REL);
	ck_assert_rel(t.adv[1], -1.25 / (sb + EPS), REL);
	ck_assert_rel(t.adv[2], 1.75 / (sb + EPS), REL);
	ck_assert_rel(t.adv[3], -0.25 / (sb + EPS), REL);
	/* stratified: 0.6 SAN (group, one stratum: +-0.5/0.500001 and
	 * +-1/1.000001) + 0.4 GN (batch) */
	run("stratified", &t, &p);
	ck_assert_rel(t.adv[2], 0.6 * 1 / (1 + EPS) + 0.4 * 1.75 / (sb + EPS),
	    REL);
	ck_assert_rel(t.adv[1], 0.6 * -0.5 / 0.500001 + 0.4 * -1.25 / (sb +
	    EPS), REL);
}
END_TEST

START_TEST(loo)
{
	/* NeMo-RL's example, [1,0,1,1], sample deviation, eps 1e-6:
	 * for a 1 the others are 0,1,1: b = 2/3, deviations -2/3, 1/3, 1/3,
	 * sum of squares 2/3, / (3 - 1) = 1/3, s = 0.57735026918962576,
	 * A = (1/3) / (s + 1e-6) = 0.57734927...; for the 0 the others are
	 * 1,1,1: s = 0, A = 0 - 1 = -1 unscaled. */
	static const double r[] = { 1, 0, 1, 1 };
	const double s = 0.57735026918962576;
	struct adv_params p = defaults();
	struct tb t;

	p.sample = 1;
	tb_one(&t, r, NULL, 4, NULL);
	run("loo", &t, &p);
	ck_assert_rel(t.adv[0], (1.0 / 3) / (s + EPS), REL);
	ck_assert_rel(t.adv[0], 0.577349269, 1e-9);
	ck_assert(t.adv[1] == -1);
	ck_assert_rel(t.adv[2], (1.0 / 3) / (s + EPS), REL);
	ck_assert_rel(t.adv[3], (1.0 / 3) / (s + EPS), REL);
	/* nemo-rl@0.3: population deviation of the others, sqrt(2/9), no
	 * eps: (1/3) / (sqrt(2)/3) = 1/sqrt(2) */
	p.sample = 0;
	p.eps = 0;
	run("loo", &t, &p);
	ck_assert_rel(t.adv[0], 1 / sqrt(2.0), REL);
	ck_assert(t.adv[1] == -1);
}
END_TEST

START_TEST(loo_edges)
{
	/* [0.5,0.5,0.5,1.0]: the 1.0's others are equal: 1.0 - 0.5 = 0.5
	 * unscaled (NeMo-RL's float32 E[r^2] - b^2 may not give 0 there);
	 * a 0.5's others 0.5,0.5,1: b = 2/3, sum of squares 1/6, sample s =
	 * sqrt(1/12) = 0.28867513459481287, A = (-1/6)/(s + 1e-6).
	 * A pair: one other, no deviation: r_i - r_j.  A group of one: 0.
	 * Equal rewards: exactly 0. */
	static const double r[] = { 0.5, 0.5, 0.5, 1.0, 0.3, 0.7, 4, 2, 2,
	    2 };
	static const size_t sz[] = { 4, 2, 1, 3 };
	const double s = 0.28867513459481287;
	struct adv_params p = defaults();
	struct tb t;

	p.sample = 1;
	tb_make(&t, r, NULL, 10, sz, 4, NULL);
	run("loo", &t, &p);
	ck_assert(t.adv[3] == 0.5);
	ck_assert_rel(t.adv[0], (-1.0 / 6) / (s + EPS), REL);
	ck_assert(t.adv[4] == 0.3 - 0.7);
	ck_assert(t.adv[5] == 0.7 - 0.3);
	ck_assert_pos_zero(t.adv[6]);
	ck_assert_pos_zero(t.adv[7]);
	ck_assert_pos_zero(t.adv[8]);
	ck_assert_pos_zero(t.adv[9]);
}
END_TEST

START_TEST(passk)
{
	/* [0.2, 0.9, 0.5, 0.1]: the best 0.9 gets (0.9 - 0.5) / (sigma +
	 * eps), the rest 0.  mean 0.425; squares of the deviations
	 * 0.050625 + 0.225625 + 0.005625 + 0.105625 = 0.3875: population
	 * sigma sqrt(0.096875) = 0.31124748994..., sample sqrt(0.3875/3).
	 * Ties for the best: all 0.  --std-scope none: 0.9 - 0.5. */
	static const double r[] = { 0.2, 0.9, 0.5, 0.1, 1, 0, 1 };
	static const size_t sz[] = { 4, 3 };
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, NULL, 7, sz, 2, NULL);
	run("passk", &t, &p);
	ck_assert_rel(t.adv[1], (0.9 - 0.5) / (sqrt(0.096875) + EPS), REL);
	ck_assert_rel(t.adv[1], 1.2851468, 1e-7);
	ck_assert_pos_zero(t.adv[0]);
	ck_assert_pos_zero(t.adv[2]);
	ck_assert_pos_zero(t.adv[3]);
	ck_assert_pos_zero(t.adv[4]);
	ck_assert_pos_zero(t.adv[5]);
	ck_assert_pos_zero(t.adv[6]);
	p.sample = 1;
	run("passk", &t, &p);
	ck_assert_rel(t.adv[1], (0.9 - 0.5) / (sqrt(0.3875 / 3) + EPS), REL);
	p.std_scope = STD_NONE;
	run("passk", &t, &p);
	ck_assert(t.adv[1] == 0.9 - 0.5);
}
END_TEST

START_TEST(passk_group_of_one)
{
	/* A group of one: 0, or refused under verl's rule (verl raises). */
	static const double r[] = { 1, 0, 0.5 };
	static const size_t sz[] = { 2, 1 };
	const struct estimator *e = advantage_find("passk");
	struct adv_params p = defaults();
	struct diag d = { 0 };
	struct tb t;

	tb_make(&t, r, NULL, 3, sz, 2, NULL);
	run("passk", &t, &p);
	ck_assert_pos_zero(t.adv[2]);
	ck_assert_rel(t.adv[0], 1 / (0.5 + EPS), REL);
	p.single = EST_BIT(EST_PASSK);
	ck_assert_int_eq(advantage_run(e, &t.b, &p, t.adv, &d), EXIT_DATA);
	ck_assert_has(d.msg, "grpo_passk needs two");
	ck_assert_has(d.msg, "f.jsonl:3:");
}
END_TEST

START_TEST(gpg)
{
	/* Batch of B = 7: [1,0,0,0], [0,0], [2]; two rewards are not 0:
	 * alpha = 7/2 = 3.5.  g1: 3.5 (r - 0.25) = 2.625, -0.875 x3; g2
	 * equal: 0; the group of one: 0, or alpha r = 7 under verl's rule
	 * (mean 0).  All rewards 0: alpha = B / 1, every A = 0. */
	static const double r[] = { 1, 0, 0, 0, 0, 0, 2 };
	static const double z[] = { 0, 0, 0 };
	static const size_t sz[] = { 4, 2, 1 };
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, NULL, 7, sz, 3, NULL);
	run("gpg", &t, &p);
	ck_assert(t.adv[0] == 2.625);
	ck_assert(t.adv[1] == -0.875);
	ck_assert(t.adv[3] == -0.875);
	ck_assert_pos_zero(t.adv[4]);
	ck_assert_pos_zero(t.adv[6]);
	p.single = EST_BIT(EST_GPG);
	run("gpg", &t, &p);
	ck_assert(t.adv[6] == 7);
	tb_one(&t, z, NULL, 3, NULL);
	run("gpg", &t, &p);
	ck_assert_pos_zero(t.adv[0]);
}
END_TEST

START_TEST(rpp_whitenings)
{
	/* r = 1, 0, 2 with T = 1, 3, 0 (the last never counts): N = 4,
	 * mean = 1/4; sum T (a - mean)^2 = 0.5625 + 3 (0.0625) = 0.75.
	 * verl:     v = 0.75/3 = 0.25, scale sqrt(0.25 + 1e-8);
	 * OpenRLHF: v = 0.75/4 = 0.1875, scale sqrt(0.1875) = sqrt(3)/4;
	 * AReaL:    s = sqrt(0.25) = 0.5, scale 0.5 + 1e-5.
	 * A_i = (r_i - 1/4) / scale: 0.75, -0.25, 1.75 over scale. */
	static const double r[] = { 1, 0, 2 };
	static const double T[] = { 1, 3, 0 };
	static const size_t sz[] = { 2, 1 };
	const double v = sqrt(0.25 + 1e-8), c = sqrt(3.0) / 4;
	struct adv_params p = defaults();
	struct diag d = { 0 };
	struct tb t;

	tb_make(&t, r, T, 3, sz, 2, NULL);
	run("rpp", &t, &p);
	ck_assert_rel(t.adv[0], 0.75 / v, REL);
	ck_assert_rel(t.adv[1], -0.25 / v, REL);
	ck_assert_rel(t.adv[2], 1.75 / v, REL);
	p.wh.kind = WHITEN_CLAMP;
	run("rpp", &t, &p);
	ck_assert_rel(t.adv[0], 0.75 / c, REL);
	ck_assert_rel(t.adv[0], sqrt(3.0), REL);
	ck_assert_rel(t.adv[1], -0.25 / c, REL);
	p.wh.kind = WHITEN_STD;
	run("rpp", &t, &p);
	ck_assert_rel(t.adv[0], 0.75 / 0.50001, REL);
	ck_assert_rel(t.adv[2], 1.75 / 0.50001, REL);
	/* slime asserts that no record is fully masked */
	p.rpp_tokens = 1;
	ck_assert_int_eq(advantage_run(advantage_find("rpp"), &t.b, &p, t.adv,
	    &d), EXIT_DATA);
	ck_assert_has(d.msg, "slime's reinforce_plus_plus");
}
END_TEST

START_TEST(whiten_clamp_floor)
{
	/* OpenRLHF's clamp: r = 1, 1.00001 (T 1, 1): v = (5e-6)^2 = 2.5e-11
	 * < 1e-8, so the scale is sqrt(1e-8) = 1e-4: A = -+5e-6/1e-4 =
	 * -+0.05 (verl's sqrt(v + 1e-8) gives 0.04999...). */
	static const double r[] = { 1, 1.00001 };
	static const size_t sz[] = { 1, 1 };
	struct adv_params p = defaults();
	struct tb t;

	p.wh.kind = WHITEN_CLAMP;
	tb_make(&t, r, NULL, 2, sz, 2, NULL);
	run("rpp", &t, &p);
	ck_assert_rel(t.adv[0], -(1.00001 - 1) / 2 / 1e-4, 1e-9);
	ck_assert_rel(t.adv[1], 0.05, 1e-6);
}
END_TEST

START_TEST(grpo_whiten)
{
	/* Population GN with eps 0: [1,0] -> +-1, [2,2] -> 0, 0; T = 1, 3,
	 * 2, 2: N = 8, mean = (1 - 3)/8 = -0.25, sum T (x - mean)^2 =
	 * 1.5625 + 1.6875 + 2 (0.0625) + 2 (0.0625) = 3.5.
	 * verl's: v = 3.5/7 = 0.5, scale sqrt(0.5 + 1e-8);
	 * AReaL's: scale sqrt(0.5) + 1e-5.
	 * A = 1.25, -0.75, 0.25, 0.25 over scale.  No trained token at
	 * all: AReaL leaves x, verl's gives 0. */
	static const double r[] = { 1, 0, 2, 2 };
	static const double T[] = { 1, 3, 2, 2 }, T0[] = { 0, 0, 0, 0 };
	static const size_t sz[] = { 2, 2 };
	const double v = sqrt(0.5 + 1e-8), a = sqrt(0.5) + 1e-5;
	struct adv_params p = defaults();
	struct tb t;

	p.eps = 0;
	tb_make(&t, r, T, 4, sz, 2, NULL);
	run("grpo-whiten", &t, &p);
	ck_assert_rel(t.adv[0], 1.25 / v, REL);
	ck_assert_rel(t.adv[1], -0.75 / v, REL);
	ck_assert_rel(t.adv[2], 0.25 / v, REL);
	p.wh.kind = WHITEN_STD;
	run("grpo-whiten", &t, &p);
	ck_assert_rel(t.adv[0], 1.25 / a, REL);
	ck_assert_rel(t.adv[3], 0.25 / a, REL);
	tb_make(&t, r, T0, 4, sz, 2, NULL);
	run("grpo-whiten", &t, &p);
	ck_assert(t.adv[0] == 1);
	ck_assert(t.adv[1] == -1);
	p.wh.kind = WHITEN_VERL;
	run("grpo-whiten", &t, &p);
	ck_assert_pos_zero(t.adv[0]);
}
END_TEST

START_TEST(remax)
{
	/* A = r - b, no group statistic: 1 - 0.5, 0 - 0.5, exactly +0. */
	static const double r[] = { 1, 0, 0.5 };
	static const size_t sz[] = { 3 };
	struct adv_params p = defaults();
	struct tb t;

	tb_make(&t, r, NULL, 3, sz, 1, NULL);
	t.base[0] = t.base[1] = t.base[2] = 0.5;
	run("remax", &t, &p);
	ck_assert(t.adv[0] == 0.5);
	ck_assert(t.adv[1] == -0.5);
	ck_assert_pos_zero(t.adv[2]);
}
END_TEST

START_TEST(gdpo)
{
	/*
	 * Two parts a record, weights 1 and 2.  Group 1: part 0 is 1, 0,
	 * null (mean 0.5, std 0.5: +-x, x = 0.5 / (0.5 + eps), the null
	 * adds 0); part 1 is 0, 1, 1 (mean 2/3, std sqrt(2)/3 = s).
	 * Group 2: part 0 equal (adds 0), part 1 one number (no peer, 0).
	 * Sums A = x - (4/3)/(s + eps), -x + (2/3)/(s + eps),
	 * (2/3)/(s + eps), 0, 0, whose mean is 0 (each part's numbers
	 * sum to 0 in the group), then A / (std + eps) over the five, std
	 * about 0: the last two exactly 0.  The summed rewards (r) are not
	 * read.
	 */
	static const double rk[] = { 1, 0, 0, 1, NAN, 1, 2, 1, 2, NAN };
	static const size_t sz[] = { 3, 2 };
	struct adv_params p = defaults();
	struct tb t;
	double x = 0.5 / (0.5 + EPS), s = sqrt(2) / 3, A[5], v = 0;
	size_t i;

	tb_make(&t, NULL, NULL, 5, sz, 2, NULL);
	t.b.rk = rk;
	t.b.K = 2;
	p.rweight[0] = 1;
	p.rweight[1] = 2;
	p.nrweight = 2;
	run("gdpo", &t, &p);
	A[0] = x - (4.0 / 3) / (s + EPS);
	A[1] = -x + (2.0 / 3) / (s + EPS);
	A[2] = (2.0 / 3) / (s + EPS);
	A[3] = A[4] = 0;
	ck_assert(fabs(A[0] + A[1] + A[2]) < 1e-15);
	for (i = 0; i < 5; i++)
		v += A[i] * A[i] / 5;
	for (i = 0; i < 3; i++)
		ck_assert_rel(t.adv[i], A[i] / (sqrt(v) + EPS), 1e-12);
	ck_assert_pos_zero(t.adv[3]);
	ck_assert_pos_zero(t.adv[4]);
	/* Weights 1e200 (sums near 1e200, whose squares overflow): the
	 * same sums over their deviation, eps now negligible; 1e-200:
	 * the sums (near 1e-200) over eps alone, not 0. */
	p.rweight[0] = 1e200;
	p.rweight[1] = 2e200;
	tb_make(&t, NULL, NULL, 5, sz, 2, NULL);
	t.b.rk = rk;
	t.b.K = 2;
	run("gdpo", &t, &p);
	for (i = 0; i < 3; i++)
		ck_assert_rel(t.adv[i], A[i] / sqrt(v), 1e-12);
	p.rweight[0] = 1e-200;
	p.rweight[1] = 2e-200;
	tb_make(&t, NULL, NULL, 5, sz, 2, NULL);
	t.b.rk = rk;
	t.b.K = 2;
	run("gdpo", &t, &p);
	for (i = 0; i < 3; i++)
		ck_assert_rel(t.adv[i], A[i] * 1e-200 / EPS, 1e-9);
	/* Sums all equal (every part equal in its group): exactly 0. */
	tb_make(&t, NULL, NULL, 5, sz, 2, NULL);
	t.b.rk = (const double[]){ 1, 3, 1, 3, 1, 3, 0, 5, 0, 5 };
	t.b.K = 2;
	run("gdpo", &t, &p);
	for (i = 0; i < 5; i++)
		ck_assert_pos_zero(t.adv[i]);
}
END_TEST

START_TEST(eps_option)
{
	/* --eps 0.5: 1,0,0,0 gives 0.75/(0.4330127 + 0.5). */
	static const double r[] = { 1, 0, 0, 0 };
	struct adv_params p = defaults();
	struct tb t;

	p.eps = 0.5;
	tb_one(&t, r, NULL, 4, NULL);
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], 0.75 / (0.43301270189221935 + 0.5), REL);
}
END_TEST

/*
 * The papers' variants (Stratified GRPO Sec. 3.2, Balanced Aggregation
 * Eq. 2-3).  One group of six in two strata of three: stratum 0 has
 * rewards 1, 0, 1 (mean 2/3), stratum 1 has 1, 0, 0 (mean 1/3); the
 * group's mean is 1/2 and its population deviation 1/2.
 */
static const double pv_r[] = { 1, 0, 1, 1, 0, 0 };
static const uint32_t pv_s[] = { 0, 0, 0, 1, 1, 1 };

START_TEST(san_no_division)
{
	struct adv_params p = defaults();
	struct tb t;

	/* -a san --std-scope none: the stratum baseline, A_S = R - mean_k
	 * (Sec. 3.2): 1/3, -2/3, 1/3 and 2/3, -1/3, -1/3. */
	tb_one(&t, pv_r, NULL, 6, pv_s);
	p.std_scope = STD_NONE;
	run("san", &t, &p);
	ck_assert_rel(t.adv[0], 1.0 / 3, 1e-15);
	ck_assert_rel(t.adv[1], -2.0 / 3, 1e-15);
	ck_assert_rel(t.adv[3], 2.0 / 3, 1e-15);
	ck_assert_rel(t.adv[5], -1.0 / 3, 1e-15);
	/* Proposition 1: A_G = A_S + (mean_k - mean) per stratum: -a drgrpo
	 * minus -a san is 1/6 in stratum 0 and -1/6 in stratum 1. */
	{
		double as[6];
		size_t i;

		memcpy(as, t.adv, sizeof(as));
		run("drgrpo", &t, &p);
		for (i = 0; i < 6; i++)
			ck_assert_rel(t.adv[i] - as[i], pv_s[i] ? -1.0 / 6 :
			    1.0 / 6, 1e-14);
	}
	/* --std-scope batch: divided by the batch's deviation, 1/2 + eps. */
	p.std_scope = STD_BATCH;
	run("san", &t, &p);
	ck_assert_rel(t.adv[1], (-2.0 / 3) / (0.5 + EPS), REL);
	ck_assert_rel(t.adv[3], (2.0 / 3) / (0.5 + EPS), REL);
	/* Inside stratified SAN stays Definition 1 (sigma_k = sqrt(2)/3):
	 * --std-scope none leaves only GN undivided. */
	p.std_scope = STD_NONE;
	run("stratified", &t, &p);
	ck_assert_rel(t.adv[1], 0.6 * (-2.0 / 3) / (sqrt(2) / 3 + EPS) +
	    0.4 * -0.5, REL);
}
END_TEST

/*
 * --gn-scope batch --std-scope none: GN with the batch's mean and no
 * deviation, the baseline shared by the whole batch of Stratified GRPO
 * Sec. 3.2 (Theorem 1's A_G): over two groups 1, 0 and 3, 1 the mean
 * is 5/4, so -1/4, -5/4, 7/4, -1/4; -a drgrpo --gn-scope batch alike.
 */
START_TEST(batch_baseline)
{
	static const double r[] = { 1, 0, 3, 1 };
	static const size_t sz[] = { 2, 2 };
	struct adv_params p = defaults();
	struct tb t;
	const char *est[] = { "grpo", "drgrpo" };
	size_t e;

	tb_make(&t, r, NULL, 4, sz, 2, NULL);
	p.gn_batch = 1;
	p.std_scope = STD_NONE;
	for (e = 0; e < 2; e++) {
		run(est[e], &t, &p);
		ck_assert(t.adv[0] == -0.25 && t.adv[1] == -1.25 &&
		    t.adv[2] == 1.75 && t.adv[3] == -0.25);
	}
}
END_TEST

/*
 * --eps-inside: the deviation sqrt(var + eps) of Balanced Aggregation
 * Eq. 2, A = (r - mean) / sqrt(var + eps) (Eq. 3).  With eps = 0 binary
 * rewards give Eq. 11 exactly: sqrt((G - k) / k) for the k positives and
 * -sqrt(k / (G - k)) for the others; 1 of 4 gives sqrt(3), -1/sqrt(3).
 * With eps 1e-6: 0.75 / sqrt(3/16 + 1e-6).  Equal rewards stay 0.
 */
START_TEST(eps_inside)
{
	static const double r[] = { 1, 0, 0, 0 }, eq[] = { 2, 2, 2 };
	static const uint32_t s[] = { 0, 0, 1, 1 };
	struct adv_params p = defaults();
	struct tb t;

	tb_one(&t, r, NULL, 4, NULL);
	p.eps_inside = 1;
	p.eps = 0;
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], sqrt(3), 1e-15);
	ck_assert_rel(t.adv[1], -1 / sqrt(3), 1e-15);
	p.eps = 1e-6;
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], 0.75 / sqrt(0.1875 + 1e-6), REL);
	/* SAN: strata {1, 0} and {0, 0}: 0.5 / sqrt(0.25 + eps), and the
	 * equal stratum 0. */
	tb_one(&t, r, NULL, 4, s);
	run("san", &t, &p);
	ck_assert_rel(t.adv[0], 0.5 / sqrt(0.25 + 1e-6), REL);
	ck_assert_pos_zero(t.adv[2]);
	ck_assert_pos_zero(t.adv[3]);
	/* --std sample: var with n - 1, 1/4 for 1 of 4 (3/16 * 4/3). */
	p.sample = 1;
	tb_one(&t, r, NULL, 4, NULL);
	run("grpo", &t, &p);
	ck_assert_rel(t.adv[0], 0.75 / sqrt(0.25 + 1e-6), REL);
	p.sample = 0;
	tb_one(&t, eq, NULL, 3, NULL);
	run("grpo", &t, &p);
	ck_assert_pos_zero(t.adv[0]);
}
END_TEST

/* Options an estimator would ignore are refused, not dropped. */
START_TEST(ignored_options)
{
	struct adv_params p = defaults();
	struct diag d = { 0 };

	p.eps_inside = 1;
	ck_assert_int_eq(advantage_check(advantage_find("rloo"), &p, &d), 2);
	ck_assert_has(d.msg, "--eps-inside");
	ck_assert_int_eq(advantage_check(advantage_find("msgrpo"), &p, &d),
	    0);
	p.eps_inside = 0;
	p.random_strata = 1;
	ck_assert_int_eq(advantage_check(advantage_find("grpo"), &p, &d), 2);
	ck_assert_int_eq(advantage_check(advantage_find("san"), &p, &d), 0);
	p.random_strata = 0;
	p.gn_batch = 1;
	ck_assert_int_eq(advantage_check(advantage_find("san"), &p, &d), 2);
	ck_assert_has(d.msg, "--gn-scope batch");
	ck_assert_int_eq(advantage_check(advantage_find("drgrpo"), &p, &d),
	    0);
}
END_TEST

static Suite *
advantage_suite(void)
{
	Suite *s = suite_create("advantage");
	TCase *tc;

	tc = tcase_create("table");
	tcase_add_test(tc, defaults_and_table);
	tcase_add_test(tc, framework_names);
	tcase_add_test(tc, flags_batch);
	suite_add_tcase(s, tc);

	tc = tcase_create("estimators");
	tcase_add_test(tc, grpo_population);
	tcase_add_test(tc, grpo_sample);
	tcase_add_test(tc, grpo_several_groups);
	tcase_add_test(tc, drgrpo);
	tcase_add_test(tc, rloo);
	tcase_add_test(tc, san);
	tcase_add_test(tc, san_sample_std);
	tcase_add_test(tc, stratified);
	tcase_add_test(tc, stratified_two_groups);
	tcase_add_test(tc, opo);
	tcase_add_test(tc, opo_weighted_equal);
	tcase_add_test(tc, mean_rounded_once);
	tcase_add_test(tc, rpp_baseline);
	tcase_add_test(tc, eps_option);
	suite_add_tcase(s, tc);

	tc = tcase_create("frameworks");
	tcase_add_test(tc, loo);
	tcase_add_test(tc, loo_edges);
	tcase_add_test(tc, passk);
	tcase_add_test(tc, passk_group_of_one);
	tcase_add_test(tc, gpg);
	tcase_add_test(tc, rpp_whitenings);
	tcase_add_test(tc, whiten_clamp_floor);
	tcase_add_test(tc, grpo_whiten);
	tcase_add_test(tc, remax);
	tcase_add_test(tc, gdpo);
	suite_add_tcase(s, tc);

	tc = tcase_create("edge");
	tcase_add_test(tc, equal_rewards_exact_zero);
	tcase_add_test(tc, equal_rewards_scopes);
	tcase_add_test(tc, equal_rewards_in_stratum);
	tcase_add_test(tc, group_of_one);
	tcase_add_test(tc, group_of_one_verl);
	tcase_add_test(tc, group_of_one_verl_rpp);
	tcase_add_test(tc, group_of_one_in_batch);
	suite_add_tcase(s, tc);

	tc = tcase_create("scopes");
	tcase_add_test(tc, std_scope_batch);
	tcase_add_test(tc, std_scope_none);
	tcase_add_test(tc, gn_scope_batch);
	tcase_add_test(tc, san_no_division);
	tcase_add_test(tc, batch_baseline);
	tcase_add_test(tc, eps_inside);
	tcase_add_test(tc, ignored_options);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(advantage_suite());
}
