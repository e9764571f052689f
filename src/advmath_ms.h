/*
 * advmath_ms.h - MS-GRPO's arithmetic, written once for the CPU
 * (msgrpo_exact.c, msgrpo_sampled.c) and the CUDA kernels
 * (backend_cuda_ms.cu).  Pure functions: the caller owns every array.
 */
#ifndef RLADV_ADVMATH_MS_H
#define RLADV_ADVMATH_MS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "advmath.h"
#include "kinds.h"

/*
 * MS-GRPO's subgroups: their statistics, for the sampled path
 * (src/msgrpo_sampled.c) and the exact enumeration over bit masks
 * (src/msgrpo_exact.c when every reward is distinct, and the CUDA
 * kernels).  r[] and t[] are the group in canonical order (ascending
 * reward, so a subgroup's rewards are all equal exactly when its lowest
 * and highest members' are), t[] the statistic weights (T_i, or 1 with
 * seq stats), eps already in the units of r[].  A subgroup is a set of
 * members: bit j % 64 of word j / 64 of set[0..nw).
 */

/* Lowest and highest set bit of x != 0. */
ADV_HD static inline unsigned
advmath_ms_ctz64(uint64_t x)
{
#ifdef __CUDA_ARCH__
	return (unsigned)__ffsll((long long)x) - 1;
#else
	return (unsigned)__builtin_ctzll(x);
#endif
}

ADV_HD static inline unsigned
advmath_ms_msb64(uint64_t x)
{
#ifdef __CUDA_ARCH__
	return 63 - (unsigned)__clzll((long long)x);
#else
	return 63 - (unsigned)__builtin_clzll(x);
#endif
}

/* Unnormalized weight of scale tau under one of the schemes (uniform,
 * global, local); msgrpo.c gives the flat and the user's weights. */
ADV_HD static inline double
advmath_ms_scale_weight(enum ms_weights kind, size_t G, size_t tau_min,
    size_t tau)
{
	switch (kind) {
	case MS_GLOBAL:
		return (double)(tau - tau_min + 1);
	case MS_LOCAL:
		return (double)(G - tau + 1);
	case MS_UNIFORM:
	default:
		return 1.0;
	}
}

/* The sum of the scale weights over tau_min..G, taken in that order. */
ADV_HD static inline double
advmath_ms_weight_sum(enum ms_weights kind, size_t G, size_t tau_min)
{
	double s = 0.0;
	size_t u;

	for (u = tau_min; u <= G; u++)
		s += advmath_ms_scale_weight(kind, G, tau_min, u);
	return s;
}

/*
 * w[tau] for tau = 0..G: the scheme's w_tau normalized to sum 1 over
 * tau_min..G (Eq. 6), 0 below tau_min.  The array the combining steps
 * below read, so that every path and the kernels weigh alike.
 */
ADV_HD static inline void
advmath_ms_weights(enum ms_weights kind, size_t G, size_t tau_min,
    double *w)
{
	double ws = advmath_ms_weight_sum(kind, G, tau_min);
	size_t tau;

	for (tau = 0; tau <= G; tau++)
		w[tau] = tau < tau_min ? 0.0 :
		    advmath_ms_scale_weight(kind, G, tau_min, tau) / ws;
}

/*
 * 1 / the denominator of a subgroup with weight w (sum of t) and sum of
 * squared deviations v: sigma + eps, sigma = sqrt(v / w) (with sample,
 * v / (w - 1), 0 unless w > 1), or with inside sqrt(sigma^2 + eps).  0
 * when the denominator is not above 0 (the subgroup then contributes 0).
 */
ADV_HD static inline double
advmath_ms_inv_den(double v, double w, double eps, int sample, int inside)
{
	double var, den;

	var = !sample ? v / w : w > 1.0 ? v / (w - 1.0) : 0.0;
	den = inside ? sqrt(var + eps) : sqrt(var) + eps;
	return den > 0.0 ? 1.0 / den : 0.0;
}

/*
 * Mean and f = 1 / (sigma + eps) of the subgroup set[0..nw) (not empty),
 * summed over its members in ascending order (advmath_ms_inv_den() for
 * sample and inside).  0 when it contributes exactly 0: equal rewards,
 * no weight, or a zero denominator.
 */
