/*
 * input.c - bytes from files, gunzipped when they are gzip, cut into lines.
 *
 * A plain regular file is mapped, and its lines are returned in place.
 * Any other input (a pipe, a terminal, gzip) is read by a second thread
 * into blocks that keep its lines (src/reader.c), so that every line
 * stays valid until input_release() or input_close() and a batch need
 * not copy it (struct line.stable).
 *
 * Standard input is read from its current offset, and left at the end:
 * "{ head -n1 >/dev/null; rladv; } < f" skips line 1.  A second "-"
 * names the same stream, already ended, so it gives no lines.
 *
 * gzip is detected by its magic bytes, not the name; every member of a
 * multi-member file is read (src/gunzip.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "reader.h"

#define RELEASE_STEP ((size_t)64 << 10) /* least mapped bytes let go */

struct input {
	char *const	*names;
	size_t		 nnames, cur;
	size_t		 max_line;
	int		 keep_long;	/* input_keep_long() */
	int		 fd;		/* -1 between files */
	const char	*name;
	int		 kind;		/* K_* of the current file */
	off_t		 seekend;	/* standard input: leave it here */
	unsigned long long lineno;
	unsigned long long bytes;	/* mapped */
	/* K_MAP: the mapping, and where the next line starts; earlier
	 * files' mappings stay in old[] until released. */
	const char	*map;
	size_t		 maplen, mapoff, released;
	struct oldmap { const char *p; size_t len, file; } *old;
	size_t		 nold;
	struct reader	*rd;		/* K_READ; made at the first */
	size_t		 readlast;	/* 1 + the last file the reader
					   gave lines of, or 0 */
	unsigned char	*viaread;	/* [nnames]: read by the reader */
};

enum { K_NONE, K_MAP, K_READ };

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
	in->viaread = diag_calloc(in->nnames, 1);
	in->max_line = max_line;
	in->fd = -1;
	in->seekend = -1;
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

/* Keeps the finished file's mapping: a batch may still point into it. */
static void
retire_map(struct input *in)
{
	if (in->map == NULL)
		return;
	in->old = diag_realloc(in->old, (in->nold + 1) * sizeof(*in->old));
	in->old[in->nold].p = in->map;
	in->old[in->nold].len = in->maplen;
	in->old[in->nold].file = in->cur;
	in->nold++;
	in->map = NULL;
	in->maplen = in->mapoff = 0;
}

static void
close_file(struct input *in)
{
	if (in->rd != NULL)
		reader_stop(in->rd);
	retire_map(in);
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
	in->kind = K_NONE;
	in->seekend = -1;
}

/*
 * Maps a plain regular file from offset off to its end, for its lines to
 * be read in place: 1, or 0 to read it instead (gzip, empty, or not
 * mappable).
 */
static int
map_file(struct input *in, const struct stat *st, off_t off)
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
	u = (const unsigned char *)m + skip;
	if (len - skip >= 2 && u[0] == 0x1f && u[1] == 0x8b) {
		/* gzip is read: a mapping would count the whole compressed
		 * file in our resident set. */
		munmap(m, len);
		return 0;
	}
	(void)madvise(m, len, MADV_SEQUENTIAL);
	diag_catch_sigbus(in->name);
	in->map = m;
	in->maplen = len;
	in->mapoff = skip;
	in->released = 0;
	in->bytes += len - skip;
	return 1;
}

/* Standard input: whether it is the stream a "-" before read already;
 * else its offset, from which it is read. */
