/*
 * stats.c - the sums behind rladv stats.  Per batch and in
 * total: records, groups and their sizes, the field names that were used,
 * the strata, the share of groups whose rewards are all equal, response
 * lengths and the gap between the lengths of positive and negative
 * responses (Balanced Aggregation §4.3.3; the sign is the advantage's
 * under -a, computed here), the split of the reward variance inside
 * groups into within- and between-stratum parts (Stratified GRPO, Theorem
 * 1), and the papers' diagnostics (stats_papers.c).
 *
 * A record whose every reward is null (--null-reward unscored, TRL's
 * None) is in none of the figures of the rewards, which are taken on
 * the scored records alone (bview_scored()), as the advantages are and
 * as TRL's logged reward metrics are (nanmean); it stays in the counts,
 * the lengths, the signs (its advantage is 0) and the losses, since its
 * tokens are trained.
 *
 * Every figure is a sum over groups, so groups are folded in one at a
 * time and memory is bounded by a group, whatever the batch, unless the
 * estimator reads the whole batch (cmd_stats.c then has batches held).
 * Running out of memory ends the process in diag's allocators.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advmath.h"
#include "batch.h"
#include "bview.h"
#include "compute.h"
#include "diag.h"
#include "profile.h"
#include "slab.h"
#include "stats.h"
#include "stats_html.h"

const char *const stats_role_names[STATS_NROLES] = { "group", "reward",
	"logprobs", "mask", "tokens", "stratum", "length", "spans",
	"prompt_len", "sample_mask", "remove", "batch", "trajectory",
	"traj_last", "baseline", "expect", "rollout" };

const enum stats_role stats_role_order[STATS_NSHOWN] = { STATS_GROUP,
	STATS_TRAJ, STATS_TRAJ_LAST, STATS_ROLLOUT, STATS_REWARD, STATS_BASELINE,
	STATS_LOGPROBS, STATS_MASK, STATS_SPANS, STATS_PROMPT_LEN,
	STATS_SAMPLE_MASK, STATS_REMOVE, STATS_TOKENS, STATS_LENGTH,
	STATS_STRATUM, STATS_EXPECT };

const struct strata_mom *
stats_rewards(const struct stats_acc *a, size_t k)
{
	return &((struct stats_sval *)keymap_val(&a->strata, k))->reward;
}

struct stats_pstratum *
stats_pstratum(const struct stats_acc *a, size_t k)
{
	return &((struct stats_sval *)keymap_val(&a->strata, k))->p;
}

double
stats_srecords(const struct stats_acc *a, size_t k)
{
	return ((struct stats_sval *)keymap_val(&a->strata, k))->records;
}

static struct stats_sval *
sval(struct stats_acc *a, size_t k)
{
	return keymap_val(&a->strata, k);
}

/* An empty accumulator: its table must know the size of its values. */
static void
acc_init(struct stats_acc *a)
{
	memset(a, 0, sizeof(*a));
	keymap_init(&a->strata, sizeof(struct stats_sval));
}

static void
acc_free(struct stats_acc *a)
{
	free(a->label);
	free(a->where);
	free(a->hist);
	keymap_free(&a->strata);
}

static void
hist_add(struct stats_acc *a, size_t size, unsigned long long groups)
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

