/*
 * strata.h - what rladv stats and rladv diff share about the strata they
 * report: the order and labels people read canonical stratum keys
 * (record.h) in, the cells of one group (Stratified GRPO), and running
 * moments.  The keys themselves live in a keymap of the caller's.  A cell
 * set owns its memory until strata_cells_free(); the arrays and strings
 * that strata_sorted() and strata_label() return are the caller's to
 * free.
 */
#ifndef RLADV_STRATA_H
#define RLADV_STRATA_H

#include <stddef.h>
#include <stdint.h>

#include "keymap.h"

struct batch;
struct gbatch;

/*
 * Count, mean and sum of squared deviations (Welford): stable in one pass
 * and mergeable, so that batches add up to the total exactly.
 */
struct strata_mom {
	double	n, mean, m2;
	double	sum;	/* exact for integers: strata_mom_mean() */
};

/*
 * The strata of one group as the pipeline numbers them (0 .. nstrat - 1,
 * struct batch), each with the keymap index of its key: the (group,
 * stratum) cells whose means Stratified GRPO subtracts.
 */
struct strata_cells {
	size_t	*cnt;		/* records */
	size_t	*loc;		/* index in the keymap */
	double	*first;		/* first reward */
	int	*eq;		/* all rewards equal the first */
	double	*sum[2];	/* two sums for the caller, zeroed */
	size_t	 cap;
};

/* Indexes 0 .. n - 1 in reading order: 0, 1, 2 ... >=cap, "(none)". */
size_t	*strata_sorted(const struct keymap *t);
/* A canonical key as people read it; "(none)" for the empty key. */
char	*strata_label(const char *key, size_t len);
/* The label of key k of t. */
char	*strata_label_of(const struct keymap *t, size_t k);

/*
 * Fills c for group g of v: counts, keymap indexes (keys added to t as
 * they come), first rewards, whether each cell's rewards are equal.
 */
void	 strata_cells_fill(struct strata_cells *c, struct keymap *t,
	    const struct gbatch *b, const struct batch *v, size_t g);
void	 strata_cells_free(struct strata_cells *c);

void	 strata_mom_add(struct strata_mom *m, double x);
/* The moments of the union of two sets. */
void	 strata_mom_merge(struct strata_mom *m, const struct strata_mom *o);
/* sum / n, not the running mean: exact for integer data. */
double	 strata_mom_mean(const struct strata_mom *m);
/* Population variance and deviation, as the estimators see the spread. */
double	 strata_mom_var(const struct strata_mom *m);
double	 strata_mom_std(const struct strata_mom *m);

#endif
