/*
 * fields.c - the names rladv reads a record by.
 *
 * Without options every role has a list of aliases: the names that
 * verl, TRL, OpenRLHF, NeMo-RL, slime, AReaL, ROLL, SkyRL and verifiers
 * write, tried in order.  An option (or a --from profile) names the one
 * field instead, and then that field must be there: a misspelled name is
 * an error, never a quiet fallback to an alias or to another rule.
 */
#include <math.h>
#include <string.h>

#include "fieldpath.h"
#include "fields.h"
#include "record.h"

static const char *const def_group[] = { "prompt_id", "uid", "group_id",
	"group_index", "example_id", "task_id", "traj_group_id", NULL };
static const char *const def_reward[] = { "reward", "score", "scores",
	"reward_score", "rewards", NULL };
static const char *const def_logprobs[] = { "logprobs", "rollout_log_probs",
	"generation_logprobs", "response_logprobs", "rollout_logprobs",
	"completion_logprobs", "action_log_probs", NULL };
static const char *const def_mask[] = { "mask", "response_mask", "loss_mask",
	"token_loss_mask", "env_mask", "action_mask", "completion_mask",
	"loss_masks", "tool_mask", NULL };
/* Token ids where they are the response's (slime's "tokens" holds the
 * prompt too, but slime writes log-probs, which come first). */
static const char *const def_tokens[] = { "response_ids", "completion_ids",
	"token_ids", "tokens", NULL };
static const char *const def_stratum[] = { "tool_calls", "num_turns",
	"tool_call_count", NULL };

static const char *const *const defaults[FR_NLISTED] = {
	def_group, def_reward, def_logprobs, def_mask, def_tokens, def_stratum
};

static const char *const options[FR_NROLES] = {
	"--group-key", "--reward-key", "--logprobs-key", "--mask-key",
	"--tokens-key", "--stratum-key", "--length-key", "--mask-spans",
	"--prompt-len-key", "--sample-mask-key", "--remove-key", "--batch-key",
	"--trajectory-key", "--trajectory-last-key", "--baseline-key",
	"--expect-key", "--rollout-key"
};

static const char *const roles[FR_NROLES] = {
	"group", "reward", "logprobs", "mask", "tokens", "stratum", "length",
	"mask spans", "prompt length", "sample mask", "removal", "batch",
	"trajectory", "trajectory end", "baseline of remax",
	"framework's advantage", "rollout"
};

/* The one name of a role that has one. */
static const char **
single(struct fields *f, enum frole role)
{
	switch (role) {
	case FR_LENGTH:		return &f->length;
	case FR_SPANS:		return &f->spans;
	case FR_PROMPT_LEN:	return &f->prompt_len;
	case FR_SAMPLE_MASK:	return &f->sample_mask;
	case FR_REMOVE:		return &f->remove;
	case FR_BATCH:		return &f->batch;
	case FR_TRAJ:		return &f->traj;
	case FR_TRAJ_LAST:	return &f->traj_last;
	case FR_BASELINE:	return &f->baseline;
	case FR_ROLLOUT:	return &f->rollout;
	default:		return &f->expect;
	}
}

void
fields_default(struct fields *f)
{
	struct field_list *l;
	int r, i;

	memset(f, 0, sizeof(*f));
	for (r = 0; r < FR_NLISTED; r++) {
		l = &f->list[r];
		for (i = 0; defaults[r][i] != NULL; i++)
			l->name[l->n++] = defaults[r][i];
	}
	for (i = 0; i < OUT_NFIELDS; i++)
		f->out[i] = record_out_names[i];
	/* verl's ReMax: the greedy response's reward, per prompt. */
	f->baseline = "reward_baselines";
	f->use_stratum = 1;
}

const char *
fields_alias(enum frole role, int i)
{
	const char *const *a;

	for (a = defaults[role]; i > 0 && *a != NULL; i--)
		a++;
	return i == 0 && *a != NULL ? *a : "";
}

