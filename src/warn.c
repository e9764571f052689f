/*
 * warn.c - warnings on what is legal but probably not what was meant.
 *
 * Each names its first occurrence and says what to type; none changes a
 * number.  They come from the frameworks' dumps: verl's agent loop writes
 * both a mask and token ids, slime's tool_call_count sits beside
 * metrics dicts, verl's metrics.tool_calls is seconds, a dump of two
 * steps read as one batch normalizes across steps, a prompt text shared
 * by two dataset rows makes one group of twice the size.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "fieldpath.h"
#include "warn.h"

/* How many groups had a size, and where the first of them was. */
struct wsize {
	size_t			 size;
	unsigned long long	 groups;
	char			*where;		/* "FILE:LINE", label */
	char			*label;
};

void
warn_init(struct warn *w, const struct fields *f, int group_size, int on)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->group_size = group_size;
	w->on = on;
}

void
warn_free(struct warn *w)
{
	size_t i;

	for (i = 0; i < w->nsizes; i++) {
		free(w->sizes[i].where);
		free(w->sizes[i].label);
	}
	free(w->sizes);
	for (i = 0; i < 2; i++) {
		free(w->step[i].v);
		free(w->step[i].where);
	}
	memset(w, 0, sizeof(*w));
}

static void
say(const char *file, unsigned long long lineno, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(const char *file, unsigned long long lineno, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rladv: %s:%llu: warning: ", file, lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * A framework computes in float32 and can leave a residue where rladv's
 * rule gives exactly 0 (equal rewards: (r - mean) / (std + 1e-4) of a
 * mean off by 1e-8 is 1e-4); a log made with other settings (group
 * size, reward fields or weights, estimator, scale) is off by far more.
 */
#define EXPECT_TOL	1e-3

void
warn_expect(struct warn_expect *x, const char *field, const struct gbatch *b,
    const struct batch *v, const double *adv)
{
	unsigned long long line;
	const char *file;
	size_t k;
	double e;

	for (k = 0; k < v->n; k++) {
		e = batch_expect(b, k);
		if (isnan(e) || batch_elsewhere(b, k))
			continue;
		x->n++;
		if (fabs(adv[k] - e) <= EXPECT_TOL * (1 + fabs(e)))
			continue;
		if (x->bad++ > 0)
			continue;
		file = batch_where(b, k, &line);
		say(file, line, "rladv's advantage is %.9g, the record's \"%s\" "
		    "%.9g: the log was made with other settings than these "
		    "options (group size, reward fields and weights, "
		    "estimator, --like, --std-scope)", adv[k], field, e);
	}
}

void
warn_expect_end(const struct warn_expect *x, const char *field)
{
	if (x->bad > 0)
		fprintf(stderr, "rladv: warning: %llu of %llu advantages "
		    "differ from the records' \"%s\" (--no-expect compares "
		    "none)\n", x->bad, x->n, field);
}

/* What the mask is, in words, for the warning about another one. */
static void
mask_read(const struct warn *w, const struct record *r, char *buf,
    size_t n)
{
	const struct fields *f = w->f;

	if (f->spans != NULL)
		snprintf(buf, n, "the trained tokens are --mask-spans \"%s\"",
		    f->spans);
	else if (r->alias[FR_MASK] >= 0)
		snprintf(buf, n, "the mask read is \"%s\"",
		    f->list[FR_MASK].name[(int)r->alias[FR_MASK]]);
	else
		snprintf(buf, n, "no mask is read: every token is trained");
}

/* The first value of a step field, r's, at FILE:LINE. */
static void
step_note(struct warn_step *s, const struct record *r, const char *v,
    const char *file, unsigned long long lineno)
{
	char tmp[32];

	s->v = diag_malloc(r->wlen + 1);
	memcpy(s->v, v, r->wlen);
	s->len = r->wlen;
	s->type = r->wtype;
	snprintf(tmp, sizeof(tmp), ":%llu", lineno);
	s->where = diag_malloc(strlen(file) + strlen(tmp) + 1);
	strcpy(s->where, file);
	strcat(s->where, tmp);
}

/*
 * A step not written as the first of its field (warn_same_step()), or
 * the first: compared by its canonical key (a string may be escaped one
 * way or the other) with that first, or where its field is new, with the
 * other field's.  verl writes "global_step" in some dumps and "step" in
 * others: where a log has both, no one --batch-key reads every record,
 * and the warning says so.
 */
static void
step_seen(struct warn *w, const struct record *r, const char *line,
    const char *file, unsigned long long lineno)
{
	static const char *const name[2] = { "step", "global_step" };
	static const char *const one = "without --batch-key the input is "
	    "one batch (groups of different steps are then normalized "
	    "together)";
	static const char *const two = "the records write the step under "
	    "two names";
	static const char *const fix = "--batch-key reads one field, which "
	    "every record must have: write the step under one name, then "
	    "give --batch-key";
	const char *v = line + r->wbeg;
	int n = r->wname != 0;
	struct warn_step *s = &w->step[n], *o = &w->step[!n];
	const struct warn_step *was = s->v != NULL ? s : o;
	struct buf ka = { 0 }, kb = { 0 }, a = { 0 }, b = { 0 };

	if (was->v == NULL) {
		step_note(s, r, v, file, lineno);
		return;
	}
	record_key_add(&ka, was->type, was->v, was->len);
	record_key_add(&kb, r->wtype, v, r->wlen);
	if (ka.len == kb.len && memcmp(ka.p, kb.p, ka.len) == 0) {
		if (s->v == NULL)	/* the other field's step */
			step_note(s, r, v, file, lineno);
	} else {
		record_key_label(ka.p, ka.len, &a);
		record_key_label(kb.p, kb.len, &b);
		if (o->v == NULL)
			say(file, lineno, "\"%s\" changes from %.*s to %.*s, "
			    "but %s; give --batch-key %s for one batch per "
			    "step", name[n], (int)a.len, a.p, (int)b.len, b.p,
			    one, name[n]);
		else if (was == s)
			say(file, lineno, "\"%s\" changes from %.*s to %.*s, "
			    "but %s; %s (\"%s\" at %s), and %s", name[n],
			    (int)a.len, a.p, (int)b.len, b.p, one, two,
			    name[!n], o->where, fix);
		else
			say(file, lineno, "\"%s\" %.*s follows \"%s\" %.*s "
			    "(%s), but %s; %s, and %s", name[n], (int)b.len,
			    b.p, name[!n], (int)a.len, a.p, o->where, one, two,
			    fix);
		w->step_said = 1;
	}
	buf_free(&ka);
	buf_free(&kb);
	buf_free(&a);
	buf_free(&b);
}

void
warn_record_say(struct warn *w, const struct record *r, const char *keys,
    const char *line, const char *file, unsigned long long lineno)
{
	struct buf a = { 0 };
	char what[200];
	unsigned bits;
	int i;

	if ((bits = r->unused_mask & ~w->masks) != 0) {
		mask_read(w, r, what, sizeof(what));
		for (i = 0; bits != 0; i++, bits >>= 1)
			if (bits & 1)
				say(file, lineno, "field \"%s\" looks like a "
				    "mask of trained tokens, but %s; name it "
				    "with --mask-key%s to read it",
				    fields_alias(FR_MASK, i), what,
				    w->f->spans ? " in place of --mask-spans" :
				    "");
		w->masks |= r->unused_mask;
	}
	if (r->has_step && !w->step_said && !warn_same_step(w, r, line))
		step_seen(w, r, line, file, lineno);
	if (r->roll_030 && !w->roll_said) {
		say(file, lineno, "field \"%s\" is there, \"%s\" is not: "
		    "slime 0.3.0 named the rollout id %s; give --rollout-key "
		    "%s to read it", SLIME_ROLL_030, w->f->rollout,
		    SLIME_ROLL_030, SLIME_ROLL_030);
		w->roll_said = 1;
	}
	if (r->strat_frac && !w->frac_said) {
		record_key_label(keys + r->skey, r->skeylen, &a);
		say(file, lineno, "the stratum is %.*s, not a count: each "
		    "distinct value is a stratum (verl's metrics.tool_calls "
		    "is seconds; its count of tool rounds is num_turns)",
		    (int)a.len, a.p);
		w->frac_said = 1;
		buf_free(&a);
	}
}

/* Group g as the warning names it: its key, quoted, or its block. */
static char *
label(const struct gbatch *b, size_t g)
{
	struct buf lab = { 0 };
	const char *key;
	char q[200];
	size_t len;

	key = batch_gkey(b, g, &len);
	if (len == 0)
		snprintf(q, sizeof(q), "block %zu", g + 1);
	else {
		record_key_label(key, len, &lab);
		fieldpath_quote(lab.p, lab.len, q, sizeof(q));
		buf_free(&lab);
	}
	return diag_strdup(q);
}

/*
 * slime normalizes rewards by prompt only where the rollout holds
 * n_samples_per_prompt samples of each prompt (_post_process_rewards'
 * reshape); an agent's rollout split into several samples makes them
 * more, and slime then normalizes the whole batch as one group.  Its
 * rpp-baseline takes that batch's mean as the baseline, which the
 * whitening after it removes: its advantages are then the whitened
 * rewards, rpp's (rpp itself refuses a fully masked sample, as slime's
 * does).
 */
static void
split_rollouts(struct warn *w, const struct gbatch *b)
{
	/* What slime does then, and what to type: GRPO's, rpp-baseline's. */
	static const char *const said[2][2] = {
		{ "normalizes the rewards by the mean and deviation",
		  "give --gn-scope batch for its advantages" },
		{ "takes the baseline", "its whitening removes that mean, "
		  "and -a rpp gives its advantages where no sample is fully "
		  "masked" } };
	const char *const *s = said[w->slime_groups != WARN_SLIME_GRPO];
	struct buf lab = { 0 };
	unsigned long long line;
	const char *file, *key;
	char q[256];
	size_t len;

	if ((file = batch_roll_shared(b, &line, &key, &len)) == NULL)
		return;
	record_key_label(key, len, &lab);
	fieldpath_quote(lab.p, lab.len, q, sizeof(q));
	buf_free(&lab);
	say(file, line, "\"%s\" %s has several samples, a rollout split "
	    "in parts: slime then %s of the whole batch, not of each prompt; "
	    "%s", w->f->rollout, q, s[0], s[1]);
	w->split_said = 1;
}

void
warn_batch(struct warn *w, const struct gbatch *b)
{
	struct wsize *s;
	unsigned long long line;
	const char *file;
	char where[512];
	size_t g, i, n;

	if (w->slime_groups && w->on && !w->split_said)
		split_rollouts(w, b);
	if (w->group_size || !w->on)
		return;
	for (g = 0; g < batch_ngroups(b); g++) {
		n = batch_gsize(b, g);
		for (i = 0; i < w->nsizes && w->sizes[i].size != n; i++)
			;
		if (i == w->nsizes) {
			if (w->nsizes == w->cap) {
				w->cap = w->cap ? 2 * w->cap : 8;
				w->sizes = diag_realloc(w->sizes, w->cap *
				    sizeof(*w->sizes));
			}
			s = &w->sizes[w->nsizes++];
			memset(s, 0, sizeof(*s));
			s->size = n;
			file = batch_gwhere(b, g, &line, NULL);
			snprintf(where, sizeof(where), "%s:%llu", file, line);
			s->where = diag_strdup(where);
			s->label = label(b, g);
		}
		w->sizes[i].groups++;
	}
}

void
warn_end(struct warn *w)
{
	const struct wsize *usual = NULL, *big = NULL;
	size_t i;

	for (i = 0; i < w->nsizes; i++)
		if (usual == NULL || w->sizes[i].groups > usual->groups ||
		    (w->sizes[i].groups == usual->groups &&
		    w->sizes[i].size < usual->size))
			usual = &w->sizes[i];
	/*
	 * A usual size means something only when several groups share it
	 * and it is a sample of a prompt (2 or more): small inputs and
	 * groups of one have no usual size to be twice of.
	 */
	if (usual == NULL || usual->size < 2 || usual->groups < 3)
		return;
	for (i = 0; i < w->nsizes; i++)
		if (w->sizes[i].size >= 2 * usual->size && (big == NULL ||
		    w->sizes[i].size > big->size))
			big = &w->sizes[i];
	if (big == NULL)
		return;
	fprintf(stderr, "rladv: %s: warning: group %s has %zu %s, %s%zu "
	    "times the usual %zu (no --group-size): its key may stand for "
	    "two prompts, ", big->where, big->label, big->size, w->f->traj ?
	    "trajectories" : "records", big->size % usual->size ? "over " :
	    "", big->size / usual->size, usual->size);
	/* Under a batch key the steps are apart already. */
	if (w->f->batch != NULL)
		fprintf(stderr, "or one prompt sampled twice at one "
		    "\"%s\" (check --group-key; --group-size %zu refuses such "
		    "a group)\n", w->f->batch, usual->size);
	else
		fprintf(stderr, "or a prompt of two steps (give --batch-key)"
		    "\n");
}
