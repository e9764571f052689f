/*
 * html.c - the page rladv stats --html and rladv diff --html write, and
 * text made safe for it.  Labels come from the records (group and stratum
 * keys, file names): any byte may be in them, and none may break the page
 * or turn into markup.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "html.h"
#include "json.h"
#include "outfile.h"

/* One character of the output as it will be shown. */
struct hchar {
	char	out[8];		/* its bytes in the page, NUL-terminated */
	size_t	in;		/* input bytes it stands for */
	size_t	width;		/* characters a reader sees */
};

static const char replacement[] = "\xef\xbf\xbd";	/* U+FFFD */

/* The next character of s (n > 0 bytes left) as the page shows it. */
static void
next_char(const char *s, size_t n, struct hchar *c)
{
	static const char *const ent[] = { "&amp;", "&lt;", "&gt;", "&quot;",
	    "&#39;" };
	const char *p;
	uint32_t cp;
	size_t len;

	c->width = 1;
	len = json_utf8((const unsigned char *)s, n, &cp);
	if (len == 0) {
		c->in = 1;
		memcpy(c->out, replacement, sizeof(replacement));
		return;
	}
	c->in = len;
	/* strchr() would take U+0126 for '&': ASCII only. */
	if (cp != 0 && cp < 0x80 && (p = strchr("&<>\"'", (int)cp)) != NULL) {
		strcpy(c->out, ent[p - "&<>\"'"]);
		return;
	}
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
		snprintf(c->out, sizeof(c->out), "\\u%04X", (unsigned)cp);
		c->width = 6;
		return;
	}
	/* Noncharacters are parse errors in HTML; nothing a key means. */
	if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe) {
		memcpy(c->out, replacement, sizeof(replacement));
		return;
	}
	memcpy(c->out, s, len);
	c->out[len] = '\0';
}

size_t
html_text(FILE *f, const char *s, size_t n)
{
	struct hchar c;
	size_t i, w = 0;

	for (i = 0; i < n; i += c.in) {
		next_char(s + i, n - i, &c);
		fputs(c.out, f);
		w += c.width;
	}
	return w;
}

size_t
html_str(FILE *f, const char *s)
{
	return html_text(f, s, strlen(s));
}

size_t
html_width(const char *s, size_t n)
{
	struct hchar c;
	size_t i, w = 0;

	for (i = 0; i < n; i += c.in) {
		next_char(s + i, n - i, &c);
		w += c.width;
	}
	return w;
}

size_t
html_text_cut(FILE *f, const char *s, size_t n, size_t max)
{
	struct hchar c;
	size_t i, w = 0;

	if (html_width(s, n) <= max)
		return html_text(f, s, n);
	for (i = 0; i < n; i += c.in) {
		next_char(s + i, n - i, &c);
		if (w + c.width > max - 1)
			break;
		fputs(c.out, f);
		w += c.width;
	}
	fputs("\xe2\x80\xa6", f);	/* U+2026 */
	return w + 1;
}

/* ---- The page ------------------------------------------------------ */

static const char style[] =
"body{margin:0;background:#fff;color:#222;"
"font:14px/1.4 \"DejaVu Sans\",\"Liberation Sans\",Arial,sans-serif}\n"
"main{width:960px;margin:0 auto;padding:16px 20px 32px}\n"
"h1{font-size:20px;margin:0 0 4px}\n"
"h2{font-size:16px;margin:24px 0 4px;border-bottom:1px solid #ccc}\n"
"p{margin:4px 0}\n"
"p.note{color:#555;font-size:13px}\n"
"p.mono{font-family:\"DejaVu Sans Mono\",monospace;font-size:13px;"
"overflow-wrap:anywhere}\n"
".grid{display:flex;flex-wrap:wrap;gap:8px 20px}\n"
"figure{margin:8px 0;width:470px}\n"
"figcaption{color:#555;font-size:12px;padding:0 6px}\n"
"svg.chart{display:block}\n"
"table{border-collapse:collapse;margin:8px 0;font-size:13px}\n"
"td{padding:1px 12px 1px 0;vertical-align:top}\n"
"td:first-child{color:#555;white-space:nowrap}\n";

void
html_join(char *buf, size_t size, const char *const *s, size_t n,
    const char *sep)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    i ? sep : "", s[i]);
}

void
html_title(char *buf, size_t n, const char *cmd, char *const *files,
    size_t nfiles)
{
	size_t len;

	len = (size_t)snprintf(buf, n, "rladv %s: ", cmd);
	if (len >= n)
		return;
	if (nfiles == 0)
		snprintf(buf + len, n - len, "-");
	else
		html_join(buf + len, n - len, (const char *const *)files,
		    nfiles, " ");
}

void
html_begin(FILE *f, const char *cmd, char *const *files, size_t nfiles)
{
	char title[1024];

	html_title(title, sizeof(title), cmd, files, nfiles);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\""
	    "default-src 'none'; style-src 'unsafe-inline'\">\n"
	    "<meta name=\"viewport\" content=\"width=1000\">\n"
	    "<meta name=\"generator\" content=\"rladv\">\n<title>", f);
	html_str(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n"
	    "<h1>", style);
	html_str(f, title);
	fputs("</h1>\n", f);
}

void
html_para(FILE *f, const char *cls, const char *text)
{
	if (cls != NULL)
		fprintf(f, "<p class=\"%s\">", cls);
	else
		fputs("<p>", f);
	html_str(f, text);
	fputs("</p>\n", f);
}

void
html_section(FILE *f, const char *heading, const char *note)
{
	fputs("<section>\n<h2>", f);
	html_str(f, heading);
	fputs("</h2>\n", f);
	if (note != NULL)
		html_para(f, "note", note);
	fputs("<div class=\"grid\">\n", f);
}

void
html_section_end(FILE *f)
{
	fputs("</div>\n</section>\n", f);
}

void
html_table(FILE *f, const char *const *name, const char *const *value,
    size_t n)
{
	size_t i;

	fputs("<table>\n", f);
	for (i = 0; i < n; i++) {
		fputs("<tr><td>", f);
		html_str(f, name[i]);
		fputs("</td><td>", f);
		html_str(f, value[i]);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int
html_end(FILE *f)
{
	fputs("</main>\n</body>\n</html>\n", f);
	return fflush(f) == EOF || ferror(f) ? -1 : 0;
}

int
html_page(FILE *f, const char *path, const char *cmd, char *const *files,
    size_t nfiles, html_part *const *part, const void *page, struct diag *d)
{
	html_begin(f, cmd, files, nfiles);
	for (; *part != NULL; part++)
		(*part)(f, page);
	return html_close(f, path, d);
}

FILE *
html_open(const char *path, struct diag *d)
{
	if (strcmp(path, "-") == 0)
		return stdout;
	/* A temporary file beside path, renamed into place by
	 * html_close() once the page is whole. */
	return outfile_fopen(path, d);
}

int
html_close(FILE *f, const char *path, struct diag *d)
{
	struct diag ignore = { 0 };
	int rc = html_end(f), err = errno;

	if (rc == 0)
		return f == stdout ? 0 : outfile_fclose(f, 1, d);
	if (f != stdout)
		outfile_fclose(f, 0, &ignore);
	return diag_set(d, EXIT_IO, "%s: write error: %s", f == stdout ?
	    "standard output" : path, strerror(err));
}

void
html_abandon(FILE *f, const char *path)
{
	struct diag ignore = { 0 };

	(void)path;
	if (f == NULL || f == stdout)
		return;
	outfile_fclose(f, 0, &ignore);
}
