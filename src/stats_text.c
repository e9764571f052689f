/*
 * stats_text.c - rladv stats as text.  Per-batch rows when there are
 * several batches, then the whole input: field names, group sizes,
 * strata, rewards, lengths and the reward variance, each with what it is
 * called in the papers and the trainers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_text.h"

#define BAR_WIDTH	30

static int
utf8_locale(void)
{
	const char *s;

	if ((s = getenv("LC_ALL")) == NULL || *s == '\0')
		if ((s = getenv("LC_CTYPE")) == NULL || *s == '\0')
			s = getenv("LANG");
	return s != NULL && (strcasestr(s, "utf-8") != NULL ||
	    strcasestr(s, "utf8") != NULL);
}

/* A bar of frac * BAR_WIDTH cells: eighth blocks in a UTF-8 locale,
 * '#' elsewhere, so that a pipe into a C-locale tool stays ASCII. */
static void
bar(double frac, int utf8)
{
	static const char *const part[8] = { "", "\u258f", "\u258e",
	    "\u258d", "\u258c", "\u258b", "\u258a", "\u2589" };
	long cells, i;

	if (!(frac > 0))
		return;
	if (frac > 1)
		frac = 1;
	if (!utf8) {
		cells = lround(frac * BAR_WIDTH);
		for (i = 0; i < (cells ? cells : 1); i++)
			putchar('#');
		return;
	}
	cells = lround(frac * BAR_WIDTH * 8);
	if (cells == 0)
		cells = 1;
	for (i = 0; i < cells / 8; i++)
		fputs("\u2588", stdout);
	fputs(part[cells % 8], stdout);
}

static void
pct(char *buf, size_t n, double num, double den)
{
	if (den > 0)
		snprintf(buf, n, "%.1f%%", 100 * num / den);
	else
		snprintf(buf, n, "-");
}

/* The table of fields used, a line per role. */
static void
print_fields(const struct stats *s, const struct stats_acc *a)
{
	static const char *const none[STATS_NROLES] = {
		"(none: --group-size blocks)", "(none)", "(none)",
		"(absent: all tokens trained)", "(none)" };
	struct stats_use u[STATS_MAXUSE];
	size_t i, n = stats_uses(s, a, u);
	int role, said;

	for (role = 0; role < STATS_NROLES; role++) {
		printf("%-22s %-9s", role ? "" : "fields used",
		    stats_role_names[role]);
		said = 0;
		for (i = 0; i < n; i++)
			if (u[i].role == (enum stats_role)role) {
				printf("%s%s %llu", said ? ", " : " ",
				    u[i].name ? u[i].name : none[role],
				    u[i].records);
				said = 1;
			}
		putchar('\n');
	}
}

static void
print_sizes(const struct stats_acc *a, int utf8)
{
	unsigned long long hmax = 0;
	size_t i;
	char p[32];

	for (i = 0; i < a->nhist; i++)
		if (a->hist[i].groups > hmax)
			hmax = a->hist[i].groups;
	printf("%-10s %8s %7s\n", "group size", "groups", "share");
	for (i = 0; i < a->nhist; i++) {
		pct(p, sizeof(p), (double)a->hist[i].groups, (double)a->groups);
		printf("%10zu %8llu %7s  ", a->hist[i].size, a->hist[i].groups,
		    p);
		bar((double)a->hist[i].groups / (double)hmax, utf8);
		putchar('\n');
	}
}

static void
print_strata(const struct stats *s, const struct stats_acc *a, int utf8)
{
	const struct strata_mom *m;
	double smax = 0;
	size_t *ix, i;
	char p[32], *lab;

	ix = strata_sorted(&a->strata);
	for (i = 0; i < keymap_count(&a->strata); i++)
		if (stats_rewards(a, i)->n > smax)
			smax = stats_rewards(a, i)->n;
	printf("stratum (%s)\n%-10s %8s %7s %12s %11s\n", s->stratum, "",
	    "records", "share", "reward mean", "reward std");
	for (i = 0; i < keymap_count(&a->strata); i++) {
		m = stats_rewards(a, ix[i]);
		lab = strata_label_of(&a->strata, ix[i]);
		pct(p, sizeof(p), m->n, (double)a->records);
		printf("%-10s %8.0f %7s %12.4f %11.4f  ", lab, m->n, p,
		    strata_mom_mean(m), strata_mom_std(m));
		bar(m->n / smax, utf8);
		putchar('\n');
		free(lab);
	}
	free(ix);
}

