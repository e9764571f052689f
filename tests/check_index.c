/*
 * check_index.c - tests of the index's text (src/index.c): a record's
 * line written by hand-checked columns (keys escaped, the reward in the
 * fewest digits that read back, the identity MS-GRPO needs), read back
 * to the same projection, and every way an index is refused: a section
 * cut short, another option (status 2, named), a shard twice, line
 * numbers that do not grow, a bad escape, hex in upper case.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "index.h"
#include "options.h"
#include "testutil.h"

/* The default options of rladv index, then the estimator est. */
static void
prefs_for(struct prefs *p, const char *est)
{
	options_defaults(p);
	p->mode = OPT_INDEX;
	p->est = advantage_find(est);
	ck_assert_ptr_nonnull(p->est);
}

/* One line parsed and written as an index record line. */
static const char *
record_text(const struct prefs *p, const char *line, unsigned long long n)
{
	static struct buf out;
	struct buf keys = { 0 }, runs = { 0 };
	struct record r;
	struct diag d = { 0 };

	buf_reserve(&keys, 64);
	ck_assert_int_eq(record_parse(line, strlen(line), &p->fields, &r,
	    &keys, &runs, "f", n, &d), 0);
	out.len = 0;
	index_put_record(&out, p, &r, keys.p, line, strlen(line), n);
	buf_add(&out, "", 1);
	buf_free(&keys);
	buf_free(&runs);
	return out.p;
}

START_TEST(record_columns)
{
	struct prefs p;
	char want[128];
	const char *l;

	prefs_for(&p, "grpo");
	/* line, reward, T (mask 1,0,1: 2), group (tag s), stratum (tag n),
	 * no batch key */
	ck_assert_str_eq(record_text(&p, "{\"prompt_id\": \"q7\", \"reward\": "
	    "1.0, \"logprobs\": [-1, -2, -3], \"mask\": [1, 0, 1], "
	    "\"tool_calls\": 2}", 7), "7\t1\t2\tsq7\tn2\t\n");
	/* 0.1 + 0.2 needs 17 digits, 0.1 one; a tab, a newline, a
	 * backslash and a control byte in a key are escaped */
	ck_assert_str_eq(record_text(&p, "{\"uid\": \"a\\tb\\nc\\\\d\\u0001\", "
	    "\"reward\": 0.30000000000000004, \"logprobs\": []}", 12),
	    "12\t0.30000000000000004\t0\tsa\\tb\\nc\\\\d\\x01\t\t\n");
	ck_assert_str_eq(record_text(&p, "{\"group_index\": 3, \"score\": "
	    "-1e300, \"logprobs\": [0]}", 1), "1\t-1e+300\t1\tn3\t\t\n");
	/* a composite stratum (parts joined by 0x1f) and a batch key */
	p.fields.list[FR_STRATUM].name[0] = "tool_calls";
	p.fields.list[FR_STRATUM].name[1] = "turns";
	p.fields.list[FR_STRATUM].n = 2;
	p.fields.named |= FN(FR_STRATUM);	/* parts, not aliases */
	p.fields.batch = "step";
	ck_assert_str_eq(record_text(&p, "{\"prompt_id\": \"q\", \"reward\": "
	    "0.1, \"logprobs\": [0], \"tool_calls\": 1, \"turns\": true, "
	    "\"step\": 4}", 2), "2\t0.1\t1\tsq\tn1\\x1fbtrue\tn4\n");
	/* MS-GRPO: the line's identity as 16 hex digits */
	prefs_for(&p, "msgrpo");
	l = "{\"prompt_id\": \"q\", \"reward\": 0, \"logprobs\": [0]}";
	snprintf(want, sizeof(want), "5\t0\t1\tsq\t\t\t%016llx\n",
	    (unsigned long long)batch_tie(l, strlen(l)));
	ck_assert_str_eq(record_text(&p, l, 5), want);
}
END_TEST

/* An index file of the given text; an open reader on it. */
static struct index_reader *
reader(const struct prefs *p, const char *text)
{
	static char *names[1];

	tu_write_str(tu_path("x.idx"), text);
	names[0] = (char *)tu_path("x.idx");
	return index_open(p, names, 1);
}

/* The header of p, then text. */
static const char *
with_header(const struct prefs *p, const char *text)
{
	static struct buf b;

	b.len = 0;
	index_put_header(&b, p);
	buf_add(&b, text, strlen(text) + 1);
	return b.p;
}

