/*
 * record.c - one JSONL line into a struct record.
 *
 * The line is walked once: every top-level member is validated; the
 * members rladv reads are parsed as they pass (the log-probs array with
 * the fast numeric scanner, the mask into runs), the members it writes
 * have their spans noted, and everything else is only validated, since it
 * is passed through byte for byte.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "record.h"

const char *const record_out_names[OUT_NFIELDS] = {
	"advantage", "token_advantages", "loss_weight", "token_loss_weights",
	"rladv"
};

enum role { R_GROUP, R_REWARD, R_LOGPROBS, R_MASK, R_STRATUM, R_BATCH,
	R_BASELINE, R_OUT };

/* Aliases from SPEC §2: the names verl, TRL, OpenRLHF, NeMo-RL and slime
 * use in their dumps, first present wins. */
static const char *const def_group[] = { "prompt_id", "uid", "group_id",
	"group_index" };
static const char *const def_reward[] = { "reward", "score" };
static const char *const def_logprobs[] = { "logprobs", "rollout_log_probs",
	"generation_logprobs" };
static const char *const def_mask[] = { "mask", "response_mask",
	"loss_mask", "token_loss_mask" };

void
record_fields_default(struct fields *f)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < sizeof(def_group) / sizeof(def_group[0]); i++)
		f->group[f->ngroup++] = def_group[i];
	for (i = 0; i < sizeof(def_reward) / sizeof(def_reward[0]); i++)
		f->reward[f->nreward++] = def_reward[i];
	for (i = 0; i < sizeof(def_logprobs) / sizeof(def_logprobs[0]); i++)
		f->logprobs[f->nlogprobs++] = def_logprobs[i];
	for (i = 0; i < sizeof(def_mask) / sizeof(def_mask[0]); i++)
		f->mask[f->nmask++] = def_mask[i];
	f->stratum[f->nstratum++] = "tool_calls";
	/* verl's ReMax: the greedy response's reward, per prompt. */
	f->baseline[f->nbaseline++] = "reward_baselines";
}

/* What one member that rladv reads held. */
struct slot {
	const char	*name;
	size_t		 namelen;
	enum role	 role;
	int		 idx;		/* alias or part index, out field */
	int		 seen;
	const char	*vbeg, *vend;
	enum json_type	 type;
	int		 numflags;
	int		 bad;		/* a parse of the value failed, */
	enum json_code	 why;		/* why (the log-probs) */
	size_t		 bad_elem;
	const char	*bad_at;
	size_t		 count;		/* array elements */
	size_t		 runs, nruns, ones;
	size_t		 prev;
};

#define MAXSLOTS (4 * FIELD_MAXNAMES + OUT_NFIELDS + 3)

struct ctx {
	const char	*line, *end;
	const char	*file;
	unsigned long long lineno;
	struct diag	*d;
	struct slot	 slot[MAXSLOTS];
	int		 nslot;
	int		 rfirst[R_OUT + 1], rcount[R_OUT + 1];	/* by role */
	unsigned char	 head[256];	/* by a name's first byte: its
					   first slot + 1, or 0 */
	unsigned char	 next[MAXSLOTS];	/* the next slot + 1 */
};

static void
add_slots(struct ctx *c, const char *const *names, int n, enum role role)
{
	int i;

	struct slot *s;

	/* Only what finding a member needs: member() clears the rest of a
	 * slot when its member is seen (most slots never are). */
	c->rfirst[role] = c->nslot;
	c->rcount[role] = 0;
	for (i = 0; i < n && c->nslot < MAXSLOTS; i++) {
		c->rcount[role]++;
		s = &c->slot[c->nslot++];
		s->name = names[i];
		s->namelen = strlen(names[i]);
		s->role = role;
		s->idx = i;
		s->seen = 0;
	}
}

