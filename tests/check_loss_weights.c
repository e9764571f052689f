/*
 * check_loss_weights.c - tests of the loss aggregation modes of SPEC §4
 * (src/loss_weights.c) on one hand-made batch of two groups, by hand:
 *
 *   group 0: i0 T=2 A=+1     i1 T=4 A=-0.5   i2 T=0 A=+2 (no token)
 *   group 1: i3 T=3 A=+0.5   i4 T=1 A=+1.5   i5 T=6 A=-1   i6 T=5 A=0
 *
 * Over the batch: n = 6 records with T > 0, 7 records in all,
 * N = 2+4+3+1+6+5 = 21 trained tokens.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alias.h"
#include "loss_weights.h"
#include "optparse.h"
#include "stats_papers.h"
#include "svg.h"
#include "testbatch.h"
#include "testutil.h"

#define REL	1e-12
#define NREC	7

static const double batch_T[NREC] = { 2, 4, 0, 3, 1, 6, 5 };
static const double batch_A[NREC] = { 1, -0.5, 2, 0.5, 1.5, -1, 0 };

/* The batch above, its records' advantages A, groups "q0" and "q1" of
 * roll.jsonl. */
static void
lt_make(struct tb *t, const double *T, const double *A)
{
	static const size_t sizes[2] = { 3, 4 };

	tb_make(t, NULL, T, NREC, sizes, 2, NULL);
	memcpy(t->adv, A, NREC * sizeof(*A));
	t->gname[0] = "\"q0\"";
	t->gname[1] = "\"q1\"";
	t->gfile[0] = t->gfile[1] = "roll.jsonl";
}

static void
apply(struct tb *t, const char *mode, int scope_group,
    const struct advmath_lw *p)
{
	const struct loss_mode *m = loss_weights_find(mode);

	ck_assert_msg(m != NULL, "no mode %s", mode);
	loss_weights_apply(m, &t->b, scope_group, t->adv, p, t->w);
}

static void
expect(const struct tb *t, const double *want, const char *what)
{
	size_t i;

	for (i = 0; i < NREC; i++) {
		if (want[i] == 0)
			ck_assert_msg(t->w[i] == 0.0 && !signbit(t->w[i]),
			    "%s: w[%zu] = %.17g, expected 0", what, i, t->w[i]);
		else
			ck_assert_msg(fabs(t->w[i] - want[i]) <= REL *
			    fabs(want[i]), "%s: w[%zu] = %.17g, expected %.17g",
			    what, i, t->w[i], want[i]);
	}
}

/* sum_i c_i T_i over records [a, b). */
static double
mass(const struct tb *t, size_t a, size_t b)
{
	double s = 0;
	size_t i;

	for (i = a; i < b; i++)
		s += t->w[i] * t->T[i];
	return s;
}

static const struct advmath_lw lp0 = { .max_len = 0 };

START_TEST(table)
{
	static const char *const names[] = { "token", "seq", "seq-sum",
	    "seq-sum-norm", "balanced", "balanced-gen", "prompt" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ck_assert_ptr_nonnull(loss_weights_find(names[i]));
		ck_assert_str_eq(loss_weights_find(names[i])->name, names[i]);
		ck_assert_uint_eq(loss_weights_find(names[i])->flags &
		    LOSS_MAXLEN, strcmp(names[i], "seq-sum-norm") == 0);
	}
	ck_assert_ptr_null(loss_weights_find("mean"));
	ck_assert_ptr_null(loss_weights_find("Token"));
}
END_TEST

START_TEST(framework_names)
{
	/* verl's loss_agg_mode and SkyRL's loss_reduction names. */
	static const char *const pairs[][2] = {
		{ "token-mean", "token" }, { "token_mean", "token" },
		{ "seq-mean-token-mean", "seq" }, { "sequence_mean", "seq" },
		{ "seq-mean-token-sum", "seq-sum" },
		{ "seq-mean-token-sum-norm", "seq-sum-norm" },
		{ "seq_mean_token_sum_norm", "seq-sum-norm" },
		{ "prompt_mean", "prompt" } };
	const struct alias *a;
	size_t i, n = 0;
	int j;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		ck_assert_str_eq(loss_weights_find(pairs[i][0])->name,
		    pairs[i][1]);
	for (a = alias_table; a->target != NULL; a++)
		for (j = 0; a->of == ALIAS_LOSS && j < ALIAS_MAX &&
		    a->names[j].name != NULL; j++, n++)
			ck_assert_str_eq(loss_weights_find(
			    a->names[j].name)->name, a->target);
	ck_assert_uint_eq(n, sizeof(pairs) / sizeof(pairs[0]));
	/* TRL's loss types are not -g names: its grpo and dr_grpo would
	 * read as estimators */
	ck_assert_ptr_null(loss_weights_find("dr_grpo"));
	ck_assert_ptr_null(loss_weights_find("dapo"));
	/* nor an estimator's framework name (the table is one) */
	ck_assert_ptr_null(loss_weights_find("group_norm"));
}
END_TEST

