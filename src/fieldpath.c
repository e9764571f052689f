/*
 * fieldpath.c - paths into a record's nested values.
 *
 * The member walk (record.c) finds top-level members in one pass; a path
 * with more steps is resolved afterwards inside its top-level member's
 * value, which the walk has already validated, so resolving only skips
 * values and never has to report bad JSON.  Plain names, which are what
 * most options name, never come here: they cost nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fieldpath.h"
#include "jsonstr.h"

const char *
fieldpath_parse(const char *text, struct fpath *p)
{
	const char *s = text, *b;
	struct fstep *st;
	size_t v;

	memset(p, 0, sizeof(*p));
	p->text = text;
	if (*s == '.')
		s++;
	while (*s) {
		if (p->nsteps == FPATH_MAXSTEPS)
			return "more than 8 steps";
		st = &p->step[p->nsteps];
		if (*s == '[' && s[1] == '"') {
			/* ["name"]: a member whose name holds . [ or ] */
			b = s + 2;
			if ((s = strchr(b, '"')) == NULL || s[1] != ']')
				return "the [\" that quotes a name has no "
				    "closing \"]";
			if (s == b)
				return "an empty member name";
			st->name = b;
			st->len = s - b;
			s += 2;
		} else if (*s == '[') {
			if (p->nsteps == 0)
				return "it starts with an index; name a field "
				    "first, as in \"content[0]\"";
			if (s[1] < '0' || s[1] > '9')
				return "an index must be digits, as in [0]";
			for (v = 0, s++; *s >= '0' && *s <= '9'; s++) {
				if (v > ((size_t)-1 - 9) / 10)
					return "an index too large";
				v = v * 10 + (size_t)(*s - '0');
			}
			if (*s != ']')
				return "the [ of an index has no closing ]";
			st->name = NULL;
			st->index = v;
			s++;
		} else {
			b = s;
			while (*s && *s != '.' && *s != '[' && *s != ']')
				s++;
			if (s == b)
				return *s == ']' ? "a ] with no [ before it" :
				    "an empty member name";
			st->name = b;
			st->len = s - b;
		}
		p->nsteps++;
		if (*s == '.') {
			if (*++s == '\0')
				return "it ends with '.'";
			if (*s == '.' || (*s == '[' && s[1] != '"'))
				return "an empty member name";
		} else if (*s == ']')
			return "a ] with no [ before it";
		else if (*s != '[' && *s != '\0')
			return "a name after ] needs a . before it, as in "
			    "a[0].b";
	}
	if (p->nsteps == 0)
		return "an empty name";
	return NULL;
}

int
fieldpath_plain(const struct fpath *p)
{
	return p->nsteps == 1;
}

/* Whether the JSON string [kb, ke) (quotes included) decodes to name. */
static int
key_is(const char *kb, const char *ke, const char *name, size_t len)
{
	char buf[256];
	ssize_t n;

	if ((size_t)(ke - kb - 2) == len && memcmp(kb + 1, name, len) == 0)
		return 1;
	if (memchr(kb, '\\', ke - kb) == NULL || len >= sizeof(buf))
		return 0;
	n = json_unescape(kb, ke - kb, buf, sizeof(buf));
	return n == (ssize_t)len && memcmp(buf, name, len) == 0;
}

/* The member name of object [p, end) (valid JSON): its value's span. */
static enum fpath_miss
member(const struct fstep *st, const char **beg, const char **end,
    enum json_type *type)
{
	const char *p = *beg, *e = *end, *kb, *vb = NULL, *ve = NULL;
	enum json_type t, vt = JSON_NONE;
	struct json_err err;
	int esc;

	p = json_ws(p + 1, e);
	while (p < e && *p == '"') {
		kb = p;
		p = json_string(p, e, &esc, &err);
		if (p == NULL)
			return FP_ABSENT;
		if (key_is(kb, p, st->name, st->len)) {
			if (vb != NULL)
				return FP_TWICE;
			vb = json_ws(json_ws(p, e) + 1, e);
			if ((p = json_value(vb, e, &vt, &err)) == NULL)
				return FP_ABSENT;
			ve = p;
		} else {
			p = json_ws(json_ws(p, e) + 1, e);
			if ((p = json_value(p, e, &t, &err)) == NULL)
				return FP_ABSENT;
		}
		p = json_ws(p, e);
		if (p < e && *p == ',')
			p = json_ws(p + 1, e);
	}
	if (vb == NULL)
		return FP_ABSENT;
	*beg = vb;
	*end = ve;
	*type = vt;
	return FP_FOUND;
}

