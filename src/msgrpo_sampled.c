/*
 * msgrpo_sampled.c - MS-GRPO's sampled path (Sec. 3.2 of the paper;
 * msgrpo.c gives the estimator), for groups whose exact path would cost
 * more than --ms-budget.
 *
 * In canonical order (msgrpo_canon.c), with one splitmix64 stream seeded
 * from p->seed and key_hash (the group key's hash, mixed with the batch
 * key's when there is one) and drawn in this order:
 *  - Dilated Scale Sampling (Sec. 3.2.1): with L = G - tau_min + 1,
 *    e_j = G - (M - j) ceil(L / M), s_j = max(tau_min, e_{j-1} + 1),
 *    e_0 = tau_min - 1; empty intervals are skipped; one uniform draw per
 *    interval (none for an interval of one scale), or with --ms-dss fixed
 *    the interval's end (Table 6c: tau = 2, 4, 6, 8 at G = 8, M = 4).  A
 *    drawn scale stands for its interval: it weighs W_j, the sum of w_tau
 *    over the interval, so that the uniform draw makes the expected
 *    weight of every scale its own w_tau.  (Weighing it by its own w_tau
 *    would give [2,2] of G = 8 twice the weight of any other scale.)
 *  - Diverse Group Sampling (Eq. 7-9), scale by scale: every subgroup when
 *    C(G, tau) <= K; else a candidate pool, all subgroups in lexicographic
 *    order when C(G, tau) <= max(MSGRPO_POOL, 2K), or that many distinct
 *    uniform random subgroups in the order drawn; then the first pick is
 *    uniform over the pool and each next one has the largest summed Jaccard
 *    distance to those picked, ties broken uniformly at random.  Keeping
 *    the lowest index among ties, over a pool in lexicographic order (by
 *    reward, canonical order), grouped responses of neighbouring rank, so
 *    that the average over seeds was not even monotone in the reward.
 *    With --ms-dgs random, K distinct subgroups uniformly at random
 *    instead (Table 6d).
 *  - Abar_i(tau) is the mean of z_i over the picked subgroups holding i;
 *    i's scales without one drop out and the rest of the weights are
 *    renormalized; no scale left gives A_i = 0.
 * Every choice above is invariant under a relabelling of the responses,
 * so a picked subgroup holding i is, over seeds, a uniform one of those of
 * its size: with i in a pick at every drawn scale (as at G = 8, K = 8),
 * the mean over seeds of A_i is the exact A_i under the uniform weights.
 * With M >= L and K >= C(G, floor(G/2)) every scale and subgroup is taken
 * and the result is the exact one.  A subgroup is a bit set of nw words
 * (advmath_ms.h's), so groups of any size are sampled, in memory linear
 * in G (a scale's sums at a time), and msgrpo_sampled_cost() bounds the
 * work before it starts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advmath_ms.h"
#include "keymap.h"
#include "msgrpo.h"
#include "rng.h"

/*
 * Diverse Group Sampling lists every subgroup of a scale as candidates
 * when there are at most this many (or 2K, if larger); past that the pool
 * is this many distinct subgroups drawn at random.  Measured on the
 * greedy's objective (summed pairwise Jaccard distance of K = 8 picks,
 * G = 16..64), a pool of 1024 comes within 0.5% of 4096 at a quarter of
 * the cost, and drawing the pool is most of the sampled path's time.
 */
#define MSGRPO_POOL	1024

/*
 * Dilated Scale Sampling's intervals (Sec. 3.2.1): the non-empty ones,
 * [s, e], in order into iv (room for min(M, L)); returns how many.  M
 * above L gives the intervals of M = L (each a single scale), so M is
 * clamped there.
 */
struct dss {
	size_t	s, e;
};

static size_t
dss_intervals(size_t G, size_t tau_min, int scales, struct dss *iv)
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
		iv[n].s = (size_t)s;
		iv[n++].e = (size_t)e;
	}
	return n;
}

/* The scale drawn from interval iv (the end, with --ms-dss fixed). */
static size_t
dss_draw(const struct dss *iv, enum ms_dss mode, uint64_t *rng)
{
	if (mode == MS_DSS_FIXED)
		return iv->e;
	return iv->s + (size_t)rng_below(rng, (uint64_t)(iv->e - iv->s + 1));
}

/* Adds z of every member of the subgroup set[0..nw) to sum[] and counts
 * it in cnt[]. */
