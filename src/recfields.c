/*
 * recfields.c - each role's value, from what the member walk found
 * (record.c): the group key, the reward (a number, a boolean, an array
 * reduced, several fields weighted, or null), the response length and its
 * trained tokens (log-probs, a mask, spans, token ids, a length, a prompt
 * offset, a sample mask), the stratum, the batch key, the trajectory.
 *
 * A field an option named must be there; an alias is only tried.  The
 * message for a field that is not there lists the names tried and the
 * fields the record has, so that the fix is on the screen.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldpath.h"
#include "profile.h"
#include "recint.h"

#define SLOT(c, role, i)	((c)->rd->rfirst[role] + (i))
#define NAMED(c, role)		(((c)->rd->f->named & FN(role)) != 0)

int
recfields_type_err(struct rctx *c, const struct rslot *s, const struct rval *v,
    const char *want)
{
	const char *b = v->beg, *e = v->end;
	enum json_type t = v->type;

	/* [x] where x was wanted: NeMo-RL wraps every value so. */
	if (!c->rd->f->unwrap && fieldpath_unwrap(&b, &e, &t, 0))
		return record_err(c, EXIT_DATA, "field \"%s\" is an array of "
		    "one element, expected %s (give --unwrap to read [x] as "
		    "x)", s->path.text, want);
	return record_err(c, EXIT_DATA, "field \"%s\" is %s, expected %s",
	    s->path.text, json_type_name(v->type), want);
}

