/*
 * input.c - bytes from files, gunzipped when they are gzip, cut into lines.
 *
 * A plain regular file is mapped, and its lines are returned in place: they
 * stay valid until input_release() or input_close(), so a batch need not
 * copy them (struct line.stable).  Other input is read into one large
 * buffer, where lines are returned in place too; a line that crosses the
 * end of the buffer is moved to its start before the next read.
 *
 * gzip is detected by its magic bytes, not the name; every member of a
 * multi-member file is read.  It is inflated by a second thread into a
 * small ring of chunks, so decompression and parsing overlap.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "input.h"

#define CHUNK	(1u << 20)	/* bytes per read(2) and per ring chunk */
#define BUFMIN	(4u << 20)	/* smallest line buffer */
#define NRING	8		/* inflated chunks in flight */

/* The inflating thread and the chunks it hands over. */
struct gzt {
	pthread_t	 tid;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	char		*chunk[NRING];
	size_t		 len[NRING];
	size_t		 head, count;	/* filled chunks: ring[head..] */
	int		 done;		/* no more chunks will come */
	int		 stop;		/* the reader is closing */
	struct diag	 err;		/* why it ended, when it failed */
	int		 fd;
	const char	*name;
	unsigned char	*first;		/* bytes read while sniffing */
	size_t		 nfirst;
	unsigned long long bytes;
};

struct input {
	char *const	*names;
	size_t		 nnames, cur;
	size_t		 max_line;
	int		 fd;		/* -1 before the first file */
	const char	*name;
	int		 kind;		/* K_* of the current file */
	int		 eof;		/* current file fully read */
	/* K_MAP: the mapping, and where the next line starts; earlier
	 * files' mappings stay in old[] until released. */
	const char	*map;
	size_t		 maplen, mapoff, released;
	struct oldmap { const char *p; size_t len; } *old;
	size_t		 nold;
	/* K_READ, K_GZIP: the line buffer. */
	char		*buf;
	size_t		 cap, beg, end;
	struct gzt	*gz;
	unsigned long long lineno;
	unsigned long long bytes;
};

enum { K_NONE, K_MAP, K_READ, K_GZIP };

struct input *
input_open(char *const *names, size_t n, size_t max_line)
{
	struct input *in = diag_calloc(1, sizeof(*in));
	static char *const stdin_name[] = { "-" };

	in->names = n ? names : stdin_name;
	in->nnames = n ? n : 1;
	in->max_line = max_line;
	in->fd = -1;
	return in;
}

