/*
 * ahead.c - parsing ahead of the pipeline on every thread.
 *
 * Parsing is most of rladv's time.  The input is cut into chunks of
 * about CHUNK_BYTES, and each chunk is parsed by a task of the pool, with
 * a record reader of its own, into records (a --columnar line is
 * several), their keys and mask runs, or the message of a bad line; the
 * pipeline then takes them chunk by chunk in input order, groups and
 * batches them as it does one line at a time.  So whatever the number of
 * threads, every record, message and byte comes in the same order; -j 1
 * does not use this file at all.  NCHUNK per thread are in flight: the
 * lines of those not yet taken stay held by the input
 * (input_release_at).
 *
 * A mapped file's chunk is a span of whole lines (input_span), which
 * the task cuts itself: the calling thread, which also groups and
 * batches every record, would otherwise touch every byte first, work
 * that more threads cannot share.  The task does not
 * know the number of its first line, so it numbers its lines from 1, and
 * the calling thread adds the lines of the chunks before when it takes
 * the chunk (rebase).  Nor is a span's number of lines known before it
 * is cut: its bytes are about CHUNK_LINES of the lines of the last span
 * taken (up to CHUNK_BYTES), so that a chunk of short lines holds no
 * more records than a chunk of lines read one by one.  Other input (a
 * pipe, gzip) is cut by the calling thread, which reads it.
 */
#include <stdlib.h>
#include <string.h>

#include "ahead.h"
#include "buf.h"
#include "diag.h"
#include "record.h"

#define CHUNK_BYTES	((size_t)256 << 10)
#define CHUNK_LINES	1024
#define SPAN_FIRST	((size_t)32 << 10)	/* before a span is cut */
#define NCHUNK		3	/* per thread */

/* One record of a chunk, parsed (or a line that is none). */
struct item {
	size_t		 line;		/* its line in the chunk's */
	size_t		 koff, klen;	/* its keys in the chunk's keys */
	size_t		 why;		/* 1 + its message, or 0: good */
};

struct chunk {
	struct pool_task	 task;
	struct record_reader	*rd;
	struct line		*ln;	/* the lines read */
	size_t			 nln, lncap;
	struct item		*it;
	struct record		*rec;	/* [cap] */
	size_t			 n, cap, pos;	/* pos: the next taken */
	struct buf		 keys, runs;	/* every line's: a record's
					   key offsets from its own keys,
					   its runs index from the first */
	struct diag		*why;		/* messages of bad lines */
	size_t			 nwhy, whycap;
	int			 end;	/* after these lines: 0 more,
					   1 the end, -1 err */
	int			 spanned; /* its lines are sp's, cut by
					    the task and numbered from 1 */
	struct linespan		 sp;
	unsigned long long	 nlines; /* sp's, blank ones too */
	struct diag		 err;
	int			 busy;	/* submitted, not yet waited */
};

struct ahead {
	struct input		*in;
	struct pool		*pool;
	size_t			 nch, head, nfull;
	int			 done;	/* the input said its last */
	size_t			 file;	/* the last line taken's */
	unsigned long long	 base;	/* added to the head chunk's numbers */
	size_t			 sfile;	/* 1 + the file of the spans taken */
	unsigned long long	 slines; /* their lines */
	size_t			 want;	/* a span's bytes; 0: none cut yet */
	const char		*text;
	struct buf		 keys, runs;	/* its record's, in its chunk */
	char			 none[1];	/* where empty ones point */
	struct chunk		 ch[];	/* a ring of nch, in a's block */
};

/* Room for one more item in c, for a record of line. */
static struct item *
next_item(struct chunk *c, size_t line)
{
	struct item *it;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : CHUNK_LINES;
		c->it = diag_realloc(c->it, c->cap * sizeof(*c->it));
		c->rec = diag_realloc(c->rec, c->cap * sizeof(*c->rec));
	}
	it = &c->it[c->n];
	it->line = line;
	it->why = 0;
	it->koff = c->keys.len;
	return it;
}

/* The item just parsed: its message (bad), and where its keys are,
 * which record_get() appended to the chunk's. */
static void
done_item(struct chunk *c, struct item *it, const struct diag *d, int bad)
{
	if (bad) {
		if (c->nwhy == c->whycap) {
			c->whycap = c->whycap ? 2 * c->whycap : 4;
			c->why = diag_realloc(c->why, c->whycap *
			    sizeof(*c->why));
		}
		c->why[c->nwhy++] = *d;
		it->why = c->nwhy;
	}
	it->klen = c->keys.len - it->koff;
	c->n++;
}

