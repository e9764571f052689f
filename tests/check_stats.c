/*
 * check_stats.c - tests of rladv stats' sums (src/stats.c) on two small
 * batches worked out by hand: records, groups, sizes, equal-reward
 * groups, the table of fields used, strata and their reward moments,
 * lengths by the sign of the advantage, the sign-length reading, and
 * Theorem 1's split of the reward variance; then the total of the two.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "compute.h"
#include "loss_weights.h"
#include "options.h"
#include "record.h"
#include "stats.h"
#include "testutil.h"

#define FNAME	"s.jsonl"

/*
 * Batch 1, group a: rewards 1 0 1 1 (mean 0.75), tool_calls 0 0 1 1,
 * masks of 2, 2, 4, 4 ones.  Batch 2, group b: rewards 0.5 0.5 (equal),
 * tool_calls 2 and none, no mask, 1 and 3 log-probs.
 */
static const char *const lines[] = {
	"{\"prompt_id\":\"a\",\"tool_calls\":0,\"reward\":1,"
	    "\"logprobs\":[-1,-1],\"mask\":[1,1]}",
	"{\"prompt_id\":\"a\",\"tool_calls\":0,\"reward\":0,"
	    "\"logprobs\":[-1,-1],\"mask\":[1,1]}",
	"{\"prompt_id\":\"a\",\"tool_calls\":1,\"reward\":1,"
	    "\"logprobs\":[-1,-1,-1,-1],\"mask\":[1,1,1,1]}",
	"{\"prompt_id\":\"a\",\"tool_calls\":1,\"reward\":1,"
	    "\"logprobs\":[-1,-1,-1,-1],\"mask\":[1,1,1,1]}",
	"{\"prompt_id\":\"b\",\"tool_calls\":2,\"reward\":0.5,"
	    "\"logprobs\":[-1]}",
	"{\"prompt_id\":\"b\",\"reward\":0.5,\"logprobs\":[-1,-1,-1]}",
};

/* Lines from..to - 1 as one batch, a group per prompt (lines 1-4 are
 * "a", 5-6 "b"), handed to stats_add. */
static void
add_batch(struct stats *s, struct gbatch *b, const struct prefs *p,
    size_t from, size_t to)
{
	struct buf keys = { 0 }, runs = { 0 };
	struct diag d = { 0 };
	struct record r;
	struct batch v;
	size_t i, g = 0;

	batch_reset(b, 1);
	for (i = from; i < to; i++) {
		keys.len = runs.len = 0;
		ck_assert_int_eq(record_parse(lines[i], strlen(lines[i]),
		    &p->fields, &r, &keys, &runs, FNAME, i + 1, &d), 0);
		if (i == 4 && i > from)
			g = batch_ngroups(b);
		batch_add(b, &r, &keys, &runs, lines[i], strlen(lines[i]), 1,
		    FNAME, i + 1, g);
	}
	batch_view(b, &v, 0);
	ck_assert_int_eq(stats_add(s, b, &v, &d), 0);
	buf_free(&keys);
	buf_free(&runs);
}

