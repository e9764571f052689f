/*
 * output.c - the records rladv writes.
 *
 * Input members are copied, never re-printed, so numbers and large
 * integers stay as they were.  A token array is one formatted number
 * repeated (0 where the mask is 0), so it is written by doubling block
 * copies rather than by formatting each token.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gzout.h"
#include "json.h"
#include "jsonstr.h"
#include "numfmt.h"
#include "outfile.h"
#include "output.h"
#include "pool.h"
#include "tokarr.h"

#define OBUF	(1u << 20)
#define NCACHE	128		/* numbers remembered formatted */
#define NUMBUF	32		/* a formatted number's buffer */

struct output {
	int		 fd;		/* -1: in memory (output_mem) */
	const char	*name;
	struct gzout	*gz;		/* -z: compressed on every core */
	char		*buf;
	size_t		 len, cap;
	int		 failed;
	/*
	 * Numbers formatted, by a hash of their bits (and one more place):
	 * a token-mean weight is one number for the whole batch and the
	 * advantages of groups of one size and binary rewards a few, so
	 * most records need no formatting; nor their token arrays, whose
	 * units each number keeps repeated (rep, for separator repsep).
	 */
	struct {
		uint64_t	 bits;
		int		 digits;	/* 0: empty */
		size_t		 len;
		char		 s[NUMBUF];
		size_t		 repsep;	/* 0: rep not built */
		size_t		 krep;
		char		 rep[TOKARR_REPBUF];
	}		 num[NCACHE + 1];
	char		 zrep[3][TOKARR_REPBUF];	/* ",0,0", ", 0, 0" */
	size_t		 zk[3];
	char		 tmprep[TOKARR_REPBUF];	/* a number not cached */
};

static int	sink(void *arg, const void *p, size_t n, struct diag *d);
static void	zero_reps(struct output *o);

struct output *
output_open(const char *path, int gzip, int level, struct diag *d)
{
	struct output *o = diag_calloc(1, sizeof(*o));

	if (path == NULL || strcmp(path, "-") == 0) {
		o->fd = STDOUT_FILENO;
		o->name = "standard output";
	} else {
		/* A temporary file, renamed into place by output_close(). */
		o->fd = outfile_open(path, d);
		o->name = path;
		if (o->fd < 0) {
			free(o);
			return NULL;
		}
	}
	o->cap = OBUF;
	o->buf = diag_malloc(o->cap);
	zero_reps(o);
	/* As many compressing threads as -j says. */
	if (gzip && (o->gz = gzout_open(level, pool_threads(pool_run()), sink,
	    o, d)) == NULL) {
		outfile_close(o->fd, 0, d);
		free(o->buf);
		free(o);
		return NULL;
	}
	return o;
}

struct output *
output_mem(void)
{
	struct output *o = diag_calloc(1, sizeof(*o));

	o->fd = -1;
	o->name = "<memory>";
	zero_reps(o);
	return o;
}

const char *
output_bytes(const struct output *o, size_t *len)
{
	*len = o->len;
	return o->buf;
}

void
output_clear(struct output *o)
{
	o->len = 0;
}

void
output_free(struct output *o)
{
	if (o == NULL)
		return;
	free(o->buf);
	free(o);
}

static int
write_all(struct output *o, const char *p, size_t n, struct diag *d)
{
	ssize_t w;

	while (n > 0) {
		w = write(o->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->failed = 1;
			return diag_set(d, EXIT_IO, "%s: write error: %s",
			    o->name, w < 0 ? strerror(errno) : "short write");
		}
		p += w;
		n -= w;
	}
	return 0;
}

/* gzout's sink: the compressed bytes, written as they come. */
static int
sink(void *arg, const void *p, size_t n, struct diag *d)
{
	return write_all(arg, p, n, d);
}

static int
flush(struct output *o, struct diag *d)
{
	int rc;

	if (o->failed)
		return EXIT_IO;
	if (o->len == 0)
		return 0;
	rc = o->gz != NULL ? gzout_write(o->gz, o->buf, o->len, d) :
	    write_all(o, o->buf, o->len, d);
	o->len = 0;
	return rc;
}

