/*
 * options.c - the option table and what comes from it: getopt_long's
 * arrays, the reading of each argument, --help, and the usage errors of an
 * option given to a command that does not use it.
 *
 * A new option is one row (and a setter when no kind's store fits it).
 * Options are taken in order, so that a preset (--like) sets several at
 * its place and an option after it overrides it.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

enum section { S_ADV, S_LOSS, S_INPUT, S_OUTPUT, S_ERR, S_SUB, S_N };

static const char *const section_title[S_N] = {
	"Advantages", "Loss weights", "Input", "Output",
	"Errors and devices", "stats and diff"
};

/* Who takes what. */
#define C_EST	(OPT_COMPUTE | OPT_DIFF | OPT_SIDE)
#define C_IN	(OPT_COMPUTE | OPT_STATS | OPT_DIFF | OPT_SIDE)
#define C_ALL	OPT_CMDS

#define P(f)	offsetof(struct prefs, f)

static int	set_estimator(struct prefs *, struct optstore *,
		    const struct opt *, const char *, struct diag *);
static int	set_loss(struct prefs *, struct optstore *,
		    const struct opt *, const char *, struct diag *);
static int	set_preset(struct prefs *, struct optstore *,
		    const struct opt *, const char *, struct diag *);
static int	set_names(struct prefs *, struct optstore *,
		    const struct opt *, const char *, struct diag *);
static int	set_strata(struct prefs *, struct optstore *,
		    const struct opt *, const char *, struct diag *);
static int	set_batch_key(struct prefs *, struct optstore *,
		    const struct opt *, const char *, struct diag *);
static int	set_cap(struct prefs *, struct optstore *,
		    const struct opt *, const char *, struct diag *);
static const char *estimator_name(size_t);
static const char *loss_name(size_t);

static const char *const stds[] = { "population", "sample", NULL };
static const char *const std_scopes[] = { "group", "batch", "none", NULL };
static const char *const gn_scopes[] = { "group", "batch", NULL };
static const char *const presets[] = { "verl", "trl", "openrlhf", NULL };
static const char *const ms_weights[] = { "uniform", "global", "local",
    NULL };
static const char *const ms_stats[] = { "seq", "token", NULL };
static const char *const ms_modes[] = { "auto", "exact", "sampled", NULL };
static const char *const lscopes[] = { "batch", "group", NULL };
static const char *const on_errors[] = { "fail", "skip", NULL };
static const char *const devices[] = { "cpu", "cuda", "auto", NULL };

