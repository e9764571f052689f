/*
 * check_svg.c - tests of the pictures' modules: text made safe for the
 * page (src/html.c) whatever its bytes, the page's frame, histograms in
 * bounded memory (src/bins.c), round ticks, scaling and the three charts
 * (src/svg.c), with values worked out by hand in the comments.  Every
 * page and chart written here goes through wellformed(): valid UTF-8, no
 * control byte, tags that nest, attributes quoted, entities known.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bins.h"
#include "diag.h"
#include "diff_html.h"
#include "html.h"
#include "options.h"
#include "stats_html.h"
#include "svg.h"
#include "testutil.h"

/* ---- A writer into memory, and the well-formedness check ---- */

struct mem {
	FILE	*f;
	char	*p;
	size_t	 n;
};

static void
mem_open(struct mem *m)
{
	m->p = NULL;
	m->n = 0;
	m->f = open_memstream(&m->p, &m->n);
	ck_assert(m->f != NULL);
}

/* Closes the stream; m->p is the NUL-terminated text (free it). */
static void
mem_close(struct mem *m)
{
	ck_assert(fclose(m->f) == 0);
}

static int
utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0, len, k;
	unsigned cp;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		len = s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 : 2;
		if (s[i] < 0xc2 || s[i] > 0xf4 || i + len > n)
			return 0;
		cp = s[i] & (0x3f >> (len - 1));
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return 0;
		i += len;
	}
	return 1;
}

/* At s, an entity we write; returns its length or 0. */
static size_t
entity(const char *s)
{
	static const char *const ok[] = { "&amp;", "&lt;", "&gt;", "&quot;",
	    "&#39;" };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strncmp(s, ok[i], strlen(ok[i])) == 0)
			return strlen(ok[i]);
	return 0;
}

static int
name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == ':' || c == '_';
}

/* Check's assertions report every call; these only report a failure. */
#define WF(cond, ...) do {						\
	if (!(cond))							\
		ck_abort_msg(__VA_ARGS__);				\
} while (0)

/*
 * The markup rladv writes: text without < > or a bare &, tags whose
 * attributes are all name="value", every element closed in order (meta
 * is void); the stack is empty at the end.
 */
static void
wellformed(const char *s)
{
	char stack[64][32];
	int depth = 0, close;
	const char *p = s, *q;
	size_t n, i;

	for (i = 0; s[i]; i++)
		WF((unsigned char)s[i] >= 0x20 || s[i] == '\n',
		    "control byte 0x%02x at %zu", (unsigned char)s[i], i);
	WF(utf8_valid((const unsigned char *)s, strlen(s)),
	    "invalid UTF-8");
	if (strncmp(p, "<!DOCTYPE html>\n", 16) == 0)
		p += 16;
	while (*p) {
		if (*p == '&') {
			WF((n = entity(p)) > 0, "bare & at \"%.20s\"",
			    p);
			p += n;
			continue;
		}
		WF(*p != '>', "bare > at \"%.20s\"", p);
		if (*p != '<') {
			p++;
			continue;
		}
		close = p[1] == '/';
		p += 1 + close;
		for (q = p; name_char(*q); q++)
			continue;
		n = (size_t)(q - p);
		WF(n > 0 && n < 32, "tag name at \"%.20s\"", p);
		if (close) {
			WF(depth > 0 && strlen(stack[depth - 1]) ==
			    n && strncmp(stack[depth - 1], p, n) == 0,
			    "</%.*s> closes <%s>", (int)n, p, depth ?
			    stack[depth - 1] : "");
			depth--;
			WF(*q == '>', "end of </%.*s>", (int)n, p);
			p = q + 1;
			continue;
		}
		WF(depth < 64, "nesting too deep");
		memcpy(stack[depth], p, n);
		stack[depth][n] = '\0';
		for (p = q; *p == ' ';) {
			for (q = ++p; name_char(*q); q++)
				continue;
			WF(q > p && q[0] == '=' && q[1] == '"',
			    "attribute at \"%.20s\"", p);
			for (p = q + 2; *p != '"'; p += *p == '&' ?
			    entity(p) : 1)
				WF(*p != '\0' && *p != '<' &&
				    (*p != '&' || entity(p) > 0),
				    "attribute value at \"%.20s\"", p);
			p++;
		}
		if (p[0] == '/' && p[1] == '>') {
			p += 2;
			continue;
		}
		WF(*p == '>', "tag end at \"%.20s\"", p);
		p++;
		if (strcmp(stack[depth], "meta") != 0)
			depth++;
	}
	WF(depth == 0, "<%s> not closed", depth ?
	    stack[depth - 1] : "");
}

/* ---- html_text ---- */

static void
text_is(const char *in, size_t n, const char *want, size_t width)
{
	struct mem m;
	size_t w;

	mem_open(&m);
	w = html_text(m.f, in, n);
	mem_close(&m);
	ck_assert_msg(strcmp(m.p, want) == 0, "html_text(\"%.*s\") = \"%s\", "
	    "expected \"%s\"", (int)n, in, m.p, want);
	ck_assert_msg(w == width, "width %zu, expected %zu", w, width);
	ck_assert(html_width(in, n) == width);
	free(m.p);
}

#define FFFD	"\xef\xbf\xbd"

