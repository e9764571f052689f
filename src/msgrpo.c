/*
 * msgrpo.c - MS-GRPO multi-scale advantages of one group: the
 * entry points; the canonical form, the exact path and the sampled path
 * are msgrpo_canon.c, msgrpo_exact.c and msgrpo_sampled.c.
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
 * mu_S = sum T r / sum T, sigma_S^2 = sum T (r - mu_S)^2 / sum T.  With
 * --std sample the sum of squares divides by sum T - 1 (n - 1 for seq
 * stats; 0 when that is not above 0), and with --eps-inside the
 * denominator is sqrt(sigma_S^2 + eps) (Balanced Aggregation Eq. 2).
 * w_tau is uniform, or proportional to tau - tau_min + 1 (global), or to
 * G - tau + 1 (local), the schemes of Table 6a; or proportional to
 * C(G-1, tau-1) (flat: every subgroup holding i counts once, the naive
 * average of Table 6a's first line, without hierarchical aggregation);
 * or the user's list (Eq. 6 leaves w_tau to the user).
 *
 * Conventions that the paper leaves open (the first is fixed by rladv's rule):
 *  - a subgroup whose rewards are all equal (compared with ==) contributes
 *    exactly 0, so a group of equal rewards gives exactly 0.0 to everyone;
 *  - with token stats a subgroup whose sum of T is 0 has no mean; it
 *    contributes 0 (it still counts in the 1/C(G-1,tau-1) average);
 *  - a subgroup with sigma_S + eps == 0 (only possible with eps = 0 and
 *    token stats that put all weight on one reward) contributes 0 too;
 *  - tau_min below 2 is taken as 2; M and K below 1 are taken as 1.
 *
 * Output: -0 becomes 0; a non-finite value (only reachable with eps tiny
 * enough that (r - mu) / eps overflows) becomes 0 (advmath_ms_finish).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advmath_ms.h"
#include "diag.h"
#include "msgrpo.h"

void
msgrpo_defaults(struct ms_params *p)
{
	memset(p, 0, sizeof(*p));
	p->tau_min = 2;
	p->weights = MS_UNIFORM;
	p->token_stats = 0;
	p->mode = MS_AUTO;
	p->dss = MS_DSS_RANDOM;
	p->dgs = MS_DGS_DIVERSE;
	p->scales = 4;
	p->groups = 8;
	p->budget = MSGRPO_BUDGET;
	p->seed = 0;
	p->eps = 1e-6;
}

void
msgrpo_from(struct ms_params *p, double eps, int sample, int inside)
{
	p->eps = eps;
	p->sample = sample;
	p->inside = inside;
}

size_t
msgrpo_tau_min(const struct ms_params *p)
{
	return p->tau_min < 2 ? 2 : (size_t)p->tau_min;
}

/*
 * Flat: w_tau = C(G-1, tau-1) / sum, from log binomials relative to the
 * largest, so that no G overflows (C(64k, 32k) is past any double).
 */
static void
flat_weights(size_t G, size_t tau_min, double *w)
{
	double lc = 0.0, top = 0.0, s = 0.0;
	size_t tau;

	/* lc = log C(G-1, tau-1), tau = 1..G, by the ratio recurrence. */
	for (tau = 1; tau <= G; tau++) {
		w[tau] = lc;
		if (tau >= tau_min && lc > top)
			top = lc;
		if (tau < G)
			lc += log((double)(G - tau) / (double)tau);
	}
	w[0] = 0.0;
	for (tau = 1; tau <= G; tau++) {
		w[tau] = tau < tau_min ? 0.0 : exp(w[tau] - top);
		s += w[tau];
	}
	for (tau = tau_min; tau <= G; tau++)
		w[tau] /= s;
}

/* In the order of enum ms_weights; a list of numbers is MS_GIVEN. */
static const char *const weight_names[] = { "uniform", "global", "local",
    "flat", NULL };

const char *
msgrpo_weights_name(size_t i)
{
	return i < MS_GIVEN ? weight_names[i] : NULL;
}

int
msgrpo_weights_parse(struct ms_params *p, const char *s, double **given)
{
	double *w = NULL, x;
	size_t n = 0, i;
	char *end;
	int any = 0;

	*given = NULL;
	for (i = 0; weight_names[i] != NULL; i++)
		if (strcmp(s, weight_names[i]) == 0) {
			p->weights = (enum ms_weights)i;
			return 0;
		}
	for (;;) {
		x = strtod(s, &end);
		if (end == s || !isfinite(x) || x < 0 ||
		    (*end != ',' && *end != '\0')) {
			free(w);
			return -1;
		}
		w = diag_realloc(w, (n + 1) * sizeof(*w));
		w[n++] = x;
		any |= x > 0;
		if (*end == '\0')
			break;
		s = end + 1;
	}
	if (!any) {
		free(w);
		return MSGRPO_WEIGHTS;
	}
	p->weights = MS_GIVEN;
	p->given = *given = w;
	p->ngiven = n;
	return 0;
}

