/*
 * check_json.c - tests of the JSON scanner (src/json.c): strings (escapes,
 * \u, control characters, NUL, UTF-8 validity), the number grammar and its
 * overflow flag, whole values (nesting, the depth limit, trailing commas),
 * the numeric-array fast path, and \u decoding with surrogate pairs.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "testutil.h"

/* Scans the string at s (length n, may hold NUL bytes): returns the bytes
 * consumed, or -1 with *e filled. */
static long
scan_str(const char *s, size_t n, int *esc, struct json_err *e)
{
	const char *q = json_string(s, s + n, esc, e);

	return q ? (long)(q - s) : -1;
}

static long
scan_num(const char *s, int *fl, struct json_err *e)
{
	const char *q = json_number(s, s + strlen(s), fl, e);

	return q ? (long)(q - s) : -1;
}

static long
scan_val(const char *s, size_t n, enum json_type *t, struct json_err *e)
{
	const char *q = json_value(s, s + n, t, e);

	return q ? (long)(q - s) : -1;
}

/* ---- json_string ---- */

START_TEST(string_plain)
{
	const char *s = "\"hello world\" tail";
	struct json_err e;
	int esc = 7;

	/* 13 bytes: the quotes and 11 characters; the tail is not read. */
	ck_assert_int_eq(scan_str(s, strlen(s), &esc, &e), 13);
	ck_assert_int_eq(esc, 0);
	ck_assert_int_eq(scan_str("\"\"", 2, &esc, &e), 2);
	ck_assert_int_eq(esc, 0);
}
END_TEST

START_TEST(string_escapes)
{
	/* Every one-character escape of RFC 8259. */
	const char *s = "\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"";
	struct json_err e;
	int esc = 0;

	ck_assert_int_eq(scan_str(s, strlen(s), &esc, &e), (long)strlen(s));
	ck_assert_int_eq(esc, 1);
	/* An escaped quote does not end the string: "\"" is 4 bytes. */
	ck_assert_int_eq(scan_str("\"\\\"\"x", 5, &esc, &e), 4);
}
END_TEST

START_TEST(string_unicode_escape)
{
	const char *s = "\"\\u00e9\\uD83D\\uDE00\\u0000\\uFFFF\"";
	struct json_err e;
	int esc = 0;

	ck_assert_int_eq(scan_str(s, strlen(s), &esc, &e), (long)strlen(s));
	ck_assert_int_eq(esc, 1);
}
END_TEST

START_TEST(string_bad_unicode_escape)
{
	struct json_err e;
	int esc;
	const char *s;

	/* A non-hex digit: the error points at the backslash (offset 3). */
	s = "\"ab\\u12G4\"";
	ck_assert_int_eq(scan_str(s, strlen(s), &esc, &e), -1);
	ck_assert_ptr_eq(e.at, s + 3);
	ck_assert_int_eq(e.code, JSON_E_UESCAPE);
	/* Too few digits before the closing quote. */
	s = "\"\\u12\"";
	ck_assert_int_eq(scan_str(s, strlen(s), &esc, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_UESCAPE);
	/* Cut off by the end of the buffer. */
	s = "\"\\u00";
	ck_assert_int_eq(scan_str(s, strlen(s), &esc, &e), -1);
}
END_TEST

START_TEST(string_bad_escape)
{
	static const char *const bad[] = {
		"\"\\x41\"", "\"\\'\"", "\"\\a\"", "\"\\U0041\"", "\"\\0\"",
		"\"\\ \""
	};
	struct json_err e;
	size_t i;
	int esc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(scan_str(bad[i], strlen(bad[i]), &esc, &e) == -1,
		    "accepted %s", bad[i]);
		ck_assert_int_eq(e.code, JSON_E_ESCAPE);
		ck_assert_ptr_eq(e.at, bad[i] + 1);
	}
}
END_TEST

START_TEST(string_control_chars)
{
	char s[8];
	struct json_err e;
	int esc, c;

	/* Every byte below 0x20 must be escaped; raw it is refused. */
	for (c = 1; c < 0x20; c++) {
		s[0] = '"';
		s[1] = 'a';
		s[2] = (char)c;
		s[3] = '"';
		ck_assert_msg(scan_str(s, 4, &esc, &e) == -1,
		    "accepted raw byte 0x%02x", c);
		ck_assert_int_eq(e.code, JSON_E_CONTROL);
		ck_assert_ptr_eq(e.at, s + 2);
	}
	/* DEL (0x7f) is not a control character in JSON. */
	ck_assert_int_eq(scan_str("\"\x7f\"", 3, &esc, &e), 3);
}
END_TEST

