/*
 * check_group.c - tests of grouping and batching (src/group.c): contiguous
 * groups, a reappearing group (an error naming both places), --unsorted,
 * key-less blocks of --group-size, size checks (fail and skip), batch
 * boundaries by batch key, by --batch-groups and per group (stream), and
 * which of them each is.  The batch itself (the view in group order) has
 * its own suite, check_batch.c.
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
	struct gbatch		*b;
	struct grouping		 gs;
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
	fields_default(&t->f);
	group_init(&t->gs, o);
	t->b = batch_new();
}

static void
gt_free(struct gt *t)
{
	group_free(&t->gs);
	batch_free(t->b);
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
	return group_add(&t->gs, t->b, &t->r, &t->keys, &t->runs, t->line,
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

/* The line of the record at index k of the view. */
static unsigned long long
view_line(const struct gt *t, size_t k)
{
	unsigned long long line;

	ck_assert_str_eq(batch_where(t->b, k, &line), FNAME);
	return line;
}

/* Adds a record that must be accepted. */
static void
add_ok(struct gt *t, const char *line)
{
	int rc = gt_add(t, line);

	ck_assert_msg(rc == 0, "group_add(%s) = %d: %s", line, rc, t->d.msg);
}

static const struct gopts sorted_opts = { 0, 0, 0, 0, 0, 0, 0 };

START_TEST(contiguous_groups)
{
	struct gt t;
	struct batch v;
	struct buf lab = { 0 };
	unsigned long long first, last;

	gt_init(&t, &sorted_opts);
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 2));
	add_ok(&t, rec("\"b\"", 3));
	add_ok(&t, rec("\"b\"", 4));
	add_ok(&t, rec("\"b\"", 5));
	add_ok(&t, rec("\"c\"", 6));
	ck_assert_uint_eq(batch_held(t.b), 6);
	ck_assert_uint_eq(batch_ngroups(t.b), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 0), 2);
	ck_assert_uint_eq(batch_gsize(t.b, 1), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 2), 1);
	/* group b: lines 3-5 */
	ck_assert_str_eq(batch_gwhere(t.b, 1, &first, &last), FNAME);
	ck_assert_uint_eq(first, 3);
	ck_assert_uint_eq(last, 5);
	ck_assert_uint_eq(batch_hgroup(t.b, 4), 1);
	ck_assert_uint_eq(batch_hgroup(t.b, 5), 2);
	batch_glabel(t.b, 1, &lab);
	ck_assert_uint_eq(lab.len, strlen("\"b\" (line 3)"));
	ck_assert(memcmp(lab.p, "\"b\" (line 3)", lab.len) == 0);
	buf_free(&lab);

	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.n, 6);
	ck_assert_uint_eq(v.ngroups, 3);
	/* goff: 0, 2, 5, 6 */
	ck_assert_uint_eq(v.goff[0], 0);
	ck_assert_uint_eq(v.goff[1], 2);
	ck_assert_uint_eq(v.goff[2], 5);
	ck_assert_uint_eq(v.goff[3], 6);
	ck_assert(v.r[0] == 1 && v.r[2] == 3 && v.r[5] == 6);
	ck_assert(v.T[3] == 1);
	ck_assert_uint_eq(view_line(&t, 4), 5);
	ck_assert_label(&v, 2, "\"c\" (line 6)");
	/* no stratum field: one stratum per group */
	ck_assert_uint_eq(v.nstrat[0], 1);
	ck_assert_uint_eq(v.nstrat[1], 1);
	ck_assert_uint_eq(v.nstrat[2], 1);
	ck_assert_uint_eq(v.strat[3], 0);
	/* the group hash is of the canonical key "sa" */
	ck_assert(v.ghash[0] == keymap_hash("sa", 2, 0));
	gt_free(&t);
}
END_TEST

/* Keys of every length from 2 to 24 that differ from the one before in
 * one byte only, the first, the last or one between: each opens a group
 * (a key of 8 to 16 bytes is compared by two words that may overlap). */
