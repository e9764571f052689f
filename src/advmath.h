/*
 * advmath.h - the per-group arithmetic of every estimator, written once for
 * the CPU and the CUDA backend (ADV_HD marks it __host__ __device__ under
 * nvcc).  Pure functions: the caller owns every array.
 */
#ifndef RLADV_ADVMATH_H
#define RLADV_ADVMATH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

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

/* -0 would print as "-0": SPEC §5 forbids it. */
ADV_HD static inline double
advmath_nz(double v)
{
	return v == 0 ? 0 : v;
}

#endif