START_TEST(framework_rules)
{
	/* The presets' variants on the batch above (n 6, 7 in all, N 21):
	 * slime's per-token loss, N = sum max(T_i, 1) = 22: 1/22;
	 * verl 0.6.0 and NeMo-RL, 1/(N + 1e-8);
	 * NeMo-RL's seq, 1/((7 + 1e-8)(T_i + 1e-8));
	 * verl's seq-sum-norm, 1/L = 1/8 with no n. */
	const struct advmath_lw slime = { .count_all = 1, .tok_floor = 1 },
	    nemo = { .count_all = 1, .seq_eps = 1e-8, .n_eps = 1e-8,
	    .tok_eps = 1e-8 }, verl = { .max_len = 8, .seq_eps = 1e-8,
	    .norm_plain = 1 };
	const double k = 1.0 / 22, e = 1.0 / (21 + 1e-8), L = 1.0 / 8;
	const double want_slime[NREC] = { k, k, 0, k, k, k, k };
	const double want_tok[NREC] = { e, e, 0, e, e, e, e };
	const double want_norm[NREC] = { L, L, 0, L, L, L, L };
	double want_seq[NREC];
	struct advmath_lscope s;
	struct tb t;
	size_t i;

	for (i = 0; i < NREC; i++)
		want_seq[i] = batch_T[i] > 0 ? 1 / ((7 + 1e-8) *
		    (batch_T[i] + 1e-8)) : 0;
	lt_make(&t, batch_T, batch_A);
	loss_weights_scope(&t.b, 0, 2, &s);
	ck_assert(s.N1 == 22);
	apply(&t, "token", 0, &slime);
	expect(&t, want_slime, "token/slime");
	apply(&t, "token", 0, &nemo);
	expect(&t, want_tok, "token/nemo-rl");
	ck_assert(t.w[0] != 1.0 / 21);
	apply(&t, "seq", 0, &nemo);
	expect(&t, want_seq, "seq/nemo-rl");
	apply(&t, "seq-sum-norm", 0, &verl);
	expect(&t, want_norm, "seq-sum-norm/verl");
	/* per group: slime's group 1 has no masked record: 1/15 */
	apply(&t, "token", 1, &slime);
	ck_assert_rel(t.w[3], 1.0 / 15, REL);
	ck_assert_rel(t.w[0], 1.0 / 7, REL);
}
END_TEST

START_TEST(refuse_masked_seq)
{
	/* verl 0.6.0's seq-mean-token-mean divides i2's 0 by its T = 0:
	 * refused, at group q0's line (a batch with no source view has no
	 * line of its own for the record); other modes, and the rule off,
	 * let it through. */
	const struct advmath_lw on = { .count_all = 1, .seq_refuse = 1 },
	    off = { .count_all = 1 };
	static const double all_T[NREC] = { 2, 4, 1, 3, 1, 6, 5 };
	struct diag d = { 0 };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	ck_assert_int_eq(loss_weights_check(loss_weights_find("seq"), &on,
	    &t.b, "verl", "0.6.0", &d), EXIT_DATA);
	ck_assert_has(d.msg, "roll.jsonl:1: the record has no trained token");
	ck_assert_has(d.msg, "verl 0.6.0's seq-mean-token-mean");
	ck_assert_int_eq(loss_weights_check(loss_weights_find("seq-sum"),
	    &on, &t.b, "verl", "0.6.0", &d), 0);
	ck_assert_int_eq(loss_weights_check(loss_weights_find("seq"), &off,
	    &t.b, "verl", "0.6.0", &d), 0);
	/* every record trained: nothing to refuse */
	lt_make(&t, all_T, batch_A);
	ck_assert_int_eq(loss_weights_check(loss_weights_find("seq"), &on,
	    &t.b, "verl", "0.6.0", &d), 0);
}
END_TEST

