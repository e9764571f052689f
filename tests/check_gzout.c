/*
 * check_gzout.c - tests of the threaded gzip writer (src/gzout.c), built
 * with ISA-L or zlib alike (make check runs both builds): the stream
 * inflates to the input at chunk boundaries and between them, its bytes
 * do not depend on the number of threads or on how the input was cut
 * into writes at any level (levels 1-6 go through ISA-L where it is
 * built in, 7-9 through zlib), the trailer holds the CRC-32 and length,
 * each chunk is primed with the input before it, and a sink that fails
 * stops it without a hang, and workers that start late compress each
 * chunk once.
 */
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "gzout.h"
#include "testutil.h"

#define MIB	(1u << 20)

struct mem {
	unsigned char	*p;
	size_t		 len, cap;
	int		 calls, fail_at;	/* fail_at: 0 never */
};

static int
mem_sink(void *arg, const void *p, size_t n, struct diag *d)
{
	struct mem *m = arg;

	if (++m->calls == m->fail_at)
		return diag_set(d, EXIT_IO, "sink: no space");
	if (m->len + n > m->cap) {
		m->cap = (m->len + n) * 2;
		m->p = realloc(m->p, m->cap);
		ck_assert_ptr_nonnull(m->p);
	}
	memcpy(m->p + m->len, p, n);
	m->len += n;
	return 0;
}

/* n bytes of JSON-like text, some of it repeating (as rladv's output),
 * some of it not, so the compressor has matches across chunks. */
static unsigned char *
text(size_t n, unsigned seed)
{
	unsigned char *t = malloc(n ? n : 1);
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		t[i] = (i / 97) % 3 == 0 ? (unsigned char)('a' + (x >> 16) % 26)
		    : (unsigned char)"{\"reward\": 0.5, \"logprobs\": [-1]}\n"
		    [i % 35];
	}
	return t;
}

/* Compresses t[0, n) with "threads" threads in writes of "step" bytes. */
static struct mem
squeeze(const unsigned char *t, size_t n, int level, int threads,
    size_t step)
{
	struct mem m;
	struct diag d;
	struct gzout *z;
	size_t o, k;

	memset(&m, 0, sizeof(m));
	memset(&d, 0, sizeof(d));
	z = gzout_open(level, threads, mem_sink, &m, &d);
	ck_assert_ptr_nonnull(z);
	for (o = 0; o < n; o += k) {
		k = n - o < step ? n - o : step;
		ck_assert_int_eq(gzout_write(z, t + o, k, &d), 0);
	}
	ck_assert_int_eq(gzout_close(z, 0, &d), 0);
	return m;
}

/* The stream inflates (as gzip, one member) to exactly t[0, n). */
static void
inflates_to(const struct mem *m, const unsigned char *t, size_t n)
{
	z_stream zs;
	unsigned char *out = malloc(n + 1);
	int zr;

	ck_assert_ptr_nonnull(out);
	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = m->p;
	zs.avail_in = (uInt)m->len;
	zs.next_out = out;
	zs.avail_out = (uInt)n + 1;
	zr = inflate(&zs, Z_FINISH);
	ck_assert_msg(zr == Z_STREAM_END, "inflate: %d (%s)", zr,
	    zs.msg ? zs.msg : "");
	ck_assert_uint_eq(zs.total_out, n);
	ck_assert_uint_eq(zs.avail_in, 0);	/* one member, nothing after */
	ck_assert(memcmp(out, t, n) == 0);
	inflateEnd(&zs);
	free(out);
}

/*
 * Late workers: this program's pthread_create() and CRC-32 functions
 * stand in front of the C library's and the compressor's (gzout.o calls
 * them by name), so a test can start each worker 100 ms late, slow the
 * first chunk the workers take by 200 ms, and count the chunks workers
 * take (gzout sums each chunk's CRC-32 once per compression, on the
 * thread that compresses it).
 */
static int		 late;		/* delay workers and their 1st chunk */
static pthread_t	 main_thread;
static int		 worker_chunks;	/* CRC-32s of whole chunks, workers' */
static pthread_mutex_t	 count_mu = PTHREAD_MUTEX_INITIALIZER;

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

struct late_start {
	void	*(*fn)(void *);
	void	*arg;
};

static void *
late_start(void *arg)
{
	struct late_start ls = *(struct late_start *)arg;

	free(arg);
	nap(100);
	return ls.fn(ls.arg);
}

