/*
 * cmd_compute.c - rladv [compute]: the filter.  Reads records, computes
 * each batch's advantages and loss weights, writes the records back with
 * the four fields added (see the man page).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "backend.h"
#include "cmd.h"
#include "compute.h"
#include "output.h"
#include "parwrite.h"
#include "pipeline.h"
#include "shard.h"
#include "warn.h"

struct cctx {
	const struct prefs	*c;
	struct adv_params	 ap;
	struct output		*out;
	struct parwrite		*pw;
	double			*adv, *w;
	size_t			 cap;
	struct annot		 ann;
	const struct gbatch	*b;	/* the batch being written */
	struct emit		 em;	/* how it is written */
	struct warn_expect	 ex;	/* --expect-key */
};

static void
grow(struct cctx *x, size_t n)
{
	if (n <= x->cap)
		return;
	x->cap = n + n / 2;
	x->adv = diag_realloc(x->adv, x->cap * sizeof(*x->adv));
	x->w = diag_realloc(x->w, x->cap * sizeof(*x->w));
}

/*
 * A --columnar line's records, rows j .. j + n - 1 (a line's records are
 * consecutive rows of one batch), written as the one line they came
 * from.
 */
static int
write_columns(const struct cctx *x, struct output *o, size_t j, size_t n,
    struct diag *d)
{
	const struct gbatch *b = x->b;
	const struct record **r;
	struct record *tmp;
	double *adv, *w;
	const char *line = NULL;
	size_t c, i, k;
	int rc;

	r = diag_malloc(n * sizeof(*r));
	tmp = diag_malloc(n * sizeof(*tmp));
	adv = diag_malloc(n * sizeof(*adv));
	w = diag_malloc(n * sizeof(*w));
	for (c = 0; c < n; c++) {
		i = batch_row(b, j + c, &k);
		line = batch_hline(b, i, NULL);
		r[c] = batch_hrec(b, i, &tmp[c]);
		adv[c] = x->adv[k];
		w[c] = x->w[k];
	}
	rc = output_columns(o, line, r, batch_runs(b), adv, w, n, &x->em, d);
	free(r);
	free(tmp);
	free(adv);
	free(w);
	return rc;
}

/*
 * The rows j0 .. j1 - 1 in input order, as they came, to o: a
 * parwrite_fn, called on several threads at once.  A columnar line is
 * written by the piece that has its first record.
 */
static int
write_records(void *arg, struct output *o, size_t j0, size_t j1,
    struct diag *d)
{
	const struct cctx *x = arg;
	const struct gbatch *b = x->b;
	const struct record *r;
	struct emit em = x->em;
	struct record tmp;
	const char *line;
	size_t j, k;

	memset(&tmp, 0, sizeof(tmp));
	for (j = j0; j < j1; j++) {
		if ((r = batch_hrow(b, j, &tmp, &k, &line)) == NULL)
			continue;
		if (r->ncol > 0) {
			if (r->col == 0 && write_columns(x, o, j, r->ncol,
			    d) != 0)
				return d->status;
			continue;
		}
		if (x->c->annotate) {
			em.annot = x->ann.text.p + x->ann.off[k];
			em.annot_len = x->ann.len[k];
		}
		if (output_record(o, line, r, batch_runs(b), x->adv[k],
		    x->w[k], &em, d) != 0)
			return d->status;
	}
	return 0;
}

static int
on_batch(void *ctx, const struct gbatch *b, const struct batch *v,
    struct diag *d)
{
	struct cctx *x = ctx;
	size_t k;
	int weights;

	/* compute --index: a batch without a record of this shard is the
	 * business of the shards it has. */
	for (k = 0; k < v->n && batch_elsewhere(b, k); k++)
		;
	if (k == v->n)
		return 0;
	grow(x, v->n);
	if (compute_check_lengths(x->c, b, v, &weights, d) != 0 ||
	    compute_batch(x->c, &x->ap, v, x->adv, x->w, d) != 0)
		return d->status;
	if (x->c->annotate && annotate_batch(&x->ann, x->c, &x->ap, b, v,
	    x->adv, d) != 0)
		return d->status;
	if (x->c->fields.expect != NULL)
		warn_expect(&x->ex, x->c->fields.expect, b, v, x->adv);
	x->b = b;
	x->em.no_weights = !weights;
	return parwrite_run(x->pw, x->out, batch_nrows(b), batch_bytes(b),
	    write_records, x, d);
}

