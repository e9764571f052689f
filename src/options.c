/*
 * options.c - the option table: one row per option, and the setters of
 * the rows whose value is more than one store.  A new option is one row
 * (and a setter when no kind's store fits it); optparse.c parses argv by
 * the table and opthelp.c prints it as --help.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "options.h"
#include "optparse.h"
#include "profile.h"

const char *const options_section[OS_N] = {
	"Advantages", "Loss weights", "Input", "Output",
	"Errors and devices", "Shards", "stats and diff"
};

/* Who takes what. */
#define C_EST	(OPT_COMPUTE | OPT_STATS | OPT_DIFF | OPT_SIDE | OPT_INDEX)
#define C_IN	(OPT_COMPUTE | OPT_STATS | OPT_DIFF | OPT_SIDE | OPT_INDEX)
#define C_ALL	OPT_CMDS

#define P(f)	offsetof(struct prefs, f)

/*
 * A field role's option (--group-key...): set_field() stores the names in
 * the role's place; off says where, for --help's defaults and for the
 * index.
 */
#define FIELD(name, meta, role, member, ...)				\
	{ name, 0, OK_FIELD, meta, C_IN, OS_INPUT, .set = set_field,	\
	    .ival = role, .off = P(fields.member), __VA_ARGS__ }
/* A role that looks for a list of names by default (--help lists them):
 * the role's list in struct fields, its names and their count. */
#define FIELDS(opt, meta, role, ...)					\
	{ opt, 0, OK_FIELD, meta, C_IN, OS_INPUT, .set = set_field,	\
	    .ival = role, .off = P(fields.list[role].name),		\
	    .off2 = P(fields.list[role].n), __VA_ARGS__ }

/* The setters' type, to declare them before the table that names them. */
typedef int setter(struct prefs *, struct optstore *, const struct opt *,
    const union optval *, struct diag *);

static setter	set_row, set_preset, set_field, set_weights, set_from,
		set_out_names, set_prefix, set_cap, set_ms_weights;
static const char *estimator_name(size_t);
static const char *loss_name(size_t);

static const char *const stds[] = { "population", "sample", NULL };
static const char *const std_scopes[] = { "group", "batch", "none", NULL };
static const char *const gn_scopes[] = { "group", "batch", NULL };
static const char *const ms_dss[] = { "random", "fixed", NULL };
static const char *const ms_dgs[] = { "diverse", "random", NULL };
static const char *const ms_stats[] = { "seq", "token", NULL };
static const char *const ms_modes[] = { "auto", "exact", "sampled", NULL };
static const char *const lscopes[] = { "batch", "group", NULL };
static const char *const on_errors[] = { "fail", "skip", NULL };
static const char *const devices[] = { "cpu", "cuda", "auto", NULL };
static const char *const reduces[] = { "sum", "last", NULL };
static const char *const null_rewards[] = { "error", "unscored", "zero",
	NULL };