/* Folds batch o into the total t. */
static void
acc_merge(struct stats_acc *t, const struct stats_acc *o)
{
	const char *key;
	size_t i, k, j, len;

	t->records += o->records;
	t->groups += o->groups;
	t->zero_std += o->zero_std;
	t->scored += o->scored;
	t->scored_groups += o->scored_groups;
	t->with_stratum += o->with_stratum;
	t->remove_absent += o->remove_absent;
	t->roll_own += o->roll_own;
	for (i = 0; i < FR_NLISTED; i++) {
		t->noalias[i] += o->noalias[i];
		for (j = 0; j < FIELD_MAXNAMES; j++)
			t->alias[i][j] += o->alias[i][j];
	}
	for (i = 0; i < o->nhist; i++)
		hist_add(t, o->hist[i].size, o->hist[i].groups);
	for (i = 0; i < keymap_count(&o->strata); i++) {
		key = keymap_key(&o->strata, i, &len);
		k = keymap_get(&t->strata, key, len, NULL);
		sval(t, k)->records += stats_srecords(o, i);
		strata_mom_merge(&sval(t, k)->reward, stats_rewards(o, i));
		stats_papers_merge_stratum(stats_pstratum(t, k),
		    stats_pstratum(o, i));
	}
	stats_papers_merge(&t->p, &o->p);
	strata_mom_merge(&t->reward, &o->reward);
	strata_mom_merge(&t->len, &o->len);
	strata_mom_merge(&t->pos, &o->pos);
	strata_mom_merge(&t->neg, &o->neg);
	t->zero += o->zero;
	xsum_merge(&t->ss_total, &o->ss_total);
	xsum_merge(&t->ss_within, &o->ss_within);
	xsum_merge(&t->ss_between, &o->ss_between);
	t->share_sum += o->share_sum;
	t->share_groups += o->share_groups;
}

void
stats_init(struct stats *s, const struct prefs *c)
{
	const char *const *names;
	struct buf b;
	int r, i, n;

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->ap = c->ap;
	acc_init(&s->total);
	/* A named role of several parts (a composite stratum, rewards
	 * summed) counts once, under its parts' names joined. */
	for (r = 0; r < FR_NLISTED; r++) {
		names = fields_names(&c->fields, r, &n);
		if (!(c->fields.named & FN(r)) || n < 2)
			continue;
		memset(&b, 0, sizeof(b));
		for (i = 0; i < n; i++) {
			if (i)
				buf_add(&b, ",", 1);
			buf_add(&b, names[i], strlen(names[i]));
		}
		buf_add(&b, "", 1);
		s->joined[r] = b.p;
	}
}

void
stats_free(struct stats *s)
{
	size_t i;

	for (i = 0; i < s->nbatch; i++)
		acc_free(&s->batch[i]);
	free(s->batch);
	acc_free(&s->total);
	for (i = 0; i < FR_NLISTED; i++)
		free(s->joined[i]);
	free(s->mem);
	strata_cells_free(&s->cells);
}

void
stats_finish(struct stats *s, unsigned long long rejected)
{
	size_t i;

	for (i = 0; i < s->nbatch; i++) {
		stats_papers_finish(s->c, &s->batch[i].p);
		acc_merge(&s->total, &s->batch[i]);
	}
	stats_papers_total(&s->total.p);
	s->rejected = rejected;
}

/*
 * The batch that the groups at hand belong to: a new one unless the
 * pipeline hands the input's batch over in parts (streaming, one group at
 * a time) and this is not its first part.
 */
static struct stats_acc *
batch_for(struct stats *s, const struct gbatch *b)
{
	struct stats_acc *a;
	struct buf lab = { 0 };
	const char *key, *file;
	unsigned long long line;
	char tmp[64];
	size_t len;

	if (!batch_starts(b) && s->nbatch > 0)
		return &s->batch[s->nbatch - 1];
	if (s->nbatch == s->bcap) {
		s->bcap = s->bcap ? 2 * s->bcap : 4;
		s->batch = diag_realloc(s->batch, s->bcap * sizeof(*s->batch));
	}
	a = &s->batch[s->nbatch++];
	acc_init(a);
	if (s->c->go.has_batch_key) {
		key = batch_key(b, &len);
		record_key_label(key, len, &lab);
	} else {
		snprintf(tmp, sizeof(tmp), "%zu", s->nbatch);
		buf_add(&lab, tmp, strlen(tmp));
	}
	buf_add(&lab, "", 1);
	a->label = lab.p;
	file = batch_gwhere(b, 0, &line, NULL);
	snprintf(tmp, sizeof(tmp), ":%llu", line);
	a->where = diag_malloc(strlen(file) + strlen(tmp) + 1);
	strcpy(a->where, file);
	strcat(a->where, tmp);
	return a;
}

