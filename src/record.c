/*
 * record.c - JSONL lines into struct records: the member walk.
 *
 * The line is walked once: every top-level member is validated; the
 * members rladv reads are parsed as they pass (the log-probs array with
 * the fast numeric scanner, the mask into runs), the members it writes
 * have their spans noted, and everything else is only validated, since it
 * is passed through byte for byte.  A field named by a path (a.b[1].c),
 * read through --unwrap, or a column of a --columnar line is resolved
 * afterwards inside the member's value.  recfields.c then takes each
 * role's value from what the walk found.
 *
 * The names to look for are compiled once per reader into slots, and the
 * top-level names into heads found by a hash of their first bytes and
 * length (recname.c), so a member costs a table lookup and a compare or
 * two, whatever the number of aliases; a name the line before had at the
 * same place costs two compares.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldpath.h"
#include "jsonstr.h"
#include "mask.h"
#include "profile.h"
#include "recint.h"

const char *const record_out_names[OUT_NFIELDS] = {
	"advantage", "token_advantages", "loss_weight", "token_loss_weights",
	"rladv"
};

static struct fields def_fields;
static int def_init;

/* The default aliases of the mask, whose bits unused_mask holds. */
static const struct fields *
defaults(void)
{
	if (!def_init) {
		fields_default(&def_fields);
		def_init = 1;
	}
	return &def_fields;
}

int
record_err(struct rctx *c, int status, const char *fmt, ...)
{
	const char *guess;
	char msg[900];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* A framework's dump read without --from: say which. */
	if (c->rd->f->profile == NULL && c->rd->line != NULL &&
	    (guess = profile_guess(c->rd->line, c->rd->len)) != NULL &&
	    (n = strlen(msg)) < sizeof(msg) - 1)
		snprintf(msg + n, sizeof(msg) - n, "; these are the fields of "
		    "%s's dump: try --from %s", guess, guess);
	if (c->rd->ncol_line > 0)
		return diag_setl(c->d, status, c->rd->file, c->rd->lineno,
		    "record %zu of the columnar line: %s", c->k, msg);
	return diag_setl(c->d, status, c->rd->file, c->rd->lineno, "%s", msg);
}

static int
json_fail(struct rctx *c, const struct json_err *e)
{
	return record_err(c, EXIT_DATA, "invalid JSON at column %zu: %s",
	    (size_t)(e->at - c->rd->line) + 1, json_strerror(e->code));
}

/* ---- Compiling the fields into slots --------------------------------- */

static int
add_slot(struct record_reader *rd, const char *name, int role, int idx,
    struct diag *d)
{
	struct rslot *s;
	struct rhead *h;
	const char *why;
	int i, c;

	if (rd->nslot == REC_MAXSLOTS)
		return diag_set(d, EXIT_USAGE, "too many field names (at most "
		    "%d in all)", REC_MAXSLOTS);
	s = &rd->slot[rd->nslot];
	memset(s, 0, sizeof(*s));
	if ((why = fieldpath_parse(name, &s->path)) != NULL)
		return diag_set(d, EXIT_USAGE, "\"%s\" is not a field path: %s",
		    name, why);
	s->role = role;
	s->idx = idx;
	s->direct = fieldpath_plain(&s->path) && !rd->f->unwrap &&
	    !rd->f->columnar;
	/* Its head: the top-level member, shared by every slot under it. */
	for (i = 0; i < rd->nhead; i++)
		if (rd->head[i].len == s->path.step[0].len &&
		    memcmp(rd->head[i].name, s->path.step[0].name,
		    rd->head[i].len) == 0)
			break;
	if (i == rd->nhead) {
		h = &rd->head[rd->nhead++];
		h->name = s->path.step[0].name;
		h->len = s->path.step[0].len;
		h->slot = h->wslot = h->sslot = -1;
		rhead_words(h->name, h->len, 0, h->w);
		c = rhead_hash(h->w[0], h->len);
		h->next = rd->first[c];
		rd->first[c] = i + 1;
	}
	s->head = i;
	s->next = -1;
	rd->head[i].smask[rd->nslot / 64] |= (uint64_t)1 << rd->nslot % 64;
	rd->rmask[role][rd->nslot / 64] |= (uint64_t)1 << rd->nslot % 64;
	/* The first slot that reads the member itself parses it for its
	 * role, which validates it (the walk's); any other validates it
	 * first. */
	if (rd->head[i].wslot < 0 && s->direct && role < SR_WATCH_MASK)
		rd->head[i].wslot = rd->nslot;
	if (rd->head[i].sslot < 0 && s->direct && role == SR_STEP)
		rd->head[i].sslot = rd->nslot;
	/* Appended to the head's list, so slots keep their order. */
	if (rd->head[i].slot < 0)
		rd->head[i].slot = rd->nslot;
	else {
		for (c = rd->head[i].slot; rd->slot[c].next >= 0;
		    c = rd->slot[c].next)
			;
		rd->slot[c].next = rd->nslot;
	}
	rd->nslot++;
	return 0;
}

