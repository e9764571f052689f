/*
 * diff_html.h - rladv diff --html: two configurations on the same records
 * as one page of charts.  The caller owns the struct diff_page and all it
 * points to; diff_html_write() only reads it.
 */
#ifndef RLADV_DIFF_HTML_H
#define RLADV_DIFF_HTML_H

#include <stddef.h>
#include <stdio.h>

struct bins;
struct prefs;
struct diag;

/* One stratum under A ([0]) and B ([1]). */
struct diff_stratum {
	const char		*label;
	double			 records;
	double			 mean[2];	/* mean advantage */
	double			 mass[2];	/* share of sum |A| c T; NaN */
	const struct bins	*adv[2];	/* its advantages */
};

struct diff_page {
	const struct prefs	*c;		/* files, field names */
	const char		*opts[2];	/* the option strings */
	double			 records, groups, flips;
	double			 corr;		/* NaN: undefined */
	double			 loss[2];	/* on-policy loss, mean per
						   batch */
	const struct bins	*adv[2];	/* every record's advantage */
	const struct bins	*len_pos[2], *len_neg[2];	/* T by sign */
	const struct diff_stratum *stratum;	/* in reading order */
	size_t			 nstratum;
	const char		*skey;	/* the stratum field(s), as the text
					   report names them */
};

/* Writes the page to f, which html_open() gave for path, and closes it
 * (html_close()); returns 0, or 3 with d set when a write failed. */
int	diff_html_write(FILE *f, const char *path, const struct diff_page *p,
	    struct diag *d);

#endif
