/*
 * check_keymap.c - tests of the hash table (src/keymap.c): dense indexes
 * in the order keys came, values zeroed and kept beside their keys as
 * the table grows, keys that differ only in length or in a NUL byte,
 * clearing (both ways: every slot, or only the used ones), and the bits
 * of the hash function, which MS-GRPO's sampled seeds depend on.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "keymap.h"
#include "testutil.h"

START_TEST(indexes_in_order)
{
	struct keymap m;
	size_t len;
	int added;

	keymap_init(&m, 0);
	ck_assert_uint_eq(keymap_count(&m), 0);
	ck_assert(keymap_find(&m, "a", 1) == KEYMAP_NONE);
	ck_assert_uint_eq(keymap_get(&m, "sa", 2, &added), 0);
	ck_assert_int_eq(added, 1);
	ck_assert_uint_eq(keymap_get(&m, "sb", 2, &added), 1);
	ck_assert_int_eq(added, 1);
	ck_assert_uint_eq(keymap_get(&m, "sa", 2, &added), 0);
	ck_assert_int_eq(added, 0);
	ck_assert_uint_eq(keymap_get(&m, "n10", 3, NULL), 2);
	ck_assert_uint_eq(keymap_count(&m), 3);
	ck_assert_uint_eq(keymap_find(&m, "sb", 2), 1);
	ck_assert_uint_eq(keymap_find(&m, "n10", 3), 2);
	ck_assert(keymap_find(&m, "n1", 2) == KEYMAP_NONE);
	ck_assert(memcmp(keymap_key(&m, 2, &len), "n10", 3) == 0);
	ck_assert_uint_eq(len, 3);
	keymap_free(&m);
	ck_assert_uint_eq(keymap_count(&m), 0);
}
END_TEST

START_TEST(odd_keys)
{
	struct keymap m;
	size_t len;

	keymap_init(&m, 0);
	/* The empty key, with and without a pointer, is one key. */
	ck_assert_uint_eq(keymap_get(&m, NULL, 0, NULL), 0);
	ck_assert_uint_eq(keymap_get(&m, "", 0, NULL), 0);
	ck_assert_str_eq(keymap_key(&m, 0, &len), "");
	ck_assert_uint_eq(len, 0);
	/* A NUL byte is part of a key: "a", "a\0" and "a\0b" differ. */
	ck_assert_uint_eq(keymap_get(&m, "a", 1, NULL), 1);
	ck_assert_uint_eq(keymap_get(&m, "a\0", 2, NULL), 2);
	ck_assert_uint_eq(keymap_get(&m, "a\0b", 3, NULL), 3);
	ck_assert_uint_eq(keymap_find(&m, "a\0", 2), 2);
	ck_assert_uint_eq(keymap_find(&m, NULL, 0), 0);
	keymap_free(&m);
}
END_TEST

struct val {
	double		sum;
	unsigned	n;
};

START_TEST(values_survive_growth)
{
	struct keymap m;
	struct val *v;
	char key[32];
	size_t i, k;
	int n;

	keymap_init(&m, sizeof(struct val));
	/* 1000 keys, each seen (i % 7) + 1 times with values i: key i holds
	 * n = (i % 7) + 1 and sum = i * n. */
	for (i = 0; i < 1000; i++) {
		for (k = 0; k <= i % 7; k++) {
			n = snprintf(key, sizeof(key), "s%zu", i);
			v = keymap_val(&m, keymap_get(&m, key, n, NULL));
			v->sum += (double)i;
			v->n++;
		}
	}
	ck_assert_uint_eq(keymap_count(&m), 1000);
	for (i = 0; i < 1000; i++) {
		n = snprintf(key, sizeof(key), "s%zu", i);
		k = keymap_find(&m, key, n);
		ck_assert_uint_eq(k, i);
		v = keymap_val(&m, k);
		ck_assert_uint_eq(v->n, i % 7 + 1);
		ck_assert(v->sum == (double)(i * (i % 7 + 1)));
	}
	/* Key 999 is "s999"; key 12 is "s12". */
	ck_assert(memcmp(keymap_key(&m, 999, NULL), "s999", 4) == 0);
	ck_assert(memcmp(keymap_key(&m, 12, NULL), "s12", 3) == 0);
	keymap_free(&m);
}
END_TEST

