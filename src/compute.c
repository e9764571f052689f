/*
 * compute.c - one batch's advantages and loss weights, the numeric heart
 * that compute, stats and diff share.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advmath.h"
#include "advmath_lw.h"
#include "backend.h"
#include "bview.h"
#include "compute.h"
#include "profile.h"

/*
 * A preset's reward transform, AReaL's reward_scaling, reward_bias and
 * reward_clip: the estimator sees x = clip((r + bias) scale, +-clip),
 * which is bounded, so it needs no prescaling.  remax's baseline, the
 * greedy response's reward, is mapped the same way, so that r - b is of
 * two mapped rewards.
 */
static int
transformed(const struct estimator *e, struct adv_params *ap,
    const struct batch *v, double *adv, struct diag *d)
{
	struct batch sv;
	double *x;
	size_t i, n = v->base != NULL ? 2 * v->n : v->n;
	int rc;

	if ((x = malloc((n ? n : 1) * sizeof(*x))) == NULL)
		return diag_set(d, EXIT_IO, "out of memory");
	for (i = 0; i < n; i++)
		x[i] = fmin(fmax(((i < v->n ? v->r[i] : v->base[i - v->n]) +
		    ap->rbias) * ap->rscale, -ap->rclip), ap->rclip);
	sv = *v;
	sv.r = x;
	if (v->base != NULL)
		sv.base = x + v->n;
	rc = backend_advantages(e, ap, &sv, adv, d);
	free(x);
	return rc;
}

/*
 * The advantages of v computed on r 2^-k (k != 0), the estimators that
 * scale with r scaled back.  Scaling by a power of two is exact, and eps
 * and the constants in reward units scale along, so the result is the
 * estimator's on r wherever it fits a double.
 */
static int
scaled(const struct estimator *e, unsigned flags, struct adv_params *ap,
    const struct batch *v, int k, double *adv, struct diag *d)
{
	struct adv_params q;
	struct batch sv;
	double s = ldexp(1, -k), *r;
	size_t i;
	int rc;

	if ((r = malloc((v->n ? v->n : 1) * sizeof(*r))) == NULL)
		return diag_set(d, EXIT_IO, "out of memory");
	for (i = 0; i < v->n; i++)
		r[i] = v->r[i] * s;
	sv = *v;
	sv.r = r;
	q = *ap;
	/* eps goes to sigma, or with --eps-inside to sigma^2. */
	q.eps = ap->eps_inside ? ap->eps * s * s : ap->eps * s;
	/* And the constants in reward units: verl's deviation of 1 for a
	 * group of one (else its r / (1 + eps) would come out r 2^-k). */
	q.unit = ap->unit * s;
	q.eps1 = ap->unit != 1 ? ap->eps1 : ap->eps;
	/* rpp and rpp-baseline whiten the rewards, now scaled;
	 * grpo-whiten whitens GN, which does not scale. */
	if (e->kind != EST_GRPO_WHITEN) {
		q.wh.var_eps = ap->wh.var_eps * s * s;
		q.wh.std_eps = ap->wh.std_eps * s;
	}
	rc = backend_advantages(e, &q, &sv, adv, d);
	ap->ms_exact = q.ms_exact;
	ap->ms_sampled = q.ms_sampled;
	free(r);
	if (rc == 0 && (flags & ADV_SCALES))
		for (i = 0; i < v->n; i++)
			adv[i] = ldexp(adv[i], k);
	return rc;
}

/*
 * The exponent that tames the rewards of records [i0, i1) of v, past
 * 2^500 or below 2^-500 (advmath_tame()), as far as the constants that
 * scaled() scales along allow.
 */
