/*
 * fuzz_record.c - libFuzzer harness over record_parse() and output_record().
 *
 * Every input is parsed three times:
 *   A. the whole input as one line, with the default field names;
 *   B. the input past its first byte, whose bits pick the configuration:
 *      a batch key, need_stratum, a composite stratum key, --stratum-cap,
 *      renamed fields, and how the record is written back;
 *   C. the input past its first two bytes, whose bits pick the options of
 *      the frameworks' dumps: field paths, two rewards weighed, null
 *      rewards, --reward-reduce, --unwrap, --columnar (a line of several
 *      records, written back as columns), spans, a prompt length, a
 *      sample mask, a length field, a trajectory.
 *
 * Besides the sanitizers, the harness checks what record_parse promises:
 *   - an accepted line is a valid JSON object (an independent strict
 *     RFC 8259 + UTF-8 validator below is the oracle), and a valid object
 *     is never refused as "invalid JSON" (unless nested deeper than
 *     JSON_MAX_DEPTH, which is refused on purpose);
 *   - an error is status 1 with "FILE:LINE: " in front of its message;
 *   - the parsed numbers and spans are consistent (finite reward, never -0,
 *     T <= L, mask runs summing to L and T, spans inside the line, keys
 *     inside their buffer, a columnar line's records numbered in order);
 *   - the record written back by output_record is one valid JSON object
 *     and parses again to the same reward, lengths and keys (a second run
 *     over rladv's own output must work, SPEC section 5).
 * A broken promise calls abort(), which libFuzzer reports as a crash.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sanitizer/common_interface_defs.h>

#include "buf.h"
#include "diag.h"
#include "json.h"
#include "output.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_FILE	"fuzz.jsonl"
#define FUZZ_LINE	7ULL

/* libFuzzer runs with -close_fd_mask=2: the sanitizer's report file
 * descriptor is where a message still gets through. */
static void
fail(const char *what, const char *line, size_t len, const char *extra)
{
	char msg[1600];

	snprintf(msg, sizeof(msg), "fuzz_record: %s%s%s", what,
	    extra ? ": " : "", extra ? extra : "");
	__sanitizer_report_error_summary(msg);
	fprintf(stderr, "fuzz_record: %s\n", what);
	if (extra != NULL)
		fprintf(stderr, "  detail: %s\n", extra);
	fprintf(stderr, "  line (%zu bytes): %.*s\n", len,
	    (int)(len > 2000 ? 2000 : len), line);
	abort();
}

/* ------------------------------------------------------------------ */
/* The oracle: a strict JSON validator, written independently of json.c. */

enum { OR_INVALID, OR_VALID, OR_TOO_DEEP };
#define OR_DEPTH_CAP	1000	/* the oracle's own recursion bound */

struct orc {
	const unsigned char	*p, *end;
	int			 depth, maxdepth, too_deep;
};

static void
or_ws(struct orc *o)
{
	while (o->p < o->end && (*o->p == ' ' || *o->p == '\t' ||
	    *o->p == '\n' || *o->p == '\r'))
		o->p++;
}

static int
or_cont(unsigned char c, unsigned char lo, unsigned char hi)
{
	return c >= lo && c <= hi;
}

/* Well-formed UTF-8 sequences, Unicode Table 3-7. */
static int
or_utf8(struct orc *o)
{
	const unsigned char *s = o->p;
	size_t left = o->end - s;
	unsigned char c = s[0];

	if (c >= 0xc2 && c <= 0xdf) {
		if (left < 2 || !or_cont(s[1], 0x80, 0xbf))
			return 0;
		o->p += 2;
		return 1;
	}
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80;
		unsigned char hi = c == 0xed ? 0x9f : 0xbf;

		if (left < 3 || !or_cont(s[1], lo, hi) ||
		    !or_cont(s[2], 0x80, 0xbf))
			return 0;
		o->p += 3;
		return 1;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80;
		unsigned char hi = c == 0xf4 ? 0x8f : 0xbf;

		if (left < 4 || !or_cont(s[1], lo, hi) ||
		    !or_cont(s[2], 0x80, 0xbf) || !or_cont(s[3], 0x80, 0xbf))
			return 0;
		o->p += 4;
		return 1;
	}
	return 0;
}

