/*
 * stats_html.h - rladv stats --html: a log at a glance as one page of
 * charts.  The caller owns the struct stats_page and all it points to;
 * stats_html_write() only reads it.
 */
#ifndef RLADV_STATS_HTML_H
#define RLADV_STATS_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "stats_papers.h"

struct bins;
struct prefs;
struct diag;

/*
 * One batch (a training step) as the per-step pictures and tables read
 * it.  A figure that is undefined (no groups, no positive record, no
 * reward variance) is NaN.
 */
struct stats_row {
	const char	*label;		/* the batch key's value, or its number */
	double		 records, groups;
	double		 zero_std;	/* share of groups with equal rewards */
	double		 reward;	/* mean reward */
	double		 len_pos, len_neg;	/* mean T where A > 0, A < 0 */
	double		 between;	/* between-stratum share of the
					   reward variance (Theorem 1) */
	/* stats --by-batch's besides: */
	double		 tool_calls;	/* mean numeric stratum value */
	double		 gap;		/* len_pos - len_neg */
	double		 within, between_var;	/* pooled reward variance
					   inside groups (Theorem 1) */
	/* The on-policy loss -sum c A T of each loss mode (columns of
	 * stats_papers.h; NaN where undefined), Balanced Aggregation
	 * Fig. 2. */
	double		 loss[STATS_NLOSS];
};

struct stats_stratum {
	const char	*label;
	double		 records, reward_mean;
	/* Stratified GRPO (stats_papers.h): the means over the stratum's
	 * cells of alpha_k and of the offset Delta_k, its share of the
	 * Theorem 3 weights, the share of its records whose SAN is 0. */
	double		 alpha, offset, weight_share, forced;
};

struct stats_page {
	const struct prefs	 *c;	/* files, field names, batching */
	unsigned long long	  rejected;
	const struct stats_row	 *row;		/* one per batch */
	size_t			  nrow;
	struct stats_row	  total;
	const struct stats_stratum *stratum;	/* in reading order */
	size_t			  nstratum;
	const size_t		 *size;		/* group sizes */
	const double		 *size_groups;	/* groups of each */
	size_t			  nsize;
	const struct bins	 *len_pos, *len_neg;	/* T by sign of A */
	/* The loss modes of the rows' loss columns (NULL: none). */
	const char		 *loss_name[STATS_NLOSS];
	const char		 *reading;	/* the length reading, text */
	/* The stratum field(s) as the text report names them: those the
	 * records had, or "none of ..." the names looked for. */
	const char		 *skey;
};

/* Writes the page to f, which html_open() gave for path, and closes it
 * (html_close()); returns 0, or 3 with d set when a write failed. */
int	stats_html_write(FILE *f, const char *path,
	    const struct stats_page *p, struct diag *d);

#endif