static int
err(struct ctx *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
err(struct ctx *c, int status, const char *fmt, ...)
{
	char msg[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_setl(c->d, status, c->file, c->lineno, "%s", msg);
}

static int
json_fail(struct ctx *c, const struct json_err *e)
{
	return err(c, EXIT_DATA, "invalid JSON at column %zu: %s",
	    (size_t)(e->at - c->line) + 1, json_strerror(e->code));
}

/* A short quote of the bytes at p for messages. */
static void
quote(const char *p, const char *end, char *out, size_t cap)
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

/*
 * A mask: 0/1 or true/false elements, stored as alternating runs of ones
 * and zeros (most masks are a few long runs, which makes writing the token
 * arrays a few block copies).
 */
static const char *
parse_mask(struct ctx *c, struct slot *s, const char *p, struct buf *runs)
{
	const char *end = c->end;
	uint32_t run = 0;
	int cur = 1, v;
	size_t n = 0, ones = 0;

	s->runs = runs->len / sizeof(uint32_t);
	s->nruns = 0;
	p = json_ws(p + 1, end);
	if (p < end && *p == ']')
		goto done;
	for (;;) {
		/* Fast path: four more elements equal to the current run,
		 * written "1,1,1,1," or "1, 1, 1, 1, " as dumps do. */
		if (n > 0 && end - p >= 12) {
			static const char one8[] = "1,1,1,1,", zero8[] =
			    "0,0,0,0,", one12[] = "1, 1, 1, 1, ",
			    zero12[] = "0, 0, 0, 0, ";

			if (memcmp(p, cur ? one8 : zero8, 8) == 0) {
				run += 4;
				ones += cur * 4;
				n += 4;
				p += 8;
				continue;
			}
			if (memcmp(p, cur ? one12 : zero12, 12) == 0) {
				run += 4;
				ones += cur * 4;
				n += 4;
				p += 12;
				continue;
			}
		}
		if (p < end && *p == '0' && (p + 1 >= end || p[1] < '0' ||
		    p[1] > '9') && (p + 1 >= end || (p[1] != '.' &&
		    p[1] != 'e' && p[1] != 'E'))) {
			v = 0;
			p++;
		} else if (p < end && *p == '1' && (p + 1 >= end ||
		    ((p[1] < '0' || p[1] > '9') && p[1] != '.' &&
		    p[1] != 'e' && p[1] != 'E'))) {
			v = 1;
			p++;
		} else if (end - p >= 4 && memcmp(p, "true", 4) == 0) {
			v = 1;
			p += 4;
		} else if (end - p >= 5 && memcmp(p, "false", 5) == 0) {
			v = 0;
			p += 5;
		} else {
			s->bad = 1;
			s->bad_elem = n;
			s->bad_at = p;
			return NULL;
		}
		if (v != cur) {
			buf_add(runs, &run, sizeof(run));
			s->nruns++;
			run = 0;
			cur = v;
		}
		run++;
		ones += v;
		n++;
		p = json_ws(p, end);
		if (p < end && *p == ',') {
			p = json_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == ']')
			break;
		s->bad = 1;
		s->bad_elem = n;
		s->bad_at = p;
		return NULL;
	}
	buf_add(runs, &run, sizeof(run));
	s->nruns++;
done:
	s->count = n;
	s->ones = ones;
	return p + 1;
}

/* The message for a bad element of the log-probs or the mask. */
static int
slot_error(struct ctx *c, const struct slot *s)
{
	char q[40];

	quote(s->bad_at, c->end, q, sizeof(q));
	if (s->role == R_MASK)
		return err(c, EXIT_DATA, "field \"%s\": element %zu is %s, "
		    "expected 0 or 1 (or true/false)", s->name, s->bad_elem, q);
	return err(c, EXIT_DATA, "field \"%s\": element %zu (%s) is %s",
	    s->name, s->bad_elem, q, s->why == JSON_E_NONFINITE ?
	    "not a finite number" : s->why == JSON_E_NANINF ? "NaN or "
	    "Infinity, expected a finite number" : "not a number");
}

/* Parses the value of a member rladv reads, as its role requires; a value
 * of the wrong shape is noted in the slot and validated generically. */
static const char *
parse_slot(struct ctx *c, struct slot *s, const char *p, struct buf *runs)
{
	struct json_err e;
	const char *q = NULL;
	size_t save = runs->len;

	s->vbeg = p;
	if (s->role == R_LOGPROBS && p < c->end && *p == '[') {
		q = json_num_array(p, c->end, &s->count, &e);
		if (q == NULL) {
			s->bad = 1;
			s->why = e.code;
			s->bad_elem = s->count;
			s->bad_at = e.at;
		} else
			s->type = JSON_ARRAY;
	} else if (s->role == R_MASK && p < c->end && *p == '[') {
		q = parse_mask(c, s, p, runs);
		if (q != NULL)
			s->type = JSON_ARRAY;
		else
			runs->len = save;
	} else if (p < c->end && (*p == '-' || (*p >= '0' && *p <= '9'))) {
		q = json_number(p, c->end, &s->numflags, &e);
		if (q == NULL)
			goto bad;
		s->type = JSON_NUMBER;
	}
	if (q == NULL) {
		q = json_value(p, c->end, &s->type, &e);
		if (q == NULL) {
			/* The value is not even JSON: say whose it is. */
			if (s->bad && s->why == JSON_E_NANINF)
				slot_error(c, s);
			else
				goto bad;
			return NULL;
		}
	}
	s->vend = q;
	return q;
bad:
	err(c, EXIT_DATA, "field \"%s\": invalid JSON at column %zu: %s",
	    s->name, (size_t)(e.at - c->line) + 1, json_strerror(e.code));
	return NULL;
}

/* The slot of role that was seen: the one at idx_exact, or else the
 * first name in the role's list (a role's slots are in list order). */
static struct slot *
chosen(struct ctx *c, enum role role, int idx_exact)
{
	struct slot *s = c->slot + c->rfirst[role];
	int i;

	if (idx_exact >= 0)
		return idx_exact < c->rcount[role] && s[idx_exact].seen ?
		    &s[idx_exact] : NULL;
	for (i = 0; i < c->rcount[role]; i++)
		if (s[i].seen)
			return &s[i];
	return NULL;
}

/* The chains of slots by the first byte of their names, in slot order,
 * for find_slot(). */
static void
index_slots(struct ctx *c)
{
	int i;
	unsigned char b;

	memset(c->head, 0, sizeof(c->head));
	for (i = c->nslot - 1; i >= 0; i--) {
		b = (unsigned char)c->slot[i].name[0];
		c->next[i] = c->head[b];
		c->head[b] = (unsigned char)(i + 1);
	}
}

static int
type_err(struct ctx *c, const struct slot *s, const char *want)
{
	return err(c, EXIT_DATA, "field \"%s\" is %s, expected %s", s->name,
	    json_type_name(s->type), want);
}

void
record_key_add(struct buf *keys, enum json_type t, const char *v, size_t n)
{
	ssize_t got;

	switch (t) {
	case JSON_STRING:
		buf_add(keys, "s", 1);
		got = json_unescape(v, n, buf_reserve(keys, n), n);
		keys->len += got;
		return;
	case JSON_NUMBER:
		buf_add(keys, "n", 1);
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		buf_add(keys, "b", 1);
		break;
	default:
		buf_add(keys, "o", 1);
		break;
	}
	buf_add(keys, v, n);
}

/* Appends the canonical key of a scalar member: a group key (ints_only:
 * a string or an integer), a stratum part (capped: --stratum-cap), a
 * batch key. */
static int
scalar_key(struct ctx *c, const struct slot *s, struct buf *keys,
    int ints_only, const struct fields *f, int capped)
{
	size_t n = s->vend - s->vbeg;
	char lab[64];
	int k;

	switch (s->type) {
	case JSON_STRING:
		break;
	case JSON_NUMBER:
		if (ints_only && (s->numflags & JSON_NUM_FRAC))
			return err(c, EXIT_DATA, "field \"%s\" is %.*s, "
			    "expected an integer or a string", s->name,
			    (int)n, s->vbeg);
		/* The capped tail is one stratum, "c>=CAP". */
		if (capped && f->has_cap && json_strtod(s->vbeg, n) >=
		    f->cap) {
			k = snprintf(lab, sizeof(lab), "c>=%.17g", f->cap);
			buf_add(keys, lab, k);
			return 0;
		}
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		if (!ints_only)
			break;
		/* FALLTHROUGH */
	default:
		return type_err(c, s, ints_only ? "a string or an integer" :
		    "an integer, a string or a boolean");
	}
	record_key_add(keys, s->type, s->vbeg, n);
	return 0;
}

/* The error for a line that is not an object (p at its first byte). */
static int
not_object(struct ctx *c, const char *p)
{
	struct json_err e;
	enum json_type t;
	const char *q;

	if (p < c->end && (*p == '[' || *p == '"' || *p == '-' ||
	    (*p >= '0' && *p <= '9') || *p == 't' || *p == 'f' ||
	    *p == 'n')) {
		q = json_value(p, c->end, &t, &e);
		if (q != NULL && json_ws(q, c->end) == c->end)
			return err(c, EXIT_DATA, "the line is %s, expected a "
			    "JSON object", json_type_name(t));
	}
	return err(c, EXIT_DATA, "invalid JSON: expected an object");
}

/* The slot a member's (decoded) name is for, from slot i on, or NULL. */
static struct slot *
find_slot(struct ctx *c, int i, const char *key, size_t keylen)
{
	int k;

	/* A name of no bytes chains under its terminating NUL. */
	k = c->head[keylen ? (unsigned char)key[0] : 0];
	for (; k > 0; k = c->next[k - 1])
		if (k - 1 >= i && c->slot[k - 1].namelen == keylen &&
		    memcmp(c->slot[k - 1].name, key, keylen) == 0)
			return &c->slot[k - 1];
	return NULL;
}

/* A slot as add_slots() made it, before its member is parsed into it. */
static void
clear_slot(struct slot *s)
{
	struct slot keep = *s;

	memset(s, 0, sizeof(*s));
	s->name = keep.name;
	s->namelen = keep.namelen;
	s->role = keep.role;
	s->idx = keep.idx;
}

/*
 * One member, p at its value: parsed into its slot when rladv reads it,
 * only validated otherwise.  Returns the byte after the value, or NULL
 * with the error set.
 */
static const char *
member(struct ctx *c, const char *key, size_t keylen, const char *p,
    size_t prev, struct buf *runs)
{
	struct slot *s, *o;
	struct json_err e;
	enum json_type t;
	const char *q;
	enum role role;
	int idx;

	if ((s = find_slot(c, 0, key, keylen)) == NULL) {
		if ((q = json_value(p, c->end, &t, &e)) == NULL)
			json_fail(c, &e);
		return q;
	}
	if (s->seen) {
		err(c, EXIT_DATA, "field \"%s\" appears twice", s->name);
		return NULL;
	}
	clear_slot(s);
	s->seen = 1;
	s->prev = prev;
	if ((q = parse_slot(c, s, p, runs)) == NULL)
		return NULL;
	/* One field may serve two roles (a stratum key that is also the
	 * group key): the others share it. */
	for (o = s; (o = find_slot(c, o - c->slot + 1, key, keylen)) != NULL;) {
		role = o->role;
		idx = o->idx;
		*o = *s;
		o->role = role;
		o->idx = idx;
	}
	return q;
}

/*
 * The member walk: the whole line validated, every member rladv reads in
 * its slot, the layout (where the object closes, the spacing) in r.
 */
static int
walk(struct ctx *c, struct record *r, struct buf *runs)
{
	struct json_err e;
	const char *p, *kb, *ke, *key;
	char kbuf[128];
	size_t keylen, prev;
	ssize_t n;
	int esc, first = 1;

	p = json_ws(c->line, c->end);
	if (p >= c->end || *p != '{')
		return not_object(c, p);
	prev = p + 1 - c->line;	/* the first member follows the '{' */
	p = json_ws(p + 1, c->end);
	if (p < c->end && *p == '}') {
		r->close = p - c->line;
		p++;
		goto after;
	}
	for (;;) {
		if (p >= c->end || *p != '"') {
			e.at = p;
			e.code = JSON_E_KEY;
			return json_fail(c, &e);
		}
		kb = p;
		if ((p = json_string(p, c->end, &esc, &e)) == NULL)
			return json_fail(c, &e);
		ke = p;
		key = kb + 1;
		keylen = ke - kb - 2;
		if (esc) {
			n = json_unescape(kb, ke - kb, kbuf, sizeof(kbuf));
			key = kbuf;
			keylen = n < 0 ? 0 : (size_t)n;
		}
		p = json_ws(p, c->end);
		if (p >= c->end || *p != ':') {
			e.at = p;
			e.code = JSON_E_COLON;
			return json_fail(c, &e);
		}
		if (first)
			r->colon_space = p + 1 < c->end && p[1] == ' ';
		p = json_ws(p + 1, c->end);
		if ((p = member(c, key, keylen, p, prev, runs)) == NULL)
			return c->d->status;
		r->nmembers++;
		prev = p - c->line;
		p = json_ws(p, c->end);
		if (p < c->end && *p == ',') {
			if (first)
				r->comma_space = p + 1 < c->end && p[1] == ' ';
			first = 0;
			p = json_ws(p + 1, c->end);
			continue;
		}
		if (p < c->end && *p == '}') {
			r->close = p - c->line;
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

/* Group key: a non-empty string or an integer. */
static int
take_group(struct ctx *c, const struct fields *f, struct record *r,
    struct buf *keys)
{
	struct slot *s;

	if ((s = chosen(c, R_GROUP, -1)) == NULL)
		return 0;
	r->alias[0] = s->idx;
	if (s->type == JSON_STRING && s->vend - s->vbeg == 2)
		return err(c, EXIT_DATA, "field \"%s\" is empty", s->name);
	r->gkey = keys->len;
	if (scalar_key(c, s, keys, 1, f, 0) != 0)
		return c->d->status;
	r->gkeylen = keys->len - r->gkey;
	if (r->gkeylen == 1)
		return err(c, EXIT_DATA, "field \"%s\" is empty", s->name);
	r->has_group = 1;
	return 0;
}

/* A member that must be a finite number. */
static int
number(struct ctx *c, const struct slot *s, double *v)
{
	if (s->type != JSON_NUMBER)
		return type_err(c, s, "a number");
	*v = json_strtod(s->vbeg, s->vend - s->vbeg);
	if (!isfinite(*v))
		return err(c, EXIT_DATA, "field \"%s\" is %.*s, not a finite "
		    "number", s->name, (int)(s->vend - s->vbeg), s->vbeg);
	if (*v == 0)
		*v = 0;	/* -0 would print as -0 */
	return 0;
}

/* Reward: a finite number. */
static int
take_reward(struct ctx *c, const struct fields *f, struct record *r)
{
	struct slot *s;

	if ((s = chosen(c, R_REWARD, -1)) == NULL)
		return err(c, EXIT_DATA, "field \"%s\" is missing",
		    f->reward[0]);
	r->alias[1] = s->idx;
	return number(c, s, &r->reward);
}

/* Baseline (remax only): a finite number. */
static int
take_baseline(struct ctx *c, const struct fields *f, struct record *r)
{
	struct slot *s;

	if (!f->need_baseline)
		return 0;
	if ((s = chosen(c, R_BASELINE, -1)) == NULL)
		return err(c, EXIT_DATA, "field \"%s\" is missing (the "
		    "baseline of remax)", f->baseline[0]);
	return number(c, s, &r->baseline);
}

/* Log-probs, an array of finite numbers, and the mask: 0/1 or booleans,
 * as long as the log-probs. */
static int
take_tokens(struct ctx *c, const struct fields *f, struct record *r)
{
	struct slot *s;

	if ((s = chosen(c, R_LOGPROBS, -1)) == NULL)
		return err(c, EXIT_DATA, "field \"%s\" is missing",
		    f->logprobs[0]);
	r->alias[2] = s->idx;
	if (s->bad)
		return slot_error(c, s);
	if (s->type != JSON_ARRAY)
		return type_err(c, s, "an array of numbers");
	r->L = s->count;
	r->T = r->L;
	if ((s = chosen(c, R_MASK, -1)) == NULL)
		return 0;
	r->alias[3] = s->idx;
	if (s->bad)
		return slot_error(c, s);
	if (s->type != JSON_ARRAY)
		return type_err(c, s, "an array of 0/1");
	if (s->count != r->L)
		return err(c, EXIT_DATA, "field \"%s\" has %zu elements, but "
		    "\"%s\" has %zu", s->name, s->count,
		    f->logprobs[r->alias[2]], r->L);
	r->has_mask = 1;
	r->runs = s->runs;
	r->nruns = s->nruns;
	r->T = s->ones;
	return 0;
}

/* Stratum: every part present, each a scalar; then the batch key. */
static int
take_strata(struct ctx *c, const struct fields *f, struct record *r,
    struct buf *keys)
{
	struct slot *s;
	int i;

	r->skey = keys->len;
	for (i = 0; i < f->nstratum; i++) {
		if ((s = chosen(c, R_STRATUM, i)) == NULL) {
			if (f->need_stratum)
				return err(c, EXIT_DATA, "field \"%s\" is "
				    "missing (the stratum key)",
				    f->stratum[i]);
			keys->len = r->skey;
			break;
		}
		if (i > 0)
			buf_add(keys, "\x1f", 1);
		if (scalar_key(c, s, keys, 0, f, 1) != 0)
			return c->d->status;
	}
	if (i == f->nstratum && f->nstratum > 0) {
		r->has_stratum = 1;
		r->skeylen = keys->len - r->skey;
	}
	if (f->batch == NULL)
		return 0;
	if ((s = chosen(c, R_BATCH, -1)) == NULL)
		return err(c, EXIT_DATA, "field \"%s\" is missing (the batch "
		    "key)", f->batch);
	r->bkey = keys->len;
	if (scalar_key(c, s, keys, 0, f, 0) != 0)
		return c->d->status;
	r->bkeylen = keys->len - r->bkey;
	r->has_batch = 1;
	return 0;
}

int
record_parse(const char *line, size_t len, const struct fields *f,
    struct record *r, struct buf *keys, struct buf *runs,
    const char *file, unsigned long long lineno, struct diag *d)
{
	struct ctx c;
	struct slot *s;
	const char *batch_names[1];
	int i;

	c.line = line;
	c.end = line + len;
	c.file = file;
	c.lineno = lineno;
	c.d = d;
	c.nslot = 0;
	memset(c.rcount, 0, sizeof(c.rcount));
	add_slots(&c, f->group, f->ngroup, R_GROUP);
	add_slots(&c, f->reward, f->nreward, R_REWARD);
	add_slots(&c, f->logprobs, f->nlogprobs, R_LOGPROBS);
	add_slots(&c, f->mask, f->nmask, R_MASK);
	add_slots(&c, f->stratum, f->nstratum, R_STRATUM);
	if (f->need_baseline)
		add_slots(&c, f->baseline, f->nbaseline, R_BASELINE);
	if (f->batch) {
		batch_names[0] = f->batch;
		add_slots(&c, batch_names, 1, R_BATCH);
	}
	add_slots(&c, record_out_names, OUT_NFIELDS, R_OUT);
	index_slots(&c);

	/* The member walk, then the fields from what it found. */
	memset(r, 0, sizeof(*r));
	if (walk(&c, r, runs) != 0)
		return d->status;
	memset(r->alias, -1, sizeof(r->alias));
	if (take_group(&c, f, r, keys) != 0 || take_reward(&c, f, r) != 0 ||
	    take_baseline(&c, f, r) != 0 ||
	    take_tokens(&c, f, r) != 0 || take_strata(&c, f, r, keys) != 0)
		return d->status;
	for (i = 0; i < OUT_NFIELDS; i++)
		if ((s = chosen(&c, R_OUT, i)) != NULL) {
			r->out[i].present = 1;
			r->out[i].beg = s->vbeg - line;
			r->out[i].end = s->vend - line;
			r->out[i].prev = s->prev;
		}
	return 0;
}

void
record_key_quote(const char *key, size_t len, struct buf *out)
{
	struct buf lab = { 0 };

	record_key_label(key, len, &lab);
	json_quote(out, lab.p, lab.len);
	buf_free(&lab);
}

void
record_key_label(const char *key, size_t len, struct buf *out)
{
	size_t i, start = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && key[i] != '\x1f')
			continue;
		if (start > 0)
			buf_add(out, ",", 1);
		/* Each part is a type tag and its text. */
		if (i > start)
			buf_add(out, key + start + 1, i - start - 1);
		start = i + 1;
	}
}
