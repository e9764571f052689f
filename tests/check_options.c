/*
 * check_options.c - tests of the option table (src/options.c) and of what
 * comes from it: every row parsed and shown by --help for exactly the
 * commands that take it, an option of another command refused by name,
 * defaults, every usage error being status 2 with a message saying what to
 * type, presets and the order in which later options override them, the
 * checks no single option can make (options_check), optparse_split's
 * shell-like quoting for the option strings of rladv diff, and, end to
 * end, --help and --version to a full disk.
 */
#include <sys/wait.h>

#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "opthelp.h"
#include "options.h"
#include "optparse.h"
#include "testutil.h"

#define MAXARGS	32

/* argv must outlive the prefs (c->files points into it), own too. */
static char *args[MAXARGS];
static struct optstore own;

/* Parses "rladv" then the NULL-terminated words as mode's options. */
static int
vparse(struct prefs *c, struct diag *d, unsigned mode, va_list ap)
{
	const char *w;
	int n = 0;

	args[n++] = "rladv";
	while ((w = va_arg(ap, const char *)) != NULL) {
		ck_assert(n < MAXARGS - 1);
		args[n++] = (char *)w;
	}
	args[n] = NULL;
	optparse_free(&own);
	options_defaults(c);
	c->mode = mode;
	memset(d, 0, sizeof(*d));
	return optparse_argv(c, &own, n, args, d);
}

static int
parse_as(unsigned mode, struct prefs *c, struct diag *d, ...)
{
	va_list ap;
	int rc;

	va_start(ap, d);
	rc = vparse(c, d, mode, ap);
	va_end(ap);
	return rc;
}

/* Parses as compute does. */
#define parse(c, d, ...)	parse_as(OPT_COMPUTE, c, d, __VA_ARGS__)

/* A usage error of mode's options: status 2 and the message holds frag. */
static void
usage_error_as(unsigned mode, const char *frag, ...)
{
	struct prefs c;
	struct diag d;
	va_list ap;
	int rc;

	va_start(ap, frag);
	rc = vparse(&c, &d, mode, ap);
	va_end(ap);
	ck_assert_msg(rc == 2, "%s %s: rc %d, expected 2", args[1],
	    args[2] ? args[2] : "", rc);
	ck_assert_int_eq(d.status, 2);
	ck_assert_has(d.msg, frag);
}

#define usage_error(...)	usage_error_as(OPT_COMPUTE, __VA_ARGS__)

START_TEST(defaults)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse(&c, &d, NULL), 0);
	ck_assert_str_eq(c.est->name, "grpo");
	ck_assert_str_eq(c.loss->name, "token");
	ck_assert(c.ap.eps == 1e-6);
	ck_assert(c.ap.alpha == 0.6);
	ck_assert_int_eq(c.ap.sample, 0);
	ck_assert_int_eq(c.ap.std_scope, STD_GROUP);
	ck_assert_uint_eq(c.ap.single, 0);
	ck_assert_ptr_null(c.like);
	ck_assert_int_eq(c.scope_group, 0);
	ck_assert_int_eq(c.tokens, 1);
	ck_assert_int_eq(c.annotate, 0);
	ck_assert_int_eq(c.digits, 9);
	ck_assert_uint_eq(c.max_line, (size_t)1 << 30);
	ck_assert_int_eq(c.device, DEV_CPU);
	ck_assert_int_eq(c.skip, 0);
	ck_assert_ptr_null(c.out);
	ck_assert_int_eq(c.gzip, 0);
	ck_assert_uint_eq(c.nfiles, 0);
	ck_assert_int_eq(c.fields.list[FR_GROUP].n, 7);
	ck_assert_str_eq(c.fields.list[FR_GROUP].name[0], "prompt_id");
	ck_assert_str_eq(c.fields.list[FR_REWARD].name[1], "score");
	ck_assert_str_eq(c.fields.list[FR_STRATUM].name[0], "tool_calls");
	/* A default name by its index (a record's unused_mask bit), as the
	 * defaults list it; "" past them. */
	ck_assert_str_eq(fields_alias(FR_MASK, 0),
	    c.fields.list[FR_MASK].name[0]);
	ck_assert_str_eq(fields_alias(FR_MASK, c.fields.list[FR_MASK].n - 1),
	    c.fields.list[FR_MASK].name[c.fields.list[FR_MASK].n - 1]);
	ck_assert_str_eq(fields_alias(FR_MASK, c.fields.list[FR_MASK].n), "");
	ck_assert_str_eq(fields_alias(FR_MASK, -1), "");
	ck_assert(c.lp.max_len == 0);
	ck_assert_int_eq(c.lp.count_all, 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
}
END_TEST

START_TEST(estimator_and_mode)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse(&c, &d, "-a", "stratified", "-g", "balanced",
	    NULL), 0);
	ck_assert_str_eq(c.est->name, "stratified");
	ck_assert_str_eq(c.loss->name, "balanced");
	ck_assert_int_eq(parse(&c, &d, "--advantage=rloo", "--agg",
	    "seq-sum", NULL), 0);
	ck_assert_str_eq(c.est->name, "rloo");
	ck_assert_str_eq(c.loss->name, "seq-sum");
	/* the last one given wins */
	ck_assert_int_eq(parse(&c, &d, "-a", "san", "-a", "opo", NULL), 0);
	ck_assert_str_eq(c.est->name, "opo");
}
END_TEST

START_TEST(unknown_names)
{
	usage_error("unknown advantage estimator \"nope\"; use one of: grpo, "
	    "drgrpo, rloo, san, stratified, msgrpo, opo, rpp-baseline, rpp, "
	    "passk, gpg, remax, loo, grpo-whiten", "-a", "nope", NULL);
	usage_error("unknown advantage estimator \"GRPO\"", "--advantage",
	    "GRPO", NULL);
	usage_error("unknown loss mode \"avg\"; use one of: token, seq, "
	    "seq-sum, seq-sum-norm, balanced, balanced-gen", "-g", "avg",
	    NULL);
	usage_error("--like: unknown framework \"vllm\"; use one of: verl, "
	    "trl, openrlhf, nemo-rl, areal, slime, skyrl", "--like", "vllm",
	    NULL);
	usage_error("--like verl@0.6 is ambiguous", "--like", "verl@0.6",
	    NULL);
	usage_error("--std: invalid value \"bessel\"; expected population or "
	    "sample", "--std", "bessel", NULL);
	usage_error("--std-scope: invalid value \"global\"", "--std-scope",
	    "global", NULL);
	usage_error("--gn-scope", "--gn-scope", "none", NULL);
	usage_error("--scope", "--scope", "token", NULL);
	usage_error("--on-error", "--on-error", "ignore", NULL);
	usage_error("--device", "--device", "gpu", NULL);
	usage_error("--ms-mode", "--ms-mode", "fast", NULL);
}
END_TEST

