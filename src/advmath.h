/*
 * advmath.h - the per-group arithmetic of every estimator, written once for
 * the CPU and the CUDA backend (ADV_HD marks it __host__ __device__ under
 * nvcc).  Pure functions: the caller owns every array.
 */
#ifndef RLADV_ADVMATH_H
#define RLADV_ADVMATH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kinds.h"

#ifdef __CUDACC__
#define ADV_HD __host__ __device__
#else
#define ADV_HD
#endif

/* Moments of one set of rewards. */
struct advmath_mom {
	double	n;		/* members */
	double	mean;
	double	std;		/* population, or sample with n-1 */
	int	equal;		/* every reward is the same (exactly) */
};

/*
 * Mean and deviation of r[i] for i in [0, n) with sel[i] == k (every i
 * when sel is NULL).  Two passes, so the deviation does not suffer the
 * cancellation of the one-pass formula.  "equal" compares the rewards
 * themselves: SPEC §3 makes equal rewards give exactly 0, never a
 * rounding residue such as -1e-11.
 */
ADV_HD static inline struct advmath_mom
advmath_moments(const double *r, const uint32_t *sel, uint32_t k, size_t n,
    int sample)
{
	struct advmath_mom m;
	double s = 0, ss = 0, first = 0, d;
	size_t i, c = 0;

	m.equal = 1;
	for (i = 0; i < n; i++) {
		if (sel != NULL && sel[i] != k)
			continue;
		if (c == 0)
			first = r[i];
		else if (r[i] != first)
			m.equal = 0;
		s += r[i];
		c++;
	}
	m.n = (double)c;
	m.mean = c ? s / (double)c : 0;
	if (m.equal) {
		m.mean = c ? first : 0;
		m.std = 0;
		return m;
	}
	for (i = 0; i < n; i++) {
		if (sel != NULL && sel[i] != k)
			continue;
		d = r[i] - m.mean;
		ss += d * d;
	}
	if (sample)
		m.std = c > 1 ? sqrt(ss / (double)(c - 1)) : 0;
	else
		m.std = sqrt(ss / (double)c);
	return m;
}

/* (r - mean) / (std + eps), exactly 0 for a set of equal rewards. */
ADV_HD static inline double
advmath_norm(double r, const struct advmath_mom *m, double eps)
{
	if (m->equal)
		return 0;
	return (r - m->mean) / (m->std + eps);
}

/* The rule for a group (or stratum) of one record: no peer, so 0; verl
 * instead uses mean 0 and deviation 1 (SPEC §3, --like verl). */
ADV_HD static inline double
advmath_single(double r, int verl, int divide, double eps)
{
	if (!verl)
		return 0;
	return divide ? r / (1 + eps) : r;
}

/*
 * Per-group estimators (SPEC §3), written once for advantage.c and the
 * CUDA backend.  r, T, strat and out are the group's own slices; out has
 * one slot per record.  bm is the batch's moments, read only by
 * --std-scope batch and --gn-scope batch.
 */

/* GN: (r - mu) / (sigma + eps) of the group, with the std/gn scopes. */
ADV_HD static inline void
advmath_gn_group(const double *r, size_t n, int sample, double eps,
    enum std_scope scope, int gn_batch, const struct advmath_mom *bm, int verl,
    double *out)
{
	struct advmath_mom m;
	size_t i;

	if (gn_batch) {
		for (i = 0; i < n; i++)
			out[i] = advmath_norm(r[i], bm, eps);
		return;
	}
	if (n == 1) {
		out[0] = advmath_single(r[0], verl, scope != STD_NONE,
		    eps);
		return;
	}
	m = advmath_moments(r, NULL, 0, n, sample);
	for (i = 0; i < n; i++) {
		if (m.equal)
			out[i] = 0;
		else if (scope == STD_GROUP)
			out[i] = advmath_norm(r[i], &m, eps);
		else if (scope == STD_BATCH)
			out[i] = (r[i] - m.mean) / (bm->std + eps);
		else
			out[i] = r[i] - m.mean;
	}
}

