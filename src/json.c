/*
 * json.c - a strict RFC 8259 scanner that validates and finds spans.
 *
 * Why not cJSON here: a record carries thousands of log-probs, and a tree
 * node per number costs ~7x the text in memory and most of the time
 * (DESIGN.md).  We only need to know that a line is valid JSON, where its
 * top-level members are, and a handful of numbers; everything else is
 * passed through byte for byte.  The scanner is iterative, so nesting depth
 * is bounded by JSON_MAX_DEPTH and never by the C stack.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "diag.h"
#include "json.h"

/* Bytes that end the fast path through a string: '"', '\\', controls,
 * and bytes >= 0x80, which are checked as UTF-8.  (A function, not a
 * table filled at first use: threads parse at once.) */
static inline int
str_stop(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
}

static const char *
fail(struct json_err *e, const char *at, enum json_code code)
{
	e->at = at;
	e->code = code;
	return NULL;
}

const char *
json_ws_run(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	return p;
}

int
json_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t
json_utf8(const unsigned char *p, size_t avail, uint32_t *cp)
{
	unsigned c = p[0];
	size_t n, i;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, v = c & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) ||
	    (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return n;
}

/*
 * The end of the run of plain string bytes at s (printable ASCII but '"'
 * and '\\'), eight bytes a step: x - 0x01.. & ~x has the high bit of a
 * byte that is zero set (and perhaps of those after it, which ctz never
 * reaches), so it finds the bytes below 0x20 and those equal to '"' or
 * '\\' once xored with them; a byte's own high bit finds the rest.
 */
static inline const unsigned char *
plain_run(const unsigned char *s, const unsigned char *se)
{
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t high = 0x8080808080808080ULL;
	uint64_t w, q, b, m;

#ifdef __SSE2__
	/* Sixteen bytes a step where there are (every x86-64): a byte
	 * below 0x20 or from 0x80 on is below 0x20 as a signed char.
	 * Keys and ids are short, so this is mostly one step. */
	const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'),
	    vc = _mm_set1_epi8(0x20);
	__m128i v;
	int bits;

	while (se - s >= 16) {
		v = _mm_loadu_si128((const __m128i *)(const void *)s);
		bits = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(
		    _mm_cmpeq_epi8(v, vq), _mm_cmpeq_epi8(v, vb)),
		    _mm_cmplt_epi8(v, vc)));
		if (bits != 0)
			return s + __builtin_ctz((unsigned)bits);
		s += 16;
	}
#endif
	while (se - s >= 8) {
		memcpy(&w, s, 8);
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		m = ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) |
		    ((b - ones) & ~b) | w;
		m &= high;
		if (m != 0)
			return s + __builtin_ctzll(m) / 8;
		s += 8;
	}
	return s;
}

/* json_string() from s, the first byte past its plain run: escapes,
 * UTF-8, and the errors.  Apart, so that the plain string, which is
 * nearly every key and id, costs no more than its scan. */
static __attribute__((noinline)) const char *
string_rest(const char *p, const unsigned char *s, const char *end,
    int *escaped, struct json_err *e)
{
	const unsigned char *se = (const unsigned char *)end;
	uint32_t cp;
	size_t n;
	int i;

	for (;;) {
		s = plain_run(s, se);
		while (s < se && !str_stop(*s))
			s++;
		if (s >= se)
			return fail(e, p, JSON_E_UNTERMINATED);
		if (*s == '"')
			return (const char *)s + 1;
		if (*s == '\\') {
			*escaped = 1;
			if (s + 1 >= se)
				return fail(e, (const char *)s,
				    JSON_E_UNTERMINATED);
			switch (s[1]) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				s += 2;
				continue;
			case 'u':
				if (se - s < 6)
					return fail(e, (const char *)s,
					    JSON_E_UESCAPE);
				for (i = 2; i < 6; i++)
					if (json_hexval(s[i]) < 0)
						return fail(e, (const char *)s,
						    JSON_E_UESCAPE);
				s += 6;
				continue;
			default:
				return fail(e, (const char *)s,
				    JSON_E_ESCAPE);
			}
		}
		if (*s < 0x20)
			return fail(e, (const char *)s, *s == 0 ?
			    JSON_E_NUL :
			    JSON_E_CONTROL);
		if ((n = json_utf8(s, (size_t)(se - s), &cp)) == 0)
			return fail(e, (const char *)s, JSON_E_UTF8);
		s += n;
	}
}