static ssize_t
read_fd(int fd, void *p, size_t n)
{
	ssize_t r;

	do
		r = read(fd, p, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* The producer: read compressed bytes, inflate every member, hand over
 * chunks; any failure is left in g->err for the reader. */
static void *
gz_main(void *arg)
{
	struct gzt *g = arg;
	unsigned char *zin = malloc(CHUNK);
	z_stream zs;
	size_t slot;
	ssize_t r;
	int zr, member_done = 0, ended = 0;
	char *out;

	memset(&zs, 0, sizeof(zs));
	if (zin == NULL || inflateInit2(&zs, 15 + 16) != Z_OK) {
		diag_set(&g->err, EXIT_IO, "out of memory");
		goto out;
	}
	memcpy(zin, g->first, g->nfirst);
	zs.next_in = zin;
	zs.avail_in = g->nfirst;
	for (;;) {
		/* Wait for a free chunk. */
		pthread_mutex_lock(&g->mu);
		while (g->count == NRING && !g->stop)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->stop) {
			pthread_mutex_unlock(&g->mu);
			goto out;
		}
		slot = (g->head + g->count) % NRING;
		out = g->chunk[slot];
		pthread_mutex_unlock(&g->mu);

		zs.next_out = (unsigned char *)out;
		zs.avail_out = CHUNK;
		while (zs.avail_out > 0) {
			if (zs.avail_in == 0) {
				r = read_fd(g->fd, zin, CHUNK);
				if (r < 0) {
					diag_set(&g->err, EXIT_IO, "%s",
					    strerror(errno));
					goto out;
				}
				if (r == 0) {
					if (!member_done) {
						diag_set(&g->err, EXIT_DATA,
						    "truncated gzip input "
						    "(unexpected end of file)");
						goto out;
					}
					ended = 1;
					break;
				}
				g->bytes += r;
				zs.next_in = zin;
				zs.avail_in = r;
			}
			if (member_done) {
				/* Another member must begin here. */
				if (zs.next_in[0] != 0x1f || (zs.avail_in > 1 &&
				    zs.next_in[1] != 0x8b)) {
					diag_set(&g->err, EXIT_DATA,
					    "trailing garbage after gzip data");
					goto out;
				}
				inflateReset(&zs);
				member_done = 0;
			}
			zr = inflate(&zs, Z_NO_FLUSH);
			if (zr == Z_STREAM_END)
				member_done = 1;
			else if (zr == Z_BUF_ERROR && zs.avail_in == 0)
				continue;
			else if (zr != Z_OK) {
				diag_set(&g->err, zr == Z_MEM_ERROR ? EXIT_IO :
				    EXIT_DATA, "corrupt gzip data (%s)",
				    zs.msg ? zs.msg : "inflate failed");
				goto out;
			}
		}
		pthread_mutex_lock(&g->mu);
		g->len[slot] = CHUNK - zs.avail_out;
		if (g->len[slot] > 0)
			g->count++;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		if (ended)
			goto out;
	}
out:
	inflateEnd(&zs);
	free(zin);
	pthread_mutex_lock(&g->mu);
	g->done = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

static int
gz_start(struct input *in, const unsigned char *first, size_t n,
    struct diag *d)
{
	struct gzt *g = diag_calloc(1, sizeof(*g));
	int i;

	g->fd = in->fd;
	g->name = in->name;
	g->first = diag_malloc(n ? n : 1);
	memcpy(g->first, first, n);
	g->nfirst = n;
	for (i = 0; i < NRING; i++)
		g->chunk[i] = diag_malloc(CHUNK);
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	if (pthread_create(&g->tid, NULL, gz_main, g) != 0) {
		for (i = 0; i < NRING; i++)
			free(g->chunk[i]);
		free(g->first);
		free(g);
		return diag_set(d, EXIT_IO, "cannot start a thread: %s",
		    strerror(errno));
	}
	in->gz = g;
	return 0;
}

static void
gz_stop(struct input *in)
{
	struct gzt *g = in->gz;
	int i;

	if (g == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->tid, NULL);
	in->bytes += g->bytes;
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	for (i = 0; i < NRING; i++)
		free(g->chunk[i]);
	free(g->first);
	free(g);
	in->gz = NULL;
}

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
}

static void
close_file(struct input *in)
{
	gz_stop(in);
	retire_map(in);
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
	in->kind = K_NONE;
}

static int
open_next(struct input *in, struct diag *d)
{
	const char *name = in->names[in->cur];
	unsigned char first[CHUNK > 65536 ? 65536 : CHUNK];
	struct stat st;
	ssize_t r;
	void *m;

	if (strcmp(name, "-") == 0) {
		in->fd = STDIN_FILENO;
		in->name = "<stdin>";
#ifdef F_SETPIPE_SZ
		/* A larger pipe lets the producer run ahead of us. */
		(void)fcntl(in->fd, F_SETPIPE_SZ, 1 << 20);
#endif
	} else {
		in->fd = open(name, O_RDONLY | O_CLOEXEC);
		in->name = name;
		if (in->fd < 0)
			return diag_set(d, EXIT_IO, "%s: %s", name,
			    strerror(errno));
	}
	in->eof = 0;
	in->beg = in->end = 0;
	in->lineno = 0;
	if (fstat(in->fd, &st) != 0)
		return diag_set(d, EXIT_IO, "%s: %s", in->name,
		    strerror(errno));
	if (S_ISDIR(st.st_mode))
		return diag_set(d, EXIT_IO, "%s: %s", in->name,
		    strerror(EISDIR));
	if (S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < (uint64_t)SIZE_MAX / 2) {
		m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
		if (m != MAP_FAILED) {
			const unsigned char *u = m;

			if (st.st_size >= 2 && u[0] == 0x1f && u[1] == 0x8b) {
				/* gzip: read it, the mapping is not needed. */
				munmap(m, st.st_size);
			} else {
				(void)madvise(m, st.st_size, MADV_SEQUENTIAL);
				diag_catch_sigbus(in->name);
				in->map = m;
				in->maplen = st.st_size;
				in->mapoff = in->released = 0;
				in->bytes += st.st_size;
				in->kind = K_MAP;
				return 0;
			}
		}
	}
	/* Sniff the first bytes of a stream. */
	r = read_fd(in->fd, first, 2);
	if (r == 1 && first[0] == 0x1f) {
		ssize_t r2 = read_fd(in->fd, first + 1, 1);

		if (r2 > 0)
			r += r2;
	}
	if (r < 0)
		return diag_set(d, EXIT_IO, "%s: %s", in->name,
		    strerror(errno));
	in->bytes += r;
	if (r == 2 && first[0] == 0x1f && first[1] == 0x8b) {
		in->kind = K_GZIP;
		if (in->buf == NULL) {
			in->cap = BUFMIN;
			in->buf = diag_malloc(in->cap);
		}
		return gz_start(in, first, r, d);
	}
	in->kind = K_READ;
	if (in->buf == NULL) {
		in->cap = BUFMIN;
		in->buf = diag_malloc(in->cap);
	}
	memcpy(in->buf, first, r);
	in->end = r;
	return 0;
}

/* Appends decoded bytes at buf[end..cap); returns bytes added, 0 at the end
 * of the file, -1 on error. */
static ssize_t
fill(struct input *in, struct diag *d)
{
	struct gzt *g = in->gz;
	size_t room = in->cap - in->end, n;
	ssize_t r;

	if (in->kind == K_READ) {
		r = read_fd(in->fd, in->buf + in->end, room);
		if (r < 0) {
			diag_set(d, EXIT_IO, "%s: %s", in->name,
			    strerror(errno));
			return -1;
		}
		if (r == 0)
			in->eof = 1;
		in->bytes += r;
		return r;
	}
	pthread_mutex_lock(&g->mu);
	while (g->count == 0 && !g->done)
		pthread_cond_wait(&g->cv, &g->mu);
	if (g->count == 0) {
		pthread_mutex_unlock(&g->mu);
		if (g->err.status == EXIT_DATA)
			/* Bad data: the line it ended in. */
			diag_setl(d, EXIT_DATA, in->name, in->lineno + 1, "%s",
			    g->err.msg);
		else if (g->err.status)
			diag_set(d, g->err.status, "%s: %s", in->name,
			    g->err.msg);
		if (g->err.status)
			return -1;
		in->eof = 1;
		return 0;
	}
	n = g->len[g->head];
	pthread_mutex_unlock(&g->mu);
	/* The chunk is ours until count drops; room >= CHUNK >= n. */
	memcpy(in->buf + in->end, g->chunk[g->head], n);
	pthread_mutex_lock(&g->mu);
	g->head = (g->head + 1) % NRING;
	g->count--;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return (ssize_t)n;
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

/* The next line of a mapped file: 1, 0 at its end, -1 too long. */
static int
next_mapped(struct input *in, struct line *ln, struct diag *d)
{
	const char *p = in->map + in->mapoff, *nl;
	size_t left = in->maplen - in->mapoff, len;

	if (left == 0)
		return 0;
	nl = memchr(p, '\n', left);
	len = nl ? (size_t)(nl - p) : left;
	in->mapoff += len + (nl != NULL);
	ln->text = p;
	ln->len = len;
	ln->stable = 1;
	ln->file = in->name;
	ln->lineno = ++in->lineno;
	if (len > in->max_line) {
		diag_setl(d, EXIT_DATA, in->name, in->lineno, "line longer "
		    "than --max-line (%zu bytes)", in->max_line);
		return -1;
	}
	return 1;
}

int
input_next(struct input *in, struct line *ln, struct diag *d)
{
	char *nl;
	size_t len;
	ssize_t r;
	int k;

	for (;;) {
		if (in->kind == K_NONE) {
			if (in->cur >= in->nnames)
				return 0;
			if (open_next(in, d) != 0)
				return -1;
		}
		if (in->kind == K_MAP) {
			if ((k = next_mapped(in, ln, d)) < 0)
				return -1;
			if (k == 0) {
				/* The mapping stays until released: lines
				 * of a batch may still point into it. */
				close_file(in);
				in->cur++;
				continue;
			}
			goto got;
		}
		nl = memchr(in->buf + in->beg, '\n', in->end - in->beg);
		if (nl == NULL && !in->eof) {
			/* Move the partial line down, grow if it fills. */
			if (in->beg > 0) {
				memmove(in->buf, in->buf + in->beg,
				    in->end - in->beg);
				in->end -= in->beg;
				in->beg = 0;
			}
			if (in->end > in->max_line) {
				diag_setl(d, EXIT_DATA, in->name,
				    in->lineno + 1, "line longer than "
				    "--max-line (%zu bytes)", in->max_line);
				return -1;
			}
			if (in->cap - in->end < CHUNK) {
				in->cap *= 2;
				in->buf = diag_realloc(in->buf, in->cap);
			}
			if ((r = fill(in, d)) < 0)
				return -1;
			in->end += r;
			continue;
		}
		if (nl == NULL) {
			/* End of file: a last line without newline. */
			if (in->beg == in->end) {
				close_file(in);
				in->cur++;
				continue;
			}
			nl = in->buf + in->end;
		}
		len = nl - (in->buf + in->beg);
		ln->text = in->buf + in->beg;
		ln->len = len;
		ln->stable = 0;
		ln->file = in->name;
		ln->lineno = ++in->lineno;
		in->beg = nl - in->buf + (nl < in->buf + in->end);
		if (len > in->max_line) {
			diag_setl(d, EXIT_DATA, in->name, in->lineno,
			    "line longer than --max-line (%zu bytes)",
			    in->max_line);
			return -1;
		}
	got:
		if (ln->len > 0 && ln->text[ln->len - 1] == '\r')
			ln->len--;
		if (blank(ln->text, ln->len))
			continue;
		return 1;
	}
}

void
input_release(struct input *in, const char *keep)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), upto, i;

	/* Pages before the line still wanted leave our resident set (they
	 * stay in the page cache), so memory follows the batch; earlier
	 * files are wholly behind it. */
	for (i = 0; i < in->nold; i++)
		munmap((void *)(uintptr_t)in->old[i].p, in->old[i].len);
	in->nold = 0;
	if (in->map == NULL || keep < in->map || keep > in->map + in->maplen)
		return;
	upto = (size_t)(keep - in->map) / pg * pg;
	if (upto > in->released) {
		(void)madvise((char *)(uintptr_t)in->map + in->released,
		    upto - in->released, MADV_DONTNEED);
		in->released = upto;
	}
}

unsigned long long
input_bytes(const struct input *in)
{
	return in->bytes + (in->gz ? in->gz->bytes : 0);
}

void
input_close(struct input *in)
{
	if (in == NULL)
		return;
	close_file(in);
	input_release(in, NULL);
	free(in->old);
	free(in->buf);
	free(in);
}