int
pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
    void *arg)
{
	int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
	    void *);
	struct late_start *ls;

	/* POSIX's way to a function from dlsym(): ISO C has none. */
	*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	if (!late)
		return real(t, a, fn, arg);
	ls = malloc(sizeof(*ls));
	ck_assert_ptr_nonnull(ls);
	ls->fn = fn;
	ls->arg = arg;
	return real(t, a, late_start, ls);
}

/* A worker's chunk (a whole one: the test's chunks are all whole):
 * counted, and the first of all slowed, so the other worker runs on. */
static void
chunk_seen(size_t n)
{
	int first;

	if (!late || n != MIB || pthread_equal(pthread_self(), main_thread))
		return;
	pthread_mutex_lock(&count_mu);
	first = worker_chunks++ == 0;
	pthread_mutex_unlock(&count_mu);
	if (first)
		nap(200);
}

uLong
crc32(uLong crc, const Bytef *p, uInt n)
{
	uLong (*real)(uLong, const Bytef *, uInt);

	*(void **)&real = dlsym(RTLD_NEXT, "crc32");
	if (p != NULL)
		chunk_seen(n);
	return real(crc, p, n);
}

uint32_t	crc32_gzip_refl(uint32_t, const unsigned char *, uint64_t);

uint32_t
crc32_gzip_refl(uint32_t crc, const unsigned char *p, uint64_t n)
{
	uint32_t (*real)(uint32_t, const unsigned char *, uint64_t);

	*(void **)&real = dlsym(RTLD_NEXT, "crc32_gzip_refl");
	chunk_seen((size_t)n);
	return real(crc, p, n);
}

START_TEST(round_trip_sizes)
{
	/* Empty, tiny, one byte short of a chunk, a chunk, one past, many. */
	static const size_t sizes[] = { 0, 1, 100, MIB - 1, MIB, MIB + 1,
	    3 * MIB + 12345 };
	unsigned char *t;
	struct mem m;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		t = text(sizes[i], (unsigned)i);
		m = squeeze(t, sizes[i], 1, 3, 65536);
		inflates_to(&m, t, sizes[i]);
		/* The header: gzip, deflate, no flags, level 1 is "fastest". */
		ck_assert(m.p[0] == 0x1f && m.p[1] == 0x8b && m.p[2] == 8 &&
		    m.p[3] == 0 && m.p[8] == 4);
		free(m.p);
		free(t);
	}
}
END_TEST

START_TEST(same_bytes_any_threads)
{
	static const int level[] = { 1, 3, 6, 9 };
	size_t n = 5 * MIB + 777, i;
	unsigned char *t = text(n, 7);
	struct mem a, b, c;

	for (i = 0; i < sizeof(level) / sizeof(level[0]); i++) {
		a = squeeze(t, n, level[i], 1, MIB);
		b = squeeze(t, n, level[i], 2, 4096);
		c = squeeze(t, n, level[i], 8, 3 * MIB);
		ck_assert_uint_eq(a.len, b.len);
		ck_assert_uint_eq(a.len, c.len);
		ck_assert(memcmp(a.p, b.p, a.len) == 0);
		ck_assert(memcmp(a.p, c.p, a.len) == 0);
		inflates_to(&a, t, n);
		free(a.p);
		free(b.p);
		free(c.p);
	}
	free(t);
}
END_TEST

START_TEST(primed_every_level)
{
	/* 2 KiB of noise repeated: a chunk primed with the input before it
	 * matches from its first byte, one not primed stores the noise
	 * again.  Four chunks cost less than four times one chunk by most
	 * of three copies of the noise, at every level and with either
	 * library (the output does not depend on the machine, so neither
	 * does the test).  The trailer holds the CRC-32 and the length. */
	static const int level[] = { 1, 2, 3, 6, 9 };
	size_t p = 2048, n = 4 * MIB, i;
	unsigned char *u = malloc(n), *e;
	uint32_t x = 12345;
	struct mem m, one;

	ck_assert_ptr_nonnull(u);
	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		u[i] = i < p ? (unsigned char)(x >> 23) : u[i - p];
	}
	for (i = 0; i < sizeof(level) / sizeof(level[0]); i++) {
		one = squeeze(u, MIB, level[i], 4, 300000);
		m = squeeze(u, n, level[i], 4, 300000);
		inflates_to(&m, u, n);
		ck_assert_msg(m.len + 2 * p < 4 * one.len, "level %d: %zu "
		    "bytes for 4 chunks, %zu for one", level[i], m.len,
		    one.len);
		e = m.p + m.len - 8;
		ck_assert_uint_eq(e[0] | e[1] << 8 | e[2] << 16 |
		    (uLong)e[3] << 24, crc32(crc32(0, Z_NULL, 0), u, (uInt)n));
		ck_assert_uint_eq(e[4] | e[5] << 8 | e[6] << 16 |
		    (uLong)e[7] << 24, n);
		free(m.p);
		free(one.p);
	}
	free(u);
}
END_TEST