static int
tame(const struct estimator *e, const struct adv_params *ap,
    const struct batch *v, size_t i0, size_t i1)
{
	double mx = 0, a, c1, c2;
	size_t i;

	/* A compare, not fmax(), a call at every record: the same for
	 * every reward (a NaN, which none is, would leave mx as fmax()
	 * does). */
	for (i = i0; i < i1; i++)
		if ((a = fabs(v->r[i])) > mx)
			mx = a;
	c1 = fmax(ap->unit, ap->eps_inside ? 0 : ap->eps);
	c2 = ap->eps_inside ? ap->eps : 0;
	if (e->flags & ADV_WHITEN && e->kind != EST_GRPO_WHITEN) {
		c1 = fmax(c1, ap->wh.std_eps);
		c2 = fmax(c2, ap->wh.var_eps);
	}
	return advmath_tame(mx, c1, c2);
}

/* Group g of v alone, as a batch that points into v (goff is the
 * caller's, two slots). */
static void
one_group(const struct batch *v, size_t g, size_t goff[2], struct batch *o)
{
	size_t at = v->goff[g];

	memset(o, 0, sizeof(*o));
	goff[0] = 0;
	goff[1] = v->goff[g + 1] - at;
	o->n = goff[1];
	o->ngroups = 1;
	o->r = v->r + at;
	o->T = v->T + at;
	o->base = v->base ? v->base + at : NULL;
	o->rk = v->rk ? v->rk + at * v->K : NULL;
	o->K = v->K;
	o->roll = v->roll ? v->roll + at : NULL;
	o->nroll = v->nroll;
	o->goff = goff;
	o->strat = v->strat ? v->strat + at : NULL;
	o->nstrat = v->nstrat ? v->nstrat + g : NULL;
	o->ghash = v->ghash ? v->ghash + g : NULL;
	o->tie = v->tie ? v->tie + at : NULL;
	o->gname = v->gname ? v->gname + g : NULL;
	o->src = v->src;
	o->gidx = v->gidx ? v->gidx + g : NULL;
	o->gfile = v->gfile ? v->gfile + g : NULL;
	o->gline = v->gline ? v->gline + g : NULL;
	o->vk = v->vk ? v->vk + at : NULL;
	o->vbase = v->vk ? 0 : v->vbase + at;
}

/*
 * An estimator whose groups do not see each other: a group with rewards
 * past 2^500 or below 2^-500 is computed on a scale of its own, so that
 * it leaves the other groups alone (on the batch's scale, their rewards
 * of order 1 became 2^-997 and their squared deviations underflowed to
 * 0).
 */
static int
by_group(const struct estimator *e, unsigned flags, struct adv_params *ap,
    const struct batch *v, double *adv, struct diag *d)
{
	struct bview w;
	struct batch one;
	size_t g, i, goff[2];
	char *keep;
	double *a;
	int k, rc = 0;

	keep = diag_malloc(v->ngroups ? v->ngroups : 1);
	for (g = 0, k = 0; g < v->ngroups; g++)
		if (!(keep[g] = tame(e, ap, v, v->goff[g],
		    v->goff[g + 1]) == 0))
			k = 1;
	if (k == 0) {
		free(keep);
		return backend_advantages(e, ap, v, adv, d);
	}
	if (bview_groups(&w, v, keep) != 0) {
		free(keep);
		return diag_set(d, EXIT_IO, "out of memory");
	}
	a = diag_malloc((w.v.n ? w.v.n : 1) * sizeof(*a));
	if (w.v.ngroups > 0 && (rc = backend_advantages(e, ap, &w.v, a,
	    d)) == 0)
		for (i = 0; i < w.v.n; i++)
			adv[w.from[i]] = a[i];
	/* MS-GRPO counts its groups in ap as they go.  In skip mode a
	 * group's data error is noted and the others go on. */
	for (g = 0; (rc == 0 || diag_noted(d, rc)) && g < v->ngroups; g++) {
		if (keep[g])
			continue;
		one_group(v, g, goff, &one);
		if ((k = scaled(e, flags, ap, &one, tame(e, ap, v,
		    v->goff[g], v->goff[g + 1]), adv + v->goff[g], d)) != 0)
			rc = k;
	}
	free(a);
	free(keep);
	bview_free(&w);
	return rc;
}

