/*
 * bview.h - views of a batch that some variants compute on instead of
 * the batch itself: without its groups of equal rewards (--drop-zero-std,
 * DAPO's dynamic sampling), without its records of null reward
 * (--null-reward unscored, TRL's None), and with each group's stratum
 * labels shuffled (--random-strata, the control of Stratified GRPO's
 * Table 7).  A struct bview owns the arrays of its view until
 * bview_free(); the source batch's arrays stay the caller's and must
 * outlive the view.
 */
#ifndef RLADV_BVIEW_H
#define RLADV_BVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"

struct bview {
	struct batch	 v;
	size_t		*from;	/* v's record k is the source's from[k] */
	/* What v points into. */
	size_t		*vk;
	double		*r, *T, *base, *rk;
	size_t		*goff;
	uint32_t	*strat, *nstrat, *roll;
	uint64_t	*ghash, *tie;
	const char	**gname, **gfile;
	size_t		*gidx;
	unsigned long long *gline;
	void		*mem;	/* one block holds them all (slab.h) */
};

/*
 * w->v: the groups of b whose rewards are not all equal (compared
 * exactly; those of unscored records are passed over, and a group of
 * none is dropped, its unscored records with it), in order, with from[]
 * mapping its records back.  0, or -1 when out of memory (w then owns
 * nothing).
 */
int	bview_unequal(struct bview *w, const struct batch *b);
/* Whether group g of b is one that bview_unequal() drops. */
int	bview_equal(const struct batch *b, size_t g);
/* w->v: the groups g of b with keep[g] set, in order (as above). */
int	bview_groups(struct bview *w, const struct batch *b, const char *keep);
/* w->v: the records of b that are not unscored (b->unscored set), groups
 * left empty dropped (as above). */
int	bview_scored(struct bview *w, const struct batch *b);
/*
 * w->v: b with each group's stratum labels permuted uniformly at random,
 * so that every stratum keeps its size; the stream is seeded by seed and
 * the group's hash (batch.h's ghash).  0, or -1 out of memory.
 */
int	bview_shuffle(struct bview *w, const struct batch *b, uint64_t seed);
void	bview_free(struct bview *w);

#endif