const struct opt options_table[] = {
	/* Advantages */
	{ "advantage", 'a', OK_STR, "estimator", C_EST, OS_ADV,
	    .set = set_row, .alias = ALIAS_ESTIMATOR,
	    .show = options_show_estimator, .list = estimator_name,
	    .listdef = 1 },
	{ "std", 0, OK_CHOICE, NULL, C_EST, OS_ADV, .off = P(ap.sample),
	    .choices = stds,
	    .help = "the deviation divides by n (default) or n-1" },
	{ "eps", 0, OK_NUM, "x", C_EST, OS_ADV, .off = P(ap.eps),
	    .min = 0, .max = HUGE_VAL,
	    .help = "added to the deviation (default 1e-6)" },
	{ "alpha", 0, OK_NUM, "x", C_EST, OS_ADV, .off = P(ap.alpha),
	    .min = 0, .max = 1,
	    .help = "stratified: weight of SAN, 0..1 (default 0.6)" },
	{ "std-scope", 0, OK_CHOICE, NULL, C_EST, OS_ADV,
	    .off = P(ap.std_scope), .choices = std_scopes,
	    .help = "where GN's deviation comes from (default group)" },
	{ "gn-scope", 0, OK_CHOICE, NULL, C_EST, OS_ADV, .off = P(ap.gn_batch),
	    .choices = gn_scopes,
	    .help = "where GN's mean and deviation come from (default group)" },
	{ "eps-inside", 0, OK_FLAG, NULL, C_EST, OS_ADV,
	    .off = P(ap.eps_inside), .ival = 1,
	    .help = "divide by sqrt(var + eps), not std + eps (Balanced "
	    "Aggregation)" },
	{ "drop-zero-std", 0, OK_FLAG, NULL, C_EST, OS_ADV,
	    .off = P(ap.drop_zero), .ival = 1,
	    .help = "groups of equal rewards leave the batch (DAPO's "
	    "dynamic sampling): advantage and loss weight 0" },
	{ "random-strata", 0, OK_FLAG, NULL, C_EST, OS_ADV,
	    .off = P(ap.random_strata), .ival = 1,
	    .help = "san, stratified: each group's stratum labels shuffled, "
	    "seeded (Stratified GRPO's control)" },
	{ "like", 0, OK_STR, "name[@version]", C_EST, OS_ADV,
	    .set = set_preset, .show = options_show_like, .list = preset_name,
	    .help = "a framework's conventions, of its newest release or "
	    "the one named; -a, -g and the options after it override "
	    "them:" },
	{ "tau-min", 0, OK_INT, "n", C_EST, OS_ADV, .off = P(ap.ms.tau_min),
	    .min = 2, .clamp = 1e6,
	    .help = "msgrpo: smallest scale, >= 2 (default 2)" },
	{ "ms-weights", 0, OK_STR, "scheme|w,w,...", C_EST, OS_ADV,
	    .set = set_ms_weights, .show = options_show_ms_weights,
	    .list = msgrpo_weights_name, .listdef = 1,
	    .want = "uniform, global, local, flat, or weights w,w,... of "
	    "the scales from --tau-min up (>= 0, one above 0)",
	    .help = "msgrpo: the weights of the scales from --tau-min up, "
	    "or a scheme:" },
	{ "ms-stats", 0, OK_CHOICE, NULL, C_EST, OS_ADV,
	    .off = P(ap.ms.token_stats), .choices = ms_stats,
	    .help = "msgrpo: subgroup statistics (default seq)" },
	{ "ms-mode", 0, OK_CHOICE, NULL, C_EST, OS_ADV, .off = P(ap.ms.mode),
	    .choices = ms_modes,
	    .help = "msgrpo: how (default auto)" },
	{ "ms-scales", 0, OK_INT, "m", C_EST, OS_ADV, .off = P(ap.ms.scales),
	    .min = 1, .clamp = 1e6,
	    .help = "msgrpo sampled: scales (default 4)" },
	{ "ms-groups", 0, OK_INT, "k", C_EST, OS_ADV, .off = P(ap.ms.groups),
	    .min = 1, .clamp = 1e6,
	    .help = "msgrpo sampled: subgroups per scale (default 8)" },
	{ "ms-dss", 0, OK_CHOICE, NULL, C_EST, OS_ADV, .off = P(ap.ms.dss),
	    .choices = ms_dss,
	    .help = "msgrpo sampled: a random scale of each interval "
	    "(default) or its end" },
	{ "ms-dgs", 0, OK_CHOICE, NULL, C_EST, OS_ADV, .off = P(ap.ms.dgs),
	    .choices = ms_dgs,
	    .help = "msgrpo sampled: the most diverse subgroups (default) "
	    "or random ones" },
	{ "ms-budget", 0, OK_NUM, "n", C_EST, OS_ADV, .off = P(ap.ms.budget),
	    .min = 0, .max = HUGE_VAL,
	    .help = "msgrpo: work per group, either path (default 1e8)" },
	{ "seed", 0, OK_INT, "s", C_EST, OS_ADV, .off = P(ap.ms.seed),
	    .ctype = CT_U64, .min = 0,
	    .help = "msgrpo sampled, --random-strata: seed (default 0)" },

	/* Loss weights */
	{ "agg", 'g', OK_STR, "mode", C_EST, OS_LOSS, .set = set_row,
	    .alias = ALIAS_LOSS, .show = options_show_loss, .list = loss_name,
	    .listdef = 1 },
	{ "scope", 0, OK_CHOICE, NULL, C_EST, OS_LOSS, .off = P(scope_group),
	    .choices = lscopes,
	    .help = "normalize over the batch (default) or each group" },
	{ "max-len", 0, OK_NUM, "l", C_EST, OS_LOSS, .off = P(lp.max_len),
	    .min = 0, .excl = 1, .max = HUGE_VAL,
	    .help = "seq-sum-norm: the constant normalizer" },

	/* Input */
	{ "from", 0, OK_CHOICE, "framework", C_IN, OS_INPUT,
	    .set = set_from, .show = options_show_from,
	    .choices = profile_names,
	    .help = "read a framework's dump: its fields and rules; options "
	    "after it override them" },
	FIELDS("group-key", "field", FR_GROUP,
	    .help = "the prompt"),
	FIELDS("reward-key", "field[,field...]", FR_REWARD,
	    .help = "the reward; several fields are summed (weights: "
	    "--reward-weights)"),
	{ "reward-weights", 0, OK_STR, "w[,w...]", C_IN, OS_INPUT,
	    .set = set_weights, .show = options_show_weights,
	    .want = "numbers separated by commas",
	    .help = "one weight per --reward-key field (default 1 each)" },
	{ "reward-reduce", 0, OK_CHOICE, NULL, C_IN, OS_INPUT,
	    .off = P(fields.reduce), .choices = reduces,
	    .help = "an array reward: its sum (default) or last element" },
	{ "null-reward", 0, OK_CHOICE, NULL, C_IN, OS_INPUT,
	    .off = P(fields.null_reward), .choices = null_rewards,
	    .help = "a null reward is an error (default), leaves the record "
	    "out of its group's baseline (unscored: TRL from 1.6.0), or reads "
	    "as 0 (zero: TRL before 1.6.0)" },
	FIELDS("logprobs-key", "field", FR_LOGPROBS,
	    .help = "the log-probs, one per response token"),
	FIELDS("mask-key", "field", FR_MASK,
	    .help = "the trained tokens, 0/1 per token"),
	FIELDS("tokens-key", "field", FR_TOKENS,
	    .help = "the response's token ids (their count is its length)"),
	FIELD("length-key", "field", FR_LENGTH, length,
	    .help = "the response length, a number"),
	FIELD("mask-spans", "field", FR_SPANS, spans,
	    .help = "spans [start, end) of trained tokens"),
	FIELD("prompt-len-key", "field", FR_PROMPT_LEN, prompt_len,
	    .help = "its first n tokens are not trained"),
	FIELD("sample-mask-key", "field", FR_SAMPLE_MASK, sample_mask,
	    .help = "0: the record trains no token and is no sample of the "
	    "loss"),
	FIELD("remove-key", "field", FR_REMOVE, remove,
	    .help = "true: the record trains no token but is a sample of "
	    "the loss"),
	FIELDS("stratum-key", "field[,field...]", FR_STRATUM,
	    .want = "field names separated by commas",
	    .help = "the stratum; several fields make a composite key"),
	{ "stratum-cap", 0, OK_NUM, "n", C_IN, OS_INPUT, .set = set_cap,
	    .show = options_show_cap,
	    .min = 0, .max = HUGE_VAL,
	    .help = "stratum values >= n share one stratum" },
	FIELD("baseline-key", "field", FR_BASELINE, baseline,
	    .help = "remax: the greedy response's reward"),
	/* Changes no number: not recorded in an index. */
	FIELD("expect-key", "field", FR_EXPECT, expect, .local = 1,
	    .help = "the framework's own advantage (a number, or an array "
	    "of it): warn where rladv's differs"),
	{ "no-expect", 0, OK_FLAG, NULL, OPT_COMPUTE, OS_INPUT,
	    .off = P(no_expect), .ival = 1,
	    .help = "compare with no --expect-key field (--from trl and "
	    "nemo-rl set one)" },
	FIELD("batch-key", "field", FR_BATCH, batch,
	    .help = "a change of its value starts a new batch"),
	{ "batch-groups", 0, OK_INT, "n", C_IN, OS_INPUT,
	    .off = P(go.batch_groups), .ctype = CT_SIZE, .min = 1,
	    .help = "a batch every n groups" },
	{ "group-size", 0, OK_INT, "g", C_IN, OS_INPUT,
	    .off = P(go.group_size), .ctype = CT_SIZE, .min = 1,
	    .help = "groups of exactly g records (blocks without key)" },
	{ "unsorted", 0, OK_FLAG, NULL, C_IN, OS_INPUT, .off = P(go.unsorted),
	    .ival = 1,
	    .help = "a group's records may be anywhere in the batch" },
	FIELD("trajectory-key", "field", FR_TRAJ, traj,
	    .help = "consecutive rows with equal values are one response"),
	FIELD("trajectory-last-key", "field", FR_TRAJ_LAST, traj_last,
	    .help = "true on a trajectory's last row"),
	FIELD("rollout-key", "field", FR_ROLLOUT, rollout,
	    .help = "records with equal values are one sequence of the seq "
	    "modes (slime's rollout_id)"),
	{ "columnar", 0, OK_FLAG, NULL, C_IN, OS_INPUT,
	    .off = P(fields.columnar), .ival = 1,
	    .help = "a line is columns of equal length, one record per index" },
	{ "unwrap", 0, OK_FLAG, NULL, C_IN, OS_INPUT, .off = P(fields.unwrap),
	    .ival = 1,
	    .help = "a field read as [x] is x, as [[...]] is [...]" },
	{ "max-line", 0, OK_BYTES, "bytes", C_IN | OPT_OUTPUTS, OS_INPUT,
	    .off = P(max_line), .local = 1,
	    .help = "longest line accepted (default 1G)" },

	/* Output */
	{ "no-tokens", 0, OK_FLAG, NULL, OPT_COMPUTE, OS_OUTPUT,
	    .off = P(tokens), .ival = 0,
	    .help = "leave out token_advantages, token_loss_weights" },
	/* Its undoing: --from sets --no-tokens for the dumps without
	 * token arrays, and AReaL's has lengths. */
	{ "tokens", 0, OK_FLAG, NULL, OPT_COMPUTE, OS_OUTPUT,
	    .off = P(tokens), .ival = 1,
	    .help = "write them (the default; after --from verl, trl, "
	    "areal, roll or verifiers, which leave them out)" },
	{ "annotate", 0, OK_FLAG, NULL, OPT_COMPUTE, OS_OUTPUT,
	    .off = P(annotate), .ival = 1,
	    .help = "add \"rladv\": group and stratum statistics" },
	{ "digits", 0, OK_INT, "n", OPT_COMPUTE, OS_OUTPUT, .off = P(digits),
	    .min = 1, .max = 17,
	    .help = "significant digits, 1..17 (default 9)" },
	{ "output", 'o', OK_FILE, "file", OPT_COMPUTE | OPT_INDEX, OS_OUTPUT,
	    .off = P(out), .local = 1,
	    .help = "write there (gzip when file ends in .gz)" },
	{ "gzip", 'z', OK_FLAG, NULL, OPT_COMPUTE | OPT_INDEX, OS_OUTPUT,
	    .off = P(gzip), .ival = 1, .local = 1,
	    .help = "gzip standard output" },
	{ "output-names", 0, OK_STR, "adv,tadv,w,tw", OPT_COMPUTE, OS_OUTPUT,
	    .set = set_out_names, .want = "four names separated by commas",
	    .help = "the names of the four fields written" },
	{ "prefix", 0, OK_STR, "p", OPT_COMPUTE, OS_OUTPUT, .set = set_prefix,
	    .help = "p before each of their names, e.g. rladv_" },

	/* Errors and devices */
	{ "on-error", 0, OK_CHOICE, NULL, C_IN, OS_ERR, .off = P(skip),
	    .choices = on_errors,
	    .help = "stop at a bad record, or leave it out" },
	{ "rejects", 0, OK_FILE, "file", C_IN & ~OPT_INDEX, OS_ERR,
	    .off = P(rejects),
	    .help = "with skip: bad lines are written there" },
	{ "jobs", 'j', OK_INT, "n", OPT_COMPUTE | OPT_STATS | OPT_DIFF, OS_ERR,
	    .off = P(jobs), .max = 256, .local = 1,
	    .help = "threads (default: every core; -j 1: one)" },
	{ "device", 0, OK_CHOICE, NULL, C_EST & ~OPT_INDEX, OS_ERR,
	    .off = P(device), .choices = devices,
	    .help = "where numbers are computed (default cpu)" },
	{ "verbose", 'v', OK_FLAG, NULL, OPT_COMPUTE, OS_ERR,
	    .off = P(verbose), .ival = 1,
	    .help = "summary on standard error" },
	{ "help", 'h', OK_HELP, NULL, C_ALL, OS_ERR,
	    .help = "the usage and the options of the command" },
	{ "version", 'V', OK_VERSION, NULL, C_ALL, OS_ERR,
	    .help = "version and build" },

	/* Shards */
	{ "index", 0, OK_FILE, "file", OPT_COMPUTE, OS_SHARD, .off = P(index),
	    .help = "the index of every shard (rladv index): write this "
	    "shard's records with the numbers of the whole run" },
	{ "merge", 0, OK_FLAG, NULL, OPT_INDEX, OS_SHARD, .off = P(merge),
	    .ival = 1, .local = 1,
	    .help = "index: check indexes and write them as one" },

	/* stats and diff */
	{ "json", 0, OK_FLAG, NULL, OPT_STATS | OPT_DIFF | OPT_OUTPUTS, OS_SUB,
	    .off = P(json), .ival = 1,
	    .help = "every number as one JSON document" },
	{ "by-batch", 0, OK_FLAG, NULL, OPT_STATS, OS_SUB, .off = P(by_batch),
	    .ival = 1,
	    .help = "stats: one row per batch, a run's trend, and nothing "
	    "else" },
	{ "html", 0, OK_FILE, "page", OPT_STATS | OPT_DIFF, OS_SUB,
	    .off = P(html),
	    .help = "also draw the figures on one HTML page (- for standard "
	    "output)" },
	{ "a", 0, OK_STR, "options", OPT_DIFF, OS_SUB, .off = P(diff.opt[0]),
	    .help = "diff: the first configuration, compute options in "
	    "quotes" },
	{ "b", 0, OK_STR, "options", OPT_DIFF, OS_SUB, .off = P(diff.opt[1]),
	    .help = "diff: the second configuration" },
	{ "top", 0, OK_INT, "n", OPT_DIFF | OPT_OUTPUTS, OS_SUB,
	    .off = P(diff.top), .ctype = CT_SIZE, .min = 0, .max = 1e6,
	    .help = "diff: the n largest differences shown (default 5)" },
	{ "outputs", 0, OK_MODE, NULL, OPT_DIFF | OPT_OUTPUTS, OS_SUB,
	    .mode = OPT_OUTPUTS,
	    .help = "diff: two output files, record by record" },
	{ "key", 0, OK_FIELD, "field[,field...]", OPT_OUTPUTS, OS_SUB,
	    .off = P(diff.key), .want = "field names separated by commas",
	    .help = "diff --outputs: match records by these fields, not by "
	    "line" },
	{ "tol", 0, OK_NUM, "x", OPT_OUTPUTS, OS_SUB, .off = P(diff.tol),
	    .min = 0, .max = HUGE_VAL,
	    .help = "diff --outputs: relative tolerance (default 1e-9)" },
	{ "atol", 0, OK_NUM, "x", OPT_OUTPUTS, OS_SUB, .off = P(diff.atol),
	    .min = 0, .max = HUGE_VAL,
	    .help = "diff --outputs: absolute tolerance (default 0)" },
	{ .name = NULL }
};