START_TEST(text_escapes)
{
	text_is("plain", 5, "plain", 5);
	text_is("<a&b>", 5, "&lt;a&amp;b&gt;", 5);
	text_is("\"'", 2, "&quot;&#39;", 2);
	/* an entity already written is text, escaped again */
	text_is("&amp;", 5, "&amp;amp;", 5);
	text_is("</svg><script>", 14,
	    "&lt;/svg&gt;&lt;script&gt;", 14);
	/* control characters as JSON spells them */
	text_is("a\x01" "b", 3, "a\\u0001b", 8);
	text_is("a\0b", 3, "a\\u0000b", 8);
	text_is("\t\n\r", 3, "\\u0009\\u000A\\u000D", 18);
	text_is("\x7f", 1, "\\u007F", 6);
	text_is("\xc2\x85", 2, "\\u0085", 6);	/* U+0085, a C1 control */
	/* UTF-8 passes through */
	text_is("\xc3\xa9", 2, "\xc3\xa9", 1);	/* U+00E9 */
	text_is("\xe2\x82\xac", 3, "\xe2\x82\xac", 1);	/* U+20AC */
	text_is("\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80", 1);	/* U+1F600 */
	/* U+0126 is not '&' (0x26), whatever strchr() would say */
	text_is("\xc4\xa6", 2, "\xc4\xa6", 1);
	/* invalid: one U+FFFD per byte */
	text_is("\xff", 1, FFFD, 1);
	text_is("\x80", 1, FFFD, 1);
	text_is("\xc0\xaf", 2, FFFD FFFD, 2);		/* overlong '/' */
	text_is("\xe0\x80\xaf", 3, FFFD FFFD FFFD, 3);	/* overlong */
	text_is("\xed\xa0\x80", 3, FFFD FFFD FFFD, 3);	/* U+D800 */
	text_is("\xf4\x90\x80\x80", 4, FFFD FFFD FFFD FFFD, 4);	/* >10FFFF */
	text_is("a\xe2\x82", 3, "a" FFFD FFFD, 3);	/* cut at the end */
	text_is("\xe2\x82" "<", 3, FFFD FFFD "&lt;", 3);
	/* noncharacters */
	text_is("\xef\xbf\xbe", 3, FFFD, 1);		/* U+FFFE */
	text_is("\xef\xb7\x90", 3, FFFD, 1);		/* U+FDD0 */
	text_is("\xf4\x8f\xbf\xbf", 4, FFFD, 1);	/* U+10FFFF */
	text_is("", 0, "", 0);
}
END_TEST

static void
cut_is(const char *in, size_t max, const char *want, size_t width)
{
	struct mem m;
	size_t w;

	mem_open(&m);
	w = html_text_cut(m.f, in, strlen(in), max);
	mem_close(&m);
	ck_assert_msg(strcmp(m.p, want) == 0, "html_text_cut(\"%s\", %zu) = "
	    "\"%s\", expected \"%s\"", in, max, m.p, want);
	ck_assert_msg(w == width, "width %zu, expected %zu", w, width);
	free(m.p);
}

#define ELL	"\xe2\x80\xa6"

START_TEST(text_cut)
{
	cut_is("abcdef", 4, "abc" ELL, 4);
	cut_is("abcd", 4, "abcd", 4);
	cut_is("ab", 4, "ab", 2);
	cut_is("a<b<c", 3, "a&lt;" ELL, 3);
	/* an escape is never cut: \u0001 (6) fits in 7 - 1, \u0002 not */
	cut_is("\x01\x02", 7, "\\u0001" ELL, 7);
	cut_is("\x01\x02", 6, ELL, 1);
	/* a character of several bytes is one */
	cut_is("\xc3\xa9\xc3\xa9\xc3\xa9", 2, "\xc3\xa9" ELL, 2);
	cut_is("\xc3\xa9\xc3\xa9", 1, ELL, 1);
}
END_TEST

/* Every single byte and every pair of bytes makes well-formed text. */
START_TEST(text_any_bytes)
{
	struct mem m;
	char in[2];
	int a, b;

	mem_open(&m);
	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b += a < 0x80 ? 255 : 1) {
			in[0] = (char)a;
			in[1] = (char)b;
			fputs("<p title=\"", m.f);
			html_text(m.f, in, 2);
			fputs("\">", m.f);
			html_text_cut(m.f, in, 2, 1);
			fputs("</p>\n", m.f);
		}
	mem_close(&m);
	wellformed(m.p);
	free(m.p);
}
END_TEST

