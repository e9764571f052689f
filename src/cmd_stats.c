/*
 * cmd_stats.c - rladv stats: what a rollout log holds, at a glance
 * (SPEC §7).  Per batch and in total: records, groups and their sizes,
 * the field names that were used, the strata, the share of groups whose
 * rewards are all equal, response lengths and the gap between the lengths
 * of positive and negative responses (Balanced Aggregation §4.3.3), and
 * the split of the reward variance inside groups into within- and
 * between-stratum parts (Stratified GRPO, Theorem 1).
 *
 * Every figure is a sum over groups, so groups are folded in one at a
 * time and memory is bounded by a group, whatever the batch.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "advmath.h"
#include "bins.h"
#include "cmd.h"
#include "html.h"
#include "pipeline.h"
#include "stats_html.h"
#include "strata.h"

#define BAR_WIDTH	30

struct hbin {
	size_t			size;
	unsigned long long	groups;
};

/* Everything stats reports about a batch, or about the whole input. */
struct acc {
	char			*label;	/* batch key, or its number */
	char			*where;	/* FILE:LINE of its first record */
	unsigned long long	 records, groups, zero_std;
	unsigned long long	 alias[4][FIELD_MAXNAMES], noalias[4];
	unsigned long long	 with_stratum;
	struct hbin		*hist;		/* sorted by size */
	size_t			 nhist, hcap;
	struct keymap		 strata;	/* values: reward moments */
	struct strata_mom	 reward;	/* all records */
	/* Trained tokens T_i: all records, A > 0, A < 0. */
	struct strata_mom	 len, pos, neg;
	unsigned long long	 zero;		/* records with A = 0 */
	/* Sums of squares over groups: pooled over records they give the
	 * record-weighted mean of the groups' variances. */
	double			 ss_total, ss_within, ss_between;
	double			 share_sum;	/* per-group shares */
	unsigned long long	 share_groups;	/* groups with variance */
};

struct sctx {
	const struct prefs	*c;
	struct acc		*batch;
	size_t			 nbatch, bcap;
	struct strata_cells	 cells;	/* of the group at hand */
	/* --html: trained tokens of records with A > 0, A < 0. */
	struct bins		 len_pos, len_neg;
};

/* What the sign-length reading of Balanced Aggregation §4.3.3 says. */
enum favour { FAV_NONE, FAV_TOKEN, FAV_SEQ };

/* The reward moments of stratum k, kept by the table beside its key. */
static struct strata_mom *
srew(const struct acc *a, size_t k)
{
	return keymap_val(&a->strata, k);
}

/* An empty accumulator: its table must know the size of its values. */
static void
acc_init(struct acc *a)
{
	memset(a, 0, sizeof(*a));
	keymap_init(&a->strata, sizeof(struct strata_mom));
}

static void
hist_add(struct acc *a, size_t size, unsigned long long groups)
{
	size_t lo = 0, hi = a->nhist, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->hist[mid].size < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->nhist && a->hist[lo].size == size) {
		a->hist[lo].groups += groups;
		return;
	}
	if (a->nhist == a->hcap) {
		a->hcap = a->hcap ? 2 * a->hcap : 8;
		a->hist = diag_realloc(a->hist, a->hcap * sizeof(*a->hist));
	}
	memmove(a->hist + lo + 1, a->hist + lo,
	    (a->nhist - lo) * sizeof(*a->hist));
	a->hist[lo].size = size;
	a->hist[lo].groups = groups;
	a->nhist++;
}

static void
acc_free(struct acc *a)
{
	free(a->label);
	free(a->where);
	free(a->hist);
	keymap_free(&a->strata);
}

