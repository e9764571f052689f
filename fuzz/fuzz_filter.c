/*
 * fuzz_filter.c - libFuzzer harness over the whole filter: input (plain or
 * gzip), parsing, grouping, batching, the estimators, the loss weights and
 * the writer.
 *
 * The first three bytes of the input pick the options (estimator, loss
 * mode, scope, skip mode, grouping, batching, presets...); when the third
 * asks for them (bit 7 without --like), two more pick the options of the
 * frameworks' dumps (a --from profile, field paths, --unwrap, --columnar,
 * trajectories, null rewards, reward forms, masks and lengths).  The rest
 * is the content of the input file, written to a memfd that the pipeline
 * opens by name.  The batch callback does what rladv compute does
 * (compute_batch, then output_record for every record, here to /dev/null,
 * a columnar line's records at once by output_columns) and computes
 * the batch again under a few other estimators.
 *
 * Checked besides the sanitizers (abort() when broken):
 *   - the status is 0 or 1 (the input is all the harness varies), and a
 *     status 1 message names the file; the dumps' options may be refused
 *     (status 2) where they contradict each other, and nothing is run;
 *   - accounting: in = out + rejected in skip mode, in = out otherwise,
 *     "in" is the number of non-blank lines (but for --columnar), and the
 *     records written are "out" (SPEC section 6);
 *   - with --rejects, the rejects file holds exactly the rejected lines,
 *     each a line of the input, byte for byte;
 *   - every advantage and weight is finite; a group whose rewards are all
 *     equal gets exactly 0 (SPEC section 3); token weights sum to 1 over
 *     their scope.
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

#include "advantage.h"
#include "compute.h"
#include "diag.h"
#include "group.h"
#include "optparse.h"
#include "output.h"
#include "pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSEL	3	/* option bytes in front of the file content */
#define NSEL_DUMPS 2	/* and those of the dumps' options, when asked */

/* --from NAME for the dumps' options' first byte, bits 0-3 (past the
 * table: no profile). */
static const char *const from_names[] = {
	"verl", "verl-agent", "trl", "openrlhf", "nemo-rl", "slime", "areal",
	"roll", "skyrl", "verifiers"
};
#define NFROM (sizeof(from_names) / sizeof(from_names[0]))

static const char *const est_names[8] = {
	"grpo", "drgrpo", "rloo", "san", "stratified", "msgrpo", "opo",
	"rpp-baseline"
};
static const char *const loss_names[8] = {
	"token", "seq", "seq-sum", "seq-sum-norm", "balanced", "balanced-gen",
	"token", "seq"
};

/* Other configurations each batch is computed under as well. */
static const struct {
	const char	*est, *loss;
} extras[] = {
	{ "stratified", "balanced" },
	{ "opo", "seq-sum" },
	{ "rpp-baseline", "balanced-gen" },
	{ "rloo", "token" },
	{ "loo", "seq" },
	{ "passk", "token" },
	{ "gpg", "seq-sum" },
	{ "grpo-whiten", "balanced" },
	{ "rpp", "token" },
};
#define NEXTRA (sizeof(extras) / sizeof(extras[0]))

struct fctx {
	const struct prefs	*c;
	struct prefs		 xc[NEXTRA];
	struct adv_params	 ap;
	struct output		*out;
	double			*adv, *w, *xadv, *xw;
	size_t			 cap;
	unsigned long long	 written;
	const uint8_t		*data;	/* the whole fuzz input, for messages */
	size_t			 size;
};

static const uint8_t *cur_data;
static size_t cur_size;

