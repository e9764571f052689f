/*
 * advmath.h - the per-group arithmetic of the group estimators, written
 * once for the CPU and the CUDA backend (ADV_HD marks it __host__
 * __device__ under nvcc).  Pure functions: the caller owns every array.
 * MS-GRPO's arithmetic is advmath_ms.h, the loss modes' advmath_lw.h.
 */
#ifndef RLADV_ADVMATH_H
#define RLADV_ADVMATH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kinds.h"

#ifdef __CUDACC__
#define ADV_HD __host__ __device__
#else
#define ADV_HD
#endif

/* Moments of one set of rewards. */
struct advmath_mom {
	double	n;		/* members */
	double	mean;
	double	std;		/* population, or sample with n-1 */
	double	var;		/* std squared, as summed */
	int	equal;		/* every reward is the same (exactly) */
};

/*
 * s += x, what the addition loses kept in *lost (Neumaier's compensated
 * sum): s + *lost is the exact sum of a few rewards.
 */
ADV_HD static inline void
advmath_sum_add(double *s, double *lost, double x)
{
	double t = *s + x;

	*lost += fabs(*s) >= fabs(x) ? (*s - t) + x : (x - t) + *s;
	*s = t;
}

/* s += a b, what the product loses (exact, by fma) and the addition
 * loses kept in *lost. */
ADV_HD static inline void
advmath_sum_add_prod(double *s, double *lost, double a, double b)
{
	double p = a * b;

	*lost += fma(a, b, -p);
	advmath_sum_add(s, lost, p);
}

/*
 * (s + lost) / n rounded once, as near as doubles go: q = s / n, then
 * its remainder s - q n (exact, by fma) and the lost bits, over n.  A
 * mean summed plainly rounds twice: rewards 0.1, 0.2 and 0.3 sum to
 * 0.6000000000000001 and give 0.20000000000000004, so the middle one's
 * advantage was -3.4e-16 and the balanced modes counted it negative.
 * This mean is 0.2 (the doubles' exact mean, 0.2000000000000000018,
 * rounded), and that advantage 0.
 */
ADV_HD static inline double
advmath_mean_of(double s, double lost, double n)
{
	double q = s / n;

	return q + (fma(-q, n, s) + lost) / n;
}

/*
 * Mean and deviation of r[i] for i in [0, n) with sel[i] == k (every i
 * when sel is NULL).  Two passes, so the deviation does not suffer the
 * cancellation of the one-pass formula; the mean rounded once
 * (advmath_mean_of()).  "equal" compares the rewards themselves: equal
 * rewards give exactly 0 by rule, never a rounding residue such as -1e-11.
 */
ADV_HD static inline struct advmath_mom
advmath_moments(const double *r, const uint32_t *sel, uint32_t k, size_t n,
    int sample)
{
	struct advmath_mom m;
	double s = 0, lost = 0, ss = 0, first = 0, d;
	size_t i, c = 0;

	m.equal = 1;
	for (i = 0; i < n; i++) {
		if (sel != NULL && sel[i] != k)
			continue;
		if (c == 0)
			first = r[i];
		else if (r[i] != first)
			m.equal = 0;
		advmath_sum_add(&s, &lost, r[i]);
		c++;
	}
	m.n = (double)c;
	m.mean = c ? advmath_mean_of(s, lost, (double)c) : 0;
	if (m.equal) {
		m.mean = c ? first : 0;
		m.std = m.var = 0;
		return m;
	}
	for (i = 0; i < n; i++) {
		if (sel != NULL && sel[i] != k)
			continue;
		d = r[i] - m.mean;
		ss += d * d;
	}
	if (sample)
		m.var = c > 1 ? ss / (double)(c - 1) : 0;
	else
		m.var = ss / (double)c;
	m.std = sqrt(m.var);
	return m;
}

/*
 * How a set's deviation divides, as the options shape it (--std, --eps,
 * --eps-inside, --std-scope): the group estimators' one argument for it.
 */
