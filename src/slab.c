/*
 * slab.c - the arrays of a structure in one allocation (slab.h).
 */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>

#include "slab.h"

#define SLAB_ALIGN	alignof(max_align_t)

int
slab_pass(struct slab *s)
{
	s->pass++;
	if (s->pass == 2) {
		s->mem = s->over ? NULL : calloc(1, s->len ? s->len : 1);
		s->len = 0;
	}
	return s->pass == 1 || (s->pass == 2 && s->mem != NULL);
}

void *
slab_take(struct slab *s, size_t n, size_t size)
{
	size_t at = s->len, len;

	if (size != 0 && n > (SIZE_MAX - SLAB_ALIGN) / size) {
		s->over = 1;
		return NULL;
	}
	/* Rounded up, so that the next array starts aligned too. */
	len = (n * size + SLAB_ALIGN - 1) / SLAB_ALIGN * SLAB_ALIGN;
	if (len > SIZE_MAX - at) {
		s->over = 1;
		return NULL;
	}
	s->len = at + len;
	return s->mem != NULL ? s->mem + at : NULL;
}
