/*
 * msgrpo.h - MS-GRPO multi-scale advantages of one group.
 * The caller owns every array passed in and out; a struct ms_canon owns
 * its arrays until msgrpo_canon_free().
 *
 * The module is four files: msgrpo.c (the entry points), msgrpo_canon.c
 * (a group in canonical order, its cost and path), msgrpo_exact.c and
 * msgrpo_sampled.c (the two paths).  The CUDA backend uses the canonical
 * form too, so that the GPU enumerates exactly the groups, in exactly the
 * order and units, that msgrpo_exact.c would.
 */
#ifndef RLADV_MSGRPO_H
#define RLADV_MSGRPO_H

#include <stddef.h>
#include <stdint.h>

#include "kinds.h"

enum ms_mode { MS_AUTO, MS_EXACT, MS_SAMPLED };
enum ms_path { MS_PATH_NONE, MS_PATH_EXACT, MS_PATH_SAMPLED };
/* Dilated Scale Sampling (Sec. 3.2.1): a uniform draw from each interval
 * (the paper's), or the interval's end (Table 6c's fixed intervals). */
enum ms_dss { MS_DSS_RANDOM, MS_DSS_FIXED };
/* Diverse Group Sampling (Sec. 3.2.2): the greedy of Eq. 9 (Table 6d's
 * "optimized"), or K subgroups drawn uniformly (its "random"). */
enum ms_dgs { MS_DGS_DIVERSE, MS_DGS_RANDOM };

struct ms_params {
	int		tau_min;	/* --tau-min, >= 2 (default 2) */
	enum ms_weights	weights;	/* --ms-weights (default uniform) */
	/* MS_GIVEN: the weights of scales tau_min, tau_min + 1, ... */
	const double	*given;
	size_t		ngiven;
	int		token_stats;	/* --ms-stats token: weight by T_i */
	enum ms_mode	mode;		/* --ms-mode (default auto) */
	enum ms_dss	dss;		/* --ms-dss (default random) */
	enum ms_dgs	dgs;		/* --ms-dgs (default diverse) */
	int		scales;		/* --ms-scales M (default 4) */
	int		groups;		/* --ms-groups K (default 8) */
	double		budget;		/* --ms-budget: work units per group */
	uint64_t	seed;		/* --seed (default 0) */
	/* The estimator's own options, msgrpo_from()'s: */
	double		eps;		/* --eps */
	int		sample;		/* --std sample: sigma_S with n - 1 */
	int		inside;		/* --eps-inside: sqrt(var_S + eps) */
};

/* What msgrpo_group() and its parts return besides 0. */
#define MSGRPO_EXACT_OVER	(-1)	/* --ms-mode exact past the budget */
#define MSGRPO_NOMEM		(-2)
#define MSGRPO_SAMPLED_OVER	(-3)	/* the sampled path past it too */
#define MSGRPO_WEIGHTS		(-4)	/* --ms-weights gives the group's
					   scales no weight, or too few */

/* Fills p with the defaults above (eps 1e-6, budget MSGRPO_BUDGET). */
void	msgrpo_defaults(struct ms_params *p);
/* Takes the deviation's options that MS-GRPO shares with the others. */
void	msgrpo_from(struct ms_params *p, double eps, int sample, int inside);
/* p->tau_min, below 2 taken as 2. */
size_t	msgrpo_tau_min(const struct ms_params *p);

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
 * Returns 0, or (adv then untouched) MSGRPO_EXACT_OVER when p->mode is
 * MS_EXACT and the exact cost exceeds p->budget (with MS_AUTO such a group
 * goes sampled), MSGRPO_SAMPLED_OVER when the sampled path's cost exceeds
 * it too (or alone, MS_SAMPLED), MSGRPO_WEIGHTS, MSGRPO_NOMEM.
 * msgrpo_cost() and msgrpo_sampled_cost() give the costs in the units of
 * the budget.
 */
int	msgrpo_group(const double *r, const double *T, const uint64_t *tie,
	    size_t G, uint64_t key_hash, const struct ms_params *p,
	    double *adv, enum ms_path *path);
double	msgrpo_cost(const double *r, const double *T, size_t G,
	    const struct ms_params *p);
double	msgrpo_sampled_cost(size_t G, const struct ms_params *p);
/*
 * w[tau], tau = 0..G: the weights of Eq. 6 for a group of G, normalized
 * to sum 1 over tau_min..G (0 below).  0, or MSGRPO_WEIGHTS when
 * p->given has fewer than G - tau_min + 1 weights or none above 0 there.
 */
int	msgrpo_weights(const struct ms_params *p, size_t G, double *w);
/* The name of scheme i (enum ms_weights), NULL past MS_FLAT. */
const char *msgrpo_weights_name(size_t i);
/*
 * --ms-weights s: a scheme's name, or weights w,w,... of the scales from
 * tau_min up, each finite and >= 0, into p (*given, from malloc, is then
 * the caller's, p->given points into it).  0, or MSGRPO_WEIGHTS when
 * every weight is 0, -1 when s is neither.
 */
