/*
 * check_msgrpo.c - tests of the MS-GRPO estimator (src/msgrpo*.c).
 * The exact path is checked against hand values, a brute-force subset
 * enumeration (msgrpo_brute.h) and the independent conformance numbers;
 * the sampled path against the exact one where they must agree, and for
 * determinism and independence of record order.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advmath_ms.h"
#include "msgrpo.h"
#include "msgrpo_brute.h"

#define MAXG	128

static uint64_t test_rng;

/* Each test starts from the same stream, forked (CK_FORK) or not. */
static void
reset_rng(void)
{
	test_rng = 0x1234567;
}

static uint64_t
trand(void)
{
	uint64_t z;

	test_rng += 0x9e3779b97f4a7c15ULL;
	z = test_rng;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
tunif(void)
{
	return (double)(trand() >> 11) / 9007199254740992.0;
}

/* C(n, k), exact for the small n used here. */
static double
binom_test(size_t n, size_t k)
{
	double c = 1.0;
	size_t i;

	for (i = 0; i < k; i++)
		c = c * (double)(n - i) / (double)(i + 1);
	return c;
}

static int
close_rel(double a, double b, double rel)
{
	return fabs(a - b) <= rel * (1.0 + fabs(b));
}

/* Every output finite and no -0. */
static void
assert_clean(const double *adv, size_t G)
{
	size_t i;

	for (i = 0; i < G; i++) {
		ck_assert_msg(isfinite(adv[i]), "adv[%zu] = %g", i, adv[i]);
		ck_assert_msg(!(adv[i] == 0.0 && signbit(adv[i])),
		    "adv[%zu] is -0", i);
	}
}

static struct ms_params
params(int tau_min, enum ms_weights w, int token, enum ms_mode mode)
{
	struct ms_params p;

	msgrpo_defaults(&p);
	p.tau_min = tau_min;
	p.weights = w;
	p.token_stats = token;
	p.mode = mode;
	return p;
}

enum kind { K_BINARY, K_PASSRATE, K_CONTINUOUS };

static void
fill(enum kind k, size_t G, double *r, double *T, uint64_t *tie)
{
	size_t i;

	for (i = 0; i < G; i++) {
		switch (k) {
		case K_BINARY:
			r[i] = (double)(trand() % 2);
			break;
		case K_PASSRATE:
			r[i] = (double)(trand() % 5) / 4.0;
			break;
		case K_CONTINUOUS:
			r[i] = tunif();
			break;
		}
		/* Few distinct T (and some 0) so (r, T) classes repeat. */
		T[i] = (double)(trand() % 4);
		if (tie != NULL)
			tie[i] = trand();
	}
}

START_TEST(test_worked_example)
{
	double r[4] = { 1, 0, 0, 0 }, adv[4], b[4];
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_EXACT);
	enum ms_path path;
	size_t i;

	/*
	 * By hand, for the 1: tau 2: 0.5 / (0.5 + eps); tau 3:
	 * (2/3) / sqrt(2/9); tau 4: 0.75 / sqrt(3/16); mean 1.38209.
	 * For a 0: tau 2: -1/3; tau 3: (2/3)(-1/3)/sqrt(2/9) = -0.47140;
	 * tau 4: -0.25 / sqrt(3/16) = -0.57735; mean -0.46070.
	 */
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 0, &p, adv, &path),
	    0);
	ck_assert_int_eq(path, MS_PATH_EXACT);
	ck_assert_double_eq_tol(adv[0], 1.38209, 1e-5);
	for (i = 1; i < 4; i++)
		ck_assert_double_eq_tol(adv[i], -0.46070, 1e-5);
	ck_assert_double_eq_tol(adv[0],
	    (0.5 / (0.5 + 1e-6) + (2.0 / 3) / (sqrt(2.0 / 9) + 1e-6) +
	    0.75 / (sqrt(3.0 / 16) + 1e-6)) / 3, 1e-14);
	brute_msgrpo(r, NULL, 4, 2, MS_UNIFORM, 0, 1e-6, b);
	for (i = 0; i < 4; i++)
		ck_assert(close_rel(adv[i], b[i], 1e-13));
}
END_TEST

/*
 * Token stats: a subgroup whose weighted members share one reward (the
 * others have T = 0) has that reward as its mean, so those members get 0
 * exactly, on every path.  sum T r / sum T rounds: 3 * 0.2 / 3 is
 * 0.20000000000000004, and (3 + 2 + 1) * 0.1 / 6 is 0.09999999999999999.
 */
START_TEST(test_token_weighted_equal)
{
	static const double rc[] = { 0.1, 0.1, 0.1, 0.3 };	/* counts */
	static const double Tc[] = { 3, 2, 1, 0 };
	static const double rm[] = { 0.1, 0.2, 0.3 };		/* masks */
	static const double Tm[] = { 0, 3, 0 };
	static const enum ms_mode modes[] = { MS_EXACT, MS_SAMPLED };
	double adv[4];
	struct ms_params p;
	enum ms_path path;
	size_t i, m;

	for (m = 0; m < 2; m++) {
		p = params(2, MS_UNIFORM, 1, modes[m]);
		ck_assert_int_eq(msgrpo_group(rc, Tc, NULL, 4, 0, &p, adv,
		    &path), 0);
		for (i = 0; i < 3; i++)
			ck_assert_msg(adv[i] == 0.0, "mode %zu: adv[%zu] = %g",
			    m, i, adv[i]);
		ck_assert(adv[3] > 0.0);
		ck_assert_int_eq(msgrpo_group(rm, Tm, NULL, 3, 0, &p, adv,
		    &path), 0);
		ck_assert_msg(adv[1] == 0.0, "mode %zu: adv[1] = %g", m,
		    adv[1]);
		ck_assert(adv[0] < 0.0 && adv[2] > 0.0);
	}
}
END_TEST

/* Exact (count vectors or masks) against the brute force. */
START_TEST(test_exact_vs_brute)
{
	static const size_t Gs[] = { 2, 3, 4, 5, 6, 8, 10, 12, 14, 16 };
	double r[MAXG], T[MAXG], adv[MAXG], b[MAXG];
	struct ms_params p;
	enum ms_path path;
	size_t gi, i;
	int k, token, w, tm;

	for (gi = 0; gi < sizeof(Gs) / sizeof(Gs[0]); gi++)
	for (k = K_BINARY; k <= K_CONTINUOUS; k++)
	for (token = 0; token <= 1; token++)
	for (w = MS_UNIFORM; w <= MS_LOCAL; w++)
	for (tm = 2; tm <= 3; tm++) {
		if (Gs[gi] == 16 && (w != MS_GLOBAL || tm != 2))
			continue;	/* the brute force is slow there */
		fill((enum kind)k, Gs[gi], r, T, NULL);
		p = params(tm, (enum ms_weights)w, token, MS_EXACT);
		ck_assert_int_eq(msgrpo_group(r, T, NULL, Gs[gi], 0, &p, adv,
		    &path), 0);
		ck_assert_int_eq(path, Gs[gi] < (size_t)tm ? MS_PATH_NONE :
		    MS_PATH_EXACT);
		assert_clean(adv, Gs[gi]);
		brute_msgrpo(r, T, Gs[gi], tm, (enum ms_weights)w, token,
		    1e-6, b);
		for (i = 0; i < Gs[gi]; i++)
			ck_assert_msg(close_rel(adv[i], b[i], 1e-10),
			    "G=%zu kind=%d token=%d w=%d tau_min=%d i=%zu: "
			    "%.17g vs %.17g", Gs[gi], k, token, w, tm, i,
			    adv[i], b[i]);
	}
}
END_TEST

