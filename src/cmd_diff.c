/*
 * cmd_diff.c - rladv diff, two ways:
 *
 * rladv diff --a OPTS --b OPTS [FILE...]: the same records under two
 * compute configurations.  Per stratum, the mean and variance of each
 * advantage (Stratified GRPO Theorems 4-5: SAN is zero-mean and
 * unit-variance inside a stratum, GN is not), the cross-stratum offset,
 * the share of gradient mass sum |A_i| c_i T_i each stratum gets; sign
 * flips, the largest differences with their lines, the correlation.
 *
 * rladv diff --outputs A B, two output files compared record by record,
 * is diff_outputs.c's.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bins.h"
#include "cmd.h"
#include "compute.h"
#include "diff_html.h"
#include "diff_outputs.h"
#include "html.h"
#include "pipeline.h"
#include "report.h"
#include "strata.h"

/* ---- rladv diff --a --b ------------------------------------------- */

struct side {
	struct prefs		 c;
	struct optstore		 own;	/* its option string's words */
	struct adv_params	 ap;
	const char		*opts;
	double			*adv, *w;
	struct strata_mom	 all;
	/* The sums below are of advantages that may be near 1e308 (an
	 * estimator that scales with the rewards): each group's are taken
	 * on its advantages divided by 2^ka (advmath_tame()) and kept
	 * as struct xsum. */
	struct xsum		 mass;	/* sum |A| c T, all records */
	/* The on-policy loss -sum c A T of its batches (Balanced
	 * Aggregation Fig. 2): the batch at hand's, the sum of the others',
	 * and how many. */
	struct xsum		 loss, loss_sum;
	double			 nloss;
	/* Cell means of groups with two strata or more. */
	struct xsum		 off_ss;
	double			 off_n;
	/* --html: the advantages, T of records with A > 0 and A < 0. */
	struct bins		 hadv, len_pos, len_neg;
};

/* One stratum key across groups and batches. */
struct dstr {
	struct strata_mom	 a[2];
	/* Around the mean of each (group, stratum) cell, over the records
	 * of cells with a spread (cell_n). */
	struct xsum		 cell_ss[2];
	double			 cell_n;
	struct xsum		 mass[2];
	struct bins		 adv[2];	/* --html */
};

struct top {
	double			 diff, a, b;
	char			*file, *group, *stratum;
	unsigned long long	 line;
};

struct dctx {
	struct side		 s[2];
	struct keymap		 keys;	/* values: struct dstr */
	unsigned long long	 records, groups, flips;
	unsigned long long	 unscored;	/* records left out */
	/* For the correlation of the two vectors. */
	struct strata_cov	 cov;
	struct top		*top;
	size_t			 ntop, maxtop;
	size_t			 cap;
	int			 html;	/* --html: fill the bins */
	unsigned		 strat_used;	/* stratum aliases found */
	const struct prefs	*outer;	/* the command's options */
	/* Of the group at hand; sum[s]: side s's advantages. */
	struct strata_cells	 cells;
};

/* The figures of stratum k, kept by the table beside its key. */
static struct dstr *
dstr_of(const struct dctx *x, size_t k)
{
	return keymap_val(&x->keys, k);
}

static void
grow(struct dctx *x, size_t n)
{
	int s;

	if (n <= x->cap)
		return;
	x->cap = n + n / 2;
	for (s = 0; s < 2; s++) {
		x->s[s].adv = diag_realloc(x->s[s].adv, x->cap *
		    sizeof(*x->s[s].adv));
		x->s[s].w = diag_realloc(x->s[s].w, x->cap *
		    sizeof(*x->s[s].w));
	}
}

