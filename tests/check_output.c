/*
 * check_output.c - tests of the writer and of the JSON rladv adds
 * (src/output.c): output_number's formatting, output_json_string, and
 * output_record through temporary files: byte-for-byte passthrough,
 * appended fields in the input's spacing style, fields replaced in place,
 * stale token arrays dropped under --no-tokens, masked token arrays, long
 * arrays, annotations, gzip output and write errors.
 */
#include <check.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "output.h"
#include "record.h"
#include "testutil.h"

/* ---- output_number ---- */

static void
num_is(double v, int digits, const char *want)
{
	char buf[32];
	size_t n = output_number(v, digits, buf);

	ck_assert_msg(n == strlen(want) && strcmp(buf, want) == 0,
	    "output_number(%.17g, %d) = \"%s\" (%zu), expected \"%s\"", v,
	    digits, buf, n, want);
}

START_TEST(number_format)
{
	num_is(1.0, 9, "1");
	num_is(0.0, 9, "0");
	num_is(-0.5, 3, "-0.5");
	num_is(0.25, 9, "0.25");
	/* 1/3 to 9 significant digits */
	num_is(1.0 / 3.0, 9, "0.333333333");
	/* sqrt(3) = 1.7320508075688772: 9 digits round up to ...081 */
	num_is(sqrt(3.0), 9, "1.73205081");
	num_is(-1.0 / sqrt(3.0), 9, "-0.577350269");
	/* 0.1 at 17 digits shows its binary value */
	num_is(0.1, 17, "0.10000000000000001");
	num_is(0.1, 9, "0.1");
	num_is(123456789012.0, 9, "1.23456789e+11");
	num_is(1e-7, 9, "1e-07");
	num_is(2.7, 1, "3");
	/* rounding up to the next power of ten */
	num_is(0.99999999999, 9, "1");
	num_is(-1e-300, 9, "-1e-300");
	/* the smallest subnormal: 4.9406564584124654e-324 */
	num_is(4.9406564584124654e-324, 9, "4.94065646e-324");
	num_is(-DBL_MAX, 17, "-1.7976931348623157e+308");
}
END_TEST

START_TEST(number_never_minus_zero)
{
	char buf[32];

	/* -0.0 prints as "0" at every precision. */
	ck_assert_uint_eq(output_number(-0.0, 9, buf), 1);
	ck_assert_str_eq(buf, "0");
	ck_assert_uint_eq(output_number(-0.0, 17, buf), 1);
	ck_assert_str_eq(buf, "0");
	ck_assert_uint_eq(output_number(-0.0, 1, buf), 1);
	ck_assert_str_eq(buf, "0");
	ck_assert_uint_eq(output_number(0.0, 1, buf), 1);
	ck_assert_str_eq(buf, "0");
}
END_TEST

START_TEST(number_is_json)
{
	/* Every output is one whole JSON number, and at 17 digits it reads
	 * back as the same double. */
	static const double v[] = {
		1, -1, 0.5, 1e-320, -1e-320, 1e300, -1e300, 3.14159265358979,
		-2.718281828459045, 123456789, 1e21, 1e-5, 6.02214076e23,
		DBL_MAX, DBL_MIN, -DBL_MIN, 0.1, 0.7, 1.0 / 3
	};
	char buf[32];
	struct json_err e;
	const char *q;
	size_t i, n;
	int fl, dg;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (dg = 1; dg <= 17; dg++) {
			n = output_number(v[i], dg, buf);
			ck_assert(n > 0 && n < 32);
			q = json_number(buf, buf + n, &fl, &e);
			ck_assert_msg(q == buf + n, "\"%s\" is not a JSON "
			    "number", buf);
			if (dg == 17)
				ck_assert_msg(strtod(buf, NULL) == v[i],
				    "\"%s\" does not round-trip", buf);
		}
}
END_TEST

