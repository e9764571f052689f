/*
 * check_group.c - tests of grouping and batching (src/group.c): contiguous
 * groups, a reappearing group (an error naming both places), --unsorted,
 * key-less blocks of --group-size, size checks (fail and skip), batch
 * boundaries by batch key, by --batch-groups and per group (stream), and
 * the flat view the estimators read (goff, perm, local stratum indexes).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"
#include "record.h"
#include "testutil.h"

#define FNAME	"f.jsonl"

struct gt {
	struct gbatch		 b;
	struct fields		 f;
	struct buf		 keys, runs;
	struct record		 r;
	struct diag		 d;
	unsigned long long	 lineno;
	char			 line[512];
};

static void
gt_init(struct gt *t, const struct gopts *o)
{
	memset(t, 0, sizeof(*t));
	record_fields_default(&t->f);
	group_init(&t->b, o);
}

static void
gt_free(struct gt *t)
{
	group_free(&t->b);
	buf_free(&t->keys);
	buf_free(&t->runs);
}

/* Parses the next line (numbered from 1) into t->r. */
static void
gt_parse(struct gt *t, const char *line)
{
	struct diag d = { 0 };

	snprintf(t->line, sizeof(t->line), "%s", line);
	t->keys.len = t->runs.len = 0;
	t->lineno++;
	ck_assert_msg(record_parse(t->line, strlen(t->line), &t->f, &t->r,
	    &t->keys, &t->runs, FNAME, t->lineno, &d) == 0, "parse: %s",
	    d.msg);
}

/* Adds the record parsed last; returns group_add's status. */
static int
gt_add_parsed(struct gt *t)
{
	memset(&t->d, 0, sizeof(t->d));
	return group_add(&t->b, &t->r, &t->keys, &t->runs, t->line,
	    strlen(t->line), 0, FNAME, t->lineno, &t->d);
}

static int
gt_add(struct gt *t, const char *line)
{
	gt_parse(t, line);
	return gt_add_parsed(t);
}

/* A record of group key (a JSON value) with a reward. */
static const char *
rec(const char *key, double reward)
{
	static char s[256];

	snprintf(s, sizeof(s), "{\"prompt_id\":%s,\"reward\":%g,"
	    "\"logprobs\":[-1]}", key, reward);
	return s;
}

/* Adds a record that must be accepted. */
static void
add_ok(struct gt *t, const char *line)
{
	int rc = gt_add(t, line);

	ck_assert_msg(rc == 0, "group_add(%s) = %d: %s", line, rc, t->d.msg);
}

static const struct gopts sorted_opts = { 0, 0, 0, 0, 0 };

START_TEST(contiguous_groups)
{
	struct gt t;
	struct batch v;
	struct buf lab = { 0 };

	gt_init(&t, &sorted_opts);
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 2));
	add_ok(&t, rec("\"b\"", 3));
	add_ok(&t, rec("\"b\"", 4));
	add_ok(&t, rec("\"b\"", 5));
	add_ok(&t, rec("\"c\"", 6));
	ck_assert_uint_eq(t.b.n, 6);
	ck_assert_uint_eq(t.b.ngroups, 3);
	ck_assert_uint_eq(t.b.grp[0].count, 2);
	ck_assert_uint_eq(t.b.grp[1].count, 3);
	ck_assert_uint_eq(t.b.grp[2].count, 1);
	ck_assert_uint_eq(t.b.grp[1].first, 2);
	ck_assert_uint_eq(t.b.grp[1].last, 4);
	ck_assert_uint_eq(t.b.rec[4].group, 1);
	ck_assert_uint_eq(t.b.rec[5].lineno, 6);
	group_label(&t.b, 1, &lab);
	ck_assert_uint_eq(lab.len, strlen("\"b\" (line 3)"));
	ck_assert(memcmp(lab.p, "\"b\" (line 3)", lab.len) == 0);
	buf_free(&lab);

	group_view(&t.b, &v, 0);
	ck_assert_uint_eq(v.n, 6);
	ck_assert_uint_eq(v.ngroups, 3);
	/* goff: 0, 2, 5, 6 */
	ck_assert_uint_eq(v.goff[0], 0);
	ck_assert_uint_eq(v.goff[1], 2);
	ck_assert_uint_eq(v.goff[2], 5);
	ck_assert_uint_eq(v.goff[3], 6);
	ck_assert(v.r[0] == 1 && v.r[2] == 3 && v.r[5] == 6);
	ck_assert(v.T[3] == 1);
	ck_assert_uint_eq(t.b.perm[4], 4);
	ck_assert_str_eq(v.gname[2], "\"c\" (line 6)");
	/* no stratum field: one stratum per group */
	ck_assert_uint_eq(v.nstrat[0], 1);
	ck_assert_uint_eq(v.strat[3], 0);
	ck_assert_uint_eq(t.b.nstrata, 3);
	/* the group hash is of the canonical key "sa" */
	ck_assert(v.ghash[0] == keymap_hash("sa", 2, 0));
	gt_free(&t);
}
END_TEST