/* With every scale and every subgroup taken, sampled is exact. */
START_TEST(test_sampled_equals_exact)
{
	double r[MAXG], T[MAXG], a[MAXG], b[MAXG], scale;
	uint64_t tie[MAXG];
	struct ms_params p;
	enum ms_path path;
	size_t G, i;
	int k, token, w, tm;

	for (G = 2; G <= 10; G++)
	for (k = K_BINARY; k <= K_CONTINUOUS; k++)
	for (token = 0; token <= 1; token++)
	for (w = MS_UNIFORM; w <= MS_LOCAL; w++)
	for (tm = 2; tm <= 3; tm++) {
		fill((enum kind)k, G, r, T, tie);
		p = params(tm, (enum ms_weights)w, token, MS_EXACT);
		ck_assert_int_eq(msgrpo_group(r, T, tie, G, 7, &p, a, &path),
		    0);
		p.mode = MS_SAMPLED;
		p.scales = (int)G;	/* >= G - tau_min + 1 */
		p.groups = (int)binom_test(G, G / 2);
		p.seed = trand();
		ck_assert_int_eq(msgrpo_group(r, T, tie, G, 7, &p, b, &path),
		    0);
		ck_assert_int_eq(path, G < (size_t)tm ? MS_PATH_NONE :
		    MS_PATH_SAMPLED);
		assert_clean(b, G);
		/*
		 * Relative to the group's largest advantage: with token
		 * stats a response of T = 0 can see z near 1/eps, and small
		 * advantages are differences of such terms.
		 */
		for (scale = 1.0, i = 0; i < G; i++)
			scale = fmax(scale, fabs(a[i]));
		for (i = 0; i < G; i++)
			ck_assert_msg(fabs(b[i] - a[i]) <= 1e-12 * scale,
			    "G=%zu k=%d tok=%d w=%d tm=%d i=%zu: %.17g vs %.17g", G, k, token, w, tm, i, b[i], a[i]);
	}
}
END_TEST

/*
 * Permutes a group (with its tie hashes), runs it sampled, and checks that
 * the outputs permute with it; a different key gives other numbers.
 */
static void
check_order_free(size_t G, enum kind k, int token, int scales, int groups)
{
	double r[MAXG], T[MAXG], a[MAXG], a2[MAXG], pr[MAXG], pT[MAXG];
	double pa[MAXG];
	uint64_t tie[MAXG], pt[MAXG];
	size_t perm[MAXG], i, j, t;
	struct ms_params p = params(2, MS_UNIFORM, token, MS_SAMPLED);
	enum ms_path path;
	int differ = 0;

	p.scales = scales;
	p.groups = groups;
	p.seed = 42;
	fill(k, G, r, T, tie);
	ck_assert_int_eq(msgrpo_group(r, T, tie, G, 99, &p, a, &path), 0);
	ck_assert_int_eq(path, MS_PATH_SAMPLED);
	assert_clean(a, G);
	ck_assert_int_eq(msgrpo_group(r, T, tie, G, 99, &p, a2, &path), 0);
	ck_assert(memcmp(a, a2, G * sizeof(*a)) == 0);

	for (i = 0; i < G; i++)
		perm[i] = i;
	for (i = G - 1; i > 0; i--) {
		j = (size_t)(trand() % (i + 1));
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < G; i++) {
		pr[i] = r[perm[i]];
		pT[i] = T[perm[i]];
		pt[i] = tie[perm[i]];
	}
	ck_assert_int_eq(msgrpo_group(pr, pT, pt, G, 99, &p, pa, &path), 0);
	for (i = 0; i < G; i++)
		ck_assert_msg(pa[i] == a[perm[i]], "G=%zu i=%zu", G, i);

	ck_assert_int_eq(msgrpo_group(r, T, tie, G, 100, &p, a2, &path), 0);
	for (i = 0; i < G; i++)
		if (a2[i] != a[i])
			differ = 1;
	ck_assert_msg(differ, "key_hash does not reach the sampler");
}

START_TEST(test_sampled_order_free)
{
	check_order_free(16, K_CONTINUOUS, 0, 4, 8);	/* random pool */
	check_order_free(16, K_BINARY, 1, 4, 8);
	check_order_free(14, K_PASSRATE, 0, 4, 8);
	check_order_free(10, K_CONTINUOUS, 1, 3, 8);	/* listed pool */
	check_order_free(64, K_CONTINUOUS, 1, 4, 8);
	check_order_free(80, K_BINARY, 0, 6, 5);	/* two-word sets */
	check_order_free(24, K_CONTINUOUS, 0, 1000, 3); /* M past L */
}
END_TEST

/* z_i of subgroup mem[0..n-1], seq stats. */
/* z_i of subgroup mem[0..n-1], seq stats, the deviation with n - 1
 * (sample) and eps inside the root (inside). */
static double
zdev(const double *r, const size_t *mem, size_t n, size_t i, double eps,
    int sample, int inside)
{
	double mu = 0.0, v = 0.0, var;
	size_t a;

	for (a = 0; a < n; a++)
		mu += r[mem[a]];
	mu /= (double)n;
	for (a = 0; a < n; a++)
		v += (r[mem[a]] - mu) * (r[mem[a]] - mu);
	if (v == 0.0)
		return 0.0;
	var = sample ? v / (double)(n - 1) : v / (double)n;
	return (r[i] - mu) / (inside ? sqrt(var + eps) : sqrt(var) + eps);
}

static double
zof(const double *r, const size_t *mem, size_t n, size_t i, double eps)
{
	return zdev(r, mem, n, i, eps, 0, 0);
}

/*
 * Diverse Group Sampling at G = 4, K = 2, all scales (M = 3): at tau = 2
 * the second pair is the complement of the first (the only one at Jaccard
 * distance 1); at tau = 3 all other triples are at distance 1/2 from the
 * first, a tie, so the second is any of them, uniformly (MS-GRPO Eq. 9
 * names no order among ties; taking the lowest index biased the result).
 * The rewards are distinct and ascending, so canonical order is input
 * order.
 */
