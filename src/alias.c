/*
 * alias.c - the frameworks' names of the estimators and of the loss
 * modes: one table, a row's names together with the row they name and
 * the table it is of, found by one lookup.
 */
#include <string.h>

#include "alias.h"

/*
 * The estimators'.  verl's grpo_vectorized floors the variance at 1e-6
 * before adding eps again, so it is grpo only for groups whose variance
 * exceeds 1e-6.  NeMo-RL's reinforce_plus_plus (minus_baseline true by
 * default) is rpp-baseline, not this list's rpp.
 *
 * The loss modes': verl's and SkyRL's loss_agg_mode / loss_reduction
 * names.  TRL's loss_type names stay out: its grpo and dr_grpo are
 * estimators here.
 */
const struct alias alias_table[] = {
	{ ALIAS_ESTIMATOR, "grpo", { { "group_norm", "OpenRLHF" },
	    { "grpo_vectorized", "verl" }, { "gspo", "slime" },
	    { "cispo", "slime" } } },
	{ ALIAS_ESTIMATOR, "drgrpo", { { "dr_grpo", "OpenRLHF" } } },
	{ ALIAS_ESTIMATOR, "rloo", { { "rloo_vectorized", "verl" } } },
	{ ALIAS_ESTIMATOR, "rpp-baseline", {
	    { "reinforce_plus_plus_baseline", "verl, slime, NeMo-RL" },
	    { "reinforce_baseline", "OpenRLHF" } } },
	{ ALIAS_ESTIMATOR, "rpp", { { "reinforce_plus_plus", "verl, slime" },
	    { "reinforce", "OpenRLHF" }, { "reinforce++", "SkyRL" } } },
	{ ALIAS_ESTIMATOR, "passk", { { "grpo_passk", "verl" } } },
	{ ALIAS_LOSS, "token", { { "token-mean", "verl" },
	    { "token_mean", "SkyRL" } } },
	{ ALIAS_LOSS, "seq", { { "seq-mean-token-mean", "verl" },
	    { "sequence_mean", "SkyRL" } } },
	{ ALIAS_LOSS, "seq-sum", { { "seq-mean-token-sum", "verl" } } },
	{ ALIAS_LOSS, "seq-sum-norm", { { "seq-mean-token-sum-norm", "verl" },
	    { "seq_mean_token_sum_norm", "SkyRL" } } },
	{ ALIAS_LOSS, "prompt", { { "prompt_mean", "SkyRL" } } },
	{ 0, NULL, { { NULL, NULL } } }
};

const char *
alias_resolve(enum alias_of of, const char *name)
{
	const struct alias *a;
	int i;

	for (a = alias_table; a->target != NULL; a++)
		for (i = 0; a->of == of && i < ALIAS_MAX &&
		    a->names[i].name != NULL; i++)
			if (strcmp(a->names[i].name, name) == 0)
				return a->target;
	return name;
}

const void *
alias_find(enum alias_of of, const void *table, size_t size,
    const char *name)
{
	const char *row;

	name = alias_resolve(of, name);
	/* A row's address is its first member's, its name (C11 6.7.2.1). */
	for (row = table; *(const char *const *)row != NULL; row += size)
		if (strcmp(*(const char *const *)row, name) == 0)
			return row;
	return NULL;
}