/* A short quote of the bytes at p, up to the element's end. */
static void
quote_elem(const char *p, const char *end, char *out, size_t cap)
{
	size_t n = 0;

	while (p < end && n + 4 < cap && *p != ',' && *p != ']' && *p != '}') {
		out[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
		p++;
	}
	if (p < end && *p != ',' && *p != ']' && *p != '}') {
		out[n++] = '.';
		out[n++] = '.';
	}
	out[n] = '\0';
}

int
recfields_value_error(struct rctx *c, const struct rslot *s,
    const struct rval *v)
{
	char q[40];

	quote_elem(v->bad_at, c->end, q, sizeof(q));
	if (s->role == FR_MASK || s->role == FR_SAMPLE_MASK ||
	    s->role == FR_REMOVE)
		return record_err(c, EXIT_DATA, "field \"%s\": element %zu is "
		    "%s, expected 0 or 1 (or true/false)", s->path.text,
		    v->bad_elem, q);
	return record_err(c, EXIT_DATA, "field \"%s\": element %zu (%s) is %s",
	    s->path.text, v->bad_elem, q, v->why == JSON_E_NONFINITE ?
	    "not a finite number" : v->why == JSON_E_NANINF ? "NaN or "
	    "Infinity, expected a finite number" : "not a number");
}

int
recfields_not_object(struct rctx *c, const char *p)
{
	struct json_err e;
	enum json_type t;
	const char *q;

	/* Windows editors and some exporters write one; it is no JSON. */
	if (p == c->rd->line && c->end - p >= 3 && memcmp(p, "\xef\xbb\xbf",
	    3) == 0)
		return record_err(c, EXIT_DATA, "the line starts with a UTF-8 "
		    "byte-order mark (U+FEFF), which JSON does not allow; "
		    "remove it");
	if (p < c->end && (*p == '[' || *p == '"' || *p == '-' ||
	    (*p >= '0' && *p <= '9') || *p == 't' || *p == 'f' ||
	    *p == 'n')) {
		q = json_value(p, c->end, &t, &e);
		if (q != NULL && json_ws(q, c->end) == c->end)
			return record_err(c, EXIT_DATA, "the line is %s, "
			    "expected a JSON object", json_type_name(t));
	}
	return record_err(c, EXIT_DATA, "invalid JSON: expected an object");
}

/* ---- Which field, and the message when there is none ---------------- */

/* "a", "b", ... : the record's top-level names, escaped, cut to fit. */
static void
members(struct rctx *c, char *out, size_t size)
{
	const char *p = json_ws(c->rd->line, c->end), *kb;
	struct json_err e;
	enum json_type t;
	char q[80], name[64];
	size_t o = 0;
	ssize_t k;
	int esc, n = 0;

	out[0] = '\0';
	for (p = json_ws(p + 1, c->end); p < c->end && *p == '"';) {
		kb = p;
		if ((p = json_string(p, c->end, &esc, &e)) == NULL)
			break;
		/* The name as the record means it, then quoted. */
		k = json_unescape(kb, p - kb, name, sizeof(name));
		if (k < 0)
			fieldpath_quote(kb + 1, p - kb - 2, q, sizeof(q));
		else
			fieldpath_quote(name, (size_t)k, q, sizeof(q));
		if (o + strlen(q) + 8 >= size) {
			snprintf(out + o, size - o, "%s...", n ? ", " : "");
			return;
		}
		o += snprintf(out + o, size - o, "%s%s", n++ ? ", " : "", q);
		p = json_ws(json_ws(p, c->end) + 1, c->end);
		if ((p = json_value(p, c->end, &t, &e)) == NULL)
			break;
		p = json_ws(p, c->end);
		if (p < c->end && *p == ',')
			p = json_ws(p + 1, c->end);
	}
	if (n == 0)
		snprintf(out, size, "no fields");
}

/* Why a path found nothing, in words, into buf. */
static void
miss_why(const struct rslot *s, const struct rval *v, char *buf,
    size_t size)
{
	char pre[200];
	const struct fstep *st = &s->path.step[v->miss_at];

	fieldpath_prefix(&s->path, v->miss_at, pre, sizeof(pre));
	switch (v->miss) {
	case FP_NOT_OBJECT:
		snprintf(buf, size, "\"%s\" is %s, not an object", pre,
		    json_type_name(v->type));
		break;
	case FP_NOT_ARRAY:
		snprintf(buf, size, "\"%s\" is %s, not an array", pre,
		    json_type_name(v->type));
		break;
	default:
		if (st->name == NULL)
			snprintf(buf, size, "\"%s\" has no element %zu", pre,
			    st->index);
		else
			snprintf(buf, size, "\"%s\" has no member \"%.*s\"",
			    pre, (int)st->len, st->name);
	}
}

/*
 * The error for a role whose field is not there: the named field (part
 * i), or every alias tried; the fields the record has; a profile's hint.
 */
int
recfields_missing(struct rctx *c, int role, int i, const char *note)
{
	const struct record_reader *rd = c->rd;
	const struct rslot *s;
	const struct rval *v;
	const char *hint;
	char why[300], has[400], tried[400], more[200];
	size_t o = 0;
	int k;

	members(c, has, sizeof(has));
	more[0] = '\0';
	hint = rd->f->profile ? profile_hint(rd->f->profile, role) : NULL;
	if (hint != NULL)
		snprintf(more, sizeof(more), "; %s", hint);
	if (rd->rn[role] == 0)
		return record_err(c, EXIT_DATA, "no %s field (the record has "
		    "%s; name it with %s%s)%s", fields_role(role), has,
		    fields_option(role), note, more);
	if (NAMED(c, role) || role >= FR_NLISTED) {
		s = &rd->slot[SLOT(c, role, i)];
		v = &rd->val[SLOT(c, role, i)];
		if (v->state == RV_MISS && v->miss == FP_TWICE)
			return record_err(c, EXIT_DATA, "field \"%s\": a "
			    "member appears twice on its way", s->path.text);
		if (v->state == RV_MISS) {
			miss_why(s, v, why, sizeof(why));
			return record_err(c, EXIT_DATA, "field \"%s\" is "
			    "missing (%s%s)%s", s->path.text, why, note, more);
		}
		return record_err(c, EXIT_DATA, "field \"%s\" is missing (the "
		    "%s, %s; the record has %s%s)%s", s->path.text,
		    fields_role(role), fields_option(role), has, note, more);
	}
	tried[0] = '\0';
	for (k = 0; k < rd->rn[role] && o + 40 < sizeof(tried); k++)
		o += snprintf(tried + o, sizeof(tried) - o, "%s\"%s\"",
		    k ? ", " : "", rd->slot[SLOT(c, role, k)].path.text);
	return record_err(c, EXIT_DATA, "field \"%s\" is missing (tried %s; "
	    "the record has %s; name it with %s%s)%s",
	    rd->slot[SLOT(c, role, 0)].path.text, tried, has,
	    fields_option(role), note, more);
}

/* A slot that must be there when named (a role with one name), unless
 * the profile that named it made it optional. */
int
recfields_needed(struct rctx *c, int role, int *s)
{
	*s = recfields_pick(c, role, 0, 0);
	if (*s < 0 && c->rd->rn[role] > 0 &&
	    !(c->rd->f->optional & FN(role)))
		return recfields_missing(c, role, 0, "");
	return 0;
}

/* ---- Keys ------------------------------------------------------------ */

enum keykind { K_GROUP, K_STRATUM, K_SCALAR, K_ANY };

/*
 * A number's canonical text for a stratum: by value, so that 2 and 2.0
 * are one stratum; integers as they are written (ids past 2^53 stay
 * apart), others in the shortest form that reads back.
 */
static void
number_key(struct buf *keys, const struct rval *v, int *frac)
{
	size_t n = v->end - v->beg;
	char t[40];
	double x;
	int k, d;

	buf_add(keys, "n", 1);
	if (!(v->numflags & JSON_NUM_FRAC)) {
		if (n == 2 && memcmp(v->beg, "-0", 2) == 0)
			buf_add(keys, "0", 1);
		else
			buf_add(keys, v->beg, n);
		return;
	}
	x = json_strtod(v->beg, n);
	if (x == floor(x) && fabs(x) < 1e15) {
		k = snprintf(t, sizeof(t), "%.0f", x == 0 ? 0 : x);
	} else {
		*frac = 1;
		for (d = 15; d < 17; d++) {
			snprintf(t, sizeof(t), "%.*g", d, x);
			if (strtod(t, NULL) == x)
				break;
		}
		k = snprintf(t, sizeof(t), "%.*g", d, x);
	}
	buf_add(keys, t, (size_t)k);
}

/*
 * Copies n bytes: those of a short key (8 to 16, a prompt id) by two
 * loads and two stores that may overlap, where a call of memcpy() was
 * most of the cost of the group's key at every record.
 */
static inline void
copy_short(char *d, const char *s, size_t n)
{
	uint64_t a, b;

	if (n >= 8 && n <= 16) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n > 0)
		memcpy(d, s, n);
}

