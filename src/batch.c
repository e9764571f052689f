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

/*
 * A record as the batch holds it, packed into 48 bytes: a whole batch is
 * held, and a struct record (328 bytes) per record made a batch of short
 * records take several times the memory of its text.  Its reward and
 * trained tokens are arrays beside it (rew, Td), which the view lends to
 * the estimators as they are when the records are already in group order;
 * its group key is its group's, its batch key the batch's.  What few
 * records have (spans of fields rladv writes, a tie or elsewhere from an
 * index, a trajectory, a column of a --columnar line, a reward left
 * unscored, sizes past the fields below) makes it keep a whole struct
 * record (full).  A new member of struct record must be packed here or
 * make a record that has it keep a whole one: pack() says which.  (What
 * only the warnings read, as the record joins its batch, is not kept.)
 */
struct hrec {
	union {
		const char	*p;	/* in place */
		size_t		 off;	/* H_COPIED: in the text arena */
	} line;
	uint32_t	 len;		/* the line's length */
	uint32_t	 group;
	uint32_t	 L;		/* response length */
	uint32_t	 runs;		/* H_MASK: its first run in runs */
	uint32_t	 skey;		/* H_STRATUM: its key in keys */
	uint32_t	 full;		/* 0, or 1 + its record in full */
	uint32_t	 alias;		/* FR_NLISTED name indexes + 1, 4 bits
					   each */
	uint16_t	 nruns;
	uint16_t	 skeylen;
	uint8_t		 tail;		/* len - close */
	uint8_t		 nmembers;
	uint8_t		 flags;		/* H_* */
};

enum {
	H_MASK = 1, H_STRATUM = 2, H_COMMA_SPACE = 4, H_COLON_SPACE = 8,
	H_COPIED = 16, H_NOLEN = 32	/* no response length (has_len 0) */
};

_Static_assert(FR_NLISTED * 4 <= 32 && FIELD_MAXNAMES <= 15,
    "the aliases do not fit struct hrec's alias");

/* The file and line of records first, first + 1, ...: lines come in
 * runs, so a batch needs a few of these, not one per record. */
struct lrun {
	size_t			 first;
	const char		*file;
	unsigned long long	 lineno;
};

struct hgrp {
	size_t	first, last;	/* records i */
	size_t	size;		/* responses (a trajectory counts once) */
	size_t	rows;		/* records */
	int	dropped;	/* 1: left out; 2: and listed by
				   batch_rejects() */
	int	has_key;
	size_t	key, keylen;	/* its canonical key in keys */
};