/* Folds batch o into the total t. */
static void
acc_merge(struct acc *t, const struct acc *o)
{
	const char *key;
	size_t i, k, j, len;

	t->records += o->records;
	t->groups += o->groups;
	t->zero_std += o->zero_std;
	t->with_stratum += o->with_stratum;
	for (i = 0; i < 4; i++) {
		t->noalias[i] += o->noalias[i];
		for (j = 0; j < FIELD_MAXNAMES; j++)
			t->alias[i][j] += o->alias[i][j];
	}
	for (i = 0; i < o->nhist; i++)
		hist_add(t, o->hist[i].size, o->hist[i].groups);
	for (i = 0; i < keymap_count(&o->strata); i++) {
		key = keymap_key(&o->strata, i, &len);
		k = keymap_get(&t->strata, key, len, NULL);
		strata_mom_merge(srew(t, k), srew(o, i));
	}
	strata_mom_merge(&t->reward, &o->reward);
	strata_mom_merge(&t->len, &o->len);
	strata_mom_merge(&t->pos, &o->pos);
	strata_mom_merge(&t->neg, &o->neg);
	t->zero += o->zero;
	t->ss_total += o->ss_total;
	t->ss_within += o->ss_within;
	t->ss_between += o->ss_between;
	t->share_sum += o->share_sum;
	t->share_groups += o->share_groups;
}

/*
 * The batch that the groups at hand belong to: a new one unless the
 * pipeline hands the input's batch over in parts (streaming, one group at
 * a time) and this is not its first part.
 */
static struct acc *
batch_for(struct sctx *x, const struct gbatch *b)
{
	const struct prefs *c = x->c;
	struct acc *a;
	struct buf lab = { 0 };
	const char *key, *file;
	unsigned long long line;
	char tmp[64];
	size_t len;

	if (!batch_starts(b) && x->nbatch > 0)
		return &x->batch[x->nbatch - 1];
	if (x->nbatch == x->bcap) {
		x->bcap = x->bcap ? 2 * x->bcap : 4;
		x->batch = diag_realloc(x->batch, x->bcap * sizeof(*x->batch));
	}
	a = &x->batch[x->nbatch++];
	acc_init(a);
	if (c->go.has_batch_key) {
		key = batch_key(b, &len);
		record_key_label(key, len, &lab);
	} else {
		snprintf(tmp, sizeof(tmp), "%zu", x->nbatch);
		buf_add(&lab, tmp, strlen(tmp));
	}
	buf_add(&lab, "", 1);
	a->label = diag_strdup(lab.p);
	buf_free(&lab);
	file = batch_gwhere(b, 0, &line, NULL);
	snprintf(tmp, sizeof(tmp), ":%llu", line);
	a->where = diag_malloc(strlen(file) + strlen(tmp) + 1);
	strcpy(a->where, file);
	strcat(a->where, tmp);
	return a;
}

static int
on_batch(void *ctx, const struct gbatch *b, const struct batch *v,
    struct diag *d)
{
	struct sctx *x = ctx;
	struct acc *a = batch_for(x, b);
	struct strata_cells *c = &x->cells;
	struct advmath_mom gm;
	size_t g, k, o, n, ns, j, i;
	double tot, wit, bet, dev, *mean;

