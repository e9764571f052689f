/*
 * pipeline.h - input to batches: read, parse, group, and hand each batch
 * to a command's callback.  The pipeline owns the batch it lends.
 */
#ifndef RLADV_PIPELINE_H
#define RLADV_PIPELINE_H

#include "batch.h"
#include "diag.h"
#include "group.h"
#include "options.h"

struct pipeline_stats {
	unsigned long long	in, out, rejected;
	unsigned long long	groups, strata, batches;
	unsigned long long	alias_used[4][FIELD_MAXNAMES];
};

/* Called once per batch, records in group order in v; b's functions
 * (batch.h) read its records. */
typedef int	(*pipeline_fn)(void *ctx, const struct gbatch *b,
		    const struct batch *v, struct diag *d);

/*
 * Runs the input of c through fn.  need_tie: fill v->tie (MS-GRPO).
 * stream: each group may be its own batch (memory bounded by a group).
 */
int	pipeline_run(const struct prefs *c, int need_tie, int stream,
	    pipeline_fn fn, void *ctx, struct pipeline_stats *st,
	    struct diag *d);

#endif