START_TEST(refuse_untrained_batch)
{
	/* OpenRLHF divides the token and the per-sample losses 0 by 0 on
	 * a batch with no trained token: refused, at its first line; a
	 * batch with one trained token, the other modes and the rule off
	 * let it through. */
	const struct advmath_lw on = { .seq_eps = 1e-8, .empty_refuse = 1 },
	    off = { .seq_eps = 1e-8 };
	static const double none_T[NREC] = { 0, 0, 0, 0, 0, 0, 0 };
	static const double one_T[NREC] = { 0, 0, 0, 0, 0, 1, 0 };
	static const char *const pass[] = { "seq-sum", "seq-sum-norm",
	    "balanced", "balanced-gen" };
	struct diag d = { 0 };
	struct tb t;
	size_t i;

	lt_make(&t, none_T, batch_A);
	ck_assert_int_eq(loss_weights_check(loss_weights_find("token"), &on,
	    &t.b, "openrlhf", "0.11.0", &d), EXIT_DATA);
	ck_assert_has(d.msg, "roll.jsonl:1: the batch has no trained token, "
	    "where openrlhf 0.11.0's -g token divides 0 by 0");
	ck_assert_int_eq(loss_weights_check(loss_weights_find("seq"), &on,
	    &t.b, "openrlhf", "0.11.0", &d), EXIT_DATA);
	ck_assert_has(d.msg, "openrlhf 0.11.0's -g seq divides 0 by 0");
	for (i = 0; i < sizeof(pass) / sizeof(pass[0]); i++)
		ck_assert_int_eq(loss_weights_check(loss_weights_find(pass[i]),
		    &on, &t.b, "openrlhf", "0.11.0", &d), 0);
	ck_assert_int_eq(loss_weights_check(loss_weights_find("token"), &off,
	    &t.b, "openrlhf", "0.11.0", &d), 0);
	lt_make(&t, one_T, batch_A);
	ck_assert_int_eq(loss_weights_check(loss_weights_find("token"), &on,
	    &t.b, "openrlhf", "0.11.0", &d), 0);
	ck_assert_int_eq(loss_weights_check(loss_weights_find("seq"), &on,
	    &t.b, "openrlhf", "0.11.0", &d), 0);
}
END_TEST

START_TEST(token_batch)
{
	/* c = 1/N = 1/21 for every record with tokens; i2 gets 0. */
	const double k = 1.0 / 21;
	const double want[NREC] = { k, k, 0, k, k, k, k };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "token", 0, &lp0);
	expect(&t, want, "token");
	ck_assert_rel(mass(&t, 0, NREC), 1, REL);
}
END_TEST

START_TEST(token_group)
{
	/* --scope group: group 0 N = 6, group 1 N = 15. */
	const double want[NREC] = { 1.0 / 6, 1.0 / 6, 0, 1.0 / 15, 1.0 / 15,
	    1.0 / 15, 1.0 / 15 };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "token", 1, &lp0);
	expect(&t, want, "token/group");
	ck_assert_rel(mass(&t, 0, 3), 1, REL);
	ck_assert_rel(mass(&t, 3, 7), 1, REL);
}
END_TEST

START_TEST(seq_batch)
{
	/* c = 1/(n T_i), n = 6: 1/12, 1/24, 0, 1/18, 1/6, 1/36, 1/30. */
	const double want[NREC] = { 1.0 / 12, 1.0 / 24, 0, 1.0 / 18,
	    1.0 / 6, 1.0 / 36, 1.0 / 30 };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "seq", 0, &lp0);
	expect(&t, want, "seq");
	/* each record with tokens carries 1/n of the loss */
	ck_assert_rel(mass(&t, 0, NREC), 1, REL);
}
END_TEST

START_TEST(seq_group)
{
	/* group 0: n = 2: 1/(2*2), 1/(2*4); group 1: n = 4: 1/(4*3),
	 * 1/(4*1), 1/(4*6), 1/(4*5). */
	const double want[NREC] = { 1.0 / 4, 1.0 / 8, 0, 1.0 / 12, 1.0 / 4,
	    1.0 / 24, 1.0 / 20 };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "seq", 1, &lp0);
	expect(&t, want, "seq/group");
}
END_TEST

START_TEST(seq_sum)
{
	const double s = 1.0 / 6;
	const double want[NREC] = { s, s, 0, s, s, s, s };
	const double wantg[NREC] = { 0.5, 0.5, 0, 0.25, 0.25, 0.25, 0.25 };
	struct tb t;

	/* c = 1/n = 1/6 over the batch; 1/2 and 1/4 per group */
	lt_make(&t, batch_T, batch_A);
	apply(&t, "seq-sum", 0, &lp0);
	expect(&t, want, "seq-sum");
	apply(&t, "seq-sum", 1, &lp0);
	expect(&t, wantg, "seq-sum/group");
}
END_TEST

START_TEST(seq_sum_norm)
{
	/* c = 1/(n L), L = --max-len 8: 1/(6*8) = 1/48; per group
	 * 1/(2*8) = 1/16 and 1/(4*8) = 1/32. */
	const struct advmath_lw lp = { .max_len = 8 };
	const double k = 1.0 / 48;
	const double want[NREC] = { k, k, 0, k, k, k, k };
	const double wantg[NREC] = { 1.0 / 16, 1.0 / 16, 0, 1.0 / 32,
	    1.0 / 32, 1.0 / 32, 1.0 / 32 };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "seq-sum-norm", 0, &lp);
	expect(&t, want, "seq-sum-norm");
	apply(&t, "seq-sum-norm", 1, &lp);
	expect(&t, wantg, "seq-sum-norm/group");
}
END_TEST