/* The records of group g, view records o .. o + n - 1, every one:
 * counts, strata, lengths, and the sign of each advantage, the
 * estimator's (-a, GRPO's by default; an unscored record's is 0). */
static void
add_records(struct stats *st, struct stats_acc *a, const struct gbatch *b,
    const struct batch *v, size_t o, size_t n)
{
	const struct record *r;
	struct record tmp;
	size_t k, i;
	double dev;

	for (k = o; k < o + n; k++) {
		r = batch_rec(b, k, &tmp);
		a->records++;
		sval(a, st->cells.loc[v->strat[k]])->records++;
		if (r->has_stratum)
			a->with_stratum++;
		if (r->remove_absent)
			a->remove_absent++;
		if (v->roll == NULL || v->roll[k] == BATCH_ROLL_OWN)
			a->roll_own++;
		for (i = 0; i < FR_NLISTED; i++)
			if (r->alias[i] >= 0)
				a->alias[i][(int)r->alias[i]]++;
			else
				a->noalias[i]++;
		/* Equal rewards give exactly 0. */
		dev = st->adv[k];
		if (dev == 0)
			a->zero++;
		/* Lengths only of the records that have one. */
		if (!r->has_len)
			continue;
		strata_mom_add(&a->len, v->T[k]);
		if (dev > 0)
			strata_mom_add(&a->pos, v->T[k]);
		else if (dev < 0)
			strata_mom_add(&a->neg, v->T[k]);
		if (st->c->html != NULL && dev != 0)
			bins_add(dev > 0 ? &st->len_pos : &st->len_neg,
			    v->T[k]);
	}
}

/* The rewards of group g of u, its scored records: the cells' sums
 * (prescaled), the strata's moments and the batch's. */
static void
add_rewards(struct stats *st, struct stats_acc *a, const struct batch *u,
    size_t g)
{
	struct strata_cells *c = &st->cells;
	size_t k;
	uint32_t s;

	for (k = u->goff[g]; k < u->goff[g + 1]; k++) {
		s = u->strat[k];
		c->sum[0][s] += st->rs[k];
		strata_mom_add(&sval(a, c->loc[s])->reward, u->r[k]);
		strata_mom_add(&a->reward, u->r[k]);
		a->scored++;
	}
}

/*
 * Theorem 1: sum (r - mu)^2 = sum (r - mu_k)^2 + sum_k n_k (mu_k - mu)^2,
 * group by group.  Each cell's sum becomes its mean; a cell of equal
 * rewards takes the reward itself, which sum / n may miss by a rounding.
 * v's rewards are the group's divided by 2^k: its sums of squares are
 * added on the scale 2^2k.
 */
static void
add_variance(struct stats_acc *a, struct strata_cells *c,
    const struct batch *v, size_t o, size_t n, size_t ns, double mu, int k2)
{
	double tot = 0, wit = 0, bet = 0, dev, *mean = c->sum[0];
	size_t j, k;

	for (j = 0; j < ns; j++)
		mean[j] = c->eq[j] ? c->first[j] : mean[j] / (double)c->cnt[j];
	for (k = o; k < o + n; k++) {
		dev = v->r[k] - mu;
		tot += dev * dev;
		dev = v->r[k] - mean[v->strat[k]];
		wit += dev * dev;
	}
	for (j = 0; j < ns; j++) {
		if (c->cnt[j] == 0)
			continue;	/* every record unscored */
		dev = mean[j] - mu;
		bet += (double)c->cnt[j] * dev * dev;
	}
	xsum_add(&a->ss_total, tot, 2 * k2);
	xsum_add(&a->ss_within, wit, 2 * k2);
	xsum_add(&a->ss_between, bet, 2 * k2);
	if (tot > 0) {
		a->share_sum += bet / tot;
		a->share_groups++;
	}
}

