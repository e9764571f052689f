/*
 * advmath_lw.h - the loss modes' arithmetic, written once for
 * loss_weights.c and the CUDA kernel (backend_cuda.cu).  Pure functions:
 * the caller owns every array.
 */
#ifndef RLADV_ADVMATH_LW_H
#define RLADV_ADVMATH_LW_H

#include <stddef.h>

#include "advmath.h"
#include "kinds.h"

/*
 * Loss weights, for loss_weights.c and the CUDA backend: c_i,
 * the weight of each trained token of record i in sum_i sum_t c_i m_it
 * l_it.  A scope (the batch, or one group) has totals s: n records with
 * T_i > 0, "all" records (but those sample-masked), N = sum T_i, and
 * "live" groups with a trained token.  Each mode fills w[] for one
 * group's records from its scope's totals; records without a trained
 * token get 0.
 */
/* The options the modes read (config's lp). */
struct advmath_lw {
	double	max_len;	/* seq-sum-norm's L, --max-len; 0 unset */
	int	count_all;	/* seq modes: n counts every record (presets) */
	double	seq_eps;	/* seq adds this to T_i (verl: 1e-8) */
	/* What the presets add (preset.c says whose rule each is). */
	double	n_eps;		/* seq modes add this to n */
	double	tok_eps;	/* token adds this to N */
	int	tok_floor;	/* token: N = sum max(T_i, 1) */
	int	norm_plain;	/* seq-sum-norm: 1/L, no 1/n */
	int	seq_refuse;	/* seq: a record with T_i = 0 is an error
				   (loss_weights_check; 0/0 in the framework) */
	int	empty_refuse;	/* token, seq: a batch with no trained token
				   is an error (loss_weights_check; NaN
				   gradients in the framework) */
};

struct advmath_lscope {
	double	n;		/* records with T_i > 0 */
	double	all;		/* every record but those sample-masked */
	double	N;		/* trained tokens */
	double	N1;		/* sum max(T_i, 1), sample-masked ones
				   left out */
	double	live;		/* groups with a trained token */
	double	groups;		/* groups with a sample (a record not
				   sample-masked) */
};

/*
 * A record whose sample mask is 0 (--sample-mask-key: NeMo-RL's
 * sample_loss_mask) trains no token and is no sample of the loss: NeMo-RL
 * divides its seq loss by global_valid_seqs, the sum of the sample mask,
 * so such a record is not in the "all" that the presets count (a record
 * with sample mask 1 and no trained token is).  It stays in its group's
 * baseline.  Its T is -0.0, not 0: the sign is the one bit the T arrays
 * (the batch's, its views', the GPU's copy) carry besides the count, so
 * the flag needs no array of its own, and everything else reads -0.0 as
 * 0 (T > 0 is false, -0.0 == 0, sums that start at 0 stay +0).
 * Nothing prints a T as it is (the numbers rladv writes of a record come
 * from its count, not this double).
 */
ADV_HD static inline double
advmath_lw_T(double T, int sample_off)
{
	return sample_off ? -0.0 : T;
}

/* Whether T (advmath_lw_T()) is of a record whose sample mask is 0. */
ADV_HD static inline int
advmath_lw_sample_off(double T)
{
	return T == 0 && signbit(T);
}

/* The T of a trajectory, rows a and b made one record: their sum, and
 * sample-masked only where both are (a trajectory is one sample, which a
 * row with sample mask 1 keeps in the loss).  Said, not left to the sum
 * of two -0.0. */
ADV_HD static inline double
advmath_lw_T_join(double a, double b)
{
	return advmath_lw_T(a + b, advmath_lw_sample_off(a) &&
	    advmath_lw_sample_off(b));
}

/* Adds one group's records to s.  Callers add the groups of a scope in
 * batch order, so N is summed in the order of the records. */
ADV_HD static inline void
advmath_lw_scope(const double *T, size_t n, struct advmath_lscope *s)
{
	size_t i;
	int live = 0, sample = 0;

	for (i = 0; i < n; i++) {
		if (advmath_lw_sample_off(T[i]))
			continue;
		sample = 1;
		s->all++;
		s->N1 += T[i] > 1 ? T[i] : 1;
		if (T[i] > 0) {
			s->n++;
			s->N += T[i];
			live = 1;
		}
	}
	s->live += live;
	s->groups += sample;
}

/* The n of the seq modes: records with tokens, or every record that is a
 * sample (advmath_lw_T()) under the presets whose frameworks count them
 * (plus n_eps). */