ADV_HD static inline int
advmath_ms_set_stats(const double *r, const double *t, const uint64_t *set,
    size_t nw, double eps, int sample, int inside, double *mu, double *f)
{
	double w = 0.0, s = 0.0, v = 0.0, den, e, wlo = 0.0, whi = 0.0;
	uint64_t b;
	size_t k, lo, hi, j;

	for (lo = 0; set[lo] == 0; lo++)
		;
	for (hi = nw - 1; set[hi] == 0; hi--)
		;
	if (r[lo * 64 + advmath_ms_ctz64(set[lo])] ==
	    r[hi * 64 + advmath_ms_msb64(set[hi])])
		return 0;
	for (k = lo; k <= hi; k++)
		for (b = set[k]; b != 0; b &= b - 1) {
			j = k * 64 + advmath_ms_ctz64(b);
			if (t[j] > 0.0) {
				if (!(w > 0.0))
					wlo = r[j];
				whi = r[j];
			}
			w += t[j];
			s += t[j] * r[j];
		}
	if (!(w > 0.0))
		return 0;
	/* Token stats whose weighted members share one reward (the others
	 * weigh 0): the mean is that reward, not s / w with its rounding,
	 * and so the deviation is 0. */
	*mu = wlo == whi ? wlo : s / w;
	for (k = lo; k <= hi; k++)
		for (b = set[k]; b != 0; b &= b - 1) {
			j = k * 64 + advmath_ms_ctz64(b);
			e = r[j] - *mu;
			v += t[j] * e * e;
		}
	if (!sample && !inside) {
		/* The kernels' own bits: sqrt(v / w) + eps as ever. */
		den = sqrt(v / w) + eps;
		if (!(den > 0.0))
			return 0;
		*f = 1.0 / den;
		return 1;
	}
	*f = advmath_ms_inv_den(v, w, eps, sample, inside);
	return *f > 0.0;
}

/* Adds z_j = (r_j - mu) f to acc[j * stride] for every member j of the
 * subgroup set[0..nw), mu and f its advmath_ms_set_stats(). */
ADV_HD static inline void
advmath_ms_set_add(const double *r, const uint64_t *set, size_t nw,
    double mu, double f, double *acc, size_t stride)
{
	uint64_t b;
	size_t k, j;

	for (k = 0; k < nw; k++)
		for (b = set[k]; b != 0; b &= b - 1) {
			j = k * 64 + advmath_ms_ctz64(b);
			acc[j * stride] += (r[j] - mu) * f;
		}
}

/*
 * C(n, k): exact when n <= 62; past that, UINT64_MAX once a step of the
 * product would pass 2^64 (so any C(n, k) above 2^64 / n reads as
 * UINT64_MAX, which the sampled path only compares with small counts).
 */
ADV_HD static inline uint64_t
advmath_ms_binom64(unsigned n, unsigned k)
{
	uint64_t c = 1;
	unsigned i;

	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	for (i = 0; i < k; i++) {
		if (c > UINT64_MAX / (n - i))
			return UINT64_MAX;
		c = c * (n - i) / (i + 1);
	}
	return c;
}

/*
 * The k-subset of {0..n-1} of rank "rank" in colexicographic order, which
 * is the order of the masks as numbers (the order of msgrpo_exact.c's mask
 * loop); rank < C(n, k), 1 <= k <= n <= 62.
 */
ADV_HD static inline uint64_t
advmath_ms_colex_unrank(uint64_t rank, unsigned k, unsigned n)
{
	uint64_t m = 0, bc;
	unsigned c = n, i;

	for (i = k; i >= 1; i--) {
		/* The largest c below the last with C(c, i) <= rank. */
		c--;
		bc = advmath_ms_binom64(c, i);
		while (bc > rank) {
			bc = bc * (c - i) / c;	/* C(c - 1, i) */
			c--;
		}
		m |= (uint64_t)1 << c;
		rank -= bc;
	}
	return m;
}

/* The next mask with as many bits, as a number (Gosper). */
ADV_HD static inline uint64_t
advmath_ms_next_comb(uint64_t m)
{
	uint64_t low = m & (~m + 1), up = m + low;

	return (((up ^ m) >> 2) >> advmath_ms_ctz64(m)) | up;
}

/*
 * Adds z_j(S) = (r_j - mu_S) f_S to acc[j * stride] for every member j of
 * the count subgroups of size tau from colex rank "rank" on.
 */
