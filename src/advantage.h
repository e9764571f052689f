/*
 * advantage.h - the table of advantage estimators.  An
 * estimator fills the caller's adv[] for a batch whose arrays the caller
 * owns.
 */
#ifndef RLADV_ADVANTAGE_H
#define RLADV_ADVANTAGE_H

#include <stddef.h>
#include <stdint.h>

#include "advmath.h"
#include "batch.h"
#include "diag.h"
#include "fields.h"
#include "kinds.h"
#include "msgrpo.h"

struct adv_params {
	int		sample;		/* --std sample */
	double		eps;		/* --eps */
	double		alpha;		/* --alpha */
	enum std_scope	std_scope;	/* --std-scope */
	int		gn_batch;	/* --gn-scope batch */
	int		eps_inside;	/* --eps-inside: sqrt(var + eps) */
	/* compute.c's, before any estimator runs: */
	int		drop_zero;	/* --drop-zero-std: groups of equal
					   rewards leave the batch */
	int		random_strata;	/* --random-strata: each group's
					   stratum labels shuffled */
	/* Kinds (EST_BIT) whose group of one takes verl's rule, mean 0 and
	 * std 1 (a preset's); passk then refuses, as verl raises. */
	unsigned	single;
	/* One reward unit in the rewards the estimator sees: 1, or 2^-k
	 * under compute.c's prescaling (verl's deviation of 1 is one),
	 * which scales eps and keeps the eps given in eps1. */
	double		unit, eps1;
	struct advmath_whiten wh;	/* rpp-baseline, rpp, grpo-whiten */
	int		rpp_tokens;	/* rpp: a record without trained
					   tokens is an error (slime) */
	/* A preset's reward transform (AReaL's): the estimators see
	 * clip((r + rbias) rscale, +-rclip); none when rscale is 0. */
	double		rscale, rbias, rclip;
	/* gdpo: the reward parts' weights (--reward-weights); 1 past
	 * nrweight. */
	double		rweight[FIELD_MAXNAMES];
	int		nrweight;
	struct ms_params ms;
	/* Filled by msgrpo: groups that took each path. */
	size_t		ms_exact, ms_sampled;
};

#define ADV_STRATA	1	/* needs the stratum key */
#define ADV_BATCH	2	/* result depends on the whole batch */
#define ADV_SCALES	4	/* result scales with the rewards (no sigma) */
#define ADV_MIXED	8	/* partly scales, partly not: never prescaled */
#define ADV_BASE	16	/* reads the baseline field (remax) */
#define ADV_TIE		32	/* orders equal records by their identity
				   (struct batch's tie) */
#define ADV_DEV		64	/* divides by a deviation that
				   --eps-inside can take */
#define ADV_WHITEN	128	/* then whitened over the batch's trained
				   tokens (advmath_whiten) */
#define ADV_PARTS	256	/* reads each reward field (gdpo) */

/* One group as advantage.c's group estimators see it. */
struct adv_group;

/* A row: advantage_run() runs fn, then group on each group, then the
 * whitening of ADV_WHITEN. */
struct estimator {
	const char	*name;
	/* The batch's advantages, or (with group) a check that refuses
	 * the batch first; NULL: none. */
	int		(*fn)(const struct batch *, struct adv_params *,
			    double *adv, struct diag *);
	/* One group's advantages; NULL where fn computes them. */
	void		(*group)(const struct adv_group *);
	enum est_kind	 kind;		/* what callers switch on, not name */
	unsigned	 flags;
	const char	*help;
};

extern const struct estimator advantage_table[];

void	advantage_defaults(struct adv_params *p);
/* The row of that name or a framework's (alias.c); NULL when none. */
const struct estimator *advantage_find(const char *name);
/* e's advantages of the batch b into adv (b->n of them); 0, or the
 * status in d. */
int	advantage_run(const struct estimator *e, const struct batch *b,
	    struct adv_params *p, double *adv, struct diag *d);
/*
 * Refuses (status 1 in d) the first record of each group of b that has
 * no trained token, at its own line, with fmt's words (printf-style)
 * after "the record has no trained token"; in skip mode its group is
 * noted.  samples: a loss's rule, which passes over the records whose
 * sample mask is 0 (no samples of the loss, advmath_lw_T()); an
 * estimator's sees every record.  d->status when one was refused, else
 * 0.
 */
int	advantage_refuse_untrained(const struct batch *b, int samples,
	    struct diag *d, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));
/*
 * advantage_refuse_untrained() for a batch that has no trained token:
 * fmt's text follows "the batch has no trained token" at the batch's
 * first line; in skip mode every group is noted.
 */
int	advantage_refuse_batch(const struct batch *b, struct diag *d,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Refuses a group of one where passk takes verl's rule (status 1). */
int	advantage_passk_single(const struct batch *b,
	    const struct adv_params *p, struct diag *d);
/* gpg's alpha = B / max(#{i : r_i != 0}, 1) over the batch. */
double	advantage_gpg_alpha(const struct batch *b);
/*
 * Refuses an option that the estimator would ignore (--eps-inside
 * without a deviation, --random-strata without strata, --gn-scope batch
 * where no GN is computed): status 2 in d.
 */
int	advantage_check(const struct estimator *e,
	    const struct adv_params *p, struct diag *d);
/* ADV_BATCH as the options make it (--std-scope/--gn-scope batch). */
unsigned advantage_flags(const struct estimator *e,
	    const struct adv_params *p);

#endif
