/*
 * cmd_stats.c - rladv stats: what a rollout log holds, at a glance.
 * The pipeline hands each batch to stats.c, which sums its
 * figures; stats_text.c or stats_json.c shows them, and with --html the
 * page (stats_html.c) gets them in the form it draws.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "html.h"
#include "loss_weights.h"
#include "pipeline.h"
#include "report.h"
#include "stats.h"
#include "stats_html.h"
#include "stats_json.h"
#include "stats_text.h"

/* ---- The page (--html) --------------------------------------------- */

static int
print_page(const void *ctx, FILE *f, struct diag *d)
{
	const struct stats *s = ctx;
	const struct stats_acc *t = &s->total;
	struct stats_page p;
	struct stats_row *row = diag_calloc(s->nbatch + 1, sizeof(*row));
	size_t ns = keymap_count(&t->strata);
	struct stats_stratum *ss = diag_calloc(ns + 1, sizeof(*ss));
	size_t *size = diag_calloc(t->nhist + 1, sizeof(*size)), *ix, i;
	double *groups = diag_calloc(t->nhist + 1, sizeof(*groups));
	char verdict[128], cmp[128], why[128], reading[400], skey[300];
	double wsum, rec;
	int rc;

	memset(&p, 0, sizeof(p));
	p.c = s->c;
	p.rejected = s->rejected;
	for (i = 0; i < s->nbatch; i++)
		stats_row_of(&s->batch[i], &row[i]);
	p.row = row;
	p.nrow = s->nbatch;
	stats_row_of(t, &p.total);
	ix = strata_sorted(&t->strata);
	for (i = 0, wsum = 0; i < ns; i++)
		wsum += stats_pstratum(t, i)->weight;
	for (i = 0; i < ns; i++) {
		const struct stats_pstratum *ps = stats_pstratum(t, ix[i]);

		ss[i].label = strata_label_of(&t->strata, ix[i]);
		ss[i].records = stats_srecords(t, ix[i]);
		rec = stats_rewards(t, ix[i])->n;
		ss[i].reward_mean = rec > 0 ?
		    strata_mom_mean(stats_rewards(t, ix[i])) : NAN;
		ss[i].alpha = ps->cells > 0 ? ps->alpha / ps->cells : NAN;
		ss[i].offset = ps->cells > 0 ? ps->off / ps->cells : NAN;
		ss[i].weight_share = wsum > 0 ? ps->weight / wsum : NAN;
		ss[i].forced = rec > 0 ? ps->forced / rec : NAN;
	}
	for (i = 0; i < STATS_NLOSS; i++) {
		const struct loss_mode *m = stats_papers_mode(s->c, i);

		p.loss_name[i] = m != NULL ? m->name : NULL;
	}
	free(ix);
	p.stratum = ss;
	p.nstratum = ns;
	for (i = 0; i < t->nhist; i++) {
		size[i] = t->hist[i].size;
		groups[i] = (double)t->hist[i].groups;
	}
	p.size = size;
	p.size_groups = groups;
	p.nsize = t->nhist;
	p.len_pos = &s->len_pos;
	p.len_neg = &s->len_neg;
	stats_reading_text(t, verdict, cmp, why, sizeof(why));
	snprintf(reading, sizeof(reading), "Reading: %s (%s; Balanced "
	    "Aggregation 4.3.3).", verdict, cmp);
	p.reading = reading;
	stats_stratum_name(s, t, skey, sizeof(skey));
	p.skey = skey;
	rc = stats_html_write(f, s->c->html, &p, d);
	for (i = 0; i < ns; i++)
		free((char *)ss[i].label);
	free(size);
	free(groups);
	free(ss);
	free(row);
	return rc;
}

static int
json(const void *s)
{
	return stats_json(s);
}

static void
text(const void *s)
{
	stats_text(s);
}

static const struct report_ops ops = { print_page, json, text };

int
cmd_stats(struct run *r)
{
	struct prefs *c = &r->p;
	struct stats s;
	struct pipeline_stats st;
	struct diag d = { 0 };
	FILE *page = NULL;
	int rc;

	report_json_init();
	if (report_check_outputs(c->html, c->json, "stats", &d) != 0) {
		diag_print(&d);
		return d.status;
	}
	/* Opened first, so that a page that cannot be written fails
	 * before the log is read. */
	if (c->html && (page = html_open(c->html, &d)) == NULL) {
		diag_print(&d);
		return d.status;
	}
	/* Stats describes whatever is there: a record without the stratum
	 * key falls in "(none)". */
	c->fields.need_stratum = 0;
	stats_init(&s, c);
	/* Every figure is per group, so groups stream unless they must be
	 * gathered (--unsorted) or the estimator reads the whole batch. */
	rc = pipeline_run(c, c->est->kind == EST_MSGRPO, !c->go.unsorted &&
	    !(advantage_flags(c->est, &c->ap) & ADV_BATCH), stats_add, &s,
	    &st, &d);
	if (rc == 0)
		stats_finish(&s, st.rejected);
	rc = report_write(rc, page, c->html, c->json, &ops, &s, &d);
	stats_free(&s);
	return rc;
}