/* Appends the canonical key of slot s's value for kind (inline: the
 * group's, at every record). */
static inline __attribute__((always_inline)) int
key_of(struct rctx *c, int s, struct buf *keys, enum keykind kind,
    int *frac)
{
	const struct rslot *sl = &c->rd->slot[s];
	const struct rval *v = &c->rd->val[s];
	const struct fields *f = c->rd->f;
	size_t n = v->end - v->beg;
	char lab[64], *d;
	int k;

	switch (v->type) {
	case JSON_STRING:
		if (!v->plain)
			break;
		/* Its text as it is: no escape to decode. */
		d = buf_reserve(keys, n - 1);
		d[0] = 's';
		copy_short(d + 1, v->beg + 1, n - 2);
		keys->len += n - 1;
		return 0;
	case JSON_NUMBER:
		if (kind == K_GROUP && (v->numflags & JSON_NUM_FRAC))
			return record_err(c, EXIT_DATA, "field \"%s\" is %.*s, "
			    "expected an integer or a string", sl->path.text,
			    (int)n, v->beg);
		if (kind != K_STRATUM)
			break;
		/* A stratum is a count (stats averages it): finite. */
		if ((v->numflags & JSON_NUM_BIG) &&
		    !isfinite(json_strtod(v->beg, n)))
			return record_err(c, EXIT_DATA, "field \"%s\" is %.*s, "
			    "not a finite number", sl->path.text, (int)n,
			    v->beg);
		/* The capped tail is one stratum, "c>=CAP". */
		if (f->has_cap && json_strtod(v->beg, n) >= f->cap) {
			k = snprintf(lab, sizeof(lab), "c>=%.17g", f->cap);
			buf_add(keys, lab, k);
			return 0;
		}
		number_key(keys, v, frac);
		return 0;
	case JSON_ARRAY:
		if (kind == K_STRATUM) {
			/* "tool_calls": [...] counts its elements. */
			k = snprintf(lab, sizeof(lab), "n%zu",
			    fieldpath_elements(v->beg, v->end, NULL, NULL));
			buf_add(keys, lab, k);
			return 0;
		}
		/* FALLTHROUGH */
	case JSON_TRUE:
	case JSON_FALSE:
		if (kind != K_GROUP)
			break;
		/* FALLTHROUGH */
	default:
		if (kind == K_ANY)
			break;
		return recfields_type_err(c, sl, v, kind == K_GROUP ?
		    "a string or an integer" : kind == K_STRATUM ?
		    "an integer, a string, a boolean or an array (counted)" :
		    "an integer, a string or a boolean");
	}
	record_key_add(keys, v->type, v->beg, n);
	return 0;
}