static int
or_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static int
or_string(struct orc *o)
{
	int i;

	o->p++;			/* the opening quote */
	for (;;) {
		if (o->p >= o->end)
			return 0;
		if (*o->p == '"') {
			o->p++;
			return 1;
		}
		if (*o->p < 0x20)
			return 0;
		if (*o->p == '\\') {
			if (o->end - o->p < 2)
				return 0;
			switch (o->p[1]) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				o->p += 2;
				continue;
			case 'u':
				if (o->end - o->p < 6)
					return 0;
				for (i = 2; i < 6; i++)
					if (!or_hex(o->p[i]))
						return 0;
				o->p += 6;
				continue;
			default:
				return 0;
			}
		}
		if (*o->p < 0x80) {
			o->p++;
			continue;
		}
		if (!or_utf8(o))
			return 0;
	}
}

static int
or_digits(struct orc *o)
{
	const unsigned char *s = o->p;

	while (o->p < o->end && *o->p >= '0' && *o->p <= '9')
		o->p++;
	return o->p > s;
}

static int
or_number(struct orc *o)
{
	if (o->p < o->end && *o->p == '-')
		o->p++;
	if (o->p >= o->end)
		return 0;
	if (*o->p == '0')
		o->p++;
	else if (*o->p >= '1' && *o->p <= '9')
		or_digits(o);
	else
		return 0;
	if (o->p < o->end && *o->p == '.') {
		o->p++;
		if (!or_digits(o))
			return 0;
	}
	if (o->p < o->end && (*o->p == 'e' || *o->p == 'E')) {
		o->p++;
		if (o->p < o->end && (*o->p == '+' || *o->p == '-'))
			o->p++;
		if (!or_digits(o))
			return 0;
	}
	return 1;
}

static int
or_word(struct orc *o, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(o->end - o->p) < n || memcmp(o->p, w, n) != 0)
		return 0;
	o->p += n;
	return 1;
}

static int or_value(struct orc *o);

static int
or_container(struct orc *o, int obj)
{
	char close = obj ? '}' : ']';

	if (++o->depth > o->maxdepth)
		o->maxdepth = o->depth;
	if (o->depth > OR_DEPTH_CAP) {
		o->too_deep = 1;
		return 0;
	}
	o->p++;
	or_ws(o);
	if (o->p < o->end && *o->p == close) {
		o->p++;
		o->depth--;
		return 1;
	}
	for (;;) {
		if (obj) {
			if (o->p >= o->end || *o->p != '"' || !or_string(o))
				return 0;
			or_ws(o);
			if (o->p >= o->end || *o->p != ':')
				return 0;
			o->p++;
			or_ws(o);
		}
		if (!or_value(o))
			return 0;
		or_ws(o);
		if (o->p >= o->end)
			return 0;
		if (*o->p == ',') {
			o->p++;
			or_ws(o);
			continue;
		}
		if (*o->p == close) {
			o->p++;
			o->depth--;
			return 1;
		}
		return 0;
	}
}

static int
or_value(struct orc *o)
{
	if (o->p >= o->end)
		return 0;
	switch (*o->p) {
	case '{':
		return or_container(o, 1);
	case '[':
		return or_container(o, 0);
	case '"':
		return or_string(o);
	case 't':
		return or_word(o, "true");
	case 'f':
		return or_word(o, "false");
	case 'n':
		return or_word(o, "null");
	default:
		return or_number(o);
	}
}

