/*
 * advantage.c - the estimators, one row each in
 * advantage_table.  Every estimator sees one batch in group order and
 * writes one advantage per record.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advantage.h"
#include "alias.h"
#include "advmath.h"
#include "advmath_lw.h"
#include "buf.h"
#include "gdpo.h"
#include "pool.h"

void
advantage_defaults(struct adv_params *p)
{
	memset(p, 0, sizeof(*p));
	p->eps = 1e-6;
	p->unit = 1;
	p->alpha = 0.6;
	p->wh.kind = WHITEN_VERL;
	p->wh.var_eps = 1e-8;
	p->wh.std_eps = 1e-5;
	p->std_scope = STD_GROUP;
	msgrpo_defaults(&p->ms);
}

static size_t
gsize(const struct batch *b, size_t g)
{
	return b->goff[g + 1] - b->goff[g];
}

/* Whether a group of one of kind k takes verl's rule (a preset's). */
static int
single(const struct adv_params *p, enum est_kind k)
{
	return (p->single & EST_BIT(k)) != 0;
}

/* The deviation the options make, over scope. */
static struct advmath_dev
dev(const struct adv_params *p, enum std_scope scope)
{
	struct advmath_dev v;

	v.sample = p->sample;
	v.eps = p->eps;
	v.inside = p->eps_inside;
	v.scope = scope;
	v.unit = p->unit;
	v.eps1 = p->unit != 1 ? p->eps1 : p->eps;
	return v;
}

/*
 * Group g of a batch as a group estimator sees it (the table's group
 * column): its records, where its advantages go, and what the whole
 * batch gives it.
 */
struct adv_group {
	const struct batch	*b;
	const struct adv_params	*p;
	const struct advmath_mom *bm;	/* the batch's moments */
	enum est_kind		 k;	/* whose rule a group of one takes */
	size_t			 g, o, n;	/* the group, its first record,
						   its records */
	const double		*r, *T;	/* its rewards and trained tokens */
	double			*out;	/* its advantages */
};

/* The batch's moments, which only --gn-scope batch and --std-scope batch
 * read (as the CUDA backend computes them): a pass over every reward
 * that the other runs skip. */
static struct advmath_mom
batch_moments(const struct batch *b, const struct adv_params *p)
{
	struct advmath_mom m = { 0 };

	if (p->gn_batch || p->std_scope == STD_BATCH)
		m = advmath_moments(b->r, NULL, 0, b->n, p->sample);
	return m;
}

/* x at group g, its advantages into adv. */
static void
group_at(struct adv_group *x, size_t g, double *adv)
{
	const struct batch *b = x->b;

	x->g = g;
	x->o = b->goff[g];
	x->n = b->goff[g + 1] - x->o;
	x->r = b->r + x->o;
	x->T = b->T != NULL ? b->T + x->o : NULL;
	x->out = adv + x->o;
}

/* fn on every group of x's batch, each into its place in adv. */
static void
each_group(struct adv_group *x, double *adv,
    void (*fn)(const struct adv_group *))
{
	size_t g;

	for (g = 0; g < x->b->ngroups; g++) {
		group_at(x, g, adv);
		fn(x);
	}
}

/*
 * GN, the group-normalized advantage (GRPO; "GN" in Stratified GRPO):
 *   A_i = (r_i - mu) / (sigma + eps)
 * with mu and sigma of the group (default), sigma of the batch
 * (--std-scope batch, TRL's scale_rewards="batch"), no division
 * (--std-scope none), or both of the batch (--gn-scope batch, Stratified
 * GRPO Algorithm 1 step 1 read literally; with --std-scope none the
 * baseline shared by the whole batch, r_i - mean, of its Sec. 3.2).
 * --eps-inside divides by sqrt(sigma^2 + eps) (Balanced Aggregation
 * Eq. 2-3).  Here with the deviation over scope and the mean of the
 * batch where gn_batch is set.
 */
static void
gn_scoped(const struct adv_group *x, enum std_scope scope, int gn_batch)
{
	struct advmath_dev v = dev(x->p, scope);

	advmath_gn_group(x->r, x->n, &v, gn_batch, x->bm, single(x->p, x->k),
	    x->out);
}