START_TEST(numbers_out_of_range)
{
	usage_error("--alpha: invalid value \"1.5\"; expected a number between "
	    "0 and 1", "--alpha", "1.5", NULL);
	usage_error("--alpha", "--alpha", "-0.1", NULL);
	usage_error("--alpha", "--alpha", "abc", NULL);
	usage_error("--alpha", "--alpha", "nan", NULL);
	usage_error("--alpha", "--alpha", "0.5x", NULL);
	usage_error("--eps: invalid value \"-1e-6\"", "--eps", "-1e-6", NULL);
	usage_error("--eps", "--eps", "inf", NULL);
	usage_error("--max-len", "--max-len", "0", NULL);
	usage_error("--digits: invalid value \"0\"; expected an integer from 1 "
	    "to 17", "--digits", "0", NULL);
	usage_error("--digits", "--digits", "18", NULL);
	usage_error("--digits", "--digits", "2.5", NULL);
	usage_error("--group-size", "--group-size", "0", NULL);
	usage_error("--group-size", "--group-size", "2.5", NULL);
	usage_error("--batch-groups", "--batch-groups", "-1", NULL);
	usage_error("--tau-min", "--tau-min", "1", NULL);
	usage_error("--ms-scales", "--ms-scales", "0", NULL);
	usage_error("--seed", "--seed", "-3", NULL);
	usage_error("--stratum-cap", "--stratum-cap", "many", NULL);
	usage_error(">= 0", "--stratum-cap", "-1", NULL);
}
END_TEST

START_TEST(numbers_accepted)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse(&c, &d, "--alpha", "0.25", "--eps", "0",
	    "--digits", "17", "--max-len", "4096", "--group-size", "16",
	    "--batch-groups", "3", "--tau-min", "3", "--seed", "42",
	    "--stratum-cap", "4", NULL), 0);
	ck_assert(c.ap.alpha == 0.25);
	ck_assert(c.ap.eps == 0);
	ck_assert_int_eq(c.digits, 17);
	ck_assert(c.lp.max_len == 4096);
	ck_assert_uint_eq(c.go.group_size, 16);
	ck_assert_uint_eq(c.go.batch_groups, 3);
	ck_assert_int_eq(c.ap.ms.tau_min, 3);
	ck_assert_uint_eq(c.ap.ms.seed, 42);
	ck_assert_int_eq(c.fields.has_cap, 1);
	ck_assert(c.fields.cap == 4);
	/* the ends of --alpha's range */
	ck_assert_int_eq(parse(&c, &d, "--alpha", "0", NULL), 0);
	ck_assert(c.ap.alpha == 0);
	ck_assert_int_eq(parse(&c, &d, "--alpha", "1", NULL), 0);
	ck_assert(c.ap.alpha == 1);
	ck_assert_int_eq(parse(&c, &d, "--digits", "1", NULL), 0);
	ck_assert_int_eq(c.digits, 1);
}
END_TEST

START_TEST(max_line_sizes)
{
	static const struct {
		const char	*arg;
		size_t		 v;
	} ok[] = {
		{ "100", 100 }, { "64K", 65536 }, { "64k", 65536 },
		{ "16M", 16u << 20 }, { "1G", (size_t)1 << 30 },
		{ "1.5K", 1536 },
	};
	struct prefs c;
	struct diag d;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_int_eq(parse(&c, &d, "--max-line", ok[i].arg,
		    NULL), 0);
		ck_assert_msg(c.max_line == ok[i].v, "%s: %zu", ok[i].arg,
		    c.max_line);
		}
	usage_error("--max-line: invalid value \"0\"; expected a size such "
	    "as 65536, 64K, 16M or 1G", "--max-line", "0", NULL);
	usage_error("--max-line", "--max-line", "12Q", NULL);
	usage_error("--max-line", "--max-line", "", NULL);
	usage_error("--max-line", "--max-line", "1KB", NULL);
	usage_error("--max-line", "--max-line", "K", NULL);
}
END_TEST

START_TEST(like_then_override)
{
	struct prefs c;
	struct diag d;

	/* --like verl sets sample std; --std population after it wins. */
	ck_assert_int_eq(parse(&c, &d, "--like", "verl", "--std",
	    "population", NULL), 0);
	ck_assert_int_eq(c.ap.sample, 0);
	/* the rest of the preset stays */
	ck_assert(c.ap.eps == 1e-6);
	ck_assert(c.ap.single & EST_BIT(EST_GRPO));
	ck_assert_int_eq(c.lp.count_all, 0);
	ck_assert(c.lp.seq_eps == 1e-8);
	ck_assert_int_eq(c.lp.norm_plain, 1);
	/* in the other order the preset wins */
	ck_assert_int_eq(parse(&c, &d, "--std", "population", "--like",
	    "verl", NULL), 0);
	ck_assert_int_eq(c.ap.sample, 1);
	/* --eps after a preset overrides its eps, before it does not */
	ck_assert_int_eq(parse(&c, &d, "--like", "trl", "--eps", "1e-3",
	    NULL), 0);
	ck_assert(c.ap.eps == 1e-3);
	ck_assert_int_eq(parse(&c, &d, "--eps", "1e-3", "--like", "trl",
	    NULL), 0);
	ck_assert(c.ap.eps == 1e-4);
}
END_TEST

START_TEST(presets)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse(&c, &d, "--like", "verl", NULL), 0);
	ck_assert_int_eq(c.ap.sample, 1);
	ck_assert(c.ap.eps == 1e-6);
	ck_assert(c.ap.single & EST_BIT(EST_RLOO));
	ck_assert_int_eq(c.lp.count_all, 0);
	ck_assert(c.lp.seq_eps == 1e-8);
	ck_assert_str_eq(c.like->release, "0.7.0");
	ck_assert_int_eq(parse(&c, &d, "--like", "trl", NULL), 0);
	ck_assert_int_eq(c.ap.sample, 1);
	ck_assert(c.ap.eps == 1e-4);
	ck_assert_uint_eq(c.ap.single, 0);
	ck_assert_int_eq(c.lp.count_all, 1);
	ck_assert(c.lp.seq_eps == 0);
	ck_assert_int_eq(parse(&c, &d, "--like", "openrlhf", NULL), 0);
	ck_assert_int_eq(c.ap.sample, 1);
	ck_assert(c.ap.eps == 1e-9);
	ck_assert_uint_eq(c.ap.single, 0);
	ck_assert_int_eq(c.ap.wh.kind, WHITEN_CLAMP);
	/* a second preset replaces the first entirely */
	ck_assert_int_eq(parse(&c, &d, "--like", "verl", "--like",
	    "openrlhf", NULL), 0);
	ck_assert_uint_eq(c.ap.single, 0);
	ck_assert_int_eq(c.lp.norm_plain, 0);
	ck_assert(c.ap.eps == 1e-9);
}
END_TEST

