/*
 * diff_html.c - the page of rladv diff --html.  The distributions of the
 * two advantages, over all records and stratum by stratum (Stratified
 * GRPO, Theorem 4: SAN is zero-mean with unit variance inside a stratum,
 * GN is not); each stratum's share of the gradient mass sum |A_i| c_i T_i
 * and mean advantage (the cross-stratum offset); the lengths of positive
 * and negative responses under each (Balanced Aggregation §4.3.3).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "diff_html.h"
#include "html.h"
#include "report.h"
#include "options.h"
#include "svg.h"

/* Panels of advantage distributions: all records and the first strata. */
#define PANELS	12

static const char *const side[2] = { "A", "B" };

static void
summary(FILE *f, const void *page)
{
	const struct diff_page *p = page;
	const char *name[7] = { "A", "B", "records", "groups", "sign flips",
	    "correlation", "on-policy loss" };
	const char *value[7];
	char v[5][128], l[2][24];

	value[0] = *p->opts[0] ? p->opts[0] : "(defaults)";
	value[1] = *p->opts[1] ? p->opts[1] : "(defaults)";
	snprintf(v[0], sizeof(v[0]), "%.0f", p->records);
	snprintf(v[1], sizeof(v[1]), "%.0f", p->groups);
	snprintf(v[2], sizeof(v[2]), "%.0f (%.1f%% of the records)", p->flips,
	    p->records > 0 ? 100 * p->flips / p->records : 0);
	if (isnan(p->corr))
		snprintf(v[3], sizeof(v[3]), "undefined (a constant vector)");
	else
		snprintf(v[3], sizeof(v[3]), "%.6f", p->corr);
	report_fmt(l[0], sizeof(l[0]), "%+.6f", p->loss[0]);
	report_fmt(l[1], sizeof(l[1]), "%+.6f", p->loss[1]);
	snprintf(v[4], sizeof(v[4]), "A %s, B %s  [-sum c A T per batch, "
	    "mean; Balanced Aggregation Fig. 2]", l[0], l[1]);
	value[2] = v[0];
	value[3] = v[1];
	value[4] = v[2];
	value[5] = v[3];
	value[6] = v[4];
	html_table(f, name, value, 7);
}

static void
distributions(FILE *f, const void *page)
{
	const struct diff_page *p = page;
	struct svg_chart c;
	char id[32], title[600], note[160];
	size_t i, n = p->nstratum < PANELS - 1 ? p->nstratum : PANELS - 1;

	if (n < p->nstratum)
		snprintf(note, sizeof(note), "A and B on the same bins.  The "
		    "first %zu of %zu strata are drawn; --json has them all.",
		    n, p->nstratum);
	else
		snprintf(note, sizeof(note), "A and B on the same bins.");
	html_section(f, "Advantage distributions", note);
	memset(&c, 0, sizeof(c));
	c.id = "adv-all";
	c.title = "All records";
	c.caption = "Stratified GRPO, Theorem 4: inside a stratum SAN has "
	    "mean 0 and variance 1; GN does not.";
	c.xlabel = "advantage";
	c.ylabel = "records";
	svg_bins(f, &c, p->adv, side, 2);
	c.caption = NULL;
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof(id), "adv-stratum-%zu", i + 1);
		/* The label is text: svg escapes it where it writes it. */
		snprintf(title, sizeof(title), "Stratum %s = %s",
		    p->skey, p->stratum[i].label);
		c.id = id;
		c.title = title;
		svg_bins(f, &c, p->stratum[i].adv, side, 2);
	}
	html_section_end(f);
}

static void
per_stratum(FILE *f, const void *page)
{
	static const struct svg_words ch[2] = {
		{ "mass", "Share of the gradient mass", "sum |A_i| c_i T_i over "
		    "the stratum's records, as a share of all: where the "
		    "update goes.", "share of the mass", 1 },
		{ "mean", "Mean advantage per stratum", "The cross-stratum "
		    "offset: a stratum whose mean is not 0 is pushed up or "
		    "down as a whole.", "mean advantage", 0 },
	};
	const struct diff_page *p = page;
	size_t i, k, n = p->nstratum;
	const char **cat = diag_calloc(n + 1, sizeof(*cat));
	double *v = diag_calloc(4 * (n + 1), sizeof(*v));
	struct svg_series s[2] = { { "A", v }, { "B", v + n + 1 } };
	struct svg_chart c;
	char title[360];

	for (i = 0; i < n; i++) {
		cat[i] = p->stratum[i].label;
		v[i] = p->stratum[i].mass[0];
		v[n + 1 + i] = p->stratum[i].mass[1];
		v[2 * (n + 1) + i] = p->stratum[i].mean[0];
		v[3 * (n + 1) + i] = p->stratum[i].mean[1];
	}
	snprintf(title, sizeof(title), "Per stratum (%s)", p->skey);
	html_section(f, title, NULL);
	memset(&c, 0, sizeof(c));
	c.kind = SVG_BARS;
	c.n = n;
	c.cat = cat;
	c.xlabel = "stratum";
	c.s = s;
	c.ns = 2;
	/* v: the mass of A and of B, then their means, n + 1 apart. */
	for (k = 0; k < 2; k++) {
		svg_words(&c, &ch[k]);
		s[0].v = v + 2 * k * (n + 1);
		s[1].v = v + (2 * k + 1) * (n + 1);
		svg_chart(f, &c);
	}
	html_section_end(f);
	free(cat);
	free(v);
}

static void
lengths(FILE *f, const void *page)
{
	static const char *const id[2] = { "length-a", "length-b" };
	static const char *const title[2] = {
	    "Length of positive and negative responses under A",
	    "Length of positive and negative responses under B" };
	const struct diff_page *p = page;
	struct svg_chart c;
	int s;

	html_section(f, "Response lengths", "Balanced Aggregation §4.3.3: "
	    "under token-mean every token weighs the same, so when negative "
	    "responses are longer than positive ones their tokens outweigh "
	    "the positive ones.");
	memset(&c, 0, sizeof(c));
	for (s = 0; s < 2; s++) {
		c.id = id[s];
		c.title = title[s];
		svg_lengths(f, &c, p->len_pos[s], p->len_neg[s]);
	}
	html_section_end(f);
}

int
diff_html_write(FILE *f, const char *path, const struct diff_page *p,
    struct diag *d)
{
	static html_part *const part[] = { summary, distributions,
	    per_stratum, lengths, NULL };

	return html_page(f, path, "diff", p->c->files, p->c->nfiles, part, p,
	    d);
}
