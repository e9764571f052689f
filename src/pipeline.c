/*
 * pipeline.c - the loop every command shares: lines to records, records
 * to groups, groups to batches.  With --on-error skip a bad record is
 * reported, written to --rejects, and left out, so that at the end
 * in = out + rejected.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ahead.h"
#include "input.h"
#include "outfile.h"
#include "pipeline.h"
#include "warn.h"

struct run {
	const struct prefs	*c;
	FILE			*rej;
	const char		*rejname;
	struct pipeline_stats	*st;
	struct grouping		 gs;
	int			 need_tie;
	pipeline_fn		 fn;
	void			*ctx;
	/* Skip mode: the groups of the batch whose numbers failed, and
	 * their first records' places (keys) to their errors. */
	struct diag_groups	 fails;
	struct keymap		 failed;
	const struct diag_groups *failing;	/* failed's messages */
	/* Skip mode: groups whose trajectory ended wrong or lost a row
	 * (group.h's bad), rejected whole when their batch ends. */
	struct diag_groups	 bad;
	struct gbatch		*b;
	struct warn		 w;
};

/* Reports a bad record in skip mode and keeps its line.  Another
 * shard's record only holds its place. */
static int
reject(struct run *u, const struct pipeline_item *it, int elsewhere,
    const struct diag *why, struct diag *d)
{
	group_note_reject(&u->gs);
	if (elsewhere)
		return 0;
	group_taint(&u->gs, u->b, it->file, it->lineno);
	diag_print(why);
	u->st->rejected++;
	if (u->rej == NULL)
		return 0;
	if (fwrite(it->text, 1, it->len, u->rej) != it->len ||
	    putc('\n', u->rej) == EOF)
		return diag_set(d, EXIT_IO, "%s: write error: %s", u->rejname,
		    strerror(errno));
	return 0;
}

/* A bad record ends the run, or, in skip mode, is left out. */
static int
bad_record(struct run *u, const struct pipeline_item *it, int elsewhere,
    const struct diag *why, struct diag *d)
{
	if (!u->c->skip) {
		*d = *why;
		return d->status;
	}
	return reject(u, it, elsewhere, why, d);
}

/* The key of a group of the batch in run.failed: its first record's
 * file name (as the batch holds it) and line. */
static size_t
where_key(const char *file, unsigned long long line, char key[])
{
	memcpy(key, &file, sizeof(file));
	memcpy(key + sizeof(file), &line, sizeof(line));
	return sizeof(file) + sizeof(line);
}

/* The message of group g of b if its numbers failed, else NULL. */
static const char *
failed_msg(const struct run *u, const struct gbatch *b, size_t g)
{
	char key[sizeof(char *) + sizeof(unsigned long long)];
	unsigned long long line;
	const char *file;
	size_t k;

	if (keymap_count(&u->failed) == 0)
		return NULL;
	file = batch_gwhere(b, g, &line, NULL);
	k = keymap_find(&u->failed, key, where_key(file, line, key));
	if (k == KEYMAP_NONE)
		return NULL;
	return u->failing->msgs.p + u->failing->v[*(size_t *)keymap_val(
	    &u->failed, k)].msg;
}

/*
 * The groups that skip mode left out of the batch since the last call:
 * a message for each (the wrong size, or why its numbers failed), and
 * their records to the rejects file.  One pass over the records, however
 * many groups there are.
 */
static int
reject_groups(struct run *u, struct gbatch *b, struct diag *d)
{
	struct diag why;
	const size_t *ix;
	const char *line, *msg;
	size_t n, j, g, prev = (size_t)-1, len;

	n = batch_rejects(b, &ix);
	for (j = 0; j < n; j++) {
		/* A group across shards is reported once, by the shard of
		 * its first record, as one process reports it. */
		if ((g = batch_hgroup(b, ix[j])) != prev &&
		    batch_helsewhere(b, ix[j]))
			prev = g;
		if (batch_helsewhere(b, ix[j]))
			continue;
		if (g != prev) {
			if ((msg = failed_msg(u, b, g)) != NULL)
				diag_set(&why, EXIT_DATA, "%s; rejected whole",
				    msg);
			else
				group_size_error(&u->gs, b, g, "; rejected "
				    "whole", &why);
			diag_print(&why);
			prev = g;
		}
		u->st->rejected++;
		line = batch_hline(b, ix[j], &len);
		if (u->rej && (fwrite(line, 1, len, u->rej) != len ||
		    putc('\n', u->rej) == EOF))
			return diag_set(d, EXIT_IO, "%s: write error: %s",
			    u->rejname, strerror(errno));
	}
	return 0;
}

