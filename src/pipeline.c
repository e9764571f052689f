/*
 * pipeline.c - the loop every command shares: lines to records, records
 * to groups, groups to batches.  With --on-error skip a bad record is
 * reported, written to --rejects, and left out, so that at the end
 * in = out + rejected.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "input.h"
#include "pipeline.h"

struct run {
	const struct prefs	*c;
	FILE			*rej;
	const char		*rejname;
	struct pipeline_stats	*st;
};

/* Reports a bad record in skip mode and keeps its line. */
static int
reject(struct run *u, struct gbatch *b, const char *line, size_t len,
    const struct diag *why, struct diag *d)
{
	diag_print(why);
	u->st->rejected++;
	group_note_reject(b);
	if (u->rej == NULL)
		return 0;
	if (fwrite(line, 1, len, u->rej) != len || putc('\n', u->rej) == EOF)
		return diag_set(d, EXIT_IO, "%s: write error: %s", u->rejname,
		    strerror(errno));
	return 0;
}

/* A bad record ends the run, or, in skip mode, is left out. */
static int
bad_record(struct run *u, struct gbatch *b, const struct line *ln,
    const struct diag *why, struct diag *d)
{
	if (!u->c->skip) {
		*d = *why;
		return d->status;
	}
	return reject(u, b, ln->text, ln->len, why, d);
}

static int
flush_batch(struct run *u, struct gbatch *b, int need_tie, pipeline_fn fn,
    void *ctx, int key_changed, struct diag *d)
{
	struct batch v;
	size_t nd = 0, i, g;
	int rc;

	if (b->n == 0) {
		group_reset(b, key_changed);
		return 0;
	}
	if (group_check_sizes(b, u->c->skip, &nd, d) != 0)
		return d->status;
	if (nd > 0) {
		struct diag why;

		/* Groups left incomplete are rejected whole. */
		for (g = 0; g < b->ngroups; g++) {
			int said = 0;

			for (i = 0; i < b->n; i++) {
				const struct brec *r = &b->rec[i];

				if (!r->dropped || r->group != g)
					continue;
				if (!said) {
					struct buf lab = { 0 };

					group_label(b, g, &lab);
					diag_setl(&why, EXIT_DATA, r->file,
					    r->lineno, "group %.*s has %zu "
					    "records, expected --group-size "
					    "%zu; rejected whole",
					    (int)lab.len, lab.p,
					    b->grp[g].count,
					    u->c->go.group_size);
					buf_free(&lab);
					said = 1;
					diag_print(&why);
				}
				u->st->rejected++;
				if (u->rej && (fwrite(group_text(b, r), 1,
				    r->len, u->rej) != r->len ||
				    putc('\n', u->rej) == EOF))
					return diag_set(d, EXIT_IO, "%s: write "
					    "error: %s", u->rejname,
					    strerror(errno));
			}
		}
	}
	group_view(b, &v, need_tie);
	u->st->batches++;
	u->st->groups += v.ngroups;
	u->st->strata += b->nstrata;
	if (v.n > 0 && (rc = fn(ctx, b, &v, d)) != 0)
		return rc;
	u->st->out += v.n;
	group_reset(b, key_changed);
	return 0;
}

int
pipeline_run(const struct prefs *c, int need_tie, int stream,
    pipeline_fn fn, void *ctx, struct pipeline_stats *st, struct diag *d)
{
	struct input *in;
	struct gbatch b;
	struct gopts go = c->go;
	struct line ln;
	struct record r;
	struct buf keys = { 0 }, runs = { 0 };
	struct diag why;
	struct run u;
	int rc = 0, k;

	memset(st, 0, sizeof(*st));
	memset(&u, 0, sizeof(u));
	u.c = c;
	u.st = st;
	if (c->rejects) {
		u.rejname = c->rejects;
		if ((u.rej = fopen(c->rejects, "w")) == NULL)
			return diag_set(d, EXIT_IO, "%s: %s", c->rejects,
			    strerror(errno));
	}
	go.stream = stream;
	group_init(&b, &go);
	buf_reserve(&keys, 64);
	buf_reserve(&runs, 64);
	in = input_open(c->files, c->nfiles, c->max_line);
	for (;;) {
		k = input_next(in, &ln, d);
		if (k < 0) {
			rc = d->status;
			break;
		}
		if (k == 0) {
			rc = flush_batch(&u, &b, need_tie, fn, ctx, 0, d);
			break;
		}
		st->in++;
		keys.len = runs.len = 0;
		memset(&why, 0, sizeof(why));
		if (record_parse(ln.text, ln.len, &c->fields, &r, &keys, &runs,
		    ln.file, ln.lineno, &why) != 0) {
			if ((rc = bad_record(&u, &b, &ln, &why, d)) != 0)
				break;
			continue;
		}
		if (group_boundary(&b, &r, &keys)) {
			int changed = c->go.has_batch_key &&
			    (b.rec[0].r.bkeylen != r.bkeylen || (r.bkeylen &&
			    memcmp(b.keys.p + b.rec[0].r.bkey, keys.p + r.bkey,
			    r.bkeylen) != 0));

			if ((rc = flush_batch(&u, &b, need_tie, fn, ctx,
			    changed, d)) != 0)
				break;
			input_release(in, ln.text);
		}
		if (group_add(&b, &r, &keys, &runs, ln.text, ln.len, ln.stable,
		    ln.file, ln.lineno, &why) != 0) {
			if ((rc = bad_record(&u, &b, &ln, &why, d)) != 0)
				break;
			continue;
		}
		for (k = 0; k < 4; k++)
			if (r.alias[k] >= 0)
				st->alias_used[k][(int)r.alias[k]]++;
	}
	input_close(in);
	group_free(&b);
	buf_free(&keys);
	buf_free(&runs);
	if (u.rej && fclose(u.rej) != 0 && rc == 0)
		rc = diag_set(d, EXIT_IO, "%s: %s", c->rejects,
		    strerror(errno));
	return rc;
}