/* Keeps the --top largest |B - A|, earlier lines first among equals. */
static void
top_add(struct dctx *x, double a, double b, const struct gbatch *gb,
    size_t k, const struct batch *v, size_t g)
{
	double diff = fabs(b - a);
	const char *skey, *file;
	struct buf lab = { 0 };
	unsigned long long line;
	size_t i, slen;

	if (x->maxtop == 0 || !(diff > 0))
		return;
	if (x->ntop == x->maxtop && !(diff > x->top[x->ntop - 1].diff))
		return;
	if (x->ntop == x->maxtop) {
		x->ntop--;
		free(x->top[x->ntop].file);
		free(x->top[x->ntop].group);
		free(x->top[x->ntop].stratum);
	}
	for (i = x->ntop; i > 0 && x->top[i - 1].diff < diff; i--)
		x->top[i] = x->top[i - 1];
	x->top[i].diff = diff;
	x->top[i].a = a;
	x->top[i].b = b;
	file = batch_where(gb, k, &line);
	skey = batch_skey(gb, k, &slen);
	x->top[i].file = diag_strdup(file);
	x->top[i].line = line;
	x->top[i].group = diag_strdup(batch_view_label(v, g, &lab));
	buf_free(&lab);
	x->top[i].stratum = strata_label(skey, slen);
	x->ntop++;
}

/* --html: advantage A of side s, of a record of T tokens in stratum ds. */
static void
html_add(struct side *sd, struct dstr *ds, int s, double A, double T)
{
	bins_add(&ds->adv[s], A);
	bins_add(&sd->hadv, A);
	if (A > 0)
		bins_add(&sd->len_pos, T);
	else if (A < 0)
		bins_add(&sd->len_neg, T);
}

static void	diff_group(struct dctx *, const struct gbatch *,
		    const struct batch *, size_t);

static int
on_batch(void *ctx, const struct gbatch *b, const struct batch *v,
    struct diag *d)
{
	struct dctx *x = ctx;
	size_t g, k;
	struct record tmp;
	int s, wts, a;

	grow(x, v->n);
	for (k = 0; k < v->n; k++)
		if ((a = batch_rec(b, k, &tmp)->alias[FR_STRATUM]) >= 0)
			x->strat_used |= 1u << a;
	/* Both sides' numbers before anything is counted: skip mode hands
	 * the batch over again without a group whose numbers failed. */
	for (s = 0; s < 2; s++)
		if (compute_check_lengths(&x->s[s].c, b, v, &wts, d) != 0 ||
		    compute_batch(&x->s[s].c, &x->s[s].ap, v, x->s[s].adv,
		    x->s[s].w, d) != 0)
			return d->status;
	for (s = 0; s < 2; s++)
		/* A batch handed over in parts (streaming) sums its parts. */
		if (batch_starts(b) && x->s[s].nloss++ > 0) {
			xsum_merge(&x->s[s].loss_sum, &x->s[s].loss);
			memset(&x->s[s].loss, 0, sizeof(x->s[s].loss));
		}
	x->groups += v->ngroups;
	for (g = 0; g < v->ngroups; g++)
		diff_group(x, b, v, g);
	return 0;
}

/* The exponent that brings side s's advantages of group g to where
 * their sums and squares are doubles, past 2^500 or below 2^-500 (0 for
 * ordinary ones). */
static int
group_exp(const struct dctx *x, const struct batch *v, size_t g, int s)
{
	double mx = 0;
	size_t k;

	for (k = v->goff[g]; k < v->goff[g + 1]; k++)
		mx = fmax(mx, fabs(x->s[s].adv[k]));
	return advmath_tame(mx, 0, 0);
}

/* Whether view record k is unscored (--null-reward unscored): its
 * advantage is 0 by rule, no estimator's, and stays out of the figures
 * of the advantages (stats' of the rewards leave it out too). */
#define UNSCORED(v, k)	((v)->unscored != NULL && (v)->unscored[k])