ADV_HD static inline double
advmath_lw_seq_n(const struct advmath_lw *p, const struct advmath_lscope *s)
{
	return (p->count_all ? s->all : s->n) + p->n_eps;
}

/* token: c_i = 1/N, token-mean (DAPO; verl's default); N + tok_eps, or
 * sum max(T_i, 1) under tok_floor (slime's per-token loss). */
ADV_HD static inline void
advmath_lw_token(const struct advmath_lw *p, const struct advmath_lscope *s,
    const double *T, const double *adv, size_t n, double *w)
{
	double N = p->tok_floor ? s->N1 : s->N + p->tok_eps;
	size_t i;

	(void)adv;
	for (i = 0; i < n; i++)
		w[i] = T[i] > 0 ? 1 / N : 0;
}

/* seq: c_i = 1/(n T_i), seq-mean-token-mean (the original GRPO). */
ADV_HD static inline void
advmath_lw_seq(const struct advmath_lw *p, const struct advmath_lscope *s,
    const double *T, const double *adv, size_t n, double *w)
{
	double sn = advmath_lw_seq_n(p, s);
	size_t i;

	(void)adv;
	for (i = 0; i < n; i++)
		w[i] = T[i] > 0 ? 1 / (sn * (T[i] + p->seq_eps)) : 0;
}

/* seq-sum: c_i = 1/n, seq-mean-token-sum. */
ADV_HD static inline void
advmath_lw_seq_sum(const struct advmath_lw *p,
    const struct advmath_lscope *s, const double *T, const double *adv,
    size_t n, double *w)
{
	double sn = advmath_lw_seq_n(p, s);
	size_t i;

	(void)adv;
	for (i = 0; i < n; i++)
		w[i] = T[i] > 0 ? 1 / sn : 0;
}

/* seq-sum-norm: c_i = 1/(n L), L = --max-len: Dr. GRPO's constant
 * normalizer (TRL's dr_grpo); 1/L under norm_plain (verl's
 * seq-mean-token-sum-norm, which divides by L alone). */
ADV_HD static inline void
advmath_lw_seq_sum_norm(const struct advmath_lw *p,
    const struct advmath_lscope *s, const double *T, const double *adv,
    size_t n, double *w)
{
	double sn = p->norm_plain ? 1 : advmath_lw_seq_n(p, s);
	size_t i;

	(void)adv;
	/* (1/n)/L, not 1/(n L): n L overflows for L near 1e308, where the
	 * weight itself is still a double. */
	for (i = 0; i < n; i++)
		w[i] = T[i] > 0 ? 1 / sn / p->max_len : 0;
}

/* The P of prompt: the groups with a trained token, or every group that
 * has a sample under the presets that count every record (SkyRL's
 * num_prompts, every prompt of the mini-batch). */
ADV_HD static inline double
advmath_lw_prompt_n(const struct advmath_lw *p,
    const struct advmath_lscope *s)
{
	return p->count_all ? s->groups : s->live;
}

/* prompt: c_i = 1/(P N_g), N_g the trained tokens of record i's group:
 * a token mean within each prompt, then the mean over the prompts
 * (SkyRL's prompt_mean, skyrl-v0.3.0 ppo_utils.py
 * apply_loss_reduction_to_advantages_minibatch). */
ADV_HD static inline void
advmath_lw_prompt(const struct advmath_lw *p,
    const struct advmath_lscope *s, const double *T, const double *adv,
    size_t n, double *w)
{
	double P = advmath_lw_prompt_n(p, s), Ng = 0;
	size_t i;

	(void)adv;
	for (i = 0; i < n; i++)
		if (T[i] > 0)
			Ng += T[i];
	/* 1/P/Ng, not 1/(P Ng): as seq-sum-norm's, no product to
	 * overflow first. */
	for (i = 0; i < n; i++)
		w[i] = T[i] > 0 ? 1 / P / Ng : 0;
}

/*
 * The exponent e of the power of two 2^-e that brings the largest |a_i|
 * of one sign (sgn) with T_i > 0 into [0.5, 1): the -gen sums of a_i and
 * a_i T_i overflow for advantages near 1e308 (written as weight 0
 * before), and lose their digits near 1e-314.  Only ratios of the sums of
 * one sign are used, so each sign takes its own scale.  An exponent, not
 * the factor: 2^1042 for subnormal advantages is past a double.
 */
ADV_HD static inline int
advmath_lw_sign_exp(const double *T, const double *adv, size_t n, int sgn)
{
	double mx = 0;
	size_t i;
	int e;

	for (i = 0; i < n; i++)
		if (T[i] > 0 && adv[i] * sgn > mx)
			mx = adv[i] * sgn;
	if (mx == 0)
		return 0;
	(void)frexp(mx, &e);
	return e;
}