START_TEST(page_frame)
{
	static const char *const name[] = { "records", "key <&>" };
	static const char *const value[] = { "320", "\"a\x01\xff\"" };
	char *files[] = { "a<b>.jsonl" };
	struct mem m;

	mem_open(&m);
	html_begin(m.f, "stats", files, 1);
	html_para(m.f, "mono", "\xed\xa0\x80");
	html_table(m.f, name, value, 2);
	html_section(m.f, "Per step", "one point per batch & more");
	html_section_end(m.f);
	ck_assert_int_eq(html_end(m.f), 0);
	mem_close(&m);
	wellformed(m.p);
	ck_assert_has(m.p, "<title>rladv stats: a&lt;b&gt;.jsonl</title>");
	ck_assert_has(m.p, "<h1>rladv stats: a&lt;b&gt;.jsonl</h1>");
	/* A section: its heading, its note, its charts' grid. */
	ck_assert_has(m.p, "</table>\n<section>\n<h2>Per step</h2>\n"
	    "<p class=\"note\">one point per batch &amp; more</p>\n"
	    "<div class=\"grid\">\n</div>\n</section>\n");
	ck_assert_has(m.p, "<td>key &lt;&amp;&gt;</td><td>&quot;a\\u0001"
	    FFFD "&quot;</td>");
	/* nothing to fetch, nothing to run */
	ck_assert_has(m.p, "default-src 'none'");
	ck_assert(strstr(m.p, "<script") == NULL);
	ck_assert(strstr(m.p, "http:") == NULL);
	ck_assert(strstr(m.p, "https:") == NULL);
	ck_assert(strstr(m.p, "url(") == NULL);
	free(m.p);
}
END_TEST

/* A write error reaches the caller. */
START_TEST(page_write_error)
{
	FILE *f = fopen("/dev/full", "w");

	if (f == NULL)
		return;		/* no /dev/full: nothing to test */
	html_begin(f, "stats", NULL, 0);
	ck_assert_int_eq(html_end(f), -1);
	fclose(f);
}
END_TEST

static char *chart(const struct svg_chart *);

/* ---- bins ---- */

START_TEST(bins_first_values)
{
	struct bins b;

	memset(&b, 0, sizeof(b));
	/* 1.0: e = ilogb(1) - 4 = -4 (width 1/16), index 16, base 16 - 32 */
	bins_add(&b, 1.0);
	ck_assert_int_eq(b.e, -4);
	ck_assert(b.base == -16);
	ck_assert(b.count[32] == 1);
	/* 3.0: index 48 = base + 64, one past the window: base -15 */
	bins_add(&b, 3.0);
	ck_assert(b.base == -15);
	ck_assert(b.count[31] == 1 && b.count[63] == 1);
	/* -3.0: index -48, span 96 > 64: width 1/8, indexes 8, 24, -24,
	 * base floor(-15 / 2) = -8, then moved to -24 */
	bins_add(&b, -3.0);
	ck_assert_int_eq(b.e, -3);
	ck_assert(b.base == -24);
	ck_assert(b.count[0] == 1 && b.count[32] == 1 && b.count[48] == 1);
	ck_assert(b.n == 3);
	/* not finite: not counted */
	bins_add(&b, NAN);
	bins_add(&b, INFINITY);
	bins_add(&b, -INFINITY);
	ck_assert(b.n == 3);
}
END_TEST

START_TEST(bins_zero_first)
{
	struct bins b;

	memset(&b, 0, sizeof(b));
	/* 0: width 2^-30, base -32.  1.0 is bin 2^30: the width doubles
	 * until 1 / 2^e < 64 - 0, i.e. e = -5 (bin 32), base -32 -> -1. */
	bins_add(&b, 0);
	bins_add(&b, 1.0);
	ck_assert_int_eq(b.e, -5);
	ck_assert(b.base == -1);
	ck_assert(b.count[1] == 1 && b.count[33] == 1);
	/* -0 is 0 */
	bins_add(&b, -0.0);
	ck_assert(b.count[1] == 2);
}
END_TEST

START_TEST(bins_merge_exact)
{
	struct bins a, b, e;
	int i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&e, 0, sizeof(e));
	bins_add(&a, 1.0);	/* e -4, bin 16 */
	bins_add(&b, -3.0);	/* e = ilogb(3) - 4 = -3, bin -24, base -56 */
	ck_assert_int_eq(b.e, -3);
	ck_assert(b.base == -56);
	/* a widens to 1/8 (bin 8), the union -24 .. 8 fits: base -24 */
	bins_merge(&a, &b);
	ck_assert_int_eq(a.e, -3);
	ck_assert(a.base == -24);
	ck_assert(a.count[0] == 1 && a.count[32] == 1);
	ck_assert(a.n == 2);
	/* into an empty one: a copy; from an empty one: nothing */
	bins_merge(&e, &a);
	bins_merge(&e, &b);
	bins_merge(&e, &(struct bins){ 0 });
	ck_assert(e.n == 3);
	ck_assert(e.count[0] == 2 && e.count[32] == 1);
	for (i = 0; i < BINS_N; i++)
		if (i != 0 && i != 32)
			ck_assert(e.count[i] == 0);
}
END_TEST