START_TEST(number_non_finite_guard)
{
	char buf[32];

	/* The contract says v is finite; should one slip through, what is
	 * written is still a JSON number, never "nan" or "inf". */
	output_number(NAN, 9, buf);
	ck_assert_str_eq(buf, "0");
	output_number(INFINITY, 9, buf);
	ck_assert_str_eq(buf, "0");
	output_number(-INFINITY, 9, buf);
	ck_assert_str_eq(buf, "0");
}
END_TEST

START_TEST(json_string_escaping)
{
	struct buf b = { 0 };
	const char in[] = "a\"b\\c\n\x01\x1f\x7f/\xc3\xa9";
	const char want[] = "\"a\\\"b\\\\c\\n\\u0001\\u001f\\u007f/\xc3\xa9\"";
	/* A C1 control (U+009B, a terminal's CSI), a lone surrogate as
	 * json_unescape() decodes "\ud800", a byte that is not UTF-8: the
	 * string stays valid UTF-8 and reads back as it was. */
	const char odd[] = "\xc2\x9b\xed\xa0\x80x\xff\xc3";
	const char wodd[] = "\"\\u009b\\ud800x\\ufffd\\ufffd\"";

	output_json_string(&b, in, sizeof(in) - 1);
	ck_assert_uint_eq(b.len, sizeof(want) - 1);
	ck_assert(memcmp(b.p, want, b.len) == 0);
	b.len = 0;
	output_json_string(&b, odd, sizeof(odd) - 1);
	ck_assert_uint_eq(b.len, sizeof(wodd) - 1);
	ck_assert(memcmp(b.p, wodd, b.len) == 0);
	b.len = 0;
	output_json_string(&b, "", 0);
	ck_assert_uint_eq(b.len, 2);
	ck_assert(memcmp(b.p, "\"\"", 2) == 0);
	buf_free(&b);
}
END_TEST

/* ---- output_record ---- */

static const struct emit emit_tokens = { .digits = 9, .tokens = 1 };
static const struct emit emit_notokens = { .digits = 9 };

/* Parses line, writes it with adv and w through output_record (plain or
 * gzip), reads the file back; returns it (malloc'd). */
static char *
render(const char *line, double adv, double w, const struct emit *em,
    int gzip)
{
	const char *p = tu_path(gzip ? "out.jsonl.gz" : "out.jsonl");
	struct fields f;
	struct record r;
	struct buf keys = { 0 }, runs = { 0 };
	struct diag d = { 0 };
	struct output *o;
	char *got;

	fields_default(&f);
	ck_assert_msg(record_parse(line, strlen(line), &f, &r, &keys, &runs,
	    "t", 1, &d) == 0, "record_parse: %s", d.msg);
	o = output_open(p, gzip, 6, &d);
	ck_assert_msg(o != NULL, "output_open: %s", d.msg);
	ck_assert_msg(output_record(o, line, &r, r.has_mask ?
	    (const uint32_t *)runs.p : NULL, adv, w, em, &d) == 0,
	    "output_record: %s", d.msg);
	ck_assert_msg(output_close(o, &d) == 0, "output_close: %s", d.msg);
	got = gzip ? tu_gzread(p, NULL) : tu_read(p, NULL);
	buf_free(&keys);
	buf_free(&runs);
	return got;
}

/* Both ways of writing a record give want: the general one (no names
 * quoted in the emit) and, with the names quoted as rladv quotes them
 * (output_names()), the one piece of a record without rladv's fields. */
static void
render_is(const char *line, double adv, double w, const struct emit *em,
    const char *want)
{
	struct emit named = *em;
	char *got = render(line, adv, w, em, 0);

	ck_assert_msg(strcmp(got, want) == 0, "\n got: %s\nwant: %s", got,
	    want);
	free(got);
	output_names(&named, record_out_names);
	got = render(line, adv, w, &named, 0);
	ck_assert_msg(strcmp(got, want) == 0, "names quoted:\n got: %s\n"
	    "want: %s", got, want);
	free(got);
	output_names_free(&named);
}

