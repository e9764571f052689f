/*
 * check_gunzip.c - tests of the gzip decoder (src/gunzip.c), built with
 * ISA-L or zlib alike (make check runs both builds): a member decodes to
 * its bytes however the input and the output are cut, several members
 * follow each other (ISA-L reads past a member's end: the bytes it took
 * must come back, even when they came one call before), an empty member,
 * and each way to fail: bytes after the last member, a member cut short,
 * a damaged CRC, a second member whose magic is half right.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gunzip.h"
#include "testutil.h"

struct z {
	unsigned char	*p;
	size_t		 len;
};

/* t[0, n) as one gzip member (zlib, level 6), appended to z. */
static void
member(struct z *z, const void *t, size_t n)
{
	z_stream zs;
	size_t cap;

	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY), Z_OK);
	cap = deflateBound(&zs, n) + 32;
	z->p = realloc(z->p, z->len + cap);
	ck_assert_ptr_nonnull(z->p);
	zs.next_in = (unsigned char *)(uintptr_t)t;
	zs.avail_in = (uInt)n;
	zs.next_out = z->p + z->len;
	zs.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	z->len += zs.total_out;
	deflateEnd(&zs);
}

static void
append(struct z *z, const void *p, size_t n)
{
	z->p = realloc(z->p, z->len + n);
	ck_assert_ptr_nonnull(z->p);
	memcpy(z->p + z->len, p, n);
	z->len += n;
}

/* Text with runs and noise, so the members have matches and literals. */
static char *
text(size_t n, unsigned seed)
{
	char *t = malloc(n + 1);
	uint32_t x = seed * 2654435761u + 7;
	size_t i;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		t[i] = (i / 61) % 4 == 0 ? (char)('0' + (x >> 16) % 10) :
		    "{\"prompt_id\": \"p\", \"logprobs\": [-0.25]}\n"[i % 41];
	}
	return t;
}

/*
 * Decodes z, giving the decoder at most inmax bytes in and outmax bytes
 * of room a call; returns the status of the first error, or of
 * gunzip_end(), with the bytes decoded in *out (*outlen of them).
 */
static int
decode(const struct z *z, size_t inmax, size_t outmax, char **out,
    size_t *outlen, struct diag *d)
{
	struct gunzip *g = gunzip_open();
	struct gunzip_io io;
	size_t off = 0, cap = 1 << 16, room, k;
	int rc = 0;

	ck_assert_ptr_nonnull(g);
	memset(d, 0, sizeof(*d));
	*out = malloc(cap);
	*outlen = 0;
	for (;;) {
		k = z->len - off < inmax ? z->len - off : inmax;
		io.in = z->p + off;
		io.avail_in = k;
		do {
			if (cap - *outlen < outmax) {
				cap = 2 * cap + outmax;
				*out = realloc(*out, cap);
				ck_assert_ptr_nonnull(*out);
			}
			room = outmax;
			io.out = (unsigned char *)*out + *outlen;
			io.avail_out = room;
			rc = gunzip_run(g, &io, d);
			*outlen += room - io.avail_out;
			/* Full output: call again; else the input is used. */
		} while (rc == 0 && io.avail_out == 0);
		if (rc != 0)
			break;
		ck_assert_uint_eq(io.avail_in, 0);
		off += k;
		if (k == 0) {
			rc = gunzip_end(g, d);
			break;
		}
	}
	gunzip_close(g);
	return rc;
}

/* z decodes to want[0, n) with every way of cutting given. */
static void
decodes_to(const struct z *z, const char *want, size_t n)
{
	static const size_t cut[][2] = {
		{ (size_t)1 << 30, (size_t)1 << 30 }, { 1, 1 << 20 },
		{ 3, 7 }, { 8, 1 }, { 9, 4096 }, { 65536, 100 },
	};
	struct diag d;
	size_t i, len;
	char *out;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		ck_assert_msg(decode(z, cut[i][0], cut[i][1], &out, &len,
		    &d) == 0, "in %zu, out %zu: %s", cut[i][0], cut[i][1],
		    d.msg);
		ck_assert_msg(len == n && memcmp(out, want, n) == 0,
		    "in %zu, out %zu: %zu bytes, expected %zu", cut[i][0],
		    cut[i][1], len, n);
		free(out);
	}
}

START_TEST(one_member)
{
	size_t n = 300000;
	char *t = text(n, 1);
	struct z z = { 0 };

	member(&z, t, n);
	decodes_to(&z, t, n);
	free(z.p);
	free(t);
}
END_TEST