/* A choice stores its index as an int, so the enums it sets must be
 * ints (C11 6.7.2.2: an enum is compatible with an integer type). */
_Static_assert(sizeof(enum std_scope) == sizeof(int), "enum std_scope");
_Static_assert(sizeof(enum ms_weights) == sizeof(int), "enum ms_weights");
_Static_assert(sizeof(enum ms_mode) == sizeof(int), "enum ms_mode");
_Static_assert(sizeof(enum ms_dss) == sizeof(int), "enum ms_dss");
_Static_assert(sizeof(enum ms_dgs) == sizeof(int), "enum ms_dgs");
_Static_assert(sizeof(enum device) == sizeof(int), "enum device");
_Static_assert(sizeof(enum reward_reduce) == sizeof(int),
    "enum reward_reduce");

void
options_defaults(struct prefs *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = OPT_COMPUTE;
	p->est = advantage_find("grpo");
	advantage_defaults(&p->ap);
	p->loss = loss_weights_find("token");
	fields_default(&p->fields);
	p->tokens = 1;
	p->digits = 9;
	p->gzip_level = 1;
	p->max_line = (size_t)1 << 30;
	p->device = DEV_CPU;
	p->diff.tol = 1e-9;
	p->diff.top = 5;
}

/* ---- Setters: rows whose value is more than one store ---------------- */