/* Whether the bytes are exactly one JSON object (with white space around). */
static int
oracle_object(const char *text, size_t len, int *maxdepth)
{
	struct orc o;
	int ok;

	o.p = (const unsigned char *)text;
	o.end = o.p + len;
	o.depth = o.maxdepth = o.too_deep = 0;
	or_ws(&o);
	if (o.p >= o.end || *o.p != '{') {
		*maxdepth = 0;
		return OR_INVALID;
	}
	ok = or_value(&o);
	*maxdepth = o.maxdepth;
	if (o.too_deep)
		return OR_TOO_DEEP;
	if (!ok)
		return OR_INVALID;
	or_ws(&o);
	return o.p == o.end ? OR_VALID : OR_INVALID;
}

/* ------------------------------------------------------------------ */

/* Configurations of variant B. */
static const char *const batch_names[8] = {
	NULL, "step", "prompt_id", "reward", "tool_calls", "logprobs", "mask",
	"uid"
};

static void
config_b(unsigned sel, struct fields *f, struct emit *em)
{
	fields_default(f);
	f->batch = batch_names[sel & 7];
	f->need_stratum = (sel >> 3) & 1;
	if ((sel >> 4) & 1) {
		f->list[FR_STRATUM].name[0] = "tool_calls";
		f->list[FR_STRATUM].name[1] = "search_ok";
		f->list[FR_STRATUM].n = 2;
		f->named |= FN(FR_STRATUM);	/* parts, not aliases */
	}
	if ((sel >> 5) & 1) {
		f->has_cap = 1;
		f->cap = 3;
	}
	if ((sel >> 6) & 1) {
		/* --group-key uid --reward-key score: one name each. */
		f->list[FR_GROUP].name[0] = "uid";
		f->list[FR_GROUP].n = 1;
		f->list[FR_REWARD].name[0] = "score";
		f->list[FR_REWARD].n = 1;
		f->named |= FN(FR_GROUP) | FN(FR_REWARD);
	}
	if ((sel >> 7) & 1) {
		f->list[FR_LOGPROBS].name[0] = "lp";
		f->list[FR_LOGPROBS].n = 1;
		f->list[FR_MASK].name[0] = "m";
		f->list[FR_MASK].n = 1;
		f->named |= FN(FR_LOGPROBS) | FN(FR_MASK);
	}
	em->tokens = !((sel >> 2) & 1);
	em->no_weights = 0;
	em->digits = 1 + (int)(sel % 17);
	em->annot = (sel & 0x41) == 0x41 ? "{\"group_size\":2}" : NULL;
	em->annot_len = em->annot ? strlen(em->annot) : 0;
}

/* Length of the "FILE:LINE: " in front of every message. */
static size_t
prefix_len(void)
{
	char want[64];

	return (size_t)snprintf(want, sizeof(want), "%s:%llu: ", FUZZ_FILE,
	    FUZZ_LINE);
}

static void
check_prefix(const struct diag *d, const char *line, size_t len)
{
	char want[64];
	int n = snprintf(want, sizeof(want), "%s:%llu: ", FUZZ_FILE,
	    FUZZ_LINE);

	if (memchr(d->msg, '\0', sizeof(d->msg)) == NULL)
		fail("diag message not terminated", line, len, NULL);
	if (strncmp(d->msg, want, n) != 0 || d->msg[n] == '\0')
		fail("error message without FILE:LINE: prefix", line, len,
		    d->msg);
	if (strchr(d->msg, '\n') != NULL)
		fail("error message spans lines", line, len, d->msg);
}

static size_t
key_end(size_t off, size_t len)
{
	return off + len;
}