START_TEST(several_members)
{
	/* Three members of different sizes, one of them empty, the first
	 * of 5 bytes (its trailer is within ISA-L's first 8-byte read). */
	size_t n1 = 5, n3 = 70000;
	char *t = text(n1 + n3, 2);
	struct z z = { 0 };

	member(&z, t, n1);
	member(&z, "", 0);
	member(&z, t + n1, n3);
	decodes_to(&z, t, n1 + n3);
	/* Many tiny members back to back. */
	free(z.p);
	memset(&z, 0, sizeof(z));
	for (size_t i = 0; i < 40; i++)
		member(&z, t + i, 1);
	decodes_to(&z, t, 40);
	free(z.p);
	free(t);
}
END_TEST

START_TEST(empty_input)
{
	struct z z = { 0 };
	struct diag d;
	size_t len;
	char *out;

	/* No bytes at all ends cleanly (input.c never sends none: it
	 * sniffs the magic first). */
	ck_assert_int_eq(decode(&z, 64, 64, &out, &len, &d), 0);
	ck_assert_uint_eq(len, 0);
	free(out);
}
END_TEST

/* Decoding z with the given cuts fails with status 1 and a message
 * containing what; the bytes before the failure are in *out. */
static void
fails(const struct z *z, size_t inmax, size_t outmax, const char *what,
    const char *want, size_t nwant)
{
	struct diag d;
	size_t len;
	char *out;

	ck_assert_int_eq(decode(z, inmax, outmax, &out, &len, &d), 1);
	ck_assert_int_eq(d.status, 1);
	ck_assert_has(d.msg, what);
	if (want != NULL)
		ck_assert_msg(len == nwant && memcmp(out, want, nwant) == 0,
		    "%zu bytes decoded before the error, expected %zu", len,
		    nwant);
	free(out);
}

START_TEST(trailing_garbage)
{
	size_t n = 1000;
	char *t = text(n, 3);
	struct z z = { 0 };

	member(&z, t, n);
	append(&z, "junk\n", 5);
	/* Every byte of the member is decoded before the error. */
	fails(&z, (size_t)1 << 30, (size_t)1 << 30, "trailing garbage", t,
	    n);
	fails(&z, 1, 5, "trailing garbage", t, n);
	/* Zero padding, as tar leaves, is garbage too (as for gzip -t). */
	z.len -= 5;
	append(&z, "\0\0\0\0", 4);
	fails(&z, 7, 1 << 20, "trailing garbage", t, n);
	free(z.p);
	free(t);
}
END_TEST

START_TEST(bad_second_magic)
{
	/* 0x1f then not 0x8b: it starts as a member and fails as one. */
	size_t n = 500;
	char *t = text(n, 4);
	struct z z = { 0 };

	member(&z, t, n);
	append(&z, "\x1f\x00\x08\x00\x00\x00\x00\x00\x00\x03", 10);
	fails(&z, 4096, 4096, "gzip", t, n);
	free(z.p);
	free(t);
}
END_TEST

START_TEST(truncated)
{
	size_t n = 200000;
	char *t = text(n, 5);
	struct z z = { 0 };
	size_t full;

	member(&z, t, n);
	full = z.len;
	/* Cut in the data, in the trailer, after the header. */
	z.len = full / 2;
	fails(&z, 1000, 4096, "truncated", NULL, 0);
	z.len = full - 3;
	fails(&z, 1 << 20, 1 << 20, "truncated", NULL, 0);
	z.len = 10;
	fails(&z, 1, 1, "truncated", NULL, 0);
	/* A second member cut after its first byte. */
	z.len = full;
	append(&z, "\x1f", 1);
	fails(&z, 1 << 20, 1 << 20, "truncated", t, n);
	free(z.p);
	free(t);
}
END_TEST

START_TEST(bad_crc)
{
	size_t n = 5000;
	char *t = text(n, 6);
	struct z z = { 0 };

	member(&z, t, n);
	z.p[z.len - 6] ^= 0x40;		/* in the CRC-32 */
	fails(&z, 1 << 20, 1 << 20, "corrupt gzip data", NULL, 0);
	fails(&z, 1, 3, "corrupt gzip data", NULL, 0);
	z.p[z.len - 6] ^= 0x40;
	z.p[z.len - 2] ^= 0x01;		/* in the length */
	fails(&z, 1 << 20, 1 << 20, "corrupt gzip data", NULL, 0);
	free(z.p);
	free(t);
}
END_TEST

START_TEST(library_named)
{
#ifdef RLADV_ISAL
	ck_assert_str_eq(gunzip_library(), "ISA-L");
#else
	ck_assert_str_eq(gunzip_library(), "zlib");
#endif
}
END_TEST

static Suite *
gunzip_suite(void)
{
	Suite *s = suite_create("gunzip");
	TCase *tc = tcase_create("decode");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, one_member);
	tcase_add_test(tc, several_members);
	tcase_add_test(tc, empty_input);
	tcase_add_test(tc, trailing_garbage);
	tcase_add_test(tc, bad_second_magic);
	tcase_add_test(tc, truncated);
	tcase_add_test(tc, bad_crc);
	tcase_add_test(tc, library_named);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(gunzip_suite());
}