START_TEST(contiguous_key_lengths)
{
	struct gt t;
	char key[4][32], q[160];
	size_t n, i, k;

	for (n = 2; n <= 24; n++) {
		for (i = 0; i < n; i++)
			key[0][i] = (char)('a' + (i * 5 + n) % 26);
		key[0][n] = '\0';
		for (k = 1; k < 4; k++)
			memcpy(key[k], key[0], n + 1);
		key[1][n - 1] = 'Z';
		key[2][0] = 'Z';
		key[3][n / 2] = 'Y';
		gt_init(&t, &sorted_opts);
		for (k = 0; k < 4; k++) {
			snprintf(q, sizeof(q), "\"%s\"", key[k]);
			add_ok(&t, rec(q, 1));
			add_ok(&t, rec(q, 0));
		}
		ck_assert_uint_eq(batch_ngroups(t.b), 4);
		for (k = 0; k < 4; k++)
			ck_assert_uint_eq(batch_gsize(t.b, k), 2);
		gt_free(&t);
	}
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
	ck_assert_uint_eq(batch_ngroups(t.b), 2);
	gt_free(&t);
}
END_TEST

START_TEST(unsorted_groups)
{
	struct gopts o = { 1, 0, 0, 0, 0, 0, 0 };
	struct gt t;
	struct batch v;

	gt_init(&t, &o);
	/* a b a c b, rewards 0..4 by line */
	add_ok(&t, rec("\"a\"", 0));
	add_ok(&t, rec("\"b\"", 1));
	add_ok(&t, rec("\"a\"", 2));
	add_ok(&t, rec("\"c\"", 3));
	add_ok(&t, rec("\"b\"", 4));
	ck_assert_uint_eq(batch_ngroups(t.b), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 0), 2);
	ck_assert_uint_eq(batch_gsize(t.b, 1), 2);
	ck_assert_uint_eq(batch_gsize(t.b, 2), 1);
	batch_view(t.b, &v, 0);
	/* group order: a = lines 1,3; b = 2,5; c = 4 */
	ck_assert_uint_eq(v.n, 5);
	ck_assert_uint_eq(v.goff[1], 2);
	ck_assert_uint_eq(v.goff[2], 4);
	ck_assert_uint_eq(v.goff[3], 5);
	ck_assert_uint_eq(view_line(&t, 0), 1);
	ck_assert_uint_eq(view_line(&t, 1), 3);
	ck_assert_uint_eq(view_line(&t, 2), 2);
	ck_assert_uint_eq(view_line(&t, 3), 5);
	ck_assert_uint_eq(view_line(&t, 4), 4);
	ck_assert(v.r[0] == 0 && v.r[1] == 2 && v.r[2] == 1 && v.r[3] == 4 &&
	    v.r[4] == 3);
	gt_free(&t);
}
END_TEST

START_TEST(unsorted_many_groups)
{
	/* 2000 keys, then the same 2000 again: the hash table grows past
	 * its first size while groups are open. */
	struct gopts o = { 1, 0, 0, 0, 0, 0, 0 };
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
	ck_assert_uint_eq(batch_ngroups(t.b), 2000);
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.ngroups, 2000);
	for (g = 0; g < 2000; g++) {
		ck_assert_uint_eq(batch_gsize(t.b, g), 2);
		ck_assert_uint_eq(v.goff[g], 2 * g);
		ck_assert_uint_eq(view_line(&t, 2 * g), g + 1);
		ck_assert_uint_eq(view_line(&t, 2 * g + 1), 2000 + g + 1);
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
	struct gopts o = { 0, 3, 0, 0, 0, 0, 0 };
	struct gt t;
	struct batch v;
	struct buf lab = { 0 };
	size_t nd, i;

	gt_init(&t, &o);
	/* 7 records: blocks of 3, 3 and 1 */
	for (i = 0; i < 7; i++)
		add_ok(&t, keyless((double)i));
	ck_assert_uint_eq(batch_ngroups(t.b), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 0), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 1), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 2), 1);
	ck_assert_uint_eq(batch_hgroup(t.b, 3), 1);
	batch_glabel(t.b, 1, &lab);
	ck_assert_uint_eq(lab.len, strlen("block 2 (line 4)"));
	ck_assert(memcmp(lab.p, "block 2 (line 4)", lab.len) == 0);
	buf_free(&lab);
	/* the last block is short */
	ck_assert_int_eq(group_check_sizes(&t.gs, t.b, 0, &nd, &t.d), 1);
	ck_assert_str_eq(t.d.msg, "f.jsonl:7: the block that starts here "
	    "has 1 record, expected --group-size 3");
	/* skip mode: it is dropped */
	ck_assert_int_eq(group_check_sizes(&t.gs, t.b, 1, &nd, &t.d), 0);
	ck_assert_uint_eq(nd, 1);
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.n, 6);
	ck_assert_uint_eq(v.ngroups, 2);
	ck_assert_uint_eq(v.goff[1], 3);
	ck_assert(v.r[5] == 5);
	ck_assert(v.T[0] == 2);
	ck_assert_label(&v, 0, "block 1 (line 1)");
	gt_free(&t);
}
END_TEST

