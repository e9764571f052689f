/*
 * stats_json.c - rladv stats --json.  An undefined figure (a share of
 * nothing, the mean length of no record) is null, not a number.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "loss_weights.h"
#include "report.h"
#include "stats_html.h"
#include "stats_json.h"

/* NaN prints as null: an undefined figure is not a number. */
static void
jnum(cJSON *o, const char *name, double v)
{
	/* A figure past a double, or undefined, is null (cJSON's Inf and
	 * NaN); -0 is 0. */
	cJSON_AddNumberToObject(o, name, v == 0 ? 0 : v);
}

/* The table of fields used: {"group": {"prompt_id": 12}, ...}, every
 * listed role, and each other role whose field the run read. */
static cJSON *
json_fields(const struct stats *s, const struct stats_acc *a)
{
	struct stats_use u[STATS_MAXUSE];
	cJSON *o = cJSON_CreateObject(), *r[STATS_NROLES] = { NULL };
	size_t i, k, n;
	int role;

	n = stats_uses(s, a, u);
	for (k = 0; k < STATS_NSHOWN; k++) {
		role = stats_role_order[k];
		for (i = 0; i < n && u[i].role != (enum stats_role)role; i++)
			;
		if (role < FR_NLISTED || i < n)
			r[role] = cJSON_AddObjectToObject(o,
			    stats_role_names[role]);
	}
	for (i = 0; i < n; i++)
		jnum(r[u[i].role], u[i].name ? u[i].name : u[i].role ==
		    STATS_MASK || u[i].role == STATS_REMOVE ? "(absent)" :
		    "(none)", (double)u[i].records);
	return o;
}

static void
json_strata(cJSON *o, const struct stats_acc *a)
{
	const struct strata_mom *m;
	cJSON *arr, *e;
	size_t *ix, i;
	double n;
	char *lab;

	arr = cJSON_AddArrayToObject(o, "strata");
	ix = strata_sorted(&a->strata);
	for (i = 0; i < keymap_count(&a->strata); i++) {
		e = cJSON_CreateObject();
		lab = strata_label_of(&a->strata, ix[i]);
		cJSON_AddStringToObject(e, "stratum", lab);
		free(lab);
		m = stats_rewards(a, ix[i]);
		n = stats_srecords(a, ix[i]);
		jnum(e, "records", n);
		jnum(e, "share", a->records ? n / (double)a->records : NAN);
		/* A stratum of unscored records alone has no reward. */
		jnum(e, "reward_mean", m->n > 0 ? strata_mom_mean(m) : NAN);
		jnum(e, "reward_std", m->n > 0 ? strata_mom_std(m) : NAN);
		cJSON_AddItemToArray(arr, e);
	}
	free(ix);
}

/* Lengths, and the sign-length reading. */
static void
json_lengths(cJSON *o, const struct stats_acc *a)
{
	char text[512], verdict[128], cmp[128], why[128];
	double gap, rel, cv;
	enum stats_favour fv;
	cJSON *e, *s;

	e = cJSON_AddObjectToObject(o, "length");
	jnum(e, "mean", strata_mom_mean(&a->len));
	jnum(e, "std", strata_mom_std(&a->len));
	jnum(e, "cv", strata_mom_mean(&a->len) > 0 ?
	    strata_mom_std(&a->len) / strata_mom_mean(&a->len) : NAN);
	fv = stats_reading(a, &gap, &rel, &cv);
	e = cJSON_AddObjectToObject(o, "sign");
	s = cJSON_AddObjectToObject(e, "positive");
	jnum(s, "records", a->pos.n);
	jnum(s, "mean_length", a->pos.n ? strata_mom_mean(&a->pos) : NAN);
	s = cJSON_AddObjectToObject(e, "negative");
	jnum(s, "records", a->neg.n);
	jnum(s, "mean_length", a->neg.n ? strata_mom_mean(&a->neg) : NAN);
	s = cJSON_AddObjectToObject(e, "zero");
	jnum(s, "records", (double)a->zero);
	/* A gap in tokens wherever both signs are there (0 when no token
	 * is trained); relative to the mean length where that is above 0. */
	jnum(e, "length_gap", a->pos.n > 0 && a->neg.n > 0 ? gap : NAN);
	jnum(e, "relative_gap", fv == STATS_FAV_NONE ? NAN : rel);
	if (fv == STATS_FAV_NONE)
		cJSON_AddNullToObject(e, "favours");
	else
		cJSON_AddStringToObject(e, "favours", fv == STATS_FAV_SEQ ?
		    "seq" : "token");
	stats_reading_text(a, verdict, cmp, why, sizeof(why));
	snprintf(text, sizeof(text), "%s: %s; %s", verdict, cmp, why);
	cJSON_AddStringToObject(e, "reading", text);
}