START_TEST(record_append_compact)
{
	/* Every input byte kept (the inner "[1, 2]" keeps its blank), the
	 * four fields appended with "," and ":" as the input writes them. */
	render_is("{\"prompt_id\":\"a\",\"reward\":1,\"logprobs\":[-0.5,-0.25],"
	    "\"x\":{\"y\":[1, 2]},\"big\":123456789012345678901234567890}",
	    0.5, 0.25, &emit_tokens,
	    "{\"prompt_id\":\"a\",\"reward\":1,\"logprobs\":[-0.5,-0.25],"
	    "\"x\":{\"y\":[1, 2]},\"big\":123456789012345678901234567890,"
	    "\"advantage\":0.5,\"token_advantages\":[0.5,0.5],"
	    "\"loss_weight\":0.25,\"token_loss_weights\":[0.25,0.25]}\n");
}
END_TEST

/*
 * Numbers are formatted once and reused from a cache by a hash of their
 * bits: a record's weight whose place its advantage holds must not have
 * its string overwrite the advantage's (it takes the one more place),
 * whichever of them was there before.  Through a memory output, whose
 * bytes are then read back.
 */
START_TEST(record_numbers_reused)
{
	static const double av[][2] = { { 1, 2 }, { 3, 4 }, { 1, 5 },
	    { 5, 1 }, { 2, 2 }, { 0.5, 3 }, { 4, 0.5 }, { 1, 2 } };
	const char *line = "{\"prompt_id\":\"a\",\"reward\":1,"
	    "\"logprobs\":[-1]}";
	struct fields f;
	struct record r;
	struct buf keys = { 0 }, runs = { 0 }, want = { 0 };
	struct diag d = { 0 };
	struct output *o = output_mem();
	const char *got;
	char one[256];
	size_t i, len;
	double a, w;

	fields_default(&f);
	ck_assert_int_eq(record_parse(line, strlen(line), &f, &r, &keys,
	    &runs, "t", 1, &d), 0);
	/* The pairs above, then 3000 of 300 numbers (many share a place
	 * in the cache, a record's two among them). */
	for (i = 0; i < sizeof(av) / sizeof(av[0]) + 3000; i++) {
		if (i >= sizeof(av) / sizeof(av[0])) {
			a = (double)(i * 7919 % 300) / 8;
			w = (double)(i * 104729 % 300) / 8;
		} else {
			a = av[i][0];
			w = av[i][1];
		}
		ck_assert_int_eq(output_record(o, line, &r, NULL, a, w,
		    &emit_tokens, &d), 0);
		snprintf(one, sizeof(one), "{\"prompt_id\":\"a\",\"reward\":1,"
		    "\"logprobs\":[-1],\"advantage\":%g,\"token_advantages\":"
		    "[%g],\"loss_weight\":%g,\"token_loss_weights\":[%g]}\n",
		    a, a, w, w);
		buf_add(&want, one, strlen(one));
	}
	got = output_bytes(o, &len);
	ck_assert_uint_eq(len, want.len);
	ck_assert_msg(memcmp(got, want.p, len) == 0, "\n got: %.*s\nwant: %.*s",
	    (int)len, got, (int)want.len, want.p);
	output_clear(o);
	output_bytes(o, &len);
	ck_assert_uint_eq(len, 0);
	output_free(o);
	buf_free(&keys);
	buf_free(&runs);
	buf_free(&want);
}
END_TEST