START_TEST(keyless_errors)
{
	struct gopts o = { 0, 2, 0, 0, 0, 0, 0 };
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

/*
 * Skip mode: a first record without a key (a header line) does not make
 * the run key-less; the kind of the first whole group does.
 */
START_TEST(keyless_skip)
{
	struct gopts o = { 0, 2, 0, 0, 0, 1, 0 }, u = { 1, 2, 0, 0, 0, 1, 0 };
	struct gt t;
	size_t nd;

	gt_init(&t, &o);
	add_ok(&t, keyless(0));
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 2));
	/* a's group is whole: from now on records have keys */
	ck_assert_int_eq(gt_add(&t, keyless(3)), 1);
	ck_assert_str_eq(t.d.msg, "f.jsonl:4: no group key, but earlier "
	    "records had one");
	add_ok(&t, rec("\"b\"", 4));
	add_ok(&t, rec("\"b\"", 5));
	ck_assert_uint_eq(batch_ngroups(t.b), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 0), 1);
	ck_assert_int_eq(group_check_sizes(&t.gs, t.b, 1, &nd, &t.d), 0);
	ck_assert_uint_eq(nd, 1);
	gt_free(&t);

	/* A key first, then blocks: the keyed record held position 0, so
	 * the first block (positions 0 and 1) is short, the next whole. */
	gt_init(&t, &o);
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, keyless(1));
	add_ok(&t, keyless(2));
	add_ok(&t, keyless(3));
	ck_assert_uint_eq(batch_ngroups(t.b), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 1), 1);
	ck_assert_uint_eq(batch_gsize(t.b, 2), 2);
	ck_assert_int_eq(gt_add(&t, rec("\"b\"", 4)), 1);
	ck_assert_prefix(t.d.msg, "f.jsonl:5: a group key, but earlier "
	    "records had none");
	gt_free(&t);

	/* --unsorted: a key's group is its own, not the block opened
	 * before it (its index among the keys was the block's). */
	gt_init(&t, &u);
	add_ok(&t, keyless(0));
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"b\"", 2));
	add_ok(&t, rec("\"a\"", 3));
	ck_assert_uint_eq(batch_ngroups(t.b), 3);
	ck_assert_uint_eq(batch_gsize(t.b, 0), 1);
	ck_assert_uint_eq(batch_gsize(t.b, 1), 2);
	ck_assert_uint_eq(batch_hgroup(t.b, 3), 1);
	gt_free(&t);
}
END_TEST

