/*
 * stats_papers.c - the papers' diagnostics of rladv stats, group by group
 * (stats_papers.h).
 *
 * Stratified GRPO, for a group of K records with mean R and population
 * deviation s, and its stratum k with n_k records, mean R_k and deviation
 * s_k (population, as its Algorithm 1 takes them; eps = --eps):
 *   alpha_k = (s_k + eps) / (s + eps),  Delta_k = (R_k - R) / (s + eps)
 *     (Proposition 3, Eq. 14: GN = alpha_k SAN + Delta_k);
 *   Term A = 1/K sum_k n_k (R_k - R)^2,
 *   Term B = 1/K sum_k n_k s_k^2 (1 - 1/(s_k + eps)^2)
 *     (Theorem 2: Var[A_G] - Var[A_SAN] = Term A + Term B, with
 *     Var[A_SAN] = 1/K sum_k n_k s_k^2 / (s_k + eps)^2);
 *   the weight n_k / K / (s_k + eps) of the stratum's gradient
 *     (Theorem 3, Eq. 3, with p_k estimated by n_k / K), over the cells
 *     with a reward spread (for the others SAN is 0 and the weight means
 *     nothing);
 *   the records whose SAN is forced to 0: a cell of one record, or of
 *     equal rewards.
 * Pooled over groups as Theorem 1's split is (sums of squares over the
 * scored records); alpha_k and Delta_k are averaged over the cells of a stratum.
 *
 * Balanced Aggregation's on-policy loss: at the ratio 1 the PPO term of a
 * token is A_i, so the loss of a batch is L = -sum_i c_i A_i T_i, whose
 * drift away from 0 under token-mean is its Fig. 2.  A mode's batch
 * weights are its group weights times (normalizer of the group) /
 * (normalizer of the batch): N for token, n for the seq modes, the live
 * groups for the balanced ones; so L = sum_g D_g L_g / D_batch with L_g
 * the group's loss under --scope group, and the groups stream.  With
 * --scope group the batch's loss is the sum of its groups'.
 *
 * MS-GRPO (-a msgrpo), for each group within --ms-budget: the moments of
 * Appendix D (msgrpo_moments()), and per record the change of Eq. 10 / 23,
 *   dA ~ (r - mu_O) (1/E_S[sigma_S] - 1/sigma_O)
 *        + r Var_S(sigma_S) / E_S[sigma_S]^3,
 * against the actual change, the estimator's A minus GRPO's
 * (r - mu_O) / (sigma_O + eps) with the population deviation (Eq. 1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advmath.h"
#include "batch.h"
#include "bview.h"
#include "loss_weights.h"
#include "msgrpo.h"
#include "record.h"
#include "stats.h"

const struct loss_mode *
stats_papers_mode(const struct prefs *c, size_t m)
{
	size_t i;

	for (i = 0; i <= m; i++)
		if (i == STATS_NLOSS || loss_weights_table[i].name == NULL)
			return NULL;
	if ((loss_weights_table[m].flags & LOSS_MAXLEN) &&
	    !(c->lp.max_len > 0))
		return NULL;
	return &loss_weights_table[m];
}

/* t[i] += o[i], i < n: the sums of a struct that adds them all. */
static void
add_sums(double *t, const double *o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		t[i] += o[i];
}

/* A mode's normalizer over a scope: what its weights divide by. */
static double
normalizer(const struct loss_mode *m, const struct advmath_lw *lp,
    const struct advmath_lscope *s)
{
	switch (m->kind) {
	case ADVMATH_LW_TOKEN:
		return s->N;
	case ADVMATH_LW_BALANCED:
	case ADVMATH_LW_BALANCED_GEN:
		return s->live;
	case ADVMATH_LW_PROMPT:
		return advmath_lw_prompt_n(lp, s);
	default:
		return advmath_lw_seq_n(lp, s);
	}
}