/* Room for one more line in c: where it goes. */
static struct line *
line_room(struct chunk *c)
{
	if (c->nln == c->lncap) {
		c->lncap = c->lncap ? 2 * c->lncap : 64;
		c->ln = diag_realloc(c->ln, c->lncap * sizeof(*c->ln));
	}
	return &c->ln[c->nln];
}

/* Cuts c's span into its lines, up to one too long (c->end -1). */
static void
cut_span(struct chunk *c)
{
	const char *pos = c->sp.p;
	int k;

	c->nlines = 0;
	while ((k = input_cut(&c->sp, &pos, &c->nlines, line_room(c),
	    &c->err)) > 0)
		c->nln++;
	if (k < 0)
		c->end = -1;
}

/* The task: parses every line of chunk arg into its records. */
static void
parse_chunk(void *arg)
{
	struct chunk *c = arg;
	struct item *it;
	struct line *ln;
	struct diag d;
	size_t i;
	long m, k;

	if (c->spanned)
		cut_span(c);
	c->keys.len = c->runs.len = 0;
	c->nwhy = 0;
	c->n = 0;
	for (i = 0; i < c->nln; i++) {
		ln = &c->ln[i];
		d.status = 0;
		if (input_too_long(ln, &d) != 0 ||
		    (m = record_line(c->rd, ln->text, ln->len, ln->file,
		    ln->lineno, &d)) < 0) {
			it = next_item(c, i);
			memset(&c->rec[c->n], 0, sizeof(c->rec[0]));
			done_item(c, it, &d, 1);
			continue;
		}
		for (k = 0; k < m; k++) {
			it = next_item(c, i);
			d.status = 0;
			done_item(c, it, &d, record_get(c->rd, (size_t)k,
			    &c->rec[c->n], &c->keys, &c->runs, &d) != 0);
		}
	}
}

/* Reads the next lines into c and queues its parse. */
static void
fill(struct ahead *a, struct chunk *c)
{
	size_t bytes = 0;
	int k;

	c->nln = c->n = c->pos = 0;
	c->end = 0;
	c->spanned = 0;
	c->task.fn = parse_chunk;
	c->task.arg = c;
	c->busy = 1;
	a->nfull++;
	if ((k = input_span(a->in, a->want ? a->want : SPAN_FIRST, &c->sp,
	    &c->err)) != 2) {
		c->spanned = k == 1;
		if (k <= 0) {
			c->end = k < 0 ? -1 : 1;
			a->done = 1;
		}
		pool_submit(a->pool, &c->task);
		return;
	}
	while (c->nln < CHUNK_LINES && bytes < CHUNK_BYTES) {
		/* A silent writer of a pipe is not waited for while there
		 * are lines to parse: a bad one is then reported at once. */
		if (c->nln > 0 && !input_ready(a->in))
			break;
		if ((k = input_next(a->in, line_room(c), &c->err)) <= 0) {
			c->end = k < 0 ? -1 : 1;
			a->done = 1;
			break;
		}
		bytes += c->ln[c->nln].len;
		c->nln++;
	}
	pool_submit(a->pool, &c->task);
}

struct ahead *
ahead_new(struct input *in, const struct fields *f, struct pool *p,
    struct diag *d)
{
	size_t i, nch = NCHUNK * (size_t)pool_threads(p);
	struct ahead *a = diag_calloc(1, sizeof(*a) + nch * sizeof(a->ch[0]));

	a->in = in;
	a->pool = p;
	a->nch = nch;
	for (i = 0; i < a->nch; i++)
		if ((a->ch[i].rd = record_reader_new(f, d)) == NULL) {
			ahead_free(a);
			return NULL;
		}
	return a;
}

/* Returns when c's parse, if it was queued, has run. */
static void
chunk_wait(struct ahead *a, struct chunk *c)
{
	if (c->busy) {
		pool_wait(a->pool, &c->task);
		c->busy = 0;
	}
}

/* Frees what c holds, once no task uses it. */
static void
chunk_free(struct ahead *a, struct chunk *c)
{
	chunk_wait(a, c);
	record_reader_free(c->rd);
	free(c->ln);
	free(c->it);
	free(c->rec);
	free(c->why);
	buf_free(&c->keys);
	buf_free(&c->runs);
}

