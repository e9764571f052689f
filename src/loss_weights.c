/*
 * loss_weights.c - c_i, the weight of each trained token of record i in
 * the loss sum_i sum_t c_i m_it l_it.  Records without a trained
 * token get 0.  Over a scope U: n = records with T_i > 0, N = sum T_i.
 * Each mode's formula is an advmath_lw.h function, shared with the CUDA
 * backend; this file holds the table and walks the scopes.
 */
#include <string.h>

#include "alias.h"
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

void
loss_weights_apply(const struct loss_mode *m, const struct batch *b,
    int scope_group, const double *adv, const struct advmath_lw *p,
    double *w)
{
	struct advmath_lscope s;
	size_t g, g0, g1, o;

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
