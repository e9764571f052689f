/*
 * preset.c - the --like table.  Each row was read in the framework's own
 * code at its release; the comment above a row names the files, and
 * tests/presets/reference.py writes every rule out again.  "Group of
 * one" is verl's rule (mean 0, std 1) for the kinds in single, rladv's
 * 0 for the others.  A batch of rladv is one micro-batch on one rank:
 * the loss weights are the framework's reduction of that micro-batch.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preset.h"

/* The estimators verl's own functions give a group of one: mean 0 and
 * std 1 (compute_grpo_outcome_advantage and the rest). */
#define VERL_SINGLE	(EST_BIT(EST_GRPO) | EST_BIT(EST_DRGRPO) | \
	EST_BIT(EST_RLOO) | EST_BIT(EST_SAN) | EST_BIT(EST_STRATIFIED) | \
	EST_BIT(EST_OPO) | EST_BIT(EST_RPP_BASELINE) | EST_BIT(EST_GPG) | \
	EST_BIT(EST_PASSK))

#define W_VERL	{ WHITEN_VERL, 1e-8, 0 }
#define W_CLAMP	{ WHITEN_CLAMP, 1e-8, 0 }
/* NeMo-RL's masked_mean adds 1e-8 to the token count, the sample count
 * (every sample) and T_i. */
#define NEMO_LW	{ .count_all = 1, .seq_eps = 1e-8, .n_eps = 1e-8, \
	.tok_eps = 1e-8 }

