/*
 * annotate.c - the "rladv" member of --annotate (annotate.h).
 *
 * Stratified GRPO's Proposition 3 (Eq. 14) splits GN as alpha_k SAN +
 * Delta_k in each (group, stratum) cell, alpha_k = (s_k + eps) / (s + eps)
 * and Delta_k = (mean_k - mean) / (s + eps); with the deviations the
 * estimators use (--std), rladv's own GN and SAN satisfy it exactly.
 * Balanced Aggregation's counts are its Eq. 9 and 15 and Appendix B's,
 * over the group's records with a trained token, from the advantages
 * written.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advantage.h"
#include "advmath.h"
#include "annotate.h"
#include "batch.h"
#include "diag.h"
#include "msgrpo.h"
#include "options.h"
#include "output.h"
#include "record.h"

static void
add(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* ,"name":v (no comma first when first); a figure past the largest
 * double (a sum of advantages near 1e308) is null, never 0. */
static void
num(struct buf *b, const char *name, double v, int digits, int first)
{
	char n[40];

	if (!first)
		add(b, ",");
	add(b, "\"");
	add(b, name);
	add(b, "\":");
	if (!isfinite(v))
		add(b, "null");
	else
		buf_add(b, n, output_number(v, digits, n));
}

/* Balanced Aggregation's figures of the group at adv[0..n). */
static void
balanced(struct buf *b, const double *adv, const double *T, size_t n,
    int digits)
{
	double f[9] = { 0 };	/* Gv k m N+ N- M+ M- Z+ Z- */
	static const char *const name[9] = { "Gv", "k", "m", "n_pos",
	    "n_neg", "m_pos", "m_neg", "z_pos", "z_neg" };
	size_t i;

	for (i = 0; i < n; i++) {
		if (T[i] <= 0)
			continue;
		f[0]++;
		if (adv[i] > 0) {
			f[1]++;
			f[3] += T[i];
			f[5] += adv[i];
			f[7] += adv[i] * T[i];
		} else if (adv[i] < 0) {
			f[2]++;
			f[4] += T[i];
			f[6] -= adv[i];
			f[8] -= adv[i] * T[i];
		}
	}
	add(b, ",\"balanced\":{");
	for (i = 0; i < 9; i++)
		num(b, name[i], f[i], i < 5 ? 17 : digits, i == 0);
	add(b, "}");
}

/* MS-GRPO's path, and the draws of the sampled one holding record i. */
static void
msgrpo(struct buf *b, const struct ms_trace *t, size_t i)
{
	static const char *const path[] = { "none", "exact", "sampled" };
	char tmp[32];
	size_t s, j, k;
	int any;

	add(b, ",\"msgrpo\":{\"path\":\"");
	add(b, path[t->path]);
	add(b, "\"");
	if (t->path != MS_PATH_SAMPLED) {
		add(b, "}");
		return;
	}
	add(b, ",\"scales\":[");
	for (s = 0; s < t->nscale; s++) {
		snprintf(tmp, sizeof(tmp), "%s%zu", s ? "," : "", t->scale[s]);
		add(b, tmp);
	}
	add(b, "],\"subgroups\":[");
	for (any = 0, s = 0; s < t->nset; s++) {
		const uint64_t *set = t->set + s * t->nw;

		if (!((set[i / 64] >> (i % 64)) & 1))
			continue;
		add(b, any++ ? ",[" : "[");
		for (k = 0, j = 0; j < t->nw * 64; j++)
			if ((set[j / 64] >> (j % 64)) & 1) {
				snprintf(tmp, sizeof(tmp), "%s%zu", k++ ? "," :
				    "", j);
				add(b, tmp);
			}
		add(b, "]");
	}
	add(b, "]}");
}

/*
 * Record k's member: group gm, its stratum's sm, the cell's Eq. 14.  The
 * moments are of the group's rewards times 2^-e, as the estimators
 * compute them where rewards pass 2^500 or are below 2^-500 (compute.c),
 * so that no sum or square overflows or underflows; the figures are
 * scaled back, the ratios need not be.
 */
