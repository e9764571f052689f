/*
 * ahead.h - the files' lines read ahead and parsed on the run's threads,
 * then handed to the pipeline in input order, as a source
 * (pipeline.h).  The reader owns its chunks of parsed lines; the lines
 * stay the input's.
 */
#ifndef RLADV_AHEAD_H
#define RLADV_AHEAD_H

#include "input.h"
#include "pipeline.h"
#include "pool.h"

struct ahead;

/* Reads in by the fields f, on pool p (which must have threads); NULL
 * with d set (status 2) when f names more fields than a reader holds. */
struct ahead	*ahead_new(struct input *in, const struct fields *f,
		    struct pool *p, struct diag *d);
/* Waits for the chunks still being parsed, and frees them. */
void		 ahead_free(struct ahead *a);
void		 ahead_source(struct ahead *a, struct pipeline_src *src);

#endif
