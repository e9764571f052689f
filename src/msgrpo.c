/*
 * msgrpo.c - MS-GRPO multi-scale advantages of one group (SPEC §3).
 *
 * Source: MS-GRPO, Sec. 3.1.1, Eq. 3-6 (the estimator) and Sec. 3.2
 * (the acceleration scheme).  For a group of G responses with rewards r_i
 * and scales tau = tau_min..G:
 *
 *	z_i(S)      = (r_i - mu_S) / (sigma_S + eps)			(Eq. 4)
 *	Abar_i(tau) = 1/C(G-1,tau-1) * sum_{S ∋ i, |S| = tau} z_i(S)	(Eq. 5)
 *	A_i         = sum_tau w_tau * Abar_i(tau),  sum_tau w_tau = 1	(Eq. 6)
 *
 * mu_S and sigma_S are the mean and population deviation of the rewards
 * in S; with token stats every response weighs T_i:
 * mu_S = sum T r / sum T, sigma_S^2 = sum T (r - mu_S)^2 / sum T.
 * w_tau is uniform, or proportional to tau - tau_min + 1 (global), or to
 * G - tau + 1 (local).
 *
 * Conventions that the paper leaves open (SPEC §3 fixes the first):
 *  - a subgroup whose rewards are all equal (compared with ==) contributes
 *    exactly 0, so a group of equal rewards gives exactly 0.0 to everyone;
 *  - with token stats a subgroup whose sum of T is 0 has no mean; it
 *    contributes 0 (it still counts in the 1/C(G-1,tau-1) average);
 *  - a subgroup with sigma_S + eps == 0 (only possible with eps = 0 and
 *    token stats that put all weight on one reward) contributes 0 too;
 *  - tau_min below 2 is taken as 2; M and K below 1 are taken as 1.
 *
 * Exact path.  Responses of one class (equal reward; with token stats
 * equal (reward, T)) are interchangeable, so instead of subsets we walk
 * the count vectors k = (k_1..k_d) over the d classes, 0 <= k_j <= n_j.
 * For class c with k_c >= 1, the number of subgroups containing a given
 * member of c with those counts is C(n_c-1,k_c-1) prod_{j!=c} C(n_j,k_j),
 * and dividing by C(G-1,tau-1) gives
 *	(k_c / n_c) * (G / tau) * prod_j C(n_j,k_j) / C(G,tau),
 * a multivariate hypergeometric probability that we take from log
 * binomials and so never overflows.  When every class is a singleton the
 * count vectors are the subsets and we enumerate bit masks directly.
 *
 * Cost unit: about one class (or member) visit of the enumeration, with
 * 8 more per count vector for its fixed work (a sqrt, an exp, divisions):
 *	cost = (d + 8) * prod_j (n_j + 1),
 * which is (G + 8) 2^G when all rewards are distinct and small for binary
 * rewards (10 * 33 * 33 at G = 64).  Measured at 2-4 ns per unit on both
 * paths (x86-64, -O2), so the default budget of 1e8 bounds an exact group
 * at roughly 0.2-0.4 s: continuous rewards go exact up to G = 21.
 *
 * Sampled path (Sec. 3.2), in canonical order (responses sorted by
 * (r, T, tie), so that results do not depend on record order), with one
 * splitmix64 stream seeded from p->seed and key_hash and drawn in this order:
 *  - Dilated Scale Sampling (Sec. 3.2.1): with L = G - tau_min + 1,
 *    e_j = G - (M - j) ceil(L / M), s_j = max(tau_min, e_{j-1} + 1),
 *    e_0 = tau_min - 1; empty intervals are skipped; one uniform draw per
 *    interval (none for an interval of one scale).
 *  - Diverse Group Sampling (Eq. 7-9), scale by scale: every subgroup when
 *    C(G, tau) <= K; else a candidate pool, all subgroups in lexicographic
 *    order when C(G, tau) <= max(MSGRPO_POOL, 2K), or that many distinct
 *    uniform random subgroups in the order drawn; then the first pick is
 *    uniform over the pool and each next one has the largest summed Jaccard
 *    distance to those picked (ties, compared in floating point: the lowest
 *    pool index).
 *  - Abar_i(tau) is the mean of z_i over the picked subgroups holding i;
 *    i's scales without one drop out and the rest of the weights (same
 *    scheme, restricted to the chosen scales) are renormalized; no scale
 *    left gives A_i = 0.
 * With M >= L and K >= C(G, floor(G/2)) every scale and subgroup is taken
 * and the result is the exact one.
 *
 * Output: -0 becomes 0; a non-finite value (only reachable with eps tiny
 * enough that (r - mu) / eps overflows) becomes 0.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advmath.h"
#include "msgrpo.h"

/*
 * Diverse Group Sampling lists every subgroup of a scale as candidates
 * when there are at most this many (or 2K, if larger); past that the pool
 * is this many distinct subgroups drawn at random.  Measured on the
 * greedy's objective (summed pairwise Jaccard distance of K = 8 picks,
 * G = 16..64), a pool of 1024 comes within 0.5% of 4096 at a quarter of
 * the cost, and drawing the pool is most of the sampled path's time.
 */