/*
 * Rewards near the top of the double range overflow a sum or a square
 * (1e308 - -1e308), and near the bottom their squares underflow.  Such a
 * group, or for the estimators that read the whole batch such a batch,
 * is computed on r 2^-k (advmath_tame()); only a result that really
 * overflows is refused.  ADV_MIXED estimators are not scaled: past 2^500
 * they refuse what overflows, below 2^-500 their deviations lose digits.
 */
int
compute_advantages(const struct estimator *e, struct adv_params *ap,
    const struct batch *v, double *adv, struct diag *d)
{
	unsigned flags = advantage_flags(e, ap);
	int k;

	if (ap->rscale != 0)
		return transformed(e, ap, v, adv, d);
	if (flags & ADV_MIXED)
		return backend_advantages(e, ap, v, adv, d);
	if (!(flags & ADV_BATCH))
		return by_group(e, flags, ap, v, adv, d);
	if ((k = tame(e, ap, v, 0, v->n)) == 0)
		return backend_advantages(e, ap, v, adv, d);
	return scaled(e, flags, ap, v, k, adv, d);
}

static int	weighed(const struct prefs *c, const struct batch *v,
		    double *adv, double *w, struct diag *d);

/* The numbers of the batch v as the estimator and the loss mode see it. */
static int
numbers(const struct prefs *c, struct adv_params *ap,
    const struct batch *v, double *adv, double *w, struct diag *d)
{
	if (compute_advantages(c->est, ap, v, adv, d) != 0)
		return d->status;
	return weighed(c, v, adv, w, d);
}

/*
 * The loss weights of v, given its advantages adv (w NULL: none), and
 * the check that every number is finite and no weight the mode makes
 * positive came out 0.
 */
static int
weighed(const struct prefs *c, const struct batch *v, double *adv,
    double *w, struct diag *d)
{
	struct buf lab = { 0 };
	size_t i, g;
	int bad = 0;

	if (w != NULL && (loss_weights_check(c->loss, &c->lp, v, c->like ?
	    c->like->name : "", c->like ? c->like->release : "", d) != 0 ||
	    backend_loss_weights(c, v, adv, w, d) != 0))
		return d->status;
	for (g = 0; g < v->ngroups; g++)
		for (i = v->goff[g]; i < v->goff[g + 1]; i++) {
			if (!isfinite(adv[i]))
				diag_setl(d, EXIT_DATA, v->gfile[g],
				    v->gline[g], "group %s: the advantage "
				    "overflows a double (field \"%s\" too "
				    "large)", batch_view_label(v, g, &lab),
				    c->fields.list[FR_REWARD].n > 0 ?
				    c->fields.list[FR_REWARD].name[0] :
				    "reward");
			/* A weight the mode makes positive is never
			 * written as 0 (or Inf). */
			else if (w != NULL && (!isfinite(w[i]) ||
			    (w[i] == 0 && advmath_lw_positive(c->loss->kind,
			    v->T[i], adv[i]))))
				diag_setl(d, EXIT_DATA, v->gfile[g],
				    v->gline[g], "group %s: the loss weight "
				    "%s a double (-g %s)",
				    batch_view_label(v, g, &lab),
				    w[i] == 0 ? "underflows" : "overflows",
				    c->loss->name);
			else {
				adv[i] = adv[i] == 0 ? 0 : adv[i];
				if (w != NULL)
					w[i] = w[i] == 0 ? 0 : w[i];
				continue;
			}
			bad = 1;
			if (!diag_group(d, v->gfile[g], v->gline[g]))
				goto out;
			break;	/* on to the next group */
		}
out:
	buf_free(&lab);
	return bad ? d->status : 0;
}

static int	unscored_batch(const struct prefs *c, struct adv_params *ap,
		    const struct batch *v, double *adv, double *w,
		    struct diag *d);