START_TEST(balanced_batch)
{
	/* group 0: Gv = 2, k = 1 (i0), m = 1 (i1), N+ = 2, N- = 4:
	 *   w0 = (1/2)/2 = 0.25, w1 = (1/2)/4 = 0.125, w2 = 0 (no token).
	 * group 1: Gv = 4, k = 2 (i3, i4), m = 1 (i5), i6 has A = 0;
	 *   N+ = 3+1 = 4, N- = 6: w3 = w4 = (2/4)/4 = 0.125,
	 *   w5 = (1/4)/6 = 1/24, w6 = 0.
	 * --scope batch: both groups have Gv > 0, so divide by 2. */
	const double want[NREC] = { 0.125, 0.0625, 0, 0.0625, 0.0625,
	    1.0 / 48, 0 };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "balanced", 0, &lp0);
	expect(&t, want, "balanced");
	/* positive tokens of group 1 carry (k/Gv)/2 = 0.25 of the loss */
	ck_assert_rel(t.w[3] * 3 + t.w[4] * 1, 0.25, REL);
}
END_TEST

START_TEST(balanced_group)
{
	const double want[NREC] = { 0.25, 0.125, 0, 0.125, 0.125, 1.0 / 24,
	    0 };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "balanced", 1, &lp0);
	expect(&t, want, "balanced/group");
}
END_TEST

START_TEST(balanced_gen_batch)
{
	/* group 0: Gv = 2; M+ = 1, Z+ = 1*2 = 2; M- = 0.5, Z- = 0.5*4 = 2:
	 *   w0 = (1/2)/2 = 0.25, w1 = (0.5/2)/2 = 0.125.
	 * group 1: Gv = 4; M+ = 0.5 + 1.5 = 2, Z+ = 0.5*3 + 1.5*1 = 3;
	 *   M- = 1, Z- = 1*6 = 6: w3 = w4 = (2/4)/3 = 1/6,
	 *   w5 = (1/4)/6 = 1/24.
	 * --scope batch: / 2. */
	const double want[NREC] = { 0.125, 0.0625, 0, 1.0 / 12, 1.0 / 12,
	    1.0 / 48, 0 };
	const double wantg[NREC] = { 0.25, 0.125, 0, 1.0 / 6, 1.0 / 6,
	    1.0 / 24, 0 };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "balanced-gen", 0, &lp0);
	expect(&t, want, "balanced-gen");
	apply(&t, "balanced-gen", 1, &lp0);
	expect(&t, wantg, "balanced-gen/group");
	/* sum over positive responses of c A T = M+/Gv = 0.5 in group 1 */
	ck_assert_rel(t.w[3] * 0.5 * 3 + t.w[4] * 1.5 * 1, 0.5, REL);
}
END_TEST

START_TEST(balanced_dead_group)
{
	/* Group 0 with no trained token (T = 0, 0, 0) does not count: the
	 * batch has one group with Gv > 0, so group 1 is not divided. */
	static const double T[NREC] = { 0, 0, 0, 3, 1, 6, 5 };
	const double want[NREC] = { 0, 0, 0, 0.125, 0.125, 1.0 / 24, 0 };
	struct tb t;

	lt_make(&t, T, batch_A);
	apply(&t, "balanced", 0, &lp0);
	expect(&t, want, "balanced/dead group");
	/* token: N = 15 */
	apply(&t, "token", 0, &lp0);
	ck_assert(t.w[0] == 0.0);
	ck_assert_rel(t.w[3], 1.0 / 15, REL);
}
END_TEST

START_TEST(zero_tokens_get_zero)
{
	/* Every mode gives exactly 0 to i2 (T = 0, A = 2 > 0). */
	static const char *const modes[] = { "token", "seq", "seq-sum",
	    "seq-sum-norm", "balanced", "balanced-gen" };
	const struct advmath_lw lp = { .max_len = 8, .count_all = 1,
	    .seq_eps = 1e-8 };
	struct tb t;
	size_t i;
	int sg;

	for (sg = 0; sg <= 1; sg++)
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
			lt_make(&t, batch_T, batch_A);
			apply(&t, modes[i], sg, &lp);
			ck_assert_msg(t.w[2] == 0.0 && !signbit(t.w[2]),
			    "%s: %.17g", modes[i], t.w[2]);
		}
}
END_TEST

