/*
 * keymap.c - open addressing with linear probing.  The slots hold key
 * indexes, not keys, so that growing the table moves words, and the keys
 * stay in the order they came: indexes are dense and stable, and callers
 * keep their figures in arrays beside them.  The slots are kept at most
 * half full, so that probes stay short.  Running out of memory ends the
 * process in diag's allocators, as it does everywhere in rladv.
 *
 * A slot also holds the top bits of its key's hash (SLOT_TAG), above the
 * index + 1: a probe passes the other keys on its path without a look at
 * their entries, each a cache miss on a large map (the groups that ended,
 * one probe a group; on 300 MB of 20-token records the entry's load was a
 * third of lookup()'s samples).  Indexes below 2^40: a map of more keys
 * would be terabytes.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "keymap.h"

#define SLOT_IBITS	40
#define SLOT_INDEX	(((uint64_t)1 << SLOT_IBITS) - 1)
#define SLOT_TAG(h)	((h) & ~SLOT_INDEX)

uint64_t
keymap_hash(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (0x9e3779b97f4a7c15ULL * (n + 1)), w;
	size_t all = n;

	/* Eight bytes a step, each mixed by a multiply and a rotation. */
	while (n >= 8) {
		memcpy(&w, s, 8);
		h ^= w * 0xff51afd7ed558ccdULL;
		h = (h << 27 | h >> 37) * 0xc4ceb9fe1a85ec53ULL;
		s += 8;
		n -= 8;
	}
	/* The last n bytes as the low bytes of a zeroed word.  Where the
	 * words are little-endian, by whole loads: the 8 bytes that end
	 * with them, shifted, or loads that overlap, not memcpy() of n
	 * bytes, a call (half the cost of a group key's hash). */
	w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n > 0 && all >= 8) {
		memcpy(&w, s + n - 8, 8);
		w >>= 8 * (8 - n);
	} else if (n >= 4) {
		uint32_t lo, hi;

		memcpy(&lo, s, 4);
		memcpy(&hi, s + n - 4, 4);
		w = lo | (uint64_t)hi << 8 * (n - 4);
	} else if (n > 0)
		w = s[0] | (uint64_t)s[n / 2] << 8 * (n / 2) |
		    (uint64_t)s[n - 1] << 8 * (n - 1);
#else
	if (n > 0)
		memcpy(&w, s, n);
#endif
	h ^= w * 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

void
keymap_init(struct keymap *m, size_t vsize)
{
	memset(m, 0, sizeof(*m));
	m->vsize = vsize;
}

/*
 * The index of key (hash h), or KEYMAP_NONE; *at is where the probe
 * stopped, the free slot a new key goes to.  The map has slots.
 */
static size_t
lookup(const struct keymap *m, const void *key, size_t len, uint64_t h,
    size_t *at)
{
	const struct keymap_ent *e;
	size_t i, k, mask = m->nslot - 1;
	uint64_t sl;

	for (i = h & mask; (sl = m->slot[i]) != 0; i = (i + 1) & mask) {
		if (SLOT_TAG(sl) != SLOT_TAG(h))
			continue;
		e = &m->ent[k = (sl & SLOT_INDEX) - 1];
		/* An empty key may come with no bytes at all. */
		if (e->hash == h && e->len == len && (len == 0 ||
		    memcmp(m->keys.p + e->off, key, len) == 0)) {
			*at = i;
			return k;
		}
	}
	*at = i;
	return KEYMAP_NONE;
}

/* Room for one more key: the slots stay at most half full. */
static void
grow(struct keymap *m)
{
	size_t i, k, ns;

	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 8;
		m->ent = diag_realloc(m->ent, m->cap * sizeof(*m->ent));
		if (m->vsize)
			m->val = diag_realloc(m->val, m->cap * m->vsize);
	}
	if (2 * (m->n + 1) <= m->nslot)
		return;
	ns = m->nslot ? 2 * m->nslot : 16;
	free(m->slot);
	m->slot = diag_calloc(ns, sizeof(*m->slot));
	m->nslot = ns;
	for (k = 0; k < m->n; k++) {
		for (i = m->ent[k].hash & (ns - 1); m->slot[i];
		    i = (i + 1) & (ns - 1))
			;
		m->slot[i] = SLOT_TAG(m->ent[k].hash) | (k + 1);
	}
}

size_t
keymap_get(struct keymap *m, const void *key, size_t len, int *added)
{
	return keymap_get_hashed(m, key, len, keymap_hash(key, len, 0), added);
}

void
keymap_prefetch(const struct keymap *m, uint64_t h)
{
	if (m->nslot > 0)
		__builtin_prefetch(&m->slot[h & (m->nslot - 1)]);
}

size_t
keymap_get_hashed(struct keymap *m, const void *key, size_t len, uint64_t h,
    int *added)
{
	size_t i, k;

	grow(m);
	if ((k = lookup(m, key, len, h, &i)) != KEYMAP_NONE) {
		if (added != NULL)
			*added = 0;
		return k;
	}
	k = m->n++;
	m->ent[k].hash = h;
	m->ent[k].len = len;
	m->ent[k].off = buf_add(&m->keys, key, len);
	if (m->vsize)
		memset(m->val + k * m->vsize, 0, m->vsize);
	m->slot[i] = SLOT_TAG(h) | (k + 1);
	if (added != NULL)
		*added = 1;
	return k;
}

size_t
keymap_find(const struct keymap *m, const void *key, size_t len)
{
	size_t at;

	/* An empty map may have no slots yet. */
	if (m->n == 0)
		return KEYMAP_NONE;
	return lookup(m, key, len, keymap_hash(key, len, 0), &at);
}

const char *
keymap_key(const struct keymap *m, size_t k, size_t *len)
{
	if (len != NULL)
		*len = m->ent[k].len;
	/* Only empty keys so far: no storage to point into. */
	return m->ent[k].len ? m->keys.p + m->ent[k].off : "";
}

void *
keymap_val(const struct keymap *m, size_t k)
{
	return m->val + k * m->vsize;
}

size_t
keymap_count(const struct keymap *m)
{
	return m->n;
}

void
keymap_clear(struct keymap *m)
{
	size_t i, k, mask = m->nslot - 1;

	/* A few keys in many slots (a large map used again for a small
	 * set): clear only their slots, so that clearing costs what was
	 * added.  Every key is found on its own probe path, whatever was
	 * cleared before it. */
	if (8 * m->n < m->nslot)
		for (k = 0; k < m->n; k++) {
			for (i = m->ent[k].hash & mask;
			    (m->slot[i] & SLOT_INDEX) != k + 1;
			    i = (i + 1) & mask)
				;
			m->slot[i] = 0;
		}
	else if (m->nslot)
		memset(m->slot, 0, m->nslot * sizeof(*m->slot));
	m->n = 0;
	m->keys.len = 0;
}

void
keymap_free(struct keymap *m)
{
	size_t vsize = m->vsize;

	buf_free(&m->keys);
	free(m->ent);
	free(m->slot);
	free(m->val);
	keymap_init(m, vsize);
}