START_TEST(two_batches)
{
	struct prefs p;
	struct stats s;
	struct gbatch *b = batch_new();
	struct stats_use u[STATS_MAXUSE];
	const struct stats_acc *a, *t;
	const struct strata_mom *m;
	char verdict[128], cmp[128], why[128];
	double gap, rel, cv;
	size_t n, *ix;
	char *lab;

	options_defaults(&p);
	p.fields.need_stratum = 0;
	stats_init(&s, &p);
	add_batch(&s, b, &p, 0, 4);
	add_batch(&s, b, &p, 4, 6);
	stats_finish(&s, 3);
	ck_assert_uint_eq(s.nbatch, 2);
	ck_assert_uint_eq(s.rejected, 3);

	/* Batch 1: squares about 0.75 are 1/16 9/16 1/16 1/16: 3/4 in all;
	 * about the cells' means 0.5 and 1: 1/4 1/4 0 0, within 1/2; the
	 * cells 2 (0.5 - 0.75)^2 + 2 (1 - 0.75)^2, between 1/4. */
	a = &s.batch[0];
	ck_assert_str_eq(a->label, "1");
	ck_assert_str_eq(a->where, "s.jsonl:1");
	ck_assert(a->records == 4 && a->groups == 1 && a->zero_std == 0);
	ck_assert(xsum_value(&a->ss_total) == 0.75 && xsum_value(&a->ss_within) == 0.5 &&
	    xsum_value(&a->ss_between) == 0.25);
	ck_assert(a->share_groups == 1);
	ck_assert_rel(a->share_sum, 1.0 / 3, 1e-15);
	/* Advantages' signs: + - + +, lengths 2 4 4 against 2. */
	ck_assert(a->pos.n == 3 && a->neg.n == 1 && a->zero == 0);
	ck_assert_rel(strata_mom_mean(&a->pos), 10.0 / 3, 1e-15);
	ck_assert(strata_mom_mean(&a->neg) == 2);
	/* Batch 2: equal rewards, no spread, no sign. */
	a = &s.batch[1];
	ck_assert_str_eq(a->label, "2");
	ck_assert_str_eq(a->where, "s.jsonl:5");
	ck_assert(a->zero_std == 1 && xsum_value(&a->ss_total) == 0 && a->zero == 2);
	ck_assert(a->share_groups == 0 && a->with_stratum == 1);

	/* The total. */
	t = &s.total;
	ck_assert(t->records == 6 && t->groups == 2 && t->zero_std == 1);
	ck_assert(t->nhist == 2 && t->hist[0].size == 2 &&
	    t->hist[0].groups == 1 && t->hist[1].size == 4);
	ck_assert(xsum_value(&t->ss_total) == 0.75 && xsum_value(&t->ss_between) == 0.25);
	ck_assert_rel(stats_pooled(&t->ss_within, t->records), 0.5 / 6, 1e-15);
	ck_assert(stats_pooled(&t->ss_total, 0) == 0);
	/* Lengths 2 2 4 4 1 3: mean 8/3, population variance 11/9. */
	ck_assert_rel(strata_mom_mean(&t->len), 8.0 / 3, 1e-15);
	ck_assert_rel(strata_mom_var(&t->len), 11.0 / 9, 1e-14);
	/* Gap 10/3 - 2 = 4/3, 1/2 of the mean; CV sqrt(11)/8 = 0.41: the
	 * gap is the larger, seq-mean is favoured. */
	ck_assert_int_eq(stats_reading(t, &gap, &rel, &cv), STATS_FAV_SEQ);
	ck_assert_rel(gap, 4.0 / 3, 1e-14);
	ck_assert_rel(rel, 0.5, 1e-14);
	ck_assert_rel(cv, sqrt(11) / 8, 1e-14);
	stats_reading_text(t, verdict, cmp, why, sizeof(why));
	ck_assert_str_eq(verdict, "seq-mean favoured over token-mean");
	ck_assert_str_eq(cmp, "|gap|/mean 0.500 > length CV 0.415");
	/* Batch 2 alone has no sign at all. */
	ck_assert_int_eq(stats_reading(&s.batch[1], &gap, &rel, &cv),
	    STATS_FAV_NONE);

	/* Strata in reading order: 0 (1, 0), 1 (1, 1), 2 (0.5), none. */
	ix = strata_sorted(&t->strata);
	ck_assert_uint_eq(keymap_count(&t->strata), 4);
	lab = strata_label_of(&t->strata, ix[0]);
	ck_assert_str_eq(lab, "0");
	free(lab);
	lab = strata_label_of(&t->strata, ix[3]);
	ck_assert_str_eq(lab, "(none)");
	free(lab);
	m = stats_rewards(t, ix[0]);
	ck_assert(m->n == 2 && strata_mom_mean(m) == 0.5 &&
	    strata_mom_std(m) == 0.5);
	m = stats_rewards(t, ix[1]);
	ck_assert(m->n == 2 && strata_mom_mean(m) == 1 &&
	    strata_mom_std(m) == 0);
	ck_assert(stats_rewards(t, ix[3])->n == 1);
	free(ix);

	/* The table of fields used, role by role. */
	n = stats_uses(&s, t, u);
	ck_assert_uint_eq(n, 8);
	ck_assert(u[0].role == STATS_GROUP && u[0].records == 6);
	ck_assert_str_eq(u[0].name, "prompt_id");
	ck_assert(u[3].role == STATS_MASK && u[3].records == 4);
	ck_assert_str_eq(u[3].name, "mask");
	ck_assert(u[4].role == STATS_MASK && u[4].name == NULL &&
	    u[4].records == 2);
	/* No token ids: the log-probs give every length. */
	ck_assert(u[5].role == STATS_TOKENS && u[5].name == NULL &&
	    u[5].records == 6);
	ck_assert(u[6].role == STATS_STRATUM && u[6].records == 5);
	ck_assert_str_eq(u[6].name, "tool_calls");
	ck_assert(u[7].role == STATS_STRATUM && u[7].name == NULL &&
	    u[7].records == 1);
	ck_assert_str_eq(stats_role_names[STATS_LOGPROBS], "logprobs");
	/* A role of one name has a row where the run reads it, in its
	 * place (the spans after the mask), each record having its field;
	 * remax's baseline, named by default, only where remax reads it. */
	p.fields.spans = "sp";
	n = stats_uses(&s, t, u);
	ck_assert_uint_eq(n, 9);
	ck_assert(u[5].role == STATS_SPANS && u[5].records == 6);
	ck_assert_str_eq(u[5].name, "sp");
	ck_assert(u[6].role == STATS_TOKENS && u[8].role == STATS_STRATUM);
	ck_assert_uint_eq(stats_uses(&s, &s.batch[1], u), 8);
	ck_assert(u[4].role == STATS_SPANS && u[4].records == 2);
	p.fields.need_baseline = 1;
	n = stats_uses(&s, t, u);
	ck_assert_uint_eq(n, 10);
	ck_assert(u[2].role == STATS_BASELINE && u[2].records == 6);
	ck_assert_str_eq(u[2].name, "reward_baselines");
	ck_assert_str_eq(stats_role_names[STATS_PROMPT_LEN], "prompt_len");

	stats_free(&s);
	batch_free(b);
}
END_TEST