START_TEST(check_sizes_keyed)
{
	struct gopts o = { 0, 2, 0, 0, 0, 0, 0 };
	struct gt t;
	struct batch v;
	size_t nd;

	gt_init(&t, &o);
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 2));
	add_ok(&t, rec("\"b\"", 3));
	add_ok(&t, rec("\"c\"", 4));
	add_ok(&t, rec("\"c\"", 5));
	ck_assert_int_eq(group_check_sizes(&t.gs, t.b, 0, &nd, &t.d), 1);
	ck_assert_str_eq(t.d.msg, "f.jsonl:3: group \"b\" has 1 record, "
	    "expected --group-size 2");
	ck_assert_int_eq(group_check_sizes(&t.gs, t.b, 1, &nd, &t.d), 0);
	ck_assert_uint_eq(nd, 1);
	batch_view(t.b, &v, 0);
	/* b vanishes: a (lines 1-2), c (lines 4-5) */
	ck_assert_uint_eq(v.n, 4);
	ck_assert_uint_eq(v.ngroups, 2);
	ck_assert_uint_eq(v.goff[1], 2);
	ck_assert_uint_eq(v.goff[2], 4);
	ck_assert_uint_eq(view_line(&t, 2), 4);
	ck_assert(v.r[2] == 4 && v.r[3] == 5);
	ck_assert_label(&v, 1, "\"c\" (line 4)");
	gt_free(&t);

	/* Too many is as wrong as too few. */
	gt_init(&t, &o);
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 1));
	add_ok(&t, rec("\"a\"", 1));
	ck_assert_int_eq(group_check_sizes(&t.gs, t.b, 0, &nd, &t.d), 1);
	ck_assert_has(t.d.msg, "group \"a\" has 3 records, expected "
	    "--group-size 2");
	/* With --trajectory-key a response is a trajectory. */
	t.gs.o.traj = 1;
	ck_assert_int_eq(group_check_sizes(&t.gs, t.b, 0, &nd, &t.d), 1);
	ck_assert_has(t.d.msg, "group \"a\" has 3 trajectories, expected "
	    "--group-size 2");
	gt_free(&t);

	/* Without --group-size nothing is checked. */
	gt_init(&t, &sorted_opts);
	add_ok(&t, rec("\"a\"", 1));
	ck_assert_int_eq(group_check_sizes(&t.gs, t.b, 0, &nd, &t.d), 0);
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
	return group_boundary(&t->gs, t->b, &t->r, &t->keys);
}

/*
 * group_add() of a record takes the group group_boundary() found for it,
 * and only for it: after a record that was seen and then rejected, the
 * next one (in the same struct) is placed by its own key.
 */
START_TEST(boundary_then_add)
{
	struct gt t;

	gt_init(&t, &sorted_opts);
	add_ok(&t, rec("\"a\"", 1));
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 2)), GROUP_NONE);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, rec("\"b\"", 3)), GROUP_NONE);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_uint_eq(batch_ngroups(t.b), 2);
	ck_assert_uint_eq(batch_hgroup(t.b, 1), 0);
	ck_assert_uint_eq(batch_hgroup(t.b, 2), 1);
	/* Seen in group b, rejected; then c, and b again, added as they
	 * are: c opens a group, and b, ended, comes back (refused). */
	ck_assert_int_eq(boundary(&t, rec("\"b\"", 4)), GROUP_NONE);
	group_note_reject(&t.gs);
	add_ok(&t, rec("\"c\"", 5));
	ck_assert_uint_eq(batch_ngroups(t.b), 3);
	ck_assert_uint_eq(batch_hgroup(t.b, 3), 2);
	ck_assert_int_eq(boundary(&t, rec("\"c\"", 6)), GROUP_NONE);
	group_note_reject(&t.gs);
	gt_parse(&t, rec("\"b\"", 7));
	ck_assert_int_eq(gt_add_parsed(&t), 1);
	ck_assert_uint_eq(batch_held(t.b), 4);
	gt_free(&t);
}
END_TEST

