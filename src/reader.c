/*
 * reader.c - a file read, and inflated, by a second thread, the
 * producer, into blocks of memory that keep its lines.
 *
 * The lines are read once into memory that holds them as long as the
 * batch wants them, so the batch need not copy them, and the parser
 * never waits for a read or for inflating while the producer keeps up.
 * The producer publishes whole lines only: a block ends after its last
 * newline, and the unfinished line moves to the start of the next block,
 * which grows with the batch held (up to BLK_MAX) and with the line.
 * Released blocks are kept for reuse, so a streaming run keeps writing
 * the same pages instead of faulting in new ones, and the producer stays
 * at most AHEAD bytes ahead of the parser.  The next file goes on in the
 * same block.
 *
 * The producer reads a pipe only after poll(2) says it may, on the pipe
 * and on wake[]: a write to wake[] stops it even while the writer is
 * silent, so that a run that fails early does not wait for its input.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "gunzip.h"
#include "reader.h"

#define CHUNK	((size_t)256 << 10)	/* most bytes decoded per step */
#define ZCHUNK	((size_t)1 << 20)	/* gzip bytes per read(2) */
#define BLK_MIN	((size_t)1 << 20)	/* smallest block */
#define BLK_MAX	((size_t)64 << 20)	/* largest block for short lines */
#define AHEAD	((size_t)2 << 20)	/* most bytes decoded, not parsed */
#define REPORT	((size_t)1 << 20)	/* parsed bytes between reports */
#define WAKE	((size_t)1 << 20)	/* bytes that wake a waiting parser */
#define NSPARE	2			/* released blocks kept */
#define STACK	((size_t)512 << 10)	/* the producer's frames are small */

struct blk {
	char		*p;
	size_t		 cap;
	size_t		 len;	/* bytes published: whole lines */
	int		 sealed; /* len is final; the next block follows */
	struct blk	*next;
};

struct reader {
	size_t		 max_line;
	pthread_mutex_t	 mu;		/* guards what the two threads share */
	pthread_cond_t	 more, room;
	struct blk	*head, *tail, *spare[NSPARE];
	size_t		 held;		/* capacity of the blocks before rb */
	unsigned long long produced, consumed;
	unsigned long long bytes;	/* read from files */
	int		 pwait;		/* the producer waits for room */
	int		 cwait;		/* the parser waits for lines */
	int		 stop;		/* the producer must end */
	int		 done;		/* nothing more comes */
	struct diag	 err;		/* why, when it failed */
	int		 running;	/* a producer was started */
	int		 wake[2];	/* a pipe that ends its poll */
	/* The producer's own. */
	pthread_t	 tid;
	int		 fd, canblock;
	struct gunzip	*gz;		/* NULL: plain */
	unsigned char	 first[2];	/* bytes read before it started */
	size_t		 nfirst;
	const unsigned char *win;	/* gzip bytes not yet decoded */
	size_t		 nwin;
	unsigned char	*zin;		/* where gzip bytes are read */
	int		 zeof;		/* no gzip bytes after win */
	unsigned long long nread;	/* read, not yet in bytes */
	/* The parser's own, but rb, which the producer never frees. */
	struct blk	*rb;		/* the parser's block */
	size_t		 beg, lim;	/* next line, published end in rb */
	int		 ended;		/* the producer is done */
	unsigned long long parsed, reported;
};

struct reader *
reader_new(size_t max_line)
{
	struct reader *r = diag_calloc(1, sizeof(*r));

	r->max_line = max_line;
	r->wake[0] = r->wake[1] = -1;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->more, NULL);
	pthread_cond_init(&r->room, NULL);
	return r;
}