static void
fail(const char *what, const char *detail)
{
	size_t i, n = cur_size > 600 ? 600 : cur_size;
	char msg[1400];

	/* libFuzzer runs with -close_fd_mask=2 (rladv's own messages in skip
	 * mode would flood the log): the sanitizer's report file descriptor
	 * is where a message still gets through. */
	snprintf(msg, sizeof(msg), "fuzz_filter: %s%s%s", what,
	    detail ? ": " : "", detail ? detail : "");
	__sanitizer_report_error_summary(msg);
	fprintf(stderr, "fuzz_filter: %s\n", what);
	if (detail != NULL)
		fprintf(stderr, "  detail: %s\n", detail);
	fprintf(stderr, "  input (%zu bytes, options %02x %02x %02x): ",
	    cur_size, cur_size > 0 ? cur_data[0] : 0,
	    cur_size > 1 ? cur_data[1] : 0, cur_size > 2 ? cur_data[2] : 0);
	for (i = NSEL; i < n; i++)
		fputc((cur_data[i] >= 0x20 && cur_data[i] < 0x7f) ||
		    cur_data[i] == '\n' ? cur_data[i] : '?', stderr);
	fputc('\n', stderr);
	abort();
}

static void
grow(struct fctx *x, size_t n)
{
	if (n <= x->cap)
		return;
	x->cap = n + n / 2 + 16;
	x->adv = diag_realloc(x->adv, x->cap * sizeof(double));
	x->w = diag_realloc(x->w, x->cap * sizeof(double));
	x->xadv = diag_realloc(x->xadv, x->cap * sizeof(double));
	x->xw = diag_realloc(x->xw, x->cap * sizeof(double));
}

/* SPEC 3: a set of equal rewards gives exactly 0. */
static void
check_equal_zero(const struct prefs *c, const struct batch *v,
    const double *adv)
{
	size_t g, i, o, n;

	/* Whitened over the batch, or against a baseline field: the rule
	 * is the group's, which these leave. */
	if (c->est->kind == EST_RPP_BASELINE || c->est->kind == EST_RPP ||
	    c->est->kind == EST_GRPO_WHITEN || c->est->kind == EST_REMAX ||
	    c->ap.gn_batch)
		return;
	for (g = 0; g < v->ngroups; g++) {
		int equal = 1;

		o = v->goff[g];
		n = v->goff[g + 1] - o;
		if (n < 2)
			continue;
		for (i = 1; i < n; i++)
			if (v->r[o + i] != v->r[o])
				equal = 0;
		if (!equal)
			continue;
		for (i = 0; i < n; i++)
			if (adv[o + i] != 0) {
				char msg[160];

				snprintf(msg, sizeof(msg), "estimator %s, "
				    "group %zu, record %zu: %.17g",
				    c->est->name, g, i, adv[o + i]);
				fail("equal rewards but an advantage is not "
				    "0", msg);
			}
	}
}

/* SPEC 4, token mode: c_i = 1/N, so sum c_i T_i = 1 over each scope
 * that has a trained token. */
static void
check_token_sum(const struct prefs *c, const struct batch *v,
    const double *w)
{
	size_t g0, g1, i;

	if (strcmp(c->loss->name, "token") != 0)
		return;
	for (g0 = 0; g0 < v->ngroups; g0 = g1) {
		double s = 0, N = 0;

		g1 = c->scope_group ? g0 + 1 : v->ngroups;
		for (i = v->goff[g0]; i < v->goff[g1]; i++) {
			s += w[i] * v->T[i];
			N += v->T[i];
		}
		if (N > 0 && fabs(s - 1) > 1e-9) {
			char msg[80];

			snprintf(msg, sizeof(msg), "sum = %.17g", s);
			fail("token weights do not sum to 1", msg);
		}
	}
}

static void
check_finite(const char *est, const struct batch *v, const double *adv,
    const double *w)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!isfinite(adv[i]) || !isfinite(w[i]) ||
		    (adv[i] == 0 && signbit(adv[i])) ||
		    (w[i] == 0 && signbit(w[i])))
			fail("compute_batch gave a non-finite number or -0",
			    est);
}

