/*
 * check_preset.c - tests of the --like table (src/preset.c): which row a
 * name or name@version selects, the refusals that say what to type, and
 * the rows' own consistency (names, estimators and modes that exist,
 * release ranges that do not overlap).  What each row's numbers are is
 * tested on real batches by tests/presets/reference.py --check.
 */
#include <check.h>
#include <string.h>

#include "loss_weights.h"
#include "preset.h"
#include "testutil.h"

/* The release of the row arg selects (status 0 expected). */
static const char *
pick(const char *arg)
{
	const struct preset *p = NULL;
	struct diag d = { 0 };

	ck_assert_msg(preset_find(arg, &p, &d) == 0, "%s: %s", arg, d.msg);
	ck_assert_ptr_nonnull(p);
	return p->release;
}

/* A usage error whose message holds frag. */
static void
refused(const char *arg, const char *frag)
{
	const struct preset *p = NULL;
	struct diag d = { 0 };

	ck_assert_int_eq(preset_find(arg, &p, &d), EXIT_USAGE);
	ck_assert_has(d.msg, frag);
	ck_assert_ptr_null(strchr(d.msg, '\n'));
}

/* A usage error whose message lacks frag. */
static void
refused_without(const char *arg, const char *frag)
{
	const struct preset *p = NULL;
	struct diag d = { 0 };

	ck_assert_int_eq(preset_find(arg, &p, &d), EXIT_USAGE);
	ck_assert_ptr_null(strstr(d.msg, frag));
}

START_TEST(plain_names)
{
	static const char *const names[][2] = { { "verl", "0.7.0" },
	    { "trl", "1.9.0" }, { "openrlhf", "0.11.0" },
	    { "nemo-rl", "0.7.0" }, { "areal", "1.0.4" },
	    { "slime", "0.3.1" }, { "skyrl", "0.3.0" } };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ck_assert_str_eq(pick(names[i][0]), names[i][1]);
		ck_assert_str_eq(preset_name(i), names[i][0]);
	}
	ck_assert_ptr_null(preset_name(i));
}
END_TEST

START_TEST(versions)
{
	/* verl changed its seq modes in 0.6.1: 0.6.0 and before (from
	 * 0.4.0) are the old row, 0.6.1 to 0.7.0 the new one. */
	ck_assert_str_eq(pick("verl@0.6.0"), "0.6.0");
	ck_assert_str_eq(pick("verl@v0.6.0"), "0.6.0");
	ck_assert_str_eq(pick("verl@0.5"), "0.6.0");
	ck_assert_str_eq(pick("verl@0.4.1"), "0.6.0");
	ck_assert_str_eq(pick("verl@0.6.1"), "0.7.0");
	ck_assert_str_eq(pick("verl@0.7"), "0.7.0");
	ck_assert_str_eq(pick("verl@0.7.0"), "0.7.0");
	/* OpenRLHF's aggregate_loss arrived in 0.10.3. */
	ck_assert_str_eq(pick("openrlhf@0.10.2"), "0.10.2");
	ck_assert_str_eq(pick("openrlhf@0.10.0"), "0.10.2");
	ck_assert_str_eq(pick("openrlhf@v0.10.1"), "0.10.2");
	ck_assert_str_eq(pick("openrlhf@0.10.3"), "0.11.0");
	ck_assert_str_eq(pick("openrlhf@0.11"), "0.11.0");
	ck_assert_str_eq(pick("nemo-rl@0.3"), "0.3.1");
	ck_assert_str_eq(pick("nemo-rl@0.3.0"), "0.3.1");
	ck_assert_str_eq(pick("nemo-rl@0.4"), "0.7.0");
	ck_assert_str_eq(pick("skyrl@skyrl-v0.3.0"), "0.3.0");
	ck_assert_str_eq(pick("skyrl@0.2"), "0.3.0");
	ck_assert_str_eq(pick("trl@1"), "1.9.0");
	/* A post-release is its release: real tags of both. */
	ck_assert_str_eq(pick("openrlhf@0.10.1.post2"), "0.10.2");
	ck_assert_str_eq(pick("openrlhf@v0.10.1.post1"), "0.10.2");
	ck_assert_str_eq(pick("slime@0.2.0.post1"), "0.3.1");
}
END_TEST