/* SAN: normalized within each stratum k < nstrat; a stratum of one, 0. */
ADV_HD static inline void
advmath_san_group(const double *r, const uint32_t *strat, uint32_t nstrat,
    size_t n, int sample, double eps, int verl, double *out)
{
	struct advmath_mom m;
	uint32_t k;
	size_t i;

	if (n == 1) {
		out[0] = advmath_single(r[0], verl, 1, eps);
		return;
	}
	for (k = 0; k < nstrat; k++) {
		m = advmath_moments(r, strat, k, n, sample);
		for (i = 0; i < n; i++)
			if (strat[i] == k)
				out[i] = m.n > 1 ? advmath_norm(r[i], &m, eps) :
				    0;
	}
}

/* Stratified GRPO: alpha SAN + (1 - alpha) GN. */
ADV_HD static inline double
advmath_mix(double alpha, double san, double gn)
{
	return alpha * san + (1 - alpha) * gn;
}

/* RLOO: r_i - mean of the others; a group of one has no other. */
ADV_HD static inline void
advmath_rloo_group(const double *r, size_t n, int verl, double *out)
{
	struct advmath_mom m;
	double s = 0;
	size_t i;

	if (n == 1) {
		out[0] = advmath_single(r[0], verl, 0, 0);
		return;
	}
	m = advmath_moments(r, NULL, 0, n, 0);
	for (i = 0; i < n; i++)
		s += r[i];
	for (i = 0; i < n; i++)
		out[i] = m.equal ? 0 : r[i] - (s - r[i]) / (double)(n - 1);
}

/* OPO: r_i - sum T r / sum T; the plain mean when no token is trained. */
ADV_HD static inline void
advmath_opo_group(const double *r, const double *T, size_t n, int verl,
    double *out)
{
	struct advmath_mom m;
	double sw = 0, swr = 0, base;
	size_t i;

	if (n == 1) {
		out[0] = advmath_single(r[0], verl, 0, 0);
		return;
	}
	m = advmath_moments(r, NULL, 0, n, 0);
	for (i = 0; i < n; i++) {
		sw += T[i];
		swr += T[i] * r[i];
	}
	base = sw > 0 ? swr / sw : m.mean;
	for (i = 0; i < n; i++)
		out[i] = m.equal ? 0 : r[i] - base;
}

/*
 * REINFORCE++-baseline's batch whitening of a[] (already r - group mean):
 * token-weighted mean and variance (n - 1) over the records with T > 0.
 * Returns 1 when those a_i are all equal (or there is none): every
 * advantage is then 0; else 0 with *mean and *scale = sqrt(v + var_eps)
 * (var_eps: adv_params.var_eps, 1e-8 as verl's masked_whiten), and
 * A_i = (a_i - mean) / scale for every record.
 */
ADV_HD static inline int
advmath_whiten_stats(const double *a, const double *T, size_t n,
    double var_eps, double *mean, double *scale)
{
	double N = 0, s = 0, ss = 0, first = 0, mu, v;
	size_t i;
	int equal = 1, any = 0;

	for (i = 0; i < n; i++) {
		if (T[i] <= 0)
			continue;
		if (!any)
			first = a[i];
		else if (a[i] != first)
			equal = 0;
		any = 1;
		N += T[i];
		s += T[i] * a[i];
	}
	if (equal)
		return 1;
	mu = s / N;
	for (i = 0; i < n; i++)
		if (T[i] > 0)
			ss += T[i] * (a[i] - mu) * (a[i] - mu);
	v = N > 1 ? ss / (N - 1) : 0;
	*mean = mu;
	*scale = sqrt(v + var_eps);
	return 0;
}

