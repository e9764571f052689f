/*
 * buf.h - growable byte and integer arrays, and large blocks of memory
 * of their own.  A buffer owns its memory; buf_free() releases it.  A
 * block from buf_map() is the caller's until buf_unmap().
 */
#ifndef RLADV_BUF_H
#define RLADV_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct buf {
	char	*p;
	size_t	 len, cap;
};

/* buf_reserve() when the bytes do not fit. */
char	*buf_reserve_grow(struct buf *b, size_t n);

/* Makes room for n more bytes and returns where they go (inline where
 * they fit, as buf_add()). */
static inline char *
buf_reserve(struct buf *b, size_t n)
{
	if (b->cap - b->len < n)
		return buf_reserve_grow(b, n);
	return b->p + b->len;
}
/* buf_add() when the bytes do not fit: grows b first. */
size_t	 buf_add_grow(struct buf *b, const void *p, size_t n);

/* Appends n bytes; returns their offset.  Inline: most appends are a few
 * bytes that fit (a mask's run, a key's type), and a call cost more than
 * the copy. */
static inline size_t
buf_add(struct buf *b, const void *p, size_t n)
{
	size_t off = b->len;

	if (b->cap - off < n)
		return buf_add_grow(b, p, n);
	if (n > 0)
		memcpy(b->p + off, p, n);
	b->len = off + n;
	return off;
}
void	 buf_free(struct buf *b);

/* At least *len bytes of zeroed memory in a mapping of their own; *len
 * is set to the size mapped.  NULL when out of memory. */
void	*buf_map(size_t *len);
/* Grows a block from buf_map() to at least *len bytes (set to the new
 * size), keeping its bytes; NULL, and the old block intact, on failure. */
void	*buf_remap(void *p, size_t oldlen, size_t *len);
void	 buf_unmap(void *p, size_t len);

#endif