START_TEST(reappearing_group)
{
	struct gt t;

	gt_init(&t, &sorted_opts);
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 0));
	add_ok(&t, rec("\"b\"", 1));
	/* line 4: "a" again, after its group (lines 1-2) ended */
	ck_assert_int_eq(gt_add(&t, rec("\"a\"", 1)), 1);
	ck_assert_int_eq(t.d.status, 1);
	ck_assert_str_eq(t.d.msg, "f.jsonl:4: group \"a\" reappears after its "
	    "group ended (f.jsonl lines 1-2); sort the input by group or use "
	    "--unsorted");
	gt_free(&t);

	/* Integer keys; the middle group comes back. */
	gt_init(&t, &sorted_opts);
	add_ok(&t, rec("5", 1));
	add_ok(&t, rec("6", 1));
	add_ok(&t, rec("6", 1));
	add_ok(&t, rec("6", 1));
	add_ok(&t, rec("7", 1));
	ck_assert_int_eq(gt_add(&t, rec("6", 1)), 1);
	ck_assert_prefix(t.d.msg, "f.jsonl:6: group \"6\" reappears");
	ck_assert_has(t.d.msg, "lines 2-4");
	gt_free(&t);

	/* The string "5" and the number 5 are different groups. */
	gt_init(&t, &sorted_opts);
	add_ok(&t, rec("5", 1));
	add_ok(&t, rec("\"5\"", 1));
	ck_assert_uint_eq(t.b.ngroups, 2);
	gt_free(&t);
}
END_TEST

START_TEST(unsorted_groups)
{
	struct gopts o = { 1, 0, 0, 0, 0 };
	struct gt t;
	struct batch v;

	gt_init(&t, &o);
	/* a b a c b, rewards 0..4 by line */
	add_ok(&t, rec("\"a\"", 0));
	add_ok(&t, rec("\"b\"", 1));
	add_ok(&t, rec("\"a\"", 2));
	add_ok(&t, rec("\"c\"", 3));
	add_ok(&t, rec("\"b\"", 4));
	ck_assert_uint_eq(t.b.ngroups, 3);
	ck_assert_uint_eq(t.b.grp[0].count, 2);
	ck_assert_uint_eq(t.b.grp[1].count, 2);
	ck_assert_uint_eq(t.b.grp[2].count, 1);
	group_view(&t.b, &v, 0);
	/* group order: a = lines 1,3; b = 2,5; c = 4 */
	ck_assert_uint_eq(v.n, 5);
	ck_assert_uint_eq(v.goff[1], 2);
	ck_assert_uint_eq(v.goff[2], 4);
	ck_assert_uint_eq(v.goff[3], 5);
	ck_assert_uint_eq(t.b.perm[0], 0);
	ck_assert_uint_eq(t.b.perm[1], 2);
	ck_assert_uint_eq(t.b.perm[2], 1);
	ck_assert_uint_eq(t.b.perm[3], 4);
	ck_assert_uint_eq(t.b.perm[4], 3);
	ck_assert(v.r[0] == 0 && v.r[1] == 2 && v.r[2] == 1 && v.r[3] == 4 &&
	    v.r[4] == 3);
	gt_free(&t);
}
END_TEST

START_TEST(unsorted_many_groups)
{
	/* 2000 keys, then the same 2000 again: the hash table grows past
	 * its first size while groups are open. */
	struct gopts o = { 1, 0, 0, 0, 0 };
	struct gt t;
	struct batch v;
	char key[32];
	size_t g, pass;

	gt_init(&t, &o);
	for (pass = 0; pass < 2; pass++)
		for (g = 0; g < 2000; g++) {
			snprintf(key, sizeof(key), "%zu", g);
			add_ok(&t, rec(key, (double)(pass * 2000 + g)));
		}
	ck_assert_uint_eq(t.b.ngroups, 2000);
	group_view(&t.b, &v, 0);
	ck_assert_uint_eq(v.ngroups, 2000);
	for (g = 0; g < 2000; g++) {
		ck_assert_uint_eq(t.b.grp[g].count, 2);
		ck_assert_uint_eq(v.goff[g], 2 * g);
		ck_assert_uint_eq(t.b.perm[2 * g], g);
		ck_assert_uint_eq(t.b.perm[2 * g + 1], 2000 + g);
		ck_assert(v.r[2 * g + 1] == (double)(2000 + g));
	}
	gt_free(&t);
}
END_TEST

