/*
 * stats_html.c - the page of rladv stats --html: the figures of the text
 * report as RL engineers plot them.  Per step (batch): the mean reward,
 * the share of groups whose rewards are all equal (TRL's
 * frac_reward_zero_std), the lengths of positive and negative responses
 * and the between-stratum share of the reward variance; per stratum:
 * records and mean reward; over the whole input: the lengths of positive
 * and negative responses (Balanced Aggregation §4.3.3) and group sizes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "html.h"
#include "options.h"
#include "stats_html.h"
#include "svg.h"

/* A share as the text report prints it ("-": undefined), and a note. */
static void
share_note(char *buf, size_t n, double v, const char *note)
{
	if (isnan(v))
		snprintf(buf, n, "- %s", note);
	else
		snprintf(buf, n, "%.1f%% %s", 100 * v, note);
}

static void
summary(FILE *f, const void *page)
{
	const struct stats_page *p = page;
	const struct stats_row *t = &p->total;
	char v[7][160];
	const char *name[7] = { "records", "groups", "batches",
	    "zero reward variance", "positive advantage",
	    "negative advantage", "between-stratum share" };
	const char *value[7];
	size_t i;

	snprintf(v[0], sizeof(v[0]), "%.0f (%llu rejected)", t->records,
	    p->rejected);
	snprintf(v[1], sizeof(v[1]), "%.0f", t->groups);
	if (p->c->fields.batch)
		snprintf(v[2], sizeof(v[2]), "%zu (--batch-key %s)", p->nrow,
		    p->c->fields.batch);
	else if (p->c->go.batch_groups)
		snprintf(v[2], sizeof(v[2]), "%zu (--batch-groups %zu)",
		    p->nrow, p->c->go.batch_groups);
	else
		snprintf(v[2], sizeof(v[2]), "%zu", p->nrow);
	share_note(v[3], sizeof(v[3]), t->zero_std,
	    "of groups  [TRL frac_reward_zero_std]");
	snprintf(v[4], sizeof(v[4]), isnan(t->len_pos) ? "no record" :
	    "mean length %.1f tokens", t->len_pos);
	snprintf(v[5], sizeof(v[5]), isnan(t->len_neg) ? "no record" :
	    "mean length %.1f tokens", t->len_neg);
	share_note(v[6], sizeof(v[6]), t->between,
	    "[Stratified GRPO, Theorem 1]");
	for (i = 0; i < 7; i++)
		value[i] = v[i];
	html_table(f, name, value, 7);
	html_para(f, "note", p->reading);
}

/* The per-step charts: a row's figures, one value per batch. */
enum { COL_REWARD, COL_ZERO, COL_POS, COL_NEG, COL_BETWEEN, NCOL };

static const struct step_chart {
	struct svg_words w;
	int		 col[2];	/* the series' columns; -1: none */
	const char	*name[2];
} step_charts[] = {
	{ { "reward", "Mean reward", NULL, "mean reward", 0 },
	    { COL_REWARD, -1 }, { NULL, NULL } },
	{ { "zero-std", "Groups whose rewards are all equal",
	    "TRL's frac_reward_zero_std: such a group's advantages are 0, "
	    "it gives no gradient.", "share of groups", 1 },
	    { COL_ZERO, -1 }, { NULL, NULL } },
	{ { "length-step", "Mean length of positive and negative responses",
	    "Trained tokens T; the sign is that of the estimator's "
	    "advantage (-a).", "tokens", 0 },
	    { COL_POS, COL_NEG }, { "A > 0", "A < 0" } },
	{ { "between", "Between-stratum share of the reward variance",
	    "Inside groups, pooled (Stratified GRPO, Theorem 1).",
	    "share of the variance", 1 }, { COL_BETWEEN, -1 }, { NULL, NULL } },
};

/*
 * Balanced Aggregation's Fig. 2 on the log: the on-policy loss -sum c A T
 * of every aggregation, one point per batch, a line per mode.
 */