START_TEST(read_back)
{
	struct prefs p;
	struct index_reader *x;
	struct index_entry e;
	struct record r;
	struct buf keys = { 0 };
	struct diag d = { 0 };

	prefs_for(&p, "msgrpo");
	x = reader(&p, with_header(&p, "shard a\\tb.jsonl\n"
	    "3\t0.30000000000000004\t7\tsq\\x01\tn2\t\t00000000000000ff\n"
	    "5\tnull\t~1\t\t\tn4\t0000000000000001\n"
	    "9\t!\n"
	    "end 3\n"
	    "shard two\n"
	    "end 0\n"));
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_SHARD);
	ck_assert_str_eq(e.shard, "a\tb.jsonl");
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_RECORD);
	ck_assert_int_eq(e.lineno, 3);
	ck_assert(r.reward == 0.1 + 0.2);
	ck_assert_int_eq(r.T, 7);
	ck_assert(r.has_group && r.has_stratum && !r.has_batch);
	ck_assert_int_eq(r.gkeylen, 3);
	ck_assert_int_eq(memcmp(keys.p + r.gkey, "sq\001", 3), 0);
	ck_assert_int_eq(memcmp(keys.p + r.skey, "n2", 2), 0);
	ck_assert(r.has_tie && r.tie == 255);
	/* Unscored, no length, the batch key alone. */
	keys.len = 0;
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_RECORD);
	ck_assert_int_eq(e.lineno, 5);
	ck_assert(r.unscored && r.reward == 0 && !r.has_len && r.T == 1);
	ck_assert(!r.has_group && !r.has_stratum && r.has_batch);
	ck_assert_int_eq(r.bkeylen, 2);
	ck_assert_int_eq(memcmp(keys.p + r.bkey, "n4", 2), 0);
	ck_assert(r.has_tie && r.tie == 1);
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_REJECTED);
	ck_assert_int_eq(e.lineno, 9);
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_END);
	ck_assert_int_eq(e.count, 3);
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_SHARD);
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_END);
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_EOF);
	ck_assert_str_eq(index_differs(x, "1\t2\tsq\tn1\t\t0", 13,
	    "1\t2\tsq\tn2\t\t0", 13), "stratum");
	ck_assert_ptr_null(index_differs(x, "1\t2", 3, "1\t2", 3));
	index_close(x);
	buf_free(&keys);
}
END_TEST

/* The index's text is refused with status and a message holding frag. */
static void
refused(const struct prefs *p, const char *text, int status,
    const char *frag)
{
	struct index_reader *x = reader(p, text);
	struct index_entry e;
	struct record r;
	struct buf keys = { 0 };
	struct diag d = { 0 };
	int k;

	while ((k = index_next(x, &e, &r, &keys, &d)) > IX_EOF)
		;
	ck_assert_msg(k == -1, "accepted: %s", text);
	ck_assert_int_eq(d.status, status);
	ck_assert_has(d.msg, frag);
	index_close(x);
	buf_free(&keys);
}

START_TEST(sample_mask)
{
	/*
	 * A record whose sample mask is 0 (no sample of the loss, which
	 * format 1 could not say): its tokens column is "masked", "~masked"
	 * without a length, and reads back so; the header says format 2,
	 * where an index without a sample mask stays format 1.
	 */
	struct prefs p;
	struct index_reader *x;
	struct index_entry e;
	struct record r;
	struct buf keys = { 0 }, h = { 0 };
	struct diag d = { 0 };

	prefs_for(&p, "grpo");
	index_put_header(&h, &p);
	ck_assert_int_eq(strncmp(h.p, "rladv-index 1 ", 14), 0);
	p.fields.sample_mask = "sm";
	h.len = 0;
	index_put_header(&h, &p);
	ck_assert_int_eq(strncmp(h.p, "rladv-index 2 ", 14), 0);
	ck_assert_str_eq(record_text(&p, "{\"uid\": \"q\", \"reward\": 1, "
	    "\"logprobs\": [-1, -1], \"sm\": 0}", 4), "4\t1\tmasked\tsq\t\t\n");
	ck_assert_str_eq(record_text(&p, "{\"uid\": \"q\", \"reward\": 1, "
	    "\"sm\": false}", 5), "5\t1\t~masked\tsq\t\t\n");
	/* sample mask 1, no trained token: a sample, T 0 */
	ck_assert_str_eq(record_text(&p, "{\"uid\": \"q\", \"reward\": 1, "
	    "\"logprobs\": [-1], \"mask\": [0], \"sm\": 1}", 6),
	    "6\t1\t0\tsq\t\t\n");
	x = reader(&p, with_header(&p, "shard s\n"
	    "4\t1\tmasked\tsq\t\t\n"
	    "5\t1\t~masked\tsq\t\t\n"
	    "6\t1\t0\tsq\t\t\n"
	    "end 3\n"));
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_SHARD);
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_RECORD);
	ck_assert(r.sample_off && r.has_len && r.T == 0);
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_RECORD);
	ck_assert(r.sample_off && !r.has_len && r.T == 0);
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_RECORD);
	ck_assert(!r.sample_off && r.has_len && r.T == 0);
	ck_assert_int_eq(index_next(x, &e, &r, &keys, &d), IX_END);
	index_close(x);
	/* format 1 under a sample mask: refused, the format named */
	refused(&p, "rladv-index 1 " RLADV_VERSION "\n", 1, "the index is "
	    "of format 1, this rladv reads format 2;");
	refused(&p, with_header(&p, "shard s\n1\t1\tmask\tsq\t\t\nend 1\n"),
	    1, "column \"tokens\"");
	/* --null-reward unscored: format 3 (an unscored record keeps its
	 * token count, which formats 1 and 2 wrote as 0), with or without
	 * a sample mask; the older formats refused */
	p.fields.null_reward = NULL_UNSCORED;
	h.len = 0;
	index_put_header(&h, &p);
	ck_assert_int_eq(strncmp(h.p, "rladv-index 3 ", 14), 0);
	ck_assert_str_eq(record_text(&p, "{\"uid\": \"q\", \"reward\": null, "
	    "\"logprobs\": [-1, -1], \"sm\": 1}", 7), "7\tnull\t2\tsq\t\t\n");
	refused(&p, "rladv-index 2 " RLADV_VERSION "\n", 1, "the index is "
	    "of format 2, this rladv reads format 3;");
	p.fields.sample_mask = NULL;
	h.len = 0;
	index_put_header(&h, &p);
	ck_assert_int_eq(strncmp(h.p, "rladv-index 3 ", 14), 0);
	refused(&p, "rladv-index 1 " RLADV_VERSION "\n", 1, "the index is "
	    "of format 1, this rladv reads format 3;");
	buf_free(&keys);
	buf_free(&h);
}
END_TEST