/* ---- The roles ------------------------------------------------------- */

/* Group key: a non-empty string or an integer. */
static int
take_group(struct rctx *c, struct record *r, struct buf *keys)
{
	const struct rslot *sl;
	const struct rval *v;
	int s = recfields_pick(c, FR_GROUP, 0, 0);

	if (s < 0 && c->rd->f->need_group && !(NAMED(c, FR_GROUP) &&
	    c->rd->rn[FR_GROUP] > 0))
		return recfields_missing(c, FR_GROUP, 0, ", or give "
		    "--group-size G for blocks of G consecutive records, as "
		    "TRL and OpenRLHF group");
	if (s < 0)
		return NAMED(c, FR_GROUP) && c->rd->rn[FR_GROUP] > 0 ?
		    recfields_missing(c, FR_GROUP, 0, "") : 0;
	sl = &c->rd->slot[s];
	v = &c->rd->val[s];
	r->alias[FR_GROUP] = sl->idx;
	if (v->type == JSON_STRING && v->end - v->beg == 2)
		return record_err(c, EXIT_DATA, "field \"%s\" is empty",
		    sl->path.text);
	r->gkey = KEY_AT(c, keys);
	if (key_of(c, s, keys, K_GROUP, NULL) != 0)
		return c->d->status;
	r->gkeylen = KEY_AT(c, keys) - r->gkey;
	r->has_group = 1;
	return 0;
}

struct rsum {
	struct rctx		*c;
	const struct rslot	*s;
	double			 sum, last;
	int			 failed;
};

/* One element of an array reward. */
static int
add_elem(void *arg, size_t i, const char *b, const char *e)
{
	struct rsum *a = arg;
	char q[40];
	double x;

	if (e - b == 4 && memcmp(b, "true", 4) == 0)
		x = 1;
	else if (e - b == 5 && memcmp(b, "false", 5) == 0)
		x = 0;
	else if (*b == '-' || (*b >= '0' && *b <= '9'))
		x = json_strtod(b, e - b);
	else {
		quote_elem(b, e, q, sizeof(q));
		a->failed = record_err(a->c, EXIT_DATA, "field \"%s\": element "
		    "%zu is %s, expected a number", a->s->path.text, i, q);
		return 1;
	}
	a->sum += x;
	a->last = x;
	return 0;
}

/*
 * A reward field's value as a number: a number, a boolean (1 or 0), an
 * array summed or its last element (--reward-reduce); *isnull for null.
 */
