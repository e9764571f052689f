/*
 * compute.c - one batch's advantages and loss weights, the numeric heart
 * that compute, stats and diff share.
 */
#include <math.h>

#include "backend.h"
#include "compute.h"

int
compute_batch(const struct config *c, struct adv_params *ap,
    const struct batch *v, double *adv, double *w, struct diag *d)
{
	size_t i;

	if (backend_advantages(c, ap, v, adv, d) != 0)
		return d->status;
	loss_weights_apply(c->loss, v, c->scope_group, adv, &c->lp, w);
	for (i = 0; i < v->n; i++) {
		if (!isfinite(adv[i]) || !isfinite(w[i]))
			return diag_set(d, EXIT_DATA, "group %s: the %s is not "
			    "finite (rewards too large?)", v->gname ?
			    v->gname[0] : "?", isfinite(adv[i]) ?
			    "loss weight" : "advantage");
		adv[i] = adv[i] == 0 ? 0 : adv[i];
		w[i] = w[i] == 0 ? 0 : w[i];
	}
	return 0;
}

int
compute_streams(const struct config *c)
{
	return c->scope_group && !c->go.unsorted &&
	    !(advantage_flags(c->est, &c->ap) & ADV_BATCH);
}

int
compute_device(const struct config *c, struct diag *d)
{
	return backend_select(c->device, d);
}