const char *
json_string(const char *p, const char *end, int *escaped,
    struct json_err *e)
{
	const unsigned char *s;

	s = plain_run((const unsigned char *)p + 1, (const unsigned char *)end);
	*escaped = 0;
	if (s < (const unsigned char *)end && *s == '"')
		return (const char *)s + 1;
	return string_rest(p, s, end, escaped, e);
}

/*
 * Length of the run of ASCII digits at s, eight bytes a step: a byte is a
 * digit when, xored with '0', it is below 10, i.e. neither its high nibble
 * nor its value + 6 reach 0x10.  Log-probs are nearly all digits, so this
 * is most of the time spent on a line.
 */
static inline size_t
digit_run(const char *s, const char *end)
{
	const char *p = s;
	uint64_t w, x, nd;

	while (end - p >= 8) {
		memcpy(&w, p, 8);
		x = w ^ 0x3030303030303030ULL;
		nd = (x | ((x & 0x7f7f7f7f7f7f7f7fULL) +
		    0x0606060606060606ULL)) & 0xf0f0f0f0f0f0f0f0ULL;
		if (nd != 0)
			return (size_t)(p - s) + (size_t)__builtin_ctzll(nd) / 8;
		p += 8;
	}
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return (size_t)(p - s);
}

/* Whether s holds, whole, a word dumpers write for a non-finite number
 * (NaN, Infinity, nan, inf: "-In}" is a bad number).  Errors only. */
static int
naninf(const char *s, const char *end)
{
	size_t n = (size_t)(end - s), k = 0;

	if (n >= 8 && strncasecmp(s, "infinity", 8) == 0)
		k = 8;
	else if (n >= 3 && (strncasecmp(s, "inf", 3) == 0 ||
	    strncasecmp(s, "nan", 3) == 0))
		k = 3;
	return k > 0 && (k == n || !isalnum((unsigned char)s[k]));
}

/* A number that scan_number() found starting with a letter of NaN or
 * Infinity is one only if it is the whole word (naninf()); otherwise a
 * bad number.  Out of line, and only on an error, so that the loops that
 * scan_number() is inlined into stay as they were. */
static __attribute__((noinline, cold)) void
nan_words(struct json_err *e, const char *end)
{
	const char *s = e->at + (e->at < end && *e->at == '-');

	if (e->code == JSON_E_NANINF && !naninf(s, end))
		e->code = JSON_E_NUMBER;
}

/*
 * Always inlined: gcc kept it a call from json_num_array()'s loop, where
 * inlined the flags stay in a register and the checks for an exponent
 * and a big value fold into the loop (callgrind, -j 1 on 5 MB: 71.1M ->
 * 65.6M instructions on 20-token records, 46.8M -> 37.5M on 1000-token).
 */
static inline __attribute__((always_inline)) const char *
scan_number(const char *p, const char *end, int *flags, struct json_err *e)
{
	const char *s = p, *d;
	long exp = 0;
	int esign = 1;
	size_t intdig;

	*flags = 0;
	if (s < end && *s == '-') {
		*flags |= JSON_NUM_NEG;
		s++;
	}
	if (s >= end || *s < '0' || *s > '9') {
		if (s < end && (*s == 'I' || *s == 'N' || *s == 'i' ||
		    *s == 'n'))
			return fail(e, p, JSON_E_NANINF);
		return fail(e, p, JSON_E_NUMBER);
	}
	d = s;
	if (*s == '0')
		s++;
	else
		s += digit_run(s, end);
	intdig = s - d;
	if (s < end && *s == '.') {
		*flags |= JSON_NUM_FRAC;
		s++;
		d = s;
		s += digit_run(s, end);
		if (s == d)
			return fail(e, p, JSON_E_NUMBER);
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		*flags |= JSON_NUM_FRAC;
		s++;
		if (s < end && (*s == '+' || *s == '-'))
			esign = *s++ == '-' ? -1 : 1;
		d = s;
		while (s < end && *s >= '0' && *s <= '9') {
			if (exp < 100000)
				exp = exp * 10 + (*s - '0');
			s++;
		}
		if (s == d)
			return fail(e, p, JSON_E_NUMBER);
	}
	/* A double overflows only past ~1.8e308: with fewer integer digits
	 * plus exponent than 300 the value is surely finite. */
	if ((long)intdig + esign * exp > 300)
		*flags |= JSON_NUM_BIG;
	return s;
}