int
msgrpo_weights(const struct ms_params *p, size_t G, double *w)
{
	size_t tau_min = msgrpo_tau_min(p), tau;
	double s = 0.0;

	switch (p->weights) {
	case MS_FLAT:
		if (G < tau_min)
			break;
		flat_weights(G, tau_min, w);
		return 0;
	case MS_GIVEN:
		if (G < tau_min)
			break;
		if (p->ngiven < G - tau_min + 1)
			return MSGRPO_WEIGHTS;
		for (tau = tau_min; tau <= G; tau++)
			s += p->given[tau - tau_min];
		if (!(s > 0.0))
			return MSGRPO_WEIGHTS;
		for (tau = 0; tau <= G; tau++)
			w[tau] = tau < tau_min ? 0.0 :
			    p->given[tau - tau_min] / s;
		return 0;
	default:
		break;
	}
	advmath_ms_weights(p->weights, G, tau_min, w);
	return 0;
}

/*
 * Preconditions: r[] finite, T[] finite and >= 0 (T may be NULL: all 1;
 * tie may be NULL: all 0).  Returns 0 or one of msgrpo.h's codes, adv and
 * *path then untouched.
 */
int
msgrpo_group(const double *r, const double *T, const uint64_t *tie,
    size_t G, uint64_t key_hash, const struct ms_params *p, double *adv,
    enum ms_path *path)
{
	struct ms_canon g;
	size_t i;
	int rc;

	if (G < msgrpo_tau_min(p)) {
		for (i = 0; i < G; i++)
			adv[i] = 0.0;
		*path = MS_PATH_NONE;
		return 0;
	}
	if ((rc = msgrpo_canon_init(&g, r, T, tie, G, p)) != 0)
		return rc;
	rc = msgrpo_canon_run(&g, p, key_hash, adv, path);
	msgrpo_canon_free(&g);
	return rc;
}

/*
 * msgrpo_canon_cost() of the group; 0 when G < tau_min (nothing to do);
 * HUGE_VAL when out of memory.
 */
double
msgrpo_cost(const double *r, const double *T, size_t G,
    const struct ms_params *p)
{
	struct ms_canon g;
	double c;

	if (G < msgrpo_tau_min(p))
		return 0.0;
	if (msgrpo_canon_init(&g, r, T, NULL, G, p) != 0)
		return HUGE_VAL;
	c = msgrpo_canon_cost(&g);
	msgrpo_canon_free(&g);
	return c;
}

void
msgrpo_trace_free(struct ms_trace *t)
{
	free(t->scale);
	free(t->set);
	free(t->setscale);
	memset(t, 0, sizeof(*t));
}

/*
 * The sampled path is run again with its trace on: it draws from the
 * same seed and key, so it draws what the estimator drew.  Its sets are
 * in canonical order; they are mapped to the caller's here.
 */
int
msgrpo_trace(const double *r, const double *T, const uint64_t *tie,
    size_t G, uint64_t key_hash, const struct ms_params *p,
    struct ms_trace *t)
{
	struct ms_canon g;
	uint64_t *canon;
	size_t i, j, c;
	int rc;

	memset(t, 0, sizeof(*t));
	t->path = MS_PATH_NONE;
	if (G < msgrpo_tau_min(p))
		return 0;
	if ((rc = msgrpo_canon_init(&g, r, T, tie, G, p)) != 0)
		return rc;
	if ((rc = msgrpo_canon_path(&g, p, &t->path)) == 0 &&
	    t->path == MS_PATH_SAMPLED) {
		g.trace = t;
		rc = msgrpo_sampled(&g, p, key_hash);
	}
	/* Canonical members c to the caller's records ord[c]. */
	if ((canon = malloc((t->nw ? t->nw : 1) * sizeof(*canon))) == NULL)
		rc = MSGRPO_NOMEM;
	for (i = 0; rc == 0 && i < t->nset; i++) {
		memcpy(canon, t->set + i * t->nw, t->nw * sizeof(*canon));
		memset(t->set + i * t->nw, 0, t->nw * sizeof(*canon));
		for (c = 0; c < G; c++)
			if ((canon[c / 64] >> (c % 64)) & 1) {
				j = g.ord[c];
				t->set[i * t->nw + j / 64] |=
				    (uint64_t)1 << (j % 64);
			}
	}
	free(canon);
	msgrpo_canon_free(&g);
	if (rc != 0)
		msgrpo_trace_free(t);
	return rc;
}