static const char *
estimator_name(size_t i)
{
	return advantage_table[i].name;
}

static const char *
loss_name(size_t i)
{
	return loss_weights_table[i].name;
}

void
options_list(const struct opt *o, int mark, char *buf, size_t size)
{
	const char *s;
	size_t i;

	*buf = '\0';
	for (i = 0; (s = o->list(i)) != NULL; i++) {
		strncat(buf, i ? ", " : "", size - strlen(buf) - 1);
		strncat(buf, s, size - strlen(buf) - 1);
		if (i == 0 && mark)
			strncat(buf, " (default)", size - strlen(buf) - 1);
	}
}

/* "unknown advantage estimator "x"; use one of: grpo, ...". */
static int
unknown_name(const struct opt *o, const char *what, const char *arg,
    struct diag *d)
{
	char want[512];

	options_list(o, 0, want, sizeof(want));
	return diag_set(d, EXIT_USAGE, "unknown %s \"%s\"; use one of: %s",
	    what, arg, want);
}

void
options_aliases(const struct opt *o, char *buf, size_t size)
{
	const struct alias *a;
	int i;

	*buf = '\0';
	for (a = alias_table; a->target != NULL; a++) {
		if (a->of != o->alias)
			continue;
		/* The row once, after the last of its names. */
		for (i = 0; i < ALIAS_MAX && a->names[i].name != NULL; i++) {
			strncat(buf, *buf != '\0' ? ", " : "",
			    size - strlen(buf) - 1);
			strncat(buf, a->names[i].name, size - strlen(buf) - 1);
		}
		strncat(buf, " (", size - strlen(buf) - 1);
		strncat(buf, a->target, size - strlen(buf) - 1);
		strncat(buf, ")", size - strlen(buf) - 1);
	}
}