/* A --columnar line, rows j .. j + n - 1, written whole as compute does. */
static int
write_columns(struct fctx *x, const struct gbatch *b, const struct emit *em,
    size_t j, size_t n, struct diag *d)
{
	const struct record **r = diag_malloc(n * sizeof(*r));
	struct record *tmp = diag_malloc(n * sizeof(*tmp));
	double *adv = diag_malloc(n * sizeof(*adv));
	double *w = diag_malloc(n * sizeof(*w));
	const char *line = NULL;
	size_t c, i, k;
	int rc;

	for (c = 0; c < n; c++) {
		i = batch_row(b, j + c, &k);
		if (c > 0 && batch_hline(b, i, NULL) != line)
			fail("a columnar line's records are not together",
			    NULL);
		line = batch_hline(b, i, NULL);
		r[c] = batch_hrec(b, i, &tmp[c]);
		if (r[c]->col != c || r[c]->ncol != n)
			fail("a columnar line's records out of order", NULL);
		adv[c] = x->adv[k];
		w[c] = x->w[k];
	}
	rc = output_columns(x->out, line, r, batch_runs(b), adv, w, n, em, d);
	free(r);
	free(tmp);
	free(adv);
	free(w);
	return rc;
}

static int
on_batch(void *ctx, const struct gbatch *b, const struct batch *v,
    struct diag *d)
{
	struct fctx *x = ctx;
	struct emit em;
	struct record tmp;
	const struct record *r;
	struct adv_params ap;
	size_t i, j, k, e;
	int weights;

	memset(&em, 0, sizeof(em));
	grow(x, v->n);
	if (compute_check_lengths(x->c, b, v, &weights, d) != 0 ||
	    compute_batch(x->c, &x->ap, v, x->adv, x->w, d) != 0)
		return d->status;
	check_finite(x->c->est->name, v, x->adv, x->w);
	check_equal_zero(x->c, v, x->adv);
	check_token_sum(x->c, v, x->w);
	for (e = 0; e < NEXTRA; e++) {
		ap = x->xc[e].ap;
		if (compute_batch(&x->xc[e], &ap, v, x->xadv, x->xw, d) != 0)
			return d->status;
		check_finite(x->xc[e].est->name, v, x->xadv, x->xw);
		check_equal_zero(&x->xc[e], v, x->xadv);
	}
	em.digits = x->c->digits;
	em.tokens = x->c->tokens;
	em.annot = x->c->annotate ? "{\"group_size\":1}" : NULL;
	em.annot_len = em.annot ? strlen(em.annot) : 0;
	em.no_weights = !weights;
	for (i = 0; i < batch_nrows(b); i++) {
		j = batch_row(b, i, &k);
		if (batch_helsewhere(b, j))
			continue;
		r = batch_hrec(b, j, &tmp);
		if (r->ncol > 0) {
			if (r->col == 0) {
				if (i + r->ncol > batch_nrows(b))
					fail("a columnar line cut by its batch",
					    NULL);
				if (write_columns(x, b, &em, i, r->ncol,
				    d) != 0)
					return d->status;
			}
			x->written++;
			continue;
		}
		if (output_record(x->out, batch_hline(b, j, NULL), r,
		    batch_runs(b), x->adv[k], x->w[k], &em, d) != 0)
			return d->status;
		x->written++;
	}
	return 0;
}

/*
 * The options of the frameworks' dumps (after the others, so that they
 * override a profile's): s3 bits 4-7 --unwrap, --null-reward unscored,
 * --trajectory-key, --columnar; s4 bits 0-1 a group key path, 2-3 a
 * reward path (or two fields weighed), 4 --reward-reduce last (and,
 * without a trajectory, --rollout-key: slime's split rollouts), 5
 * --mask-spans, 6 a prompt length and a sample mask, 7 --length-key (and
 * the trajectory's last-row field).  Returns the new argc.
 */
