/*
 * check_batch.c - tests of the batch (src/batch.c): records held in input
 * order with the groups the caller gives them, the view in group order
 * (offsets, rewards, token counts, local stratum indexes in order of
 * first appearance, past the 64 compared one by one too), the order to
 * write records back in, labels and hashes of groups, groups left out
 * and the order their records are rejected in, lines kept or copied,
 * what a reset keeps, views of batches of other layouts one after
 * another, each role's name index held as it was, the rows' bytes, and
 * the rows' records unpacked again into one record as into a cleared
 * one.
 */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "keymap.h"
#include "record.h"
#include "testutil.h"

#define FNAME	"b.jsonl"

struct bt {
	struct gbatch		*b;
	struct fields		 f;
	struct buf		 keys, runs;
	unsigned long long	 lineno;
	char			 line[512];
};

static void
bt_init(struct bt *t)
{
	memset(t, 0, sizeof(*t));
	fields_default(&t->f);
	t->f.batch = "step";
	t->b = batch_new();
}

static void
bt_free(struct bt *t)
{
	batch_free(t->b);
	buf_free(&t->keys);
	buf_free(&t->runs);
}

/*
 * Parses the next line (numbered from 1) and holds it in group g; the
 * line is copied (not stable), and the scratch buffers are then reused.
 */
static void
bt_add(struct bt *t, size_t g, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
bt_add(struct bt *t, size_t g, const char *fmt, ...)
{
	struct diag d = { 0 };
	struct record r;
	size_t held;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->line, sizeof(t->line), fmt, ap);
	va_end(ap);
	t->keys.len = t->runs.len = 0;
	t->lineno++;
	ck_assert_msg(record_parse(t->line, strlen(t->line), &t->f, &r,
	    &t->keys, &t->runs, FNAME, t->lineno, &d) == 0, "parse: %s",
	    d.msg);
	held = batch_held(t->b);
	ck_assert_uint_eq(batch_add(t->b, &r, &t->keys, &t->runs, t->line,
	    strlen(t->line), 0, FNAME, t->lineno, g), held);
	/* The batch keeps its own copies. */
	memset(t->line, 'x', sizeof(t->line) - 1);
	if (t->keys.len)
		memset(t->keys.p, 'x', t->keys.len);
}

/* A record of group key k (a JSON value), stratum tc, reward, at step 7. */
#define REC	"{\"step\":7,\"prompt_id\":%s,\"tool_calls\":%d," \
		"\"reward\":%g,\"logprobs\":[-1,-1,-1],\"mask\":[1,0,1]}"

static unsigned long long
view_line(const struct bt *t, size_t k)
{
	unsigned long long line;

	ck_assert_str_eq(batch_where(t->b, k, &line), FNAME);
	return line;
}

/* The view index whose numbers row j (input order) carries. */
static size_t
row_view(const struct gbatch *b, size_t j)
{
	size_t k;

	batch_row(b, j, &k);
	return k;
}

/* batch_bytes() is the rows' lines' lengths, summed, and batch_nown()
 * the rows not elsewhere. */
static void
check_bytes(const struct gbatch *b)
{
	size_t j, k, i, len, sum = 0, own = 0;

	for (j = 0; j < batch_nrows(b); j++) {
		i = batch_row(b, j, &k);
		batch_hline(b, i, &len);
		sum += len;
		own += !batch_helsewhere(b, i);
	}
	ck_assert_uint_eq(batch_bytes(b), sum);
	ck_assert_uint_eq(batch_nown(b), own);
}

