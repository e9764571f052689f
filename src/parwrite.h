/*
 * parwrite.h - n items written in order while the run's threads format
 * them: fn formats items j0 .. j1 - 1 into an output in memory
 * (output_mem), and the pieces go to the real output in order, so the
 * bytes are those of one thread.  A parwrite owns its pieces' memory;
 * fn and arg are the caller's, and fn is called from several threads at
 * once, for ranges that do not overlap.
 */
#ifndef RLADV_PARWRITE_H
#define RLADV_PARWRITE_H

#include <stddef.h>

#include "diag.h"
#include "output.h"

typedef int	(*parwrite_fn)(void *arg, struct output *o, size_t j0,
		    size_t j1, struct diag *d);

struct parwrite;

struct parwrite	*parwrite_new(void);
void		 parwrite_free(struct parwrite *pw);
/*
 * Writes items 0 .. n - 1 (bytes: about how many bytes of input they
 * are, to cut pieces of a size) to out: 0, or the first failure's status
 * with d set.  With one thread, or little to write, fn writes them all
 * to out itself.
 */
int		 parwrite_run(struct parwrite *pw, struct output *out, size_t n,
		    size_t bytes, parwrite_fn fn, void *arg, struct diag *d);

#endif
