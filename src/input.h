/*
 * input.h - several files (plain or gzip, "-" for standard input) read as
 * one stream of lines.  The input owns the memory behind the lines it
 * returns; a line stays valid until input_release() lets it go or
 * input_close().
 */
#ifndef RLADV_INPUT_H
#define RLADV_INPUT_H

#include <stddef.h>

#include "diag.h"

struct input;

struct line {
	const char		*text;	/* without the newline and a final \r */
	size_t			 len;
	const char		*file;	/* name for messages ("<stdin>" for -) */
	unsigned long long	 lineno; /* 1-based, per file */
	size_t			 fileno; /* the file's index in names */
	size_t			 toolong; /* 0, or --max-line, which the line
					     is longer than (input_keep_long) */
	int			 stable; /* always 1: text stays valid until
					    input_release() or input_close() */
};

/* names[0..n-1] are read in order; n == 0 means standard input. */
struct input	*input_open(char *const *names, size_t n, size_t max_line);
/*
 * Next non-blank line: returns 1 and fills ln, 0 at the end of input, or -1
 * with d set (status 1 for truncated or corrupt gzip and over-long lines,
 * 3 for unreadable files).
 */
int		 input_next(struct input *in, struct line *ln, struct diag *d);
/* Whether input_next() would return without waiting for a pipe (it may
 * still open the next file). */
int		 input_ready(struct input *in);
/*
 * Called before the first input_next(): a line longer than max_line ends
 * nothing, input_next() returns it whole with ln->toolong set, for skip
 * mode to reject (input_too_long()).  A pipe's or a gzip file's such line
 * is then read to its end, as any other line.
 */
void		 input_keep_long(struct input *in);
/* When ln is longer than --max-line: sets d (status 1), returns 1. */
int		 input_too_long(const struct line *ln, struct diag *d);
/*
 * Lets go of the lines before keep (NULL: of every line returned): a batch
 * is done.  Without it every line is kept, so a caller that reads a large
 * input line by line releases as it goes.
 */
void		 input_release(struct input *in, const char *keep);
/*
 * The same for a caller that reads ahead of the lines it is done with:
 * keep is a line of file fileno (struct line's), and every line read
 * after it is kept too, in whatever file.
 */
void		 input_release_at(struct input *in, const char *keep,
		    size_t fileno);
/* Total bytes read from the files (compressed size for gzip). */
unsigned long long input_bytes(struct input *in);
void		 input_close(struct input *in);

#endif