/*
 * --random-strata computes on a view with each group's strata shuffled,
 * and --drop-zero-std on one without the groups of equal rewards, as
 * DAPO's dynamic sampling drops them before the step: they leave the
 * batch's moments, the token count N and the live groups of the loss
 * modes.  Their records keep advantage 0 and get loss weight 0.
 */
int
compute_batch(const struct prefs *c, struct adv_params *ap,
    const struct batch *v, double *adv, double *w, struct diag *d)
{
	struct bview dz, rs;
	const struct batch *u = v;
	double *a = adv, *x = w;
	size_t i, ms_exact = ap->ms_exact, ms_sampled = ap->ms_sampled;
	int rc;

	if (v->unscored != NULL)
		return unscored_batch(c, ap, v, adv, w, d);
	memset(&dz, 0, sizeof(dz));
	memset(&rs, 0, sizeof(rs));
	if (ap->drop_zero) {
		if (bview_unequal(&dz, v) != 0)
			return diag_set(d, EXIT_IO, "out of memory");
		u = &dz.v;
		a = malloc((u->n ? u->n : 1) * sizeof(*a));
		x = w != NULL ? malloc((u->n ? u->n : 1) * sizeof(*x)) : NULL;
		if (a == NULL || (w != NULL && x == NULL)) {
			rc = diag_set(d, EXIT_IO, "out of memory");
			goto out;
		}
	}
	if (ap->random_strata) {
		if (bview_shuffle(&rs, u, ap->ms.seed) != 0) {
			rc = diag_set(d, EXIT_IO, "out of memory");
			goto out;
		}
		u = &rs.v;
	}
	if ((rc = numbers(c, ap, u, a, x, d)) != 0 || !ap->drop_zero)
		goto out;
	for (i = 0; i < v->n; i++) {
		adv[i] = 0;
		if (w != NULL)
			w[i] = 0;
	}
	for (i = 0; i < u->n; i++) {
		adv[dz.from[i]] = a[i];
		if (w != NULL)
			w[dz.from[i]] = x[i];
	}
out:
	/* Skip mode computes the batch again without a group that failed:
	 * MS-GRPO's groups are counted once. */
	if (rc != 0) {
		ap->ms_exact = ms_exact;
		ap->ms_sampled = ms_sampled;
	}
	if (a != adv)
		free(a);
	if (x != w)
		free(x);
	bview_free(&dz);
	bview_free(&rs);
	return rc;
}

/*
 * A batch with records whose reward is null (--null-reward unscored,
 * TRL's None from 1.6.0): they leave the advantages' computation (their
 * groups' baselines and deviations, and the moments of the estimators
 * that read the batch) and get advantage 0, but stay records of the loss
 * like any other, as TRL keeps them in its completion mask and in
 * num_items_in_batch: their tokens count in N, they count in B, their
 * group is live, and each gets the mode's weight.  Under --drop-zero-std
 * a group is judged on its scored records (one with none has nothing to
 * learn from) and leaves the loss whole.
 */
