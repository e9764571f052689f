/*
 * input.c - bytes from files, gunzipped when they are gzip, cut into lines.
 *
 * Lines are returned in place inside one large buffer, so the common case
 * copies nothing; a line that crosses the end of the buffer is moved to its
 * start before the next read.  gzip is detected by its magic bytes, not
 * the file name, and every member of a multi-member file is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "input.h"

#define CHUNK	(1u << 20)	/* bytes per read(2) */
#define BUFMIN	(4u << 20)	/* smallest line buffer */

struct input {
	char *const	*names;
	size_t		 nnames, cur;
	size_t		 max_line;
	int		 fd;		/* -1 before the first file */
	const char	*name;
	int		 gz;		/* current file is gzip */
	int		 gz_done;	/* last member ended cleanly */
	z_stream	 zs;
	int		 zinit;
	unsigned char	*zin;		/* compressed bytes */
	int		 eof;		/* current file fully read */
	char		*buf;		/* decoded bytes of the current file */
	size_t		 cap, beg, end;
	unsigned long long lineno;
	unsigned long long bytes;
};

struct input *
input_open(char *const *names, size_t n, size_t max_line)
{
	struct input *in = diag_calloc(1, sizeof(*in));
	static char *const stdin_name[] = { "-" };

	in->names = n ? names : stdin_name;
	in->nnames = n ? n : 1;
	in->max_line = max_line;
	in->fd = -1;
	in->cap = BUFMIN;
	in->buf = diag_malloc(in->cap);
	in->zin = diag_malloc(CHUNK);
	return in;
}

static int
open_next(struct input *in, struct diag *d)
{
	const char *name = in->names[in->cur];

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
#ifdef POSIX_FADV_SEQUENTIAL
		(void)posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	}
	in->gz = -1;		/* not known until the first bytes */
	in->eof = 0;
	in->beg = in->end = 0;
	in->lineno = 0;
	return 0;
}

static ssize_t
read_raw(struct input *in, void *p, size_t n, struct diag *d)
{
	ssize_t r;

	do
		r = read(in->fd, p, n);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		diag_set(d, EXIT_IO, "%s: %s", in->name, strerror(errno));
		return -1;
	}
	in->bytes += r;
	return r;
}

/* Appends decoded bytes at buf[end..cap); returns bytes added, 0 at the end
 * of the file, -1 on error. */
static ssize_t
fill(struct input *in, struct diag *d)
{
	char *dst = in->buf + in->end;
	size_t room = in->cap - in->end;
	ssize_t r;
	int zr;

	if (in->gz < 0) {
		/* Sniff: read the first bytes of the file. */
		r = read_raw(in, in->zin, CHUNK, d);
		if (r < 0)
			return -1;
		if (r >= 2 && in->zin[0] == 0x1f && in->zin[1] == 0x8b) {
			in->gz = 1;
			if (!in->zinit) {
				memset(&in->zs, 0, sizeof(in->zs));
				if (inflateInit2(&in->zs, 15 + 16) != Z_OK) {
					diag_set(d, EXIT_IO, "out of memory");
					return -1;
				}
				in->zinit = 1;
			} else
				inflateReset(&in->zs);
			in->zs.next_in = in->zin;
			in->zs.avail_in = r;
			in->gz_done = 0;
		} else {
			in->gz = 0;
			if ((size_t)r > room) {
				/* Cannot happen: the buffer holds >= CHUNK. */
				r = room;
			}
			memcpy(dst, in->zin, r);
			if (r == 0)
				in->eof = 1;
			return r;
		}
	}
	if (!in->gz) {
		r = read_raw(in, dst, room, d);
		if (r == 0)
			in->eof = 1;
		return r;
	}
	in->zs.next_out = (unsigned char *)dst;
	in->zs.avail_out = room;
	while (in->zs.avail_out == room) {
		if (in->zs.avail_in == 0) {
			r = read_raw(in, in->zin, CHUNK, d);
			if (r < 0)
				return -1;
			if (r == 0) {
				if (!in->gz_done) {
					diag_set(d, EXIT_DATA, "%s: truncated "
					    "gzip input (unexpected end of "
					    "file)", in->name);
					return -1;
				}
				in->eof = 1;
				return 0;
			}
			in->zs.next_in = in->zin;
			in->zs.avail_in = r;
		}
		if (in->gz_done) {
			/* Another member must begin here. */
			if (in->zs.next_in[0] != 0x1f ||
			    (in->zs.avail_in > 1 && in->zs.next_in[1] != 0x8b)) {
				diag_set(d, EXIT_DATA, "%s: trailing garbage "
				    "after gzip data", in->name);
				return -1;
			}
			inflateReset(&in->zs);
			in->gz_done = 0;
		}
		zr = inflate(&in->zs, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			in->gz_done = 1;
		else if (zr == Z_BUF_ERROR && in->zs.avail_in == 0)
			continue;
		else if (zr != Z_OK) {
			diag_set(d, zr == Z_MEM_ERROR ? EXIT_IO : EXIT_DATA,
			    "%s: corrupt gzip data (%s)", in->name,
			    in->zs.msg ? in->zs.msg : "inflate failed");
			return -1;
		}
	}
	return room - in->zs.avail_out;
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
	char *nl;
	size_t len;
	ssize_t r;

	for (;;) {
		if (in->fd < 0) {
			if (in->cur >= in->nnames)
				return 0;
			if (open_next(in, d) != 0)
				return -1;
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
				diag_setl(d, EXIT_DATA, in->name, in->lineno + 1,
				    "line longer than --max-line (%zu bytes)",
				    in->max_line);
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
				if (in->fd != STDIN_FILENO)
					close(in->fd);
				in->fd = -1;
				in->cur++;
				continue;
			}
			nl = in->buf + in->end;
		}
		len = nl - (in->buf + in->beg);
		ln->text = in->buf + in->beg;
		ln->file = in->name;
		ln->lineno = ++in->lineno;
		in->beg = nl - in->buf + (nl < in->buf + in->end);
		if (len > in->max_line) {
			diag_setl(d, EXIT_DATA, in->name, in->lineno,
			    "line longer than --max-line (%zu bytes)",
			    in->max_line);
			return -1;
		}
		if (len > 0 && ln->text[len - 1] == '\r')
			len--;
		ln->len = len;
		if (blank(ln->text, len))
			continue;
		return 1;
	}
}

unsigned long long
input_bytes(const struct input *in)
{
	return in->bytes;
}

void
input_close(struct input *in)
{
	if (in == NULL)
		return;
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	if (in->zinit)
		inflateEnd(&in->zs);
	free(in->zin);
	free(in->buf);
	free(in);
}
