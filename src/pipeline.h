/*
 * pipeline.h - input to batches: read, parse, group, and hand each batch
 * to a command's callback.  The pipeline owns the batch it lends; a
 * source owns the lines and names its items point to.
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

/* One record as a source hands it over. */
struct pipeline_item {
	const char		*text;	/* its line ("" when r.elsewhere) */
	size_t			 len;
	int			 stable;	/* see struct line */
	const char		*file;
	unsigned long long	 lineno;
	/* The record, its keys and its runs where they are the source's
	 * own (valid until its next call), handed over without a copy;
	 * NULL: in the r, keys and runs next() was given. */
	const struct record	*r;
	const struct buf	*keys, *runs;
};

/*
 * Where records come from: the files of c (pipeline_run), or an index
 * and one shard (shard.h).  next() returns 1 with the item and r (its
 * keys and runs in the buffers given, emptied by the caller), 2 for a bad
 * record (why says what is wrong; r.elsewhere when it is another shard's,
 * which this run neither reports nor counts), 0 at the end, or -1 with d
 * set; with 1 or 2 it sets every member of r (the caller does not clear
 * it: a record is a few hundred bytes), or points the item at its own
 * (the caller clears the item's pointers).  release() lets go of the
 * lines held before keep (NULL: all) once a batch is done.  A record
 * that is elsewhere is grouped and computed with the others, but never
 * counted in st->in, st->out or st->rejected, reported, or written to
 * --rejects.
 */
struct pipeline_src {
	int	(*next)(void *ctx, struct pipeline_item *it, struct record *r,
		    struct buf *keys, struct buf *runs, struct diag *why,
		    struct diag *d);
	void	(*release)(void *ctx, const char *keep);
	void	*ctx;
};

int	pipeline_run_src(const struct prefs *c, const struct pipeline_src *src,
	    int need_tie, int stream, pipeline_fn fn, void *ctx,
	    struct pipeline_stats *st, struct diag *d);

#endif
