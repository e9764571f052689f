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
	int	equal;		/* every reward is the same (exactly) */
};

/*
 * Mean and deviation of r[i] for i in [0, n) with sel[i] == k (every i
 * when sel is NULL).  Two passes, so the deviation does not suffer the
 * cancellation of the one-pass formula.  "equal" compares the rewards
 * themselves: SPEC §3 makes equal rewards give exactly 0, never a
 * rounding residue such as -1e-11.
 */
ADV_HD static inline struct advmath_mom
advmath_moments(const double *r, const uint32_t *sel, uint32_t k, size_t n,
    int sample)
{
	struct advmath_mom m;
	double s = 0, ss = 0, first = 0, d;
	size_t i, c = 0;

	m.equal = 1;
	for (i = 0; i < n; i++) {
		if (sel != NULL && sel[i] != k)
			continue;
		if (c == 0)
			first = r[i];
		else if (r[i] != first)
			m.equal = 0;
		s += r[i];
		c++;
	}
	m.n = (double)c;
	m.mean = c ? s / (double)c : 0;
	if (m.equal) {
		m.mean = c ? first : 0;
		m.std = 0;
		return m;
	}
	for (i = 0; i < n; i++) {
		if (sel != NULL && sel[i] != k)
			continue;
		d = r[i] - m.mean;
		ss += d * d;
	}
	if (sample)
		m.std = c > 1 ? sqrt(ss / (double)(c - 1)) : 0;
	else
		m.std = sqrt(ss / (double)c);
	return m;
}

/* (r - mean) / (std + eps), exactly 0 for a set of equal rewards. */
ADV_HD static inline double
advmath_norm(double r, const struct advmath_mom *m, double eps)
{
	if (m->equal)
		return 0;
	return (r - m->mean) / (m->std + eps);
}

/* The rule for a group (or stratum) of one record: no peer, so 0; verl
 * instead uses mean 0 and deviation 1 (SPEC §3, --like verl). */
ADV_HD static inline double
advmath_single(double r, int verl, int divide, double eps)
{
	if (!verl)
		return 0;
	return divide ? r / (1 + eps) : r;
}

/*
 * Per-group estimators (SPEC §3), written once for advantage.c and the
 * CUDA backend.  r, T, strat and out are the group's own slices; out has
 * one slot per record.  bm is the batch's moments, read only by
 * --std-scope batch and --gn-scope batch.
 */

/* GN: (r - mu) / (sigma + eps) of the group, with the std/gn scopes. */
ADV_HD static inline void
advmath_gn_group(const double *r, size_t n, int sample, double eps,
    enum std_scope scope, int gn_batch, const struct advmath_mom *bm, int verl,
    double *out)
{
	struct advmath_mom m;
	size_t i;

	if (gn_batch) {
		for (i = 0; i < n; i++)
			out[i] = advmath_norm(r[i], bm, eps);
		return;
	}
	if (n == 1) {
		out[0] = advmath_single(r[0], verl, scope != STD_NONE,
		    eps);
		return;
	}
	m = advmath_moments(r, NULL, 0, n, sample);
	for (i = 0; i < n; i++) {
		if (m.equal)
			out[i] = 0;
		else if (scope == STD_GROUP)
			out[i] = advmath_norm(r[i], &m, eps);
		else if (scope == STD_BATCH)
			out[i] = (r[i] - m.mean) / (bm->std + eps);
		else
			out[i] = r[i] - m.mean;
	}
}

/* SAN: normalized within each stratum k < nstrat; a stratum of one, 0. */
ADV_HD static inline void
advmath_san_group(const double *r, const uint32_t *strat, uint32_t nstrat,
    size_t n, int sample, double eps, int verl, double *out)
{
	struct advmath_mom m;
	uint32_t k;
	size_t i;

	if (n == 1) {
		out[0] = advmath_single(r[0], verl, 1, eps);
		return;
	}
	for (k = 0; k < nstrat; k++) {
		m = advmath_moments(r, strat, k, n, sample);
		for (i = 0; i < n; i++)
			if (strat[i] == k)
				out[i] = m.n > 1 ? advmath_norm(r[i], &m, eps) :
				    0;
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
	double s = 0;
	size_t i;

	if (n == 1) {
		out[0] = advmath_single(r[0], verl, 0, 0);
		return;
	}
	m = advmath_moments(r, NULL, 0, n, 0);
	for (i = 0; i < n; i++)
		s += r[i];
	for (i = 0; i < n; i++)
		out[i] = m.equal ? 0 : r[i] - (s - r[i]) / (double)(n - 1);
}

/* OPO: r_i - sum T r / sum T; the plain mean when no token is trained. */
ADV_HD static inline void
advmath_opo_group(const double *r, const double *T, size_t n, int verl,
    double *out)
{
	struct advmath_mom m;
	double sw = 0, swr = 0, base;
	size_t i;

	if (n == 1) {
		out[0] = advmath_single(r[0], verl, 0, 0);
		return;
	}
	m = advmath_moments(r, NULL, 0, n, 0);
	for (i = 0; i < n; i++) {
		sw += T[i];
		swr += T[i] * r[i];
	}
	base = sw > 0 ? swr / sw : m.mean;
	for (i = 0; i < n; i++)
		out[i] = m.equal ? 0 : r[i] - base;
}

/*
 * REINFORCE++-baseline's batch whitening of a[] (already r - group mean),
 * in place: token-weighted mean and variance (n - 1) over the records
 * with T > 0, then A_i = (a_i - mean) / sqrt(v + var_eps) for every
 * record (var_eps: adv_params.var_eps, 1e-8 as verl's masked_whiten).
 * When those a_i are all equal (or there is none) every A_i is 0.  A
 * reduction over the whole batch: the CUDA backend runs it on the host.
 */
ADV_HD static inline void
advmath_whiten(double *a, const double *T, size_t n, double var_eps)
{
	double N = 0, s = 0, ss = 0, first = 0, mu, v, scale;
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
		s += T[i] * a[i];
	}
	if (equal) {
		for (i = 0; i < n; i++)
			a[i] = 0;
		return;
	}
	mu = s / N;
	for (i = 0; i < n; i++)
		if (T[i] > 0)
			ss += T[i] * (a[i] - mu) * (a[i] - mu);
	v = N > 1 ? ss / (N - 1) : 0;
	scale = sqrt(v + var_eps);
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

#endif