const struct preset preset_table[] = {
	/*
	 * verl v0.7.0 (2026-01-05), since v0.6.1: trainer/ppo/core_algos.py
	 * (compute_*_outcome_advantage, agg_loss), utils/torch_functional.py
	 * (masked_whiten).  The seq modes count the records with a trained
	 * token (seq_mask) and add 1e-8 to T_i; seq-mean-token-sum-norm
	 * divides by loss_scale_factor L alone.  The default worker
	 * (dp_actor.py) passes no global counts.  v0.7.0 divides by N and
	 * n with no epsilon (v0.6.1: + 1e-8), 0/0 on a batch with no
	 * trained token; masked_sum's torch.where gives its gradients 0,
	 * not NaN, so weight 0 is verl's and it is not refused.
	 */
	{ .name = "verl", .release = "0.7.0", .since = "0.6.1",
	    .estimator = "grpo", .loss = "token", .sample = 1, .eps = 1e-6,
	    .single = VERL_SINGLE, .wh = W_VERL,
	    .lw = { .seq_eps = 1e-8, .norm_plain = 1 } },
	/*
	 * TRL v1.9.0 (2026-07-21), since v0.16.0: trainer/grpo_trainer.py
	 * (_generate_and_score_completions, _compute_loss), trainer/utils.py
	 * (nanstd).  (r - mean) / (std + 1e-4); loss_type grpo and sapo
	 * are -g seq over every row with max(T_i, 1), luspo -g seq-sum and
	 * dr_grpo -g seq-sum-norm over every row, dapo, cispo, vespo and
	 * bnpo -g token.  From 0.22.0 to 1.8.0 dapo's num_items_in_batch
	 * summed the completion lengths before mask_truncated_completions
	 * zeroed the cut ones' masks (fixed in 1.9.0, #6439); no row
	 * reproduces that: the man page says where -g token is exact.
	 */
	{ .name = "trl", .release = "1.9.0", .since = "0.16.0",
	    .estimator = "grpo", .loss = "token", .sample = 1, .eps = 1e-4,
	    .wh = W_VERL, .lw = { .count_all = 1 } },
	/*
	 * OpenRLHF v0.11.0 (2026-08-13), since v0.10.3:
	 * trainer/ppo_utils/experience_maker.py
	 * (compute_advantages_and_returns), models/loss.py (aggregate_loss),
	 * utils/loss_utils.py.  group_norm divides by std + 1e-9; reinforce
	 * and reinforce_baseline whiten with the population variance,
	 * clamp(min=1e-8).rsqrt(); the per-sample loss counts the records
	 * with a trained token, T_i + 1e-8.  Both losses divide by the
	 * step's count with no epsilon and no torch.where: a batch with no
	 * trained token has NaN gradients (refused).
	 * cli/train_ppo_ray.py asserts n_samples_per_prompt > 1 for
	 * group_norm, rloo, reinforce_baseline and dr_grpo; here a group of
	 * one gets 0.
	 */
	{ .name = "openrlhf", .release = "0.11.0", .since = "0.10.3",
	    .estimator = "grpo", .loss = "token", .sample = 1, .eps = 1e-9,
	    .wh = W_CLAMP, .lw = { .seq_eps = 1e-8, .empty_refuse = 1 } },
	/*
	 * NeMo-RL v0.7.0 (2026-07-29), since v0.4.0:
	 * algorithms/advantage_estimator.py, algorithms/utils.py
	 * (calculate_baseline_and_std_per_prompt, masked_mean),
	 * algorithms/loss/loss_functions.py (ClippedPGLossFn).  The shipped
	 * configs use the leave-one-out baseline (loo); masked_mean adds
	 * 1e-8 to the token count, the sequence count (every sample) and
	 * T_i.
	 */
	{ .name = "nemo-rl", .release = "0.7.0", .since = "0.4.0",
	    .estimator = "loo", .loss = "token", .sample = 1, .eps = 1e-6,
	    .wh = W_CLAMP, .lw = NEMO_LW },
	/*
	 * AReaL v1.0.4 (2026-05-07), since v1.0.0: trainer/ppo/actor.py
	 * (_compute_advantages), utils/data.py (Normalization), its GRPO
	 * recipe examples/math/gsm8k_grpo.yaml: the reward mapped to
	 * clip((r - 0.5) 10, +-20) (reward_bias, reward_scaling, the default
	 * reward_clip), reward_norm per group (sample std + 1e-5), then
	 * adv_norm over the batch's tokens (N - 1, + 1e-5); the loss is a
	 * token mean.
	 */
	{ .name = "areal", .release = "1.0.4", .since = "1.0.0",
	    .estimator = "grpo-whiten", .loss = "token", .sample = 1,
	    .eps = 1e-5, .wh = { WHITEN_STD, 0, 1e-5 },
	    .rscale = 10, .rbias = -0.5, .rclip = 20 },
	/*
	 * slime v0.3.1 (2026-08-06), since v0.2.0: ray/rollout.py
	 * (_post_process_rewards), backends/megatron_utils/loss.py,
	 * utils/ppo_utils.py, utils/distributed_utils.py
	 * (distributed_masked_whiten), backends/megatron_utils/cp_utils.py
	 * (get_sum_of_sample_mean).  Its default loss is the per-sample mean
	 * over every sample with max(T_i, 1) (-g seq); the per-token loss
	 * counts a fully masked sample as one token; reinforce_plus_plus
	 * asserts that no sample is fully masked.
	 */
	{ .name = "slime", .release = "0.3.1", .since = "0.2.0",
	    .estimator = "grpo", .loss = "seq", .sample = 1, .eps = 1e-6,
	    .wh = W_VERL, .rpp_tokens = 1,
	    .lw = { .count_all = 1, .tok_floor = 1 } },
	/*
	 * SkyRL skyrl-v0.3.0 (2026-07-16), since skyrl-v0.2.0:
	 * skyrl/backends/skyrl_train/utils/ppo_utils.py (verl's GRPO, its
	 * rloo with 0 for a group of one,
	 * apply_loss_reduction_to_advantages_minibatch: every row counts,
	 * max(T_i, 1), seq_mean_token_sum_norm 1/(B L)).
	 */
	{ .name = "skyrl", .release = "0.3.0", .since = "0.2.0",
	    .estimator = "grpo", .loss = "token", .sample = 1, .eps = 1e-6,
	    .single = EST_BIT(EST_GRPO) | EST_BIT(EST_DRGRPO), .wh = W_VERL,
	    .lw = { .count_all = 1 } },

	/* The older rules. */
	/*
	 * verl v0.6.0 (2025-10-15) and before, since v0.4.0: agg_loss's
	 * seq modes take torch.mean over every record, and
	 * seq-mean-token-mean divides by T_i with no epsilon, NaN for a
	 * record without a trained token (refused); token-mean adds 1e-8
	 * to N.
	 */
	{ .name = "verl", .release = "0.6.0", .since = "0.4.0",
	    .estimator = "grpo", .loss = "token", .sample = 1, .eps = 1e-6,
	    .single = VERL_SINGLE, .wh = W_VERL,
	    .lw = { .count_all = 1, .tok_eps = 1e-8, .norm_plain = 1,
	    .seq_refuse = 1 } },
	/*
	 * OpenRLHF v0.10.2 (2026-04-19), since v0.10.0: models/loss.py's
	 * PolicyLoss takes masked_mean(loss, action_mask, dim=-1).mean()
	 * per sample, masked_mean (models/utils.py) dividing by mask.sum()
	 * with no epsilon: every record counts in B, and one with no
	 * trained token is NaN (refused); the token loss is 1/N, and a
	 * batch with no trained token NaN (refused).  The advantages are
	 * 0.11.0's (experience_maker.py differs in option names only).
	 */
	{ .name = "openrlhf", .release = "0.10.2", .since = "0.10.0",
	    .estimator = "grpo", .loss = "token", .sample = 1, .eps = 1e-9,
	    .wh = W_CLAMP, .lw = { .count_all = 1, .seq_refuse = 1,
	    .empty_refuse = 1 } },
	/*
	 * NeMo-RL v0.3.1 (2025-08-01), since v0.3.0: algorithms/utils.py's
	 * deviation of the others is the population one, and grpo.py
	 * divides by it with no epsilon.
	 */
	{ .name = "nemo-rl", .release = "0.3.1", .since = "0.3.0",
	    .estimator = "loo", .loss = "token", .sample = 0, .eps = 0,
	    .wh = W_CLAMP, .lw = NEMO_LW },
	{ .name = NULL }
};