START_TEST(preset_estimator_and_mode)
{
	struct prefs c;
	struct diag d;

	/* A preset brings its framework's estimator and mode... */
	ck_assert_int_eq(parse(&c, &d, "--like", "nemo-rl", NULL), 0);
	ck_assert_str_eq(c.est->name, "loo");
	ck_assert_int_eq(parse(&c, &d, "--like", "areal", NULL), 0);
	ck_assert_str_eq(c.est->name, "grpo-whiten");
	ck_assert_int_eq(c.ap.wh.kind, WHITEN_STD);
	ck_assert_int_eq(parse(&c, &d, "--like", "slime", NULL), 0);
	ck_assert_str_eq(c.loss->name, "seq");
	ck_assert_int_eq(c.ap.rpp_tokens, 1);
	ck_assert_int_eq(c.lp.tok_floor, 1);
	/* ... unless -a or -g is given, before it or after it */
	ck_assert_int_eq(parse(&c, &d, "-a", "grpo", "--like", "nemo-rl",
	    "-g", "seq", NULL), 0);
	ck_assert_str_eq(c.est->name, "grpo");
	ck_assert_str_eq(c.loss->name, "seq");
	ck_assert_int_eq(parse(&c, &d, "--like", "nemo-rl", "-a", "rloo",
	    NULL), 0);
	ck_assert_str_eq(c.est->name, "rloo");
	ck_assert_int_eq(parse(&c, &d, "-g", "token", "--like", "slime",
	    NULL), 0);
	ck_assert_str_eq(c.loss->name, "token");
	/* the last preset's estimator when -a is not given */
	ck_assert_int_eq(parse(&c, &d, "--like", "nemo-rl", "--like",
	    "verl", NULL), 0);
	ck_assert_str_eq(c.est->name, "grpo");
	/* --max-len stays across a preset */
	ck_assert_int_eq(parse(&c, &d, "--max-len", "64", "--like", "verl",
	    "-g", "seq-sum-norm", NULL), 0);
	ck_assert(c.lp.max_len == 64);
	ck_assert_int_eq(options_check(&c, &d), 0);
	/* an older release */
	ck_assert_int_eq(parse(&c, &d, "--like", "verl@0.6.0", NULL), 0);
	ck_assert_int_eq(c.lp.count_all, 1);
	ck_assert_int_eq(c.lp.seq_refuse, 1);
	ck_assert_int_eq(c.lp.empty_refuse, 0);
	ck_assert_str_eq(c.like->release, "0.6.0");
	/* OpenRLHF: NaN gradients on a batch with no trained token; before
	 * 0.10.3 on a record without one too (-g seq) */
	ck_assert_int_eq(parse(&c, &d, "--like", "openrlhf", NULL), 0);
	ck_assert_int_eq(c.lp.empty_refuse, 1);
	ck_assert_int_eq(c.lp.seq_refuse, 0);
	ck_assert_int_eq(parse(&c, &d, "--like", "openrlhf@0.10.2", NULL), 0);
	ck_assert_int_eq(c.lp.empty_refuse, 1);
	ck_assert_int_eq(c.lp.seq_refuse, 1);
	ck_assert_int_eq(c.lp.count_all, 1);
	ck_assert(c.lp.seq_eps == 0);
	ck_assert_int_eq(parse(&c, &d, "--like", "verl", NULL), 0);
	ck_assert_int_eq(c.lp.empty_refuse, 0);
	ck_assert_int_eq(parse(&c, &d, "--like", "nemo-rl@0.3", NULL), 0);
	ck_assert_int_eq(c.ap.sample, 0);
	ck_assert(c.ap.eps == 0);
	/* frameworks' names */
	ck_assert_int_eq(parse(&c, &d, "-a", "reinforce_baseline", "-g",
	    "seq-mean-token-mean", NULL), 0);
	ck_assert_str_eq(c.est->name, "rpp-baseline");
	ck_assert_str_eq(c.loss->name, "seq");
}
END_TEST