START_TEST(refusals)
{
	/* A version that spans both rules says both spellings. */
	refused("verl@0.6", "--like verl@0.6 is ambiguous");
	refused("verl@0.6", "use --like verl (0.6.1 to 0.7.0), --like "
	    "verl@0.6.0 (0.4.0 to 0.6.0)");
	refused("verl@0", "ambiguous");
	refused("openrlhf@0.10", "use --like openrlhf (0.10.3 to 0.11.0), "
	    "--like openrlhf@0.10.2 (0.10.0 to 0.10.2)");
	refused("nemo-rl@0", "use --like nemo-rl (0.4.0 to 0.7.0), --like "
	    "nemo-rl@0.3.1 (0.3.0 to 0.3.1)");
	/* Outside every row: what rladv knows, and the plain name. */
	refused("verl@0.8", "rladv knows verl's rules of --like verl (0.6.1 "
	    "to 0.7.0), --like verl@0.6.0 (0.4.0 to 0.6.0)");
	refused("verl@0.8", "then use --like verl");
	refused("verl@0.3.9", "rladv knows verl's rules");
	/* before the rows is an earlier release, not a later one */
	refused("verl@0.3.9", "; for an earlier release, check what changed");
	refused("verl@0.8", "; for a later release, check what changed");
	refused("openrlhf@0.9", "for an earlier release");
	/* SkyRL's versions are its skyrl-v* tags; its older skyrl_train-v*
	 * tags (skyrl-train 0.1.0 to 0.4.0) are named and what to type
	 * said, whichever spelling names them */
	refused("skyrl@0.4.0", "for a later release, check what changed, "
	    "then use --like skyrl; skyrl's versions are its skyrl-v* tags, "
	    "and skyrl_train-v0.1.0 to v0.4.0 its older skyrl-train "
	    "releases: they have --like skyrl's advantages and reduce each "
	    "micro-batch as --like skyrl reduces a batch: use --like skyrl "
	    "on batches of one micro-batch");
	refused("skyrl@0.1", "for an earlier release, check what changed, "
	    "then use --like skyrl; skyrl's versions are its skyrl-v* tags");
	refused("skyrl@skyrl_train-v0.4.0", "--like "
	    "skyrl@skyrl_train-v0.4.0: skyrl_train-v0.1.0 to v0.4.0 are "
	    "skyrl's older skyrl-train releases, not skyrl's versions (its "
	    "skyrl-v* tags); they have --like skyrl's advantages");
	refused("skyrl@skyrl_train-v0.3.0", "not skyrl's versions");
	refused("skyrl@skyrl-train-0.2", "not skyrl's versions");
	refused("skyrl_train", "--like skyrl_train: skyrl_train-v0.1.0 to "
	    "v0.4.0 are skyrl's older skyrl-train releases");
	refused("skyrl-train@0.4.0", "use --like skyrl on batches of one "
	    "micro-batch");
	/* a skyrl-v* tag, or a number past skyrl_train's, is skyrl's own */
	refused("skyrl@skyrl-v0.4.0", "then use --like skyrl");
	refused_without("skyrl@skyrl-v0.4.0", "skyrl_train");
	refused("skyrl@0.5", "then use --like skyrl");
	refused_without("skyrl@0.5", "skyrl_train");
	refused("verl@skyrl_train-v0.4.0", "is not a release");
	refused("skyrl_trainx", "unknown framework");
	refused("trl@2", "--like trl (0.16.0 to 1.9.0)");
	/* Not a release. */
	refused("verl@", "\"\" is not a release; write one such as "
	    "verl@0.7.0");
	refused("verl@latest", "is not a release");
	refused("verl@0.6.0.1", "is not a release");
	refused("verl@0..1", "is not a release");
	refused("openrlhf@0.10.1.post", "is not a release");
	refused("slime@0.2.post1", "is not a release");
	refused("slime@0.2.0.post1x", "is not a release");
	refused("verl@0.6.", "is not a release");
	refused("verl@-1", "is not a release");
	/* Not a framework. */
	refused("nope", "unknown framework \"nope\"; use one of: verl, trl, "
	    "openrlhf, nemo-rl, areal, slime, skyrl");
	refused("Verl", "unknown framework");
	refused("@0.7", "unknown framework \"\"");
	refused("averylongframeworknamethatdoesnotfitanywhere@1",
	    "unknown framework");
}
END_TEST

START_TEST(rows)
{
	/* Every row names an estimator and a mode that exist, and its
	 * first and last releases select it alone: two rows whose ranges
	 * overlapped would hold an end of one another, which would then
	 * be ambiguous. */
	const struct preset *p, *got;
	struct diag d = { 0 };
	char arg[64];
	size_t n = 0;

	for (p = preset_table; p->name != NULL; p++, n++) {
		ck_assert_ptr_nonnull(advantage_find(p->estimator));
		ck_assert_ptr_nonnull(loss_weights_find(p->loss));
		ck_assert(p->eps >= 0);
		snprintf(arg, sizeof(arg), "%s@%s", p->name, p->release);
		ck_assert_int_eq(preset_find(arg, &got, &d), 0);
		ck_assert_ptr_eq(got, p);
		snprintf(arg, sizeof(arg), "%s@%s", p->name, p->since);
		ck_assert_int_eq(preset_find(arg, &got, &d), 0);
		ck_assert_ptr_eq(got, p);
	}
	ck_assert_uint_eq(n, 10);
}
END_TEST

START_TEST(defaults_by_framework)
{
	/* What a plain --like gives without -a and -g. */
	static const char *const want[][3] = {
		{ "verl", "grpo", "token" }, { "trl", "grpo", "token" },
		{ "openrlhf", "grpo", "token" }, { "nemo-rl", "loo", "token" },
		{ "areal", "grpo-whiten", "token" }, { "slime", "grpo", "seq" },
		{ "skyrl", "grpo", "token" } };
	const struct preset *p;
	struct diag d = { 0 };
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_int_eq(preset_find(want[i][0], &p, &d), 0);
		ck_assert_str_eq(p->estimator, want[i][1]);
		ck_assert_str_eq(p->loss, want[i][2]);
	}
}
END_TEST

static Suite *
preset_suite(void)
{
	Suite *s = suite_create("preset");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, plain_names);
	tcase_add_test(tc, versions);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, rows);
	tcase_add_test(tc, defaults_by_framework);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(preset_suite());
}
