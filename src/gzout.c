/*
 * gzout.c - gzip output compressed on every core.
 *
 * deflate is the slowest step of rladv -z by far (about 150 MB/s at level
 * 1, against 500 MB/s for the rest), so the stream is cut into chunks of
 * GZ_CHUNK input bytes that threads compress at once, in the layout pigz
 * made common: one gzip member whose deflate stream is the chunks' raw
 * deflate output laid end to end.  Each chunk is primed with the 32 KiB
 * of input before it, so its matches reach back as a single stream's
 * would, and all but the last end with a sync flush, which closes the
 * chunk's blocks on a byte boundary without ending the stream.  The
 * chunks' CRC-32s are combined in order for the trailer.  Every gzip
 * reader reads the result as one member, and its bytes depend on the
 * level and the input alone, never on the number of threads.
 *
 * With Intel ISA-L (RLADV_ISAL) the chunks are deflated by it instead:
 * at level 1 it was 4.3 times faster than zlib's level 1 and compressed
 * rladv's output smaller (12.8% of its size against 13.8%); levels 2-6
 * map to its levels 2 and 3, and 7-9, where zlib compresses smaller,
 * stay with zlib.  Either way the bytes depend on the level, the input
 * and the library, not on the number of threads.
 *
 * The caller's thread fills a ring of jobs and writes finished ones in
 * order; the workers take queued jobs in order.  The first chunk and the
 * last are compressed by the caller's thread, so that a small output
 * starts no thread at all.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#ifdef RLADV_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

#include "gzout.h"

#define GZ_CHUNK	(1u << 20)
#define GZ_DICT		32768u		/* deflate's window */
#define GZ_MAXTHREADS	16

/* A job is taken (J_BUSY) by one worker, so no other compresses it too:
 * a worker that starts late can meet a slot the ring has refilled. */
enum { J_FREE, J_QUEUED, J_BUSY, J_DONE };

/* One thread's deflater: zlib's, or ISA-L's with the memory its level
 * needs. */
struct defl {
	int			 level;		/* zlib's, 1-9 */
	z_stream		 zs;
#ifdef RLADV_ISAL
	int			 ilevel;	/* ISA-L's, or -1: zlib */
	struct isal_zstream	 is;
	unsigned char		*lbuf;
#endif
};

struct gzjob {
	unsigned char	*in;		/* GZ_CHUNK bytes */
	size_t		 inlen;
	unsigned char	*dict;		/* GZ_DICT bytes */
	size_t		 dictlen;
	unsigned char	*out;
	size_t		 outlen, outcap;
	uLong		 crc;
	int		 last;
	int		 state;		/* J_*, under mu */
	int		 err;		/* a zlib error, or Z_OK */
};

struct gzout {
	int		 level;
	int		 maxthreads;
	int		 nthreads;	/* started */
	gzout_sink	 sink;
	void		*arg;
	struct gzjob	*jobs;		/* ring: job s is jobs[s % njobs] */
	size_t		 njobs;
	size_t		 submitted;	/* jobs handed over; the next fills */
	size_t		 taken;		/* jobs the workers looked at */
	size_t		 written;	/* jobs written to the sink */
	pthread_t	 tid[GZ_MAXTHREADS];
	pthread_mutex_t	 mu;
	pthread_cond_t	 work, done;
	int		 stop;
	struct defl	 df;		/* the caller's thread's deflater */
	uLong		 crc;
	uLong		 total;		/* input bytes mod 2^32 (ISIZE) */
};

static struct gzjob *
job(struct gzout *z, size_t s)
{
	return &z->jobs[s % z->njobs];
}

#ifdef RLADV_ISAL
/* ISA-L's level for zlib's, -1 where zlib compresses smaller. */
static int
isal_level(int level)
{
	return level <= 1 ? 1 : level <= 3 ? 2 : level <= 6 ? 3 : -1;
}

static const uint32_t isal_lbuf[] = { 0, ISAL_DEF_LVL1_DEFAULT,
	ISAL_DEF_LVL2_DEFAULT, ISAL_DEF_LVL3_DEFAULT };
#endif