int	msgrpo_weights_parse(struct ms_params *p, const char *s,
	    double **given);

/*
 * One group in canonical order: sorted by (r, T, tie), split into classes
 * of interchangeable responses, and rescaled by powers of two when its
 * magnitudes are huge (msgrpo_canon.c).
 */
struct ms_canon {
	size_t		 G;
	size_t		 tau_min;
	double		 eps;	/* eps in the units of r[] (of r[]^2 with
				   inside) */
	int		 sample, inside;	/* ms_params' */
	double		*r;	/* rewards, canonical order */
	double		*t;	/* statistic weights: T_i, or 1 (seq stats) */
	size_t		*ord;	/* ord[c]: the caller's index of canonical c */
	size_t		 d;	/* number of classes */
	size_t		*cls;	/* class j is canonical [cls[j], cls[j+1]) */
	double		*out;	/* advantages, canonical order */
	double		*w;	/* w[tau], tau = 0..G: msgrpo_weights() */
	struct ms_trace	*trace;	/* NULL, or where the sampled path says
				   what it drew */
	void		*mem;	/* r .. w: one block (slab.h) */
};

/*
 * What the sampled path drew for a group (--annotate): its scales, and
 * its comparison subgroups as bit sets of nw words over the group's
 * records in the caller's order, each with its scale.  Owned by the
 * caller, freed by msgrpo_trace_free().
 */
struct ms_trace {
	enum ms_path	 path;
	size_t		*scale, nscale;
	uint64_t	*set;		/* nset sets of nw words */
	size_t		*setscale, nset, nw;
	size_t		 cap;		/* sets set[] has room for */
};

/* Fills g from the group (T and tie may be NULL); 0, or MSGRPO_NOMEM or
 * MSGRPO_WEIGHTS (g then owns nothing). */
int	msgrpo_canon_init(struct ms_canon *g, const double *r,
	    const double *T, const uint64_t *tie, size_t G,
	    const struct ms_params *p);
void	msgrpo_canon_free(struct ms_canon *g);
/* The exact path's cost in work units (msgrpo_canon.c's top comment). */
double	msgrpo_canon_cost(const struct ms_canon *g);
/* The path p->mode and p->budget choose for g: 0, or MSGRPO_EXACT_OVER
 * or MSGRPO_SAMPLED_OVER (msgrpo_group()). */
int	msgrpo_canon_path(const struct ms_canon *g, const struct ms_params *p,
	    enum ms_path *path);
/* Runs the path p chooses and writes adv[] in the caller's order: the
 * return values of msgrpo_group(). */
int	msgrpo_canon_run(struct ms_canon *g, const struct ms_params *p,
	    uint64_t key_hash, double *adv, enum ms_path *path);

/*
 * The path and the draws of msgrpo_group() for the same group, into t
 * (zeroed first; its sets in the caller's order of records).  0, or one
 * of msgrpo_group()'s codes.
 */
int	msgrpo_trace(const double *r, const double *T, const uint64_t *tie,
	    size_t G, uint64_t key_hash, const struct ms_params *p,
	    struct ms_trace *t);
void	msgrpo_trace_free(struct ms_trace *t);

/* The exact path: g->out from every subgroup; 0, or MSGRPO_NOMEM. */
int	msgrpo_exact(struct ms_canon *g, const struct ms_params *p);
/* Whether msgrpo_exact() enumerates g by bit masks (every class a single
 * response, G <= 62, the population deviation plus eps), the enumeration
 * the CUDA backend can take over. */
int	msgrpo_exact_masks(const struct ms_canon *g);
/*
 * MS-GRPO Appendix A and D's moments of the subgroups S of a group, E_S
 * being the hierarchical aggregation (Eq. 5-6: the mean over the
 * subgroups of each scale, weighted by w_tau) over every subgroup of size
 * tau_min or more; sigma_S the population deviation (T-weighted with
 * token stats), as Appendix D's identities take it: with seq stats
 * E_S[mu_S] = mu_O and E_S[sigma_S^2] + Var_S(mu_S) = sigma_O^2 (Eq. 20).
 */
struct ms_moments {
	double	es;	/* E_S[sigma_S] */
	double	es2;	/* E_S[sigma_S^2] */
	double	emu;	/* E_S[mu_S] (mu_O with seq stats) */
	double	vmu;	/* Var_S(mu_S) */
	double	vsig;	/* Var_S(sigma_S) */
};
/* m of g by count vectors, at the exact path's cost (units of
 * msgrpo_canon_cost()); 0, or MSGRPO_NOMEM. */
int	msgrpo_moments(const struct ms_canon *g, struct ms_moments *m);
/* The sampled path: g->out from sampled scales and subgroups, the stream
 * seeded by p->seed and key_hash; 0, or MSGRPO_NOMEM. */
int	msgrpo_sampled(struct ms_canon *g, const struct ms_params *p,
	    uint64_t key_hash);

#endif
