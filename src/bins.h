/*
 * bins.h - a histogram in bounded memory for the pictures of rladv stats
 * and rladv diff: BINS_N counts whose width is a power of two, anchored at
 * multiples of it, so that widening (two bins become one) and merging
 * (batches into the total, A beside B) are exact and the order the values
 * came in does not matter.  The caller owns every struct; nothing here
 * allocates.  A zeroed struct bins is empty.
 */
#ifndef RLADV_BINS_H
#define RLADV_BINS_H

#include <stddef.h>

#define BINS_N		64	/* bins kept */
#define BINS_VIEW	40	/* most bins a picture shows */

struct bins {
	double		count[BINS_N];
	double		n;	/* values added */
	int		e;	/* width 2^e */
	long long	base;	/* count[i] holds [(base + i) 2^e, (base + i + 1) 2^e) */
	long long	lo, hi;	/* the first and last bins that hold values
				   (absolute indexes; when n > 0) */
};

/*
 * Bins for drawing: nbins bins of width from lo, shared by nseries
 * series; count[s][j] is series s's count in bin j.
 */
struct bins_view {
	double	lo, width;
	size_t	nbins;
	double	count[4][BINS_VIEW];
};

/* Counts x; a value that is not finite is not counted. */
void	bins_add(struct bins *b, double x);
/* Adds the counts of o to b. */
void	bins_merge(struct bins *b, const struct bins *o);
/*
 * The n <= 4 histograms on common bins, from the first bin any of them
 * uses to the last, at most maxbins (<= BINS_VIEW) of them; nbins is 0
 * when all are empty.
 */
void	bins_view(const struct bins *const *b, size_t n, size_t maxbins,
	    struct bins_view *v);

#endif