/*
 * sv: v with each group's rewards divided by 2^kg[g], as the estimators
 * prescale a group past 2^500 (advmath_tame()), so that the figures
 * summed from them never overflow; the sums are put back on their scale
 * (struct xsum).  A group below 2^-500 (rewards near 1e-320, whose
 * squares underflow) is brought near 1 the same way, so that its shares
 * are figures, not 0/0.  Other groups are as they are (kg 0).
 */
static void
prescale(struct stats *s, const struct batch *v, struct batch *sv)
{
	size_t g, i;
	double mx;

	for (g = 0; g < v->ngroups; g++) {
		for (mx = 0, i = v->goff[g]; i < v->goff[g + 1]; i++)
			mx = fmax(mx, fabs(v->r[i]));
		s->kg[g] = advmath_tame(mx, 0, 0);
		for (i = v->goff[g]; i < v->goff[g + 1]; i++)
			s->rs[i] = s->kg[g] ? ldexp(v->r[i], -s->kg[g]) :
			    v->r[i];
	}
	*sv = *v;
	sv->r = s->rs;
}

/* Room in the scratch block for batch v; what it held is lost when it is
 * made again, since each batch fills it anew. */
static void
scratch_grow(struct stats *s, const struct batch *v)
{
	struct slab sl = SLAB_INIT;

	if (v->n <= s->cap && v->ngroups <= s->gcap)
		return;
	if (v->n > s->cap)
		s->cap = v->n + v->n / 2;
	if (v->ngroups > s->gcap)
		s->gcap = v->ngroups + v->ngroups / 2;
	free(s->mem);
	while (slab_pass(&sl)) {
		s->adv = slab_take(&sl, s->cap, sizeof(*s->adv));
		s->w = slab_take(&sl, s->cap, sizeof(*s->w));
		s->rs = slab_take(&sl, s->cap, sizeof(*s->rs));
		s->as = slab_take(&sl, s->cap, sizeof(*s->as));
		s->sadv = slab_take(&sl, s->cap, sizeof(*s->sadv));
		s->kg = slab_take(&sl, s->gcap, sizeof(*s->kg));
	}
	if ((s->mem = sl.mem) == NULL)
		diag_oom();
}

/*
 * The reward figures of group g of u (sv: its rewards prescaled), the
 * scored records of a group of the batch, with their advantages adv.
 * 0, or a status with d set.
 */
static int
add_group(struct stats *s, struct stats_acc *a, const struct batch *u,
    const struct batch *sv, size_t g, const double *adv, struct diag *d)
{
	size_t o = u->goff[g], n = u->goff[g + 1] - o;
	struct advmath_mom gm;

	gm = advmath_moments(sv->r + o, NULL, 0, n, 0);
	a->scored_groups++;
	if (gm.equal)
		a->zero_std++;
	add_rewards(s, a, u, g);
	if (stats_papers_rewards(s, a, u, g, adv, d) != 0)
		return d->status;
	add_variance(a, &s->cells, sv, o, n, u->nstrat[g], gm.mean, s->kg[g]);
	return 0;
}

int
stats_add(void *ctx, const struct gbatch *b, const struct batch *v,
    struct diag *d)
{
	struct stats *s = ctx;
	struct stats_acc *a;
	struct bview sc;
	struct batch sv;
	const struct batch *u = v;
	const double *uadv;
	const char *line;
	size_t g, j, i, o, n;
	int rc = 0, own;

