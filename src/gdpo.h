/*
 * gdpo.h - GDPO's advantages: each reward part normalized in its group,
 * the parts summed with their weights, the sums whitened over the
 * batch.  The caller owns the batch and adv[].
 */
#ifndef RLADV_GDPO_H
#define RLADV_GDPO_H

#include "advantage.h"

/* What gdpo refuses of p, status 2 in d: AReaL's reward transform (of
 * the summed reward), --std-scope (its deviations are fixed). */
int	gdpo_check(const struct adv_params *p, struct diag *d);
/* advantage_table's fn for gdpo: b's advantages into adv; 0, or the
 * status in d (out of memory). */
int	gdpo_advantages(const struct batch *b, struct adv_params *p,
	    double *adv, struct diag *d);

#endif