static void
sample_eval(const struct ms_canon *g, const uint64_t *set, size_t nw,
    double *sum, double *cnt)
{
	double mu, f;
	uint64_t b;
	size_t k;

	for (k = 0; k < nw; k++)
		for (b = set[k]; b != 0; b &= b - 1)
			cnt[k * 64 + advmath_ms_ctz64(b)] += 1.0;
	if (advmath_ms_set_stats(g->r, g->t, set, nw, g->eps, g->sample,
	    g->inside, &mu, &f))
		advmath_ms_set_add(g->r, set, nw, mu, f, sum, 1);
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

/*
 * Fills pool with P distinct random tau-subsets.  Requires C(G,tau) > P,
 * so the rejection loop ends (expected draws at most ~N ln(N / (N - P))).
 * The subsets drawn so far are keys of a keymap (rladv's one hash table,
 * which ends the process if it runs out of memory).
 */
static void
pool_random(size_t G, size_t tau, size_t P, size_t nw, uint64_t *rng,
    uint64_t *pool)
{
	struct keymap drawn;
	size_t got = 0;
	int added;

	keymap_init(&drawn, 0);
	while (got < P) {
		uint64_t *b = pool + got * nw;

		rand_subset(G, tau, rng, b, nw);
		keymap_get(&drawn, b, nw * sizeof(*b), &added);
		if (added)
			got++;	/* else seen: draw again */
	}
	keymap_free(&drawn);
}

/* Every tau-subset of 0..G-1 in lexicographic order into pool (zeroed),
 * idx[] G indexes of scratch. */
static void
pool_lex(size_t G, size_t tau, size_t nw, size_t *idx, uint64_t *pool)
{
	size_t c = 0, j;

	comb_first(idx, tau);
	do {
		for (j = 0; j < tau; j++)
			pool[c * nw + idx[j] / 64] |=
			    (uint64_t)1 << (idx[j] % 64);
		c++;
	} while (comb_next(idx, tau, G));
}

/*
 * Greedy max-sum Jaccard diversity (Eq. 9): K picks out of the P
 * candidates of pool into sel[].  score[c] is the summed distance of
 * candidate c to those already picked; subgroups of one size tau with x
 * members in common are at distance 1 - x / (2 tau - x) =
 * 2 (tau - x) / (2 tau - x), tabled in dj[x].  Candidates within
 * MSGRPO_TIE of the best score tie (sums of the same distances in another
 * order may differ in the last bits); one of them is taken uniformly at
 * random, by reservoir sampling over the pass.
 */
#define MSGRPO_TIE	1e-9

static int
pick_diverse(const uint64_t *pool, size_t P, size_t nw, size_t tau,
    size_t K, uint64_t *rng, size_t *sel)
{
	unsigned char *picked;
	double *score, *dj, top;
	size_t c, j, x, n, best, last;
	uint64_t ties;

	picked = calloc(P, 1);
	score = calloc(P, sizeof(*score));
	dj = malloc((tau + 1) * sizeof(*dj));
	if (picked == NULL || score == NULL || dj == NULL) {
		free(picked);
		free(score);
		free(dj);
		return MSGRPO_NOMEM;
	}
	for (x = 0; x <= tau; x++)
		dj[x] = (double)(2 * (tau - x)) / (double)(2 * tau - x);
	sel[0] = (size_t)rng_below(rng, P);
	picked[sel[0]] = 1;
	for (n = 1; n < K; n++) {
		last = sel[n - 1];
		best = P;
		top = 0.0;
		ties = 0;
		for (c = 0; c < P; c++) {
			if (picked[c])
				continue;
			x = 0;
			for (j = 0; j < nw; j++)
				x += popcount64(pool[c * nw + j] &
				    pool[last * nw + j]);
			score[c] += dj[x];
			if (best == P || score[c] > top + MSGRPO_TIE) {
				best = c;
				top = score[c];
				ties = 1;
			} else if (score[c] >= top - MSGRPO_TIE &&
			    rng_below(rng, ++ties) == 0)
				best = c;
		}
		sel[n] = best;
		picked[best] = 1;
	}
	free(picked);
	free(score);
	free(dj);
	return 0;
}

/* Table 6d's random sampling: K of the P candidates uniformly, by a
 * partial Fisher-Yates shuffle of their indexes. */
static int
pick_random(size_t P, size_t K, uint64_t *rng, size_t *sel)
{
	size_t *ix, c, j, t;

	if ((ix = malloc(P * sizeof(*ix))) == NULL)
		return MSGRPO_NOMEM;
	for (c = 0; c < P; c++)
		ix[c] = c;
	for (c = 0; c < K; c++) {
		j = c + (size_t)rng_below(rng, (uint64_t)(P - c));
		t = ix[c];
		ix[c] = ix[j];
		ix[j] = t;
		sel[c] = ix[c];
	}
	free(ix);
	return 0;
}

/* The pool Diverse Group Sampling chooses from at a scale with n
 * subgroups: all of them up to the cap, else the cap's worth at random;
 * random sampling draws only the K it takes. */
static size_t
pool_size(double n, size_t K, enum ms_dgs dgs)
{
	size_t cap = K > MSGRPO_POOL / 2 ? 2 * K : MSGRPO_POOL;

	if (n <= (double)cap)
		return (size_t)n;
	return dgs == MS_DGS_RANDOM ? K : cap;
}

/* Keeps the subgroup set[0..nw) of scale tau in g's trace. */
static int
trace_set(struct ms_canon *g, const uint64_t *set, size_t nw, size_t tau)
{
	struct ms_trace *t = g->trace;
	uint64_t *ns;
	size_t *sc, cap;

	t->nw = nw;
	if (t->nset == t->cap) {
		cap = t->cap ? 2 * t->cap : 16;
		ns = realloc(t->set, cap * nw * sizeof(*ns));
		if (ns != NULL)
			t->set = ns;
		sc = realloc(t->setscale, cap * sizeof(*sc));
		if (sc != NULL)
			t->setscale = sc;
		if (ns == NULL || sc == NULL)
			return MSGRPO_NOMEM;
		t->cap = cap;
	}
	memcpy(t->set + t->nset * nw, set, nw * sizeof(*set));
	t->setscale[t->nset++] = tau;
	return 0;
}

/*
 * Diverse Group Sampling (Sec. 3.2.2) at scale tau: adds the z of the
 * chosen subgroups to sum[], their counts to cnt[].
 */
static int
sample_scale(struct ms_canon *g, size_t tau, size_t K,
    enum ms_dgs dgs, uint64_t *rng, double *sum, double *cnt)
{
	size_t G = g->G, nw = (G + 63) / 64, P, c, n;
	size_t *idx = NULL, *sel = NULL;
	uint64_t *pool, N;
	int rc = MSGRPO_NOMEM;

	N = advmath_ms_binom64((unsigned)G, (unsigned)tau);
	P = pool_size(N == UINT64_MAX ? HUGE_VAL : (double)N, K, dgs);
	pool = calloc(P * nw, sizeof(*pool));
	idx = malloc(G * sizeof(*idx));
	sel = malloc(K * sizeof(*sel));
	if (pool == NULL || idx == NULL || sel == NULL)
		goto out;
	/* Few enough: candidates in lexicographic order, index = rank. */
	if (P == N)
		pool_lex(G, tau, nw, idx, pool);
	else
		pool_random(G, tau, P, nw, rng, pool);
	if (N <= K) {
		/* Every subgroup (Eq. 7, first case). */
		for (c = 0; c < P; c++) {
			sample_eval(g, pool + c * nw, nw, sum, cnt);
			if (g->trace && trace_set(g, pool + c * nw, nw, tau))
				goto out;
		}
	} else {
		if (dgs == MS_DGS_RANDOM ? pick_random(P, K, rng, sel) :
		    pick_diverse(pool, P, nw, tau, K, rng, sel))
			goto out;
		for (n = 0; n < K; n++) {
			sample_eval(g, pool + sel[n] * nw, nw, sum, cnt);
			if (g->trace && trace_set(g, pool + sel[n] * nw, nw,
			    tau))
				goto out;
		}
	}
	rc = 0;
out:
	free(pool);
	free(idx);
	free(sel);
	return rc;
}

/*
 * Abar_i(tau) averages over the chosen subgroups that contain i; scales
 * with none are left out of i's sum and the weights of the rest
 * renormalized; with no scale left A_i = 0.  One scale's sums at a time:
 * num[] and den[] carry the weighted sum over the scales done.
 */
int
msgrpo_sampled(struct ms_canon *g, const struct ms_params *p,
    uint64_t key_hash)
{
	size_t G = g->G, ni, j, i, tau, t;
	size_t K = p->groups < 1 ? 1 : (size_t)p->groups;
	size_t M = p->scales < 1 ? 1 : (size_t)p->scales;
	struct dss *iv;
	double *sum, *cnt, *num, *den, W;
	uint64_t rng;
	int rc = MSGRPO_NOMEM;

	rng = rng_mix64(rng_mix64(p->seed ^ 0x4d532d4752504fULL) ^ key_hash);
	if (M > G - g->tau_min + 1)
		M = G - g->tau_min + 1;
	iv = malloc(M * sizeof(*iv));
	sum = malloc(G * sizeof(*sum));
	cnt = malloc(G * sizeof(*cnt));
	num = calloc(G, sizeof(*num));
	den = calloc(G, sizeof(*den));
	if (iv == NULL || sum == NULL || cnt == NULL || num == NULL ||
	    den == NULL)
		goto out;
	ni = dss_intervals(G, g->tau_min, p->scales, iv);
	for (j = 0; j < ni; j++) {
		for (W = 0.0, t = iv[j].s; t <= iv[j].e; t++)
			W += g->w[t];
		tau = dss_draw(&iv[j], p->dss, &rng);
		if (!(W > 0.0))
			continue;	/* a given weight list's zeros */
		if (g->trace != NULL) {
			size_t *ns = realloc(g->trace->scale,
			    (g->trace->nscale + 1) * sizeof(*ns));

			if (ns == NULL)
				goto out;
			g->trace->scale = ns;
			g->trace->scale[g->trace->nscale++] = tau;
		}
		memset(sum, 0, G * sizeof(*sum));
		memset(cnt, 0, G * sizeof(*cnt));
		if (sample_scale(g, tau, K, p->dgs, &rng, sum, cnt) != 0)
			goto out;
		for (i = 0; i < G; i++)
			if (cnt[i] > 0.0) {
				num[i] += W * (sum[i] / cnt[i]);
				den[i] += W;
			}
	}
	for (i = 0; i < G; i++)
		g->out[i] = den[i] > 0.0 ? num[i] / den[i] : 0.0;
	rc = 0;
out:
	free(iv);
	free(sum);
	free(cnt);
	free(num);
	free(den);
	return rc;
}

/*
 * The sampled path's cost in the units of msgrpo_canon.c's (about a
 * member or word visited, or a number drawn), per drawn scale tau with
 * N = C(G, tau) subgroups, m = min(tau, G - tau) and nw words a subgroup:
 *	N (3 tau + nw)			when N <= K: every subgroup;
 *	+ P (5 m + 3 nw)		a pool of P random subgroups
 *					(P N tau listing it when N <= P);
 *	+ K P (nw + 2)			the greedy's passes (not with random);
 *	+ K (3 tau + nw)		the picks' statistics.
 * A random draw counts the worst scale of its interval, so the cost does
 * not depend on the seed.  Measured at about 2 ns a unit (x86-64, -O2):
 * the default budget bounds a group at about 0.2 s whichever path it
 * takes, and memory with it (a pool is P nw words).
 */
static double
scale_cost(size_t G, size_t tau, double N, size_t K, enum ms_dgs dgs)
{
	double nw = (double)((G + 63) / 64), t = (double)tau, P, c;
	double m = (double)(tau < G - tau ? tau : G - tau);

	if (N <= (double)K)
		return N * (3 * t + nw);
	P = (double)pool_size(N, K, dgs);
	c = P == N ? N * t : P * (5 * m + 3 * nw);
	if (dgs == MS_DGS_DIVERSE)
		c += (double)K * P * (nw + 2);
	return c + (double)K * (3 * t + nw);
}

double
msgrpo_sampled_cost(size_t G, const struct ms_params *p)
{
	size_t tau_min = msgrpo_tau_min(p), M, ni, j, tau;
	size_t K = p->groups < 1 ? 1 : (size_t)p->groups;
	struct dss *iv;
	double cost = 0.0, lN, worst, c;

	if (G < tau_min)
		return 0.0;
	M = p->scales < 1 ? 1 : (size_t)p->scales;
	if (M > G - tau_min + 1)
		M = G - tau_min + 1;
	if ((iv = malloc(M * sizeof(*iv))) == NULL)
		return HUGE_VAL;
	ni = dss_intervals(G, tau_min, p->scales, iv);
	/* log C(G, tau) along tau, from log C(G, tau_min). */
	for (lN = 0.0, tau = 0; tau < tau_min; tau++)
		lN += log((double)(G - tau) / (double)(tau + 1));
	for (j = 0, tau = tau_min; j < ni; j++) {
		worst = 0.0;
		for (; tau <= iv[j].e; tau++) {
			if (p->dss != MS_DSS_FIXED || tau == iv[j].e) {
				c = scale_cost(G, tau, floor(exp(lN) + 0.5),
				    K, p->dgs);
				worst = c > worst ? c : worst;
			}
			if (tau < G)
				lN += log((double)(G - tau) /
				    (double)(tau + 1));
		}
		cost += worst;
	}
	free(iv);
	return cost;
}