	scratch_grow(s, v);
	/* Whose dump this looks like, from its first record. */
	if (s->nbatch == 0 && s->guess == NULL && v->n > 0 &&
	    s->c->fields.profile == NULL) {
		line = batch_line(b, 0, &n);
		s->guess = profile_guess(line, n);
	}
	/* The estimator's advantages: their signs split the lengths, and
	 * the papers' figures read them.  Nothing is counted before they
	 * are known: skip mode hands the batch over again without a group
	 * whose numbers failed. */
	if (compute_batch(s->c, &s->ap, v, s->adv, NULL, d) != 0)
		return d->status;
	/* The reward figures read the scored records alone (u), as the
	 * advantages do; the others every record (v). */
	memset(&sc, 0, sizeof(sc));
	uadv = s->adv;
	if (v->unscored != NULL) {
		if (bview_scored(&sc, v) != 0)
			return diag_set(d, EXIT_IO, "out of memory");
		u = &sc.v;
		for (i = 0; i < u->n; i++)
			s->sadv[i] = s->adv[sc.from[i]];
		uadv = s->sadv;
	}
	a = batch_for(s, b);
	prescale(s, u, &sv);
	for (g = 0, j = 0; g < v->ngroups && rc == 0; g++) {
		o = v->goff[g];
		n = v->goff[g + 1] - o;
		a->groups++;
		hist_add(a, n, 1);
		/* u's group j holds g's scored records, where g has any. */
		own = j < u->ngroups && (u == v || sc.from[u->goff[j]] < o + n);
		strata_cells_fill(&s->cells, &a->strata, b, u == v ? &sv : v,
		    g);
		if (u != v && own)
			strata_cells_scored(&s->cells, &sv, j);
		add_records(s, a, b, v, o, n);
		stats_papers_group(s, a, b, v, g, s->adv);
		if (own)
			rc = add_group(s, a, u, &sv, j++, uadv, d);
	}
	bview_free(&sc);
	return rc;
}

void
stats_stratum_name(const struct stats *s, const struct stats_acc *a,
    char *buf, size_t size)
{
	const char *const *names;
	unsigned used = 0;
	int i, n;

	names = fields_names(&s->c->fields, FR_STRATUM, &n);
	for (i = 0; i < n; i++)
		if (a->alias[FR_STRATUM][i])
			used |= 1u << i;
	strata_field_name(buf, size, names, n, s->joined[FR_STRATUM] != NULL,
	    used);
}

size_t
stats_uses(const struct stats *s, const struct stats_acc *a,
    struct stats_use *u)
{
	const struct fields *f = &s->c->fields;
	const char *const *names;
	unsigned long long absent;
	size_t n = 0, k;
	int i, j, nn;

	for (k = 0; k < STATS_NSHOWN; k++) {
		i = stats_role_order[k];
		names = fields_names(f, i, &nn);
		if (i >= FR_NLISTED) {
			/*
			 * The field an option names is required of every
			 * record (recfields_needed()): each record counted
			 * had it, but for the removal and the rollout where
			 * the profile made them optional (--from slime),
			 * whose records without one (or, for the rollout,
			 * with null) have a row of their own.  remax's baseline has
			 * a name even where no estimator reads it.
			 */
			if (nn == 0 || a->records == 0 || (i == FR_BASELINE &&
			    !f->need_baseline))
				continue;
			absent = i == FR_REMOVE ? a->remove_absent :
			    i == FR_ROLLOUT ? a->roll_own : 0;
			if (a->records > absent) {
				u[n].role = (enum stats_role)i;
				u[n].name = names[0];
				u[n++].records = a->records - absent;
			}
			if (absent > 0) {
				u[n].role = (enum stats_role)i;
				u[n].name = NULL;
				u[n++].records = absent;
			}
			continue;
		}
		for (j = 0; j < nn; j++)
			if (a->alias[i][j]) {
				u[n].role = (enum stats_role)i;
				u[n].name = s->joined[i] ? s->joined[i] :
				    names[j];
				u[n++].records = a->alias[i][j];
			}
		if (a->noalias[i]) {
			u[n].role = (enum stats_role)i;
			u[n].name = NULL;
			u[n++].records = a->noalias[i];
		}
	}
	return n;
}

