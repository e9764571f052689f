/*
 * testbatch.h - a struct batch (batch.h) made from arrays, for the suites
 * that run estimators and loss modes on hand-made groups.  A struct tb
 * owns every array its batch points to.  Header-only, every function
 * static, as testutil.h.
 */
#ifndef RLADV_TESTBATCH_H
#define RLADV_TESTBATCH_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "batch.h"

#define TB_MAXN	64
#define TB_MAXG	16

struct tb {
	double		 r[TB_MAXN], T[TB_MAXN], base[TB_MAXN];
	double		 adv[TB_MAXN], w[TB_MAXN];	/* the outputs */
	size_t		 goff[TB_MAXG + 1];
	uint32_t	 strat[TB_MAXN], nstrat[TB_MAXG];
	uint64_t	 ghash[TB_MAXG], tie[TB_MAXN];
	const char	*gname[TB_MAXG], *gfile[TB_MAXG];
	unsigned long long gline[TB_MAXG];
	struct batch	 b;
};

/*
 * t: n records with rewards r (NULL: 0) and trained tokens T (NULL: 1
 * each), in ngroups groups of sizes[g] records, stratum strat[i] in its
 * group (NULL: one stratum a group).  Baselines are 0, record i's tie
 * hash is i, group g's key hash is g and its label "g", at f.jsonl:N, N
 * the line of its first record.  Every adv and w is NaN, so that a slot
 * left unwritten shows.
 */
static inline void
tb_make(struct tb *t, const double *r, const double *T, size_t n,
    const size_t *sizes, size_t ngroups, const uint32_t *strat)
{
	size_t i, g, o = 0;

	memset(t, 0, sizeof(*t));
	ck_assert(n <= TB_MAXN && ngroups <= TB_MAXG);
	for (i = 0; i < n; i++) {
		t->r[i] = r ? r[i] : 0;
		t->T[i] = T ? T[i] : 1;
		t->strat[i] = strat ? strat[i] : 0;
		t->tie[i] = i;
		t->adv[i] = t->w[i] = NAN;
	}
	for (g = 0; g < ngroups; g++) {
		t->goff[g] = o;
		t->ghash[g] = g;
		t->gname[g] = "g";
		t->gfile[g] = "f.jsonl";
		t->gline[g] = o + 1;
		for (i = o; i < o + sizes[g]; i++)
			if (t->strat[i] + 1 > t->nstrat[g])
				t->nstrat[g] = t->strat[i] + 1;
		o += sizes[g];
	}
	ck_assert_uint_eq(o, n);
	t->goff[ngroups] = o;
	t->b.n = n;
	t->b.ngroups = ngroups;
	t->b.r = t->r;
	t->b.T = t->T;
	t->b.base = t->base;
	t->b.goff = t->goff;
	t->b.strat = t->strat;
	t->b.nstrat = t->nstrat;
	t->b.ghash = t->ghash;
	t->b.tie = t->tie;
	t->b.gname = t->gname;
	t->b.gfile = t->gfile;
	t->b.gline = t->gline;
}

#endif