static int
reward_of(struct rctx *c, int s, double *x, int *isnull)
{
	const struct rslot *sl = &c->rd->slot[s];
	const struct rval *v = &c->rd->val[s];
	struct rsum a;
	size_t n;

	*isnull = 0;
	switch (v->type) {
	case JSON_NUMBER:
		*x = json_strtod(v->beg, v->end - v->beg);
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		/* verl's "acc": a boolean scores where a field is named; under
		 * a default name it more likely flags something else. */
		if (!NAMED(c, FR_REWARD))
			return recfields_type_err(c, sl, v, "a number (name a "
			    "boolean field with --reward-key to read it as 1 "
			    "or 0)");
		*x = v->type == JSON_TRUE;
		return 0;
	case JSON_NULL:
		*isnull = 1;
		return 0;
	case JSON_ARRAY:
		memset(&a, 0, sizeof(a));
		a.c = c;
		a.s = sl;
		n = fieldpath_elements(v->beg, v->end, add_elem, &a);
		if (a.failed)
			return a.failed;
		if (n == 0 && c->rd->f->reduce == REDUCE_LAST)
			return record_err(c, EXIT_DATA, "field \"%s\" is an "
			    "empty array: it has no last element",
			    sl->path.text);
		*x = c->rd->f->reduce == REDUCE_LAST ? a.last : a.sum;
		break;
	case JSON_OBJECT:
		return record_err(c, EXIT_DATA, "field \"%s\" is an object; "
		    "name the member that holds the reward, e.g. --reward-key "
		    "%s.score", sl->path.text, sl->path.text);
	default:
		return recfields_type_err(c, sl, v, "a number");
	}
	if (!isfinite(*x))
		return record_err(c, EXIT_DATA, "field \"%s\" is %.*s, not a "
		    "finite number", sl->path.text, (int)(v->end - v->beg) >
		    60 ? 60 : (int)(v->end - v->beg), v->beg);
	return 0;
}

/* The error for a null reward under --null-reward error. */
static int
null_err(struct rctx *c, int s)
{
	return record_err(c, EXIT_DATA, "field \"%s\" is null; give "
	    "--null-reward unscored to leave a record whose every reward "
	    "field is null out of its group's baseline with advantage 0 (it "
	    "stays in the loss), as TRL does from 1.6.0, or --null-reward "
	    "zero to read a null as 0, as TRL did before (under either, a "
	    "null beside a number counts 0)", c->rd->slot[s].path.text);
}

/*
 * Reward: one field, or several weighted and summed (TRL's reward
 * functions): a null part counts 0 while another part has a number, and
 * a record whose every part is null is unscored (--null-reward unscored)
 * or scores 0 (zero).
 */
static int
take_reward(struct rctx *c, struct record *r, struct buf *keys)
{
	const struct fields *f = c->rd->f;
	int i, s, isnull, parts, nulls = 0;
	double x = 0, sum = 0, part[FIELD_MAXNAMES];

	parts = NAMED(c, FR_REWARD) ? c->rd->rn[FR_REWARD] : 1;
	if (f->need_parts) {
		for (i = 0; i < parts; i++)
			part[i] = NAN;
		r->nrpart = (unsigned char)parts;
		r->rpart = KEY_AT(c, keys);
		buf_add(keys, part, parts * sizeof(*part));
	}
	for (i = 0; i < parts; i++) {
		if ((s = recfields_pick(c, FR_REWARD, i, 0)) < 0) {
			/* A trajectory's reward is its last row's. */
			if (f->traj != NULL && parts == 1)
				return 0;
			return recfields_missing(c, FR_REWARD, i, "");
		}
		if (i == 0 || parts == 1)
			r->alias[FR_REWARD] = c->rd->slot[s].idx;
		if (reward_of(c, s, &x, &isnull) != 0)
			return c->d->status;
		if (isnull) {
			if (f->null_reward == NULL_ERROR)
				return null_err(c, s);
			nulls++;
			continue;
		}
		if (f->need_parts)
			memcpy(keys->p + c->kbase + r->rpart + i * sizeof(x),
			    &x, sizeof(x));
		sum += (f->nweight > 0 ? f->weight[i] : 1) * x;
	}
	r->has_reward = 1;
	if (nulls == parts && f->null_reward == NULL_UNSCORED) {
		r->unscored = 1;
		sum = 0;
	}
	if (!isfinite(sum))
		return record_err(c, EXIT_DATA, "the weighted sum of the reward "
		    "fields overflows a double");
	r->reward = sum == 0 ? 0 : sum;	/* -0 would print as -0 */
	return 0;
}