START_TEST(string_nul_byte)
{
	/* 5 bytes with a NUL at offset 2: "a<NUL>b" */
	const char s[] = { '"', 'a', '\0', 'b', '"' };
	struct json_err e;
	int esc;

	ck_assert_int_eq(scan_str(s, sizeof(s), &esc, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_NUL);
	ck_assert_ptr_eq(e.at, s + 2);
}
END_TEST

START_TEST(string_unterminated)
{
	struct json_err e;
	int esc;

	ck_assert_int_eq(scan_str("\"abc", 4, &esc, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_UNTERMINATED);
	/* A backslash as the last byte. */
	ck_assert_int_eq(scan_str("\"abc\\", 5, &esc, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_UNTERMINATED);
	/* The closing quote beyond the end given is not seen. */
	ck_assert_int_eq(scan_str("\"abc\"", 4, &esc, &e), -1);
}
END_TEST

START_TEST(string_utf8_valid)
{
	/* é (2 bytes), € (3), 😀 (4), U+10FFFF (4), U+FFFD (3), U+0080 (2). */
	static const char *const ok[] = {
		"\"\xc3\xa9\"", "\"\xe2\x82\xac\"", "\"\xf0\x9f\x98\x80\"",
		"\"\xf4\x8f\xbf\xbf\"", "\"\xef\xbf\xbd\"", "\"\xc2\x80\"",
		"\"caf\xc3\xa9 \xe2\x82\xac" "5\"", "\"\xe0\xa0\x80\"",
		"\"\xf0\x90\x80\x80\"", "\"\xed\x9f\xbf\"", "\"\xee\x80\x80\""
	};
	struct json_err e;
	size_t i;
	int esc;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ck_assert_msg(scan_str(ok[i], strlen(ok[i]), &esc, &e) ==
		    (long)strlen(ok[i]), "refused valid UTF-8 #%zu", i);
}
END_TEST

START_TEST(string_utf8_invalid)
{
	static const char *const bad[] = {
		"\"\x80\"",			/* lone continuation byte */
		"\"\xbf\"",
		"\"\xff\"", "\"\xfe\"",		/* never in UTF-8 */
		"\"\xc3\"",			/* lead byte, then the quote */
		"\"\xc3(\"",			/* bad continuation */
		"\"\xe2\x82\"",			/* 3-byte form cut short */
		"\"\xc0\xaf\"",			/* overlong '/' (2 bytes) */
		"\"\xc1\xbf\"",			/* overlong U+007F */
		"\"\xe0\x80\xaf\"",		/* overlong '/' (3 bytes) */
		"\"\xe0\x9f\xbf\"",		/* overlong U+07FF */
		"\"\xf0\x80\x80\xaf\"",		/* overlong '/' (4 bytes) */
		"\"\xf0\x8f\xbf\xbf\"",		/* overlong U+FFFF */
		"\"\xed\xa0\x80\"",		/* surrogate U+D800 */
		"\"\xed\xbf\xbf\"",		/* surrogate U+DFFF */
		"\"\xf4\x90\x80\x80\"",		/* U+110000 */
		"\"\xf5\x80\x80\x80\"",		/* lead byte past F4 */
		"\"\xf8\x88\x80\x80\x80\"",	/* 5-byte form */
	};
	struct json_err e;
	size_t i;
	int esc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(scan_str(bad[i], strlen(bad[i]), &esc, &e) == -1,
		    "accepted invalid UTF-8 #%zu", i);
		ck_assert_int_eq(e.code, JSON_E_UTF8);
		ck_assert_ptr_eq(e.at, bad[i] + 1);
	}
}
END_TEST

/* ---- json_number ---- */

START_TEST(number_valid)
{
	static const struct {
		const char	*s;
		long		 len;
		int		 flags;
	} ok[] = {
		{ "0", 1, 0 },
		{ "-0", 2, JSON_NUM_NEG },
		{ "7", 1, 0 },
		{ "123456789", 9, 0 },
		{ "-12", 3, JSON_NUM_NEG },
		{ "0.5", 3, JSON_NUM_FRAC },
		{ "-0.0", 4, JSON_NUM_NEG | JSON_NUM_FRAC },
		{ "1e5", 3, JSON_NUM_FRAC },
		{ "1E5", 3, JSON_NUM_FRAC },
		{ "1e+5", 4, JSON_NUM_FRAC },
		{ "1e-5", 4, JSON_NUM_FRAC },
		{ "-1.25e-3", 8, JSON_NUM_NEG | JSON_NUM_FRAC },
		{ "0e0", 3, JSON_NUM_FRAC },
		{ "10", 2, 0 },
		/* the number ends where the grammar does */
		{ "12,", 2, 0 },
		{ "3]", 1, 0 },
		{ "4.5}", 3, JSON_NUM_FRAC },
		/* "d.d" and what follows it: its own path, or the scan */
		{ "1.0,", 3, JSON_NUM_FRAC },
		{ "0.5 ", 3, JSON_NUM_FRAC },
		{ "1.05,", 4, JSON_NUM_FRAC },
		{ "1.0e1,", 5, JSON_NUM_FRAC },
		{ "1.0E1,", 5, JSON_NUM_FRAC },
		{ "1.0", 3, JSON_NUM_FRAC },
		{ "1.0.", 3, JSON_NUM_FRAC },
		/* leading zero: only the "0" is a number, the rest is not */
		{ "01", 1, 0 },
		{ "-012", 2, JSON_NUM_NEG },
		{ "00", 1, 0 },
	};
	struct json_err e;
	size_t i;
	int fl;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(scan_num(ok[i].s, &fl, &e) == ok[i].len,
		    "\"%s\": wrong length", ok[i].s);
		ck_assert_msg(fl == ok[i].flags, "\"%s\": flags %d, expected "
		    "%d", ok[i].s, fl, ok[i].flags);
	}
}
END_TEST

START_TEST(number_digit_runs)
{
	/* Integer and fraction parts of 1..24 digits, followed by each kind
	 * of byte that ends a digit run (the scanner reads digits eight
	 * bytes at a time): the number is exactly the digits. */
	static const char term[] = { ',', ']', '}', ' ', ':', '/', 'a',
	    (char)0xb0, (char)0xb9, '\0' };
	char s[64];
	struct json_err e;
	size_t nd, k, i;
	int fl;

	for (nd = 1; nd <= 24; nd++)
		for (k = 0; k < sizeof(term); k++) {
			/* "1234...": nd digits, then the terminator */
			for (i = 0; i < nd; i++)
				s[i] = (char)('1' + i % 9);
			s[nd] = term[k];
			ck_assert_msg(json_number(s, s + nd + 1, &fl, &e) ==
			    s + nd, "%zu digits + 0x%02x", nd,
			    (unsigned char)term[k]);
			/* "-0.<nd digits><term>" */
			memcpy(s, "-0.", 3);
			for (i = 0; i < nd; i++)
				s[3 + i] = (char)('0' + (i * 7) % 10);
			s[3 + nd] = term[k];
			ck_assert_msg(json_number(s, s + nd + 4, &fl, &e) ==
			    s + nd + 3, "fraction of %zu digits + 0x%02x", nd,
			    (unsigned char)term[k]);
			ck_assert_int_eq(fl, JSON_NUM_NEG | JSON_NUM_FRAC);
			/* the digits at the very end of the buffer */
			ck_assert(json_number(s, s + nd + 3, &fl, &e) ==
			    s + nd + 3);
		}
}
END_TEST

START_TEST(number_invalid)
{
	static const char *const bad[] = {
		"1.", "-", "-a", ".5", "+1", "1e", "1e+", "1E-", "1.e5",
		"-.5", "1.5e", "", "x", "--1", "0.e1", "1ee5", "1.0e",
		"1.0e+,"
	};
	struct json_err e;
	size_t i;
	int fl;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(scan_num(bad[i], &fl, &e) == -1,
		    "accepted \"%s\"", bad[i]);
		ck_assert_ptr_eq(e.at, bad[i]);
		ck_assert_int_eq(e.code, JSON_E_NUMBER);
	}
}
END_TEST

