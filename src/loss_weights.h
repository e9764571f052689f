/*
 * loss_weights.h - the table of loss aggregation modes (SPEC §4).  A mode
 * fills the caller's w[] for the records of one scope.
 */
#ifndef RLADV_LOSS_WEIGHTS_H
#define RLADV_LOSS_WEIGHTS_H

#include <stddef.h>

#include "advantage.h"

struct loss_params {
	double	max_len;	/* --max-len, 0 when not given */
	int	count_all;	/* seq modes: n counts every record (presets) */
	double	seq_eps;	/* seq mode adds this to T_i (verl: 1e-8) */
};

#define LOSS_MAXLEN	1	/* needs --max-len */

struct loss_mode {
	const char	*name;
	/* Weights of the records of groups [g0, g1) of b: one scope. */
	void		(*fn)(const struct batch *b, size_t g0, size_t g1,
			    const double *adv, const struct loss_params *p,
			    double *w);
	unsigned	 flags;
	const char	*help;
};

extern const struct loss_mode loss_weights_table[];

/* NULL when no mode has that name. */
const struct loss_mode *loss_weights_find(const char *name);
/* Runs m over the whole batch (scope_group 0) or group by group. */
void	loss_weights_apply(const struct loss_mode *m, const struct batch *b,
	    int scope_group, const double *adv, const struct loss_params *p,
	    double *w);

#endif