struct advmath_dev {
	int		sample;		/* the deviation divides by n - 1 */
	double		eps;
	int		inside;		/* sqrt(var + eps), not std + eps */
	enum std_scope	scope;		/* the set's own, the batch's, none */
	/* One reward unit in the rewards at hand: 1, or 2^-k when
	 * compute.c prescaled them (eps is scaled along); eps1 is eps as
	 * given, per unit (eps * 2^-2k can underflow). */
	double		unit, eps1;
};

/*
 * The denominator of a set with moments m: std + eps, or with --eps-inside
 * sqrt(var + eps), the deviation of Balanced Aggregation's Eq. 2 (which
 * also keeps a set of equal rewards from dividing by a bare eps).
 */
ADV_HD static inline double
advmath_den(const struct advmath_mom *m, const struct advmath_dev *dv)
{
	return dv->inside ? sqrt(m->var + dv->eps) : m->std + dv->eps;
}

/* The same for a deviation of 1 (verl's group of one): one reward unit,
 * so that a prescaled batch's group of one gets r / (1 + eps) too. */
ADV_HD static inline double
advmath_den1(const struct advmath_dev *dv)
{
	return dv->unit * (dv->inside ? sqrt(1 + dv->eps1) : 1 + dv->eps1);
}

/* (r - mean) / (std + eps), exactly 0 for a set of equal rewards. */
ADV_HD static inline double
advmath_norm(double r, const struct advmath_mom *m, double eps)
{
	if (m->equal)
		return 0;
	return (r - m->mean) / (m->std + eps);
}

/*
 * r centred on m's mean and divided by the deviation dv says: m's own
 * (STD_GROUP: the group's for GN, the stratum's for SAN), the batch's bm
 * (STD_BATCH), or none (STD_NONE).  Exactly 0 when m's rewards are equal.
 */
ADV_HD static inline double
advmath_scaled(double r, const struct advmath_mom *m,
    const struct advmath_mom *bm, const struct advmath_dev *dv)
{
	if (m->equal)
		return 0;
	switch (dv->scope) {
	case STD_NONE:
		return r - m->mean;
	case STD_BATCH:
		return (r - m->mean) / advmath_den(bm, dv);
	case STD_GROUP:
	default:
		return (r - m->mean) / advmath_den(m, dv);
	}
}

/* The rule for a group (or stratum) of one record: no peer, so 0; verl
 * instead uses mean 0 and deviation 1 (--like verl), and
 * divides by den (1 + eps) where the estimator divides. */
ADV_HD static inline double
advmath_single(double r, int verl, int divide, double den)
{
	if (!verl)
		return 0;
	return divide ? r / den : r;
}

/*
 * Per-group estimators, written once for advantage.c and the
 * CUDA backend.  r, T, strat and out are the group's own slices; out has
 * one slot per record.  bm is the batch's moments, read only by
 * --std-scope batch and --gn-scope batch.
 */

/*
 * GN: (r - mu) / (sigma + eps) of the group, with the deviation dv says;
 * with gn_batch mu and sigma are the batch's (Stratified GRPO, Algorithm
 * 1, step 1), and with STD_NONE too A = r - mu of the batch: Sec. 3.2's
 * global baseline shared by the whole batch.
 */
ADV_HD static inline void
advmath_gn_group(const double *r, size_t n, const struct advmath_dev *dv,
    int gn_batch, const struct advmath_mom *bm, int verl, double *out)
{
	struct advmath_mom m;
	size_t i;

	if (gn_batch) {
		for (i = 0; i < n; i++)
			out[i] = advmath_scaled(r[i], bm, bm, dv);
		return;
	}
	if (n == 1) {
		out[0] = advmath_single(r[0], verl, dv->scope != STD_NONE,
		    advmath_den1(dv));
		return;
	}
	m = advmath_moments(r, NULL, 0, n, dv->sample);
	for (i = 0; i < n; i++)
		out[i] = advmath_scaled(r[i], &m, bm, dv);
}