/* What record_parse filled is consistent with the line. */
static void
check_record(const struct record *r, const struct fields *f,
    const struct buf *keys, const struct buf *runs, const char *line,
    size_t len)
{
	size_t i, sum = 0, ones = 0;
	const uint32_t *rv = (const uint32_t *)runs->p;

	if (!isfinite(r->reward))
		fail("accepted a non-finite reward", line, len, NULL);
	if (r->reward == 0 && signbit(r->reward))
		fail("reward is -0", line, len, NULL);
	/* A record without a length trains as one unit, or none. */
	if (!r->has_len && (r->L != 0 || r->T > 1))
		fail("no length, but L or T set", line, len, NULL);
	if (r->has_len && r->T > r->L)
		fail("more trained tokens than tokens", line, len, NULL);
	if (r->close >= len || line[r->close] != '}')
		fail("close does not point at '}'", line, len, NULL);
	if (memchr(line, '{', r->close + 1) == NULL)
		fail("no '{' before close", line, len, NULL);
	for (i = 0; i < OUT_NFIELDS; i++) {
		const struct span *s = &r->out[i];

		if (!(r->outs & 1u << i))
			continue;
		if (!(s->prev <= s->beg && s->beg < s->end &&
		    s->end <= r->close))
			fail("bad span of an output field", line, len,
			    record_out_names[i]);
	}
	if (r->has_group && (r->gkeylen < 2 ||
	    key_end(r->gkey, r->gkeylen) > keys->len))
		fail("bad group key", line, len, NULL);
	if (r->has_stratum && key_end(r->skey, r->skeylen) > keys->len)
		fail("bad stratum key", line, len, NULL);
	if (r->has_batch && key_end(r->bkey, r->bkeylen) > keys->len)
		fail("bad batch key", line, len, NULL);
	if (r->has_traj && key_end(r->tkey, r->tkeylen) > keys->len)
		fail("bad trajectory key", line, len, NULL);
	if (f->traj != NULL && !r->has_traj)
		fail("trajectory key asked but not set", line, len, NULL);
	if (r->unscored && (r->reward != 0 || r->T != 0))
		fail("an unscored record with a reward or tokens", line, len,
		    NULL);
	if (f->need_stratum && !r->has_stratum)
		fail("need_stratum but no stratum", line, len, NULL);
	if (f->batch && !r->has_batch)
		fail("batch key asked but not set", line, len, NULL);
	if (r->has_mask) {
		if ((r->runs + r->nruns) * sizeof(uint32_t) > runs->len)
			fail("mask runs outside the runs buffer", line, len,
			    NULL);
		for (i = 0; i < r->nruns; i++) {
			sum += rv[r->runs + i];
			if (!(i & 1))
				ones += rv[r->runs + i];
		}
		if (sum != r->L || (ones != r->T && !r->unscored))
			fail("mask runs do not add up to L and T", line, len,
			    NULL);
	} else if (r->has_len && r->T != r->L && !r->unscored)
		fail("no mask, but T != L", line, len, NULL);
}

static int out_fd = -1;
static char out_path[64];

/* Writes the record back, checks that the result is one valid object,
 * and parses it again. */
