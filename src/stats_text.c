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

#include "loss_weights.h"
#include "report.h"
#include "stats_html.h"
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
	report_fmt(buf, n, "%.1f%%", den > 0 ? 100 * num / den : NAN);
}

/* A share of two sums (the reward variance's parts), as pct() says it. */
static void
share(char *buf, size_t n, const struct xsum *num, const struct xsum *den)
{
	report_fmt(buf, n, "%.1f%%", den->s > 0 ? 100 *
	    stats_share(num, den) : NAN);
}

/* A figure that may be undefined or past a double, %.6g or "-". */
static const char *
fig(double v)
{
	static char ring[8][32];
	static unsigned next;
	char *b = ring[next++ % 8];

	report_fmt(b, 32, "%.6g", v);
	return b;
}

/*
 * The table of fields used, a line per role: every listed role, and each
 * other role whose field the run read.  Records without a mask train
 * every token unless spans, a prompt length or a sample mask say
 * otherwise; those without the removal field (optional under --from
 * slime) are not removed.
 */
static void
print_fields(const struct stats *s, const struct stats_acc *a)
{
	static const char *const none[FR_NLISTED] = {
		"(none: --group-size blocks)", "(none)", "(none)",
		"(absent: all tokens trained)", "(none)", "(none)" };
	struct stats_use u[STATS_MAXUSE];
	size_t i, k, n = stats_uses(s, a, u);
	int role, cut, width = 9, shown[STATS_NROLES] = { 0 };
	const char *name;

	for (role = 0; role < FR_NLISTED; role++)
		shown[role] = 1;
	/* The names' column fits the longest ("sample_mask"). */
	for (i = 0; i < n; i++) {
		shown[u[i].role] = 1;
		if ((int)strlen(stats_role_names[u[i].role]) >= width)
			width = (int)strlen(stats_role_names[u[i].role]) + 1;
	}
	cut = shown[STATS_SPANS] || shown[STATS_PROMPT_LEN] ||
	    shown[STATS_SAMPLE_MASK] || shown[STATS_REMOVE];
	for (k = 0; k < STATS_NSHOWN; k++) {
		role = stats_role_order[k];
		if (!shown[role])
			continue;
		printf("%-22s %-*s", k ? "" : "fields used", width,
		    stats_role_names[role]);
		for (i = 0; i < n; i++) {
			if (u[i].role != (enum stats_role)role)
				continue;
			if (u[i].name != NULL)
				name = report_text(u[i].name);
			else if (role == STATS_REMOVE)
				name = "(absent: not removed)";
			else if (role == STATS_ROLLOUT)
				name = "(null or absent: one each)";
			else
				name = role == STATS_MASK && cut ?
				    "(absent)" : none[role];
			printf("%s%s %llu", i && u[i - 1].role == u[i].role ?
			    ", " : " ", name, u[i].records);
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
	double smax = 0, n;
	size_t *ix, i;
	char p[32], mean[32], sd[32], name[300], *lab;

	stats_stratum_name(s, a, name, sizeof(name));
	ix = strata_sorted(&a->strata);
	for (i = 0; i < keymap_count(&a->strata); i++)
		if (stats_srecords(a, i) > smax)
			smax = stats_srecords(a, i);
	printf("stratum (%s)\n%-10s %8s %7s %12s %11s\n", report_text(name),
	    "",
	    "records", "share", "reward mean", "reward std");
	for (i = 0; i < keymap_count(&a->strata); i++) {
		m = stats_rewards(a, ix[i]);
		n = stats_srecords(a, ix[i]);
		lab = strata_label_of(&a->strata, ix[i]);
		pct(p, sizeof(p), n, (double)a->records);
		/* A stratum of unscored records alone has no reward. */
		report_fmt(mean, sizeof(mean), "%.4f", m->n > 0 ?
		    strata_mom_mean(m) : NAN);
		report_fmt(sd, sizeof(sd), "%.4f", m->n > 0 ?
		    strata_mom_std(m) : NAN);
		printf("%-10s %8.0f %7s %12s %11s  ", report_text(lab), n, p,
		    mean, sd);
		bar(n / smax, utf8);
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

	pct(p, sizeof(p), (double)a->zero_std, (double)a->scored_groups);
	printf("%-22s %llu of %llu groups%s (%s)  [TRL "
	    "frac_reward_zero_std]\n", "zero reward variance", a->zero_std,
	    a->scored_groups, a->scored_groups < a->groups ? " with a reward" :
	    "", p);
	len = strata_mom_mean(&a->len);
	if (a->len.n == 0)
		printf("%-22s unknown: no log-probs, mask, token ids or "
		    "--length-key\n", "response length T");
	else
		printf("%-22s mean %.1f tokens, CV %.3f\n",
		    "response length T", len, len > 0 ?
		    strata_mom_std(&a->len) / len : 0);
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
	else if (a->pos.n > 0 && a->neg.n > 0)
		printf("%-22s %+.1f tokens\n", "length gap pos - neg", gap);
	else	/* undefined, as the reading below: "-", never left out */
		printf("%-22s -\n", "length gap pos - neg");
	stats_reading_text(a, verdict, cmp, why, sizeof(why));
	printf("%-22s %s\n%-22s (%s; Balanced Aggregation 4.3.3)\n",
	    "reading", verdict, "", cmp);
}

/* Stratified GRPO's figures per stratum, and Theorem 2's split. */
static void
print_stratified(const struct stats *s, const struct stats_acc *a)
{
	const struct stats_pstratum *ps;
	double wsum = 0, rec, tb;
	size_t *ix, i;
	char f[6][32], name[300], *lab;

	stats_stratum_name(s, a, name, sizeof(name));
	for (i = 0; i < keymap_count(&a->strata); i++)
		wsum += stats_pstratum(a, i)->weight;
	printf("Stratified GRPO per stratum (%s)  [Proposition 3: GN = "
	    "alpha_k SAN + offset_k;\n%-22s Theorem 3: weight p_k/(s_k+eps)]\n",
	    report_text(name), "");
	printf("%-10s %7s %8s %8s %8s %9s %7s %7s\n", "stratum", "cells",
	    "alpha_k", "offset", "off rms", "weight", "share", "SAN 0");
	ix = strata_sorted(&a->strata);
	for (i = 0; i < keymap_count(&a->strata); i++) {
		ps = stats_pstratum(a, ix[i]);
		rec = stats_rewards(a, ix[i])->n;
		report_fmt(f[0], 32, "%.4f", ps->alpha / ps->cells);
		report_fmt(f[1], 32, "%+.4f", ps->off / ps->cells);
		report_fmt(f[2], 32, "%.4f", sqrt(ps->off2 / ps->cells));
		report_fmt(f[3], 32, "%.4g", ps->wcells > 0 ? ps->weight /
		    ps->wcells : NAN);
		pct(f[4], 32, ps->weight, wsum);
		pct(f[5], 32, ps->forced, rec);
		lab = strata_label_of(&a->strata, ix[i]);
		printf("%-10s %7.0f %8s %8s %8s %9s %7s %7s\n", report_text(lab),
		    ps->cells,
		    f[0], f[1], f[2], f[3], f[4], f[5]);
		free(lab);
	}
	free(ix);
	pct(f[0], 32, a->p.forced, (double)a->scored);
	printf("%-22s %.0f of %llu %srecords (%s): a cell of one record, or "
	    "of equal rewards\n", "SAN forced to 0", a->p.forced, a->scored,
	    a->scored < a->records ? "scored " : "", f[0]);
	tb = stats_pooled(&a->p.termb_ss, a->scored);
	printf("%-22s Var[A_G] - Var[A_SAN] = Term A + Term B  [Theorem 2]\n"
	    "%-22s %s - %s = %s %c %s\n", "pooled over groups", "",
	    fig(stats_pooled(&a->ss_total, a->scored)),
	    fig(stats_pooled(&a->p.san_ss, a->scored)),
	    fig(stats_pooled(&a->ss_between, a->scored)), tb < 0 ? '-' : '+',
	    fig(fabs(tb)));
}

/* Balanced Aggregation's on-policy loss of every mode. */
static void
print_losses(const struct stats *s, const struct stats_acc *a)
{
	const struct loss_mode *m;
	char v[32];
	size_t k;

	printf("on-policy loss -sum c A T, mean over %zu batch%s  [Balanced "
	    "Aggregation Fig. 2:\n%-22s drifts from 0 under token-mean]\n",
	    s->nbatch, s->nbatch == 1 ? "" : "es", "");
	for (k = 0; k < STATS_NLOSS; k++) {
		if ((m = stats_papers_mode(s->c, k)) == NULL)
			continue;
		report_fmt(v, sizeof(v), "%+.6f", a->p.final[k]);
		printf("%-22s %s%s\n", m->name, v, m == s->c->loss ? "  (-g)" :
		    "");
	}
}

/* MS-GRPO's subgroup moments and advantage change. */
static void
print_msgrpo(const struct stats_acc *a)
{
	const struct stats_papers *p = &a->p;
	double n = p->d.n, ma, mp, va, vp, corr;
	char cs[32];

	printf("MS-GRPO subgroups  [Appendix A, D]: %.0f groups, %.0f past "
	    "--ms-budget\n", p->ms_groups, p->ms_skipped);
	if (p->ms_groups > 0)
		printf("%-22s E_S[sigma_S] %s, sigma_O %s,\n%-22s "
		    "Var_S(mu_S) %s, Var_S(sigma_S) %s\n",
		    "mean per group", fig(xsum_over(&p->es, p->ms_groups)),
		    fig(xsum_over(&p->sigma, p->ms_groups)), "",
		    fig(xsum_over(&p->vmu, p->ms_groups)),
		    fig(xsum_over(&p->vsig, p->ms_groups)));
	if (!(n > 0))
		return;
	ma = p->d.act / n;
	mp = p->d.app / n;
	va = p->d.act2 / n - ma * ma;
	vp = p->d.app2 / n - mp * mp;
	corr = va > 0 && vp > 0 ? (p->d.cross / n - ma * mp) / sqrt(va * vp) :
	    NAN;
	report_fmt(cs, sizeof(cs), "%.4f", corr);
	printf("%-22s actual rms %s, Eq. 10's rms %s over %.0f records\n"
	    "%-22s correlation %s, rms of the error %s\n",
	    "A_MS - A_GRPO", fig(sqrt(p->d.act2 / n)), fig(sqrt(p->d.app2 / n)),
	    n, "", cs, fig(sqrt(p->d.err2 / n)));
}

/* --by-batch: a row per batch, the trend of a run. */
static void
print_by_batch(const struct stats *s)
{
	struct stats_row r;
	char f[9][32], lname[40];
	size_t i, k, mine = STATS_NLOSS;

	for (k = 0; k < STATS_NLOSS; k++)
		if (stats_papers_mode(s->c, k) == s->c->loss)
			mine = k;
	snprintf(lname, sizeof(lname), "loss %s", s->c->loss->name);
	printf("%-10s %8s %8s %10s %8s %9s %9s %8s %12s\n",
	    s->c->fields.batch ? report_text(s->c->fields.batch) : "batch",
	    "records",
	    "reward", "tool calls", "zero-std", "within", "between",
	    "len gap", lname);
	for (i = 0; i < s->nbatch; i++) {
		stats_row_of(&s->batch[i], &r);
		report_fmt(f[0], 32, "%.4f", r.reward);
		report_fmt(f[1], 32, "%.3f", r.tool_calls);
		report_fmt(f[2], 32, "%.1f%%", 100 * r.zero_std);
		report_fmt(f[3], 32, "%.5g", r.within);
		report_fmt(f[4], 32, "%.5g", r.between_var);
		report_fmt(f[5], 32, "%+.1f", r.gap);
		report_fmt(f[6], 32, "%+.6f", mine < STATS_NLOSS ? r.loss[mine] :
		    NAN);
		printf("%-10s %8.0f %8s %10s %8s %9s %9s %8s %12s\n",
		    report_text(r.label),
		    r.records, f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
	}
}

static void
print_acc(const struct stats *s, const struct stats_acc *a, int utf8)
{
	char p[32];

	printf("%-22s %llu\n", "records", a->records);
	printf("%-22s %llu\n", "groups", a->groups);
	if (a->scored < a->records)
		printf("%-22s %llu records of null reward: out of the reward "
		    "figures,\n%-22s in the counts, lengths and losses "
		    "(advantage 0)\n", "unscored", a->records - a->scored, "");
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
	share(p, sizeof(p), &a->ss_between, &a->ss_total);
	printf("%-22s %s = within %s + between %s\n", "total",
	    fig(stats_pooled(&a->ss_total, a->scored)),
	    fig(stats_pooled(&a->ss_within, a->scored)),
	    fig(stats_pooled(&a->ss_between, a->scored)));
	printf("%-22s %s\n", "between-stratum share", p);
	pct(p, sizeof(p), a->share_sum, (double)a->share_groups);
	printf("%-22s %s over %llu groups with variance\n",
	    "mean per group", p, a->share_groups);
	putchar('\n');
	print_stratified(s, a);
	putchar('\n');
	print_losses(s, a);
	if (s->c->est->kind == EST_MSGRPO) {
		putchar('\n');
		print_msgrpo(a);
	}
}

static void
print_batches(const struct stats *s)
{
	const struct stats_acc *a;
	double gap, rel, cv;
	char z[32], b[32], g[32];
	size_t i;

	printf("per batch (%s)\n", s->c->fields.batch ?
	    report_text(s->c->fields.batch) : "number");
	printf("%-10s %8s %7s %9s %9s %7s %9s %9s\n", "batch", "records",
	    "groups", "zero-var", "len mean", "len CV", "len gap",
	    "between");
	for (i = 0; i < s->nbatch; i++) {
		a = &s->batch[i];
		pct(z, sizeof(z), (double)a->zero_std,
		    (double)a->scored_groups);
		share(b, sizeof(b), &a->ss_between, &a->ss_total);
		(void)stats_reading(a, &gap, &rel, &cv);
		if (a->pos.n > 0 && a->neg.n > 0)
			snprintf(g, sizeof(g), "%+.1f", gap);
		else
			snprintf(g, sizeof(g), "-");
		printf("%-10s %8llu %7llu %9s %9.1f %7.3f %9s %9s\n",
		    report_text(a->label),
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

	if (c->by_batch) {
		print_by_batch(s);
		return;
	}
	fputs("rladv stats:", stdout);
	if (c->nfiles == 0)
		fputs(" -", stdout);
	for (i = 0; i < c->nfiles; i++)
		printf(" %s", report_text(c->files[i]));
	printf("\n%-22s %zu", "batches", s->nbatch);
	if (c->fields.batch)
		printf(" (--batch-key %s)", report_text(c->fields.batch));
	else if (c->go.batch_groups)
		printf(" (--batch-groups %zu)", c->go.batch_groups);
	putchar('\n');
	if (c->fields.profile != NULL)
		printf("%-22s --from %s\n", "profile", c->fields.profile);
	else if (s->guess != NULL)
		printf("%-22s --from %s (its fields are here; not used)\n",
		    "looks like", s->guess);
	if (s->rejected)
		printf("%-22s %llu records\n", "rejected", s->rejected);
	putchar('\n');
	if (s->nbatch > 1)
		print_batches(s);
	print_acc(s, &s->total, utf8_locale());
}
