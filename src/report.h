/*
 * report.h - what the reports of rladv stats and rladv diff share: which
 * of them goes to standard output beside --html's page, their --json
 * documents, built with cJSON and written to standard output, and a
 * figure as their text prints it, and the labels of their text.  A
 * document given to report_json_print() becomes the callee's to delete;
 * the caller owns the buffers, report_text()'s strings are this module's.
 */
#ifndef RLADV_REPORT_H
#define RLADV_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct cJSON;
struct diag;

/*
 * A command's reports of what it read (rladv stats, rladv diff), on its
 * context x: page writes --html's page into f and closes it
 * (html_close()); json and text write to standard output.
 */
struct report_ops {
	int	(*page)(const void *x, FILE *f, struct diag *d);
	int	(*json)(const void *x);
	void	(*text)(const void *x);
};

/*
 * 0, or status 2 with d set when --html - and --json would both write to
 * standard output; the message says to give the page a file, CMD.html.
 */
int	report_check_outputs(const char *html, int json, const char *cmd,
	    struct diag *d);
/*
 * Whether the text or --json report is written: not when --html's page
 * is standard output (--html -).
 */
int	report_wanted(const char *html);
/*
 * The end of rladv stats and rladv diff, whose log was read with status
 * rc: if that is 0, the page when page (html_open()'s) is not NULL, then
 * the text or the --json report unless the page is standard output.  A
 * page not written is dropped (html_abandon()), and d is printed when
 * the status returned is not 0.  A failed write to standard output shows
 * in ferror(stdout), which run_cmd() checks.
 */
int	report_write(int rc, FILE *page, const char *html, int json,
	    const struct report_ops *ops, const void *x, struct diag *d);
/* Makes cJSON allocate through diag's allocators (out of memory is then
 * exit 3, as everywhere); call before building a document. */
void	report_json_init(void);
/*
 * Writes a document to standard output, pretty-printed with a final
 * newline, and deletes it; returns 1 when a write failed.
 */
int	report_json_print(struct cJSON *root);
/*
 * v printed by the printf format f (one conversion, f, g or e) into buf
 * (n bytes), "-" when it is undefined (NaN) or past a double (Inf); a %f
 * of 1e9 or more as %.4g, so that no figure is hundreds of digits; a
 * value that rounds to zero loses its sign, as "-0.0000" beside a mean
 * of exactly 0 suggests a bias or a drift that is not there ("+" stays
 * when f asks for a sign).
 */
void	report_fmt(char *buf, size_t n, const char *f, double v);
/*
 * s (a key, a file or field name: any bytes) as text on one line for the
 * text report, control characters escaped (jsonstr_text()).  The
 * string stays valid until the eighth call after this one, enough for
 * the arguments of one printf.
 */
const char *report_text(const char *s);

#endif