START_TEST(interleaved_groups)
{
	struct bt t;
	struct batch v;
	struct buf lab = { 0 };
	unsigned long long first, last;
	struct record tmp;
	const char *p;
	char want[256];
	size_t len, k;

	bt_init(&t);
	/* Lines 1-5 in groups a b a c b (the caller's numbers 0 1 0 2 1),
	 * rewards 10 20 30 40 50. */
	bt_add(&t, 0, REC, "\"a\"", 0, 10.0);
	bt_add(&t, 1, REC, "\"b\"", 0, 20.0);
	bt_add(&t, 0, REC, "\"a\"", 0, 30.0);
	bt_add(&t, 2, REC, "17", 0, 40.0);
	bt_add(&t, 1, REC, "\"b\"", 0, 50.0);
	ck_assert_uint_eq(batch_held(t.b), 5);
	ck_assert_uint_eq(batch_ngroups(t.b), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 0), 2);
	ck_assert_uint_eq(batch_gsize(t.b, 1), 2);
	ck_assert_uint_eq(batch_gsize(t.b, 2), 1);
	ck_assert_uint_eq(batch_hgroup(t.b, 3), 2);
	/* Group b: lines 2 to 5, key "b" as a canonical string key. */
	ck_assert_str_eq(batch_gwhere(t.b, 1, &first, &last), FNAME);
	ck_assert_uint_eq(first, 2);
	ck_assert_uint_eq(last, 5);
	p = batch_gkey(t.b, 1, &len);
	ck_assert_uint_eq(len, 2);
	ck_assert(memcmp(p, "sb", 2) == 0);
	p = batch_gkey(t.b, 2, &len);
	ck_assert(len == 3 && memcmp(p, "n17", 3) == 0);
	batch_glabel(t.b, 2, &lab);
	ck_assert(lab.len == 13 && memcmp(lab.p, "\"17\" (line 4)", 13) == 0);
	buf_free(&lab);
	p = batch_key(t.b, &len);
	ck_assert(len == 2 && memcmp(p, "n7", 2) == 0);

	batch_view(t.b, &v, 0);
	check_bytes(t.b);
	/* Group order: a = lines 1, 3; b = 2, 5; 17 = 4. */
	ck_assert_uint_eq(v.n, 5);
	ck_assert_uint_eq(v.ngroups, 3);
	ck_assert(v.goff[0] == 0 && v.goff[1] == 2 && v.goff[2] == 4 &&
	    v.goff[3] == 5);
	ck_assert(v.r[0] == 10 && v.r[1] == 30 && v.r[2] == 20 &&
	    v.r[3] == 50 && v.r[4] == 40);
	/* mask 1,0,1: two trained tokens */
	for (k = 0; k < 5; k++)
		ck_assert(v.T[k] == 2);
	ck_assert_uint_eq(view_line(&t, 0), 1);
	ck_assert_uint_eq(view_line(&t, 1), 3);
	ck_assert_uint_eq(view_line(&t, 2), 2);
	ck_assert_uint_eq(view_line(&t, 3), 5);
	ck_assert_uint_eq(view_line(&t, 4), 4);
	ck_assert(batch_rec(t.b, 3, &tmp)->reward == 50);
	/* Written back in input order: view indexes 0 2 1 4 3. */
	ck_assert_uint_eq(batch_nrows(t.b), 5);
	ck_assert(row_view(t.b, 0) == 0 && row_view(t.b, 1) == 2 &&
	    row_view(t.b, 2) == 1 && row_view(t.b, 3) == 4 &&
	    row_view(t.b, 4) == 3);
	p = batch_line(t.b, 4, &len);
	snprintf(want, sizeof(want), REC, "17", 0, 40.0);
	ck_assert_uint_eq(len, strlen(want));
	ck_assert(memcmp(p, want, len) == 0);
	ck_assert_label(&v, 0, "\"a\" (line 1)");
	ck_assert_label(&v, 1, "\"b\" (line 2)");
	ck_assert_str_eq(v.gfile[2], FNAME);
	ck_assert_uint_eq(v.gline[1], 2);
	/* The group hash is of the canonical key, then of the batch key
	 * (7), so that sampled MS-GRPO draws afresh at every step. */
	ck_assert(v.ghash[0] == keymap_hash("n7", 2, keymap_hash("sa", 2,
	    0)));
	ck_assert(v.ghash[2] == keymap_hash("n7", 2, keymap_hash("n17", 3,
	    0)));
	bt_free(&t);
}
END_TEST