static int
add_role(struct record_reader *rd, int role, struct diag *d)
{
	const char *const *names;
	int n, i;

	names = fields_names(rd->f, role, &n);
	rd->rfirst[role] = rd->nslot;
	rd->rn[role] = n;
	for (i = 0; i < n; i++)
		if (add_slot(rd, names[i], role, i, d) != 0)
			return d->status;
	return 0;
}

/* A mask alias present where another field (or none) is the mask: the
 * warning for it needs its slot. */
static int
add_watches(struct record_reader *rd, struct diag *d)
{
	const struct fields *f = rd->f;
	const struct field_list *m = &f->list[FR_MASK],
	    *dm = &defaults()->list[FR_MASK];
	int i, j, used;

	rd->rfirst[SR_WATCH_MASK] = rd->nslot;
	if (!(f->named & FN(FR_MASK)) && f->spans == NULL)
		return 0;	/* the aliases are the mask's own slots */
	for (i = 0; i < dm->n; i++) {
		for (j = used = 0; j < m->n; j++)
			used |= strcmp(m->name[j], dm->name[i]) == 0;
		if (!used && add_slot(rd, dm->name[i], SR_WATCH_MASK, i,
		    d) != 0)
			return d->status;
	}
	rd->rn[SR_WATCH_MASK] = rd->nslot - rd->rfirst[SR_WATCH_MASK];
	return 0;
}

struct record_reader *
record_reader_new(const struct fields *f, struct diag *d)
{
	static const char *const steps[] = { "step", "global_step" };
	struct record_reader *rd = diag_calloc(1, sizeof(*rd));
	int r, i;

	rd->f = f;
	for (r = 0; r < FR_NROLES; r++) {
		if ((r == FR_STRATUM && !f->use_stratum) ||
		    (r == FR_BASELINE && !f->need_baseline)) {
			rd->rfirst[r] = rd->nslot;
			continue;
		}
		if (add_role(rd, r, d) != 0)
			goto fail;
	}
	if (add_watches(rd, d) != 0)
		goto fail;
	/* --from slime reads rollout_id, which slime 0.3.0 named
	 * group_id: a warning if a dump has that one instead. */
	rd->rfirst[SR_WATCH_ROLL] = rd->nslot;
	if (f->rollout != NULL && (f->optional & FN(FR_ROLLOUT)) &&
	    strcmp(f->rollout, SLIME_ROLL_030) != 0 &&
	    add_slot(rd, SLIME_ROLL_030, SR_WATCH_ROLL, 0, d) != 0)
		goto fail;
	rd->rn[SR_WATCH_ROLL] = rd->nslot - rd->rfirst[SR_WATCH_ROLL];
	rd->rfirst[SR_STEP] = rd->nslot;
	if (f->watch_step)
		for (i = 0; i < 2; i++)
			if (add_slot(rd, steps[i], SR_STEP, i, d) != 0)
				goto fail;
	rd->rn[SR_STEP] = rd->nslot - rd->rfirst[SR_STEP];
	rd->rfirst[SR_OUT] = rd->nslot;
	for (i = 0; i < OUT_NFIELDS; i++)
		if (add_slot(rd, f->out[i], SR_OUT, i, d) != 0)
			goto fail;
	rd->rn[SR_OUT] = OUT_NFIELDS;
	return rd;
fail:
	free(rd);
	return NULL;
}

