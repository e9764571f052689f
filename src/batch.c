/*
 * batch.c - the records of a batch and their view in group order.
 *
 * Records come in input order, and that is the order they are written
 * back in; the estimators want them in group order, with flat arrays of
 * rewards and token counts.  The batch keeps both: its records as they
 * came, each with its group, and a permutation (perm) from group order
 * back to them, made by a counting sort so that it costs one pass
 * whatever the groups' layout.  Running out of memory ends the process
 * in diag's allocators, as it does everywhere in rladv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "buf.h"
#include "diag.h"
#include "keymap.h"
#include "record.h"

/* How many strata of a group are compared one by one before a hash
 * table takes over: groups have a few strata, tool-call counts. */
#define FEW_STRATA	64

struct hrec {
	struct record		 r;	/* keys and runs index the batch's */
	const char		*ptr;	/* the line in place, or NULL: */
	size_t			 text, len;	/* in the text arena */
	const char		*file;
	unsigned long long	 lineno;
	size_t			 group;
};

struct hgrp {
	size_t	first, last;	/* records i */
	size_t	size;
	int	dropped;
};

struct gbatch {
	struct buf	 text, keys, runs;	/* the records' arenas */
	struct hrec	*rec;
	size_t		 n, cap;
	struct hgrp	*grp;
	size_t		 ngroups, gcap;
	int		 starts;
	/* The view: arrays of vcap records and gvcap groups. */
	size_t		*perm;		/* group order -> record i */
	size_t		*order;		/* input order -> view index k */
	size_t		*scratch;	/* batch_rejects()'s records, or
					   perm's inverse in batch_view() */
	size_t		 nv;		/* records in the view */
	double		*r, *T, *base;
	uint32_t	*strat;
	uint64_t	*tie;
	size_t		*goff;
	uint32_t	*nstrat;
	uint64_t	*ghash;
	char		**gname;
	const char	**gfile;
	unsigned long long *gline;
	size_t		 vcap, gvcap;
	struct keymap	 strata;	/* the strata of a group with many */
};

struct gbatch *
batch_new(void)
{
	struct gbatch *b = diag_calloc(1, sizeof(*b));

	/* Storage from the start: key offsets are then never added to a
	 * null pointer, even for key-less records. */
	buf_reserve(&b->keys, 64);
	buf_reserve(&b->text, 64);
	buf_reserve(&b->runs, 64);
	keymap_init(&b->strata, 0);
	b->starts = 1;
	return b;
}

void
batch_free(struct gbatch *b)
{
	size_t g;

	if (b == NULL)
		return;
	buf_free(&b->text);
	buf_free(&b->keys);
	buf_free(&b->runs);
	free(b->rec);
	free(b->grp);
	free(b->perm);
	free(b->order);
	free(b->scratch);
	free(b->r);
	free(b->T);
	free(b->base);
	free(b->strat);
	free(b->tie);
	free(b->goff);
	free(b->nstrat);
	free(b->ghash);
	if (b->gname)
		for (g = 0; g < b->gvcap; g++)
			free(b->gname[g]);
	free(b->gname);
	free(b->gfile);
	free(b->gline);
	keymap_free(&b->strata);
	free(b);
}

size_t
batch_add(struct gbatch *b, const struct record *r, const struct buf *keys,
    const struct buf *runs, const char *line, size_t len, int stable,
    const char *file, unsigned long long lineno, size_t g)
{
	struct hrec *h;
	size_t kbase = b->keys.len, rbase = b->runs.len / sizeof(uint32_t);

	if (g == b->ngroups) {
		if (b->ngroups == b->gcap) {
			b->gcap = b->gcap ? 2 * b->gcap : 64;
			b->grp = diag_realloc(b->grp, b->gcap *
			    sizeof(*b->grp));
		}
		b->grp[g].first = b->n;
		b->grp[g].size = 0;
		b->grp[g].dropped = 0;
		b->ngroups++;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->rec = diag_realloc(b->rec, b->cap * sizeof(*b->rec));
	}
	h = &b->rec[b->n];
	h->r = *r;
	h->file = file;
	h->lineno = lineno;
	h->group = g;
	/* A line that stays valid (a mapped file) is not copied. */
	h->ptr = stable ? line : NULL;
	h->text = stable ? 0 : buf_add(&b->text, line, len);
	h->len = len;
	/* Re-base the record's keys and runs into the batch's arenas. */
	buf_add(&b->keys, keys->p, keys->len);
	h->r.gkey += kbase;
	h->r.skey += kbase;
	h->r.bkey += kbase;
	if (r->has_mask) {
		buf_add(&b->runs, runs->p + r->runs * sizeof(uint32_t),
		    r->nruns * sizeof(uint32_t));
		h->r.runs = rbase;
	}
	b->grp[g].size++;
	b->grp[g].last = b->n;
	return b->n++;
}

size_t
batch_held(const struct gbatch *b)
{
	return b->n;
}

size_t
batch_ngroups(const struct gbatch *b)
{
	return b->ngroups;
}