/* Room for n more bytes: a file's buffer is flushed when they do not
 * fit (and may still be too small), a memory output grows. */
static int
room(struct output *o, size_t n, struct diag *d)
{
	size_t cap;

	if (o->cap - o->len >= n)
		return 0;
	if (o->fd >= 0)
		return flush(o, d);
	cap = o->cap ? o->cap : OBUF / 4;
	while (cap - o->len < n)
		cap *= 2;
	o->buf = diag_realloc(o->buf, cap);
	o->cap = cap;
	return 0;
}

/* output_write() without a call when the bytes fit, as nearly all do:
 * a small record is some twenty writes. */
static inline int
put(struct output *o, const void *p, size_t n, struct diag *d)
{
	if (o->cap - o->len >= n) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return 0;
	}
	return output_write(o, p, n, d);
}

int
output_write(struct output *o, const void *p, size_t n, struct diag *d)
{
	if (room(o, n, d) != 0)
		return d->status;
	if (n > o->cap - o->len)
		return o->gz != NULL ? gzout_write(o->gz, p, n, d) :
		    write_all(o, p, n, d);
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	return 0;
}

int
output_take(struct output *o, struct output *from, struct diag *d)
{
	int rc = 0;

	if (from->len == 0)
		return 0;
	/* A piece goes out as it is, after what o holds, not copied. */
	if (from->len >= OBUF / 8) {
		if (flush(o, d) != 0)
			return d->status;
		rc = o->gz != NULL ? gzout_write(o->gz, from->buf, from->len,
		    d) : write_all(o, from->buf, from->len, d);
	} else
		rc = output_write(o, from->buf, from->len, d);
	from->len = 0;
	return rc;
}

/* Closes o; ok: the run succeeded (output_close), or not (abandon);
 * stop: it stopped at bad data (output_stop). */
static int
finish(struct output *o, int ok, int stop, struct diag *d)
{
	int rc = 0;

	if (o == NULL)
		return 0;
	if ((!ok && !stop) || o->failed)
		rc = EXIT_IO;
	else
		rc = flush(o, d);
	if (o->gz != NULL) {
		/* On an error, the threads stop and the stream is dropped. */
		if (gzout_close(o->gz, rc != 0, d) != 0 && rc == 0)
			rc = d->status;
	}
	if (o->fd == STDOUT_FILENO && ok && rc == 0 && fsync(o->fd) != 0 &&
	    errno != EINVAL && errno != EROFS && errno != ENOTSUP &&
	    errno != EBADF) {
		/* Only a real device error is worth reporting here. */
		if (errno == EIO || errno == ENOSPC || errno == EDQUOT)
			rc = diag_set(d, EXIT_IO, "%s: %s", o->name,
			    strerror(errno));
	}
	/* A file takes its place only when everything was written. */
	if (outfile_close(o->fd, ok && rc == 0, d) != 0 && rc == 0)
		rc = d->status;
	free(o->buf);
	free(o);
	return ok ? rc : 0;
}

int
output_close(struct output *o, struct diag *d)
{
	return finish(o, 1, 0, d);
}

void
output_abandon(struct output *o)
{
	struct diag ignore = { 0 };

	finish(o, 0, 0, &ignore);
}

void
output_stop(struct output *o)
{
	struct diag ignore = { 0 };

	/*
	 * What o holds is whole batches, and how much of them a buffer
	 * held back depends on the threads (a piece formatted on another
	 * thread goes out at once): written, the output is the same
	 * whatever -j is.  A file is not made, as on any failure.
	 */
	finish(o, 0, o != NULL && o->fd == STDOUT_FILENO, &ignore);
}

/* v formatted as output_number() does, from the cache when it is there;
 * *slot: where it is in the cache, and on the way in the place of a
 * number to keep (-1: none): v that would take it takes the one more
 * place instead.  Inline: twice a record. */
