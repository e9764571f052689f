/*
 * buf.h - growable byte and integer arrays, and large blocks of memory
 * of their own.  A buffer owns its memory; buf_free() releases it.  A
 * block from buf_map() is the caller's until buf_unmap().
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

/* At least *len bytes of zeroed memory in a mapping of their own; *len
 * is set to the size mapped.  NULL when out of memory. */
void	*buf_map(size_t *len);
/* Grows a block from buf_map() to at least *len bytes (set to the new
 * size), keeping its bytes; NULL, and the old block intact, on failure. */
void	*buf_remap(void *p, size_t oldlen, size_t *len);
void	 buf_unmap(void *p, size_t len);

#endif
