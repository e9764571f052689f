/*
 * optparse.c - argv to prefs by the option table: getopt_long's arrays
 * come from the rows that the command takes, each argument is read as its
 * row's kind says and stored where the row says, and an option of another
 * command is a usage error that names the command that takes it.
 */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optparse.h"

/* ---- Reading arguments ---------------------------------------------- */

static int
bad(struct diag *d, const char *opt, const char *arg, const char *want)
{
	return diag_set(d, EXIT_USAGE, "--%s: invalid value \"%s\"; expected "
	    "%s", opt, arg, want);
}

/* A finite number.  strtod's ERANGE is not checked: an underflow to a
 * subnormal or to 0 is the nearest double, and overflow is not finite. */
static int
num(const char *arg, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	return end != arg && *end == '\0' && isfinite(*v);
}

static int
read_num(const struct opt *o, const char *arg, double *v, struct diag *d)
{
	char want[80];

	if (num(arg, v) && (o->excl ? *v > o->min : *v >= o->min) &&
	    *v <= o->max)
		return 0;
	if (isinf(o->min) && isinf(o->max))
		snprintf(want, sizeof(want), "a number");
	else if (isinf(o->max))
		snprintf(want, sizeof(want), "a number %s %g",
		    o->excl ? ">" : ">=", o->min);
	else
		snprintf(want, sizeof(want), "a number between %g and %g",
		    o->min, o->max);
	return bad(d, o->name, arg, want);
}

/* An integer from min to max (1e15 when none), then at most clamp. */
static int
read_int(const struct opt *o, const char *arg, double *v, struct diag *d)
{
	double max = o->max > 0 ? o->max : 1e15;
	char want[80];

	if (num(arg, v) && *v == floor(*v) && *v >= o->min && *v <= max) {
		if (o->clamp > 0 && *v > o->clamp)
			*v = o->clamp;
		return 0;
	}
	if (o->max > 0)
		snprintf(want, sizeof(want), "an integer from %.0f to %.0f",
		    o->min, o->max);
	else
		snprintf(want, sizeof(want), "an integer >= %.0f", o->min);
	return bad(d, o->name, arg, want);
}

static int
read_bytes(const struct opt *o, const char *arg, size_t *v, struct diag *d)
{
	char *end;
	double x;
	double mul = 1;

	x = strtod(arg, &end);
	if (end != arg && *end && !end[1]) {
		switch (toupper((unsigned char)*end)) {
		case 'K': mul = 1024.0; end++; break;
		case 'M': mul = 1024.0 * 1024; end++; break;
		case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
		default: break;
		}
	}
	if (end == arg || *end || !(x >= 1) || x * mul > 1e15)
		return bad(d, o->name, arg,
		    "a size such as 65536, 64K, 16M or 1G");
	*v = (size_t)(x * mul);
	return 0;
}

/* The index of arg in the row's choices. */
static int
read_choice(const struct opt *o, const char *arg, int *v, struct diag *d)
{
	const char *const *names = o->choices;
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
	return bad(d, o->name, arg, want);
}

/* An argument as the row's kind reads it. */
static int
read_arg(const struct opt *o, const char *arg, union optval *v,
    struct diag *d)
{
	switch (o->kind) {
	case OK_NUM:
		return read_num(o, arg, &v->num, d);
	case OK_INT:
		return read_int(o, arg, &v->num, d);
	case OK_BYTES:
		return read_bytes(o, arg, &v->size, d);
	case OK_CHOICE:
		return read_choice(o, arg, &v->choice, d);
	case OK_FIELD:
	case OK_FILE:
		if (*arg == '\0')
			return bad(d, o->name, arg, o->want ? o->want :
			    o->kind == OK_FIELD ? "a field name" :
			    "a file name");
		/* FALLTHROUGH */
	case OK_STR:
		v->str = arg;
		return 0;
	default:
		return 0;
	}
}

/* The kind's store of v at the row's off, for rows without a setter. */
static void
store(struct prefs *p, const struct opt *o, const union optval *v)
{
	char *at = (char *)p + o->off;

	switch (o->kind) {
	case OK_FLAG:
		*(int *)(void *)at = o->ival;
		break;
	case OK_NUM:
		*(double *)(void *)at = v->num;
		break;
	case OK_INT:
		if (o->ctype == CT_SIZE)
			*(size_t *)(void *)at = (size_t)v->num;
		else if (o->ctype == CT_U64)
			*(uint64_t *)(void *)at = (uint64_t)v->num;
		else
			*(int *)(void *)at = (int)v->num;
		break;
	case OK_BYTES:
		*(size_t *)(void *)at = v->size;
		break;
	case OK_CHOICE:
		*(int *)(void *)at = v->choice;
		break;
	case OK_FIELD:
	case OK_FILE:
	case OK_STR:
		*(const char **)(void *)at = v->str;
		break;
	default:
		break;
	}
}