START_TEST(bins_view_common)
{
	struct bins a, b;
	const struct bins *v2[2] = { &a, &b };
	struct bins_view v;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	bins_add(&a, 1.0);
	bins_add(&a, 3.0);
	bins_add(&a, -3.0);
	/* bins -24 .. 24 of 1/8: 49 > 40, so 1/4: -12 .. 12, 25 bins from
	 * -3: -3 in bin 0, 1.0 in bin 16, 3.0 in bin 24 */
	bins_view(v2, 1, BINS_VIEW, &v);
	ck_assert(v.width == 0.25 && v.lo == -3.0);
	ck_assert_uint_eq(v.nbins, 25);
	ck_assert(v.count[0][0] == 1 && v.count[0][16] == 1 &&
	    v.count[0][24] == 1);
	/* with b = {0.5}: e = ilogb(0.5) - 4 = -5, bin 16; on the grid of
	 * 1/4 it is bin 2 (2 - -12 = 14) */
	bins_add(&b, 0.5);
	bins_view(v2, 2, BINS_VIEW, &v);
	ck_assert(v.width == 0.25 && v.lo == -3.0);
	ck_assert(v.count[1][14] == 1 && v.count[0][14] == 0);
	/* at most 4 bins: -12 .. 12 (width 1/4), -6 .. 6, -3 .. 3, then
	 * -2 .. 1 of width 2: -3 in bin 0, 0.5 and 1 in bin 2, 3 in bin 3 */
	bins_view(v2, 2, 4, &v);
	ck_assert(v.width == 2 && v.lo == -4);
	ck_assert_uint_eq(v.nbins, 4);
	ck_assert(v.count[0][0] == 1 && v.count[0][2] == 1 &&
	    v.count[0][3] == 1 && v.count[1][2] == 1);
	/* 1 bin asked: 2, since bins -1 and 0 never become one */
	bins_view(v2, 2, 1, &v);
	ck_assert_uint_eq(v.nbins, 2);
	/* nothing: no bins */
	memset(&a, 0, sizeof(a));
	bins_view(v2, 1, BINS_VIEW, &v);
	ck_assert_uint_eq(v.nbins, 0);
}
END_TEST

START_TEST(bins_extremes)
{
	struct bins b;
	struct bins_view v;
	const struct bins *p = &b;
	double sum = 0;
	size_t j;

	memset(&b, 0, sizeof(b));
	bins_add(&b, 4.9406564584124654e-324);	/* subnormal first */
	bins_add(&b, DBL_MAX);
	bins_add(&b, -DBL_MAX);
	ck_assert(b.n == 3);
	bins_view(&p, 1, BINS_VIEW, &v);
	for (j = 0; j < v.nbins; j++)
		sum += v.count[0][j];
	ck_assert(sum == 3);
	ck_assert(isfinite(v.lo) && v.width > 0);
	free(chart(&(struct svg_chart){ SVG_HIST, "h", "t", NULL, "x", "y",
	    v.nbins, NULL, v.lo, v.width, &(struct svg_series){ NULL,
	    v.count[0] }, 1, 0, 0 }));
}
END_TEST

/* ---- ticks and scale ---- */

static void
ticks_are(double lo, double hi, int percent, int n, double first,
    double last, const char *lab0, const char *lablast)
{
	struct svg_ticks t;
	char b[64];

	svg_ticks(lo, hi, 5, percent, &t);
	ck_assert_msg(t.n == n, "[%g, %g]: %d ticks, expected %d", lo, hi,
	    t.n, n);
	ck_assert_msg(t.v[0] == first && t.v[t.n - 1] == last,
	    "[%g, %g]: ticks %.17g .. %.17g", lo, hi, t.v[0], t.v[t.n - 1]);
	svg_tick_label(&t, t.v[0], b, sizeof(b));
	ck_assert_str_eq(b, lab0);
	svg_tick_label(&t, t.v[t.n - 1], b, sizeof(b));
	ck_assert_str_eq(b, lablast);
}

START_TEST(ticks_round)
{
	struct svg_ticks t;
	char b[64];
	int i;

	/* raw step 1/5 = 0.2: 1 x 10^-1 times 2; 0 .. 1 in 6 ticks */
	ticks_are(0, 1, 0, 6, 0, 1, "0.0", "1.0");
	svg_ticks(0, 1, 5, 0, &t);
	for (i = 0; i < t.n; i++)
		ck_assert(t.v[i] == i / 5.0);	/* 0.6 is 6/10, not 3 x 0.2 */
	svg_tick_label(&t, t.v[3], b, sizeof(b));
	ck_assert_str_eq(b, "0.6");
	/* raw 94/5 = 18.8 -> 20: 0 .. 100 */
	ticks_are(3, 97, 0, 6, 0, 100, "0", "100");
	/* raw 0.202/5 = 0.0404 -> 0.05: -0.20 .. 0.05 */
	ticks_are(-0.153, 0.049, 0, 6, -0.2, 0.05, "-0.20", "0.05");
	/* 0.6 .. 1.0 with step 0.1 = 0.6 / 0.1 = 5.999999999999999: 0.6
	 * stays the first tick */
	ticks_are(0.6, 1.0, 0, 5, 0.6, 1.0, "0.6", "1.0");
	/* one value: 10% each way, 0.315 .. 0.385, raw 0.014 -> 0.01 */
	ticks_are(0.35, 0.35, 0, 9, 0.31, 0.39, "0.31", "0.39");
	ticks_are(0, 0, 0, 6, 0, 1, "0.0", "1.0");
	/* -4.4 .. -3.6, raw 0.16 -> 0.2 */
	ticks_are(-4, -4, 0, 5, -4.4, -3.6, "-4.4", "-3.6");
	/* shares: raw 0.06 -> 0.05; labels in percent, no decimals */
	ticks_are(0, 0.3, 1, 7, 0, 0.3, "0%", "30%");
	/* raw 0.001 -> 0.001, 0.1%: one decimal */
	ticks_are(0.1, 0.105, 1, 6, 0.1, 0.105, "10.0%", "10.5%");
	/* large and small: %g with the digits the step needs */
	ticks_are(0, 5e6, 0, 6, 0, 5e6, "0", "5e+06");
	ticks_are(0, 4e-5, 0, 5, 0, 4e-5, "0", "4e-05");
	ticks_are(1e6, 1.25e6, 0, 6, 1e6, 1.25e6, "1e+06", "1.25e+06");
	/* no round step over the whole double range: the ends and 0 */
	ticks_are(-DBL_MAX, DBL_MAX, 0, 3, -DBL_MAX, DBL_MAX, "-1.8e+308",
	    "1.8e+308");
	svg_ticks(-DBL_MAX, DBL_MAX, 5, 0, &t);
	ck_assert(t.v[1] == 0);
	/* no range at all (NaN): 0 .. 1 */
	ticks_are(NAN, NAN, 0, 6, 0, 1, "0.0", "1.0");
}
END_TEST

