/*
 * cmd_index.c - rladv index: the map step of a sharded run, each shard's
 * records as index lines (index.h); with --merge, the reduce step, the
 * indexes of all the shards checked (whole, made with these options, each
 * shard once, grouped as one run would group them) and written as one.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "compute.h"
#include "index.h"
#include "input.h"
#include "shard.h"
#include "warn.h"

/* Index lines are written in blocks of about this many bytes. */
#define INDEX_BLOCK	(1u << 16)

/* One shard's section.  Its bad records are left for rladv compute
 * --index to report: it reads their lines. */
static int
map_shard(const struct prefs *c, struct record_reader *rd, char *file,
    struct output *out, struct buf *b, struct diag *d)
{
	struct input *in = input_open(&file, 1, c->max_line);
	struct buf keys = { 0 }, runs = { 0 };
	struct line ln;
	struct record r;
	struct diag why;
	struct warn w;
	unsigned long long n = 0;
	int k, rc = 0;

	/* The warnings on a record's fields (the group sizes are the
	 * merge's business: it sees every shard). */
	warn_init(&w, &c->fields, 1, 1);
	buf_reserve(&keys, 64);
	if (c->skip)
		input_keep_long(in);
	b->len = 0;
	index_put_shard(b, index_shard_name(file));
	while (rc == 0 && (k = input_next(in, &ln, d)) > 0) {
		keys.len = runs.len = 0;
		memset(&why, 0, sizeof(why));
		if (input_too_long(&ln, &why) == 0 && record_read(rd,
		    ln.text, ln.len, ln.file, ln.lineno, &r, &keys, &runs,
		    &why) == 0) {
			warn_record(&w, &r, keys.p, ln.text, ln.file,
			    ln.lineno);
			index_put_record(b, c, &r, keys.p, ln.text, ln.len,
			    ln.lineno);
		} else if (c->skip)
			index_put_rejected(b, ln.lineno);
		else {
			*d = why;
			rc = d->status;
		}
		n++;
		input_release(in, NULL);
		if (rc == 0 && b->len >= INDEX_BLOCK) {
			rc = output_write(out, b->p, b->len, d);
			b->len = 0;
		}
	}
	if (rc == 0 && k < 0)
		rc = d->status;
	if (rc == 0) {
		index_put_end(b, n);
		rc = output_write(out, b->p, b->len, d);
	}
	input_close(in);
	warn_free(&w);
	buf_free(&keys);
	buf_free(&runs);
	return rc;
}

static int
map(const struct prefs *c, struct output *out, struct diag *d)
{
	struct buf b = { 0 };
	struct record_reader *rd;
	char *stdin_name = "-";
	size_t i;
	int rc;

	if ((rd = record_reader_new(&c->fields, d)) == NULL)
		return d->status;
	index_put_header(&b, c);
	rc = output_write(out, b.p, b.len, d);
	for (i = 0; rc == 0 && i < (c->nfiles ? c->nfiles : 1); i++)
		rc = map_shard(c, rd, c->nfiles ? c->files[i] : stdin_name,
		    out, &b, d);
	buf_free(&b);
	record_reader_free(rd);
	return rc;
}

static int
grouped(void *ctx, const struct gbatch *b, const struct batch *v,
    struct diag *d)
{
	(void)ctx;
	(void)b;
	(void)v;
	(void)d;
	return 0;
}

/* The sections of every index after one header, through the grouping
 * (a group that reappears, a group of the wrong size ends it here). */
static int
merge(const struct prefs *c, struct output *out, struct diag *d)
{
	struct buf h = { 0 };
	struct shard *s;
	struct pipeline_src src;
	struct pipeline_stats st;
	int rc;

	index_put_header(&h, c);
	rc = output_write(out, h.p, h.len, d);
	buf_free(&h);
	if (rc != 0)
		return rc;
	s = shard_open(c, c->files, c->nfiles, NULL, out);
	shard_source(s, &src);
	rc = pipeline_run_src(c, &src, 0, compute_streams(c), grouped, NULL,
	    &st, d);
	shard_close(s);
	return rc;
}

int
cmd_index(struct run *r)
{
	const struct prefs *c = &r->p;
	struct output *out;
	struct diag d = { 0 };
	int rc;

	if ((out = output_open(c->out, c->gzip, c->gzip_level, &d)) == NULL) {
		diag_print(&d);
		return d.status;
	}
	rc = c->merge ? merge(c, out, &d) : map(c, out, &d);
	if (rc == 0)
		rc = output_close(out, &d);
	else
		output_abandon(out);
	if (rc != 0)
		diag_print(&d);
	return rc;
}
