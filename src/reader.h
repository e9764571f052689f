/*
 * reader.h - files read, and gunzipped, by a second thread into blocks
 * of whole lines, so that parsing overlaps reading and inflating.  The
 * reader owns the blocks; a line stays valid until reader_release() lets
 * it go or reader_free().  The file descriptors stay the caller's.
 */
#ifndef RLADV_READER_H
#define RLADV_READER_H

#include <stddef.h>

#include "diag.h"

struct reader;

/* A reader for lines of at most max_line bytes (0: any length). */
struct reader	*reader_new(size_t max_line);
/*
 * Starts reading fd, whose first n bytes (n <= 2) were read already, in
 * first; gzip: they begin gzip data.  canblock: a read may wait for ever
 * (a pipe, a terminal).  0, or a status with d set.
 */
int		 reader_start(struct reader *r, int fd, int canblock, int gzip,
		    const unsigned char *first, size_t n, struct diag *d);
/*
 * The file's next line, without its newline: 1, 0 at its end, or -1
 * when it cannot be read further; *why then says why, without the file's
 * name (status 1: corrupt or truncated gzip, or a line longer than
 * max_line, in the line after the last one returned; 3: I/O).
 */
int		 reader_next(struct reader *r, const char **text, size_t *len,
		    const struct diag **why);
/* Whether reader_next() would return at once (a line, the end or an
 * error), not wait for the file. */
int		 reader_ready(struct reader *r);
/* Stops reading the file, at its end or not; its lines stay. */
void		 reader_stop(struct reader *r);
/* Lets go of the lines before keep; of every line returned when keep is
 * not one of the reader's. */
void		 reader_release(struct reader *r, const char *keep);
/* Bytes read from the files (gzip: compressed). */
unsigned long long reader_bytes(struct reader *r);
void		 reader_free(struct reader *r);

#endif