const struct opt options_table[] = {
	/* Advantages */
	{ "advantage", 'a', OK_STR, "estimator", C_EST, S_ADV,
	    .set = set_estimator, .list = estimator_name },
	{ "std", 0, OK_CHOICE, NULL, C_EST, S_ADV, .off = P(ap.sample),
	    .choices = stds,
	    .help = "the deviation divides by n (default) or n-1" },
	{ "eps", 0, OK_NUM, "x", C_EST, S_ADV, .off = P(ap.eps),
	    .min = 0, .max = HUGE_VAL,
	    .help = "added to the deviation (default 1e-6)" },
	{ "alpha", 0, OK_NUM, "x", C_EST, S_ADV, .off = P(ap.alpha),
	    .min = 0, .max = 1,
	    .help = "stratified: weight of SAN, 0..1 (default 0.6)" },
	{ "std-scope", 0, OK_CHOICE, NULL, C_EST, S_ADV, .off = P(ap.std_scope), .choices = std_scopes,
	    .help = "where GN's deviation comes from (default group)" },
	{ "gn-scope", 0, OK_CHOICE, NULL, C_EST, S_ADV, .off = P(ap.gn_batch),
	    .choices = gn_scopes,
	    .help = "where GN's mean and deviation come from (default group)" },
	{ "like", 0, OK_CHOICE, NULL, C_EST, S_ADV, .set = set_preset,
	    .choices = presets,
	    .help = "the conventions of a framework; options after it "
	    "override them" },
	{ "tau-min", 0, OK_INT, "n", C_EST, S_ADV, .off = P(ap.ms.tau_min),
	    .min = 2, .clamp = 1e6,
	    .help = "msgrpo: smallest scale, >= 2 (default 2)" },
	{ "ms-weights", 0, OK_CHOICE, NULL, C_EST, S_ADV, .off = P(ap.ms.weights), .choices = ms_weights,
	    .help = "msgrpo: scale weights (default uniform)" },
	{ "ms-stats", 0, OK_CHOICE, NULL, C_EST, S_ADV,
	    .off = P(ap.ms.token_stats), .choices = ms_stats,
	    .help = "msgrpo: subgroup statistics (default seq)" },
	{ "ms-mode", 0, OK_CHOICE, NULL, C_EST, S_ADV, .off = P(ap.ms.mode), .choices = ms_modes,
	    .help = "msgrpo: how (default auto)" },
	{ "ms-scales", 0, OK_INT, "m", C_EST, S_ADV, .off = P(ap.ms.scales),
	    .min = 1, .clamp = 1e6,
	    .help = "msgrpo sampled: scales (default 4)" },
	{ "ms-groups", 0, OK_INT, "k", C_EST, S_ADV, .off = P(ap.ms.groups),
	    .min = 1, .clamp = 1e6,
	    .help = "msgrpo sampled: subgroups per scale (default 8)" },
	{ "ms-budget", 0, OK_NUM, "n", C_EST, S_ADV, .off = P(ap.ms.budget),
	    .min = 0, .max = HUGE_VAL,
	    .help = "msgrpo exact: work per group (default 1e8)" },
	{ "seed", 0, OK_INT, "s", C_EST, S_ADV, .off = P(ap.ms.seed),
	    .ctype = CT_U64, .min = 0,
	    .help = "msgrpo sampled: seed (default 0)" },

	/* Loss weights */
	{ "agg", 'g', OK_STR, "mode", C_EST, S_LOSS, .set = set_loss,
	    .list = loss_name },
	{ "scope", 0, OK_CHOICE, NULL, C_EST, S_LOSS, .off = P(scope_group),
	    .choices = lscopes,
	    .help = "normalize over the batch (default) or each group" },
	{ "max-len", 0, OK_NUM, "l", C_EST, S_LOSS, .off = P(lp.max_len),
	    .min = 0, .excl = 1, .max = HUGE_VAL,
	    .help = "seq-sum-norm: the constant normalizer" },

	/* Input */
	{ "group-key", 0, OK_FIELD, "field", C_IN, S_INPUT, .set = set_names,
	    .off = P(fields.group), .off2 = P(fields.ngroup),
	    .help = "the prompt" },
	{ "reward-key", 0, OK_FIELD, "field", C_IN, S_INPUT, .set = set_names,
	    .off = P(fields.reward), .off2 = P(fields.nreward),
	    .help = "the reward" },
	{ "logprobs-key", 0, OK_FIELD, "field", C_IN, S_INPUT,
	    .set = set_names, .off = P(fields.logprobs),
	    .off2 = P(fields.nlogprobs),
	    .help = "the log-probs, one per response token" },
	{ "mask-key", 0, OK_FIELD, "field", C_IN, S_INPUT, .set = set_names,
	    .off = P(fields.mask), .off2 = P(fields.nmask),
	    .help = "the trained tokens, 0/1 per token" },
	{ "stratum-key", 0, OK_FIELD, "field[,field...]", C_IN, S_INPUT,
	    .set = set_strata, .off = P(fields.stratum),
	    .off2 = P(fields.nstratum),
	    .want = "field names separated by commas",
	    .help = "the stratum; several fields make a composite key" },
	{ "stratum-cap", 0, OK_NUM, "n", C_IN, S_INPUT, .set = set_cap,
	    .min = -HUGE_VAL, .max = HUGE_VAL,
	    .help = "stratum values >= n share one stratum" },
	{ "batch-key", 0, OK_FIELD, "field", C_IN, S_INPUT,
	    .set = set_batch_key,
	    .help = "a change of its value starts a new batch" },
	{ "batch-groups", 0, OK_INT, "n", C_IN, S_INPUT,
	    .off = P(go.batch_groups), .ctype = CT_SIZE, .min = 1,
	    .help = "a batch every n groups" },
	{ "group-size", 0, OK_INT, "g", C_IN, S_INPUT,
	    .off = P(go.group_size), .ctype = CT_SIZE, .min = 1,
	    .help = "groups of exactly g records (blocks without key)" },
	{ "unsorted", 0, OK_FLAG, NULL, C_IN, S_INPUT, .off = P(go.unsorted),
	    .ival = 1,
	    .help = "a group's records may be anywhere in the batch" },
	{ "max-line", 0, OK_BYTES, "bytes", C_IN | OPT_OUTPUTS, S_INPUT,
	    .off = P(max_line),
	    .help = "longest line accepted (default 1G)" },

	/* Output */
	{ "no-tokens", 0, OK_FLAG, NULL, OPT_COMPUTE, S_OUTPUT,
	    .off = P(tokens), .ival = 0,
	    .help = "leave out token_advantages, token_loss_weights" },
	{ "annotate", 0, OK_FLAG, NULL, OPT_COMPUTE, S_OUTPUT,
	    .off = P(annotate), .ival = 1,
	    .help = "add \"rladv\": group and stratum statistics" },
	{ "digits", 0, OK_INT, "n", OPT_COMPUTE, S_OUTPUT, .off = P(digits),
	    .min = 1, .max = 17,
	    .help = "significant digits, 1..17 (default 9)" },
	{ "output", 'o', OK_FILE, "file", OPT_COMPUTE, S_OUTPUT,
	    .off = P(out),
	    .help = "write there (gzip when file ends in .gz)" },
	{ "gzip", 'z', OK_FLAG, NULL, OPT_COMPUTE, S_OUTPUT, .off = P(gzip),
	    .ival = 1, .help = "gzip standard output" },

	/* Errors and devices */
	{ "on-error", 0, OK_CHOICE, NULL, C_IN, S_ERR, .off = P(skip),
	    .choices = on_errors,
	    .help = "stop at a bad record, or leave it out" },
	{ "rejects", 0, OK_FILE, "file", C_IN, S_ERR, .off = P(rejects),
	    .help = "with skip: bad lines are written there" },
	{ "device", 0, OK_CHOICE, NULL, C_EST, S_ERR, .off = P(device), .choices = devices,
	    .help = "where numbers are computed (default cpu)" },
	{ "verbose", 'v', OK_FLAG, NULL, OPT_COMPUTE, S_ERR,
	    .off = P(verbose), .ival = 1,
	    .help = "summary on standard error" },
	{ "help", 'h', OK_HELP, NULL, C_ALL, S_ERR,
	    .help = "the usage and the options of the command" },
	{ "version", 'V', OK_VERSION, NULL, C_ALL, S_ERR,
	    .help = "version and build" },

	/* stats and diff */
	{ "json", 0, OK_FLAG, NULL, OPT_STATS | OPT_DIFF | OPT_OUTPUTS, S_SUB,
	    .off = P(json), .ival = 1,
	    .help = "every number as one JSON document" },
	{ "a", 0, OK_STR, "options", OPT_DIFF, S_SUB, .off = P(diff.opt[0]),
	    .help = "diff: the first configuration, compute options in "
	    "quotes" },
	{ "b", 0, OK_STR, "options", OPT_DIFF, S_SUB, .off = P(diff.opt[1]),
	    .help = "diff: the second configuration" },
	{ "top", 0, OK_INT, "n", OPT_DIFF | OPT_OUTPUTS, S_SUB,
	    .off = P(diff.top), .ctype = CT_SIZE, .min = 0, .max = 1e6,
	    .help = "diff: the n largest differences shown (default 5)" },
	{ "outputs", 0, OK_MODE, NULL, OPT_DIFF | OPT_OUTPUTS, S_SUB,
	    .mode = OPT_OUTPUTS,
	    .help = "diff: two output files, record by record" },
	{ "key", 0, OK_FIELD, "field[,field...]", OPT_OUTPUTS, S_SUB,
	    .off = P(diff.key), .want = "field names separated by commas",
	    .help = "diff --outputs: match records by these fields, not by "
	    "line" },
	{ "tol", 0, OK_NUM, "x", OPT_OUTPUTS, S_SUB, .off = P(diff.tol),
	    .min = 0, .max = HUGE_VAL,
	    .help = "diff --outputs: relative tolerance (default 1e-9)" },
	{ "atol", 0, OK_NUM, "x", OPT_OUTPUTS, S_SUB, .off = P(diff.atol),
	    .min = 0, .max = HUGE_VAL,
	    .help = "diff --outputs: absolute tolerance (default 0)" },
	{ .name = NULL }
};

