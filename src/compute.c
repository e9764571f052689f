/*
 * compute.c - one batch's advantages and loss weights, the numeric heart
 * that compute, stats and diff share.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advmath.h"
#include "backend.h"
#include "bview.h"
#include "compute.h"

/*
 * A preset's reward transform, AReaL's reward_scaling, reward_bias and
 * reward_clip: the estimator sees x = clip((r + bias) scale, +-clip),
 * which is bounded, so it needs no prescaling.
 */
static int
transformed(const struct estimator *e, struct adv_params *ap,
    const struct batch *v, double *adv, struct diag *d)
{
	struct batch sv;
	double *x;
	size_t i;
	int rc;

	if ((x = malloc((v->n ? v->n : 1) * sizeof(*x))) == NULL)
		return diag_set(d, EXIT_IO, "out of memory");
	for (i = 0; i < v->n; i++)
		x[i] = fmin(fmax((v->r[i] + ap->rbias) * ap->rscale,
		    -ap->rclip), ap->rclip);
	sv = *v;
	sv.r = x;
	rc = backend_advantages(e, ap, &sv, adv, d);
	free(x);
	return rc;
}

/*
 * Rewards near the top of the double range overflow a sum or a square
 * (1e308 - -1e308).  Such a batch is computed on r * 2^-k
 * (advmath_tame_exp) and the advantages of the estimators that scale
 * with r are scaled back; only a result that really overflows is
 * refused.
 */
int
compute_advantages(const struct estimator *e, struct adv_params *ap,
    const struct batch *v, double *adv, struct diag *d)
{
	unsigned flags = advantage_flags(e, ap);
	struct adv_params q;
	struct batch sv;
	double mx = 0, s, *r;
	size_t i;
	int k, rc;

	if (ap->rscale != 0)
		return transformed(e, ap, v, adv, d);
	for (i = 0; i < v->n; i++)
		mx = fmax(mx, fabs(v->r[i]));
	k = advmath_tame_exp(mx);
	if (k == 0 || (flags & ADV_MIXED))
		return backend_advantages(e, ap, v, adv, d);
	s = ldexp(1, -k);
	if ((r = malloc(v->n * sizeof(*r))) == NULL)
		return diag_set(d, EXIT_IO, "out of memory");
	for (i = 0; i < v->n; i++)
		r[i] = v->r[i] * s;
	sv = *v;
	sv.r = r;
	q = *ap;
	/* eps goes to sigma, or with --eps-inside to sigma^2. */
	q.eps = ap->eps_inside ? ap->eps * s * s : ap->eps * s;
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

/* The numbers of the batch v as the estimator and the loss mode see it. */
static int
numbers(const struct prefs *c, struct adv_params *ap,
    const struct batch *v, double *adv, double *w, struct diag *d)
{
	size_t i, g;

	if (compute_advantages(c->est, ap, v, adv, d) != 0)
		return d->status;
	if (w != NULL && (loss_weights_check(c->loss, &c->lp, v, c->like ?
	    c->like->name : "", c->like ? c->like->release : "", d) != 0 ||
	    backend_loss_weights(c, v, adv, w, d) != 0))
		return d->status;
	for (g = 0; g < v->ngroups; g++)
		for (i = v->goff[g]; i < v->goff[g + 1]; i++) {
			if (!isfinite(adv[i]) || (w && !isfinite(w[i])))
				return diag_setl(d, EXIT_DATA, v->gfile[g],
				    v->gline[g], "group %s: the %s overflows "
				    "a double (field \"%s\" too large)",
				    v->gname[g], isfinite(adv[i]) ?
				    "loss weight" : "advantage",
				    c->fields.reward[0]);
			adv[i] = adv[i] == 0 ? 0 : adv[i];
			if (w != NULL)
				w[i] = w[i] == 0 ? 0 : w[i];
		}
	return 0;
}

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
	size_t i;
	int rc;

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
	if (a != adv)
		free(a);
	if (x != w)
		free(x);
	bview_free(&dz);
	bview_free(&rs);
	return rc;
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
