/*
 * index.c - the text of an index (index.h): written record by record by
 * rladv index, read back by rladv compute --index and rladv index
 * --merge.
 *
 * A record's line holds only what the numbers are computed from, one
 * column per row of indexcol.c's table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advantage.h"
#include "batch.h"
#include "index.h"
#include "indexcol.h"
#include "input.h"
#include "json.h"
#include "keymap.h"

/* ---- Writing -------------------------------------------------------- */

static void
put_str(struct buf *out, const char *s)
{
	buf_add(out, s, strlen(s));
}

const char *
index_shard_name(const char *file)
{
	return strcmp(file, "-") == 0 ? "<stdin>" : file;
}

/* The header of p: what index_open() compares. */
void
index_put_header(struct buf *out, const struct prefs *p)
{
	const struct opt *o;
	const struct column *c;
	char head[64];

	buf_add(out, head, snprintf(head, sizeof(head), "rladv-index %d %s\n",
	    index_format(p), RLADV_VERSION));
	for (o = options_table; o->name; o++) {
		if (!options_recorded(o))
			continue;
		put_str(out, "option ");
		put_str(out, o->name);
		put_str(out, " ");
		/* The value's bytes, escaped as keys are. */
		{
			struct buf v = { 0 };

			options_show(p, o, &v);
			indexcol_put_bytes(out, v.p ? v.p : "", v.len);
			buf_free(&v);
		}
		put_str(out, "\n");
	}
	put_str(out, "columns line");
	for (c = indexcol_table; c < indexcol_table + indexcol_n; c++)
		if (indexcol_wanted(c, p)) {
			put_str(out, " ");
			put_str(out, c->name);
		}
	put_str(out, "\n");
}

void
index_put_shard(struct buf *out, const char *name)
{
	put_str(out, "shard ");
	indexcol_put_bytes(out, name, strlen(name));
	put_str(out, "\n");
}

static void
put_lineno(struct buf *out, unsigned long long lineno)
{
	char num[24];

	buf_add(out, num, snprintf(num, sizeof(num), "%llu", lineno));
}

void
index_put_record(struct buf *out, const struct prefs *p,
    const struct record *r, const char *keys, const char *line, size_t len,
    unsigned long long lineno)
{
	const struct column *c;

	put_lineno(out, lineno);
	for (c = indexcol_table; c < indexcol_table + indexcol_n; c++)
		if (indexcol_wanted(c, p)) {
			buf_add(out, "\t", 1);
			if (c->key != K_NONE)
				indexcol_put_key(out, r, c->key, keys);
			else
				c->put(out, r, keys, line, len);
		}
	buf_add(out, "\n", 1);
}

void
index_put_line(struct buf *out, const struct index_entry *e)
{
	put_lineno(out, e->lineno);
	buf_add(out, "\t", 1);
	buf_add(out, e->text, e->len);
	buf_add(out, "\n", 1);
}

void
index_put_rejected(struct buf *out, unsigned long long lineno)
{
	put_lineno(out, lineno);
	put_str(out, "\t!\n");
}

void
index_put_end(struct buf *out, unsigned long long count)
{
	char num[32];

	buf_add(out, num, snprintf(num, sizeof(num), "end %llu\n", count));
}

/* ---- Reading -------------------------------------------------------- */

struct index_reader {
	const struct prefs	*p;
	struct input		*in;
	struct line		 ln;
	int			 headers;	/* seen so far */
	int			 state;		/* S_* below */
	const struct column	*col[INDEXCOL_MAX];	/* in the header's order */
	size_t			 ncol;
	struct buf		 want;		/* this run's header */
	size_t			 nopt;		/* option lines of a header */
	const char		*first;		/* the first index's name */
	struct keymap		 shards;	/* names, values: their line */
	const char		*shard;		/* the section's, in names */
	char			**names;	/* the shards' names, owned */
	size_t			 nnames;
	unsigned long long	 count, last;	/* the section's lines */
};

enum { S_START, S_OPTIONS, S_BETWEEN, S_SECTION };

