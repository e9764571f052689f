/*
 * input.c - bytes from files, gunzipped when they are gzip, cut into lines.
 *
 * A plain regular file is mapped, and its lines are returned in place.
 * Any other input (a pipe, a terminal, gzip) is read, and inflated, by a
 * second thread, the producer, into blocks of memory where its lines are
 * returned in place too, so that parsing overlaps reading and inflating
 * and no line is copied again for the batch.  Every line stays valid
 * until input_release() or input_close() (struct line.stable).
 *
 * A pipe used to be read into one buffer and each line copied into the
 * batch's arena; now the line is read once, into memory it keeps, and
 * the parser no longer waits for the read (nor for inflating).  The
 * producer publishes only whole lines: a block ends after its last
 * newline, and the unfinished line is moved to the start of the next
 * block, which grows with the batch held (up to BLK_MAX) and with the
 * line.  Released blocks are kept for reuse, so a streaming run keeps
 * writing the same pages instead of faulting in new ones.  The producer
 * stays at most AHEAD bytes ahead of the parser.
 *
 * Standard input is read from its current offset, and left at its end:
 * "{ head -n1 >/dev/null; rladv; } < f" skips line 1.  A second "-"
 * names the same stream, already ended, so it gives no lines.
 *
 * gzip is detected by its magic bytes, not the name; every member of a
 * multi-member file is read (src/gunzip.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "gunzip.h"
#include "input.h"

#define CHUNK	((size_t)1 << 20)	/* most bytes per read(2) */
#define BLK_MIN	((size_t)4 << 20)	/* smallest block */
#define BLK_MAX	((size_t)64 << 20)	/* largest block for short lines */
#define AHEAD	((size_t)16 << 20)	/* most bytes decoded, not parsed */
#define REPORT	((size_t)1 << 20)	/* parsed bytes between reports */
#define NSPARE	2			/* released blocks kept */
#define PROD_STACK ((size_t)512 << 10)

struct blk {
	char		*p;
	size_t		 cap;
	size_t		 len;	/* bytes published: whole lines */
	int		 sealed; /* len is final; the next block follows */
	struct blk	*next;
};

/* The producer of one file: where it reads, and what went wrong. */
struct prod {
	pthread_t		 tid;
	int			 fd;
	int			 poll;	/* fd may block: wait on wake[] too */
	struct gunzip		*gz;	/* NULL: plain */
	const unsigned char	*win;	/* gzip bytes not yet decoded */
	size_t			 nwin;
	unsigned char		*zin;	/* NULL: win is the mapped file */
	void			*zmap;	/* that mapping */
	size_t			 zmaplen;
	int			 zeof;	/* no gzip bytes after win */
	unsigned char		 first[2];	/* bytes read while sniffing */
	size_t			 nfirst;
	unsigned long long	 bytes;	/* read from the file */
	int			 done;	/* under mu: nothing more comes */
	struct diag		 err;	/* under mu: why, when it failed */
};

struct input {
	char *const	*names;
	size_t		 nnames, cur;
	size_t		 max_line;
	int		 fd;		/* -1 between files */
	const char	*name;
	int		 kind;		/* K_* of the current file */
	off_t		 seekend;	/* standard input: leave it here */
	unsigned long long lineno;
	unsigned long long bytes;	/* finished files and maps */
	/* K_MAP: the mapping, and where the next line starts; earlier
	 * files' mappings stay in old[] until released. */
	const char	*map;
	size_t		 maplen, mapoff, released;
	struct oldmap { const char *p; size_t len; } *old;
	size_t		 nold;
	/* K_STREAM: the blocks (head..tail, shared with the producer under
	 * mu), and the parser's place in them. */
	pthread_mutex_t	 mu;
	pthread_cond_t	 more, room;
	struct blk	*head, *tail, *spare[NSPARE];
	size_t		 held;		/* capacity of head..tail */
	unsigned long long produced, consumed;
	int		 pwait;		/* the producer waits for room */
	int		 stop;		/* the producer must end */
	int		 wake[2];	/* a pipe that interrupts its poll */
	struct prod	*pr;
	struct blk	*rb;		/* the parser's block */
	size_t		 beg, lim;	/* next line, published end in rb */
	int		 ended;		/* the producer is done with rb */
	unsigned long long parsed, reported;
};

enum { K_NONE, K_MAP, K_STREAM };

