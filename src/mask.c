/*
 * mask.c - masks, spans and prompt offsets as runs of trained tokens.
 */
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "mask.h"

/* Closes the run at hand: appends it (a zero-length first run of ones
 * included, so that runs always start with ones). */
static void
put_run(struct buf *runs, struct mask *m, uint32_t run)
{
	buf_add(runs, &run, sizeof(run));
	m->nruns++;
}

/* Element v of a mask: the run at hand grows, or is closed and the
 * other kind's begins. */
static inline void
take(struct buf *runs, struct mask *m, uint32_t *run, int *cur,
    size_t *ones, int v)
{
	if (v != *cur) {
		put_run(runs, m, *run);
		*run = 0;
		*cur = v;
	}
	(*run)++;
	*ones += v;
}

/* One element: 0 or 1 (in any JSON spelling of them) or a boolean.
 * Returns the byte after it with *v set, or NULL. */
static const char *
element(const char *p, const char *end, int *v)
{
	const char *q;
	double x;
	int flags;
	struct json_err e;

	if (p < end && (*p == '0' || *p == '1') && (p + 1 >= end ||
	    ((p[1] < '0' || p[1] > '9') && p[1] != '.' && p[1] != 'e' &&
	    p[1] != 'E'))) {
		*v = *p - '0';
		return p + 1;
	}
	if (end - p >= 4 && memcmp(p, "true", 4) == 0) {
		*v = 1;
		return p + 4;
	}
	if (end - p >= 5 && memcmp(p, "false", 5) == 0) {
		*v = 0;
		return p + 5;
	}
	/* 1.0, 0.0, -0.0, 1e0: torch's tolist() of a float mask. */
	if (p < end && (*p == '-' || (*p >= '0' && *p <= '9')) &&
	    (q = json_number(p, end, &flags, &e)) != NULL) {
		x = json_strtod(p, q - p);
		if (x == 0 || x == 1) {
			*v = x == 1;
			return q;
		}
	}
	return NULL;
}

/* "0,0,0,0," and "1,1,1,1," as little-endian words, and what a word of
 * four elements "d,d,d,d," is under QUAD_MASK: odd bytes ',', even ones
 * '0' or '1', whose low bits are then the values. */
#define QUAD_0		0x2c302c302c302c30ULL
#define QUAD_1		0x2c312c312c312c31ULL
#define QUAD_MASK	0xfffefffefffefffeULL
#define QUAD_BITS	0x0001000100010001ULL

const char *
mask_parse(const char *p, const char *end, struct buf *runs, struct mask *m)
{
	size_t save = runs->len, count = 0, ones = 0;
	uint32_t run = 0;
	uint64_t w, bits;
	int cur = 1, v, k;
	const char *q;

	memset(m, 0, sizeof(*m));
	m->runs = runs->len / sizeof(uint32_t);
	p = json_ws(p + 1, end);
	if (p < end && *p == ']')
		return p + 1;
	for (;;) {
		/* Four elements a step, written "1,0,1,1," as json.dumps()
		 * with compact separators and torch's tolist() write them:
		 * a run going on is one compare. */
		while (end - p >= 8) {
			memcpy(&w, p, 8);
			if (w == (cur ? QUAD_1 : QUAD_0)) {
				run += 4;
				ones += cur * 4;
				count += 4;
				p += 8;
				continue;
			}
			if ((w & QUAD_MASK) != QUAD_0)
				break;
			for (bits = w & QUAD_BITS, k = 0; k < 4; k++,
			    bits >>= 16) {
				v = (int)(bits & 1);
				take(runs, m, &run, &cur, &ones, v);
			}
			count += 4;
			p += 8;
		}
		/* Fewer than four left ("1,1,1]"): "d," two bytes a step,
		 * and "d]" ends it. */
		while (end - p >= 3 && (p[0] & ~1) == '0' && p[1] == ',' &&
		    (unsigned char)p[2] > ' ') {
			take(runs, m, &run, &cur, &ones, p[0] - '0');
			count++;
			p += 2;
		}
		if (end - p >= 2 && (p[0] & ~1) == '0' && p[1] == ']') {
			take(runs, m, &run, &cur, &ones, p[0] - '0');
			count++;
			p++;
			break;
		}
		/* Four more elements equal to the current run, written
		 * "1, 1, 1, 1, " as dumps do. */
		if (count > 0 && end - p >= 12) {
			static const char one12[] = "1, 1, 1, 1, ",
			    zero12[] = "0, 0, 0, 0, ";

			if (memcmp(p, cur ? one12 : zero12, 12) == 0) {
				run += 4;
				ones += cur * 4;
				count += 4;
				p += 12;
				continue;
			}
		}
		/* The fast paths stop after a comma, where "1,1,1,1, 1"
		 * and "1, 1, 1, 1,  1" have a blank: JSON too. */
		p = json_ws(p, end);
		if ((q = element(p, end, &v)) == NULL)
			goto bad;
		p = q;
		take(runs, m, &run, &cur, &ones, v);
		count++;
		/* "1,0" as most write it, without a call for the blanks. */
		if (p < end && *p == ',' && p + 1 < end &&
		    (unsigned char)p[1] > ' ') {
			p++;
			continue;
		}
		p = json_ws(p, end);
		if (p < end && *p == ',') {
			p = json_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == ']')
			break;
		goto bad;
	}
	put_run(runs, m, run);
	m->count = count;
	m->ones = ones;
	return p + 1;
bad:
	m->count = count;
	m->ones = ones;
	m->bad_elem = count;
	m->bad_at = p;
	runs->len = save;
	return NULL;
}