const char *
json_number_scan(const char *p, const char *end, int *flags,
    struct json_err *e)
{
	const char *q = scan_number(p, end, flags, e);

	if (q == NULL)
		nan_words(e, end);
	return q;
}

/*
 * The value of a plain decimal of at most 15 digits, or -1 when it is
 * not one.  Such a decimal is m / 10^k with m below 2^53 and 10^k (k <=
 * 15) a double exactly, so the one division, correctly rounded, gives
 * the double strtod() gives (Clinger's fast path), at a tenth of its
 * cost: a reward is one per record.
 */
static int
plain_decimal(const char *p, size_t n, double *v)
{
	static const double p10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
		1e11, 1e12, 1e13, 1e14, 1e15
	};
	const char *s = p, *e = p + n;
	uint64_t m = 0;
	int digits = 0, frac = -1, neg = 0;

	if (s < e && *s == '-') {
		neg = 1;
		s++;
	}
	for (; s < e && digits <= 15; s++) {
		if (*s >= '0' && *s <= '9') {
			m = m * 10 + (uint64_t)(*s - '0');
			digits++;
			if (frac >= 0)
				frac++;
		} else if (*s == '.' && frac < 0)
			frac = 0;
		else
			return -1;
	}
	if (s != e || digits == 0 || digits > 15)
		return -1;
	*v = (double)m / p10[frac < 0 ? 0 : frac];
	if (neg)
		*v = -*v;
	return 0;
}

double
json_strtod(const char *p, size_t n)
{
	char buf[64], *tmp;
	double v;

	/* "d.d" and "d", a reward as most logs write one, by two compares
	 * and the division plain_decimal() would make. */
	if (n == 3 && p[1] == '.' && (unsigned)(p[0] - '0') < 10 &&
	    (unsigned)(p[2] - '0') < 10)
		return (double)((p[0] - '0') * 10 + (p[2] - '0')) / 10;
	if (n == 1 && (unsigned)(p[0] - '0') < 10)
		return (double)(p[0] - '0');
	if (plain_decimal(p, n, &v) == 0)
		return v;
	/* The line is not NUL-terminated where the number ends. */
	if (n < sizeof(buf)) {
		memcpy(buf, p, n);
		buf[n] = '\0';
		return strtod(buf, NULL);
	}
	/* Rare (a number of 64 bytes or more), and never an error of the
	 * data: out of memory ends the process, as everywhere. */
	tmp = diag_malloc(n + 1);
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	v = strtod(tmp, NULL);
	free(tmp);
	return v;
}

/* The literal at p, known by its first byte (t, f or n): its end with
 * *t its type, or NULL (e set). */
static const char *
literal(const char *p, const char *end, enum json_type *t,
    struct json_err *e)
{
	static const struct {
		const char	*word;
		size_t		 n;
		enum json_type	 t;
	} lit[] = {
		{ "true", 4, JSON_TRUE }, { "false", 5, JSON_FALSE },
		{ "null", 4, JSON_NULL }
	};
	int i = *p == 't' ? 0 : *p == 'f' ? 1 : 2;

	if ((size_t)(end - p) < lit[i].n || memcmp(p, lit[i].word,
	    lit[i].n) != 0)
		return fail(e, p, naninf(p, end) ? JSON_E_NANINF :
		    JSON_E_LITERAL);
	*t = lit[i].t;
	return p + lit[i].n;
}

/*
 * Iterative validation: a bit per level says whether that level is an
 * object (1) or an array (0).
 */
