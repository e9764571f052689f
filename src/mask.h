/*
 * mask.h - which tokens of a response are trained, as runs: the lengths
 * of alternating runs of ones and zeros, ones first (a mask of a few
 * long runs, as tool-output spans make, writes its token arrays as a few
 * block copies).  Runs are appended to the buffer the caller owns, as
 * uint32_t; a struct mask says where they are and what they add up to.
 */
#ifndef RLADV_MASK_H
#define RLADV_MASK_H

#include <stddef.h>

#include "buf.h"

struct mask {
	size_t		 runs, nruns;	/* first run (uint32_t index), count */
	size_t		 count;		/* tokens */
	size_t		 ones;		/* trained tokens */
	size_t		 bad_elem;	/* what failed: the element, */
	const char	*bad_at;	/* where it starts */
};

/*
 * An array of 0/1, booleans, or numbers equal to 0 or 1 (1.0 and 0.0, as
 * torch's tolist() writes them), p at its '['.  Returns the byte after
 * the ']', or NULL with bad_elem and bad_at set (and nothing appended).
 */
const char	*mask_parse(const char *p, const char *end, struct buf *runs,
		    struct mask *m);
/*
 * Spans of trained tokens, [[start, end), ...] (OpenRLHF's action_ranges),
 * p at the '[' of the array, over L tokens.  Returns NULL, or what is
 * wrong in words with m->bad_elem the span at fault.
 */
const char	*mask_spans(const char *p, const char *end, size_t L,
		    struct buf *runs, struct mask *m);
/* Every token trained (no mask), or none. */
void		 mask_all(size_t L, int ones, struct buf *runs, struct mask *m);
/* The first n tokens untrained (a prompt in front): m becomes the runs
 * of that, appended to runs. */
void		 mask_cut(struct buf *runs, size_t n, struct mask *m);

#endif
