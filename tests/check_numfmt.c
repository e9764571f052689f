/*
 * check_numfmt.c - tests of "%.*g" without printf (src/numfmt.c): the
 * bytes printf writes, on chosen and on random doubles at every
 * precision, and the cases it leaves to printf.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "numfmt.h"
#include "testutil.h"

/* n = numfmt_g() of v, or printf's where it gave none. */
static void
fmt(double v, int dg, char *buf)
{
	if (numfmt_g(v, dg, buf) == 0)
		snprintf(buf, 32, "%.*g", dg, v);
}

/*
 * The same bytes as "%.*g" on random doubles of every magnitude rladv
 * writes (advantages, weights: 1e-30 .. 1e30), at every precision, on
 * values next to a power of ten, and on ties, which printf rounds to
 * even (numfmt_g() leaves them to it).
 */
START_TEST(number_as_printf)
{
	static const double v[] = {
		0.5, 2.5, 0.125, 1.5e-5, 9.5, 0.37796333, 1.33065428e-05,
		999999999.5, 9999999995, 0.000099999999995, 1e-5, 1e-4,
		9.99999999e-5, 123456.5, 1e15, 1e16, 0.30000000000000004
	};
	char a[32], b[32];
	unsigned long long x = 2463534242ULL;
	double r;
	size_t i;
	int dg;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (dg = 1; dg <= 17; dg++) {
			fmt(v[i], dg, a);
			snprintf(b, sizeof(b), "%.*g", dg, v[i]);
			ck_assert_msg(strcmp(a, b) == 0, "%.17g at %d: %s, "
			    "printf %s", v[i], dg, a, b);
			fmt(-v[i], dg, a);
			snprintf(b, sizeof(b), "%.*g", dg, -v[i]);
			ck_assert_str_eq(a, b);
		}
	for (i = 0; i < 300000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = ((double)(x >> 11) / 9007199254740992.0) *
		    pow(10, (double)((int)(x % 61) - 30));
		if (x & 1)
			r = -r;
		if (r == 0)
			continue;
		dg = 1 + (int)(x >> 5) % 17;
		fmt(r, dg, a);
		snprintf(b, sizeof(b), "%.*g", dg, r);
		ck_assert_msg(strcmp(a, b) == 0, "%.17g at %d: %s, printf %s",
		    r, dg, a, b);
	}
}
END_TEST


/* What it formats itself: the numbers of a typical run, and the lengths
 * it returns; what it leaves to printf. */
START_TEST(numfmt_own)
{
	char buf[32];

	ck_assert_uint_eq(numfmt_g(0.37796333, 9, buf), 10);
	ck_assert_str_eq(buf, "0.37796333");
	ck_assert_uint_eq(numfmt_g(-1.33065428e-05, 9, buf), 15);
	ck_assert_str_eq(buf, "-1.33065428e-05");
	ck_assert_uint_eq(numfmt_g(1.0 / 3, 9, buf), 11);
	ck_assert_str_eq(buf, "0.333333333");
	ck_assert_uint_eq(numfmt_g(0.99999999999, 9, buf), 1);
	ck_assert_str_eq(buf, "1");
	ck_assert_uint_eq(numfmt_g(-123456.75, 9, buf), 10);
	ck_assert_str_eq(buf, "-123456.75");
	ck_assert_uint_eq(numfmt_g(1e-7, 9, buf), 5);
	ck_assert_str_eq(buf, "1e-07");
	/* A tie (9.5 to one digit), 16 digits, a subnormal, a number
	 * of more integer digits than asked for: printf's. */
	ck_assert_uint_eq(numfmt_g(9.5, 1, buf), 0);
	ck_assert_uint_eq(numfmt_g(123456789012.0, 9, buf), 0);
	ck_assert_uint_eq(numfmt_g(0.1, 16, buf), 0);
	ck_assert_uint_eq(numfmt_g(4.9406564584124654e-324, 9, buf), 0);
}
END_TEST

static Suite *
numfmt_suite(void)
{
	Suite *s = suite_create("numfmt");
	TCase *tc = tcase_create("g");

	tcase_add_test(tc, number_as_printf);
	tcase_add_test(tc, numfmt_own);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(numfmt_suite());
}