	(void)d;
	for (g = 0; g < v->ngroups; g++) {
		o = v->goff[g];
		n = v->goff[g + 1] - o;
		ns = v->nstrat[g];
		strata_cells_fill(c, &a->strata, b, v, g);
		gm = advmath_moments(v->r + o, NULL, 0, n, 0);
		a->groups++;
		hist_add(a, n, 1);
		if (gm.equal)
			a->zero_std++;
		for (k = o; k < o + n; k++) {
			const struct record *r = batch_rec(b, k);
			uint32_t s = v->strat[k];

			c->sum[0][s] += v->r[k];
			a->records++;
			if (r->has_stratum)
				a->with_stratum++;
			for (i = 0; i < 4; i++)
				if (r->alias[i] >= 0)
					a->alias[i][(int)r->alias[i]]++;
				else
					a->noalias[i]++;
			strata_mom_add(srew(a, c->loc[s]), v->r[k]);
			strata_mom_add(&a->reward, v->r[k]);
			strata_mom_add(&a->len, v->T[k]);
			/* The sign of GRPO's (r - mean) / (std + eps); equal
			 * rewards give exactly 0 (SPEC §3). */
			dev = gm.equal ? 0 : v->r[k] - gm.mean;
			if (dev > 0)
				strata_mom_add(&a->pos, v->T[k]);
			else if (dev < 0)
				strata_mom_add(&a->neg, v->T[k]);
			else
				a->zero++;
			if (x->c->html != NULL && dev != 0)
				bins_add(dev > 0 ? &x->len_pos : &x->len_neg,
				    v->T[k]);
		}
		/* Theorem 1: sum (r - mu)^2 = sum (r - mu_k)^2 +
		 * sum_k n_k (mu_k - mu)^2, group by group.  Each cell's sum
		 * becomes its mean; a cell of equal rewards takes the reward
		 * itself, which sum / n may miss by a rounding. */
		mean = c->sum[0];
		for (j = 0; j < ns; j++)
			mean[j] = c->eq[j] ? c->first[j] :
			    mean[j] / (double)c->cnt[j];
		tot = wit = bet = 0;
		for (k = o; k < o + n; k++) {
			dev = v->r[k] - gm.mean;
			tot += dev * dev;
			dev = v->r[k] - mean[v->strat[k]];
			wit += dev * dev;
		}
		for (j = 0; j < ns; j++) {
			dev = mean[j] - gm.mean;
			bet += (double)c->cnt[j] * dev * dev;
		}
		a->ss_total += tot;
		a->ss_within += wit;
		a->ss_between += bet;
		if (tot > 0) {
			a->share_sum += bet / tot;
			a->share_groups++;
		}
	}
	return 0;
}

/*
 * Balanced Aggregation §4.3.3: token-mean suffers when positive and
 * negative responses differ in length (sign-length coupling), seq-mean
 * when lengths vary a lot (equal weight per sequence).  The paper gives
 * no threshold; both quantities are relative to the mean length, so the
 * larger one names the weakness that dominates.
 */
static enum favour
reading(const struct acc *a, double *gap, double *rel, double *cv)
{
	double m = strata_mom_mean(&a->len);

	*cv = m > 0 ? strata_mom_std(&a->len) / m : 0;
	*gap = strata_mom_mean(&a->pos) - strata_mom_mean(&a->neg);
	*rel = m > 0 ? *gap / m : 0;
	if (a->pos.n == 0 || a->neg.n == 0 || m <= 0)
		return FAV_NONE;
	return fabs(*rel) > *cv ? FAV_SEQ : FAV_TOKEN;
}

/*
 * The reading in three parts: the verdict, the comparison behind it and
 * what it means, so that the screen can leave the last part out.
 */
static void
reading_text(const struct acc *a, char *verdict, char *cmp, char *why,
    size_t n)
{
	double gap, rel, cv;

	switch (reading(a, &gap, &rel, &cv)) {
	case FAV_NONE:
		snprintf(verdict, n, "undefined");
		snprintf(cmp, n, "no group has both positive and negative "
		    "advantages");
		snprintf(why, n, "no length gap to weigh");
		break;
	case FAV_SEQ:
		snprintf(verdict, n, "seq-mean favoured over token-mean");
		snprintf(cmp, n, "|gap|/mean %.3f > length CV %.3f",
		    fabs(rel), cv);
		snprintf(why, n, "token-mean's sign-length coupling costs more "
		    "than seq-mean's equal weight per sequence");
		break;
	case FAV_TOKEN:
		snprintf(verdict, n, "token-mean favoured over seq-mean");
		snprintf(cmp, n, "length CV %.3f > |gap|/mean %.3f", cv,
		    fabs(rel));
		snprintf(why, n, "seq-mean's equal weight per sequence costs "
		    "more than token-mean's sign-length coupling");
		break;
	}
}

static double
pooled(double ss, unsigned long long n)
{
	return n ? ss / (double)n : 0;
}

/* ---- JSON ---------------------------------------------------------- */

/* NaN prints as null: an undefined figure is not a number. */
static void
jnum(cJSON *o, const char *name, double v)
{
	cJSON_AddNumberToObject(o, name, v);
}