/* Group g of v into the sums: per stratum, per side, both. */
static void
diff_group(struct dctx *x, const struct gbatch *b, const struct batch *v,
    size_t g)
{
	struct strata_cells *c = &x->cells;
	struct dstr *ds;
	size_t k, o = v->goff[g], n = v->goff[g + 1] - o, ns = v->nstrat[g], j;
	size_t live;
	double A, As, m;
	int s, ka[2];

	strata_cells_fill(c, &x->keys, b, v, g);
	if (v->unscored != NULL)
		strata_cells_scored(c, v, g);
	for (s = 0; s < 2; s++)
		ka[s] = group_exp(x, v, g, s);
	for (k = o; k < o + n; k++)
		for (s = 0; s < 2 && !UNSCORED(v, k); s++)
			c->sum[s][v->strat[k]] += ka[s] ? ldexp(x->s[s].adv[k],
			    -ka[s]) : x->s[s].adv[k];
	for (k = o; k < o + n; k++) {
		uint32_t t = v->strat[k];
		double a0 = x->s[0].adv[k], a1 = x->s[1].adv[k];

		if (UNSCORED(v, k)) {
			x->unscored++;
			continue;
		}

		ds = dstr_of(x, c->loc[t]);
		for (s = 0; s < 2; s++) {
			A = x->s[s].adv[k];
			As = ka[s] ? ldexp(A, -ka[s]) : A;
			strata_mom_add(&ds->a[s], A);
			strata_mom_add(&x->s[s].all, A);
			m = fabs(As) * x->s[s].w[k] * v->T[k];
			xsum_add(&ds->mass[s], m, ka[s]);
			xsum_add(&x->s[s].mass, m, ka[s]);
			xsum_add(&x->s[s].loss, -(x->s[s].w[k] * As * v->T[k]),
			    ka[s]);
			if (x->html)
				html_add(&x->s[s], ds, s, A, v->T[k]);
			/* Theorem 4 speaks of strata with a reward
			 * spread; a cell of equal rewards has none. */
			if (!c->eq[t]) {
				As -= c->sum[s][t] / (double)c->cnt[t];
				xsum_add(&ds->cell_ss[s], As * As, 2 * ka[s]);
			}
		}
		if (!c->eq[t])
			ds->cell_n++;
		x->records++;
		if ((a0 < 0 && a1 > 0) || (a0 > 0 && a1 < 0))
			x->flips++;
		strata_cov_add(&x->cov, a0, a1);
		top_add(x, a0, a1, b, k, v, g);
	}
	/* The offset between strata of one group (Theorem 4's
	 * E[A | k] - 0): a group of one stratum (with a scored record) has
	 * none. */
	for (j = 0, live = 0; j < ns; j++)
		live += c->cnt[j] > 0;
	if (live < 2)
		return;
	for (j = 0; j < ns; j++)
		for (s = 0; s < 2 && c->cnt[j] > 0; s++) {
			m = c->sum[s][j] / (double)c->cnt[j];
			xsum_add(&x->s[s].off_ss, m * m * (double)c->cnt[j],
			    2 * ka[s]);
			x->s[s].off_n += (double)c->cnt[j];
		}
}

/* ---- Figures derived from the sums --------------------------------- */

static double
share(const struct xsum *part, const struct xsum *whole)
{
	return whole->s > 0 ? xsum_ratio(part, whole) : NAN;
}

static double
cell_var(const struct dstr *ds, int s)
{
	return xsum_over(&ds->cell_ss[s], ds->cell_n);
}

/* Undefined (NaN: "-", null) where no group has two strata, as stats'
 * per-stratum offset is: 0 would read as an estimator without offset. */
static double
offset_rms(const struct side *sd)
{
	return sd->off_n > 0 ? xsum_rms(&sd->off_ss, sd->off_n) : NAN;
}

/* The spread of the per-stratum mean advantages, max - min. */
static double
offset_range(const struct dctx *x, int s)
{
	const struct strata_mom *m;
	double lo = 0, hi = 0;
	size_t i;
	int any = 0;

	for (i = 0; i < keymap_count(&x->keys); i++) {
		m = &dstr_of(x, i)->a[s];
		if (m->n == 0)
			continue;
		if (!any || strata_mom_rmean(m) < lo)
			lo = strata_mom_rmean(m);
		if (!any || strata_mom_rmean(m) > hi)
			hi = strata_mom_rmean(m);
		any = 1;
	}
	return hi - lo;
}

/* The mean over batches of side s's on-policy loss (Inf past a
 * double). */
static double
loss_mean(const struct side *sd)
{
	struct xsum t = sd->loss_sum;

	xsum_merge(&t, &sd->loss);
	return xsum_over(&t, sd->nloss);
}

