/*
 * indexcol.c - the columns of an index's record lines: one row per input
 * the numbers are computed from, so that a new input (another reward
 * form, a baseline field) is one more row.  Keys are written as their
 * canonical bytes (record.h), escaped so that a line stays a line; the
 * reward in the fewest digits that read back to the same double.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advantage.h"
#include "batch.h"
#include "index.h"
#include "indexcol.h"
#include "options.h"

/* Key bytes as index text: tab, newline, backslash and the other
 * control bytes escaped. */
void
indexcol_put_bytes(struct buf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char esc[4] = { '\\', 'x', 0, 0 };
	size_t i, from = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != 0x7f && c != '\\')
			continue;
		buf_add(o, s + from, i - from);
		if (c == '\\')
			buf_add(o, "\\\\", 2);
		else if (c == '\t')
			buf_add(o, "\\t", 2);
		else if (c == '\n')
			buf_add(o, "\\n", 2);
		else {
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 15];
			buf_add(o, esc, 4);
		}
		from = i + 1;
	}
	buf_add(o, s + from, n - from);
}

/* A digit of the hex that indexcol_put_bytes() and put_tie() write: lower case
 * only, so that a record has one text (index_differs() compares them). */
static int
hexval(char c)
{
	return c >= 'A' && c <= 'F' ? -1 : json_hexval(c);
}

/* The inverse of indexcol_put_bytes, appended to keys; -1 on a bad escape. */
int
indexcol_get_bytes(const char *s, size_t n, struct buf *keys)
{
	size_t i;
	char c;
	int h, l;

	for (i = 0; i < n; i++) {
		c = s[i];
		if (c == '\\') {
			if (++i == n)
				return -1;
			switch (s[i]) {
			case '\\': c = '\\'; break;
			case 't': c = '\t'; break;
			case 'n': c = '\n'; break;
			case 'x':
				if (i + 2 >= n)
					return -1;
				if ((h = hexval(s[i + 1])) < 0 ||
				    (l = hexval(s[i + 2])) < 0)
					return -1;
				c = (char)(h << 4 | l);
				i += 2;
				break;
			default:
				return -1;
			}
		}
		buf_add(keys, &c, 1);
	}
	return 0;
}

static int
get_double(const char *s, size_t n, double *v)
{
	char num[40], *end;

	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	*v = strtod(num, &end);
	return *end == '\0' && isfinite(*v) ? 0 : -1;
}

/* The reward; "null" for a record left unscored (--null-reward). */
static void
put_reward(struct buf *o, const struct record *r, const char *keys,
    const char *line, size_t len)
{
	(void)keys;
	(void)line;
	(void)len;
	if (r->unscored)
		buf_add(o, "null", 4);
	else
		options_show_num(o, r->reward);
}

static int
get_reward(const char *s, size_t n, struct record *r, struct buf *keys)
{
	(void)keys;
	r->has_reward = 1;
	if (n == 4 && memcmp(s, "null", 4) == 0) {
		r->unscored = 1;
		r->reward = 0;
		return 0;
	}
	return get_double(s, n, &r->reward);
}

/* remax: the greedy response's reward, from --baseline-key. */
static void
put_baseline(struct buf *o, const struct record *r, const char *keys,
    const char *line, size_t len)
{
	(void)keys;
	(void)line;
	(void)len;
	options_show_num(o, r->baseline);
}

static int
get_baseline(const char *s, size_t n, struct record *r, struct buf *keys)
{
	(void)keys;
	return get_double(s, n, &r->baseline);
}

static void
put_tokens(struct buf *o, const struct record *r, const char *keys,
    const char *line, size_t len)
{
	(void)keys;
	char num[24];

	(void)line;
	(void)len;
	/* A record without a length: "~" and its T (1, or "masked"). */
	if (!r->has_len)
		buf_add(o, "~", 1);
	if (r->sample_off)
		buf_add(o, INDEX_SAMPLE_OFF, strlen(INDEX_SAMPLE_OFF));
	else
		buf_add(o, num, snprintf(num, sizeof(num), "%zu", r->T));
}

