/*
 * bview.c - a batch without its groups of equal rewards or its unscored
 * records, or with its strata shuffled (bview.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bview.h"
#include "rng.h"
#include "slab.h"

void
bview_free(struct bview *w)
{
	free(w->mem);
	memset(w, 0, sizeof(*w));
}

/* Whether group g of b has rewards that are all equal, its unscored
 * records passed over (a group of none is). */
int
bview_equal(const struct batch *b, size_t g)
{
	size_t i, k = SIZE_MAX;

	for (i = b->goff[g]; i < b->goff[g + 1]; i++) {
		if (b->unscored != NULL && b->unscored[i])
			continue;
		if (k == SIZE_MAX)
			k = i;
		else if (b->r[i] != b->r[k])
			return 0;
	}
	return 1;
}

/*
 * Room for n records and ng groups: the arrays b has, and from[].  w->v
 * points at each as it is placed; bview_point() says how much of them
 * the view holds.
 */
static int
bview_alloc(struct bview *w, const struct batch *b, size_t n, size_t ng)
{
	struct slab s = SLAB_INIT;

	memset(w, 0, sizeof(*w));
	while (slab_pass(&s)) {
		w->from = slab_take(&s, n, sizeof(*w->from));
		w->v.vk = w->vk = slab_take(&s, n, sizeof(*w->vk));
		w->v.r = w->r = slab_take(&s, n, sizeof(*w->r));
		w->v.T = w->T = slab_take(&s, n, sizeof(*w->T));
		w->v.strat = w->strat = slab_take(&s, n, sizeof(*w->strat));
		w->v.goff = w->goff = slab_take(&s, ng + 1, sizeof(*w->goff));
		w->v.nstrat = w->nstrat = slab_take(&s, ng,
		    sizeof(*w->nstrat));
		w->v.ghash = w->ghash = slab_take(&s, ng, sizeof(*w->ghash));
		w->gname = slab_take(&s, ng, sizeof(*w->gname));
		w->gidx = slab_take(&s, ng, sizeof(*w->gidx));
		w->gfile = slab_take(&s, ng, sizeof(*w->gfile));
		w->gline = slab_take(&s, ng, sizeof(*w->gline));
		if (b->base != NULL)
			w->v.base = w->base = slab_take(&s, n,
			    sizeof(*w->base));
		if (b->tie != NULL)
			w->v.tie = w->tie = slab_take(&s, n, sizeof(*w->tie));
		if (b->rk != NULL)
			w->v.rk = w->rk = slab_take(&s, n * b->K,
			    sizeof(*w->rk));
		if (b->roll != NULL)
			w->v.roll = w->roll = slab_take(&s, n,
			    sizeof(*w->roll));
	}
	w->v.K = b->K;
	w->v.nroll = b->nroll;
	if ((w->mem = s.mem) == NULL) {
		memset(w, 0, sizeof(*w));
		return -1;
	}
	return 0;
}

/* w->v holds n records in ng groups, and b's labels where it has them. */
static void
bview_point(struct bview *w, const struct batch *b, size_t n, size_t ng)
{
	w->v.n = n;
	w->v.ngroups = ng;
	w->v.gname = b->gname != NULL ? w->gname : NULL;
	w->v.src = b->src;
	w->v.gidx = b->gidx != NULL ? w->gidx : NULL;
	w->v.gfile = b->gfile != NULL ? w->gfile : NULL;
	w->v.gline = b->gline != NULL ? w->gline : NULL;
}

/*
 * Appends group g of b to w as its group ng, records from n on, but for
 * those that skip (NULL: none) marks; returns how many it took.
 */
