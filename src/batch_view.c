/*
 * batch_view.c - a batch's view in group order: the flat arrays the
 * estimators read (batch.h's struct batch), the permutation back to the
 * records, a trajectory's rows made one record, and the records of the
 * groups left out.
 */
#include <stdlib.h>
#include <string.h>

#include "advmath_lw.h"
#include "batchint.h"
#include "diag.h"
#include "slab.h"

/* Whether the records are in group order already, none left out. */
static int
in_group_order(const struct gbatch *b)
{
	size_t g, o = 0;

	if (b->ncont > 0)
		return 0;	/* rows are not responses */
	for (g = 0; g < b->ngroups; g++) {
		if (b->grp[g].dropped || b->grp[g].first != o ||
		    b->grp[g].last != o + b->grp[g].size - 1)
			return 0;
		o += b->grp[g].size;
	}
	return 1;
}

/* Room for n elements of size sz at *p, of *cap so far. */
static void
room(void *pp, size_t *cap, size_t n, size_t sz)
{
	void **p = pp;

	if (n <= *cap && *p != NULL)
		return;
	*cap = n + n / 2 + 16;
	*p = diag_realloc(*p, *cap * sz);
}

/* The arrays that only some views need, as vhave lists them. */
enum {
	V_TIE = 1,		/* need_tie */
	V_UNSCORED = 2,		/* records left out of their baselines */
	V_PERM = 4,		/* not in group order: perm, ..., T */
	V_BASE = 8,		/* and baselines */
	V_RK = 16,		/* and reward parts */
	V_ROLL = 32		/* and rollouts */
};

/* Places the view's arrays, those vhave names among them, in s (the
 * list that both of slab_pass()'s passes run). */
static void
view_take(struct gbatch *b, struct slab *s)
{
	size_t n = b->vcap, ng = b->gvcap;
	unsigned f = b->vhave;

	b->strat = slab_take(s, n, sizeof(*b->strat));
	b->tie = f & V_TIE ? slab_take(s, n, sizeof(*b->tie)) : NULL;
	b->unscored = f & V_UNSCORED ? slab_take(s, n,
	    sizeof(*b->unscored)) : NULL;
	if (f & V_PERM) {
		b->perm = slab_take(s, n, sizeof(*b->perm));
		b->order = slab_take(s, n, sizeof(*b->order));
		b->orow = slab_take(s, n, sizeof(*b->orow));
		b->sorted = slab_take(s, n, sizeof(*b->sorted));
		b->r = slab_take(s, n, sizeof(*b->r));
		b->T = slab_take(s, n, sizeof(*b->T));
	}
	b->base = f & V_BASE ? slab_take(s, n, sizeof(*b->base)) : NULL;
	b->rkv = f & V_RK ? slab_take(s, n * b->K, sizeof(*b->rkv)) : NULL;
	b->rollv = f & V_ROLL ? slab_take(s, n, sizeof(*b->rollv)) : NULL;
	b->goff = slab_take(s, ng + 1, sizeof(*b->goff));
	b->nstrat = slab_take(s, ng, sizeof(*b->nstrat));
	b->ghash = slab_take(s, ng, sizeof(*b->ghash));
	b->gidx = slab_take(s, ng, sizeof(*b->gidx));
	b->gfile = slab_take(s, ng, sizeof(*b->gfile));
	b->gline = slab_take(s, ng, sizeof(*b->gline));
}

/*
 * Room for the view of the records and groups held, and the arrays it
 * needs: the permutation and the copies only when the records are not in
 * group order.  A view fills every array it reads, so a block too small,
 * or without an array, is made again rather than grown, with the arrays
 * of the views before (a batch of another layout may come next).
 */
static void
grow_view(struct gbatch *b, int need_tie)
{
	struct slab s = SLAB_INIT;
	size_t vcap = b->vcap, gvcap = b->gvcap;
	unsigned want;

	want = (need_tie ? V_TIE : 0) | (b->nunscored > 0 ? V_UNSCORED : 0);
	if (!b->ident) {
		want |= V_PERM | (b->bl != NULL ? V_BASE : 0) |
		    (b->rk != NULL ? V_RK : 0) |
		    (b->roll != NULL ? V_ROLL : 0);
		room(&b->scratch, &b->scap, b->n, sizeof(*b->scratch));
	}
	if (b->vmem != NULL && b->n <= vcap && b->ngroups <= gvcap &&
	    (want & ~b->vhave) == 0)
		return;
	if (b->n > vcap)
		vcap = b->n + b->n / 2 + 16;
	if (b->ngroups > gvcap)
		gvcap = b->ngroups + b->ngroups / 2 + 16;
	batch_view_free(b);
	b->vcap = vcap;
	b->gvcap = gvcap;
	b->vhave |= want;
	while (slab_pass(&s))
		view_take(b, &s);
	if ((b->vmem = s.mem) == NULL)
		diag_oom();
}

void
batch_view_free(struct gbatch *b)
{
	if (b->vmem == NULL)
		return;
	free(b->vmem);
	b->vmem = NULL;
}

