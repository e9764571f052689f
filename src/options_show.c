/*
 * options_show.c - an option's value as rladv index records it (and
 * rladv compute --index compares it): the same text for equal values,
 * written to the caller's buffer, which the caller owns.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "options.h"

int
options_recorded(const struct opt *o)
{
	return (o->cmds & OPT_INDEX) && !o->local && o->kind != OK_HELP &&
	    o->kind != OK_VERSION && o->kind != OK_MODE;
}

static void
show_text(struct buf *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
show_text(struct buf *out, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_add(out, tmp, (size_t)n < sizeof(tmp) ? (size_t)n :
	    sizeof(tmp) - 1);
}

void
options_show_num(struct buf *out, double v)
{
	char tmp[40];
	int digits, n = 0;

	for (digits = 15; digits <= 17; digits++) {
		n = snprintf(tmp, sizeof(tmp), "%.*g", digits, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	buf_add(out, tmp, n);
}

void
options_show_estimator(const struct prefs *p, struct buf *out)
{
	buf_add(out, p->est->name, strlen(p->est->name));
}

void
options_show_loss(const struct prefs *p, struct buf *out)
{
	buf_add(out, p->loss->name, strlen(p->loss->name));
}

/* The preset's row by name and release: it sets values that no row
 * shows. */
void
options_show_like(const struct prefs *p, struct buf *out)
{
	if (p->like == NULL) {
		buf_add(out, "none", 4);
		return;
	}
	buf_add(out, p->like->name, strlen(p->like->name));
	buf_add(out, "@", 1);
	buf_add(out, p->like->release, strlen(p->like->release));
}

/* A scheme's name, or the list of weights. */
void
options_show_ms_weights(const struct prefs *p, struct buf *out)
{
	const struct ms_params *m = &p->ap.ms;
	size_t i;

	if (m->weights != MS_GIVEN) {
		buf_add(out, msgrpo_weights_name(m->weights),
		    strlen(msgrpo_weights_name(m->weights)));
		return;
	}
	for (i = 0; i < m->ngiven; i++) {
		if (i > 0)
			buf_add(out, ",", 1);
		options_show_num(out, m->given[i]);
	}
}

void
options_show_cap(const struct prefs *p, struct buf *out)
{
	if (p->fields.has_cap)
		options_show_num(out, p->fields.cap);
	else
		buf_add(out, "none", 4);
}

/* --from: the profile's name ("none"); its fields are the other rows'. */
void
options_show_from(const struct prefs *p, struct buf *out)
{
	const char *s = p->fields.profile ? p->fields.profile : "none";

	buf_add(out, s, strlen(s));
}

/* --reward-weights: the weights, or "none" (1 each). */
void
options_show_weights(const struct prefs *p, struct buf *out)
{
	int i;

	if (p->fields.nweight == 0)
		buf_add(out, "none", 4);
	for (i = 0; i < p->fields.nweight; i++) {
		if (i > 0)
			buf_add(out, ",", 1);
		options_show_num(out, p->fields.weight[i]);
	}
}

/* A list of names (a field and its aliases), commas in a name escaped. */
static void
show_names(const char *const *names, int n, struct buf *out)
{
	const char *s;
	int i;

	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_add(out, ",", 1);
		for (s = names[i]; *s; s++) {
			if (*s == ',' || *s == '\\')
				buf_add(out, "\\", 1);
			buf_add(out, s, 1);
		}
	}
}

void
options_show(const struct prefs *p, const struct opt *o, struct buf *out)
{
	const char *at = (const char *)p + o->off, *s;

	if (o->show) {
		o->show(p, out);
		return;
	}
	switch (o->kind) {
	case OK_FLAG:
	case OK_CHOICE:
		if (o->choices)
			s = o->choices[*(const int *)(const void *)at];
		else
			s = *(const int *)(const void *)at ? "yes" : "no";
		buf_add(out, s, strlen(s));
		break;
	case OK_NUM:
		options_show_num(out, *(const double *)(const void *)at);
		break;
	case OK_INT:
		if (o->ctype == CT_SIZE)
			show_text(out, "%zu", *(const size_t *)(const void *)at);
		else if (o->ctype == CT_U64)
			show_text(out, "%llu", (unsigned long long)
			    *(const uint64_t *)(const void *)at);
		else
			show_text(out, "%d", *(const int *)(const void *)at);
		break;
	case OK_BYTES:
		show_text(out, "%zu", *(const size_t *)(const void *)at);
		break;
	case OK_FIELD:
	case OK_FILE:
	case OK_STR:
		if (o->off2)
			show_names((const char *const *)(const void *)at,
			    *(const int *)(const void *)((const char *)p +
			    o->off2), out);
		else if ((s = *(const char *const *)(const void *)at) != NULL)
			buf_add(out, s, strlen(s));
		break;
	default:
		break;
	}
}