static size_t
bview_take(struct bview *w, const struct batch *b, size_t g, size_t ng,
    size_t n, const unsigned char *skip)
{
	size_t i, n0 = n;

	w->goff[ng] = n;
	w->nstrat[ng] = b->nstrat != NULL ? b->nstrat[g] : 1;
	w->ghash[ng] = b->ghash != NULL ? b->ghash[g] : 0;
	w->gname[ng] = b->gname != NULL ? b->gname[g] : NULL;
	w->gidx[ng] = b->gidx != NULL ? b->gidx[g] : 0;
	w->gfile[ng] = b->gfile != NULL ? b->gfile[g] : NULL;
	w->gline[ng] = b->gline != NULL ? b->gline[g] : 0;
	for (i = b->goff[g]; i < b->goff[g + 1]; i++) {
		if (skip != NULL && skip[i])
			continue;
		w->from[n] = i;
		w->vk[n] = b->vk != NULL ? b->vk[i] : b->vbase + i;
		w->r[n] = b->r[i];
		w->T[n] = b->T[i];
		w->strat[n] = b->strat != NULL ? b->strat[i] : 0;
		if (w->base != NULL)
			w->base[n] = b->base[i];
		if (w->tie != NULL)
			w->tie[n] = b->tie[i];
		if (w->rk != NULL)
			memcpy(w->rk + n * b->K, b->rk + i * b->K,
			    b->K * sizeof(*w->rk));
		if (w->roll != NULL)
			w->roll[n] = b->roll[i];
		n++;
	}
	return n - n0;
}

int
bview_groups(struct bview *w, const struct batch *b, const char *keep)
{
	size_t g, n = 0, ng = 0;

	for (g = 0; g < b->ngroups; g++)
		if (keep[g]) {
			n += b->goff[g + 1] - b->goff[g];
			ng++;
		}
	if (bview_alloc(w, b, n, ng) != 0)
		return -1;
	for (g = 0, n = 0, ng = 0; g < b->ngroups; g++)
		if (keep[g])
			n += bview_take(w, b, g, ng++, n, NULL);
	w->goff[ng] = n;
	bview_point(w, b, n, ng);
	return 0;
}

int
bview_unequal(struct bview *w, const struct batch *b)
{
	char *keep;
	size_t g;
	int rc;

	if ((keep = malloc(b->ngroups ? b->ngroups : 1)) == NULL)
		return -1;
	for (g = 0; g < b->ngroups; g++)
		keep[g] = !bview_equal(b, g);
	rc = bview_groups(w, b, keep);
	free(keep);
	return rc;
}

int
bview_scored(struct bview *w, const struct batch *b)
{
	size_t g, i, n = 0, ng, m;

	for (i = 0; i < b->n; i++)
		n += !b->unscored[i];
	/* Room for every group: one left with no record is written, then
	 * overwritten by the next (or left past the end). */
	if (bview_alloc(w, b, n, b->ngroups) != 0)
		return -1;
	for (g = 0, n = 0, ng = 0; g < b->ngroups; g++)
		if ((m = bview_take(w, b, g, ng, n, b->unscored)) > 0) {
			n += m;
			ng++;
		}
	w->goff[ng] = n;
	bview_point(w, b, n, ng);
	return 0;
}

int
bview_shuffle(struct bview *w, const struct batch *b, uint64_t seed)
{
	size_t g, i, j, o, m;
	uint64_t rng;
	uint32_t t;

	if (bview_alloc(w, b, b->n, b->ngroups) != 0)
		return -1;
	for (g = 0; g < b->ngroups; g++)
		(void)bview_take(w, b, g, g, b->goff[g], NULL);
	w->goff[b->ngroups] = b->n;
	for (g = 0; g < b->ngroups; g++) {
		/* A stream of its own: the same group shuffles alike
		 * whatever else the batch holds. */
		rng = rng_mix64(rng_mix64(seed ^ 0x7374726174610aULL) ^
		    w->ghash[g]);
		o = b->goff[g];
		m = b->goff[g + 1] - o;
		for (i = m; i > 1; i--) {
			j = (size_t)rng_below(&rng, i);
			t = w->strat[o + i - 1];
			w->strat[o + i - 1] = w->strat[o + j];
			w->strat[o + j] = t;
		}
	}
	bview_point(w, b, b->n, b->ngroups);
	return 0;
}
