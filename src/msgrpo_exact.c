/*
 * msgrpo_exact.c - MS-GRPO's exact path: every subgroup of every scale
 * (msgrpo.c gives the estimator).
 *
 * Responses of one class (equal reward; with token stats equal (reward,
 * T)) are interchangeable, so instead of subsets we walk the count
 * vectors k = (k_1..k_d) over the d classes, 0 <= k_j <= n_j.  For class
 * c with k_c >= 1, the number of subgroups containing a given member of c
 * with those counts is C(n_c-1,k_c-1) prod_{j!=c} C(n_j,k_j), and
 * dividing by C(G-1,tau-1) gives
 *	(k_c / n_c) * (G / tau) * prod_j C(n_j,k_j) / C(G,tau),
 * a multivariate hypergeometric probability that we take from log
 * binomials and so never overflows.  When every class is a singleton the
 * count vectors are the subsets and we enumerate bit masks directly, in
 * advmath_ms.h's order, the CUDA kernels' (msgrpo_exact_masks()).  Its cost
 * is msgrpo_canon.c's.
 */
#include <math.h>
#include <stdlib.h>

#include "advmath_ms.h"
#include "msgrpo.h"

/* The bit-mask enumeration of the exact path needs 1 << G to fit. */
#define MSGRPO_MASK_G	62

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
 * Exact path over count vectors.  acc[tau * d + c] collects Abar_c(tau)
 * directly, each term already divided by C(G-1,tau-1).
 */
static int
exact_counts(struct ms_canon *g)
{
	size_t G = g->G, d = g->d, c, j, tau, lo, hi;
	size_t *n, *k, *lcoff;
	double *lc, *lg, *acc, *rv, *tv;
	double sw, s, v, mu, den, lp, h;
	int rc = MSGRPO_NOMEM;

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
			/* Classes sorted by reward: equal ends, equal all. */
			if (rv[lo] == rv[hi] || !(sw > 0.0))
				goto next;
			mu = s / sw;
			v = 0.0;
			for (c = lo; c <= hi; c++) {
				double e = rv[c] - mu;

				v += (double)k[c] * tv[c] * e * e;
			}
			if (g->sample || g->inside) {
				den = advmath_ms_inv_den(v, sw, g->eps,
				    g->sample, g->inside);
				if (!(den > 0.0))
					goto next;
				den = 1.0 / den;
			} else {
				den = sqrt(v / sw) + g->eps;
				if (!(den > 0.0))
					goto next;
			}
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
			a += g->w[tau] * acc[tau * d + c];
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
 * advmath_ms.h's, shared with the CUDA kernel, so both give the same bits.
 */
static int
exact_masks(struct ms_canon *g)
{
	size_t G = g->G;
	double *acc, *scratch;

	acc = malloc((G + 1) * G * sizeof(*acc));
	scratch = malloc(3 * G * sizeof(*scratch));
	if (acc == NULL || scratch == NULL) {
		free(acc);
		free(scratch);
		return MSGRPO_NOMEM;
	}
	advmath_ms_exact_masks(g->r, g->t, (unsigned)G, (unsigned)g->tau_min,
	    g->eps, g->w, acc, scratch, g->out);
	free(acc);
	free(scratch);
	return 0;
}

int
msgrpo_exact_masks(const struct ms_canon *g)
{
	return g->d == g->G && g->G <= MSGRPO_MASK_G && !g->sample &&
	    !g->inside;
}

int
msgrpo_exact(struct ms_canon *g, const struct ms_params *p)
{
	(void)p;	/* its weights are g->w */
	return msgrpo_exact_masks(g) ? exact_masks(g) : exact_counts(g);
}
