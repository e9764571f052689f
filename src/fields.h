/*
 * fields.h - which fields of a record rladv reads, by which names, and
 * the rules it reads them by (struct fields), as the options and the
 * --from profiles set them.  A struct fields is plain data that the
 * caller owns and copies freely; its names point into strings the caller
 * keeps (argv, an optstore, or static tables).
 */
#ifndef RLADV_FIELDS_H
#define RLADV_FIELDS_H

#include "diag.h"

#define FIELD_MAXNAMES	12	/* aliases of one field, or parts of one */

/* The name slime 0.3.0 gave the rollout id (rollout_id from 0.3.1):
 * watched under --from slime, whose dumps of 0.3.0 have it. */
#define SLIME_ROLL_030	"group_id"

/*
 * The roles a field can play.  The first FR_NLISTED have lists of names:
 * aliases tried in order (the first present wins), or, when an option
 * named them, the one field (or, for the reward and the stratum, the
 * parts that are combined).  The others have one name or none.
 */
enum frole {
	FR_GROUP, FR_REWARD, FR_LOGPROBS, FR_MASK, FR_TOKENS, FR_STRATUM,
	FR_NLISTED,
	FR_LENGTH = FR_NLISTED, FR_SPANS, FR_PROMPT_LEN, FR_SAMPLE_MASK,
	FR_REMOVE, FR_BATCH, FR_TRAJ, FR_TRAJ_LAST, FR_BASELINE, FR_EXPECT,
	FR_ROLLOUT, FR_NROLES
};
#define FN(role)	(1u << (role))

/* Fields rladv writes, in the order it appends them. */
enum out_field {
	OUT_ADV, OUT_TADV, OUT_W, OUT_TW, OUT_ANN, OUT_NFIELDS
};

/* --reward-reduce: what an array reward becomes. */
enum reward_reduce { REDUCE_SUM, REDUCE_LAST };
/* --null-reward, in the order of its words: a null reward is an error,
 * a record whose every reward field is null is unscored (TRL from
 * 1.6.0), or a null reads as 0 (TRL before 1.6.0). */
enum null_reward { NULL_ERROR, NULL_UNSCORED, NULL_ZERO };

/* A listed role's names. */
struct field_list {
	const char	*name[FIELD_MAXNAMES];
	int		 n;
};

struct fields {
	struct field_list list[FR_NLISTED];	/* by role */
	/* One name each, or NULL. */
	const char	*length, *spans, *prompt_len, *sample_mask, *remove;
	const char	*batch;
	const char	*traj, *traj_last;
	const char	*baseline;	/* remax's: read with need_baseline */
	const char	*expect;	/* the framework's own advantage */
	const char	*rollout;	/* records of one rollout (slime's
					   rollout_id): one sequence of the
					   seq modes */
	/*
	 * FN() bits of the roles an option (or a profile) named: their
	 * field must be present, and no alias is tried for them.  A named
	 * list role with no names reads nothing (a profile's "none").
	 */
	unsigned	 named;
	/* FN() bits of the one-name roles a profile named whose field may
	 * be absent (profile.h's optional); an option naming the role
	 * clears its bit. */
	unsigned	 optional;
	double		 weight[FIELD_MAXNAMES];	/* --reward-weights */
	int		 nweight;
	enum reward_reduce reduce;
	enum null_reward null_reward;	/* --null-reward */
	int		 unwrap;	/* --unwrap */
	int		 columnar;	/* --columnar */
	int		 use_stratum;	/* read the stratum at all */
	int		 need_stratum;	/* a missing stratum is an error */
	int		 need_baseline;	/* read the baseline (remax) */
	int		 need_parts;	/* keep each reward part (gdpo) */
	int		 has_cap;	/* --stratum-cap given */
	double		 cap;
	int		 watch_step;	/* note step/global_step (warnings) */
	int		 need_group;	/* no --group-size: a key is needed */
	const char	*out[OUT_NFIELDS];	/* the names rladv writes */
	const char	*profile;	/* --from NAME, or NULL */
};

/* The default names and rules: the aliases of every role. */
void	fields_default(struct fields *f);
/* The i-th name a listed role is looked for by without options (its
 * aliases; a record's unused_mask bit i is the mask's), "" past them. */
const char *fields_alias(enum frole role, int i);
/* The names of role (n of them); NULL with *n 0 when none. */
const char *const *fields_names(const struct fields *f, enum frole role,
	    int *n);
/*
 * Names role by an option's value (a copy the caller keeps, split in
 * place at commas where the role takes several): the alias list goes.
 * A bad path is status 2.
 */
int	fields_set(struct fields *f, enum frole role, char *value,
	    struct diag *d);
/* Every role named, to nothing: what a profile starts from. */
void	fields_pin(struct fields *f);
/* A listed role read by the first of names (NULL-ended, static) that a
 * record has, as its default aliases are: a profile's choice. */
void	fields_aliases(struct fields *f, enum frole role,
	    const char *const *names);
/* The option that names role ("--group-key"). */
const char *fields_option(enum frole role);
/* What the role is, in a word ("group", "reward", ...). */
const char *fields_role(enum frole role);
/* Checks across the field options (weights for every reward key...). */
int	fields_check(const struct fields *f, struct diag *d);
/* Whether two sets read records the same way (diff's two sides). */
int	fields_same(const struct fields *a, const struct fields *b);

#endif