static int
dump_options(char **argv, int argc, unsigned s3, unsigned s4)
{
	static char *const group[] = { NULL, "g.id", "g[0]", "[\"x.y\"]" };
	static char *const reward[] = { NULL, "reward.score", "r[1]", "f,g" };

	if (s3 & 0x10)
		argv[argc++] = "--unwrap";
	if (s3 & 0x20) {
		argv[argc++] = "--null-reward";
		argv[argc++] = "unscored";
	}
	if (s3 & 0x40) {
		argv[argc++] = "--trajectory-key";
		argv[argc++] = "traj";
		if (s4 & 0x80) {
			argv[argc++] = "--trajectory-last-key";
			argv[argc++] = "last";
		}
	}
	if (s3 & 0x80)
		argv[argc++] = "--columnar";
	if (group[s4 & 3] != NULL) {
		argv[argc++] = "--group-key";
		argv[argc++] = group[s4 & 3];
	}
	if (reward[(s4 >> 2) & 3] != NULL) {
		argv[argc++] = "--reward-key";
		argv[argc++] = reward[(s4 >> 2) & 3];
		if (((s4 >> 2) & 3) == 3) {
			argv[argc++] = "--reward-weights";
			argv[argc++] = "1,0.5";
		}
	}
	if (s4 & 0x10) {
		argv[argc++] = "--reward-reduce";
		argv[argc++] = "last";
		if (!(s3 & 0x40)) {
			argv[argc++] = "--rollout-key";
			argv[argc++] = "roll";
		}
	}
	if (s4 & 0x20) {
		argv[argc++] = "--mask-spans";
		argv[argc++] = "spans";
	}
	if (s4 & 0x40) {
		argv[argc++] = "--prompt-len-key";
		argv[argc++] = "pl";
		argv[argc++] = "--sample-mask-key";
		argv[argc++] = "sm";
	}
	if (s4 & 0x80) {
		argv[argc++] = "--length-key";
		argv[argc++] = "n";
	}
	return argc;
}

/* Lines of the content as input.c cuts them: '\n' ends a line, a final
 * '\r' is dropped, lines of only blanks are not records. */
struct lines {
	uint64_t	*hash;
	size_t		 n, nonblank;
};

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
cut_lines(const uint8_t *p, size_t n, struct lines *L)
{
	size_t i = 0, beg, len, j, cap = 16;
	int blank;

	L->hash = diag_malloc(cap * sizeof(*L->hash));
	L->n = L->nonblank = 0;
	while (i < n) {
		beg = i;
		while (i < n && p[i] != '\n')
			i++;
		len = i - beg;
		if (i < n)
			i++;
		if (len > 0 && p[beg + len - 1] == '\r')
			len--;
		blank = 1;
		for (j = 0; j < len; j++)
			if (p[beg + j] != ' ' && p[beg + j] != '\t' &&
			    p[beg + j] != '\r')
				blank = 0;
		if (blank)
			continue;
		L->nonblank++;
		if (L->n == cap)
			L->hash = diag_realloc(L->hash, (cap *= 2) *
			    sizeof(*L->hash));
		L->hash[L->n++] = keymap_hash(p + beg, len, 42);
	}
	qsort(L->hash, L->n, sizeof(*L->hash), cmp_u64);
}

