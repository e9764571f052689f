/*
 * loss_weights.h - the table of loss aggregation modes.  A mode
 * fills the caller's w[] for the records of one group, from the totals
 * of its scope (advmath_lw.h); the caller owns every array.
 */
#ifndef RLADV_LOSS_WEIGHTS_H
#define RLADV_LOSS_WEIGHTS_H

#include <stddef.h>

#include "advantage.h"
#include "advmath_lw.h"

#define LOSS_MAXLEN	1	/* needs --max-len */

struct loss_mode {
	const char	*name;
	/* Weights of one group's n records, s its scope's totals. */
	void		(*fn)(const struct advmath_lw *p,
			    const struct advmath_lscope *s, const double *T,
			    const double *adv, size_t n, double *w);
	/* The same by a switch (advmath_lw_group(), the GPU's way). */
	enum advmath_lw_kind kind;
	unsigned	 flags;
	const char	*help;
};

extern const struct loss_mode loss_weights_table[];

/* The mode of that name or a framework's (alias.c); NULL when none. */
const struct loss_mode *loss_weights_find(const char *name);
/* The totals of the scope made of groups [g0, g1) of b. */
void	loss_weights_scope(const struct batch *b, size_t g0, size_t g1,
	    struct advmath_lscope *s);
/*
 * Refuses what the mode cannot weigh under p: a record without a trained
 * token where seq_refuse (the framework, who at release, divides 0 by 0
 * there), a batch without one where empty_refuse (token and seq).
 * Status 1 with the record's file and line in d.
 */
int	loss_weights_check(const struct loss_mode *m,
	    const struct advmath_lw *p, const struct batch *b,
	    const char *who, const char *release, struct diag *d);
/* Whether m weighs b's records by rollout (b has --rollout-key's
 * rollouts and m is a seq mode): a rollout is then one sequence. */
int	loss_weights_by_rollout(const struct loss_mode *m,
	    const struct batch *b);
/* Runs m over the whole batch (scope_group 0) or group by group. */
void	loss_weights_apply(const struct loss_mode *m, const struct batch *b,
	    int scope_group, const double *adv, const struct advmath_lw *p,
	    double *w);

#endif
