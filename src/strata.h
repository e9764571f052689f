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
 * and mergeable, so that batches add up to the total exactly.  Values
 * past 2^400 (rewards near 1e308) are kept divided by a power of two,
 * 2^e, as the estimators prescale them, so that no sum or square
 * overflows; below, e is 0 and the sums are the values'.
 */
struct strata_mom {
	double	n, mean, m2;
	double	sum;	/* exact for integers: strata_mom_mean() */
	int	e;	/* mean and sum in units of 2^e, m2 of 2^2e */
};

/*
 * A sum kept as s 2^e, e growing only when s would pass 2^512: sums of
 * squares of rewards near 1e308 (each added on its own scale, v 2^e, as
 * a group's prescaled figures are) add up without overflowing, and a
 * ratio of two of them is a double even when they are not.  For ordinary
 * values e stays 0 and s is the plain sum.
 */
struct xsum {
	double	s;
	int	e;
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
	void	*mem;		/* cnt .. sum: one block (slab.h) */
};

/* Indexes 0 .. n - 1 in reading order: 0, 1, 2 ... >=cap, "(none)". */
size_t	*strata_sorted(const struct keymap *t);
/* A canonical key as people read it; "(none)" for the empty key. */
char	*strata_label(const char *key, size_t len);
/* The label of key k of t. */
char	*strata_label_of(const struct keymap *t, size_t k);
/*
 * The stratum field(s) as stats and diff name them, into buf: the n
 * names joined by "," where they are the parts of one composite key, else
 * those the records had (bit i of used: names[i]) joined by "/", or,
 * where none had any, "none of" every name looked for.
 */
void	 strata_field_name(char *buf, size_t size, const char *const *names,
	    int n, int composite, unsigned used);

/*
 * Fills c for group g of v: counts, keymap indexes (keys added to t as
 * they come), first rewards, whether each cell's rewards are equal.
 */
void	 strata_cells_fill(struct strata_cells *c, struct keymap *t,
	    const struct gbatch *b, const struct batch *v, size_t g);
/*
 * After strata_cells_fill() (which gave every record's stratum its
 * key): the counts, first rewards and equal flags of group g of v
 * counted again over its scored records alone, those v->unscored does
 * not mark (every one of a view without it, bview_scored()'s), and the
 * sums zeroed; a stratum of none has none.
 */
void	 strata_cells_scored(struct strata_cells *c, const struct batch *v,
	    size_t g);
void	 strata_cells_free(struct strata_cells *c);

void	 strata_mom_add(struct strata_mom *m, double x);
/* The moments of the union of two sets. */
void	 strata_mom_merge(struct strata_mom *m, const struct strata_mom *o);
/* sum / n, not the running mean: exact for integer data. */
double	 strata_mom_mean(const struct strata_mom *m);
/* Population variance and deviation, as the estimators see the spread
 * (the deviation is at most the largest |value|; the variance may be
 * past a double: Inf). */
double	 strata_mom_var(const struct strata_mom *m);
double	 strata_mom_std(const struct strata_mom *m);

/* The running mean (not sum / n: the figure the tests of diff read). */
double	 strata_mom_rmean(const struct strata_mom *m);

/*
 * Two series' running moments and co-moment (bivariate Welford), for
 * their correlation, each series scaled past 2^400 as strata_mom is, so
 * that advantages near 1e308 correlate as any others.
 */
struct strata_cov {
	double	n, ma, mb, m2a, m2b, cab;
	int	ea, eb;		/* a's in units of 2^ea, b's of 2^eb */
};
void	 strata_cov_add(struct strata_cov *c, double a, double b);
/* The correlation; NaN when a series is constant. */
double	 strata_cov_corr(const struct strata_cov *c);

/* x += v 2^e: inline where the scales agree, as for ordinary values. */
void	 xsum_add_slow(struct xsum *x, double v, int e);
static inline void
xsum_add(struct xsum *x, double v, int e)
{
	double t;

	if (e == x->e && (t = x->s + v) < 0x1p512 && t > -0x1p512 &&
	    x->s != 0)
		x->s = t;
	else
		xsum_add_slow(x, v, e);
}
void	 xsum_merge(struct xsum *x, const struct xsum *o);
/* The sum (Inf when past a double), the sum over n (NaN when n is 0),
 * and a / b (NaN when b is 0). */
double	 xsum_value(const struct xsum *x);
double	 xsum_over(const struct xsum *x, double n);
double	 xsum_ratio(const struct xsum *a, const struct xsum *b);
/* sqrt(x / n): a double whenever x / n is a square of one. */
double	 xsum_rms(const struct xsum *x, double n);

#endif