START_TEST(number_nan_infinity)
{
	static const char *const bad[] = {
		"NaN", "Infinity", "-Infinity", "-NaN"
	};
	struct json_err e;
	size_t i;
	int fl;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(scan_num(bad[i], &fl, &e) == -1,
		    "accepted \"%s\"", bad[i]);
		ck_assert_int_eq(e.code, JSON_E_NANINF);
	}
}
END_TEST

START_TEST(number_big_flag)
{
	struct json_err e;
	char big[400];
	int fl;

	/* The flag is set when integer digits + exponent > 300. */
	ck_assert_int_eq(scan_num("1e999", &fl, &e), 5);
	ck_assert(fl & JSON_NUM_BIG);
	ck_assert(!isfinite(json_strtod("1e999", 5)));
	/* 1.8e308 overflows a double: 1 + 308 = 309 > 300. */
	ck_assert_int_eq(scan_num("1.8e308", &fl, &e), 7);
	ck_assert(fl & JSON_NUM_BIG);
	ck_assert(!isfinite(json_strtod("1.8e308", 7)));
	/* -1e400 likewise, with the sign flag. */
	scan_num("-1e400", &fl, &e);
	ck_assert_int_eq(fl, JSON_NUM_BIG | JSON_NUM_NEG | JSON_NUM_FRAC);
	/* 1e299: 1 + 299 = 300, not > 300: surely finite, no flag. */
	scan_num("1e299", &fl, &e);
	ck_assert_int_eq(fl & JSON_NUM_BIG, 0);
	/* Negative exponents never overflow. */
	scan_num("1e-999", &fl, &e);
	ck_assert_int_eq(fl & JSON_NUM_BIG, 0);
	ck_assert(json_strtod("1e-999", 6) == 0.0);
	/* Small everyday numbers. */
	scan_num("-0.125", &fl, &e);
	ck_assert_int_eq(fl & JSON_NUM_BIG, 0);
	/* A 310-digit integer (1 followed by 309 zeros = 1e309): BIG. */
	big[0] = '1';
	memset(big + 1, '0', 309);
	big[310] = '\0';
	ck_assert_int_eq(scan_num(big, &fl, &e), 310);
	ck_assert(fl & JSON_NUM_BIG);
	ck_assert(!isfinite(json_strtod(big, 310)));
	/* An exponent too long to hold in a long is still BIG. */
	scan_num("1e99999999999999999999", &fl, &e);
	ck_assert(fl & JSON_NUM_BIG);
}
END_TEST

