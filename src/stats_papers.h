/*
 * stats_papers.h - the papers' diagnostics that rladv stats sums beside
 * its other figures, group by group: Stratified GRPO's (Proposition 3's
 * alpha_k and Delta_k of each (group, stratum) cell, Theorem 2's Term A
 * and Term B, Theorem 3's stratum weights p_k / (sigma_k + eps), the
 * records whose SAN is forced to 0), Balanced Aggregation's (the on-policy
 * loss -sum c_i A_i T_i of every aggregation, its Fig. 2) and MS-GRPO's
 * (Appendix A and D: the subgroups' E_S[sigma_S], Var_S(mu_S),
 * Var_S(sigma_S), and the advantage change of Eq. 10 against the actual
 * one).  Plain sums inside the caller's struct stats_acc; nothing here
 * owns memory beyond a call.
 */
#ifndef RLADV_STATS_PAPERS_H
#define RLADV_STATS_PAPERS_H

#include <stddef.h>

#include "advmath_lw.h"
#include "strata.h"

struct batch;
struct diag;
struct gbatch;
struct prefs;
struct stats;
struct stats_acc;

/* Loss modes summed (rows of loss_weights_table, in its order; the loss
 * chart has a series for each, SVG_MAXSERIES). */
#define STATS_NLOSS	8

/*
 * A stratum's sums over its (group, stratum) cells: the cells; the sums
 * of alpha_k, Delta_k and Delta_k^2; of p_k / (sigma_k + eps), and the
 * cells with a reward spread that it is over; the records whose SAN is
 * forced to 0.  sum[] is them all, to add one stratum's to another's.
 */
#define STATS_PSUMS	7
struct stats_pstratum {
	union {
		struct {
			double	cells;
			double	alpha, off, off2;
			double	weight, wcells;
			double	forced;
		};
		double	sum[STATS_PSUMS];
	};
};
_Static_assert(sizeof(struct stats_pstratum) == STATS_PSUMS * sizeof(double),
    "stats_pstratum: its sums and sum[] alike");

/*
 * MS-GRPO's advantage change, over records: their count, the sums of the
 * actual change and of Eq. 10's, of their squares, of their product and
 * of their squared difference; sum[] is them all, to add.
 */
#define STATS_DSUMS	7
struct stats_dchange {
	union {
		struct {
			double	n, act, app, act2, app2, cross, err2;
		};
		double	sum[STATS_DSUMS];
	};
};
_Static_assert(sizeof(struct stats_dchange) == STATS_DSUMS * sizeof(double),
    "stats_dchange: its sums and sum[] alike");

struct stats_papers {
	/* Stratified GRPO: records in cells whose SAN is forced to 0; K
	 * times Term B and Var[A_SAN], pooled over groups (Term A is the
	 * between-stratum sum of squares, stats_acc's ss_between). */
	double			forced;
	struct xsum		termb_ss, san_ss;
	/* Balanced Aggregation: per loss mode, the sum over groups of the
	 * group's loss times its share of the mode's normalizer, the
	 * totals of the groups summed, and (stats_papers_finish()) the
	 * batch's loss, or in the total the mean over batches. */
	struct xsum		loss[STATS_NLOSS];
	struct advmath_lscope	scope;
	double			final[STATS_NLOSS];
	double			nfinal[STATS_NLOSS];	/* batches in it */
	/* MS-GRPO: groups whose moments were taken, and those past
	 * --ms-budget; sums of the moments; the advantage change. */
	double			ms_groups, ms_skipped;
	struct xsum		es, sigma, vmu, vsig;
	struct stats_dchange	d;
	/* --by-batch: numeric stratum values (tool calls) and records. */
	struct xsum		tc_sum;
	double			tc_n;
};

/* The loss mode of column m, NULL past the table or when it cannot be
 * weighted here (seq-sum-norm without --max-len). */
const struct loss_mode *stats_papers_mode(const struct prefs *c, size_t m);
/*
 * Folds group g of v (advantages adv, the estimator's), every record of
 * it, into a: its losses (each record trains) and its numeric stratum
 * values.
 */
void	stats_papers_group(struct stats *st, struct stats_acc *a,
	    const struct gbatch *b, const struct batch *v, size_t g,
	    const double *adv);
/*
 * Folds the figures of the rewards of group g of v into a, and its
 * strata's sums into their entries (stats_pstratum()): v holds the
 * scored records alone (bview_scored()) where some are unscored, adv
 * their advantages.  0, or a status with d set (out of memory).
 */
int	stats_papers_rewards(struct stats *st, struct stats_acc *a,
	    const struct batch *v, size_t g, const double *adv,
	    struct diag *d);
/* The batch's losses from its sums (once every group is in). */
void	stats_papers_finish(const struct prefs *c, struct stats_papers *p);
/* Adds batch o's sums (and its losses, for their mean) into t. */
void	stats_papers_merge(struct stats_papers *t,
	    const struct stats_papers *o);
void	stats_papers_merge_stratum(struct stats_pstratum *t,
	    const struct stats_pstratum *o);
/* The mean over batches of the total's losses (after every merge). */
void	stats_papers_total(struct stats_papers *t);

#endif