ADV_HD static inline void
advmath_ms_run(const double *r, const double *t, double eps, unsigned G,
    unsigned tau, uint64_t rank, uint64_t count, double *acc,
    size_t stride)
{
	uint64_t m;
	double mu = 0.0, f = 0.0;

	if (count == 0)
		return;
	m = advmath_ms_colex_unrank(rank, tau, G);
	for (;;) {
		if (advmath_ms_set_stats(r, t, &m, 1, eps, 0, 0, &mu, &f))
			advmath_ms_set_add(r, &m, 1, mu, f, acc, stride);
		if (--count == 0)
			break;
		m = advmath_ms_next_comb(m);
	}
}

/*
 * A_j = sum_tau w[tau] acc[tau * stride] / C(G - 1, tau - 1), tau from
 * tau_min to G in ascending order, acc[tau * stride] the sum of z_j over
 * the subgroups of size tau that hold j, w normalized
 * (advmath_ms_weights()).
 */
ADV_HD static inline double
advmath_ms_combine(const double *acc, size_t stride, size_t G,
    size_t tau_min, const double *w)
{
	double a = 0.0;
	uint64_t cb = 1;	/* C(G - 1, tau - 1) */
	size_t tau;

	for (tau = 1; tau <= G; tau++) {
		if (tau >= tau_min)
			a += w[tau] * (acc[tau * stride] / (double)cb);
		cb = cb * (G - tau) / tau;
	}
	return a;
}

/*
 * An MS-GRPO advantage as written out: no -0; and 0 for a non-finite
 * value, which only an eps so small that (r - mu) / eps overflows can
 * give, and where 0 is the least wrong answer.
 */
ADV_HD static inline double
advmath_ms_finish(double a)
{
	return a == 0.0 || !isfinite(a) ? 0.0 : a;
}

/*
 * The order in which the exact enumeration sums: for each scale, the
 * subgroups in colex order cut into runs of advmath_ms_per(G), each run
 * summed from 0; ADVMATH_MS_THREADS runs make a block, summed in run
 * order; the blocks summed in order.  The CUDA backend sums in parallel
 * in this order (a run per thread, a block per thread block), so a CPU
 * that sums the same way (advmath_ms_exact_masks) gets the same bits.
 */
#define ADVMATH_MS_THREADS	128

ADV_HD static inline uint64_t
advmath_ms_per(unsigned G)
{
	return (uint64_t)32 << (G > 24 ? G - 24 : 0);
}

/*
 * A_j for every member of a group whose rewards are all distinct, by
 * enumeration of its 2^G subgroups in the order above, weighted by w
 * (advmath_ms_weights()).  acc: (G + 1) * G doubles, scratch: 3 * G
 * doubles, out: G, all the caller's.  G <= 62.
 */
ADV_HD static inline void
advmath_ms_exact_masks(const double *r, const double *t, unsigned G,
    unsigned tau_min, double eps, const double *w, double *acc,
    double *scratch, double *out)
{
	double *run = scratch, *blk = scratch + G, *seg = scratch + 2 * G;
	uint64_t per = advmath_ms_per(G), nrank, b0, rank, n;
	unsigned tau, th, j;

	for (j = 0; j < (G + 1) * G; j++)
		acc[j] = 0.0;
	for (tau = tau_min; tau <= G; tau++) {
		nrank = advmath_ms_binom64(G, tau);
		for (j = 0; j < G; j++)
			seg[j] = 0.0;
		for (b0 = 0; b0 < nrank; b0 += per * ADVMATH_MS_THREADS) {
			for (j = 0; j < G; j++)
				blk[j] = 0.0;
			for (th = 0; th < ADVMATH_MS_THREADS; th++) {
				/* Past the end: the rest add +0.0. */
				rank = b0 + th * per;
				if (rank >= nrank)
					break;
				n = nrank - rank < per ? nrank - rank : per;
				for (j = 0; j < G; j++)
					run[j] = 0.0;
				advmath_ms_run(r, t, eps, G, tau, rank, n, run,
				    1);
				for (j = 0; j < G; j++)
					blk[j] += run[j];
			}
			for (j = 0; j < G; j++)
				seg[j] += blk[j];
		}
		for (j = 0; j < G; j++)
			acc[tau * G + j] = seg[j];
	}
	for (j = 0; j < G; j++)
		out[j] = advmath_ms_combine(acc + j, G, G, tau_min, w);
}

#endif