static void
loss_chart(FILE *f, const struct stats_page *p)
{
	struct svg_series s[SVG_MAXSERIES];
	struct svg_chart c;
	size_t i, k, n = p->nrow ? p->nrow : 1, ns = 0;
	const char **cat = diag_calloc(n, sizeof(*cat));
	double *v = diag_calloc(STATS_NLOSS * n, sizeof(*v));

	for (i = 0; i < p->nrow; i++)
		cat[i] = p->row[i].label;
	/* No mode (never so in a run): the chart says it has no data. */
	s[0].name = NULL;
	s[0].v = v;
	for (i = 0; i < n; i++)
		v[i] = NAN;
	for (k = 0; k < STATS_NLOSS && ns < SVG_MAXSERIES; k++) {
		if (p->loss_name[k] == NULL)
			continue;
		for (i = 0; i < p->nrow; i++)
			v[k * n + i] = p->row[i].loss[k];
		s[ns].name = p->loss_name[k];
		s[ns++].v = v + k * n;
	}
	memset(&c, 0, sizeof(c));
	c.kind = SVG_LINE;
	c.id = "on-policy-loss";
	c.title = "On-policy loss of each aggregation";
	c.caption = "-sum c_i A_i T_i per batch, the loss at the ratio 1: "
	    "token-mean drifts from 0 when positive and negative responses "
	    "differ in length (Balanced Aggregation, Fig. 2).";
	c.xlabel = p->c->fields.batch ? p->c->fields.batch : "batch";
	c.ylabel = "loss";
	c.n = p->nrow;
	c.cat = cat;
	c.s = s;
	c.ns = ns > 0 ? ns : 1;
	c.zero = 1;
	svg_chart(f, &c);
	free(cat);
	free(v);
}

/* A chart of one bar per stratum, series s, the strata named cat. */
static void
strata_bars(struct svg_chart *c, const struct stats_page *p,
    const char **cat, struct svg_series *s)
{
	memset(c, 0, sizeof(*c));
	c->kind = SVG_BARS;
	c->n = p->nstratum;
	c->cat = cat;
	c->xlabel = "stratum";
	c->s = s;
	c->ns = 1;
}

/* Stratified GRPO's figures per stratum, as bars. */
static void
stratified_charts(FILE *f, const struct stats_page *p)
{
	static const struct svg_words ch[4] = {
		{ "strata-alpha", "alpha_k, GN's scale of SAN",
		    "(s_k + eps) / (s + eps), the mean over the stratum's "
		    "(group, stratum) cells: GN = alpha_k SAN + offset_k "
		    "(Stratified GRPO, Proposition 3).", "alpha_k", 0 },
		{ "strata-offset", "Cross-stratum offset",
		    "(mean_k - mean) / (s + eps), the mean over the cells "
		    "(Proposition 3): what GN adds to every record of the "
		    "stratum.", "offset", 0 },
		{ "strata-weight", "Share of the gradient weight",
		    "p_k / (s_k + eps) summed over the cells with a reward "
		    "spread (Stratified GRPO, Theorem 3).", "share", 1 },
		{ "strata-forced", "Records whose SAN is 0",
		    "In a cell of one record, or of equal rewards.",
		    "share of the stratum", 1 },
	};
	const char **cat = diag_calloc(p->nstratum + 1, sizeof(*cat));
	double *v = diag_calloc(4 * (p->nstratum + 1), sizeof(*v));
	struct svg_series s;
	struct svg_chart c;
	size_t i, k, n = p->nstratum + 1;

	for (i = 0; i < p->nstratum; i++) {
		cat[i] = p->stratum[i].label;
		v[i] = p->stratum[i].alpha;
		v[n + i] = p->stratum[i].offset;
		v[2 * n + i] = p->stratum[i].weight_share;
		v[3 * n + i] = p->stratum[i].forced;
	}
	strata_bars(&c, p, cat, &s);
	s.name = NULL;
	for (k = 0; k < 4; k++) {
		svg_words(&c, &ch[k]);
		s.v = v + k * n;
		svg_chart(f, &c);
	}
	free(cat);
	free(v);
}