/*
 * Leaves out the groups of b in l (u->fails, noted by fn in skip mode
 * where their numbers failed, or u->bad) and rejects them, each with its
 * first message.  0, or -1 when none of them is a group of b still in
 * (then the error stands).
 */
static int
drop_failed(struct run *u, struct gbatch *b, const struct diag_groups *l,
    struct diag *d)
{
	char key[sizeof(char *) + sizeof(unsigned long long)];
	unsigned long long line;
	const char *file;
	size_t j, g, k, n = 0;
	int added;

	keymap_clear(&u->failed);
	u->failing = l;
	for (j = 0; j < l->n; j++) {
		k = keymap_get(&u->failed, key, where_key(l->v[j].file,
		    l->v[j].line, key), &added);
		if (added)	/* a group's first error is its message */
			*(size_t *)keymap_val(&u->failed, k) = j;
	}
	for (g = 0; g < batch_ngroups(b); g++) {
		file = batch_gwhere(b, g, &line, NULL);
		if (keymap_find(&u->failed, key, where_key(file, line, key)) !=
		    KEYMAP_NONE)
			n += batch_drop(b, g);
	}
	if (n == 0)
		return -1;
	memset(d, 0, sizeof(*d));
	return reject_groups(u, b, d);
}

/*
 * Hands the batch to fn and starts the next after the given cut.  In
 * skip mode a group whose numbers fail (an advantage that overflows a
 * double) is rejected whole like one of the wrong size, and the batch
 * goes to fn again without it: fn notes every such group before it
 * returns, and changes nothing before its numbers are known.
 */
static int
flush_batch(struct run *u, struct gbatch *b, enum group_cut cut,
    struct diag *d)
{
	struct batch v;
	size_t nd = 0, g;
	int rc, e;

	if (batch_held(b) == 0) {
		group_reset(&u->gs, b, cut);
		return 0;
	}
	if (group_end(&u->gs, b, d) != 0)
		return d->status;
	/* Trajectories that ended wrong: their groups, whatever size. */
	if (u->bad.n > 0) {
		if ((e = drop_failed(u, b, &u->bad, d)) > 0)
			return e;
		u->bad.n = u->bad.msgs.len = 0;
	}
	if (group_check_sizes(&u->gs, b, u->c->skip, &nd, d) != 0)
		return d->status;
	warn_batch(&u->w, b);
	if (nd > 0 && (rc = reject_groups(u, b, d)) != 0)
		return rc;
	for (;;) {
		batch_view(b, &v, u->need_tie);
		if (v.n == 0)
			break;
		u->fails.n = u->fails.msgs.len = 0;
		d->groups = u->c->skip ? &u->fails : NULL;
		rc = u->fn(u->ctx, b, &v, d);
		d->groups = NULL;
		if (rc == 0)
			break;
		if (rc != EXIT_DATA || u->fails.n == 0 ||
		    (e = drop_failed(u, b, &u->fails, d)) < 0)
			return rc;
		if (e != 0)
			return e;
	}
	keymap_clear(&u->failed);
	u->st->batches++;
	u->st->groups += v.ngroups;
	for (g = 0; g < v.ngroups; g++)
		u->st->strata += v.nstrat[g];
	u->st->out += batch_nown(b);
	group_reset(&u->gs, b, cut);
	return 0;
}

/* The files of c, line by line: pipeline_run()'s source.  A columnar
 * line is several records, handed over one by one. */
