/*
 * tokarr.h - a short token array's bytes ("[x, x, 0, x]"), written into
 * memory the caller owns and has made room in.
 */
#ifndef RLADV_TOKARR_H
#define RLADV_TOKARR_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

#define TOKARR_SHORT	64	/* tokens: at most this many are short */
#define TOKARR_UNIT	32	/* bytes copied for a token's unit */
#define TOKARR_COPY	128	/* bytes of repeated units copied at once */
#define TOKARR_REPBUF	(TOKARR_COPY + 2 * TOKARR_UNIT)

/*
 * A token's units repeated: rep holds sep x (or sep 0) again and again,
 * TOKARR_COPY bytes or more of it, k of them whole units.
 */
struct tokarr_rep {
	const char	*rep[2];	/* [0]: sep 0, [1]: sep x */
	size_t		 ulen[2];	/* a unit's bytes */
	size_t		 k[2];
};

/* Fills rep (TOKARR_REPBUF bytes) with sep and the number x (xlen bytes
 * of the TOKARR_UNIT - 2 at x) repeated; returns its k.  seplen + xlen
 * is at most TOKARR_UNIT. */
size_t	tokarr_fill(char *rep, size_t seplen, const char *x, size_t xlen);

/*
 * Writes r's array of units (1 where the mask is 1, 0 where it is 0) at p,
 * with room for r->L units of the longer kind and TOKARR_COPY bytes more;
 * returns the byte after it.
 */
char	*tokarr_put(char *p, const struct record *r, const uint32_t *runs,
	    const struct tokarr_rep *u, size_t seplen);

/* The next run of r's array, from run *i on: its length *n (cut to the
 * *left tokens still to write) and whether they are trained; 0 when the
 * array is done.  Inline: a few times an array. */
static inline int
tokarr_next_run(const struct record *r, const uint32_t *runs, size_t *i,
    size_t *left, size_t *n, int *one)
{
	while (*left > 0) {
		if (r->has_mask) {
			if (*i >= r->nruns)
				return 0;
			*n = runs[r->runs + *i];
			*one = !(*i & 1);
		} else {
			*n = *left;
			*one = 1;
		}
		(*i)++;
		if (*n == 0)
			continue;
		if (*n > *left)
			*n = *left;
		*left -= *n;
		return 1;
	}
	return 0;
}

#endif