static inline __attribute__((always_inline)) const char *
number(struct output *o, double v, int digits, size_t *len, int *slot)
{
	uint64_t bits;
	unsigned i;

	memcpy(&bits, &v, sizeof(bits));
	i = (unsigned)((bits * 0x9e3779b97f4a7c15ULL) >> 57);
	if ((int)i == *slot && (o->num[i].bits != bits ||
	    o->num[i].digits != digits))
		i = NCACHE;
	if (o->num[i].bits != bits || o->num[i].digits != digits) {
		o->num[i].bits = bits;
		o->num[i].digits = digits;
		o->num[i].len = output_number(v, digits, o->num[i].s);
		o->num[i].repsep = 0;
	}
	*slot = (int)i;
	*len = o->num[i].len;
	return o->num[i].s;
}

size_t
output_number(double v, int digits, char *buf)
{
	size_t n;

	if (v == 0 || !isfinite(v)) {
		buf[0] = '0';
		buf[1] = '\0';
		return 1;
	}
	if ((n = numfmt_g(v, digits, buf)) > 0)
		return n;
	return (size_t)snprintf(buf, 32, "%.*g", digits, v);
}

void
output_json_string(struct buf *b, const char *s, size_t n)
{
	jsonstr_quote(b, s, n);
}

/* Writes count copies of unit: one copy, then doubling copies of what is
 * already written, in chunks that fit the buffer. */
static int
repeat(struct output *o, const char *unit, size_t ulen, size_t count,
    struct diag *d)
{
	size_t k, have, want;
	char *base;

	while (count > 0) {
		if (room(o, o->fd < 0 ? ulen * count : ulen, d) != 0)
			return d->status;
		k = (o->cap - o->len) / ulen;
		if (k > count)
			k = count;
		base = o->buf + o->len;
		memcpy(base, unit, ulen);
		have = ulen;
		want = k * ulen;
		while (have < want) {
			size_t c = have < want - have ? have : want - have;

			memcpy(base + have, base, c);
			have += c;
		}
		o->len += want;
		count -= k;
	}
	return 0;
}

struct fieldval {
	const char	*num;		/* NUMBUF bytes, len of them the number */
	size_t		 len;
	int		 slot;		/* in the cache, or -1 */
};

/* u's units, 0 and v's number after seplen bytes of separator: v's in its
 * place in the cache, repeated once for each number and separator.  A
 * unit fits TOKARR_UNIT: a number of at most 17 digits (--digits) is 24
 * bytes at most with its sign, point and exponent. */
static inline void
reps(struct output *o, const struct fieldval *v, size_t seplen,
    struct tokarr_rep *u)
{
	char *q;

	u->rep[0] = o->zrep[seplen];
	u->k[0] = o->zk[seplen];
	u->ulen[0] = seplen + 1;
	u->ulen[1] = seplen + v->len;
	if (v->slot >= 0 && o->num[v->slot].repsep == seplen) {
		u->rep[1] = o->num[v->slot].rep;
		u->k[1] = o->num[v->slot].krep;
		return;
	}
	q = v->slot >= 0 ? o->num[v->slot].rep : o->tmprep;
	u->rep[1] = q;
	u->k[1] = tokarr_fill(q, seplen, v->num, v->len);
	if (v->slot >= 0) {
		o->num[v->slot].repsep = seplen;
		o->num[v->slot].krep = u->k[1];
	}
}

static void
zero_reps(struct output *o)
{
	static const char zero[NUMBUF] = "0";

	o->zk[1] = tokarr_fill(o->zrep[1], 1, zero, 1);
	o->zk[2] = tokarr_fill(o->zrep[2], 2, zero, 1);
}

/* A short token array at once, or -1 when the buffer cannot hold it
 * (the caller's way then). */
static int
short_array(struct output *o, const struct record *r, const uint32_t *runs,
    const struct tokarr_rep *u, size_t seplen, struct diag *d)
{
	size_t need = 2 + r->L * u->ulen[1] + TOKARR_COPY + TOKARR_UNIT;

	if (o->cap - o->len < need && room(o, need, d) != 0)
		return d->status;
	if (o->cap - o->len < need)
		return -1;
	o->len = tokarr_put(o->buf + o->len, r, runs, u, seplen) - o->buf;
	return 0;
}

