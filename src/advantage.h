/*
 * advantage.h - the table of advantage estimators (SPEC §3).  An
 * estimator fills the caller's adv[] for a batch whose arrays the caller
 * owns.
 */
#ifndef RLADV_ADVANTAGE_H
#define RLADV_ADVANTAGE_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "diag.h"
#include "kinds.h"
#include "msgrpo.h"

struct adv_params {
	int		sample;		/* --std sample */
	double		eps;		/* --eps */
	double		alpha;		/* --alpha */
	enum std_scope	std_scope;	/* --std-scope */
	int		gn_batch;	/* --gn-scope batch */
	int		verl_single;	/* --like verl: group of one rule */
	double		var_eps;	/* rpp-baseline: added to the variance */
	struct ms_params ms;
	/* Filled by msgrpo: groups that took each path. */
	size_t		ms_exact, ms_sampled;
};

#define ADV_STRATA	1	/* needs the stratum key */
#define ADV_BATCH	2	/* result depends on the whole batch */
#define ADV_SCALES	4	/* result scales with the rewards (no sigma) */
#define ADV_MIXED	8	/* partly scales, partly not */

struct estimator {
	const char	*name;
	int		(*fn)(const struct batch *, struct adv_params *,
			    double *adv, struct diag *);
	enum est_kind	 kind;		/* what callers switch on, not name */
	unsigned	 flags;
	const char	*help;
};

extern const struct estimator advantage_table[];

void	advantage_defaults(struct adv_params *p);
/* NULL when no estimator has that name. */
const struct estimator *advantage_find(const char *name);
/* ADV_BATCH as the options make it (--std-scope/--gn-scope batch). */
unsigned advantage_flags(const struct estimator *e,
	    const struct adv_params *p);

#endif