/*
 * -a and -g (the table of the row's aliases): a row of the estimators' or
 * the loss modes' table by its name or a framework's, marked given so
 * that a later --like keeps it.
 */
static int
set_row(struct prefs *p, struct optstore *own, const struct opt *o,
    const union optval *v, struct diag *d)
{
	const char *what;
	const void *row;

	(void)own;
	switch (o->alias) {
	case ALIAS_ESTIMATOR:
		row = p->est = advantage_find(v->str);
		p->est_given = 1;
		what = "advantage estimator";
		break;
	default:
		row = p->loss = loss_weights_find(v->str);
		p->loss_given = 1;
		what = "loss mode";
		break;
	}
	return row != NULL ? 0 : unknown_name(o, what, v->str, d);
}

/* --like: a preset row's conventions (preset.c); its estimator and
 * mode unless -a or -g was given. */
static int
set_preset(struct prefs *p, struct optstore *own, const struct opt *o,
    const union optval *v, struct diag *d)
{
	const struct preset *r;
	double max_len = p->lp.max_len;

	(void)own;
	(void)o;
	if (preset_find(v->str, &r, d) != 0)
		return d->status;
	p->like = r;
	p->ap.sample = r->sample;
	p->ap.eps = r->eps;
	p->ap.single = r->single;
	p->ap.wh = r->wh;
	p->ap.rpp_tokens = r->rpp_tokens;
	p->ap.rscale = r->rscale;
	p->ap.rbias = r->rbias;
	p->ap.rclip = r->rclip;
	p->lp = r->lw;
	p->lp.max_len = max_len;
	if (!p->est_given)
		p->est = advantage_find(r->estimator);
	if (!p->loss_given)
		p->loss = loss_weights_find(r->loss);
	return 0;
}

