/*
 * diff_outputs.c - rladv diff --outputs A B: two output files compared
 * record by record (by position, or by the --key fields), every number
 * within --tol; exit 0 when equal, 1 when not, as diff(1).  Records are
 * small next to the files, so each is parsed with cJSON and its tree
 * compared member by member.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "diff_outputs.h"
#include "input.h"
#include "json.h"
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

static void
value_text(const cJSON *v, char *buf, size_t n)
{
	char *s;

	if (v == NULL) {
		snprintf(buf, n, "(absent)");
		return;
	}
	if (cJSON_IsNumber(v)) {
		shortest(buf, n, v->valuedouble);
		return;
	}
	if (cJSON_IsArray(v)) {
		snprintf(buf, n, "array of %d", cJSON_GetArraySize(v));
		return;
	}
	if (cJSON_IsObject(v)) {
		snprintf(buf, n, "object");
		return;
	}
	s = cJSON_PrintUnformatted(v);
	snprintf(buf, n, "%.60s%s", s, strlen(s) > 60 ? "..." : "");
	free(s);
}

/* One difference: counted, shown while under --top. */
static void
report(struct odiff *od, unsigned long long la, unsigned long long lb,
    const cJSON *a, const cJSON *b, const char *what)
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
		cJSON_AddItemToObject(e, "a", a ? cJSON_Duplicate(a, 1) :
		    cJSON_CreateNull());
		cJSON_AddItemToObject(e, "b", b ? cJSON_Duplicate(b, 1) :
		    cJSON_CreateNull());
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

static void
path_push(struct buf *p, const char *name, long idx, size_t *mark)
{
	char tmp[32];

	*mark = p->len;
	if (name != NULL) {
		if (p->len)
			buf_add(p, ".", 1);
		buf_add(p, name, strlen(name));
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

/*
 * Compares two values; returns the differences found.  Numbers within
 * max(--atol, --tol * max(|a|, |b|)) are equal: relative, as floats are
 * compared, with an absolute floor for values near zero.
 */
static unsigned long long
cmp_value(struct odiff *od, const cJSON *a, const cJSON *b,
    unsigned long long la, unsigned long long lb)
{
	unsigned long long n = 0;
	const cJSON *e, *f;
	double x, y, ad, rel;
	size_t mark;
	char what[96];
	int i, na, nb;

	if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) {
		x = a->valuedouble;
		y = b->valuedouble;
		if (x == y)
			return 0;
		ad = fabs(x - y);
		rel = ad / fmax(fabs(x), fabs(y));
		if (ad <= fmax(od->o->atol, od->o->tol * fmax(fabs(x),
		    fabs(y))))
			return 0;
		od->num_differ++;
		if (ad > od->max_abs)
			od->max_abs = ad;
		if (rel > od->max_rel)
			od->max_rel = rel;
		snprintf(what, sizeof(what), "relative difference %.3g", rel);
		report(od, la, lb, a, b, what);
		return 1;
	}
	if ((a->type & 0xff) != (b->type & 0xff)) {
		report(od, la, lb, a, b, "different types");
		return 1;
	}
	if (cJSON_IsString(a)) {
		if (strcmp(a->valuestring, b->valuestring) == 0)
			return 0;
		report(od, la, lb, a, b, "different strings");
		return 1;
	}
	if (cJSON_IsArray(a)) {
		na = cJSON_GetArraySize(a);
		nb = cJSON_GetArraySize(b);
		if (na != nb) {
			report(od, la, lb, a, b, "different lengths");
			return 1;
		}
		for (i = 0, e = a->child, f = b->child; e && f;
		    i++, e = e->next, f = f->next) {
			path_push(&od->path, NULL, i, &mark);
			n += cmp_value(od, e, f, la, lb);
			path_pop(&od->path, mark);
		}
		return n;
	}
	if (cJSON_IsObject(a)) {
		/* By name, so that a trainer's member order does not
		 * matter; members only one side has are differences. */
		for (e = a->child; e; e = e->next) {
			path_push(&od->path, e->string, 0, &mark);
			f = cJSON_GetObjectItemCaseSensitive(b, e->string);
			if (f == NULL) {
				report(od, la, lb, e, NULL, "only in A");
				n++;
			} else
				n += cmp_value(od, e, f, la, lb);
			path_pop(&od->path, mark);
		}
		for (f = b->child; f; f = f->next)
			if (cJSON_GetObjectItemCaseSensitive(a, f->string) ==
			    NULL) {
				path_push(&od->path, f->string, 0, &mark);
				report(od, la, lb, NULL, f, "only in B");
				path_pop(&od->path, mark);
				n++;
			}
		return n;
	}
	return 0;	/* true, false, null: equal when the types are */
}

static cJSON *
parse_line(const struct line *ln, struct diag *d)
{
	cJSON *v;

	v = cJSON_ParseWithLength(ln->text, ln->len);
	if (v == NULL)
		diag_setl(d, EXIT_DATA, ln->file, ln->lineno, "invalid JSON "
		    "(rladv diff --outputs compares JSON lines)");
	return v;
}

static void
compare_records(struct odiff *od, cJSON *a, cJSON *b,
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
	cJSON *a, *b;
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
		if ((a = parse_line(&ln, d)) == NULL) {
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
			cJSON_Delete(a);
			continue;
		}
		row = keymap_val(&t, k);
		if (row->used_by) {
			rc = dup_key(d, &ln, &key, row->used_by);
			cJSON_Delete(a);
			break;
		}
		row->used_by = ln.lineno;
		b = cJSON_ParseWithLength(arena.p + row->off, row->len);
		if (b == NULL) {
			rc = diag_setl(d, EXIT_DATA, od->name[1], row->line,
			    "invalid JSON (rladv diff --outputs compares JSON "
			    "lines)");
			cJSON_Delete(a);
			break;
		}
		compare_records(od, a, b, ln.lineno, row->line);
		cJSON_Delete(a);
		cJSON_Delete(b);
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
		if ((b = cJSON_ParseWithLength(arena.p + row->off,
		    row->len)) == NULL) {
			rc = diag_setl(d, EXIT_DATA, od->name[1], row->line,
			    "invalid JSON (rladv diff --outputs compares "
			    "JSON lines)");
			break;
		}
		lab = strata_label_of(&t, k);
		snprintf(what, sizeof(what), "no record with key \"%.200s\" "
		    "in A", lab);
		free(lab);
		report(od, 0, row->line, NULL, NULL, what);
		cJSON_Delete(b);
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
	cJSON *a, *b;
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
		if ((a = parse_line(&la, d)) == NULL)
			return d->status;
		if ((b = parse_line(&lb, d)) == NULL) {
			cJSON_Delete(a);
			return d->status;
		}
		compare_records(od, a, b, lna, lb.lineno);
		cJSON_Delete(a);
		cJSON_Delete(b);
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
	char tol[64];
	int rc, i, differ;

	if (c->nfiles != 2) {
		fprintf(stderr, "rladv: diff --outputs compares two files: "
		    "rladv diff --outputs A.jsonl B.jsonl\n");
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
		printf("%llu of %llu records differ: %llu numbers beyond --tol "
		    "%s", od.rec_differ, od.records[0] > od.records[1] ?
		    od.records[0] : od.records[1], od.num_differ, tol);
		if (od.num_differ)
			printf(" (largest relative difference %.3g)",
			    od.max_rel);
		printf(", %llu other differences\n", od.val_differ -
		    od.num_differ);
	} else
		printf("%llu records equal within --tol %s\n", od.matched,
		    tol);
	/* run_cmd() checks that standard output took it. */
	return differ ? 1 : 0;
}