/* Stratified GRPO's figures (stats_papers.h). */
static void
json_stratified(cJSON *o, const struct stats_acc *a)
{
	const struct stats_pstratum *ps;
	cJSON *e, *arr, *x;
	double wsum = 0;
	size_t *ix, i;
	char *lab;

	e = cJSON_AddObjectToObject(o, "stratified");
	for (i = 0; i < keymap_count(&a->strata); i++)
		wsum += stats_pstratum(a, i)->weight;
	arr = cJSON_AddArrayToObject(e, "strata");
	ix = strata_sorted(&a->strata);
	for (i = 0; i < keymap_count(&a->strata); i++) {
		ps = stats_pstratum(a, ix[i]);
		x = cJSON_CreateObject();
		lab = strata_label_of(&a->strata, ix[i]);
		cJSON_AddStringToObject(x, "stratum", lab);
		free(lab);
		jnum(x, "cells", ps->cells);
		jnum(x, "alpha_mean", ps->cells > 0 ? ps->alpha / ps->cells :
		    NAN);
		jnum(x, "offset_mean", ps->cells > 0 ? ps->off / ps->cells :
		    NAN);
		jnum(x, "offset_rms", ps->cells > 0 ? sqrt(ps->off2 /
		    ps->cells) : NAN);
		jnum(x, "weight_mean", ps->wcells > 0 ? ps->weight /
		    ps->wcells : NAN);
		jnum(x, "weight_share", wsum > 0 ? ps->weight / wsum : NAN);
		jnum(x, "san_forced", ps->forced);
		cJSON_AddItemToArray(arr, x);
	}
	free(ix);
	jnum(e, "san_forced", a->p.forced);
	jnum(e, "san_forced_share", a->scored ? a->p.forced /
	    (double)a->scored : NAN);
	x = cJSON_AddObjectToObject(e, "theorem2");
	jnum(x, "var_ag", stats_pooled(&a->ss_total, a->scored));
	jnum(x, "var_san", stats_pooled(&a->p.san_ss, a->scored));
	jnum(x, "term_a", stats_pooled(&a->ss_between, a->scored));
	jnum(x, "term_b", stats_pooled(&a->p.termb_ss, a->scored));
}

/* The on-policy loss of every mode, and MS-GRPO's figures. */
static void
json_losses(cJSON *o, const struct stats *s, const struct stats_acc *a)
{
	const struct stats_papers *p = &a->p;
	const struct loss_mode *m;
	cJSON *e;
	size_t k;
	double n = p->d.n;

	e = cJSON_AddObjectToObject(o, "on_policy_loss");
	for (k = 0; k < STATS_NLOSS; k++)
		if ((m = stats_papers_mode(s->c, k)) != NULL)
			jnum(e, m->name, p->final[k]);
	if (s->c->est->kind != EST_MSGRPO)
		return;
	e = cJSON_AddObjectToObject(o, "msgrpo");
	jnum(e, "groups", p->ms_groups);
	jnum(e, "past_budget", p->ms_skipped);
	jnum(e, "es_sigma", xsum_over(&p->es, p->ms_groups));
	jnum(e, "sigma_o", xsum_over(&p->sigma, p->ms_groups));
	jnum(e, "var_mu", xsum_over(&p->vmu, p->ms_groups));
	jnum(e, "var_sigma", xsum_over(&p->vsig, p->ms_groups));
	jnum(e, "records", n);
	jnum(e, "actual_rms", n > 0 ? sqrt(p->d.act2 / n) : NAN);
	jnum(e, "approx_rms", n > 0 ? sqrt(p->d.app2 / n) : NAN);
	jnum(e, "error_rms", n > 0 ? sqrt(p->d.err2 / n) : NAN);
	jnum(e, "actual_mean", n > 0 ? p->d.act / n : NAN);
	jnum(e, "approx_mean", n > 0 ? p->d.app / n : NAN);
}