/* A field option: the names (a copy that own keeps) in place of the
 * aliases; the role is the row's ival. */
static int
set_field(struct prefs *p, struct optstore *own, const struct opt *o,
    const union optval *v, struct diag *d)
{
	char *s = diag_strdup(v->str);

	optparse_keep(own, s);
	if (fields_set(&p->fields, o->ival, s, d) != 0)
		return d->status;
	if (o->ival == FR_BATCH)
		p->go.has_batch_key = 1;
	return 0;
}

/* A list "a,b,c" split in place: at most max parts, none empty. */
static int
split_list(struct optstore *own, const struct opt *o, const char *arg,
    char **part, int max, int *n, struct diag *d)
{
	char *s = diag_strdup(arg), *comma;

	optparse_keep(own, s);
	for (*n = 0;; s = comma + 1) {
		if ((comma = strchr(s, ',')) != NULL)
			*comma = '\0';
		if (*s == '\0' || *n == max)
			return diag_set(d, EXIT_USAGE, "--%s: invalid value "
			    "\"%s\"; expected %s", o->name, arg, o->want);
		part[(*n)++] = s;
		if (comma == NULL)
			return 0;
	}
}

/* --reward-weights 1,0.5: TRL's reward_weights. */
static int
set_weights(struct prefs *p, struct optstore *own, const struct opt *o,
    const union optval *v, struct diag *d)
{
	char *part[FIELD_MAXNAMES], *end;
	int i, n;

	if (split_list(own, o, v->str, part, FIELD_MAXNAMES, &n, d) != 0)
		return d->status;
	for (i = 0; i < n; i++) {
		p->fields.weight[i] = strtod(part[i], &end);
		if (*end != '\0' || !isfinite(p->fields.weight[i]))
			return diag_set(d, EXIT_USAGE, "--%s: \"%s\" is not a "
			    "finite number", o->name, part[i]);
	}
	p->fields.nweight = n;
	return 0;
}