struct nth {
	size_t		 want;
	const char	*b, *e;
};

static int
take_nth(void *arg, size_t i, const char *b, const char *e)
{
	struct nth *n = arg;

	if (i != n->want)
		return 0;
	n->b = b;
	n->e = e;
	return 1;
}

size_t
fieldpath_elements(const char *beg, const char *end,
    int (*fn)(void *, size_t, const char *, const char *), void *arg)
{
	const char *p = json_ws(beg + 1, end), *q;
	struct json_err err;
	enum json_type t;
	size_t i = 0;

	while (p < end && *p != ']') {
		if ((q = json_value(p, end, &t, &err)) == NULL)
			break;
		if (fn != NULL && fn(arg, i, p, q))
			return i + 1;
		i++;
		p = json_ws(q, end);
		if (p < end && *p == ',')
			p = json_ws(p + 1, end);
	}
	return i;
}

enum fpath_miss
fieldpath_resolve(const struct fpath *p, int from, const char **beg,
    const char **end, enum json_type *type, int *at)
{
	const struct fstep *st;
	enum fpath_miss m;
	struct json_err err;
	struct nth n;
	int i;

	for (i = from; i < p->nsteps; i++) {
		st = &p->step[i];
		*at = i;
		if (st->name != NULL) {
			if (*type != JSON_OBJECT)
				return FP_NOT_OBJECT;
			if ((m = member(st, beg, end, type)) != FP_FOUND)
				return m;
			continue;
		}
		if (*type != JSON_ARRAY)
			return FP_NOT_ARRAY;
		n.want = st->index;
		n.b = NULL;
		fieldpath_elements(*beg, *end, take_nth, &n);
		if (n.b == NULL)
			return FP_ABSENT;
		*beg = n.b;
		*end = json_value(n.b, n.e, type, &err);
	}
	return FP_FOUND;
}

int
fieldpath_unwrap(const char **beg, const char **end, enum json_type *type,
    int arrays_only)
{
	const char *p, *q, *e = *end;
	struct json_err err;
	enum json_type t;

	if (*type != JSON_ARRAY)
		return 0;
	p = json_ws(*beg + 1, e);
	if (p >= e || *p == ']')
		return 0;
	if ((q = json_value(p, e, &t, &err)) == NULL)
		return 0;
	if (*json_ws(q, e) != ']' || (arrays_only && t != JSON_ARRAY))
		return 0;
	*beg = p;
	*end = q;
	*type = t;
	return 1;
}

void
fieldpath_prefix(const struct fpath *p, int n, char *buf, size_t size)
{
	size_t len = 0;
	int i, k;

	buf[0] = '\0';
	for (i = 0; i < n && i < p->nsteps && len < size; i++) {
		const struct fstep *st = &p->step[i];

		if (st->name == NULL)
			k = snprintf(buf + len, size - len, "[%zu]", st->index);
		else if (memchr(st->name, '.', st->len) ||
		    memchr(st->name, '[', st->len) ||
		    memchr(st->name, ']', st->len))
			k = snprintf(buf + len, size - len, "[\"%.*s\"]",
			    (int)st->len, st->name);
		else
			k = snprintf(buf + len, size - len, "%s%.*s",
			    i ? "." : "", (int)st->len, st->name);
		if (k < 0)
			break;
		len += (size_t)k;
	}
}

void
fieldpath_quote(const char *s, size_t n, char *buf, size_t size)
{
	struct buf q = { 0 };
	const unsigned char *p, *end;
	size_t o = 0, k;
	uint32_t cp;

	/* The one JSON string writer: escaped, valid UTF-8, one line. */
	jsonstr_quote(&q, s, n);
	if (q.len < size) {
		memcpy(buf, q.p, q.len);
		buf[q.len] = '\0';
		buf_free(&q);
		return;
	}
	/* Cut between two characters, with room for ...", and a NUL. */
	p = (const unsigned char *)q.p;
	end = p + q.len - 1;
	while (p < end) {
		if (*p == '\\')
			k = p[1] == 'u' ? 6 : 2;
		else if (*p < 0x80 || (k = json_utf8(p, end - p, &cp)) == 0)
			k = 1;
		if (o + k + 5 > size)
			break;
		memcpy(buf + o, p, k);
		o += k;
		p += k;
	}
	memcpy(buf + o, "...\"", 4);
	buf[o + 4] = '\0';
	buf_free(&q);
}