void
record_reader_free(struct record_reader *rd)
{
	int i;

	if (rd == NULL)
		return;
	buf_free(&rd->runs);
	buf_free(&rd->elems);
	for (i = 0; i < REC_KCACHE; i++)
		buf_free(&rd->vc[i].b);
	free(rd);
}

/* ---- Values --------------------------------------------------------- */

/*
 * Clears n bytes at p, n a constant: memset() of more than 64 bytes
 * compiles to rep stos, whose start-up the stores after it wait on (perf
 * put ~40% of record_get()'s samples on the instruction after the one of
 * a record's 256 bytes); one of 64 bytes at most is a few 16-byte stores.
 */
static inline __attribute__((always_inline)) void
clear(void *p, size_t n)
{
	size_t i;

	for (i = 0; i + 64 <= n; i += 64)
		memset((char *)p + i, 0, 64);
	memset((char *)p + i, 0, n - i);
}

/*
 * Parses the value [p, end) of slot s as its role needs (the log-probs
 * counted by the fast numeric scanner, a mask into runs), or else only
 * validates it.  A value of the wrong shape is noted in v for the role's
 * message.  Returns the byte after the value, or NULL with the error set.
 * Inline in the walk, which parses four members of a record so (the
 * calls and their set-up were some 100 instructions a record).
 */
static inline __attribute__((always_inline)) const char *
parse_value(struct rctx *c, const struct rslot *s, struct rval *v,
    const char *p, const char *end)
{
	struct json_err e;
	const char *q = NULL;
	int esc;

	/* All but the mask's runs, which only mask_parse() sets (whole),
	 * and only a mask that parsed is read. */
	memset(v, 0, offsetof(struct rval, m));
	v->state = RV_FOUND;
	v->beg = p;
	if ((s->role == FR_LOGPROBS || s->role == FR_TOKENS) && p < end &&
	    *p == '[') {
		q = json_num_array(p, end, &v->count, &e);
		if (q == NULL) {
			v->bad = 1;
			v->why = e.code;
			v->bad_elem = v->count;
			v->bad_at = e.at;
		} else
			v->type = JSON_ARRAY;
	} else if (s->role == FR_MASK && p < end && *p == '[') {
		q = mask_parse(p, end, &c->rd->runs, &v->m);
		if (q != NULL) {
			v->type = JSON_ARRAY;
			v->count = v->m.count;
		} else {
			v->bad = 1;
			v->bad_elem = v->m.bad_elem;
			v->bad_at = v->m.bad_at;
		}
	} else if (p < end && (*p == '-' || (*p >= '0' && *p <= '9'))) {
		if ((q = json_number(p, end, &v->numflags, &e)) == NULL)
			goto bad;
		v->type = JSON_NUMBER;
	} else if (p < end && *p == '"') {
		if ((q = json_string(p, end, &esc, &e)) == NULL)
			goto bad;
		v->type = JSON_STRING;
		v->plain = !esc;
	}
	if (q == NULL) {
		q = json_value(p, end, &v->type, &e);
		if (q == NULL) {
			/* The value is not even JSON: say whose it is. */
			if (v->bad && v->why == JSON_E_NANINF)
				recfields_value_error(c, s, v);
			else
				goto bad;
			return NULL;
		}
		/* Token ids need only be counted, whatever they are. */
		if (s->role == FR_TOKENS && v->type == JSON_ARRAY) {
			v->bad = 0;
			v->count = fieldpath_elements(p, q, NULL, NULL);
		}
	}
	v->end = q;
	return q;
bad:
	record_err(c, EXIT_DATA, "field \"%s\": invalid JSON at column %zu: %s",
	    s->path.text, (size_t)(e.at - c->rd->line) + 1,
	    json_strerror(e.code));
	return NULL;
}