/* --from NAME: every field role to none, then the profile's options. */
static int
set_from(struct prefs *p, struct optstore *own, const struct opt *o,
    const union optval *v, struct diag *d)
{
	struct fields *f = &p->fields;
	const struct profile *prof = &profile_table[v->choice];

	(void)o;
	fields_pin(f);
	f->weight[0] = 0;
	f->nweight = 0;
	f->reduce = REDUCE_SUM;
	f->null_reward = NULL_ERROR;
	f->unwrap = 0;
	f->columnar = 0;
	f->profile = profile_names[v->choice];
	p->go.has_batch_key = 0;
	if (optparse_words(p, own, prof->opts, d) != 0)
		return d->status;
	if (prof->aliases != NULL)
		fields_aliases(f, prof->alias_role, prof->aliases);
	f->optional = prof->optional;
	return 0;
}

/* The names written: --prefix before --output-names' (or the default). */
static void
out_names(struct prefs *p, struct optstore *own)
{
	const char *base;
	size_t n;
	char *s;
	int i;

	for (i = 0; i < OUT_ANN; i++) {
		base = p->out_name[i] != NULL ? p->out_name[i] :
		    record_out_names[i];
		if (p->out_prefix == NULL) {
			p->fields.out[i] = base;
			continue;
		}
		n = strlen(p->out_prefix) + strlen(base) + 1;
		s = diag_malloc(n);
		snprintf(s, n, "%s%s", p->out_prefix, base);
		optparse_keep(own, s);
		p->fields.out[i] = s;
	}
}

/*
 * A name rladv writes that is a field it reads (or the first member of
 * its path): the output would replace the input's, as it replaces a
 * stale "advantage" of an earlier run, and lose the group key or the
 * reward.  Status 2.
 */
static int
out_clash(const struct prefs *p, struct diag *d)
{
	const char *const *names;
	size_t len;
	int i, j, n, r;

	for (r = 0; r < FR_NROLES; r++) {
		/* The framework's advantage is read to be compared, then
		 * written over (TRL's log has rladv's own name). */
		if (r == FR_EXPECT ||
		    (names = fields_names(&p->fields, r, &n)) == NULL)
			continue;
		for (j = 0; j < n; j++) {
			len = strcspn(names[j], ".[");
			for (i = 0; i < OUT_ANN; i++)
				if (strlen(p->fields.out[i]) == len &&
				    strncmp(p->fields.out[i], names[j],
				    len) == 0)
					return diag_set(d, EXIT_USAGE, "rladv "
					    "would write \"%s\" over a field "
					    "it reads (the %s: %s); give "
					    "--output-names or --prefix other "
					    "names", p->fields.out[i],
					    fields_role(r), names[j]);
		}
	}
	return 0;
}

/* --output-names adv,tadv,w,tw: distinct top-level names. */
static int
set_out_names(struct prefs *p, struct optstore *own, const struct opt *o,
    const union optval *v, struct diag *d)
{
	char *part[OUT_ANN];
	int i, j, n;

	if (split_list(own, o, v->str, part, OUT_ANN, &n, d) != 0)
		return d->status;
	if (n != OUT_ANN)
		return diag_set(d, EXIT_USAGE, "--%s: give 4 names, for the "
		    "advantage, the token advantages, the loss weight and the "
		    "token loss weights, e.g. --%s adv,tadv,w,tw", o->name,
		    o->name);
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(part[i], part[j]) == 0)
				return diag_set(d, EXIT_USAGE, "--%s: \"%s\" "
				    "twice", o->name, part[i]);
		p->out_name[i] = part[i];
	}
	out_names(p, own);
	return 0;
}

/* --prefix p: p before each of the four names. */
static int
set_prefix(struct prefs *p, struct optstore *own, const struct opt *o,
    const union optval *v, struct diag *d)
{
	(void)o;
	(void)d;
	p->out_prefix = v->str;
	out_names(p, own);
	return 0;
}

static int
set_cap(struct prefs *p, struct optstore *own, const struct opt *o,
    const union optval *v, struct diag *d)
{
	(void)own;
	(void)o;
	(void)d;
	p->fields.cap = v->num;
	p->fields.has_cap = 1;
	return 0;
}