/*
 * Counting sort of the records of the groups dropped (or not) by group,
 * input order kept inside a group, into out; returns how many.  end[g]
 * (ngroups + 1 entries) is left at the end of group g in out.
 */
static size_t
sort_by_group(const struct gbatch *b, int dropped, size_t *out, size_t *end)
{
	size_t g, i, o = 0, c;

	for (g = 0; g < b->ngroups; g++) {
		c = b->grp[g].dropped == dropped ? b->grp[g].rows : 0;
		end[g] = o;
		o += c;
	}
	end[b->ngroups] = o;
	for (i = 0; i < b->n; i++)
		if (b->grp[b->rec[i].group].dropped == dropped)
			out[end[b->rec[i].group]++] = i;
	return o;
}

size_t
batch_rejects(struct gbatch *b, const size_t **ix)
{
	size_t n, g, *end;

	room(&b->scratch, &b->scap, b->n, sizeof(*b->scratch));
	end = diag_malloc((b->ngroups + 1) * sizeof(*end));
	n = sort_by_group(b, 1, b->scratch, end);
	free(end);
	for (g = 0; g < b->ngroups; g++)
		if (b->grp[g].dropped == 1)
			b->grp[g].dropped = 2;
	*ix = b->scratch;
	return n;
}

/* Two canonical keys are equal (an empty one may have no bytes at all). */
static int
keyeq(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/*
 * The stratum index of view record k in its group: the order in which
 * the group's stratum keys first came (nk so far, the first of each of
 * the first FEW_STRATA at view indexes first[]).  Those are compared one
 * by one; past them a hash table of the group's keys takes over, filled
 * with the first ones, in order, when it is first needed.
 */
static uint32_t
local_stratum(struct gbatch *b, size_t k, const size_t *first, size_t nk)
{
	const char *key, *fk;
	size_t s, len, flen;

	key = batch_skey(b, k, &len);
	for (s = 0; s < nk && s < FEW_STRATA; s++) {
		fk = batch_skey(b, first[s], &flen);
		if (keyeq(fk, flen, key, len))
			return (uint32_t)s;
	}
	if (nk < FEW_STRATA)
		return (uint32_t)nk;
	if (keymap_count(&b->strata) == 0)
		for (s = 0; s < FEW_STRATA; s++) {
			fk = batch_skey(b, first[s], &flen);
			keymap_get(&b->strata, fk, flen, NULL);
		}
	return (uint32_t)keymap_get(&b->strata, key, len, NULL);
}

/* Whether record i continues the trajectory of the row before it. */
static int
continues(const struct gbatch *b, size_t i)
{
	const struct hrec *h = &b->rec[i];

	return h->full && b->full[h->full - 1].traj_cont;
}

/* Whether record i is left out of its group's baseline. */
static int
unscored(const struct gbatch *b, size_t i)
{
	const struct hrec *h = &b->rec[i];

	return h->full && b->full[h->full - 1].unscored;
}

/*
 * With trajectories: the rows sorted[o .. e - 1] of one group as view
 * records from "from" on.  A row that continues a trajectory joins the
 * record before it, which then stands for its last row (whose reward
 * it has) and has the trained tokens of all its rows (sample-masked
 * where all of them are, advmath_lw_T_join()).  Each row's view
 * index goes to scratch.  Returns the records made.
 */
static size_t
traj_rows(struct gbatch *b, size_t o, size_t e, size_t from)
{
	size_t k, i, n = 0;

	for (k = o; k < e; k++) {
		i = b->sorted[k];
		if (continues(b, i) && n > 0)
			b->T[from + n - 1] = advmath_lw_T_join(
			    b->T[from + n - 1], b->Td[i]);
		else
			b->T[from + n++] = b->Td[i];
		b->perm[from + n - 1] = i;
		b->scratch[i] = from + n - 1;
	}
	return n;
}

/* Fills the view's arrays for group g, view records o .. e - 1, as view
 * group ng. */
static void
view_group(struct gbatch *b, size_t g, size_t ng, size_t o, size_t e,
    int need_tie)
{
	const struct record *r;
	struct record tmp;
	const char *key, *bkey, *line;
	size_t k, i, nk = 0, len, blen, first[FEW_STRATA];
	uint32_t s;

	b->goff[ng] = o;
	key = batch_gkey(b, g, &len);
	b->ghash[ng] = keymap_hash(key, len, 0);
	/* A prompt that comes back at every step (--batch-key) must not
	 * draw the same MS-GRPO samples each time. */
	if ((bkey = batch_key(b, &blen)) != NULL && blen > 0)
		b->ghash[ng] = keymap_hash(bkey, blen, b->ghash[ng]);
	/* Its label only for a message (batch_view_label()): quoting
	 * every group's key cost more than a few records' parsing. */
	b->gidx[ng] = g;
	b->gfile[ng] = batch_gwhere(b, g, &b->gline[ng], NULL);
	keymap_clear(&b->strata);
	for (k = o; k < e; k++) {
		i = at(b, k);
		if (!b->ident) {
			b->r[k] = b->rew[i];
			if (b->ncont == 0)	/* else traj_rows() did */
				b->T[k] = b->Td[i];
			if (b->bl != NULL)
				b->base[k] = b->bl[i];
			if (b->rk != NULL)
				memcpy(b->rkv + k * b->K, b->rk + i * b->K,
				    b->K * sizeof(*b->rkv));
			if (b->roll != NULL)
				b->rollv[k] = b->roll[i];
		}
		if (b->nunscored > 0)
			b->unscored[k] = (unsigned char)unscored(b, i);
		/* Without strata (most estimators read none), one. */
		s = b->nstratum > 0 ? local_stratum(b, k, first, nk) : 0;
		if (s == nk) {
			if (nk < FEW_STRATA)
				first[nk] = k;
			nk++;
		}
		b->strat[k] = s;
		if (need_tie) {
			r = batch_hrec(b, i, &tmp);
			line = batch_hline(b, i, &len);
			b->tie[k] = r->has_tie ? r->tie : batch_tie(line, len);
		}
	}
	b->nstrat[ng] = (uint32_t)nk;
}

uint64_t
batch_tie(const char *line, size_t len)
{
	return keymap_hash(line, len, 1);
}

/*
 * The view's order when the records are not in group order already:
 * perm (group order to record), end[g] the end of group g in it, and
 * scratch (each record's view index).  Returns the records in the view.
 */
static size_t
permute(struct gbatch *b, size_t *end)
{
	size_t g, o, k, nv = 0;

	if (b->ncont == 0) {
		nv = sort_by_group(b, 0, b->perm, end);
		for (k = 0; k < nv; k++)
			b->scratch[b->perm[k]] = k;
		return nv;
	}
	/* Trajectories: rows in group order, then each made one record. */
	sort_by_group(b, 0, b->sorted, end);
	for (g = 0, o = 0; g < b->ngroups; g++) {
		k = end[g];
		nv += traj_rows(b, o, k, nv);
		o = k;
		end[g] = nv;
	}
	return nv;
}

void
batch_view(struct gbatch *b, struct batch *v, int need_tie)
{
	size_t g, i, j, o, ng = 0, *end;

	b->ident = in_group_order(b);
	grow_view(b, need_tie);
	end = diag_malloc((b->ngroups + 1) * sizeof(*end));
	if (b->ident) {
		for (g = 0, o = 0; g < b->ngroups; g++)
			end[g] = o += b->grp[g].size;
		b->nv = b->nrows = b->n;
	} else
		b->nv = permute(b, end);
	/* end[g] is the end of group g in the view; dropped groups are
	 * empty, and vanish. */
	for (g = 0, o = 0; g < b->ngroups; g++) {
		if (end[g] == o)
			continue;
		view_group(b, g, ng++, o, end[g], need_tie);
		o = end[g];
	}
	b->goff[ng] = o;
	if (!b->ident) {
		/* Each row and the view index of its record, in input
		 * order. */
		for (i = 0, j = 0; i < b->n; i++)
			if (!b->grp[b->rec[i].group].dropped) {
				b->orow[j] = i;
				b->order[j++] = b->scratch[i];
			}
		b->nrows = j;
	}
	free(end);

	v->n = b->nv;
	v->ngroups = ng;
	v->r = b->ident ? b->rew : b->r;
	v->T = b->ident ? b->Td : b->T;
	v->base = b->bl == NULL ? NULL : b->ident ? b->bl : b->base;
	v->rk = b->rk == NULL ? NULL : b->ident ? b->rk : b->rkv;
	v->K = b->K;
	v->roll = b->roll == NULL ? NULL : b->ident ? b->roll : b->rollv;
	v->nroll = keymap_count(&b->rolls);
	v->goff = b->goff;
	v->strat = b->strat;
	v->nstrat = b->nstrat;
	v->ghash = b->ghash;
	v->tie = need_tie ? b->tie : NULL;
	v->unscored = b->nunscored > 0 ? b->unscored : NULL;
	v->gname = NULL;
	v->src = b;
	v->gidx = b->gidx;
	v->gfile = (const char *const *)b->gfile;
	v->gline = b->gline;
	v->vk = NULL;
	v->vbase = 0;
}

const char *
batch_view_label(const struct batch *v, size_t g, struct buf *out)
{
	if (v->gname != NULL)
		return v->gname[g];
	if (v->src == NULL || v->gidx == NULL)
		return "?";
	out->len = 0;
	batch_glabel(v->src, v->gidx[g], out);
	buf_add(out, "", 1);
	return out->p;
}

const char *
batch_view_where(const struct batch *v, size_t g, size_t i,
    unsigned long long *line)
{
	size_t k = v->vk != NULL ? v->vk[i] : v->vbase + i;

	/* Another shard's record has its line in that shard alone. */
	if (v->src != NULL && !batch_elsewhere(v->src, k))
		return batch_where(v->src, k, line);
	*line = v->gline != NULL ? v->gline[g] : 0;
	return v->gfile != NULL ? v->gfile[g] : "-";
}
