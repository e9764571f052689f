/*
 * diff_outputs.c - rladv diff --outputs A B: two output files compared
 * record by record (by position, or by the --key fields), every number
 * within --tol; exit 0 when equal, 1 when not, as diff(1).  Each line is
 * scanned (json.c) and its values compared from the text, so that what
 * a tree would lose counts: a number past a double, a string's bytes
 * after "\u0000", a member named twice.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "diff_outputs.h"
#include "input.h"
#include "json.h"
#include "jsonstr.h"
#include "keymap.h"
#include "record.h"
#include "report.h"
#include "strata.h"

struct odiff {
	const struct dopts	*o;
	const char		*name[2];
	int			 json;
	unsigned long long	 records[2], matched, unmatched[2];
	unsigned long long	 rec_differ, val_differ, num_differ;
	double			 max_abs, max_rel;
	unsigned long long	 shown;
	cJSON			*list;	/* --json: the differences */
	struct buf		 path;
};

/* A value in a line: its text, as json_value() scanned it. */
struct jv {
	const char	*p;
	size_t		 n;
	enum json_type	 t;
};

/* The shortest decimal that reads back as v. */
static void
shortest(char *buf, size_t n, double v)
{
	int p;

	for (p = 1; p <= 17; p++) {
		snprintf(buf, n, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* How a value is shown in the text report: a number as the shortest
 * decimal of its double (as written when past a double), a string as
 * valid UTF-8 cut at about 60 bytes on a character's start. */
static void
value_text(const struct jv *v, char *buf, size_t n)
{
	struct buf b = { 0 };
	size_t len;
	double x;

	if (v == NULL) {
		snprintf(buf, n, "(absent)");
		return;
	}
	switch (v->t) {
	case JSON_NUMBER:
		if (isfinite(x = json_strtod(v->p, v->n))) {
			shortest(buf, n, x);
			return;
		}
		break;
	case JSON_ARRAY:
		snprintf(buf, n, "array");
		return;
	case JSON_OBJECT:
		snprintf(buf, n, "object");
		return;
	default:
		break;
	}
	jsonstr_fix(&b, v->p, v->n);
	for (len = b.len > 60 ? 60 : b.len; len < b.len &&
	    (b.p[len] & 0xc0) == 0x80; len--)
		;
	snprintf(buf, n, "%.*s%s", (int)len, b.p, len < b.len ? "..." : "");
	buf_free(&b);
}

/* A value for the --json report, as the file has it. */
static cJSON *
raw(const struct jv *v)
{
	char *s = diag_malloc(v->n + 1);
	cJSON *r;

	memcpy(s, v->p, v->n);
	s[v->n] = '\0';
	r = cJSON_CreateRaw(s);
	free(s);
	return r;
}

/* One difference: counted, shown while under --top. */
static void
report(struct odiff *od, unsigned long long la, unsigned long long lb,
    const struct jv *a, const struct jv *b, const char *what)
{
	char va[96], vb[96], where[1024];
	cJSON *e;
	int n;

	od->val_differ++;
	if (od->shown >= od->o->top)
		return;
	od->shown++;
	value_text(a, va, sizeof(va));
	value_text(b, vb, sizeof(vb));
	if (od->json) {
		e = cJSON_CreateObject();
		if (la)
			cJSON_AddNumberToObject(e, "a_line", (double)la);
		else
			cJSON_AddNullToObject(e, "a_line");
		if (lb)
			cJSON_AddNumberToObject(e, "b_line", (double)lb);
		else
			cJSON_AddNullToObject(e, "b_line");
		cJSON_AddStringToObject(e, "path", od->path.len ?
		    od->path.p : "");
		/* As the files have them (a number past a double, a
		 * string with "\u0000"). */
		cJSON_AddItemToObject(e, "a", a ? raw(a) : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "b", b ? raw(b) : cJSON_CreateNull());
		cJSON_AddStringToObject(e, "what", what);
		cJSON_AddItemToArray(od->list, e);
		return;
	}
	n = 0;
	if (la)
		n += snprintf(where + n, sizeof(where) - n, "%s:%llu",
		    od->name[0], la);
	if (lb && n < (int)sizeof(where))
		n += snprintf(where + n, sizeof(where) - n, "%s%s:%llu",
		    n ? " " : "", od->name[1], lb);
	if (od->path.len == 0 && (a == NULL || b == NULL))
		printf("%s: %s\n", where, what);	/* a record alone */
	else
		printf("%s: %s%s%s != %s (%s)\n", where, od->path.len ?
		    od->path.p : "", od->path.len ? ": " : "", va, vb, what);
}

/* A member's name (n bytes, decoded) or an element's index onto the
 * path, escaped to be one line of text. */
static void
path_push(struct buf *p, const char *name, size_t n, long idx, size_t *mark)
{
	char tmp[32];

	*mark = p->len;
	if (name != NULL) {
		if (p->len)
			buf_add(p, ".", 1);
		jsonstr_text(p, name, n);
	} else {
		snprintf(tmp, sizeof(tmp), "[%ld]", idx);
		buf_add(p, tmp, strlen(tmp));
	}
	buf_add(p, "", 1);
	p->len--;
}

static void
path_pop(struct buf *p, size_t mark)
{
	p->len = mark;
	if (p->p)
		p->p[p->len] = '\0';
}

/* The next element of an array or member of an object at p (after '['
 * or '{', or after the one before): 1 with v (and the member's name in
 * k), 0 at the end.  The line was scanned whole, so it is valid. */
static int
next_item(const char **p, const char *end, struct jv *k, struct jv *v)
{
	struct json_err e;
	const char *q = json_ws(*p, end);
	int esc;

	if (*q == ',')
		q = json_ws(q + 1, end);
	if (*q == ']' || *q == '}')
		return 0;
	if (k != NULL) {
		k->p = q;
		q = json_string(q, end, &esc, &e);
		k->n = (size_t)(q - k->p);
		k->t = JSON_STRING;
		q = json_ws(json_ws(q, end) + 1, end);	/* past ':' */
	}
	v->p = q;
	*p = json_value(q, end, &v->t, &e);
	v->n = (size_t)(*p - q);
	return 1;
}

/* The decoded bytes of a string s into out (emptied); their number. */
static size_t
decode(const struct jv *s, struct buf *out)
{
	ssize_t n;

	out->len = 0;
	buf_reserve(out, s->n);
	n = json_unescape(s->p, s->n, out->p, s->n);
	out->len = n > 0 ? (size_t)n : 0;
	return out->len;
}

static unsigned long long cmp_value(struct odiff *, const struct jv *,
    const struct jv *, unsigned long long, unsigned long long);

/* Two numbers: equal, or within max(--atol, --tol * max(|a|, |b|)):
 * relative, as floats are compared, with an absolute floor near zero.
 * One past a double equals only one past it on the same side. */
static unsigned long long
cmp_number(struct odiff *od, const struct jv *a, const struct jv *b,
    unsigned long long la, unsigned long long lb)
{
	double x = json_strtod(a->p, a->n), y = json_strtod(b->p, b->n);
	double m, ad, rel;
	char what[96];

	if (x == y)
		return 0;
	if (!isfinite(x) || !isfinite(y)) {
		report(od, la, lb, a, b, "a number past a double");
		return 1;
	}
	/* Halves, whose difference is a double whatever theirs is. */
	m = fmax(fabs(x), fabs(y)) / 2;
	ad = fabs(x / 2 - y / 2);
	rel = ad / m;
	if (ad <= fmax(od->o->atol, od->o->tol * 2 * m) / 2)
		return 0;
	od->num_differ++;
	/* Past the largest double it is shown as null (--json). */
	od->max_abs = fmax(od->max_abs, 2 * ad);
	od->max_rel = fmax(od->max_rel, rel);
	snprintf(what, sizeof(what), "relative difference %.3g", rel);
	report(od, la, lb, a, b, what);
	return 1;
}

/* Two arrays: element by element. */
static unsigned long long
cmp_array(struct odiff *od, const struct jv *a, const struct jv *b,
    unsigned long long la, unsigned long long lb)
{
	const char *pa = a->p + 1, *pb = b->p + 1;
	unsigned long long n = 0;
	struct jv ea, eb;
	size_t mark, na = 0, nb = 0;
	int ka, kb;
	long i;

	/* Lengths first, as the report has always said. */
	while (next_item(&pa, a->p + a->n, NULL, &ea))
		na++;
	while (next_item(&pb, b->p + b->n, NULL, &eb))
		nb++;
	if (na != nb) {
		report(od, la, lb, a, b, "different lengths");
		return 1;
	}
	pa = a->p + 1;
	pb = b->p + 1;
	for (i = 0;; i++) {
		ka = next_item(&pa, a->p + a->n, NULL, &ea);
		kb = next_item(&pb, b->p + b->n, NULL, &eb);
		if (!ka || !kb)
			break;
		path_push(&od->path, NULL, 0, i, &mark);
		n += cmp_value(od, &ea, &eb, la, lb);
		path_pop(&od->path, mark);
	}
	return n;
}

/* One side's members: names decoded end to end, values. */
struct members {
	struct buf	 names;
	size_t		*off, *len, n, cap;
	struct jv	*v;
};

static void
members_of(const struct jv *o, struct members *m)
{
	const char *p = o->p + 1;
	struct buf tmp = { 0 };
	struct jv k, v;

	memset(m, 0, sizeof(*m));
	while (next_item(&p, o->p + o->n, &k, &v)) {
		if (m->n == m->cap) {
			m->cap = m->cap ? 2 * m->cap : 8;
			m->off = diag_realloc(m->off, m->cap * sizeof(*m->off));
			m->len = diag_realloc(m->len, m->cap * sizeof(*m->len));
			m->v = diag_realloc(m->v, m->cap * sizeof(*m->v));
		}
		decode(&k, &tmp);
		m->off[m->n] = buf_add(&m->names, tmp.p, tmp.len);
		m->len[m->n] = tmp.len;
		m->v[m->n++] = v;
	}
	buf_free(&tmp);
}

static void
members_free(struct members *m)
{
	buf_free(&m->names);
	free(m->off);
	free(m->len);
	free(m->v);
}

/*
 * Two objects: members by name, so that a trainer's member order does
 * not matter, and a name that comes more than once by its rank among
 * those of its name (the second "a" of A with the second "a" of B);
 * members only one side has are differences.  Names are compared
 * decoded, whole ("a\u0000b" is not "a").
 */
static unsigned long long
cmp_object(struct odiff *od, const struct jv *a, const struct jv *b,
    unsigned long long la, unsigned long long lb)
{
	struct members ma, mb;
	struct keymap names;	/* B's names */
	size_t i, k, *first, *next, *at, mark;
	unsigned long long n = 0;
	char *paired;
	int added;

	members_of(a, &ma);
	members_of(b, &mb);
	keymap_init(&names, 0);
	/* B's members of each name k in order: first[k], then next[]. */
	first = diag_malloc((mb.n + 1) * sizeof(*first));
	next = diag_malloc((mb.n + 1) * sizeof(*next));
	at = diag_malloc((mb.n + 1) * sizeof(*at));	/* name k's last */
	paired = diag_calloc(mb.n + 1, 1);
	for (i = 0; i < mb.n; i++) {
		k = keymap_get(&names, mb.names.p + mb.off[i], mb.len[i],
		    &added);
		next[i] = (size_t)-1;
		if (added)
			first[k] = i;
		else
			next[at[k]] = i;
		at[k] = i;
	}
	/* at[k]: the next of name k for A's next member of that name. */
	for (k = 0; k < keymap_count(&names); k++)
		at[k] = first[k];
	for (i = 0; i < ma.n; i++) {
		path_push(&od->path, ma.names.p + ma.off[i], ma.len[i], 0,
		    &mark);
		k = keymap_find(&names, ma.names.p + ma.off[i], ma.len[i]);
		if (k == KEYMAP_NONE || at[k] == (size_t)-1) {
			report(od, la, lb, &ma.v[i], NULL, "only in A");
			n++;
		} else {
			n += cmp_value(od, &ma.v[i], &mb.v[at[k]], la, lb);
			paired[at[k]] = 1;
			at[k] = next[at[k]];
		}
		path_pop(&od->path, mark);
	}
	for (i = 0; i < mb.n; i++)
		if (!paired[i]) {
			path_push(&od->path, mb.names.p + mb.off[i],
			    mb.len[i], 0, &mark);
			report(od, la, lb, NULL, &mb.v[i], "only in B");
			path_pop(&od->path, mark);
			n++;
		}
	free(first);
	free(next);
	free(at);
	free(paired);
	keymap_free(&names);
	members_free(&ma);
	members_free(&mb);
	return n;
}

/* Compares two values; returns the differences found. */
static unsigned long long
cmp_value(struct odiff *od, const struct jv *a, const struct jv *b,
    unsigned long long la, unsigned long long lb)
{
	struct buf x = { 0 }, y = { 0 };
	int same;

	if (a->t != b->t) {
		report(od, la, lb, a, b, "different types");
		return 1;
	}
	switch (a->t) {
	case JSON_NUMBER:
		return cmp_number(od, a, b, la, lb);
	case JSON_STRING:
		/* Decoded and whole: "a\u0000b" is not "a\u0000c". */
		same = decode(a, &x) == decode(b, &y) &&
		    (x.len == 0 || memcmp(x.p, y.p, x.len) == 0);
		buf_free(&x);
		buf_free(&y);
		if (same)
			return 0;
		report(od, la, lb, a, b, "different strings");
		return 1;
	case JSON_ARRAY:
		return cmp_array(od, a, b, la, lb);
	case JSON_OBJECT:
		return cmp_object(od, a, b, la, lb);
	default:
		/* true, false, null */
		return 0;
	}
}

/* The line as one JSON value, or -1 with d set. */
static int
scan_line(const char *text, size_t len, const char *file,
    unsigned long long lineno, struct jv *v, struct diag *d)
{
	const char *end = text + len, *p = json_ws(text, end), *q;
	struct json_err e;

	if (p == end || (q = json_value(p, end, &v->t, &e)) == NULL ||
	    json_ws(q, end) != end) {
		diag_setl(d, EXIT_DATA, file, lineno, "invalid JSON (rladv "
		    "diff --outputs compares JSON lines)");
		return -1;
	}
	v->p = p;
	v->n = (size_t)(q - p);
	return 0;
}

static void
compare_records(struct odiff *od, const struct jv *a, const struct jv *b,
    unsigned long long la, unsigned long long lb)
{
	od->matched++;
	od->path.len = 0;
	if (cmp_value(od, a, b, la, lb) > 0)
		od->rec_differ++;
}

/*
 * The canonical form of the --key fields of a line (as record.h makes
 * keys: a type tag, then the decoded string or the number's literal
 * text, parts joined by 0x1f), read from the text itself so that
 * integer ids beyond 2^53 stay distinct.
 */
static int
line_key(const struct line *ln, const char *keys, struct buf *out,
    struct diag *d)
{
	const char *p, *end = ln->text + ln->len, *kb, *ke, *vb, *ve;
	const char *part, *next;
	struct json_err e;
	enum json_type t;
	char nb[256];
	ssize_t n;
	size_t plen;
	int esc, found;

	out->len = 0;
	for (part = keys; part != NULL; part = next) {
		next = strchr(part, ',');
		plen = next ? (size_t)(next - part) : strlen(part);
		if (next)
			next++;
		found = 0;
		p = json_ws(ln->text, end);
		if (p == end || *p != '{')
			return diag_setl(d, EXIT_DATA, ln->file, ln->lineno,
			    "not a JSON object");
		p = json_ws(p + 1, end);
		while (p < end && *p == '"') {
			kb = p;
			if ((ke = json_string(p, end, &esc, &e)) == NULL)
				break;
			n = json_unescape(kb, ke - kb, nb, sizeof(nb));
			p = json_ws(ke, end);
			if (p == end || *p != ':')
				break;
			p = json_ws(p + 1, end);
			vb = p;
			if ((ve = json_value(p, end, &t, &e)) == NULL)
				break;
			if (n >= 0 && (size_t)n == plen &&
			    memcmp(nb, part, plen) == 0) {
				if (out->len)
					buf_add(out, "\x1f", 1);
				record_key_add(out, t, vb, ve - vb);
				found = 1;
				break;
			}
			p = json_ws(ve, end);
			if (p < end && *p == ',')
				p = json_ws(p + 1, end);
		}
		if (!found)
			return diag_setl(d, EXIT_DATA, ln->file, ln->lineno,
			    "field \"%.*s\" is missing (the --key)",
			    (int)plen, part);
	}
	return 0;
}

/* A record of B waiting for its partner in A (--key). */
struct brow {
	size_t			 off, len;	/* line in the arena */
	unsigned long long	 line;
	unsigned long long	 used_by;	/* A's line, or 0 */
};

/* A key on two lines of one side: records cannot be paired by it. */
static int
dup_key(struct diag *d, const struct line *ln, const struct buf *key,
    unsigned long long other)
{
	char *lab = strata_label(key->p, key->len);
	int rc;

	rc = diag_setl(d, EXIT_DATA, ln->file, ln->lineno, "key \"%s\" is "
	    "also on line %llu: --key must name fields that identify a "
	    "record", lab, other);
	free(lab);
	return rc;
}

static int
outputs_by_key(struct odiff *od, struct input *in[2], struct diag *d)
{
	struct keymap t;	/* B's keys; values: struct brow */
	struct brow *row;
	struct buf arena = { 0 }, key = { 0 };
	struct line ln;
	size_t k;
	struct jv a, b;
	char *lab, what[256];
	int rc = 0, r, added;

	keymap_init(&t, sizeof(struct brow));
	while ((r = input_next(in[1], &ln, d)) > 0) {
		od->records[1]++;
		if ((rc = line_key(&ln, od->o->key, &key, d)) != 0)
			break;
		k = keymap_get(&t, key.p, key.len, &added);
		row = keymap_val(&t, k);
		if (!added) {
			rc = dup_key(d, &ln, &key, row->line);
			break;
		}
		row->off = buf_add(&arena, ln.text, ln.len);
		row->len = ln.len;
		row->line = ln.lineno;
		row->used_by = 0;
		input_release(in[1], NULL);	/* copied: let it go */
	}
	if (r < 0)
		rc = d->status;
	while (rc == 0 && (r = input_next(in[0], &ln, d)) > 0) {
		input_release(in[0], ln.text);	/* the lines before it */
		od->records[0]++;
		if ((rc = line_key(&ln, od->o->key, &key, d)) != 0)
			break;
		if (scan_line(ln.text, ln.len, ln.file, ln.lineno, &a,
		    d) != 0) {
			rc = d->status;
			break;
		}
		k = keymap_find(&t, key.p, key.len);
		if (k == KEYMAP_NONE) {
			od->unmatched[0]++;
			od->rec_differ++;
			od->path.len = 0;
			lab = strata_label(key.p, key.len);
			snprintf(what, sizeof(what), "no record with key "
			    "\"%.200s\" in B", lab);
			free(lab);
			report(od, ln.lineno, 0, NULL, NULL, what);
			continue;
		}
		row = keymap_val(&t, k);
		if (row->used_by) {
			rc = dup_key(d, &ln, &key, row->used_by);
			break;
		}
		row->used_by = ln.lineno;
		if (scan_line(arena.p + row->off, row->len, od->name[1],
		    row->line, &b, d) != 0) {
			rc = d->status;
			break;
		}
		compare_records(od, &a, &b, ln.lineno, row->line);
	}
	if (rc == 0 && r < 0)
		rc = d->status;
	for (k = 0; rc == 0 && k < keymap_count(&t); k++) {
		row = keymap_val(&t, k);
		if (row->used_by)
			continue;
		od->unmatched[1]++;
		od->rec_differ++;
		od->path.len = 0;
		if (scan_line(arena.p + row->off, row->len, od->name[1],
		    row->line, &b, d) != 0) {
			rc = d->status;
			break;
		}
		lab = strata_label_of(&t, k);
		snprintf(what, sizeof(what), "no record with key \"%.200s\" "
		    "in A", lab);
		free(lab);
		report(od, 0, row->line, NULL, NULL, what);
	}
	keymap_free(&t);
	buf_free(&arena);
	buf_free(&key);
	return rc;
}

static int
outputs_by_line(struct odiff *od, struct input *in[2], struct diag *d)
{
	struct line la, lb;
	unsigned long long lna;
	struct jv a, b;
	int ra, rb;

	for (;;) {
		/* The lines compared are done with. */
		input_release(in[0], NULL);
		input_release(in[1], NULL);
		if ((ra = input_next(in[0], &la, d)) < 0)
			return d->status;
		/* la stays valid: the inputs own separate buffers. */
		if ((rb = input_next(in[1], &lb, d)) < 0)
			return d->status;
		if (ra == 0 || rb == 0)
			break;
		od->records[0]++;
		od->records[1]++;
		lna = la.lineno;
		if (scan_line(la.text, la.len, la.file, la.lineno, &a, d) != 0 ||
		    scan_line(lb.text, lb.len, lb.file, lb.lineno, &b, d) != 0)
			return d->status;
		compare_records(od, &a, &b, lna, lb.lineno);
	}
	/* The longer file's extra records have no partner. */
	while (ra > 0) {
		od->records[0]++;
		od->unmatched[0]++;
		od->rec_differ++;
		od->path.len = 0;
		report(od, la.lineno, 0, NULL, NULL, "B has no record at this "
		    "position");
		input_release(in[0], NULL);
		if ((ra = input_next(in[0], &la, d)) < 0)
			return d->status;
	}
	while (rb > 0) {
		od->records[1]++;
		od->unmatched[1]++;
		od->rec_differ++;
		od->path.len = 0;
		report(od, 0, lb.lineno, NULL, NULL, "A has no record at this "
		    "position");
		input_release(in[1], NULL);
		if ((rb = input_next(in[1], &lb, d)) < 0)
			return d->status;
	}
	return 0;
}

int
diff_outputs(const struct prefs *c, const struct dopts *o)
{
	struct odiff od;
	struct input *in[2];
	struct diag d = { 0 };
	cJSON *root;
	char tol[96];
	unsigned long long n;
	int rc, i, differ;

	if (c->nfiles != 2) {
		fprintf(stderr, "rladv: diff --outputs compares two files: "
		    "rladv diff --outputs A.jsonl B.jsonl\n");
		return EXIT_USAGE;
	}
	if (strcmp(c->files[0], "-") == 0 && strcmp(c->files[1], "-") == 0) {
		fprintf(stderr, "rladv: diff --outputs: only one of the two "
		    "files can be the standard input (-)\n");
		return EXIT_USAGE;
	}
	memset(&od, 0, sizeof(od));
	od.o = o;
	od.json = c->json;
	for (i = 0; i < 2; i++) {
		od.name[i] = strcmp(c->files[i], "-") == 0 ? "<stdin>" :
		    c->files[i];
		in[i] = input_open(&c->files[i], 1, c->max_line);
	}
	if (od.json)
		od.list = cJSON_CreateArray();
	if (o->key)
		rc = outputs_by_key(&od, in, &d);
	else
		rc = outputs_by_line(&od, in, &d);
	input_close(in[0]);
	input_close(in[1]);
	buf_free(&od.path);
	if (rc != 0) {
		cJSON_Delete(od.list);
		diag_print(&d);
		return rc;
	}
	differ = od.rec_differ > 0;
	shortest(tol, sizeof(tol), o->tol);
	/* --atol where given: "within --tol 1e-09 or --atol 1e-06". */
	if (o->atol > 0) {
		char at[32];

		shortest(at, sizeof(at), o->atol);
		snprintf(tol + strlen(tol), sizeof(tol) - strlen(tol),
		    " or --atol %s", at);
	}
	if (od.json) {
		root = cJSON_CreateObject();
		cJSON_AddBoolToObject(root, "equal", !differ);
		cJSON_AddNumberToObject(root, "tol", o->tol);
		cJSON_AddNumberToObject(root, "atol", o->atol);
		cJSON_AddNumberToObject(root, "records_a",
		    (double)od.records[0]);
		cJSON_AddNumberToObject(root, "records_b",
		    (double)od.records[1]);
		cJSON_AddNumberToObject(root, "matched", (double)od.matched);
		cJSON_AddNumberToObject(root, "only_a",
		    (double)od.unmatched[0]);
		cJSON_AddNumberToObject(root, "only_b",
		    (double)od.unmatched[1]);
		cJSON_AddNumberToObject(root, "records_differ",
		    (double)od.rec_differ);
		cJSON_AddNumberToObject(root, "values_differ",
		    (double)od.val_differ);
		cJSON_AddNumberToObject(root, "numbers_differ",
		    (double)od.num_differ);
		cJSON_AddNumberToObject(root, "max_abs_diff", od.max_abs);
		cJSON_AddNumberToObject(root, "max_rel_diff", od.max_rel);
		cJSON_AddItemToObject(root, "differences", od.list);
		(void)report_json_print(root);
	} else if (differ) {
		if (od.val_differ > od.shown)
			printf("... %llu more\n", od.val_differ - od.shown);
		n = od.records[0] > od.records[1] ? od.records[0] :
		    od.records[1];
		printf("%llu of %llu record%s differ%s: %llu number%s beyond "
		    "--tol %s", od.rec_differ, n, n == 1 ? "" : "s",
		    od.rec_differ == 1 ? "s" : "", od.num_differ,
		    od.num_differ == 1 ? "" : "s", tol);
		if (od.num_differ)
			printf(" (largest relative difference %.3g)",
			    od.max_rel);
		n = od.val_differ - od.num_differ;
		printf(", %llu other difference%s\n", n, n == 1 ? "" : "s");
	} else
		printf("%llu record%s equal within --tol %s\n", od.matched,
		    od.matched == 1 ? "" : "s", tol);
	/* run_cmd() checks that standard output took it. */
	return differ ? 1 : 0;
}