const char *
json_value(const char *p, const char *end, enum json_type *type,
    struct json_err *e)
{
	unsigned char stack[JSON_MAX_DEPTH / 8 + 1];
	int depth = 0, esc, fl, first;
	enum json_type top = JSON_NONE, t;

	first = 1;
	for (;;) {
		/* p is at a value. */
		if (p >= end)
			return fail(e, p, JSON_E_END);
		switch (*p) {
		case '{':
		case '[':
			if (depth >= JSON_MAX_DEPTH)
				return fail(e, p, JSON_E_DEPTH);
			if (*p == '{')
				stack[depth / 8] |= 1u << (depth % 8);
			else
				stack[depth / 8] &= ~(1u << (depth % 8));
			if (first)
				top = *p == '{' ? JSON_OBJECT : JSON_ARRAY;
			depth++;
			p = json_ws(p + 1, end);
			if (p < end && *p == (stack[(depth - 1) / 8] &
			    1u << ((depth - 1) % 8) ? '}' : ']')) {
				/* An empty container: close its level now. */
				p++;
				depth--;
				first = 0;
				goto close;
			}
			if (stack[(depth - 1) / 8] & 1u << ((depth - 1) % 8))
				goto key;
			first = 0;
			continue;
		case '"':
			p = json_string(p, end, &esc, e);
			t = JSON_STRING;
			break;
		case 't':
		case 'f':
		case 'n':
			p = literal(p, end, &t, e);
			break;
		default:
			p = json_number(p, end, &fl, e);
			t = JSON_NUMBER;
			break;
		}
		/* A scalar: p after it, or NULL with e set. */
		if (p == NULL)
			return NULL;
		if (first)
			top = t;
		first = 0;
	close:
		/* p is after a complete value at level depth. */
		for (;;) {
			int obj;

			if (depth == 0) {
				*type = top;
				return p;
			}
			obj = stack[(depth - 1) / 8] & 1u << ((depth - 1) % 8);
			p = json_ws(p, end);
			if (p >= end)
				return fail(e, p, JSON_E_END);
			if (*p == ',') {
				p = json_ws(p + 1, end);
				if (obj)
					goto key;
				break;
			}
			if (*p == (obj ? '}' : ']')) {
				p++;
				depth--;
				continue;
			}
			return fail(e, p, obj ? JSON_E_OBJECT_SEP :
			    JSON_E_ARRAY_SEP);
		}
		first = 0;
		continue;
	key:
		first = 0;
		if (p >= end || *p != '"')
			return fail(e, p, JSON_E_KEY);
		if ((p = json_string(p, end, &esc, e)) == NULL)
			return NULL;
		p = json_ws(p, end);
		if (p >= end || *p != ':')
			return fail(e, p, JSON_E_COLON);
		p = json_ws(p + 1, end);
	}
}

const char *
json_num_array(const char *p, const char *end, size_t *count,
    struct json_err *e)
{
	size_t n = 0;
	const char *s = p + 1, *q;
	int fl;

	/* The hot loop of the program: log-probs are most of the input. */
	*count = 0;
	s = json_ws(s, end);
	if (s < end && *s == ']') {
		*count = 0;
		return s + 1;
	}
	for (;;) {
		if (s >= end) {
			*count = n;
			return fail(e, s, JSON_E_END);
		}
		if ((q = scan_number(s, end, &fl, e)) == NULL) {
			*count = n;
			nan_words(e, end);
			if (e->code != JSON_E_NANINF && (*s == '"' ||
			    *s == '{' || *s == '[' || *s == 't' || *s == 'f' ||
			    *s == 'n'))
				e->code = JSON_E_NOT_NUMBER;
			return NULL;
		}
		if ((fl & JSON_NUM_BIG) && !isfinite(json_strtod(s, q - s))) {
			*count = n;
			return fail(e, s, JSON_E_NONFINITE);
		}
		n++;
		s = q;
		if (s < end && *s == ',') {
			s++;
			if (s < end && *s == ' ')
				s++;
			s = json_ws(s, end);
			continue;
		}
		s = json_ws(s, end);
		if (s < end && *s == ']') {
			*count = n;
			return s + 1;
		}
		if (s < end && *s == ',') {
			s = json_ws(s + 1, end);
			continue;
		}
		*count = n;
		return fail(e, s, JSON_E_ARRAY_SEP);
	}
}