/*
 * The papers' diagnostics on the same two batches.  Group a: K = 4,
 * mean 3/4, population deviation s = sqrt(3)/4; stratum 0 (1, 0) has
 * mean 1/2 and s_0 = 1/2, stratum 1 (1, 1) mean 1 and s_1 = 0.  With
 * e = 1e-6 (Stratified GRPO Proposition 3, Eq. 14):
 *   alpha_0 = (1/2 + e) / (s + e),  alpha_1 = e / (s + e),
 *   Delta_0 = -(1/4) / (s + e),     Delta_1 = (1/4) / (s + e).
 * Theorem 2 (pooled over K = 4): Term A = (2/16 + 2/16) / 4 = 1/16,
 * Term B = 2 (1/4) (1 - 1/(1/2 + e)^2) / 4, Var[A_SAN] =
 * 2 (1/4) / (1/2 + e)^2 / 4; Var[A_G] = 3/16 = A + B + Var[A_SAN].
 * Theorem 3: stratum 0 weighs (2/4) / (1/2 + e); stratum 1 has no
 * spread, its 2 records' SAN is forced to 0, as are group b's 2 (cells
 * of one record), whose alpha is e / e = 1 and offset 0.
 * Balanced Aggregation's on-policy loss of batch 1 under GRPO: A+ =
 * (1/4) / (s + e) for the three 1s, A- = -(3/4) / (s + e), T = 2 2 4 4:
 * sum A T = (2 + 8) A+ - 2 (3 A+) = 4 A+, so token-mean (N = 12) gives
 * -4 A+ / 12 = -A+/3, seq-sum (n = 4) -A+, and seq, balanced,
 * balanced-gen 0 (a group's GRPO advantages sum to 0; balanced weighs
 * 3/4 / 10 and 1/4 / 2, 3 A+ 10 3/40 = 9/4 A+ against 3 A+ 2 / 8).
 * Batch 2's advantages are all 0: its losses are 0; the total is the
 * mean over the two batches.  Tool calls: 0 0 1 1 (mean 1/2), then 2.
 */
