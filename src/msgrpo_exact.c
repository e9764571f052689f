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
#include <string.h>

#include "advmath_ms.h"
#include "msgrpo.h"
#include "slab.h"

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
 * The count vectors k (0 <= k_c <= n_c) of a group's d classes, with
 * what every subgroup of those counts shares: its size tau, its reward
 * range lo..hi (classes sorted by reward), its summed weight sw and
 * weighted sum s, and lp = log prod_c C(n_c, k_c), so that
 * exp(lp - lg[tau]) is the share of the subgroups of size tau that have
 * those counts (a multivariate hypergeometric probability, from log
 * binomials, so it never overflows).
 */
struct cwalk {
	size_t	 G, d, tau, lo, hi, wlo, whi;
	size_t	*n, *k, *lcoff;
	double	*lc, *lg, *rv, *tv;
	double	 sw, s, lp;
	void	*mem;		/* n .. tv: one block (slab.h) */
};

static int
cwalk_init(struct cwalk *w, const struct ms_canon *g)
{
	struct slab s = SLAB_INIT;
	size_t c, lo = 0, d = g->d;

	memset(w, 0, sizeof(*w));
	w->G = g->G;
	w->d = d;
	while (slab_pass(&s)) {
		w->n = slab_take(&s, d, sizeof(*w->n));
		w->k = slab_take(&s, d, sizeof(*w->k));
		w->lcoff = slab_take(&s, d, sizeof(*w->lcoff));
		w->lc = slab_take(&s, g->G + d, sizeof(*w->lc));
		w->lg = slab_take(&s, g->G + 1, sizeof(*w->lg));
		w->rv = slab_take(&s, d, sizeof(*w->rv));
		w->tv = slab_take(&s, d, sizeof(*w->tv));
	}
	if ((w->mem = s.mem) == NULL)
		return MSGRPO_NOMEM;
	for (c = 0; c < d; c++) {
		w->n[c] = g->cls[c + 1] - g->cls[c];
		w->rv[c] = g->r[g->cls[c]];
		w->tv[c] = g->t[g->cls[c]];
		w->lcoff[c] = lo;
		logbinom_row(w->n[c], w->lc + lo);
		lo += w->n[c] + 1;
	}
	logbinom_row(g->G, w->lg);
	return 0;
}

/*
 * Calls fn for every count vector of size tau_min or more, the walk's
 * fields describing it (an odometer over k; tau = sum k is kept as it
 * turns).
 */
static void
cwalk_each(struct cwalk *w, size_t tau_min,
    void (*fn)(const struct cwalk *, void *), void *ctx)
{
	size_t c, j, d = w->d;

	w->tau = 0;
	for (;;) {
		if (w->tau >= tau_min) {
			w->lo = w->wlo = d;
			w->hi = w->whi = 0;
			w->sw = w->s = w->lp = 0.0;
			for (c = 0; c < d; c++) {
				if (w->k[c] == 0)
					continue;
				if (w->lo == d)
					w->lo = c;
				w->hi = c;
				if (w->tv[c] > 0.0) {
					if (w->wlo == d)
						w->wlo = c;
					w->whi = c;
				}
				w->sw += (double)w->k[c] * w->tv[c];
				w->s += (double)w->k[c] * w->tv[c] * w->rv[c];
				w->lp += w->lc[w->lcoff[c] + w->k[c]];
			}
			fn(w, ctx);
		}
		for (j = 0; j < d; j++) {
			if (w->k[j] < w->n[j]) {
				w->k[j]++;
				w->tau++;
				break;
			}
			w->tau -= w->k[j];
			w->k[j] = 0;
		}
		if (j == d)
			break;
	}
}

/*
 * The weighted mean of the counts at hand (sw > 0): with token stats
 * whose weighted classes share one reward (the others weigh 0), that
 * reward itself, not s / sw with its rounding.
 */
static double
cwalk_mean(const struct cwalk *w)
{
	return w->rv[w->wlo] == w->rv[w->whi] ? w->rv[w->wlo] : w->s / w->sw;
}

