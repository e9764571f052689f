/*
 * group.c - groups and batches.
 *
 * Records arrive in input order.  By default a group's records are
 * contiguous, so a group ends when its key changes, and a key that comes
 * back later is refused: it would silently split a group.  --unsorted
 * gathers groups anywhere in the batch through a hash table.  The batch
 * keeps copies of its lines so that they can be written back after the
 * whole batch's numbers are known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"

struct seen_ent {
	uint64_t		 hash;
	size_t			 key, keylen;
	const char		*file;
	unsigned long long	 first, last;
	int			 used;
};

struct seen {
	struct seen_ent	*tab;
	size_t		 n, cap;
	struct buf	 keys;
};

/* Two canonical keys are equal (an empty one may have no bytes at all). */
static int
keyeq(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static struct seen_ent *
seen_find(struct seen *s, const char *key, size_t len, uint64_t h)
{
	size_t i;

	if (s->cap == 0)
		return NULL;
	for (i = h & (s->cap - 1); s->tab[i].used; i = (i + 1) & (s->cap - 1))
		if (s->tab[i].hash == h && keyeq(s->keys.p + s->tab[i].key,
		    s->tab[i].keylen, key, len))
			return &s->tab[i];
	return NULL;
}

static void
seen_add(struct seen *s, const char *key, size_t len, uint64_t h,
    const char *file, unsigned long long first, unsigned long long last)
{
	struct seen_ent *old;
	size_t i, ocap;

	if (2 * (s->n + 1) > s->cap) {
		old = s->tab;
		ocap = s->cap;
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->tab = diag_calloc(s->cap, sizeof(*s->tab));
		for (i = 0; i < ocap; i++) {
			size_t j;

			if (!old[i].used)
				continue;
			for (j = old[i].hash & (s->cap - 1); s->tab[j].used;
			    j = (j + 1) & (s->cap - 1))
				;
			s->tab[j] = old[i];
		}
		free(old);
	}
	for (i = h & (s->cap - 1); s->tab[i].used; i = (i + 1) & (s->cap - 1))
		;
	s->tab[i].used = 1;
	s->tab[i].hash = h;
	s->tab[i].key = buf_add(&s->keys, key, len);
	s->tab[i].keylen = len;
	s->tab[i].file = file;
	s->tab[i].first = first;
	s->tab[i].last = last;
	s->n++;
}

static void
seen_clear(struct seen *s)
{
	if (s->cap)
		memset(s->tab, 0, s->cap * sizeof(*s->tab));
	s->n = 0;
	s->keys.len = 0;
}

void
group_init(struct gbatch *b, const struct gopts *o)
{
	memset(b, 0, sizeof(*b));
	b->o = *o;
	b->seen = diag_calloc(1, sizeof(*b->seen));
	/* Storage from the start: key offsets are then never added to a
	 * null pointer, even for key-less records. */
	buf_reserve(&b->keys, 64);
	buf_reserve(&b->text, 64);
	buf_reserve(&b->runs, 64);
	buf_reserve(&b->seen->keys, 64);
}

void
group_free(struct gbatch *b)
{
	size_t g;

	buf_free(&b->text);
	buf_free(&b->keys);
	buf_free(&b->runs);
	free(b->rec);
	free(b->grp);
	free(b->slot);
	if (b->seen) {
		free(b->seen->tab);
		buf_free(&b->seen->keys);
		free(b->seen);
	}
	free(b->perm);
	free(b->r);
	free(b->T);
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
	memset(b, 0, sizeof(*b));
}

/* Group index of a key in the batch's table (unsorted mode), or -1. */
static long
table_find(const struct gbatch *b, const char *key, size_t len, uint64_t h)
{
	size_t i, g;

	if (b->nslot == 0)
		return -1;
	for (i = h & (b->nslot - 1); b->slot[i] != 0;
	    i = (i + 1) & (b->nslot - 1)) {
		g = b->slot[i] - 1;
		if (b->grp[g].hash == h && keyeq(b->keys.p + b->grp[g].key,
		    b->grp[g].keylen, key, len))
			return (long)g;
	}
	return -1;
}

static void
table_add(struct gbatch *b, size_t g)
{
	size_t i, j;

	if (2 * (b->ngroups + 1) > b->nslot) {
		free(b->slot);
		b->nslot = b->nslot ? 2 * b->nslot : 1024;
		b->slot = diag_calloc(b->nslot, sizeof(*b->slot));
		for (j = 0; j < b->ngroups; j++) {
			if (j == g)
				continue;
			for (i = b->grp[j].hash & (b->nslot - 1); b->slot[i];
			    i = (i + 1) & (b->nslot - 1))
				;
			b->slot[i] = j + 1;
		}
	}
	for (i = b->grp[g].hash & (b->nslot - 1); b->slot[i];
	    i = (i + 1) & (b->nslot - 1))
		;
	b->slot[i] = g + 1;
}

static const char *
cur_batch_key(const struct gbatch *b, size_t *len)
{
	const struct record *r = &b->rec[0].r;

	*len = r->bkeylen;
	return b->keys.p + r->bkey;
}

/* Does the record open a new group (and which, when it does not)? */
static int
opens_group(const struct gbatch *b, const struct record *r,
    const struct buf *keys, long *g)
{
	const char *key = keys->p + r->gkey;
	const struct ginfo *last;

	*g = -1;
	if (b->ngroups == 0)
		return 1;
	if (!r->has_group) {
		/* Blocks are positions in the input: record k is in block
		 * k / G, rejected records counted. */
		if (b->o.group_size == 0)
			return 0;	/* refused by group_add */
		if (b->keyless / b->o.group_size !=
		    b->grp[b->ngroups - 1].block)
			return 1;
		*g = (long)b->ngroups - 1;
		return 0;
	}
	if (b->o.unsorted) {
		*g = table_find(b, key, r->gkeylen,
		    keymap_hash(key, r->gkeylen, 0));
		return *g < 0;
	}
	last = &b->grp[b->ngroups - 1];
	if (keyeq(b->keys.p + last->key, last->keylen, key, r->gkeylen)) {
		*g = (long)b->ngroups - 1;
		return 0;
	}
	return 1;
}

int
group_boundary(const struct gbatch *b, const struct record *r,
    const struct buf *keys)
{
	const char *k;
	size_t len;
	long g;

	if (b->n == 0)
		return 0;
	if (b->o.has_batch_key) {
		k = cur_batch_key(b, &len);
		if (!keyeq(k, len, keys->p + r->bkey, r->bkeylen))
			return 1;
	}
	if ((b->o.stream || (b->o.batch_groups && b->ngroups >=
	    b->o.batch_groups)) && opens_group(b, r, keys, &g))
		return 1;
	return 0;
}

void
group_label(const struct gbatch *b, size_t g, struct buf *out)
{
	const struct ginfo *gi = &b->grp[g];
	const struct brec *f = &b->rec[gi->first];
	char tmp[64];
	int n;

	if (gi->keylen == 0) {
		n = snprintf(tmp, sizeof(tmp), "block %zu", g + 1);
		buf_add(out, tmp, n);
	} else {
		buf_add(out, "\"", 1);
		record_key_label(b->keys.p + gi->key, gi->keylen, out);
		buf_add(out, "\"", 1);
	}
	n = snprintf(tmp, sizeof(tmp), " (line %llu)", f->lineno);
	buf_add(out, tmp, n);
}

static int
size_error(struct gbatch *b, size_t g, struct diag *d)
{
	struct buf lab = { 0 };
	const struct brec *f = &b->rec[b->grp[g].first];

	buf_add(&lab, "", 0);
	if (b->grp[g].keylen == 0)
		buf_add(&lab, "of a block", 10);
	else {
		buf_add(&lab, "\"", 1);
		record_key_label(b->keys.p + b->grp[g].key, b->grp[g].keylen,
		    &lab);
		buf_add(&lab, "\"", 1);
	}
	diag_setl(d, EXIT_DATA, f->file, f->lineno, "group %.*s has %zu "
	    "records, expected --group-size %zu", (int)lab.len, lab.p,
	    b->grp[g].count, b->o.group_size);
	buf_free(&lab);
	return EXIT_DATA;
}

const char *
group_text(const struct gbatch *b, const struct brec *r)
{
	return r->ptr ? r->ptr : b->text.p + r->text;
}

int
group_add(struct gbatch *b, const struct record *r, const struct buf *keys,
    const struct buf *runs, const char *line, size_t len, int stable,
    const char *file, unsigned long long lineno, struct diag *d)
{
	struct brec *br;
	struct ginfo *gi;
	struct seen_ent *se;
	const char *key = keys->p + r->gkey;
	uint64_t h;
	long g;
	size_t kbase = b->keys.len, rbase = b->runs.len / sizeof(uint32_t);

	if (!b->mode_known) {
		b->mode_known = 1;
		b->keyless_mode = !r->has_group;
	}
	if (!r->has_group) {
		if (!b->o.group_size)
			return diag_setl(d, EXIT_DATA, file, lineno, "no group "
			    "key (\"prompt_id\", \"uid\", \"group_id\" or "
			    "\"group_index\"); name it with --group-key, or "
			    "give --group-size for blocks of records");
		if (!b->keyless_mode)
			return diag_setl(d, EXIT_DATA, file, lineno, "no group "
			    "key, but earlier records had one");
	} else if (b->keyless_mode)
		return diag_setl(d, EXIT_DATA, file, lineno, "a group key, but "
		    "earlier records had none (blocks of --group-size)");

	if (opens_group(b, r, keys, &g)) {
		h = r->has_group ? keymap_hash(key, r->gkeylen, 0) : 0;
		if (r->has_group && (se = seen_find(b->seen, key, r->gkeylen,
		    h)) != NULL)
			return diag_setl(d, EXIT_DATA, file, lineno, "group "
			    "\"%.*s\" reappears after its group ended (%s "
			    "lines %llu-%llu); sort the input by group or use "
			    "--unsorted", (int)r->gkeylen - 1, key + 1,
			    se->file, se->first, se->last);
		/* A contiguous group ends here: remember its key.  (A wrong
		 * size is found by group_check_sizes at the batch's end.) */
		if (!b->o.unsorted && b->ngroups > 0) {
			struct ginfo *last = &b->grp[b->ngroups - 1];

			if (last->keylen > 0)
				seen_add(b->seen, b->keys.p + last->key,
				    last->keylen, last->hash,
				    b->rec[last->first].file,
				    b->rec[last->first].lineno,
				    b->rec[last->last].lineno);
		}
		if (b->ngroups == b->gcap) {
			b->gcap = b->gcap ? 2 * b->gcap : 64;
			b->grp = diag_realloc(b->grp, b->gcap *
			    sizeof(*b->grp));
		}
		g = (long)b->ngroups++;
		gi = &b->grp[g];
		memset(gi, 0, sizeof(*gi));
		gi->hash = h;
		gi->first = b->n;
		gi->block = b->o.group_size ? b->keyless / b->o.group_size : 0;
		if (r->has_group) {
			/* The record's own copy of its keys, made below. */
			gi->key = kbase + r->gkey;
			gi->keylen = r->gkeylen;
		}
	}
	gi = &b->grp[g];
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->rec = diag_realloc(b->rec, b->cap * sizeof(*b->rec));
	}
	br = &b->rec[b->n];
	br->r = *r;
	br->file = file;
	br->lineno = lineno;
	br->group = (uint32_t)g;
	br->dropped = 0;
	/* A line that stays valid (a mapped file) is not copied. */
	br->ptr = stable ? line : NULL;
	br->text = stable ? 0 : buf_add(&b->text, line, len);
	br->len = len;
	/* Re-base the record's keys and runs into the batch's arenas. */
	buf_add(&b->keys, keys->p, keys->len);
	if (b->o.unsorted && r->has_group && gi->count == 0)
		table_add(b, g);
	br->r.gkey += kbase;
	br->r.skey += kbase;
	br->r.bkey += kbase;
	if (r->has_mask) {
		buf_add(&b->runs, runs->p + r->runs * sizeof(uint32_t),
		    r->nruns * sizeof(uint32_t));
		br->r.runs = rbase;
	}
	gi->count++;
	gi->last = b->n;
	b->n++;
	if (!r->has_group)
		b->keyless++;
	/* Contiguous groups of the wrong size are known as soon as they
	 * close; with --group-size the last record tells. */
	return 0;
}