#define MSGRPO_POOL	1024

/* The bit-mask enumeration of the exact path needs 1 << G to fit. */
#define MSGRPO_MASK_G	62

struct resp {
	double		 r;
	double		 t;
	uint64_t	 tie;
	size_t		 idx;
};

/* One group in canonical order, rewards and weights possibly rescaled. */
struct grp {
	size_t		 G;
	size_t		 tau_min;
	double		 eps;	/* eps in the units of r[] */
	double		*r;	/* rewards, canonical order */
	double		*t;	/* statistic weights: T_i, or 1 with seq stats */
	size_t		*ord;	/* ord[c]: the caller's index of canonical c */
	size_t		 d;	/* number of classes */
	size_t		*cls;	/* class j is canonical [cls[j], cls[j+1]) */
	double		*out;	/* advantages, canonical order */
};

void
msgrpo_defaults(struct ms_params *p)
{
	memset(p, 0, sizeof(*p));
	p->tau_min = 2;
	p->weights = MS_UNIFORM;
	p->token_stats = 0;
	p->mode = MS_AUTO;
	p->scales = 4;
	p->groups = 8;
	p->budget = MSGRPO_BUDGET;
	p->seed = 0;
	p->eps = 1e-6;
}

/* splitmix64: small, fast, and the same stream on every platform. */
static uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ULL;
	return mix64(*s);
}

/*
 * Uniform in [0, n), n >= 1, without bias.  n == 1 draws nothing, so that
 * a degenerate choice does not shift the stream.  Below 2^32 this is
 * Lemire's multiply-and-reject, which divides only on the rare rejection
 * path (the pool draws are the hot loop of the sampled path); above, the
 * plain modulo with rejection.
 */
static uint64_t
rng_below(uint64_t *s, uint64_t n)
{
	uint64_t x, lim, m;
	uint32_t lo, t;

	if (n <= 1)
		return 0;
	if (n <= UINT32_MAX) {
		m = (rng_next(s) >> 32) * n;
		lo = (uint32_t)m;
		if (lo < n) {
			t = (uint32_t)(0 - (uint32_t)n) % (uint32_t)n;
			while (lo < t) {
				m = (rng_next(s) >> 32) * n;
				lo = (uint32_t)m;
			}
		}
		return m >> 32;
	}
	lim = (0 - n) % n;	/* 2^64 mod n */
	do
		x = rng_next(s);
	while (x < lim);
	return x % n;
}

static int
resp_cmp(const void *a, const void *b)
{
	const struct resp *x = a, *y = b;

	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->tie != y->tie)
		return x->tie < y->tie ? -1 : 1;
	/* Only records equal in (r, T, tie) get here; they are alike. */
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Power-of-two exponent that brings huge magnitudes near 1.  Scaling by a
 * power of two is exact, and z = (r - mu) / (sigma + eps) is unchanged
 * when r, sigma and eps scale together (and mu, sigma do not depend on
 * the scale of T), so this only keeps squares and sums from overflowing.
 */