START_TEST(batch_by_key)
{
	struct gopts o = { 0, 0, 0, 1, 0, 0, 0 };
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
	/* step 2 while "b" is open: "b" would be split over two batches,
	 * an error that names both lines */
	ck_assert_int_eq(boundary(&t, step_rec(2, "b")), GROUP_SPLIT);
	ck_assert_int_eq(group_split(&t.gs, t.b, &t.r, &t.keys, "f.jsonl", 4,
	    &t.d), EXIT_DATA);
	ck_assert_has(t.d.msg, "f.jsonl:4: group \"b\" (line 3) goes on "
	    "here, but the batch key is \"2\" here and \"1\" at " FNAME ":3");
	/* another group at step 2: a new batch */
	ck_assert_int_eq(boundary(&t, step_rec(2, "c")), GROUP_KEY);
	group_reset(&t.gs, t.b, GROUP_KEY);
	ck_assert_uint_eq(batch_held(t.b), 0);
	ck_assert_uint_eq(batch_ngroups(t.b), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* a new batch key forgets the ended groups: "a" may come again */
	ck_assert_int_eq(boundary(&t, step_rec(2, "a")), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_uint_eq(batch_ngroups(t.b), 2);
	/* but inside the batch a group still may not come back */
	ck_assert_int_eq(boundary(&t, step_rec(2, "c")), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 1);
	ck_assert_has(t.d.msg, "group \"c\" reappears");
	gt_free(&t);
}
END_TEST

START_TEST(batch_by_groups)
{
	struct gopts o = { 0, 0, 2, 0, 0, 0, 0 };
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
	ck_assert_int_eq(boundary(&t, rec("\"c\"", 1)), GROUP_COUNT);
	group_reset(&t.gs, t.b, GROUP_COUNT);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_uint_eq(batch_ngroups(t.b), 1);
	ck_assert_uint_eq(batch_held(t.b), 1);
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
	struct gopts o = { 1, 0, 2, 0, 0, 0, 0 };
	struct gt t;

	gt_init(&t, &o);
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, rec("\"b\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* "a" again joins its open group: no boundary */
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_uint_eq(batch_gsize(t.b, 0), 2);
	ck_assert_int_eq(boundary(&t, rec("\"c\"", 1)), GROUP_COUNT);
	group_reset(&t.gs, t.b, GROUP_COUNT);
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
	struct gopts o = { 0, 2, 2, 0, 0, 0, 0 };
	struct gt t;
	int i;

	gt_init(&t, &o);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(boundary(&t, keyless(i)), 0);
		ck_assert_int_eq(gt_add_parsed(&t), 0);
	}
	ck_assert_int_eq(boundary(&t, keyless(4)), GROUP_COUNT);
	gt_free(&t);
}
END_TEST

START_TEST(stream_mode)
{
	struct gopts o = { 0, 0, 0, 0, 1, 0, 0 };
	struct gt t;

	gt_init(&t, &o);
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, rec("\"b\"", 1)), GROUP_STREAM);
	group_reset(&t.gs, t.b, GROUP_STREAM);
	ck_assert_int_eq(batch_starts(t.b), 0);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* "a" ended in the previous batch */
	ck_assert_int_eq(boundary(&t, rec("\"a\"", 1)), GROUP_STREAM);
	group_reset(&t.gs, t.b, GROUP_STREAM);
	ck_assert_int_eq(gt_add_parsed(&t), 1);
	ck_assert_has(t.d.msg, "reappears");
	gt_free(&t);
}
END_TEST

START_TEST(stream_counts_groups)
{
	/* Streaming with --batch-groups 2: every group is handed over
	 * alone, but the input's batches still hold two groups each, so
	 * every second cut is a batch's end (b starts a new batch). */
	struct gopts o = { 0, 0, 2, 0, 1, 0, 0 };
	static const enum group_cut want[] = { GROUP_NONE, GROUP_STREAM,
	    GROUP_COUNT, GROUP_STREAM, GROUP_COUNT };
	static const char *const keys[] = { "\"a\"", "\"b\"", "\"c\"",
	    "\"d\"", "\"e\"" };
	struct gt t;
	enum group_cut cut;
	size_t i;

	gt_init(&t, &o);
	for (i = 0; i < 5; i++) {
		cut = boundary(&t, rec(keys[i], 1));
		ck_assert_msg(cut == want[i], "record %zu: cut %d, expected "
		    "%d", i, cut, want[i]);
		if (cut != GROUP_NONE) {
			group_reset(&t.gs, t.b, cut);
			ck_assert_int_eq(batch_starts(t.b), cut == GROUP_COUNT);
		}
		ck_assert_int_eq(gt_add_parsed(&t), 0);
		/* a record of the open group never cuts */
		ck_assert_int_eq(boundary(&t, rec(keys[i], 1)), GROUP_NONE);
		ck_assert_int_eq(gt_add_parsed(&t), 0);
	}
	gt_free(&t);
}
END_TEST

