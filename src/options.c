/*
 * options.c - option parsing for compute (and the option strings of diff).
 *
 * Options are taken in order, so that a preset (--like) sets several at
 * its place and an option after it overrides it.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "options.h"

const char options_usage[] =
"usage: rladv [compute] [-a estimator] [-g mode] [options] [file ...]\n"
"       rladv stats [--json] [options] [file ...]\n"
"       rladv diff --a options --b options [--json] [--top n] [options] [file ...]\n"
"       rladv diff --outputs [--key field] [--tol x] [--atol x] [--top n] [--json] file_a file_b\n"
"       rladv --help | --version\n"
"\n"
"Advantages (SPEC 3):\n"
"  -a, --advantage NAME   grpo (default), drgrpo, rloo, san, stratified,\n"
"                         msgrpo, opo, rpp-baseline\n"
"      --std population|sample   deviation divides by n or n-1\n"
"      --eps X            added to the deviation (default 1e-6)\n"
"      --alpha X          stratified: weight of SAN, 0..1 (default 0.6)\n"
"      --std-scope group|batch|none   where GN's deviation comes from\n"
"      --gn-scope group|batch         where GN's mean and deviation come from\n"
"      --like verl|trl|openrlhf       the conventions of a framework\n"
"      --tau-min N        msgrpo: smallest scale, >= 2 (default 2)\n"
"      --ms-weights uniform|global|local   msgrpo: scale weights\n"
"      --ms-stats seq|token            msgrpo: subgroup statistics\n"
"      --ms-mode auto|exact|sampled    msgrpo: how (default auto)\n"
"      --ms-scales M      msgrpo sampled: scales (default 4)\n"
"      --ms-groups K      msgrpo sampled: subgroups per scale (default 8)\n"
"      --ms-budget N      msgrpo exact: work per group (default 1e8)\n"
"      --seed S           msgrpo sampled: seed (default 0)\n"
"Loss weights (SPEC 4):\n"
"  -g, --agg MODE         token (default), seq, seq-sum, seq-sum-norm,\n"
"                         balanced, balanced-gen\n"
"      --scope batch|group   normalize over the batch or each group\n"
"      --max-len L        seq-sum-norm: the constant normalizer\n"
"Input (SPEC 2):\n"
"      --group-key F  --reward-key F  --logprobs-key F  --mask-key F\n"
"      --stratum-key F[,F...]  --batch-key F   field names\n"
"      --stratum-cap N    stratum values >= N share one stratum\n"
"      --group-size G     groups of exactly G records (blocks without key)\n"
"      --batch-groups N   a batch every N groups\n"
"      --unsorted         a group's records may be anywhere in the batch\n"
"      --max-line BYTES   longest line accepted (default 1G)\n"
"Output (SPEC 5):\n"
"      --no-tokens        leave out token_advantages, token_loss_weights\n"
"      --annotate         add \"rladv\": group and stratum statistics\n"
"      --digits N         significant digits, 1..17 (default 9)\n"
"  -o, --output FILE      write there (gzip when FILE ends in .gz)\n"
"  -z, --gzip             gzip standard output\n"
"Errors and devices:\n"
"      --on-error fail|skip   stop at a bad record, or leave it out\n"
"      --rejects FILE     with skip: bad lines are written there\n"
"      --device cpu|cuda|auto   where numbers are computed\n"
"  -v, --verbose          summary on standard error\n"
"  -h, --help             this text\n"
"  -V, --version          version and build\n"
"Subcommands: stats --json; diff --a OPTS --b OPTS [--top N] [--json];\n"
"             diff --outputs [--key F] [--tol X] [--atol X] A B.  See rladv(1).\n";

enum {
	O_STD = 256, O_EPS, O_ALPHA, O_STDSCOPE, O_GNSCOPE, O_LIKE, O_TAUMIN,
	O_MSW, O_MSSTATS, O_MSMODE, O_MSSCALES, O_MSGROUPS, O_MSBUDGET,
	O_SEED, O_SCOPE, O_MAXLEN, O_GKEY, O_RKEY, O_LKEY, O_MKEY, O_SKEY,
	O_BKEY, O_SCAP, O_GSIZE, O_BGROUPS, O_UNSORTED, O_MAXLINE, O_NOTOK,
	O_ANNOT, O_DIGITS, O_ONERR, O_REJ, O_DEV, O_JSON
};

static const struct option longopts[] = {
	{ "advantage", required_argument, NULL, 'a' },
	{ "agg", required_argument, NULL, 'g' },
	{ "std", required_argument, NULL, O_STD },
	{ "eps", required_argument, NULL, O_EPS },
	{ "alpha", required_argument, NULL, O_ALPHA },
	{ "std-scope", required_argument, NULL, O_STDSCOPE },
	{ "gn-scope", required_argument, NULL, O_GNSCOPE },
	{ "like", required_argument, NULL, O_LIKE },
	{ "tau-min", required_argument, NULL, O_TAUMIN },
	{ "ms-weights", required_argument, NULL, O_MSW },
	{ "ms-stats", required_argument, NULL, O_MSSTATS },
	{ "ms-mode", required_argument, NULL, O_MSMODE },
	{ "ms-scales", required_argument, NULL, O_MSSCALES },
	{ "ms-groups", required_argument, NULL, O_MSGROUPS },
	{ "ms-budget", required_argument, NULL, O_MSBUDGET },
	{ "seed", required_argument, NULL, O_SEED },
	{ "scope", required_argument, NULL, O_SCOPE },
	{ "max-len", required_argument, NULL, O_MAXLEN },
	{ "group-key", required_argument, NULL, O_GKEY },
	{ "reward-key", required_argument, NULL, O_RKEY },
	{ "logprobs-key", required_argument, NULL, O_LKEY },
	{ "mask-key", required_argument, NULL, O_MKEY },
	{ "stratum-key", required_argument, NULL, O_SKEY },
	{ "batch-key", required_argument, NULL, O_BKEY },
	{ "stratum-cap", required_argument, NULL, O_SCAP },
	{ "group-size", required_argument, NULL, O_GSIZE },
	{ "batch-groups", required_argument, NULL, O_BGROUPS },
	{ "unsorted", no_argument, NULL, O_UNSORTED },
	{ "max-line", required_argument, NULL, O_MAXLINE },
	{ "no-tokens", no_argument, NULL, O_NOTOK },
	{ "annotate", no_argument, NULL, O_ANNOT },
	{ "digits", required_argument, NULL, O_DIGITS },
	{ "output", required_argument, NULL, 'o' },
	{ "gzip", no_argument, NULL, 'z' },
	{ "on-error", required_argument, NULL, O_ONERR },
	{ "rejects", required_argument, NULL, O_REJ },
	{ "device", required_argument, NULL, O_DEV },
	{ "verbose", no_argument, NULL, 'v' },
	{ "json", no_argument, NULL, O_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

void
options_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->est = advantage_find("grpo");
	advantage_defaults(&c->ap);
	c->loss = loss_weights_find("token");
	record_fields_default(&c->fields);
	c->tokens = 1;
	c->digits = 9;
	c->gzip_level = 1;
	c->max_line = (size_t)1 << 30;
	c->device = DEV_CPU;
}

static int
bad(struct diag *d, const char *opt, const char *arg, const char *want)
{
	return diag_set(d, EXIT_USAGE, "%s: invalid value \"%s\"; expected %s",
	    opt, arg, want);
}

static int
num(const char *arg, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	return end != arg && *end == '\0' && errno == 0 && isfinite(*v);
}

static int
count(const char *opt, const char *arg, long min, long *v, struct diag *d)
{
	double x;

	if (!num(arg, &x) || x != floor(x) || x < min || x > 1e15) {
		char want[64];

		snprintf(want, sizeof(want), "an integer >= %ld", min);
		return bad(d, opt, arg, want);
	}
	*v = (long)x;
	return 0;
}

static int
choice(const char *opt, const char *arg, const char *const *names, int *v,
    struct diag *d)
{
	char want[256] = "";
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(arg, names[i]) == 0) {
			*v = i;
			return 0;
		}
	for (i = 0; names[i]; i++) {
		strncat(want, i ? (names[i + 1] ? ", " : " or ") : "",
		    sizeof(want) - strlen(want) - 1);
		strncat(want, names[i], sizeof(want) - strlen(want) - 1);
	}
	return bad(d, opt, arg, want);
}

static int
size_arg(const char *opt, const char *arg, size_t *v, struct diag *d)
{
	char *end;
	double x;
	double mul = 1;

	errno = 0;
	x = strtod(arg, &end);
	if (end != arg && *end && !end[1]) {
		switch (toupper((unsigned char)*end)) {
		case 'K': mul = 1024.0; end++; break;
		case 'M': mul = 1024.0 * 1024; end++; break;
		case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
		default: break;
		}
	}
	if (end == arg || *end || x < 1 || x * mul > 1e15)
		return bad(d, opt, arg, "a size such as 65536, 64K, 16M or 1G");
	*v = (size_t)(x * mul);
	return 0;
}

static void
set_names(const char **dst, int *n, char *arg)
{
	*n = 0;
	dst[(*n)++] = arg;
}

/* --like: the conventions that reproduce a framework's numbers. */
static int
preset(struct config *c, const char *arg, struct diag *d)
{
	static const char *const names[] = { "verl", "trl", "openrlhf", NULL };
	int v;

	if (choice("--like", arg, names, &v, d))
		return d->status;
	c->ap.sample = 1;
	c->lp.count_all = 1;
	c->ap.verl_single = v == 0;
	c->lp.seq_eps = v == 0 ? 1e-8 : 0;
	c->ap.eps = v == 0 ? 1e-6 : v == 1 ? 1e-4 : 1e-9;
	return 0;
}