START_TEST(test_diverse_groups)
{
	static const size_t pairs[6][2] = {
		{ 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 2 }, { 1, 3 }, { 2, 3 }
	};
	static const size_t triples[4][3] = {
		{ 0, 1, 2 }, { 0, 1, 3 }, { 0, 2, 3 }, { 1, 2, 3 }
	};
	static const size_t all[4] = { 0, 1, 2, 3 };
	double r[4] = { 0.1, 0.4, 0.5, 0.9 }, adv[4], e[4];
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_SAMPLED);
	enum ms_path path;
	size_t f2, f3, s3, i, a, s, nseen = 0, nhigh = 0;
	uint64_t seed;
	int match, any, seen[6][4][4];

	memset(seen, 0, sizeof(seen));
	p.scales = 3;
	p.groups = 2;
	for (seed = 0; seed < 60; seed++) {
		p.seed = seed;
		ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 5, &p, adv,
		    &path), 0);
		any = 0;
		for (f2 = 0; f2 < 6; f2++)
		for (f3 = 0; f3 < 4; f3++)
		for (s3 = f3 + 1; s3 < 4; s3++) {
			size_t sel3[2];

			sel3[0] = f3;
			sel3[1] = s3;
			match = 1;
			for (i = 0; i < 4; i++) {
				double z2, z3 = 0.0, n3 = 0.0;
				size_t other[2];

				/* i's pair: the first, or its complement. */
				if (pairs[f2][0] == i || pairs[f2][1] == i)
					z2 = zof(r, pairs[f2], 2, i, 1e-6);
				else {
					for (a = 0, s = 0; a < 4; a++)
						if (a != pairs[f2][0] &&
						    a != pairs[f2][1])
							other[s++] = a;
					z2 = zof(r, other, 2, i, 1e-6);
				}
				for (s = 0; s < 2; s++)
					for (a = 0; a < 3; a++)
						if (triples[sel3[s]][a] == i) {
							z3 += zof(r,
							    triples[sel3[s]],
							    3, i, 1e-6);
							n3 += 1.0;
						}
				e[i] = (z2 + z3 / n3 + zof(r, all, 4, i,
				    1e-6)) / 3.0;
				if (!close_rel(adv[i], e[i], 1e-12))
					match = 0;
			}
			if (match) {
				any = 1;
				if (!seen[f2][f3][s3]++)
					nseen++;
				/* The triples picked are an unordered pair.
				 * Ties kept at the lowest index always hold
				 * triple 0 (the first pick, or the lowest
				 * left); broken at random, half the time
				 * they do not (3/4 * 2/3). */
				if (f3 > 0)
					nhigh++;
			}
		}
		ck_assert_msg(any, "seed %ju: no greedy choice explains it",
		    (uintmax_t)seed);
	}
	/* The first picks are random, and so is the tie: of the 36
	 * choices, many show up, and triple 0 is often left out. */
	ck_assert_msg(nseen >= 15, "%zu choices seen", nseen);
	ck_assert_msg(nhigh >= 15, "%zu of 60 without triple 0", nhigh);
}
END_TEST

/*
 * Dilated Scale Sampling at G = 8, tau_min = 2, M = 3: ceil(7/3) = 3, so
 * e = 2, 5, 8 and the intervals are [2,2], [3,5], [6,8] (MS-GRPO Sec.
 * 3.2.1).  With K past C(8,4) each chosen scale is exact, so A must be the
 * mean of Abar at one scale from each interval, each weighted by its
 * interval's global weights w = tau - 1: 1, 2 + 3 + 4 = 9, 5 + 6 + 7 = 18.
 * With --ms-dss fixed the scales are the ends, 2, 5, 8 (Table 6c).
 */
START_TEST(test_dilated_scales)
{
	double r[8], T[8], abar[9 * 8], adv[8];
	struct ms_params p = params(2, MS_GLOBAL, 0, MS_SAMPLED);
	enum ms_path path;
	size_t t2, t3, i, nseen = 0;
	uint64_t seed;
	int seen[9][9];
	int any, match;

	memset(seen, 0, sizeof(seen));
	fill(K_CONTINUOUS, 8, r, T, NULL);
	brute_abar(r, T, 8, 0, 1e-6, abar);
	p.scales = 3;
	p.groups = 70;
	for (seed = 0; seed < 60; seed++) {
		p.seed = seed;
		ck_assert_int_eq(msgrpo_group(r, T, NULL, 8, 1, &p, adv,
		    &path), 0);
		any = 0;
		for (t2 = 3; t2 <= 5; t2++)
		for (t3 = 6; t3 <= 8; t3++) {
			double w1 = 1, w2 = 9, w3 = 18;

			match = 1;
			for (i = 0; i < 8; i++)
				if (!close_rel(adv[i], (w1 * abar[2 * 8 + i] +
				    w2 * abar[t2 * 8 + i] +
				    w3 * abar[t3 * 8 + i]) / (w1 + w2 + w3),
				    1e-12))
					match = 0;
			if (match) {
				any = 1;
				if (!seen[t2][t3]++)
					nseen++;
			}
		}
		ck_assert_msg(any, "seed %ju: scales outside the intervals",
		    (uintmax_t)seed);
	}
	ck_assert(nseen >= 5);
	p.dss = MS_DSS_FIXED;
	ck_assert_int_eq(msgrpo_group(r, T, NULL, 8, 1, &p, adv, &path), 0);
	for (i = 0; i < 8; i++)
		ck_assert(close_rel(adv[i], (abar[2 * 8 + i] +
		    9 * abar[5 * 8 + i] + 18 * abar[8 * 8 + i]) / 28, 1e-12));
}
END_TEST

/*
 * The sampled path is unbiased over seeds (MS-GRPO Sec. 3.2): every
 * choice it makes is invariant under a relabelling of the responses, so
 * a picked subgroup of size tau holding i is, over seeds, a uniform one of
 * the C(G-1, tau-1) of Eq. 5; at G = 8 and K = 8 every drawn scale has a
 * pick holding each i (the greedy's first picks cover the group), and a
 * drawn scale weighs its whole interval, so that the expected weight of
 * each scale is its w_tau (Eq. 6).  The mean of S = 600 seeds must then
 * be within 4 standard errors (the spread over the seeds / sqrt(S)) of
 * the exact A_i of Eq. 3-6 (brute force), and increase with the reward.
 * The seeds are fixed, so the test is deterministic; with ties kept at
 * the lowest index the 0.45 response averaged +0.005 against an exact
 * -0.153, some 13 standard errors away.
 */
static void
check_unbiased(const double *r, size_t G)
{
	double e[16], m[16], sd[16], a[16], se, lo, hi;
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_SAMPLED);
	enum ms_path path;
	const size_t S = 600;
	size_t i, j, k;

	brute_msgrpo(r, NULL, G, 2, MS_UNIFORM, 0, p.eps, e);
	for (i = 0; i < G; i++)
		m[i] = sd[i] = 0.0;
	for (k = 0; k < S; k++) {
		p.seed = k;
		ck_assert_int_eq(msgrpo_group(r, NULL, NULL, G, 77, &p, a,
		    &path), 0);
		ck_assert_int_eq(path, MS_PATH_SAMPLED);
		for (i = 0; i < G; i++) {
			m[i] += a[i];
			sd[i] += a[i] * a[i];
		}
	}
	for (i = 0; i < G; i++) {
		m[i] /= (double)S;
		sd[i] = sqrt(fmax(sd[i] / (double)S - m[i] * m[i], 0.0));
		se = sd[i] / sqrt((double)S);
		ck_assert_msg(fabs(m[i] - e[i]) <= 4 * se + 1e-12,
		    "r=%g: mean over %zu seeds %.4f, exact %.4f, 4 se %.4f",
		    r[i], S, m[i], e[i], 4 * se);
		/* Not vacuous: well inside the old bias of 0.16. */
		ck_assert_msg(4 * se < 0.05, "r=%g: 4 se = %g", r[i], 4 * se);
	}
	/* Monotone in the reward: a higher reward, a higher mean. */
	for (i = 0; i < G; i++)
		for (j = 0; j < G; j++)
			if (r[i] < r[j])
				ck_assert_msg(m[i] < m[j], "r=%g mean %.4f >= "
				    "r=%g mean %.4f", r[i], m[i], r[j], m[j]);
	/* Equal rewards: the same mean within the spread. */
	for (i = 0; i < G; i++)
		for (j = 0; j < G; j++)
			if (r[i] == r[j]) {
				lo = fmin(m[i], m[j]);
				hi = fmax(m[i], m[j]);
				ck_assert(hi - lo <= 4 * (sd[i] + sd[j]) /
				    sqrt((double)S) + 1e-12);
			}
}