/*
 * A framework's other series of release tags, which its versions do not
 * name, and what a user of that series should type.  SkyRL tagged its
 * skyrl-train package skyrl_train-v0.1.0 to v0.4.0 (2025-08 to 2026-02)
 * before its skyrl-v* tags; skyrl_train-v0.3.0's
 * skyrl-train/skyrl_train/utils/ppo_utils.py has skyrl-v0.3.0's
 * advantage functions, and its reduce_loss (masked_mean clamps the
 * counts at 1) reduces each micro-batch as skyrl-v0.3.0's
 * apply_loss_reduction_to_advantages_minibatch reduces a mini-batch;
 * workers/worker.py then averages the micro-batches' gradients.
 */
static const struct series {
	const char	*name;		/* the framework's --like name */
	const char	*tag;		/* the series' tag name */
	const char	*pkg;		/* its package's name */
	const char	*first, *last;	/* its releases */
	const char	*advice;
} series_table[] = {
	{ "skyrl", "skyrl_train", "skyrl-train", "0.1.0", "0.4.0",
	    "they have --like skyrl's advantages and reduce each "
	    "micro-batch as --like skyrl reduces a batch: use --like skyrl "
	    "on batches of one micro-batch" },
	{ NULL, NULL, NULL, NULL, NULL, NULL }
};

/* Whether s begins with word, then end (a NUL or the given byte). */
static int
begins(const char *s, size_t len, const char *word, int end)
{
	size_t n = strlen(word);

	return n <= len && strncmp(s, word, n) == 0 &&
	    (n == len ? end == '\0' : s[n] == end);
}

/* The series that s, of len bytes, names alone (end NUL) or before a
 * dash (end '-': "skyrl_train-v0.4.0"), by its tag or package; or NULL. */
static const struct series *
series_named(const char *s, size_t len, int end)
{
	const struct series *q;

	for (q = series_table; q->name != NULL; q++)
		if (begins(s, len, q->tag, end) || begins(s, len, q->pkg, end))
			return q;
	return NULL;
}

/* The usage error for a release of series q, named by arg. */
static int
series_refuse(const struct series *q, const char *arg, struct diag *d)
{
	return diag_set(d, EXIT_USAGE, "--like %s: %s-v%s to v%s are %s's "
	    "older %s releases, not %s's versions (its %s-v* tags); %s",
	    arg, q->tag, q->first, q->last, q->name, q->pkg, q->name,
	    q->name, q->advice);
}

/* A version, its parts (missing ones lo: 0, hi: INT_MAX). */
struct ver {
	int	lo[3], hi[3];
};

/* Whether s is ".postN", a post-release's suffix (slime 0.2.0.post1,
 * OpenRLHF 0.10.1.post2): fixes on top of the release it names. */
static int
post_release(const char *s)
{
	if (strncmp(s, ".post", 5) != 0 || !isdigit((unsigned char)s[5]))
		return 0;
	for (s += 5; isdigit((unsigned char)*s); s++)
		;
	return *s == '\0';
}

/* "0.6", "v0.6.1", "skyrl-v0.3.0" (a tag: the name, a dash): 1 to 3
 * numbers, and after 3 a post-release's ".postN", which reads as the
 * release; 0 when not one. */
static int
ver_parse(const char *s, const char *name, struct ver *v)
{
	long x;
	char *end;
	int k;

	if (strncmp(s, name, strlen(name)) == 0 && s[strlen(name)] == '-')
		s += strlen(name) + 1;
	if (*s == 'v')
		s++;
	for (k = 0; k < 3; k++) {
		if (!isdigit((unsigned char)*s))
			return 0;
		x = strtol(s, &end, 10);
		if (x > 100000)
			return 0;
		v->lo[k] = v->hi[k] = (int)x;
		s = end;
		if (*s == '\0' || (k == 2 && post_release(s)))
			break;
		if (*s++ != '.')
			return 0;
	}
	if (k == 3)
		return 0;	/* a fourth part, or a trailing dot */
	for (k++; k < 3; k++) {
		v->lo[k] = 0;
		v->hi[k] = INT_MAX;
	}
	return 1;
}