/* The rejects file: exactly nrej lines, each a line of the input. */
static void
check_rejects(int fd, const struct lines *L, unsigned long long nrej,
    int plain)
{
	off_t n = lseek(fd, 0, SEEK_END), i, beg;
	char *t;
	unsigned long long count = 0;

	if (n < 0)
		abort();
	t = diag_malloc((size_t)n + 1);
	if (n > 0 && pread(fd, t, (size_t)n, 0) != n)
		abort();
	if (n > 0 && t[n - 1] != '\n')
		fail("rejects file does not end with a newline", NULL);
	for (i = 0, beg = 0; i < n; i++) {
		uint64_t h;

		if (t[i] != '\n')
			continue;
		count++;
		h = keymap_hash(t + beg, (size_t)(i - beg), 42);
		if (plain && bsearch(&h, L->hash, L->n, sizeof(h),
		    cmp_u64) == NULL)
			fail("rejects file holds a line that is not an input "
			    "line", NULL);
		beg = i + 1;
	}
	if (count != nrej) {
		char msg[80];

		snprintf(msg, sizeof(msg), "%llu lines in rejects, %llu "
		    "rejected", count, nrej);
		fail("rejects file does not hold every rejected line", msg);
	}
	free(t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int in_fd = -1, rej_fd = -1;
	static char in_path[64], rej_path[64];
	const uint8_t *body;
	size_t blen, e;
	unsigned s0, s1, s2, s3 = 0, s4 = 0;
	char *argv[96];
	int argc = 0, rc, plain, dumps;
	struct prefs c;
	struct optstore own = { 0 };
	struct diag d;
	struct fctx x;
	struct pipeline_stats st;
	struct lines L;

	if (size < NSEL || size > (256u << 10))
		return 0;
	cur_data = data;
	cur_size = size;
	s0 = data[0];
	s1 = data[1];
	s2 = data[2];
	body = data + NSEL;
	blen = size - NSEL;
	/* The dumps' options: bit 7 of the third byte, when --like is not
	 * asked for (it reads that bit then). */
	dumps = !(s1 & 0x10) && (s2 & 0x80) && blen >= NSEL_DUMPS;
	if (dumps) {
		s3 = body[0];
		s4 = body[1];
		body += NSEL_DUMPS;
		blen -= NSEL_DUMPS;
	}

	if (in_fd < 0) {
		in_fd = memfd_create("fuzz_filter_in", 0);
		rej_fd = memfd_create("fuzz_filter_rej", 0);
		if (in_fd < 0 || rej_fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", in_fd);
		snprintf(rej_path, sizeof(rej_path), "/proc/self/fd/%d",
		    rej_fd);
	}
	if (ftruncate(in_fd, 0) != 0 || ftruncate(rej_fd, 0) != 0 ||
	    pwrite(in_fd, body, blen, 0) != (ssize_t)blen)
		abort();

	/* The options, as a user would type them; --from first, since it
	 * sets the field options anew. */
	argv[argc++] = "rladv";
	if (dumps && (s3 & 15) < NFROM) {
		argv[argc++] = "--from";
		argv[argc++] = (char *)from_names[s3 & 15];
	}
	if (s1 & 0x10) {
		argv[argc++] = "--like";
		argv[argc++] = (s2 & 0x80) ? "trl" : "verl";
	}
	argv[argc++] = "-a";
	argv[argc++] = (char *)est_names[s0 & 7];
	argv[argc++] = "-g";
	argv[argc++] = (char *)loss_names[(s0 >> 3) & 7];
	if (((s0 >> 3) & 7) == 3) {
		argv[argc++] = "--max-len";
		argv[argc++] = "16";
	}
	if (s0 & 0x40) {
		argv[argc++] = "--scope";
		argv[argc++] = "group";
	}
	/* (--columnar writes whole lines: skip mode is refused with it.) */
	if ((s0 & 0x80) && !(dumps && (s3 & 0x80))) {
		argv[argc++] = "--on-error";
		argv[argc++] = "skip";
		argv[argc++] = "--rejects";
		argv[argc++] = rej_path;
	}
	switch (s1 & 3) {
	case 1: argv[argc++] = "--unsorted"; break;
	case 2: argv[argc++] = "--group-size"; argv[argc++] = "2"; break;
	case 3: argv[argc++] = "--group-size"; argv[argc++] = "3"; break;
	}
	switch ((s1 >> 2) & 3) {
	case 1: argv[argc++] = "--batch-key"; argv[argc++] = "step"; break;
	case 2: argv[argc++] = "--batch-groups"; argv[argc++] = "2"; break;
	case 3: argv[argc++] = "--batch-groups"; argv[argc++] = "1"; break;
	}
	if (s1 & 0x20) {
		argv[argc++] = "--stratum-cap";
		argv[argc++] = "2";
	}
	if (s1 & 0x40)
		argv[argc++] = "--no-tokens";
	if (s1 & 0x80)
		argv[argc++] = "--annotate";
	argv[argc++] = "--max-line";
	argv[argc++] = (s2 & 1) ? "2K" : "1M";
	if (s2 & 2) {
		argv[argc++] = "--std";
		argv[argc++] = "sample";
	}
	if (s2 & 4) {
		argv[argc++] = "--stratum-key";
		argv[argc++] = "tool_calls,search_ok";
	}
	/* Only the estimators that compute GN take it (others refuse). */
	if ((s2 & 8) && ((s0 & 7) == 0 || (s0 & 7) == 1 || (s0 & 7) == 4)) {
		argv[argc++] = "--gn-scope";
		argv[argc++] = "batch";
	}
	/* Only the estimators with a deviation take it (others refuse). */
	if ((s2 & 0x10) && ((s0 & 7) == 0 || (s0 & 7) == 3 || (s0 & 7) == 4)) {
		argv[argc++] = "--std-scope";
		argv[argc++] = "batch";
	}
	argv[argc++] = "--ms-mode";
	argv[argc++] = (s2 & 0x20) ? "sampled" : "auto";
	argv[argc++] = "--ms-budget";
	argv[argc++] = "20000";
	if (s2 & 0x40) {
		argv[argc++] = "--digits";
		argv[argc++] = "3";
	}
	if (dumps)
		argc = dump_options(argv, argc, s3, s4);
	argv[argc++] = in_path;
	argv[argc] = NULL;

	memset(&d, 0, sizeof(d));
	options_defaults(&c);
	if (optparse_argv(&c, &own, argc, argv, &d) != 0 ||
	    options_check(&c, &d) != 0 || compute_device(&c, &d) != 0) {
		/* The dumps' options may contradict a profile's (two masks,
		 * a field named for two roles): a usage error, run nothing. */
		if (dumps && d.status == EXIT_USAGE) {
			optparse_free(&own);
			return 0;
		}
		fail("the harness's options were refused", d.msg);
	}

	memset(&x, 0, sizeof(x));
	x.c = &c;
	x.ap = c.ap;
	for (e = 0; e < NEXTRA; e++) {
		x.xc[e] = c;
		x.xc[e].est = advantage_find(extras[e].est);
		x.xc[e].loss = loss_weights_find(extras[e].loss);
		if (x.xc[e].est == NULL || x.xc[e].loss == NULL)
			abort();
	}
	if ((x.out = output_open("/dev/null", c.gzip, 1, &d)) == NULL)
		fail("output_open /dev/null", d.msg);

	rc = pipeline_run(&c, 1, compute_streams(&c), on_batch, &x, &st, &d);
	{
		struct diag ignore = { 0 };

		if (output_close(x.out, rc == 0 ? &d : &ignore) != 0 &&
		    rc == 0)
			fail("output_close to /dev/null failed", d.msg);
	}

	plain = !(blen >= 2 && body[0] == 0x1f && body[1] == 0x8b);
	cut_lines(body, blen, &L);
	if (rc != 0) {
		size_t pl = strlen(in_path);

		/* A group over --ms-budget is refused as a usage error (the
		 * remedy is an option), in either mode: sampled MS-GRPO has a
		 * budget too, and a fuzzed group can be large. */
		int budget = rc == EXIT_USAGE && d.status == EXIT_USAGE &&
		    strstr(d.msg, "--ms-budget") != NULL;

		if (!budget && (rc != EXIT_DATA || d.status != EXIT_DATA))
			fail("status other than 0, 1 or a budget's 2", d.msg);
		if (strncmp(d.msg, in_path, pl) != 0 || d.msg[pl] != ':')
			fail("a data error that does not name the file",
			    d.msg);
	} else {
		if (c.skip) {
			if (st.in != st.out + st.rejected)
				fail("skip mode: in != out + rejected", NULL);
		} else if (st.rejected != 0 || st.in != st.out)
			fail("fail mode: in != out, or records rejected",
			    NULL);
		if (x.written != st.out)
			fail("records written != out", NULL);
		if (plain && !c.fields.columnar && st.in != L.nonblank)
			fail("records in != non-blank lines", NULL);
		if (c.skip && c.rejects)
			check_rejects(rej_fd, &L, st.rejected, plain);
	}
	free(L.hash);
	free(x.adv);
	free(x.w);
	free(x.xadv);
	free(x.xw);
	optparse_free(&own);
	return 0;
}
