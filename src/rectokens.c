/*
 * rectokens.c - a record's response length and its trained tokens: the
 * length from the first of the log-probs, a mask, token ids and a length
 * field that is there; then the mask, spans of trained tokens, a prompt
 * in front and a sample mask on top, as runs (mask.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "recint.h"

#define SLOT(c, role, i)	((c)->rd->rfirst[role] + (i))
#define NAMED(c, role)		(((c)->rd->f->named & FN(role)) != 0)

/* A non-negative integer (a length, a prompt length). */
static int
count_of(struct rctx *c, int s, size_t *n)
{
	const struct rslot *sl = &c->rd->slot[s];
	const struct rval *v = &c->rd->val[s];
	double x;

	if (v->type != JSON_NUMBER)
		return recfields_type_err(c, sl, v, "a number of tokens");
	x = json_strtod(v->beg, v->end - v->beg);
	if (!(x >= 0) || x != floor(x) || x > 4294967295.0)
		return record_err(c, EXIT_DATA, "field \"%s\" is %.*s, "
		    "expected a number of tokens (a non-negative integer)",
		    sl->path.text,
		    (int)(v->end - v->beg), v->beg);
	*n = (size_t)x;
	return 0;
}

/* The error for two sources of the response length that disagree. */
static int
length_err(struct rctx *c, int s, size_t n, const char *from, size_t L)
{
	return record_err(c, EXIT_DATA, "field \"%s\" has %zu element%s, but "
	    "\"%s\" has %zu", c->rd->slot[s].path.text, n, n == 1 ? "" : "s",
	    from, L);
}

/* What the response length and the mask come to, as take_tokens finds
 * them. */
struct toks {
	size_t		 L;
	int		 known;
	const char	*from;		/* the field L came from */
	struct mask	 m;
	int		 has_mask;
};

/* Log-probs, then a mask, then token ids, then a length: the first
 * there gives L; a named source that disagrees with it is an error. */
static int
length_sources(struct rctx *c, struct record *r, struct toks *t)
{
	static const int order[3] = { FR_LOGPROBS, FR_MASK, FR_TOKENS };
	static const char *const want[3] = { "an array of numbers",
	    "an array of 0/1", "an array of token ids" };
	const struct rval *v;
	size_t n;
	int i, s, role;

	for (i = 0; i < 3; i++) {
		role = order[i];
		s = recfields_pick(c, role, 0, 1);
		if (s < 0 && NAMED(c, role) && c->rd->rn[role] > 0)
			return recfields_missing(c, role, 0, "");
		if (s < 0)
			continue;
		v = &c->rd->val[s];
		if (v->bad && role != FR_TOKENS)
			return recfields_value_error(c, &c->rd->slot[s], v);
		if (v->type == JSON_NULL)
			continue;	/* slime's loss_mask null: all ones */
		if (v->type != JSON_ARRAY)
			return recfields_type_err(c, &c->rd->slot[s], v,
			    want[i]);
		r->alias[role] = c->rd->slot[s].idx;
		if (!t->known) {
			t->L = v->count;
			t->known = 1;
			t->from = c->rd->slot[s].path.text;
		} else if (v->count != t->L && (role == FR_MASK ||
		    NAMED(c, role)))
			return length_err(c, s, v->count, t->from, t->L);
		if (role == FR_MASK) {
			t->m = v->m;
			t->has_mask = 1;
		}
	}
	if (c->rd->f->length == NULL)
		return 0;
	if (recfields_needed(c, FR_LENGTH, &s) != 0 || count_of(c, s, &n) != 0)
		return c->d->status;
	if (!t->known) {
		t->L = n;
		t->known = 1;
		t->from = c->rd->slot[s].path.text;
	} else if (n != t->L)
		return record_err(c, EXIT_DATA, "field \"%s\" is %zu, but "
		    "\"%s\" has %zu element%s", c->rd->slot[s].path.text, n,
		    t->from, t->L, t->L == 1 ? "" : "s");
	return 0;
}