static void
record(struct annot *x, const struct prefs *c, const struct gbatch *b,
    size_t k, const struct advmath_mom *gm, const struct advmath_mom *sm,
    int e)
{
	struct buf *t = &x->text;
	const char *skey;
	double eps = ldexp(c->ap.eps, -e);
	size_t slen;

	add(t, "{");
	num(t, "group_size", gm->n, 17, 1);
	num(t, "group_mean", ldexp(gm->mean, e), c->digits, 0);
	num(t, "group_std", ldexp(gm->std, e), c->digits, 0);
	skey = batch_skey(b, k, &slen);
	if (slen > 0) {
		x->scratch.len = 0;
		record_key_label(skey, slen, &x->scratch);
		add(t, ",\"stratum\":");
		output_json_string(t, x->scratch.p, x->scratch.len);
	}
	num(t, "stratum_size", sm->n, 17, 0);
	num(t, "stratum_mean", ldexp(sm->mean, e), c->digits, 0);
	num(t, "stratum_std", ldexp(sm->std, e), c->digits, 0);
	num(t, "alpha_k", (sm->std + eps) / (gm->std + eps), c->digits, 0);
	num(t, "offset_k", (sm->mean - gm->mean) / (gm->std + eps), c->digits,
	    0);
}

int
annotate_batch(struct annot *x, const struct prefs *c,
    const struct adv_params *ap, const struct gbatch *b,
    const struct batch *v, const double *adv, struct diag *d)
{
	struct advmath_mom gm, *sm = NULL;
	struct ms_trace tr;
	struct ms_params mp = ap->ms;
	double mx, *r = diag_malloc((v->n ? v->n : 1) * sizeof(*r));
	size_t g, k, o, n, cap = 0;
	uint32_t s;
	int ms = c->est->kind == EST_MSGRPO, e;

	if (v->n > x->cap) {
		x->cap = v->n + v->n / 2;
		x->off = diag_realloc(x->off, x->cap * sizeof(*x->off));
		x->len = diag_realloc(x->len, x->cap * sizeof(*x->len));
	}
	msgrpo_from(&mp, ap->eps, ap->sample, ap->eps_inside);
	memset(&tr, 0, sizeof(tr));
	x->text.len = 0;
	for (g = 0; g < v->ngroups; g++) {
		o = v->goff[g];
		n = v->goff[g + 1] - o;
		for (mx = 0, k = o; k < o + n; k++)
			mx = fmax(mx, fabs(v->r[k]));
		e = advmath_tame(mx, c->ap.eps, 0);
		for (k = o; k < o + n; k++)
			r[k] = ldexp(v->r[k], -e);
		gm = advmath_moments(r + o, NULL, 0, n, c->ap.sample);
		/* Each stratum's moments once, not once per record. */
		if (v->nstrat[g] > cap) {
			cap = v->nstrat[g];
			sm = diag_realloc(sm, cap * sizeof(*sm));
		}
		for (s = 0; s < v->nstrat[g]; s++)
			sm[s] = advmath_moments(r + o, v->strat + o, s, n,
			    c->ap.sample);
		if (ms && msgrpo_trace(v->r + o, v->T + o, v->tie ? v->tie +
		    o : NULL, n, v->ghash[g], &mp, &tr) != 0) {
			free(sm);
			free(r);
			return diag_set(d, EXIT_IO, "out of memory");
		}
		for (k = o; k < o + n; k++) {
			x->off[k] = x->text.len;
			record(x, c, b, k, &gm, &sm[v->strat[k]], e);
			balanced(&x->text, adv + o, v->T + o, n, c->digits);
			if (ms)
				msgrpo(&x->text, &tr, k - o);
			add(&x->text, "}");
			x->len[k] = x->text.len - x->off[k];
		}
		msgrpo_trace_free(&tr);
	}
	free(sm);
	free(r);
	return 0;
}

void
annotate_free(struct annot *x)
{
	buf_free(&x->text);
	buf_free(&x->scratch);
	free(x->off);
	free(x->len);
	memset(x, 0, sizeof(*x));
}