struct gbatch {
	struct buf	 text, keys, runs;	/* the records' arenas */
	struct hrec	*rec;
	double		*rew, *Td, *bl;	/* rewards, trained tokens, and
					   baselines (NULL: all 0) */
	size_t		 n, cap;
	struct record	*full;		/* records kept whole */
	size_t		*flen;		/* and their lines' lengths */
	size_t		 nfull, fullcap;
	struct lrun	*lr;
	size_t		 nlr, lrcap;
	struct hgrp	*grp;
	size_t		 ngroups, gcap;
	int		 has_bkey;	/* the batch key of every record */
	size_t		 bkey, bkeylen;
	size_t		 ncont;		/* rows that continue a trajectory */
	size_t		 nunscored;	/* records out of their baselines */
	size_t		 nolen;		/* records without a length */
	int		 starts;
	/* The view: arrays of vcap records and gvcap groups.  ident: the
	 * records are in group order already (contiguous groups, none
	 * left out), and perm, order, r, T and base are not used. */
	int		 ident;
	size_t		*perm;		/* group order -> record i (a
					   trajectory's last row) */
	size_t		*order;		/* rows in input order -> view k */
	size_t		*orow;		/* rows in input order -> record i */
	size_t		*sorted;	/* the rows in group order */
	size_t		*scratch;	/* batch_rejects()'s records, or
					   each row's view index in
					   batch_view() */
	size_t		 nv;		/* records (responses) in the view */
	size_t		 nrows;		/* rows in the view */
	double		*r, *T, *base;
	unsigned char	*unscored;	/* [nv] when nunscored */
	uint32_t	*strat;
	uint64_t	*tie;
	size_t		*goff;
	uint32_t	*nstrat;
	uint64_t	*ghash;
	char		**gname;
	const char	**gfile;
	unsigned long long *gline;
	size_t		 vcap, pcap, tcap, scap, ucap, gvcap;
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
	free(b->rew);
	free(b->Td);
	free(b->bl);
	free(b->full);
	free(b->flen);
	free(b->lr);
	free(b->grp);
	free(b->perm);
	free(b->order);
	free(b->orow);
	free(b->sorted);
	free(b->unscored);
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

/*
 * Packs r (its keys and runs in the scratch buffers, rebased into the
 * batch's arenas) into h; returns 0 when a field does not fit, for the
 * record to be kept whole.
 */
static int
pack(struct gbatch *b, struct hrec *h, const struct record *r,
    const struct buf *keys, const struct buf *runs, size_t len)
{
	size_t rbase = b->runs.len / sizeof(uint32_t);
	int f, j;

	_Static_assert(sizeof(void *) != 8 || sizeof(struct record) == 416,
	    "struct record changed: pack its new member in batch.c, or "
	    "keep a record that has it whole");
	for (f = 0; f < OUT_NFIELDS; f++)
		if (r->out[f].present)
			return 0;
	if (r->has_traj || r->ncol > 0 || r->unscored || !r->has_reward)
		return 0;
	if (r->has_tie || r->elsewhere || len > UINT32_MAX ||
	    r->L > UINT32_MAX || r->T > UINT32_MAX || r->close > len ||
	    len - r->close > UINT8_MAX || r->nmembers > UINT8_MAX ||
	    r->nmembers < 0 || b->keys.len > UINT32_MAX || rbase > UINT32_MAX)
		return 0;
	if (r->has_mask && r->nruns > UINT16_MAX)
		return 0;
	if (r->has_stratum && r->skeylen > UINT16_MAX)
		return 0;
	h->alias = 0;
	for (j = 0; j < FR_NLISTED; j++) {
		if (r->alias[j] < -1 || r->alias[j] > 14)
			return 0;
		h->alias |= (uint32_t)(r->alias[j] + 1) << (4 * j);
	}
	h->len = (uint32_t)len;
	h->L = (uint32_t)r->L;
	h->tail = (uint8_t)(len - r->close);
	h->nmembers = (uint8_t)r->nmembers;
	h->flags = (r->comma_space ? H_COMMA_SPACE : 0) |
	    (r->colon_space ? H_COLON_SPACE : 0) | (r->has_len ? 0 : H_NOLEN);
	h->full = 0;
	if (r->has_mask) {
		h->flags |= H_MASK;
		h->runs = (uint32_t)rbase;
		h->nruns = (uint16_t)r->nruns;
		buf_add(&b->runs, runs->p + r->runs * sizeof(uint32_t),
		    r->nruns * sizeof(uint32_t));
	}
	if (r->has_stratum) {
		h->flags |= H_STRATUM;
		h->skey = (uint32_t)b->keys.len;
		h->skeylen = (uint16_t)r->skeylen;
		buf_add(&b->keys, keys->p + r->skey, r->skeylen);
	}
	return 1;
}

/* Keeps r whole, its keys and runs rebased into the batch's arenas. */
static void
keep_whole(struct gbatch *b, struct hrec *h, const struct record *r,
    const struct buf *keys, const struct buf *runs, size_t len)
{
	struct record *w;
	size_t kbase = b->keys.len, rbase = b->runs.len / sizeof(uint32_t);

	if (b->nfull == b->fullcap) {
		b->fullcap = b->fullcap ? 2 * b->fullcap : 16;
		b->full = diag_realloc(b->full, b->fullcap * sizeof(*b->full));
		b->flen = diag_realloc(b->flen, b->fullcap * sizeof(*b->flen));
	}
	b->flen[b->nfull] = len;
	w = &b->full[b->nfull++];
	*w = *r;
	buf_add(&b->keys, keys->p, keys->len);
	w->gkey += kbase;
	w->skey += kbase;
	w->bkey += kbase;
	w->tkey += kbase;
	w->wkey += kbase;
	if (r->has_mask) {
		buf_add(&b->runs, runs->p + r->runs * sizeof(uint32_t),
		    r->nruns * sizeof(uint32_t));
		w->runs = rbase;
	}
	h->full = (uint32_t)b->nfull;
	h->len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	h->flags = 0;
}

/* Room for one more record. */
static void
grow_recs(struct gbatch *b)
{
	if (b->n < b->cap)
		return;
	b->cap = b->cap ? 2 * b->cap : 256;
	b->rec = diag_realloc(b->rec, b->cap * sizeof(*b->rec));
	b->rew = diag_realloc(b->rew, b->cap * sizeof(*b->rew));
	b->Td = diag_realloc(b->Td, b->cap * sizeof(*b->Td));
	if (b->bl != NULL)
		b->bl = diag_realloc(b->bl, b->cap * sizeof(*b->bl));
}

/* Notes the file and line of record n. */
static void
note_line(struct gbatch *b, const char *file, unsigned long long lineno)
{
	struct lrun *l = b->nlr ? &b->lr[b->nlr - 1] : NULL;

	if (l != NULL && l->file == file && l->lineno + (b->n - l->first) ==
	    lineno)
		return;
	if (b->nlr == b->lrcap) {
		b->lrcap = b->lrcap ? 2 * b->lrcap : 16;
		b->lr = diag_realloc(b->lr, b->lrcap * sizeof(*b->lr));
	}
	l = &b->lr[b->nlr++];
	l->first = b->n;
	l->file = file;
	l->lineno = lineno;
}

/* The file and line of record i. */
static const char *
line_of(const struct gbatch *b, size_t i, unsigned long long *lineno)
{
	size_t lo = 0, hi = b->nlr, mid;

	/* The last run that starts at or before i. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (b->lr[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	*lineno = b->lr[lo].lineno + (i - b->lr[lo].first);
	return b->lr[lo].file;
}

size_t
batch_add(struct gbatch *b, const struct record *r, const struct buf *keys,
    const struct buf *runs, const char *line, size_t len, int stable,
    const char *file, unsigned long long lineno, size_t g)
{
	struct hrec *h;
	struct hgrp *gr;
	size_t i;

	if (g == b->ngroups) {
		if (b->ngroups == b->gcap) {
			b->gcap = b->gcap ? 2 * b->gcap : 64;
			b->grp = diag_realloc(b->grp, b->gcap *
			    sizeof(*b->grp));
		}
		gr = &b->grp[g];
		memset(gr, 0, sizeof(*gr));
		gr->first = b->n;
		if (r->has_group) {
			gr->has_key = 1;
			gr->key = buf_add(&b->keys, keys->p + r->gkey,
			    r->gkeylen);
			gr->keylen = r->gkeylen;
		}
		b->ngroups++;
	}
	if (b->n == 0) {
		b->has_bkey = r->has_batch;
		b->bkeylen = r->has_batch ? r->bkeylen : 0;
		b->bkey = buf_add(&b->keys, keys->p + r->bkey, b->bkeylen);
	}
	grow_recs(b);
	note_line(b, file, lineno);
	i = b->n;
	h = &b->rec[i];
	b->rew[i] = r->reward;
	b->Td[i] = (double)r->T;
	if (r->baseline != 0 && b->bl == NULL) {
		/* The first baseline: those before it were 0. */
		b->bl = diag_calloc(b->cap, sizeof(*b->bl));
	}
	if (b->bl != NULL)
		b->bl[i] = r->baseline;
	h->group = (uint32_t)g;
	if (!pack(b, h, r, keys, runs, len))
		keep_whole(b, h, r, keys, runs, len);
	/* A trajectory is one response, however many rows it has. */
	if (r->traj_cont)
		b->ncont++;
	else
		b->grp[g].size++;
	b->nunscored += r->unscored != 0;
	b->nolen += !r->has_len;
	/* A line that stays valid (a mapped file) is not copied. */
	if (stable)
		h->line.p = line;
	else {
		h->line.off = buf_add(&b->text, line, len);
		h->flags |= H_COPIED;
	}
	b->grp[g].rows++;
	b->grp[g].last = i;
	return b->n++;
}