START_TEST(record_append_spaced)
{
	render_is("{\"prompt_id\": \"a\", \"reward\": 1, \"logprobs\": [-0.5, -1]}",
	    -1.5, 0.125, &emit_tokens,
	    "{\"prompt_id\": \"a\", \"reward\": 1, \"logprobs\": [-0.5, -1], "
	    "\"advantage\": -1.5, \"token_advantages\": [-1.5, -1.5], "
	    "\"loss_weight\": 0.125, \"token_loss_weights\": [0.125, 0.125]}\n");
	/* ", " with ":" (Python's separators=(", ", ":")). */
	render_is("{\"reward\":1, \"logprobs\":[-1]}", 2, 1, &emit_tokens,
	    "{\"reward\":1, \"logprobs\":[-1], \"advantage\":2, "
	    "\"token_advantages\":[2], \"loss_weight\":1, "
	    "\"token_loss_weights\":[1]}\n");
	/* Names too long for a short record's heads: its general way. */
	{
		static const char *const names[OUT_NFIELDS] = {
			"a_name_longer_than_a_head_can_hold", "t", "w",
			"tw", "rladv" };
		struct emit em = emit_tokens;
		char *got;

		output_names(&em, names);
		ck_assert_int_eq(em.heads, 0);
		got = render("{\"reward\":1,\"logprobs\":[-1]}", 2, 1, &em,
		    0);
		ck_assert_str_eq(got, "{\"reward\":1,\"logprobs\":[-1],"
		    "\"a_name_longer_than_a_head_can_hold\":2,\"t\":[2],"
		    "\"w\":1,\"tw\":[1]}\n");
		free(got);
		output_names_free(&em);
	}
	/* "," with ": ", the fourth way. */
	render_is("{\"reward\": 1,\"logprobs\": [-1]}", 2, 1, &emit_tokens,
	    "{\"reward\": 1,\"logprobs\": [-1],\"advantage\": 2,"
	    "\"token_advantages\": [2],\"loss_weight\": 1,"
	    "\"token_loss_weights\": [1]}\n");
}
END_TEST

START_TEST(record_passthrough_bytes)
{
	/* Escapes, unicode, odd numbers and nesting are copied, never
	 * re-printed. */
	render_is("{\"s\":\"\\u00e9\\n\xc3\xa9\",\"n\":1.0E+2,\"z\":-0,"
	    "\"reward\":0.10,\"logprobs\":[-1.000],\"o\":{\"a\":[[],{}]}}",
	    0, 0, &emit_notokens,
	    "{\"s\":\"\\u00e9\\n\xc3\xa9\",\"n\":1.0E+2,\"z\":-0,"
	    "\"reward\":0.10,\"logprobs\":[-1.000],\"o\":{\"a\":[[],{}]},"
	    "\"advantage\":0,\"loss_weight\":0}\n");
	/* Blanks before the first member are kept; leading blanks before
	 * the '{' are not part of the object. */
	render_is("  { \"reward\":1,\"logprobs\":[]}", 1, 1, &emit_notokens,
	    "{ \"reward\":1,\"logprobs\":[],\"advantage\":1,"
	    "\"loss_weight\":1}\n");
}
END_TEST

START_TEST(record_replace_in_place)
{
	/* "advantage" and "token_loss_weights" exist: replaced where they
	 * stand (the old array's blanks go with it); the other two are
	 * appended in their order. */
	render_is("{\"advantage\":9,\"prompt_id\":\"a\",\"reward\":1,"
	    "\"logprobs\":[-1,-1],\"token_loss_weights\":[7, 7],\"z\":1}",
	    -1, 0.5, &emit_tokens,
	    "{\"advantage\":-1,\"prompt_id\":\"a\",\"reward\":1,"
	    "\"logprobs\":[-1,-1],\"token_loss_weights\":[0.5,0.5],\"z\":1,"
	    "\"token_advantages\":[-1,-1],\"loss_weight\":0.5}\n");
}
END_TEST