/* "[x, x, 0, x]": value x where the mask is 1, 0 where it is 0. */
static int
token_array(struct output *o, const struct record *r, const uint32_t *runs,
    const struct fieldval *v, size_t seplen, struct diag *d)
{
	struct tokarr_rep u;
	size_t i, left = r->L, n;
	int first = 1, one, rc;

	reps(o, v, seplen, &u);
	if (left <= TOKARR_SHORT &&
	    (rc = short_array(o, r, runs, &u, seplen, d)) >= 0)
		return rc;
	if (put(o, "[", 1, d) != 0)
		return d->status;
	for (i = 0; tokarr_next_run(r, runs, &i, &left, &n, &one);) {
		if (first) {
			if (put(o, u.rep[one] + seplen,
			    u.ulen[one] - seplen, d) != 0)
				return d->status;
			first = 0;
			n--;
		}
		if (repeat(o, u.rep[one], u.ulen[one], n, d) != 0)
			return d->status;
	}
	return put(o, "]", 1, d);
}

/* One record's numbers, formatted, for the value writers. */
struct one {
	const struct record	*r;
	const uint32_t		*runs;
	struct fieldval		 v[2];
	const struct emit	*em;
};

static int
write_value(struct output *o, int f, const struct one *x, size_t seplen,
    struct diag *d)
{
	switch (f) {
	case OUT_ADV:
		return put(o, x->v[0].num, x->v[0].len, d);
	case OUT_W:
		return put(o, x->v[1].num, x->v[1].len, d);
	case OUT_TADV:
		return token_array(o, x->r, x->runs, &x->v[0], seplen, d);
	case OUT_TW:
		return token_array(o, x->r, x->runs, &x->v[1], seplen, d);
	default:
		return put(o, x->em->annot, x->em->annot_len, d);
	}
}

void
output_names(struct emit *em, const char *const *names)
{
	struct buf q = { 0 };
	size_t n;
	int f, v;

	/* The default names too: quoted once, not at every record; and
	 * each with its separator and colon, in every spacing. */
	em->heads = 1;
	for (f = 0; f < OUT_NFIELDS; f++) {
		q.len = 0;
		output_json_string(&q, names[f], strlen(names[f]));
		em->qname[f] = diag_malloc(q.len);
		memcpy(em->qname[f], q.p, q.len);
		em->qlen[f] = n = q.len;
		if (f < OUT_ANN && n + 4 > sizeof(em->head[f][0]))
			em->heads = 0;
		for (v = 0; v < 4 && f < OUT_ANN && em->heads; v++) {
			memcpy(em->head[f][v], ", ", 1 + (v & 1));
			memcpy(em->head[f][v] + 1 + (v & 1), q.p, n);
			memcpy(em->head[f][v] + 1 + (v & 1) + n, ": ",
			    1 + (v >> 1));
			em->hlen[f][v] = (unsigned char)(n + 2 + (v & 1) +
			    (v >> 1));
		}
	}
	buf_free(&q);
}

void
output_names_free(struct emit *em)
{
	int f;

	for (f = 0; f < OUT_NFIELDS; f++) {
		free(em->qname[f]);
		em->qname[f] = NULL;
	}
}

/* Writes the value of field f (a record's, or a column of them). */
typedef int	(*value_fn)(struct output *, int, const void *, const char *,
		    size_t, struct diag *);

static int
one_value(struct output *o, int f, const void *arg, const char *sep,
    size_t seplen, struct diag *d)
{
	(void)sep;	/* ", " when seplen is 2, else "," */
	return write_value(o, f, arg, seplen, d);
}

/* sep "name": with the input's spacing, no printf. */
static int
write_name(struct output *o, const struct record *r, const struct emit *em,
    int f, const char *sep, size_t seplen, struct diag *d)
{
	char key[64];
	size_t klen = 0, nlen;

	if (r->nmembers > 0) {
		key[0] = sep[0];
		key[1] = sep[seplen - 1];
		klen = seplen;
	}
	if (em->qname[f] != NULL && em->qlen[f] <= sizeof(key) - 4) {
		memcpy(key + klen, em->qname[f], em->qlen[f]);
		klen += em->qlen[f];
	} else if (em->qname[f] != NULL) {
		/* --output-names: any length, escaped once. */
		if (put(o, key, klen, d) != 0 ||
		    put(o, em->qname[f], em->qlen[f], d) != 0)
			return d->status;
		klen = 0;
	} else {
		nlen = strlen(record_out_names[f]);
		key[klen++] = '"';
		memcpy(key + klen, record_out_names[f], nlen);
		klen += nlen;
		key[klen++] = '"';
	}
	key[klen++] = ':';
	if (r->colon_space)
		key[klen++] = ' ';
	return put(o, key, klen, d);
}

