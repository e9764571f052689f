/*
 * stats_json.c - rladv stats --json.  An undefined figure (a share of
 * nothing, the mean length of no record) is null, not a number.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report.h"
#include "stats_json.h"

/* NaN prints as null: an undefined figure is not a number. */
static void
jnum(cJSON *o, const char *name, double v)
{
	cJSON_AddNumberToObject(o, name, v);
}

/* The table of fields used: {"group": {"prompt_id": 12}, ...}. */
static cJSON *
json_fields(const struct stats *s, const struct stats_acc *a)
{
	struct stats_use u[STATS_MAXUSE];
	cJSON *o = cJSON_CreateObject(), *r[STATS_NROLES];
	size_t i, n;

	for (i = 0; i < STATS_NROLES; i++)
		r[i] = cJSON_AddObjectToObject(o, stats_role_names[i]);
	n = stats_uses(s, a, u);
	for (i = 0; i < n; i++)
		jnum(r[u[i].role], u[i].name ? u[i].name : u[i].role ==
		    STATS_MASK ? "(absent)" : "(none)", (double)u[i].records);
	return o;
}

static void
json_strata(cJSON *o, const struct stats_acc *a)
{
	const struct strata_mom *m;
	cJSON *arr, *e;
	size_t *ix, i;
	char *lab;

	arr = cJSON_AddArrayToObject(o, "strata");
	ix = strata_sorted(&a->strata);
	for (i = 0; i < keymap_count(&a->strata); i++) {
		e = cJSON_CreateObject();
		lab = strata_label_of(&a->strata, ix[i]);
		cJSON_AddStringToObject(e, "stratum", lab);
		free(lab);
		m = stats_rewards(a, ix[i]);
		jnum(e, "records", m->n);
		jnum(e, "share", a->records ? m->n / (double)a->records : NAN);
		jnum(e, "reward_mean", strata_mom_mean(m));
		jnum(e, "reward_std", strata_mom_std(m));
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
	jnum(e, "length_gap", fv == STATS_FAV_NONE ? NAN : gap);
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
	jnum(o, "frac_reward_zero_std", a->groups ? (double)a->zero_std /
	    (double)a->groups : NAN);
	json_lengths(o, a);
	e = cJSON_AddObjectToObject(o, "reward_variance");
	jnum(e, "total", stats_pooled(a->ss_total, a->records));
	jnum(e, "within", stats_pooled(a->ss_within, a->records));
	jnum(e, "between", stats_pooled(a->ss_between, a->records));
	jnum(e, "between_share", a->ss_total > 0 ? a->ss_between /
	    a->ss_total : NAN);
	jnum(e, "groups_with_variance", (double)a->share_groups);
	jnum(e, "mean_group_between_share", a->share_groups ? a->share_sum /
	    (double)a->share_groups : NAN);
	return o;
}

int
stats_json(const struct stats *s)
{
	const struct prefs *c = s->c;
	cJSON *root = cJSON_CreateObject(), *arr;
	size_t i;

	arr = cJSON_AddArrayToObject(root, "files");
	if (c->nfiles == 0)
		cJSON_AddItemToArray(arr, cJSON_CreateString("-"));
	for (i = 0; i < c->nfiles; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(c->files[i]));
	arr = cJSON_AddArrayToObject(root, "stratum_key");
	for (i = 0; i < (size_t)c->fields.nstratum; i++)
		cJSON_AddItemToArray(arr,
		    cJSON_CreateString(c->fields.stratum[i]));
	if (c->fields.batch)
		cJSON_AddStringToObject(root, "batch_key", c->fields.batch);
	else
		cJSON_AddNullToObject(root, "batch_key");
	jnum(root, "rejected", (double)s->rejected);
	arr = cJSON_AddArrayToObject(root, "batches");
	for (i = 0; i < s->nbatch; i++)
		cJSON_AddItemToArray(arr, json_acc(s, &s->batch[i], 1));
	cJSON_AddItemToObject(root, "total", json_acc(s, &s->total, 0));
	return report_json_print(root);
}