static int
stdin_again(int fd, const struct stat *st, off_t *off)
{
	if (stdin_taken && st->st_dev == stdin_dev && st->st_ino == stdin_ino)
		return 1;
	stdin_taken = 1;
	stdin_dev = st->st_dev;
	stdin_ino = st->st_ino;
	if (S_ISREG(st->st_mode) && (*off = lseek(fd, 0, SEEK_CUR)) < 0)
		*off = 0;
#ifdef F_SETPIPE_SZ
	/* A larger pipe lets the writer run ahead of us. */
	if (S_ISFIFO(st->st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#endif
	return 0;
}

/* Opens names[cur]: mapped, or read by the reader.  0, or a status. */
static int
open_next(struct input *in, struct diag *d)
{
	const char *name = in->names[in->cur];
	int isstdin = strcmp(name, "-") == 0;
	unsigned char first[2];
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
	in->kind = K_MAP;	/* no lines, until more is known */
	if (isstdin && stdin_again(in->fd, &st, &off))
		return 0;	/* read already, to its end */
	if (S_ISREG(st.st_mode) && map_file(in, &st, off)) {
		if (isstdin)
			in->seekend = st.st_size;
		return 0;
	}
	/* Sniff gzip; a first byte 0x1f alone may be followed. */
	r = read_fd(in->fd, first, 2);
	if (r == 1 && first[0] == 0x1f && read_fd(in->fd, first + 1, 1) == 1)
		r = 2;
	if (r < 0)
		return diag_set(d, EXIT_IO, "%s: %s", in->name,
		    strerror(errno));
	if (r == 0)
		return 0;	/* empty */
	if (in->rd == NULL)
		in->rd = reader_new(in->keep_long ? 0 : in->max_line);
	in->kind = K_READ;
	in->viaread[in->cur] = 1;
	return reader_start(in->rd, in->fd, !S_ISREG(st.st_mode),
	    r == 2 && first[0] == 0x1f && first[1] == 0x8b, first, (size_t)r,
	    d);
}

/* The next line of a file the reader reads: 1, 0 at its end, -1. */
static int
next_read(struct input *in, struct line *ln, struct diag *d)
{
	const struct diag *why;
	int k;

	if ((k = reader_next(in->rd, &ln->text, &ln->len, &why)) >= 0) {
		ln->lineno = in->lineno += k;
		if (k > 0)
			in->readlast = in->cur + 1;
		return k;
	}
	if (why->status == EXIT_DATA)
		/* Bad data: the line it is in. */
		diag_setl(d, EXIT_DATA, in->name, in->lineno + 1, "%s",
		    why->msg);
	else
		diag_set(d, why->status, "%s: %s", in->name, why->msg);
	return -1;
}

/* The line of mapped bytes at *pos, up to end, into ln, and *pos past
 * it: 1, or 0 at end. */
static int
cut_line(const char **pos, const char *end, struct line *ln)
{
	const char *p = *pos, *nl;

	if (p == end)
		return 0;
	nl = memchr(p, '\n', (size_t)(end - p));
	ln->text = p;
	ln->len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	*pos = p + ln->len + (nl != NULL);
	return 1;
}

/* The next line of a mapped file: 1, 0 at its end. */
static int
next_mapped(struct input *in, struct line *ln)
{
	const char *pos;

	/* (no mapping at all for an empty file or standard input again) */
	if (in->mapoff == in->maplen)
		return 0;
	pos = in->map + in->mapoff;
	cut_line(&pos, in->map + in->maplen, ln);
	in->mapoff = (size_t)(pos - in->map);
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

/*
 * The rules every line read passes, wherever it was cut: 1 and ln
 * finished, 0 for a blank line (skipped), -1 with d set.
 */
static int
finish_line(struct line *ln, size_t max_line, int keep_long,
    struct diag *d)
{
	ln->stable = 1;
	ln->toolong = ln->len > max_line ? max_line : 0;
	if (ln->toolong && !keep_long) {
		input_too_long(ln, d);
		return -1;
	}
	if (ln->len > 0 && ln->text[ln->len - 1] == '\r')
		ln->len--;
	if (!ln->toolong && blank(ln->text, ln->len))
		return 0;
	return 1;
}

/* Makes the next file, if any, the current one: 1, 0 at the end of the
 * input, -1 with d set. */
static int
current(struct input *in, struct diag *d)
{
	if (in->kind != K_NONE)
		return 1;
	if (in->cur >= in->nnames)
		return 0;
	return open_next(in, d) != 0 ? -1 : 1;
}

/* The current file has ended. */
static void
next_file(struct input *in)
{
	/* Standard input is left at the end we read to. */
	if (in->seekend >= 0)
		(void)lseek(in->fd, in->seekend, SEEK_SET);
	close_file(in);
	in->cur++;
}

int
input_next(struct input *in, struct line *ln, struct diag *d)
{
	int k;

	for (;;) {
		if ((k = current(in, d)) <= 0)
			return k;
		k = in->kind == K_MAP ? next_mapped(in, ln) :
		    next_read(in, ln, d);
		if (k < 0)
			return -1;
		if (k == 0) {
			next_file(in);
			continue;
		}
		ln->file = in->name;
		ln->fileno = in->cur;
		if ((k = finish_line(ln, in->max_line, in->keep_long, d)) != 0)
			return k;
	}
}

int
input_span(struct input *in, size_t want, struct linespan *s, struct diag *d)
{
	size_t left;
	const char *p, *nl;
	int k;

	for (;;) {
		if ((k = current(in, d)) <= 0)
			return k;
		if (in->kind != K_MAP)
			return 2;
		if ((left = in->maplen - in->mapoff) > 0)
			break;
		next_file(in);
	}
	p = in->map + in->mapoff;
	/* Whole lines: to the first newline from want bytes on. */
	nl = left > want ? memchr(p + want, '\n', left - want) : NULL;
	left = nl != NULL ? (size_t)(nl + 1 - p) : left;
	in->mapoff += left;
	s->p = p;
	s->end = p + left;
	s->file = in->name;
	s->fileno = in->cur;
	s->before = in->lineno;
	s->max_line = in->max_line;
	s->keep_long = in->keep_long;
	return 1;
}

int
input_cut(const struct linespan *s, const char **pos, unsigned long long *n,
    struct line *ln, struct diag *d)
{
	int k;

	do {
		if (!cut_line(pos, s->end, ln))
			return 0;
		ln->lineno = ++*n;
		ln->file = s->file;
		ln->fileno = s->fileno;
	} while ((k = finish_line(ln, s->max_line, s->keep_long, d)) == 0);
	return k;
}

/* Unmaps the mappings of files before file. */
static void
unmap_before(struct input *in, size_t file)
{
	size_t i, j;

	for (i = j = 0; i < in->nold; i++)
		if (in->old[i].file < file)
			munmap((void *)(uintptr_t)in->old[i].p,
			    in->old[i].len);
		else
			in->old[j++] = in->old[i];
	in->nold = j;
}

/* Lets the current mapping's pages before keep leave our resident set
 * (keep NULL: all of those read). */
static void
unmap_pages(struct input *in, const char *keep)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), upto;

	if (in->kind != K_MAP || in->map == NULL)
		return;
	/* They stay in the page cache, so memory follows the batch: in
	 * steps of 64 KiB at least, for callers that release line by
	 * line. */
	if (keep == NULL)
		keep = in->map + in->mapoff;
	if (keep < in->map || keep > in->map + in->maplen)
		return;
	upto = (size_t)(keep - in->map) / pg * pg;
	if (upto >= in->released + RELEASE_STEP) {
		(void)madvise((char *)(uintptr_t)in->map + in->released,
		    upto - in->released, MADV_DONTNEED);
		in->released = upto;
	}
}

int
input_ready(struct input *in)
{
	return in->kind != K_READ || reader_ready(in->rd);
}

void
input_release(struct input *in, const char *keep)
{
	/* Earlier files are wholly behind keep. */
	unmap_before(in, (size_t)-1);
	if (in->rd != NULL)
		reader_release(in->rd, keep);
	unmap_pages(in, keep);
}

void
input_release_at(struct input *in, const char *keep, size_t fileno)
{
	unmap_before(in, fileno);
	/*
	 * The reader's blocks hold its files' lines in order: those before
	 * keep's block when keep is one of them, all of them when every
	 * file it read comes before keep's, and otherwise (keep is in a
	 * mapped file between the reader's) none can go yet.
	 */
	if (in->rd != NULL) {
		if (in->viaread[fileno])
			reader_release(in->rd, keep);
		else if (in->readlast <= fileno)
			reader_release(in->rd, NULL);
	}
	if (in->cur == fileno)
		unmap_pages(in, keep);
}

unsigned long long
input_bytes(struct input *in)
{
	return in->bytes + (in->rd ? reader_bytes(in->rd) : 0);
}

void
input_close(struct input *in)
{
	if (in == NULL)
		return;
	close_file(in);
	input_release(in, NULL);
	reader_free(in->rd);
	free(in->old);
	free(in->viaread);
	free(in);
}

void
input_keep_long(struct input *in)
{
	in->keep_long = 1;
}

int
input_too_long(const struct line *ln, struct diag *d)
{
	if (!ln->toolong)
		return 0;
	return diag_setl(d, EXIT_DATA, ln->file, ln->lineno, "line longer "
	    "than --max-line (%zu bytes)", ln->toolong);
}