static double
correlation(const struct dctx *x)
{
	return strata_cov_corr(&x->cov);
}

static int
print_json(const void *ctx)
{
	const struct dctx *x = ctx;
	static const char *const nm[2] = { "a", "b" };
	cJSON *root = cJSON_CreateObject(), *o, *arr, *e;
	size_t *ix, i, k;
	char *str;
	int s;

	cJSON_AddNumberToObject(root, "records", (double)(x->records +
	    x->unscored));
	if (x->unscored > 0)
		cJSON_AddNumberToObject(root, "unscored",
		    (double)x->unscored);
	cJSON_AddNumberToObject(root, "groups", (double)x->groups);
	for (s = 0; s < 2; s++) {
		const struct side *sd = &x->s[s];

		o = cJSON_AddObjectToObject(root, nm[s]);
		cJSON_AddStringToObject(o, "options", sd->opts);
		cJSON_AddStringToObject(o, "advantage", sd->c.est->name);
		cJSON_AddStringToObject(o, "agg", sd->c.loss->name);
		cJSON_AddNumberToObject(o, "mean", strata_mom_rmean(&sd->all));
		cJSON_AddNumberToObject(o, "var", strata_mom_var(&sd->all));
		cJSON_AddNumberToObject(o, "offset_rms", offset_rms(sd));
		cJSON_AddNumberToObject(o, "offset_range", offset_range(x, s));
		cJSON_AddNumberToObject(o, "mass", xsum_value(&sd->mass));
		cJSON_AddNumberToObject(o, "on_policy_loss", loss_mean(sd));
	}
	arr = cJSON_AddArrayToObject(root, "strata");
	ix = strata_sorted(&x->keys);
	for (i = 0; i < keymap_count(&x->keys); i++) {
		const struct dstr *ds = dstr_of(x, ix[i]);

		k = ix[i];
		e = cJSON_CreateObject();
		str = strata_label_of(&x->keys, k);
		cJSON_AddStringToObject(e, "stratum", str);
		free(str);
		cJSON_AddNumberToObject(e, "records", ds->a[0].n);
		cJSON_AddNumberToObject(e, "cell_records", ds->cell_n);
		for (s = 0; s < 2; s++) {
			o = cJSON_AddObjectToObject(e, nm[s]);
			cJSON_AddNumberToObject(o, "mean",
			    strata_mom_rmean(&ds->a[s]));
			cJSON_AddNumberToObject(o, "var",
			    strata_mom_var(&ds->a[s]));
			cJSON_AddNumberToObject(o, "cell_var", cell_var(ds, s));
			cJSON_AddNumberToObject(o, "mass_share",
			    share(&ds->mass[s], &x->s[s].mass));
		}
		cJSON_AddItemToArray(arr, e);
	}
	free(ix);
	cJSON_AddNumberToObject(root, "sign_flips", (double)x->flips);
	cJSON_AddNumberToObject(root, "correlation", correlation(x));
	arr = cJSON_AddArrayToObject(root, "largest");
	for (i = 0; i < x->ntop; i++) {
		const struct top *t = &x->top[i];

		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "file", t->file);
		cJSON_AddNumberToObject(e, "line", (double)t->line);
		cJSON_AddStringToObject(e, "group", t->group);
		cJSON_AddStringToObject(e, "stratum", t->stratum);
		cJSON_AddNumberToObject(e, "a", t->a);
		cJSON_AddNumberToObject(e, "b", t->b);
		cJSON_AddNumberToObject(e, "diff", t->b - t->a);
		cJSON_AddItemToArray(arr, e);
	}
	return report_json_print(root);
}

static void
fmt_share(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100 * v);
}

/* The stratum field(s), as stats names them (strata_field_name()). */
static void
skey_name(const struct dctx *x, char *buf, size_t size)
{
	const struct fields *f = &x->s[0].c.fields;

	strata_field_name(buf, size, f->list[FR_STRATUM].name,
	    f->list[FR_STRATUM].n, (f->named & FN(FR_STRATUM)) &&
	    f->list[FR_STRATUM].n > 1, x->strat_used);
}

