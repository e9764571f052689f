/* buf.c - growable arrays, doubling so appends are amortized O(1). */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"

char *
buf_reserve(struct buf *b, size_t n)
{
	size_t cap;

	if (b->cap - b->len < n) {
		cap = b->cap ? b->cap : 256;
		while (cap - b->len < n)
			cap *= 2;
		b->p = diag_realloc(b->p, cap);
		b->cap = cap;
	}
	return b->p + b->len;
}

size_t
buf_add(struct buf *b, const void *p, size_t n)
{
	size_t off = b->len;

	if (n == 0)
		return off;
	memcpy(buf_reserve(b, n), p, n);
	b->len += n;
	return off;
}

void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