/*
 * Balanced Aggregation §4.3.3: token-mean suffers when positive and
 * negative responses differ in length (sign-length coupling), seq-mean
 * when lengths vary a lot (equal weight per sequence).  The paper gives
 * no threshold; both quantities are relative to the mean length, so the
 * larger one names the weakness that dominates.
 */
enum stats_favour
stats_reading(const struct stats_acc *a, double *gap, double *rel,
    double *cv)
{
	double m = strata_mom_mean(&a->len);

	*cv = m > 0 ? strata_mom_std(&a->len) / m : 0;
	*gap = strata_mom_mean(&a->pos) - strata_mom_mean(&a->neg);
	*rel = m > 0 ? *gap / m : 0;
	if (a->pos.n == 0 || a->neg.n == 0 || m <= 0)
		return STATS_FAV_NONE;
	return fabs(*rel) > *cv ? STATS_FAV_SEQ : STATS_FAV_TOKEN;
}

void
stats_reading_text(const struct stats_acc *a, char *verdict, char *cmp,
    char *why, size_t n)
{
	double gap, rel, cv;

	switch (stats_reading(a, &gap, &rel, &cv)) {
	case STATS_FAV_NONE:
		snprintf(verdict, n, "undefined");
		if (a->pos.n > 0 && a->neg.n > 0) {
			/* Both signs, but no record trains a token. */
			snprintf(cmp, n, "no response has a trained token");
			snprintf(why, n, "no length to weigh");
			break;
		}
		snprintf(cmp, n, "no group has both positive and negative "
		    "advantages");
		snprintf(why, n, "no length gap to weigh");
		break;
	case STATS_FAV_SEQ:
		snprintf(verdict, n, "seq-mean favoured over token-mean");
		snprintf(cmp, n, "|gap|/mean %.3f > length CV %.3f",
		    fabs(rel), cv);
		snprintf(why, n, "token-mean's sign-length coupling costs more "
		    "than seq-mean's equal weight per sequence");
		break;
	case STATS_FAV_TOKEN:
		snprintf(verdict, n, "token-mean favoured over seq-mean");
		snprintf(cmp, n, "length CV %.3f > |gap|/mean %.3f", cv,
		    fabs(rel));
		snprintf(why, n, "seq-mean's equal weight per sequence costs "
		    "more than token-mean's sign-length coupling");
		break;
	}
}

double
stats_pooled(const struct xsum *ss, unsigned long long n)
{
	return n ? xsum_over(ss, (double)n) : 0;
}

double
stats_share(const struct xsum *a, const struct xsum *b)
{
	return xsum_ratio(a, b);
}

void
stats_row_of(const struct stats_acc *a, struct stats_row *r)
{
	size_t k;

	r->label = a->label;
	r->records = (double)a->records;
	r->groups = (double)a->groups;
	r->zero_std = a->scored_groups ? (double)a->zero_std /
	    (double)a->scored_groups : NAN;
	r->reward = a->scored ? strata_mom_mean(&a->reward) : NAN;
	r->tool_calls = xsum_over(&a->p.tc_sum, a->p.tc_n);
	r->len_pos = a->pos.n ? strata_mom_mean(&a->pos) : NAN;
	r->len_neg = a->neg.n ? strata_mom_mean(&a->neg) : NAN;
	r->gap = r->len_pos - r->len_neg;
	r->within = a->scored ? stats_pooled(&a->ss_within, a->scored) : NAN;
	r->between_var = a->scored ? stats_pooled(&a->ss_between,
	    a->scored) : NAN;
	r->between = a->ss_total.s > 0 ? stats_share(&a->ss_between,
	    &a->ss_total) : NAN;
	for (k = 0; k < STATS_NLOSS; k++)
		r->loss[k] = a->p.final[k];
}