/*
 * The balanced modes work group by group: Gv = records with T_i > 0, and
 * positive and negative responses are averaged apart, then weighted by
 * their share (Balanced Aggregation, Eq. 18-20; Appendix B for -gen).
 * Over a scope of several groups the result is divided by the live
 * groups, so the batch loss is the mean of the group losses.
 */
ADV_HD static inline void
advmath_lw_balanced_any(const struct advmath_lscope *s, const double *T,
    const double *adv, size_t n, int gen, double *w)
{
	double Gv = 0, k = 0, m = 0, Np = 0, Nm = 0, Mp = 0, Mm = 0, Zp = 0,
	    Zm = 0, a;
	size_t i;
	int ep = 0, em = 0;

	if (gen) {
		ep = advmath_lw_sign_exp(T, adv, n, 1);
		em = advmath_lw_sign_exp(T, adv, n, -1);
	}
	for (i = 0; i < n; i++) {
		if (T[i] <= 0)
			continue;
		Gv++;
		if (adv[i] > 0) {
			k++;
			Np += T[i];
			a = ldexp(adv[i], -ep);
			Mp += a;
			Zp += a * T[i];
		} else if (adv[i] < 0) {
			m++;
			Nm += T[i];
			a = ldexp(adv[i], -em);
			Mm -= a;
			Zm -= a * T[i];
		}
	}
	for (i = 0; i < n; i++) {
		if (T[i] <= 0 || adv[i] == 0)
			w[i] = 0;
		else if (!gen)
			w[i] = adv[i] > 0 ? (k / Gv) / Np : (m / Gv) / Nm;
		else
			w[i] = adv[i] > 0 ? (Mp / Gv) / Zp : (Mm / Gv) / Zm;
		if (s->live > 1)
			w[i] /= s->live;
	}
}

/*
 * Whether mode kind gives record i (T_i trained tokens, advantage a_i) a
 * weight above 0: a 0 there is an underflow, an error, not a weight.
 */
ADV_HD static inline int
advmath_lw_positive(enum advmath_lw_kind kind, double T, double a)
{
	if (kind == ADVMATH_LW_BALANCED || kind == ADVMATH_LW_BALANCED_GEN)
		return T > 0 && a != 0;
	return T > 0;
}

/* balanced: (k/Gv)/N+ for A > 0, (m/Gv)/N- for A < 0. */
ADV_HD static inline void
advmath_lw_balanced(const struct advmath_lw *p,
    const struct advmath_lscope *s, const double *T, const double *adv,
    size_t n, double *w)
{
	(void)p;
	advmath_lw_balanced_any(s, T, adv, n, 0, w);
}

/* balanced-gen: (M+/Gv)/Z+ for A > 0, (M-/Gv)/Z- for A < 0. */
ADV_HD static inline void
advmath_lw_balanced_gen(const struct advmath_lw *p,
    const struct advmath_lscope *s, const double *T, const double *adv,
    size_t n, double *w)
{
	(void)p;
	advmath_lw_balanced_any(s, T, adv, n, 1, w);
}

/* Mode "kind" on one group: the GPU's way to the functions above, which
 * cannot be reached through loss_weights.c's function pointers. */
ADV_HD static inline void
advmath_lw_group(enum advmath_lw_kind kind, const struct advmath_lw *p,
    const struct advmath_lscope *s, const double *T, const double *adv,
    size_t n, double *w)
{
	switch (kind) {
	case ADVMATH_LW_TOKEN:
		advmath_lw_token(p, s, T, adv, n, w);
		break;
	case ADVMATH_LW_SEQ:
		advmath_lw_seq(p, s, T, adv, n, w);
		break;
	case ADVMATH_LW_SEQ_SUM:
		advmath_lw_seq_sum(p, s, T, adv, n, w);
		break;
	case ADVMATH_LW_SEQ_SUM_NORM:
		advmath_lw_seq_sum_norm(p, s, T, adv, n, w);
		break;
	case ADVMATH_LW_BALANCED:
		advmath_lw_balanced(p, s, T, adv, n, w);
		break;
	case ADVMATH_LW_BALANCED_GEN:
		advmath_lw_balanced_gen(p, s, T, adv, n, w);
		break;
	case ADVMATH_LW_PROMPT:
		advmath_lw_prompt(p, s, T, adv, n, w);
		break;
	}
}

#endif