/* grpo: GN above, as the options make it.  Source: GRPO (DeepSeekMath);
 * verl's compute_grpo_outcome_advantage, TRL, OpenRLHF's group_norm. */
static void
gn_group(const struct adv_group *x)
{
	gn_scoped(x, x->p->std_scope, x->p->gn_batch);
}

/*
 * drgrpo: A_i = r_i - mu.  Source: Dr. GRPO ("Understanding R1-Zero-Like
 * Training"), which drops the division by sigma; OpenRLHF's dr_grpo.  With
 * --gn-scope batch mu is the batch's: the global baseline A_G = R - R_global
 * of Stratified GRPO Sec. 3.2 (Proposition 1, Theorem 1), over the batch.
 */
static void
drgrpo_group(const struct adv_group *x)
{
	gn_scoped(x, STD_NONE, x->p->gn_batch);
}

/*
 * rpp-baseline: a_i = r_i - mu (group), then whitened over the batch's
 * trained tokens (advmath_whiten, the preset's kind; by default verl's:
 * A_i = (a_i - abar) / sqrt(v + 1e-8), abar and v token-weighted, v with
 * n - 1, n = trained tokens).  Source: REINFORCE++-baseline, verl's
 * compute_reinforce_plus_plus_baseline_outcome_advantage with
 * masked_whiten; OpenRLHF's reinforce_baseline; slime's and NeMo-RL's
 * (minus_baseline) reinforce_plus_plus_baseline.  With one trained
 * token or none v is taken as 0; when every a_i with trained tokens is
 * equal, 0.  Here the group's part, r_i - mu whatever the options.
 */
static void
centered_group(const struct adv_group *x)
{
	gn_scoped(x, STD_NONE, 0);
}

/* rloo: A_i = r_i - mean_{j != i} r_j, 0 for a group of one.  Source:
 * RLOO (Ahmadian et al. 2024), verl's compute_rloo_outcome_advantage. */
static void
rloo_group(const struct adv_group *x)
{
	advmath_rloo_group(x->r, x->n, single(x->p, x->k), x->out);
}

/*
 * san: A_i = (r_i - mu_k) / (sigma_k + eps) over the stratum k of i inside
 * its group.  Source: Stratified GRPO, Definition 1 (Stratified Advantage
 * Normalization).  A stratum of one has no peer: 0.  As the estimator
 * -a san, --std-scope none gives the stratum baseline without division,
 * A_S = R - mean_k (Sec. 3.2), and --std-scope batch divides by the
 * batch's deviation; inside stratified it is Definition 1 as written.
 */
static void
san_scoped(const struct adv_group *x, enum std_scope scope)
{
	struct advmath_dev v = dev(x->p, scope);

	advmath_san_group(x->r, x->b->strat + x->o, x->b->nstrat[x->g], x->n,
	    &v, x->bm, single(x->p, EST_SAN), x->out);
}

static void
san_group(const struct adv_group *x)
{
	san_scoped(x, x->p->std_scope);
}

/* stratified: A_i = alpha SAN_i + (1 - alpha) GN_i.  Source: Stratified
 * GRPO, Definition 2 and Algorithm 1 (alpha = 0.6 in its experiments). */
static int
adv_stratified(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	struct advmath_mom bm = batch_moments(b, p);
	struct adv_group x = { .b = b, .p = p, .bm = &bm,
	    .k = EST_STRATIFIED };
	double *gn;
	size_t g, i;

	gn = malloc((b->n ? b->n : 1) * sizeof(*gn));
	if (gn == NULL)
		return diag_set(d, EXIT_IO, "out of memory");
	for (g = 0; g < b->ngroups; g++) {
		group_at(&x, g, adv);
		san_scoped(&x, STD_GROUP);
		x.out = gn + x.o;
		gn_group(&x);
	}
	for (i = 0; i < b->n; i++)
		adv[i] = advmath_mix(p->alpha, adv[i], gn[i]);
	free(gn);
	return 0;
}

/*
 * opo: A_i = r_i - sum_j T_j r_j / sum_j T_j, the length-weighted
 * baseline of On-Policy RL with Optimal reward baseline (OPO), as verl's
 * compute_opo_outcome_advantage.  With no trained token in the group the
 * weights are undefined; the plain mean stands in.
 */
