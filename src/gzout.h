/*
 * gzout.h - gzip compression of the output on every core.  The stream
 * owns its buffers and threads; the bytes passed in stay the caller's,
 * and the compressed bytes go to the caller's sink, in order.
 */
#ifndef RLADV_GZOUT_H
#define RLADV_GZOUT_H

#include <stddef.h>

#include "diag.h"

struct gzout;

/* Writes n compressed bytes; 0, or a status with d set. */
typedef int	(*gzout_sink)(void *arg, const void *p, size_t n,
		    struct diag *d);

/*
 * A gzip stream at level (1-9) into sink.  threads: the most compressing
 * threads (0: one per online CPU); none start before a second chunk.
 */
struct gzout	*gzout_open(int level, int threads, gzout_sink sink, void *arg,
		    struct diag *d);
int		 gzout_write(struct gzout *z, const void *p, size_t n,
		    struct diag *d);
/* Ends the stream (unless abort is set) and frees z in any case. */
int		 gzout_close(struct gzout *z, int abort, struct diag *d);

#endif
