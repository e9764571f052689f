/*
 * check_slab.c - tests of src/slab.c, the arrays of a structure in one
 * allocation: the two passes, where each array lands, zeroing, and the
 * sizes that overflow.
 */
#include <check.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "slab.h"
#include "testutil.h"

struct three {
	double	*r;
	char	*c;
	size_t	*k;
};

/* Three arrays of 3 doubles, 5 chars and 0 size_ts, as a structure lists
 * them: passes counted in *runs. */
START_TEST(two_passes)
{
	struct slab s = SLAB_INIT;
	struct three t = { NULL, NULL, NULL };
	size_t a = alignof(max_align_t), i;
	int runs = 0;

	while (slab_pass(&s)) {
		runs++;
		t.r = slab_take(&s, 3, sizeof(*t.r));
		t.c = slab_take(&s, 5, sizeof(*t.c));
		t.k = slab_take(&s, 0, sizeof(*t.k));
		if (runs == 1)
			ck_assert(t.r == NULL && t.c == NULL && t.k == NULL);
	}
	ck_assert_int_eq(runs, 2);
	ck_assert_ptr_nonnull(s.mem);
	/* 24 bytes rounded up to the alignment, then 5 rounded up. */
	ck_assert(t.r == (double *)(void *)s.mem);
	ck_assert(t.c == s.mem + (24 + a - 1) / a * a);
	ck_assert(t.k == (size_t *)(void *)(t.c + (5 + a - 1) / a * a));
	ck_assert_uint_eq((uintptr_t)t.c % a, 0);
	ck_assert_uint_eq((uintptr_t)t.k % a, 0);
	for (i = 0; i < 3; i++)
		ck_assert(t.r[i] == 0.0);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(t.c[i], 0);
	t.r[2] = 1.5;
	t.c[4] = 'x';
	ck_assert(t.r[2] == 1.5 && t.c[4] == 'x');
	ck_assert_int_eq(slab_pass(&s), 0);
	free(s.mem);
}
END_TEST

/* Nothing listed: a block all the same, which free() takes. */
START_TEST(empty)
{
	struct slab s = SLAB_INIT;
	int runs = 0;

	while (slab_pass(&s))
		runs++;
	ck_assert_int_eq(runs, 2);
	ck_assert_ptr_nonnull(s.mem);
	free(s.mem);
}
END_TEST

/* Sizes past a size_t: no block, the list not run a second time. */
START_TEST(overflow)
{
	struct slab s = SLAB_INIT;
	int runs = 0;

	while (slab_pass(&s)) {
		runs++;
		(void)slab_take(&s, SIZE_MAX / 4, sizeof(double));
	}
	ck_assert_int_eq(runs, 1);
	ck_assert_ptr_null(s.mem);

	s = (struct slab)SLAB_INIT;
	runs = 0;
	while (slab_pass(&s)) {
		runs++;
		(void)slab_take(&s, SIZE_MAX / 2, 1);
		(void)slab_take(&s, SIZE_MAX / 2, 1);
	}
	ck_assert_int_eq(runs, 1);
	ck_assert_ptr_null(s.mem);
}
END_TEST

static Suite *
slab_suite(void)
{
	Suite *s = suite_create("slab");
	TCase *tc = tcase_create("slab");

	tcase_add_test(tc, two_passes);
	tcase_add_test(tc, empty);
	tcase_add_test(tc, overflow);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(slab_suite());
}