void
group_note_reject(struct gbatch *b)
{
	if (b->o.group_size && (!b->mode_known || b->keyless_mode))
		b->keyless++;
}

int
group_check_sizes(struct gbatch *b, int skip, size_t *ndropped,
    struct diag *d)
{
	size_t g, i;

	*ndropped = 0;
	if (!b->o.group_size)
		return 0;
	for (g = 0; g < b->ngroups; g++) {
		if (b->grp[g].count == b->o.group_size)
			continue;
		if (!skip)
			return size_error(b, g, d);
		for (i = 0; i < b->n; i++)
			if (b->rec[i].group == g && !b->rec[i].dropped) {
				b->rec[i].dropped = 1;
				(*ndropped)++;
			}
	}
	return 0;
}

static void
grow_view(struct gbatch *b)
{
	size_t g;

	if (b->n > b->vcap) {
		b->vcap = b->n + b->n / 2 + 16;
		b->perm = diag_realloc(b->perm, b->vcap * sizeof(*b->perm));
		b->r = diag_realloc(b->r, b->vcap * sizeof(*b->r));
		b->T = diag_realloc(b->T, b->vcap * sizeof(*b->T));
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

void
group_view(struct gbatch *b, struct batch *v, int need_tie)
{
	size_t g, i, j, k, o, ng = 0, *cnt;
	size_t first_of[64];
	struct buf lab = { 0 };

	grow_view(b);
	/* Counting sort of the records by group, dropped ones left out;
	 * empty groups (all dropped) vanish. */
	cnt = diag_calloc(b->ngroups + 1, sizeof(*cnt));
	for (i = 0; i < b->n; i++)
		if (!b->rec[i].dropped)
			cnt[b->rec[i].group]++;
	o = 0;
	for (g = 0; g < b->ngroups; g++) {
		size_t c = cnt[g];

		cnt[g] = o;
		o += c;
	}
	cnt[b->ngroups] = o;
	for (i = 0; i < b->n; i++)
		if (!b->rec[i].dropped)
			b->perm[cnt[b->rec[i].group]++] = i;
	/* cnt[g] is now the end of group g. */
	o = 0;
	b->nstrata = 0;
	for (g = 0; g < b->ngroups; g++) {
		size_t e = cnt[g], nk = 0;

		if (e == o)
			continue;
		b->goff[ng] = o;
		b->ghash[ng] = keymap_hash(b->keys.p + b->grp[g].key,
		    b->grp[g].keylen, 0);
		lab.len = 0;
		group_label(b, g, &lab);
		buf_add(&lab, "", 1);
		free(b->gname[ng]);
		b->gname[ng] = diag_strdup(lab.p);
		b->gfile[ng] = b->rec[b->grp[g].first].file;
		b->gline[ng] = b->rec[b->grp[g].first].lineno;
		/* Strata: local indexes in order of first appearance. */
		for (i = o; i < e; i++) {
			const struct record *r = &b->rec[b->perm[i]].r;

			b->r[i] = r->reward;
			b->T[i] = (double)r->T;
			for (k = 0; k < nk; k++) {
				const struct record *f =
				    &b->rec[first_of[k < 64 ? k : 63]].r;

				if (k >= 64)
					break;
				if (keyeq(b->keys.p + f->skey, f->skeylen,
				    b->keys.p + r->skey, r->skeylen))
					break;
			}
			if (k >= 64) {
				/* Many strata: compare with every earlier
				 * record of the group. */
				for (j = o; j < i; j++) {
					const struct record *f =
					    &b->rec[b->perm[j]].r;

					if (keyeq(b->keys.p + f->skey,
					    f->skeylen, b->keys.p + r->skey,
					    r->skeylen))
						break;
				}
				k = j < i ? b->strat[j] : nk;
			}
			if (k == nk) {
				if (nk < 64)
					first_of[nk] = b->perm[i];
				nk++;
			}
			b->strat[i] = (uint32_t)k;
			if (need_tie)
				b->tie[i] = keymap_hash(group_text(b,
				    &b->rec[b->perm[i]]),
				    b->rec[b->perm[i]].len, 1);
		}
		b->nstrat[ng] = (uint32_t)nk;
		b->nstrata += nk;
		ng++;
		o = e;
	}
	b->goff[ng] = o;
	free(cnt);
	buf_free(&lab);

	v->n = o;
	v->ngroups = ng;
	v->r = b->r;
	v->T = b->T;
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
group_reset(struct gbatch *b, int batch_key_changed)
{
	size_t g;

	if (batch_key_changed)
		seen_clear(b->seen);
	else
		for (g = 0; g < b->ngroups; g++) {
			const struct ginfo *gi = &b->grp[g];

			/* The last contiguous group is not in seen yet;
			 * unsorted groups never were. */
			if (gi->keylen == 0 || (!b->o.unsorted &&
			    g + 1 < b->ngroups))
				continue;
			seen_add(b->seen, b->keys.p + gi->key, gi->keylen,
			    gi->hash, b->rec[gi->first].file,
			    b->rec[gi->first].lineno,
			    b->rec[gi->last].lineno);
		}
	b->text.len = b->keys.len = b->runs.len = 0;
	/* keyless goes on: blocks are positions in the whole input. */
	b->n = b->ngroups = 0;
	if (b->nslot)
		memset(b->slot, 0, b->nslot * sizeof(*b->slot));
}