struct index_reader *
index_open(const struct prefs *p, char *const *names, size_t n)
{
	struct index_reader *x = diag_calloc(1, sizeof(*x));

	x->p = p;
	x->in = input_open(names, n, p->max_line);
	x->first = n > 0 && strcmp(names[0], "-") != 0 ? names[0] : "<stdin>";
	keymap_init(&x->shards, sizeof(unsigned long long));
	index_put_header(&x->want, p);
	return x;
}

void
index_close(struct index_reader *x)
{
	size_t i;

	if (x == NULL)
		return;
	input_close(x->in);
	buf_free(&x->want);
	keymap_free(&x->shards);
	for (i = 0; i < x->nnames; i++)
		free(x->names[i]);
	free(x->names);
	free(x);
}

/* The index line is not of an index: -1 with d set. */
static int
bad(struct index_reader *x, struct diag *d, const char *what)
{
	diag_setl(d, EXIT_DATA, x->ln.file, x->ln.lineno, "%s", what);
	return -1;
}

/* Whether the line begins with the word w and a blank (or ends). */
static int
word(const struct line *ln, const char *w, const char **rest)
{
	size_t n = strlen(w);

	if (ln->len < n || memcmp(ln->text, w, n) != 0 ||
	    (ln->len > n && ln->text[n] != ' '))
		return 0;
	*rest = ln->text + (ln->len > n ? n + 1 : n);
	return 1;
}

/* The line of want (this run's header) that begins with prefix. */
static const char *
want_line(const struct index_reader *x, const char *prefix, size_t *len)
{
	const char *s = x->want.p, *end = s + x->want.len, *nl;
	size_t n = strlen(prefix);

	for (; s < end; s = nl + 1) {
		nl = memchr(s, '\n', end - s);
		if ((size_t)(nl - s) >= n && memcmp(s, prefix, n) == 0) {
			*len = nl - s;
			return s;
		}
	}
	return NULL;
}

/*
 * A header's first line: this format, this version.  Another is bad data
 * (status 1), as a shard changed since it was indexed is: the line is
 * "rladv-index FORMAT VERSION", and the message names the version.
 */
static int
header_line(struct index_reader *x, const char *rest, struct diag *d)
{
	size_t n, len = x->ln.len - (rest - x->ln.text);
	const char *w = want_line(x, "rladv-index ", &n), *v;

	if (x->ln.len == n && memcmp(x->ln.text, w, n) == 0)
		return 0;
	if ((v = memchr(rest, ' ', len)) == NULL)
		return diag_setl(d, EXIT_DATA, x->ln.file, x->ln.lineno, "the "
		    "index names no rladv version (\"%.*s\"); index the "
		    "shards again with this rladv, %s", (int)len, rest,
		    RLADV_VERSION);
	v++;
	if ((size_t)(rest + len - v) == strlen(RLADV_VERSION) &&
	    memcmp(v, RLADV_VERSION, rest + len - v) == 0)
		return diag_setl(d, EXIT_DATA, x->ln.file, x->ln.lineno, "the "
		    "index is of format %.*s, this rladv reads format %d; "
		    "index the shards again with this rladv", (int)(v - 1 -
		    rest), rest, index_format(x->p));
	return diag_setl(d, EXIT_DATA, x->ln.file, x->ln.lineno, "the index "
	    "was written by rladv %.*s, this is rladv %s; index the shards "
	    "again with this rladv", (int)(rest + len - v), v, RLADV_VERSION);
}

/* An option line: the value this run has, or the option named. */
static int
option_line(struct index_reader *x, const char *rest, struct diag *d)
{
	const char *sp, *w;
	char prefix[80];
	size_t n, len = x->ln.len - (rest - x->ln.text);

	if ((sp = memchr(rest, ' ', len)) == NULL || (size_t)(sp - rest) >
	    sizeof(prefix) - 9)
		return bad(x, d, "an option line without a value");
	snprintf(prefix, sizeof(prefix), "option %.*s ", (int)(sp - rest),
	    rest);
	if ((w = want_line(x, prefix, &n)) == NULL)
		return bad(x, d, "an option this rladv does not have");
	if (x->ln.len == n && memcmp(x->ln.text, w, n) == 0)
		return 0;
	w += strlen(prefix);
	n -= strlen(prefix);
	return diag_setl(d, EXIT_USAGE, x->ln.file, x->ln.lineno, "--%.*s "
	    "differs: the index was made with \"%.*s\", %s has \"%.*s\"; give "
	    "every step the options that rladv index had", (int)(sp - rest),
	    rest, (int)(len - (sp + 1 - rest)), sp + 1,
	    options_cmd_name(x->p->mode), (int)n, w);
}