/*
 * Stratified GRPO's figures of group g's cells, on its rewards divided by
 * 2^k (st->rs, stats.c's prescaling) with eps along: alpha_k, Delta_k
 * and Var[A_SAN] do not change; Term B's first part is put back on the
 * scale 2^2k, the weight 1/(s_k + eps) on 2^-k.  A group of tiny rewards
 * (k < 0) is taken as it is: eps outweighs its spread, as it does in the
 * estimators, and scaled along it would be past a double.
 */
static void
stratified(struct stats *st, struct stats_acc *a, const struct batch *v,
    size_t g)
{
	size_t o = v->goff[g], n = v->goff[g + 1] - o;
	struct advmath_mom gm, m;
	struct stats_pstratum *ps;
	const double *r = st->kg[g] > 0 ? st->rs + o : v->r + o;
	int k = st->kg[g] > 0 ? st->kg[g] : 0;
	double eps = ldexp(st->c->ap.eps, -k), K = (double)n, den;
	uint32_t j;

	gm = advmath_moments(r, NULL, 0, n, 0);
	for (j = 0; j < v->nstrat[g]; j++) {
		m = advmath_moments(r, v->strat + o, j, n, 0);
		if (m.n == 0)
			continue;
		ps = stats_pstratum(a, st->cells.loc[j]);
		ps->cells++;
		ps->alpha += (m.std + eps) / (gm.std + eps);
		ps->off += (m.mean - gm.mean) / (gm.std + eps);
		ps->off2 += (m.mean - gm.mean) / (gm.std + eps) *
		    ((m.mean - gm.mean) / (gm.std + eps));
		den = (m.std + eps) * (m.std + eps);
		/* n s_k^2 (1 - 1/(s_k + eps)^2), prescaled its parts on
		 * their scales */
		if (k == 0)
			xsum_add(&a->p.termb_ss, m.n * m.var * (1 - 1 / den),
			    0);
		else {
			xsum_add(&a->p.termb_ss, m.n * m.var, 2 * k);
			xsum_add(&a->p.termb_ss, -m.n * m.var / den, 0);
		}
		xsum_add(&a->p.san_ss, m.n * m.var / den, 0);
		if (m.n == 1 || m.equal) {
			ps->forced += m.n;
			a->p.forced += m.n;
		} else {
			ps->weight += ldexp(m.n / K / (m.std + eps), -k);
			ps->wcells++;
		}
	}
}

/* Balanced Aggregation's loss of group g under every mode. */
static void
losses(struct stats *st, struct stats_acc *a, const struct batch *v,
    size_t g, const double *adv)
{
	const struct prefs *c = st->c;
	const struct loss_mode *m;
	struct advmath_lscope s;
	size_t o = v->goff[g], n = v->goff[g + 1] - o, i, k;
	double L, mx = 0;
	int ka;

	/* The advantages on a scale where their sums stay doubles (an
	 * estimator that scales with the rewards gives ~1e308, or ~1e-320
	 * whose products with the weights underflow). */
	for (i = o; i < o + n; i++)
		mx = fmax(mx, fabs(adv[i]));
	ka = advmath_tame(mx, 0, 0);
	memset(&s, 0, sizeof(s));
	advmath_lw_scope(v->T + o, n, &s);
	advmath_lw_scope(v->T + o, n, &a->p.scope);
	if (ka != 0) {
		for (i = o; i < o + n; i++)
			st->as[i] = ldexp(adv[i], -ka);
		adv = st->as;
	}
	for (k = 0; k < STATS_NLOSS; k++) {
		if ((m = stats_papers_mode(c, k)) == NULL)
			continue;
		/* (The weights do not change with the scale of A.) */
		m->fn(&c->lp, &s, v->T + o, adv + o, n, st->w + o);
		for (L = 0, i = o; i < o + n; i++)
			L -= st->w[i] * adv[i] * v->T[i];
		xsum_add(&a->p.loss[k], c->scope_group ? L : normalizer(m,
		    &c->lp, &s) * L, ka);
	}
}