static void
per_step(FILE *f, const void *page)
{
	const struct stats_page *p = page;
	const struct step_chart *sc;
	struct svg_chart c;
	struct svg_series s[2];
	size_t i, k, n = p->nrow ? p->nrow : 1;
	const char **cat = diag_calloc(n, sizeof(*cat));
	double *v = diag_calloc(NCOL * n, sizeof(*v));

	for (i = 0; i < p->nrow; i++) {
		cat[i] = p->row[i].label;
		v[COL_REWARD * n + i] = p->row[i].reward;
		v[COL_ZERO * n + i] = p->row[i].zero_std;
		v[COL_POS * n + i] = p->row[i].len_pos;
		v[COL_NEG * n + i] = p->row[i].len_neg;
		v[COL_BETWEEN * n + i] = p->row[i].between;
	}
	html_section(f, "Per step", p->nrow > 1 ? "One point per batch." :
	    "One batch: one point per chart.  Batches are cut by --batch-key "
	    "(the step field of your trainer's dumps) or --batch-groups.");
	memset(&c, 0, sizeof(c));
	c.kind = SVG_LINE;
	c.n = p->nrow;
	c.cat = cat;
	c.xlabel = p->c->fields.batch ? p->c->fields.batch : "batch";
	c.s = s;
	for (k = 0; k < sizeof(step_charts) / sizeof(step_charts[0]); k++) {
		sc = &step_charts[k];
		svg_words(&c, &sc->w);
		c.zero = c.percent;
		for (c.ns = 0; c.ns < 2 && sc->col[c.ns] >= 0; c.ns++) {
			s[c.ns].name = sc->name[c.ns];
			s[c.ns].v = v + (size_t)sc->col[c.ns] * n;
		}
		svg_chart(f, &c);
	}
	loss_chart(f, p);
	html_section_end(f);
	free(cat);
	free(v);
}

static void
strata_and_lengths(FILE *f, const void *page)
{
	const struct stats_page *p = page;
	const char **cat = diag_calloc(p->nstratum + 1, sizeof(*cat));
	double *rec = diag_calloc(p->nstratum + 1, sizeof(*rec));
	double *rew = diag_calloc(p->nstratum + 1, sizeof(*rew));
	char (*size)[24] = diag_calloc(p->nsize + 1, sizeof(*size));
	const char **slab = diag_calloc(p->nsize + 1, sizeof(*slab));
	struct svg_series s = { NULL, rec };
	struct svg_chart c;
	char title[360];
	size_t i;

	for (i = 0; i < p->nstratum; i++) {
		cat[i] = p->stratum[i].label;
		rec[i] = p->stratum[i].records;
		rew[i] = p->stratum[i].reward_mean;
	}
	for (i = 0; i < p->nsize; i++) {
		snprintf(size[i], sizeof(size[i]), "%zu", p->size[i]);
		slab[i] = size[i];
	}
	snprintf(title, sizeof(title), "Strata (%s)", p->skey);
	html_section(f, title, NULL);
	strata_bars(&c, p, cat, &s);
	c.id = "strata-records";
	c.title = "Records per stratum";
	c.ylabel = "records";
	svg_chart(f, &c);
	c.id = "strata-reward";
	c.title = "Mean reward per stratum";
	c.ylabel = "mean reward";
	s.v = rew;
	svg_chart(f, &c);
	stratified_charts(f, p);
	html_section_end(f);

	html_section(f, "Response lengths", "The sign is the estimator's "
	    "(-a; GRPO's by default).  Balanced Aggregation §4.3.3: when "
	    "positive and negative responses differ in length, token-mean "
	    "weighs the longer side's tokens more; seq-mean weighs every "
	    "response alike.");
	c.id = "length-sign";
	c.title = "Length of positive and negative responses";
	c.caption = p->reading;
	svg_lengths(f, &c, p->len_pos, p->len_neg);
	c.kind = SVG_BARS;
	c.id = "group-sizes";
	c.title = "Group sizes";
	c.caption = NULL;
	c.xlabel = "records in the group";
	c.ylabel = "groups";
	c.n = p->nsize;
	c.cat = slab;
	s.v = p->size_groups;
	c.ns = 1;
	c.s = &s;
	svg_chart(f, &c);
	html_section_end(f);
	free(cat);
	free(rec);
	free(rew);
	free(size);
	free(slab);
}

int
stats_html_write(FILE *f, const char *path, const struct stats_page *p,
    struct diag *d)
{
	static html_part *const part[] = { summary, per_step,
	    strata_and_lengths, NULL };

	return html_page(f, path, "stats", p->c->files, p->c->nfiles, part,
	    p, d);
}