START_TEST(count_all_presets)
{
	/* Presets that count every record in n (7, not 6), one that adds
	 * 1e-8 to T_i in seq mode (NeMo-RL's). */
	const struct advmath_lw verl = { .count_all = 1, .seq_eps = 1e-8 },
	    trl = { .count_all = 1 };
	const double want_trl[NREC] = { 1.0 / 14, 1.0 / 28, 0, 1.0 / 21,
	    1.0 / 7, 1.0 / 42, 1.0 / 35 };
	const double want_verl[NREC] = { 1 / (7 * (2 + 1e-8)),
	    1 / (7 * (4 + 1e-8)), 0, 1 / (7 * (3 + 1e-8)),
	    1 / (7 * (1 + 1e-8)), 1 / (7 * (6 + 1e-8)),
	    1 / (7 * (5 + 1e-8)) };
	const double k = 1.0 / 7;
	const double want_ss[NREC] = { k, k, 0, k, k, k, k };
	const struct advmath_lw verl_norm = { .max_len = 8, .count_all = 1,
	    .seq_eps = 1e-8 };
	const double kn = 1.0 / 56;
	const double want_ssn[NREC] = { kn, kn, 0, kn, kn, kn, kn };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "seq", 0, &trl);
	expect(&t, want_trl, "seq/trl");
	apply(&t, "seq", 0, &verl);
	expect(&t, want_verl, "seq/verl");
	/* 1e-8 shows: 1/(7*2) differs from 1/(7*(2+1e-8)) by 5e-9 relative */
	ck_assert(t.w[0] != 1.0 / 14);
	apply(&t, "seq-sum", 0, &verl);
	expect(&t, want_ss, "seq-sum/verl");
	/* seq-sum-norm: 1/(7*8) */
	apply(&t, "seq-sum-norm", 0, &verl_norm);
	expect(&t, want_ssn, "seq-sum-norm/verl");
	/* token mode does not count records at all: still 1/21 */
	apply(&t, "token", 0, &verl);
	ck_assert_rel(t.w[0], 1.0 / 21, REL);
	/* per group: group 0 has 3 records -> 1/(3*2) = 1/6 */
	apply(&t, "seq", 1, &trl);
	ck_assert_rel(t.w[0], 1.0 / 6, REL);
	ck_assert_rel(t.w[3], 1.0 / 12, REL);
}
END_TEST

START_TEST(sample_masked)
{
	/*
	 * The batch with i2's sample mask 0 (T -0.0, advmath_lw_T()) and
	 * i5 a sample that trains no token (T +0): n = 5 records with
	 * T > 0, 6 samples (every record but i2), N = 15, and
	 * sum max(T_i, 1) = 16 without i2.  NeMo-RL divides by
	 * global_valid_seqs, the sum of the sample mask: B = 6, not 7.
	 */
	static const double sm_T[NREC] = { 2, 4, -0.0, 3, 1, 0, 5 };
	static const double on_T[NREC] = { 2, 4, 0, 3, 1, 0, 5 };
	const struct advmath_lw trl = { .count_all = 1 },
	    slime = { .count_all = 1, .tok_floor = 1 },
	    nemo = { .count_all = 1, .seq_eps = 1e-8, .n_eps = 1e-8,
	    .tok_eps = 1e-8 }, plain = { 0 };
	const double want_trl[NREC] = { 1.0 / 12, 1.0 / 24, 0, 1.0 / 18,
	    1.0 / 6, 0, 1.0 / 30 };
	const double want_nemo[NREC] = { 1 / (6.00000001 * 2.00000001),
	    1 / (6.00000001 * 4.00000001), 0, 1 / (6.00000001 * 3.00000001),
	    1 / (6.00000001 * 1.00000001), 0,
	    1 / (6.00000001 * 5.00000001) };
	const double k = 1.0 / 6, f = 1.0 / 16;
	const double want_ss[NREC] = { k, k, 0, k, k, 0, k };
	const double want_slime[NREC] = { f, f, 0, f, f, 0, f };
	/* per group: q0 has 2 samples (i0, i1), q1 has 4 (i3 .. i6) */
	const double want_grp[NREC] = { 1.0 / 4, 1.0 / 8, 0, 1.0 / 12,
	    1.0 / 4, 0, 1.0 / 20 };
	/* without presets n counts records with tokens, the flag or not */
	const double want_plain[NREC] = { 1.0 / 10, 1.0 / 20, 0, 1.0 / 15,
	    1.0 / 5, 0, 1.0 / 25 };
	const struct advmath_lw on = { .count_all = 1, .seq_refuse = 1 };
	static const double refuse_T[NREC] = { 2, 4, -0.0, 3, 1, 6, 5 };
	const struct {
		const char			*mode;
		int				 sg;
		const struct advmath_lw		*lw;
		const double			*want;
	} cases[] = {
		{ "seq", 0, &trl, want_trl }, { "seq", 0, &nemo, want_nemo },
		{ "seq-sum", 0, &trl, want_ss },
		{ "token", 0, &slime, want_slime },
		{ "seq", 1, &trl, want_grp }, { "seq", 0, &plain, want_plain }
	};
	struct advmath_lscope s;
	struct diag d = { 0 };
	struct tb t;
	size_t i;

	lt_make(&t, sm_T, batch_A);
	loss_weights_scope(&t.b, 0, 2, &s);
	ck_assert(s.n == 5 && s.all == 6 && s.N == 15 && s.N1 == 16);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		apply(&t, cases[i].mode, cases[i].sg, cases[i].lw);
		expect(&t, cases[i].want, cases[i].mode);
	}
	/* i2 a sample (+0): it counts, 1/(7 T_i) */
	lt_make(&t, on_T, batch_A);
	apply(&t, "seq", 0, &trl);
	ck_assert_rel(t.w[0], 1.0 / 14, REL);
	apply(&t, "seq", 0, &plain);
	expect(&t, want_plain, "seq, i2 a sample");
	/* verl 0.6.0's seq: a record that is no sample of the loss adds no
	 * 0/0; the estimators' rule (slime's rpp) still sees it */
	lt_make(&t, refuse_T, batch_A);
	ck_assert_int_eq(loss_weights_check(loss_weights_find("seq"), &on,
	    &t.b, "verl", "0.6.0", &d), 0);
	ck_assert_int_eq(advantage_refuse_untrained(&t.b, 0, &d, "%s", ""),
	    EXIT_DATA);
	/* a trajectory is sample-masked only where all its rows are */
	ck_assert(advmath_lw_sample_off(advmath_lw_T(0, 1)));
	ck_assert(!advmath_lw_sample_off(advmath_lw_T(0, 0)));
	ck_assert(advmath_lw_sample_off(advmath_lw_T_join(-0.0, -0.0)));
	ck_assert(!advmath_lw_sample_off(advmath_lw_T_join(-0.0, 0)));
	ck_assert(!advmath_lw_sample_off(advmath_lw_T_join(0, -0.0)));
	ck_assert(advmath_lw_T_join(-0.0, 3) == 3);
}
END_TEST

