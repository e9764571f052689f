/*
 * slab.h - the arrays of a structure in one allocation.  The caller owns
 * the block that slab_pass() makes: one free() of it releases every array
 * that slab_take() placed there, so a structure of arrays is made with
 * one check and no array of a new field can be left unreleased.
 */
#ifndef RLADV_SLAB_H
#define RLADV_SLAB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The caller lists its arrays once, in the body of
 *	struct slab s = SLAB_INIT;
 *	while (slab_pass(&s))
 *		...slab_take(&s, n, size) for each array...
 * which runs twice: first sizing the block (slab_take() returns NULL),
 * then placing the arrays in it.  After the loop s.mem is the block, or
 * NULL when out of memory.  One list serves both passes, so no array can
 * be sized and not placed.
 */
struct slab {
	char	*mem;
	size_t	 len;		/* bytes sized, or placed so far */
	int	 pass;		/* 1 sizing, 2 placing, 3 done */
	int	 over;		/* the sizes overflowed a size_t */
};

#define SLAB_INIT	{ NULL, 0, 0, 0 }

/* Whether the list is to run (again); the block is made between the two
 * passes. */
int	 slab_pass(struct slab *s);
/* n elements of size bytes: NULL while sizing, else their place in the
 * block, zeroed and aligned for any type. */
void	*slab_take(struct slab *s, size_t n, size_t size);

#ifdef __cplusplus
}
#endif

#endif