/* Record i as a struct record: its whole copy, or unpacked into tmp. */
static const struct record *
unpack(const struct gbatch *b, size_t i, struct record *r)
{
	const struct hrec *h = &b->rec[i];
	const struct hgrp *g = &b->grp[h->group];
	int j;

	if (h->full)
		return &b->full[h->full - 1];
	memset(r, 0, sizeof(*r));
	r->reward = b->rew[i];
	r->baseline = b->bl != NULL ? b->bl[i] : 0;
	r->has_reward = 1;
	r->has_len = !(h->flags & H_NOLEN);
	r->L = h->L;
	r->T = (size_t)b->Td[i];
	r->has_group = g->has_key;
	r->gkey = g->key;
	r->gkeylen = g->keylen;
	if (h->flags & H_STRATUM) {
		r->has_stratum = 1;
		r->skey = h->skey;
		r->skeylen = h->skeylen;
	}
	r->has_batch = b->has_bkey;
	r->bkey = b->bkey;
	r->bkeylen = b->bkeylen;
	if (h->flags & H_MASK) {
		r->has_mask = 1;
		r->runs = h->runs;
		r->nruns = h->nruns;
	}
	r->close = h->len - h->tail;
	r->nmembers = h->nmembers;
	r->comma_space = (h->flags & H_COMMA_SPACE) != 0;
	r->colon_space = (h->flags & H_COLON_SPACE) != 0;
	for (j = 0; j < FR_NLISTED; j++)
		r->alias[j] = (signed char)(((h->alias >> (4 * j)) & 15) - 1);
	return r;
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
	const struct hgrp *gr = &b->grp[g];

	*len = gr->has_key ? gr->keylen : 0;
	return gr->has_key ? b->keys.p + gr->key : "";
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
	if (last != NULL)
		line_of(b, b->grp[g].last, last);
	return line_of(b, b->grp[g].first, first);
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
	} else
		record_key_quote(key, len, out);
	n = snprintf(tmp, sizeof(tmp), " (line %llu)", line);
	buf_add(out, tmp, n);
}

