/*
 * loss_weights.c - c_i, the weight of each trained token of record i in
 * the loss sum_i sum_t c_i m_it l_it (SPEC §4).  Records without a trained
 * token get 0.  Over a scope U: n = records with T_i > 0, N = sum T_i.
 */
#include <string.h>

#include "loss_weights.h"

struct scope {
	double	n;	/* records with T_i > 0 */
	double	all;	/* every record */
	double	N;	/* trained tokens */
};

static struct scope
scope_of(const struct batch *b, size_t g0, size_t g1)
{
	struct scope s = { 0, 0, 0 };
	size_t i;

	for (i = b->goff[g0]; i < b->goff[g1]; i++) {
		s.all++;
		if (b->T[i] > 0) {
			s.n++;
			s.N += b->T[i];
		}
	}
	return s;
}

/* token: c_i = 1/N, token-mean (DAPO; verl's default). */
static void
lw_token(const struct batch *b, size_t g0, size_t g1, const double *adv,
    const struct loss_params *p, double *w)
{
	struct scope s = scope_of(b, g0, g1);
	size_t i;

	(void)adv;
	(void)p;
	for (i = b->goff[g0]; i < b->goff[g1]; i++)
		w[i] = b->T[i] > 0 ? 1 / s.N : 0;
}

/* The n of the seq modes: records with tokens, or every record under the
 * presets, which follow the frameworks' batch counts. */
static double
seq_n(const struct scope *s, const struct loss_params *p)
{
	return p->count_all ? s->all : s->n;
}

/* seq: c_i = 1/(n T_i), seq-mean-token-mean (the original GRPO). */
static void
lw_seq(const struct batch *b, size_t g0, size_t g1, const double *adv,
    const struct loss_params *p, double *w)
{
	struct scope s = scope_of(b, g0, g1);
	double n = seq_n(&s, p);
	size_t i;

	(void)adv;
	for (i = b->goff[g0]; i < b->goff[g1]; i++)
		w[i] = b->T[i] > 0 ? 1 / (n * (b->T[i] + p->seq_eps)) : 0;
}

/* seq-sum: c_i = 1/n, seq-mean-token-sum. */
static void
lw_seq_sum(const struct batch *b, size_t g0, size_t g1, const double *adv,
    const struct loss_params *p, double *w)
{
	struct scope s = scope_of(b, g0, g1);
	double n = seq_n(&s, p);
	size_t i;

	(void)adv;
	for (i = b->goff[g0]; i < b->goff[g1]; i++)
		w[i] = b->T[i] > 0 ? 1 / n : 0;
}

/* seq-sum-norm: c_i = 1/(n L), L = --max-len: Dr. GRPO's constant
 * normalizer (verl's seq-mean-token-sum-norm). */
static void
lw_seq_sum_norm(const struct batch *b, size_t g0, size_t g1,
    const double *adv, const struct loss_params *p, double *w)
{
	struct scope s = scope_of(b, g0, g1);
	double n = seq_n(&s, p);
	size_t i;

	(void)adv;
	for (i = b->goff[g0]; i < b->goff[g1]; i++)
		w[i] = b->T[i] > 0 ? 1 / (n * p->max_len) : 0;
}

/*
 * The balanced modes work group by group: Gv = records with T_i > 0, and
 * positive and negative responses are averaged apart, then weighted by
 * their share (Balanced Aggregation, Eq. 18-20; Appendix B for -gen).
 * Over a scope of several groups the result is divided by the groups with
 * Gv > 0, so the batch loss is the mean of the group losses.
 */
static void
balanced(const struct batch *b, size_t g0, size_t g1, const double *adv,
    double *w, int gen)
{
	size_t g, i, o, e;
	double Gv, k, m, Np, Nm, Mp, Mm, Zp, Zm, live = 0;

	for (g = g0; g < g1; g++) {
		o = b->goff[g];
		e = b->goff[g + 1];
		Gv = k = m = Np = Nm = Mp = Mm = Zp = Zm = 0;
		for (i = o; i < e; i++) {
			if (b->T[i] <= 0)
				continue;
			Gv++;
			if (adv[i] > 0) {
				k++;
				Np += b->T[i];
				Mp += adv[i];
				Zp += adv[i] * b->T[i];
			} else if (adv[i] < 0) {
				m++;
				Nm += b->T[i];
				Mm -= adv[i];
				Zm -= adv[i] * b->T[i];
			}
		}
		if (Gv > 0)
			live++;
		for (i = o; i < e; i++) {
			if (b->T[i] <= 0 || adv[i] == 0)
				w[i] = 0;
			else if (!gen)
				w[i] = adv[i] > 0 ? (k / Gv) / Np :
				    (m / Gv) / Nm;
			else
				w[i] = adv[i] > 0 ? (Mp / Gv) / Zp :
				    (Mm / Gv) / Zm;
		}
	}
	if (live > 1)
		for (i = b->goff[g0]; i < b->goff[g1]; i++)
			w[i] /= live;
}

/* balanced: (k/Gv)/N+ for A > 0, (m/Gv)/N- for A < 0. */
static void
lw_balanced(const struct batch *b, size_t g0, size_t g1, const double *adv,
    const struct loss_params *p, double *w)
{
	(void)p;
	balanced(b, g0, g1, adv, w, 0);
}

/* balanced-gen: (M+/Gv)/Z+ for A > 0, (M-/Gv)/Z- for A < 0. */
static void
lw_balanced_gen(const struct batch *b, size_t g0, size_t g1,
    const double *adv, const struct loss_params *p, double *w)
{
	(void)p;
	balanced(b, g0, g1, adv, w, 1);
}

const struct loss_mode loss_weights_table[] = {
	{ "token", lw_token, 0,
	    "1/N: token-mean (DAPO, verl's default)" },
	{ "seq", lw_seq, 0,
	    "1/(n T_i): seq-mean-token-mean (GRPO)" },
	{ "seq-sum", lw_seq_sum, 0,
	    "1/n: seq-mean-token-sum" },
	{ "seq-sum-norm", lw_seq_sum_norm, LOSS_MAXLEN,
	    "1/(n L), L = --max-len: Dr. GRPO's constant normalizer" },
	{ "balanced", lw_balanced, 0,
	    "positive and negative tokens averaged apart (Balanced Aggregation)" },
	{ "balanced-gen", lw_balanced_gen, 0,
	    "advantage-weighted balanced (Balanced Aggregation, App. B)" },
	{ NULL, NULL, 0, NULL }
};

const struct loss_mode *
loss_weights_find(const char *name)
{
	const struct loss_mode *m;

	for (m = loss_weights_table; m->name != NULL; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

void
loss_weights_apply(const struct loss_mode *m, const struct batch *b,
    int scope_group, const double *adv, const struct loss_params *p,
    double *w)
{
	size_t g;

	if (b->ngroups == 0)
		return;
	if (!scope_group) {
		m->fn(b, 0, b->ngroups, adv, p, w);
		return;
	}
	for (g = 0; g < b->ngroups; g++)
		m->fn(b, g, g + 1, adv, p, w);
}