/*
 * MS-GRPO's moments of group g and its advantage change, on the group's
 * rewards divided by 2^K, K the exponent of the largest |r| (eps along,
 * as far as advmath_tame_cap() lets it), so that near 1e308 nothing
 * overflows and near 1e-320 1/E_S[sigma_S] does not: the moments are
 * summed on their scales, and the change of
 * the advantage is scale-free.  Scaling by a power of two is exact, so
 * ordinary rewards give the same bits.
 */
static int
msgrpo(struct stats *st, struct stats_acc *a, const struct batch *v,
    size_t g, const double *adv, struct diag *d)
{
	struct ms_params p = st->ap.ms;
	struct ms_canon cn;
	struct ms_moments mm;
	struct stats_dchange dc;
	size_t o = v->goff[g], n = v->goff[g + 1] - o, i;
	double so, mo, sw, act, app, r, eps, mx = 0, *rn;
	int rc, K = 0;

	for (i = o; i < o + n; i++)
		mx = fmax(mx, fabs(v->r[i]));
	if (mx > 0)
		(void)frexp(mx, &K);
	if (K < 0)
		K = advmath_tame_cap(K, st->ap.eps_inside ? 0 : st->ap.eps,
		    st->ap.eps_inside ? st->ap.eps : 0);
	eps = ldexp(st->ap.eps, -K);
	msgrpo_from(&p, st->ap.eps_inside ? ldexp(eps, -K) : eps,
	    st->ap.sample, st->ap.eps_inside);
	if (n < msgrpo_tau_min(&p))
		return 0;
	rn = diag_malloc(n * sizeof(*rn));
	for (i = 0; i < n; i++)
		rn[i] = ldexp(v->r[o + i], -K);
	rc = msgrpo_canon_init(&cn, rn, v->T + o, v->tie ? v->tie + o : NULL,
	    n, &p);
	free(rn);
	if (rc == MSGRPO_NOMEM)
		return diag_set(d, EXIT_IO, "out of memory");
	if (rc != 0)
		return 0;	/* the estimator has refused it already */
	if (msgrpo_canon_cost(&cn) > p.budget) {
		a->p.ms_skipped++;
		msgrpo_canon_free(&cn);
		return 0;
	}
	if (msgrpo_moments(&cn, &mm) != 0) {
		msgrpo_canon_free(&cn);
		return diag_set(d, EXIT_IO, "out of memory");
	}
	/* mu_O and sigma_O of the group, weighted as its subgroups are. */
	for (sw = mo = so = 0, i = 0; i < n; i++) {
		sw += cn.t[i];
		mo += cn.t[i] * cn.r[i];
	}
	mo = sw > 0 ? mo / sw : 0;
	for (i = 0; i < n; i++)
		so += cn.t[i] * (cn.r[i] - mo) * (cn.r[i] - mo);
	so = sw > 0 ? sqrt(so / sw) : 0;
	msgrpo_canon_free(&cn);
	a->p.ms_groups++;
	xsum_add(&a->p.es, mm.es, K);
	xsum_add(&a->p.sigma, so, K);
	xsum_add(&a->p.vmu, mm.vmu, 2 * K);
	xsum_add(&a->p.vsig, mm.vsig, 2 * K);
	if (!(so > 0) || !(mm.es > 0))
		return 0;
	for (i = o; i < o + n; i++) {
		r = ldexp(v->r[i], -K);
		act = adv[i] - (r - mo) / (so + eps);
		app = (r - mo) * (1 / mm.es - 1 / so) +
		    r * mm.vsig / pow(mm.es, 3);
		dc = (struct stats_dchange){ .n = 1, .act = act, .app = app,
		    .act2 = act * act, .app2 = app * app, .cross = act * app,
		    .err2 = (act - app) * (act - app) };
		add_sums(a->p.d.sum, dc.sum, STATS_DSUMS);
	}
	return 0;
}