START_TEST(record_second_run)
{
	/* rladv over its own output: all four replaced in place, nothing
	 * appended, the line otherwise identical. */
	char *first = render("{\"prompt_id\":\"a\",\"reward\":1,"
	    "\"logprobs\":[-0.5,-0.25]}", 0.5, 0.25, &emit_tokens, 0);
	size_t n = strlen(first);

	ck_assert(n > 0 && first[n - 1] == '\n');
	first[n - 1] = '\0';
	render_is(first, 2, 1, &emit_tokens,
	    "{\"prompt_id\":\"a\",\"reward\":1,\"logprobs\":[-0.5,-0.25],"
	    "\"advantage\":2,\"token_advantages\":[2,2],\"loss_weight\":1,"
	    "\"token_loss_weights\":[1,1]}\n");
	free(first);
}
END_TEST

START_TEST(record_notokens_drop_middle)
{
	render_is("{\"prompt_id\":\"a\",\"token_advantages\":[1,1],\"reward\":1,"
	    "\"logprobs\":[-1,-1]}", 0.5, 1, &emit_notokens,
	    "{\"prompt_id\":\"a\",\"reward\":1,\"logprobs\":[-1,-1],"
	    "\"advantage\":0.5,\"loss_weight\":1}\n");
	/* Two stale arrays side by side in the middle. */
	render_is("{\"reward\":1,\"token_advantages\":[1],"
	    "\"token_loss_weights\":[2],\"logprobs\":[-1]}", 0.5, 1,
	    &emit_notokens,
	    "{\"reward\":1,\"logprobs\":[-1],\"advantage\":0.5,"
	    "\"loss_weight\":1}\n");
}
END_TEST

START_TEST(record_notokens_drop_first_and_last)
{
	/* The first member: it goes with the comma and blank after it. */
	render_is("{\"token_advantages\": [1], \"prompt_id\": \"a\", "
	    "\"reward\": 1, \"logprobs\": [-1]}", 0.5, 1, &emit_notokens,
	    "{\"prompt_id\": \"a\", \"reward\": 1, \"logprobs\": [-1], "
	    "\"advantage\": 0.5, \"loss_weight\": 1}\n");
	/* The last member: it goes with the comma before it. */
	render_is("{\"reward\":1,\"logprobs\":[-1],\"token_loss_weights\":[3]}",
	    0.5, 1, &emit_notokens,
	    "{\"reward\":1,\"logprobs\":[-1],\"advantage\":0.5,"
	    "\"loss_weight\":1}\n");
	/* A stale annotation goes when --annotate is off. */
	render_is("{\"reward\":1,\"logprobs\":[],\"rladv\":{\"old\":1}}",
	    0.5, 1, &emit_notokens,
	    "{\"reward\":1,\"logprobs\":[],\"advantage\":0.5,"
	    "\"loss_weight\":1}\n");
}
END_TEST

/*
 * BUG (src/output.c, output_record): with --no-tokens, when the first two
 * members of the object are both stale fields (e.g. "token_advantages"
 * then "token_loss_weights"), dropping the first moves pos past the
 * second's key, and dropping the second then writes s->prev - pos bytes
 * with s->prev < pos: a size_t underflow, so output_write() is asked for
 * ~2^64 bytes (a read far past the line; EFAULT / ASan report, garbage in
 * the output).  Expected the two members simply gone.
 */
START_TEST(record_notokens_drop_first_two)
{
	render_is("{\"token_advantages\":[1],\"token_loss_weights\":[2],"
	    "\"reward\":1,\"logprobs\":[-1]}", 0.5, 1, &emit_notokens,
	    "{\"reward\":1,\"logprobs\":[-1],\"advantage\":0.5,"
	    "\"loss_weight\":1}\n");
}
END_TEST

START_TEST(record_notokens_keeps_scalars)
{
	/* --no-tokens replaces "advantage" in place and drops the array. */
	render_is("{\"advantage\":3,\"token_advantages\":[3],\"reward\":1,"
	    "\"logprobs\":[-1]}", -0.25, 1, &emit_notokens,
	    "{\"advantage\":-0.25,\"reward\":1,\"logprobs\":[-1],"
	    "\"loss_weight\":1}\n");
}
END_TEST