static int
defl_init(struct defl *df, int level)
{
	memset(df, 0, sizeof(*df));
	df->level = level;
#ifdef RLADV_ISAL
	if ((df->ilevel = isal_level(level)) >= 0) {
		isal_deflate_init(&df->is);
		df->lbuf = malloc(isal_lbuf[df->ilevel]);
		return df->lbuf != NULL ? 0 : -1;
	}
#endif
	return deflateInit2(&df->zs, level, Z_DEFLATED, -15, 8,
	    Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -1;
}

static void
defl_end(struct defl *df)
{
#ifdef RLADV_ISAL
	if (df->ilevel >= 0) {
		free(df->lbuf);
		return;
	}
#endif
	deflateEnd(&df->zs);
}

/* Room for 64 more bytes of j's output at least; 0 or -1. */
static int
out_room(struct gzjob *j)
{
	unsigned char *p;
	size_t cap;

	if (j->outcap - j->outlen >= 64)
		return 0;
	/* Incompressible input grows by 5 bytes per 64 KiB stored. */
	cap = j->outcap == 0 ? GZ_CHUNK + GZ_CHUNK / 1024 + 256 : 2 * j->outcap;
	if ((p = realloc(j->out, cap)) == NULL)
		return -1;
	j->out = p;
	j->outcap = cap;
	return 0;
}

static uLong
chunk_crc(const unsigned char *p, size_t n)
{
#ifdef RLADV_ISAL
	return crc32_gzip_refl(0, p, n);
#else
	return crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
#endif
}

/* df reset for j, primed with its dictionary, reading its input; 0 or
 * -1. */
static int
defl_start(struct defl *df, struct gzjob *j)
{
#ifdef RLADV_ISAL
	struct isal_zstream *is = &df->is;

	if (df->ilevel >= 0) {
		isal_deflate_reset(is);
		is->level = (uint32_t)df->ilevel;
		is->level_buf = df->lbuf;
		is->level_buf_size = isal_lbuf[df->ilevel];
		is->gzip_flag = IGZIP_DEFLATE;
		is->flush = SYNC_FLUSH;
		is->end_of_stream = (uint16_t)j->last;
		if (j->dictlen > 0 && isal_deflate_set_dict(is, j->dict,
		    (uint32_t)j->dictlen) != COMP_OK)
			return -1;
		is->next_in = j->in;
		is->avail_in = (uint32_t)j->inlen;
		return 0;
	}
#endif
	if (deflateReset(&df->zs) != Z_OK || (j->dictlen > 0 &&
	    deflateSetDictionary(&df->zs, j->dict, (uInt)j->dictlen) != Z_OK))
		return -1;
	df->zs.next_in = j->in;
	df->zs.avail_in = (uInt)j->inlen;
	return 0;
}

/*
 * One call of df's deflater into the room left in j's output: Z_OK with
 * *done set once j is complete, the end of the stream written (the last
 * chunk) or all its input flushed (a sync flush is complete when output
 * space is left over), or Z_STREAM_ERROR.
 */
static int
defl_step(struct defl *df, struct gzjob *j, int *done)
{
	z_stream *zs = &df->zs;
	int zr;
#ifdef RLADV_ISAL
	struct isal_zstream *is = &df->is;

	if (df->ilevel >= 0) {
		is->next_out = j->out + j->outlen;
		is->avail_out = (uint32_t)(j->outcap - j->outlen);
		if (isal_deflate(is) != COMP_OK)
			return Z_STREAM_ERROR;
		j->outlen = j->outcap - is->avail_out;
		*done = j->last ? is->internal_state.state == ZSTATE_END :
		    is->avail_in == 0 && is->avail_out != 0;
		return Z_OK;
	}
#endif
	zs->next_out = j->out + j->outlen;
	zs->avail_out = (uInt)(j->outcap - j->outlen);
	zr = deflate(zs, j->last ? Z_FINISH : Z_SYNC_FLUSH);
	j->outlen = j->outcap - zs->avail_out;
	if (zr == Z_STREAM_ERROR)
		return zr;
	*done = j->last ? zr == Z_STREAM_END :
	    zs->avail_in == 0 && zs->avail_out != 0;
	return Z_OK;
}

/* Compresses j with df, reset for it; any thread. */
static void
compress_job(struct gzjob *j, struct defl *df)
{
	int done = 0;

	j->crc = chunk_crc(j->in, j->inlen);
	j->outlen = 0;
	j->err = Z_OK;
	if (defl_start(df, j) != 0) {
		j->err = Z_STREAM_ERROR;
		return;
	}
	while (!done) {
		if (out_room(j) != 0) {
			j->err = Z_MEM_ERROR;
			return;
		}
		if ((j->err = defl_step(df, j, &done)) != Z_OK)
			return;
	}
}

static void *
worker(void *arg)
{
	struct gzout *z = arg;
	struct gzjob *j;
	struct defl df;
	int ok = defl_init(&df, z->level) == 0;

	pthread_mutex_lock(&z->mu);
	for (;;) {
		/* The next queued job; those compressed in place are done. */
		while (!z->stop && (z->taken == z->submitted ||
		    job(z, z->taken)->state != J_QUEUED)) {
			if (z->taken < z->submitted)
				z->taken++;
			else
				pthread_cond_wait(&z->work, &z->mu);
		}
		if (z->stop)
			break;
		j = job(z, z->taken++);
		j->state = J_BUSY;
		pthread_mutex_unlock(&z->mu);
		if (ok)
			compress_job(j, &df);
		else
			j->err = Z_MEM_ERROR;
		pthread_mutex_lock(&z->mu);
		j->state = J_DONE;
		pthread_cond_broadcast(&z->done);
	}
	pthread_mutex_unlock(&z->mu);
	if (ok)
		defl_end(&df);
	return NULL;
}

/* Starts the workers, with every signal blocked: they are the caller's
 * thread's to take.  Returns how many started. */
static int
start_workers(struct gzout *z)
{
	sigset_t all, old;
	int i;

	/* The jobs before this one were compressed in place. */
	z->taken = z->submitted;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < z->maxthreads; i++)
		if (pthread_create(&z->tid[i], NULL, worker, z) != 0)
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	z->nthreads = i;
	return i;
}

