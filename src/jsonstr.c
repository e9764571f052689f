/*
 * jsonstr.c - strings written out: as JSON strings, as text for a
 * person, or a JSON text made valid UTF-8, each one line of valid UTF-8
 * whatever bytes came in (a key or value with controls, C1 escapes that
 * a terminal would run, a lone surrogate, bytes that are not UTF-8).
 */
#include <stdint.h>

#include "buf.h"
#include "json.h"
#include "jsonstr.h"

/* A lone surrogate as json_unescape() decodes "\\udXXX": its 3 bytes, or 0. */
static unsigned
wtf8_surrogate(const unsigned char *p, const unsigned char *end)
{
	if (end - p < 3 || p[0] != 0xed || p[1] < 0xa0 || p[1] > 0xbf ||
	    (p[2] & 0xc0) != 0x80)
		return 0;
	return 0xd000 | (p[1] & 0x3f) << 6 | (p[2] & 0x3f);
}

static void
put_u(struct buf *b, unsigned cp)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6] = { '\\', 'u', hex[cp >> 12 & 15], hex[cp >> 8 & 15],
	    hex[cp >> 4 & 15], hex[cp & 15] };

	buf_add(b, esc, 6);
}

/* What escape() escapes. */
enum esc_mode {
	ESC_JSON,	/* the inside of a JSON string */
	ESC_TEXT,	/* text for a person: '"' and '\\' as they are */
	ESC_HIGH	/* JSON text: bytes past ASCII only (DEL, C1, bad UTF-8) */
};

/*
 * s as escaped text.  Control characters, DEL and the C1 controls
 * (U+0080-U+009F, which terminals take as escapes) are \\uXXXX, a lone
 * surrogate (from "\\ud800" in a key) is its escape again, and a byte
 * that is not UTF-8 is U+FFFD: the result is valid UTF-8, and, but for
 * ESC_HIGH, one line.
 */
static void
escape(struct buf *b, const char *s, size_t n, enum esc_mode mode)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	const unsigned char *run = p;
	uint32_t cp;
	size_t k;
	char esc[2];

	while (p < end) {
		if ((*p >= 0x20 || mode == ESC_HIGH) && *p < 0x7f &&
		    (mode != ESC_JSON || (*p != '"' && *p != '\\'))) {
			p++;
			continue;
		}
		if (*p >= 0x80 &&
		    (k = json_utf8(p, (size_t)(end - p), &cp)) > 0 &&
		    !(p[0] == 0xc2 && p[1] < 0xa0)) {
			p += k;
			continue;
		}
		buf_add(b, run, p - run);
		k = 1;
		if (*p == '"' || *p == '\\' || *p == '\n' || *p == '\t' ||
		    *p == '\r') {
			esc[0] = '\\';
			esc[1] = *p == '\n' ? 'n' : *p == '\t' ? 't' :
			    *p == '\r' ? 'r' : (char)*p;
			buf_add(b, esc, 2);
		} else if (*p < 0x80)
			put_u(b, *p);
		else if (p[0] == 0xc2 && end - p >= 2 && p[1] >= 0x80 &&
		    p[1] < 0xa0) {
			put_u(b, p[1]);
			k = 2;
		} else if ((cp = wtf8_surrogate(p, end)) != 0) {
			put_u(b, cp);
			k = 3;
		} else
			put_u(b, 0xfffd);
		p += k;
		run = p;
	}
	buf_add(b, run, p - run);
}

void
jsonstr_quote(struct buf *b, const char *s, size_t n)
{
	buf_add(b, "\"", 1);
	escape(b, s, n, ESC_JSON);
	buf_add(b, "\"", 1);
}

void
jsonstr_text(struct buf *b, const char *s, size_t n)
{
	escape(b, s, n, ESC_TEXT);
}

void
jsonstr_fix(struct buf *b, const char *s, size_t n)
{
	escape(b, s, n, ESC_HIGH);
}