/*
 * The input object from its '{', its members byte for byte, the fields
 * rladv writes (want[f]) replaced in place or appended by fn, the stale
 * ones (present, not wanted) dropped, and a newline.
 */
static int
write_line(struct output *o, const char *line, const struct record *r,
    const struct emit *em, const int *want, value_fn fn, const void *arg,
    struct diag *d)
{
	const char *sep = r->comma_space ? ", " : ",";
	size_t seplen = r->comma_space ? 2 : 1, pos, beg;
	int order[OUT_NFIELDS], n = 0, i, j, f;

	/* Fields already in the input, in the order they stand there. */
	for (f = 0; f < OUT_NFIELDS; f++)
		if (r->outs & 1u << f)
			order[n++] = f;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && r->out[order[j]].beg <
		    r->out[order[j - 1]].beg; j--) {
			f = order[j];
			order[j] = order[j - 1];
			order[j - 1] = f;
		}
	beg = line[0] == '{' ? 0 :
	    (size_t)((const char *)memchr(line, '{', r->close + 1) - line);
	pos = beg;
	for (i = 0; i < n; i++) {
		const struct span *s = &r->out[order[i]];

		if (want[order[i]]) {
			if (put(o, line + pos, s->beg - pos, d) != 0 ||
			    fn(o, order[i], arg, sep, seplen, d) != 0)
				return d->status;
			pos = s->end;
			continue;
		}
		/* A stale field rladv no longer writes: drop the member with
		 * the comma before it, or, when it leads the object (it is
		 * first, or all before it were dropped), the comma after. */
		if (s->prev > beg + 1 && s->prev >= pos) {
			if (put(o, line + pos, s->prev - pos, d) != 0)
				return d->status;
			pos = s->end;
		} else {
			if (s->prev >= pos && put(o, line + pos,
			    s->prev - pos, d) != 0)
				return d->status;
			pos = s->end;
			while (pos < r->close && line[pos] != ',')
				pos++;
			if (pos < r->close)
				pos++;
			while (pos < r->close && (line[pos] == ' ' ||
			    line[pos] == '\t'))
				pos++;
		}
	}
	if (put(o, line + pos, r->close - pos, d) != 0)
		return d->status;
	for (f = 0; f < OUT_NFIELDS; f++) {
		if ((r->outs & 1u << f) || !want[f])
			continue;
		if (write_name(o, r, em, f, sep, seplen, d) != 0 ||
		    fn(o, f, arg, sep, seplen, d) != 0)
			return d->status;
	}
	return put(o, "}\n", 2, d);
}

/*
 * write_line() of a record that has none of the fields rladv writes, in
 * one piece: room for all of it, then its bytes without a call each, as
 * a short record (20 tokens) is mostly this.  -1 when it is not such a
 * record (stale fields, an annotation, long arrays, names not quoted).
 */
static int
short_record(struct output *o, const char *line, const struct record *r,
    const struct one *x, const int *want, struct diag *d)
{
	const struct emit *em = x->em;
	const struct fieldval *v;
	struct tokarr_rep u;
	size_t need, beg, sl = r->comma_space ? 2 : 1;
	char *p;
	int f, hv = r->comma_space + 2 * r->colon_space;

	if (r->outs != 0 || !em->heads || want[OUT_ANN] || r->nmembers == 0 ||
	    r->L > TOKARR_SHORT)
		return -1;
	/* Each field a head and a number or an array of r->L units (each
	 * within TOKARR_UNIT, as reps() says). */
	need = r->close + 2 + OUT_ANN * (sizeof(em->head[0][0]) + NUMBUF) +
	    2 * (r->L * TOKARR_UNIT + 2 + TOKARR_COPY);
	if (o->cap - o->len < need && room(o, need, d) != 0)
		return d->status;
	if (o->cap - o->len < need)
		return -1;
	p = o->buf + o->len;
	beg = line[0] == '{' ? 0 :
	    (size_t)((const char *)memchr(line, '{', r->close + 1) - line);
	memcpy(p, line + beg, r->close - beg);
	p += r->close - beg;
	for (f = 0; f < OUT_ANN; f++) {
		if (!want[f])
			continue;
		memcpy(p, em->head[f][hv], sizeof(em->head[f][hv]));
		p += em->hlen[f][hv];
		v = &x->v[f == OUT_W || f == OUT_TW];
		if (f == OUT_ADV || f == OUT_W) {
			memcpy(p, v->num, NUMBUF);
			p += v->len;
			continue;
		}
		reps(o, v, sl, &u);
		p = tokarr_put(p, r, x->runs, &u, sl);
	}
	*p++ = '}';
	*p++ = '\n';
	o->len = p - o->buf;
	return 0;
}