START_TEST(trailer_and_dictionary)
{
	/* The trailer is the CRC-32 and length of the whole input; and the
	 * chunks are primed with the input before them: text that repeats
	 * with a period of 1000 bytes compresses as well across the 1 MiB
	 * cuts as a single stream does (within 1%). */
	size_t n = 4 * MIB, i;
	unsigned char *t = text(1000, 3), *u = malloc(n);
	struct mem m;
	uLong crc, single;
	const unsigned char *e;

	ck_assert_ptr_nonnull(u);
	for (i = 0; i < n; i++)
		u[i] = t[i % 1000];
	m = squeeze(u, n, 9, 2, 100000);
	inflates_to(&m, u, n);
	e = m.p + m.len - 8;
	crc = crc32(crc32(0, Z_NULL, 0), u, (uInt)n);
	ck_assert_uint_eq(e[0] | e[1] << 8 | e[2] << 16 | (uLong)e[3] << 24,
	    crc);
	ck_assert_uint_eq(e[4] | e[5] << 8 | e[6] << 16 | (uLong)e[7] << 24,
	    n);
	ck_assert(m.p[8] == 2);	/* level 9: "slowest" */
	single = compressBound(n);
	{
		unsigned char *c = malloc(single);

		ck_assert_ptr_nonnull(c);
		ck_assert_int_eq(compress2(c, &single, u, n, 9), Z_OK);
		free(c);
	}
	ck_assert_msg(m.len < single + single / 100 + 64,
	    "%zu bytes against %lu for one stream", m.len, single);
	free(m.p);
	free(u);
	free(t);
}
END_TEST

START_TEST(late_workers_once)
{
	/* Workers that start after the caller's thread has filled the ring
	 * once over (2 workers: 5 jobs) must begin at the job they were
	 * started for, and a chunk taken by one worker must not be taken
	 * by another while it is compressed: 12 whole chunks, the first
	 * compressed by the caller's thread, so 11 by the workers; and the
	 * bytes those of one thread. */
	size_t n = 12 * MIB;
	unsigned char *t = text(n, 9);
	struct mem a, b;

	a = squeeze(t, n, 1, 1, MIB);
	main_thread = pthread_self();
	worker_chunks = 0;
	late = 1;
	b = squeeze(t, n, 1, 2, MIB);
	late = 0;
	ck_assert_int_eq(worker_chunks, 11);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert(memcmp(a.p, b.p, a.len) == 0);
	free(a.p);
	free(b.p);
	free(t);
}
END_TEST

START_TEST(sink_failure_stops)
{
	/* The sink fails on its 3rd call (header, chunk 0, then chunk 1):
	 * the error comes back from a write or from close, the threads stop,
	 * and nothing hangs or leaks. */
	size_t n = 8 * MIB;
	unsigned char *t = text(n, 5);
	struct mem m;
	struct diag d;
	struct gzout *z;
	size_t o;
	int rc = 0, fail;

	for (fail = 1; fail <= 4; fail++) {
		memset(&m, 0, sizeof(m));
		memset(&d, 0, sizeof(d));
		m.fail_at = fail;
		z = gzout_open(1, 4, mem_sink, &m, &d);
		ck_assert_ptr_nonnull(z);
		for (o = 0, rc = 0; o < n && rc == 0; o += MIB / 2)
			rc = gzout_write(z, t + o, MIB / 2, &d);
		if (rc == 0)
			rc = gzout_close(z, 0, &d);
		else
			ck_assert_int_eq(gzout_close(z, 1, &d), 0);
		ck_assert_int_eq(rc, EXIT_IO);
		ck_assert_has(d.msg, "no space");
		free(m.p);
	}
	free(t);
}
END_TEST

static Suite *
gzout_suite(void)
{
	Suite *s = suite_create("gzout");
	TCase *tc = tcase_create("stream");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, round_trip_sizes);
	tcase_add_test(tc, same_bytes_any_threads);
	tcase_add_test(tc, primed_every_level);
	tcase_add_test(tc, trailer_and_dictionary);
	tcase_add_test(tc, sink_failure_stops);
	tcase_add_test(tc, late_workers_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(gzout_suite());
}