START_TEST(local_strata)
{
	struct bt t;
	struct batch v;
	struct record tmp;
	const char *p;
	size_t len;

	bt_init(&t);
	/* Group g: tool_calls 2, 0, 2, 1, 0 -> local strata 0, 1, 0, 2, 1
	 * (order of first appearance); group h: 5, 5 -> 0, 0. */
	bt_add(&t, 0, REC, "\"g\"", 2, 0.5);
	bt_add(&t, 0, REC, "\"g\"", 0, 1.0);
	bt_add(&t, 0, REC, "\"g\"", 2, 0.0);
	bt_add(&t, 0, REC, "\"g\"", 1, 1.0);
	bt_add(&t, 0, REC, "\"g\"", 0, 0.0);
	bt_add(&t, 1, REC, "\"h\"", 5, 1.0);
	bt_add(&t, 1, REC, "\"h\"", 5, 0.0);
	batch_view(t.b, &v, 1);
	ck_assert(v.strat[0] == 0 && v.strat[1] == 1 && v.strat[2] == 0 &&
	    v.strat[3] == 2 && v.strat[4] == 1 && v.strat[5] == 0 &&
	    v.strat[6] == 0);
	ck_assert_uint_eq(v.nstrat[0], 3);
	ck_assert_uint_eq(v.nstrat[1], 1);
	p = batch_skey(t.b, 3, &len);
	ck_assert(len == 2 && memcmp(p, "n1", 2) == 0);
	/* tie: the hash of the record's line, seed 1 */
	p = batch_line(t.b, 5, &len);
	ck_assert(v.tie[5] == keymap_hash(p, len, 1));
	ck_assert(v.tie[5] != v.tie[6]);
	bt_free(&t);

	/* Without the stratum field: one stratum, the empty key. */
	bt_init(&t);
	bt_add(&t, 0, "{\"prompt_id\":1,\"reward\":1,\"logprobs\":[],"
	    "\"step\":1}");
	bt_add(&t, 0, "{\"prompt_id\":1,\"reward\":0,\"logprobs\":[],"
	    "\"step\":1}");
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.nstrat[0], 1);
	ck_assert(v.strat[0] == 0 && v.strat[1] == 0);
	ck_assert(v.T[0] == 0);
	p = batch_skey(t.b, 1, &len);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(p, "");
	ck_assert_int_eq(batch_rec(t.b, 1, &tmp)->has_stratum, 0);
	bt_free(&t);
}
END_TEST

START_TEST(many_strata)
{
	/*
	 * Group 0: 140 records, tool_calls 69 - i % 70: 70 strata, past the
	 * 64 compared one by one, so the hash table takes over; local
	 * indexes follow first appearance: strat[i] = i % 70.  Group 1: 66
	 * records with 66 other strata, 100 + (i * 7) % 66, each new, then
	 * their first again: its own numbering from 0, nothing of group
	 * 0's table left.
	 */
	struct bt t;
	struct batch v;
	size_t i;

	bt_init(&t);
	for (i = 0; i < 140; i++)
		bt_add(&t, 0, REC, "\"g\"", 69 - (int)(i % 70), (double)i);
	for (i = 0; i < 66; i++)
		bt_add(&t, 1, REC, "\"h\"", 100 + (int)(i * 7 % 66), 0.0);
	bt_add(&t, 1, REC, "\"h\"", 100, 0.0);
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.nstrat[0], 70);
	for (i = 0; i < 140; i++)
		ck_assert_msg(v.strat[i] == i % 70, "strat[%zu] = %u", i,
		    v.strat[i]);
	ck_assert_uint_eq(v.nstrat[1], 66);
	for (i = 0; i < 66; i++)
		ck_assert_uint_eq(v.strat[140 + i], i);
	ck_assert_uint_eq(v.strat[206], 0);
	bt_free(&t);
}
END_TEST