/*
 * A slot whose field is inside the value [b, e) of its head (a column's
 * element, or the member's value): unwrapped, resolved by its path, then
 * parsed for its role.
 */
static int
resolve(struct rctx *c, const struct rslot *s, struct rval *v,
    const char *b, const char *e, enum json_type t)
{
	enum fpath_miss m;
	int at = 0, arrays;

	if (c->rd->f->unwrap) {
		arrays = s->role == FR_LOGPROBS || s->role == FR_MASK ||
		    s->role == FR_TOKENS || s->role == FR_SPANS;
		fieldpath_unwrap(&b, &e, &t, arrays);
	}
	if ((m = fieldpath_resolve(&s->path, 1, &b, &e, &t, &at)) !=
	    FP_FOUND) {
		memset(v, 0, sizeof(*v));
		v->state = RV_MISS;
		v->miss = m;
		v->miss_at = at;
		v->type = t;
		return 0;
	}
	return parse_value(c, s, v, b, e) == NULL ? c->d->status : 0;
}

/* ---- The member walk ------------------------------------------------ */

/*
 * --columnar: a member's value must be an array as long as the others.
 * The names come from the data, so the message escapes them (a "\n" in
 * a name must not start another line of stderr).
 */
static int
column(struct rctx *c, const char *key, size_t keylen, const char *p,
    const char *q, enum json_type t)
{
	struct record_reader *rd = c->rd;
	struct buf a = { 0 }, b = { 0 };
	size_t n;
	int rc;

	n = t == JSON_ARRAY ? fieldpath_elements(p, q, NULL, NULL) : 0;
	if (t == JSON_ARRAY && rd->ncol_line == 0 && rd->col0 == NULL) {
		rd->ncol_line = n;
		rd->col0 = key;
		rd->col0len = keylen;
		return 0;
	}
	if (t == JSON_ARRAY && n == rd->ncol_line)
		return 0;
	jsonstr_text(&a, key, keylen);
	if (t != JSON_ARRAY)
		rc = record_err(c, EXIT_DATA, "--columnar: field \"%.*s\" is "
		    "%s, expected a column (an array as long as the others)",
		    (int)a.len, a.len ? a.p : "", json_type_name(t));
	else {
		jsonstr_text(&b, rd->col0, rd->col0len);
		rc = record_err(c, EXIT_DATA, "--columnar: column \"%.*s\" "
		    "has %zu element%s, but \"%.*s\" has %zu", (int)a.len,
		    a.len ? a.p : "", n, n == 1 ? "" : "s", (int)b.len,
		    b.len ? b.p : "", rd->ncol_line);
	}
	buf_free(&a);
	buf_free(&b);
	return rc;
}

/* json_value() of a member rladv does not read, a string or a number
 * without its set-up (most members are one or the other). */
static const char *
scalar(const char *p, const char *end, enum json_type *t,
    struct json_err *e)
{
	int x;

	if (p < end && *p == '"') {
		*t = JSON_STRING;
		return json_string(p, end, &x, e);
	}
	if (p < end && (*p == '-' || (*p >= '0' && *p <= '9'))) {
		*t = JSON_NUMBER;
		return json_number(p, end, &x, e);
	}
	return json_value(p, end, t, e);
}

/*
 * scalar() of member i, which rladv does not read.  A rollout log repeats
 * a prompt's fields (its text, its metadata) in each of its responses:
 * an object, array or long string with the bytes that member i had on
 * the line before is valid, and a compare is a fraction of a scan.  It
 * stops trying for a member whose value changed 16 lines in a row.
 */