START_TEST(test_sampled_unbiased)
{
	const double cont[8] = { 0.3, 0.9, 0.1, 0.5, 0.7, 0.2, 0.8, 0.45 };
	const double bin[8] = { 1, 0, 0, 1, 0, 0, 1, 0 };

	check_unbiased(cont, 8);
	check_unbiased(bin, 8);
}
END_TEST

/*
 * The weights of Eq. 6 besides the schemes: flat (Table 6a's first line,
 * no hierarchical aggregation) is the plain mean of z_i over every
 * subgroup of size >= 2 holding i; at G = 4 those are 3 pairs, 3 triples
 * and the group, so w = (3, 3, 1) / 7 = C(3, tau - 1) / 7.  A list given
 * by the user weighs scales tau_min, tau_min + 1, ...: (0, 0, 1) is the
 * group's own z, GRPO with the population deviation; too short a list, or
 * zeros over the group's scales, is refused.
 */
START_TEST(test_weights)
{
	static const size_t sets[7][4] = {
		{ 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 1, 2 }, { 0, 1, 3 },
		{ 0, 2, 3 }, { 0, 1, 2, 3 }
	};
	static const size_t size[7] = { 2, 2, 2, 3, 3, 3, 4 };
	const double r[4] = { 0.2, 0.9, 0.4, 0.1 }, g001[3] = { 0, 0, 1 };
	const double zero[3] = { 0, 0, 0 };
	double w[5], adv[4], e;
	struct ms_params p = params(2, MS_FLAT, 0, MS_EXACT);
	enum ms_path path;
	size_t i, k, a, mem[4];

	ck_assert_int_eq(msgrpo_weights(&p, 4, w), 0);
	ck_assert(w[0] == 0 && w[1] == 0);
	ck_assert(close_rel(w[2], 3.0 / 7, 1e-15) &&
	    close_rel(w[3], 3.0 / 7, 1e-15) && close_rel(w[4], 1.0 / 7, 1e-15));
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 0, &p, adv, &path),
	    0);
	for (i = 0; i < 4; i++) {
		/* The 7 subgroups holding i: relabel 0 <-> i. */
		for (e = 0.0, k = 0; k < 7; k++) {
			for (a = 0; a < size[k]; a++) {
				mem[a] = sets[k][a] == 0 ? i :
				    sets[k][a] == i ? 0 : sets[k][a];
			}
			e += zof(r, mem, size[k], i, p.eps);
		}
		ck_assert_msg(close_rel(adv[i], e / 7, 1e-12), "i=%zu %.17g "
		    "vs %.17g", i, adv[i], e / 7);
	}

	p = params(2, MS_GIVEN, 0, MS_EXACT);
	p.given = g001;
	p.ngiven = 3;
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 0, &p, adv, &path),
	    0);
	for (i = 0; i < 4; i++) {
		for (a = 0; a < 4; a++)
			mem[a] = a;
		ck_assert(close_rel(adv[i], zof(r, mem, 4, i, p.eps), 1e-12));
	}
	/* G = 3 uses the first two (0, 0): no weight at all. */
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 3, 0, &p, adv, &path),
	    MSGRPO_WEIGHTS);
	p.ngiven = 2;
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 0, &p, adv, &path),
	    MSGRPO_WEIGHTS);
	p.given = zero;
	p.ngiven = 3;
	ck_assert_int_eq(msgrpo_weights(&p, 4, w), MSGRPO_WEIGHTS);
	/* Sampled with every scale and subgroup: still exact. */
	p = params(2, MS_FLAT, 0, MS_SAMPLED);
	p.scales = 3;
	p.groups = 6;
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 0, &p, w, &path), 0);
	p.mode = MS_EXACT;
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 0, &p, adv, &path),
	    0);
	for (i = 0; i < 4; i++)
		ck_assert(close_rel(w[i], adv[i], 1e-12));
	/* Flat at G = 65536 does not overflow: C(65535, 32767) is past any
	 * double, the normalized weights are not. */
	{
		static double big[65537];
		double sum = 0.0;

		p = params(2, MS_FLAT, 0, MS_AUTO);
		ck_assert_int_eq(msgrpo_weights(&p, 65536, big), 0);
		for (k = 0; k <= 65536; k++) {
			ck_assert(isfinite(big[k]) && big[k] >= 0);
			sum += big[k];
		}
		ck_assert(close_rel(sum, 1.0, 1e-9));
		ck_assert(big[32768] > big[2] && big[32768] == big[32769]);
	}
}
END_TEST

/*
 * Table 6d's random subgroup sampling (--ms-dgs random): K = 2 distinct
 * subgroups uniformly, no diversity.  At G = 4, M = 3 the two pairs are
 * then sometimes not complements (the greedy always takes the
 * complement, the only pair at Jaccard distance 1).
 */
START_TEST(test_dgs_random)
{
	static const size_t pairs[6][2] = {
		{ 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 2 }, { 1, 3 }, { 2, 3 }
	};
	double r[4] = { 0.1, 0.4, 0.5, 0.9 }, adv[4], e;
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_SAMPLED);
	enum ms_path path;
	size_t f, s, t3a, t3b, i, a, nonc = 0, mem[4];
	uint64_t seed;
	int match, any;

	p.scales = 3;
	p.groups = 2;
	p.dgs = MS_DGS_RANDOM;
	for (seed = 0; seed < 60; seed++) {
		p.seed = seed;
		ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 5, &p, adv,
		    &path), 0);
		any = 0;
		for (f = 0; f < 6; f++)
		for (s = f + 1; s < 6; s++)
		for (t3a = 0; t3a < 4; t3a++)
		for (t3b = t3a + 1; t3b < 4; t3b++) {
			match = 1;
			for (i = 0; i < 4 && match; i++) {
				double z2 = 0, n2 = 0, z3 = 0, n3 = 0;
				size_t pp[2] = { f, s }, tt[2] = { t3a, t3b };

				for (a = 0; a < 2; a++)
					if (pairs[pp[a]][0] == i ||
					    pairs[pp[a]][1] == i) {
						z2 += zof(r, pairs[pp[a]], 2, i,
						    p.eps);
						n2++;
					}
				for (a = 0; a < 2; a++)
					if (tt[a] != 3 - i) {
						/* triple tt[a] leaves out
						 * 3 - tt[a] */
						size_t k, m = 0;

						for (k = 0; k < 4; k++)
							if (k != 3 - tt[a])
								mem[m++] = k;
						z3 += zof(r, mem, 3, i, p.eps);
						n3++;
					}
				for (a = 0; a < 4; a++)
					mem[a] = a;
				e = zof(r, mem, 4, i, p.eps);
				/* Scales without a pick holding i drop
				 * out, the rest renormalized. */
				e = ((n2 ? z2 / n2 : 0) + (n3 ? z3 / n3 : 0) +
				    e) / ((n2 > 0) + (n3 > 0) + 1);
				if (!close_rel(adv[i], e, 1e-12))
					match = 0;
			}
			if (match) {
				any = 1;
				if (pairs[f][0] + pairs[f][1] +
				    pairs[s][0] + pairs[s][1] != 6 ||
				    pairs[f][0] == pairs[s][0] ||
				    pairs[f][0] == pairs[s][1] ||
				    pairs[f][1] == pairs[s][0] ||
				    pairs[f][1] == pairs[s][1])
					nonc++;
			}
		}
		ck_assert_msg(any, "seed %ju: no random choice explains it",
		    (uintmax_t)seed);
	}
	/* 4 of the 5 other pairs are not the complement. */
	ck_assert_msg(nonc >= 20, "%zu of 60 not complements", nonc);
}
END_TEST