/* A decimal count, without sign or leading zero. */
int
indexcol_count(const char *s, size_t n, unsigned long long *v)
{
	size_t i;

	if (n == 0 || n > 19 || (n > 1 && s[0] == '0'))
		return -1;
	for (*v = 0, i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return 0;
}

static int
get_tokens(const char *s, size_t n, struct record *r, struct buf *keys)
{
	(void)keys;
	unsigned long long v;

	r->has_len = !(n > 0 && *s == '~');
	if (!r->has_len) {
		s++;
		n--;
	}
	r->sample_off = n == strlen(INDEX_SAMPLE_OFF) &&
	    memcmp(s, INDEX_SAMPLE_OFF, n) == 0;
	if (r->sample_off)
		v = 0;
	else if (indexcol_count(s, n, &v) != 0)
		return -1;
	r->T = (size_t)v;
	r->L = r->has_len ? r->T : 0;
	return 0;
}

/* Where a record keeps key k: its presence, and its bytes in keys. */
struct keyref {
	int	*has;
	size_t	*off, *len;
};

static struct keyref
key_ref(struct record *r, enum colkey k)
{
	switch (k) {
	case K_GROUP:
		return (struct keyref){ &r->has_group, &r->gkey, &r->gkeylen };
	case K_STRATUM:
		return (struct keyref){ &r->has_stratum, &r->skey,
		    &r->skeylen };
	case K_ROLLOUT:
		return (struct keyref){ &r->has_roll, &r->okey, &r->okeylen };
	default:
		return (struct keyref){ &r->has_batch, &r->bkey, &r->bkeylen };
	}
}

/* A key column: empty when the record has no such key (a present key
 * is never empty: it begins with its type tag). */
void
indexcol_put_key(struct buf *o, const struct record *r, enum colkey k,
    const char *keys)
{
	/* Read through alone: r stays as it is. */
	struct keyref kr = key_ref((struct record *)r, k);

	if (*kr.has)
		indexcol_put_bytes(o, keys + *kr.off, *kr.len);
}

int
indexcol_get_key(const char *s, size_t n, struct record *r, enum colkey k,
    struct buf *keys)
{
	struct keyref kr = key_ref(r, k);

	*kr.off = keys->len;
	if (indexcol_get_bytes(s, n, keys) != 0)
		return -1;
	*kr.len = keys->len - *kr.off;
	*kr.has = *kr.len > 0;
	return 0;
}

/* MS-GRPO orders equal responses by their identity, the line's hash. */
static void
put_tie(struct buf *o, const struct record *r, const char *keys,
    const char *line, size_t len)
{
	(void)keys;
	char num[24];

	buf_add(o, num, snprintf(num, sizeof(num), "%016" PRIx64,
	    r->has_tie ? r->tie : batch_tie(line, len)));
}

static int
get_tie(const char *s, size_t n, struct record *r, struct buf *keys)
{
	(void)keys;
	size_t i;
	int h;

	if (n != 16)
		return -1;
	for (r->tie = 0, i = 0; i < n; i++) {
		if ((h = hexval(s[i])) < 0)
			return -1;
		r->tie = r->tie << 4 | (uint64_t)h;
	}
	r->has_tie = 1;
	return 0;
}

/* gdpo: each reward field, "null" where it is. */
static void
put_parts(struct buf *o, const struct record *r, const char *keys,
    const char *line, size_t len)
{
	double x;
	int k;

	(void)line;
	(void)len;
	for (k = 0; k < r->nrpart; k++) {
		if (k > 0)
			buf_add(o, ",", 1);
		memcpy(&x, keys + r->rpart + k * sizeof(x), sizeof(x));
		if (isnan(x))
			buf_add(o, "null", 4);
		else
			options_show_num(o, x);
	}
}

static int
get_parts(const char *s, size_t n, struct record *r, struct buf *keys)
{
	const char *end = s + n, *c;
	double x;

	r->rpart = keys->len;
	for (r->nrpart = 0; s <= end; s = c + 1) {
		if ((c = memchr(s, ',', end - s)) == NULL)
			c = end;
		if (r->nrpart == FIELD_MAXNAMES)
			return -1;
		if (c - s == 4 && memcmp(s, "null", 4) == 0)
			x = NAN;
		else if (get_double(s, c - s, &x) != 0)
			return -1;
		buf_add(keys, &x, sizeof(x));
		r->nrpart++;
	}
	return 0;
}

const struct column indexcol_table[] = {
	{ "reward", 0, K_NONE, put_reward, get_reward },
	{ "tokens", 0, K_NONE, put_tokens, get_tokens },
	{ "group", 0, K_GROUP, NULL, NULL },
	{ "stratum", 0, K_STRATUM, NULL, NULL },
	{ "batch", 0, K_BATCH, NULL, NULL },
	{ "baseline", ADV_BASE, K_NONE, put_baseline, get_baseline },
	{ "tie", ADV_TIE, K_NONE, put_tie, get_tie },
	{ "parts", ADV_PARTS, K_NONE, put_parts, get_parts },
	/* --rollout-key's (wanted below): the seq modes' rollouts. */
	{ "rollout", 0, K_ROLLOUT, NULL, NULL },
};

const size_t indexcol_n = sizeof(indexcol_table) / sizeof(indexcol_table[0]);

int
indexcol_wanted(const struct column *c, const struct prefs *p)
{
	if (c->key == K_ROLLOUT)
		return p->fields.rollout != NULL;
	return c->need == 0 || (p->est->flags & c->need);
}