const char *
batch_key(const struct gbatch *b, size_t *len)
{
	*len = b->has_bkey ? b->bkeylen : 0;
	return b->has_bkey ? b->keys.p + b->bkey : "";
}

int
batch_drop(struct gbatch *b, size_t g)
{
	if (b->grp[g].dropped)
		return 0;
	b->grp[g].dropped = 1;
	return 1;
}

const char *
batch_hline(const struct gbatch *b, size_t i, size_t *len)
{
	const struct hrec *h = &b->rec[i];

	if (len != NULL)
		*len = h->full ? b->flen[h->full - 1] : h->len;
	return h->flags & H_COPIED ? b->text.p + h->line.off : h->line.p;
}

const struct record *
batch_hrec(const struct gbatch *b, size_t i, struct record *tmp)
{
	return unpack(b, i, tmp);
}

int
batch_helsewhere(const struct gbatch *b, size_t i)
{
	const struct hrec *h = &b->rec[i];

	return h->full && b->full[h->full - 1].elsewhere;
}

size_t
batch_hgroup(const struct gbatch *b, size_t i)
{
	return b->rec[i].group;
}

/* Record i of the view at index k. */
static inline size_t
at(const struct gbatch *b, size_t k)
{
	return b->ident ? k : b->perm[k];
}

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

/* Room for the view of the records and groups held: the permutation
 * and the copies only when the records are not in group order. */