const char *const *
fields_names(const struct fields *f, enum frole role, int *n)
{
	const char **p;

	if (role < FR_NLISTED) {
		*n = f->list[role].n;
		return f->list[role].name;
	}
	p = single((struct fields *)f, role);
	*n = *p != NULL;
	return *p != NULL ? p : NULL;
}

int
fields_set(struct fields *f, enum frole role, char *value, struct diag *d)
{
	struct fpath fp;
	const char **names, *why;
	char *s, *comma;
	int *n, several = role == FR_REWARD || role == FR_STRATUM;

	if (role >= FR_NLISTED) {
		names = single(f, role);
		n = NULL;
	} else {
		names = f->list[role].name;
		n = &f->list[role].n;
		*n = 0;
	}
	for (s = value;; s = comma + 1) {
		comma = several ? strchr(s, ',') : NULL;
		if (comma != NULL)
			*comma = '\0';
		if ((why = fieldpath_parse(s, &fp)) != NULL)
			/* Bare: a path may hold quotes (["a.b"]). */
			return diag_set(d, EXIT_USAGE, "%s %s: not a field "
			    "path: %s (write a.b, a[0], a.b[1].c, or [\"a.b\"] "
			    "for a name with a dot)", options[role], s, why);
		if (n == NULL)
			*names = s;
		else if (*n == FIELD_MAXNAMES)
			return diag_set(d, EXIT_USAGE, "%s: at most %d fields",
			    options[role], FIELD_MAXNAMES);
		else
			names[(*n)++] = s;
		if (comma == NULL)
			break;
	}
	f->named |= FN(role);
	f->optional &= ~FN(role);
	return 0;
}

void
fields_pin(struct fields *f)
{
	int r;

	for (r = 0; r < FR_NLISTED; r++)
		f->list[r].n = 0;
	/* remax's baseline keeps its name: no dump has one to pin. */
	for (r = FR_NLISTED; r < FR_NROLES; r++)
		if (r != FR_BASELINE)
			*single(f, r) = NULL;
	f->named = FN(FR_NLISTED) - 1;
	f->optional = 0;
}

void
fields_aliases(struct fields *f, enum frole role, const char *const *names)
{
	struct field_list *l = &f->list[role];

	for (l->n = 0; names[l->n] != NULL && l->n < FIELD_MAXNAMES; l->n++)
		l->name[l->n] = names[l->n];
	f->named &= ~FN(role);
}

const char *
fields_option(enum frole role)
{
	return options[role];
}

const char *
fields_role(enum frole role)
{
	return roles[role];
}

/* Roles whose values are of different kinds: a field is one of them. */
static const enum frole value_roles[] = { FR_GROUP, FR_REWARD, FR_LOGPROBS,
	FR_MASK, FR_TOKENS, FR_LENGTH, FR_SPANS, FR_PROMPT_LEN, FR_SAMPLE_MASK,
	FR_REMOVE, FR_BASELINE, FR_EXPECT };
#define NVALUE_ROLES (sizeof(value_roles) / sizeof(value_roles[0]))

/*
 * A field an option names for one role that another role reads too (as
 * named, or among its aliases): "--mask-key logprobs" made the log-probs
 * the mask as well.  Status 2, saying what to type.
 */
static int
two_roles(const struct fields *f, struct diag *d)
{
	const char *const *n1, *const *n2;
	size_t a, b;
	int i, j, c1, c2;
	enum frole r1, r2;

	for (a = 0; a < NVALUE_ROLES; a++) {
		r1 = value_roles[a];
		if (!(f->named & FN(r1)) || (n1 = fields_names(f, r1,
		    &c1)) == NULL)
			continue;
		for (b = 0; b < NVALUE_ROLES; b++) {
			r2 = value_roles[b];
			if (b == a || (n2 = fields_names(f, r2, &c2)) == NULL)
				continue;
			for (i = 0; i < c1; i++)
				for (j = 0; j < c2; j++) {
					if (strcmp(n1[i], n2[j]) != 0)
						continue;
					if (f->named & FN(r2))
						return diag_set(d, EXIT_USAGE,
						    "%s and %s both name \"%s\"; "
						    "a field has one role",
						    options[r1], options[r2],
						    n1[i]);
					return diag_set(d, EXIT_USAGE, "%s %s: "
					    "\"%s\" is read as the %s too (one "
					    "of its default names); a field has "
					    "one role: name the %s with %s",
					    options[r1], n1[i], n1[i],
					    roles[r2], roles[r2], options[r2]);
				}
		}
	}
	return 0;
}

