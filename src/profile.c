/*
 * profile.c - --from NAME: the options that read each framework's dump.
 *
 * Each row is the options a user of that framework would otherwise type,
 * read from the code that writes the dump (the man page's FRAMEWORKS
 * section says which file, and where the JSONL comes from an export).  A
 * profile first takes every field role to "none", so that an alias that
 * happens to be in the record is never read in place of the
 * framework's field; then its options name the fields the dump has.
 * Options after --from override it.
 */
#include <string.h>

#include "json.h"
#include "profile.h"

#define WORDS(...)	((const char *const[]){ __VA_ARGS__, NULL })

/* The names, in the table's order: --from's choices. */
const char *const profile_names[] = { "verl", "verl-agent", "trl",
	"openrlhf", "nemo-rl", "slime", "areal", "roll", "skyrl", "verifiers",
	NULL };

/* Where a framework's GRPO convention is one --like reproduces, its
 * profile sets it: the numbers are then the framework's own. */
const struct profile profile_table[] = {
	{ "verl", "trainer.rollout_data_dir dump ({step}.jsonl)",
	    WORDS("--unsorted", "--group-key", "input", "--reward-key",
	    "score", "--batch-key", "step", "--like", "verl", "--no-tokens"),
	    .has = WORDS("input", "output", "gts", "score", "step") },
	{ "verl", "agent loop output (AgentLoopOutput with "
	    "the trainer's uid)",
	    WORDS("--group-key", "uid", "--reward-key", "reward_score",
	    "--logprobs-key", "response_logprobs", "--mask-key",
	    "response_mask", "--tokens-key", "response_ids", "--stratum-key",
	    "num_turns", "--like", "verl"),
	    .has = WORDS("response_ids", "response_mask", "num_turns",
	    "metrics") },
	{ "TRL", "GRPOTrainer completions log (log_completions), "
	    "as JSONL",
	    WORDS("--null-reward", "unscored", "--batch-key", "step",
	    "--expect-key", "advantage", "--like", "trl", "--no-tokens"),
	    .has = WORDS("step", "prompt", "completion", "advantage"),
	    .hint_role = FR_REWARD,
	    .hint = "--from trl: name TRL's reward columns (its "
	    "reward_func_names) with --reward-key, e.g. --reward-key "
	    "accuracy_reward,format_reward" },
	{ "OpenRLHF", "agent executor output",
	    WORDS("--reward-key", "reward", "--logprobs-key",
	    "rollout_log_probs", "--tokens-key", "observation_tokens",
	    "--mask-spans", "action_ranges", "--stratum-key",
	    "extra_logs.num_tool_calls", "--like", "openrlhf"),
	    .has = WORDS("observation_tokens", "action_ranges") },
	/* Under use_dynamic_sampling, NeMo-RL's grpo.py logs the trained
	 * rewards as filtered_rewards and puts in rewards the rows of the
	 * unfiltered batches, which no longer line up with the records. */
	{ "NeMo-RL", "train_data_step{N}.jsonl",
	    WORDS("--unwrap", "--group-key", "content[0]", "--logprobs-key",
	    "generation_logprobs", "--mask-key", "token_loss_mask",
	    "--tokens-key", "token_ids", "--sample-mask-key",
	    "sample_loss_mask", "--expect-key", "advantages", "--like",
	    "nemo-rl"),
	    .has = WORDS("token_ids", "token_loss_mask", "sample_loss_mask"),
	    .alias_role = FR_REWARD,
	    .aliases = WORDS("filtered_rewards", "rewards") },
	{ "slime", "debug rollout data (Sample.to_dict() per line)",
	    WORDS("--group-key", "group_index", "--reward-key", "reward",
	    "--logprobs-key", "rollout_log_probs", "--mask-key", "loss_mask",
	    "--length-key", "response_length", "--remove-key",
	    "remove_sample", "--stratum-key", "tool_call_count",
	    "--rollout-key", "rollout_id", "--like", "slime"),
	    .has = WORDS("group_index", "index", "tokens", "response_length"),
	    /* remove_sample came with slime 0.2.0.post1, rollout_id with
	     * 0.3.1 (0.3.0 named it group_id) */
	    .optional = FN(FR_REMOVE) | FN(FR_ROLLOUT) },
	{ "AReaL", "rollout dump (dump_to_file)",
	    WORDS("--group-key", "task_id", "--reward-key", "reward",
	    "--length-key", "seqlen", "--prompt-len-key", "prompt_len",
	    "--like", "areal", "--no-tokens"),
	    .has = WORDS("task_id", "sample_idx", "seqlen", "prompt_len") },
	{ "ROLL", "rollout_dump_data.step_{N}.jsonl (one columnar "
	    "line per step)",
	    WORDS("--columnar", "--group-key", "id", "--reward-key", "scores",
	    "--batch-key", "global_step", "--std", "sample", "--no-tokens"),
	    .has = WORDS("responses", "scores", "global_step") },
	{ "SkyRL", "generator output, one step-wise row per line",
	    WORDS("--group-key", "trajectory_ids.instance_id",
	    "--trajectory-key", "trajectory_ids", "--trajectory-last-key",
	    "is_last_step", "--reward-key", "rewards", "--reward-reduce",
	    "sum", "--logprobs-key", "rollout_logprobs", "--mask-key",
	    "loss_masks", "--tokens-key", "response_ids", "--like", "skyrl"),
	    .has = WORDS("trajectory_ids", "is_last_step", "loss_masks") },
	{ "verifiers", "results.jsonl",
	    WORDS("--unsorted", "--group-key", "example_id", "--reward-key",
	    "reward", "--stratum-key", "metrics.total_tool_calls", "-a",
	    "drgrpo", "--no-tokens"),
	    .has = WORDS("example_id", "prompt", "completion", "reward",
	    "is_completed") },
	{ NULL }
};

const struct profile *
profile_find(const char *name)
{
	size_t i;

	for (i = 0; profile_names[i] != NULL; i++)
		if (strcmp(profile_names[i], name) == 0)
			return &profile_table[i];
	return NULL;
}

const char *
profile_hint(const char *name, int role)
{
	const struct profile *p = profile_find(name);

	return p != NULL && p->hint_role == role ? p->hint : NULL;
}

/* Whether the object [p, end) (valid JSON) has a top-level member name. */
static int
has_member(const char *line, const char *end, const char *name)
{
	const char *p = json_ws(line, end), *kb;
	struct json_err e;
	enum json_type t;
	size_t len = strlen(name);
	int esc;

	if (p >= end || *p != '{')
		return 0;
	for (p = json_ws(p + 1, end); p < end && *p == '"';) {
		kb = p;
		if ((p = json_string(p, end, &esc, &e)) == NULL)
			return 0;
		if ((size_t)(p - kb - 2) == len && memcmp(kb + 1, name,
		    len) == 0)
			return 1;
		p = json_ws(json_ws(p, end) + 1, end);
		if ((p = json_value(p, end, &t, &e)) == NULL)
			return 0;
		p = json_ws(p, end);
		if (p < end && *p == ',')
			p = json_ws(p + 1, end);
	}
	return 0;
}

const char *
profile_guess(const char *line, size_t len)
{
	const struct profile *p;
	size_t i;

	size_t k;

	for (k = 0; profile_names[k] != NULL; k++) {
		p = &profile_table[k];
		for (i = 0; p->has[i] != NULL; i++)
			if (!has_member(line, line + len, p->has[i]))
				break;
		if (p->has[i] == NULL)
			return profile_names[k];
	}
	return NULL;
}