static void
print_human(const void *ctx)
{
	const struct dctx *x = ctx;
	size_t *ix, i;
	char m[2][4][32], *lab, name[300];
	double corr;
	int s;

	/* The estimator and mode each side ran: diff's own options (-a san
	 * before --a) count too, so "(defaults)" alone could mislead. */
	for (s = 0; s < 2; s++)
		printf("%c  %s  (-a %s -g %s)\n", "AB"[s], *x->s[s].opts ?
		    report_text(x->s[s].opts) : "(no options)",
		    x->s[s].c.est->name, x->s[s].c.loss->name);
	printf("%llu record%s, %llu group%s", x->records + x->unscored,
	    x->records + x->unscored == 1 ? "" : "s", x->groups,
	    x->groups == 1 ? "" : "s");
	if (x->unscored > 0)
		printf("; %llu unscored (every reward null), out of the "
		    "figures", x->unscored);
	printf("\n\n");
	skey_name(x, name, sizeof(name));
	printf("advantage per stratum (%s)   [Theorem 4: SAN has mean 0, "
	    "cellvar 1]\n", report_text(name));
	printf("%-10s %7s | %8s %7s %7s %6s | %8s %7s %7s %6s\n", "stratum",
	    "records", "A mean", "var", "cellvar", "mass", "B mean", "var",
	    "cellvar", "mass");
	ix = strata_sorted(&x->keys);
	for (i = 0; i < keymap_count(&x->keys); i++) {
		const struct dstr *ds = dstr_of(x, ix[i]);

		for (s = 0; s < 2; s++) {
			report_fmt(m[s][0], 32, "%+.4f",
			    strata_mom_rmean(&ds->a[s]));
			report_fmt(m[s][1], 32, "%.4f",
			    strata_mom_var(&ds->a[s]));
			report_fmt(m[s][2], 32, "%.4f", cell_var(ds, s));
			fmt_share(m[s][3], 32, share(&ds->mass[s],
			    &x->s[s].mass));
		}
		lab = strata_label_of(&x->keys, ix[i]);
		printf("%-10s %7.0f | %8s %7s %7s %6s | %8s %7s %7s %6s\n",
		    report_text(lab), ds->a[0].n, m[0][0], m[0][1], m[0][2], m[0][3],
		    m[1][0], m[1][1], m[1][2], m[1][3]);
		free(lab);
	}
	free(ix);
	for (s = 0; s < 2; s++) {
		report_fmt(m[s][0], 32, "%+.4f", strata_mom_rmean(&x->s[s].all));
		report_fmt(m[s][1], 32, "%.4f", strata_mom_var(&x->s[s].all));
	}
	printf("%-10s %7llu | %8s %7s %7s %6s | %8s %7s\n", "all",
	    x->records, m[0][0], m[0][1], "", "", m[1][0], m[1][1]);
	putchar('\n');
	for (s = 0; s < 2; s++) {
		report_fmt(m[s][0], 32, "%.4f", offset_rms(&x->s[s]));
		report_fmt(m[s][1], 32, "%.4f", offset_range(x, s));
	}
	printf("%-21s A: rms %s, range %s   B: rms %s, range %s\n",
	    "cross-stratum offset", m[0][0], m[0][1], m[1][0], m[1][1]);
	report_fmt(m[0][0], 32, "%+.6f", loss_mean(&x->s[0]));
	report_fmt(m[1][0], 32, "%+.6f", loss_mean(&x->s[1]));
	printf("%-21s A: %s   B: %s  (-sum c A T per batch, mean; Balanced "
	    "Aggregation Fig. 2)\n", "on-policy loss", m[0][0], m[1][0]);
	printf("%-21s %llu of %llu records (%.1f%%)\n", "sign flips",
	    x->flips, x->records, x->records ? 100.0 * (double)x->flips /
	    (double)x->records : 0);
	corr = correlation(x);
	if (isnan(corr))
		printf("%-21s undefined (an advantage vector is constant)\n",
		    "correlation");
	else {
		report_fmt(m[0][0], 32, "%.6f", corr);
		printf("%-21s %s\n", "correlation", m[0][0]);
	}
	if (x->ntop == 0)
		return;
	printf("\n%-30s %-8s %10s %10s %10s\n", "largest |B - A|", "stratum",
	    "A", "B", "B - A");
	for (i = 0; i < x->ntop; i++) {
		const struct top *t = &x->top[i];
		char where[512];

		snprintf(where, sizeof(where), "%s:%llu", t->file, t->line);
		report_fmt(m[0][0], 32, "%+.6f", t->a);
		report_fmt(m[0][1], 32, "%+.6f", t->b);
		report_fmt(m[0][2], 32, "%+.6f", t->b - t->a);
		printf("%-30s %-8s %10s %10s %10s\n", report_text(where),
		    report_text(t->stratum), m[0][0], m[0][1], m[0][2]);
	}
}