static void
grow_view(struct gbatch *b, int need_tie)
{
	size_t g, cap;

	cap = b->vcap;
	room(&b->strat, &cap, b->n, sizeof(*b->strat));
	b->vcap = cap;
	if (need_tie) {
		cap = b->tcap;
		room(&b->tie, &cap, b->n, sizeof(*b->tie));
		b->tcap = cap;
	}
	if (b->nunscored > 0)
		room(&b->unscored, &b->ucap, b->n, sizeof(*b->unscored));
	if (!b->ident) {
		cap = b->pcap;
		room(&b->perm, &cap, b->n, sizeof(*b->perm));
		cap = b->pcap;
		room(&b->order, &cap, b->n, sizeof(*b->order));
		cap = b->pcap;
		room(&b->orow, &cap, b->n, sizeof(*b->orow));
		cap = b->pcap;
		room(&b->sorted, &cap, b->n, sizeof(*b->sorted));
		cap = b->pcap;
		room(&b->r, &cap, b->n, sizeof(*b->r));
		cap = b->pcap;
		room(&b->T, &cap, b->n, sizeof(*b->T));
		if (b->bl != NULL) {
			cap = b->pcap;
			room(&b->base, &cap, b->n, sizeof(*b->base));
		}
		b->pcap = cap;
		room(&b->scratch, &b->scap, b->n, sizeof(*b->scratch));
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
 * records from at on.  A row that continues a trajectory joins the
 * record before it, which then stands for its last row (whose reward
 * it has) and has the trained tokens of all its rows.  Each row's view
 * index goes to scratch.  Returns the records made.
 */
static size_t
traj_rows(struct gbatch *b, size_t o, size_t e, size_t at)
{
	size_t k, i, n = 0;

	for (k = o; k < e; k++) {
		i = b->sorted[k];
		if (continues(b, i) && n > 0)
			b->T[at + n - 1] += b->Td[i];
		else
			b->T[at + n++] = b->Td[i];
		b->perm[at + n - 1] = i;
		b->scratch[i] = at + n - 1;
	}
	return n;
}

/* Fills the view's arrays for group g, view records o .. e - 1, as view
 * group ng. */
static void
view_group(struct gbatch *b, size_t g, size_t ng, size_t o, size_t e,
    int need_tie, struct buf *lab)
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
	lab->len = 0;
	batch_glabel(b, g, lab);
	buf_add(lab, "", 1);
	free(b->gname[ng]);
	b->gname[ng] = diag_strdup(lab->p);
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
		}
		if (b->nunscored > 0)
			b->unscored[k] = (unsigned char)unscored(b, i);
		s = local_stratum(b, k, first, nk);
		if (s == nk) {
			if (nk < FEW_STRATA)
				first[nk] = k;
			nk++;
		}
		b->strat[k] = s;
		if (need_tie) {
			r = unpack(b, i, &tmp);
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
	struct buf lab = { 0 };

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
		view_group(b, g, ng++, o, end[g], need_tie, &lab);
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
	buf_free(&lab);

	v->n = b->nv;
	v->ngroups = ng;
	v->r = b->ident ? b->rew : b->r;
	v->T = b->ident ? b->Td : b->T;
	v->base = b->bl == NULL ? NULL : b->ident ? b->bl : b->base;
	v->goff = b->goff;
	v->strat = b->strat;
	v->nstrat = b->nstrat;
	v->ghash = b->ghash;
	v->tie = need_tie ? b->tie : NULL;
	v->unscored = b->nunscored > 0 ? b->unscored : NULL;
	v->gname = (const char *const *)b->gname;
	v->gfile = (const char *const *)b->gfile;
	v->gline = b->gline;
}

void
batch_reset(struct gbatch *b, int starts)
{
	b->text.len = b->keys.len = b->runs.len = 0;
	b->n = b->ngroups = b->nv = b->nrows = b->nfull = b->nlr = 0;
	b->ncont = b->nunscored = b->nolen = 0;
	b->has_bkey = 0;
	free(b->bl);
	b->bl = NULL;
	b->starts = starts;
}

int
batch_starts(const struct gbatch *b)
{
	return b->starts;
}

const struct record *
batch_rec(const struct gbatch *b, size_t k, struct record *tmp)
{
	return unpack(b, at(b, k), tmp);
}

int
batch_elsewhere(const struct gbatch *b, size_t k)
{
	return batch_helsewhere(b, at(b, k));
}

const char *
batch_line(const struct gbatch *b, size_t k, size_t *len)
{
	return batch_hline(b, at(b, k), len);
}

const char *
batch_where(const struct gbatch *b, size_t k, unsigned long long *line)
{
	return line_of(b, at(b, k), line);
}

const char *
batch_skey(const struct gbatch *b, size_t k, size_t *len)
{
	const struct hrec *h = &b->rec[at(b, k)];
	const struct record *w;

	if (h->full) {
		w = &b->full[h->full - 1];
		*len = w->has_stratum ? w->skeylen : 0;
		return w->has_stratum ? b->keys.p + w->skey : "";
	}
	*len = h->flags & H_STRATUM ? h->skeylen : 0;
	return h->flags & H_STRATUM ? b->keys.p + h->skey : "";
}

size_t
batch_order(const struct gbatch *b, size_t j)
{
	return b->ident ? j : b->order[j];
}

size_t
batch_nrows(const struct gbatch *b)
{
	return b->nrows;
}

size_t
batch_row(const struct gbatch *b, size_t j, size_t *k)
{
	if (b->ident) {
		*k = j;
		return j;
	}
	*k = b->order[j];
	return b->orow[j];
}

size_t
batch_nolen(const struct gbatch *b)
{
	return b->nolen;
}

const struct record *
batch_last(const struct gbatch *b, struct record *tmp, size_t *g,
    const char **file, unsigned long long *lineno)
{
	if (b->n == 0)
		return NULL;
	if (g != NULL)
		*g = b->rec[b->n - 1].group;
	if (file != NULL)
		*file = line_of(b, b->n - 1, lineno);
	return unpack(b, b->n - 1, tmp);
}

const char *
batch_keys(const struct gbatch *b)
{
	return b->keys.p;
}

const uint32_t *
batch_runs(const struct gbatch *b)
{
	return (const uint32_t *)b->runs.p;
}