START_TEST(refusals)
{
	struct prefs p, q;

	prefs_for(&p, "grpo");
	refused(&p, with_header(&p, "shard s\n1\t1\t1\tsq\t\t\n"), 1,
	    "the section of shard \"s\" is cut short");
	refused(&p, with_header(&p, "shard s\n1\t1\t1\tsq\t\t\nrladv-index"),
	    1, "cut short");
	/* Cut inside a record line, its last: cut short too, not a bad
	 * column; the same line with a line after it is a bad column. */
	refused(&p, with_header(&p, "shard s\n1\t1\t1\tsq\t\t\n2\t1\t1"), 1,
	    "the section of shard \"s\" is cut short");
	refused(&p, with_header(&p, "shard s\n1\t1\t1\tsq\t\t\n2\t1\t1\n"
	    "end 2\n"), 1, "not valid");
	refused(&p, with_header(&p, "shard s\nend 0\nshard s\nend 0\n"), 1,
	    "shard \"s\" is indexed twice");
	refused(&p, with_header(&p, "shard s\n2\t1\t1\tsq\t\t\n2\t1\t1\tsq\t\t"
	    "\nend 2\n"), 1, "x.idx:");
	refused(&p, with_header(&p, "shard s\n1\t1\t1\tsq\\q\t\t\nend 1\n"), 1,
	    "column \"group\"");
	refused(&p, with_header(&p, "shard s\n1\t1\t1\tsq\t\nend 1\n"), 1,
	    "not valid");
	/* Hex in lower case only, as written: a record has one text. */
	refused(&p, with_header(&p, "shard s\n1\t1\t1\tsq\\x1F\t\t\nend 1\n"),
	    1, "column \"group\"");
	refused(&p, with_header(&p, "shard s\n1\tx\t1\tsq\t\t\nend 1\n"), 1,
	    "column \"reward\"");
	refused(&p, with_header(&p, "shard s\n1\t1\t1\tsq\t\t\nend 3\n"), 1,
	    "has 1 record,");
	refused(&p, "{\"prompt_id\": 1}\n", 1, "not an index");
	refused(&p, "", 1, "not an index");
	/* Another option: status 2, named, with both values. */
	prefs_for(&q, "grpo");
	q.ap.eps = 1e-4;
	refused(&p, with_header(&q, ""), 2, "--eps differs: the index was "
	    "made with \"0.0001\", rladv index has \"1e-06\"");
	prefs_for(&q, "san");
	refused(&p, with_header(&q, ""), 2, "--advantage differs");
	/* Another rladv's index: bad data (status 1), its version named
	 * alone; another format of this version, the format. */
	refused(&p, "rladv-index 1 0.0.1\n", 1, "the index was written by "
	    "rladv 0.0.1, this is rladv " RLADV_VERSION ";");
	refused(&p, "rladv-index 9 " RLADV_VERSION "\n", 1, "the index is of "
	    "format 9, this rladv reads format 1;");
	prefs_for(&p, "msgrpo");
	refused(&p, with_header(&p, "shard s\n1\t1\t1\tsq\t\t\t"
	    "00000000000000FF\nend 1\n"), 1, "column \"tie\"");
}
END_TEST

static Suite *
index_suite(void)
{
	Suite *s = suite_create("index");
	TCase *tc;

	tc = tcase_create("index");
	tcase_add_unchecked_fixture(tc, tu_mkdir, tu_rmdir);
	tcase_add_test(tc, record_columns);
	tcase_add_test(tc, read_back);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, sample_mask);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(index_suite());
}