struct gzout *
gzout_open(int level, int threads, gzout_sink sink, void *arg,
    struct diag *d)
{
	struct gzout *z = diag_calloc(1, sizeof(*z));
	long ncpu;

	if (threads <= 0) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		threads = ncpu > 0 ? (int)ncpu : 1;
	}
	z->maxthreads = threads < GZ_MAXTHREADS ? threads : GZ_MAXTHREADS;
	/* One job filling, one writing, one per worker, one queued. */
	z->njobs = (size_t)z->maxthreads + 3;
	z->level = level;
	z->sink = sink;
	z->arg = arg;
	z->crc = crc32(0L, Z_NULL, 0);
	if (defl_init(&z->df, level) != 0) {
		free(z);
		diag_set(d, EXIT_IO, "out of memory");
		return NULL;
	}
	z->jobs = diag_calloc(z->njobs, sizeof(*z->jobs));
	pthread_mutex_init(&z->mu, NULL);
	pthread_cond_init(&z->work, NULL);
	pthread_cond_init(&z->done, NULL);
	return z;
}

/* The 10-byte header of a gzip member: no name, no time, Unix. */
static int
header(struct gzout *z, struct diag *d)
{
	unsigned char h[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };

	h[8] = z->level == 9 ? 2 : z->level == 1 ? 4 : 0;
	return z->sink(z->arg, h, sizeof(h), d);
}

/*
 * Writes the finished jobs in order.  all: wait for every job handed
 * over; else wait only while the ring has no free job to fill next.
 */
