/*
 * stats.h - what rladv stats reports, summed group by group for each
 * batch and for the whole input, and what its renderers (text, --json,
 * --html) share.  A struct stats owns its batches' figures until stats_free(); a
 * renderer reads them and owns nothing of them.
 */
#ifndef RLADV_STATS_H
#define RLADV_STATS_H

#include <stddef.h>

#include "bins.h"
#include "keymap.h"
#include "options.h"
#include "stats_papers.h"
#include "strata.h"

struct batch;
struct diag;
struct gbatch;

/* Groups of one size. */
struct stats_hbin {
	size_t			size;
	unsigned long long	groups;
};

/* What a stratum's entry of stats_acc's table holds: its records, and
 * the rewards and diagnostics of those scored. */
struct stats_sval {
	double			records;
	struct strata_mom	reward;
	struct stats_pstratum	p;
};

/* Everything stats reports about a batch, or about the whole input. */
struct stats_acc {
	char			*label;	/* batch key, or its number */
	char			*where;	/* FILE:LINE of its first record */
	unsigned long long	 records, groups, zero_std;
	/*
	 * The records and groups of the reward figures: a record left
	 * unscored (--null-reward unscored) is in none of them, as TRL's
	 * logged reward metrics leave it out, and a group of such records
	 * alone is in none; the counts, lengths, signs and losses keep it.
	 */
	unsigned long long	 scored, scored_groups;
	/* Records that took their group, reward, log-probs, mask from each
	 * name, and that had none. */
	unsigned long long	 alias[FR_NLISTED][FIELD_MAXNAMES];
	unsigned long long	 noalias[FR_NLISTED];
	unsigned long long	 with_stratum;
	/* Records without the removal field, which --from slime makes
	 * optional (record.h's remove_absent). */
	unsigned long long	 remove_absent;
	/* Records whose --rollout-key field is absent or null: a rollout
	 * each. */
	unsigned long long	 roll_own;
	struct stats_hbin	*hist;		/* sorted by size */
	size_t			 nhist, hcap;
	struct keymap		 strata;	/* values: struct stats_sval */
	struct strata_mom	 reward;	/* all scored records */
	/* Trained tokens T_i: all records, A > 0, A < 0. */
	struct strata_mom	 len, pos, neg;
	unsigned long long	 zero;		/* records with A = 0 (an
						   unscored one too) */
	/* Sums of squares over groups: pooled over the scored records they
	 * give the record-weighted mean of the groups' variances.  Each
	 * group's are taken on its prescaled rewards (stats_add()). */
	struct xsum		 ss_total, ss_within, ss_between;
	double			 share_sum;	/* per-group shares */
	unsigned long long	 share_groups;	/* groups with variance */
	struct stats_papers	 p;		/* the papers' diagnostics */
};

struct stats {
	const struct prefs	*c;
	struct stats_acc	*batch;
	size_t			 nbatch, bcap;
	struct stats_acc	 total;		/* after stats_finish() */
	unsigned long long	 rejected;	/* records, skip mode */
	char			*joined[FR_NLISTED];	/* a named role's
						   parts, joined by commas */
	const char		*guess;		/* the profile whose fields the
						   first record has (no --from) */
	struct strata_cells	 cells;		/* of the group at hand */
	/* --html: trained tokens of records with A > 0, A < 0. */
	struct bins		 len_pos, len_neg;
	struct adv_params	 ap;
	/* Scratch for the batch at hand, cap records and gcap groups, all
	 * in one block (mem, slab.h) made again when a batch needs more:
	 * the estimator's advantages (-a), the loss weights of a group. */
	void			*mem;
	double			*adv, *w;
	size_t			 cap;
	/* The batch's rewards, each group's divided by 2^kg[g] as the
	 * estimators prescale them (past 2^500), so that its sums and
	 * squares stay doubles. */
	double			*rs;
	int			*kg;
	double			*as;	/* advantages rescaled (losses) */
	double			*sadv;	/* the advantages of the scored
					   records (bview_scored()) */
	size_t			 gcap;
};

/*
 * The roles of the fields whose use stats counts (enum frole's).  The
 * listed ones (FR_NLISTED) have a line in the table whatever the run;
 * the others one where an option or the profile gave the field and the
 * run read it.  The batch key has none: the "batches" line names it.
 */
