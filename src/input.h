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
/*
 * Whole lines of one mapped file, for a caller that cuts them on another
 * thread (input_cut).  They are the input's, as input_next()'s lines are;
 * the lines of a span are numbered from 1, and before is how many lines
 * of the file came before the span's first, but for those of the file's
 * earlier spans, which only their cutting counts (so input_next() after
 * a span of the same file numbers its lines as if the spans had none: a
 * caller takes a mapped file in spans to its end, as src/ahead.c does).
 */
struct linespan {
	const char		*p, *end;
	const char		*file;
	size_t			 fileno;
	unsigned long long	 before;
	size_t			 max_line;
	int			 keep_long;
};

/*
 * The next lines, from about want bytes on to a line's end, when the
 * file they are in is mapped: 1 and s filled; 2 when that file is read
 * (input_next() reads it); 0 at the end of input; -1 with d set.
 */
int		 input_span(struct input *in, size_t want, struct linespan *s,
		    struct diag *d);
/*
 * s's next non-blank line from *pos (s->p at first), under input_next()'s
 * rules, numbered by *n (0 at first; it counts the blank lines too):
 * 1 and ln filled, 0 at the span's end, -1 with d set (a line longer
 * than --max-line).
 */
int		 input_cut(const struct linespan *s, const char **pos,
		    unsigned long long *n, struct line *ln, struct diag *d);
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