static const char *
keyless(double reward)
{
	static char s[128];

	snprintf(s, sizeof(s), "{\"reward\":%g,\"logprobs\":[-1,-1]}", reward);
	return s;
}

START_TEST(keyless_blocks)
{
	struct gopts o = { 0, 3, 0, 0, 0 };
	struct gt t;
	struct batch v;
	struct buf lab = { 0 };
	size_t nd, i;

	gt_init(&t, &o);
	/* 7 records: blocks of 3, 3 and 1 */
	for (i = 0; i < 7; i++)
		add_ok(&t, keyless((double)i));
	ck_assert_uint_eq(t.b.ngroups, 3);
	ck_assert_uint_eq(t.b.grp[0].count, 3);
	ck_assert_uint_eq(t.b.grp[1].count, 3);
	ck_assert_uint_eq(t.b.grp[2].count, 1);
	ck_assert_uint_eq(t.b.rec[3].group, 1);
	group_label(&t.b, 1, &lab);
	ck_assert_uint_eq(lab.len, strlen("block 2 (line 4)"));
	ck_assert(memcmp(lab.p, "block 2 (line 4)", lab.len) == 0);
	buf_free(&lab);
	/* the last block is short */
	ck_assert_int_eq(group_check_sizes(&t.b, 0, &nd, &t.d), 1);
	ck_assert_str_eq(t.d.msg, "f.jsonl:7: group of a block has 1 "
	    "records, expected --group-size 3");
	/* skip mode: it is dropped */
	ck_assert_int_eq(group_check_sizes(&t.b, 1, &nd, &t.d), 0);
	ck_assert_uint_eq(nd, 1);
	ck_assert_int_eq(t.b.rec[6].dropped, 1);
	group_view(&t.b, &v, 0);
	ck_assert_uint_eq(v.n, 6);
	ck_assert_uint_eq(v.ngroups, 2);
	ck_assert_uint_eq(v.goff[1], 3);
	ck_assert(v.r[5] == 5);
	ck_assert(v.T[0] == 2);
	ck_assert_str_eq(v.gname[0], "block 1 (line 1)");
	gt_free(&t);
}
END_TEST

START_TEST(keyless_errors)
{
	struct gopts o = { 0, 2, 0, 0, 0 };
	struct gt t;

	/* Without --group-size a key-less record is an error. */
	gt_init(&t, &sorted_opts);
	ck_assert_int_eq(gt_add(&t, keyless(1)), 1);
	ck_assert_prefix(t.d.msg, "f.jsonl:1: no group key");
	ck_assert_has(t.d.msg, "--group-size");
	gt_free(&t);
	/* A key, then none. */
	gt_init(&t, &o);
	add_ok(&t, rec("\"a\"", 1));
	ck_assert_int_eq(gt_add(&t, keyless(1)), 1);
	ck_assert_str_eq(t.d.msg, "f.jsonl:2: no group key, but earlier "
	    "records had one");
	gt_free(&t);
	/* None, then a key. */
	gt_init(&t, &o);
	add_ok(&t, keyless(1));
	ck_assert_int_eq(gt_add(&t, rec("\"a\"", 1)), 1);
	ck_assert_prefix(t.d.msg, "f.jsonl:2: a group key, but earlier "
	    "records had none");
	gt_free(&t);
}
END_TEST