/* The columns line ends a header: every option was there, and the
 * columns are the ones this run writes. */
static int
columns_line(struct index_reader *x, struct diag *d)
{
	const struct opt *o;
	const struct column *c;
	const char *w;
	size_t n, nopt = 0;

	for (o = options_table; o->name; o++)
		nopt += options_recorded(o);
	if (x->nopt != nopt)
		return bad(x, d, "the header lacks options this rladv records");
	w = want_line(x, "columns ", &n);
	if (x->ln.len != n || memcmp(x->ln.text, w, n) != 0)
		return bad(x, d, "not the columns this rladv reads");
	x->ncol = 0;
	for (c = indexcol_table; c < indexcol_table + indexcol_n; c++)
		if (indexcol_wanted(c, x->p))
			x->col[x->ncol++] = c;
	return 0;
}

/* "shard NAME": a section begins; a name is indexed once. */
static int
shard_line(struct index_reader *x, const char *rest, struct index_entry *e,
    struct diag *d)
{
	struct buf name = { 0 };
	unsigned long long *at;
	size_t k;
	int added;

	if (indexcol_get_bytes(rest, x->ln.len - (rest - x->ln.text), &name) != 0 ||
	    name.len == 0 || memchr(name.p, '\0', name.len) != NULL) {
		buf_free(&name);
		return bad(x, d, "a shard line without a valid name");
	}
	k = keymap_get(&x->shards, name.p, name.len, &added);
	at = keymap_val(&x->shards, k);
	if (!added) {
		diag_setl(d, EXIT_DATA, x->ln.file, x->ln.lineno, "shard "
		    "\"%.*s\" is indexed twice (line %llu too); give each shard "
		    "once", (int)name.len, name.p, *at);
		buf_free(&name);
		return -1;
	}
	*at = x->ln.lineno;
	buf_add(&name, "", 1);
	x->names = diag_realloc(x->names, (x->nnames + 1) *
	    sizeof(*x->names));
	x->names[x->nnames++] = name.p;
	x->shard = name.p;
	x->count = x->last = 0;
	e->shard = x->shard;
	return IX_SHARD;
}

/* A record line of the section. */
static int
entry_record(struct index_reader *x, struct index_entry *e, struct record *r,
    struct buf *keys, struct diag *d)
{
	const char *s = x->ln.text, *end = s + x->ln.len, *tab;
	const struct column *c;
	size_t i, n;

	tab = memchr(s, '\t', end - s);
	if (tab == NULL || indexcol_count(s, tab - s, &e->lineno) != 0 ||
	    e->lineno <= x->last)
		return bad(x, d, "a record line without a line number above "
		    "the last");
	x->last = e->lineno;
	x->count++;
	e->shard = x->shard;
	e->text = tab + 1;
	e->len = end - (tab + 1);
	if (e->len == 1 && *e->text == '!')
		return IX_REJECTED;
	memset(r, 0, sizeof(*r));
	memset(r->alias, -1, sizeof(r->alias));
	for (s = tab + 1, i = 0; i < x->ncol; i++) {
		c = x->col[i];
		tab = memchr(s, '\t', end - s);
		n = (tab ? tab : end) - s;
		if ((tab == NULL) != (i + 1 == x->ncol) ||
		    (c->key != K_NONE ? indexcol_get_key(s, n, r, c->key, keys) :
		    c->get(s, n, r, keys)) != 0) {
			char what[80];

			snprintf(what, sizeof(what), "the record's column "
			    "\"%s\" is not valid", c->name);
			return bad(x, d, what);
		}
		s += n + 1;
	}
	return IX_RECORD;
}

/* "end COUNT": the section is whole. */
static int
end_line(struct index_reader *x, const char *rest, struct index_entry *e,
    struct diag *d)
{
	unsigned long long n;

