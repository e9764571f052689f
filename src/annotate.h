/*
 * annotate.h - rladv compute --annotate: the "rladv" member of each
 * record, the statistics its numbers came from: its group's and its
 * stratum's size, mean and deviation; Stratified GRPO's alpha_k and
 * Delta_k of its (group, stratum) cell; Balanced Aggregation's k, m,
 * N+, N-, M+, M-, Z+, Z- of its group; MS-GRPO's path, and on the sampled
 * path the scales and the comparison subgroups that hold the record.  A
 * struct annot owns its text until annotate_free().
 */
#ifndef RLADV_ANNOTATE_H
#define RLADV_ANNOTATE_H

#include <stddef.h>

#include "buf.h"

struct adv_params;
struct batch;
struct diag;
struct gbatch;
struct prefs;

struct annot {
	struct buf	 text;		/* every record's member, one after the
					   other */
	size_t		*off, *len;	/* record k's: text.p + off[k] */
	size_t		 cap;
	struct buf	 scratch;
};

/*
 * The members of the records of v (advantages adv, group order), as
 * c and ap computed them.  0, or a status with d set (out of memory).
 */
int	annotate_batch(struct annot *x, const struct prefs *c,
	    const struct adv_params *ap, const struct gbatch *b,
	    const struct batch *v, const double *adv, struct diag *d);
void	annotate_free(struct annot *x);

#endif