/*
 * MS-GRPO exact enumeration over bit masks (SPEC §3; src/msgrpo.c's
 * exact path when every reward is distinct).  r[] and t[] are the group
 * in canonical order (ascending reward, so a subgroup's rewards are all
 * equal exactly when its lowest and highest members' are), t[] the
 * statistic weights (T_i, or 1 with seq stats), eps already in the units
 * of r[].  G <= 62.
 */

/* Lowest and highest set bit of x != 0. */
ADV_HD static inline unsigned
advmath_ctz64(uint64_t x)
{
#ifdef __CUDA_ARCH__
	return (unsigned)__ffsll((long long)x) - 1;
#else
	return (unsigned)__builtin_ctzll(x);
#endif
}

ADV_HD static inline unsigned
advmath_msb64(uint64_t x)
{
#ifdef __CUDA_ARCH__
	return 63 - (unsigned)__clzll((long long)x);
#else
	return 63 - (unsigned)__builtin_clzll(x);
#endif
}

/* Unnormalized weight of scale tau. */
ADV_HD static inline double
advmath_ms_scale_weight(enum ms_weights kind, size_t G, size_t tau_min,
    size_t tau)
{
	switch (kind) {
	case MS_GLOBAL:
		return (double)(tau - tau_min + 1);
	case MS_LOCAL:
		return (double)(G - tau + 1);
	case MS_UNIFORM:
	default:
		return 1.0;
	}
}

/* w_tau normalized to sum 1 over tau_min..G (the sum taken in that order). */
ADV_HD static inline double
advmath_ms_weight(enum ms_weights kind, size_t G, size_t tau_min, size_t tau)
{
	double s = 0.0;
	size_t u;

	for (u = tau_min; u <= G; u++)
		s += advmath_ms_scale_weight(kind, G, tau_min, u);
	return advmath_ms_scale_weight(kind, G, tau_min, tau) / s;
}

/* Power-of-two exponent that brings magnitudes past 2^500 near 1. */
ADV_HD static inline int
advmath_ms_tame_exp(double maxabs)
{
	int e;

	if (!(maxabs > 0x1p500))
		return 0;
	(void)frexp(maxabs, &e);
	return e;
}

/*
 * Mean and f = 1 / (sigma + eps) of the subgroup m (members in ascending
 * order).  0 when it contributes exactly 0: equal rewards, no weight, or
 * a zero denominator.
 */
ADV_HD static inline int
advmath_ms_mask_stats(const double *r, const double *t, uint64_t m,
    double eps, double *mu, double *f)
{
	double w = 0.0, s = 0.0, v = 0.0, den, e;
	uint64_t b;
	unsigned j;

	if (r[advmath_ctz64(m)] == r[advmath_msb64(m)])
		return 0;
	for (b = m; b != 0; b &= b - 1) {
		j = advmath_ctz64(b);
		w += t[j];
		s += t[j] * r[j];
	}
	if (!(w > 0.0))
		return 0;
	*mu = s / w;
	for (b = m; b != 0; b &= b - 1) {
		j = advmath_ctz64(b);
		e = r[j] - *mu;
		v += t[j] * e * e;
	}
	den = sqrt(v / w) + eps;
	if (!(den > 0.0))
		return 0;
	*f = 1.0 / den;
	return 1;
}

/* C(n, k), exact for n <= 62. */
ADV_HD static inline uint64_t
advmath_binom64(unsigned n, unsigned k)
{
	uint64_t c = 1;
	unsigned i;

	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	for (i = 0; i < k; i++)
		c = c * (n - i) / (i + 1);
	return c;
}

/*
 * The k-subset of {0..n-1} of rank "rank" in colexicographic order, which
 * is the order of the masks as numbers (the order of src/msgrpo.c's mask
 * loop); rank < C(n, k), 1 <= k <= n <= 62.
 */