int
output_record(struct output *o, const char *line, const struct record *r,
    const uint32_t *runs, double adv, double w, const struct emit *em,
    struct diag *d)
{
	struct one x;
	int want[OUT_NFIELDS], f, slot;

	x.r = r;
	x.runs = runs;
	x.em = em;
	/* The cache's strings stay put while this record is written: the
	 * second number keeps the first's slot. */
	slot = -1;
	x.v[0].num = number(o, adv, em->digits, &x.v[0].len, &slot);
	x.v[0].slot = slot;
	x.v[1].num = number(o, w, em->digits, &x.v[1].len, &slot);
	x.v[1].slot = slot;
	/* The token arrays need the response length, the loss weight
	 * token counts. */
	want[OUT_ADV] = 1;
	want[OUT_TADV] = want[OUT_TW] = em->tokens && r->has_len;
	want[OUT_W] = !em->no_weights;
	want[OUT_ANN] = em->annot != NULL;
	if ((f = short_record(o, line, r, &x, want, d)) >= 0)
		return f;
	return write_line(o, line, r, em, want, one_value, &x, d);
}

/* The records of a columnar line. */
struct cols {
	const struct record *const *r;
	const uint32_t	*runs;
	const double	*adv, *w;
	size_t		 n;
	const struct emit *em;
};

/* A column: "[v0, v1, ...]", each the record's own value (null for a
 * token array of a record without a length). */
static int
column_value(struct output *o, int f, const void *arg, const char *sep,
    size_t seplen, struct diag *d)
{
	const struct cols *c = arg;
	char na[NUMBUF], nw[NUMBUF];
	struct one x;
	size_t k;

	if (put(o, "[", 1, d) != 0)
		return d->status;
	for (k = 0; k < c->n; k++) {
		x.r = c->r[k];
		x.runs = c->runs;
		x.em = c->em;
		x.v[0].num = na;
		x.v[0].len = output_number(c->adv[k], c->em->digits, na);
		x.v[0].slot = x.v[1].slot = -1;
		x.v[1].num = nw;
		x.v[1].len = output_number(c->w[k], c->em->digits, nw);
		if ((k > 0 && put(o, sep, seplen, d) != 0) ||
		    ((f == OUT_TADV || f == OUT_TW) && !x.r->has_len ?
		    put(o, "null", 4, d) : write_value(o, f, &x, seplen,
		    d)) != 0)
			return d->status;
	}
	return put(o, "]", 1, d);
}

int
output_columns(struct output *o, const char *line,
    const struct record *const *r, const uint32_t *runs, const double *adv,
    const double *w, size_t n, const struct emit *em, struct diag *d)
{
	struct cols c;
	int want[OUT_NFIELDS], f;
	size_t k, haslen = 0;

	c.r = r;
	c.runs = runs;
	c.adv = adv;
	c.w = w;
	c.n = n;
	c.em = em;
	for (k = 0; k < n; k++)
		haslen += r[k]->has_len;
	for (f = 0; f < OUT_NFIELDS; f++)
		want[f] = f == OUT_ANN ? 0 : f == OUT_TADV || f == OUT_TW ?
		    em->tokens && haslen > 0 : f == OUT_W ? !em->no_weights : 1;
	return write_line(o, line, r[0], em, want, column_value, &c, d);
}
