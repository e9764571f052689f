/*
 * batch.c - the records of a batch, held packed, and what the commands
 * read of them (the view in group order is batch_view.c's).
 *
 * Records come in input order, and that is the order they are written
 * back in; the estimators want them in group order, with flat arrays of
 * rewards and token counts.  The batch keeps both: its records as they
 * came, each with its group, and a permutation (perm) from group order
 * back to them, made by a counting sort so that it costs one pass
 * whatever the groups' layout.  Running out of memory ends the process
 * in diag's allocators, as it does everywhere in rladv.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advmath_lw.h"
#include "batchint.h"
#include "diag.h"

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
	keymap_init(&b->rolls, 0);
	b->starts = 1;
	return b;
}

void
batch_free(struct gbatch *b)
{
	if (b == NULL)
		return;
	buf_free(&b->text);
	buf_free(&b->keys);
	buf_free(&b->runs);
	free(b->rec);
	free(b->rew);
	free(b->Td);
	free(b->bl);
	free(b->rk);
	free(b->ex);
	free(b->roll);
	keymap_free(&b->rolls);
	free(b->full);
	free(b->flen);
	free(b->lr);
	free(b->grp);
	free(b->scratch);
	batch_view_free(b);
	keymap_free(&b->strata);
	free(b);
}

/* The bytes of each element of a word (little-endian). */
#define BYTES(x)	((x) * 0x0101010101010101ULL)

_Static_assert(FR_NLISTED <= 8, "the aliases are not one word");

/*
 * The name indexes (-1: none) + 1, 4 bits each, into *h; 0 when one is
 * outside -1 .. 14.  A word at a time: each byte plus 1 without carries,
 * then the nibbles drawn together, pair by pair.
 */
static int
alias_pack(const signed char *alias, uint32_t *h)
{
	uint64_t x;
	uint32_t lo = 0, hi = 0;

	/* Two loads into registers: memcpy() of FR_NLISTED bytes into x
	 * went through the stack, and reading x back stalled on the
	 * stores. */
	memcpy(&lo, alias, FR_NLISTED < 4 ? FR_NLISTED : 4);
	if (FR_NLISTED > 4)
		memcpy(&hi, alias + 4, FR_NLISTED - 4);
	x = lo | (uint64_t)hi << 32;
	x = ((x & BYTES(0x7f)) + BYTES(1)) ^ (x & BYTES(0x80));
	x &= (~0ULL) >> (64 - 8 * FR_NLISTED);
	if ((x & BYTES(0xf0)) != 0)
		return 0;
	x = (x | x >> 4) & 0x00ff00ff00ff00ffULL;
	x = (x | x >> 8) & 0x0000ffff0000ffffULL;
	*h = (uint32_t)(x | x >> 16);
	return 1;
}

/* alias_pack() undone: the nibbles spread to bytes, each less 1. */
static void
alias_unpack(uint32_t h, signed char *alias)
{
	uint64_t x = h;

	x = (x | x << 16) & 0x0000ffff0000ffffULL;
	x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
	x = (x | x << 4) & BYTES(0x0f);
	x = ((x | BYTES(0x80)) - BYTES(1)) ^ BYTES(0x80);
	memcpy(alias, &x, FR_NLISTED);
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

	_Static_assert(sizeof(void *) != 8 || sizeof(struct record) == 408,
	    "struct record changed: pack its new member in batch.c, or "
	    "keep a record that has it whole");
	if (r->outs != 0 || r->has_traj || r->ncol > 0 || r->unscored ||
	    !r->has_reward)
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
	if (!alias_pack(r->alias, &h->alias))
		return 0;
	h->len = (uint32_t)len;
	h->L = (uint32_t)r->L;
	h->tail = (uint8_t)(len - r->close);
	h->nmembers = (uint8_t)r->nmembers;
	h->flags = (r->comma_space ? H_COMMA_SPACE : 0) |
	    (r->colon_space ? H_COLON_SPACE : 0) | (r->has_len ? 0 : H_NOLEN) |
	    (r->sample_off ? H_SAMPLE_OFF : 0) |
	    (r->remove_absent ? H_REMOVE_ABSENT : 0);
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
	record_keys_move(w, kbase);
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
	if (b->rk != NULL)
		b->rk = diag_realloc(b->rk, b->cap * b->K * sizeof(*b->rk));
	if (b->ex != NULL)
		b->ex = diag_realloc(b->ex, b->cap * sizeof(*b->ex));
	if (b->roll != NULL)
		b->roll = diag_realloc(b->roll, b->cap * sizeof(*b->roll));
}

