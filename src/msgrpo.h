/*
 * msgrpo.h - MS-GRPO multi-scale advantages of one group (SPEC §3).
 * The caller owns every array passed in and out; nothing is kept.
 */
#ifndef RLADV_MSGRPO_H
#define RLADV_MSGRPO_H

#include <stddef.h>
#include <stdint.h>

#include "kinds.h"

enum ms_mode { MS_AUTO, MS_EXACT, MS_SAMPLED };
enum ms_path { MS_PATH_NONE, MS_PATH_EXACT, MS_PATH_SAMPLED };

struct ms_params {
	int		tau_min;	/* --tau-min, >= 2 (default 2) */
	enum ms_weights	weights;	/* --ms-weights (default uniform) */
	int		token_stats;	/* --ms-stats token: weight by T_i */
	enum ms_mode	mode;		/* --ms-mode (default auto) */
	int		scales;		/* --ms-scales M (default 4) */
	int		groups;		/* --ms-groups K (default 8) */
	double		budget;		/* --ms-budget: work units per group */
	uint64_t	seed;		/* --seed (default 0) */
	double		eps;		/* --eps */
};

/* Fills p with the defaults above (eps 1e-6, budget MSGRPO_BUDGET). */
void	msgrpo_defaults(struct ms_params *p);

#define MSGRPO_BUDGET 1e8

/*
 * Advantages of one group of G responses.
 *   r[i]      rewards
 *   T[i]      trained-token counts (used by --ms-stats token)
 *   tie[i]    a per-record hash that orders responses whose (r, T) are equal,
 *             so that sampling does not depend on record order
 *   key_hash  hash of the group key, mixed with p->seed to seed sampling
 *   adv[i]    out: A_i
 *   path      out: which path was taken (MS_PATH_NONE when G < tau_min)
 * Returns 0, -1 when p->mode is MS_EXACT and the exact cost exceeds
 * p->budget (adv is then untouched; with MS_AUTO such a group goes
 * sampled), or -2 when memory ran out.
 * msgrpo_cost() gives the estimated exact cost in the same units.
 */
int	msgrpo_group(const double *r, const double *T, const uint64_t *tie,
	    size_t G, uint64_t key_hash, const struct ms_params *p,
	    double *adv, enum ms_path *path);
double	msgrpo_cost(const double *r, const double *T, size_t G,
	    const struct ms_params *p);

#endif