/* Equal rewards, lengths, and the sign-length reading. */
static void
print_lengths(const struct stats_acc *a)
{
	char p[32], verdict[128], cmp[128], why[128];
	double gap, rel, cv, len;

	pct(p, sizeof(p), (double)a->zero_std, (double)a->groups);
	printf("%-22s %llu of %llu groups (%s)  [TRL frac_reward_zero_std]\n",
	    "zero reward variance", a->zero_std, a->groups, p);
	len = strata_mom_mean(&a->len);
	printf("%-22s mean %.1f tokens, CV %.3f\n", "response length T", len,
	    len > 0 ? strata_mom_std(&a->len) / len : 0);
	printf("%-22s %.0f records, mean length ", "positive advantage",
	    a->pos.n);
	printf(a->pos.n ? "%.1f\n" : "-\n", strata_mom_mean(&a->pos));
	printf("%-22s %.0f records, mean length ", "negative advantage",
	    a->neg.n);
	printf(a->neg.n ? "%.1f\n" : "-\n", strata_mom_mean(&a->neg));
	printf("%-22s %llu records\n", "zero advantage", a->zero);
	if (stats_reading(a, &gap, &rel, &cv) != STATS_FAV_NONE)
		printf("%-22s %+.1f tokens (%+.3f of the mean)\n",
		    "length gap pos - neg", gap, rel);
	stats_reading_text(a, verdict, cmp, why, sizeof(why));
	printf("%-22s %s\n%-22s (%s; Balanced Aggregation 4.3.3)\n",
	    "reading", verdict, "", cmp);
}

static void
print_acc(const struct stats *s, const struct stats_acc *a, int utf8)
{
	char p[32];

	printf("%-22s %llu\n", "records", a->records);
	printf("%-22s %llu\n", "groups", a->groups);
	print_fields(s, a);
	putchar('\n');
	print_sizes(a, utf8);
	putchar('\n');
	print_strata(s, a, utf8);
	putchar('\n');
	print_lengths(a);
	putchar('\n');
	printf("reward variance inside groups, pooled (Stratified GRPO "
	    "Theorem 1)\n");
	pct(p, sizeof(p), a->ss_between, a->ss_total);
	printf("%-22s %.6g = within %.6g + between %.6g\n", "total",
	    stats_pooled(a->ss_total, a->records),
	    stats_pooled(a->ss_within, a->records),
	    stats_pooled(a->ss_between, a->records));
	printf("%-22s %s\n", "between-stratum share", p);
	pct(p, sizeof(p), a->share_sum, (double)a->share_groups);
	printf("%-22s %s over %llu groups with variance\n",
	    "mean per group", p, a->share_groups);
}

static void
print_batches(const struct stats *s)
{
	const struct stats_acc *a;
	double gap, rel, cv;
	char z[32], b[32], g[32];
	size_t i;

	printf("per batch (%s)\n", s->c->fields.batch ? s->c->fields.batch :
	    "number");
	printf("%-10s %8s %7s %9s %9s %7s %9s %9s\n", "batch", "records",
	    "groups", "zero-var", "len mean", "len CV", "len gap",
	    "between");
	for (i = 0; i < s->nbatch; i++) {
		a = &s->batch[i];
		pct(z, sizeof(z), (double)a->zero_std, (double)a->groups);
		pct(b, sizeof(b), a->ss_between, a->ss_total);
		if (stats_reading(a, &gap, &rel, &cv) != STATS_FAV_NONE)
			snprintf(g, sizeof(g), "%+.1f", gap);
		else
			snprintf(g, sizeof(g), "-");
		printf("%-10s %8llu %7llu %9s %9.1f %7.3f %9s %9s\n", a->label,
		    a->records, a->groups, z, strata_mom_mean(&a->len), cv, g,
		    b);
	}
	putchar('\n');
}

void
stats_text(const struct stats *s)
{
	const struct prefs *c = s->c;
	size_t i;

	fputs("rladv stats:", stdout);
	if (c->nfiles == 0)
		fputs(" -", stdout);
	for (i = 0; i < c->nfiles; i++)
		printf(" %s", c->files[i]);
	printf("\n%-22s %zu", "batches", s->nbatch);
	if (c->fields.batch)
		printf(" (--batch-key %s)", c->fields.batch);
	else if (c->go.batch_groups)
		printf(" (--batch-groups %zu)", c->go.batch_groups);
	putchar('\n');
	if (s->rejected)
		printf("%-22s %llu records\n", "rejected", s->rejected);
	putchar('\n');
	if (s->nbatch > 1)
		print_batches(s);
	print_acc(s, &s->total, utf8_locale());
}