START_TEST(prompt_mean)
{
	/*
	 * c = 1/(P N_g): q0 has N = 2 + 4 = 6 trained tokens, q1 N = 3 + 1
	 * + 6 + 5 = 15, P = 2 groups: 1/12 in q0, 1/30 in q1; each group
	 * carries 1/P of the loss.  Per group P = 1: 1/6 and 1/15.
	 */
	const double want[NREC] = { 1.0 / 12, 1.0 / 12, 0, 1.0 / 30,
	    1.0 / 30, 1.0 / 30, 1.0 / 30 };
	const double wantg[NREC] = { 1.0 / 6, 1.0 / 6, 0, 1.0 / 15,
	    1.0 / 15, 1.0 / 15, 1.0 / 15 };
	/* q0 with no trained token (i2 sample-masked too): plain P counts
	 * the live groups (1), SkyRL's every prompt of the mini-batch (2,
	 * count_all); a group all sample-masked is no prompt of it. */
	static const double dead_T[NREC] = { 0, 0, -0.0, 3, 1, 6, 5 };
	static const double off_T[NREC] = { -0.0, -0.0, -0.0, 3, 1, 6, 5 };
	const double want_live[NREC] = { 0, 0, 0, 1.0 / 15, 1.0 / 15,
	    1.0 / 15, 1.0 / 15 };
	const double want_all[NREC] = { 0, 0, 0, 1.0 / 30, 1.0 / 30,
	    1.0 / 30, 1.0 / 30 };
	const struct advmath_lw skyrl = { .count_all = 1 };
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	apply(&t, "prompt", 0, &lp0);
	expect(&t, want, "prompt");
	ck_assert_rel(mass(&t, 0, 3), 0.5, REL);
	ck_assert_rel(mass(&t, 3, NREC), 0.5, REL);
	apply(&t, "prompt", 1, &lp0);
	expect(&t, wantg, "prompt/group");
	apply(&t, "prompt_mean", 0, &skyrl);
	expect(&t, want, "prompt_mean, skyrl");
	lt_make(&t, dead_T, batch_A);
	apply(&t, "prompt", 0, &lp0);
	expect(&t, want_live, "prompt, a dead group");
	apply(&t, "prompt", 0, &skyrl);
	expect(&t, want_all, "prompt, a dead group, skyrl");
	lt_make(&t, off_T, batch_A);
	apply(&t, "prompt", 0, &skyrl);
	expect(&t, want_live, "prompt, a sample-masked group, skyrl");
}
END_TEST