/*
 * The sampled path's cost (msgrpo_sampled.c's formula), by hand, nw = 1:
 *  - G = 4, K = 8, M = 4 (clamped to the 3 scales 2, 3, 4): every
 *    subgroup of each, N (3 tau + 1) = 6 * 7 + 4 * 10 + 1 * 13 = 95;
 *  - G = 8, K = 2, M = 1 with --ms-dss fixed: the end of [2, 8], one
 *    subgroup, 1 * 25 = 25;
 *  - G = 8, K = 2, M = 7: each scale its own interval, each pool listed
 *    (N tau), the greedy (K N 3) and the picks (K (3 tau + 1)):
 *    tau 2: 56 + 168 + 14 = 238, 3: 168 + 336 + 20 = 524,
 *    4: 280 + 420 + 26 = 726, 5: 280 + 336 + 32 = 648,
 *    6: 168 + 168 + 38 = 374, 7: 56 + 48 + 44 = 148, 8: 25; 2683 in all,
 *    and 2683 - 1476 = 1207 without the greedy (--ms-dgs random).
 * Past the budget a group is refused in every mode that would sample it,
 * before any work: K = 100000 at G = 64 took minutes.
 */
START_TEST(test_sampled_cost)
{
	double r[64], adv[64];
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_SAMPLED);
	enum ms_path path;
	size_t i;

	ck_assert(msgrpo_sampled_cost(4, &p) == 95);
	p.groups = 2;
	p.scales = 1;
	p.dss = MS_DSS_FIXED;
	ck_assert(msgrpo_sampled_cost(8, &p) == 25);
	p.scales = 7;
	p.dss = MS_DSS_RANDOM;
	ck_assert(msgrpo_sampled_cost(8, &p) == 2683);
	p.dgs = MS_DGS_RANDOM;
	ck_assert(msgrpo_sampled_cost(8, &p) == 1207);
	for (i = 0; i < 64; i++)
		r[i] = (double)i / 64;
	p = params(2, MS_UNIFORM, 0, MS_SAMPLED);
	p.groups = 100000;
	ck_assert(msgrpo_sampled_cost(64, &p) > 1e10);
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 64, 0, &p, adv, &path),
	    MSGRPO_SAMPLED_OVER);
	p.mode = MS_AUTO;
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 64, 0, &p, adv, &path),
	    MSGRPO_SAMPLED_OVER);
	p.groups = 8;
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 64, 0, &p, adv, &path),
	    0);
	ck_assert_int_eq(path, MS_PATH_SAMPLED);
	p.budget = msgrpo_sampled_cost(64, &p) * 0.99;
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 64, 0, &p, adv, &path),
	    MSGRPO_SAMPLED_OVER);
}
END_TEST

/*
 * MS-GRPO with --std sample (sigma_S with n - 1, as torch.std) and
 * --eps-inside (sqrt(var_S + eps), Balanced Aggregation Eq. 2): Eq. 4-6
 * with that deviation, every subgroup of G = 4 from its definition, on
 * distinct rewards and on tied ones (the count-vector path), exact and
 * sampled with every scale and subgroup taken.  A pair's z with n - 1 is
 * +-1/sqrt(2) whatever its rewards.
 */
START_TEST(test_deviation_options)
{
	static const double rs[2][4] = { { 0, 1, 3, 7 }, { 0, 1, 1, 3 } };
	double adv[4], sam[4], e, zs[4];
	size_t mem[4], i, k, a, m, tau;
	int sample, inside, c;
	struct ms_params p;
	enum ms_path path;

	for (c = 0; c < 2; c++)
	for (sample = 0; sample <= 1; sample++)
	for (inside = 0; inside <= 1; inside++) {
		const double *r = rs[c];

		p = params(2, MS_UNIFORM, 0, MS_EXACT);
		msgrpo_from(&p, 1e-3, sample, inside);
		ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 0, &p, adv,
		    &path), 0);
		p.mode = MS_SAMPLED;
		p.scales = 3;
		p.groups = 6;
		ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 4, 0, &p, sam,
		    &path), 0);
		for (i = 0; i < 4; i++) {
			/* Abar_i(tau) over the subsets of size tau
			 * holding i (bit masks), then the mean of 3. */
			for (tau = 2; tau <= 4; tau++)
				zs[tau - 2] = 0.0;
			for (k = 0; k < 16; k++) {
				if (!((k >> i) & 1))
					continue;
				for (a = 0, m = 0; a < 4; a++)
					if ((k >> a) & 1)
						mem[m++] = a;
				if (m >= 2)
					zs[m - 2] += zdev(r, mem, m, i, 1e-3,
					    sample, inside);
			}
			/* C(3, 1) = 3 pairs, C(3, 2) = 3 triples, 1 group */
			e = (zs[0] / 3 + zs[1] / 3 + zs[2]) / 3.0;
			ck_assert_msg(close_rel(adv[i], e, 1e-12), "c=%d s=%d "
			    "in=%d i=%zu: %.17g vs %.17g", c, sample, inside,
			    i, adv[i], e);
			ck_assert(close_rel(sam[i], e, 1e-12));
		}
	}
	/* The pair 0, 1 with n - 1: z = -+1/sqrt(2) (eps 0). */
	{
		const double r2[2] = { 0, 1 };

		p = params(2, MS_UNIFORM, 0, MS_EXACT);
		msgrpo_from(&p, 0.0, 1, 0);
		ck_assert_int_eq(msgrpo_group(r2, NULL, NULL, 2, 0, &p, adv,
		    &path), 0);
		ck_assert(close_rel(adv[0], -1 / sqrt(2), 1e-15));
	}
}
END_TEST

/*
 * Appendix D's subgroup moments (msgrpo_moments()), by hand for rewards
 * 0, 1, 2, scales 2 and 3 weighted 1/2 each: the pairs have sigma 1/2, 1,
 * 1/2 and means 1/2, 1, 3/2; the group sigma sqrt(2/3) and mean 1.  So
 * E_S[sigma] = (2/3 + sqrt(2/3)) / 2, E_S[sigma^2] = (1/2 + 2/3) / 2 =
 * 7/12, E_S[mu] = 1, E_S[mu^2] = (7/6 + 1) / 2 = 13/12, Var_S(mu) = 1/12,
 * and Eq. 20, E_S[sigma^2] + Var_S(mu) = sigma_O^2 = 2/3, holds; so does
 * Eq. 22, E_S[sigma] = sqrt(sigma_O^2 - Var(mu) - Var(sigma)), on random
 * groups with ties (the count vectors) too.
 */