/* A field an option names twice: "--reward-key x,x" read x twice (a
 * reward summed twice). */
static int
named_twice(const struct fields *f, struct diag *d)
{
	const struct field_list *l;
	int r, i, j;

	for (r = 0; r < FR_NLISTED; r++) {
		if (!(f->named & FN(r)))
			continue;
		l = &f->list[r];
		for (i = 0; i < l->n; i++)
			for (j = i + 1; j < l->n; j++)
				if (strcmp(l->name[i], l->name[j]) == 0)
					return diag_set(d, EXIT_USAGE, "%s "
					    "names \"%s\" twice; name each "
					    "field once", options[r],
					    l->name[i]);
	}
	return 0;
}

int
fields_check(const struct fields *f, struct diag *d)
{
	if (two_roles(f, d) != 0 || named_twice(f, d) != 0)
		return d->status;
	if (f->nweight > 0 && !(f->named & FN(FR_REWARD)))
		return diag_set(d, EXIT_USAGE, "--reward-weights needs "
		    "--reward-key naming the fields it weighs");
	if (f->nweight > 0 && f->nweight != f->list[FR_REWARD].n)
		return diag_set(d, EXIT_USAGE, "--reward-weights gives %d "
		    "weight%s for %d reward field%s; give one per field of "
		    "--reward-key, in its order", f->nweight, f->nweight == 1 ?
		    "" : "s", f->list[FR_REWARD].n, f->list[FR_REWARD].n == 1 ?
		    "" : "s");
	if (f->traj_last != NULL && f->traj == NULL)
		return diag_set(d, EXIT_USAGE, "--trajectory-last-key needs "
		    "--trajectory-key (the field that ties a trajectory's "
		    "rows)");
	/* A trajectory is one sample already; rows of one are not
	 * rollouts' samples. */
	if (f->rollout != NULL && f->traj != NULL)
		return diag_set(d, EXIT_USAGE, "--rollout-key and "
		    "--trajectory-key both join rows into one sequence; give "
		    "one");
	if (f->spans != NULL && (f->named & FN(FR_MASK)) &&
	    f->list[FR_MASK].n > 0)
		return diag_set(d, EXIT_USAGE, "--mask-spans and --mask-key "
		    "both say which tokens are trained; give one");
	return 0;
}

static int
same_name(const char *a, const char *b)
{
	return (a == NULL) == (b == NULL) && (a == NULL || strcmp(a, b) == 0);
}

int
fields_same(const struct fields *a, const struct fields *b)
{
	const char *const *na, *const *nb;
	int r, i, n, m;

	for (r = 0; r < FR_NROLES; r++) {
		na = fields_names(a, r, &n);
		nb = fields_names(b, r, &m);
		if (n != m)
			return 0;
		for (i = 0; i < n; i++)
			if (strcmp(na[i], nb[i]) != 0)
				return 0;
	}
	for (i = 0; i < a->nweight; i++)
		if (a->weight[i] != b->weight[i])
			return 0;
	for (i = 0; i < OUT_NFIELDS; i++)
		if (!same_name(a->out[i], b->out[i]))
			return 0;
	return a->named == b->named && a->optional == b->optional &&
	    a->nweight == b->nweight &&
	    a->reduce == b->reduce && a->null_reward == b->null_reward &&
	    a->unwrap == b->unwrap && a->columnar == b->columnar &&
	    a->has_cap == b->has_cap && (!a->has_cap || a->cap == b->cap);
}