static const char *
unread(struct rctx *c, int i, const char *p, enum json_type *t,
    struct json_err *e)
{
	struct rvcache *v = i < REC_KCACHE ? &c->rd->vc[i] : NULL;
	const char *q;
	size_t n;

	if (v == NULL || v->misses > 16 || p >= c->end || (*p != '{' &&
	    *p != '[' && *p != '"'))
		return scalar(p, c->end, t, e);
	n = v->b.len;
	if (n > 0 && (size_t)(c->end - p) >= n && memcmp(p, v->b.p, n) == 0) {
		v->misses = 0;
		*t = v->type;
		return p + n;
	}
	if ((q = scalar(p, c->end, t, e)) == NULL)
		return NULL;
	v->misses++;
	v->b.len = 0;
	if ((n = q - p) >= REC_VCMIN && n <= REC_VCMAX) {
		buf_add(&v->b, p, n);
		v->type = *t;
	}
	return q;
}

/*
 * One member, p at its value: parsed into its slots when rladv reads
 * it, only validated otherwise.  Returns the byte after the value, or
 * NULL with the error set.
 */
static const char *
member(struct rctx *c, int hi, const char *key, size_t keylen,
    const char *p, size_t prev, int mi)
{
	struct record_reader *rd = c->rd;
	struct rhead *h;
	struct json_err e;
	enum json_type t = JSON_NONE;
	const char *q = NULL;
	int s, i;

	if (hi < 0) {
		if ((q = unread(c, mi, p, &t, &e)) == NULL)
			json_fail(c, &e);
		else if (rd->f->columnar && column(c, key, keylen, p, q,
		    t) != 0)
			return NULL;
		return q;
	}
	h = &rd->head[hi];
	if (h->seen == rd->gen) {
		record_err(c, EXIT_DATA, "field \"%.*s\" appears twice",
		    (int)keylen, key);
		return NULL;
	}
	h->seen = rd->gen;
	for (i = 0; i < REC_SWORDS; i++)
		rd->lmask[i] |= h->smask[i];
	h->prev = prev;
	h->beg = p;
	if ((s = h->wslot) >= 0) {
		if ((q = parse_value(c, &rd->slot[s], &rd->val[s], p,
		    c->end)) == NULL)
			return NULL;
		rd->pmask[(unsigned)s / 64] |= (uint64_t)1 << (unsigned)s % 64;
		t = rd->val[s].type;
	} else if ((q = scalar(p, c->end, &t, &e)) == NULL) {
		json_fail(c, &e);
		return NULL;
	}
	/* A step is its value as it is (the rest of its slot stays 0). */
	if ((s = h->sslot) >= 0) {
		rd->val[s].state = RV_FOUND;
		rd->val[s].beg = p;
		rd->val[s].end = q;
		rd->val[s].type = t;
		rd->pmask[(unsigned)s / 64] |= (uint64_t)1 << (unsigned)s % 64;
	}
	h->end = q;
	h->type = t;
	if (rd->f->columnar && column(c, key, keylen, p, q, t) != 0)
		return NULL;
	return q;
}