START_TEST(test_moments)
{
	const double r[3] = { 0, 1, 2 };
	double rr[12], T[12], so2, mu;
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_AUTO);
	struct ms_canon g;
	struct ms_moments m;
	size_t i, G;
	int rep;

	ck_assert_int_eq(msgrpo_canon_init(&g, r, NULL, NULL, 3, &p), 0);
	ck_assert_int_eq(msgrpo_moments(&g, &m), 0);
	msgrpo_canon_free(&g);
	ck_assert(close_rel(m.es, (2.0 / 3 + sqrt(2.0 / 3)) / 2, 1e-14));
	ck_assert(close_rel(m.es2, 7.0 / 12, 1e-14));
	ck_assert(close_rel(m.emu, 1, 1e-14));
	ck_assert(close_rel(m.vmu, 1.0 / 12, 1e-13));
	ck_assert(close_rel(m.es2 + m.vmu, 2.0 / 3, 1e-14));
	for (rep = 0; rep < 30; rep++) {
		G = 3 + (size_t)(trand() % 10);
		fill(rep % 2 ? K_PASSRATE : K_CONTINUOUS, G, rr, T, NULL);
		p = params(2 + rep % 2, (enum ms_weights)(rep % 3), 0, MS_AUTO);
		ck_assert_int_eq(msgrpo_canon_init(&g, rr, NULL, NULL, G, &p),
		    0);
		ck_assert_int_eq(msgrpo_moments(&g, &m), 0);
		msgrpo_canon_free(&g);
		for (mu = 0, i = 0; i < G; i++)
			mu += rr[i] / (double)G;
		for (so2 = 0, i = 0; i < G; i++)
			so2 += (rr[i] - mu) * (rr[i] - mu) / (double)G;
		ck_assert(fabs(m.emu - mu) <= 1e-12);
		ck_assert(fabs(m.es2 + m.vmu - so2) <= 1e-12);
		ck_assert(fabs(m.es - sqrt(fmax(so2 - m.vmu - m.vsig, 0))) <=
		    1e-9);
	}
}
END_TEST

START_TEST(test_equal_and_small)
{
	double r[3] = { 0.1, 0.1, 0.1 }, T[3] = { 3, 5, 7 }, adv[3];
	double r2[2] = { 0, 1 }, big[20], keep[20];
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_EXACT);
	enum ms_path path;
	size_t i;
	int mode, token;

	/* Equal rewards: exactly 0.0 on every path and statistic. */
	for (mode = MS_AUTO; mode <= MS_SAMPLED; mode++)
	for (token = 0; token <= 1; token++) {
		p = params(2, MS_GLOBAL, token, (enum ms_mode)mode);
		for (i = 0; i < 3; i++)
			adv[i] = 99.0;
		ck_assert_int_eq(msgrpo_group(r, T, NULL, 3, 0, &p, adv,
		    &path), 0);
		for (i = 0; i < 3; i++) {
			ck_assert(adv[i] == 0.0);
			ck_assert(!signbit(adv[i]));
		}
	}

	/* G < tau_min: 0 and no path. */
	p = params(3, MS_UNIFORM, 0, MS_EXACT);
	adv[0] = adv[1] = 5.0;
	ck_assert_int_eq(msgrpo_group(r2, NULL, NULL, 2, 0, &p, adv, &path),
	    0);
	ck_assert_int_eq(path, MS_PATH_NONE);
	ck_assert(adv[0] == 0.0 && adv[1] == 0.0);
	p = params(2, MS_UNIFORM, 0, MS_SAMPLED);
	ck_assert_int_eq(msgrpo_group(r2, NULL, NULL, 1, 0, &p, adv, &path),
	    0);
	ck_assert_int_eq(path, MS_PATH_NONE);
	ck_assert(adv[0] == 0.0);
	ck_assert_int_eq(msgrpo_group(r2, NULL, NULL, 0, 0, &p, adv, &path),
	    0);

	/* Token stats, no weight anywhere: 0. */
	T[0] = T[1] = T[2] = 0;
	r[1] = 0.7;
	p = params(2, MS_UNIFORM, 1, MS_EXACT);
	ck_assert_int_eq(msgrpo_group(r, T, NULL, 3, 0, &p, adv, &path), 0);
	ck_assert(adv[0] == 0.0 && adv[1] == 0.0 && adv[2] == 0.0);

	/* The budget: cost (d + 8) * prod (n_j + 1). */
	p = params(2, MS_UNIFORM, 0, MS_EXACT);
	ck_assert(msgrpo_cost(r2, NULL, 2, &p) == 10.0 * 2 * 2);
	for (i = 0; i < 20; i++)
		big[i] = (double)i / 20 + 0.01;
	ck_assert(msgrpo_cost(big, NULL, 20, &p) == 28.0 * 1048576);
	/* Token stats split a reward by T: classes (0.1,3) (0.1,5) (0.7,5). */
	r[0] = r[1] = 0.1;
	r[2] = 0.7;
	T[0] = 3;
	T[1] = T[2] = 5;
	ck_assert(msgrpo_cost(r, T, 3, &p) == 10.0 * 6);
	p.token_stats = 1;
	ck_assert(msgrpo_cost(r, T, 3, &p) == 11.0 * 8);
	p.token_stats = 0;
	p.budget = 1e6;
	for (i = 0; i < 20; i++)
		keep[i] = -7.0;
	path = MS_PATH_NONE;
	ck_assert_int_eq(msgrpo_group(big, NULL, NULL, 20, 0, &p, keep,
	    &path), -1);
	for (i = 0; i < 20; i++)
		ck_assert(keep[i] == -7.0);
	p.mode = MS_AUTO;
	ck_assert_int_eq(msgrpo_group(big, NULL, NULL, 20, 0, &p, keep,
	    &path), 0);
	ck_assert_int_eq(path, MS_PATH_SAMPLED);
	assert_clean(keep, 20);
	p.budget = 2e7;
	ck_assert_int_eq(msgrpo_group(big, NULL, NULL, 12, 0, &p, keep,
	    &path), 0);
	ck_assert_int_eq(path, MS_PATH_EXACT);
}
END_TEST

/* Binary rewards at G = 64 go exact and are cheap. */
START_TEST(test_binary_g64)
{
	double r[64], T[64], adv[64], big[64], s = 0.0;
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_AUTO);
	enum ms_path path;
	size_t i;
	int rep;

	for (rep = 0; rep < 20; rep++) {
		fill(K_BINARY, 64, r, T, NULL);
		r[0] = 0;
		r[1] = 1;
		ck_assert(msgrpo_cost(r, T, 64, &p) <= 10.0 * 33 * 33);
		ck_assert_int_eq(msgrpo_group(r, T, NULL, 64, 0, &p, adv,
		    &path), 0);
		ck_assert_int_eq(path, MS_PATH_EXACT);
		assert_clean(adv, 64);
		/* Seq stats: z sums to 0 over every subgroup, so A does. */
		for (s = 0.0, i = 0; i < 64; i++) {
			s += adv[i];
			ck_assert(r[i] == 1 ? adv[i] > 0 : adv[i] < 0);
		}
		ck_assert(fabs(s) < 1e-10);
	}
	/*
	 * Huge rewards (and eps scaled with them) do not overflow: z does
	 * not change when r and eps scale by a power of two.
	 */
	for (i = 0; i < 64; i++)
		r[i] *= 0x1p900;
	p.eps *= 0x1p900;
	ck_assert_int_eq(msgrpo_group(r, T, NULL, 64, 0, &p, big, &path), 0);
	for (i = 0; i < 64; i++)
		ck_assert(close_rel(big[i], adv[i], 1e-12));
}
END_TEST

/*
 * G = 1100 binary rewards, 400 ones: the log binomials of rows above
 * ~1000 go on in logs (logbinom_row()).  Expected: each scale's mean z
 * summed over the ones k in the subgroup with big-integer binomials,
 * C(n1 - 1, k - 1) C(n0, tau - k) / C(G - 1, tau - 1) for a one, each
 * term rounded once and the sums taken exactly (Python's math.comb,
 * Fraction and fsum); rladv's sums of exp(log C - log C) lose ~1e-13.
 */