START_TEST(tick_labels)
{
	struct svg_ticks t;
	char b[64];

	svg_ticks(-1, 1, 5, 0, &t);	/* step 0.5: one decimal */
	svg_tick_label(&t, -1e-9, b, sizeof(b));
	ck_assert_str_eq(b, "0.0");	/* not -0.0 */
	svg_tick_label(&t, -0.0, b, sizeof(b));
	ck_assert_str_eq(b, "0.0");
	svg_tick_label(&t, -0.5, b, sizeof(b));
	ck_assert_str_eq(b, "-0.5");
	svg_ticks(-1, 0, 5, 1, &t);	/* step 0.2: percent, no decimals */
	svg_tick_label(&t, -0.001, b, sizeof(b));
	ck_assert_str_eq(b, "0%");
	ck_assert(t.v[t.n - 1] == 0 && !signbit(t.v[t.n - 1]));
}
END_TEST

START_TEST(scale)
{
	ck_assert(svg_scale(0.5, 0, 1, 300, 100) == 200);
	ck_assert(svg_scale(0, 0, 1, 300, 100) == 300);
	ck_assert(svg_scale(1, 0, 1, 300, 100) == 100);
	ck_assert(svg_scale(-0.2, -0.2, 0.05, 0, 250) == 0);
	/* a domain wider than DBL_MAX */
	ck_assert(svg_scale(0, -DBL_MAX, DBL_MAX, 0, 100) == 50);
	ck_assert(svg_scale(DBL_MAX, -DBL_MAX, DBL_MAX, 0, 100) == 100);
}
END_TEST

/* ---- charts ---- */

static char *
chart(const struct svg_chart *c)
{
	struct mem m;

	mem_open(&m);
	ck_assert_int_eq(svg_chart(m.f, c), 0);
	mem_close(&m);
	wellformed(m.p);
	ck_assert_msg(strstr(m.p, "nan") == NULL && strstr(m.p, "inf") ==
	    NULL, "a number that is not one in %s", m.p);
	return m.p;
}

static size_t
count(const char *s, const char *sub)
{
	size_t n = 0;

	while ((s = strstr(s, sub)) != NULL) {
		n++;
		s += strlen(sub);
	}
	return n;
}

START_TEST(line_chart)
{
	static const double v[3] = { 0.2, 0.5, 0.4 };
	static const struct svg_series s = { NULL, v };
	static const char *const cat[3] = { "step 1", "step 2", "step 3" };
	struct svg_chart c = { SVG_LINE, "reward", "Mean reward", NULL,
	    "batch", "reward", 3, cat, 0, 0, &s, 1, 0, 0 };
	char *p;

	/*
	 * No legend: the plot is x 60, y 30, w 470 - 60 - 14 = 396,
	 * h 290 - 46 - 30 = 214.  y ticks 0.20 .. 0.50 by 0.05 (raw 0.06).
	 * Steps at 60 + 10 + i (396 - 20) / 2: 70, 258, 446; 0.4 at
	 * 244 - 214 (0.2 / 0.3) = 101.33.
	 */
	ck_assert_uint_eq(svg_marks(&c), 4);	/* a polyline, 3 dots */
	p = chart(&c);
	ck_assert_has(p, "data-marks=\"4\"");
	ck_assert_has(p, "data-plot=\"60.00 30.00 396.00 214.00\"");
	ck_assert_has(p, "points=\"70.00,244.00 258.00,30.00 "
	    "446.00,101.33\"");
	ck_assert_has(p, ">0.20</text>");
	ck_assert_has(p, ">0.50</text>");
	ck_assert_uint_eq(count(p, "stroke=\"#e6e6e6\""), 7);
	ck_assert_has(p, "<title>step 2: 0.5</title>");
	ck_assert_uint_eq(count(p, "class=\"mark\""), 4);
	free(p);
}
END_TEST