ADV_HD static inline uint64_t
advmath_colex_unrank(uint64_t rank, unsigned k, unsigned n)
{
	uint64_t m = 0, bc;
	unsigned c = n, i;

	for (i = k; i >= 1; i--) {
		/* The largest c below the last with C(c, i) <= rank. */
		c--;
		bc = advmath_binom64(c, i);
		while (bc > rank) {
			bc = bc * (c - i) / c;	/* C(c - 1, i) */
			c--;
		}
		m |= (uint64_t)1 << c;
		rank -= bc;
	}
	return m;
}

/* The next mask with as many bits, as a number (Gosper). */
ADV_HD static inline uint64_t
advmath_next_comb(uint64_t m)
{
	uint64_t low = m & (~m + 1), up = m + low;

	return (((up ^ m) >> 2) >> advmath_ctz64(m)) | up;
}

/*
 * Adds z_j(S) = (r_j - mu_S) f_S to acc[j * stride] for every member j of
 * the count subgroups of size tau from colex rank "rank" on.
 */
ADV_HD static inline void
advmath_ms_run(const double *r, const double *t, double eps, unsigned G,
    unsigned tau, uint64_t rank, uint64_t count, double *acc,
    size_t stride)
{
	uint64_t m, b;
	double mu = 0.0, f = 0.0;
	unsigned j;

	if (count == 0)
		return;
	m = advmath_colex_unrank(rank, tau, G);
	for (;;) {
		if (advmath_ms_mask_stats(r, t, m, eps, &mu, &f))
			for (b = m; b != 0; b &= b - 1) {
				j = advmath_ctz64(b);
				acc[j * stride] += (r[j] - mu) * f;
			}
		if (--count == 0)
			break;
		m = advmath_next_comb(m);
	}
}

/*
 * A_j = sum_tau w_tau acc[tau * stride] / C(G - 1, tau - 1), tau from
 * tau_min to G in ascending order, acc[tau * stride] the sum of z_j over
 * the subgroups of size tau that hold j.
 */
ADV_HD static inline double
advmath_ms_combine(const double *acc, size_t stride, size_t G,
    size_t tau_min, enum ms_weights kind)
{
	double a = 0.0;
	uint64_t cb = 1;	/* C(G - 1, tau - 1) */
	size_t tau;

	for (tau = 1; tau <= G; tau++) {
		if (tau >= tau_min)
			a += advmath_ms_weight(kind, G, tau_min, tau) *
			    (acc[tau * stride] / (double)cb);
		cb = cb * (G - tau) / tau;
	}
	return a;
}

/*
 * The order in which the exact enumeration sums: for each scale, the
 * subgroups in colex order cut into runs of advmath_ms_per(G), each run
 * summed from 0; ADVMATH_MS_THREADS runs make a block, summed in run
 * order; the blocks summed in order.  The CUDA backend sums in parallel
 * in this order (a run per thread, a block per thread block), so a CPU
 * that sums the same way (advmath_ms_exact_masks) gets the same bits.
 */
#define ADVMATH_MS_THREADS	128

ADV_HD static inline uint64_t
advmath_ms_per(unsigned G)
{
	return (uint64_t)32 << (G > 24 ? G - 24 : 0);
}

/*
 * A_j for every member of a group whose rewards are all distinct, by
 * enumeration of its 2^G subgroups in the order above.  acc: (G + 1) * G
 * doubles, scratch: 3 * G doubles, out: G, all the caller's.  G <= 62.
 */