/* Record i's reward parts (gdpo: every record of a run has as many, the
 * reward fields named), the framework's advantage (--expect-key) and its
 * rollout (--rollout-key). */
static void
hold_extra(struct gbatch *b, size_t i, const struct record *r,
    const struct buf *keys)
{
	size_t k;

	if (r->nrpart > 0) {
		if (b->rk == NULL) {
			b->K = (size_t)r->nrpart;
			b->rk = diag_malloc(b->cap * b->K * sizeof(*b->rk));
		}
		memcpy(b->rk + i * b->K, keys->p + r->rpart,
		    b->K * sizeof(*b->rk));
	}
	if (r->has_expect && b->ex == NULL) {
		/* The records before it (another shard's, from an index)
		 * have none. */
		b->ex = diag_malloc(b->cap * sizeof(*b->ex));
		for (k = 0; k < i; k++)
			b->ex[k] = NAN;
	}
	if (b->ex != NULL)
		b->ex[i] = r->has_expect ? r->expect : NAN;
	if (r->has_roll && b->roll == NULL) {
		b->roll = diag_malloc(b->cap * sizeof(*b->roll));
		for (k = 0; k < i; k++)
			b->roll[k] = BATCH_ROLL_OWN;
	}
	if (b->roll != NULL)
		b->roll[i] = r->has_roll ? (uint32_t)keymap_get(&b->rolls,
		    keys->p + r->okey, r->okeylen, NULL) : BATCH_ROLL_OWN;
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

/* Holds a record's key (has, len bytes at off in keys) in b's keys. */
static void
hkey_hold(struct gbatch *b, struct hkey *k, int has, const struct buf *keys,
    size_t off, size_t len)
{
	k->has = has;
	k->len = has ? len : 0;
	k->off = has ? buf_add(&b->keys, keys->p + off, len) : 0;
}

/* Held key k as a record has it: its presence, its bytes in b's keys. */
static void
hkey_put(const struct hkey *k, int *has, size_t *off, size_t *len)
{
	*has = k->has;
	*off = k->off;
	*len = k->len;
}

/* Held key k's bytes ("" when the records have none). */
static const char *
hkey_bytes(const struct gbatch *b, const struct hkey *k, size_t *len)
{
	*len = k->has ? k->len : 0;
	return k->has ? b->keys.p + k->off : "";
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
		hkey_hold(b, &gr->key, r->has_group, keys, r->gkey,
		    r->gkeylen);
		b->ngroups++;
	}
	if (b->n == 0)
		hkey_hold(b, &b->bkey, r->has_batch, keys, r->bkey,
		    r->bkeylen);
	grow_recs(b);
	note_line(b, file, lineno);
	i = b->n;
	h = &b->rec[i];
	b->rew[i] = r->reward;
	b->Td[i] = advmath_lw_T((double)r->T, r->sample_off);
	if (r->baseline != 0 && b->bl == NULL) {
		/* The first baseline: those before it were 0. */
		b->bl = diag_calloc(b->cap, sizeof(*b->bl));
	}
	if (b->bl != NULL)
		b->bl[i] = r->baseline;
	/* One test for what few runs read (gdpo, --expect-key,
	 * --rollout-key). */
	if (__builtin_expect((r->nrpart | r->has_expect | r->has_roll) != 0 ||
	    ((uintptr_t)b->ex | (uintptr_t)b->roll) != 0, 0))
		hold_extra(b, i, r, keys);
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
	b->nstratum += r->has_stratum != 0;
	b->bytes += len;
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

/*
 * Packed record i written into r, every member that a packed record may
 * have other than 0: those it never has (a trajectory, spans, a tie,
 * ...) are left as they are, 0 where r was cleared.
 */
static const struct record *
unpack_into(const struct gbatch *b, size_t i, struct record *r)
{
	const struct hrec *h = &b->rec[i];
	const struct hgrp *g = &b->grp[h->group];
	int strat, mask;

	r->reward = b->rew[i];
	r->baseline = b->bl != NULL ? b->bl[i] : 0;
	r->has_reward = 1;
	r->has_len = !(h->flags & H_NOLEN);
	r->sample_off = (h->flags & H_SAMPLE_OFF) != 0;
	r->remove_absent = (h->flags & H_REMOVE_ABSENT) != 0;
	r->L = h->L;
	r->T = (size_t)b->Td[i];
	hkey_put(&g->key, &r->has_group, &r->gkey, &r->gkeylen);
	strat = (h->flags & H_STRATUM) != 0;
	r->has_stratum = strat;
	r->skey = strat ? h->skey : 0;
	r->skeylen = strat ? h->skeylen : 0;
	hkey_put(&b->bkey, &r->has_batch, &r->bkey, &r->bkeylen);
	mask = (h->flags & H_MASK) != 0;
	r->has_mask = mask;
	r->runs = mask ? h->runs : 0;
	r->nruns = mask ? h->nruns : 0;
	r->close = h->len - h->tail;
	r->nmembers = h->nmembers;
	r->comma_space = (h->flags & H_COMMA_SPACE) != 0;
	r->colon_space = (h->flags & H_COLON_SPACE) != 0;
	alias_unpack(h->alias, r->alias);
	return r;
}

/* Record i as a struct record: its whole copy, or unpacked into tmp. */
static const struct record *
unpack(const struct gbatch *b, size_t i, struct record *r)
{
	if (b->rec[i].full)
		return &b->full[b->rec[i].full - 1];
	memset(r, 0, sizeof(*r));
	return unpack_into(b, i, r);
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
	return hkey_bytes(b, &b->grp[g].key, len);
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
	/* " (line N)" without printf: a label per group. */
	n = sizeof(tmp);
	tmp[--n] = ')';
	do
		tmp[--n] = (char)('0' + line % 10);
	while ((line /= 10) > 0);
	n -= 7;
	memcpy(tmp + n, " (line ", 7);
	buf_add(out, tmp + n, sizeof(tmp) - n);
}

const char *
batch_key(const struct gbatch *b, size_t *len)
{
	return hkey_bytes(b, &b->bkey, len);
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

void
batch_reset(struct gbatch *b, int starts)
{
	b->text.len = b->keys.len = b->runs.len = 0;
	b->n = b->ngroups = b->nv = b->nrows = b->nfull = b->nlr = 0;
	b->ncont = b->nunscored = b->nolen = b->nstratum = b->bytes = 0;
	b->bkey.has = 0;
	free(b->bl);
	b->bl = NULL;
	free(b->rk);
	b->rk = NULL;
	free(b->ex);
	b->ex = NULL;
	free(b->roll);
	b->roll = NULL;
	keymap_clear(&b->rolls);
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
batch_roll_shared(const struct gbatch *b, unsigned long long *line,
    const char **key, size_t *len)
{
	unsigned char *seen;
	const char *file = NULL;
	size_t i;

	if (b->roll == NULL)
		return NULL;
	seen = diag_calloc(keymap_count(&b->rolls), 1);
	for (i = 0; i < b->n && file == NULL; i++) {
		if (b->roll[i] == BATCH_ROLL_OWN)
			continue;
		if (seen[b->roll[i]]) {
			file = line_of(b, i, line);
			*key = keymap_key(&b->rolls, b->roll[i], len);
		}
		seen[b->roll[i]] = 1;
	}
	free(seen);
	return file;
}

double
batch_expect(const struct gbatch *b, size_t k)
{
	return b->ex != NULL ? b->ex[at(b, k)] : NAN;
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

const struct record *
batch_hrow(const struct gbatch *b, size_t j, struct record *tmp, size_t *k,
    const char **line)
{
	size_t i = batch_row(b, j, k);
	const struct hrec *h = &b->rec[i];

	*line = batch_hline(b, i, NULL);
	if (h->full)
		return b->full[h->full - 1].elsewhere ? NULL :
		    &b->full[h->full - 1];
	return unpack_into(b, i, tmp);
}

size_t
batch_bytes(const struct gbatch *b)
{
	size_t j, len, bytes = 0;

	/* The rows are the records held, as they came: their sum as it
	 * grew, without a pass over them. */
	if (b->ident)
		return b->bytes;
	for (j = 0; j < b->nrows; j++) {
		batch_hline(b, b->orow[j], &len);
		bytes += len;
	}
	return bytes;
}

size_t
batch_nown(const struct gbatch *b)
{
	size_t j, k, n = 0;

	/* Another shard's record is kept whole: without one, all. */
	if (b->nfull == 0)
		return b->nrows;
	for (j = 0; j < b->nrows; j++)
		n += !batch_helsewhere(b, batch_row(b, j, &k));
	return n;
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