START_TEST(rollouts)
{
	/*
	 * --rollout-key (slime's rollout_id): rollout 0 is i0, i1 and i6
	 * (across the groups), M = 2 + 4 + 5 = 11; rollout 1 is i2 alone,
	 * no trained token; rollout 2 is i3 and i5, M = 3 + 6 = 9; i4 is a
	 * rollout of its own (null id), T = 1.  A sample weighs 1/(n M) of
	 * its rollout: n = 3 rollouts with tokens, or 4 that are samples
	 * under slime's count_all.
	 */
	static const uint32_t roll[NREC] = { 0, 0, 1, 2, BATCH_ROLL_OWN, 2,
	    0 };
	const struct advmath_lw slime = { .count_all = 1, .tok_floor = 1 },
	    len8 = { .max_len = 8 };
	const double want_seq[NREC] = { 1.0 / 33, 1.0 / 33, 0, 1.0 / 27,
	    1.0 / 3, 1.0 / 27, 1.0 / 33 };
	const double want_slime[NREC] = { 1.0 / 44, 1.0 / 44, 0, 1.0 / 36,
	    1.0 / 4, 1.0 / 36, 1.0 / 44 };
	const double k = 1.0 / 3, kn = 1.0 / 24;
	const double want_ss[NREC] = { k, k, 0, k, k, k, k };
	const double want_ssn[NREC] = { kn, kn, 0, kn, kn, kn, kn };
	/* per group: q0 holds rollout 0's i0 and i1 (M = 6) and rollout 1
	 * (no token): n = 1; q1 holds rollout 2, i4, and rollout 0's i6
	 * (M = 5): n = 3 */
	const double want_grp[NREC] = { 1.0 / 6, 1.0 / 6, 0, 1.0 / 27,
	    1.0 / 3, 1.0 / 27, 1.0 / 15 };
	/* i1 and i2 sample-masked: rollout 0 is M = 7, rollout 1 no sample
	 * at all: 3 rollouts are samples */
	static const double sm_T[NREC] = { 2, -0.0, -0.0, 3, 1, 6, 5 };
	const double want_sm[NREC] = { 1.0 / 21, 0, 0, 1.0 / 27, 1.0 / 3,
	    1.0 / 27, 1.0 / 21 };
	double plain[NREC];
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	t.b.roll = roll;
	t.b.nroll = 3;
	ck_assert(loss_weights_by_rollout(loss_weights_find("seq"), &t.b));
	ck_assert(!loss_weights_by_rollout(loss_weights_find("token"),
	    &t.b));
	apply(&t, "seq", 0, &lp0);
	expect(&t, want_seq, "seq/rollouts");
	/* each rollout with tokens carries 1/n of the loss */
	ck_assert_rel(mass(&t, 0, NREC), 1, REL);
	apply(&t, "seq", 0, &slime);
	expect(&t, want_slime, "seq/rollouts, slime");
	apply(&t, "seq-sum", 0, &lp0);
	expect(&t, want_ss, "seq-sum/rollouts");
	apply(&t, "seq-sum-norm", 0, &len8);
	expect(&t, want_ssn, "seq-sum-norm/rollouts");
	apply(&t, "seq", 1, &lp0);
	expect(&t, want_grp, "seq/rollouts/group");
	/* the token and balanced modes weigh records as without them */
	apply(&t, "token", 0, &lp0);
	ck_assert_rel(t.w[0], 1.0 / 21, REL);
	apply(&t, "balanced", 0, &lp0);
	memcpy(plain, t.w, sizeof(plain));
	t.b.roll = NULL;
	apply(&t, "balanced", 0, &lp0);
	expect(&t, plain, "balanced/rollouts");
	lt_make(&t, sm_T, batch_A);
	t.b.roll = roll;
	t.b.nroll = 3;
	apply(&t, "seq", 0, &slime);
	expect(&t, want_sm, "seq/rollouts, sample-masked");
}
END_TEST

START_TEST(presets_from_options)
{
	/* --like sets count_all and seq_eps as each framework counts:
	 * verl since 0.6.1 and OpenRLHF leave records without a trained
	 * token out of n and add 1e-8 to T_i, the others count every
	 * record, NeMo-RL adds 1e-8 too. */
	static const struct {
		const char	*like;
		int		 count_all;
		double		 seq_eps;
	} tab[] = { { "verl", 0, 1e-8 }, { "verl@0.6.0", 1, 0 },
	    { "trl", 1, 0 }, { "openrlhf", 0, 1e-8 },
	    { "openrlhf@0.10.2", 1, 0 }, { "nemo-rl", 1, 1e-8 },
	    { "areal", 0, 0 }, { "slime", 1, 0 }, { "skyrl", 1, 0 } };
	struct prefs c;
	struct optstore own = { 0 };
	struct diag d = { 0 };
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		char *argv[] = { "rladv", "--like", (char *)tab[i].like, NULL };

		options_defaults(&c);
		ck_assert_int_eq(c.lp.count_all, 0);
		ck_assert(c.lp.seq_eps == 0);
		ck_assert_int_eq(optparse_argv(&c, &own, 3, argv, &d), 0);
		ck_assert_int_eq(c.lp.count_all, tab[i].count_all);
		ck_assert(c.lp.seq_eps == tab[i].seq_eps);
		optparse_free(&own);
	}
}
END_TEST