	if (indexcol_count(rest, x->ln.len - (rest - x->ln.text), &n) != 0 ||
	    n != x->count) {
		char what[160];

		snprintf(what, sizeof(what), "the section of \"%s\" has %llu "
		    "record%s, its end line says otherwise; index it again",
		    x->shard, x->count, x->count == 1 ? "" : "s");
		return bad(x, d, what);
	}
	e->count = n;
	return IX_END;
}

/* The end of the indexes: every section ended. */
static int
at_eof(struct index_reader *x, struct diag *d)
{
	const char *file = x->ln.file ? x->ln.file : x->first;

	if (x->state == S_SECTION) {
		diag_set(d, EXIT_DATA, "%s: the section of shard \"%s\" is cut "
		    "short (no end line): its rladv index did not finish; "
		    "index it again", file, x->shard);
		return -1;
	}
	if (x->headers == 0) {
		diag_set(d, EXIT_DATA, "%s: not an index (no rladv-index "
		    "line); make one with rladv index", file);
		return -1;
	}
	if (x->state != S_BETWEEN)
		return bad(x, d, "the index ends inside its header");
	return IX_EOF;
}

/*
 * A record line was not valid (d says why).  When it is the index's last
 * line, the index was cut, most likely in that line (a disk full, a
 * killed rladv index): say so, as at_eof() does after a whole line.
 */
static int
cut_record(struct index_reader *x, struct diag *d)
{
	struct diag why = *d;
	struct line ln;

	switch (input_next(x->in, &ln, d)) {
	case 0:
		return at_eof(x, d);
	case 1:
		*d = why;
		break;
	}
	return -1;
}

int
index_next(struct index_reader *x, struct index_entry *e, struct record *r,
    struct buf *keys, struct diag *d)
{
	const char *rest;
	int k;

	for (;;) {
		input_release(x->in, NULL);
		if ((k = input_next(x->in, &x->ln, d)) < 0)
			return -1;
		if (k == 0)
			return at_eof(x, d);
		if (word(&x->ln, "rladv-index", &rest)) {
			if (x->state == S_SECTION)
				return at_eof(x, d);
			x->headers++;
			x->nopt = 0;
			x->state = S_OPTIONS;
			if (header_line(x, rest, d) != 0)
				return -1;
			continue;
		}
		switch (x->state) {
		case S_OPTIONS:
			if (word(&x->ln, "option", &rest)) {
				if (option_line(x, rest, d) != 0)
					return -1;
				x->nopt++;
				continue;
			}
			if (!word(&x->ln, "columns", &rest))
				return bad(x, d, "expected an option or the "
				    "columns line");
			if (columns_line(x, d) != 0)
				return -1;
			x->state = S_BETWEEN;
			continue;
		case S_BETWEEN:
			if (!word(&x->ln, "shard", &rest))
				return bad(x, d, "expected a shard line or "
				    "a header");
			x->state = S_SECTION;
			return shard_line(x, rest, e, d);
		case S_SECTION:
			if (word(&x->ln, "end", &rest)) {
				x->state = S_BETWEEN;
				e->shard = x->shard;
				return end_line(x, rest, e, d);
			}
			if ((k = entry_record(x, e, r, keys, d)) < 0)
				return cut_record(x, d);
			return k;
		default:
			return bad(x, d, "not an index (no rladv-index "
			    "line first); make one with rladv index");
		}
	}
}

size_t
index_shards(const struct index_reader *x, const char **first)
{
	*first = x->nnames > 0 ? x->names[0] : "";
	return x->nnames;
}

const char *
index_differs(const struct index_reader *x, const char *a, size_t alen,
    const char *b, size_t blen)
{
	const char *ae = a + alen, *be = b + blen, *ta, *tb;
	size_t i;

	if (alen == blen && memcmp(a, b, alen) == 0)
		return NULL;
	for (i = 0; i < x->ncol; i++) {
		ta = memchr(a, '\t', ae - a);
		tb = memchr(b, '\t', be - b);
		ta = ta ? ta : ae;
		tb = tb ? tb : be;
		if (ta - a != tb - b || memcmp(a, b, ta - a) != 0)
			return x->col[i]->name;
		a = ta + (ta < ae);
		b = tb + (tb < be);
	}
	return "record";
}
