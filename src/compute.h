/*
 * compute.h - the numbers of one batch under one configuration: the
 * advantages and loss weights, in the batch's group order, written to
 * arrays the caller owns.
 */
#ifndef RLADV_COMPUTE_H
#define RLADV_COMPUTE_H

#include "advantage.h"
#include "diag.h"
#include "options.h"

/*
 * The advantages of estimator e (adv holds v->n values), rewards past
 * 2^500 computed on an exact power-of-two rescaling; ap is updated
 * (MS-GRPO counts).
 */
int	compute_advantages(const struct estimator *e, struct adv_params *ap,
	    const struct batch *v, double *adv, struct diag *d);
/* adv and w hold v->n values each; w NULL: the advantages alone.  ap is
 * updated (MS-GRPO counts). */
int	compute_batch(const struct prefs *c, struct adv_params *ap,
	    const struct batch *v, double *adv, double *w, struct diag *d);
/*
 * Whether the configuration needs each record's token count: 2 for its
 * estimator (opo, rpp-baseline, msgrpo --ms-stats token), 1 for its loss
 * mode only (all but seq-sum and seq-sum-norm), 0 not at all.
 */
int	compute_needs_tokens(const struct prefs *c);
/*
 * Refuses (status 1, naming the record and what to give) a batch with a
 * record of unknown length where c needs token counts; *weights says
 * whether loss weights can be written (0 under --no-tokens: the
 * advantages alone).
 */
int	compute_check_lengths(const struct prefs *c, const struct gbatch *b,
	    const struct batch *v, int *weights, struct diag *d);
/* Whether the configuration can stream group by group. */
int	compute_streams(const struct prefs *c);
/* Refuses --device cuda where it cannot run (status 2). */
int	compute_device(const struct prefs *c, struct diag *d);

#endif
