/*
 * shard.h - the records of a whole run, for the pipeline, from its index
 * (index.h): those of one shard with their lines, read from the shard and
 * checked against the index, the others by their projection alone
 * (struct record's elsewhere).  This is rladv compute --index; with no
 * shard (rladv index --merge) every record is elsewhere, and the index
 * lines may be echoed to an output.  A shard owns its index reader and
 * the shard's input until shard_close(); the output stays the caller's.
 */
#ifndef RLADV_SHARD_H
#define RLADV_SHARD_H

#include "output.h"
#include "pipeline.h"

struct shard;

/*
 * The indexes idx[0..nidx-1], read as one, and the shard file (NULL:
 * none).  The shard is the section of the same name: the name given to
 * rladv index.  echo (may be NULL) gets every section of the indexes.
 */
struct shard	*shard_open(const struct prefs *c, char *const *idx,
		    size_t nidx, char *file, struct output *echo);
/* The source that pipeline_run_src() reads. */
void		 shard_source(struct shard *s, struct pipeline_src *src);
void		 shard_close(struct shard *s);

#endif
