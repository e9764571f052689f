/*
 * recname.c - which member a line's member is: its name read, and found
 * among the names rladv looks for (the heads).
 *
 * A record of 20 tokens is mostly names and small values, so this is
 * much of its cost: names are compared as words, found by a hash of
 * their first bytes, and a name that the line before had at the same
 * place is known again without being scanned.
 */
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "recint.h"

/*
 * The head a member's (decoded) name of len bytes is, or -1; avail: the
 * bytes readable at key.  A name is compared by its first sixteen bytes
 * as two words, which settles nearly every name without a call.
 */
static int
recname_head(const struct record_reader *rd, const char *key, size_t len,
    size_t avail)
{
	uint64_t w[2];
	int h;

	if (len == 0)
		return -1;
	rhead_words(key, len, avail, w);
	for (h = rd->first[rhead_hash(w[0], len)]; h > 0;
	    h = rd->head[h - 1].next) {
		const struct rhead *hd = &rd->head[h - 1];

		if (hd->len == len && hd->w[0] == w[0] && hd->w[1] == w[1] &&
		    (len <= 16 || memcmp(hd->name + 16, key + 16,
		    len - 16) == 0))
			return h - 1;
	}
	return -1;
}

/* recname_read() where the cache did not know the name: scanned, found,
 * and remembered for the next line. */
const char *
recname_scan(struct rctx *c, int i, const char *p, char *kbuf,
    const char **key, size_t *keylen, int *hi, struct json_err *e)
{
	struct record_reader *rd = c->rd;
	struct rkey *k = i < REC_KCACHE ? &rd->kc[i] : NULL;
	uint64_t w[2];
	const char *q;
	ssize_t n;
	int esc;

	if ((q = json_string(p, c->end, &esc, e)) == NULL)
		return NULL;
	*key = p + 1;
	*keylen = q - p - 2;
	if (esc) {
		n = json_unescape(p, q - p, kbuf, 128);
		*key = kbuf;
		*keylen = n < 0 ? 0 : (size_t)n;
		*hi = recname_head(rd, kbuf, *keylen, 128);
	} else
		*hi = recname_head(rd, *key, *keylen, c->end - *key);
	q = json_ws(q, c->end);
	if (q >= c->end || *q != ':') {
		e->at = q;
		e->code = JSON_E_COLON;
		return NULL;
	}
	q++;
	if (!esc && k != NULL && q - p <= 16 && c->end - p >= 16) {
		k->n = q - p;
		k->klen = *keylen;
		k->m[0] = k->n >= 8 ? ~(uint64_t)0 :
		    ((uint64_t)1 << 8 * k->n) - 1;
		k->m[1] = k->n <= 8 ? 0 : k->n == 16 ? ~(uint64_t)0 :
		    ((uint64_t)1 << 8 * (k->n - 8)) - 1;
		memcpy(w, p, 16);
		k->w[0] = w[0] & k->m[0];
		k->w[1] = w[1] & k->m[1];
		k->head = *hi;
	}
	return q;
}