START_TEST(line_gaps)
{
	double v[100];
	struct svg_series s = { "mean", v };
	struct svg_chart c = { SVG_LINE, "r", "t", NULL, "x", "y", 4, NULL,
	    0, 0, &s, 1, 0, 0 };
	size_t i;
	char *p;

	/* a step alone (a dot), then a run (a polyline and two dots) */
	v[0] = 0.2;
	v[1] = NAN;
	v[2] = 0.4;
	v[3] = 0.5;
	ck_assert_uint_eq(svg_marks(&c), 4);
	p = chart(&c);
	ck_assert_uint_eq(count(p, "<polyline"), 1);
	ck_assert_uint_eq(count(p, "<circle"), 3);
	/* the legend names the series */
	ck_assert_has(p, ">mean</text>");
	free(p);
	/* 100 steps: dots only where a step stands alone */
	for (i = 0; i < 100; i++)
		v[i] = (double)i;
	v[1] = NAN;
	v[50] = NAN;
	c.n = 100;
	ck_assert_uint_eq(svg_marks(&c), 3);	/* dot 0, runs 2-49, 51-99 */
	p = chart(&c);
	ck_assert_uint_eq(count(p, "<polyline"), 2);
	ck_assert_uint_eq(count(p, "<circle"), 1);
	free(p);
	/* nothing finite: no marks, and it says so */
	for (i = 0; i < 100; i++)
		v[i] = NAN;
	ck_assert_uint_eq(svg_marks(&c), 0);
	p = chart(&c);
	ck_assert_has(p, ">no data</text>");
	ck_assert_has(p, "data-marks=\"0\"");
	free(p);
}
END_TEST

START_TEST(bars_chart)
{
	static const double a[2] = { 1, -0.5 }, b[2] = { 0, 2 };
	static const struct svg_series s[2] = { { "A", a }, { "B", b } };
	static const char *const cat[2] = { "0", "<&>" };
	struct svg_chart c = { SVG_BARS, "mass", "Mass", "cap", "stratum",
	    "share", 2, cat, 0, 0, s, 2, 0, 0 };
	char *p;

	/*
	 * 4 marks, B's 0 a bar of 1px down from the axis.  Legend: plot
	 * y 46, h 290 - 46 - 46 = 198.  y -0.5 .. 2 (raw 0.5, ticks by
	 * 0.5), so 0 is at 46 + 198 (2 / 2.5) = 204.4 and 1 at
	 * 46 + 198 (1 / 2.5) = 125.2.  Slots of 396 / 2 = 198, bars of
	 * 198 0.8 / 2 = 79.2: A's first at 60 + 19.8 = 79.8, B's first at
	 * 79.8 + 79.2 = 159, B's second at 60 + 198 + 19.8 + 79.2 = 357.
	 */
	ck_assert_uint_eq(svg_marks(&c), 4);
	p = chart(&c);
	ck_assert_has(p, "<rect class=\"mark\" x=\"159.00\" y=\"204.40\" "
	    "width=\"79.20\" height=\"1.00\"");
	ck_assert_has(p, "<rect class=\"mark\" x=\"79.80\" y=\"125.20\" "
	    "width=\"79.20\" height=\"79.20\"");
	ck_assert_has(p, "<rect class=\"mark\" x=\"357.00\" y=\"46.00\" "
	    "width=\"79.20\" height=\"158.40\"");
	/* A's -0.5 goes down from 0 to the axis' end, 244 */
	ck_assert_has(p, "y=\"204.40\" width=\"79.20\" height=\"39.60\"");
	/* the zero line, the labels escaped, the caption */
	ck_assert_has(p, "y1=\"204.40\" x2=\"456.00\" y2=\"204.40\" "
	    "stroke=\"#888\"");
	ck_assert_has(p, ">&lt;&amp;&gt;</text>");
	ck_assert_has(p, "<title>&lt;&amp;&gt;, B: 2</title>");
	ck_assert_has(p, "<figcaption>cap</figcaption>");
	ck_assert_has(p, ">-0.5</text>");
	free(p);
}
END_TEST

START_TEST(hist_chart)
{
	static const double n[4] = { 1, 0, 3, 2 };
	static const struct svg_series s = { NULL, n };
	struct svg_chart c = { SVG_HIST, "len", "Lengths", NULL, "tokens",
	    "records", 4, NULL, -1, 0.5, &s, 1, 0, 0 };
	char *p;

	/*
	 * x: -1 .. 1 (raw 0.4 -> step 0.5); y: 0 .. 3 (raw 0.6 -> 0.5).
	 * Bin [0, 0.5) of count 3: x 60 + 396 / 2 = 258 to 60 + 396
	 * 3 / 4 = 357, y 30 to 244.
	 */
	ck_assert_uint_eq(svg_marks(&c), 3);
	p = chart(&c);
	ck_assert_has(p, "x=\"258.00\" y=\"30.00\" width=\"99.00\" "
	    "height=\"214.00\"");
	ck_assert_has(p, "<title>[0, 0.5): 3</title>");
	ck_assert_has(p, ">-1.0</text>");
	ck_assert_has(p, ">1.0</text>");
	free(p);
}
END_TEST