START_TEST(number_strtod)
{
	char lng[100];

	ck_assert(json_strtod("1.5", 3) == 1.5);
	/* Only n bytes are read: "1.5" of "1.59". */
	ck_assert(json_strtod("1.59", 3) == 1.5);
	ck_assert(json_strtod("-0.25e1", 7) == -2.5);
	/* Longer than the 64-byte stack buffer: 0.000...0125 with 80
	 * zeros after the point, i.e. 1.25e-81. */
	memcpy(lng, "0.", 2);
	memset(lng + 2, '0', 80);
	memcpy(lng + 82, "125", 3);
	ck_assert_rel(json_strtod(lng, 85), 1.25e-81, 1e-15);
}
END_TEST

/*
 * Short decimals take a path of their own (m / 10^k): the same double
 * as strtod() on log-probs and rewards as dumps write them, on the
 * 15- and 16-digit edges of that path, and -0.0 keeps its sign.
 */
START_TEST(number_strtod_short)
{
	static const char *const v[] = {
		"1.0", "0.0", "-0.0", "0", "-1", "0.37796333", "-0.06558721",
		"-0.001368148", "1.33065428e-05", "0.1", "0.3", "2.675",
		"123456789012345", "1234567890.12345", "0.000000000000001",
		"9007199254740993", "1234567890.123456", "0.1234567890123456",
		"-4.9406564584124654", "17976931348623157", "1.", ".5",
		/* 16 digits past 2^53: m / 10^k would round twice. */
		"925.1070446233593", "9.500217535752335", "976926058.8601823"
	};
	char buf[32];
	unsigned long long x = 88172645463325252ULL;
	size_t i;
	double a, b;
	int k;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		a = json_strtod(v[i], strlen(v[i]));
		b = strtod(v[i], NULL);
		ck_assert_msg(memcmp(&a, &b, sizeof(a)) == 0, "%s", v[i]);
	}
	ck_assert(signbit(json_strtod("-0.0", 4)));
	/* Every "d" and "d.d" (a reward's own path), and "d.d" of "d.dd". */
	for (i = 0; i < 100; i++) {
		snprintf(buf, sizeof(buf), "%zu.%zu9", i / 10, i % 10);
		a = json_strtod(buf, 3);
		buf[3] = '\0';
		b = strtod(buf, NULL);
		ck_assert_msg(memcmp(&a, &b, sizeof(a)) == 0, "%s", buf);
		a = json_strtod(buf + 2, 1);
		b = strtod(buf + 2, NULL);
		ck_assert_msg(memcmp(&a, &b, sizeof(a)) == 0, "%s", buf + 2);
	}
	/* Random decimals of 1 to 16 digits, the point anywhere. */
	for (i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = snprintf(buf, sizeof(buf), "%s%llu", x & 1 ? "-" : "",
		    (x >> 8) % 10000000000000000ULL >> (x >> 2 & 31));
		if (k > 2 && (x >> 3 & 3) != 0) {
			int at = 1 + (int)(x >> 40) % (k - 1);

			memmove(buf + at + 1, buf + at, k - at + 1);
			buf[at] = '.';
			k++;
		}
		a = json_strtod(buf, (size_t)k);
		b = strtod(buf, NULL);
		ck_assert_msg(memcmp(&a, &b, sizeof(a)) == 0, "%s", buf);
	}
}
END_TEST

/* ---- json_value ---- */

START_TEST(value_types)
{
	static const struct {
		const char	*s;
		enum json_type	 t;
	} ok[] = {
		{ "{}", JSON_OBJECT }, { "[]", JSON_ARRAY },
		{ "\"s\"", JSON_STRING }, { "-1.5e3", JSON_NUMBER },
		{ "true", JSON_TRUE }, { "false", JSON_FALSE },
		{ "null", JSON_NULL }, { "[ ]", JSON_ARRAY },
		{ "{ }", JSON_OBJECT }, { "[[]]", JSON_ARRAY },
	};
	struct json_err e;
	enum json_type t;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		t = JSON_NONE;
		ck_assert_msg(scan_val(ok[i].s, strlen(ok[i].s), &t, &e) ==
		    (long)strlen(ok[i].s), "refused %s", ok[i].s);
		ck_assert_msg(t == ok[i].t, "%s: type %d", ok[i].s, t);
	}
	ck_assert_str_eq(json_type_name(JSON_STRING), "a string");
	ck_assert_str_eq(json_type_name(JSON_TRUE), "a boolean");
	ck_assert_str_eq(json_type_name(JSON_NULL), "null");
	ck_assert_str_eq(json_type_name(JSON_OBJECT), "an object");
}
END_TEST

