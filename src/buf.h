/*
 * buf.h - growable byte and integer arrays.  A buffer owns its memory;
 * buf_free() releases it.
 */
#ifndef RLADV_BUF_H
#define RLADV_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	char	*p;
	size_t	 len, cap;
};

/* Makes room for n more bytes and returns where they go. */
char	*buf_reserve(struct buf *b, size_t n);
/* Appends n bytes; returns their offset. */
size_t	 buf_add(struct buf *b, const void *p, size_t n);
void	 buf_free(struct buf *b);

#endif