static int
tame_exp(double maxabs)
{
	int e;

	if (!(maxabs > 0x1p500))
		return 0;
	(void)frexp(maxabs, &e);
	return e;
}

static void
grp_free(struct grp *g)
{
	free(g->r);
	free(g->t);
	free(g->ord);
	free(g->cls);
	free(g->out);
	memset(g, 0, sizeof(*g));
}

/*
 * Sorts the group into canonical order by (r, T, tie), finds its classes
 * and rescales.  Returns 0, or -2 when out of memory.
 */
static int
grp_init(struct grp *g, const double *r, const double *T,
    const uint64_t *tie, size_t G, const struct ms_params *p)
{
	struct resp *v;
	double mr, mt;
	size_t i;
	int er, et;

	memset(g, 0, sizeof(*g));
	g->G = G;
	g->tau_min = p->tau_min < 2 ? 2 : (size_t)p->tau_min;
	v = malloc(G * sizeof(*v));
	g->r = malloc(G * sizeof(*g->r));
	g->t = malloc(G * sizeof(*g->t));
	g->ord = malloc(G * sizeof(*g->ord));
	g->cls = malloc((G + 1) * sizeof(*g->cls));
	g->out = calloc(G, sizeof(*g->out));
	if (v == NULL || g->r == NULL || g->t == NULL || g->ord == NULL ||
	    g->cls == NULL || g->out == NULL) {
		free(v);
		grp_free(g);
		return -2;
	}
	for (i = 0; i < G; i++) {
		v[i].r = r[i];
		v[i].t = T != NULL ? T[i] : 1.0;
		v[i].tie = tie != NULL ? tie[i] : 0;
		v[i].idx = i;
	}
	qsort(v, G, sizeof(*v), resp_cmp);

	mr = mt = 0.0;
	for (i = 0; i < G; i++) {
		if (fabs(v[i].r) > mr)
			mr = fabs(v[i].r);
		if (fabs(v[i].t) > mt)
			mt = fabs(v[i].t);
	}
	er = tame_exp(mr);
	et = p->token_stats ? tame_exp(mt) : 0;
	g->eps = ldexp(p->eps, -er);

	g->d = 0;
	for (i = 0; i < G; i++) {
		g->ord[i] = v[i].idx;
		g->r[i] = ldexp(v[i].r, -er);
		g->t[i] = p->token_stats ? ldexp(v[i].t, -et) : 1.0;
		if (i == 0 || v[i].r != v[i - 1].r ||
		    (p->token_stats && v[i].t != v[i - 1].t))
			g->cls[g->d++] = i;
	}
	g->cls[g->d] = G;
	free(v);
	return 0;
}

/* Exact cost in work units (see the top comment). */
static double
grp_cost(const struct grp *g)
{
	double v = 1.0;
	size_t j;

	for (j = 0; j < g->d; j++)
		v *= (double)(g->cls[j + 1] - g->cls[j] + 1);
	return v * (double)(g->d + 8);
}

/* Unnormalized weight of scale tau. */
static double
scale_weight(enum ms_weights w, size_t G, size_t tau_min, size_t tau)
{
	switch (w) {
	case MS_GLOBAL:
		return (double)(tau - tau_min + 1);
	case MS_LOCAL:
		return (double)(G - tau + 1);
	case MS_UNIFORM:
	default:
		return 1.0;
	}
}

/* w[tau] for tau = tau_min..G, normalized to sum 1. */
static void
scale_weights(enum ms_weights wk, size_t G, size_t tau_min, double *w)
{
	double s = 0.0;
	size_t tau;

	for (tau = tau_min; tau <= G; tau++)
		s += scale_weight(wk, G, tau_min, tau);
	for (tau = tau_min; tau <= G; tau++)
		w[tau] = scale_weight(wk, G, tau_min, tau) / s;
}