START_TEST(dropped_groups)
{
	struct bt t;
	struct batch v;
	const size_t *ix;
	size_t n;

	bt_init(&t);
	/* Groups 0 1 0 2 1 2 1 (lines 1-7); 1 and 2 are left out. */
	bt_add(&t, 0, REC, "\"a\"", 0, 1.0);
	bt_add(&t, 1, REC, "\"b\"", 0, 2.0);
	bt_add(&t, 0, REC, "\"a\"", 0, 3.0);
	bt_add(&t, 2, REC, "\"c\"", 0, 4.0);
	bt_add(&t, 1, REC, "\"b\"", 0, 5.0);
	bt_add(&t, 2, REC, "\"c\"", 0, 6.0);
	bt_add(&t, 1, REC, "\"b\"", 0, 7.0);
	batch_drop(t.b, 2);
	batch_drop(t.b, 1);
	/* Rejected in group order, input order inside: lines 2 5 7, 4 6
	 * (indexes 1 4 6 3 5). */
	n = batch_rejects(t.b, &ix);
	ck_assert_uint_eq(n, 5);
	ck_assert(ix[0] == 1 && ix[1] == 4 && ix[2] == 6 && ix[3] == 3 &&
	    ix[4] == 5);
	ck_assert_uint_eq(batch_hgroup(t.b, ix[3]), 2);
	batch_view(t.b, &v, 0);
	check_bytes(t.b);
	ck_assert_uint_eq(v.n, 2);
	ck_assert_uint_eq(v.ngroups, 1);
	ck_assert(v.goff[0] == 0 && v.goff[1] == 2);
	ck_assert(v.r[0] == 1 && v.r[1] == 3);
	ck_assert_uint_eq(batch_nrows(t.b), 2);
	ck_assert(row_view(t.b, 0) == 0 && row_view(t.b, 1) == 1);
	bt_free(&t);

	/* Dropping the first group: the view starts at group 1, whose label
	 * keeps its number in the batch (block 2). */
	bt_init(&t);
	t.f.list[FR_GROUP].n = 0;
	bt_add(&t, 0, "{\"reward\":1,\"logprobs\":[-1],\"step\":1}");
	bt_add(&t, 1, "{\"reward\":2,\"logprobs\":[-1],\"step\":1}");
	bt_add(&t, 1, "{\"reward\":3,\"logprobs\":[-1],\"step\":1}");
	batch_drop(t.b, 0);
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.n, 2);
	ck_assert_label(&v, 0, "block 2 (line 2)");
	ck_assert(v.ghash[0] == keymap_hash("n1", 2, keymap_hash("", 0, 0)));
	ck_assert(v.r[0] == 2 && v.r[1] == 3);
	bt_free(&t);
}
END_TEST

START_TEST(lines_and_reset)
{
	/* A stable line (a mapped file) is kept by pointer, not copied; an
	 * unstable one is copied, so the caller may reuse its buffer. */
	struct bt t;
	struct batch v;
	struct record r;
	struct diag d = { 0 };
	char mine[256];
	const char *p;
	size_t len;

	bt_init(&t);
	ck_assert_int_eq(batch_starts(t.b), 1);
	snprintf(mine, sizeof(mine), REC, "\"a\"", 3, 1.0);
	ck_assert_int_eq(record_parse(mine, strlen(mine), &t.f, &r, &t.keys,
	    &t.runs, FNAME, 1, &d), 0);
	ck_assert_uint_eq(batch_add(t.b, &r, &t.keys, &t.runs, mine,
	    strlen(mine), 1, FNAME, 1, 0), 0);
	t.lineno = 1;
	bt_add(&t, 0, REC, "\"a\"", 4, 2.0);
	ck_assert_ptr_eq(batch_hline(t.b, 0, NULL), mine);
	p = batch_hline(t.b, 1, &len);
	ck_assert_ptr_ne(p, t.line);
	ck_assert(memcmp(p, "{\"step\":7,\"prompt_id\":\"a\",\"tool_calls\":4,",
	    41) == 0);
	ck_assert_uint_eq(p[len - 1], '}');
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.nstrat[0], 2);

	/* Reset: nothing held; the next batch numbers from 0 again. */
	batch_reset(t.b, 0);
	ck_assert_int_eq(batch_starts(t.b), 0);
	ck_assert_uint_eq(batch_held(t.b), 0);
	ck_assert_uint_eq(batch_ngroups(t.b), 0);
	bt_add(&t, 0, REC, "\"z\"", 1, 9.0);
	ck_assert_uint_eq(batch_held(t.b), 1);
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.n, 1);
	ck_assert(v.r[0] == 9);
	ck_assert_label(&v, 0, "\"z\" (line 3)");
	batch_reset(t.b, 1);
	ck_assert_int_eq(batch_starts(t.b), 1);
	bt_free(&t);
}
END_TEST

/*
 * One batch viewed after another of a different layout: the view's arrays
 * are made again with those the first lacked (the permutation, the
 * baselines, the ties, the unscored flags), and hold this batch's
 * numbers; a smaller batch in group order after it reads right too.
 */