/* Baseline (remax only): a finite number. */
static int
take_baseline(struct rctx *c, struct record *r)
{
	const struct rval *v;
	int s;

	if (!c->rd->f->need_baseline)
		return 0;
	if (recfields_needed(c, FR_BASELINE, &s) != 0)
		return c->d->status;
	v = &c->rd->val[s];
	if (v->type != JSON_NUMBER)
		return recfields_type_err(c, &c->rd->slot[s], v, "a number");
	r->baseline = json_strtod(v->beg, v->end - v->beg);
	if (!isfinite(r->baseline))
		return record_err(c, EXIT_DATA, "field \"%s\" is %.*s, not a "
		    "finite number", c->rd->slot[s].path.text,
		    (int)(v->end - v->beg), v->beg);
	if (r->baseline == 0)
		r->baseline = 0;	/* -0 would print as -0 */
	return 0;
}

/*
 * The framework's own advantage (--expect-key): a number, or the first
 * number of an array (NeMo-RL's advantages, one per token, in a batch of
 * one); NaN where the record has none, or null, to compare with nothing.
 */
static int
take_expect(struct rctx *c, struct record *r)
{
	const struct rval *v;
	const char *p, *q;
	int s;

	if (c->rd->f->expect == NULL)
		return 0;
	r->has_expect = 1;
	r->expect = NAN;
	if ((s = recfields_pick(c, FR_EXPECT, 0, 0)) < 0)
		return 0;
	v = &c->rd->val[s];
	for (p = v->beg; p < v->end && (*p == '[' || *p == ' ' ||
	    *p == '\t' || *p == '\n' || *p == '\r'); p++)
		;
	for (q = p; q < v->end && (*q == '-' || *q == '+' || *q == '.' ||
	    *q == 'e' || *q == 'E' || (*q >= '0' && *q <= '9')); q++)
		;
	if (q > p)
		r->expect = json_strtod(p, q - p);
	return 0;
}

/* Stratum: the first alias present, or every part named. */
static int
take_strata(struct rctx *c, struct record *r, struct buf *keys)
{
	const struct fields *f = c->rd->f;
	int i, s, parts, named = NAMED(c, FR_STRATUM);

	if (!f->use_stratum)
		return 0;
	parts = named ? c->rd->rn[FR_STRATUM] : 1;
	r->skey = KEY_AT(c, keys);
	for (i = 0; i < parts; i++) {
		if ((s = recfields_pick(c, FR_STRATUM, i, 0)) < 0) {
			if (named || f->need_stratum)
				return recfields_missing(c, FR_STRATUM, i,
				    "");
			keys->len = c->kbase + r->skey;
			return 0;
		}
		if (i > 0)
			buf_add(keys, "\x1f", 1);
		if (key_of(c, s, keys, K_STRATUM, &r->strat_frac) != 0)
			return c->d->status;
		r->alias[FR_STRATUM] = named ? 0 : c->rd->slot[s].idx;
	}
	if (parts == 0 && f->need_stratum)
		return recfields_missing(c, FR_STRATUM, 0, "");
	r->has_stratum = parts > 0;
	r->skeylen = KEY_AT(c, keys) - r->skey;
	return 0;
}