/*
 * row[k] = log C(n, k), k = 0..n.  The product recurrence in doubles is
 * accurate to about k ulps, far better than differences of lgamma; it goes
 * on in logs only if the binomial nears overflow (n above ~1000).
 */
static void
logbinom_row(size_t n, double *row)
{
	double c = 1.0, lc = 0.0;
	size_t k;
	int inlog = 0;

	for (k = 0; k <= n / 2; k++) {
		row[k] = row[n - k] = inlog ? lc : log(c);
		if (!inlog && c > 1e290) {
			inlog = 1;
			lc = log(c);
		}
		if (inlog)
			lc += log((double)(n - k) / (double)(k + 1));
		else
			c = c * (double)(n - k) / (double)(k + 1);
	}
}

/*
 * Mean and 1 / (sigma + eps) of the subgroup mem[0..n-1] (ascending
 * canonical indices).  Returns 0 when the subgroup contributes exactly 0:
 * all rewards equal (canonical order sorts by reward, so comparing the
 * ends suffices), no weight, or a zero denominator.
 */
static int
subgroup_stats(const struct grp *g, const size_t *mem, size_t n,
    double *mu, double *f)
{
	double w, s, v, den;
	size_t a;

	if (g->r[mem[0]] == g->r[mem[n - 1]])
		return 0;
	w = s = 0.0;
	for (a = 0; a < n; a++) {
		w += g->t[mem[a]];
		s += g->t[mem[a]] * g->r[mem[a]];
	}
	if (!(w > 0.0))
		return 0;
	*mu = s / w;
	v = 0.0;
	for (a = 0; a < n; a++) {
		double e = g->r[mem[a]] - *mu;

		v += g->t[mem[a]] * e * e;
	}
	den = sqrt(v / w) + g->eps;
	if (!(den > 0.0))
		return 0;
	*f = 1.0 / den;
	return 1;
}

/*
 * Exact path over count vectors.  acc[tau * d + c] collects Abar_c(tau)
 * directly, each term already divided by C(G-1,tau-1).
 */
static int
exact_counts(struct grp *g, const double *w)
{
	size_t G = g->G, d = g->d, c, j, tau, lo, hi;
	size_t *n, *k, *lcoff;
	double *lc, *lg, *acc, *rv, *tv;
	double sw, s, v, mu, den, lp, h;
	int rc = -2;

	n = malloc(d * sizeof(*n));
	k = calloc(d, sizeof(*k));
	lcoff = malloc(d * sizeof(*lcoff));
	lc = malloc((G + d) * sizeof(*lc));
	lg = malloc((G + 1) * sizeof(*lg));
	acc = calloc((G + 1) * d, sizeof(*acc));
	rv = malloc(d * sizeof(*rv));
	tv = malloc(d * sizeof(*tv));
	if (n == NULL || k == NULL || lcoff == NULL || lc == NULL ||
	    lg == NULL || acc == NULL || rv == NULL || tv == NULL)
		goto out;

	lo = 0;
	for (c = 0; c < d; c++) {
		n[c] = g->cls[c + 1] - g->cls[c];
		rv[c] = g->r[g->cls[c]];
		tv[c] = g->t[g->cls[c]];
		lcoff[c] = lo;
		logbinom_row(n[c], lc + lo);
		lo += n[c] + 1;
	}
	logbinom_row(G, lg);

	/* Odometer over k; tau = sum k is kept as it turns. */
	tau = 0;
	for (;;) {
		if (tau >= g->tau_min) {
			lo = d;
			hi = 0;
			sw = s = lp = 0.0;
			for (c = 0; c < d; c++) {
				if (k[c] == 0)
					continue;
				if (lo == d)
					lo = c;
				hi = c;
				sw += (double)k[c] * tv[c];
				s += (double)k[c] * tv[c] * rv[c];
				lp += lc[lcoff[c] + k[c]];
			}
			/* Classes are sorted by reward: equal ends, equal all. */
			if (rv[lo] == rv[hi] || !(sw > 0.0))
				goto next;
			mu = s / sw;
			v = 0.0;
			for (c = lo; c <= hi; c++) {
				double e = rv[c] - mu;

				v += (double)k[c] * tv[c] * e * e;
			}
			den = sqrt(v / sw) + g->eps;
			if (!(den > 0.0))
				goto next;
			h = exp(lp - lg[tau]) * (double)G / (double)tau / den;
			for (c = lo; c <= hi; c++)
				acc[tau * d + c] += h * (double)k[c] /
				    (double)n[c] * (rv[c] - mu);
		}
next:
		for (j = 0; j < d; j++) {
			if (k[j] < n[j]) {
				k[j]++;
				tau++;
				break;
			}
			tau -= k[j];
			k[j] = 0;
		}
		if (j == d)
			break;
	}

	for (c = 0; c < d; c++) {
		double a = 0.0;

		for (tau = g->tau_min; tau <= G; tau++)
			a += w[tau] * acc[tau * d + c];
		for (j = g->cls[c]; j < g->cls[c + 1]; j++)
			g->out[j] = a;
	}
	rc = 0;
out:
	free(n);
	free(k);
	free(lcoff);
	free(lc);
	free(lg);
	free(acc);
	free(rv);
	free(tv);
	return rc;
}