enum stats_role {
	STATS_GROUP = FR_GROUP, STATS_REWARD = FR_REWARD,
	STATS_LOGPROBS = FR_LOGPROBS, STATS_MASK = FR_MASK,
	STATS_TOKENS = FR_TOKENS, STATS_STRATUM = FR_STRATUM,
	STATS_LENGTH = FR_LENGTH, STATS_SPANS = FR_SPANS,
	STATS_PROMPT_LEN = FR_PROMPT_LEN, STATS_SAMPLE_MASK = FR_SAMPLE_MASK,
	STATS_REMOVE = FR_REMOVE,
	STATS_TRAJ = FR_TRAJ, STATS_TRAJ_LAST = FR_TRAJ_LAST,
	STATS_BASELINE = FR_BASELINE, STATS_EXPECT = FR_EXPECT,
	STATS_ROLLOUT = FR_ROLLOUT,
	STATS_NROLES = FR_NROLES
};
/* Each role's name in the table and in --json ("prompt_len"). */
extern const char *const stats_role_names[STATS_NROLES];
/* The table's roles in the order it lists them: a role beside those it
 * works with (the spans after the mask). */
#define STATS_NSHOWN	(STATS_NROLES - 1)
extern const enum stats_role stats_role_order[STATS_NSHOWN];

/* One row of the table of fields used. */
struct stats_use {
	enum stats_role		 role;
	const char		*name;	/* NULL: the records without one */
	unsigned long long	 records;
};
#define STATS_MAXUSE	(FR_NLISTED * (FIELD_MAXNAMES + 1) + STATS_NSHOWN + 1)

/* What the sign-length reading of Balanced Aggregation §4.3.3 says. */
enum stats_favour { STATS_FAV_NONE, STATS_FAV_TOKEN, STATS_FAV_SEQ };

void	stats_init(struct stats *s, const struct prefs *c);
/* The pipeline's callback (pipeline.h): folds in a batch's groups. */
int	stats_add(void *s, const struct gbatch *b, const struct batch *v,
	    struct diag *d);
/* Sums the batches into s->total; rejected: the pipeline's count. */
void	stats_finish(struct stats *s, unsigned long long rejected);
void	stats_free(struct stats *s);

/* The reward moments of stratum k (an index of a->strata), of its
 * scored records. */
const struct strata_mom *stats_rewards(const struct stats_acc *a, size_t k);
/* Its records, scored or not. */
double	stats_srecords(const struct stats_acc *a, size_t k);
/* Its diagnostics (stats_papers.h). */
struct stats_pstratum *stats_pstratum(const struct stats_acc *a, size_t k);
/*
 * The table of fields used, in u (STATS_MAXUSE rows at most): role by
 * role in stats_role_order, each name that records took the field from,
 * then the records without it; returns the number of rows.  A role of
 * one name has rows only where the run read it.
 */
size_t	stats_uses(const struct stats *s, const struct stats_acc *a,
	    struct stats_use *u);
/* The stratum's field names as the table heads them: the parts of a
 * composite, or the aliases that records had ("tool_calls/num_turns"). */
void	stats_stratum_name(const struct stats *s, const struct stats_acc *a,
	    char *buf, size_t size);
/* The sign-length reading: the gap of mean lengths, positive minus
 * negative, that gap over the mean length, and the length CV. */
enum stats_favour stats_reading(const struct stats_acc *a, double *gap,
	    double *rel, double *cv);
/* The reading in words: the verdict, the comparison behind it and what it
 * means (n bytes each). */
void	stats_reading_text(const struct stats_acc *a, char *verdict,
	    char *cmp, char *why, size_t n);
struct stats_row;
/* a as one row of the per-step figures (stats_html.h). */
void	stats_row_of(const struct stats_acc *a, struct stats_row *r);
/* A sum of squares pooled over n records (0 when none; Inf when past a
 * double). */
double	stats_pooled(const struct xsum *ss, unsigned long long n);
/* The share a / b (NaN when b is 0). */
double	stats_share(const struct xsum *a, const struct xsum *b);

#endif