const char *
batch_gkey(const struct gbatch *b, size_t g, size_t *len)
{
	const struct record *r = &b->rec[b->grp[g].first].r;

	*len = r->has_group ? r->gkeylen : 0;
	return r->has_group ? b->keys.p + r->gkey : "";
}

size_t
batch_gsize(const struct gbatch *b, size_t g)
{
	return b->grp[g].size;
}

const char *
batch_gwhere(const struct gbatch *b, size_t g, unsigned long long *first,
    unsigned long long *last)
{
	*first = b->rec[b->grp[g].first].lineno;
	if (last != NULL)
		*last = b->rec[b->grp[g].last].lineno;
	return b->rec[b->grp[g].first].file;
}

void
batch_glabel(const struct gbatch *b, size_t g, struct buf *out)
{
	const char *key;
	unsigned long long line;
	size_t len;
	char tmp[64];
	int n;

	key = batch_gkey(b, g, &len);
	batch_gwhere(b, g, &line, NULL);
	if (len == 0) {
		n = snprintf(tmp, sizeof(tmp), "block %zu", g + 1);
		buf_add(out, tmp, n);
	} else {
		buf_add(out, "\"", 1);
		record_key_label(key, len, out);
		buf_add(out, "\"", 1);
	}
	n = snprintf(tmp, sizeof(tmp), " (line %llu)", line);
	buf_add(out, tmp, n);
}

const char *
batch_key(const struct gbatch *b, size_t *len)
{
	const struct record *r = &b->rec[0].r;

	*len = r->has_batch ? r->bkeylen : 0;
	return r->has_batch ? b->keys.p + r->bkey : "";
}

void
batch_drop(struct gbatch *b, size_t g)
{
	b->grp[g].dropped = 1;
}

const char *
batch_hline(const struct gbatch *b, size_t i, size_t *len)
{
	const struct hrec *h = &b->rec[i];

	if (len != NULL)
		*len = h->len;
	return h->ptr ? h->ptr : b->text.p + h->text;
}

const struct record *
batch_hrec(const struct gbatch *b, size_t i)
{
	return &b->rec[i].r;
}

size_t
batch_hgroup(const struct gbatch *b, size_t i)
{
	return b->rec[i].group;
}

/* Room for the view of the records and groups held. */
static void
grow_view(struct gbatch *b)
{
	size_t g;

	if (b->n > b->vcap) {
		b->vcap = b->n + b->n / 2 + 16;
		b->perm = diag_realloc(b->perm, b->vcap * sizeof(*b->perm));
		b->order = diag_realloc(b->order, b->vcap *
		    sizeof(*b->order));
		b->scratch = diag_realloc(b->scratch, b->vcap *
		    sizeof(*b->scratch));
		b->r = diag_realloc(b->r, b->vcap * sizeof(*b->r));
		b->T = diag_realloc(b->T, b->vcap * sizeof(*b->T));
		b->base = diag_realloc(b->base, b->vcap * sizeof(*b->base));
		b->strat = diag_realloc(b->strat, b->vcap * sizeof(*b->strat));
		b->tie = diag_realloc(b->tie, b->vcap * sizeof(*b->tie));
	}
	if (b->ngroups + 1 > b->gvcap) {
		size_t old = b->gvcap;

		b->gvcap = b->ngroups + b->ngroups / 2 + 16;
		b->goff = diag_realloc(b->goff, b->gvcap * sizeof(*b->goff));
		b->nstrat = diag_realloc(b->nstrat, b->gvcap *
		    sizeof(*b->nstrat));
		b->ghash = diag_realloc(b->ghash, b->gvcap *
		    sizeof(*b->ghash));
		b->gname = diag_realloc(b->gname, b->gvcap *
		    sizeof(*b->gname));
		b->gfile = diag_realloc(b->gfile, b->gvcap *
		    sizeof(*b->gfile));
		b->gline = diag_realloc(b->gline, b->gvcap *
		    sizeof(*b->gline));
		for (g = old; g < b->gvcap; g++)
			b->gname[g] = NULL;
	}
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
		c = !b->grp[g].dropped == !dropped ? b->grp[g].size : 0;
		end[g] = o;
		o += c;
	}
	end[b->ngroups] = o;
	for (i = 0; i < b->n; i++)
		if (!b->grp[b->rec[i].group].dropped == !dropped)
			out[end[b->rec[i].group]++] = i;
	return o;
}

size_t
batch_rejects(struct gbatch *b, const size_t **ix)
{
	size_t n, *end;

	grow_view(b);
	end = diag_malloc((b->ngroups + 1) * sizeof(*end));
	n = sort_by_group(b, 1, b->scratch, end);
	free(end);
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
	const struct record *r = &b->rec[b->perm[k]].r, *f;
	const char *key = b->keys.p + r->skey;
	size_t s;

	for (s = 0; s < nk && s < FEW_STRATA; s++) {
		f = &b->rec[b->perm[first[s]]].r;
		if (keyeq(b->keys.p + f->skey, f->skeylen, key, r->skeylen))
			return (uint32_t)s;
	}
	if (nk < FEW_STRATA)
		return (uint32_t)nk;
	if (keymap_count(&b->strata) == 0)
		for (s = 0; s < FEW_STRATA; s++) {
			f = &b->rec[b->perm[first[s]]].r;
			keymap_get(&b->strata, b->keys.p + f->skey,
			    f->skeylen, NULL);
		}
	return (uint32_t)keymap_get(&b->strata, key, r->skeylen, NULL);
}

