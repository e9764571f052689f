/*
 * gunzip.h - decoding of a gzip stream of any number of members, with
 * Intel ISA-L when rladv is built with it (RLADV_ISAL) and zlib
 * otherwise; both give the same bytes.  The decoder owns its state; the
 * bytes in and out stay the caller's.
 */
#ifndef RLADV_GUNZIP_H
#define RLADV_GUNZIP_H

#include <stddef.h>

#include "diag.h"

struct gunzip;

struct gunzip_io {
	const unsigned char	*in;	/* compressed bytes not yet decoded */
	size_t			 avail_in;
	unsigned char		*out;	/* where decoded bytes go next */
	size_t			 avail_out;
};

/* A decoder at the start of a stream; NULL when out of memory. */
struct gunzip	*gunzip_open(void);
/*
 * Decodes until io's input is used up or its output full, advancing both;
 * 0, or a status with d set (1: corrupt data or bytes after the last
 * member, 3: out of memory).  Input need not end on any boundary.
 */
int		 gunzip_run(struct gunzip *g, struct gunzip_io *io,
		    struct diag *d);
/* The input has ended: 0 if it ended after a whole member, else 1 with
 * d set (truncated). */
int		 gunzip_end(struct gunzip *g, struct diag *d);
void		 gunzip_close(struct gunzip *g);
/* "ISA-L" or "zlib": the library that decodes, for --version. */
const char	*gunzip_library(void);

#endif