/*
 * Exact path when every class is a singleton: all 2^G subgroups, each
 * one's statistics taken afresh (two passes, so that no cancellation creeps
 * in from running sums).  The enumeration and its order of summation are
 * advmath.h's, shared with the CUDA kernel, so both give the same bits.
 * G <= MSGRPO_MASK_G.
 */
static int
exact_masks(struct grp *g, const struct ms_params *p)
{
	size_t G = g->G;
	double *acc, *scratch;

	acc = malloc((G + 1) * G * sizeof(*acc));
	scratch = malloc(3 * G * sizeof(*scratch));
	if (acc == NULL || scratch == NULL) {
		free(acc);
		free(scratch);
		return -2;
	}
	advmath_ms_exact_masks(g->r, g->t, (unsigned)G, (unsigned)g->tau_min,
	    g->eps, p->weights, acc, scratch, g->out);
	free(acc);
	free(scratch);
	return 0;
}

/* C(n, k) as a double, HUGE_VAL when past 1e300; exact below 2^53. */
static double
binom_dbl(size_t n, size_t k)
{
	double c = 1.0;
	size_t i;

	if (k > n)
		return 0.0;
	if (k > n - k)
		k = n - k;
	for (i = 0; i < k; i++) {
		c = c * (double)(n - i) / (double)(i + 1);
		if (c > 1e300)
			return HUGE_VAL;
	}
	return c;
}

/*
 * Dilated Scale Sampling (Sec. 3.2.1).  Writes the chosen scales to taus
 * and returns how many.  M above G - tau_min + 1 gives the same scales as
 * M = G - tau_min + 1 (every interval a single scale, and a single-scale
 * draw takes nothing from the generator), so M is clamped there.
 */
static size_t
pick_scales(size_t G, size_t tau_min, int scales, uint64_t *rng,
    size_t *taus)
{
	size_t L = G - tau_min + 1, M, step, j, n = 0;
	long long e, eprev, s;

	M = scales < 1 ? 1 : (size_t)scales;
	if (M > L)
		M = L;
	step = (L + M - 1) / M;
	eprev = (long long)tau_min - 1;
	for (j = 1; j <= M; j++) {
		e = (long long)G - (long long)((M - j) * step);
		s = eprev + 1 > (long long)tau_min ? eprev + 1 :
		    (long long)tau_min;
		eprev = e;
		if (s > e)
			continue;
		taus[n++] = (size_t)s +
		    (size_t)rng_below(rng, (uint64_t)(e - s + 1));
	}
	return n;
}

