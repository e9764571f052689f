/*
 * loss_weights.c - c_i, the weight of each trained token of record i in
 * the loss sum_i sum_t c_i m_it l_it.  Records without a trained
 * token get 0.  Over a scope U: n = records with T_i > 0, N = sum T_i.
 * Each mode's formula is an advmath_lw.h function, shared with the CUDA
 * backend; this file holds the table and walks the scopes.
 */
#include <stdlib.h>
#include <string.h>

#include "alias.h"
#include "diag.h"
#include "loss_weights.h"

const struct loss_mode loss_weights_table[] = {
	{ "token", advmath_lw_token, ADVMATH_LW_TOKEN, 0,
	    "1/N: token-mean (DAPO, verl's default)" },
	{ "seq", advmath_lw_seq, ADVMATH_LW_SEQ, 0,
	    "1/(n T_i): seq-mean-token-mean (GRPO)" },
	{ "seq-sum", advmath_lw_seq_sum, ADVMATH_LW_SEQ_SUM, 0,
	    "1/n: seq-mean-token-sum" },
	{ "seq-sum-norm", advmath_lw_seq_sum_norm, ADVMATH_LW_SEQ_SUM_NORM,
	    LOSS_MAXLEN,
	    "1/(n L), L = --max-len: Dr. GRPO's constant normalizer" },
	{ "balanced", advmath_lw_balanced, ADVMATH_LW_BALANCED, 0,
	    "positive and negative tokens averaged apart (Balanced Aggregation)" },
	{ "balanced-gen", advmath_lw_balanced_gen, ADVMATH_LW_BALANCED_GEN, 0,
	    "advantage-weighted balanced (Balanced Aggregation, App. B)" },
	{ "prompt", advmath_lw_prompt, ADVMATH_LW_PROMPT, 0,
	    "1/(P N_g): token mean in each prompt, mean over prompts" },
	{ NULL, NULL, 0, 0, NULL }
};

const struct loss_mode *
loss_weights_find(const char *name)
{
	return alias_find(ALIAS_LOSS, loss_weights_table,
	    sizeof(loss_weights_table[0]), name);
}

int
loss_weights_check(const struct loss_mode *m, const struct advmath_lw *p,
    const struct batch *b, const char *who, const char *release,
    struct diag *d)
{
	struct advmath_lscope s;

	if (m->kind == ADVMATH_LW_SEQ && p->seq_refuse &&
	    advantage_refuse_untrained(b, 1, d, ", where %s %s's "
	    "seq-mean-token-mean divides 0 by 0 (a NaN loss); use --like %s "
	    "for its newest rule, or -g token", who, release, who) != 0)
		return d->status;
	if (!p->empty_refuse || (m->kind != ADVMATH_LW_TOKEN &&
	    m->kind != ADVMATH_LW_SEQ))
		return 0;
	loss_weights_scope(b, 0, b->ngroups, &s);
	if (s.N > 0)
		return 0;
	/* The framework divides 0 by 0 without torch.where: its gradients,
	 * not only its loss, are NaN. */
	return advantage_refuse_batch(b, d, ", where %s %s's -g %s divides "
	    "0 by 0 (NaN gradients); no record of it trains: leave it out "
	    "(--on-error skip rejects it)", who, release, m->name);
}

void
loss_weights_scope(const struct batch *b, size_t g0, size_t g1,
    struct advmath_lscope *s)
{
	size_t g;

	memset(s, 0, sizeof(*s));
	for (g = g0; g < g1; g++)
		advmath_lw_scope(b->T + b->goff[g], b->goff[g + 1] - b->goff[g],
		    s);
}

int
loss_weights_by_rollout(const struct loss_mode *m, const struct batch *b)
{
	return b->roll != NULL && (m->kind == ADVMATH_LW_SEQ ||
	    m->kind == ADVMATH_LW_SEQ_SUM ||
	    m->kind == ADVMATH_LW_SEQ_SUM_NORM);
}

/* Rollout k's marks in a scope: a record of it is a sample (not sample
 * masked), and it is counted. */
#define R_SAMPLE	1
#define R_COUNTED	2

/*
 * The seq modes over rollouts (--rollout-key).  slime from 0.3.0 divides
 * a sample's token losses by the trained tokens M_r of every sample of
 * its rollout (get_sum_of_sample_mean's rollout_mask_sums) and the
 * step's loss by its rollouts R (step_global_batch_size), so that an
 * agent's rollout split into several samples weighs as one sequence:
 * c_i = 1/(R M_r).  Each mode's formula then reads M_r for T_i (where T_i
 * > 0: a sample without a trained token keeps weight 0) and counts
 * rollouts in n; a record whose rollout is its own is one as before.
 * M_r sums trained-token counts, so it is exact.
 */
static void
apply_rollouts(const struct loss_mode *m, const struct batch *b,
    int scope_group, const double *adv, const struct advmath_lw *p,
    double *w)
{
	struct advmath_lscope s;
	double *M = diag_calloc(b->nroll + 1, sizeof(*M));
	double *Tr = diag_malloc((b->n + 1) * sizeof(*Tr));
	unsigned char *st = diag_calloc(b->nroll + 1, 1);
	size_t g, g0, g1, o, i, lo, hi;
	uint32_t k;

	for (g0 = 0; g0 < b->ngroups; g0 = g1) {
		g1 = scope_group ? g0 + 1 : b->ngroups;
		loss_weights_scope(b, g0, g1, &s);
		lo = b->goff[g0];
		hi = b->goff[g1];
		for (i = lo; i < hi; i++)
			if ((k = b->roll[i]) != BATCH_ROLL_OWN &&
			    !advmath_lw_sample_off(b->T[i])) {
				M[k] += b->T[i];
				st[k] |= R_SAMPLE;
			}
		s.n = s.all = 0;
		for (i = lo; i < hi; i++) {
			Tr[i] = b->T[i];
			if ((k = b->roll[i]) == BATCH_ROLL_OWN) {
				s.all += !advmath_lw_sample_off(b->T[i]);
				s.n += b->T[i] > 0;
				continue;
			}
			if (b->T[i] > 0)
				Tr[i] = M[k];
			if (!(st[k] & R_COUNTED) && (st[k] & R_SAMPLE)) {
				s.all++;
				s.n += M[k] > 0;
			}
			st[k] |= R_COUNTED;
		}
		for (g = g0; g < g1; g++) {
			o = b->goff[g];
			m->fn(p, &s, Tr + o, adv + o, b->goff[g + 1] - o,
			    w + o);
		}
		for (i = lo; i < hi; i++)
			if ((k = b->roll[i]) != BATCH_ROLL_OWN) {
				M[k] = 0;
				st[k] = 0;
			}
	}
	free(M);
	free(Tr);
	free(st);
}

void
loss_weights_apply(const struct loss_mode *m, const struct batch *b,
    int scope_group, const double *adv, const struct advmath_lw *p,
    double *w)
{
	struct advmath_lscope s;
	size_t g, g0, g1, o;

	if (loss_weights_by_rollout(m, b)) {
		apply_rollouts(m, b, scope_group, adv, p, w);
		return;
	}
	for (g0 = 0; g0 < b->ngroups; g0 = g1) {
		g1 = scope_group ? g0 + 1 : b->ngroups;
		loss_weights_scope(b, g0, g1, &s);
		for (g = g0; g < g1; g++) {
			o = b->goff[g];
			m->fn(p, &s, b->T + o, adv + o, b->goff[g + 1] - o,
			    w + o);
		}
	}
}