START_TEST(test_binary_g1100)
{
	static double r[1100], T[1100], adv[1100];
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_EXACT);
	enum ms_path path;
	size_t i;

	for (i = 0; i < 1100; i++) {
		r[i] = i < 400;
		T[i] = 1;
	}
	ck_assert_int_eq(msgrpo_group(r, T, NULL, 1100, 0, &p, adv, &path),
	    0);
	ck_assert_int_eq(path, MS_PATH_EXACT);
	for (i = 0; i < 1100; i++)
		ck_assert_msg(close_rel(adv[i], i < 400 ? 1.3184343461731771 :
		    -0.7533910549561013, 1e-12), "A[%zu] = %.17g", i, adv[i]);
}
END_TEST

/* Conformance groups (shared/conformance/msgrpo_*), eps 1e-6. */
struct conf {
	const char		*name;
	int			 tau_min;
	enum ms_weights		 w;
	int			 token;
	size_t			 G;
	double			 r[9];
	double			 T[9];
	double			 adv[9];
};

static const struct conf confs[] = {
	{ "msgrpo_binary/q0", 2, MS_UNIFORM, 0, 8,
	    { 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0 },
	    { 13.0, 24.0, 10.0, 8.0, 6.0, 24.0, 9.0, 11.0 },
	    { -1.1308133000847649, 0.6784879800508591, 0.6784879800508591, -1.1308133000847649, -1.1308133000847649, 0.6784879800508591, 0.6784879800508591, 0.6784879800508591 } },
	{ "msgrpo_binary/q1", 2, MS_UNIFORM, 0, 8,
	    { 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0 },
	    { 9.0, 10.0, 7.0, 11.0, 4.0, 13.0, 11.0, 8.0 },
	    { 0.2750518041098352, 0.2750518041098352, 0.2750518041098352, 0.2750518041098352, 0.2750518041098352, 0.2750518041098352, -1.9253626287688463, 0.2750518041098352 } },
	{ "msgrpo_binary/q2", 2, MS_UNIFORM, 0, 8,
	    { 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0 },
	    { 9.0, 12.0, 11.0, 14.0, 6.0, 23.0, 13.0, 17.0 },
	    { 1.1308133000847649, -0.678487980050859, -0.678487980050859, 1.1308133000847649, -0.678487980050859, -0.678487980050859, 1.1308133000847649, -0.678487980050859 } },
	{ "msgrpo_binary/q3", 2, MS_UNIFORM, 0, 8,
	    { 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0 },
	    { 5.0, 7.0, 10.0, 11.0, 6.0, 14.0, 11.0, 8.0 },
	    { 0.48242303560258615, 0.48242303560258615, 0.48242303560258615, -1.4472691068077586, -1.4472691068077586, 0.48242303560258615, 0.48242303560258615, 0.48242303560258615 } },
	{ "msgrpo_continuous_global/q0", 2, MS_GLOBAL, 0, 7,
	    { 0.391132, 0.330587, 0.356462, 0.725957, 0.79869, 0.416541, 0.669924 },
	    { 6.0, 8.0, 3.0, 13.0, 6.0, 8.0, 15.0 },
	    { -0.6927894934060823, -1.0497997853497245, -0.8998209936943672, 1.0427016217282852, 1.3740910794727605, -0.5380976773287733, 0.7637152485779015 } },
	{ "msgrpo_continuous_global/q1", 2, MS_GLOBAL, 0, 7,
	    { 0.36947, 0.843509, 0.797289, 0.44414, 0.617955, 0.158043, 0.521594 },
	    { 5.0, 17.0, 12.0, 10.0, 11.0, 11.0, 5.0 },
	    { -0.7601362302560015, 1.3011036581504554, 1.1185975281698546, -0.4280028779337417, 0.3729322687896982, -1.5358138023285208, -0.06868054459174353 } },
	{ "msgrpo_continuous_global/q2", 2, MS_GLOBAL, 0, 7,
	    { 0.850643, 0.913437, 0.505622, 0.220348, 0.181275, 0.324536, 0.820507 },
	    { 10.0, 14.0, 6.0, 10.0, 9.0, 10.0, 3.0 },
	    { 0.9969406874932678, 1.1980702802351801, -0.12389490667374986, -1.055550452374501, -1.1846026365011273, -0.7198947372011233, 0.8889317650220538 } },
	{ "msgrpo_token_stats/q0", 2, MS_UNIFORM, 1, 6,
	    { 0.5714285714285714, 0.14285714285714285, 0.8571428571428571, 0.14285714285714285, 0.2857142857142857, 0.14285714285714285 },
	    { 5.0, 8.0, 8.0, 12.0, 4.0, 11.0 },
	    { 1.0301988612392026, -0.6099364854704831, 1.5326894981245878, -0.5696128255631379, 0.16616331361988848, -0.5783925231955228 } },
	{ "msgrpo_token_stats/q1", 2, MS_UNIFORM, 1, 6,
	    { 0.42857142857142855, 0.42857142857142855, 0.0, 1.0, 0.42857142857142855, 0.7142857142857143 },
	    { 10.0, 11.0, 10.0, 8.0, 7.0, 9.0 },
	    { -0.19258757300344964, -0.18923941522694637, -1.3359779446557414, 1.4763226097507611, -0.20502785183814037, 0.7768780921054679 } },
	{ "msgrpo_token_stats/q2", 2, MS_UNIFORM, 1, 6,
	    { 0.14285714285714285, 0.0, 0.14285714285714285, 0.0, 0.0, 0.14285714285714285 },
	    { 10.0, 12.0, 5.0, 5.0, 4.0, 10.0 },
	    { 0.7695087123021106, -0.8636661810363652, 0.8703595198505226, -1.0238433168519783, -1.0646902721496372, 0.7695087123021106 } },
	{ "msgrpo_taumin3_local/q0", 3, MS_LOCAL, 0, 9,
	    { -1.0, 1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0 },
	    { 10.0, 11.0, 4.0, 13.0, 21.0, 11.0, 15.0, 11.0, 19.0 },
	    { -1.2508459851005718, 0.6254229925502861, 0.6254229925502861, -1.250845985100572, 0.6254229925502861, 0.6254229925502861, -1.250845985100572, 0.625422992550286, 0.625422992550286 } },
	{ "msgrpo_taumin3_local/q1", 3, MS_LOCAL, 0, 9,
	    { 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0 },
	    { 13.0, 3.0, 16.0, 14.0, 18.0, 9.0, 13.0, 8.0, 12.0 },
	    { 0.24421576190898608, -1.9537260952718891, 0.24421576190898608, 0.24421576190898608, 0.24421576190898608, 0.24421576190898608, 0.24421576190898608, 0.24421576190898608, 0.24421576190898608 } },
	{ "msgrpo_taumin3_local/q2", 3, MS_LOCAL, 0, 9,
	    { 1.0, 1.0, 1.0, 1.0, -1.0, 0.0, 0.0, -1.0, 0.0 },
	    { 9.0, 18.0, 8.0, 3.0, 7.0, 11.0, 4.0, 6.0, 10.0 },
	    { 0.9274866708661854, 0.9274866708661854, 0.9274866708661854, 0.9274866708661854, -1.3486737042425756, -0.3375330916598637, -0.3375330916598637, -1.3486737042425756, -0.3375330916598638 } },
};