/* A non-negative integer element of a span; NULL when it is not one. */
static const char *
span_end(const char *p, const char *end, size_t *v)
{
	const char *q;
	struct json_err e;
	double x;
	int flags;

	if (p >= end || *p < '0' || *p > '9' ||
	    (q = json_number(p, end, &flags, &e)) == NULL ||
	    (flags & JSON_NUM_FRAC))
		return NULL;
	x = json_strtod(p, q - p);
	if (x > 4294967295.0)
		return NULL;
	*v = (size_t)x;
	return json_ws(q, end);
}

const char *
mask_spans(const char *p, const char *end, size_t L, struct buf *runs,
    struct mask *m)
{
	size_t save = runs->len, at = 0, s, e;

	memset(m, 0, sizeof(*m));
	m->runs = runs->len / sizeof(uint32_t);
	m->count = L;
	for (p = json_ws(p + 1, end); p < end && *p != ']';) {
		m->bad_at = p;
		if (*p != '[' || (p = span_end(json_ws(p + 1, end), end, &s)) ==
		    NULL || *p != ',' || (p = span_end(json_ws(p + 1, end), end,
		    &e)) == NULL || *p != ']')
			goto fail_shape;
		if (e < s || s < at || e > L) {
			runs->len = save;
			return e < s ? "its end is before its start" : s < at ?
			    "it starts before the span before it ends; spans "
			    "must be sorted and apart" : "it ends past the "
			    "last token";
		}
		/* zeros up to s, ones from s to e */
		if (m->nruns == 0)
			put_run(runs, m, 0);
		put_run(runs, m, (uint32_t)(s - at));
		put_run(runs, m, (uint32_t)(e - s));
		m->ones += e - s;
		at = e;
		m->bad_elem++;
		p = json_ws(json_ws(p + 1, end), end);
		if (p < end && *p == ',')
			p = json_ws(p + 1, end);
	}
	if (m->nruns == 0)
		put_run(runs, m, 0);
	put_run(runs, m, (uint32_t)(L - at));
	return NULL;
fail_shape:
	runs->len = save;
	return "not a pair [start, end] of token indexes";
}

void
mask_all(size_t L, int ones, struct buf *runs, struct mask *m)
{
	memset(m, 0, sizeof(*m));
	m->runs = runs->len / sizeof(uint32_t);
	m->count = L;
	m->ones = ones ? L : 0;
	if (!ones)
		put_run(runs, m, 0);
	put_run(runs, m, (uint32_t)L);
}

void
mask_cut(struct buf *runs, size_t n, struct mask *m)
{
	size_t i, pos = 0, len, first = m->runs, nr = m->nruns;
	struct mask out;
	uint32_t run;
	int one;

	memset(&out, 0, sizeof(out));
	out.runs = runs->len / sizeof(uint32_t);
	out.count = m->count;
	put_run(runs, &out, 0);
	put_run(runs, &out, (uint32_t)(n < m->count ? n : m->count));
	pos = n;
	/* The old runs past position n, copied (their index is read each
	 * time: appending may move the buffer). */
	for (i = 0, len = 0; i < nr; i++) {
		run = ((const uint32_t *)(const void *)runs->p)[first + i];
		one = !(i & 1);
		if (len + run <= pos) {
			len += run;
			continue;
		}
		if (len < pos) {
			run -= (uint32_t)(pos - len);
			len = pos;
		}
		len += run;
		/* Runs alternate: the last one appended is zeros when its
		 * index is odd; a run of the same kind is merged. */
		if ((int)!(out.nruns & 1) == one)
			put_run(runs, &out, run);
		else
			((uint32_t *)(void *)runs->p)[out.runs + out.nruns -
			    1] += run;
		if (one)
			out.ones += run;
	}
	*m = out;
}