/* The records' numeric stratum values (tool calls), for --by-batch. */
static void
tool_calls(struct stats_acc *a, const struct gbatch *b, size_t o, size_t n)
{
	const char *key;
	char buf[64];
	size_t k, len;

	for (k = o; k < o + n; k++) {
		key = batch_skey(b, k, &len);
		if (len < 2 || len >= sizeof(buf) || key[0] != 'n' ||
		    memchr(key, 0x1f, len) != NULL)
			continue;
		memcpy(buf, key + 1, len - 1);
		buf[len - 1] = '\0';
		xsum_add(&a->p.tc_sum, strtod(buf, NULL), 0);
		a->p.tc_n++;
	}
}

void
stats_papers_group(struct stats *st, struct stats_acc *a,
    const struct gbatch *b, const struct batch *v, size_t g,
    const double *adv)
{
	size_t o = v->goff[g], n = v->goff[g + 1] - o;

	tool_calls(a, b, o, n);
	/* A group that --drop-zero-std takes out is in no loss: one equal
	 * on its scored records, as compute.c judges it. */
	if (!(st->ap.drop_zero && bview_equal(v, g)))
		losses(st, a, v, g, adv);
}

int
stats_papers_rewards(struct stats *st, struct stats_acc *a,
    const struct batch *v, size_t g, const double *adv, struct diag *d)
{
	stratified(st, a, v, g);
	if (st->c->est->kind == EST_MSGRPO)
		return msgrpo(st, a, v, g, adv, d);
	return 0;
}

void
stats_papers_finish(const struct prefs *c, struct stats_papers *p)
{
	const struct loss_mode *m;
	double den;
	size_t k;

	for (k = 0; k < STATS_NLOSS; k++) {
		if ((m = stats_papers_mode(c, k)) == NULL) {
			p->final[k] = NAN;
			continue;
		}
		den = c->scope_group ? 1 : normalizer(m, &c->lp, &p->scope);
		/* Past a double it is left out, as an undefined one. */
		p->final[k] = den > 0 ? xsum_over(&p->loss[k], den) : NAN;
		if (isinf(p->final[k]))
			p->final[k] = NAN;
		p->nfinal[k] = !isnan(p->final[k]);
	}
}

void
stats_papers_merge_stratum(struct stats_pstratum *t,
    const struct stats_pstratum *o)
{
	add_sums(t->sum, o->sum, STATS_PSUMS);
}

void
stats_papers_merge(struct stats_papers *t, const struct stats_papers *o)
{
	size_t k;

	t->forced += o->forced;
	xsum_merge(&t->termb_ss, &o->termb_ss);
	xsum_merge(&t->san_ss, &o->san_ss);
	for (k = 0; k < STATS_NLOSS; k++) {
		xsum_merge(&t->loss[k], &o->loss[k]);
		/* Undefined in a batch (no trained token): left out. */
		if (o->nfinal[k] > 0)
			t->final[k] += o->final[k];
		t->nfinal[k] += o->nfinal[k];
	}
	t->ms_groups += o->ms_groups;
	t->ms_skipped += o->ms_skipped;
	xsum_merge(&t->es, &o->es);
	xsum_merge(&t->sigma, &o->sigma);
	xsum_merge(&t->vmu, &o->vmu);
	xsum_merge(&t->vsig, &o->vsig);
	add_sums(t->d.sum, o->d.sum, STATS_DSUMS);
	xsum_merge(&t->tc_sum, &o->tc_sum);
	t->tc_n += o->tc_n;
}

void
stats_papers_total(struct stats_papers *t)
{
	size_t k;

	for (k = 0; k < STATS_NLOSS; k++)
		t->final[k] = t->nfinal[k] > 0 ? t->final[k] / t->nfinal[k] :
		    NAN;
}