static void
opo_group(const struct adv_group *x)
{
	advmath_opo_group(x->r, x->T, x->n, single(x->p, x->k), x->out);
}

/*
 * rpp: a_i = r_i, the return of an outcome reward with gamma 1 on every
 * trained token, whitened as rpp-baseline.  Source: REINFORCE++ (Hu
 * 2025); verl's compute_reinforce_plus_plus_outcome_advantage, OpenRLHF's
 * reinforce, slime's reinforce_plus_plus (which asserts that no record is
 * fully masked: refused under --like slime).  verl and SkyRL reset the
 * return at a masked token, so a trained token before a tool output gets
 * 0 there; rladv gives r_i to every trained token, the estimator as
 * written (the man page says so).
 */
static int
adv_rpp(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	size_t i;

	if (p->rpp_tokens && advantage_refuse_untrained(b, 0, d, ", which "
	    "slime's reinforce_plus_plus refuses (it asserts that every "
	    "response has one)") != 0)
		return d->status;
	for (i = 0; i < b->n; i++)
		adv[i] = b->r[i];
	return 0;
}

/*
 * Refuses (status 1 in d) each group of b where bad(b, g) finds a record
 * (its index; SIZE_MAX where none): lead NULL says "group NAME" at the
 * group's first line, else lead at the record's own line, naming its
 * group in skip mode, where every such group is noted; then fmt's words.
 * d->status when one was refused, else 0.
 */
static int
refuse(const struct batch *b, struct diag *d,
    size_t (*bad)(const struct batch *, size_t), const char *lead,
    const char *fmt, va_list ap)
{
	char why[sizeof(d->msg)];
	struct buf lab = { 0 };
	unsigned long long line;
	const char *file;
	size_t g, i, n = 0;

	for (g = 0; g < b->ngroups; g++) {
		if ((i = bad(b, g)) == SIZE_MAX)
			continue;
		if (n++ == 0)
			(void)vsnprintf(why, sizeof(why), fmt, ap);
		if (lead == NULL)
			diag_setl(d, EXIT_DATA, b->gfile[g], b->gline[g],
			    "group %s%s", batch_view_label(b, g, &lab), why);
		else {
			file = batch_view_where(b, g, i, &line);
			diag_setl(d, EXIT_DATA, file, line, "%s%s%s%s", lead,
			    why, d->groups != NULL ? ", in group " : "",
			    d->groups != NULL ? batch_view_label(b, g, &lab) :
			    "");
		}
		if (!diag_group(d, b->gfile[g], b->gline[g]))
			break;
	}
	buf_free(&lab);
	return n > 0 ? d->status : 0;
}

/* Group g's first record without a trained token, or SIZE_MAX. */
static size_t
untrained(const struct batch *b, size_t g)
{
	size_t i;

	for (i = b->goff[g]; i < b->goff[g + 1]; i++)
		if (!(b->T[i] > 0))
			return i;
	return SIZE_MAX;
}

/* The same among the samples of the loss: one whose sample mask is 0
 * is none (advmath_lw_T()). */
static size_t
untrained_sample(const struct batch *b, size_t g)
{
	size_t i;

	for (i = b->goff[g]; i < b->goff[g + 1]; i++)
		if (!(b->T[i] > 0) && !advmath_lw_sample_off(b->T[i]))
			return i;
	return SIZE_MAX;
}

int
advantage_refuse_untrained(const struct batch *b, int samples,
    struct diag *d, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = refuse(b, d, samples ? untrained_sample : untrained,
	    "the record has no trained token", fmt, ap);
	va_end(ap);
	return rc;
}

/* Group g's first record: each group, where the whole batch is at fault. */
static size_t
first_record(const struct batch *b, size_t g)
{
	return b->goff[g];
}

int
advantage_refuse_batch(const struct batch *b, struct diag *d,
    const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = refuse(b, d, first_record, "the batch has no trained token",
	    fmt, ap);
	va_end(ap);
	return rc;
}

/* Group g's record where it is the only one, or SIZE_MAX. */
static size_t
one_response(const struct batch *b, size_t g)
{
	return gsize(b, g) == 1 ? b->goff[g] : SIZE_MAX;
}