/* One option's value into p: read, then the row's setter or store. */
static int
apply(struct prefs *p, struct optstore *own, const struct opt *o,
    const char *arg, struct diag *d)
{
	union optval v;

	memset(&v, 0, sizeof(v));
	if (read_arg(o, arg, &v, d) != 0)
		return d->status;
	if (o->set)
		return o->set(p, own, o, &v, d);
	store(p, o, &v);
	return 0;
}

/* ---- argv ----------------------------------------------------------- */

/* "-o (--output)" or "--eps". */
static void
opt_label(const struct opt *o, char *buf, size_t size)
{
	if (o->shortname)
		snprintf(buf, size, "-%c (--%s)", o->shortname, o->name);
	else
		snprintf(buf, size, "--%s", o->name);
}

/* An option that the command at hand does not take: say whose it is. */
static int
not_taken(const struct opt *o, unsigned mode, struct diag *d)
{
	char lab[64], whose[256] = "";
	unsigned b, left;

	opt_label(o, lab, sizeof(lab));
	left = o->cmds & ~OPT_SIDE;
	for (b = 1; left != 0; b <<= 1) {
		if (!(left & b))
			continue;
		left &= ~b;
		strncat(whose, !*whose ? "" : left ? ", " : " and ",
		    sizeof(whose) - strlen(whose) - 1);
		strncat(whose, options_cmd_name(b),
		    sizeof(whose) - strlen(whose) - 1);
	}
	return diag_set(d, EXIT_USAGE, "%s is an option of %s, not of %s",
	    lab, whose, options_cmd_name(mode));
}

/* The option getopt could not match: another command's, or unknown. */
static int
unknown(char **argv, unsigned mode, struct diag *d)
{
	const char *arg = argv[optind - 1];
	const struct opt *o = NULL;
	char name[64];
	size_t n;

	/* getopt_long's optopt: a long option's val when it was given a
	 * value it does not take, a short option's letter, else 0. */
	if (optopt >= 256)
		return diag_set(d, EXIT_USAGE, "--%s takes no value: %s",
		    options_table[optopt - 256].name, arg);
	if (optopt)
		o = options_find_short(optopt);
	else if (strncmp(arg, "--", 2) == 0) {
		n = strcspn(arg + 2, "=");
		if (n < sizeof(name)) {
			memcpy(name, arg + 2, n);
			name[n] = '\0';
			o = options_find(name);
		}
	}
	if (o != NULL)
		return not_taken(o, mode, d);
	if (optopt)
		return diag_set(d, EXIT_USAGE, "unknown option -%c; see rladv "
		    "--help", optopt);
	return diag_set(d, EXIT_USAGE, "unknown option %s; see rladv --help",
	    arg);
}

static int
takes_arg(const struct opt *o)
{
	switch (o->kind) {
	case OK_FLAG:
	case OK_MODE:
	case OK_HELP:
	case OK_VERSION:
		return 0;
	default:
		return 1;
	}
}

/* getopt_long's arrays for the rows that the modes m take. */
static void
getopt_arrays(unsigned m, struct option *lo, char *so)
{
	const struct opt *o;
	size_t k = 0;

	*so++ = ':';
	for (o = options_table; o->name; o++) {
		if (!(o->cmds & m))
			continue;
		lo[k].name = o->name;
		lo[k].has_arg = takes_arg(o) ? required_argument : no_argument;
		lo[k].flag = NULL;
		lo[k].val = 256 + (int)(o - options_table);
		if (o->shortname) {
			*so++ = (char)o->shortname;
			if (takes_arg(o))
				*so++ = ':';
		}
		k++;
	}
	*so = '\0';
	memset(&lo[k], 0, sizeof(lo[k]));
}

/*
 * getopt_long takes a unique abbreviation: --output for diff's --outputs.
 * A name that is another option's in full is that option.
 */
static const struct opt *
typed(const struct opt *o, char **argv)
{
	const char *w = argv[optind - 1];
	const struct opt *t;
	char name[64];
	size_t n;

	if (takes_arg(o) && optarg == w)
		w = argv[optind - 2];
	if (strncmp(w, "--", 2) != 0 || (n = strcspn(w + 2, "=")) >=
	    sizeof(name))
		return o;
	memcpy(name, w + 2, n);
	name[n] = '\0';
	return (t = options_find(name)) != NULL ? t : o;
}

struct given {
	const struct opt	*o;
	char			*arg;
};

/*
 * Collects the options that the modes m take, up to the end, --help or
 * --version; returns the count, or -1 with d set (naming mode).
 */
