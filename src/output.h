/*
 * output.h - the buffered writer (plain or gzip) and the JSON that rladv
 * adds to a record.  The output owns its buffer; lines and records passed
 * in stay the caller's.
 */
#ifndef RLADV_OUTPUT_H
#define RLADV_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "diag.h"
#include "record.h"

struct output;

/* path NULL or "-": standard output.  gzip: deflate at level. */
struct output	*output_open(const char *path, int gzip, int level,
		    struct diag *d);
int		 output_write(struct output *o, const void *p, size_t n,
		    struct diag *d);
/* Flushes and closes; a failed write or close is status 3.  A file (-o
 * FILE) takes its place only now (outfile.h). */
int		 output_close(struct output *o, struct diag *d);
/* Closes o after a failed run: what was written is dropped, and FILE is
 * left as it was. */
void		 output_abandon(struct output *o);
/* Closes o after bad data stopped rladv compute: on standard output
 * what o holds, the records of the batches before the stop, is written
 * and a gzip stream ended; a file is left as it was, as
 * output_abandon(). */
void		 output_stop(struct output *o);

/*
 * An output in memory, for a thread that formats records while others
 * write them (its bytes grow until output_take() or output_clear());
 * output_free() releases it.
 */
struct output	*output_mem(void);
const char	*output_bytes(const struct output *o, size_t *len);
void		 output_clear(struct output *o);
void		 output_free(struct output *o);
/* Writes what the memory output from holds to o, and empties it. */
int		 output_take(struct output *o, struct output *from,
		    struct diag *d);

/* JSON number with digits significant digits; never -0, NaN or Inf (v
 * must be finite).  buf holds at least 32 bytes; returns the length. */
size_t		 output_number(double v, int digits, char *buf);
/* Appends s as a JSON string (quoted, escaped: jsonstr_quote()). */
void		 output_json_string(struct buf *b, const char *s, size_t n);

struct emit {
	int		 digits;
	int		 tokens;	/* write the two token arrays */
	const char	*annot;		/* "rladv" value, or NULL */
	size_t		 annot_len;
	int		 no_weights;	/* the advantages alone: no loss
					   weight (no token counts) */
	/* The names written (the defaults or --output-names) as JSON
	 * strings, quotes included, from output_names(); NULL:
	 * record_out_names. */
	char		*qname[OUT_NFIELDS];
	size_t		 qlen[OUT_NFIELDS];
	/* Each name as a short record writes it, with the separator
	 * before and the colon after: ", " or ",", then ": " or ":"
	 * (head[f][comma_space + 2 * colon_space]); heads: all fit. */
	char		 head[OUT_ANN][4][32];
	unsigned char	 hlen[OUT_ANN][4];
	int		 heads;
};

/* Sets em's names from names[OUT_NFIELDS] (none when they are the
 * defaults); output_names_free() frees them. */
void	output_names(struct emit *em, const char *const *names);
void	output_names_free(struct emit *em);

/*
 * Writes one record: the input object from its '{', its members byte for
 * byte, the fields rladv writes replaced in place or appended, and a
 * newline.  runs are the record's mask runs (NULL when it has none).
 */
int	output_record(struct output *o, const char *line,
	    const struct record *r, const uint32_t *runs, double adv,
	    double w, const struct emit *em, struct diag *d);

/*
 * --columnar: writes a line of columns holding n records (r[k], with
 * their numbers in adv[k] and w[k]) once, each field rladv writes a
 * column of n values, replaced in place or appended.  Annotations are
 * not written here.
 */
int	output_columns(struct output *o, const char *line,
	    const struct record *const *r, const uint32_t *runs,
	    const double *adv, const double *w, size_t n,
	    const struct emit *em, struct diag *d);

#endif
