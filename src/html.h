/*
 * html.h - one self-contained HTML page (rladv stats --html, rladv diff
 * --html): text made safe whatever its bytes, the page's frame with its
 * style inline, sections, a table of figures.  The caller owns every
 * string it passes and the FILE, which html_open() opens and
 * html_close() closes; nothing else here allocates.  A Content Security
 * Policy in the page forbids every fetch and every script, so the page
 * cannot reach the network when opened.
 */
#ifndef RLADV_HTML_H
#define RLADV_HTML_H

#include <stddef.h>
#include <stdio.h>

struct diag;

/*
 * Writes n bytes of s as text that is safe inside an element and inside a
 * double- or single-quoted attribute: & < > " ' as entities, control
 * characters (U+0000-U+001F, U+007F-U+009F) as \u00XX the way JSON spells
 * them, every byte that is not part of valid UTF-8 (overlong forms,
 * surrogates, past U+10FFFF, cut sequences) and the noncharacters as
 * U+FFFD.  Returns the number of characters a reader sees.
 */
size_t	html_text(FILE *f, const char *s, size_t n);
/* html_text() of a NUL-terminated string. */
size_t	html_str(FILE *f, const char *s);
/*
 * Like html_text(), showing at most max characters (max >= 1): when the
 * text is longer, its first max - 1 characters and an ellipsis.  An escape
 * is never cut in two.  Returns the characters shown.
 */
size_t	html_text_cut(FILE *f, const char *s, size_t n, size_t max);
/* The characters html_text() would show for s (for layout). */
size_t	html_width(const char *s, size_t n);

/* "rladv CMD: FILE..." ("-" for none) into buf, cut to fit n bytes. */
void	html_title(char *buf, size_t n, const char *cmd,
	    char *const *files, size_t nfiles);
/* The n strings of s joined by sep into buf, cut to fit size bytes. */
void	html_join(char *buf, size_t size, const char *const *s, size_t n,
	    const char *sep);
/*
 * The page of rladv CMD over the files (standard input when none) up to
 * its first heading, titled as html_title() says (escaped here).
 */
void	html_begin(FILE *f, const char *cmd, char *const *files,
	    size_t nfiles);
/* A paragraph of text; cls (a literal class name) may be NULL. */
void	html_para(FILE *f, const char *cls, const char *text);
/*
 * A section with a heading and an optional note under it (NULL: none),
 * then its charts side by side, wrapping, until html_section_end().
 */
void	html_section(FILE *f, const char *heading, const char *note);
void	html_section_end(FILE *f);
/* A two-column table: n names and their values, both text. */
void	html_table(FILE *f, const char *const *name, const char *const *value,
	    size_t n);
/* Closes the page and flushes; returns 0, or -1 when a write failed. */
int	html_end(FILE *f);

/* The page's file ("-": standard output), written beside path and
 * renamed into place by html_close() (outfile.h); NULL with d set
 * (status 3) when it cannot be. */
FILE	*html_open(const char *path, struct diag *d);
/* html_end(), then closes f unless it is standard output, and puts the
 * page in place; returns 0, or 3 with d naming path when a write failed
 * (the half page dropped, as html_abandon() does). */
int	html_close(FILE *f, const char *path, struct diag *d);
/* One part of a page: its sections, drawn from the page's data. */
typedef void html_part(FILE *f, const void *page);
/*
 * The page of rladv CMD over the files: html_begin(), each part of the
 * NULL-ended list on page, in order, then html_close() (its return).
 */
int	html_page(FILE *f, const char *path, const char *cmd,
	    char *const *files, size_t nfiles, html_part *const *part,
	    const void *page, struct diag *d);
/* Drops a page left unfinished (a run that failed), so that no half page
 * passes for a report: a file that path named before stays as it was. */
void	html_abandon(FILE *f, const char *path);

#endif