/* ---- The page (--html) --------------------------------------------- */

static int
print_page(const void *ctx, FILE *f, struct diag *d)
{
	const struct dctx *x = ctx;
	struct diff_page p;
	size_t ns = keymap_count(&x->keys), *ix, i;
	struct diff_stratum *ds = diag_calloc(ns + 1, sizeof(*ds));
	char skey[300], run[2][1100];
	int s, rc;

	memset(&p, 0, sizeof(p));
	p.c = x->outer;
	p.records = (double)(x->records + x->unscored);
	p.groups = (double)x->groups;
	p.flips = (double)x->flips;
	p.corr = correlation(x);
	p.loss[0] = loss_mean(&x->s[0]);
	p.loss[1] = loss_mean(&x->s[1]);
	ix = strata_sorted(&x->keys);
	for (s = 0; s < 2; s++) {
		snprintf(run[s], sizeof(run[s]), "%s  (-a %s -g %s)",
		    *x->s[s].opts ? x->s[s].opts : "(no options)",
		    x->s[s].c.est->name, x->s[s].c.loss->name);
		p.opts[s] = run[s];
		p.adv[s] = &x->s[s].hadv;
		p.len_pos[s] = &x->s[s].len_pos;
		p.len_neg[s] = &x->s[s].len_neg;
		for (i = 0; i < ns; i++) {
			const struct dstr *t = dstr_of(x, ix[i]);

			ds[i].records = t->a[0].n;
			ds[i].mean[s] = t->a[s].n ? strata_mom_rmean(&t->a[s]) :
			    NAN;
			ds[i].mass[s] = share(&t->mass[s], &x->s[s].mass);
			ds[i].adv[s] = &t->adv[s];
		}
	}
	for (i = 0; i < ns; i++)
		ds[i].label = strata_label_of(&x->keys, ix[i]);
	free(ix);
	p.stratum = ds;
	p.nstratum = ns;
	skey_name(x, skey, sizeof(skey));
	p.skey = skey;
	rc = diff_html_write(f, x->outer->html, &p, d);
	for (i = 0; i < ns; i++)
		free((char *)ds[i].label);
	free(ds);
	return rc;
}

/* Whether two configurations read the records the same way. */
static int
same_input(const struct prefs *p, const struct prefs *q)
{
	return fields_same(&p->fields, &q->fields) &&
	    p->go.unsorted == q->go.unsorted &&
	    p->go.group_size == q->go.group_size &&
	    p->go.batch_groups == q->go.batch_groups &&
	    p->max_line == q->max_line && p->skip == q->skip &&
	    p->rejects == q->rejects;
}

/*
 * A configuration from its option string, on top of the outer command
 * line, so that input options are given once for both.
 */
static int
side_parse(struct side *sd, const struct prefs *outer, const char *name,
    struct diag *d)
{
	struct diag e = { 0 };
	char **argv;
	int argc, rc;

