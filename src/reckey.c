/*
 * reckey.c - canonical keys: a group's, a stratum's, a batch's key as
 * rladv compares them (a type tag and the value's text, parts apart by
 * 0x1f), and as people read them.
 */
#include <string.h>

#include "jsonstr.h"
#include "record.h"

/*
 * An object's or array's text without the blanks between its tokens, into
 * d (n bytes at least): returns its length.  Writers space them apart
 * differently (json.dumps' ", " and ": ", orjson's and compact dumps'
 * none), and a trajectory's rows, or files from two writers, must still
 * have equal keys.
 */
static size_t
bare(char *d, const char *v, size_t n)
{
	size_t i, k = 0;
	int in_str = 0;

	for (i = 0; i < n; i++) {
		if (in_str) {
			d[k++] = v[i];
			if (v[i] == '\\' && i + 1 < n)
				d[k++] = v[++i];
			else if (v[i] == '"')
				in_str = 0;
			continue;
		}
		if (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' ||
		    v[i] == '\r')
			continue;
		in_str = v[i] == '"';
		d[k++] = v[i];
	}
	return k;
}

void
record_key_add(struct buf *keys, enum json_type t, const char *v, size_t n)
{
	ssize_t got;

	switch (t) {
	case JSON_STRING:
		buf_add(keys, "s", 1);
		got = json_unescape(v, n, buf_reserve(keys, n), n);
		keys->len += got;
		return;
	case JSON_NUMBER:
		buf_add(keys, "n", 1);
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		buf_add(keys, "b", 1);
		break;
	default:
		buf_add(keys, "o", 1);
		keys->len += bare(buf_reserve(keys, n), v, n);
		return;
	}
	buf_add(keys, v, n);
}

void
record_key_quote(const char *key, size_t len, struct buf *out)
{
	struct buf lab = { 0 };

	/* A key of one part (nearly all) is its tag and its text: the text
	 * is quoted as it is, without a copy (a group's label, at every
	 * batch). */
	if (len > 0 && memchr(key, '\x1f', len) == NULL) {
		jsonstr_quote(out, key + 1, len - 1);
		return;
	}
	record_key_label(key, len, &lab);
	jsonstr_quote(out, lab.p, lab.len);
	buf_free(&lab);
}

void
record_key_label(const char *key, size_t len, struct buf *out)
{
	size_t i, start = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && key[i] != '\x1f')
			continue;
		if (start > 0)
			buf_add(out, ",", 1);
		/* Each part is a type tag and its text. */
		if (i > start)
			buf_add(out, key + start + 1, i - start - 1);
		start = i + 1;
	}
}