/* --ms-weights: a scheme, or the user's weights (msgrpo_weights_parse). */
static int
set_ms_weights(struct prefs *p, struct optstore *own, const struct opt *o,
    const union optval *v, struct diag *d)
{
	double *w = NULL;
	int rc;

	if ((rc = msgrpo_weights_parse(&p->ap.ms, v->str, &w)) != 0)
		return diag_set(d, EXIT_USAGE, "--%s: %s \"%s\"; expected %s",
		    o->name, rc == MSGRPO_WEIGHTS ? "every weight is 0 in" :
		    "invalid value", v->str, o->want);
	if (w != NULL)
		optparse_keep(own, w);
	return 0;
}

/* ---- Looking rows up ------------------------------------------------ */

const struct opt *
options_find(const char *name)
{
	const struct opt *o;

	for (o = options_table; o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

const struct opt *
options_find_short(int c)
{
	const struct opt *o;

	for (o = options_table; o->name; o++)
		if (o->shortname && o->shortname == c)
			return o;
	return NULL;
}

const char *
options_cmd_name(unsigned mode)
{
	switch (mode) {
	case OPT_COMPUTE:	return "rladv compute";
	case OPT_STATS:		return "rladv stats";
	case OPT_DIFF:		return "rladv diff";
	case OPT_OUTPUTS:	return "rladv diff --outputs";
	case OPT_INDEX:		return "rladv index";
	default:		return "the option strings of diff --a and --b";
	}
}

unsigned
options_reachable(unsigned mode)
{
	const struct opt *o;
	unsigned m = mode;

	for (o = options_table; o->name; o++)
		if (o->kind == OK_MODE && (o->cmds & mode))
			m |= o->mode;
	return m;
}

int
options_check(struct prefs *p, struct diag *d)
{
	size_t len;

	if ((p->loss->flags & LOSS_MAXLEN) && p->lp.max_len <= 0)
		return diag_set(d, EXIT_USAGE, "-g %s needs --max-len L (the "
		    "constant normalizer, e.g. the generation limit)",
		    p->loss->name);
	if (p->rejects && !p->skip)
		return diag_set(d, EXIT_USAGE, "--rejects needs --on-error "
		    "skip");
	if (advantage_check(p->est, &p->ap, d) != 0)
		return d->status;
	if (p->fields.columnar && p->skip)
		return diag_set(d, EXIT_USAGE, "--columnar writes each line "
		    "whole, so --on-error skip cannot leave a record out of "
		    "it; drop --on-error skip");
	if (p->fields.columnar && p->annotate)
		return diag_set(d, EXIT_USAGE, "--annotate adds a member to "
		    "each record, and a --columnar line holds many records: "
		    "drop one of the two");
	if (fields_check(&p->fields, d) != 0 || out_clash(p, d) != 0)
		return d->status;
	if ((p->mode == OPT_INDEX || p->index != NULL) &&
	    (p->fields.columnar || p->fields.traj != NULL))
		return diag_set(d, EXIT_USAGE, "%s cannot take %s: an index "
		    "holds one record per line, each on its own; run rladv "
		    "over the shards at once instead (rladv %s FILE...)",
		    p->index != NULL ? "--index" : "rladv index",
		    p->fields.columnar ? "--columnar" : "--trajectory-key",
		    p->fields.columnar ? "--columnar" : "--trajectory-key");
	p->fields.need_stratum = (p->est->flags & ADV_STRATA) != 0;
	p->fields.need_baseline = (p->est->flags & ADV_BASE) != 0;
	p->fields.need_parts = (p->est->flags & ADV_PARTS) != 0;
	/* Compared with the advantages compute writes; no other command
	 * reads it. */
	if (p->mode != OPT_COMPUTE || p->no_expect)
		p->fields.expect = NULL;
	memcpy(p->ap.rweight, p->fields.weight, sizeof(p->ap.rweight));
	p->ap.nrweight = p->fields.nweight;
	/* The stratum is read only where it is used (an index holds it for
	 * every estimator). */
	p->fields.use_stratum = p->fields.need_stratum || p->annotate ||
	    p->mode != OPT_COMPUTE || p->index != NULL;
	/* A step that changes while the input is one batch: a warning. */
	p->fields.watch_step = p->fields.batch == NULL &&
	    p->go.batch_groups == 0;
	p->fields.need_group = p->go.group_size == 0;
	if (p->out && (len = strlen(p->out)) > 3 &&
	    strcmp(p->out + len - 3, ".gz") == 0)
		p->gzip = 1;
	return 0;
}