static size_t
put_utf8(char *b, unsigned cp)
{
	if (cp < 0x80) {
		b[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = 0xc0 | cp >> 6;
		b[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = 0xe0 | cp >> 12;
		b[1] = 0x80 | (cp >> 6 & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	b[0] = 0xf0 | cp >> 18;
	b[1] = 0x80 | (cp >> 12 & 0x3f);
	b[2] = 0x80 | (cp >> 6 & 0x3f);
	b[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* The four hex digits at s, json_string() checked. */
static inline unsigned
hex4(const char *s)
{
	return (unsigned)(json_hexval(s[0]) << 12 | json_hexval(s[1]) << 8 |
	    json_hexval(s[2]) << 4 | json_hexval(s[3]));
}

ssize_t
json_unescape(const char *p, size_t n, char *buf, size_t cap)
{
	const char *s = p + 1, *se = p + n - 1, *bs;
	size_t o = 0;
	unsigned cp, lo;
	char tmp[4];
	size_t k;

	if (n < 2)
		return 0;
	/* Up to the first escape (most strings have none): one copy. */
	bs = memchr(s, '\\', se - s);
	o = (size_t)((bs != NULL ? bs : se) - s);
	if (o > cap)
		return -1;
	memcpy(buf, s, o);
	s += o;
	while (s < se) {
		if (*s != '\\') {
			if (o >= cap)
				return -1;
			buf[o++] = *s++;
			continue;
		}
		switch (s[1]) {
		case 'b': tmp[0] = '\b'; k = 1; break;
		case 'f': tmp[0] = '\f'; k = 1; break;
		case 'n': tmp[0] = '\n'; k = 1; break;
		case 'r': tmp[0] = '\r'; k = 1; break;
		case 't': tmp[0] = '\t'; k = 1; break;
		case 'u':
			cp = hex4(s + 2);
			s += 6;
			if (cp >= 0xd800 && cp < 0xdc00 && se - s >= 6 &&
			    s[0] == '\\' && s[1] == 'u') {
				lo = hex4(s + 2);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					    (lo - 0xdc00);
					s += 6;
				}
			}
			k = put_utf8(tmp, cp);
			if (o + k > cap)
				return -1;
			memcpy(buf + o, tmp, k);
			o += k;
			continue;
		default: tmp[0] = s[1]; k = 1; break;
		}
		if (o + k > cap)
			return -1;
		memcpy(buf + o, tmp, k);
		o += k;
		s += 2;
	}
	return (ssize_t)o;
}

const char *
json_strerror(enum json_code c)
{
	static const char *const text[] = {
		[JSON_OK] = "no error",
		[JSON_E_UNTERMINATED] = "unterminated string",
		[JSON_E_UESCAPE] = "bad \\u escape in string",
		[JSON_E_ESCAPE] = "bad escape in string",
		[JSON_E_NUL] = "NUL byte in string",
		[JSON_E_CONTROL] = "control character in string",
		[JSON_E_UTF8] = "invalid UTF-8",
		[JSON_E_NANINF] = "NaN and Infinity are not JSON",
		[JSON_E_NUMBER] = "bad number",
		[JSON_E_NOT_NUMBER] = "not a number",
		[JSON_E_NONFINITE] = "not a finite number",
		[JSON_E_LITERAL] = "invalid literal",
		[JSON_E_END] = "unexpected end of line",
		[JSON_E_DEPTH] = "nesting too deep",
		[JSON_E_KEY] = "expected a string key",
		[JSON_E_COLON] = "expected ':'",
		[JSON_E_OBJECT_SEP] = "expected ',' or '}'",
		[JSON_E_ARRAY_SEP] = "expected ',' or ']'",
		[JSON_E_TRAILING] = "trailing data after the object",
		[JSON_E_NOT_OBJECT] = "expected an object",
	};

	return (size_t)c < sizeof(text) / sizeof(text[0]) && text[c] ?
	    text[c] : "invalid JSON";
}

const char *
json_type_name(enum json_type t)
{
	switch (t) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_NUMBER: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	default: return "nothing";
	}
}