static cJSON *
json_fields(const struct sctx *x, const struct acc *a)
{
	static const char *const roles[4] = { "group", "reward", "logprobs",
	    "mask" };
	const struct fields *f = &x->c->fields;
	const char *const *names[4] = { f->group, f->reward, f->logprobs,
	    f->mask };
	const int nn[4] = { f->ngroup, f->nreward, f->nlogprobs, f->nmask };
	cJSON *o = cJSON_CreateObject(), *r;
	struct buf s = { 0 };
	int i, j;

	for (i = 0; i < 4; i++) {
		r = cJSON_AddObjectToObject(o, roles[i]);
		for (j = 0; j < nn[i]; j++)
			if (a->alias[i][j])
				jnum(r, names[i][j], (double)a->alias[i][j]);
		if (a->noalias[i])
			jnum(r, i == 3 ? "(absent)" : "(none)",
			    (double)a->noalias[i]);
	}
	r = cJSON_AddObjectToObject(o, "stratum");
	for (i = 0; i < f->nstratum; i++) {
		if (i)
			buf_add(&s, ",", 1);
		buf_add(&s, f->stratum[i], strlen(f->stratum[i]));
	}
	buf_add(&s, "", 1);
	if (a->with_stratum)
		jnum(r, s.p, (double)a->with_stratum);
	if (a->records > a->with_stratum)
		jnum(r, "(none)", (double)(a->records - a->with_stratum));
	buf_free(&s);
	return o;
}

