/*
 * shard.c - a run's records from its index, and one shard's lines.
 *
 * The index lists every record of the run in input order, so the
 * grouping and the batches come out as one process over all the shards
 * would make them, and each batch's numbers are computed from all of its
 * records.  The shard's own records come in its line order within the
 * index: each is read from the shard when the index reaches it, parsed
 * as usual, and refused when its projection is not the one indexed (the
 * shard changed since rladv index).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "index.h"
#include "input.h"
#include "shard.h"

struct shard {
	const struct prefs	*c;
	struct index_reader	*ix;
	char			*file;		/* the shard, or NULL */
	const char		*name;		/* as its input names it */
	struct input		*in;
	struct line		 ln;
	int			 mine;		/* in the shard's section */
	int			 found;
	struct record		 ir;		/* the index's record of the
						   shard's next line */
	struct buf		 ikeys, proj;
	struct record_reader	*rd;		/* the shard's lines' */
	struct output		*echo;
	struct buf		 eb;
};

struct shard *
shard_open(const struct prefs *c, char *const *idx, size_t nidx, char *file,
    struct output *echo)
{
	struct shard *s = diag_calloc(1, sizeof(*s));

	s->c = c;
	s->ix = index_open(c, idx, nidx);
	s->echo = echo;
	if (file != NULL) {
		s->file = file;
		s->name = index_shard_name(file);
		s->in = input_open(&s->file, 1, c->max_line);
		if (c->skip)
			input_keep_long(s->in);
	}
	buf_reserve(&s->ikeys, 64);
	return s;
}

void
shard_close(struct shard *s)
{
	if (s == NULL)
		return;
	index_close(s->ix);
	record_reader_free(s->rd);
	if (s->in)
		input_close(s->in);
	buf_free(&s->ikeys);
	buf_free(&s->proj);
	buf_free(&s->eb);
	free(s);
}

/* rladv index --merge: the sections, one header before them. */
static int
echo_item(struct shard *s, int k, const struct index_entry *e,
    struct diag *d)
{
	s->eb.len = 0;
	switch (k) {
	case IX_SHARD:
		index_put_shard(&s->eb, e->shard);
		break;
	case IX_RECORD:
	case IX_REJECTED:
		index_put_line(&s->eb, e);
		break;
	case IX_END:
		index_put_end(&s->eb, e->count);
		break;
	default:
		return 0;
	}
	return output_write(s->echo, s->eb.p, s->eb.len, d);
}

/* The shard's next line, which must be the one the index has next. */
static int
next_line(struct shard *s, const struct index_entry *e, struct diag *d)
{
	int k;

	/* The lines read stay: the batch holds them until the pipeline
	 * lets them go (shard_release). */
	if ((k = input_next(s->in, &s->ln, d)) < 0)
		return -1;
	if (k == 0) {
		diag_set(d, EXIT_DATA, "%s: ends before line %llu, which the "
		    "index has: the shard changed since rladv index; index it "
		    "again", s->name, e->lineno);
		return -1;
	}
	if (s->ln.lineno != e->lineno) {
		diag_setl(d, EXIT_DATA, s->ln.file, s->ln.lineno, "a record "
		    "the index does not have (it has line %llu next): the "
		    "shard changed since rladv index; index it again",
		    e->lineno);
		return -1;
	}
	return 0;
}

/*
 * A record of the shard: its line, parsed, with the projection the index
 * has (k: IX_RECORD or IX_REJECTED).  Returns as pipeline_src's next().
 */
static int
own_record(struct shard *s, const struct index_entry *e, int k,
    struct pipeline_item *it, struct record *r, struct buf *keys,
    struct buf *runs, struct diag *why, struct diag *d)
{
	const char *col;
	size_t skip;
	int bad;