START_TEST(stream_batch_key)
{
	/* A change of the batch key is GROUP_KEY even where the group
	 * changes too (streaming): the ended groups are forgotten then. */
	struct gopts o = { 0, 0, 0, 1, 1, 0, 0 };
	struct gt t;

	gt_init(&t, &o);
	t.f.batch = "step";
	ck_assert_int_eq(boundary(&t, step_rec(1, "a")), GROUP_NONE);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, step_rec(1, "b")), GROUP_STREAM);
	group_reset(&t.gs, t.b, GROUP_STREAM);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, step_rec(2, "a")), GROUP_KEY);
	group_reset(&t.gs, t.b, GROUP_KEY);
	ck_assert_int_eq(batch_starts(t.b), 1);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	/* and within step 2, "b" may come once */
	ck_assert_int_eq(boundary(&t, step_rec(2, "b")), GROUP_STREAM);
	group_reset(&t.gs, t.b, GROUP_STREAM);
	ck_assert_int_eq(gt_add_parsed(&t), 0);
	ck_assert_int_eq(boundary(&t, step_rec(2, "a")), GROUP_STREAM);
	group_reset(&t.gs, t.b, GROUP_STREAM);
	ck_assert_int_eq(gt_add_parsed(&t), 1);
	ck_assert_has(t.d.msg, "group \"a\" reappears after its group ended "
	    "(f.jsonl line 3)");
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
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.ngroups, 2);
	group_reset(&t.gs, t.b, GROUP_COUNT);
	add_ok(&t, rec("\"c\"", 3));
	add_ok(&t, rec("\"c\"", 4));
	add_ok(&t, rec("\"c\"", 5));
	batch_view(t.b, &v, 0);
	ck_assert_uint_eq(v.n, 3);
	ck_assert_uint_eq(v.ngroups, 1);
	ck_assert_uint_eq(v.goff[1], 3);
	ck_assert(v.r[0] == 3 && v.r[2] == 5);
	ck_assert_label(&v, 0, "\"c\" (line 3)");
	/* "a" and "b" ended with the first batch */
	ck_assert_int_eq(gt_add(&t, rec("\"a\"", 1)), 1);
	gt_free(&t);
}
END_TEST

static Suite *
group_suite(void)
{
	Suite *s = suite_create("group");
	TCase *tc;

	tc = tcase_create("grouping");
	tcase_add_test(tc, contiguous_groups);
	tcase_add_test(tc, contiguous_key_lengths);
	tcase_add_test(tc, reappearing_group);
	tcase_add_test(tc, unsorted_groups);
	tcase_add_test(tc, unsorted_many_groups);
	tcase_add_test(tc, keyless_blocks);
	tcase_add_test(tc, keyless_errors);
	tcase_add_test(tc, keyless_skip);
	tcase_add_test(tc, check_sizes_keyed);
	suite_add_tcase(s, tc);

	tc = tcase_create("batches");
	tcase_add_test(tc, boundary_then_add);
	tcase_add_test(tc, batch_by_key);
	tcase_add_test(tc, batch_by_groups);
	tcase_add_test(tc, batch_by_groups_unsorted);
	tcase_add_test(tc, batch_keyless_groups);
	tcase_add_test(tc, stream_mode);
	tcase_add_test(tc, stream_counts_groups);
	tcase_add_test(tc, stream_batch_key);
	suite_add_tcase(s, tc);

	tc = tcase_create("view");
	tcase_add_test(tc, view_after_reset);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(group_suite());
}