struct fsrc {
	const struct prefs	*c;
	struct input		*in;
	struct record_reader	*rd;
	struct line		 ln;
	size_t			 k, n;	/* the line's next record, count */
};

static int
file_next(void *ctx, struct pipeline_item *it, struct record *r,
    struct buf *keys, struct buf *runs, struct diag *why, struct diag *d)
{
	struct fsrc *f = ctx;
	long n;
	int k;

	if (f->k == f->n) {
		if ((k = input_next(f->in, &f->ln, d)) <= 0)
			return k < 0 ? -1 : 0;
		f->k = f->n = 0;
	}
	it->text = f->ln.text;
	it->len = f->ln.len;
	it->stable = f->ln.stable;
	it->file = f->ln.file;
	it->lineno = f->ln.lineno;
	if (f->n == 0) {
		if (input_too_long(&f->ln, why) != 0 ||
		    (n = record_line(f->rd, f->ln.text, f->ln.len, f->ln.file,
		    f->ln.lineno, why)) < 0) {
			memset(r, 0, sizeof(*r));
			return 2;
		}
		f->n = (size_t)n;
	}
	if (record_get(f->rd, f->k++, r, keys, runs, why) != 0)
		return 2;
	return 1;
}

static void
file_release(void *ctx, const char *keep)
{
	struct fsrc *f = ctx;

	input_release(f->in, keep);
}

static int	run_source(const struct prefs *, const struct pipeline_src *,
		    int, int, pipeline_fn, void *, struct pipeline_stats *,
		    int, struct diag *);

int
pipeline_run(const struct prefs *c, int need_tie, int stream,
    pipeline_fn fn, void *ctx, struct pipeline_stats *st, struct diag *d)
{
	struct fsrc f = { 0 };
	struct pipeline_src src = { file_next, file_release, &f };
	struct ahead *a = NULL;
	int rc;

	f.c = c;
	if ((f.rd = record_reader_new(&c->fields, d)) == NULL)
		return d->status;
	f.in = input_open(c->files, c->nfiles, c->max_line);
	/* Skip mode rejects a line longer than --max-line, as it is. */
	if (c->skip)
		input_keep_long(f.in);
	/* With threads, lines are parsed ahead on all of them. */
	if (pool_threads(pool_run()) > 1) {
		if ((a = ahead_new(f.in, &c->fields, pool_run(), d)) == NULL) {
			input_close(f.in);
			record_reader_free(f.rd);
			return d->status;
		}
		ahead_source(a, &src);
	}
	rc = run_source(c, &src, need_tie, stream, fn, ctx, st, 1, d);
	ahead_free(a);
	input_close(f.in);
	record_reader_free(f.rd);
	return rc;
}

/* An index's records are not the lines the warnings are about: those
 * are given by a run over the files (and by rladv index's map step). */
int
pipeline_run_src(const struct prefs *c, const struct pipeline_src *src,
    int need_tie, int stream, pipeline_fn fn, void *ctx,
    struct pipeline_stats *st, struct diag *d)
{
	return run_source(c, src, need_tie, stream, fn, ctx, st, 0, d);
}

/* The warnings of a run of c (on: give them). */
static void
run_warn(struct warn *w, const struct prefs *c, int group_size, int on)
{
	warn_init(w, &c->fields, group_size, on);
	/* slime's group means: its split rollouts are worth a word. */
	if (c->like != NULL && strcmp(c->like->name, "slime") == 0)
		w->slime_groups = c->est->kind == EST_RPP_BASELINE ?
		    WARN_SLIME_RPP_BASELINE : c->est->kind == EST_GRPO &&
		    !c->ap.gn_batch ? WARN_SLIME_GRPO : 0;
}

/* The loop; warn: give the warnings (warn.h). */
static int
run_source(const struct prefs *c, const struct pipeline_src *src,
    int need_tie, int stream, pipeline_fn fn, void *ctx,
    struct pipeline_stats *st, int warn, struct diag *d)
{
	struct gbatch *b;
	struct gopts go = c->go;
	struct pipeline_item it;
	struct record r;
	const struct record *rp;
	struct buf keys = { 0 }, runs = { 0 };
	const struct buf *kp, *np;
	struct diag why;
	struct run u;
	enum group_cut cut;
	int rc = 0, k;

