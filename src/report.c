/*
 * report.c - which report goes to standard output, --json documents of
 * the reports, and their figures as text.
 * cJSON serves here: the trees are small (a few figures per stratum),
 * unlike the records, which are never parsed into one (DESIGN.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "diag.h"
#include "html.h"
#include "json.h"
#include "jsonstr.h"
#include "report.h"

int
report_check_outputs(const char *html, int json, const char *cmd,
    struct diag *d)
{
	if (html == NULL || !json || strcmp(html, "-") != 0)
		return 0;
	return diag_set(d, EXIT_USAGE, "--html - and --json both write to "
	    "standard output: give the page a file, e.g. --html %s.html",
	    cmd);
}

int
report_wanted(const char *html)
{
	return html == NULL || strcmp(html, "-") != 0;
}

int
report_write(int rc, FILE *page, const char *html, int json,
    const struct report_ops *ops, const void *x, struct diag *d)
{
	if (rc == 0 && page != NULL) {
		rc = ops->page(x, page, d);
		page = NULL;	/* closed, even when not written whole */
	}
	if (rc == 0 && report_wanted(html)) {
		if (json)
			(void)ops->json(x);
		else
			ops->text(x);
	}
	html_abandon(page, html);
	if (rc != 0)
		diag_print(d);
	return rc;
}

void
report_json_init(void)
{
	static cJSON_Hooks hooks = { diag_malloc, free };

	cJSON_InitHooks(&hooks);
}

int
report_json_print(struct cJSON *root)
{
	char *s = cJSON_Print(root);
	struct buf b = { 0 };
	int rc;

	/* Labels are keys of the input, file names, option strings: any
	 * bytes, which cJSON copies into its strings as they are. */
	jsonstr_fix(&b, s, strlen(s));
	/* A text file ends in a newline; cJSON_Print() leaves it out. */
	rc = fwrite(b.p, 1, b.len, stdout) != b.len || putchar('\n') == EOF;
	buf_free(&b);
	free(s);
	cJSON_Delete(root);
	return rc;
}

void
report_fmt(char *buf, size_t n, const char *f, double v)
{
	char g[32], *p;
	const char *c;
	size_t k;

	if (isnan(v) || isinf(v)) {
		snprintf(buf, n, "-");
		return;
	}
	/* %f of 1e308 is 309 digits: past 1e9 the figure goes as %.4g,
	 * with the flags, the width and what follows the conversion. */
	c = f + strcspn(f, ".fgeE");
	if (*c == '.')
		c += 1 + strspn(c + 1, "0123456789");
	k = (size_t)(c - f);
	if (*c == 'f' && fabs(v) >= 1e9 && k < 16 && f[0] == '%') {
		k = strcspn(f, ".f");
		snprintf(g, sizeof(g), "%.*s.4g%s", (int)k, f, c + 1);
		f = g;
	}
	snprintf(buf, n, f, v);
	if (buf[0] != '-')
		return;
	for (p = buf + 1; *p; p++)
		if (*p != '0' && *p != '.' && *p != '%')
			return;
	buf[0] = strchr(f, '+') ? '+' : ' ';
	if (buf[0] == ' ')
		memmove(buf, buf + 1, strlen(buf));
}

const char *
report_text(const char *s)
{
	static struct buf ring[8];
	static unsigned next;
	struct buf *b = &ring[next++ % 8];

	b->len = 0;
	jsonstr_text(b, s, strlen(s));
	buf_add(b, "", 1);
	return b->p;
}