START_TEST(clear_and_reuse)
{
	struct keymap m;
	struct val *v;
	char key[32];
	size_t i;
	int n, added;

	keymap_init(&m, sizeof(struct val));
	for (i = 0; i < 5000; i++) {
		n = snprintf(key, sizeof(key), "k%zu", i);
		keymap_get(&m, key, n, NULL);
	}
	/* Every slot cleared (the map is full enough). */
	keymap_clear(&m);
	ck_assert_uint_eq(keymap_count(&m), 0);
	ck_assert(keymap_find(&m, "k0", 2) == KEYMAP_NONE);
	/* Indexes start from 0 again, values zeroed. */
	v = keymap_val(&m, keymap_get(&m, "k4999", 5, &added));
	ck_assert_int_eq(added, 1);
	ck_assert_uint_eq(v->n, 0);
	v->n = 7;
	ck_assert_uint_eq(keymap_get(&m, "k7", 2, NULL), 1);
	/* Two keys in 16384 slots: only their slots are cleared, and every
	 * other key is gone too. */
	keymap_clear(&m);
	for (i = 0; i < 5000; i++) {
		n = snprintf(key, sizeof(key), "k%zu", i);
		ck_assert(keymap_find(&m, key, n) == KEYMAP_NONE);
	}
	for (i = 0; i < 3; i++) {
		n = snprintf(key, sizeof(key), "x%zu", i);
		ck_assert_uint_eq(keymap_get(&m, key, n, NULL), i);
	}
	ck_assert_uint_eq(keymap_find(&m, "x2", 2), 2);
	ck_assert(keymap_find(&m, "k4999", 5) == KEYMAP_NONE);
	v = keymap_val(&m, 0);
	ck_assert_uint_eq(v->n, 0);
	keymap_free(&m);
}
END_TEST

START_TEST(hash_bits)
{
	const char *s = "abcdefghijklmnopqrstuvwxyz";
	const char *t = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
	uint64_t h[17];
	size_t i, j;

	/*
	 * The values of the formula in keymap.c, worked through by a
	 * separate implementation: group key hashes seed MS-GRPO's sampling,
	 * so a change of these bits changes sampled advantages.
	 */
	ck_assert(keymap_hash("", 0, 0) == 0x9ca066f1a4ab2eeaULL);
	ck_assert(keymap_hash("sa", 2, 0) == 0xe7f553b0b2f46da3ULL);
	ck_assert(keymap_hash(s, 26, 0) == 0xdad3c4c9ce22eeffULL);
	ck_assert(keymap_hash(s, 26, 1) == 0x125049a919544e4dULL);
	/* Every prefix length 0..16 hashes differently (the tail bytes and
	 * the length both count). */
	for (i = 0; i <= 16; i++)
		h[i] = keymap_hash(s, i, 0);
	for (i = 0; i <= 16; i++)
		for (j = i + 1; j <= 16; j++)
			ck_assert_msg(h[i] != h[j], "prefix %zu == %zu", i, j);
	/* "sa" and "na" (string and number keys) differ. */
	ck_assert(keymap_hash("sa", 2, 0) != keymap_hash("na", 2, 0));
	/* Every length 0..40 at every alignment, the tail of each (n % 8
	 * bytes) read by loads that overlap: the values of the formula as
	 * a copy of the tail gave them, folded into one. */
	for (h[0] = 0, j = 0; j < 8; j++)
		for (i = 0; i <= 40; i++)
			h[0] = h[0] * 31 + keymap_hash(t + j, i, j);
	ck_assert(h[0] == 0xfb06173fa6c4056dULL);
}
END_TEST

static Suite *
keymap_suite(void)
{
	Suite *s = suite_create("keymap");
	TCase *tc;

	tc = tcase_create("keymap");
	tcase_add_test(tc, indexes_in_order);
	tcase_add_test(tc, odd_keys);
	tcase_add_test(tc, values_survive_growth);
	tcase_add_test(tc, clear_and_reuse);
	tcase_add_test(tc, hash_bits);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(keymap_suite());
}