int
options_parse(struct config *c, int argc, char **argv, int allow_files,
    struct diag *d)
{
	static const char *const stds[] = { "population", "sample", NULL };
	static const char *const scopes[] = { "group", "batch", "none", NULL };
	static const char *const gscopes[] = { "group", "batch", NULL };
	static const char *const lscopes[] = { "batch", "group", NULL };
	static const char *const msw[] = { "uniform", "global", "local",
	    NULL };
	static const char *const mss[] = { "seq", "token", NULL };
	static const char *const msm[] = { "auto", "exact", "sampled", NULL };
	static const char *const onerr[] = { "fail", "skip", NULL };
	static const char *const devs[] = { "cpu", "cuda", "auto", NULL };
	int ch, v;
	long n;
	double x;
	char *s, *tok, *save;

	optind = 0;	/* GNU: full reinitialization */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":a:g:o:zvhV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'a':
			if ((c->est = advantage_find(optarg)) == NULL) {
				const struct estimator *e;
				char want[256] = "";

				for (e = advantage_table; e->name; e++) {
					strcat(want, e == advantage_table ?
					    "" : ", ");
					strcat(want, e->name);
				}
				return diag_set(d, EXIT_USAGE, "unknown "
				    "advantage estimator \"%s\"; use one of: "
				    "%s", optarg, want);
			}
			break;
		case 'g':
			if ((c->loss = loss_weights_find(optarg)) == NULL) {
				const struct loss_mode *m;
				char want[256] = "";

				for (m = loss_weights_table; m->name; m++) {
					strcat(want, m == loss_weights_table ?
					    "" : ", ");
					strcat(want, m->name);
				}
				return diag_set(d, EXIT_USAGE, "unknown loss "
				    "mode \"%s\"; use one of: %s", optarg,
				    want);
			}
			break;
		case O_STD:
			if (choice("--std", optarg, stds, &c->ap.sample, d))
				return d->status;
			break;
		case O_EPS:
			if (!num(optarg, &x) || x < 0)
				return bad(d, "--eps", optarg,
				    "a number >= 0");
			c->ap.eps = x;
			break;
		case O_ALPHA:
			if (!num(optarg, &x) || x < 0 || x > 1)
				return bad(d, "--alpha", optarg,
				    "a number between 0 and 1");
			c->ap.alpha = x;
			break;
		case O_STDSCOPE:
			if (choice("--std-scope", optarg, scopes, &v, d))
				return d->status;
			c->ap.std_scope = (enum std_scope)v;
			break;
		case O_GNSCOPE:
			if (choice("--gn-scope", optarg, gscopes, &v, d))
				return d->status;
			c->ap.gn_batch = v;
			break;
		case O_LIKE:
			if (preset(c, optarg, d))
				return d->status;
			break;
		case O_TAUMIN:
			if (count("--tau-min", optarg, 2, &n, d))
				return d->status;
			c->ap.ms.tau_min = (int)(n > 1000000 ? 1000000 : n);
			break;
		case O_MSW:
			if (choice("--ms-weights", optarg, msw, &v, d))
				return d->status;
			c->ap.ms.weights = (enum ms_weights)v;
			break;
		case O_MSSTATS:
			if (choice("--ms-stats", optarg, mss, &v, d))
				return d->status;
			c->ap.ms.token_stats = v;
			break;
		case O_MSMODE:
			if (choice("--ms-mode", optarg, msm, &v, d))
				return d->status;
			c->ap.ms.mode = v == 0 ? MS_AUTO : v == 1 ? MS_EXACT :
			    MS_SAMPLED;
			break;
		case O_MSSCALES:
			if (count("--ms-scales", optarg, 1, &n, d))
				return d->status;
			c->ap.ms.scales = (int)(n > 1000000 ? 1000000 : n);
			break;
		case O_MSGROUPS:
			if (count("--ms-groups", optarg, 1, &n, d))
				return d->status;
			c->ap.ms.groups = (int)(n > 1000000 ? 1000000 : n);
			break;
		case O_MSBUDGET:
			if (!num(optarg, &x) || x < 0)
				return bad(d, "--ms-budget", optarg,
				    "a number >= 0");
			c->ap.ms.budget = x;
			break;
		case O_SEED:
			if (count("--seed", optarg, 0, &n, d))
				return d->status;
			c->ap.ms.seed = (uint64_t)n;
			break;
		case O_SCOPE:
			if (choice("--scope", optarg, lscopes, &c->scope_group,
			    d))
				return d->status;
			break;
		case O_MAXLEN:
			if (!num(optarg, &x) || x <= 0)
				return bad(d, "--max-len", optarg,
				    "a number > 0");
			c->lp.max_len = x;
			break;
		case O_GKEY:
			set_names(c->fields.group, &c->fields.ngroup, optarg);
			break;
		case O_RKEY:
			set_names(c->fields.reward, &c->fields.nreward, optarg);
			break;
		case O_LKEY:
			set_names(c->fields.logprobs, &c->fields.nlogprobs,
			    optarg);
			break;
		case O_MKEY:
			set_names(c->fields.mask, &c->fields.nmask, optarg);
			break;
		case O_SKEY:
			/* The names stay in a copy the config keeps. */
			free(c->skey_copy);
			s = c->skey_copy = diag_strdup(optarg);
			c->fields.nstratum = 0;
			for (tok = strtok_r(s, ",", &save); tok != NULL;
			    tok = strtok_r(NULL, ",", &save)) {
				if (c->fields.nstratum == FIELD_MAXNAMES)
					return diag_set(d, EXIT_USAGE,
					    "--stratum-key: at most %d fields",
					    FIELD_MAXNAMES);
				c->fields.stratum[c->fields.nstratum++] = tok;
			}
			if (c->fields.nstratum == 0)
				return bad(d, "--stratum-key", optarg,
				    "field names separated by commas");
			break;
		case O_BKEY:
			c->fields.batch = optarg;
			c->go.has_batch_key = 1;
			break;
		case O_SCAP:
			if (!num(optarg, &x))
				return bad(d, "--stratum-cap", optarg,
				    "a number");
			c->fields.has_cap = 1;
			c->fields.cap = x;
			break;
		case O_GSIZE:
			if (count("--group-size", optarg, 1, &n, d))
				return d->status;
			c->go.group_size = (size_t)n;
			break;
		case O_BGROUPS:
			if (count("--batch-groups", optarg, 1, &n, d))
				return d->status;
			c->go.batch_groups = (size_t)n;
			break;
		case O_UNSORTED:
			c->go.unsorted = 1;
			break;
		case O_MAXLINE:
			if (size_arg("--max-line", optarg, &c->max_line, d))
				return d->status;
			break;
		case O_NOTOK:
			c->tokens = 0;
			break;
		case O_ANNOT:
			c->annotate = 1;
			break;
		case O_DIGITS:
			if (count("--digits", optarg, 1, &n, d) || n > 17)
				return bad(d, "--digits", optarg,
				    "an integer from 1 to 17");
			c->digits = (int)n;
			break;
		case 'o':
			c->out = optarg;
			break;
		case 'z':
			c->gzip = 1;
			break;
		case O_ONERR:
			if (choice("--on-error", optarg, onerr, &c->skip, d))
				return d->status;
			break;
		case O_REJ:
			c->rejects = optarg;
			break;
		case O_DEV:
			if (choice("--device", optarg, devs, &v, d))
				return d->status;
			c->device = (enum device)v;
			break;
		case 'v':
			c->verbose = 1;
			break;
		case O_JSON:
			c->json = 1;
			break;
		case 'h':
			return -1;
		case 'V':
			return -2;
		case ':':
			return diag_set(d, EXIT_USAGE, "option %s needs a value; "
			    "see rladv --help", argv[optind - 1]);
		default:
			return diag_set(d, EXIT_USAGE, "unknown option %s; see "
			    "rladv --help", argv[optind - 1]);
		}
	}
	if (!allow_files && optind < argc)
		return diag_set(d, EXIT_USAGE, "unexpected argument \"%s\" in "
		    "an option string", argv[optind]);
	c->files = argv + optind;
	c->nfiles = (size_t)(argc - optind);
	return 0;
}