START_TEST(empty_batch)
{
	/* No group: nothing is written. */
	struct tb t;

	lt_make(&t, batch_T, batch_A);
	t.b.n = 0;
	t.b.ngroups = 0;
	apply(&t, "token", 0, &lp0);
	apply(&t, "balanced", 1, &lp0);
	ck_assert(isnan(t.w[0]));
}
END_TEST

/*
 * The GPU reaches each mode through advmath_lw_group(kind), the CPU
 * through the table's function pointer: for every row the two must give
 * the same bits, and the scope totals must be those of the hand count
 * above (n 6, all 7, N 21, live 2).
 */
START_TEST(kind_dispatch)
{
	const struct advmath_lw lp = { .max_len = 512, .seq_eps = 1e-8 };
	const struct loss_mode *m;
	struct advmath_lscope s;
	double w[NREC];
	struct tb t;
	size_t g, i, o, n, rows = 0;
	int seen = 0;

	lt_make(&t, batch_T, batch_A);
	loss_weights_scope(&t.b, 0, 2, &s);
	ck_assert(s.n == 6 && s.all == 7 && s.N == 21 && s.live == 2 &&
	    s.N1 == 22 && s.groups == 2);
	loss_weights_scope(&t.b, 1, 2, &s);
	ck_assert(s.n == 4 && s.all == 4 && s.N == 15 && s.live == 1 &&
	    s.groups == 1);
	for (m = loss_weights_table; m->name != NULL; m++, rows++) {
		ck_assert_msg(!(seen & 1 << m->kind), "%s: kind %d twice",
		    m->name, m->kind);
		seen |= 1 << m->kind;
		for (int sg = 0; sg <= 1; sg++) {
			apply(&t, m->name, sg, &lp);
			for (g = 0; g < 2; g++) {
				loss_weights_scope(&t.b, sg ? g : 0,
				    sg ? g + 1 : 2, &s);
				o = t.goff[g];
				n = t.goff[g + 1] - o;
				advmath_lw_group(m->kind, &lp, &s, t.T + o,
				    t.adv + o, n, w + o);
			}
			for (i = 0; i < NREC; i++)
				ck_assert_msg(memcmp(&w[i], &t.w[i],
				    sizeof(double)) == 0, "%s scope %d: w[%zu] "
				    "%.17g by kind, %.17g by table", m->name, sg,
				    i, w[i], t.w[i]);
		}
	}
	ck_assert_uint_eq(rows, 7);
	ck_assert_int_eq(seen, 0x7f);
	/* stats' loss chart draws a series for each, and sums them all */
	ck_assert_uint_le(rows, SVG_MAXSERIES);
	ck_assert_uint_le(rows, STATS_NLOSS);
}
END_TEST

static Suite *
loss_suite(void)
{
	Suite *s = suite_create("loss_weights");
	TCase *tc;

	tc = tcase_create("modes");
	tcase_add_test(tc, table);
	tcase_add_test(tc, framework_names);
	tcase_add_test(tc, token_batch);
	tcase_add_test(tc, token_group);
	tcase_add_test(tc, seq_batch);
	tcase_add_test(tc, seq_group);
	tcase_add_test(tc, seq_sum);
	tcase_add_test(tc, seq_sum_norm);
	tcase_add_test(tc, balanced_batch);
	tcase_add_test(tc, balanced_group);
	tcase_add_test(tc, balanced_gen_batch);
	tcase_add_test(tc, balanced_dead_group);
	suite_add_tcase(s, tc);

	tc = tcase_create("edge");
	tcase_add_test(tc, zero_tokens_get_zero);
	tcase_add_test(tc, count_all_presets);
	tcase_add_test(tc, framework_rules);
	tcase_add_test(tc, refuse_masked_seq);
	tcase_add_test(tc, sample_masked);
	tcase_add_test(tc, rollouts);
	tcase_add_test(tc, prompt_mean);
	tcase_add_test(tc, refuse_untrained_batch);
	tcase_add_test(tc, presets_from_options);
	tcase_add_test(tc, empty_batch);
	tcase_add_test(tc, kind_dispatch);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(loss_suite());
}