START_TEST(value_nested)
{
	const char *s = "{\"a\": {\"b\": [1, {\"c\": null}, [true, false], "
	    "\"x\\u0041\"], \"d\": {}}, \"e\" : -0.5 }   ";
	struct json_err e;
	enum json_type t;

	/* Trailing blanks are not part of the value: it ends at the '}'. */
	ck_assert_int_eq(scan_val(s, strlen(s), &t, &e),
	    (long)(strrchr(s, '}') - s + 1));
	ck_assert_int_eq(t, JSON_OBJECT);
	/* The type is the outer value's, not the last inner one's. */
	s = "[{\"a\":1},\"b\",3]";
	ck_assert_int_eq(scan_val(s, strlen(s), &t, &e), (long)strlen(s));
	ck_assert_int_eq(t, JSON_ARRAY);
}
END_TEST

/* n opening brackets then n closing ones. */
static char *
nest(size_t n, char open, char close)
{
	char *s = malloc(2 * n + 1);

	ck_assert(s != NULL);
	memset(s, open, n);
	memset(s + n, close, n);
	s[2 * n] = '\0';
	return s;
}

START_TEST(value_depth_limit)
{
	struct json_err e;
	enum json_type t;
	char *s;

	/* Exactly JSON_MAX_DEPTH levels: accepted. */
	s = nest(JSON_MAX_DEPTH, '[', ']');
	ck_assert_int_eq(scan_val(s, 2 * JSON_MAX_DEPTH, &t, &e),
	    2 * JSON_MAX_DEPTH);
	ck_assert_int_eq(t, JSON_ARRAY);
	free(s);
	/* One more: refused at the innermost bracket, no crash. */
	s = nest(JSON_MAX_DEPTH + 1, '[', ']');
	ck_assert_int_eq(scan_val(s, 2 * (JSON_MAX_DEPTH + 1), &t, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_DEPTH);
	ck_assert_ptr_eq(e.at, s + JSON_MAX_DEPTH);
	free(s);
	/* A million levels: refused the same way, the stack untouched. */
	s = nest(1000000, '[', ']');
	ck_assert_int_eq(scan_val(s, 2000000, &t, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_DEPTH);
	free(s);
}
END_TEST

START_TEST(value_depth_limit_objects)
{
	/* {"a":{"a":...}} with depth levels. */
	size_t depth, i, n;
	struct json_err e;
	enum json_type t;
	char *s;

	for (depth = JSON_MAX_DEPTH; depth <= JSON_MAX_DEPTH + 1; depth++) {
		s = malloc(6 * depth + 2);
		ck_assert(s != NULL);
		n = 0;
		for (i = 0; i < depth; i++) {
			memcpy(s + n, "{\"a\":", 5);
			n += 5;
		}
		s[n++] = '1';
		for (i = 0; i < depth; i++)
			s[n++] = '}';
		if (depth == JSON_MAX_DEPTH) {
			ck_assert_int_eq(scan_val(s, n, &t, &e), (long)n);
			ck_assert_int_eq(t, JSON_OBJECT);
		} else {
			ck_assert_int_eq(scan_val(s, n, &t, &e), -1);
			ck_assert_int_eq(e.code, JSON_E_DEPTH);
		}
		free(s);
	}
}
END_TEST

START_TEST(value_mixed_depth_bits)
{
	/* Alternating objects and arrays 40 levels deep exercise the bit
	 * stack across byte boundaries: {"k":[{"k":[ ... 1 ]}]} */
	char s[1024];
	size_t n = 0, i;
	struct json_err e;
	enum json_type t;

	for (i = 0; i < 40; i++) {
		if (i % 2 == 0) {
			memcpy(s + n, "{\"k\":", 5);
			n += 5;
		} else
			s[n++] = '[';
	}
	s[n++] = '1';
	for (i = 40; i-- > 0;)
		s[n++] = i % 2 == 0 ? '}' : ']';
	ck_assert_int_eq(scan_val(s, n, &t, &e), (long)n);
	/* Closing with the wrong bracket type is refused. */
	s[n - 1] = ']';
	ck_assert_int_eq(scan_val(s, n, &t, &e), -1);
}
END_TEST

START_TEST(value_invalid)
{
	static const char *const bad[] = {
		"[1,]", "{\"a\":1,}", "[,1]", "{,}", "[1 2]", "{\"a\" 1}",
		"{1:2}", "{\"a\":}", "[", "{", "{\"a\":1", "[1,", "", "tru",
		"nul", "fals", "[NaN]", "[-Infinity]", "{'a':1}", "[01]",
		"[1.]", "{\"a\":1}}", "[\"a\\x\"]", "]", "}", ":", "[1]]"
	};
	struct json_err e;
	enum json_type t;
	size_t i;
	long r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = scan_val(bad[i], strlen(bad[i]), &t, &e);
		/* A complete value followed by more is "accepted" up to its
		 * end: the caller checks for trailing bytes. */
		if (strcmp(bad[i], "{\"a\":1}}") == 0 ||
		    strcmp(bad[i], "[1]]") == 0) {
			ck_assert_int_eq(r, (long)strlen(bad[i]) - 1);
			continue;
		}
		ck_assert_msg(r == -1, "accepted %s", bad[i]);
		ck_assert(e.code != JSON_OK && e.at != NULL);
	}
}
END_TEST

START_TEST(value_error_messages)
{
	struct json_err e;
	enum json_type t;
	const char *s;

	s = "[1,]";
	ck_assert_int_eq(scan_val(s, 4, &t, &e), -1);
	ck_assert_ptr_eq(e.at, s + 3);
	s = "{\"a\":1,}";
	ck_assert_int_eq(scan_val(s, strlen(s), &t, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_KEY);
	ck_assert_ptr_eq(e.at, s + 7);
	s = "{\"a\" 1}";
	ck_assert_int_eq(scan_val(s, strlen(s), &t, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_COLON);
	s = "[1 2]";
	ck_assert_int_eq(scan_val(s, strlen(s), &t, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_ARRAY_SEP);
	ck_assert_ptr_eq(e.at, s + 3);
	s = "{\"a\":1 \"b\":2}";
	ck_assert_int_eq(scan_val(s, strlen(s), &t, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_OBJECT_SEP);
	s = "[1,2";
	ck_assert_int_eq(scan_val(s, strlen(s), &t, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_END);
	s = "[truex]";
	ck_assert_int_eq(scan_val(s, strlen(s), &t, &e), -1);
	s = "[nul]";
	ck_assert_int_eq(scan_val(s, strlen(s), &t, &e), -1);
	ck_assert_int_eq(e.code, JSON_E_LITERAL);
}
END_TEST

/*
 * The words dumpers write for non-finite numbers (Python's NaN, Infinity,
 * -Infinity; C's nan, inf, -inf) are named as such; a bad number or
 * literal that only starts like one is not (a fuzzer's "-In}").
 */
START_TEST(nan_words)
{
	static const struct {
		const char	*s;
		enum json_code	 code;
	} c[] = {
		{ "[NaN]", JSON_E_NANINF }, { "[-Infinity]", JSON_E_NANINF },
		{ "[Infinity, 1]", JSON_E_NANINF }, { "[nan]", JSON_E_NANINF },
		{ "[-inf]", JSON_E_NANINF }, { "[INF]", JSON_E_NANINF },
		{ "[-In]", JSON_E_NUMBER }, { "[-Na[2]", JSON_E_NUMBER },
		{ "[Infinite]", JSON_E_NUMBER }, { "[nanny]", JSON_E_LITERAL },
		{ "[-infinit]", JSON_E_NUMBER }, { "[-Inf", JSON_E_NANINF },
	};
	enum json_type t;
	struct json_err e;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ck_assert_int_eq(scan_val(c[i].s, strlen(c[i].s), &t, &e), -1);
		ck_assert_msg(e.code == c[i].code, "%s: code %d, expected %d",
		    c[i].s, e.code, c[i].code);
	}
}
END_TEST

START_TEST(error_texts)
{
	enum json_code c, d;

	/* Each code has its own words; they reach the user's messages. */
	for (c = JSON_OK; c <= JSON_E_NOT_OBJECT; c++) {
		ck_assert(json_strerror(c) != NULL && *json_strerror(c));
		for (d = JSON_OK; d < c; d++)
			ck_assert_str_ne(json_strerror(c), json_strerror(d));
	}
	ck_assert_str_eq(json_strerror(JSON_E_NANINF),
	    "NaN and Infinity are not JSON");
	ck_assert_str_eq(json_strerror(JSON_E_UESCAPE),
	    "bad \\u escape in string");
	ck_assert_str_eq(json_strerror(JSON_E_OBJECT_SEP),
	    "expected ',' or '}'");
	ck_assert_str_eq(json_strerror(JSON_E_TRAILING),
	    "trailing data after the object");
	ck_assert_str_eq(json_strerror((enum json_code)99), "invalid JSON");
}
END_TEST

/* ---- json_num_array ---- */

static long
scan_arr(const char *s, size_t *count, struct json_err *e)
{
	const char *q = json_num_array(s, s + strlen(s), count, e);

	return q ? (long)(q - s) : -1;
}

START_TEST(numarray_counts)
{
	static const struct {
		const char	*s;
		size_t		 count;
	} ok[] = {
		{ "[]", 0 }, { "[ ]", 0 }, { "[\t\n]", 0 }, { "[1]", 1 },
		{ "[-0.5]", 1 }, { "[1,2,3]", 3 }, { "[1, 2, 3]", 3 },
		{ "[ 1 , 2 ,3 ]", 3 }, { "[-1.5e-3,2E+2,0,-0]", 4 },
		{ "[1e308, -1e308]", 2 }, { "[1e-999]", 1 },
	};
	struct json_err e;
	size_t i, n;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		n = 99;
		ck_assert_msg(scan_arr(ok[i].s, &n, &e) == (long)strlen(ok[i].s),
		    "refused %s", ok[i].s);
		ck_assert_msg(n == ok[i].count, "%s: count %zu", ok[i].s, n);
	}
}
END_TEST

START_TEST(numarray_large)
{
	/* 10000 elements "-0.125" joined by ", ": count 10000. */
	size_t n = 10000, i, o = 0, cnt;
	char *s = malloc(n * 8 + 3);
	struct json_err e;

	ck_assert(s != NULL);
	s[o++] = '[';
	for (i = 0; i < n; i++) {
		if (i) {
			memcpy(s + o, ", ", 2);
			o += 2;
		}
		memcpy(s + o, "-0.125", 6);
		o += 6;
	}
	s[o++] = ']';
	s[o] = '\0';
	ck_assert_int_eq(scan_arr(s, &cnt, &e), (long)o);
	ck_assert_uint_eq(cnt, n);
	free(s);
}
END_TEST

START_TEST(numarray_not_finite)
{
	struct json_err e;
	size_t n;
	const char *s;

	s = "[1e999]";
	ck_assert_int_eq(scan_arr(s, &n, &e), -1);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(e.code, JSON_E_NONFINITE);
	ck_assert_ptr_eq(e.at, s + 1);
	/* The third element (index 2) is the bad one. */
	s = "[0.5, -1, -1e999, 2]";
	ck_assert_int_eq(scan_arr(s, &n, &e), -1);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(e.code, JSON_E_NONFINITE);
	ck_assert_ptr_eq(e.at, s + 10);
}
END_TEST

START_TEST(numarray_not_a_number)
{
	static const struct {
		const char	*s;
		size_t		 idx;	/* index of the bad element */
		size_t		 off;	/* its offset */
	} bad[] = {
		{ "[\"x\"]", 0, 1 },
		{ "[1, \"x\", 3]", 1, 4 },
		{ "[1,2,null]", 2, 5 },
		{ "[true]", 0, 1 },
		{ "[1,false]", 1, 3 },
		{ "[[1]]", 0, 1 },
		{ "[1, {}]", 1, 4 },
	};
	struct json_err e;
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(scan_arr(bad[i].s, &n, &e) == -1, "accepted %s",
		    bad[i].s);
		ck_assert_msg(n == bad[i].idx, "%s: bad element %zu",
		    bad[i].s, n);
		ck_assert_int_eq(e.code, JSON_E_NOT_NUMBER);
		ck_assert_ptr_eq(e.at, bad[i].s + bad[i].off);
	}
}
END_TEST

START_TEST(numarray_malformed)
{
	static const char *const bad[] = {
		"[1,]", "[,]", "[1 2]", "[1,2", "[", "[1;2]", "[01]", "[1.]",
		"[NaN]", "[1, Infinity]", "[-]", "[1,,2]"
	};
	struct json_err e;
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(scan_arr(bad[i], &n, &e) == -1, "accepted %s",
		    bad[i]);
	/* NaN keeps its own message, at the element's index (1). */
	ck_assert_int_eq(scan_arr("[0, NaN]", &n, &e), -1);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(e.code, JSON_E_NANINF);
}
END_TEST

/* ---- json_unescape ---- */

static ssize_t
unesc(const char *s, char *out, size_t cap)
{
	return json_unescape(s, strlen(s), out, cap);
}

START_TEST(unescape_simple)
{
	char out[64];

	ck_assert_int_eq(unesc("\"abc\"", out, sizeof(out)), 3);
	ck_assert(memcmp(out, "abc", 3) == 0);
	ck_assert_int_eq(unesc("\"\"", out, sizeof(out)), 0);
	/* a \n b \t " \ / \b \f \r : 10 bytes decoded */
	ck_assert_int_eq(unesc("\"a\\nb\\t\\\"\\\\\\/\\b\\f\\r\"", out,
	    sizeof(out)), 10);
	ck_assert(memcmp(out, "a\nb\t\"\\/\b\f\r", 10) == 0);
}
END_TEST

START_TEST(unescape_unicode)
{
	char out[64];

	/* U+0041 'A': one byte. */
	ck_assert_int_eq(unesc("\"\\u0041\"", out, sizeof(out)), 1);
	ck_assert_int_eq(out[0], 'A');
	/* U+00E9: C3 A9. */
	ck_assert_int_eq(unesc("\"\\u00e9\"", out, sizeof(out)), 2);
	ck_assert(memcmp(out, "\xc3\xa9", 2) == 0);
	/* U+20AC: E2 82 AC; upper-case hex digits too. */
	ck_assert_int_eq(unesc("\"\\u20AC\"", out, sizeof(out)), 3);
	ck_assert(memcmp(out, "\xe2\x82\xac", 3) == 0);
	/* U+0000 decodes to a NUL byte inside the key. */
	ck_assert_int_eq(unesc("\"a\\u0000b\"", out, sizeof(out)), 3);
	ck_assert(memcmp(out, "a\0b", 3) == 0);
}
END_TEST

START_TEST(unescape_surrogates)
{
	char out[64];

	/* U+1F600 = D83D DE00: 0x10000 + (0x3D << 10) + 0x200 = 0x1F600,
	 * UTF-8 F0 9F 98 80. */
	ck_assert_int_eq(unesc("\"\\ud83d\\ude00\"", out, sizeof(out)), 4);
	ck_assert(memcmp(out, "\xf0\x9f\x98\x80", 4) == 0);
	/* U+1D11E = D834 DD1E: F0 9D 84 9E, with text around it. */
	ck_assert_int_eq(unesc("\"x\\uD834\\uDD1Ey\"", out, sizeof(out)), 6);
	ck_assert(memcmp(out, "x\xf0\x9d\x84\x9ey", 6) == 0);
	/* U+10FFFF = DBFF DFFF: F4 8F BF BF. */
	ck_assert_int_eq(unesc("\"\\udbff\\udfff\"", out, sizeof(out)), 4);
	ck_assert(memcmp(out, "\xf4\x8f\xbf\xbf", 4) == 0);
	/* U+10000 = D800 DC00: F0 90 80 80. */
	ck_assert_int_eq(unesc("\"\\ud800\\udc00\"", out, sizeof(out)), 4);
	ck_assert(memcmp(out, "\xf0\x90\x80\x80", 4) == 0);
}
END_TEST

START_TEST(unescape_capacity)
{
	char out[8];

	/* 4 bytes into 3: too small. */
	ck_assert_int_eq(unesc("\"abcd\"", out, 3), -1);
	ck_assert_int_eq(unesc("\"abcd\"", out, 4), 4);
	/* A 3-byte character into 2 bytes. */
	ck_assert_int_eq(unesc("\"\\u20ac\"", out, 2), -1);
	ck_assert_int_eq(unesc("\"\\n\"", out, 0), -1);
}
END_TEST

static Suite *
json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc;

	tc = tcase_create("string");
	tcase_add_test(tc, string_plain);
	tcase_add_test(tc, string_escapes);
	tcase_add_test(tc, string_unicode_escape);
	tcase_add_test(tc, string_bad_unicode_escape);
	tcase_add_test(tc, string_bad_escape);
	tcase_add_test(tc, string_control_chars);
	tcase_add_test(tc, string_nul_byte);
	tcase_add_test(tc, string_unterminated);
	tcase_add_test(tc, string_utf8_valid);
	tcase_add_test(tc, string_utf8_invalid);
	suite_add_tcase(s, tc);

	tc = tcase_create("number");
	tcase_add_test(tc, number_valid);
	tcase_add_test(tc, number_digit_runs);
	tcase_add_test(tc, number_invalid);
	tcase_add_test(tc, number_nan_infinity);
	tcase_add_test(tc, number_big_flag);
	tcase_add_test(tc, number_strtod);
	tcase_add_test(tc, number_strtod_short);
	suite_add_tcase(s, tc);

	tc = tcase_create("value");
	tcase_add_test(tc, value_types);
	tcase_add_test(tc, value_nested);
	tcase_add_test(tc, value_depth_limit);
	tcase_add_test(tc, value_depth_limit_objects);
	tcase_add_test(tc, value_mixed_depth_bits);
	tcase_add_test(tc, value_invalid);
	tcase_add_test(tc, value_error_messages);
	tcase_add_test(tc, error_texts);
	tcase_add_test(tc, nan_words);
	suite_add_tcase(s, tc);

	tc = tcase_create("num_array");
	tcase_add_test(tc, numarray_counts);
	tcase_add_test(tc, numarray_large);
	tcase_add_test(tc, numarray_not_finite);
	tcase_add_test(tc, numarray_not_a_number);
	tcase_add_test(tc, numarray_malformed);
	suite_add_tcase(s, tc);

	tc = tcase_create("unescape");
	tcase_add_test(tc, unescape_simple);
	tcase_add_test(tc, unescape_unicode);
	tcase_add_test(tc, unescape_surrogates);
	tcase_add_test(tc, unescape_capacity);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(json_suite());
}