static int
unscored_batch(const struct prefs *c, struct adv_params *ap,
    const struct batch *v, double *adv, double *w, struct diag *d)
{
	struct bview sc, lv;
	const struct batch *u = v;
	double *a, *ua = adv, *uw = w;
	size_t i, ms_exact = ap->ms_exact, ms_sampled = ap->ms_sampled;
	int rc = 0;

	memset(&lv, 0, sizeof(lv));
	if (bview_scored(&sc, v) != 0)
		return diag_set(d, EXIT_IO, "out of memory");
	a = diag_malloc((sc.v.n ? sc.v.n : 1) * sizeof(*a));
	if (sc.v.n > 0)
		rc = compute_batch(c, ap, &sc.v, a, NULL, d);
	for (i = 0; rc == 0 && i < v->n; i++) {
		adv[i] = 0;
		if (w != NULL)
			w[i] = 0;
	}
	for (i = 0; rc == 0 && i < sc.v.n; i++)
		adv[sc.from[i]] = a[i];
	if (rc != 0 || w == NULL)
		goto out;
	if (ap->drop_zero) {
		if (bview_unequal(&lv, v) != 0) {
			rc = diag_set(d, EXIT_IO, "out of memory");
			goto out;
		}
		u = &lv.v;
		ua = diag_malloc((u->n ? u->n : 1) * sizeof(*ua));
		uw = diag_malloc((u->n ? u->n : 1) * sizeof(*uw));
		for (i = 0; i < u->n; i++)
			ua[i] = adv[lv.from[i]];
	}
	if (u->n > 0 && (rc = weighed(c, u, ua, uw, d)) == 0 && u != v)
		for (i = 0; i < u->n; i++)
			w[lv.from[i]] = uw[i];
out:
	/* As compute_batch(): skip mode computes the batch again. */
	if (rc != 0) {
		ap->ms_exact = ms_exact;
		ap->ms_sampled = ms_sampled;
	}
	if (ua != adv)
		free(ua);
	if (uw != w)
		free(uw);
	free(a);
	bview_free(&sc);
	bview_free(&lv);
	return rc;
}

int
compute_needs_tokens(const struct prefs *c)
{
	switch (c->est->kind) {
	case EST_OPO:
	case EST_RPP_BASELINE:
	case EST_RPP:
	case EST_GRPO_WHITEN:
		return 2;
	case EST_MSGRPO:
		if (c->ap.ms.token_stats)
			return 2;
		break;
	default:
		break;
	}
	switch (c->loss->kind) {
	case ADVMATH_LW_SEQ_SUM:
	case ADVMATH_LW_SEQ_SUM_NORM:
		return 0;
	default:
		return 1;
	}
}

/*
 * What a batch without token counts can have: the advantages of an
 * estimator that needs none, and the loss weights of a mode that needs
 * none (seq-sum, seq-sum-norm).  Returns 0 or the error naming the
 * record and what to give; *weights says whether loss weights are
 * written.
 */
int
compute_check_lengths(const struct prefs *c, const struct gbatch *b,
    const struct batch *v, int *weights, struct diag *d)
{
	unsigned long long line;
	const char *file, *why = NULL, *text, *guess = NULL;
	struct record tmp;
	size_t k, len;
	char more[120] = "";

	*weights = 1;
	if (batch_nolen(b) == 0)
		return 0;	/* every record has its length */
	for (k = 0; k < v->n && batch_rec(b, k, &tmp)->has_len; k++)
		;
	if (k == v->n)
		return 0;
	if (compute_needs_tokens(c) == 2)	/* msgrpo: for its stats */
		why = c->est->kind == EST_MSGRPO ? "msgrpo --ms-stats token" :
		    c->est->name;
	else if (compute_needs_tokens(c) == 0)
		return 0;
	else if (!c->tokens) {
		*weights = 0;	/* --no-tokens: the advantages alone */
		return 0;
	}
	file = batch_where(b, k, &line);
	text = batch_line(b, k, &len);
	if (c->fields.profile == NULL)
		guess = profile_guess(text, len);
	if (guess != NULL)
		snprintf(more, sizeof(more), "; these are the fields of %s's "
		    "dump: try --from %s", guess, guess);
	return diag_setl(d, EXIT_DATA, file, line, "no response length (no "
	    "log-probs, mask or token ids here), but %s %s needs token "
	    "counts: give --logprobs-key, --mask-key, --tokens-key or "
	    "--length-key%s%s", why ? "-a" : "-g", why ? why : c->loss->name,
	    why ? "" : ", or -g seq-sum, or --no-tokens for the advantages "
	    "alone", more);
}

int
compute_streams(const struct prefs *c)
{
	return c->scope_group && !c->go.unsorted &&
	    !(advantage_flags(c->est, &c->ap) & ADV_BATCH);
}

int
compute_device(const struct prefs *c, struct diag *d)
{
	return backend_select(c->device, d);
}