ADV_HD static inline void
advmath_ms_exact_masks(const double *r, const double *t, unsigned G,
    unsigned tau_min, double eps, enum ms_weights kind, double *acc, double *scratch,
    double *out)
{
	double *run = scratch, *blk = scratch + G, *seg = scratch + 2 * G;
	uint64_t per = advmath_ms_per(G), nrank, b0, rank, n;
	unsigned tau, th, j;

	for (j = 0; j < (G + 1) * G; j++)
		acc[j] = 0.0;
	for (tau = tau_min; tau <= G; tau++) {
		nrank = advmath_binom64(G, tau);
		for (j = 0; j < G; j++)
			seg[j] = 0.0;
		for (b0 = 0; b0 < nrank; b0 += per * ADVMATH_MS_THREADS) {
			for (j = 0; j < G; j++)
				blk[j] = 0.0;
			for (th = 0; th < ADVMATH_MS_THREADS; th++) {
				rank = b0 + th * per;
				if (rank >= nrank)
					break;	/* the rest add +0.0: no change */
				n = nrank - rank < per ? nrank - rank : per;
				for (j = 0; j < G; j++)
					run[j] = 0.0;
				advmath_ms_run(r, t, eps, G, tau, rank, n, run, 1);
				for (j = 0; j < G; j++)
					blk[j] += run[j];
			}
			for (j = 0; j < G; j++)
				seg[j] += blk[j];
		}
		for (j = 0; j < G; j++)
			acc[tau * G + j] = seg[j];
	}
	for (j = 0; j < G; j++)
		out[j] = advmath_ms_combine(acc + j, G, G, tau_min, kind);
}

/*
 * Loss weights (SPEC §4), for loss_weights.c and the CUDA backend: c_i,
 * the weight of each trained token of record i in sum_i sum_t c_i m_it
 * l_it.  A scope (the batch, or one group) has totals s: n records with
 * T_i > 0, "all" records, N = sum T_i, and "live" groups with a trained
 * token.  Each mode fills w[] for one group's records from its scope's
 * totals; records without a trained token get 0.
 */
/* The options the modes read (config's lp). */
struct advmath_lw {
	double	max_len;	/* seq-sum-norm's L, --max-len; 0 unset */
	int	count_all;	/* seq modes: n counts every record (presets) */
	double	seq_eps;	/* seq adds this to T_i (verl: 1e-8) */
};

struct advmath_lscope {
	double	n;		/* records with T_i > 0 */
	double	all;		/* every record */
	double	N;		/* trained tokens */
	double	live;		/* groups with a trained token */
};

/* Adds one group's records to s.  Callers add the groups of a scope in
 * batch order, so N is summed in the order of the records. */
ADV_HD static inline void
advmath_lw_scope(const double *T, size_t n, struct advmath_lscope *s)
{
	size_t i;
	int live = 0;

	for (i = 0; i < n; i++) {
		s->all++;
		if (T[i] > 0) {
			s->n++;
			s->N += T[i];
			live = 1;
		}
	}
	s->live += live;
}

/* The n of the seq modes: records with tokens, or every record under the
 * presets, which follow the frameworks' batch counts. */
ADV_HD static inline double
advmath_lw_seq_n(const struct advmath_lw *p, const struct advmath_lscope *s)
{
	return p->count_all ? s->all : s->n;
}

/* token: c_i = 1/N, token-mean (DAPO; verl's default). */
ADV_HD static inline void
advmath_lw_token(const struct advmath_lw *p, const struct advmath_lscope *s,
    const double *T, const double *adv, size_t n, double *w)
{
	size_t i;

	(void)p;
	(void)adv;
	for (i = 0; i < n; i++)
		w[i] = T[i] > 0 ? 1 / s->N : 0;
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
 * normalizer (verl's seq-mean-token-sum-norm). */
ADV_HD static inline void
advmath_lw_seq_sum_norm(const struct advmath_lw *p,
    const struct advmath_lscope *s, const double *T, const double *adv,
    size_t n, double *w)
{
	double sn = advmath_lw_seq_n(p, s);
	size_t i;

	(void)adv;
	for (i = 0; i < n; i++)
		w[i] = T[i] > 0 ? 1 / (sn * p->max_len) : 0;
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
	    Zm = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (T[i] <= 0)
			continue;
		Gv++;
		if (adv[i] > 0) {
			k++;
			Np += T[i];
			Mp += adv[i];
			Zp += adv[i] * T[i];
		} else if (adv[i] < 0) {
			m++;
			Nm += T[i];
			Mm -= adv[i];
			Zm -= adv[i] * T[i];
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
	}
}

#endif