START_TEST(views_of_other_layouts)
{
	struct bt t;
	struct batch v;
	const char *line;
	char want[64];
	size_t i, k, len;

	/* Lines 1-40 in group order, 20 groups of 2. */
	bt_init(&t);
	for (i = 0; i < 40; i++)
		bt_add(&t, i / 2, REC, i % 2 ? "1" : "2", 0, 1.0);
	batch_view(t.b, &v, 0);
	ck_assert(v.n == 40 && v.ngroups == 20 && v.base == NULL &&
	    v.tie == NULL && v.unscored == NULL);
	batch_reset(t.b, 0);
	t.f.need_baseline = 1;
	t.f.null_reward = NULL_UNSCORED;

	/* Lines 41-80: record i in group i % 20 ("k0" ...), reward i and
	 * baseline i / 2, but record 39's reward is null: group g is
	 * records g and g + 20, view records 2g and 2g + 1. */
	for (i = 0; i < 40; i++)
		if (i == 39)
			bt_add(&t, i % 20, "{\"step\":7,\"prompt_id\":\"k%zu\","
			    "\"reward\":null,\"reward_baselines\":%g,"
			    "\"logprobs\":[-1]}", i % 20, i / 2.0);
		else
			bt_add(&t, i % 20, "{\"step\":7,\"prompt_id\":\"k%zu\","
			    "\"reward\":%zu,\"reward_baselines\":%g,"
			    "\"logprobs\":[-1]}", i % 20, i, i / 2.0);
	batch_view(t.b, &v, 1);
	ck_assert(v.n == 40 && v.ngroups == 20);
	ck_assert(v.base != NULL && v.tie != NULL && v.unscored != NULL);
	for (k = 0; k < 40; k++) {
		i = k % 2 == 0 ? k / 2 : k / 2 + 20;
		ck_assert_uint_eq(view_line(&t, k), i + 41);
		ck_assert(v.base[k] == i / 2.0);
		ck_assert_uint_eq(v.unscored[k], i == 39);
		if (i != 39)
			ck_assert(v.r[k] == (double)i);
		line = batch_line(t.b, k, &len);
		ck_assert(v.tie[k] == batch_tie(line, len));
		ck_assert_uint_eq(row_view(t.b, i), k);
	}
	for (k = 0; k < 20; k++) {
		ck_assert_uint_eq(v.goff[k], 2 * k);
		snprintf(want, sizeof(want), "\"k%zu\" (line %zu)", k, k + 41);
		ck_assert_label(&v, k, want);
	}
	ck_assert_uint_eq(v.goff[20], 40);
	batch_reset(t.b, 0);

	/* Lines 81-82, in group order, no baselines: the arrays are
	 * kept. */
	t.f.need_baseline = 0;
	bt_add(&t, 0, REC, "\"z\"", 0, 5.0);
	bt_add(&t, 1, REC, "\"y\"", 0, 6.0);
	batch_view(t.b, &v, 0);
	ck_assert(v.n == 2 && v.ngroups == 2 && v.base == NULL &&
	    v.tie == NULL && v.unscored == NULL);
	ck_assert(v.r[0] == 5 && v.r[1] == 6 && v.goff[2] == 2);
	ck_assert_label(&v, 1, "\"y\" (line 82)");
	bt_free(&t);
}
END_TEST

/* Each role's name index, -1 to 14, held packed and given back as it
 * was; one past them (15, -2) makes a record kept whole, also as it
 * was. */
START_TEST(aliases_kept)
{
	static const signed char odd[] = { 15, -2, 127, -128 };
	struct gbatch *b = batch_new();
	struct buf keys = { 0 }, runs = { 0 };
	struct record r, tmp;
	const struct record *got;
	size_t i, n = 0;
	int v, j;

	for (v = -1; v <= 14; v++)
		for (j = 0; j < FR_NLISTED; j++) {
			memset(&r, 0, sizeof(r));
			r.has_reward = 1;
			memset(r.alias, -1, sizeof(r.alias));
			/* v in role j, others counting down from 14. */
			r.alias[j] = (signed char)v;
			r.alias[(j + 1) % FR_NLISTED] = (signed char)(14 - j);
			batch_add(b, &r, &keys, &runs, "{}", 2, 1, FNAME, n + 1,
			    batch_ngroups(b));
			got = batch_hrec(b, n++, &tmp);
			ck_assert_mem_eq(got->alias, r.alias, sizeof(r.alias));
		}
	for (i = 0; i < sizeof(odd); i++)
		for (j = 0; j < FR_NLISTED; j++) {
			memset(&r, 0, sizeof(r));
			r.has_reward = 1;
			memset(r.alias, 3, sizeof(r.alias));
			r.alias[j] = odd[i];
			batch_add(b, &r, &keys, &runs, "{}", 2, 1, FNAME, n + 1,
			    batch_ngroups(b));
			got = batch_hrec(b, n++, &tmp);
			ck_assert_mem_eq(got->alias, r.alias, sizeof(r.alias));
		}
	batch_free(b);
}
END_TEST