	memset(st, 0, sizeof(*st));
	memset(&u, 0, sizeof(u));
	u.c = c;
	u.st = st;
	u.need_tie = need_tie;
	u.fn = fn;
	u.ctx = ctx;
	if (c->rejects) {
		u.rejname = c->rejects;
		/* Renamed into place at the end, when the run succeeds. */
		if ((u.rej = outfile_fopen(c->rejects, d)) == NULL)
			return d->status;
	}
	/* A columnar line is written whole, from one batch. */
	go.stream = stream && !c->fields.columnar;
	go.skip = c->skip;
	go.traj = c->fields.traj != NULL;
	group_init(&u.gs, &go);
	if (c->skip)
		u.gs.bad = &u.bad;
	keymap_init(&u.failed, sizeof(size_t));
	run_warn(&u.w, c, go.group_size != 0, warn);
	u.b = b = batch_new();
	buf_reserve(&keys, 64);
	buf_reserve(&runs, 64);
	for (;;) {
		keys.len = runs.len = 0;
		/* A clear diag, without zeroing its message buffer: a
		 * kilobyte per record. */
		why.status = 0;
		why.msg[0] = '\0';
		why.groups = NULL;
		it.r = NULL;
		it.keys = it.runs = NULL;
		k = src->next(src->ctx, &it, &r, &keys, &runs, &why, d);
		if (k < 0) {
			rc = d->status;
			break;
		}
		if (k == 0) {
			rc = flush_batch(&u, b, GROUP_NONE, d);
			break;
		}
		rp = it.r != NULL ? it.r : &r;
		kp = it.keys != NULL ? it.keys : &keys;
		np = it.runs != NULL ? it.runs : &runs;
		st->in += !rp->elsewhere;
		if (k == 2) {
			if ((rc = bad_record(&u, &it, rp->elsewhere, &why,
			    d)) != 0)
				break;
			continue;
		}
		cut = group_boundary(&u.gs, b, rp, kp);
		/* A columnar line's records stay in the batch of its first. */
		if (rp->col > 0 && cut != GROUP_NONE) {
			if (cut == GROUP_KEY || cut == GROUP_SPLIT) {
				rc = diag_setl(d, EXIT_DATA, it.file,
				    it.lineno, "record %zu of the columnar "
				    "line: the batch key changes inside the "
				    "line (a line is one batch)", rp->col);
				break;
			}
			cut = GROUP_NONE;
		}
		if (cut == GROUP_SPLIT) {
			group_split(&u.gs, b, rp, kp, it.file, it.lineno, &why);
			if ((rc = bad_record(&u, &it, rp->elsewhere, &why,
			    d)) != 0)
				break;
			continue;
		}
		if (cut != GROUP_NONE) {
			if ((rc = flush_batch(&u, b, cut, d)) != 0)
				break;
			src->release(src->ctx, rp->elsewhere ? NULL : it.text);
		}
		warn_record(&u.w, rp, kp->p, it.text, it.file, it.lineno);
		if (group_add(&u.gs, b, rp, kp, np, it.text, it.len,
		    it.stable, it.file, it.lineno, &why) != 0) {
			if ((rc = bad_record(&u, &it, rp->elsewhere, &why,
			    d)) != 0)
				break;
			continue;
		}
	}
	if (rc == 0)
		warn_end(&u.w);
	batch_free(b);
	group_free(&u.gs);
	keymap_free(&u.failed);
	diag_groups_free(&u.fails);
	diag_groups_free(&u.bad);
	warn_free(&u.w);
	buf_free(&keys);
	buf_free(&runs);
	if (u.rej != NULL) {
		struct diag ignore = { 0 };

		if (outfile_fclose(u.rej, rc == 0, rc == 0 ? d : &ignore) != 0)
			rc = d->status;
	}
	return rc;
}
