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
#include "slab.h"
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

void
strata_field_name(char *buf, size_t size, const char *const *names, int n,
    int composite, unsigned used)
{
	int i, said = 0;

	buf[0] = '\0';
	if (n == 0)
		snprintf(buf, size, "no --stratum-key");
	for (i = 0; i < n; i++)
		if (composite || (used >> i & 1)) {
			strncat(buf, said++ ? composite ? "," : "/" : "",
			    size - strlen(buf) - 1);
			strncat(buf, names[i], size - strlen(buf) - 1);
		}
	for (i = 0; !said && i < n; i++) {
		strncat(buf, i ? ", " : "none of ", size - strlen(buf) - 1);
		strncat(buf, names[i], size - strlen(buf) - 1);
	}
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

/* Room for n cells; what the old ones held is not kept (each fill sets
 * every cell it uses). */
static void
cells_grow(struct strata_cells *c, size_t n)
{
	struct slab s = SLAB_INIT;

	if (n <= c->cap)
		return;
	free(c->mem);
	c->cap = n + n / 2;
	while (slab_pass(&s)) {
		c->cnt = slab_take(&s, c->cap, sizeof(*c->cnt));
		c->loc = slab_take(&s, c->cap, sizeof(*c->loc));
		c->first = slab_take(&s, c->cap, sizeof(*c->first));
		c->eq = slab_take(&s, c->cap, sizeof(*c->eq));
		c->sum[0] = slab_take(&s, c->cap, sizeof(*c->sum[0]));
		c->sum[1] = slab_take(&s, c->cap, sizeof(*c->sum[1]));
	}
	if ((c->mem = s.mem) == NULL)
		diag_oom();
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
strata_cells_scored(struct strata_cells *c, const struct batch *v, size_t g)
{
	size_t j, k;
	uint32_t s;

	for (j = 0; j < v->nstrat[g]; j++) {
		c->cnt[j] = 0;
		c->eq[j] = 1;
		c->first[j] = c->sum[0][j] = c->sum[1][j] = 0;
	}
	for (k = v->goff[g]; k < v->goff[g + 1]; k++) {
		if (v->unscored != NULL && v->unscored[k])
			continue;
		s = v->strat[k];
		if (c->cnt[s]++ == 0)
			c->first[s] = v->r[k];
		else if (v->r[k] != c->first[s])
			c->eq[s] = 0;
	}
}

void
strata_cells_free(struct strata_cells *c)
{
	free(c->mem);
	memset(c, 0, sizeof(*c));
}

/* ---- Moments ------------------------------------------------------- */

#define MOM_TAME	0x1p400	/* values past it are kept scaled */

/* Divides m's values by 2^k (k > 0). */
static void
mom_scale(struct strata_mom *m, int k)
{
	m->mean = ldexp(m->mean, -k);
	m->sum = ldexp(m->sum, -k);
	m->m2 = ldexp(m->m2, -2 * k);
	m->e += k;
}

/* The scale a series starts on: values below 2^-400 (near 1e-320, whose
 * squares underflow) are brought near 1, as are those past 2^400. */
static int
first_exp(double x)
{
	int k = 0;

	if (x != 0 && (fabs(x) < 1 / MOM_TAME || fabs(x) > MOM_TAME))
		(void)frexp(x, &k);
	return k;
}

void
strata_mom_add(struct strata_mom *m, double x)
{
	double d;
	int k;

	if (m->n == 0 || (m->m2 == 0 && m->mean == 0 && m->sum == 0))
		m->e = first_exp(x);
	if (m->e != 0)
		x = ldexp(x, -m->e);
	if (fabs(x) > MOM_TAME) {
		(void)frexp(x, &k);
		mom_scale(m, k);
		x = ldexp(x, -k);
	}
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
	struct strata_mom t = *o;
	double n, d;

	if (o->n == 0)
		return;
	if (m->n == 0) {
		*m = *o;
		return;
	}
	/* On the larger scale of the two. */
	if (t.e > m->e)
		mom_scale(m, t.e - m->e);
	else if (m->e > t.e)
		mom_scale(&t, m->e - t.e);
	n = m->n + t.n;
	d = t.mean - m->mean;
	m->mean += d * t.n / n;
	m->m2 += t.m2 + d * d * m->n * t.n / n;
	m->n = n;
	m->sum += t.sum;
}

double
strata_mom_mean(const struct strata_mom *m)
{
	return m->n > 0 ? ldexp(m->sum / m->n, m->e) : 0;
}

double
strata_mom_var(const struct strata_mom *m)
{
	return m->n > 0 ? ldexp(m->m2 / m->n, 2 * m->e) : 0;
}

double
strata_mom_std(const struct strata_mom *m)
{
	/* m2 is 0 for equal values: a deviation of exactly 0. */
	return m->n > 0 && m->m2 > 0 ? ldexp(sqrt(m->m2 / m->n), m->e) : 0;
}

double
strata_mom_rmean(const struct strata_mom *m)
{
	return ldexp(m->mean, m->e);
}

/* Brings x, a value of a series kept in units of 2^*e, into them,
 * scaling the series' moments (*m1 by 2^-k, *m2 by 2^-2k, *mc by 2^-k)
 * when it is past MOM_TAME there. */
static double
cov_tame(double x, int *e, double *m1, double *m2, double *mc)
{
	int k;

	if (*e != 0)
		x = ldexp(x, -*e);
	if (fabs(x) > MOM_TAME) {
		(void)frexp(x, &k);
		*m1 = ldexp(*m1, -k);
		*m2 = ldexp(*m2, -2 * k);
		*mc = ldexp(*mc, -k);
		*e += k;
		x = ldexp(x, -k);
	}
	return x;
}

void
strata_cov_add(struct strata_cov *c, double a, double b)
{
	double da, db;

	if (c->ma == 0 && c->m2a == 0)
		c->ea = first_exp(a);
	if (c->mb == 0 && c->m2b == 0)
		c->eb = first_exp(b);
	a = cov_tame(a, &c->ea, &c->ma, &c->m2a, &c->cab);
	b = cov_tame(b, &c->eb, &c->mb, &c->m2b, &c->cab);
	c->n++;
	da = a - c->ma;
	c->ma += da / c->n;
	db = b - c->mb;
	c->mb += db / c->n;
	c->cab += da * (b - c->mb);
	c->m2a += da * (a - c->ma);
	c->m2b += db * (b - c->mb);
}

double
strata_cov_corr(const struct strata_cov *c)
{
	double p = c->m2a * c->m2b;

	if (!(c->m2a > 0) || !(c->m2b > 0))
		return NAN;
	return c->cab / (isfinite(p) && p > 0 ? sqrt(p) : sqrt(c->m2a) *
	    sqrt(c->m2b));
}

/* ---- Sums past a double -------------------------------------------- */

void
xsum_add_slow(struct xsum *x, double v, int e)
{
	int k;

	if (v == 0)
		return;
	if (x->s == 0) {
		x->s = v;
		x->e = e;
	} else if (e > x->e) {
		x->s = ldexp(x->s, x->e - e) + v;
		x->e = e;
	} else
		x->s += ldexp(v, e - x->e);
	if (fabs(x->s) > 0x1p512) {
		(void)frexp(x->s, &k);
		x->s = ldexp(x->s, -k);
		x->e += k;
	}
}

void
xsum_merge(struct xsum *x, const struct xsum *o)
{
	xsum_add(x, o->s, o->e);
}

double
xsum_value(const struct xsum *x)
{
	return ldexp(x->s, x->e);
}

double
xsum_over(const struct xsum *x, double n)
{
	return n > 0 ? ldexp(x->s / n, x->e) : NAN;
}

double
xsum_ratio(const struct xsum *a, const struct xsum *b)
{
	return b->s != 0 ? ldexp(a->s / b->s, a->e - b->e) : NAN;
}

double
xsum_rms(const struct xsum *x, double n)
{
	int h = x->e >> 1;	/* floor(e / 2) */

	if (!(n > 0))
		return NAN;
	return ldexp(sqrt(ldexp(x->s / n, x->e - 2 * h)), h);
}