/*
 * batch_hrow() into one tmp gives each row's record as batch_hrec()
 * does into a cleared one: a record with a stratum, a mask, a length
 * or a field rladv writes (kept whole) before one without, and back;
 * and its line and view index as batch_hline() and batch_row() do.
 */
START_TEST(unpacked_again)
{
	static const char *const lines[] = {
		"{\"prompt_id\":1,\"tool_calls\":2,\"reward\":1,"
		    "\"logprobs\":[-1,-1],\"mask\":[0,1]}",
		"{\"prompt_id\":1,\"reward\":0.5}",
		"{\"prompt_id\":1,\"reward\":0,\"advantage\":3,"
		    "\"logprobs\":[-1]}",
		"{\"prompt_id\":2,\"tool_calls\":1,\"reward\":1,"
		    "\"logprobs\":[-1]}",
		"{\"prompt_id\": 2, \"reward\": 1, \"mask\": [1]}",
		"{\"prompt_id\":2,\"reward\":0}",
	};
	struct bt t;
	struct batch v;
	struct record again, fresh;
	const struct record *a, *f;
	const char *line;
	size_t i, j, k, kk, n = sizeof(lines) / sizeof(lines[0]);
	int pass;

	bt_init(&t);
	t.f.batch = NULL;
	for (i = 0; i < n; i++)
		bt_add(&t, i / 3, "%s", lines[i]);
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(batch_nrows(t.b), n);
	check_bytes(t.b);
	memset(&again, 0, sizeof(again));
	for (pass = 0; pass < 2; pass++)
		for (j = 0; j < n; j++) {
			i = batch_row(t.b, j, &k);
			memset(&fresh, 0xa5, sizeof(fresh));
			f = batch_hrec(t.b, i, &fresh);
			a = batch_hrow(t.b, j, &again, &kk, &line);
			ck_assert_msg(memcmp(a, f, sizeof(*a)) == 0,
			    "record %zu, pass %d", i, pass);
			ck_assert(line == batch_hline(t.b, i, NULL));
			ck_assert_uint_eq(kk, k);
		}
	ck_assert_int_eq(a->has_stratum, 0);
	bt_free(&t);
}
END_TEST

/* Rows of another shard (elsewhere, kept whole) are not the batch's
 * own; a batch of records kept whole for another reason has them all. */
START_TEST(own_rows)
{
	struct gbatch *b = batch_new();
	struct buf keys = { 0 }, runs = { 0 };
	struct batch v;
	struct record r;
	size_t n;

	for (n = 0; n < 6; n++) {
		memset(&r, 0, sizeof(r));
		r.has_reward = 1;
		memset(r.alias, -1, sizeof(r.alias));
		r.elsewhere = n % 3 == 1;
		r.has_tie = n == 4;	/* kept whole, its own */
		batch_add(b, &r, &keys, &runs, "{}", 2, 1, FNAME, n + 1,
		    batch_ngroups(b));
	}
	batch_view(b, &v, 0);
	ck_assert_uint_eq(batch_nrows(b), 6);
	ck_assert_uint_eq(batch_nown(b), 4);
	check_bytes(b);
	batch_free(b);
}
END_TEST

static Suite *
batch_suite(void)
{
	Suite *s = suite_create("batch");
	TCase *tc;

	tc = tcase_create("batch");
	tcase_add_test(tc, interleaved_groups);
	tcase_add_test(tc, local_strata);
	tcase_add_test(tc, many_strata);
	tcase_add_test(tc, dropped_groups);
	tcase_add_test(tc, lines_and_reset);
	tcase_add_test(tc, views_of_other_layouts);
	tcase_add_test(tc, aliases_kept);
	tcase_add_test(tc, unpacked_again);
	tcase_add_test(tc, own_rows);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(batch_suite());
}