START_TEST(alias_lists)
{
	/* --help lists the frameworks' names after the rows, each row's
	 * together, named once; --like lists the frameworks, no default. */
	char buf[1024];

	options_aliases(options_find("advantage"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "group_norm, grpo_vectorized, gspo, cispo "
	    "(grpo), dr_grpo (drgrpo), rloo_vectorized (rloo), "
	    "reinforce_plus_plus_baseline, reinforce_baseline (rpp-baseline), "
	    "reinforce_plus_plus, reinforce, reinforce++ (rpp), grpo_passk "
	    "(passk)");
	options_aliases(options_find("agg"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "token-mean, token_mean (token), "
	    "seq-mean-token-mean, sequence_mean (seq), seq-mean-token-sum "
	    "(seq-sum), seq-mean-token-sum-norm, seq_mean_token_sum_norm "
	    "(seq-sum-norm), prompt_mean (prompt)");
	options_list(options_find("like"), options_find("like")->listdef,
	    buf, sizeof(buf));
	ck_assert_str_eq(buf, "verl, trl, openrlhf, nemo-rl, areal, slime, "
	    "skyrl");
	ck_assert_int_eq(options_find("advantage")->listdef, 1);
}
END_TEST

START_TEST(profile_aliases)
{
	struct prefs c;
	struct diag d;

	/* --from nemo-rl reads filtered_rewards where a record has it
	 * (dynamic sampling), else rewards: aliases, not named fields */
	ck_assert_int_eq(parse(&c, &d, "--from", "nemo-rl", NULL), 0);
	ck_assert_int_eq(c.fields.list[FR_REWARD].n, 2);
	ck_assert_str_eq(c.fields.list[FR_REWARD].name[0], "filtered_rewards");
	ck_assert_str_eq(c.fields.list[FR_REWARD].name[1], "rewards");
	ck_assert_int_eq(c.fields.named & FN(FR_REWARD), 0);
	ck_assert_int_ne(c.fields.named & FN(FR_GROUP), 0);
	/* an option after it names the one field */
	ck_assert_int_eq(parse(&c, &d, "--from", "nemo-rl", "--reward-key",
	    "rewards", NULL), 0);
	ck_assert_int_eq(c.fields.list[FR_REWARD].n, 1);
	ck_assert_int_ne(c.fields.named & FN(FR_REWARD), 0);
}
END_TEST

START_TEST(baseline_field)
{
	struct prefs c;
	struct diag d;

	/* remax reads verl's reward_baselines, or --baseline-key's field;
	 * the others do not read it */
	ck_assert_int_eq(parse(&c, &d, "-a", "remax", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	ck_assert_int_eq(c.fields.need_baseline, 1);
	ck_assert_str_eq(c.fields.baseline, "reward_baselines");
	ck_assert_int_eq(parse(&c, &d, "--baseline-key", "greedy", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	ck_assert_int_eq(c.fields.need_baseline, 0);
	ck_assert_str_eq(c.fields.baseline, "greedy");
	usage_error("--baseline-key", "--baseline-key", "", NULL);
}
END_TEST

START_TEST(scopes_and_flags)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse(&c, &d, "--std-scope", "batch", "--gn-scope",
	    "batch", "--scope", "group", "--std", "sample", "--unsorted",
	    "--no-tokens", "--annotate", "-z", "--on-error", "skip", "-v",
	    "--device", "auto", "--ms-weights", "local", "--ms-stats", "token",
	    "--ms-mode", "exact", NULL), 0);
	ck_assert_int_eq(c.ap.std_scope, STD_BATCH);
	ck_assert_int_eq(c.ap.gn_batch, 1);
	ck_assert_int_eq(c.scope_group, 1);
	ck_assert_int_eq(c.ap.sample, 1);
	ck_assert_int_eq(c.go.unsorted, 1);
	ck_assert_int_eq(c.tokens, 0);
	ck_assert_int_eq(c.annotate, 1);
	ck_assert_int_eq(c.gzip, 1);
	ck_assert_int_eq(c.skip, 1);
	ck_assert_int_eq(c.verbose, 1);
	ck_assert_int_eq(c.device, DEV_AUTO);
	ck_assert_int_eq(c.ap.ms.weights, MS_LOCAL);
	ck_assert_int_eq(c.ap.ms.token_stats, 1);
	ck_assert_int_eq(c.ap.ms.mode, MS_EXACT);
	ck_assert_int_eq(parse(&c, &d, "--std-scope", "none", "--scope",
	    "batch", NULL), 0);
	ck_assert_int_eq(c.ap.std_scope, STD_NONE);
	ck_assert_int_eq(c.scope_group, 0);
}
END_TEST

START_TEST(field_names)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse(&c, &d, "--group-key", "uid", "--reward-key",
	    "acc", "--logprobs-key", "lp", "--mask-key", "m", "--stratum-key",
	    "a,b", "--batch-key", "step", NULL), 0);
	ck_assert_int_eq(c.fields.list[FR_GROUP].n, 1);
	ck_assert_str_eq(c.fields.list[FR_GROUP].name[0], "uid");
	ck_assert_int_eq(c.fields.list[FR_REWARD].n, 1);
	ck_assert_str_eq(c.fields.list[FR_REWARD].name[0], "acc");
	ck_assert_int_eq(c.fields.list[FR_LOGPROBS].n, 1);
	ck_assert_str_eq(c.fields.list[FR_LOGPROBS].name[0], "lp");
	ck_assert_int_eq(c.fields.list[FR_MASK].n, 1);
	ck_assert_str_eq(c.fields.list[FR_MASK].name[0], "m");
	ck_assert_int_eq(c.fields.list[FR_STRATUM].n, 2);
	ck_assert_str_eq(c.fields.list[FR_STRATUM].name[0], "a");
	ck_assert_str_eq(c.fields.list[FR_STRATUM].name[1], "b");
	ck_assert_str_eq(c.fields.batch, "step");
	ck_assert_int_eq(c.go.has_batch_key, 1);
	/* a later --stratum-key replaces the earlier one */
	ck_assert_int_eq(parse(&c, &d, "--stratum-key", "x,y,z",
	    "--stratum-key", "turns", NULL), 0);
	ck_assert_int_eq(c.fields.list[FR_STRATUM].n, 1);
	ck_assert_str_eq(c.fields.list[FR_STRATUM].name[0], "turns");
	usage_error("--stratum-key", "--stratum-key", ",,", NULL);
	usage_error("--stratum-key: at most 12 fields", "--stratum-key",
	    "a,b,c,d,e,f,g,h,i,j,k,l,m", NULL);
}
END_TEST

START_TEST(files_and_order)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse(&c, &d, "-a", "rloo", "x.jsonl", "-",
	    "y.jsonl.gz", NULL), 0);
	ck_assert_str_eq(c.est->name, "rloo");
	ck_assert_uint_eq(c.nfiles, 3);
	ck_assert_str_eq(c.files[0], "x.jsonl");
	ck_assert_str_eq(c.files[1], "-");
	ck_assert_str_eq(c.files[2], "y.jsonl.gz");
	/* options after a file still count (GNU order) */
	ck_assert_int_eq(parse(&c, &d, "x.jsonl", "-a", "opo", NULL), 0);
	ck_assert_str_eq(c.est->name, "opo");
	ck_assert_uint_eq(c.nfiles, 1);
	ck_assert_str_eq(c.files[0], "x.jsonl");
	/* "--" ends the options */
	ck_assert_int_eq(parse(&c, &d, "--", "-a", NULL), 0);
	ck_assert_uint_eq(c.nfiles, 1);
	ck_assert_str_eq(c.files[0], "-a");
	/* an option string (diff --a "...") takes no file */
	ck_assert_int_eq(parse_as(OPT_SIDE, &c, &d, "-a", "grpo", "x.jsonl",
	    NULL), 2);
	ck_assert_has(d.msg, "unexpected argument \"x.jsonl\"");
}
END_TEST

START_TEST(bad_options)
{
	struct prefs c;
	struct diag d;

	usage_error("unknown option --bogus; see rladv --help", "--bogus",
	    NULL);
	usage_error("unknown option", "-q", NULL);
	usage_error("option --eps needs a value", "--eps", NULL);
	usage_error("needs a value", "-a", NULL);
	/* --help and -h say so with OPT_HELP, -V with OPT_VERSION */
	ck_assert_int_eq(parse(&c, &d, "--help", NULL), OPT_HELP);
	ck_assert_int_eq(parse(&c, &d, "-a", "grpo", "-h", NULL), OPT_HELP);
	ck_assert_int_eq(parse(&c, &d, "-V", "--bogus", NULL), OPT_VERSION);
	/* an error before --help is still one */
	usage_error("unknown advantage estimator", "-a", "nope", "--help",
	    NULL);
	/* a value for an option that takes none */
	usage_error("--unsorted takes no value: --unsorted=yes",
	    "--unsorted=yes", NULL);
	usage_error_as(OPT_STATS, "--json takes no value", "--json=1", NULL);
	/* a short option in a cluster is named by itself */
	usage_error("unknown option -q", "-zq", NULL);
	usage_error("unknown option -q", "-qz", NULL);
	/* parsing again in the same process starts afresh */
	ck_assert_int_eq(parse(&c, &d, "-a", "san", NULL), 0);
	ck_assert_str_eq(c.est->name, "san");
	ck_assert_int_eq(parse(&c, &d, "-a", "san", NULL), 0);
	ck_assert_str_eq(c.est->name, "san");
}
END_TEST

