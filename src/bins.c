/*
 * bins.c - histograms in bounded memory.  Bin i of width 2^e holds the
 * values x with floor(x / 2^e) = i, an absolute index: two histograms of
 * one width have the same bins, and doubling the width maps bin i to bin
 * floor(i / 2) exactly.  The first value sets a width of about 1/16 of
 * its magnitude; the width doubles whenever the values seen span more
 * than BINS_N bins, so at most BINS_N counts are kept whatever comes.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "bins.h"

static long long
floordiv2(long long i)
{
	return i >= 0 ? i / 2 : -((-i + 1) / 2);
}

/* Doubles the width: bins 2i and 2i + 1 become bin i. */
static void
widen(struct bins *b)
{
	double c[BINS_N] = { 0 };
	long long nb = floordiv2(b->base);
	int i;

	for (i = 0; i < BINS_N; i++)
		if (b->count[i] != 0)
			c[floordiv2(b->base + i) - nb] += b->count[i];
	memcpy(b->count, c, sizeof(c));
	b->base = nb;
	b->lo = floordiv2(b->lo);
	b->hi = floordiv2(b->hi);
	b->e++;
}

/* Moves the window so that it holds bins lo .. hi (hi - lo < BINS_N). */
static void
cover(struct bins *b, double lo, double hi)
{
	double c[BINS_N] = { 0 };
	long long nb = b->base;
	int i;

	if (lo < (double)nb)
		nb = (long long)lo;
	else if (hi >= (double)(nb + BINS_N))
		nb = (long long)hi - BINS_N + 1;
	if (nb == b->base)
		return;
	for (i = 0; i < BINS_N; i++)
		if (b->count[i] != 0)
			c[b->base + i - nb] += b->count[i];
	memcpy(b->count, c, sizeof(c));
	b->base = nb;
}

void
bins_add(struct bins *b, double x)
{
	double t, lo, hi;
	long long i;

	if (!isfinite(x))
		return;
	if (b->n == 0) {
		memset(b, 0, sizeof(*b));
		b->e = x == 0 ? -30 : ilogb(x) - 4;
		b->lo = b->hi = (long long)floor(ldexp(x, -b->e));
		b->base = b->lo - BINS_N / 2;
	}
	/* t may be huge while the width is small; it is compared as a
	 * double and made an index only once it fits. */
	for (;;) {
		t = floor(ldexp(x, -b->e));
		lo = fmin((double)b->lo, t);
		hi = fmax((double)b->hi, t);
		if (hi - lo < BINS_N)
			break;
		widen(b);
	}
	cover(b, lo, hi);
	i = (long long)t;
	b->count[i - b->base]++;
	b->lo = (long long)lo;
	b->hi = (long long)hi;
	b->n++;
}

void
bins_merge(struct bins *b, const struct bins *o)
{
	struct bins t;
	long long lo, hi;
	int i;

	if (o->n == 0)
		return;
	if (b->n == 0) {
		*b = *o;
		return;
	}
	t = *o;
	while (b->e < t.e)
		widen(b);
	while (t.e < b->e)
		widen(&t);
	for (;;) {
		lo = b->lo < t.lo ? b->lo : t.lo;
		hi = b->hi > t.hi ? b->hi : t.hi;
		if (hi - lo < BINS_N)
			break;
		widen(b);
		widen(&t);
	}
	cover(b, (double)lo, (double)hi);
	for (i = 0; i < BINS_N; i++)
		if (t.count[i] != 0)
			b->count[t.base + i - b->base] += t.count[i];
	b->lo = lo;
	b->hi = hi;
	b->n += t.n;
}

void
bins_view(const struct bins *const *b, size_t n, size_t maxbins,
    struct bins_view *v)
{
	struct bins t[4];
	long long lo = 0, hi = 0;
	size_t s, j;
	int e = 0, any = 0;

	memset(v, 0, sizeof(*v));
	if (n > 4)
		n = 4;
	if (maxbins > BINS_VIEW)
		maxbins = BINS_VIEW;
	if (maxbins < 2)
		maxbins = 2;	/* bins -1 and 0 may never become one */
	for (s = 0; s < n; s++) {
		t[s] = *b[s];
		if (t[s].n > 0 && (!any || t[s].e > e))
			e = t[s].e;
		any |= t[s].n > 0;
	}
	if (!any)
		return;
	for (s = 0; s < n; s++)
		while (t[s].n > 0 && t[s].e < e)
			widen(&t[s]);
	for (;;) {
		any = 0;
		for (s = 0; s < n; s++)
			if (t[s].n > 0) {
				lo = any && lo < t[s].lo ? lo : t[s].lo;
				hi = any && hi > t[s].hi ? hi : t[s].hi;
				any = 1;
			}
		if (hi - lo + 1 <= (long long)maxbins)
			break;
		for (s = 0; s < n; s++)
			if (t[s].n > 0)
				widen(&t[s]);
		e++;
	}
	v->width = ldexp(1, e);
	/* The bin of -DBL_MAX may start at -2^1024, past the doubles. */
	v->lo = fmax((double)lo * v->width, -DBL_MAX);
	v->nbins = (size_t)(hi - lo) + 1;
	for (s = 0; s < n; s++) {
		if (t[s].n == 0)
			continue;
		for (j = 0; j < v->nbins; j++) {
			long long i = lo + (long long)j - t[s].base;

			if (i >= 0 && i < BINS_N)
				v->count[s][j] = t[s].count[i];
		}
	}
}