START_TEST(papers)
{
	struct prefs p;
	struct stats s;
	struct gbatch *b = batch_new();
	const struct stats_acc *a, *t;
	const struct stats_pstratum *ps;
	const double e = 1e-6, sd = sqrt(3) / 4, ap = 0.25 / (sd + e);
	size_t *ix;

	options_defaults(&p);
	p.fields.need_stratum = 0;
	stats_init(&s, &p);
	add_batch(&s, b, &p, 0, 4);
	add_batch(&s, b, &p, 4, 6);
	stats_finish(&s, 0);
	a = &s.batch[0];
	t = &s.total;
	ix = strata_sorted(&t->strata);
	ps = stats_pstratum(t, ix[0]);
	ck_assert(ps->cells == 1 && ps->wcells == 1 && ps->forced == 0);
	ck_assert_rel(ps->alpha, (0.5 + e) / (sd + e), 1e-12);
	ck_assert_rel(ps->off, -0.25 / (sd + e), 1e-12);
	ck_assert_rel(ps->off2, 0.0625 / ((sd + e) * (sd + e)), 1e-12);
	ck_assert_rel(ps->weight, 0.5 / (0.5 + e), 1e-12);
	ps = stats_pstratum(t, ix[1]);
	ck_assert_rel(ps->alpha, e / (sd + e), 1e-9);
	ck_assert_rel(ps->off, 0.25 / (sd + e), 1e-12);
	ck_assert(ps->forced == 2 && ps->wcells == 0 && ps->weight == 0);
	ps = stats_pstratum(t, ix[3]);
	ck_assert(ps->alpha == 1 && ps->off == 0 && ps->forced == 1);
	free(ix);
	ck_assert(t->p.forced == 4);
	ck_assert_rel(stats_pooled(&a->ss_between, a->records), 1.0 / 16,
	    1e-15);
	ck_assert_rel(stats_pooled(&a->p.termb_ss, a->records),
	    0.5 * (1 - 1 / ((0.5 + e) * (0.5 + e))) / 4, 1e-12);
	ck_assert_rel(stats_pooled(&a->p.san_ss, a->records),
	    0.5 / ((0.5 + e) * (0.5 + e)) / 4, 1e-12);
	/* Theorem 2 holds as an identity. */
	ck_assert_rel(xsum_value(&a->ss_total) - xsum_value(&a->p.san_ss),
	    xsum_value(&a->ss_between) + xsum_value(&a->p.termb_ss), 1e-12);
	/* Losses, in the order of loss_weights_table: token, seq,
	 * seq-sum, seq-sum-norm (no --max-len: none), balanced,
	 * balanced-gen. */
	ck_assert_rel(a->p.final[0], -ap / 3, 1e-12);
	ck_assert(fabs(a->p.final[1]) < 1e-15);
	ck_assert_rel(a->p.final[2], -ap, 1e-12);
	ck_assert(isnan(a->p.final[3]) && stats_papers_mode(&p, 3) == NULL);
	ck_assert(fabs(a->p.final[4]) < 1e-15 && fabs(a->p.final[5]) <
	    1e-15);
	ck_assert(s.batch[1].p.final[0] == 0);
	ck_assert_rel(t->p.final[0], -ap / 6, 1e-12);
	ck_assert_rel(t->p.final[2], -ap / 2, 1e-12);
	ck_assert(xsum_value(&a->p.tc_sum) == 2 && a->p.tc_n == 4);
	ck_assert(xsum_value(&s.batch[1].p.tc_sum) == 2 &&
	    s.batch[1].p.tc_n == 1);
	stats_free(&s);
	batch_free(b);
}
END_TEST

/*
 * The same loss by --scope group and -g balanced over a batch of two
 * groups: the losses summed group by group with their normalizers equal
 * the batch's own weights (loss_weights_apply() over the whole batch).
 */
