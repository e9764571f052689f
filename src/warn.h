/*
 * warn.h - the warnings that keep a likely wrong number from passing in
 * silence: a mask-like field that is not read, a step that changes inside
 * one batch, a group far larger than the others, a stratum value that is
 * not a count.  Each is said once, on standard error, as
 * "rladv: FILE:LINE: warning: ...".  A struct warn is the caller's; it
 * owns what it copies until warn_free().
 */
#ifndef RLADV_WARN_H
#define RLADV_WARN_H

#include <stddef.h>
#include <string.h>

#include "batch.h"
#include "fields.h"
#include "record.h"

struct wsize;

/* The first value of a step field ("step" or "global_step"), as its line
 * writes it, and where. */
struct warn_step {
	char		*v;		/* NULL: none seen */
	size_t		 len;
	int		 type;		/* its enum json_type */
	char		*where;		/* "FILE:LINE" */
};

/* struct warn's slime_groups. */
enum { WARN_SLIME_GRPO = 1, WARN_SLIME_RPP_BASELINE };

struct warn {
	const struct fields	*f;
	int			 on;
	int			 group_size;	/* --group-size given */
	unsigned		 masks;		/* aliases already named */
	int			 step_said, frac_said;
	struct warn_step	 step[2];	/* by a record's wname */
	struct wsize		*sizes;		/* group sizes seen */
	size_t			 nsizes, cap;
	int			 slime_groups;	/* WARN_SLIME_*: --like
						   slime's estimator whose
						   group mean a split
						   rollout changes, or 0 */
	int			 split_said, roll_said;
};

/* on 0: a warn that says nothing. */
void	warn_init(struct warn *w, const struct fields *f, int group_size,
	    int on);
/* warn_record() for a record that may have something to say. */
void	warn_record_say(struct warn *w, const struct record *r,
	    const char *keys, const char *line, const char *file,
	    unsigned long long lineno);
/* r's step is written as the first of its field was (then it is that
 * step). */
static inline int
warn_same_step(const struct warn *w, const struct record *r,
    const char *line)
{
	const struct warn_step *s = &w->step[r->wname != 0];

	return s->v != NULL && r->wlen == s->len &&
	    memcmp(line + r->wbeg, s->v, r->wlen) == 0;
}
/* A record as it joins its batch (keys: the arena its keys index; line:
 * its line); another shard's (elsewhere) says nothing.  Inline: almost
 * every record has nothing to say, which a few tests find without a
 * call (a step as the first record wrote it among them). */
static inline void
warn_record(struct warn *w, const struct record *r, const char *keys,
    const char *line, const char *file, unsigned long long lineno)
{
	if (w->on && !r->elsewhere && ((r->unused_mask & ~w->masks) != 0 ||
	    (r->has_step && !w->step_said && !warn_same_step(w, r, line)) ||
	    (r->strat_frac && !w->frac_said) ||
	    (r->roll_030 && !w->roll_said)))
		warn_record_say(w, r, keys, line, file, lineno);
}
/* The groups of a batch, as it is handed over. */
void	warn_batch(struct warn *w, const struct gbatch *b);
/* At the end of the input: a group twice the usual size. */
void	warn_end(struct warn *w);
void	warn_free(struct warn *w);

/* --expect-key: rladv's advantages against the framework's own. */
struct warn_expect {
	unsigned long long	n, bad;		/* compared, differing */
};
/* Compares the advantages adv of b's view v with those its records hold
 * in field, and says where the first differs. */
void	warn_expect(struct warn_expect *x, const char *field,
	    const struct gbatch *b, const struct batch *v, const double *adv);
/* At the end of the input: how many differed, where any did. */
void	warn_expect_end(const struct warn_expect *x, const char *field);

#endif