#define NOPTS	(sizeof(options_table) / sizeof(options_table[0]) - 1)

/* A choice stores its index as an int, so the enums it sets must be
 * ints (C11 6.7.2.2: an enum is compatible with an integer type). */
_Static_assert(sizeof(enum std_scope) == sizeof(int), "enum std_scope");
_Static_assert(sizeof(enum ms_weights) == sizeof(int), "enum ms_weights");
_Static_assert(sizeof(enum ms_mode) == sizeof(int), "enum ms_mode");
_Static_assert(sizeof(enum device) == sizeof(int), "enum device");

void
options_defaults(struct prefs *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = OPT_COMPUTE;
	p->est = advantage_find("grpo");
	advantage_defaults(&p->ap);
	p->loss = loss_weights_find("token");
	record_fields_default(&p->fields);
	p->tokens = 1;
	p->digits = 9;
	p->gzip_level = 1;
	p->max_line = (size_t)1 << 30;
	p->device = DEV_CPU;
	p->diff.tol = 1e-9;
	p->diff.top = 5;
}

/* ---- Reading arguments ---------------------------------------------- */

static int
bad(struct diag *d, const char *opt, const char *arg, const char *want)
{
	return diag_set(d, EXIT_USAGE, "--%s: invalid value \"%s\"; expected "
	    "%s", opt, arg, want);
}