START_TEST(record_masked_arrays)
{
	/* mask 0,1,1,0,1: A_i m_t and c_i m_t. */
	render_is("{\"reward\":1,\"logprobs\":[-1,-1,-1,-1,-1],"
	    "\"mask\":[0,1,1,0,1]}", 0.5, 0.25, &emit_tokens,
	    "{\"reward\":1,\"logprobs\":[-1,-1,-1,-1,-1],\"mask\":[0,1,1,0,1],"
	    "\"advantage\":0.5,\"token_advantages\":[0,0.5,0.5,0,0.5],"
	    "\"loss_weight\":0.25,\"token_loss_weights\":[0,0.25,0.25,0,0.25]}"
	    "\n");
	/* A mask that starts with 1 and ends with zeros, spaced style. */
	render_is("{\"reward\": 1, \"logprobs\": [-1, -1, -1], "
	    "\"mask\": [true, false, false]}", -2, 0.5, &emit_tokens,
	    "{\"reward\": 1, \"logprobs\": [-1, -1, -1], "
	    "\"mask\": [true, false, false], \"advantage\": -2, "
	    "\"token_advantages\": [-2, 0, 0], \"loss_weight\": 0.5, "
	    "\"token_loss_weights\": [0.5, 0, 0]}\n");
	/* All masked. */
	render_is("{\"reward\":1,\"logprobs\":[-1,-1],\"mask\":[0,0]}", 1, 0,
	    &emit_tokens,
	    "{\"reward\":1,\"logprobs\":[-1,-1],\"mask\":[0,0],\"advantage\":1,"
	    "\"token_advantages\":[0,0],\"loss_weight\":0,"
	    "\"token_loss_weights\":[0,0]}\n");
}
END_TEST

START_TEST(record_empty_response)
{
	render_is("{\"reward\":1,\"logprobs\":[]}", 0.75, 0, &emit_tokens,
	    "{\"reward\":1,\"logprobs\":[],\"advantage\":0.75,"
	    "\"token_advantages\":[],\"loss_weight\":0,"
	    "\"token_loss_weights\":[]}\n");
}
END_TEST

START_TEST(record_digits_and_zero)
{
	struct emit em = { .digits = 3 };

	/* 1/3 and 2/3 at 3 digits; -0 as "0". */
	render_is("{\"reward\":1,\"logprobs\":[]}", 1.0 / 3, 2.0 / 3, &em,
	    "{\"reward\":1,\"logprobs\":[],\"advantage\":0.333,"
	    "\"loss_weight\":0.667}\n");
	render_is("{\"reward\":1,\"logprobs\":[-1]}", -0.0, -0.0,
	    &emit_tokens,
	    "{\"reward\":1,\"logprobs\":[-1],\"advantage\":0,"
	    "\"token_advantages\":[0],\"loss_weight\":0,"
	    "\"token_loss_weights\":[0]}\n");
}
END_TEST

START_TEST(record_annotation)
{
	struct emit em = { .digits = 9, .annot = "{\"g\":2}", .annot_len = 7 };

	render_is("{\"reward\":1,\"logprobs\":[]}", 1, 1, &em,
	    "{\"reward\":1,\"logprobs\":[],\"advantage\":1,\"loss_weight\":1,"
	    "\"rladv\":{\"g\":2}}\n");
	/* An old annotation is replaced in place. */
	render_is("{\"rladv\":{\"old\":[1]},\"reward\":1,\"logprobs\":[]}", 1,
	    1, &em,
	    "{\"rladv\":{\"g\":2},\"reward\":1,\"logprobs\":[],\"advantage\":1,"
	    "\"loss_weight\":1}\n");
}
END_TEST