/* Adds z of every member of the subgroup to sum[] and counts it in cnt[]. */
static void
sample_eval(const struct grp *g, const size_t *mem, size_t n, double *sum,
    double *cnt)
{
	double mu, f;
	size_t a;

	for (a = 0; a < n; a++)
		cnt[mem[a]] += 1.0;
	if (!subgroup_stats(g, mem, n, &mu, &f))
		return;
	for (a = 0; a < n; a++)
		sum[mem[a]] += (g->r[mem[a]] - mu) * f;
}

/* First tau-combination of 0..G-1, then the next one; 0 past the last. */
static void
comb_first(size_t *idx, size_t tau)
{
	size_t a;

	for (a = 0; a < tau; a++)
		idx[a] = a;
}

static int
comb_next(size_t *idx, size_t tau, size_t G)
{
	size_t a;

	for (a = tau; a-- > 0;) {
		if (idx[a] < G - tau + a) {
			idx[a]++;
			for (a++; a < tau; a++)
				idx[a] = idx[a - 1] + 1;
			return 1;
		}
	}
	return 0;
}

/* A uniform random tau-subset of 0..G-1 (Floyd), as a bit set. */
static void
rand_subset(size_t G, size_t tau, uint64_t *rng, uint64_t *bits, size_t nw)
{
	size_t m = tau, j, x;
	int comp = 0;

	if (tau > G - tau) {
		m = G - tau;	/* draw the complement: fewer draws */
		comp = 1;
	}
	memset(bits, 0, nw * sizeof(*bits));
	for (j = G - m; j < G; j++) {
		x = (size_t)rng_below(rng, (uint64_t)j + 1);
		if ((bits[x / 64] >> (x % 64)) & 1)
			x = j;
		bits[x / 64] |= (uint64_t)1 << (x % 64);
	}
	if (comp) {
		for (j = 0; j < nw; j++)
			bits[j] = ~bits[j];
		if (G % 64 != 0)
			bits[nw - 1] &= ((uint64_t)1 << (G % 64)) - 1;
	}
}

/* Portable popcount that inlines (no -mpopcnt, no libgcc call). */
static size_t
popcount64(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ULL);
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (size_t)((v * 0x0101010101010101ULL) >> 56);
}

static uint64_t
bits_hash(const uint64_t *b, size_t nw)
{
	uint64_t h = 0x6d732d6772706f31ULL;
	size_t j;

	for (j = 0; j < nw; j++)
		h = mix64(h ^ b[j]);
	return h;
}

/*
 * Fills pool with P distinct random tau-subsets.  Requires C(G,tau) > P,
 * so the rejection loop ends (expected draws at most ~N ln(N / (N - P))).
 */
static int
pool_random(size_t G, size_t tau, size_t P, size_t nw, uint64_t *rng,
    uint64_t *pool)
{
	size_t hcap = 1, *ht, got = 0, h;

	while (hcap < 2 * P)
		hcap <<= 1;
	ht = calloc(hcap, sizeof(*ht));	/* candidate index + 1, 0 empty */
	if (ht == NULL)
		return -2;
	while (got < P) {
		uint64_t *b = pool + got * nw;

		rand_subset(G, tau, rng, b, nw);
		h = (size_t)bits_hash(b, nw) & (hcap - 1);
		while (ht[h] != 0 &&
		    memcmp(pool + (ht[h] - 1) * nw, b, nw * sizeof(*b)) != 0)
			h = (h + 1) & (hcap - 1);
		if (ht[h] != 0)
			continue;	/* seen: draw again */
		ht[h] = ++got;
	}
	free(ht);
	return 0;
}

/*
 * Diverse Group Sampling (Sec. 3.2.2) at scale tau: adds the z of the
 * chosen subgroups to sum[], their counts to cnt[].
 */