/*
 * SAN: (r - mu_k) / (sigma_k + eps) within each stratum k < nstrat
 * (Stratified GRPO, Definition 1); with STD_NONE the stratum baseline
 * alone, r - mu_k (Sec. 3.2's A_S), with STD_BATCH over the batch's
 * deviation.  A stratum of one has no peer: 0.
 */
ADV_HD static inline void
advmath_san_group(const double *r, const uint32_t *strat, uint32_t nstrat,
    size_t n, const struct advmath_dev *dv, const struct advmath_mom *bm,
    int verl, double *out)
{
	struct advmath_mom m;
	uint32_t k;
	size_t i;

	if (n == 1) {
		out[0] = advmath_single(r[0], verl, dv->scope != STD_NONE,
		    advmath_den1(dv));
		return;
	}
	for (k = 0; k < nstrat; k++) {
		m = advmath_moments(r, strat, k, n, dv->sample);
		for (i = 0; i < n; i++)
			if (strat[i] == k)
				out[i] = m.n > 1 ?
				    advmath_scaled(r[i], &m, bm, dv) : 0;
	}
}

/* Stratified GRPO: alpha SAN + (1 - alpha) GN. */
ADV_HD static inline double
advmath_mix(double alpha, double san, double gn)
{
	return alpha * san + (1 - alpha) * gn;
}

/* RLOO: r_i - mean of the others; a group of one has no other. */
ADV_HD static inline void
advmath_rloo_group(const double *r, size_t n, int verl, double *out)
{
	struct advmath_mom m;
	double s = 0, lost = 0, t, tl;
	size_t i;

	if (n == 1) {
		out[0] = advmath_single(r[0], verl, 0, 0);
		return;
	}
	m = advmath_moments(r, NULL, 0, n, 0);
	for (i = 0; i < n; i++)
		advmath_sum_add(&s, &lost, r[i]);
	/* The others' mean rounded once, as the group's is. */
	for (i = 0; i < n; i++) {
		t = s;
		tl = lost;
		advmath_sum_add(&t, &tl, -r[i]);
		out[i] = m.equal ? 0 : r[i] - advmath_mean_of(t, tl,
		    (double)(n - 1));
	}
}

/*
 * OPO: r_i - sum T r / sum T, rounded once; the plain mean when no token
 * is trained.  Rounded once, the baseline of records that train a token
 * and share one reward is that reward (0.1 times 3, 2 and 1 tokens over
 * 6, summed plainly, is 0.09999999999999999), so they get 0, not a
 * residue that the balanced modes count by its sign.
 */
ADV_HD static inline void
advmath_opo_group(const double *r, const double *T, size_t n, int verl,
    double *out)
{
	struct advmath_mom m;
	double sw = 0, swr = 0, lost = 0, base;
	size_t i;

	if (n == 1) {
		out[0] = advmath_single(r[0], verl, 0, 0);
		return;
	}
	m = advmath_moments(r, NULL, 0, n, 0);
	for (i = 0; i < n; i++) {
		sw += T[i];
		advmath_sum_add_prod(&swr, &lost, T[i], r[i]);
	}
	base = sw > 0 ? advmath_mean_of(swr, lost, sw) : m.mean;
	for (i = 0; i < n; i++)
		out[i] = m.equal ? 0 : r[i] - base;
}

/*
 * NeMo-RL's leave-one-out normalization (its GRPO default,
 * use_leave_one_out_baseline): for each i, b_i and s_i are the mean and
 * deviation (--std: sample divides by G - 2, population by G - 1) of the
 * G - 1 others; A_i = (r_i - b_i) / (s_i + eps) where s_i > 0, else
 * r_i - b_i unscaled.  s_i is 0 when the others are all equal (decided by
 * comparison, not by NeMo-RL's float32 E[r^2] - b^2) or when there is
 * one other.  A group of one has no other: 0.  Two passes per i: O(G^2).
 */