static void
roundtrip(const struct record *r, const struct fields *f,
    const struct buf *keys, const struct buf *runs, const char *line,
    size_t len, const struct emit *em, double adv, double w)
{
	struct output *o;
	struct diag d = { 0 };
	struct record r2;
	struct buf keys2 = { 0 }, runs2 = { 0 }, lab = { 0 };
	char *text;
	off_t n;
	int depth, rc;

	if (out_fd < 0) {
		out_fd = memfd_create("fuzz_record_out", 0);
		if (out_fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(out_path, sizeof(out_path), "/proc/self/fd/%d",
		    out_fd);
	}
	if ((o = output_open(out_path, 0, 1, &d)) == NULL)
		fail("output_open failed", line, len, d.msg);
	if (output_record(o, line, r, (const uint32_t *)runs->p, adv, w, em,
	    &d) != 0)
		fail("output_record failed", line, len, d.msg);
	if (output_close(o, &d) != 0)
		fail("output_close failed", line, len, d.msg);
	n = lseek(out_fd, 0, SEEK_END);
	if (n <= 0)
		fail("nothing written", line, len, NULL);
	text = malloc((size_t)n);
	if (text == NULL || pread(out_fd, text, (size_t)n, 0) != n)
		abort();
	if (text[n - 1] != '\n' || memchr(text, '\n', (size_t)n - 1) != NULL)
		fail("output is not one line", line, len, NULL);
	if (oracle_object(text, (size_t)n - 1, &depth) != OR_VALID)
		fail("output is not a valid JSON object", line, len, text);
	rc = record_parse(text, (size_t)n - 1, f, &r2, &keys2, &runs2,
	    FUZZ_FILE, FUZZ_LINE, &d);
	if (rc != 0)
		fail("output does not parse again", line, len, d.msg);
	if (r2.reward != r->reward || r2.L != r->L || r2.T != r->T ||
	    r2.has_group != r->has_group || r2.has_stratum != r->has_stratum ||
	    r2.has_batch != r->has_batch)
		fail("output parses to another record", line, len, text);
	if (r->has_group && (r2.gkeylen != r->gkeylen ||
	    memcmp(keys2.p + r2.gkey, keys->p + r->gkey, r->gkeylen) != 0))
		fail("group key changed by output", line, len, text);
	if (r->has_stratum && (r2.skeylen != r->skeylen ||
	    memcmp(keys2.p + r2.skey, keys->p + r->skey, r->skeylen) != 0))
		fail("stratum key changed by output", line, len, text);
	if (!(r2.outs >> OUT_ADV & 1) || !(r2.outs >> OUT_W & 1) ||
	    (int)(r2.outs >> OUT_TADV & 1) != (em->tokens && r->has_len) ||
	    (int)(r2.outs >> OUT_TW & 1) != (em->tokens && r->has_len) ||
	    (int)(r2.outs >> OUT_ANN & 1) != (em->annot != NULL))
		fail("output fields missing or stale", line, len, text);
	{
		const struct span *s = &r2.out[OUT_ADV];
		char num[64];
		size_t k = s->end - s->beg;
		double v;

		if (k >= sizeof(num))
			fail("advantage too long", line, len, text);
		memcpy(num, text + s->beg, k);
		num[k] = '\0';
		if (strcmp(num, "-0") == 0 || strncmp(num, "-0e", 3) == 0)
			fail("advantage written as -0", line, len, text);
		v = strtod(num, NULL);
		if (!(fabs(v - adv) <= pow(10, 1 - em->digits) * fabs(adv)))
			fail("advantage written wrong", line, len, text);
	}
	if (r->has_group) {
		record_key_label(keys->p + r->gkey, r->gkeylen, &lab);
		lab.len = 0;
	}
	if (r->has_stratum)
		record_key_label(keys->p + r->skey, r->skeylen, &lab);
	buf_free(&lab);
	buf_free(&keys2);
	buf_free(&runs2);
	free(text);
}

static void
one(const char *line, size_t len, const struct fields *f,
    const struct emit *em, double adv, double w)
{
	struct record r;
	struct buf keys = { 0 }, runs = { 0 };
	struct diag d;
	int rc, orc, depth;

	memset(&d, 0, sizeof(d));
	rc = record_parse(line, len, f, &r, &keys, &runs, FUZZ_FILE,
	    FUZZ_LINE, &d);
	orc = oracle_object(line, len, &depth);
	if (rc == 0) {
		if (d.status != 0)
			fail("success with a diag set", line, len, d.msg);
		if (orc != OR_VALID)
			fail("accepted a line that is not a valid JSON object",
			    line, len, orc == OR_TOO_DEEP ? "too deep" : NULL);
		if (depth > JSON_MAX_DEPTH + 1)
			fail("accepted nesting deeper than JSON_MAX_DEPTH",
			    line, len, NULL);
		check_record(&r, f, &keys, &runs, line, len);
		roundtrip(&r, f, &keys, &runs, line, len, em, adv, w);
	} else {
		if (rc != EXIT_DATA || d.status != EXIT_DATA)
			fail("error status is not 1", line, len, d.msg);
		check_prefix(&d, line, len);
		/* rladv's syntax errors read "FILE:LINE: invalid JSON ...";
		 * the words may also occur inside a quoted value. */
		if (orc == OR_VALID && depth <= JSON_MAX_DEPTH &&
		    strncmp(d.msg + prefix_len(), "invalid JSON", 12) == 0)
			fail("a valid JSON object refused as invalid JSON",
			    line, len, d.msg);
	}
	buf_free(&keys);
	buf_free(&runs);
}

/* Names a field for role by an option's value, kept in keep. */
static void
set_name(struct fields *f, enum frole role, const char *name, char *keep)
{
	struct diag d;

	strcpy(keep, name);
	if (fields_set(f, role, keep, &d) != 0)
		fail("the harness's field path was refused", keep,
		    strlen(keep), d.msg);
}

/* Variant C's configuration from 16 bits of sel. */
static void
config_c(unsigned sel, struct fields *f)
{
	static char keep[9][64];
	static const char *const group[8] = { "uid", "g.id", "g[0]",
	    "[\"x.y\"]", ".uid", "a.b[1].c", "content[0]",
	    "trajectory_ids.instance_id" };
	static const char *const reward[8] = { "reward", "reward.score",
	    "r[1]", "f,g", "rewards", "scores", "acc", "a[0][0]" };

	fields_default(f);
	set_name(f, FR_GROUP, group[sel & 7], keep[0]);
	set_name(f, FR_REWARD, reward[(sel >> 3) & 7], keep[1]);
	if (((sel >> 3) & 7) == 3) {
		f->weight[0] = 1;
		f->weight[1] = 0.5;
		f->nweight = 2;
	}
	/* bit 6: null rewards taken; bit 7 (--reward-reduce) picks
	 * zero over unscored with it */
	f->null_reward = !((sel >> 6) & 1) ? NULL_ERROR : (sel >> 7) & 1 ?
	    NULL_ZERO : NULL_UNSCORED;
	f->reduce = (sel >> 7) & 1 ? REDUCE_LAST : REDUCE_SUM;
	f->unwrap = (sel >> 8) & 1;
	f->columnar = (sel >> 9) & 1;
	if ((sel >> 10) & 1)
		set_name(f, FR_SPANS, "spans", keep[2]);
	else if ((sel >> 11) & 1)
		set_name(f, FR_MASK, "m.x", keep[3]);
	if ((sel >> 12) & 1)
		set_name(f, FR_PROMPT_LEN, "pl", keep[4]);
	if ((sel >> 13) & 1)
		set_name(f, FR_SAMPLE_MASK, "sm", keep[5]);
	if ((sel >> 14) & 1)
		set_name(f, FR_LENGTH, "n", keep[6]);
	if ((sel >> 15) & 1) {
		set_name(f, FR_TRAJ, "traj", keep[7]);
		set_name(f, FR_TRAJ_LAST, "last", keep[8]);
	}
}

/* A columnar line's records written back as columns: one valid object
 * whose line holds as many records again. */
static void
columns_back(struct record_reader *rd, const struct record *r, size_t n,
    const struct buf *runs, const char *line, size_t len,
    const struct emit *em)
{
	const struct record **rp = malloc(n * sizeof(*rp));
	double *adv = malloc(n * sizeof(*adv));
	struct output *o;
	struct diag d = { 0 };
	char *text;
	off_t m;
	size_t k;
	int depth;

	if (rp == NULL || adv == NULL)
		abort();
	for (k = 0; k < n; k++) {
		rp[k] = &r[k];
		adv[k] = (double)k - 0.5;
	}
	if ((o = output_open(out_path, 0, 1, &d)) == NULL ||
	    output_columns(o, line, rp, (const uint32_t *)runs->p, adv, adv,
	    n, em, &d) != 0 || output_close(o, &d) != 0)
		fail("output_columns failed", line, len, d.msg);
	m = lseek(out_fd, 0, SEEK_END);
	text = malloc(m > 0 ? (size_t)m : 1);
	if (m <= 0 || text == NULL || pread(out_fd, text, (size_t)m, 0) != m)
		abort();
	if (text[m - 1] != '\n' || oracle_object(text, (size_t)m - 1,
	    &depth) != OR_VALID)
		fail("columns written back are not one valid object", line,
		    len, text);
	if (record_line(rd, text, (size_t)m - 1, FUZZ_FILE, FUZZ_LINE,
	    &d) != (long)n)
		fail("columns written back do not read again", line, len,
		    d.msg);
	free(text);
	free(rp);
	free(adv);
}

/* Variant C: every record of the line, by a reader of fields f. */
static void
variant_c(const char *line, size_t len, const struct fields *f,
    const struct emit *em)
{
	struct record_reader *rd;
	struct record *r = NULL;
	struct buf keys = { 0 }, runs = { 0 };
	struct diag d = { 0 };
	long n, k;

	if ((rd = record_reader_new(f, &d)) == NULL)
		fail("the harness's fields were refused", line, len, d.msg);
	if ((n = record_line(rd, line, len, FUZZ_FILE, FUZZ_LINE, &d)) < 0) {
		if (d.status != EXIT_DATA)
			fail("error status is not 1", line, len, d.msg);
		check_prefix(&d, line, len);
		record_reader_free(rd);
		return;
	}
	if (n == 0 || (!f->columnar && n != 1))
		fail("a line of no records, or of several without --columnar",
		    line, len, NULL);
	if ((r = calloc((size_t)n, sizeof(*r))) == NULL)
		abort();
	for (k = 0; k < n; k++) {
		keys.len = 0;
		if (record_get(rd, (size_t)k, &r[k], &keys, &runs, &d) != 0) {
			if (d.status != EXIT_DATA)
				fail("error status is not 1", line, len, d.msg);
			check_prefix(&d, line, len);
			break;
		}
		if (r[k].col != (size_t)k || (f->columnar &&
		    r[k].ncol != (size_t)n))
			fail("a columnar record's index is wrong", line, len,
			    NULL);
		check_record(&r[k], f, &keys, &runs, line, len);
		if (!f->columnar)
			roundtrip(&r[k], f, &keys, &runs, line, len, em, 0.75,
			    0.125);
	}
	if (k == n && f->columnar)
		columns_back(rd, r, (size_t)n, &runs, line, len, em);
	free(r);
	buf_free(&keys);
	buf_free(&runs);
	record_reader_free(rd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fields f;
	struct emit em;
	char *copy;

	if (size > (1u << 20))
		return 0;
	/* input.c hands record_parse one line: never a '\n' inside. */
	{
		const uint8_t *nl = memchr(data, '\n', size);

		if (nl != NULL)
			size = (size_t)(nl - data);
	}
	/* An exact-size copy, so that ASan sees any read past the line. */
	copy = malloc(size ? size : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);

	fields_default(&f);
	memset(&em, 0, sizeof(em));
	em.digits = 9;
	em.tokens = 1;
	em.annot = NULL;
	em.annot_len = 0;
	em.no_weights = 0;
	one(copy, size, &f, &em, -0.0, 0.25);

	if (size >= 1) {
		unsigned sel = data[0];
		double adv = (sel & 1) ? 1.2345678901234567e-300 : -3.5;

		char *rest = malloc(size - 1 ? size - 1 : 1);

		if (rest == NULL) {
			free(copy);
			return 0;
		}
		memcpy(rest, data + 1, size - 1);
		config_b(sel, &f, &em);
		one(rest, size - 1, &f, &em, adv, 1.0 / 3);
		free(rest);
	}
	if (size >= 2) {
		char *rest = malloc(size - 2 ? size - 2 : 1);

		if (rest == NULL) {
			free(copy);
			return 0;
		}
		memcpy(rest, data + 2, size - 2);
		config_c((unsigned)data[0] | (unsigned)data[1] << 8, &f);
		variant_c(rest, size - 2, &f, &em);
		free(rest);
	}
	free(copy);
	return 0;
}
