/*
 * advantage.c - the estimators of SPEC §3, one row each in
 * advantage_table.  Every estimator sees one batch in group order and
 * writes one advantage per record.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advantage.h"
#include "advmath.h"

void
advantage_defaults(struct adv_params *p)
{
	memset(p, 0, sizeof(*p));
	p->eps = 1e-6;
	p->alpha = 0.6;
	p->var_eps = 1e-8;
	p->std_scope = STD_GROUP;
	msgrpo_defaults(&p->ms);
}

static size_t
gsize(const struct batch *b, size_t g)
{
	return b->goff[g + 1] - b->goff[g];
}

/*
 * GN, the group-normalized advantage (GRPO; "GN" in Stratified GRPO):
 *   A_i = (r_i - mu) / (sigma + eps)
 * with mu and sigma of the group (default), sigma of the batch
 * (--std-scope batch, TRL's scale_rewards="batch"), no division
 * (--std-scope none), or both of the batch (--gn-scope batch, Stratified
 * GRPO Algorithm 1 step 1 read literally).
 */
static void
gn_group(const struct batch *b, size_t g, const struct adv_params *p,
    const struct advmath_mom *bm, double *out)
{
	advmath_gn_group(b->r + b->goff[g], gsize(b, g), p->sample, p->eps,
	    p->std_scope, p->gn_batch, bm, p->verl_single, out);
}

static struct advmath_mom
batch_moments(const struct batch *b, const struct adv_params *p)
{
	return advmath_moments(b->r, NULL, 0, b->n, p->sample);
}

/* grpo: GN above.  Source: GRPO (DeepSeekMath); verl, TRL. */
static int
adv_grpo(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	struct advmath_mom bm = batch_moments(b, p);
	size_t g;

	(void)d;
	for (g = 0; g < b->ngroups; g++)
		gn_group(b, g, p, &bm, adv + b->goff[g]);
	return 0;
}

/* drgrpo: A_i = r_i - mu.  Source: Dr. GRPO ("Understanding R1-Zero-Like
 * Training"), which drops the division by sigma. */
static int
adv_drgrpo(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	struct adv_params q = *p;

	q.std_scope = STD_NONE;
	q.gn_batch = 0;
	return adv_grpo(b, &q, adv, d);
}

/* rloo: A_i = r_i - mean_{j != i} r_j, 0 for a group of one.  Source:
 * RLOO (Ahmadian et al. 2024), verl's compute_rloo_outcome_advantage. */
static int
adv_rloo(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	size_t g;

	(void)d;
	for (g = 0; g < b->ngroups; g++)
		advmath_rloo_group(b->r + b->goff[g], gsize(b, g),
		    p->verl_single, adv + b->goff[g]);
	return 0;
}

/*
 * san: A_i = (r_i - mu_k) / (sigma_k + eps) over the stratum k of i inside
 * its group.  Source: Stratified GRPO, Definition 1 (Stratified Advantage
 * Normalization).  A stratum of one has no peer: 0.
 */
static void
san_group(const struct batch *b, size_t g, const struct adv_params *p,
    double *out)
{
	size_t o = b->goff[g];

	advmath_san_group(b->r + o, b->strat + o, b->nstrat[g], gsize(b, g),
	    p->sample, p->eps, p->verl_single, out);
}

static int
adv_san(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	size_t g;

	(void)d;
	for (g = 0; g < b->ngroups; g++)
		san_group(b, g, p, adv + b->goff[g]);
	return 0;
}

/* stratified: A_i = alpha SAN_i + (1 - alpha) GN_i.  Source: Stratified
 * GRPO, Definition 2 and Algorithm 1 (alpha = 0.6 in its experiments). */
static int
adv_stratified(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	struct advmath_mom bm = batch_moments(b, p);
	double *gn;
	size_t g, i, o;

	(void)d;
	gn = malloc((b->n ? b->n : 1) * sizeof(*gn));
	if (gn == NULL)
		return diag_set(d, EXIT_IO, "out of memory");
	for (g = 0; g < b->ngroups; g++) {
		o = b->goff[g];
		san_group(b, g, p, adv + o);
		gn_group(b, g, p, &bm, gn + o);
		for (i = o; i < b->goff[g + 1]; i++)
			adv[i] = advmath_mix(p->alpha, adv[i], gn[i]);
	}
	free(gn);
	return 0;
}

/*
 * opo: A_i = r_i - sum_j T_j r_j / sum_j T_j, the length-weighted
 * baseline of On-Policy RL with Optimal reward baseline (OPO), as verl's
 * compute_opo_outcome_advantage.  With no trained token in the group the
 * weights are undefined; the plain mean stands in.
 */
