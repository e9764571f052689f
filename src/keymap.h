/*
 * keymap.h - byte strings to dense indexes 0 .. n - 1, in the order they
 * were first added, with a value of a fixed size beside each key.  A
 * keymap owns copies of its keys and its values until keymap_free(); the
 * pointers keymap_key() and keymap_val() return stay valid until the next
 * keymap_get(), keymap_clear() or keymap_free().
 *
 * It is rladv's one hash table: group keys of a batch (--unsorted), the
 * keys of groups that ended, stratum keys, the records of diff --outputs
 * --key, and the strata of one group.
 */
#ifndef RLADV_KEYMAP_H
#define RLADV_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Key k: what a probe compares, side by side. */
struct keymap_ent {
	uint64_t	 hash;
	size_t		 len;
	size_t		 off;		/* where it begins in keys */
};

struct keymap {
	struct buf		 keys;	/* the keys end to end */
	struct keymap_ent	*ent;	/* [cap] */
	size_t			 n, cap;
	uint64_t	*slot;		/* key index + 1 and its hash's
					   top bits (keymap.c); 0 is empty */
	size_t		 nslot;		/* a power of two, or 0 */
	char		*val;		/* [cap] values of vsize bytes */
	size_t		 vsize;
};

#define KEYMAP_NONE	((size_t)-1)	/* keymap_find(): no such key */

/* An empty map whose values are vsize bytes (0: keys only). */
void		 keymap_init(struct keymap *m, size_t vsize);
/* The index of key, added (with a zeroed value) when new; *added, when
 * not NULL, says which. */
size_t		 keymap_get(struct keymap *m, const void *key, size_t len,
		    int *added);
/* keymap_get() of a key whose hash, keymap_hash(key, len, 0), the caller
 * has already. */
size_t		 keymap_get_hashed(struct keymap *m, const void *key,
		    size_t len, uint64_t h, int *added);
/* Starts loading the slot that a key of hash h is probed from (a cache
 * miss on a large map), for a keymap_get_hashed() a little later. */
void		 keymap_prefetch(const struct keymap *m, uint64_t h);
/* The index of key, or KEYMAP_NONE. */
size_t		 keymap_find(const struct keymap *m, const void *key,
		    size_t len);
/* Key k and its length (len may be NULL). */
const char	*keymap_key(const struct keymap *m, size_t k, size_t *len);
/* The value of key k. */
void		*keymap_val(const struct keymap *m, size_t k);
/* The number of keys. */
size_t		 keymap_count(const struct keymap *m);
/* Forgets every key, keeping the memory for the next ones. */
void		 keymap_clear(struct keymap *m);
/* Frees everything; the map is then empty, for values of the same size. */
void		 keymap_free(struct keymap *m);

/* 64-bit hash of bytes (keys, lines): fast, not cryptographic. */
uint64_t	 keymap_hash(const void *p, size_t n, uint64_t seed);

#endif