int
options_check(struct config *c, struct diag *d)
{
	size_t len;

	if ((c->loss->flags & LOSS_MAXLEN) && c->lp.max_len <= 0)
		return diag_set(d, EXIT_USAGE, "-g %s needs --max-len L (the "
		    "constant normalizer, e.g. the generation limit)",
		    c->loss->name);
	if (c->rejects && !c->skip)
		return diag_set(d, EXIT_USAGE, "--rejects needs --on-error "
		    "skip");
	c->fields.need_stratum = (c->est->flags & ADV_STRATA) != 0;
	if (c->out && (len = strlen(c->out)) > 3 &&
	    strcmp(c->out + len - 3, ".gz") == 0)
		c->gzip = 1;
	return 0;
}

int
options_split(const char *s, int *argc, char ***argv, struct diag *d)
{
	size_t n = strlen(s), cap = 8;
	/* n bytes of words, one NUL each, and the empty argv[0]. */
	char *buf = diag_malloc(2 * n + 2), *o = buf, q = 0;
	char **v = diag_malloc(cap * sizeof(*v));
	int c = 0, inword = 0;

	/* argv[0] is a placeholder for getopt, the words follow it. */
	v[c++] = buf;
	*o++ = '\0';
	for (; *s; s++) {
		if (q) {
			if (*s == q)
				q = 0;
			else
				*o++ = *s;
			continue;
		}
		if (*s == '\'' || *s == '"') {
			q = *s;
			if (!inword) {
				if ((size_t)c + 1 >= cap)
					v = diag_realloc(v, (cap *= 2) *
					    sizeof(*v));
				v[c++] = o;
				inword = 1;
			}
			continue;
		}
		if (isspace((unsigned char)*s)) {
			if (inword) {
				*o++ = '\0';
				inword = 0;
			}
			continue;
		}
		if (!inword) {
			if ((size_t)c + 1 >= cap)
				v = diag_realloc(v, (cap *= 2) * sizeof(*v));
			v[c++] = o;
			inword = 1;
		}
		*o++ = *s;
	}
	*o = '\0';
	if (q) {
		free(buf);
		free(v);
		return diag_set(d, EXIT_USAGE, "unterminated quote in option "
		    "string");
	}
	v[c] = NULL;
	*argc = c;
	*argv = v;
	return 0;
}

void
options_free(struct config *c)
{
	free(c->skey_copy);
	c->skey_copy = NULL;
}

int
options_meta(int rc)
{
	if (rc == -1)
		fputs(options_usage, stdout);
	else
		printf("rladv %s (cuda: %s)\n", RLADV_VERSION,
		    backend_has_cuda() ? "compiled in" : "not compiled in");
	return fflush(stdout) == 0 ? 0 : EXIT_IO;
}