/* A finite number.  strtod's ERANGE is not checked: an underflow to a
 * subnormal or to 0 is the nearest double, and overflow is not finite. */
static int
num(const char *arg, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	return end != arg && *end == '\0' && isfinite(*v);
}

static int
read_num(const struct opt *o, const char *arg, double *v, struct diag *d)
{
	char want[80];

	if (num(arg, v) && (o->excl ? *v > o->min : *v >= o->min) &&
	    *v <= o->max)
		return 0;
	if (isinf(o->min) && isinf(o->max))
		snprintf(want, sizeof(want), "a number");
	else if (isinf(o->max))
		snprintf(want, sizeof(want), "a number %s %g",
		    o->excl ? ">" : ">=", o->min);
	else
		snprintf(want, sizeof(want), "a number between %g and %g",
		    o->min, o->max);
	return bad(d, o->name, arg, want);
}

/* An integer from min to max (1e15 when none), then at most clamp. */
static int
read_int(const struct opt *o, const char *arg, double *v, struct diag *d)
{
	double max = o->max > 0 ? o->max : 1e15;
	char want[80];

	if (num(arg, v) && *v == floor(*v) && *v >= o->min && *v <= max) {
		if (o->clamp > 0 && *v > o->clamp)
			*v = o->clamp;
		return 0;
	}
	if (o->max > 0)
		snprintf(want, sizeof(want), "an integer from %.0f to %.0f",
		    o->min, o->max);
	else
		snprintf(want, sizeof(want), "an integer >= %.0f", o->min);
	return bad(d, o->name, arg, want);
}

static int
read_bytes(const struct opt *o, const char *arg, size_t *v, struct diag *d)
{
	char *end;
	double x;
	double mul = 1;

	errno = 0;
	x = strtod(arg, &end);
	if (end != arg && *end && !end[1]) {
		switch (toupper((unsigned char)*end)) {
		case 'K': mul = 1024.0; end++; break;
		case 'M': mul = 1024.0 * 1024; end++; break;
		case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
		default: break;
		}
	}
	if (end == arg || *end || !(x >= 1) || x * mul > 1e15)
		return bad(d, o->name, arg,
		    "a size such as 65536, 64K, 16M or 1G");
	*v = (size_t)(x * mul);
	return 0;
}

/* The index of arg in the row's choices. */
static int
read_choice(const struct opt *o, const char *arg, int *v, struct diag *d)
{
	const char *const *names = o->choices;
	char want[256] = "";
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(arg, names[i]) == 0) {
			*v = i;
			return 0;
		}
	for (i = 0; names[i]; i++) {
		strncat(want, i ? (names[i + 1] ? ", " : " or ") : "",
		    sizeof(want) - strlen(want) - 1);
		strncat(want, names[i], sizeof(want) - strlen(want) - 1);
	}
	return bad(d, o->name, arg, want);
}

