/*
 * svg.h - charts as inline SVG for the pages of html.h: a line chart (one
 * point per step), a histogram (series overlaid on shared bins) and
 * grouped bars, each with its axes, ticks, tick labels and legend laid
 * out here.  The caller owns the data and the FILE; nothing here
 * allocates.
 *
 * Every drawn datum is an element of class "mark", and the <svg> says how
 * many it holds (data-marks) and where its plot area is (data-plot="x y w
 * h"), so that a test in a browser can check that each chart drew, and
 * drew inside its frame.  Values that are not finite are not drawn.
 */
#ifndef RLADV_SVG_H
#define RLADV_SVG_H

#include <stddef.h>
#include <stdio.h>

#define SVG_MAXTICKS	16
#define SVG_MAXSERIES	7	/* the loss chart: every loss mode */
#define SVG_WIDTH	470	/* of a chart, in CSS pixels */
#define SVG_HEIGHT	290

/*
 * Ticks at the multiples of a round step (1, 2 or 5 times a power of
 * ten) from the last one at or below lo to the first one at or above hi:
 * the axis runs from v[0] to v[n - 1].  Labels show as many decimals as
 * the step needs, or %g digits for very large or small steps.  An empty
 * range (lo == hi) is widened by 10% of |lo| each way, or to [0, 1] at 0;
 * a range no step can cover in doubles (near DBL_MAX) gets ticks at its
 * ends (and 0) only.
 */
struct svg_ticks {
	double	v[SVG_MAXTICKS];
	int	n;
	int	decimals;	/* %.*f, when sig is 0 */
	int	sig;		/* %.*g significant digits, or 0 */
	int	percent;	/* labels show 100 v and a % sign */
};

/* Ticks for [lo, hi] (finite, lo <= hi), about target (2-8) of them. */
void	svg_ticks(double lo, double hi, int target, int percent,
	    struct svg_ticks *t);
/* The label of value v on an axis with ticks t. */
void	svg_tick_label(const struct svg_ticks *t, double v, char *buf,
	    size_t n);
/* v mapped linearly from [d0, d1] (d0 < d1) onto [r0, r1]. */
double	svg_scale(double v, double d0, double d1, double r0, double r1);

enum svg_kind {
	SVG_LINE,	/* x: steps 0 .. n - 1 */
	SVG_HIST,	/* x: bins [lo + j width, lo + (j + 1) width) */
	SVG_BARS	/* x: n categories, a bar per series in each */
};

struct svg_series {
	const char	*name;	/* in the legend (text); NULL: no legend */
	const double	*v;	/* n values */
};

struct svg_chart {
	enum svg_kind		 kind;
	const char		*id;	/* the figure's id: [a-z0-9-] */
	const char		*title, *caption;	/* caption: NULL: none */
	const char		*xlabel, *ylabel;
	size_t			 n;	/* steps, bins or categories */
	const char *const	*cat;	/* LINE, BARS: n labels; NULL: 1 .. n */
	double			 lo, width;	/* HIST */
	const struct svg_series	*s;
	size_t			 ns;	/* 1 .. SVG_MAXSERIES */
	int			 percent;	/* values are shares */
	int			 zero;	/* the y axis reaches 0 (HIST, BARS
					   always do) */
};

/*
 * What tells a chart from the others of its kind on a page, for the
 * pages' tables of charts.
 */
struct svg_words {
	const char		*id, *title, *caption, *ylabel;
	int			 percent;
};

struct bins;

/* c's id, title, caption, y label and percent set from w. */
void	svg_words(struct svg_chart *c, const struct svg_words *w);
/* How many marks svg_chart() draws for c. */
size_t	svg_marks(const struct svg_chart *c);
/* Writes c as a <figure>; returns 0, or -1 when a write failed. */
int	svg_chart(FILE *f, const struct svg_chart *c);
/*
 * A histogram of n (1 .. 4) struct bins drawn on common bins (at most
 * BINS_VIEW), series i named name[i]; c gives the rest (its kind, n, lo,
 * width, s and ns are set here).
 */
int	svg_bins(FILE *f, const struct svg_chart *c, const struct bins *const *b,
	    const char *const *name, size_t n);
/*
 * The records' trained tokens T by the sign of their advantage, series
 * "A > 0" and "A < 0" on common bins (Balanced Aggregation §4.3.3), as
 * both pages draw them: svg_bins() with c's id, title and caption.
 */
int	svg_lengths(FILE *f, const struct svg_chart *c,
	    const struct bins *pos, const struct bins *neg);

#endif