/* Labels of any bytes, long or hostile, keep a chart well-formed. */
START_TEST(hostile_labels)
{
	static const double a[3] = { 1, 2, 3 };
	const char *bad = "\"><script>alert(1)</script>\x01\xff\xed\xa0\x80"
	    "'&amp;\xe2\x82";
	const char *cat[3];
	struct svg_series s[2] = { { NULL, a }, { NULL, a } };
	struct svg_chart c = { SVG_BARS, "x\"y", NULL, NULL, NULL, NULL, 3,
	    NULL, 0, 0, s, 2, 0, 0 };
	char *p, big[600];
	int k;

	memset(big, 'w', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cat[0] = bad;
	cat[1] = big;
	cat[2] = "";
	s[0].name = bad;
	s[1].name = big;
	c.title = c.caption = c.xlabel = c.ylabel = bad;
	c.cat = cat;
	for (k = SVG_LINE; k <= SVG_BARS; k++) {
		c.kind = (enum svg_kind)k;
		c.lo = 0;
		c.width = 1;
		p = chart(&c);
		ck_assert(strstr(p, "<script") == NULL);
		ck_assert_has(p, "id=\"x&quot;y\"");
		free(p);
		c.title = big;
	}
}
END_TEST

START_TEST(chart_write_error)
{
	static const double a[1] = { 1 };
	static const struct svg_series s = { NULL, a };
	struct svg_chart c = { SVG_BARS, "a", "t", NULL, "x", "y", 1, NULL,
	    0, 0, &s, 1, 0, 0 };
	FILE *f = fopen("/dev/full", "w");

	if (f == NULL)
		return;
	setvbuf(f, NULL, _IONBF, 0);
	ck_assert_int_eq(svg_chart(f, &c), -1);
	fclose(f);
}
END_TEST

START_TEST(bins_chart)
{
	struct bins a, b;
	const struct bins *v[2] = { &a, &b };
	static const char *const name[2] = { "A", "B" };
	struct svg_chart c = { SVG_LINE, "h", "t", NULL, "x", "y", 0, NULL,
	    0, 0, NULL, 0, 0, 0 };
	char *p;
	struct mem m;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	/* as in bins_view_common: 25 bins of 1/4 from -3; A has 3 values
	 * in 3 bins, B one: 4 bars, whatever kind c said */
	bins_add(&a, 1.0);
	bins_add(&a, 3.0);
	bins_add(&a, -3.0);
	bins_add(&b, 0.5);
	mem_open(&m);
	ck_assert_int_eq(svg_bins(m.f, &c, v, name, 2), 0);
	mem_close(&m);
	p = m.p;
	wellformed(p);
	ck_assert_has(p, "data-marks=\"4\"");
	ck_assert_has(p, "<title>[0.5, 0.75), B: 1</title>");
	ck_assert_has(p, "<title>[-3, -2.75), A: 1</title>");
	free(p);
	/* nothing in either: no bins, "no data" */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	mem_open(&m);
	ck_assert_int_eq(svg_bins(m.f, &c, v, name, 2), 0);
	mem_close(&m);
	wellformed(m.p);
	ck_assert_has(m.p, ">no data</text>");
	free(m.p);
}
END_TEST

/* The lengths by sign: the positive records' bins, then the negative
 * ones', on the axes both pages label alike; c's labels are not used. */
START_TEST(lengths_chart)
{
	struct bins pos, neg;
	struct svg_chart c = { SVG_BARS, "len", "t", NULL, "x", "y", 0, NULL,
	    0, 0, NULL, 0, 0, 0 };
	struct mem m;

	memset(&pos, 0, sizeof(pos));
	memset(&neg, 0, sizeof(neg));
	bins_add(&pos, 3.0);
	bins_add(&neg, 1.0);
	bins_add(&neg, 2.0);
	mem_open(&m);
	ck_assert_int_eq(svg_lengths(m.f, &c, &pos, &neg), 0);
	mem_close(&m);
	wellformed(m.p);
	ck_assert_has(m.p, "data-marks=\"3\"");
	ck_assert_has(m.p, "<title>[3, 3.125), A &gt; 0: 1</title>");
	ck_assert_has(m.p, "<title>[1, 1.125), A &lt; 0: 1</title>");
	ck_assert_has(m.p, ">trained tokens T</text>");
	ck_assert_has(m.p, ">records</text>");
	ck_assert(strstr(m.p, ">x</text>") == NULL);
	ck_assert_str_eq(c.xlabel, "x");
	free(m.p);
}
END_TEST

START_TEST(join_title)
{
	static const char *const s[3] = { "tool_calls", "turns", "x" };
	char *files[2] = { "a<.jsonl", "b.jsonl" };
	char b[64], small[8];

	html_join(b, sizeof(b), s, 2, ",");
	ck_assert_str_eq(b, "tool_calls,turns");
	html_join(b, sizeof(b), s, 0, ",");
	ck_assert_str_eq(b, "");
	html_join(small, sizeof(small), s, 3, ",");
	ck_assert_str_eq(small, "tool_ca");	/* cut to 7 and a NUL */
	html_title(b, sizeof(b), "stats", files, 2);
	ck_assert_str_eq(b, "rladv stats: a<.jsonl b.jsonl");
	html_title(b, sizeof(b), "diff", files, 0);
	ck_assert_str_eq(b, "rladv diff: -");
	html_title(small, sizeof(small), "stats", files, 2);
	ck_assert_str_eq(small, "rladv s");
}
END_TEST

/* Writes a whole page through fn into memory; returns it. */
static char *
page_text(int (*fn)(FILE *, const char *, const void *, struct diag *),
    const void *p)
{
	struct diag d = { 0 };
	char path[64], *text;
	FILE *f;

	tu_mkdir();
	snprintf(path, sizeof(path), "%s", tu_path("page.html"));
	f = html_open(path, &d);
	ck_assert(f != NULL);
	ck_assert_int_eq(fn(f, path, p, &d), 0);
	text = tu_read(path, NULL);
	tu_rmdir();
	wellformed(text);
	return text;
}

static int
stats_fn(FILE *f, const char *path, const void *p, struct diag *d)
{
	return stats_html_write(f, path, p, d);
}

static int
diff_fn(FILE *f, const char *path, const void *p, struct diag *d)
{
	return diff_html_write(f, path, p, d);
}

/* A page of one batch whose figures are undefined: every chart is
 * there, the empty ones say so. */
START_TEST(stats_page_empty)
{
	struct prefs c;
	struct stats_row row = { "3", 4, 1, 1, 0.5, NAN, NAN, NAN, NAN, NAN,
	    NAN, NAN, { 0 } };
	struct stats_page p;
	struct bins none;
	char *t;

	options_defaults(&c);
	memset(&none, 0, sizeof(none));
	memset(&p, 0, sizeof(p));
	p.c = &c;
	p.row = &row;
	p.nrow = 1;
	p.total = row;
	p.len_pos = p.len_neg = &none;
	p.reading = "Reading: undefined.";
	t = page_text(stats_fn, &p);
	ck_assert_uint_eq(count(t, "<svg class=\"chart\""), 13);
	/* the length charts per step and overall, the between share, the
	 * on-policy losses, the strata (and Stratified GRPO's four charts of
	 * them) and the sizes have nothing to draw */
	ck_assert_uint_eq(count(t, ">no data</text>"), 11);
	ck_assert_has(t, "<td>batches</td><td>1</td>");
	ck_assert_has(t, "<td>zero reward variance</td><td>100.0% of");
	ck_assert_has(t, "<td>positive advantage</td><td>no record</td>");
	free(t);
}
END_TEST

/* More strata than panels: the first eleven, and a note. */
START_TEST(diff_page_panels)
{
	struct prefs c;
	struct diff_stratum st[15];
	struct diff_page p;
	struct bins b;
	char lab[15][8], *t;
	int i;

	options_defaults(&c);
	memset(&b, 0, sizeof(b));
	bins_add(&b, 1.0);
	memset(&p, 0, sizeof(p));
	memset(st, 0, sizeof(st));
	for (i = 0; i < 15; i++) {
		snprintf(lab[i], sizeof(lab[i]), "%d", i);
		st[i].label = lab[i];
		st[i].records = 1;
		st[i].mean[0] = st[i].mean[1] = 0.5;
		st[i].mass[0] = st[i].mass[1] = 1.0 / 15;
		st[i].adv[0] = st[i].adv[1] = &b;
	}
	p.c = &c;
	p.opts[0] = "-a grpo";
	p.opts[1] = "";
	p.records = 15;
	p.groups = 3;
	p.corr = NAN;
	p.adv[0] = p.adv[1] = &b;
	p.len_pos[0] = p.len_pos[1] = p.len_neg[0] = p.len_neg[1] = &b;
	p.stratum = st;
	p.nstratum = 15;
	t = page_text(diff_fn, &p);
	/* all + 11 strata, mass and mean, two length charts */
	ck_assert_uint_eq(count(t, "<svg class=\"chart\""), 16);
	ck_assert_has(t, "id=\"adv-stratum-11\"");
	ck_assert(strstr(t, "adv-stratum-12") == NULL);
	ck_assert_has(t, "The first 11 of 15 strata are drawn");
	ck_assert_has(t, "<td>B</td><td>(defaults)</td>");
	ck_assert_has(t, "<td>correlation</td><td>undefined");
	free(t);
}
END_TEST

START_TEST(page_open_errors)
{
	struct diag d = { 0 };
	FILE *f;

	ck_assert(html_open("/nonexistent-dir/p.html", &d) == NULL);
	ck_assert_int_eq(d.status, EXIT_IO);
	ck_assert_has(d.msg, "/nonexistent-dir/p.html: cannot create");
	ck_assert(html_open("-", &d) == stdout);
	if ((f = html_open("/dev/full", &d)) == NULL)
		return;
	html_begin(f, "stats", NULL, 0);
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(html_close(f, "/dev/full", &d), EXIT_IO);
	ck_assert_has(d.msg, "/dev/full: write error");
}
END_TEST

static Suite *
svg_suite(void)
{
	Suite *s = suite_create("svg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, text_escapes);
	tcase_add_test(tc, text_cut);
	tcase_add_test(tc, text_any_bytes);
	tcase_add_test(tc, page_frame);
	tcase_add_test(tc, page_write_error);
	tcase_add_test(tc, bins_first_values);
	tcase_add_test(tc, bins_zero_first);
	tcase_add_test(tc, bins_merge_exact);
	tcase_add_test(tc, bins_view_common);
	tcase_add_test(tc, bins_extremes);
	tcase_add_test(tc, ticks_round);
	tcase_add_test(tc, tick_labels);
	tcase_add_test(tc, scale);
	tcase_add_test(tc, line_chart);
	tcase_add_test(tc, line_gaps);
	tcase_add_test(tc, bars_chart);
	tcase_add_test(tc, hist_chart);
	tcase_add_test(tc, hostile_labels);
	tcase_add_test(tc, chart_write_error);
	tcase_add_test(tc, bins_chart);
	tcase_add_test(tc, lengths_chart);
	tcase_add_test(tc, join_title);
	tcase_add_test(tc, stats_page_empty);
	tcase_add_test(tc, diff_page_panels);
	tcase_add_test(tc, page_open_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(svg_suite());
}