void
ahead_free(struct ahead *a)
{
	struct chunk *c;

	if (a == NULL)
		return;
	for (c = a->ch; c < a->ch + a->nch; c++)
		chunk_free(a, c);
	free(a);
}

/* Keeps every chunk but the one being taken reading ahead, as far as
 * the input has lines without waiting (it is waited for when none is
 * left to take). */
static void
top_up(struct ahead *a)
{
	while (!a->done && a->nfull < a->nch && (a->nfull == 0 ||
	    input_ready(a->in)))
		fill(a, &a->ch[(a->head + a->nfull) % a->nch]);
}

/*
 * c, parsed, is the head now: the number of its first line, when it is
 * a span's, is known, and so are its messages'.  A span's lines follow
 * the lines of the spans of its file taken before, and those its file
 * read before them.
 */
static void
rebase(struct ahead *a, struct chunk *c)
{
	size_t i, per;

	a->base = 0;
	if (!c->spanned)
		return;
	if (a->sfile != c->sp.fileno + 1) {
		a->sfile = c->sp.fileno + 1;
		a->slines = 0;
	}
	a->base = c->sp.before + a->slines;
	a->slines += c->nlines;
	if (c->nlines > 0) {
		per = (size_t)(c->sp.end - c->sp.p) / c->nlines;
		a->want = per < CHUNK_BYTES / CHUNK_LINES ? per * CHUNK_LINES :
		    CHUNK_BYTES;
	}
	/* Bad lines are rare: the items are looked at only for them. */
	for (i = 0; c->nwhy > 0 && i < c->n; i++)
		if (c->it[i].why)
			diag_reline(&c->why[c->it[i].why - 1], c->sp.file,
			    c->ln[c->it[i].line].lineno,
			    c->ln[c->it[i].line].lineno + a->base);
	if (c->end < 0)
		diag_reline(&c->err, c->sp.file, c->nlines,
		    c->nlines + a->base);
}

static int
ahead_next(void *ctx, struct pipeline_item *pi, struct record *r,
    struct buf *keys, struct buf *runs, struct diag *why, struct diag *d)
{
	struct ahead *a = ctx;
	struct chunk *c;
	struct item *it;
	struct line *ln;

	(void)r;	/* the chunk's own are handed over */
	(void)keys;
	(void)runs;
	for (;;) {
		top_up(a);
		if (a->nfull == 0)
			return 0;	/* (the last chunk said why) */
		c = &a->ch[a->head];
		if (c->busy) {	/* once a fill: only here is it waited */
			chunk_wait(a, c);
			rebase(a, c);
		}
		if (c->pos < c->n)
			break;
		/* The chunk is used up: it ends the input, or is read
		 * again with the next lines. */
		if (c->end != 0) {
			if (c->end < 0)
				*d = c->err;
			return c->end < 0 ? -1 : 0;
		}
		a->head = (a->head + 1) % a->nch;
		a->nfull--;
	}
	it = &c->it[c->pos++];
	ln = &c->ln[it->line];
	pi->text = ln->text;
	pi->len = ln->len;
	pi->stable = ln->stable;
	pi->file = ln->file;
	pi->lineno = ln->lineno + a->base;
	a->file = ln->fileno;
	a->text = ln->text;
	/* The record, its keys and the chunk's runs where the chunk holds
	 * them (the chunk is not read again before the next call): no
	 * copy.  The arrays stay unallocated while every key and mask is
	 * empty. */
	pi->r = &c->rec[c->pos - 1];
	a->keys.p = it->klen > 0 ? c->keys.p + it->koff : a->none;
	a->keys.len = a->keys.cap = it->klen;
	a->runs.p = c->runs.len > 0 ? c->runs.p : a->none;
	a->runs.len = a->runs.cap = c->runs.len;
	pi->keys = &a->keys;
	pi->runs = &a->runs;
	if (it->why) {
		*why = c->why[it->why - 1];
		return 2;
	}
	return 1;
}

/* The pipeline lets go of the lines before keep, the line it took last
 * (or, NULL, of all it took). */
static void
ahead_release(void *ctx, const char *keep)
{
	struct ahead *a = ctx;

	if (a->text == NULL)
		return;
	input_release_at(a->in, keep != NULL ? keep : a->text, a->file);
}

void
ahead_source(struct ahead *a, struct pipeline_src *src)
{
	src->next = ahead_next;
	src->release = ahead_release;
	src->ctx = a;
}