/* "s" after a count other than 1. */
static const char *
plural(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

/*
 * Strata, where the estimator reads them (san, stratified), are counted
 * as (group, stratum) cells, the units SAN normalizes in: 40 groups of
 * one stratum each are 40, not 1.
 */
static void
summary(const struct prefs *c, const struct pipeline_stats *st,
    const struct adv_params *ap)
{
	fprintf(stderr, "rladv: %llu record%s in, %llu out, %llu rejected; "
	    "%llu group%s, ", st->in, plural(st->in), st->out, st->rejected,
	    st->groups, plural(st->groups));
	if (c->est->flags & ADV_STRATA)
		fprintf(stderr, "%llu (group, stratum) cell%s, ", st->strata,
		    plural(st->strata));
	fprintf(stderr, "%llu batch%s", st->batches,
	    st->batches == 1 ? "" : "es");
	if (c->est->kind == EST_MSGRPO)
		fprintf(stderr, "; msgrpo: %zu group%s exact, %zu sampled",
		    ap->ms_exact, plural(ap->ms_exact), ap->ms_sampled);
	fputc('\n', stderr);
}

/* compute --index: the run's records from the index, this shard's
 * written. */
static int
run_shard(const struct prefs *c, struct cctx *x, struct pipeline_stats *st,
    struct diag *d)
{
	struct pipeline_src src;
	struct shard *s;
	char *idx = (char *)c->index;
	int rc;

	s = shard_open(c, &idx, 1, c->nfiles ? c->files[0] : "-", NULL);
	shard_source(s, &src);
	rc = pipeline_run_src(c, &src, (c->est->flags & ADV_TIE) != 0,
	    compute_streams(c), on_batch, x, st, d);
	shard_close(s);
	return rc;
}

int
cmd_compute(struct run *r)
{
	const struct prefs *c = &r->p;
	struct cctx x;
	struct pipeline_stats st;
	struct diag d = { 0 };
	int rc;

	memset(&x, 0, sizeof(x));
	x.c = c;
	x.ap = c->ap;
	x.em.digits = c->digits;
	x.em.tokens = c->tokens;
	if (c->index && c->nfiles > 1) {
		diag_set(&d, EXIT_USAGE, "--index takes one shard, not %zu; run "
		    "rladv compute --index once per shard", c->nfiles);
		diag_print(&d);
		return d.status;
	}
	if ((x.out = output_open(c->out, c->gzip, c->gzip_level, &d)) == NULL) {
		diag_print(&d);
		return d.status;
	}
	output_names(&x.em, c->fields.out);
	x.pw = parwrite_new();
	if (c->index)
		rc = run_shard(c, &x, &st, &d);
	else
		rc = pipeline_run(c, (c->est->flags & ADV_TIE) != 0,
		    compute_streams(c), on_batch, &x, &st, &d);
	if (rc == 0 && c->fields.expect != NULL)
		warn_expect_end(&x.ex, c->fields.expect);
	if (rc == 0)
		rc = output_close(x.out, &d);
	else if (rc == EXIT_DATA)
		output_stop(x.out);
	else
		output_abandon(x.out);
	if (rc != 0)
		diag_print(&d);
	/* --ms-mode auto says when it sampled: those numbers are
	 * estimates.  A run that stopped has no counts to add up. */
	if (rc == 0 && (c->verbose || c->skip || (c->est->kind ==
	    EST_MSGRPO && c->ap.ms.mode == MS_AUTO && x.ap.ms_sampled > 0)))
		summary(c, &st, &x.ap);
	parwrite_free(x.pw);
	output_names_free(&x.em);
	free(x.adv);
	free(x.w);
	annotate_free(&x.ann);
	return rc;
}