static int
collect(int argc, char **argv, unsigned mode, unsigned m, struct given *g,
    int *meta, struct diag *d)
{
	struct option *lo;
	char *so;
	const struct opt *o;
	size_t rows;
	int ch, n = 0;

	for (rows = 0; options_table[rows].name; rows++)
		;
	lo = diag_calloc(rows + 1, sizeof(*lo));
	so = diag_malloc(2 * rows + 2);
	getopt_arrays(m, lo, so);
	optind = 0;	/* GNU: full reinitialization */
	opterr = 0;
	*meta = 0;
	while ((ch = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (ch == '?') {
			unknown(argv, mode, d);
			n = -1;
			break;
		}
		if (ch == ':') {
			/* "--tokens" where only --tokens-key is taken: the
			 * option named in full, not the abbreviation. */
			o = argv[optind - 1][0] == '-' &&
			    argv[optind - 1][1] == '-' ?
			    options_find(argv[optind - 1] + 2) : NULL;
			if (o != NULL && !(o->cmds & m))
				not_taken(o, mode, d);
			else
				diag_set(d, EXIT_USAGE, "option %s needs a "
				    "value; see rladv --help", argv[optind - 1]);
			n = -1;
			break;
		}
		o = ch >= 256 ? typed(&options_table[ch - 256], argv) :
		    options_find_short(ch);
		if (!(o->cmds & m)) {
			not_taken(o, mode, d);
			n = -1;
			break;
		}
		g[n].o = o;
		g[n++].arg = optarg;
		if (o->kind == OK_HELP || o->kind == OK_VERSION) {
			*meta = o->kind == OK_HELP ? OPT_HELP : OPT_VERSION;
			break;
		}
	}
	free(lo);
	free(so);
	return n;
}

int
optparse_argv(struct prefs *p, struct optstore *own, int argc, char **argv,
    struct diag *d)
{
	struct given *g;
	int i, n, meta, rc = 0;

	g = diag_malloc(((size_t)argc + 1) * sizeof(*g));
	if ((n = collect(argc, argv, p->mode, options_reachable(p->mode), g,
	    &meta, d)) < 0) {
		free(g);
		return d->status;
	}
	/* The mode first, so that every option is judged by it. */
	for (i = 0; i < n; i++)
		if (g[i].o->kind == OK_MODE && (g[i].o->cmds & p->mode))
			p->mode = g[i].o->mode;
	for (i = 0; i < n && rc == 0; i++)
		if (!(g[i].o->cmds & p->mode))
			rc = not_taken(g[i].o, p->mode, d);
	for (i = 0; i < n && rc == 0; i++)
		rc = apply(p, own, g[i].o, g[i].arg, d);
	free(g);
	if (rc != 0 || meta != 0)
		return rc != 0 ? rc : meta;
	if (p->mode == OPT_SIDE && optind < argc)
		return diag_set(d, EXIT_USAGE, "unexpected argument \"%s\" in "
		    "an option string", argv[optind]);
	p->files = argv + optind;
	p->nfiles = (size_t)(argc - optind);
	return 0;
}

/* ---- Words (--from's profiles) -------------------------------------- */

int
optparse_words(struct prefs *p, struct optstore *own,
    const char *const *words, struct diag *d)
{
	const struct opt *o;
	const char *w, *arg;
	int rc;

	for (; (w = *words) != NULL; words++) {
		o = w[1] == '-' ? options_find(w + 2) : options_find_short(w[1]);
		if (o == NULL)
			return diag_set(d, EXIT_USAGE, "internal: no option %s",
			    w);
		arg = takes_arg(o) ? *++words : NULL;
		/* What the command at hand does not take (--no-tokens under
		 * stats) does not apply to it. */
		if (!(o->cmds & options_reachable(p->mode)))
			continue;
		if ((rc = apply(p, own, o, arg, d)) != 0)
			return rc;
	}
	return 0;
}

/* ---- Option strings (diff --a "...") -------------------------------- */

int
optparse_split(const char *s, struct optstore *own, int *argc, char ***argv,
    struct diag *d)
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
	optparse_keep(own, buf);
	optparse_keep(own, v);
	*argc = c;
	*argv = v;
	return 0;
}

/* ---- What the prefs point into --------------------------------------- */

void
optparse_keep(struct optstore *own, void *p)
{
	own->p = diag_realloc(own->p, (own->n + 1) * sizeof(*own->p));
	own->p[own->n++] = p;
}

void
optparse_free(struct optstore *own)
{
	size_t i;

	for (i = 0; i < own->n; i++)
		free(own->p[i]);
	free(own->p);
	own->p = NULL;
	own->n = 0;
}