START_TEST(check_sizes_keyed)
{
	struct gopts o = { 0, 2, 0, 0, 0 };
	struct gt t;
	struct batch v;
	size_t nd;

	gt_init(&t, &o);
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 2));
	add_ok(&t, rec("\"b\"", 3));
	add_ok(&t, rec("\"c\"", 4));
	add_ok(&t, rec("\"c\"", 5));
	ck_assert_int_eq(group_check_sizes(&t.b, 0, &nd, &t.d), 1);
	ck_assert_str_eq(t.d.msg, "f.jsonl:3: group \"b\" has 1 records, "
	    "expected --group-size 2");
	ck_assert_int_eq(group_check_sizes(&t.b, 1, &nd, &t.d), 0);
	ck_assert_uint_eq(nd, 1);
	ck_assert_int_eq(t.b.rec[2].dropped, 1);
	ck_assert_int_eq(t.b.rec[3].dropped, 0);
	group_view(&t.b, &v, 0);
	/* b vanishes: a (lines 1-2), c (lines 4-5) */
	ck_assert_uint_eq(v.n, 4);
	ck_assert_uint_eq(v.ngroups, 2);
	ck_assert_uint_eq(v.goff[1], 2);
	ck_assert_uint_eq(v.goff[2], 4);
	ck_assert_uint_eq(t.b.perm[2], 3);
	ck_assert(v.r[2] == 4 && v.r[3] == 5);
	ck_assert_str_eq(v.gname[1], "\"c\" (line 4)");
	gt_free(&t);

	/* Too many is as wrong as too few. */
	gt_init(&t, &o);
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 1));
	ck_assert_int_eq(group_check_sizes(&t.b, 0, &nd, &t.d), 1);
	ck_assert_has(t.d.msg, "has 3 records, expected --group-size 2");
	gt_free(&t);

	/* Without --group-size nothing is checked. */
	gt_init(&t, &sorted_opts);
	add_ok(&t, rec("\"a\"", 1));
	ck_assert_int_eq(group_check_sizes(&t.b, 0, &nd, &t.d), 0);
	ck_assert_uint_eq(nd, 0);
	gt_free(&t);
}
END_TEST

static const char *
step_rec(int step, const char *key)
{
	static char s[256];

	snprintf(s, sizeof(s), "{\"step\":%d,\"prompt_id\":\"%s\","
	    "\"reward\":1,\"logprobs\":[-1]}", step, key);
	return s;
}

/* Parses line and says whether it starts a new batch. */
static int
boundary(struct gt *t, const char *line)
{
	gt_parse(t, line);
	return group_boundary(&t->b, &t->r, &t->keys);
}