ADV_HD static inline void
advmath_loo_group(const double *r, size_t n, int sample, double eps,
    double *out)
{
	double s, lost, ss, b, sd, first, d;
	size_t i, j, c = n - 1;
	int equal;

	if (n == 1) {
		out[0] = 0;
		return;
	}
	for (i = 0; i < n; i++) {
		first = r[i == 0 ? 1 : 0];
		equal = 1;
		s = lost = 0;
		for (j = 0; j < n; j++) {
			if (j == i)
				continue;
			equal &= r[j] == first;
			advmath_sum_add(&s, &lost, r[j]);
		}
		if (equal) {
			out[i] = r[i] - first;
			continue;
		}
		b = advmath_mean_of(s, lost, (double)c);
		ss = 0;
		for (j = 0; j < n; j++)
			if (j != i) {
				d = r[j] - b;
				ss += d * d;
			}
		sd = sample ? (c > 1 ? sqrt(ss / (double)(c - 1)) : 0) :
		    sqrt(ss / (double)c);
		out[i] = sd > 0 ? (r[i] - b) / (sd + eps) : r[i] - b;
	}
}

/*
 * verl's grpo_passk: only the best response of the group gets
 * r_max - r_second, divided by the group's deviation plus eps (by the
 * batch's with --std-scope batch, by nothing with none, verl's
 * norm_adv_by_std_in_grpo false); every other response 0, and all 0 when
 * the best two tie.  A group of one gets 0 (verl raises: the caller
 * refuses it first under verl's rule).
 */
ADV_HD static inline void
advmath_passk_group(const double *r, size_t n, int sample, double eps,
    enum std_scope scope, const struct advmath_mom *bm, double *out)
{
	struct advmath_mom m;
	size_t i, best = 0, second;

	for (i = 0; i < n; i++) {
		out[i] = 0;
		if (r[i] > r[best])
			best = i;
	}
	if (n < 2)
		return;
	second = best == 0 ? 1 : 0;
	for (i = 0; i < n; i++)
		if (i != best && r[i] > r[second])
			second = i;
	if (r[best] == r[second])
		return;
	if (scope == STD_NONE) {
		out[best] = r[best] - r[second];
		return;
	}
	m = advmath_moments(r, NULL, 0, n, sample);
	out[best] = (r[best] - r[second]) /
	    ((scope == STD_BATCH ? bm->std : m.std) + eps);
}

/* GPG: alpha (r_i - mean), alpha from the whole batch (the caller's); a
 * group of one is alpha r under verl's rule (mean 0), else 0. */
ADV_HD static inline void
advmath_gpg_group(const double *r, size_t n, double alpha, int verl,
    double *out)
{
	struct advmath_mom m;
	size_t i;

	if (n == 1) {
		out[0] = verl ? alpha * r[0] : 0;
		return;
	}
	m = advmath_moments(r, NULL, 0, n, 0);
	for (i = 0; i < n; i++)
		out[i] = m.equal ? 0 : alpha * (r[i] - m.mean);
}

/* A batch whitening's kind and constants (adv_params' wh). */
struct advmath_whiten {
	enum whiten_kind kind;
	double	var_eps;	/* VERL: added to the variance; CLAMP: its floor */
	double	std_eps;	/* STD: added to the deviation */
};

/*
 * Whitens a[] in place over the batch's trained tokens: a record's value
 * counts T_i times, records with T_i = 0 not at all.  mean = sum T a / N,
 * rounded once (advmath_mean_of()); then by w->kind:
 *   WHITEN_VERL   v = sum T (a - mean)^2 / (N - 1) (0 when N <= 1),
 *                 scale sqrt(v + var_eps): verl's masked_whiten (slime's
 *                 distributed_masked_whiten, SkyRL's port);
 *   WHITEN_CLAMP  v with N, scale sqrt(max(v, var_eps)): OpenRLHF's and
 *                 NeMo-RL's var.clamp(min=1e-8).rsqrt();
 *   WHITEN_STD    s = sqrt(sum T (a - mean)^2 / (N - 1)) (1 when N <= 1),
 *                 scale s + std_eps: AReaL's Normalization.
 * A_i = (a_i - mean) / scale for every record.  When the a_i with trained
 * tokens are all equal every A_i is 0 (rladv's rule); with no trained
 * token at all, 0 too, except WHITEN_STD, which leaves a[] as AReaL does.
 * A reduction over the whole batch: the CUDA backend runs it on the host.
 */