static cJSON *
json_acc(const struct sctx *x, const struct acc *a, const char *label,
    const char *where)
{
	cJSON *o = cJSON_CreateObject(), *arr, *e, *s;
	const struct strata_mom *m;
	size_t *ix, i, k;
	double gap, rel, cv, tot;
	enum favour fv;
	char text[512], verdict[128], cmp[128], why[128], *lab;

	if (label != NULL) {
		cJSON_AddStringToObject(o, "batch", label);
		cJSON_AddStringToObject(o, "first_line", where);
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
	cJSON_AddItemToObject(o, "fields", json_fields(x, a));
	arr = cJSON_AddArrayToObject(o, "strata");
	ix = strata_sorted(&a->strata);
	for (i = 0; i < keymap_count(&a->strata); i++) {
		k = ix[i];
		e = cJSON_CreateObject();
		lab = strata_label_of(&a->strata, k);
		cJSON_AddStringToObject(e, "stratum", lab);
		free(lab);
		m = srew(a, k);
		jnum(e, "records", m->n);
		jnum(e, "share", a->records ? m->n / (double)a->records : NAN);
		jnum(e, "reward_mean", strata_mom_mean(m));
		jnum(e, "reward_std", strata_mom_std(m));
		cJSON_AddItemToArray(arr, e);
	}
	free(ix);
	jnum(o, "zero_std_groups", (double)a->zero_std);
	jnum(o, "frac_reward_zero_std", a->groups ? (double)a->zero_std /
	    (double)a->groups : NAN);
	e = cJSON_AddObjectToObject(o, "length");
	jnum(e, "mean", strata_mom_mean(&a->len));
	jnum(e, "std", strata_mom_std(&a->len));
	jnum(e, "cv", strata_mom_mean(&a->len) > 0 ?
	    strata_mom_std(&a->len) / strata_mom_mean(&a->len) : NAN);
	fv = reading(a, &gap, &rel, &cv);
	e = cJSON_AddObjectToObject(o, "sign");
	s = cJSON_AddObjectToObject(e, "positive");
	jnum(s, "records", a->pos.n);
	jnum(s, "mean_length", a->pos.n ? strata_mom_mean(&a->pos) : NAN);
	s = cJSON_AddObjectToObject(e, "negative");
	jnum(s, "records", a->neg.n);
	jnum(s, "mean_length", a->neg.n ? strata_mom_mean(&a->neg) : NAN);
	s = cJSON_AddObjectToObject(e, "zero");
	jnum(s, "records", (double)a->zero);
	jnum(e, "length_gap", fv == FAV_NONE ? NAN : gap);
	jnum(e, "relative_gap", fv == FAV_NONE ? NAN : rel);
	if (fv == FAV_NONE)
		cJSON_AddNullToObject(e, "favours");
	else
		cJSON_AddStringToObject(e, "favours", fv == FAV_SEQ ? "seq" :
		    "token");
	reading_text(a, verdict, cmp, why, sizeof(why));
	snprintf(text, sizeof(text), "%s: %s; %s", verdict, cmp, why);
	cJSON_AddStringToObject(e, "reading", text);
	e = cJSON_AddObjectToObject(o, "reward_variance");
	tot = pooled(a->ss_total, a->records);
	jnum(e, "total", tot);
	jnum(e, "within", pooled(a->ss_within, a->records));
	jnum(e, "between", pooled(a->ss_between, a->records));
	jnum(e, "between_share", a->ss_total > 0 ? a->ss_between /
	    a->ss_total : NAN);
	jnum(e, "groups_with_variance", (double)a->share_groups);
	jnum(e, "mean_group_between_share", a->share_groups ? a->share_sum /
	    (double)a->share_groups : NAN);
	return o;
}

static int
print_json(const struct sctx *x, const struct acc *t,
    const struct pipeline_stats *st)
{
	cJSON *root = cJSON_CreateObject(), *arr, *o;
	size_t i;

	arr = cJSON_AddArrayToObject(root, "files");
	if (x->c->nfiles == 0)
		cJSON_AddItemToArray(arr, cJSON_CreateString("-"));
	for (i = 0; i < x->c->nfiles; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(x->c->files[i]));
	arr = cJSON_AddArrayToObject(root, "stratum_key");
	for (i = 0; i < (size_t)x->c->fields.nstratum; i++)
		cJSON_AddItemToArray(arr,
		    cJSON_CreateString(x->c->fields.stratum[i]));
	if (x->c->fields.batch)
		cJSON_AddStringToObject(root, "batch_key", x->c->fields.batch);
	else
		cJSON_AddNullToObject(root, "batch_key");
	jnum(root, "rejected", (double)st->rejected);
	arr = cJSON_AddArrayToObject(root, "batches");
	for (i = 0; i < x->nbatch; i++) {
		o = json_acc(x, &x->batch[i], x->batch[i].label,
		    x->batch[i].where);
		cJSON_AddItemToArray(arr, o);
	}
	cJSON_AddItemToObject(root, "total", json_acc(x, t, NULL, NULL));
	return strata_json_print(root);
}

/* ---- Human output -------------------------------------------------- */

static int
utf8_locale(void)
{
	const char *s;

	if ((s = getenv("LC_ALL")) == NULL || *s == '\0')
		if ((s = getenv("LC_CTYPE")) == NULL || *s == '\0')
			s = getenv("LANG");
	return s != NULL && (strcasestr(s, "utf-8") != NULL ||
	    strcasestr(s, "utf8") != NULL);
}

/* A bar of frac * BAR_WIDTH cells: eighth blocks in a UTF-8 locale,
 * '#' elsewhere, so that a pipe into a C-locale tool stays ASCII. */
static void
bar(double frac, int utf8)
{
	static const char *const part[8] = { "", "\u258f", "\u258e",
	    "\u258d", "\u258c", "\u258b", "\u258a", "\u2589" };
	long cells, i;

	if (!(frac > 0))
		return;
	if (frac > 1)
		frac = 1;
	if (!utf8) {
		cells = lround(frac * BAR_WIDTH);
		for (i = 0; i < (cells ? cells : 1); i++)
			putchar('#');
		return;
	}
	cells = lround(frac * BAR_WIDTH * 8);
	if (cells == 0)
		cells = 1;
	for (i = 0; i < cells / 8; i++)
		fputs("\u2588", stdout);
	fputs(part[cells % 8], stdout);
}

static void
pct(char *buf, size_t n, double num, double den)
{
	if (den > 0)
		snprintf(buf, n, "%.1f%%", 100 * num / den);
	else
		snprintf(buf, n, "-");
}

static void
print_fields(const struct sctx *x, const struct acc *a)
{
	static const char *const roles[4] = { "group", "reward", "logprobs",
	    "mask" };
	const struct fields *f = &x->c->fields;
	const char *const *names[4] = { f->group, f->reward, f->logprobs,
	    f->mask };
	const int nn[4] = { f->ngroup, f->nreward, f->nlogprobs, f->nmask };
	int i, j, said;

	for (i = 0; i < 5; i++) {
		printf("%-22s %-9s", i ? "" : "fields used", i < 4 ? roles[i] :
		    "stratum");
		said = 0;
		if (i == 4) {
			if (a->with_stratum) {
				for (j = 0; j < f->nstratum; j++)
					printf("%s%s", j ? "," : " ",
					    f->stratum[j]);
				printf(" %llu", a->with_stratum);
				said = 1;
			}
			if (a->records > a->with_stratum)
				printf("%s(none) %llu", said ? ", " : " ",
				    a->records - a->with_stratum);
			putchar('\n');
			continue;
		}
		for (j = 0; j < nn[i]; j++)
			if (a->alias[i][j]) {
				printf("%s%s %llu", said ? ", " : " ",
				    names[i][j], a->alias[i][j]);
				said = 1;
			}
		if (a->noalias[i])
			printf("%s%s %llu", said ? ", " : " ", i == 3 ?
			    "(absent: all tokens trained)" : i == 0 ?
			    "(none: --group-size blocks)" : "(none)",
			    a->noalias[i]);
		putchar('\n');
	}
}

static void
print_acc(const struct sctx *x, const struct acc *a, int utf8)
{
	const struct fields *f = &x->c->fields;
	const struct strata_mom *m;
	unsigned long long hmax = 0;
	double smax = 0, gap, rel, cv, len;
	size_t *ix, i, k;
	char p[32], verdict[128], cmp[128], why[128], *lab;
	int j;

	printf("%-22s %llu\n", "records", a->records);
	printf("%-22s %llu\n", "groups", a->groups);
	print_fields(x, a);

	putchar('\n');
	for (i = 0; i < a->nhist; i++)
		if (a->hist[i].groups > hmax)
			hmax = a->hist[i].groups;
	printf("%-10s %8s %7s\n", "group size", "groups", "share");
	for (i = 0; i < a->nhist; i++) {
		pct(p, sizeof(p), (double)a->hist[i].groups, (double)a->groups);
		printf("%10zu %8llu %7s  ", a->hist[i].size, a->hist[i].groups,
		    p);
		bar((double)a->hist[i].groups / (double)hmax, utf8);
		putchar('\n');
	}

	putchar('\n');
	ix = strata_sorted(&a->strata);
	for (i = 0; i < keymap_count(&a->strata); i++)
		if (srew(a, i)->n > smax)
			smax = srew(a, i)->n;
	fputs("stratum (", stdout);
	for (j = 0; j < f->nstratum; j++)
		printf("%s%s", j ? "," : "", f->stratum[j]);
	printf(")\n%-10s %8s %7s %12s %11s\n", "", "records", "share",
	    "reward mean", "reward std");
	for (i = 0; i < keymap_count(&a->strata); i++) {
		k = ix[i];
		m = srew(a, k);
		lab = strata_label_of(&a->strata, k);
		pct(p, sizeof(p), m->n, (double)a->records);
		printf("%-10s %8.0f %7s %12.4f %11.4f  ", lab, m->n, p,
		    strata_mom_mean(m), strata_mom_std(m));
		bar(m->n / smax, utf8);
		putchar('\n');
		free(lab);
	}
	free(ix);

	putchar('\n');
	pct(p, sizeof(p), (double)a->zero_std, (double)a->groups);
	printf("%-22s %llu of %llu groups (%s)  [TRL frac_reward_zero_std]\n",
	    "zero reward variance", a->zero_std, a->groups, p);
	len = strata_mom_mean(&a->len);
	printf("%-22s mean %.1f tokens, CV %.3f\n", "response length T", len,
	    len > 0 ? strata_mom_std(&a->len) / len : 0);
	printf("%-22s %.0f records, mean length ", "positive advantage",
	    a->pos.n);
	printf(a->pos.n ? "%.1f\n" : "-\n", strata_mom_mean(&a->pos));
	printf("%-22s %.0f records, mean length ", "negative advantage",
	    a->neg.n);
	printf(a->neg.n ? "%.1f\n" : "-\n", strata_mom_mean(&a->neg));
	printf("%-22s %llu records\n", "zero advantage", a->zero);
	if (reading(a, &gap, &rel, &cv) != FAV_NONE)
		printf("%-22s %+.1f tokens (%+.3f of the mean)\n",
		    "length gap pos - neg", gap, rel);
	reading_text(a, verdict, cmp, why, sizeof(why));
	printf("%-22s %s\n%-22s (%s; Balanced Aggregation 4.3.3)\n",
	    "reading", verdict, "", cmp);

	putchar('\n');
	printf("reward variance inside groups, pooled (Stratified GRPO "
	    "Theorem 1)\n");
	pct(p, sizeof(p), a->ss_between, a->ss_total);
	printf("%-22s %.6g = within %.6g + between %.6g\n", "total",
	    pooled(a->ss_total, a->records), pooled(a->ss_within, a->records),
	    pooled(a->ss_between, a->records));
	printf("%-22s %s\n", "between-stratum share", p);
	pct(p, sizeof(p), a->share_sum, (double)a->share_groups);
	printf("%-22s %s over %llu groups with variance\n",
	    "mean per group", p, a->share_groups);
}

static void
print_batches(const struct sctx *x)
{
	const struct acc *a;
	double gap, rel, cv;
	char z[32], s[32], g[32];
	size_t i;

	printf("per batch (%s)\n", x->c->fields.batch ? x->c->fields.batch :
	    "number");
	printf("%-10s %8s %7s %9s %9s %7s %9s %9s\n", "batch", "records",
	    "groups", "zero-var", "len mean", "len CV", "len gap",
	    "between");
	for (i = 0; i < x->nbatch; i++) {
		a = &x->batch[i];
		pct(z, sizeof(z), (double)a->zero_std, (double)a->groups);
		pct(s, sizeof(s), a->ss_between, a->ss_total);
		if (reading(a, &gap, &rel, &cv) != FAV_NONE)
			snprintf(g, sizeof(g), "%+.1f", gap);
		else
			snprintf(g, sizeof(g), "-");
		printf("%-10s %8llu %7llu %9s %9.1f %7.3f %9s %9s\n", a->label,
		    a->records, a->groups, z, strata_mom_mean(&a->len), cv, g,
		    s);
	}
	putchar('\n');
}

static void
print_human(const struct sctx *x, const struct acc *t,
    const struct pipeline_stats *st)
{
	int utf8 = utf8_locale();
	size_t i;

	fputs("rladv stats:", stdout);
	if (x->c->nfiles == 0)
		fputs(" -", stdout);
	for (i = 0; i < x->c->nfiles; i++)
		printf(" %s", x->c->files[i]);
	printf("\n%-22s %zu", "batches", x->nbatch);
	if (x->c->fields.batch)
		printf(" (--batch-key %s)", x->c->fields.batch);
	else if (x->c->go.batch_groups)
		printf(" (--batch-groups %zu)", x->c->go.batch_groups);
	putchar('\n');
	if (st->rejected)
		printf("%-22s %llu records\n", "rejected", st->rejected);
	putchar('\n');
	if (x->nbatch > 1)
		print_batches(x);
	print_acc(x, t, utf8);
}

/* ---- The page (--html) --------------------------------------------- */

static void
page_row(const struct acc *a, struct stats_row *r)
{
	r->label = a->label;
	r->records = (double)a->records;
	r->groups = (double)a->groups;
	r->zero_std = a->groups ? (double)a->zero_std / (double)a->groups :
	    NAN;
	r->reward = a->records ? strata_mom_mean(&a->reward) : NAN;
	r->len_pos = a->pos.n ? strata_mom_mean(&a->pos) : NAN;
	r->len_neg = a->neg.n ? strata_mom_mean(&a->neg) : NAN;
	r->between = a->ss_total > 0 ? a->ss_between / a->ss_total : NAN;
}

static int
print_page(const struct sctx *x, const struct acc *t,
    const struct pipeline_stats *st, FILE *f, struct diag *d)
{
	struct stats_page p;
	struct stats_row *row = diag_calloc(x->nbatch + 1, sizeof(*row));
	size_t ns = keymap_count(&t->strata);
	struct stats_stratum *ss = diag_calloc(ns + 1, sizeof(*ss));
	size_t *size = diag_calloc(t->nhist + 1, sizeof(*size)), *ix, i;
	double *groups = diag_calloc(t->nhist + 1, sizeof(*groups));
	char verdict[128], cmp[128], why[128], reading[400];
	int rc;

	memset(&p, 0, sizeof(p));
	p.c = x->c;
	p.rejected = st->rejected;
	for (i = 0; i < x->nbatch; i++)
		page_row(&x->batch[i], &row[i]);
	p.row = row;
	p.nrow = x->nbatch;
	page_row(t, &p.total);
	ix = strata_sorted(&t->strata);
	for (i = 0; i < ns; i++) {
		ss[i].label = strata_label_of(&t->strata, ix[i]);
		ss[i].records = srew(t, ix[i])->n;
		ss[i].reward_mean = strata_mom_mean(srew(t, ix[i]));
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
	p.len_pos = &x->len_pos;
	p.len_neg = &x->len_neg;
	reading_text(t, verdict, cmp, why, sizeof(why));
	snprintf(reading, sizeof(reading), "Reading: %s (%s; Balanced "
	    "Aggregation 4.3.3).", verdict, cmp);
	p.reading = reading;
	rc = stats_html_write(f, x->c->html, &p, d);
	for (i = 0; i < ns; i++)
		free((char *)ss[i].label);
	free(size);
	free(groups);
	free(ss);
	free(row);
	return rc;
}

int
cmd_stats(struct run *r)
{
	static cJSON_Hooks hooks = { diag_malloc, free };
	struct prefs *c = &r->p;
	struct sctx x;
	struct acc total;
	struct pipeline_stats st;
	struct diag d = { 0 };
	FILE *page = NULL;
	size_t i;
	int rc;

	cJSON_InitHooks(&hooks);
	if (c->html && c->json && strcmp(c->html, "-") == 0) {
		rc = diag_set(&d, EXIT_USAGE, "--html - and --json both write "
		    "to standard output: give the page a file, e.g. --html "
		    "stats.html");
		diag_print(&d);
		return rc;
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
	memset(&x, 0, sizeof(x));
	x.c = c;
	/* Every figure is per group, so groups stream unless they must be
	 * gathered (--unsorted). */
	rc = pipeline_run(c, 0, !c->go.unsorted, on_batch, &x, &st, &d);
	if (rc == 0) {
		acc_init(&total);
		for (i = 0; i < x.nbatch; i++)
			acc_merge(&total, &x.batch[i]);
		if (page != NULL) {
			rc = print_page(&x, &total, &st, page, &d);
			page = NULL;
		}
		/* --html -: the page is standard output.  A failed write
		 * shows in ferror(stdout), which run_cmd() checks. */
		if (rc == 0 && !(c->html && strcmp(c->html, "-") == 0)) {
			if (c->json)
				(void)print_json(&x, &total, &st);
			else
				print_human(&x, &total, &st);
		}
		acc_free(&total);
	}
	html_abandon(page, c->html);
	if (rc != 0)
		diag_print(&d);
	for (i = 0; i < x.nbatch; i++)
		acc_free(&x.batch[i]);
	free(x.batch);
	strata_cells_free(&x.cells);
	return rc;
}