START_TEST(record_long_arrays)
{
	/* 300000 tokens, mask: 100000 ones, 100000 zeros, 100000 ones.
	 * The token arrays are about 3.6 MB each, several output buffers. */
	size_t L = 300000, i, o = 0, k;
	char *line = malloc(L * 6 + 200), *want = malloc(L * 30 + 300);
	char *got;
	const char *x = "0.123456789", *y = "1e-06";

	ck_assert(line && want);
	o += sprintf(line, "{\"reward\":1,\"logprobs\":[");
	for (i = 0; i < L; i++)
		o += sprintf(line + o, i ? ",-1" : "-1");
	o += sprintf(line + o, "],\"mask\":[");
	for (i = 0; i < L; i++)
		o += sprintf(line + o, "%s%d", i ? "," : "",
		    i < 100000 || i >= 200000);
	sprintf(line + o, "]}");
	o = (size_t)sprintf(want, "%.*s,\"advantage\":%s,"
	    "\"token_advantages\":[", (int)strlen(line) - 1, line, x);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < L; i++)
			o += sprintf(want + o, "%s%s", i ? "," : "",
			    i < 100000 || i >= 200000 ? (k ? y : x) : "0");
		if (k == 0)
			o += sprintf(want + o, "],\"loss_weight\":%s,"
			    "\"token_loss_weights\":[", y);
	}
	sprintf(want + o, "]}\n");
	/* 0.123456789 and 1e-6 print as "0.123456789" and "1e-06". */
	got = render(line, 0.123456789, 1e-6, &emit_tokens, 0);
	ck_assert_uint_eq(strlen(got), strlen(want));
	ck_assert(strcmp(got, want) == 0);
	free(got);
	/* The same through gzip. */
	got = render(line, 0.123456789, 1e-6, &emit_tokens, 1);
	ck_assert_uint_eq(strlen(got), strlen(want));
	ck_assert(strcmp(got, want) == 0);
	free(got);
	free(line);
	free(want);
}
END_TEST

START_TEST(record_gzip)
{
	char *got = render("{\"reward\":1,\"logprobs\":[-1,-2]}", 0.5, 0.25,
	    &emit_tokens, 1);

	ck_assert_str_eq(got, "{\"reward\":1,\"logprobs\":[-1,-2],"
	    "\"advantage\":0.5,\"token_advantages\":[0.5,0.5],"
	    "\"loss_weight\":0.25,\"token_loss_weights\":[0.25,0.25]}\n");
	free(got);
}
END_TEST

START_TEST(writer_plain_and_gzip)
{
	/* 3 MB through output_write in odd pieces, plain and gzip: the file
	 * (or its gunzipped content) holds exactly those bytes. */
	size_t n = 3u << 20, i, off, step;
	char *data = malloc(n), *got;
	size_t glen;
	int gz;

	ck_assert(data != NULL);
	for (i = 0; i < n; i++)
		data[i] = (char)('a' + (i * 7 + i / 1000) % 26);
	for (gz = 0; gz <= 1; gz++) {
		const char *p = tu_path(gz ? "w.gz" : "w.txt");
		struct diag d = { 0 };
		struct output *o = output_open(p, gz, 1, &d);

		ck_assert(o != NULL);
		for (off = 0, step = 1; off < n; off += step, step = step * 3 +
		    1) {
			if (step > n - off)
				step = n - off;
			ck_assert_int_eq(output_write(o, data + off, step, &d),
			    0);
		}
		ck_assert_int_eq(output_close(o, &d), 0);
		got = gz ? tu_gzread(p, &glen) : tu_read(p, &glen);
		ck_assert_uint_eq(glen, n);
		ck_assert(memcmp(got, data, n) == 0);
		free(got);
	}
	free(data);
}
END_TEST