/* --mask-spans, --prompt-len-key on top. */
static int
mask_rules(struct rctx *c, struct toks *t)
{
	const struct fields *f = c->rd->f;
	const struct rval *v;
	const char *why;
	size_t n;
	int s;

	if (f->spans != NULL) {
		if (recfields_needed(c, FR_SPANS, &s) != 0)
			return c->d->status;
		v = &c->rd->val[s];
		if (!t->known)
			return record_err(c, EXIT_DATA, "--mask-spans: no "
			    "response length to lay \"%s\" over (log-probs, "
			    "a mask, --tokens-key or --length-key)", f->spans);
		if (v->type != JSON_ARRAY)
			return recfields_type_err(c, &c->rd->slot[s], v,
			    "an array of [start, end] spans");
		if ((why = mask_spans(v->beg, v->end, t->L, &c->rd->runs,
		    &t->m)) != NULL)
			return record_err(c, EXIT_DATA, "field \"%s\" (spans "
			    "over %zu token%s): span %zu: %s", f->spans, t->L,
			    t->L == 1 ? "" : "s", t->m.bad_elem, why);
		t->has_mask = 1;
	}
	if (f->prompt_len != NULL) {
		if (recfields_needed(c, FR_PROMPT_LEN, &s) != 0 ||
		    count_of(c, s, &n) != 0)
			return c->d->status;
		if (!t->known || n > t->L)
			return record_err(c, EXIT_DATA, "field \"%s\" is %zu, "
			    "but the response has %s%zu token%s", f->prompt_len,
			    n, t->known ? "" : "no length: ", t->L,
			    t->L == 1 ? "" : "s");
		if (!t->has_mask)
			mask_all(t->L, 1, &c->rd->runs, &t->m);
		mask_cut(&c->rd->runs, n, &t->m);
		t->has_mask = 1;
	}
	return 0;
}

/* A 0/1 (or false/true) field of role: *x; absent: def (a field the
 * profile made optional). */
static int
flag_of(struct rctx *c, enum frole role, double def, double *x)
{
	const struct rval *v;
	int s;

	*x = def;
	if (recfields_needed(c, role, &s) != 0)
		return c->d->status;
	if (s < 0)
		return 0;	/* optional, absent: not set */
	v = &c->rd->val[s];
	if (v->type == JSON_TRUE || v->type == JSON_FALSE)
		*x = v->type == JSON_TRUE;
	else if (v->type == JSON_NUMBER)
		*x = json_strtod(v->beg, v->end - v->beg);
	else
		return recfields_type_err(c, &c->rd->slot[s], v, "0 or 1");
	if (*x != 0 && *x != 1)
		return record_err(c, EXIT_DATA, "field \"%s\" is %.*s, "
		    "expected 0 or 1", c->rd->slot[s].path.text,
		    (int)(v->end - v->beg), v->beg);
	return 0;
}

/*
 * --sample-mask-key 0 (NeMo-RL's sample_loss_mask): no token trained and
 * no sample of the loss (*off); --remove-key true (slime's remove_sample,
 * whose loss mask slime zeroes after it writes the dump): no token
 * trained, but a sample still (*gone 1; -1: the field is absent, where
 * the profile made it optional, and the record is not removed).
 */
static int
sample_rules(struct rctx *c, struct toks *t, int *off, int *gone)
{
	const struct fields *f = c->rd->f;
	double x;

	if (f->sample_mask != NULL) {
		if (flag_of(c, FR_SAMPLE_MASK, 1, &x) != 0)
			return c->d->status;
		*off = x == 0;
	}
	if (f->remove != NULL) {
		if (flag_of(c, FR_REMOVE, -1, &x) != 0)
			return c->d->status;
		*gone = (int)x;
	}
	if ((*off || *gone > 0) && t->known) {
		mask_all(t->L, 0, &c->rd->runs, &t->m);
		t->has_mask = 1;
	}
	return 0;
}

/* The response length L and its trained tokens T, with the mask's runs
 * copied to the caller's buffer. */
int
rectokens_take(struct rctx *c, struct record *r, struct buf *runs)
{
	struct toks t;
	int off = 0, gone = 0;

	memset(&t, 0, sizeof(t));
	if (length_sources(c, r, &t) != 0 || mask_rules(c, &t) != 0 ||
	    sample_rules(c, &t, &off, &gone) != 0)
		return c->d->status;
	r->has_len = t.known;
	r->L = t.L;
	if (t.has_mask) {
		r->has_mask = 1;
		r->runs = runs->len / sizeof(uint32_t);
		r->nruns = t.m.nruns;
		/* An empty mask ([]) has no runs and its array may be
		 * unallocated: no pointer arithmetic on NULL. */
		if (t.m.nruns > 0)
			buf_add(runs, c->rd->runs.p +
			    t.m.runs * sizeof(uint32_t),
			    t.m.nruns * sizeof(uint32_t));
		r->T = t.m.ones;
	} else
		r->T = t.L;
	/* A record without a length still trains, as one unit, unless its
	 * sample mask or its removal says it does not (the loss modes that
	 * need no token counts read only T > 0). */
	if (!t.known)
		r->T = !(off || gone > 0);
	r->sample_off = off;
	r->remove_absent = gone < 0;
	return 0;
}