static int
adv_opo(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	size_t g;

	(void)d;
	for (g = 0; g < b->ngroups; g++)
		advmath_opo_group(b->r + b->goff[g], b->T + b->goff[g],
		    gsize(b, g), p->verl_single, adv + b->goff[g]);
	return 0;
}

/*
 * rpp-baseline: a_i = r_i - mu (drgrpo's), then whitened over the
 * batch's trained tokens: A_i = (a_i - abar) / sqrt(v + 1e-8), abar and v
 * token-weighted, v with n - 1 (n = trained tokens).  Source:
 * REINFORCE++-baseline, verl's compute_reinforce_plus_plus_baseline_
 * outcome_advantage with masked_whiten.  With one trained token or none
 * v is taken as 0; when every a_i with trained tokens is equal, 0.
 */
static int
adv_rpp(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	adv_drgrpo(b, p, adv, d);
	advmath_whiten(adv, b->T, b->n, p->var_eps);
	return 0;
}

/*
 * msgrpo: A_i = sum_tau w_tau mean_{S ni i, |S| = tau} (r_i - mu_S) /
 * (sigma_S + eps).  Source: MS-GRPO, Eq. 3-6; the sampled path is its
 * Sec. 3.2.  The work is in msgrpo.c and its siblings.
 */
static int
adv_msgrpo(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	size_t g, o;
	enum ms_path path;

	p->ms.eps = p->eps;
	for (g = 0; g < b->ngroups; g++) {
		int rc;

		o = b->goff[g];
		rc = msgrpo_group(b->r + o, b->T + o, b->tie + o, gsize(b, g),
		    b->ghash[g], &p->ms, adv + o, &path);
		if (rc == -2)
			return diag_set(d, EXIT_IO, "out of memory");
		if (rc != 0)
			return diag_set(d, EXIT_USAGE, "group %s: exact "
			    "MS-GRPO would cost %.3g > --ms-budget %.3g; use "
			    "--ms-mode sampled (or auto), or raise --ms-budget",
			    b->gname ? b->gname[g] : "?",
			    msgrpo_cost(b->r + o, b->T + o, gsize(b, g),
			    &p->ms), p->ms.budget);
		if (path == MS_PATH_EXACT)
			p->ms_exact++;
		else if (path == MS_PATH_SAMPLED)
			p->ms_sampled++;
	}
	return 0;
}

const struct estimator advantage_table[] = {
	{ "grpo", adv_grpo, EST_GRPO, 0,
	    "(r - mean) / (std + eps) within the group (GRPO)" },
	{ "drgrpo", adv_drgrpo, EST_DRGRPO, ADV_SCALES,
	    "r - mean within the group (Dr. GRPO)" },
	{ "rloo", adv_rloo, EST_RLOO, ADV_SCALES,
	    "r - mean of the other responses (RLOO)" },
	{ "san", adv_san, EST_SAN, ADV_STRATA,
	    "normalized within the stratum (Stratified GRPO, SAN)" },
	{ "stratified", adv_stratified, EST_STRATIFIED, ADV_STRATA,
	    "alpha SAN + (1 - alpha) GRPO (Stratified GRPO)" },
	{ "msgrpo", adv_msgrpo, EST_MSGRPO, 0,
	    "multi-scale subgroup average (MS-GRPO)" },
	{ "opo", adv_opo, EST_OPO, ADV_SCALES,
	    "r - length-weighted mean (OPO, as in verl)" },
	{ "rpp-baseline", adv_rpp, EST_RPP_BASELINE, ADV_BATCH,
	    "r - mean, whitened over the batch (REINFORCE++-baseline)" },
	{ NULL, NULL, EST_GRPO, 0, NULL }
};

const struct estimator *
advantage_find(const char *name)
{
	const struct estimator *e;

	for (e = advantage_table; e->name != NULL; e++)
		if (strcmp(e->name, name) == 0)
			return e;
	return NULL;
}

unsigned
advantage_flags(const struct estimator *e, const struct adv_params *p)
{
	unsigned f = e->flags;
	int gn = e->kind == EST_GRPO || e->kind == EST_STRATIFIED;

	if (gn && (p->gn_batch || p->std_scope == STD_BATCH))
		f |= ADV_BATCH;
	if (gn && !p->gn_batch && p->std_scope == STD_NONE)
		f |= e->kind == EST_GRPO ? ADV_SCALES : ADV_MIXED;
	return f;
}
