/*
 * msgrpo_canon.c - an MS-GRPO group in canonical order: its responses
 * sorted by (r, T, tie), so that results do not depend on record order;
 * its classes of interchangeable responses (equal reward; with token
 * stats equal (reward, T)); its magnitudes rescaled by powers of two
 * when huge; the cost of its exact path, and the path taken.
 *
 * Cost unit: about one class (or member) visit of the exact enumeration
 * (msgrpo_exact.c), with 8 more per count vector for its fixed work (a
 * sqrt, an exp, divisions):
 *	cost = (d + 8) * prod_j (n_j + 1)
 * over the d classes of n_j responses, which is (G + 8) 2^G when all
 * rewards are distinct and small for binary rewards (10 * 33 * 33 at
 * G = 64).  Measured at 2-4 ns per unit on both exact paths (x86-64,
 * -O2), so the default budget of 1e8 bounds an exact group at roughly
 * 0.2-0.4 s: continuous rewards go exact up to G = 21.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advmath_ms.h"
#include "msgrpo.h"
#include "slab.h"

struct resp {
	double		 r;
	double		 t;
	uint64_t	 tie;
	size_t		 idx;
};

static int
resp_cmp(const void *a, const void *b)
{
	const struct resp *x = a, *y = b;

	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->tie != y->tie)
		return x->tie < y->tie ? -1 : 1;
	/* Only records equal in (r, T, tie) get here; they are alike. */
	return (x->idx > y->idx) - (x->idx < y->idx);
}

void
msgrpo_canon_free(struct ms_canon *g)
{
	free(g->mem);
	memset(g, 0, sizeof(*g));
}

/*
 * The rewards are rescaled by 2^-er and eps with them, which leaves z
 * unchanged; T by 2^-et, which leaves mu and sigma unchanged
 * (advmath_tame(): rewards past 2^500 or below 2^-500, T past 2^500).
 */
int
msgrpo_canon_init(struct ms_canon *g, const double *r, const double *T,
    const uint64_t *tie, size_t G, const struct ms_params *p)
{
	struct slab s = SLAB_INIT;
	struct resp *v;
	double mr, mt;
	size_t i;
	int er, et;

	memset(g, 0, sizeof(*g));
	g->G = G;
	g->tau_min = msgrpo_tau_min(p);
	while (slab_pass(&s)) {
		g->r = slab_take(&s, G, sizeof(*g->r));
		g->t = slab_take(&s, G, sizeof(*g->t));
		g->ord = slab_take(&s, G, sizeof(*g->ord));
		g->cls = slab_take(&s, G + 1, sizeof(*g->cls));
		g->out = slab_take(&s, G, sizeof(*g->out));
		g->w = slab_take(&s, G + 1, sizeof(*g->w));
	}
	g->mem = s.mem;
	if ((v = malloc(G * sizeof(*v))) == NULL || g->mem == NULL) {
		free(v);
		msgrpo_canon_free(g);
		return MSGRPO_NOMEM;
	}
	if (msgrpo_weights(p, G, g->w) != 0) {
		free(v);
		msgrpo_canon_free(g);
		return MSGRPO_WEIGHTS;
	}
	for (i = 0; i < G; i++) {
		v[i].r = r[i];
		v[i].t = T != NULL ? T[i] : 1.0;
		v[i].tie = tie != NULL ? tie[i] : 0;
		v[i].idx = i;
	}
	qsort(v, G, sizeof(*v), resp_cmp);

	mr = mt = 0.0;
	for (i = 0; i < G; i++) {
		if (fabs(v[i].r) > mr)
			mr = fabs(v[i].r);
		if (fabs(v[i].t) > mt)
			mt = fabs(v[i].t);
	}
	er = advmath_tame(mr, p->inside ? 0 : p->eps, p->inside ? p->eps : 0);
	et = p->token_stats ? advmath_tame_exp(mt) : 0;
	/* eps is added to sigma, or (inside) to sigma^2. */
	g->eps = ldexp(p->eps, p->inside ? -2 * er : -er);
	g->sample = p->sample;
	g->inside = p->inside;

	g->d = 0;
	for (i = 0; i < G; i++) {
		g->ord[i] = v[i].idx;
		g->r[i] = ldexp(v[i].r, -er);
		g->t[i] = p->token_stats ? ldexp(v[i].t, -et) : 1.0;
		if (i == 0 || v[i].r != v[i - 1].r ||
		    (p->token_stats && v[i].t != v[i - 1].t))
			g->cls[g->d++] = i;
	}
	g->cls[g->d] = G;
	free(v);
	return 0;
}

double
msgrpo_canon_cost(const struct ms_canon *g)
{
	double v = 1.0;
	size_t j;

	for (j = 0; j < g->d; j++)
		v *= (double)(g->cls[j + 1] - g->cls[j] + 1);
	return v * (double)(g->d + 8);
}

/*
 * auto: exact within the budget, else sampled within it; a group past
 * both is refused (MSGRPO_SAMPLED_OVER) rather than run for minutes, or
 * out of memory, with no word said.
 */
int
msgrpo_canon_path(const struct ms_canon *g, const struct ms_params *p,
    enum ms_path *path)
{
	switch (p->mode) {
	case MS_EXACT:
		if (msgrpo_canon_cost(g) > p->budget)
			return MSGRPO_EXACT_OVER;
		*path = MS_PATH_EXACT;
		break;
	case MS_SAMPLED:
		if (msgrpo_sampled_cost(g->G, p) > p->budget)
			return MSGRPO_SAMPLED_OVER;
		*path = MS_PATH_SAMPLED;
		break;
	case MS_AUTO:
	default:
		if (msgrpo_canon_cost(g) <= p->budget)
			*path = MS_PATH_EXACT;
		else if (msgrpo_sampled_cost(g->G, p) <= p->budget)
			*path = MS_PATH_SAMPLED;
		else
			return MSGRPO_SAMPLED_OVER;
		break;
	}
	return 0;
}

int
msgrpo_canon_run(struct ms_canon *g, const struct ms_params *p,
    uint64_t key_hash, double *adv, enum ms_path *path)
{
	enum ms_path pa;
	size_t i;
	int rc;

	if ((rc = msgrpo_canon_path(g, p, &pa)) != 0)
		return rc;
	rc = pa == MS_PATH_EXACT ? msgrpo_exact(g, p) :
	    msgrpo_sampled(g, p, key_hash);
	if (rc != 0)
		return rc;
	for (i = 0; i < g->G; i++)
		adv[g->ord[i]] = advmath_ms_finish(g->out[i]);
	*path = pa;
	return 0;
}