static int
sample_scale(const struct grp *g, size_t tau, size_t K, uint64_t *rng,
    double *sum, double *cnt)
{
	size_t G = g->G, nw = (G + 63) / 64, P, cap, c, j, best, last, x, n;
	size_t *idx, *sel = NULL;
	uint64_t *pool = NULL;
	unsigned char *picked = NULL;
	double N, *score = NULL, *dj;
	int rc = -2;

	idx = malloc(G * sizeof(*idx));
	dj = malloc((G + 1) * sizeof(*dj));
	if (idx == NULL || dj == NULL) {
		free(idx);
		free(dj);
		return -2;
	}
	N = binom_dbl(G, tau);
	if (N <= (double)K) {
		/* Few enough: every subgroup (Eq. 7, first case). */
		comb_first(idx, tau);
		do
			sample_eval(g, idx, tau, sum, cnt);
		while (comb_next(idx, tau, G));
		rc = 0;
		goto out;
	}

	cap = K > MSGRPO_POOL / 2 ? 2 * K : MSGRPO_POOL;
	P = N <= (double)cap ? (size_t)N : cap;
	pool = calloc(P * nw, sizeof(*pool));
	picked = calloc(P, 1);
	score = calloc(P, sizeof(*score));
	sel = malloc(K * sizeof(*sel));
	if (pool == NULL || picked == NULL || score == NULL || sel == NULL)
		goto out;
	if (N <= (double)cap) {
		/* Candidates in lexicographic order: index = rank. */
		comb_first(idx, tau);
		c = 0;
		do {
			for (j = 0; j < tau; j++)
				pool[c * nw + idx[j] / 64] |=
				    (uint64_t)1 << (idx[j] % 64);
			c++;
		} while (comb_next(idx, tau, G));
	} else if (pool_random(G, tau, P, nw, rng, pool) != 0)
		goto out;

	/*
	 * Greedy max-sum Jaccard diversity (Eq. 9).  score[c] is the summed
	 * distance of candidate c to those already picked; subgroups of one
	 * size with x members in common are at distance
	 * 1 - x / (2 tau - x) = 2 (tau - x) / (2 tau - x), tabled in dj[x].
	 */
	for (x = 0; x <= tau; x++)
		dj[x] = (double)(2 * (tau - x)) / (double)(2 * tau - x);
	sel[0] = (size_t)rng_below(rng, P);
	picked[sel[0]] = 1;
	for (n = 1; n < K; n++) {
		last = sel[n - 1];
		best = P;
		for (c = 0; c < P; c++) {
			if (picked[c])
				continue;
			x = 0;
			for (j = 0; j < nw; j++)
				x += popcount64(pool[c * nw + j] &
				    pool[last * nw + j]);
			score[c] += dj[x];
			if (best == P || score[c] > score[best])
				best = c;	/* strict: ties keep the lowest */
		}
		sel[n] = best;
		picked[best] = 1;
	}
	for (n = 0; n < K; n++) {
		const uint64_t *b = pool + sel[n] * nw;

		x = 0;
		for (j = 0; j < G; j++)
			if ((b[j / 64] >> (j % 64)) & 1)
				idx[x++] = j;
		sample_eval(g, idx, x, sum, cnt);
	}
	rc = 0;
out:
	free(idx);
	free(dj);
	free(sel);
	free(pool);
	free(picked);
	free(score);
	return rc;
}

/*
 * Sampled path.  Abar_i(tau) averages over the chosen subgroups that
 * contain i; scales with none are left out of i's sum and the weights of
 * the rest renormalized; with no scale left A_i = 0.
 */