static int
ver_cmp(const int *a, const int *b)
{
	int k;

	for (k = 0; k < 3; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* The table's versions are full ones: lo holds them. */
static const int *
full(const char *s, struct ver *v)
{
	(void)ver_parse(s, "", v);
	return v->lo;
}

/* Whether p is its framework's newest row (the first of its name). */
static int
newest(const struct preset *p)
{
	const struct preset *q;

	for (q = preset_table; q < p; q++)
		if (strcmp(q->name, p->name) == 0)
			return 0;
	return 1;
}

/* How to select row p: its name for the newest, else name@release. */
static void
spelling(const struct preset *p, char *buf, size_t size)
{
	if (newest(p))
		snprintf(buf, size, "--like %s", p->name);
	else
		snprintf(buf, size, "--like %s@%s", p->name, p->release);
}

/* "--like verl@0.6.0 (0.4.0 to 0.6.0), --like verl (0.6.1 to 0.7.0)":
 * the rows of name whose releases meet v (every row when v is NULL). */
static size_t
rows(const char *name, const struct ver *v, const struct preset **first,
    char *buf, size_t size)
{
	const struct preset *p;
	struct ver a, b;
	char one[64];
	size_t n = 0, len;

	*buf = '\0';
	for (p = preset_table; p->name != NULL; p++) {
		if (strcmp(p->name, name) != 0)
			continue;
		if (v != NULL && (ver_cmp(v->hi, full(p->since, &a)) < 0 ||
		    ver_cmp(v->lo, full(p->release, &b)) > 0))
			continue;
		if (n++ == 0)
			*first = p;
		spelling(p, one, sizeof(one));
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s (%s to %s)",
		    len ? ", " : "", one, p->since, p->release);
	}
	return n;
}

int
preset_find(const char *arg, const struct preset **out, struct diag *d)
{
	const struct preset *p, *hit, *first;
	const struct series *q;
	const char *at = strchr(arg, '@');
	char name[32], list[512], also[512];
	size_t len = at ? (size_t)(at - arg) : strlen(arg), i, n;
	struct ver v, a;
	int later;

	if ((q = series_named(arg, len, '\0')) != NULL)
		return series_refuse(q, arg, d);
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, arg, len);
	name[len] = '\0';
	for (p = preset_table; p->name != NULL; p++)
		if (strcmp(p->name, name) == 0)
			break;
	if (p->name == NULL) {
		*list = '\0';
		for (i = 0; preset_name(i) != NULL; i++) {
			n = strlen(list);
			snprintf(list + n, sizeof(list) - n, "%s%s",
			    i ? ", " : "", preset_name(i));
		}
		return diag_set(d, EXIT_USAGE, "--like: unknown framework "
		    "\"%s\"; use one of: %s", name, list);
	}
	if (at == NULL) {
		*out = p;
		return 0;
	}
	if ((q = series_named(at + 1, strlen(at + 1), '-')) != NULL &&
	    strcmp(q->name, name) == 0)
		return series_refuse(q, arg, d);
	if (!ver_parse(at + 1, name, &v))
		return diag_set(d, EXIT_USAGE, "--like %s: \"%s\" is not a "
		    "release; write one such as %s@%s", arg, at + 1, name,
		    p->release);
	n = rows(name, &v, &hit, list, sizeof(list));
	if (n == 1) {
		*out = hit;
		return 0;
	}
	if (n > 1)
		return diag_set(d, EXIT_USAGE, "--like %s is ambiguous: %s "
		    "changed its rules within it; use %s", arg, name, list);
	(void)rows(name, NULL, &first, list, sizeof(list));
	/* first is the oldest row of the name (the rows go newest first) */
	for (hit = first; hit->name != NULL; hit++)
		if (strcmp(hit->name, name) == 0)
			first = hit;
	later = ver_cmp(v.lo, full(first->since, &a)) >= 0;
	*also = '\0';
	/* A bare number of the other series' range may mean one of its
	 * releases; a tag of the framework's own ("skyrl-v0.4.0") not. */
	for (q = series_table; q->name != NULL; q++)
		if (strcmp(q->name, name) == 0 &&
		    !begins(at + 1, strlen(at + 1), name, '-') &&
		    ver_cmp(v.hi, full(q->first, &a)) >= 0 &&
		    ver_cmp(v.lo, full(q->last, &a)) <= 0)
			snprintf(also, sizeof(also), "; %s's versions are its "
			    "%s-v* tags, and %s-v%s to v%s its older %s "
			    "releases: %s", name, name, q->tag, q->first,
			    q->last, q->pkg, q->advice);
	return diag_set(d, EXIT_USAGE, "--like %s: rladv knows %s's rules "
	    "of %s; for %s release, check what changed, then use --like "
	    "%s%s", arg, name, list, later ? "a later" : "an earlier", name,
	    also);
}

const char *
preset_name(size_t i)
{
	const struct preset *p;

	for (p = preset_table; p->name != NULL; p++)
		if (newest(p) && i-- == 0)
			return p->name;
	return NULL;
}