/* The walk of one object: every member validated, the layout noted. */
static int
walk(struct rctx *c, struct rlayout *lay)
{
	struct json_err e;
	const char *p, *key;
	char kbuf[128];
	size_t keylen, prev;
	int hi, first = 1;

	p = json_ws(c->rd->line, c->end);
	if (p >= c->end || *p != '{')
		return recfields_not_object(c, p);
	prev = p + 1 - c->rd->line;	/* the first member follows '{' */
	p = json_ws(p + 1, c->end);
	if (p < c->end && *p == '}') {
		lay->close = p - c->rd->line;
		p++;
		goto after;
	}
	for (;;) {
		if (p >= c->end || *p != '"') {
			e.at = p;
			e.code = JSON_E_KEY;
			return json_fail(c, &e);
		}
		if ((p = recname_read(c, lay->nmembers, p, kbuf, &key,
		    &keylen, &hi, &e)) == NULL)
			return json_fail(c, &e);
		if (first)
			lay->colon_space = p < c->end && *p == ' ';
		p = json_ws(p, c->end);
		if ((p = member(c, hi, key, keylen, p, prev,
		    lay->nmembers)) == NULL)
			return c->d->status;
		lay->nmembers++;
		prev = p - c->rd->line;
		/* ", " and the next name, as nearly every line has them
		 * (the first comma says how the line spaces them). */
		if (!first && c->end - p > 2 && p[0] == ',' &&
		    p[1] == ' ' && p[2] == '"') {
			p += 2;
			continue;
		}
		p = json_ws(p, c->end);
		if (p < c->end && *p == ',') {
			if (first)
				lay->comma_space = p + 1 < c->end &&
				    p[1] == ' ';
			first = 0;
			p = json_ws(p + 1, c->end);
			continue;
		}
		if (p < c->end && *p == '}') {
			lay->close = p - c->rd->line;
			p++;
			break;
		}
		e.at = p;
		e.code = p < c->end ? JSON_E_OBJECT_SEP : JSON_E_END;
		return json_fail(c, &e);
	}
after:
	p = json_ws(p, c->end);
	if (p < c->end) {
		e.at = p;
		e.code = JSON_E_TRAILING;
		return json_fail(c, &e);
	}
	return 0;
}

/* --columnar: each head's elements as offsets (begin, end) in elems. */
static int
index_elem(void *arg, size_t i, const char *b, const char *e)
{
	struct record_reader *rd = arg;
	size_t o[2];

	(void)i;
	o[0] = b - rd->line;
	o[1] = e - rd->line;
	buf_add(&rd->elems, o, sizeof(o));
	return 0;
}

long
record_line(struct record_reader *rd, const char *line, size_t len,
    const char *file, unsigned long long lineno, struct diag *d)
{
	struct rctx c;
	int i;

	rd->line = line;
	rd->len = len;
	/* A head was seen on this line when its gen is the line's: nothing
	 * to clear per line, but once in 2^32 lines. */
	if (++rd->gen == 0) {
		for (i = 0; i < rd->nhead; i++)
			rd->head[i].seen = 0;
		rd->gen = 1;
	}
	/* The slots the last line found are absent until this one has
	 * them: only those need clearing. */
	for (i = 0; i < REC_SWORDS; i++) {
		uint64_t m = rd->lmask[i];

		for (; m != 0; m &= m - 1)
			rd->val[64 * i + __builtin_ctzll(m)].state = RV_NONE;
		rd->lmask[i] = rd->pmask[i] = 0;
	}
	rd->file = file;
	rd->lineno = lineno;
	rd->ncol_line = 0;
	rd->col0 = NULL;
	rd->runs.len = 0;
	rd->elems.len = 0;
	memset(&rd->lay, 0, sizeof(rd->lay));
	memset(&c, 0, sizeof(c));
	c.rd = rd;
	c.end = line + len;
	c.d = d;
	if (walk(&c, &rd->lay) != 0)
		return -1;
	rd->walk_runs = rd->runs.len;
	if (!rd->f->columnar)
		return 1;
	if (rd->col0 == NULL || rd->ncol_line == 0) {
		rd->ncol_line = 0;
		diag_setl(d, EXIT_DATA, file, lineno, "--columnar: the line "
		    "holds no records (no column, or empty columns)");
		return -1;
	}
	for (i = 0; i < rd->nhead; i++) {
		rd->head[i].eoff = rd->elems.len / (2 * sizeof(size_t));
		if (rd->head[i].seen == rd->gen)
			fieldpath_elements(rd->head[i].beg, rd->head[i].end,
			    index_elem, rd);
	}
	return (long)rd->ncol_line;
}