START_TEST(batch_by_key)
{
	struct gopts o = { 0, 0, 0, 1, 0 };
	struct gt t;

	gt_init(&t, &o);
	t.f.batch = "step";
	/* the first record never starts a batch: there is none yet */
	ck_assert_int_eq(boundary(&t, step_rec(1, "a")), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, step_rec(1, "a")), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, step_rec(1, "b")), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* step 2: a new batch, even though "b" continues */
	ck_assert_int_eq(boundary(&t, step_rec(2, "b")), 1);
	group_reset(&t.b, 1);
	ck_assert_uint_eq(t.b.n, 0);
	ck_assert_uint_eq(t.b.ngroups, 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* a new batch key forgets the ended groups: "a" may come again */
	ck_assert_int_eq(boundary(&t, step_rec(2, "a")), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_uint_eq(t.b.ngroups, 2);
	/* but inside the batch a group still may not come back */
	ck_assert_int_eq(boundary(&t, step_rec(2, "b")), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 1);
	ck_assert_has(t.d.msg, "group \"b\" reappears");
	gt_free(&t);
}
END_TEST

START_TEST(batch_by_groups)
{
	struct gopts o = { 0, 0, 2, 0, 0 };
	struct gt t;

	gt_init(&t, &o);
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, rec("\"b\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* "b" continues: still the same batch */
	ck_assert_int_eq(boundary(&t, rec("\"b\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* "c" would be group 3 of a batch of 2 */
	ck_assert_int_eq(boundary(&t, rec("\"c\"", 1)), 1);
	group_reset(&t.b, 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_uint_eq(t.b.ngroups, 1);
	ck_assert_uint_eq(t.b.n, 1);
	/* groups of the earlier batch are still ended: "b" (lines 3-4) */
	ck_assert_int_eq(boundary(&t, rec("\"b\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 1);
	ck_assert_has(t.d.msg, "group \"b\" reappears after its group ended "
	    "(f.jsonl lines 3-4)");
	ck_assert_prefix(t.d.msg, "f.jsonl:6:");
	gt_free(&t);
}
END_TEST

START_TEST(batch_by_groups_unsorted)
{
	struct gopts o = { 1, 0, 2, 0, 0 };
	struct gt t;

	gt_init(&t, &o);
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, rec("\"b\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* "a" again joins its open group: no boundary */
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_uint_eq(t.b.grp[0].count, 2);
	ck_assert_int_eq(boundary(&t, rec("\"c\"", 1)), 1);
	group_reset(&t.b, 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* an unsorted group of an ended batch may not come back */
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 1);
	ck_assert_has(t.d.msg, "(f.jsonl lines 1-3)");
	gt_free(&t);
}
END_TEST

START_TEST(batch_keyless_groups)
{
	/* Blocks of 2, two blocks a batch: the 5th record opens batch 2. */
	struct gopts o = { 0, 2, 2, 0, 0 };
	struct gt t;
	int i;

	gt_init(&t, &o);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(boundary(&t, keyless(i)), 0);
		ck_assert_int_eq(gt_add_parsed(&t), 0);
	}
	ck_assert_int_eq(boundary(&t, keyless(4)), 1);
	gt_free(&t);
}
END_TEST

START_TEST(stream_mode)
{
	struct gopts o = { 0, 0, 0, 0, 1 };
	struct gt t;

	gt_init(&t, &o);
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, rec("\"b\"", 1)), 1);
	group_reset(&t.b, 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* "a" ended in the previous batch */
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 1);
	group_reset(&t.b, 0);
	ck_assert_int_eq(gt_add_parsed(&t), 1);
	ck_assert_has(t.d.msg, "reappears");
	gt_free(&t);
}
END_TEST

static const char *
strat_rec(const char *key, int tc, double reward)
{
	static char s[256];

	snprintf(s, sizeof(s), "{\"prompt_id\":\"%s\",\"tool_calls\":%d,"
	    "\"reward\":%g,\"logprobs\":[-1,-1,-1],\"mask\":[1,0,1]}", key, tc,
	    reward);
	return s;
}

START_TEST(view_strata)
{
	struct gt t;
	struct batch v;

	gt_init(&t, &sorted_opts);
	/* group g: tool_calls 2,0,2,1,0 -> local strata 0,1,0,2,1 (order
	 * of first appearance); group h: 5,5 -> 0,0. */
	add_ok(&t, strat_rec("g", 2, 0.5));
	add_ok(&t, strat_rec("g", 0, 1));
	add_ok(&t, strat_rec("g", 2, 0));
	add_ok(&t, strat_rec("g", 1, 1));
	add_ok(&t, strat_rec("g", 0, 0));
	add_ok(&t, strat_rec("h", 5, 1));
	add_ok(&t, strat_rec("h", 5, 0));
	group_view(&t.b, &v, 1);
	ck_assert_uint_eq(v.n, 7);
	ck_assert_uint_eq(v.ngroups, 2);
	ck_assert_uint_eq(v.strat[0], 0);
	ck_assert_uint_eq(v.strat[1], 1);
	ck_assert_uint_eq(v.strat[2], 0);
	ck_assert_uint_eq(v.strat[3], 2);
	ck_assert_uint_eq(v.strat[4], 1);
	ck_assert_uint_eq(v.strat[5], 0);
	ck_assert_uint_eq(v.strat[6], 0);
	ck_assert_uint_eq(v.nstrat[0], 3);
	ck_assert_uint_eq(v.nstrat[1], 1);
	ck_assert_uint_eq(t.b.nstrata, 4);
	/* mask 1,0,1: T = 2 */
	ck_assert(v.T[0] == 2 && v.T[6] == 2);
	ck_assert(v.r[0] == 0.5 && v.r[3] == 1);
	/* tie: the hash of the record's line, seed 1 */
	ck_assert(v.tie[5] == keymap_hash(group_text(&t.b, &t.b.rec[5]),
	    t.b.rec[5].len, 1));
	ck_assert(v.tie[5] == keymap_hash(strat_rec("h", 5, 1),
	    strlen(strat_rec("h", 5, 1)), 1));
	ck_assert(v.tie[5] != v.tie[6]);
	gt_free(&t);
}
END_TEST

START_TEST(view_many_strata)
{
	/* 140 records of one group, tool_calls 69 - i % 70: 70 strata,
	 * past the 64 remembered first members, so the slower path runs;
	 * local indexes follow first appearance: strat[i] = i % 70. */
	struct gt t;
	struct batch v;
	size_t i;

	gt_init(&t, &sorted_opts);
	for (i = 0; i < 140; i++)
		add_ok(&t, strat_rec("g", 69 - (int)(i % 70), (double)i));
	group_view(&t.b, &v, 0);
	ck_assert_uint_eq(v.nstrat[0], 70);
	for (i = 0; i < 140; i++)
		ck_assert_msg(v.strat[i] == i % 70, "strat[%zu] = %u", i,
		    v.strat[i]);
	gt_free(&t);
}
END_TEST

START_TEST(view_after_reset)
{
	struct gt t;
	struct batch v;

	gt_init(&t, &sorted_opts);
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"b\"", 2));
	group_view(&t.b, &v, 0);
	ck_assert_uint_eq(v.ngroups, 2);
	group_reset(&t.b, 0);
	add_ok(&t, rec("\"c\"", 3));
	add_ok(&t, rec("\"c\"", 4));
	add_ok(&t, rec("\"c\"", 5));
	group_view(&t.b, &v, 0);
	ck_assert_uint_eq(v.n, 3);
	ck_assert_uint_eq(v.ngroups, 1);
	ck_assert_uint_eq(v.goff[1], 3);
	ck_assert(v.r[0] == 3 && v.r[2] == 5);
	ck_assert_str_eq(v.gname[0], "\"c\" (line 3)");
	/* "a" and "b" ended with the first batch */
	ck_assert_int_eq(gt_add(&t, rec("\"a\"", 1)), 1);
	gt_free(&t);
}
END_TEST

START_TEST(stable_lines)
{
	/* A stable line (a mapped file) is kept by pointer, not copied; an
	 * unstable one is copied, so the caller may reuse its buffer. */
	struct gt t;
	struct diag d = { 0 };
	char mine[256];
	const char *kept;

	gt_init(&t, &sorted_opts);
	snprintf(mine, sizeof(mine), "%s", rec("\"a\"", 1));
	gt_parse(&t, mine);
	ck_assert_int_eq(group_add(&t.b, &t.r, &t.keys, &t.runs, mine,
	    strlen(mine), 1, FNAME, 1, &d), 0);
	ck_assert_ptr_eq(group_text(&t.b, &t.b.rec[0]), mine);
	add_ok(&t, rec("\"a\"", 2));
	kept = group_text(&t.b, &t.b.rec[1]);
	ck_assert_ptr_ne(kept, t.line);
	memset(t.line, 'x', sizeof(t.line) - 1);
	ck_assert_uint_eq(t.b.rec[1].len, strlen(rec("\"a\"", 2)));
	ck_assert(memcmp(kept, rec("\"a\"", 2), t.b.rec[1].len) == 0);
	gt_free(&t);
}
END_TEST

START_TEST(hash_function)
{
	const char *s = "abcdefghijklmnopqrstuvwxyz";
	uint64_t h[17];
	size_t i, j;

	/* Deterministic, seed-dependent. */
	ck_assert(keymap_hash(s, 26, 0) == keymap_hash(s, 26, 0));
	ck_assert(keymap_hash(s, 26, 0) != keymap_hash(s, 26, 1));
	/* Every prefix length 0..16 hashes differently (the tail bytes and
	 * the length both count). */
	for (i = 0; i <= 16; i++)
		h[i] = keymap_hash(s, i, 0);
	for (i = 0; i <= 16; i++)
		for (j = i + 1; j <= 16; j++)
			ck_assert_msg(h[i] != h[j], "prefix %zu == %zu", i, j);
	/* "sa" and "na" (string and number keys) differ. */
	ck_assert(keymap_hash("sa", 2, 0) != keymap_hash("na", 2, 0));
}
END_TEST

static Suite *
group_suite(void)
{
	Suite *s = suite_create("group");
	TCase *tc;

	tc = tcase_create("grouping");
	tcase_add_test(tc, contiguous_groups);
	tcase_add_test(tc, reappearing_group);
	tcase_add_test(tc, unsorted_groups);
	tcase_add_test(tc, unsorted_many_groups);
	tcase_add_test(tc, keyless_blocks);
	tcase_add_test(tc, keyless_errors);
	tcase_add_test(tc, check_sizes_keyed);
	suite_add_tcase(s, tc);

	tc = tcase_create("batches");
	tcase_add_test(tc, batch_by_key);
	tcase_add_test(tc, batch_by_groups);
	tcase_add_test(tc, batch_by_groups_unsorted);
	tcase_add_test(tc, batch_keyless_groups);
	tcase_add_test(tc, stream_mode);
	suite_add_tcase(s, tc);

	tc = tcase_create("view");
	tcase_add_test(tc, view_strata);
	tcase_add_test(tc, view_many_strata);
	tcase_add_test(tc, view_after_reset);
	tcase_add_test(tc, stable_lines);
	tcase_add_test(tc, hash_function);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(group_suite());
}