	sd->c = *outer;
	sd->c.mode = OPT_SIDE;
	if (optparse_split(sd->opts, &sd->own, &argc, &argv, &e) != 0)
		return diag_set(d, EXIT_USAGE, "%s \"%s\": %s", name,
		    sd->opts, e.msg);
	rc = optparse_argv(&sd->c, &sd->own, argc, argv, &e);
	if (rc < 0)
		return diag_set(d, EXIT_USAGE, "%s: --help and --version are "
		    "not compute options; see rladv --help", name);
	if (rc != 0 || options_check(&sd->c, &e) != 0)
		return diag_set(d, EXIT_USAGE, "%s \"%s\": %s", name,
		    sd->opts, e.msg);
	if (!same_input(&sd->c, outer))
		return diag_set(d, EXIT_USAGE, "%s: input options (--*-key, "
		    "--stratum-cap, --group-size, --batch-groups, --unsorted, "
		    "--max-line, --on-error, --rejects) read the records for "
		    "both sides: put them outside, e.g. rladv diff "
		    "--stratum-key F --a \"-a grpo\" --b \"-a san\"", name);
	if (compute_device(&sd->c, &e) != 0)
		return diag_set(d, e.status, "%s: %s", name, e.msg);
	return 0;
}

static const struct report_ops ops = { print_page, print_json,
    print_human };

static int
diff_configs(struct prefs *outer, const struct dopts *o)
{
	static const char *const names[2] = { "--a", "--b" };
	struct dctx x;
	struct pipeline_stats st;
	struct diag d = { 0 };
	FILE *page = NULL;
	size_t i;
	int rc = 0, s, need_tie, stream;

	memset(&x, 0, sizeof(x));
	keymap_init(&x.keys, sizeof(struct dstr));
	x.maxtop = o->top;
	x.top = diag_calloc(o->top + 1, sizeof(*x.top));
	x.html = outer->html != NULL;
	x.outer = outer;
	for (s = 0; s < 2 && rc == 0; s++) {
		x.s[s].opts = o->opt[s] ? o->opt[s] : "";
		rc = side_parse(&x.s[s], outer, names[s], &d);
		x.s[s].ap = x.s[s].c.ap;
	}
	/* Opened before the log is read, so that a page that cannot be
	 * written fails at once. */
	if (rc == 0 && x.html && (page = html_open(outer->html, &d)) == NULL)
		rc = d.status;
	if (rc == 0) {
		/* The pipeline parses for both: the stratum key is
		 * required when either side stratifies. */
		outer->fields.need_stratum = x.s[0].c.fields.need_stratum ||
		    x.s[1].c.fields.need_stratum;
		outer->fields.need_baseline = x.s[0].c.fields.need_baseline ||
		    x.s[1].c.fields.need_baseline;
		outer->fields.need_parts = x.s[0].c.fields.need_parts ||
		    x.s[1].c.fields.need_parts;
		need_tie = x.s[0].c.est->kind == EST_MSGRPO ||
		    x.s[1].c.est->kind == EST_MSGRPO;
		stream = compute_streams(&x.s[0].c) &&
		    compute_streams(&x.s[1].c);
		rc = pipeline_run(outer, need_tie, stream, on_batch, &x, &st,
		    &d);
	}
	rc = report_write(rc, page, outer->html, outer->json, &ops, &x, &d);
	for (s = 0; s < 2; s++) {
		free(x.s[s].adv);
		free(x.s[s].w);
		optparse_free(&x.s[s].own);
	}
	for (i = 0; i < x.ntop; i++) {
		free(x.top[i].file);
		free(x.top[i].group);
		free(x.top[i].stratum);
	}
	free(x.top);
	keymap_free(&x.keys);
	strata_cells_free(&x.cells);
	return rc;
}

/* ---- Command line --------------------------------------------------- */

int
cmd_diff(struct run *r)
{
	struct prefs *c = &r->p;
	struct diag d = { 0 };

	report_json_init();
	if (c->mode == OPT_OUTPUTS)
		return diff_outputs(c, &c->diff);
	if (report_check_outputs(c->html, c->json, "diff", &d) != 0) {
		diag_print(&d);
		return d.status;
	}
	if (!c->diff.opt[0] && !c->diff.opt[1]) {
		diag_set(&d, EXIT_USAGE, "diff needs two configurations "
		    "(rladv diff --a \"-a grpo\" --b \"-a stratified\" FILE) "
		    "or two outputs (rladv diff --outputs A B)");
		diag_print(&d);
		return d.status;
	}
	return diff_configs(c, &c->diff);
}