/* Slot s's value for record k: resolved where the walk could not. */
static int
value(struct rctx *c, int s)
{
	struct record_reader *rd = c->rd;
	const struct rslot *sl = &rd->slot[s];
	const struct rhead *h = &rd->head[sl->head];
	const size_t *o;
	const char *b, *e;
	enum json_type t;
	struct json_err je;

	b = h->beg;
	e = h->end;
	t = h->type;
	if (rd->f->columnar) {
		o = (const size_t *)(const void *)rd->elems.p +
		    2 * (h->eoff + c->k);
		b = rd->line + o[0];
		e = rd->line + o[1];
		json_value(b, e, &t, &je);
	}
	/* A step is a member's value as it is: the walk validated it. */
	if (sl->role >= SR_WATCH_MASK && (sl->role != SR_STEP || sl->direct)) {
		memset(&rd->val[s], 0, sizeof(rd->val[s]));
		rd->val[s].state = RV_FOUND;
		rd->val[s].beg = b;
		rd->val[s].end = e;
		rd->val[s].type = t;
		return 0;
	}
	return resolve(c, sl, &rd->val[s], b, e, t);
}

/*
 * Every slot's value for record k: those of the heads the line holds
 * that the walk did not parse, in slot order (the first error is the
 * same whatever the order of the members); every other slot is RV_NONE
 * since record_line().
 */
static int
values(struct rctx *c)
{
	struct record_reader *rd = c->rd;
	uint64_t m;
	int i;

	rd->runs.len = rd->walk_runs;
	for (i = 0; i < REC_SWORDS; i++)
		for (m = rd->lmask[i] & ~rd->pmask[i]; m != 0; m &= m - 1)
			if (value(c, 64 * i + __builtin_ctzll(m)) != 0)
				return c->d->status;
	return 0;
}

int
record_get(struct record_reader *rd, size_t k, struct record *r,
    struct buf *keys, struct buf *runs, struct diag *d)
{
	struct rctx c;
	uint64_t m;
	int i;

	memset(&c, 0, sizeof(c));
	c.rd = rd;
	c.end = rd->line + rd->len;
	c.d = d;
	c.k = k;
	c.kbase = keys->len;
	clear(r, offsetof(struct record, out));
	r->close = rd->lay.close;
	r->nmembers = rd->lay.nmembers;
	r->comma_space = rd->lay.comma_space;
	r->colon_space = rd->lay.colon_space;
	r->col = k;
	r->ncol = rd->ncol_line;
	r->traj_last = -1;
	memset(r->alias, -1, sizeof(r->alias));
	if (values(&c) != 0 || recfields_take(&c, r, keys, runs) != 0)
		return d->status;
	for (i = 0; i < REC_SWORDS; i++)	/* rladv's fields there */
		for (m = rd->lmask[i] & rd->rmask[SR_OUT][i]; m; m &= m - 1) {
			const struct rslot *sl = &rd->slot[64 * i +
			    __builtin_ctzll(m)];
			const struct rhead *h = &rd->head[sl->head];

			r->outs |= 1u << sl->idx;
			r->out[sl->idx] = (struct span){
			    .beg = h->beg - rd->line, .end = h->end - rd->line,
			    .prev = h->prev };
		}
	return 0;
}

int
record_read(struct record_reader *rd, const char *line, size_t len,
    const char *file, unsigned long long lineno, struct record *r,
    struct buf *keys, struct buf *runs, struct diag *d)
{
	if (record_line(rd, line, len, file, lineno, d) < 0)
		return d->status;
	return record_get(rd, 0, r, keys, runs, d);
}

int
record_parse(const char *line, size_t len, const struct fields *f,
    struct record *r, struct buf *keys, struct buf *runs,
    const char *file, unsigned long long lineno, struct diag *d)
{
	struct record_reader *rd;
	int rc;

	if ((rd = record_reader_new(f, d)) == NULL)
		return d->status;
	rc = record_read(rd, line, len, file, lineno, r, keys, runs, d);
	record_reader_free(rd);
	return rc;
}