static int
drain(struct gzout *z, int all, struct diag *d)
{
	struct gzjob *j;
	int rc, done;

	while (z->written < z->submitted) {
		j = job(z, z->written);
		pthread_mutex_lock(&z->mu);
		while (j->state != J_DONE &&
		    (all || z->submitted - z->written >= z->njobs))
			pthread_cond_wait(&z->done, &z->mu);
		done = j->state == J_DONE;
		pthread_mutex_unlock(&z->mu);
		if (!done)
			break;
		if (j->err != Z_OK)
			return diag_set(d, EXIT_IO, "gzip output: %s",
			    j->err == Z_MEM_ERROR ? "out of memory" :
			    "deflate failed");
		if (z->written == 0 && (rc = header(z, d)) != 0)
			return rc;
		if (j->outlen > 0 &&
		    (rc = z->sink(z->arg, j->out, j->outlen, d)) != 0)
			return rc;
		z->crc = crc32_combine(z->crc, j->crc, (z_off_t)j->inlen);
		z->total += (uLong)j->inlen;
		j->state = J_FREE;	/* its input stays: the next job's dict */
		z->written++;
	}
	return 0;
}

/* Hands the job being filled over: to a worker, or compressed here. */
static int
submit(struct gzout *z, int last, struct diag *d)
{
	struct gzjob *j = job(z, z->submitted), *prev;
	size_t k;
	int here, rc;

	j->last = last;
	j->dictlen = 0;
	if (z->submitted > 0) {
		/* The ring keeps the previous job's input until this is
		 * filled, so its tail primes this one. */
		prev = job(z, z->submitted - 1);
		k = prev->inlen < GZ_DICT ? prev->inlen : GZ_DICT;
		if (j->dict == NULL)
			j->dict = diag_malloc(GZ_DICT);
		memcpy(j->dict, prev->in + prev->inlen - k, k);
		j->dictlen = k;
	}
	here = last || z->submitted == 0 || z->maxthreads < 2 ||
	    (z->nthreads == 0 && start_workers(z) == 0);
	if (here) {
		compress_job(j, &z->df);
		pthread_mutex_lock(&z->mu);
		j->state = J_DONE;
		z->submitted++;
		pthread_mutex_unlock(&z->mu);
	} else {
		pthread_mutex_lock(&z->mu);
		j->state = J_QUEUED;
		z->submitted++;
		pthread_cond_signal(&z->work);
		pthread_mutex_unlock(&z->mu);
	}
	if ((rc = drain(z, last, d)) != 0)
		return rc;
	/* The next job's slot is free now: its old input is no one's. */
	job(z, z->submitted)->inlen = 0;
	return 0;
}

int
gzout_write(struct gzout *z, const void *p, size_t n, struct diag *d)
{
	const unsigned char *s = p;
	struct gzjob *j;
	size_t k;
	int rc;

	while (n > 0) {
		j = job(z, z->submitted);
		if (j->in == NULL)
			j->in = diag_malloc(GZ_CHUNK);
		k = GZ_CHUNK - j->inlen < n ? GZ_CHUNK - j->inlen : n;
		memcpy(j->in + j->inlen, s, k);
		j->inlen += k;
		s += k;
		n -= k;
		if (j->inlen == GZ_CHUNK && (rc = submit(z, 0, d)) != 0)
			return rc;
	}
	return 0;
}

int
gzout_close(struct gzout *z, int abort, struct diag *d)
{
	unsigned char t[8];
	size_t i;
	int rc = 0;

	if (z == NULL)
		return 0;
	if (!abort) {
		/* The last job, empty (no input buffer) or not, ends the
		 * deflate stream. */
		rc = submit(z, 1, d);
		if (rc == 0) {
			for (i = 0; i < 4; i++) {
				t[i] = (unsigned char)(z->crc >> (8 * i));
				t[4 + i] = (unsigned char)(z->total >> (8 * i));
			}
			rc = z->sink(z->arg, t, sizeof(t), d);
		}
	}
	pthread_mutex_lock(&z->mu);
	z->stop = 1;
	pthread_cond_broadcast(&z->work);
	pthread_mutex_unlock(&z->mu);
	for (i = 0; i < (size_t)z->nthreads; i++)
		pthread_join(z->tid[i], NULL);
	for (i = 0; i < z->njobs; i++) {
		free(z->jobs[i].in);
		free(z->jobs[i].dict);
		free(z->jobs[i].out);
	}
	free(z->jobs);
	defl_end(&z->df);
	pthread_mutex_destroy(&z->mu);
	pthread_cond_destroy(&z->work);
	pthread_cond_destroy(&z->done);
	free(z);
	return rc;
}