ADV_HD static inline void
advmath_whiten(double *a, const double *T, size_t n,
    const struct advmath_whiten *w)
{
	double N = 0, s = 0, lost = 0, ss = 0, first = 0, mu, v, scale;
	size_t i;
	int equal = 1, any = 0;

	for (i = 0; i < n; i++) {
		if (T[i] <= 0)
			continue;
		if (!any)
			first = a[i];
		else if (a[i] != first)
			equal = 0;
		any = 1;
		N += T[i];
		advmath_sum_add_prod(&s, &lost, T[i], a[i]);
	}
	if (!any && w->kind == WHITEN_STD)
		return;
	if (equal) {
		for (i = 0; i < n; i++)
			a[i] = 0;
		return;
	}
	mu = advmath_mean_of(s, lost, N);
	for (i = 0; i < n; i++)
		if (T[i] > 0)
			ss += T[i] * (a[i] - mu) * (a[i] - mu);
	switch (w->kind) {
	case WHITEN_CLAMP:
		v = ss / N;
		scale = sqrt(v > w->var_eps ? v : w->var_eps);
		break;
	case WHITEN_STD:
		scale = (N > 1 ? sqrt(ss / (N - 1)) : 1) + w->std_eps;
		break;
	case WHITEN_VERL:
	default:
		v = N > 1 ? ss / (N - 1) : 0;
		scale = sqrt(v + w->var_eps);
		break;
	}
	for (i = 0; i < n; i++)
		a[i] = (a[i] - mu) / scale;
}

/*
 * The power-of-two exponent e that brings magnitudes past 2^500 near 1
 * (maxabs * 2^-e in [0.5, 1)), or 0 below.  Scaling by a power of two is
 * exact, and the estimators are homogeneous in r once eps scales along,
 * so computing on r * 2^-e only keeps sums and squares from overflowing
 * (compute.c for the batch, msgrpo_canon.c for a group's rewards and T).
 */
ADV_HD static inline int
advmath_tame_exp(double maxabs)
{
	int e;

	if (!(maxabs > 0x1p500))
		return 0;
	(void)frexp(maxabs, &e);
	return e;
}

/*
 * e < 0 raised so that the constants that scale along with r 2^-e stay
 * below 2^1000: c1 2^-e (eps added to sigma, a reward unit) and c2 2^-2e
 * (eps added to sigma^2); 0 where that leaves none.  Where one of them
 * stops e, it outweighs by 2^1000 or more the squares that still
 * underflow, so what they lose is lost in it.
 */
ADV_HD static inline int
advmath_tame_cap(int e, double c1, double c2)
{
	int lo;

	if (e < -1000)
		e = -1000;
	if (c1 > 0) {
		(void)frexp(c1, &lo);
		if (e < lo - 1000)
			e = lo - 1000;
	}
	if (c2 > 0) {
		(void)frexp(c2, &lo);
		/* Division truncates toward 0: the ceiling of a
		 * negative half. */
		if (e < (lo - 1000) / 2)
			e = (lo - 1000) / 2;
	}
	return e < 0 ? e : 0;
}

/*
 * advmath_tame_exp(), or for magnitudes below 2^-500, whose squares
 * underflow (the deviation of rewards near 1e-160 came out 1e-4 off),
 * the exponent e < 0 that brings them near 1, as far as
 * advmath_tame_cap() lets it.
 */
ADV_HD static inline int
advmath_tame(double maxabs, double c1, double c2)
{
	int e;

	if (!(maxabs > 0 && maxabs < 0x1p-500))
		return advmath_tame_exp(maxabs);
	(void)frexp(maxabs, &e);
	return advmath_tame_cap(e, c1, c2);
}

#endif