START_TEST(test_conformance)
{
	double adv[9];
	struct ms_params p;
	enum ms_path path;
	size_t c, i;

	for (c = 0; c < sizeof(confs) / sizeof(confs[0]); c++) {
		p = params(confs[c].tau_min, confs[c].w, confs[c].token,
		    MS_EXACT);
		ck_assert_int_eq(msgrpo_group(confs[c].r, confs[c].T, NULL,
		    confs[c].G, 0, &p, adv, &path), 0);
		for (i = 0; i < confs[c].G; i++)
			ck_assert_msg(fabs(adv[i] - confs[c].adv[i]) <=
			    1e-10 + 2e-8 * fabs(confs[c].adv[i]),
			    "%s[%zu]: %.17g vs %.17g", confs[c].name, i,
			    adv[i], confs[c].adv[i]);
	}
}
END_TEST

/*
 * Subgroups of two words (G = 70 > 64) on the sampled path, with values:
 * at tau_min = 69, M = 2 and K = 70 = C(70, 69) every scale and every
 * subgroup is taken, so A_i is the mean of z_i over the whole group
 * (tau = 70) and the mean of z_i over the 69 subgroups that leave out one
 * j != i (tau = 69), each z computed here from its definition.
 */
START_TEST(test_two_words)
{
	double r[70], adv[70], z69, e;
	size_t mem[70], i, j, a, n;
	struct ms_params p = params(69, MS_UNIFORM, 0, MS_SAMPLED);
	enum ms_path path;

	p.scales = 2;
	p.groups = 70;
	for (i = 0; i < 70; i++) {
		r[i] = tunif();
		mem[i] = i;
	}
	ck_assert_int_eq(msgrpo_group(r, NULL, NULL, 70, 3, &p, adv, &path),
	    0);
	ck_assert_int_eq(path, MS_PATH_SAMPLED);
	for (i = 0; i < 70; i++) {
		z69 = 0.0;
		for (j = 0; j < 70; j++) {
			if (j == i)
				continue;
			for (a = 0, n = 0; a < 70; a++)
				if (a != j)
					mem[n++] = a;
			z69 += zof(r, mem, 69, i, p.eps);
		}
		for (a = 0; a < 70; a++)
			mem[a] = a;
		e = (z69 / 69.0 + zof(r, mem, 70, i, p.eps)) / 2.0;
		ck_assert_msg(close_rel(adv[i], e, 1e-12), "i=%zu: %.17g vs "
		    "%.17g", i, adv[i], e);
	}
}
END_TEST

/*
 * The canonical form (what the CUDA backend takes its groups from):
 * sorted by (r, T, tie), classes of equal rewards, the exact path's cost
 * (d + 8) prod (n_j + 1), the path each mode and budget choose, and the
 * power-of-two rescaling of huge rewards.
 */
START_TEST(test_canon)
{
	const double r[4] = { 3, 1, 2, 1 }, T[4] = { 1, 1, 1, 1 };
	const uint64_t tie[4] = { 0, 9, 0, 4 };
	const double huge[2] = { 0x1p601, 0x1p600 };
	struct ms_params p = params(2, MS_UNIFORM, 0, MS_AUTO);
	struct ms_canon g;
	enum ms_path path;

	ck_assert_int_eq(msgrpo_canon_init(&g, r, T, tie, 4, &p), 0);
	/* 1 (tie 4), 1 (tie 9), 2, 3. */
	ck_assert(g.r[0] == 1 && g.r[1] == 1 && g.r[2] == 2 && g.r[3] == 3);
	ck_assert(g.ord[0] == 3 && g.ord[1] == 1 && g.ord[2] == 2 &&
	    g.ord[3] == 0);
	ck_assert_uint_eq(g.d, 3);
	ck_assert(g.cls[0] == 0 && g.cls[1] == 2 && g.cls[2] == 3 &&
	    g.cls[3] == 4);
	/* (3 + 8) * 3 * 2 * 2 */
	ck_assert(msgrpo_canon_cost(&g) == 132);
	ck_assert(msgrpo_cost(r, T, 4, &p) == 132);
	ck_assert(!msgrpo_exact_masks(&g));
	ck_assert_int_eq(msgrpo_canon_path(&g, &p, &path), 0);
	ck_assert_int_eq(path, MS_PATH_EXACT);
	p.budget = 131;
	ck_assert_int_eq(msgrpo_canon_path(&g, &p, &path), 0);
	ck_assert_int_eq(path, MS_PATH_SAMPLED);
	p.mode = MS_EXACT;
	ck_assert_int_eq(msgrpo_canon_path(&g, &p, &path), -1);
	p.mode = MS_SAMPLED;
	p.budget = 1e8;
	ck_assert_int_eq(msgrpo_canon_path(&g, &p, &path), 0);
	ck_assert_int_eq(path, MS_PATH_SAMPLED);
	msgrpo_canon_free(&g);

	/* 2^601 = 0.5 * 2^602: rewards and eps scaled by 2^-602. */
	p = params(2, MS_UNIFORM, 0, MS_AUTO);
	ck_assert_int_eq(msgrpo_canon_init(&g, huge, NULL, NULL, 2, &p), 0);
	ck_assert(g.r[0] == 0x1p-2 && g.r[1] == 0x1p-1);
	ck_assert(g.eps == ldexp(1e-6, -602));
	ck_assert(g.t[0] == 1 && g.t[1] == 1);
	ck_assert(msgrpo_exact_masks(&g));
	msgrpo_canon_free(&g);
}
END_TEST

/*
 * C(n, k) for the exact path (n <= 62, exact) and the sampled path,
 * which compares it with small counts and so may take UINT64_MAX for
 * anything too large.
 */
START_TEST(test_binom)
{
	ck_assert_uint_eq(advmath_ms_binom64(10, 3), 120);
	ck_assert_uint_eq(advmath_ms_binom64(10, 0), 1);
	ck_assert_uint_eq(advmath_ms_binom64(3, 4), 0);
	ck_assert_uint_eq(advmath_ms_binom64(62, 31), 465428353255261088ULL);
	ck_assert_uint_eq(advmath_ms_binom64(70, 69), 70);
	ck_assert_uint_eq(advmath_ms_binom64(130, 2), 8385);
	ck_assert_uint_eq(advmath_ms_binom64(100, 50), UINT64_MAX);
	ck_assert_uint_eq(advmath_ms_binom64(1000, 500), UINT64_MAX);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("msgrpo");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, reset_rng, NULL);
	tcase_add_test(tc, test_worked_example);
	tcase_add_test(tc, test_binary_g1100);
	tcase_add_test(tc, test_exact_vs_brute);
	tcase_add_test(tc, test_token_weighted_equal);
	tcase_add_test(tc, test_sampled_equals_exact);
	tcase_add_test(tc, test_sampled_order_free);
	tcase_add_test(tc, test_sampled_unbiased);
	tcase_add_test(tc, test_weights);
	tcase_add_test(tc, test_dgs_random);
	tcase_add_test(tc, test_sampled_cost);
	tcase_add_test(tc, test_deviation_options);
	tcase_add_test(tc, test_moments);
	tcase_add_test(tc, test_diverse_groups);
	tcase_add_test(tc, test_dilated_scales);
	tcase_add_test(tc, test_equal_and_small);
	tcase_add_test(tc, test_binary_g64);
	tcase_add_test(tc, test_conformance);
	tcase_add_test(tc, test_two_words);
	tcase_add_test(tc, test_canon);
	tcase_add_test(tc, test_binom);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