START_TEST(papers_losses_batch)
{
	struct prefs p;
	struct stats s;
	struct gbatch *b = batch_new();
	struct diag d = { 0 };
	struct batch v;
	double adv[6], w[6], L;
	size_t i, k;
	const struct loss_mode *m;

	options_defaults(&p);
	p.fields.need_stratum = 0;
	stats_init(&s, &p);
	add_batch(&s, b, &p, 0, 6);
	stats_finish(&s, 0);
	batch_view(b, &v, 0);
	ck_assert_uint_eq(v.ngroups, 2);
	ck_assert_int_eq(compute_advantages(p.est, &p.ap, &v, adv, &d), 0);
	for (k = 0; k < STATS_NLOSS; k++) {
		if ((m = stats_papers_mode(&p, k)) == NULL)
			continue;
		loss_weights_apply(m, &v, 0, adv, &p.lp, w);
		for (L = 0, i = 0; i < v.n; i++)
			L -= w[i] * adv[i] * v.T[i];
		ck_assert_msg(fabs(s.batch[0].p.final[k] - L) <= 1e-12,
		    "%s: %.17g vs %.17g", m->name, s.batch[0].p.final[k], L);
	}
	stats_free(&s);
	batch_free(b);
}
END_TEST

START_TEST(streamed_parts)
{
	/* A batch handed over in parts (streaming): one figure set. */
	struct prefs p;
	struct stats s;
	struct gbatch *b = batch_new();
	struct buf keys = { 0 }, runs = { 0 };
	struct diag d = { 0 };
	struct record r;
	struct batch v;
	size_t i;

	options_defaults(&p);
	p.fields.need_stratum = 0;
	stats_init(&s, &p);
	for (i = 0; i < 6; i++) {
		if (i == 0 || i == 4) {
			/* a new group: the first part starts the batch, the
			 * second continues it */
			batch_reset(b, i == 0);
		}
		keys.len = runs.len = 0;
		ck_assert_int_eq(record_parse(lines[i], strlen(lines[i]),
		    &p.fields, &r, &keys, &runs, FNAME, i + 1, &d), 0);
		batch_add(b, &r, &keys, &runs, lines[i], strlen(lines[i]), 1,
		    FNAME, i + 1, 0);
		if (i == 3 || i == 5) {
			batch_view(b, &v, 0);
			ck_assert_int_eq(stats_add(&s, b, &v, &d), 0);
		}
	}
	stats_finish(&s, 0);
	ck_assert_uint_eq(s.nbatch, 1);
	ck_assert(s.batch[0].records == 6 && s.batch[0].groups == 2);
	ck_assert_str_eq(s.batch[0].where, "s.jsonl:1");
	buf_free(&keys);
	buf_free(&runs);
	stats_free(&s);
	batch_free(b);
}
END_TEST

START_TEST(papers_merge)
{
	/* Merging adds every sum, named as the readers name them. */
	struct stats_pstratum t = { .cells = 1, .alpha = 2, .off = 3,
	    .off2 = 4, .weight = 5, .wcells = 6, .forced = 7 };
	struct stats_pstratum o = t;
	struct stats_papers pt, po;

	stats_papers_merge_stratum(&t, &o);
	ck_assert(t.cells == 2 && t.alpha == 4 && t.off == 6 && t.off2 == 8 &&
	    t.weight == 10 && t.wcells == 12 && t.forced == 14);
	memset(&pt, 0, sizeof(pt));
	memset(&po, 0, sizeof(po));
	po.d = (struct stats_dchange){ .n = 1, .act = 2, .app = 3, .act2 = 4,
	    .app2 = 5, .cross = 6, .err2 = 7 };
	stats_papers_merge(&pt, &po);
	stats_papers_merge(&pt, &po);
	ck_assert(pt.d.n == 2 && pt.d.act == 4 && pt.d.app == 6 &&
	    pt.d.act2 == 8 && pt.d.app2 == 10 && pt.d.cross == 12 &&
	    pt.d.err2 == 14);
}
END_TEST

static Suite *
stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc;

	tc = tcase_create("sums");
	tcase_add_test(tc, two_batches);
	tcase_add_test(tc, streamed_parts);
	tcase_add_test(tc, papers);
	tcase_add_test(tc, papers_losses_batch);
	tcase_add_test(tc, papers_merge);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(stats_suite());
}