static int
sampled(struct grp *g, const struct ms_params *p, uint64_t key_hash)
{
	size_t G = g->G, ns, s, i, *taus;
	size_t K = p->groups < 1 ? 1 : (size_t)p->groups;
	double *sum, *cnt, *ws;
	uint64_t rng;
	int rc = -2;

	rng = mix64(mix64(p->seed ^ 0x4d532d4752504fULL) ^ key_hash);
	taus = malloc((G - g->tau_min + 1) * sizeof(*taus));
	ws = malloc((G - g->tau_min + 1) * sizeof(*ws));
	sum = calloc((G - g->tau_min + 1) * G, sizeof(*sum));
	cnt = calloc((G - g->tau_min + 1) * G, sizeof(*cnt));
	if (taus == NULL || ws == NULL || sum == NULL || cnt == NULL)
		goto out;
	ns = pick_scales(G, g->tau_min, p->scales, &rng, taus);
	for (s = 0; s < ns; s++) {
		ws[s] = scale_weight(p->weights, G, g->tau_min, taus[s]);
		if (sample_scale(g, taus[s], K, &rng, sum + s * G,
		    cnt + s * G) != 0)
			goto out;
	}
	for (i = 0; i < G; i++) {
		double num = 0.0, den = 0.0;

		for (s = 0; s < ns; s++) {
			if (cnt[s * G + i] > 0.0) {
				num += ws[s] * (sum[s * G + i] / cnt[s * G + i]);
				den += ws[s];
			}
		}
		g->out[i] = den > 0.0 ? num / den : 0.0;
	}
	rc = 0;
out:
	free(taus);
	free(ws);
	free(sum);
	free(cnt);
	return rc;
}

static int
exact(struct grp *g, const struct ms_params *p)
{
	double *w;
	int rc;

	w = malloc((g->G + 1) * sizeof(*w));
	if (w == NULL)
		return -2;
	scale_weights(p->weights, g->G, g->tau_min, w);
	if (g->d == g->G && g->G <= MSGRPO_MASK_G)
		rc = exact_masks(g, p);
	else
		rc = exact_counts(g, w);
	free(w);
	return rc;
}

/*
 * Preconditions: r[] finite, T[] finite and >= 0 (T may be NULL: all 1;
 * tie may be NULL: all 0).  Returns 0; -1 when p->mode is MS_EXACT and the
 * cost exceeds p->budget (adv and *path untouched); -2 when out of memory
 * (adv and *path untouched).
 */
int
msgrpo_group(const double *r, const double *T, const uint64_t *tie,
    size_t G, uint64_t key_hash, const struct ms_params *p, double *adv,
    enum ms_path *path)
{
	struct grp g;
	size_t tau_min = p->tau_min < 2 ? 2 : (size_t)p->tau_min, i;
	enum ms_path pa;
	int rc;

	if (G < tau_min) {
		for (i = 0; i < G; i++)
			adv[i] = 0.0;
		*path = MS_PATH_NONE;
		return 0;
	}
	if (grp_init(&g, r, T, tie, G, p) != 0)
		return -2;
	switch (p->mode) {
	case MS_EXACT:
		if (grp_cost(&g) > p->budget) {
			grp_free(&g);
			return -1;
		}
		pa = MS_PATH_EXACT;
		break;
	case MS_SAMPLED:
		pa = MS_PATH_SAMPLED;
		break;
	case MS_AUTO:
	default:
		pa = grp_cost(&g) <= p->budget ? MS_PATH_EXACT :
		    MS_PATH_SAMPLED;
		break;
	}
	rc = pa == MS_PATH_EXACT ? exact(&g, p) : sampled(&g, p, key_hash);
	if (rc != 0) {
		grp_free(&g);
		return rc;
	}
	for (i = 0; i < G; i++) {
		double a = g.out[i];

		/*
		 * No -0 in the output; and a non-finite value can only come
		 * from eps so small that (r - mu) / eps overflows, where 0 is
		 * the least wrong answer.
		 */
		if (a == 0.0 || !isfinite(a))
			a = 0.0;
		adv[g.ord[i]] = a;
	}
	*path = pa;
	grp_free(&g);
	return 0;
}

/*
 * (d + 8) * prod_j (n_j + 1) over the classes (see the top comment); 0 when
 * G < tau_min (nothing to do); HUGE_VAL when out of memory.
 */
double
msgrpo_cost(const double *r, const double *T, size_t G,
    const struct ms_params *p)
{
	struct grp g;
	size_t tau_min = p->tau_min < 2 ? 2 : (size_t)p->tau_min;
	double c;

	if (G < tau_min)
		return 0.0;
	if (grp_init(&g, r, T, NULL, G, p) != 0)
		return HUGE_VAL;
	c = grp_cost(&g);
	grp_free(&g);
	return c;
}