/* The batch key, the trajectory and its end, step and global_step. */
static int
take_keys(struct rctx *c, struct record *r, struct buf *keys)
{
	const struct fields *f = c->rd->f;
	const struct rval *v;
	int s, i;

	if (f->batch != NULL) {
		if (recfields_needed(c, FR_BATCH, &s) != 0)
			return c->d->status;
		r->bkey = KEY_AT(c, keys);
		if (key_of(c, s, keys, K_SCALAR, NULL) != 0)
			return c->d->status;
		r->bkeylen = KEY_AT(c, keys) - r->bkey;
		r->has_batch = 1;
	}
	if (f->traj != NULL) {
		if (recfields_needed(c, FR_TRAJ, &s) != 0)
			return c->d->status;
		r->tkey = KEY_AT(c, keys);
		key_of(c, s, keys, K_ANY, NULL);
		r->tkeylen = KEY_AT(c, keys) - r->tkey;
		r->has_traj = 1;
	}
	/* Absent (a profile's optional field) or null: a rollout of its
	 * own, as slime gives each null rollout_id one. */
	if (f->rollout != NULL) {
		if (recfields_needed(c, FR_ROLLOUT, &s) != 0)
			return c->d->status;
		if (s >= 0 && c->rd->val[s].type != JSON_NULL) {
			r->okey = KEY_AT(c, keys);
			if (key_of(c, s, keys, K_SCALAR, NULL) != 0)
				return c->d->status;
			r->okeylen = KEY_AT(c, keys) - r->okey;
			r->has_roll = 1;
		}
		if (!r->has_roll && c->rd->rn[SR_WATCH_ROLL] > 0) {
			v = &c->rd->val[SLOT(c, SR_WATCH_ROLL, 0)];
			r->roll_030 = v->state == RV_FOUND &&
			    v->type != JSON_NULL;
		}
	}
	if (f->traj_last != NULL) {
		if (recfields_needed(c, FR_TRAJ_LAST, &s) != 0)
			return c->d->status;
		v = &c->rd->val[s];
		if (v->type == JSON_TRUE || v->type == JSON_FALSE)
			r->traj_last = v->type == JSON_TRUE;
		else
			return recfields_type_err(c, &c->rd->slot[s], v,
			    "true or false");
	}
	for (i = 0; i < c->rd->rn[SR_STEP]; i++) {
		s = SLOT(c, SR_STEP, i);
		v = &c->rd->val[s];
		if (v->state != RV_FOUND || (v->type != JSON_NUMBER &&
		    v->type != JSON_STRING))
			continue;
		/* As the line writes it: only the warnings read it, and
		 * they make its key where it changes (a step is the same
		 * value for many records). */
		r->wbeg = v->beg - c->rd->line;
		r->wlen = v->end - v->beg;
		r->wtype = (signed char)v->type;
		r->wname = (signed char)i;
		r->has_step = 1;
		break;
	}
	return 0;
}

/*
 * Mask aliases there but not read: the mask's own aliases other than the
 * one chosen, or, where another field, --mask-spans or none is the mask,
 * all.  A null one is not: it says every token is trained, and naming it
 * would change nothing.
 */
static void
unused_masks(struct rctx *c, struct record *r)
{
	const struct record_reader *rd = c->rd;
	uint64_t m;
	int role, i, s, one, spans = rd->f->spans != NULL;

	role = rd->rn[SR_WATCH_MASK] > 0 ? SR_WATCH_MASK : FR_MASK;
	if (role == FR_MASK && NAMED(c, FR_MASK))
		return;
	/* Mostly the line holds one, the one read (an alias read is one
	 * the line holds), or none: nothing to look at. */
	for (one = 0, i = 0; i < REC_SWORDS; i++) {
		m = rd->lmask[i] & rd->rmask[role][i];
		if (m != 0 && (one++ || (m & (m - 1)) != 0))
			break;
	}
	if (i == REC_SWORDS && (one == 0 || (role == FR_MASK && !spans &&
	    r->alias[FR_MASK] >= 0)))
		return;
	/* Those the line holds. */
	for (i = 0; i < REC_SWORDS; i++)
		for (m = rd->lmask[i] & rd->rmask[role][i]; m != 0;
		    m &= m - 1) {
			s = 64 * i + __builtin_ctzll(m);
			if (rd->val[s].state == RV_FOUND &&
			    rd->val[s].type != JSON_NULL &&
			    (role == SR_WATCH_MASK || spans ||
			    rd->slot[s].idx != r->alias[FR_MASK]))
				r->unused_mask |= 1u << rd->slot[s].idx;
		}
}

int
recfields_take(struct rctx *c, struct record *r, struct buf *keys,
    struct buf *runs)
{
	if (take_group(c, r, keys) != 0 || take_reward(c, r, keys) != 0 ||
	    take_baseline(c, r) != 0 || take_expect(c, r) != 0 ||
	    rectokens_take(c, r, runs) != 0 ||
	    take_strata(c, r, keys) != 0 || take_keys(c, r, keys) != 0)
		return c->d->status;
	unused_masks(c, r);
	return 0;
}