	if (next_line(s, e, d) != 0)
		return -1;
	it->text = s->ln.text;
	it->len = s->ln.len;
	it->stable = s->ln.stable;
	it->file = s->ln.file;
	it->lineno = s->ln.lineno;
	if (s->rd == NULL && (s->rd = record_reader_new(&s->c->fields,
	    d)) == NULL)
		return -1;
	bad = input_too_long(&s->ln, why) != 0 || record_read(s->rd,
	    s->ln.text, s->ln.len, s->ln.file, s->ln.lineno, r, keys, runs,
	    why) != 0;
	if (bad != (k == IX_REJECTED)) {
		diag_setl(d, EXIT_DATA, s->ln.file, s->ln.lineno, "the record "
		    "is %s, the index has it %s: the shard changed since rladv "
		    "index; index it again", bad ? "bad" : "good",
		    bad ? "good" : "left out");
		return -1;
	}
	if (bad)
		return 2;
	s->proj.len = 0;
	index_put_record(&s->proj, s->c, r, keys->p, s->ln.text, s->ln.len,
	    s->ln.lineno);
	skip = strcspn(s->proj.p, "\t") + 1;
	if ((col = index_differs(s->ix, s->proj.p + skip, s->proj.len - skip -
	    1, e->text, e->len)) != NULL) {
		diag_setl(d, EXIT_DATA, s->ln.file, s->ln.lineno, "the "
		    "record's %s is not the one indexed: the shard changed "
		    "since rladv index; index it again", col);
		return -1;
	}
	r->has_tie = s->ir.has_tie;
	r->tie = s->ir.tie;
	return 1;
}

/* After the shard's section: the shard has no line left. */
static int
own_end(struct shard *s, struct diag *d)
{
	int k;

	if ((k = input_next(s->in, &s->ln, d)) < 0)
		return -1;
	if (k > 0) {
		diag_setl(d, EXIT_DATA, s->ln.file, s->ln.lineno, "a record "
		    "the index does not have: the shard changed since rladv "
		    "index; index it again");
		return -1;
	}
	return 0;
}

/* The end of the index: the shard was in it. */
static int
at_end(struct shard *s, struct diag *d)
{
	const char *first;
	size_t n;

	if (s->name == NULL || s->found)
		return 0;
	n = index_shards(s->ix, &first);
	diag_set(d, EXIT_USAGE, "%s: not in the index, whose %zu shard%s "
	    "named as rladv index was given them (\"%s\"%s); give the shard "
	    "by that name", s->name, n, n == 1 ? " is" : "s are", first,
	    n > 1 ? ", ..." : "");
	return -1;
}

static int
shard_next(void *ctx, struct pipeline_item *it, struct record *r,
    struct buf *keys, struct buf *runs, struct diag *why, struct diag *d)
{
	struct shard *s = ctx;
	struct index_entry e;
	int k;

	memset(r, 0, sizeof(*r));
	for (;;) {
		s->ikeys.len = 0;
		k = index_next(s->ix, &e, s->mine ? &s->ir : r,
		    s->mine ? &s->ikeys : keys, d);
		if (k < 0 || (s->echo && echo_item(s, k, &e, d) != 0))
			return -1;
		switch (k) {
		case IX_EOF:
			return at_end(s, d);
		case IX_SHARD:
			s->mine = s->name && strcmp(e.shard, s->name) == 0;
			s->found |= s->mine;
			continue;
		case IX_END:
			if (s->mine && own_end(s, d) != 0)
				return -1;
			s->mine = 0;
			continue;
		default:
			break;
		}
		if (s->mine)
			return own_record(s, &e, k, it, r, keys, runs, why, d);
		/* Another shard's: grouped and computed, never written. */
		r->elsewhere = 1;
		it->text = "";
		it->len = 0;
		it->stable = 1;
		it->file = e.shard;
		it->lineno = e.lineno;
		return k == IX_RECORD ? 1 : 2;
	}
}

static void
shard_release(void *ctx, const char *keep)
{
	struct shard *s = ctx;

	if (s->in)
		input_release(s->in, keep);
}

void
shard_source(struct shard *s, struct pipeline_src *src)
{
	src->next = shard_next;
	src->release = shard_release;
	src->ctx = s;
}