/* read(2) on the file, that a write to wake[] interrupts. */
static ssize_t
read_file(struct reader *r, void *p, size_t n)
{
	struct pollfd pf[2];
	ssize_t k;

	for (;;) {
		if (r->canblock) {
			pf[0].fd = r->fd;
			pf[0].events = POLLIN;
			pf[1].fd = r->wake[0];
			pf[1].events = POLLIN;
			if (poll(pf, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				return -1;
			}
			if (pf[1].revents) {
				errno = ECANCELED;
				return -1;
			}
		}
		k = read(r->fd, p, n);
		if (k >= 0 || errno != EINTR)
			return k;
	}
}

/* --- The producer --------------------------------------------------- */

static void
put_block(struct reader *r, struct blk *b)
{
	size_t i;

	for (i = 0; i < NSPARE; i++)
		if (r->spare[i] == NULL) {
			r->spare[i] = b;
			return;
		}
	buf_unmap(b->p, b->cap);
	free(b);
}

/* A block of at least want bytes, a spare one if one is large enough;
 * under mu.  NULL when out of memory. */
static struct blk *
get_block(struct reader *r, size_t want)
{
	struct blk *b;
	size_t i, cap = want;

	for (i = 0; i < NSPARE; i++)
		if ((b = r->spare[i]) != NULL && b->cap >= want) {
			r->spare[i] = NULL;
			goto got;
		}
	if ((b = malloc(sizeof(*b))) == NULL)
		return NULL;
	if ((b->p = buf_map(&cap)) == NULL) {
		free(b);
		return NULL;
	}
	b->cap = cap;
got:
	b->len = 0;
	b->sealed = 0;
	b->next = NULL;
	return b;
}

/*
 * Makes room for a step at the tail: a new block when less than CHUNK is
 * left, starting with the unfinished line (fill - tail->len bytes).
 * Returns 0, or -1 when out of memory.
 */
static int
next_block(struct reader *r, size_t *fill)
{
	struct blk *t, *b;
	size_t part, want;

	pthread_mutex_lock(&r->mu);
	t = r->tail;
	if (t != NULL && t->cap - *fill >= CHUNK) {
		pthread_mutex_unlock(&r->mu);
		return 0;
	}
	part = t ? *fill - t->len : 0;
	/* Grow with the batch held, so that few blocks hold a large one
	 * and a stream keeps reusing small ones, and geometrically with a
	 * long line, so that it is moved O(1) times. */
	want = r->held < BLK_MIN ? BLK_MIN : r->held < BLK_MAX ? r->held :
	    BLK_MAX;
	if (want < 2 * part + CHUNK)
		want = 2 * part + CHUNK;
	if ((b = get_block(r, want)) == NULL) {
		pthread_mutex_unlock(&r->mu);
		return -1;
	}
	if (part > 0)
		memcpy(b->p, t->p + t->len, part);
	*fill = part;
	if (t != NULL) {
		t->sealed = 1;
		t->next = b;
	} else
		r->head = b;
	r->tail = b;
	pthread_mutex_unlock(&r->mu);
	return 0;
}

/* Decoded bytes from the file into p: k > 0 (r->err may be set then:
 * they came before it), 0 at its end, -1 with r->err set. */
static ssize_t
produce(struct reader *r, char *p, size_t n)
{
	struct gunzip_io io;
	ssize_t k;

	if (r->gz == NULL && r->nfirst > 0) {
		memcpy(p, r->first, r->nfirst);
		k = (ssize_t)r->nfirst;
		r->nfirst = 0;
		return k;
	}
	if (r->gz == NULL) {
		if ((k = read_file(r, p, n)) < 0)
			diag_set(&r->err, EXIT_IO, "%s", strerror(errno));
		else
			r->nread += (size_t)k;
		return k;
	}
	io.out = (unsigned char *)p;
	io.avail_out = n;
	for (;;) {
		if (r->nwin == 0 && !r->zeof) {
			if ((k = read_file(r, r->zin, ZCHUNK)) < 0) {
				diag_set(&r->err, EXIT_IO, "%s",
				    strerror(errno));
				return -1;
			}
			r->nread += (size_t)k;
			r->zeof = k == 0;
			r->win = r->zin;
			r->nwin = (size_t)k;
		}
		/* At the end too: the decoder may hold bytes to flush. */
		io.in = r->win;
		io.avail_in = r->nwin;
		if (gunzip_run(r->gz, &io, &r->err) != 0)
			/* What was decoded before the error is the
			 * input's too; the error is seen after it. */
			return io.avail_out < n ? (ssize_t)(n - io.avail_out) :
			    -1;
		r->win = io.in;
		r->nwin = io.avail_in;
		if (io.avail_out < n)
			return (ssize_t)(n - io.avail_out);
		if (r->nwin > 0) {
			/* Input left, room left, nothing decoded. */
			diag_set(&r->err, EXIT_DATA, "corrupt gzip data");
			return -1;
		}
		if (r->zeof)
			return gunzip_end(r->gz, &r->err) ? -1 : 0;
	}
}

/* Makes bytes up to newlen of block t visible to the parser. */
static void
publish(struct reader *r, struct blk *t, size_t newlen)
{
	pthread_mutex_lock(&r->mu);
	r->produced += newlen - t->len;
	t->len = newlen;
	r->bytes += r->nread;
	r->nread = 0;
	/* A waiting parser is woken for WAKE bytes at once, not for each
	 * step: on a virtual machine a wake-up costs tens of microseconds.
	 * A pipe's lines go at once: more may not come soon. */
	if (r->cwait && (r->canblock || r->produced - r->consumed >= WAKE))
		pthread_cond_signal(&r->more);
	pthread_mutex_unlock(&r->mu);
}

/* Waits until the parser is less than AHEAD behind; 0, or -1 to stop. */
static int
wait_room(struct reader *r)
{
	int stop;

	pthread_mutex_lock(&r->mu);
	while (r->produced - r->consumed >= AHEAD && !r->stop) {
		r->pwait = 1;
		pthread_cond_wait(&r->room, &r->mu);
	}
	r->pwait = 0;
	stop = r->stop;
	pthread_mutex_unlock(&r->mu);
	return stop ? -1 : 0;
}

/* The producer: one file into blocks, whole lines at a time. */
static void *
prod_main(void *arg)
{
	struct reader *r = arg;
	struct blk *t;
	size_t fill;
	ssize_t k = -1;
	char *nl;

	pthread_mutex_lock(&r->mu);
	fill = r->tail ? r->tail->len : 0;
	pthread_mutex_unlock(&r->mu);
	for (;;) {
		if (next_block(r, &fill) != 0) {
			diag_set(&r->err, EXIT_IO, "out of memory");
			break;
		}
		t = r->tail;	/* only this thread changes it */
		if (wait_room(r) != 0)
			break;
		if ((k = produce(r, t->p + fill, CHUNK)) <= 0)
			break;
		nl = memrchr(t->p + fill, '\n', (size_t)k);
		fill += (size_t)k;
		if (nl != NULL)
			publish(r, t, (size_t)(nl + 1 - t->p));
		if (r->err.status != 0)
			break;
		if (r->max_line > 0 && fill - t->len > r->max_line) {
			diag_set(&r->err, EXIT_DATA, "line longer than "
			    "--max-line (%zu bytes)", r->max_line);
			break;
		}
	}
	if (k == 0 && r->tail != NULL)
		/* The end: a last line without a newline is whole too. */
		publish(r, r->tail, fill);
	pthread_mutex_lock(&r->mu);
	r->bytes += r->nread;
	r->nread = 0;
	r->done = 1;
	pthread_cond_broadcast(&r->more);
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

int
reader_start(struct reader *r, int fd, int canblock, int gzip,
    const unsigned char *first, size_t n, struct diag *d)
{
	pthread_attr_t attr;
	sigset_t set, old;
	int rc;

	r->fd = fd;
	r->canblock = canblock;
	r->nfirst = 0;
	r->nwin = 0;
	r->zeof = 0;
	r->done = r->ended = 0;
	memset(&r->err, 0, sizeof(r->err));
	memcpy(r->first, first, n);
	r->bytes += n;
	if (gzip) {
		if ((r->gz = gunzip_open()) == NULL)
			return diag_set(d, EXIT_IO, "out of memory");
		if (r->zin == NULL)
			r->zin = diag_malloc(ZCHUNK);
		r->win = r->first;
		r->nwin = n;
	} else
		r->nfirst = n;
	if (canblock && r->wake[0] < 0 &&
	    pipe2(r->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		return diag_set(d, EXIT_IO, "%s", strerror(errno));
	/* Signals that wait are the main thread's to take; faults are
	 * the thread's own. */
	sigfillset(&set);
	sigdelset(&set, SIGBUS);
	sigdelset(&set, SIGSEGV);
	sigdelset(&set, SIGFPE);
	sigdelset(&set, SIGILL);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	pthread_attr_init(&attr);
	(void)pthread_attr_setstacksize(&attr, STACK);
	rc = pthread_create(&r->tid, &attr, prod_main, r);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return diag_set(d, EXIT_IO, "cannot start a thread: %s",
		    rc == EAGAIN || rc == ENOMEM ? "out of memory" :
		    strerror(rc));
	r->running = 1;
	return 0;
}

void
reader_stop(struct reader *r)
{
	char c = 0;

	if (r->running) {
		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_broadcast(&r->room);
		pthread_mutex_unlock(&r->mu);
		if (r->wake[1] >= 0)
			(void)write(r->wake[1], &c, 1);
		pthread_join(r->tid, NULL);
		if (r->wake[0] >= 0)
			while (read(r->wake[0], &c, 1) > 0)
				;
		r->stop = 0;
		r->running = 0;
	}
	gunzip_close(r->gz);
	r->gz = NULL;
}

/* --- The parser's side -------------------------------------------- */

/* Tells the producer how far the parser is; under mu. */
static void
report(struct reader *r)
{
	r->consumed = r->parsed;
	r->reported = r->parsed;
	if (r->pwait)
		pthread_cond_signal(&r->room);
}

/* Waits for more published bytes, the next block, or the producer's
 * end (r->ended). */
static void
wait_more(struct reader *r)
{
	struct blk *b;

	pthread_mutex_lock(&r->mu);
	report(r);
	for (;;) {
		if (r->rb == NULL && r->head != NULL) {
			r->rb = r->head;
			r->beg = r->lim = 0;
		}
		if ((b = r->rb) != NULL) {
			if (b->len > r->lim) {
				r->lim = b->len;
				break;
			}
			if (b->sealed) {
				r->held += b->cap;
				r->rb = b->next;
				r->beg = r->lim = 0;
				continue;
			}
		}
		if (r->done) {
			r->ended = 1;
			break;
		}
		r->cwait = 1;
		pthread_cond_wait(&r->more, &r->mu);
		r->cwait = 0;
	}
	pthread_mutex_unlock(&r->mu);
}

int
reader_next(struct reader *r, const char **text, size_t *len,
    const struct diag **why)
{
	char *p, *nl;
	size_t n;

	for (;;) {
		if (r->beg < r->lim) {
			p = r->rb->p + r->beg;
			nl = memchr(p, '\n', r->lim - r->beg);
			if (nl != NULL || r->ended) {
				/* (at the end, a last line without one) */
				n = nl ? (size_t)(nl - p) : r->lim - r->beg;
				r->beg += n + (nl != NULL);
				r->parsed += n + (nl != NULL);
				if (r->parsed - r->reported >= REPORT) {
					pthread_mutex_lock(&r->mu);
					report(r);
					pthread_mutex_unlock(&r->mu);
				}
				*text = p;
				*len = n;
				return 1;
			}
		}
		if (!r->ended) {
			wait_more(r);
			continue;
		}
		/* r->err is final once the producer is done. */
		*why = &r->err;
		return r->err.status ? -1 : 0;
	}
}

int
reader_ready(struct reader *r)
{
	int k;

	/* What is published is whole lines. */
	if (r->ended || r->beg < r->lim)
		return 1;
	pthread_mutex_lock(&r->mu);
	k = r->done || (r->rb != NULL && (r->rb->len > r->lim ||
	    r->rb->sealed)) || (r->rb == NULL && r->head != NULL);
	pthread_mutex_unlock(&r->mu);
	return k;
}

void
reader_release(struct reader *r, const char *keep)
{
	struct blk *b, *stop;

	pthread_mutex_lock(&r->mu);
	for (stop = r->head; keep != NULL && stop != NULL; stop = stop->next)
		if (keep >= stop->p && keep < stop->p + stop->cap)
			break;
	if (stop == NULL || keep == NULL)
		stop = r->rb;
	/* The producer's block and the parser's stay in any case. */
	while ((b = r->head) != NULL && b != stop && b != r->tail &&
	    b != r->rb) {
		r->head = b->next;
		r->held -= b->cap;
		put_block(r, b);
	}
	pthread_mutex_unlock(&r->mu);
}

unsigned long long
reader_bytes(struct reader *r)
{
	unsigned long long n;

	pthread_mutex_lock(&r->mu);
	n = r->bytes;
	pthread_mutex_unlock(&r->mu);
	return n;
}

void
reader_free(struct reader *r)
{
	struct blk *b;
	size_t i;

	if (r == NULL)
		return;
	reader_stop(r);
	while ((b = r->head) != NULL) {
		r->head = b->next;
		buf_unmap(b->p, b->cap);
		free(b);
	}
	for (i = 0; i < NSPARE; i++)
		if ((b = r->spare[i]) != NULL) {
			buf_unmap(b->p, b->cap);
			free(b);
		}
	if (r->wake[0] >= 0) {
		close(r->wake[0]);
		close(r->wake[1]);
	}
	free(r->zin);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->more);
	pthread_cond_destroy(&r->room);
	free(r);
}