static int
refuse_group(const struct batch *b, struct diag *d,
    size_t (*bad)(const struct batch *, size_t), const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* refuse() saying "group NAME" at the group's first line. */
static int
refuse_group(const struct batch *b, struct diag *d,
    size_t (*bad)(const struct batch *, size_t), const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = refuse(b, d, bad, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int
advantage_passk_single(const struct batch *b, const struct adv_params *p,
    struct diag *d)
{
	if (!single(p, EST_PASSK))
		return 0;
	return refuse_group(b, d, one_response, " has one response; "
	    "verl's grpo_passk needs two (it raises ValueError)");
}

double
advantage_gpg_alpha(const struct batch *b)
{
	size_t i, nz = 0;

	for (i = 0; i < b->n; i++)
		nz += b->r[i] != 0;
	return (double)b->n / (double)(nz > 0 ? nz : 1);
}

/*
 * passk: in each group only the best response gets
 * (r_max - r_second) / (sigma + eps); the others 0 (advmath_passk_group).
 * Source: verl's compute_grpo_passk_outcome_advantage ("Pass@k Training
 * for Adaptively Balancing Exploration and Exploitation").  A group of
 * one: 0, or refused under verl's rule (passk_check()), as verl raises
 * ValueError.
 */
static int
passk_check(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	(void)adv;
	return advantage_passk_single(b, p, d);
}

static void
passk_group(const struct adv_group *x)
{
	advmath_passk_group(x->r, x->n, x->p->sample, x->p->eps,
	    x->p->std_scope, x->bm, x->out);
}

/*
 * gpg: A_i = alpha (r_i - mu), alpha = B / max(#{i : r_i != 0}, 1) over
 * the batch's B records (fully masked ones too), f_norm 1.  Source: GPG
 * ("GPG: A Simple and Strong Reinforcement Learning Baseline"), verl's
 * compute_gpg_outcome_advantage.  alpha is the batch's: no group row.
 */
static int
adv_gpg(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	struct adv_group x = { .b = b, .p = p, .k = EST_GPG };
	double alpha = advantage_gpg_alpha(b);
	size_t g;

	(void)d;
	for (g = 0; g < b->ngroups; g++) {
		group_at(&x, g, adv);
		advmath_gpg_group(x.r, x.n, alpha, single(p, x.k), x.out);
	}
	return 0;
}

/*
 * remax: A_i = r_i - b_i, b_i the reward of the greedy response to the
 * same prompt, read from --baseline-key (verl's reward_baselines); no
 * group statistic.  Source: ReMax (Li et al. 2023), verl's
 * compute_remax_outcome_advantage.  verl gives -b_i to the trained tokens
 * of a response whose last token is masked (its reward is masked away);
 * rladv gives r_i - b_i.
 */
static int
adv_remax(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	size_t i;

	(void)p;
	(void)d;
	for (i = 0; i < b->n; i++)
		adv[i] = b->base != NULL ? b->r[i] - b->base[i] : b->r[i];
	return 0;
}

/*
 * loo: A_i = (r_i - b_i) / (s_i + eps) where s_i > 0, else r_i - b_i,
 * with b_i and s_i the mean and deviation of the group's other responses
 * (advmath_loo_group).  Source: NeMo-RL's GRPO with
 * use_leave_one_out_baseline (calculate_baseline_and_std_per_prompt,
 * GRPOAdvantageEstimator.normalize_rewards).
 */
static void
loo_group(const struct adv_group *x)
{
	advmath_loo_group(x->r, x->n, x->p->sample, x->p->eps, x->out);
}

/*
 * grpo-whiten: GN of each group (gn_group), then whitened over the
 * batch's trained tokens as rpp-baseline (under --like areal as AReaL's
 * Normalization: deviation with N - 1, plus 1e-5).  Source: AReaL's
 * PPOActor (reward_norm group, adv_norm batch in
 * examples/math/gsm8k_grpo.yaml).
 */

/* Why msgrpo_group() refused group g (rc), with the group's place and
 * its label, name. */
static int
ms_refuse_named(const struct batch *b, size_t g, const struct adv_params *p,
    int rc, const char *name, struct diag *d)
{
	const char *file = b->gfile ? b->gfile[g] : "-";
	unsigned long long line = b->gline ? b->gline[g] : 0;
	size_t o = b->goff[g], G = gsize(b, g), tm;

	switch (rc) {
	case MSGRPO_NOMEM:
		return diag_setl(d, EXIT_IO, file, line, "group %s: out of "
		    "memory", name);
	case MSGRPO_WEIGHTS:
		tm = msgrpo_tau_min(&p->ms);
		if (p->ms.ngiven < G - tm + 1)
			return diag_setl(d, EXIT_USAGE, file, line, "group %s "
			    "has scales %zu..%zu, but --ms-weights gives %zu "
			    "(scales %zu..%zu); give one weight per scale",
			    name, tm, G, p->ms.ngiven, tm,
			    tm + p->ms.ngiven - 1);
		if (tm == G)
			return diag_setl(d, EXIT_USAGE, file, line, "group "
			    "%s: --ms-weights gives no weight above 0 to its "
			    "only scale, %zu", name, G);
		return diag_setl(d, EXIT_USAGE, file, line, "group %s: "
		    "--ms-weights gives no weight above 0 to its scales "
		    "%zu..%zu", name, tm, G);
	case MSGRPO_SAMPLED_OVER:
		return diag_setl(d, EXIT_USAGE, file, line, "group %s (%zu "
		    "records): sampled MS-GRPO would cost up to %.3g > "
		    "--ms-budget %.3g; lower --ms-groups or --ms-scales, or "
		    "raise --ms-budget", name, G, msgrpo_sampled_cost(G,
		    &p->ms), p->ms.budget);
	default:
		return diag_setl(d, EXIT_USAGE, file, line, "group %s: exact "
		    "MS-GRPO would cost %.3g > --ms-budget %.3g; use "
		    "--ms-mode sampled (or auto), or raise --ms-budget", name,
		    msgrpo_cost(b->r + o, b->T + o, G, &p->ms),
		    p->ms.budget);
	}
}

static int
ms_refuse(const struct batch *b, size_t g, const struct adv_params *p,
    int rc, struct diag *d)
{
	struct buf lab = { 0 };

	rc = ms_refuse_named(b, g, p, rc, batch_view_label(b, g, &lab), d);
	buf_free(&lab);
	return rc;
}

/*
 * msgrpo: A_i = sum_tau w_tau mean_{S ni i, |S| = tau} (r_i - mu_S) /
 * (sigma_S + eps).  Source: MS-GRPO, Eq. 3-6; the sampled path is its
 * Sec. 3.2.  The work is in msgrpo.c and its siblings.  sigma_S divides
 * by n - 1 with --std sample, and is sqrt(var + eps) with --eps-inside.
 */
/*
 * Groups g0 .. g1 - 1 of MS-GRPO, a task of the run's pool: groups are
 * independent (a sampled group draws from its own seed), so they run on
 * every thread, each into its own advantages.  It stops at the first
 * group refused (fail, rc), having counted the paths of those before.
 */
struct ms_part {
	struct pool_task	 task;
	const struct batch	*b;
	const struct ms_params	*ms;
	double			*adv;
	size_t			 g0, g1, fail;
	int			 rc;
	size_t			 exact, sampled;
};

static void
ms_part_run(void *arg)
{
	struct ms_part *t = arg;
	const struct batch *b = t->b;
	enum ms_path path;
	size_t g, o;

	t->exact = t->sampled = 0;
	t->rc = 0;
	for (g = t->g0; g < t->g1; g++) {
		o = b->goff[g];
		t->rc = msgrpo_group(b->r + o, b->T + o, b->tie != NULL ?
		    b->tie + o : NULL, gsize(b, g), b->ghash[g], t->ms,
		    t->adv + o, &path);
		if (t->rc != 0)
			break;
		if (path == MS_PATH_EXACT)
			t->exact++;
		else if (path == MS_PATH_SAMPLED)
			t->sampled++;
	}
	t->fail = g;
}

static int
adv_msgrpo(const struct batch *b, struct adv_params *p, double *adv,
    struct diag *d)
{
	struct pool *pool = pool_run();
	struct ms_part one, *t;
	size_t n, i, per;
	int rc = 0;

	msgrpo_from(&p->ms, p->eps, p->sample, p->eps_inside);
	/* A few parts per thread, so that costly groups even out. */
	n = 4 * (size_t)pool_threads(pool);
	if (n > b->ngroups)
		n = b->ngroups;
	if (n <= 1) {
		n = 1;
		t = &one;
	} else
		t = diag_calloc(n, sizeof(*t));
	per = b->ngroups / n;
	for (i = 0; i < n; i++) {
		t[i].b = b;
		t[i].ms = &p->ms;
		t[i].adv = adv;
		t[i].g0 = i * per + (i < b->ngroups % n ? i : b->ngroups % n);
		t[i].g1 = t[i].g0 + per + (i < b->ngroups % n);
		t[i].task.fn = ms_part_run;
		t[i].task.arg = &t[i];
		pool_submit(pool, &t[i].task);
	}
	/* In group order: the counts up to the first group refused, and
	 * its message, as one thread gives them. */
	for (i = 0; i < n; i++) {
		pool_wait(pool, &t[i].task);
		if (rc != 0)
			continue;
		p->ms_exact += t[i].exact;
		p->ms_sampled += t[i].sampled;
		if (t[i].rc != 0)
			rc = ms_refuse(b, t[i].fail, p, t[i].rc, d);
	}
	if (t != &one)
		free(t);
	return rc;
}

/* Each row names the columns it sets: fn, group or both. */
const struct estimator advantage_table[] = {
	{ "grpo", .group = gn_group, .kind = EST_GRPO, .flags = ADV_DEV,
	    .help = "(r - mean) / (std + eps) within the group (GRPO)" },
	{ "drgrpo", .group = drgrpo_group, .kind = EST_DRGRPO,
	    .flags = ADV_SCALES,
	    .help = "r - mean within the group (Dr. GRPO)" },
	{ "rloo", .group = rloo_group, .kind = EST_RLOO, .flags = ADV_SCALES,
	    .help = "r - mean of the other responses (RLOO)" },
	{ "san", .group = san_group, .kind = EST_SAN,
	    .flags = ADV_STRATA | ADV_DEV,
	    .help = "normalized within the stratum (Stratified GRPO, SAN)" },
	{ "stratified", .fn = adv_stratified, .kind = EST_STRATIFIED,
	    .flags = ADV_STRATA | ADV_DEV,
	    .help = "alpha SAN + (1 - alpha) GRPO (Stratified GRPO)" },
	{ "msgrpo", .fn = adv_msgrpo, .kind = EST_MSGRPO,
	    .flags = ADV_TIE | ADV_DEV,
	    .help = "multi-scale subgroup average (MS-GRPO)" },
	{ "opo", .group = opo_group, .kind = EST_OPO, .flags = ADV_SCALES,
	    .help = "r - length-weighted mean (OPO, as in verl)" },
	{ "rpp-baseline", .group = centered_group, .kind = EST_RPP_BASELINE,
	    .flags = ADV_BATCH | ADV_WHITEN,
	    .help = "r - mean, whitened over the batch "
	    "(REINFORCE++-baseline)" },
	{ "rpp", .fn = adv_rpp, .kind = EST_RPP,
	    .flags = ADV_BATCH | ADV_WHITEN,
	    .help = "r, whitened over the batch (REINFORCE++)" },
	/* fn: first a group of one refused under verl's rule. */
	{ "passk", .fn = passk_check, .group = passk_group, .kind = EST_PASSK,
	    .help = "the best gets (r_max - r_second) / (std + eps) (verl's "
	    "grpo_passk)" },
	{ "gpg", .fn = adv_gpg, .kind = EST_GPG,
	    .flags = ADV_BATCH | ADV_SCALES,
	    .help = "(r - mean) B / #{r != 0} (GPG, as in verl)" },
	/* Its baseline is not prescaled with the rewards: ADV_MIXED. */
	{ "remax", .fn = adv_remax, .kind = EST_REMAX,
	    .flags = ADV_MIXED | ADV_BASE,
	    .help = "r - the greedy response's reward, --baseline-key "
	    "(ReMax)" },
	{ "loo", .group = loo_group, .kind = EST_LOO, .flags = ADV_MIXED,
	    .help = "r - mean of the others, / their std if > 0 (NeMo-RL)" },
	{ "grpo-whiten", .group = gn_group, .kind = EST_GRPO_WHITEN,
	    .flags = ADV_BATCH | ADV_DEV | ADV_WHITEN,
	    .help = "GRPO, then whitened over the batch (AReaL)" },
	/* Each part tamed on its own (gdpo.c): ADV_MIXED, never the
	 * batch's prescaling of the summed rewards. */
	{ "gdpo", .fn = gdpo_advantages, .kind = EST_GDPO,
	    .flags = ADV_BATCH | ADV_DEV | ADV_MIXED | ADV_PARTS,
	    .help = "each reward field normalized in the group, summed, "
	    "whitened over the batch (GDPO)" },
	{ NULL }
};

int
advantage_run(const struct estimator *e, const struct batch *b,
    struct adv_params *p, double *adv, struct diag *d)
{
	struct advmath_mom bm;
	struct adv_group x = { .b = b, .p = p, .bm = &bm, .k = e->kind };
	int rc;

	if (e->fn != NULL && (rc = e->fn(b, p, adv, d)) != 0)
		return rc;
	if (e->group != NULL) {
		bm = batch_moments(b, p);
		each_group(&x, adv, e->group);
	}
	if (e->flags & ADV_WHITEN)
		advmath_whiten(adv, b->T, b->n, &p->wh);
	return 0;
}

const struct estimator *
advantage_find(const char *name)
{
	return alias_find(ALIAS_ESTIMATOR, advantage_table,
	    sizeof(advantage_table[0]), name);
}

/* The estimators that compute GN, which --gn-scope batch changes. */
static int
has_gn(enum est_kind k)
{
	return k == EST_GRPO || k == EST_DRGRPO || k == EST_STRATIFIED ||
	    k == EST_GRPO_WHITEN;
}

/* The estimators whose deviation --std-scope moves. */
static int
has_std(enum est_kind k)
{
	return k == EST_GRPO || k == EST_SAN || k == EST_STRATIFIED ||
	    k == EST_GRPO_WHITEN || k == EST_PASSK;
}

int
advantage_check(const struct estimator *e, const struct adv_params *p,
    struct diag *d)
{
	if (p->eps_inside && !(e->flags & ADV_DEV))
		return diag_set(d, EXIT_USAGE, "--eps-inside: -a %s divides "
		    "by no deviation of the rewards; it applies to grpo, san, "
		    "stratified, msgrpo, grpo-whiten and gdpo", e->name);
	if (p->random_strata && !(e->flags & ADV_STRATA))
		return diag_set(d, EXIT_USAGE, "--random-strata: -a %s has no "
		    "strata; use -a san or -a stratified", e->name);
	if (p->gn_batch && !has_gn(e->kind))
		return diag_set(d, EXIT_USAGE, "--gn-scope batch: -a %s "
		    "computes no GN; it applies to grpo, drgrpo, stratified "
		    "and grpo-whiten", e->name);
	if (e->kind == EST_GDPO && gdpo_check(p, d) != 0)
		return d->status;
	/* Refused rather than ignored, as --gn-scope is. */
	if (p->std_scope != STD_GROUP && !has_std(e->kind))
		return diag_set(d, EXIT_USAGE, "--std-scope %s: -a %s "
		    "divides by no group deviation; it applies to grpo, san, "
		    "stratified, grpo-whiten and passk", p->std_scope ==
		    STD_BATCH ? "batch" : "none", e->name);
	if (p->eps_inside && p->std_scope == STD_NONE)
		return diag_set(d, EXIT_USAGE, "--eps-inside: under "
		    "--std-scope none nothing is divided by a deviation");
	return 0;
}

unsigned
advantage_flags(const struct estimator *e, const struct adv_params *p)
{
	unsigned f = e->flags;
	int gn = e->kind == EST_GRPO || e->kind == EST_STRATIFIED ||
	    e->kind == EST_GRPO_WHITEN, passk = e->kind == EST_PASSK;
	int san = e->kind == EST_SAN;

	if (((gn || e->kind == EST_DRGRPO) && p->gn_batch) ||
	    ((gn || passk || san) && p->std_scope == STD_BATCH))
		f |= ADV_BATCH;
	if ((gn || san) && p->std_scope == STD_NONE)
		f |= e->kind == EST_STRATIFIED ? ADV_MIXED :
		    e->kind == EST_GRPO_WHITEN ? 0 : ADV_SCALES;
	if (passk && p->std_scope == STD_NONE)
		f |= ADV_SCALES;
	return f;
}