START_TEST(check_max_len)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse(&c, &d, "-g", "seq-sum-norm", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 2);
	ck_assert_int_eq(d.status, 2);
	ck_assert_has(d.msg, "-g seq-sum-norm needs --max-len L");
	ck_assert_int_eq(parse(&c, &d, "-g", "seq-sum-norm", "--max-len",
	    "4096", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	ck_assert(c.lp.max_len == 4096);
	/* other modes do not need it */
	ck_assert_int_eq(parse(&c, &d, "-g", "seq", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
}
END_TEST

START_TEST(check_other)
{
	struct prefs c;
	struct diag d;

	/* --rejects needs --on-error skip */
	ck_assert_int_eq(parse(&c, &d, "--rejects", "bad.jsonl", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 2);
	ck_assert_has(d.msg, "--rejects needs --on-error skip");
	ck_assert_int_eq(parse(&c, &d, "--rejects", "bad.jsonl",
	    "--on-error", "skip", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	/* -o FILE.gz means gzip */
	ck_assert_int_eq(parse(&c, &d, "-o", "out.jsonl.gz", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	ck_assert_int_eq(c.gzip, 1);
	ck_assert_str_eq(c.out, "out.jsonl.gz");
	ck_assert_int_eq(parse(&c, &d, "--output", "out.jsonl", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	ck_assert_int_eq(c.gzip, 0);
	ck_assert_int_eq(parse(&c, &d, "-o", ".gz", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	ck_assert_int_eq(c.gzip, 0);
	/* the stratum key is required exactly for san and stratified */
	ck_assert_int_eq(parse(&c, &d, "-a", "san", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	ck_assert_int_eq(c.fields.need_stratum, 1);
	ck_assert_int_eq(parse(&c, &d, "-a", "stratified", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	ck_assert_int_eq(c.fields.need_stratum, 1);
	ck_assert_int_eq(parse(&c, &d, "-a", "grpo", NULL), 0);
	ck_assert_int_eq(options_check(&c, &d), 0);
	ck_assert_int_eq(c.fields.need_stratum, 0);
}
END_TEST

/* Splits s, checks the words, frees. */
static void
split_is(const char *s, int want_argc, ...)
{
	struct optstore o = { 0 };
	struct diag d = { 0 };
	char **av = NULL;
	int ac = -1, i;
	va_list ap;

	ck_assert_msg(optparse_split(s, &o, &ac, &av, &d) == 0, "split \"%s\": "
	    "%s", s, d.msg);
	ck_assert_msg(ac == want_argc, "split \"%s\": argc %d, expected %d",
	    s, ac, want_argc);
	ck_assert_ptr_null(av[ac]);
	/* argv[0] is the placeholder command name (empty) */
	ck_assert_str_eq(av[0], "");
	va_start(ap, want_argc);
	for (i = 1; i < ac; i++)
		ck_assert_str_eq(av[i], va_arg(ap, const char *));
	va_end(ap);
	/* the words and the array belong to the store */
	ck_assert_uint_eq(o.n, 2);
	optparse_free(&o);
}

/*
 * A string that ends in a plain word ends the buffer with the word's NUL
 * (once one byte past it: make SANITIZE=1 sees a regression).
 */
START_TEST(split_words)
{
	split_is("-a stratified --alpha 0.6", 5, "-a", "stratified",
	    "--alpha", "0.6");
	split_is("  -a\tgrpo  \n", 3, "-a", "grpo");
	split_is("x", 2, "x");
	split_is("", 1);
	split_is("   ", 1);
}
END_TEST

START_TEST(split_quotes)
{
	/* double and single quotes group words and are removed */
	split_is("--a \"x y\" 'z w' ", 4, "--a", "x y", "z w");
	/* quotes inside a word join its parts */
	split_is("a\"b c\"d ", 2, "ab cd");
	/* one kind of quote inside the other is literal */
	split_is("\"it's\" 'say \"hi\"' ", 3, "it's", "say \"hi\"");
	/* empty quotes make an empty word */
	split_is("\"\" x ", 3, "", "x");
	split_is("-a 'rpp-baseline'", 3, "-a", "rpp-baseline");
}
END_TEST

START_TEST(split_unterminated)
{
	struct optstore o = { 0 };
	struct diag d = { 0 };
	char **av = NULL;
	int ac = 0;

	ck_assert_int_eq(optparse_split("-a \"grpo", &o, &ac, &av, &d), 2);
	ck_assert_int_eq(d.status, 2);
	ck_assert_has(d.msg, "unterminated quote");
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(optparse_split("'", &o, &ac, &av, &d), 2);
	/* nothing is left to free */
	ck_assert_uint_eq(o.n, 0);
}
END_TEST

START_TEST(split_then_parse)
{
	struct prefs c;
	struct optstore o = { 0 };
	struct diag d = { 0 };
	char **av = NULL;
	int ac = 0;

	ck_assert_int_eq(optparse_split("-a stratified --alpha '0.25' "
	    "--std sample --stratum-key a,b", &o, &ac, &av, &d), 0);
	options_defaults(&c);
	c.mode = OPT_SIDE;
	ck_assert_int_eq(optparse_argv(&c, &o, ac, av, &d), 0);
	ck_assert_str_eq(c.est->name, "stratified");
	ck_assert(c.ap.alpha == 0.25);
	ck_assert_int_eq(c.ap.sample, 1);
	ck_assert_uint_eq(c.nfiles, 0);
	ck_assert_str_eq(c.fields.list[FR_STRATUM].name[1], "b");
	/* the split's two buffers and the --stratum-key copy */
	ck_assert_uint_eq(o.n, 3);
	optparse_free(&o);
}
END_TEST

/* ---- The table ------------------------------------------------------ */

static const unsigned modes[] = { OPT_COMPUTE, OPT_STATS, OPT_DIFF,
    OPT_OUTPUTS, OPT_SIDE };
#define NMODES	(sizeof(modes) / sizeof(modes[0]))

/* A value that the row accepts, in buf; NULL when it takes none. */
static const char *
good_arg(const struct opt *o, char *buf, size_t size)
{
	switch (o->kind) {
	case OK_NUM:
		snprintf(buf, size, "%.17g", isinf(o->min) ? 0.5 :
		    o->excl ? o->min + 0.5 : o->min);
		return buf;
	case OK_INT:
		snprintf(buf, size, "%.0f", o->min);
		return buf;
	case OK_BYTES:
		return "64K";
	case OK_CHOICE:
		return o->choices[o->choices[1] ? 1 : 0];
	case OK_STR:
		if (strcmp(o->name, "reward-weights") == 0)
			return "1,0.5";
		if (strcmp(o->name, "output-names") == 0)
			return "a,b,c,d";
		return o->list ? o->list(1) : "-a rloo";
	case OK_FIELD:
		return "f1";
	case OK_FILE:
		return "x.jsonl";
	default:
		return NULL;
	}
}

START_TEST(table_rows)
{
	const struct opt *o, *q;
	int sections = 0;

	for (o = options_table; o->name; o++) {
		ck_assert_msg(o->help != NULL || o->list != NULL,
		    "--%s has no help", o->name);
		ck_assert_msg((o->cmds & ~OPT_SIDE) != 0,
		    "--%s: no command takes it", o->name);
		ck_assert_msg((o->kind == OK_CHOICE) == (o->choices != NULL),
		    "--%s: choices and kind disagree", o->name);
		ck_assert_msg(o->kind != OK_NUM || o->min <= o->max,
		    "--%s: empty range", o->name);
		ck_assert_msg(o->kind != OK_MODE || (o->cmds & o->mode),
		    "--%s: the mode it selects does not take it", o->name);
		ck_assert_msg(strlen(o->name) > 0 && o->name[0] != '-',
		    "--%s: name", o->name);
		ck_assert_ptr_eq(options_find(o->name), o);
		for (q = options_table; q < o; q++) {
			ck_assert_msg(strcmp(q->name, o->name) != 0,
			    "--%s twice", o->name);
			ck_assert_msg(!o->shortname ||
			    q->shortname != o->shortname, "-%c twice",
			    o->shortname);
		}
		/* rows of one section stay together, for --help */
		if (o == options_table || o->section != o[-1].section) {
			sections++;
			for (q = options_table; q < o; q++)
				ck_assert_msg(q->section != o->section,
				    "--%s: section split", o->name);
		}
	}
	ck_assert_int_ge(sections, 5);
	ck_assert_ptr_null(options_find("nope"));
	ck_assert_ptr_null(options_find(""));
}
END_TEST

/*
 * Every row, by long and by short name, in every mode: accepted where it
 * is taken and refused by name where it is not.  The values of the rows
 * without a setter land where the row says.
 */
START_TEST(table_rows_parse)
{
	const struct opt *o;
	struct prefs c;
	struct diag d;
	char buf[64], lname[80], sname[4];
	const char *arg;
	size_t m;
	int rc, want;

	for (o = options_table; o->name; o++) {
		snprintf(lname, sizeof(lname), "--%s", o->name);
		snprintf(sname, sizeof(sname), "-%c", o->shortname);
		arg = good_arg(o, buf, sizeof(buf));
		want = o->kind == OK_HELP ? OPT_HELP : o->kind == OK_VERSION ?
		    OPT_VERSION : 0;
		for (m = 0; m < NMODES; m++) {
			rc = parse_as(modes[m], &c, &d, lname, arg, NULL);
			if (!(o->cmds & modes[m])) {
				ck_assert_msg(rc == 2, "%s in mode %u: %d",
				    lname, modes[m], rc);
				ck_assert_has(d.msg, lname);
				ck_assert_has(d.msg, "is an option of");
				ck_assert_has(d.msg, options_cmd_name(
				    modes[m]));
				continue;
			}
			ck_assert_msg(rc == want, "%s %s in mode %u: %d %s",
			    lname, arg ? arg : "", modes[m], rc, d.msg);
			if (o->kind == OK_MODE)
				ck_assert_uint_eq(c.mode, o->mode);
			if (o->set == NULL && o->kind == OK_NUM)
				ck_assert(*(double *)(void *)((char *)&c +
				    o->off) == strtod(arg, NULL));
			if (o->set == NULL && o->kind == OK_FIELD)
				ck_assert_str_eq(*(const char **)(void *)
				    ((char *)&c + o->off), arg);
			if (o->shortname) {
				rc = parse_as(modes[m], &c, &d, sname, arg,
				    NULL);
				ck_assert_msg(rc == want, "%s: %d %s", sname,
				    rc, d.msg);
			}
		}
	}
}
END_TEST

/* The --help of each mode lists exactly the rows that it takes. */
START_TEST(help_from_table)
{
	const struct opt *o;
	char *text, pat[80];
	size_t len, m;
	unsigned shown;
	FILE *f;

	for (m = 0; m < NMODES - 1; m++) {
		f = open_memstream(&text, &len);
		opthelp_print(f, modes[m]);
		fclose(f);
		ck_assert_msg(strstr(text, "SPEC") == NULL, "%s", text);
		/* diff's help shows diff --outputs' options too */
		shown = modes[m] == OPT_DIFF ? OPT_DIFF | OPT_OUTPUTS :
		    modes[m];
		for (o = options_table; o->name; o++) {
			snprintf(pat, sizeof(pat), "--%s ", o->name);
			ck_assert_msg((strstr(text, pat) != NULL) ==
			    ((o->cmds & shown) != 0), "mode %u, %s: %s",
			    modes[m], pat, text);
			if (o->choices && (o->cmds & shown))
				ck_assert_has(text, o->choices[1]);
		}
		free(text);
	}
	/* the estimators and loss modes come from their tables */
	f = open_memstream(&text, &len);
	opthelp_print(f, OPT_COMPUTE);
	fclose(f);
	ck_assert_has(text, "grpo (default), drgrpo, rloo");
	ck_assert_has(text, "token (default), seq, seq-sum");
	ck_assert_has(text, "(default: prompt_id, uid, group_id");
	free(text);
}
END_TEST

START_TEST(other_commands_options)
{
	struct prefs c;
	struct diag d;

	/* stats writes no records; it computes advantages (-a, -g and the
	 * estimators' options split its lengths by sign, issue 17) */
	usage_error_as(OPT_STATS, "-o (--output) is an option of rladv "
	    "compute and rladv index, not of rladv stats", "-o", "x.jsonl",
	    NULL);
	usage_error_as(OPT_STATS, "-z (--gzip) is an option of rladv compute "
	    "and rladv index, not of rladv stats", "-z", NULL);
	usage_error_as(OPT_STATS, "--annotate", "--annotate", NULL);
	usage_error_as(OPT_STATS, "-v (--verbose)", "-v", NULL);
	ck_assert_int_eq(parse_as(OPT_STATS, &c, &d, "-a", "san", "-g",
	    "balanced", "--device", "cpu", "--by-batch", NULL), 0);
	ck_assert_str_eq(c.est->name, "san");
	ck_assert_str_eq(c.loss->name, "balanced");
	ck_assert_int_eq(c.by_batch, 1);
	usage_error("--by-batch is an option of rladv stats, not of rladv "
	    "compute", "--by-batch", NULL);
	/* after the files too */
	usage_error_as(OPT_STATS, "-o (--output)", "x.jsonl", "--output=y",
	    NULL);
	/* compute does not take diff's or stats' */
	usage_error("--json is an option of rladv stats, rladv diff and rladv "
	    "diff --outputs, not of rladv compute", "--json", NULL);
	usage_error("--a is an option of rladv diff, not of rladv compute",
	    "--a", "-a grpo", NULL);
	usage_error("--tol is an option of rladv diff --outputs", "--tol",
	    "1", NULL);
	/* diff --a/--b does not write records; --key is --outputs' */
	usage_error_as(OPT_DIFF, "-o (--output) is an option of rladv "
	    "compute and rladv index, not of rladv diff", "--a", "", "-o",
	    "x", NULL);
	usage_error_as(OPT_DIFF, "--key is an option of rladv diff --outputs, "
	    "not of rladv diff", "--key", "id", "--a", "", NULL);
	/* --output is not taken for an abbreviation of --outputs */
	usage_error_as(OPT_DIFF, "-o (--output) is an option of rladv compute",
	    "--output", "x", NULL);
	/* diff --outputs compares files: no estimator, wherever it comes */
	usage_error_as(OPT_DIFF, "-a (--advantage) is an option of rladv "
	    "compute, rladv stats, rladv diff and rladv index, not of rladv "
	    "diff --outputs",
	    "--outputs", "-a", "grpo", "x", "y", NULL);
	usage_error_as(OPT_DIFF, "not of rladv diff --outputs", "-a", "grpo",
	    "--outputs", "x", "y", NULL);
	usage_error_as(OPT_DIFF, "--a is an option of rladv diff, not of "
	    "rladv diff --outputs", "--outputs", "--a", "", "x", "y", NULL);
	usage_error_as(OPT_DIFF, "--on-error", "--outputs", "--on-error",
	    "skip", "x", "y", NULL);
	/* the option strings of --a and --b: compute options, no output */
	usage_error_as(OPT_SIDE, "-o (--output) is an option of rladv compute "
	    "and rladv index, not of the option strings of diff --a and --b",
	    "-o", "x", NULL);
	/* index records the numbers' options: no output format, rejects
	 * file or device; --merge and --index are index's and compute's */
	usage_error_as(OPT_INDEX, "--digits is an option of rladv compute, "
	    "not of rladv index", "--digits", "3", NULL);
	usage_error_as(OPT_INDEX, "--rejects", "--rejects", "r", NULL);
	usage_error_as(OPT_INDEX, "--device", "--device", "cpu", NULL);
	usage_error_as(OPT_INDEX, "--index is an option of rladv compute, "
	    "not of rladv index", "--index", "x.idx", NULL);
	usage_error("--merge is an option of rladv index, not of rladv "
	    "compute", "--merge", NULL);
	usage_error_as(OPT_STATS, "--merge", "--merge", NULL);
	usage_error_as(OPT_SIDE, "-z (--gzip)", "-z", NULL);
	usage_error_as(OPT_SIDE, "--json is an option of", "--json", NULL);
	usage_error_as(OPT_SIDE, "--a is an option of rladv diff", "--a", "",
	    NULL);
	usage_error_as(OPT_SIDE, "--no-tokens", "--no-tokens", NULL);
}
END_TEST

/* The value of --name as the index records it. */
static const char *
shown(const struct prefs *c, const char *name)
{
	static struct buf b;
	const struct opt *o = options_find(name);

	ck_assert_ptr_nonnull(o);
	ck_assert_msg(options_recorded(o), "--%s is not recorded", name);
	b.len = 0;
	options_show(c, o, &b);
	buf_add(&b, "", 1);
	return b.p;
}

START_TEST(recorded_values)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse_as(OPT_INDEX, &c, &d, NULL), 0);
	ck_assert_str_eq(shown(&c, "advantage"), "grpo");
	ck_assert_str_eq(shown(&c, "agg"), "token");
	ck_assert_str_eq(shown(&c, "eps"), "1e-06");
	ck_assert_str_eq(shown(&c, "alpha"), "0.6");
	ck_assert_str_eq(shown(&c, "like"), "none");
	ck_assert_str_eq(shown(&c, "group-key"), "prompt_id,uid,group_id,"
	    "group_index,example_id,task_id,traj_group_id");
	ck_assert_str_eq(shown(&c, "stratum-cap"), "none");
	ck_assert_str_eq(shown(&c, "batch-key"), "");
	ck_assert_str_eq(shown(&c, "unsorted"), "no");
	ck_assert_str_eq(shown(&c, "on-error"), "fail");
	ck_assert_str_eq(shown(&c, "seed"), "0");
	ck_assert_str_eq(parse_as(OPT_INDEX, &c, &d, "-a", "msgrpo",
	    "--like", "verl", "--eps", "0.1", "--group-key", "a,b\\c",
	    "--stratum-key", "x,y", "--stratum-cap", "2", "--batch-key",
	    "step", "--unsorted", "--seed", "123456789012",
	    "--group-size", "8", NULL) == 0 ? "" : d.msg, "");
	ck_assert_str_eq(shown(&c, "advantage"), "msgrpo");
	/* the preset's row: its name and the release it was read from */
	ck_assert_ptr_nonnull(c.like);
	ck_assert_str_eq(shown(&c, "like") + 5, c.like->release);
	ck_assert_int_eq(strncmp(shown(&c, "like"), "verl@", 5), 0);
	ck_assert_str_eq(shown(&c, "std"), "sample");
	ck_assert_str_eq(shown(&c, "eps"), "0.1");
	/* one name holding a comma and a backslash, two stratum parts */
	ck_assert_str_eq(shown(&c, "group-key"), "a\\,b\\\\c");
	ck_assert_str_eq(shown(&c, "stratum-key"), "x,y");
	ck_assert_str_eq(shown(&c, "stratum-cap"), "2");
	ck_assert_str_eq(shown(&c, "batch-key"), "step");
	ck_assert_str_eq(shown(&c, "unsorted"), "yes");
	ck_assert_str_eq(shown(&c, "seed"), "123456789012");
	ck_assert_str_eq(shown(&c, "group-size"), "8");
	/* a step's own values are not recorded */
	ck_assert(!options_recorded(options_find("output")));
	ck_assert(!options_recorded(options_find("max-line")));
	ck_assert(!options_recorded(options_find("merge")));
	ck_assert(!options_recorded(options_find("help")));
	ck_assert(!options_recorded(options_find("digits")));
	ck_assert(!options_recorded(options_find("device")));
}
END_TEST

START_TEST(diff_modes)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse_as(OPT_DIFF, &c, &d, "--a", "-a grpo", "--b",
	    "", "--top", "3", "--json", "--eps", "0", "in.jsonl", NULL), 0);
	ck_assert_uint_eq(c.mode, OPT_DIFF);
	ck_assert_str_eq(c.diff.opt[0], "-a grpo");
	ck_assert_str_eq(c.diff.opt[1], "");
	ck_assert_uint_eq(c.diff.top, 3);
	ck_assert_int_eq(c.json, 1);
	ck_assert(c.ap.eps == 0);
	ck_assert_uint_eq(c.nfiles, 1);
	/* --outputs selects the mode wherever it comes */
	ck_assert_int_eq(parse_as(OPT_DIFF, &c, &d, "--tol", "1e-3", "--key",
	    "uid,step", "A", "--outputs", "B", NULL), 0);
	ck_assert_uint_eq(c.mode, OPT_OUTPUTS);
	ck_assert(c.diff.tol == 1e-3);
	ck_assert(c.diff.atol == 0);
	ck_assert_str_eq(c.diff.key, "uid,step");
	ck_assert_uint_eq(c.nfiles, 2);
	/* the defaults */
	ck_assert_int_eq(parse_as(OPT_DIFF, &c, &d, "--outputs", NULL), 0);
	ck_assert(c.diff.tol == 1e-9);
	ck_assert_uint_eq(c.diff.top, 5);
	ck_assert_ptr_null(c.diff.key);
	usage_error_as(OPT_DIFF, "--top: invalid value \"2.5\"; expected an "
	    "integer from 0 to 1000000", "--top", "2.5", NULL);
	usage_error_as(OPT_DIFF, "--top", "--top", "1000001", NULL);
	usage_error_as(OPT_DIFF, "--tol: invalid value \"-1\"; expected a "
	    "number >= 0", "--outputs", "--tol", "-1", NULL);
	usage_error_as(OPT_DIFF, "option --a needs a value", "--a", NULL);
}
END_TEST

START_TEST(empty_names)
{
	usage_error("--group-key: invalid value \"\"; expected a field name",
	    "--group-key", "", NULL);
	usage_error("--reward-key: invalid value \"\"; expected a field name",
	    "--reward-key=", NULL);
	usage_error("--logprobs-key", "--logprobs-key", "", NULL);
	usage_error("--mask-key", "--mask-key", "", NULL);
	usage_error("--batch-key: invalid value \"\"", "--batch-key", "",
	    NULL);
	usage_error("--stratum-key: invalid value \"\"; expected field names "
	    "separated by commas", "--stratum-key", "", NULL);
	usage_error("-o", "-o", "", NULL);
	usage_error("--output: invalid value \"\"; expected a file name",
	    "--output", "", NULL);
	usage_error("--rejects: invalid value \"\"; expected a file name",
	    "--on-error", "skip", "--rejects", "", NULL);
	usage_error_as(OPT_STATS, "--group-key", "--group-key", "", NULL);
	usage_error_as(OPT_OUTPUTS, "--key: invalid value \"\"; expected field "
	    "names separated by commas", "--key", "", NULL);
}
END_TEST

/* A subnormal value is a value (strtod's ERANGE is no refusal). */
START_TEST(subnormal_values)
{
	struct prefs c;
	struct diag d;

	ck_assert_int_eq(parse(&c, &d, "--eps", "1e-310", "--max-len",
	    "1e-310", "--alpha", "4.9e-324", "--ms-budget", "2e-320",
	    "--stratum-cap", "1e-310", NULL), 0);
	ck_assert(c.ap.eps == 1e-310);
	ck_assert(c.lp.max_len == 1e-310);
	ck_assert(c.ap.alpha == 4.9e-324 && c.ap.alpha > 0);
	ck_assert(c.ap.ms.budget == 2e-320);
	ck_assert(c.fields.cap == 1e-310);
	ck_assert_int_eq(parse_as(OPT_OUTPUTS, &c, &d, "--tol", "1e-310",
	    "--atol", "5e-324", NULL), 0);
	ck_assert(c.diff.tol == 1e-310);
	ck_assert(c.diff.atol > 0);
	/* below the smallest subnormal it is 0, and --max-len wants > 0 */
	ck_assert_int_eq(parse(&c, &d, "--eps", "1e-400", NULL), 0);
	ck_assert(c.ap.eps == 0);
	usage_error("--max-len: invalid value \"1e-400\"; expected a number "
	    "> 0", "--max-len", "1e-400", NULL);
	/* past the largest double is no number */
	usage_error("--eps: invalid value \"1e400\"", "--eps", "1e400", NULL);
}
END_TEST

/* ---- End to end: standard output that cannot be written ------------ */

/*
 * Runs the built rladv with stdout on out (NULL: closed) and stderr to
 * err, a file; returns its exit status.
 */
static int
run_rladv(const char *out, char *err, size_t errsize, char *const argv[])
{
	const char *bin = getenv("RLADV") ? getenv("RLADV") : "./rladv";
	FILE *tmp = tmpfile();
	pid_t pid;
	size_t n;
	int st, fd;

	ck_assert_msg(access(bin, X_OK) == 0, "%s: not built (make rladv)",
	    bin);
	ck_assert_ptr_nonnull(tmp);
	if ((pid = fork()) == 0) {
		if (out == NULL)
			close(1);
		else if ((fd = open(out, O_WRONLY)) < 0 || dup2(fd, 1) < 0)
			_exit(99);
		dup2(fileno(tmp), 2);
		execv(bin, argv);
		_exit(98);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	rewind(tmp);
	n = fread(err, 1, errsize - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	ck_assert_msg(WIFEXITED(st), "killed by signal %d", WTERMSIG(st));
	return WEXITSTATUS(st);
}

START_TEST(meta_to_full_disk)
{
	static char *const cases[][4] = {
		{ "rladv", "--help", NULL },
		{ "rladv", "--version", NULL },
		{ "rladv", "-V", NULL },
		{ "rladv", "stats", "--help", NULL },
		{ "rladv", "diff", "-h", NULL },
		{ "rladv", "compute", "--help", NULL },
	};
	char err[4096];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(run_rladv("/dev/full", err, sizeof(err),
		    cases[i]) == 3, "%s %s: %s", cases[i][1], cases[i][2] ?
		    cases[i][2] : "", err);
		ck_assert_has(err, "rladv: standard output: write error: No "
		    "space left on device");
		/* one line */
		ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
		/* closed, it is a write error too */
		ck_assert_int_eq(run_rladv(NULL, err, sizeof(err), cases[i]),
		    3);
		ck_assert_has(err, "standard output: write error");
		/* and where it can be written, status 0 and no message */
		ck_assert_int_eq(run_rladv("/dev/null", err, sizeof(err),
		    cases[i]), 0);
		ck_assert_str_eq(err, "");
	}
}
END_TEST

static Suite *
options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, estimator_and_mode);
	tcase_add_test(tc, unknown_names);
	tcase_add_test(tc, numbers_out_of_range);
	tcase_add_test(tc, numbers_accepted);
	tcase_add_test(tc, max_line_sizes);
	tcase_add_test(tc, like_then_override);
	tcase_add_test(tc, presets);
	tcase_add_test(tc, preset_estimator_and_mode);
	tcase_add_test(tc, profile_aliases);
	tcase_add_test(tc, baseline_field);
	tcase_add_test(tc, alias_lists);
	tcase_add_test(tc, scopes_and_flags);
	tcase_add_test(tc, field_names);
	tcase_add_test(tc, files_and_order);
	tcase_add_test(tc, bad_options);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_test(tc, table_rows);
	tcase_add_test(tc, table_rows_parse);
	tcase_add_test(tc, help_from_table);
	tcase_add_test(tc, other_commands_options);
	tcase_add_test(tc, diff_modes);
	tcase_add_test(tc, recorded_values);
	tcase_add_test(tc, empty_names);
	tcase_add_test(tc, subnormal_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("end to end");
	tcase_add_test(tc, meta_to_full_disk);
	suite_add_tcase(s, tc);

	tc = tcase_create("check");
	tcase_add_test(tc, check_max_len);
	tcase_add_test(tc, check_other);
	suite_add_tcase(s, tc);

	tc = tcase_create("split");
	tcase_add_test(tc, split_words);
	tcase_add_test(tc, split_quotes);
	tcase_add_test(tc, split_unterminated);
	tcase_add_test(tc, split_then_parse);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(options_suite());
}