/* Fills the view's arrays for group g, view records o .. e - 1, as view
 * group ng. */
static void
view_group(struct gbatch *b, size_t g, size_t ng, size_t o, size_t e,
    int need_tie, struct buf *lab)
{
	const struct hrec *h;
	const char *key, *bkey;
	size_t k, nk = 0, len, blen, first[FEW_STRATA];
	uint32_t s;

	b->goff[ng] = o;
	key = batch_gkey(b, g, &len);
	b->ghash[ng] = keymap_hash(key, len, 0);
	/* A prompt that comes back at every step (--batch-key) must not
	 * draw the same MS-GRPO samples each time. */
	if ((bkey = batch_key(b, &blen)) != NULL && blen > 0)
		b->ghash[ng] = keymap_hash(bkey, blen, b->ghash[ng]);
	lab->len = 0;
	batch_glabel(b, g, lab);
	buf_add(lab, "", 1);
	free(b->gname[ng]);
	b->gname[ng] = diag_strdup(lab->p);
	b->gfile[ng] = batch_gwhere(b, g, &b->gline[ng], NULL);
	keymap_clear(&b->strata);
	for (k = o; k < e; k++) {
		h = &b->rec[b->perm[k]];
		b->r[k] = h->r.reward;
		b->T[k] = (double)h->r.T;
		b->base[k] = h->r.baseline;
		s = local_stratum(b, k, first, nk);
		if (s == nk) {
			if (nk < FEW_STRATA)
				first[nk] = k;
			nk++;
		}
		b->strat[k] = s;
		if (need_tie)
			b->tie[k] = h->r.has_tie ? h->r.tie :
			    batch_tie(batch_hline(b, b->perm[k], NULL),
			    h->len);
	}
	b->nstrat[ng] = (uint32_t)nk;
}

uint64_t
batch_tie(const char *line, size_t len)
{
	return keymap_hash(line, len, 1);
}

void
batch_view(struct gbatch *b, struct batch *v, int need_tie)
{
	size_t g, i, k, o, ng = 0, *end;
	struct buf lab = { 0 };

	grow_view(b);
	end = diag_malloc((b->ngroups + 1) * sizeof(*end));
	b->nv = sort_by_group(b, 0, b->perm, end);
	/* end[g] is the end of group g in the view; dropped groups are
	 * empty, and vanish. */
	for (g = 0, o = 0; g < b->ngroups; g++) {
		if (end[g] == o)
			continue;
		view_group(b, g, ng++, o, end[g], need_tie, &lab);
		o = end[g];
	}
	b->goff[ng] = o;
	/* The view index of each record (scratch: perm's inverse), in
	 * input order. */
	for (k = 0; k < b->nv; k++)
		b->scratch[b->perm[k]] = k;
	for (i = 0, k = 0; i < b->n; i++)
		if (!b->grp[b->rec[i].group].dropped)
			b->order[k++] = b->scratch[i];
	free(end);
	buf_free(&lab);

	v->n = b->nv;
	v->ngroups = ng;
	v->r = b->r;
	v->T = b->T;
	v->base = b->base;
	v->goff = b->goff;
	v->strat = b->strat;
	v->nstrat = b->nstrat;
	v->ghash = b->ghash;
	v->tie = b->tie;
	v->gname = (const char *const *)b->gname;
	v->gfile = (const char *const *)b->gfile;
	v->gline = b->gline;
}

void
batch_reset(struct gbatch *b, int starts)
{
	b->text.len = b->keys.len = b->runs.len = 0;
	b->n = b->ngroups = b->nv = 0;
	b->starts = starts;
}

int
batch_starts(const struct gbatch *b)
{
	return b->starts;
}

const struct record *
batch_rec(const struct gbatch *b, size_t k)
{
	return &b->rec[b->perm[k]].r;
}

const char *
batch_line(const struct gbatch *b, size_t k, size_t *len)
{
	return batch_hline(b, b->perm[k], len);
}

const char *
batch_where(const struct gbatch *b, size_t k, unsigned long long *line)
{
	const struct hrec *h = &b->rec[b->perm[k]];

	*line = h->lineno;
	return h->file;
}

const char *
batch_skey(const struct gbatch *b, size_t k, size_t *len)
{
	const struct record *r = &b->rec[b->perm[k]].r;

	*len = r->has_stratum ? r->skeylen : 0;
	return r->has_stratum ? b->keys.p + r->skey : "";
}

const size_t *
batch_order(const struct gbatch *b)
{
	return b->order;
}

const uint32_t *
batch_runs(const struct gbatch *b)
{
	return (const uint32_t *)b->runs.p;
}