START_TEST(writer_errors)
{
	struct diag d = { 0 };
	struct output *o;
	char block[4096];

	/* A file in a directory that does not exist: status 3, named. */
	o = output_open(tu_path("no/such/dir/out.jsonl"), 0, 0, &d);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(d.status, 3);
	ck_assert_has(d.msg, "no/such/dir/out.jsonl");
	/* A full disk: the write fails at the latest when closing. */
	memset(&d, 0, sizeof(d));
	o = output_open("/dev/full", 0, 0, &d);
	ck_assert_ptr_nonnull(o);
	memset(block, 'x', sizeof(block));
	output_write(o, block, sizeof(block), &d);
	ck_assert_int_eq(output_close(o, &d), 3);
	ck_assert_int_eq(d.status, 3);
	ck_assert_has(d.msg, "/dev/full");
	/* The same through gzip. */
	memset(&d, 0, sizeof(d));
	o = output_open("/dev/full", 1, 1, &d);
	ck_assert_ptr_nonnull(o);
	output_write(o, block, sizeof(block), &d);
	ck_assert_int_eq(output_close(o, &d), 3);
}
END_TEST

START_TEST(writer_stop)
{
	/* Bad data stopped the run: on standard output what the buffer
	 * holds is written (and a gzip stream ended), where output_abandon()
	 * drops it; a file is not made either way. */
	const char *p = tu_path("stdout.txt"), *f = tu_path("stopped.jsonl");
	struct diag d = { 0 };
	struct output *o;
	char *got;
	size_t n;
	int saved, fd, gz;

	for (gz = 0; gz <= 1; gz++) {
		saved = dup(STDOUT_FILENO);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ck_assert(saved >= 0 && fd >= 0);
		dup2(fd, STDOUT_FILENO);
		close(fd);
		o = output_open(NULL, gz, 1, &d);
		ck_assert_ptr_nonnull(o);
		ck_assert_int_eq(output_write(o, "{\"a\":1}\n", 8, &d), 0);
		output_stop(o);
		o = output_open("-", gz, 1, &d);
		ck_assert_ptr_nonnull(o);
		ck_assert_int_eq(output_write(o, "{\"b\":2}\n", 8, &d), 0);
		output_abandon(o);
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		close(saved);
		got = gz ? tu_gzread(p, &n) : tu_read(p, &n);
		ck_assert_uint_eq(n, 8);
		ck_assert(memcmp(got, "{\"a\":1}\n", 8) == 0);
		free(got);
	}
	o = output_open(f, 0, 0, &d);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(output_write(o, "{\"a\":1}\n", 8, &d), 0);
	output_stop(o);
	ck_assert_int_ne(access(f, F_OK), 0);
}
END_TEST

static Suite *
output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc;

	tc = tcase_create("number");
	tcase_add_test(tc, number_format);
	tcase_add_test(tc, number_never_minus_zero);
	tcase_add_test(tc, number_is_json);
	tcase_add_test(tc, number_non_finite_guard);
	tcase_add_test(tc, json_string_escaping);
	suite_add_tcase(s, tc);

	tc = tcase_create("record");
	tcase_add_unchecked_fixture(tc, tu_mkdir, tu_rmdir);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, record_append_compact);
	tcase_add_test(tc, record_numbers_reused);
	tcase_add_test(tc, record_append_spaced);
	tcase_add_test(tc, record_passthrough_bytes);
	tcase_add_test(tc, record_replace_in_place);
	tcase_add_test(tc, record_second_run);
	tcase_add_test(tc, record_notokens_drop_middle);
	tcase_add_test(tc, record_notokens_drop_first_and_last);
	tcase_add_test(tc, record_notokens_drop_first_two);
	tcase_add_test(tc, record_notokens_keeps_scalars);
	tcase_add_test(tc, record_masked_arrays);
	tcase_add_test(tc, record_empty_response);
	tcase_add_test(tc, record_digits_and_zero);
	tcase_add_test(tc, record_annotation);
	tcase_add_test(tc, record_long_arrays);
	tcase_add_test(tc, record_gzip);
	suite_add_tcase(s, tc);

	tc = tcase_create("writer");
	tcase_add_unchecked_fixture(tc, tu_mkdir, tu_rmdir);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, writer_plain_and_gzip);
	tcase_add_test(tc, writer_errors);
	tcase_add_test(tc, writer_stop);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(output_suite());
}