/* Reads arg as the row's kind says and stores it at the row's off. */
static int
store(struct prefs *p, const struct opt *o, const char *arg, struct diag *d)
{
	char *at = (char *)p + o->off;
	double x;
	int v;

	switch (o->kind) {
	case OK_FLAG:
		*(int *)at = o->ival;
		break;
	case OK_NUM:
		if (read_num(o, arg, &x, d))
			return d->status;
		*(double *)at = x;
		break;
	case OK_INT:
		if (read_int(o, arg, &x, d))
			return d->status;
		if (o->ctype == CT_SIZE)
			*(size_t *)at = (size_t)x;
		else if (o->ctype == CT_U64)
			*(uint64_t *)at = (uint64_t)x;
		else
			*(int *)at = (int)x;
		break;
	case OK_BYTES:
		return read_bytes(o, arg, (size_t *)at, d);
	case OK_CHOICE:
		if (read_choice(o, arg, &v, d))
			return d->status;
		*(int *)at = v;
		break;
	case OK_FIELD:
	case OK_FILE:
	case OK_STR:
		*(const char **)at = arg;
		break;
	default:
		break;
	}
	return 0;
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

/* "a, b, c" of a row's list; the first is the default, which mark
 * says. */
static void
list_names(const struct opt *o, int mark, char *buf, size_t size)
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

static int
set_estimator(struct prefs *p, struct optstore *own, const struct opt *o,
    const char *arg, struct diag *d)
{
	char want[512];

	(void)own;
	if ((p->est = advantage_find(arg)) != NULL)
		return 0;
	list_names(o, 0, want, sizeof(want));
	return diag_set(d, EXIT_USAGE, "unknown advantage estimator \"%s\"; "
	    "use one of: %s", arg, want);
}

static int
set_loss(struct prefs *p, struct optstore *own, const struct opt *o,
    const char *arg, struct diag *d)
{
	char want[512];

	(void)own;
	if ((p->loss = loss_weights_find(arg)) != NULL)
		return 0;
	list_names(o, 0, want, sizeof(want));
	return diag_set(d, EXIT_USAGE, "unknown loss mode \"%s\"; use one of: "
	    "%s", arg, want);
}

/* --like: the conventions that reproduce a framework's numbers. */
static int
set_preset(struct prefs *p, struct optstore *own, const struct opt *o,
    const char *arg, struct diag *d)
{
	int v;

	(void)own;
	if (read_choice(o, arg, &v, d))
		return d->status;
	p->ap.sample = 1;
	p->lp.count_all = 1;
	p->ap.verl_single = v == 0;
	p->lp.seq_eps = v == 0 ? 1e-8 : 0;
	p->ap.eps = v == 0 ? 1e-6 : v == 1 ? 1e-4 : 1e-9;
	return 0;
}

/* A field's one name, in place of its aliases. */
static int
set_names(struct prefs *p, struct optstore *own, const struct opt *o,
    const char *arg, struct diag *d)
{
	const char **names = (const char **)(void *)((char *)p + o->off);
	int *n = (int *)(void *)((char *)p + o->off2);

	(void)own;
	(void)d;
	names[0] = arg;
	*n = 1;
	return 0;
}

/* --stratum-key a,b: the names stay in a copy that own keeps. */
static int
set_strata(struct prefs *p, struct optstore *own, const struct opt *o,
    const char *arg, struct diag *d)
{
	struct fields *f = &p->fields;
	char *s, *tok, *save;

	s = diag_strdup(arg);
	optstore_add(own, s);
	f->nstratum = 0;
	for (tok = strtok_r(s, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (f->nstratum == FIELD_MAXNAMES)
			return diag_set(d, EXIT_USAGE, "--%s: at most %d "
			    "fields", o->name, FIELD_MAXNAMES);
		f->stratum[f->nstratum++] = tok;
	}
	if (f->nstratum == 0)
		return bad(d, o->name, arg, o->want);
	return 0;
}

static int
set_batch_key(struct prefs *p, struct optstore *own, const struct opt *o,
    const char *arg, struct diag *d)
{
	(void)own;
	(void)o;
	(void)d;
	p->fields.batch = arg;
	p->go.has_batch_key = 1;
	return 0;
}

static int
set_cap(struct prefs *p, struct optstore *own, const struct opt *o,
    const char *arg, struct diag *d)
{
	(void)own;
	if (read_num(o, arg, &p->fields.cap, d))
		return d->status;
	p->fields.has_cap = 1;
	return 0;
}

/* ---- Parsing -------------------------------------------------------- */

const struct opt *
options_find(const char *name)
{
	const struct opt *o;

	for (o = options_table; o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

static const struct opt *
find_short(int ch)
{
	const struct opt *o;

	for (o = options_table; o->name; o++)
		if (o->shortname && o->shortname == ch)
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

/* "-o (--output)" or "--eps". */
static void
opt_label(const struct opt *o, char *buf, size_t size)
{
	if (o->shortname)
		snprintf(buf, size, "-%c (--%s)", o->shortname, o->name);
	else
		snprintf(buf, size, "--%s", o->name);
}

/* An option that the command at hand does not take: say whose it is. */
static int
not_taken(const struct opt *o, unsigned mode, struct diag *d)
{
	char lab[64], whose[256] = "";
	unsigned b, left;

	opt_label(o, lab, sizeof(lab));
	left = o->cmds & ~(OPT_SIDE | OPT_INDEX);
	for (b = 1; left != 0; b <<= 1) {
		if (!(left & b))
			continue;
		left &= ~b;
		strncat(whose, !*whose ? "" : left ? ", " : " and ",
		    sizeof(whose) - strlen(whose) - 1);
		strncat(whose, options_cmd_name(b),
		    sizeof(whose) - strlen(whose) - 1);
	}
	return diag_set(d, EXIT_USAGE, "%s is an option of %s, not of %s",
	    lab, whose, options_cmd_name(mode));
}

/* The option getopt could not match: another command's, or unknown. */
static int
unknown(char **argv, unsigned mode, struct diag *d)
{
	const char *arg = argv[optind - 1];
	const struct opt *o = NULL;
	char name[64];
	size_t n;

	if (optopt)
		o = find_short(optopt);
	else if (strncmp(arg, "--", 2) == 0) {
		n = strcspn(arg + 2, "=");
		if (n < sizeof(name)) {
			memcpy(name, arg + 2, n);
			name[n] = '\0';
			o = options_find(name);
		}
	}
	if (o != NULL)
		return not_taken(o, mode, d);
	if (optopt)
		return diag_set(d, EXIT_USAGE, "unknown option -%c; see rladv "
		    "--help", optopt);
	return diag_set(d, EXIT_USAGE, "unknown option %s; see rladv --help",
	    arg);
}

/* The modes a parse for mode may switch to (diff: --outputs). */
static unsigned
reachable(unsigned mode)
{
	const struct opt *o;
	unsigned m = mode;

	for (o = options_table; o->name; o++)
		if (o->kind == OK_MODE && (o->cmds & mode))
			m |= o->mode;
	return m;
}

static int
takes_arg(const struct opt *o)
{
	switch (o->kind) {
	case OK_FLAG:
	case OK_MODE:
	case OK_HELP:
	case OK_VERSION:
		return 0;
	default:
		return 1;
	}
}

/* getopt_long's arrays for the rows that the modes m take. */
static void
getopt_arrays(unsigned m, struct option *lo, char *so)
{
	const struct opt *o;
	size_t k = 0;

	*so++ = ':';
	for (o = options_table; o->name; o++) {
		if (!(o->cmds & m))
			continue;
		lo[k].name = o->name;
		lo[k].has_arg = takes_arg(o) ? required_argument : no_argument;
		lo[k].flag = NULL;
		lo[k].val = 256 + (int)(o - options_table);
		if (o->shortname) {
			*so++ = (char)o->shortname;
			if (takes_arg(o))
				*so++ = ':';
		}
		k++;
	}
	*so = '\0';
	memset(&lo[k], 0, sizeof(lo[k]));
}

/*
 * getopt_long takes a unique abbreviation: --output for diff's --outputs.
 * A name that is another option's in full is that option.
 */
static const struct opt *
typed(const struct opt *o, char **argv)
{
	const char *w = argv[optind - 1];
	const struct opt *t;
	char name[64];
	size_t n;

	if (takes_arg(o) && optarg == w)
		w = argv[optind - 2];
	if (strncmp(w, "--", 2) != 0 || (n = strcspn(w + 2, "=")) >=
	    sizeof(name))
		return o;
	memcpy(name, w + 2, n);
	name[n] = '\0';
	return (t = options_find(name)) != NULL ? t : o;
}

struct given {
	const struct opt	*o;
	char			*arg;
};

/*
 * Collects the options that the modes m take, up to the end, --help or
 * --version; returns the count, or -1 with d set (naming mode).
 */
static int
collect(int argc, char **argv, unsigned mode, unsigned m, struct given *g,
    int *meta, struct diag *d)
{
	struct option lo[NOPTS + 1];
	char so[2 * NOPTS + 2];
	const struct opt *o;
	int ch, n = 0;

	getopt_arrays(m, lo, so);
	optind = 0;	/* GNU: full reinitialization */
	opterr = 0;
	*meta = 0;
	while ((ch = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (ch == '?') {
			unknown(argv, mode, d);
			return -1;
		}
		if (ch == ':') {
			diag_set(d, EXIT_USAGE, "option %s needs a value; see "
			    "rladv --help", argv[optind - 1]);
			return -1;
		}
		o = ch >= 256 ? typed(&options_table[ch - 256], argv) :
		    find_short(ch);
		if (!(o->cmds & m)) {
			not_taken(o, mode, d);
			return -1;
		}
		g[n].o = o;
		g[n++].arg = optarg;
		if (o->kind == OK_HELP || o->kind == OK_VERSION) {
			*meta = o->kind == OK_HELP ? OPT_HELP : OPT_VERSION;
			break;
		}
	}
	return n;
}

/* One option's value into p: the row's setter, or its kind's store. */
static int
apply(struct prefs *p, struct optstore *own, const struct opt *o,
    const char *arg, struct diag *d)
{
	if ((o->kind == OK_FIELD || o->kind == OK_FILE) && *arg == '\0')
		return bad(d, o->name, arg, o->want ? o->want :
		    o->kind == OK_FIELD ? "a field name" : "a file name");
	if (o->set)
		return o->set(p, own, o, arg, d);
	return store(p, o, arg, d);
}

int
options_parse(struct prefs *p, struct optstore *own, int argc, char **argv,
    struct diag *d)
{
	struct given *g;
	int i, n, meta, rc = 0;

	g = diag_malloc(((size_t)argc + 1) * sizeof(*g));
	if ((n = collect(argc, argv, p->mode, reachable(p->mode), g,
	    &meta, d)) < 0) {
		free(g);
		return d->status;
	}
	/* The mode first, so that every option is judged by it. */
	for (i = 0; i < n; i++)
		if (g[i].o->kind == OK_MODE && (g[i].o->cmds & p->mode))
			p->mode = g[i].o->mode;
	for (i = 0; i < n && rc == 0; i++)
		if (!(g[i].o->cmds & p->mode))
			rc = not_taken(g[i].o, p->mode, d);
	for (i = 0; i < n && rc == 0; i++)
		rc = apply(p, own, g[i].o, g[i].arg, d);
	free(g);
	if (rc != 0 || meta != 0)
		return rc != 0 ? rc : meta;
	if (p->mode == OPT_SIDE && optind < argc)
		return diag_set(d, EXIT_USAGE, "unexpected argument \"%s\" in "
		    "an option string", argv[optind]);
	p->files = argv + optind;
	p->nfiles = (size_t)(argc - optind);
	return 0;
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
	p->fields.need_stratum = (p->est->flags & ADV_STRATA) != 0;
	if (p->out && (len = strlen(p->out)) > 3 &&
	    strcmp(p->out + len - 3, ".gz") == 0)
		p->gzip = 1;
	return 0;
}

/* ---- --help --------------------------------------------------------- */

#define HELP_COL	28
#define HELP_WIDTH	79

/* Writes the words of s after column *col, wrapping at HELP_WIDTH to
 * HELP_COL; *first: no blank before the next word. */
static void
help_words(FILE *f, const char *s, int *col, int *first)
{
	size_t n;

	for (;;) {
		s += strspn(s, " ");
		if ((n = strcspn(s, " ")) == 0)
			return;
		if (!*first && *col + 1 + (int)n > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_COL, "");
			*col = HELP_COL;
		} else if (!*first) {
			fputc(' ', f);
			(*col)++;
		}
		fwrite(s, 1, n, f);
		*col += (int)n;
		*first = 0;
		s += n;
	}
}

/* "(default: prompt_id, uid, ...)": the names a field row replaces. */
static void
default_names(const struct opt *o, char *buf, size_t size)
{
	struct prefs def;
	const char **names;
	int i, n;

	options_defaults(&def);
	names = (const char **)(void *)((char *)&def + o->off);
	n = *(int *)(void *)((char *)&def + o->off2);
	*buf = '\0';
	for (i = 0; i < n; i++) {
		strncat(buf, i ? ", " : "(default: ", size - strlen(buf) - 1);
		strncat(buf, names[i], size - strlen(buf) - 1);
	}
	if (n > 0)
		strncat(buf, ")", size - strlen(buf) - 1);
}

/* One row: "  -a, --advantage estimator  text" */
static void
help_row(FILE *f, const struct opt *o)
{
	const char *const *c;
	char list[512];
	int col, first = 1;

	if (o->shortname)
		col = fprintf(f, "  -%c, --%s", o->shortname, o->name);
	else
		col = fprintf(f, "      --%s", o->name);
	if (o->choices)
		for (c = o->choices; *c; c++)
			col += fprintf(f, "%c%s", c == o->choices ? ' ' : '|',
			    *c);
	else if (o->meta)
		col += fprintf(f, " %s", o->meta);
	/* The text from HELP_COL, or two blanks after a long left part. */
	col += fprintf(f, "%*s", col + 2 <= HELP_COL ? HELP_COL - col : 2,
	    "");
	if (o->help)
		help_words(f, o->help, &col, &first);
	if (o->list) {
		list_names(o, 1, list, sizeof(list));
		help_words(f, list, &col, &first);
	}
	if (o->kind == OK_FIELD && o->off2) {
		default_names(o, list, sizeof(list));
		help_words(f, list, &col, &first);
	}
	fputc('\n', f);
}

void
options_help(FILE *f, unsigned mode)
{
	const struct opt *o;
	int s, any;

	mode = reachable(mode);
	for (s = 0; s < S_N; s++) {
		any = 0;
		for (o = options_table; o->name; o++) {
			if (o->section != s || !(o->cmds & mode))
				continue;
			if (!any++)
				fprintf(f, "%s:\n", section_title[s]);
			help_row(f, o);
		}
	}
}

/* ---- Option strings (diff --a "...") -------------------------------- */

int
options_split(const char *s, struct optstore *own, int *argc, char ***argv,
    struct diag *d)
{
	size_t n = strlen(s), cap = 8;
	/* n bytes of words, one NUL each, and the empty argv[0]. */
	char *buf = diag_malloc(2 * n + 2), *o = buf, q = 0;
	char **v = diag_malloc(cap * sizeof(*v));
	int c = 0, inword = 0;

	/* argv[0] is a placeholder for getopt, the words follow it. */
	v[c++] = buf;
	*o++ = '\0';
	for (; *s; s++) {
		if (q) {
			if (*s == q)
				q = 0;
			else
				*o++ = *s;
			continue;
		}
		if (*s == '\'' || *s == '"') {
			q = *s;
			if (!inword) {
				if ((size_t)c + 1 >= cap)
					v = diag_realloc(v, (cap *= 2) *
					    sizeof(*v));
				v[c++] = o;
				inword = 1;
			}
			continue;
		}
		if (isspace((unsigned char)*s)) {
			if (inword) {
				*o++ = '\0';
				inword = 0;
			}
			continue;
		}
		if (!inword) {
			if ((size_t)c + 1 >= cap)
				v = diag_realloc(v, (cap *= 2) * sizeof(*v));
			v[c++] = o;
			inword = 1;
		}
		*o++ = *s;
	}
	*o = '\0';
	if (q) {
		free(buf);
		free(v);
		return diag_set(d, EXIT_USAGE, "unterminated quote in option "
		    "string");
	}
	v[c] = NULL;
	optstore_add(own, buf);
	optstore_add(own, v);
	*argc = c;
	*argv = v;
	return 0;
}

/* ---- What the prefs point into -------------------------------------- */

void
optstore_add(struct optstore *own, void *p)
{
	own->p = diag_realloc(own->p, (own->n + 1) * sizeof(*own->p));
	own->p[own->n++] = p;
}

void
optstore_free(struct optstore *own)
{
	size_t i;

	for (i = 0; i < own->n; i++)
		free(own->p[i]);
	free(own->p);
	own->p = NULL;
	own->n = 0;
}