/* --by-batch --json: the rows alone. */
static int
json_by_batch(const struct stats *s)
{
	const struct loss_mode *m;
	cJSON *root = cJSON_CreateObject(), *arr, *e, *l;
	struct stats_row r;
	size_t i, k;

	arr = cJSON_AddArrayToObject(root, "batches");
	for (i = 0; i < s->nbatch; i++) {
		stats_row_of(&s->batch[i], &r);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "batch", r.label);
		jnum(e, "records", r.records);
		jnum(e, "reward_mean", r.reward);
		jnum(e, "tool_calls_mean", r.tool_calls);
		jnum(e, "frac_reward_zero_std", r.zero_std);
		jnum(e, "within", r.within);
		jnum(e, "between", r.between_var);
		jnum(e, "length_gap", r.gap);
		l = cJSON_AddObjectToObject(e, "on_policy_loss");
		for (k = 0; k < STATS_NLOSS; k++)
			if ((m = stats_papers_mode(s->c, k)) != NULL)
				jnum(l, m->name, r.loss[k]);
		cJSON_AddItemToArray(arr, e);
	}
	return report_json_print(root);
}

static cJSON *
json_acc(const struct stats *s, const struct stats_acc *a, int batch)
{
	cJSON *o = cJSON_CreateObject(), *arr, *e;
	size_t i;

	if (batch) {
		cJSON_AddStringToObject(o, "batch", a->label);
		cJSON_AddStringToObject(o, "first_line", a->where);
	}
	jnum(o, "records", (double)a->records);
	jnum(o, "groups", (double)a->groups);
	/* Out of the reward figures; a run that may leave records unscored
	 * says how many it did. */
	if (s->c->fields.null_reward == NULL_UNSCORED)
		jnum(o, "unscored", (double)(a->records - a->scored));
	arr = cJSON_AddArrayToObject(o, "group_sizes");
	for (i = 0; i < a->nhist; i++) {
		e = cJSON_CreateObject();
		jnum(e, "size", (double)a->hist[i].size);
		jnum(e, "groups", (double)a->hist[i].groups);
		cJSON_AddItemToArray(arr, e);
	}
	cJSON_AddItemToObject(o, "fields", json_fields(s, a));
	json_strata(o, a);
	jnum(o, "zero_std_groups", (double)a->zero_std);
	jnum(o, "frac_reward_zero_std", a->scored_groups ?
	    (double)a->zero_std / (double)a->scored_groups : NAN);
	json_lengths(o, a);
	e = cJSON_AddObjectToObject(o, "reward_variance");
	jnum(e, "total", stats_pooled(&a->ss_total, a->scored));
	jnum(e, "within", stats_pooled(&a->ss_within, a->scored));
	jnum(e, "between", stats_pooled(&a->ss_between, a->scored));
	jnum(e, "between_share", a->ss_total.s > 0 ?
	    stats_share(&a->ss_between, &a->ss_total) : NAN);
	jnum(e, "groups_with_variance", (double)a->share_groups);
	jnum(e, "mean_group_between_share", a->share_groups ? a->share_sum /
	    (double)a->share_groups : NAN);
	json_stratified(o, a);
	json_losses(o, s, a);
	return o;
}

int
stats_json(const struct stats *s)
{
	const struct prefs *c = s->c;
	cJSON *root, *arr;
	size_t i;

	if (c->by_batch)
		return json_by_batch(s);
	root = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(root, "files");
	if (c->nfiles == 0)
		cJSON_AddItemToArray(arr, cJSON_CreateString("-"));
	for (i = 0; i < c->nfiles; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(c->files[i]));
	arr = cJSON_AddArrayToObject(root, "stratum_key");
	for (i = 0; i < (size_t)c->fields.list[FR_STRATUM].n; i++)
		cJSON_AddItemToArray(arr,
		    cJSON_CreateString(c->fields.list[FR_STRATUM].name[i]));
	if (c->fields.batch)
		cJSON_AddStringToObject(root, "batch_key", c->fields.batch);
	else
		cJSON_AddNullToObject(root, "batch_key");
	/* --from NAME, or the profile whose fields the records have. */
	if (c->fields.profile)
		cJSON_AddStringToObject(root, "profile", c->fields.profile);
	else
		cJSON_AddNullToObject(root, "profile");
	if (s->guess)
		cJSON_AddStringToObject(root, "looks_like", s->guess);
	else
		cJSON_AddNullToObject(root, "looks_like");
	jnum(root, "rejected", (double)s->rejected);
	arr = cJSON_AddArrayToObject(root, "batches");
	for (i = 0; i < s->nbatch; i++)
		cJSON_AddItemToArray(arr, json_acc(s, &s->batch[i], 1));
	cJSON_AddItemToObject(root, "total", json_acc(s, &s->total, 0));
	return report_json_print(root);
}
