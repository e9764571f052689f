/*
 * gdpo.c - GDPO, Group reward-Decoupled normalization Policy Optimization
 * (Liu et al. 2026, arXiv 2601.05242, Sec. 3): with several rewards
 * (the fields --reward-key names, TRL's reward functions),
 *   A_ki = (r_ki - mu_k) / (sigma_k + eps)	each part k in the group,
 *   A_i  = sum_k w_k A_ki			w: --reward-weights, or 1,
 *   Â_i  = (A_i - mean) / (std + eps)		over the batch's records,
 * with the deviations --std and --eps (--eps-inside: sqrt(var + eps)) say.
 * GRPO normalizes the weighted sum instead, so that a part of wide spread
 * drowns the others and rewards (1, 0) and (0, 1) of two parts tie.  As
 * TRL's multi_objective_aggregation="normalize_then_sum" (since 0.27.0,
 * GRPOTrainer._generate_and_score_completions): a null part is out of its
 * part's group moments (nanmean, nanstd) and adds 0 (nansum), as does a
 * part with fewer than two numbers in the group (nanstd of one is NaN
 * there); a record whose every part is null (--null-reward unscored) is
 * out of the batch before this runs.  A part of equal numbers in a group
 * adds exactly 0.
 *
 * The sums' mean over the batch is 0 by construction: each part's
 * normalized numbers sum to 0 in their group.  It is taken as 0, not
 * summed, so that a record whose parts all add 0 keeps exactly 0, not
 * the rounding residue of a mean (-1e-16, which the balanced modes
 * would count negative); the deviation is about 0 too.  A batch whose
 * sums are all 0 gets 0.
 */
#include <math.h>
#include <stdlib.h>

#include "advmath.h"
#include "gdpo.h"

/* The deviation as the options make it, on numbers scaled by 2^-k. */
static struct advmath_dev
gdpo_dev(const struct adv_params *p, int k)
{
	struct advmath_dev v;
	double s = ldexp(1, -k);

	v.sample = p->sample;
	v.eps = p->eps_inside ? p->eps * s * s : p->eps * s;
	v.inside = p->eps_inside;
	v.scope = STD_GROUP;
	v.unit = 1;
	v.eps1 = p->eps;
	return v;
}

/*
 * Adds w times part k's normalized value to out[] for the n records of
 * a group whose parts (K a record) start at rk; x has room for n.  Parts
 * past 2^500 or below 2^-500 are normalized on x 2^-e (advmath_tame()),
 * eps scaled along: the same numbers wherever they fit a double.
 */
static void
gdpo_part(const double *rk, size_t K, size_t k, size_t n, double w,
    const struct adv_params *p, double *x, double *out)
{
	struct advmath_dev v;
	struct advmath_mom m;
	double mx = 0, den;
	size_t i, c = 0;
	int e;

	for (i = 0; i < n; i++)
		if (!isnan(rk[i * K + k])) {
			x[c] = rk[i * K + k];
			if (fabs(x[c]) > mx)
				mx = fabs(x[c]);
			c++;
		}
	if (c < 2)
		return;
	e = advmath_tame(mx, p->eps_inside ? 0 : p->eps,
	    p->eps_inside ? p->eps : 0);
	if (e != 0)
		for (i = 0; i < c; i++)
			x[i] = ldexp(x[i], -e);
	m = advmath_moments(x, NULL, 0, c, p->sample);
	if (m.equal)
		return;
	v = gdpo_dev(p, e);
	den = advmath_den(&m, &v);
	for (i = 0, c = 0; i < n; i++)
		if (!isnan(rk[i * K + k]))
			out[i] += w * ((x[c++] - m.mean) / den);
}

int
gdpo_check(const struct adv_params *p, struct diag *d)
{
	if (p->rscale != 0)
		return diag_set(d, EXIT_USAGE, "-a gdpo reads each reward "
		    "field, and --like areal's reward transform maps their "
		    "sum: give -a gdpo without that preset");
	if (p->std_scope != STD_GROUP)
		return diag_set(d, EXIT_USAGE, "--std-scope %s: -a gdpo "
		    "divides each reward field by its group's deviation and "
		    "the sums by the batch's (TRL's normalize_then_sum ignores "
		    "scale_rewards); drop --std-scope", p->std_scope ==
		    STD_BATCH ? "batch" : "none");
	return 0;
}

int
gdpo_advantages(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	struct advmath_dev v;
	struct advmath_mom m;
	const double *rk = b->rk != NULL ? b->rk : b->r;
	size_t K = b->rk != NULL ? b->K : 1, g, i, k, o, n, most = 1;
	double *x, mx = 0;
	int e;

	for (g = 0; g < b->ngroups; g++)
		if (b->goff[g + 1] - b->goff[g] > most)
			most = b->goff[g + 1] - b->goff[g];
	if ((x = malloc(most * sizeof(*x))) == NULL)
		return diag_set(d, EXIT_IO, "out of memory");
	for (i = 0; i < b->n; i++)
		adv[i] = 0;
	for (g = 0; g < b->ngroups; g++) {
		o = b->goff[g];
		n = b->goff[g + 1] - o;
		for (k = 0; k < K; k++)
			gdpo_part(rk + o * K, K, k, n, k < (size_t)p->nrweight ?
			    p->rweight[k] : 1, p, x, adv + o);
	}
	free(x);
	for (i = 0; i < b->n; i++)
		if (fabs(adv[i]) > mx)
			mx = fabs(adv[i]);
	if (mx == 0 || (p->sample && b->n < 2)) {
		for (i = 0; i < b->n; i++)
			adv[i] = 0;
		return 0;
	}
	/* The sums over 2^e, their largest (weights can make them any
	 * size): their squares neither overflow nor underflow. */
	(void)frexp(mx, &e);
	m.var = 0;
	for (i = 0; i < b->n; i++) {
		adv[i] = ldexp(adv[i], -e);
		m.var += adv[i] * adv[i];
	}
	m.var /= (double)(p->sample ? b->n - 1 : b->n);
	m.std = sqrt(m.var);
	v = gdpo_dev(p, e);
	for (i = 0; i < b->n; i++)
		adv[i] = adv[i] == 0 ? 0 : adv[i] / advmath_den(&m, &v);
	return 0;
}
