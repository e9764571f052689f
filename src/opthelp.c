/*
 * opthelp.c - --help from the option table: rows by section, each with
 * its names, its argument (or its choices), its text and, for a field,
 * the names it replaces.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "opthelp.h"

#define HELP_COL	28
#define HELP_WIDTH	79

/* Writes the words of s after column *col, wrapping at HELP_WIDTH to
 * HELP_COL; *first: no blank before the next word. */
static void
help_words(FILE *f, const char *s, int *col, int *first)
{
	size_t n;

	for (;;) {
		s += strspn(s, " ");
		if ((n = strcspn(s, " ")) == 0)
			return;
		if (!*first && *col + 1 + (int)n > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_COL, "");
			*col = HELP_COL;
		} else if (!*first) {
			fputc(' ', f);
			(*col)++;
		}
		fwrite(s, 1, n, f);
		*col += (int)n;
		*first = 0;
		s += n;
	}
}

/* "(default: prompt_id, uid, ...)": the names a field row replaces. */
static void
default_names(const struct opt *o, char *buf, size_t size)
{
	struct prefs def;
	const char **names;
	int i, n;

	options_defaults(&def);
	names = (const char **)(void *)((char *)&def + o->off);
	n = *(int *)(void *)((char *)&def + o->off2);
	*buf = '\0';
	for (i = 0; i < n; i++) {
		strncat(buf, i ? ", " : "(default: ", size - strlen(buf) - 1);
		strncat(buf, names[i], size - strlen(buf) - 1);
	}
	if (n > 0)
		strncat(buf, ")", size - strlen(buf) - 1);
}

/* One row: "  -a, --advantage estimator  text" */
static void
help_row(FILE *f, const struct opt *o)
{
	const char *const *c;
	char list[1024];
	size_t n, wide = 0;
	int col, first = 1;

	if (o->shortname)
		col = fprintf(f, "  -%c, --%s", o->shortname, o->name);
	else
		col = fprintf(f, "      --%s", o->name);
	for (c = o->choices; c != NULL && *c; c++)
		wide += 1 + strlen(*c);
	/* Choices too many for one line are named by the argument and
	 * listed in the text. */
	if (o->choices && (o->meta == NULL || col + (int)wide <= HELP_WIDTH))
		for (c = o->choices; *c; c++)
			col += fprintf(f, "%c%s", c == o->choices ? ' ' : '|',
			    *c);
	else if (o->meta)
		col += fprintf(f, " %s", o->meta);
	/* The text from HELP_COL, or two blanks after a long left part. */
	col += fprintf(f, "%*s", col + 2 <= HELP_COL ? HELP_COL - col : 2,
	    "");
	if (o->choices && o->meta && col - 2 + (int)wide > HELP_WIDTH) {
		help_words(f, "one of", &col, &first);
		for (c = o->choices; *c; c++) {
			snprintf(list, sizeof(list), "%s%s", *c, c[1] ? "," :
			    ":");
			help_words(f, list, &col, &first);
		}
	}
	if (o->help)
		help_words(f, o->help, &col, &first);
	if (o->list) {
		options_list(o, o->listdef, list, sizeof(list));
		if (o->alias) {
			strncat(list, "; frameworks' names: ",
			    sizeof(list) - strlen(list) - 1);
			n = strlen(list);
			options_aliases(o, list + n, sizeof(list) - n);
		}
		help_words(f, list, &col, &first);
	}
	if (o->kind == OK_FIELD && o->off2) {
		default_names(o, list, sizeof(list));
		help_words(f, list, &col, &first);
	}
	fputc('\n', f);
}

void
opthelp_print(FILE *f, unsigned mode)
{
	const struct opt *o;
	int s, any;

	mode = options_reachable(mode);
	for (s = 0; s < OS_N; s++) {
		any = 0;
		for (o = options_table; o->name; o++) {
			if (o->section != s || !(o->cmds & mode))
				continue;
			if (!any++)
				fprintf(f, "%s:\n", options_section[s]);
			help_row(f, o);
		}
	}
}