/* The weighted sum of squared deviations about mu of the counts at hand. */
static double
cwalk_ss(const struct cwalk *w, double mu)
{
	double v = 0.0, e;
	size_t c;

	for (c = w->lo; c <= w->hi; c++) {
		e = w->rv[c] - mu;
		v += (double)w->k[c] * w->tv[c] * e * e;
	}
	return v;
}

struct exact_ctx {
	const struct ms_canon	*g;
	double			*acc;	/* [(G + 1) * d] */
};

/* Adds the counts' subgroups to Abar: acc[tau * d + c] collects
 * Abar_c(tau) directly, each term already divided by C(G-1,tau-1). */
static void
exact_one(const struct cwalk *w, void *ctx)
{
	struct exact_ctx *x = ctx;
	const struct ms_canon *g = x->g;
	double mu, v, den, h;
	size_t c;

	/* Classes sorted by reward: equal ends, equal all. */
	if (w->rv[w->lo] == w->rv[w->hi] || !(w->sw > 0.0))
		return;
	mu = cwalk_mean(w);
	v = cwalk_ss(w, mu);
	if (g->sample || g->inside) {
		den = advmath_ms_inv_den(v, w->sw, g->eps, g->sample,
		    g->inside);
		if (!(den > 0.0))
			return;
		den = 1.0 / den;
	} else {
		den = sqrt(v / w->sw) + g->eps;
		if (!(den > 0.0))
			return;
	}
	h = exp(w->lp - w->lg[w->tau]) * (double)g->G / (double)w->tau / den;
	for (c = w->lo; c <= w->hi; c++)
		x->acc[w->tau * w->d + c] += h * (double)w->k[c] /
		    (double)w->n[c] * (w->rv[c] - mu);
}

/* Exact path over count vectors. */
static int
exact_counts(struct ms_canon *g)
{
	struct cwalk w;
	struct exact_ctx x;
	size_t c, j, tau, G = g->G, d = g->d;

	x.g = g;
	if ((x.acc = calloc((G + 1) * d, sizeof(*x.acc))) == NULL)
		return MSGRPO_NOMEM;
	if (cwalk_init(&w, g) != 0) {
		free(x.acc);
		return MSGRPO_NOMEM;
	}
	cwalk_each(&w, g->tau_min, exact_one, &x);
	for (c = 0; c < d; c++) {
		double a = 0.0;

		for (tau = g->tau_min; tau <= G; tau++)
			a += g->w[tau] * x.acc[tau * d + c];
		for (j = g->cls[c]; j < g->cls[c + 1]; j++)
			g->out[j] = a;
	}
	free(w.mem);
	free(x.acc);
	return 0;
}

/* E_S of sigma_S, sigma_S^2, mu_S, mu_S^2 (msgrpo_moments()). */
struct mom_ctx {
	const double	*w;	/* w[tau] */
	double		 e[4];
};

static void
moments_one(const struct cwalk *w, void *ctx)
{
	struct mom_ctx *x = ctx;
	double p, mu, var;
	int eq = w->rv[w->lo] == w->rv[w->hi];

	if (!(w->sw > 0.0))
		return;		/* no weight, no mean */
	p = x->w[w->tau] * exp(w->lp - w->lg[w->tau]);
	mu = eq ? w->rv[w->lo] : cwalk_mean(w);
	var = eq ? 0.0 : cwalk_ss(w, mu) / w->sw;
	x->e[0] += p * sqrt(var);
	x->e[1] += p * var;
	x->e[2] += p * mu;
	x->e[3] += p * mu * mu;
}

int
msgrpo_moments(const struct ms_canon *g, struct ms_moments *m)
{
	struct cwalk w;
	struct mom_ctx x;

	memset(&x, 0, sizeof(x));
	x.w = g->w;
	if (cwalk_init(&w, g) != 0)
		return MSGRPO_NOMEM;
	cwalk_each(&w, g->tau_min, moments_one, &x);
	free(w.mem);
	m->es = x.e[0];
	m->es2 = x.e[1];
	m->emu = x.e[2];
	m->vmu = fmax(x.e[3] - x.e[2] * x.e[2], 0.0);
	m->vsig = fmax(x.e[1] - x.e[0] * x.e[0], 0.0);
	return 0;
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
