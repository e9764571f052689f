/*
 * strata.c - the order and labels of stratum keys, the cells of a group
 * and running moments, for rladv stats and rladv diff.
 * No function here can fail on its input, so none returns an error or
 * calls exit(); running out of memory ends the process in diag's
 * allocators, as it does everywhere in rladv.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "buf.h"
#include "diag.h"
#include "record.h"
#include "strata.h"

/* ---- Order and labels ---------------------------------------------- */

/*
 * Ranks the type tags of canonical keys: numbers, the capped tail,
 * booleans, strings.
 */
static int
tag_rank(char t)
{
	switch (t) {
	case 'n':
		return 0;
	case 'c':
		return 1;
	case 'b':
		return 2;
	default:
		return 3;
	}
}

/*
 * Compares two parts of keys, tag first.  Numbers compare by value, so
 * that 10 follows 9; keys hold their literal text, so a part too long
 * for the buffer (or equal in value, as 1 and 1.0) falls back to bytes.
 */
static int
cmp_part(const char *a, size_t al, const char *b, size_t bl)
{
	char buf[64];
	double x, y;
	int ra, rb, c;

	ra = tag_rank(a[0]);
	rb = tag_rank(b[0]);
	if (ra != rb)
		return ra - rb;
	if (a[0] == 'n' && al < sizeof(buf) && bl < sizeof(buf)) {
		memcpy(buf, a + 1, al - 1);
		buf[al - 1] = '\0';
		x = strtod(buf, NULL);
		memcpy(buf, b + 1, bl - 1);
		buf[bl - 1] = '\0';
		y = strtod(buf, NULL);
		if (x != y)
			return x < y ? -1 : 1;
	}
	c = memcmp(a, b, al < bl ? al : bl);
	if (c != 0)
		return c;
	return al < bl ? -1 : al > bl;
}

/* qsort() takes no context argument, and qsort_r() differs between
 * glibc and the BSDs: the table being sorted waits here. */
static const struct keymap *sort_tab;

/*
 * Keys part by part (composite keys join parts with 0x1f); an empty part
 * first, the empty key, the records without one, last.
 */
static int
cmp_stratum(const void *pa, const void *pb)
{
	size_t i = *(const size_t *)pa, j = *(const size_t *)pb, al, bl;
	const char *a = keymap_key(sort_tab, i, &al);
	const char *b = keymap_key(sort_tab, j, &bl);
	const char *ae = a + al, *be = b + bl, *ap, *bp;
	int c;

	if (a == ae || b == be)
		return (a == ae) - (b == be);
	for (;;) {
		for (ap = a; ap < ae && *ap != '\x1f'; ap++)
			;
		for (bp = b; bp < be && *bp != '\x1f'; bp++)
			;
		if (ap == a || bp == b)
			c = (ap != a) - (bp != b);
		else
			c = cmp_part(a, ap - a, b, bp - b);
		if (c != 0)
			return c;
		if (ap == ae || bp == be)
			return (ap != ae) - (bp != be);
		a = ap + 1;
		b = bp + 1;
	}
}

size_t *
strata_sorted(const struct keymap *t)
{
	size_t *ix = diag_malloc((t->n + 1) * sizeof(*ix)), i;

	for (i = 0; i < t->n; i++)
		ix[i] = i;
	sort_tab = t;
	qsort(ix, t->n, sizeof(*ix), cmp_stratum);
	sort_tab = NULL;
	return ix;
}

char *
strata_label(const char *key, size_t len)
{
	struct buf lab = { 0 };

	/* The empty key is the records that have no stratum field. */
	if (len == 0)
		return diag_strdup("(none)");
	record_key_label(key, len, &lab);
	buf_add(&lab, "", 1);
	return lab.p;
}

char *
strata_label_of(const struct keymap *t, size_t k)
{
	size_t len;
	const char *key = keymap_key(t, k, &len);

	return strata_label(key, len);
}

/* ---- Cells of a group ---------------------------------------------- */

static void
cells_grow(struct strata_cells *c, size_t n)
{
	if (n <= c->cap)
		return;
	c->cap = n + n / 2;
	c->cnt = diag_realloc(c->cnt, c->cap * sizeof(*c->cnt));
	c->loc = diag_realloc(c->loc, c->cap * sizeof(*c->loc));
	c->first = diag_realloc(c->first, c->cap * sizeof(*c->first));
	c->eq = diag_realloc(c->eq, c->cap * sizeof(*c->eq));
	c->sum[0] = diag_realloc(c->sum[0], c->cap * sizeof(*c->sum[0]));
	c->sum[1] = diag_realloc(c->sum[1], c->cap * sizeof(*c->sum[1]));
}

void
strata_cells_fill(struct strata_cells *c, struct keymap *t,
    const struct gbatch *b, const struct batch *v, size_t g)
{
	size_t o = v->goff[g], n = v->goff[g + 1] - o, ns = v->nstrat[g];
	const char *key;
	size_t j, k, len;
	uint32_t s;

	cells_grow(c, ns);
	for (j = 0; j < ns; j++) {
		c->cnt[j] = 0;
		c->eq[j] = 1;
		c->sum[0][j] = c->sum[1][j] = 0;
	}
	for (k = o; k < o + n; k++) {
		s = v->strat[k];
		if (c->cnt[s] == 0) {
			c->first[s] = v->r[k];
			/*
			 * Strata are numbered per group; across groups and
			 * batches they meet by their canonical key.  Records
			 * without the key share the empty one, "(none)".
			 */
			key = batch_skey(b, k, &len);
			c->loc[s] = keymap_get(t, key, len, NULL);
		} else if (v->r[k] != c->first[s])
			c->eq[s] = 0;
		c->cnt[s]++;
	}
}

void
strata_cells_free(struct strata_cells *c)
{
	free(c->cnt);
	free(c->loc);
	free(c->first);
	free(c->eq);
	free(c->sum[0]);
	free(c->sum[1]);
	memset(c, 0, sizeof(*c));
}

/* ---- Moments ------------------------------------------------------- */

void
strata_mom_add(struct strata_mom *m, double x)
{
	double d;

	m->n++;
	m->sum += x;
	d = x - m->mean;
	m->mean += d / m->n;
	m->m2 += d * (x - m->mean);
}

/* Chan, Golub and LeVeque's pairwise update. */
void
strata_mom_merge(struct strata_mom *m, const struct strata_mom *o)
{
	double n, d;

	if (o->n == 0)
		return;
	if (m->n == 0) {
		*m = *o;
		return;
	}
	n = m->n + o->n;
	d = o->mean - m->mean;
	m->mean += d * o->n / n;
	m->m2 += o->m2 + d * d * m->n * o->n / n;
	m->n = n;
	m->sum += o->sum;
}

double
strata_mom_mean(const struct strata_mom *m)
{
	return m->n > 0 ? m->sum / m->n : 0;
}

double
strata_mom_var(const struct strata_mom *m)
{
	return m->n > 0 ? m->m2 / m->n : 0;
}

double
strata_mom_std(const struct strata_mom *m)
{
	/* m2 is 0 for equal values: a deviation of exactly 0. */
	return m->n > 0 && m->m2 > 0 ? sqrt(m->m2 / m->n) : 0;
}
