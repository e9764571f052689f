/*
 * json.h - a validating scanner over one JSON text held in memory.
 * Every pointer it returns points into the caller's buffer, which the
 * caller owns; it allocates nothing but json_strtod()'s copy of a number
 * too long for its stack buffer (out of memory ends the process, as
 * diag.h's allocators do).
 */
#ifndef RLADV_JSON_H
#define RLADV_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum json_type {
	JSON_NONE, JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_NUMBER,
	JSON_TRUE, JSON_FALSE, JSON_NULL
};

/* Deepest nesting accepted; deeper input is refused, not recursed into. */
#define JSON_MAX_DEPTH 512

/* Why a scan failed; json_strerror() says it in words. */
enum json_code {
	JSON_OK,
	JSON_E_UNTERMINATED,	/* a string */
	JSON_E_UESCAPE,
	JSON_E_ESCAPE,
	JSON_E_NUL,
	JSON_E_CONTROL,
	JSON_E_UTF8,
	JSON_E_NANINF,		/* a number */
	JSON_E_NUMBER,
	JSON_E_NOT_NUMBER,	/* json_num_array(): another value */
	JSON_E_NONFINITE,	/* json_num_array(): beyond a double */
	JSON_E_LITERAL,		/* the structure */
	JSON_E_END,
	JSON_E_DEPTH,
	JSON_E_KEY,
	JSON_E_COLON,
	JSON_E_OBJECT_SEP,
	JSON_E_ARRAY_SEP,
	JSON_E_TRAILING,	/* after a whole value (callers' use) */
	JSON_E_NOT_OBJECT	/* where an object must be (callers' use) */
};

/* Where and why a scan failed. */
struct json_err {
	const char	*at;
	enum json_code	 code;
};

/* Flags json_number() reports about a number it accepted. */
#define JSON_NUM_FRAC	1	/* has a fraction or an exponent */
#define JSON_NUM_BIG	2	/* may overflow a double: check with strtod */
#define JSON_NUM_NEG	4	/* starts with '-' */

/* The blanks from p on, past the one space that usually is the only
 * one: json_ws(). */
const char	*json_ws_run(const char *p, const char *end);

/* The first byte at or after p that is not a JSON blank.  Inline: a
 * record's walk calls it some sixty times, and most calls find at most
 * the one space of ", " or ": ". */
static inline const char *
json_ws(const char *p, const char *end)
{
	if (p < end && *p == ' ')
		p++;
	if (p < end && (unsigned char)*p > ' ')
		return p;
	return json_ws_run(p, end);
}
/* p at the first byte of a value: returns the byte after it, or NULL. */
const char	*json_value(const char *p, const char *end,
		    enum json_type *type, struct json_err *e);
/* p at '"': returns the byte after the closing quote, or NULL. */
const char	*json_string(const char *p, const char *end, int *escaped,
		    struct json_err *e);
/* json_number() past its short forms. */
const char	*json_number_scan(const char *p, const char *end, int *flags,
		    struct json_err *e);
/*
 * p at '-' or a digit: returns the byte after the number, or NULL.
 * Inline: most numbers of a record but its log-probs are one digit
 * ("step": 0, "response_id": 3) or "d.d" (a reward as Python writes one:
 * 1.0, 0.5), each known by a few compares; the others are scanned.
 * (Not in json_num_array()'s loop: log-probs are never either.)
 */
static inline const char *
json_number(const char *p, const char *end, int *flags, struct json_err *e)
{
	if (end - p >= 2 && p[0] >= '0' && p[0] <= '9' &&
	    (p[1] < '0' || p[1] > '9') && p[1] != '.' && p[1] != 'e' &&
	    p[1] != 'E') {
		*flags = 0;
		return p + 1;
	}
	if (end - p >= 4 && p[1] == '.' && (unsigned)(p[0] - '0') < 10 &&
	    (unsigned)(p[2] - '0') < 10 && (unsigned)(p[3] - '0') >= 10 &&
	    p[3] != 'e' && p[3] != 'E') {
		*flags = JSON_NUM_FRAC;
		return p + 3;
	}
	return json_number_scan(p, end, flags, e);
}
/* The value of a number json_number() accepted (n bytes at p). */
double		 json_strtod(const char *p, size_t n);
/*
 * p at '[' of an array that must hold only finite numbers: counts them and
 * returns the byte after ']', or NULL with e->at at the bad element and
 * *count the index of that element.
 */
const char	*json_num_array(const char *p, const char *end, size_t *count,
		    struct json_err *e);
/* Decodes a string json_string() accepted (quotes included) into buf;
 * returns the decoded length, or -1 when cap is too small. */
ssize_t		 json_unescape(const char *p, size_t n, char *buf, size_t cap);
/*
 * The length of the valid UTF-8 sequence at p (avail > 0 bytes left) and
 * its code point in *cp, or 0 when the byte at p starts none (RFC 3629:
 * no overlong form, no surrogate, nothing past U+10FFFF).
 */
size_t		 json_utf8(const unsigned char *p, size_t avail, uint32_t *cp);
/* The value of the hex digit c (either case), or -1: JSON's \u escapes. */
int		 json_hexval(int c);
/* What went wrong, in words ("bad number"): a static string. */
const char	*json_strerror(enum json_code c);
/* The name of a type, for messages ("a string", "an array", ...). */
const char	*json_type_name(enum json_type t);

#endif