/* Standard input once opened: a second "-" is the same stream. */
static int	stdin_taken;
static dev_t	stdin_dev;
static ino_t	stdin_ino;

struct input *
input_open(char *const *names, size_t n, size_t max_line)
{
	struct input *in = diag_calloc(1, sizeof(*in));
	static char *const stdin_name[] = { "-" };

	in->names = n ? names : stdin_name;
	in->nnames = n ? n : 1;
	in->max_line = max_line;
	in->fd = -1;
	in->wake[0] = in->wake[1] = -1;
	in->seekend = -1;
	pthread_mutex_init(&in->mu, NULL);
	pthread_cond_init(&in->more, NULL);
	pthread_cond_init(&in->room, NULL);
	return in;
}

/* read(2) that waits on wake[0] too when fd may block. */
static ssize_t
read_fd(struct input *in, int fd, int canblock, void *p, size_t n)
{
	struct pollfd pf[2];
	ssize_t r;

	for (;;) {
		if (canblock) {
			pf[0].fd = fd;
			pf[0].events = POLLIN;
			pf[1].fd = in->wake[0];
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
		r = read(fd, p, n);
		if (r >= 0 || errno != EINTR)
			return r;
	}
}

/* --- The producer --------------------------------------------------- */

static void
put_block(struct input *in, struct blk *b)
{
	size_t i;

	for (i = 0; i < NSPARE; i++)
		if (in->spare[i] == NULL) {
			in->spare[i] = b;
			return;
		}
	buf_unmap(b->p, b->cap);
	free(b);
}

/* A block of at least want bytes, a spare one if one is large enough;
 * under mu.  NULL when out of memory. */
static struct blk *
get_block(struct input *in, size_t want)
{
	struct blk *b;
	size_t i, cap = want;

	for (i = 0; i < NSPARE; i++)
		if ((b = in->spare[i]) != NULL && b->cap >= want) {
			in->spare[i] = NULL;
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
 * Makes room for a read at the tail: a new block when less than a chunk
 * is left, starting with the unfinished line (fill - tail->len bytes).
 * Returns 0, or -1 when out of memory.
 */
static int
next_block(struct input *in, size_t *fill)
{
	struct blk *t, *b;
	size_t part, want;

	pthread_mutex_lock(&in->mu);
	t = in->tail;
	if (t != NULL && t->cap - *fill >= CHUNK) {
		pthread_mutex_unlock(&in->mu);
		return 0;
	}
	part = t ? *fill - t->len : 0;
	/* Grow with the batch held, so that few blocks hold it, and
	 * geometrically with a long line, so it is moved O(1) times. */
	want = in->held < BLK_MIN ? BLK_MIN : in->held < BLK_MAX ? in->held :
	    BLK_MAX;
	if (want < 2 * part + CHUNK)
		want = 2 * part + CHUNK;
	if ((b = get_block(in, want)) == NULL) {
		pthread_mutex_unlock(&in->mu);
		return -1;
	}
	if (part > 0)
		memcpy(b->p, t->p + t->len, part);
	*fill = part;
	in->held += b->cap;
	if (t != NULL) {
		t->sealed = 1;
		t->next = b;
	} else
		in->head = b;
	in->tail = b;
	pthread_cond_broadcast(&in->more);
	pthread_mutex_unlock(&in->mu);
	return 0;
}

/* Decoded bytes from the file into p: n > 0, 0 at its end, -1 with
 * pr->err set. */
static ssize_t
produce(struct input *in, struct prod *pr, char *p, size_t n)
{
	struct gunzip_io io;
	ssize_t r;

	if (pr->gz == NULL && pr->nfirst > 0) {
		memcpy(p, pr->first, pr->nfirst);
		r = (ssize_t)pr->nfirst;
		pr->nfirst = 0;
		return r;
	}
	if (pr->gz == NULL) {
		if ((r = read_fd(in, pr->fd, pr->poll, p, n)) < 0)
			diag_set(&pr->err, EXIT_IO, "%s", strerror(errno));
		else
			pr->bytes += (size_t)r;
		return r;
	}
	io.out = (unsigned char *)p;
	io.avail_out = n;
	for (;;) {
		if (pr->nwin == 0 && !pr->zeof) {
			r = pr->zin ? read_fd(in, pr->fd, pr->poll, pr->zin,
			    CHUNK) : 0;
			if (r < 0) {
				diag_set(&pr->err, EXIT_IO, "%s",
				    strerror(errno));
				return -1;
			}
			pr->bytes += (size_t)r;
			pr->zeof = r == 0;
			pr->win = pr->zin;
			pr->nwin = (size_t)r;
		}
		/* At the end too: the decoder may hold bytes to flush. */
		io.in = pr->win;
		io.avail_in = pr->nwin;
		if (gunzip_run(pr->gz, &io, &pr->err) != 0)
			return -1;
		pr->win = io.in;
		pr->nwin = io.avail_in;
		if (io.avail_out < n)
			return (ssize_t)(n - io.avail_out);
		if (pr->nwin > 0) {
			/* Input left, room left, nothing decoded. */
			diag_set(&pr->err, EXIT_DATA, "corrupt gzip data");
			return -1;
		}
		if (pr->zeof)
			return gunzip_end(pr->gz, &pr->err) ? -1 : 0;
	}
}

/* Makes bytes up to newlen of block t visible to the parser. */
static void
publish(struct input *in, struct prod *pr, struct blk *t, size_t newlen)
{
	pthread_mutex_lock(&in->mu);
	in->produced += newlen - t->len;
	t->len = newlen;
	in->bytes += pr->bytes;
	pr->bytes = 0;
	pthread_cond_broadcast(&in->more);
	pthread_mutex_unlock(&in->mu);
}

/* Waits until the parser is less than AHEAD behind; 0, or -1 to stop. */
static int
wait_room(struct input *in)
{
	int stop;

	pthread_mutex_lock(&in->mu);
	while (in->produced - in->consumed >= AHEAD && !in->stop) {
		in->pwait = 1;
		pthread_cond_wait(&in->room, &in->mu);
	}
	in->pwait = 0;
	stop = in->stop;
	pthread_mutex_unlock(&in->mu);
	return stop ? -1 : 0;
}

/* The producer: one file into blocks, whole lines at a time. */
static void *
prod_main(void *arg)
{
	struct input *in = arg;
	struct prod *pr = in->pr;
	struct blk *t;
	size_t fill;
	ssize_t r = -1;
	char *nl;

	pthread_mutex_lock(&in->mu);
	/* After an earlier file, this one goes on in the same block. */
	fill = in->tail ? in->tail->len : 0;
	pthread_mutex_unlock(&in->mu);
	for (;;) {
		if (next_block(in, &fill) != 0) {
			diag_set(&pr->err, EXIT_IO, "out of memory");
			break;
		}
		t = in->tail;
		if (wait_room(in) != 0)
			break;
		if ((r = produce(in, pr, t->p + fill, CHUNK)) <= 0)
			break;
		nl = memrchr(t->p + fill, '\n', (size_t)r);
		fill += (size_t)r;
		if (nl != NULL)
			publish(in, pr, t, (size_t)(nl + 1 - t->p));
		if (fill - t->len > in->max_line) {
			diag_set(&pr->err, EXIT_DATA, "line longer than "
			    "--max-line (%zu bytes)", in->max_line);
			break;
		}
	}
	if (r == 0 && in->tail != NULL)
		/* The end: a last line without a newline is whole too. */
		publish(in, pr, in->tail, fill);
	pthread_mutex_lock(&in->mu);
	in->bytes += pr->bytes;
	pr->bytes = 0;
	pr->done = 1;
	pthread_cond_broadcast(&in->more);
	pthread_mutex_unlock(&in->mu);
	return NULL;
}

/* Starts the producer, with the signals that may wait blocked: they are
 * the main thread's to take. */
static int
prod_start(struct input *in, struct diag *d)
{
	pthread_attr_t attr;
	sigset_t set, old;
	int rc;

	if (in->pr->poll && in->wake[0] < 0 &&
	    pipe2(in->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		return diag_set(d, EXIT_IO, "%s: %s", in->name,
		    strerror(errno));
	sigfillset(&set);
	sigdelset(&set, SIGBUS);
	sigdelset(&set, SIGSEGV);
	sigdelset(&set, SIGFPE);
	sigdelset(&set, SIGILL);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	/* Its frames are small; a small stack spares address space. */
	pthread_attr_init(&attr);
	(void)pthread_attr_setstacksize(&attr, PROD_STACK);
	rc = pthread_create(&in->pr->tid, &attr, prod_main, in);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return diag_set(d, EXIT_IO, "cannot start a thread: %s",
		    rc == EAGAIN || rc == ENOMEM ? "out of memory" :
		    strerror(rc));
	in->kind = K_STREAM;
	return 0;
}

static void
prod_free(struct input *in)
{
	struct prod *pr = in->pr;

	gunzip_close(pr->gz);
	free(pr->zin);
	if (pr->zmap != NULL)
		munmap(pr->zmap, pr->zmaplen);
	free(pr);
	in->pr = NULL;
}

static void
prod_stop(struct input *in)
{
	char c = 0;

	if (in->pr == NULL)
		return;
	if (in->kind == K_STREAM) {
		pthread_mutex_lock(&in->mu);
		in->stop = 1;
		pthread_cond_broadcast(&in->room);
		pthread_mutex_unlock(&in->mu);
		if (in->wake[1] >= 0)
			(void)write(in->wake[1], &c, 1);
		pthread_join(in->pr->tid, NULL);
		if (in->wake[0] >= 0)
			while (read(in->wake[0], &c, 1) > 0)
				;
		in->stop = 0;
	}
	prod_free(in);
}

/* --- Files ---------------------------------------------------------- */

/* Keeps the finished file's mapping: a batch may still point into it. */
static void
retire_map(struct input *in)
{
	if (in->map == NULL)
		return;
	in->old = diag_realloc(in->old, (in->nold + 1) * sizeof(*in->old));
	in->old[in->nold].p = in->map;
	in->old[in->nold].len = in->maplen;
	in->nold++;
	in->map = NULL;
	in->maplen = in->mapoff = 0;
}

static void
close_file(struct input *in)
{
	prod_stop(in);
	retire_map(in);
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
	in->kind = K_NONE;
	in->ended = 0;
	in->seekend = -1;
}

/*
 * A regular file from offset off to its end, mapped: its lines are read
 * in place, or, when it is gzip, it is the producer's input.  Returns 1
 * when mapped, 0 to read it instead, or a status with d set.
 */
static int
map_file(struct input *in, const struct stat *st, off_t off, struct diag *d)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	off_t base = off - (off_t)((size_t)off % pg);
	size_t skip = (size_t)(off - base), len;
	const unsigned char *u;
	void *m;

	if (st->st_size <= off ||
	    (uint64_t)(st->st_size - base) >= (uint64_t)SIZE_MAX / 2)
		return 0;
	len = (size_t)(st->st_size - base);
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, in->fd, base);
	if (m == MAP_FAILED)
		return 0;
	(void)madvise(m, len, MADV_SEQUENTIAL);
	diag_catch_sigbus(in->name);
	in->bytes += len - skip;
	u = (const unsigned char *)m + skip;
	if (len - skip < 2 || u[0] != 0x1f || u[1] != 0x8b) {
		in->map = m;
		in->maplen = len;
		in->mapoff = skip;
		in->released = 0;
		return 1;
	}
	/* gzip: the producer inflates straight from the mapping. */
	in->pr = diag_calloc(1, sizeof(*in->pr));
	in->pr->zmap = m;
	in->pr->zmaplen = len;
	if ((in->pr->gz = gunzip_open()) == NULL)
		return diag_set(d, EXIT_IO, "out of memory");
	in->pr->fd = in->fd;
	in->pr->win = u;
	in->pr->nwin = len - skip;
	return prod_start(in, d) ? d->status : 1;
}

/* Opens names[cur]: mapped, or read by a producer.  0, or a status. */
static int
open_next(struct input *in, struct diag *d)
{
	const char *name = in->names[in->cur];
	int isstdin = strcmp(name, "-") == 0, k;
	struct prod *pr;
	struct stat st;
	off_t off = 0;
	ssize_t r;

	in->lineno = 0;
	in->fd = isstdin ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
	in->name = isstdin ? "<stdin>" : name;
	if (in->fd < 0 || fstat(in->fd, &st) != 0)
		return diag_set(d, EXIT_IO, "%s: %s", in->name,
		    strerror(errno));
	if (S_ISDIR(st.st_mode))
		return diag_set(d, EXIT_IO, "%s: %s", in->name,
		    strerror(EISDIR));
	in->kind = K_MAP;	/* until more is known: no lines */
	if (isstdin) {
		if (stdin_taken && st.st_dev == stdin_dev &&
		    st.st_ino == stdin_ino)
			return 0;	/* read already, to its end */
		stdin_taken = 1;
		stdin_dev = st.st_dev;
		stdin_ino = st.st_ino;
		if (S_ISREG(st.st_mode) &&
		    (off = lseek(in->fd, 0, SEEK_CUR)) < 0)
			off = 0;
#ifdef F_SETPIPE_SZ
		/* A larger pipe lets the writer run ahead of us. */
		if (S_ISFIFO(st.st_mode))
			(void)fcntl(in->fd, F_SETPIPE_SZ, 1 << 20);
#endif
	}
	if (S_ISREG(st.st_mode) && (k = map_file(in, &st, off, d)) != 0) {
		if (k != 1)
			return k;
		if (isstdin)
			in->seekend = st.st_size;
		return 0;
	}
	/* A stream (or a file that could not be mapped): sniff gzip. */
	in->pr = pr = diag_calloc(1, sizeof(*pr));
	pr->fd = in->fd;
	pr->poll = !S_ISREG(st.st_mode);
	r = read_fd(in, in->fd, 0, pr->first, 2);
	if (r == 1 && pr->first[0] == 0x1f &&
	    read_fd(in, in->fd, 0, pr->first + 1, 1) == 1)
		r = 2;
	if (r < 0)
		return diag_set(d, EXIT_IO, "%s: %s", in->name,
		    strerror(errno));
	if (r == 0)
		return 0;	/* empty */
	in->bytes += (size_t)r;
	if (r == 2 && pr->first[0] == 0x1f && pr->first[1] == 0x8b) {
		if ((pr->gz = gunzip_open()) == NULL)
			return diag_set(d, EXIT_IO, "out of memory");
		pr->zin = diag_malloc(CHUNK);
		pr->win = pr->first;
		pr->nwin = 2;
	} else
		pr->nfirst = (size_t)r;
	return prod_start(in, d);
}

/* --- The parser's side -------------------------------------------- */

/* Tells the producer how far the parser is; under mu. */
static void
report(struct input *in)
{
	in->consumed = in->parsed;
	in->reported = in->parsed;
	if (in->pwait)
		pthread_cond_signal(&in->room);
}

/* Waits for more published bytes, the next block, or the producer's
 * end (in->ended). */
static void
wait_more(struct input *in)
{
	struct blk *b;

	pthread_mutex_lock(&in->mu);
	report(in);
	for (;;) {
		if (in->rb == NULL && in->head != NULL) {
			in->rb = in->head;
			in->beg = in->lim = 0;
		}
		if ((b = in->rb) != NULL) {
			if (b->len > in->lim) {
				in->lim = b->len;
				break;
			}
			if (b->sealed) {
				in->rb = b->next;
				in->beg = in->lim = 0;
				continue;
			}
		}
		if (in->pr->done) {
			in->ended = 1;
			break;
		}
		pthread_cond_wait(&in->more, &in->mu);
	}
	pthread_mutex_unlock(&in->mu);
}

/* The next line of a streamed file: 1, 0 at its end, -1 on error. */
static int
next_streamed(struct input *in, struct line *ln, struct diag *d)
{
	const struct diag *e;
	char *p, *nl;
	size_t len;

	for (;;) {
		if (in->beg < in->lim) {
			p = in->rb->p + in->beg;
			nl = memchr(p, '\n', in->lim - in->beg);
			if (nl != NULL || in->ended) {
				/* (at the end, a last line without one) */
				len = nl ? (size_t)(nl - p) : in->lim - in->beg;
				in->beg += len + (nl != NULL);
				in->parsed += len + (nl != NULL);
				if (in->parsed - in->reported >= REPORT) {
					pthread_mutex_lock(&in->mu);
					report(in);
					pthread_mutex_unlock(&in->mu);
				}
				ln->text = p;
				ln->len = len;
				ln->lineno = ++in->lineno;
				return 1;
			}
		}
		if (!in->ended) {
			wait_more(in);
			continue;
		}
		e = &in->pr->err;
		if (e->status == EXIT_DATA)
			/* Bad data: the line it is in. */
			diag_setl(d, EXIT_DATA, in->name, in->lineno + 1,
			    "%s", e->msg);
		else if (e->status != 0)
			diag_set(d, e->status, "%s: %s", in->name, e->msg);
		return e->status ? -1 : 0;
	}
}

/* The next line of a mapped file: 1, 0 at its end. */
static int
next_mapped(struct input *in, struct line *ln)
{
	size_t left = in->maplen - in->mapoff, len;
	const char *p, *nl;

	if (left == 0)
		return 0;
	p = in->map + in->mapoff;
	nl = memchr(p, '\n', left);
	len = nl ? (size_t)(nl - p) : left;
	in->mapoff += len + (nl != NULL);
	ln->text = p;
	ln->len = len;
	ln->lineno = ++in->lineno;
	return 1;
}

static int
blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

int
input_next(struct input *in, struct line *ln, struct diag *d)
{
	int k;

	for (;;) {
		if (in->kind == K_NONE) {
			if (in->cur >= in->nnames)
				return 0;
			if (open_next(in, d) != 0)
				return -1;
		}
		k = in->kind == K_MAP ? next_mapped(in, ln) :
		    next_streamed(in, ln, d);
		if (k < 0)
			return -1;
		if (k == 0) {
			/* Standard input is left at the end we read to. */
			if (in->seekend >= 0)
				(void)lseek(in->fd, in->seekend, SEEK_SET);
			close_file(in);
			in->cur++;
			continue;
		}
		ln->file = in->name;
		ln->stable = 1;
		if (ln->len > in->max_line) {
			diag_setl(d, EXIT_DATA, in->name, ln->lineno,
			    "line longer than --max-line (%zu bytes)",
			    in->max_line);
			return -1;
		}
		if (ln->len > 0 && ln->text[ln->len - 1] == '\r')
			ln->len--;
		if (blank(ln->text, ln->len))
			continue;
		return 1;
	}
}

/* Lets go of the blocks before stop; under mu. */
static void
release_blocks(struct input *in, const struct blk *stop)
{
	struct blk *b;

	while ((b = in->head) != NULL && b != stop && b != in->tail) {
		in->head = b->next;
		in->held -= b->cap;
		put_block(in, b);
	}
}

void
input_release(struct input *in, const char *keep)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), upto, i;
	const struct blk *b;

	/* Earlier files are wholly behind keep. */
	for (i = 0; i < in->nold; i++)
		munmap((void *)(uintptr_t)in->old[i].p, in->old[i].len);
	in->nold = 0;
	pthread_mutex_lock(&in->mu);
	for (b = in->head; keep != NULL && b != NULL; b = b->next)
		if (keep >= b->p && keep < b->p + b->cap)
			break;
	/* keep is in a block, or after all of them but the parser's. */
	release_blocks(in, b != NULL ? b : in->rb);
	pthread_mutex_unlock(&in->mu);
	if (in->kind != K_MAP || in->map == NULL)
		return;
	/* Pages of the mapped file before the line still wanted leave our
	 * resident set (they stay in the page cache), so memory follows
	 * the batch. */
	if (keep == NULL)
		keep = in->map + in->mapoff;
	if (keep < in->map || keep > in->map + in->maplen)
		return;
	upto = (size_t)(keep - in->map) / pg * pg;
	if (upto > in->released) {
		(void)madvise((char *)(uintptr_t)in->map + in->released,
		    upto - in->released, MADV_DONTNEED);
		in->released = upto;
	}
}

unsigned long long
input_bytes(struct input *in)
{
	unsigned long long n;

	pthread_mutex_lock(&in->mu);
	n = in->bytes;
	pthread_mutex_unlock(&in->mu);
	return n;
}

void
input_close(struct input *in)
{
	size_t i;

	if (in == NULL)
		return;
	close_file(in);
	input_release(in, NULL);
	while (in->head != NULL) {
		struct blk *b = in->head;

		in->head = b->next;
		buf_unmap(b->p, b->cap);
		free(b);
	}
	for (i = 0; i < NSPARE; i++)
		if (in->spare[i] != NULL) {
			buf_unmap(in->spare[i]->p, in->spare[i]->cap);
			free(in->spare[i]);
		}
	if (in->wake[0] >= 0) {
		close(in->wake[0]);
		close(in->wake[1]);
	}
	pthread_mutex_destroy(&in->mu);
	pthread_cond_destroy(&in->more);
	pthread_cond_destroy(&in->room);
	free(in->old);
	free(in);
}
