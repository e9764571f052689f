/*
 * record.h - one input line parsed into the numbers rladv needs and the
 * byte spans it rewrites.  A record owns nothing: its keys and mask runs
 * live in the caller's buffers, its spans index the caller's line.
 */
#ifndef RLADV_RECORD_H
#define RLADV_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "diag.h"
#include "json.h"

#define FIELD_MAXNAMES	8	/* aliases of one field, or stratum parts */

/* Which names stand for which field (SPEC §2), set once from options. */
struct fields {
	const char	*group[FIELD_MAXNAMES];		/* first present wins */
	int		 ngroup;
	const char	*reward[FIELD_MAXNAMES];
	int		 nreward;
	const char	*logprobs[FIELD_MAXNAMES];
	int		 nlogprobs;
	const char	*mask[FIELD_MAXNAMES];
	int		 nmask;
	const char	*stratum[FIELD_MAXNAMES];	/* all parts: composite */
	int		 nstratum;
	const char	*batch;				/* NULL: none */
	const char	*baseline[FIELD_MAXNAMES];	/* remax's */
	int		 nbaseline;
	int		 need_stratum;	/* missing stratum is an error */
	int		 need_baseline;	/* read the baseline (remax) */
	int		 has_cap;	/* --stratum-cap given */
	double		 cap;
};

/* Fields rladv writes, in the order it appends them. */
enum out_field {
	OUT_ADV, OUT_TADV, OUT_W, OUT_TW, OUT_ANN, OUT_NFIELDS
};
extern const char *const record_out_names[OUT_NFIELDS];

struct span {
	size_t	beg, end;	/* value bytes [beg, end) in the line */
	size_t	prev;		/* end of the member before, or after '{' */
	int	present;
};

struct record {
	double		reward;
	double		baseline;	/* with need_baseline, else 0 */
	size_t		L;		/* response length */
	size_t		T;		/* trained tokens */
	int		has_group;
	size_t		gkey, gkeylen;	/* canonical group key in keys */
	int		has_stratum;
	size_t		skey, skeylen;	/* canonical stratum key in keys */
	int		has_batch;
	size_t		bkey, bkeylen;	/* canonical batch key in keys */
	int		has_mask;
	size_t		runs, nruns;	/* mask runs in runs (uint32_t):
					   ones, zeros, ones, ... */
	struct span	out[OUT_NFIELDS];
	size_t		close;		/* offset of the closing '}' */
	int		nmembers;
	char		comma_space;	/* the input writes ", " */
	char		colon_space;	/* the input writes ": " */
	signed char	alias[4];	/* name index used: group, reward,
					   logprobs, mask (-1: none) */
	/* Set by a source that knows more than the line (an index, for
	 * rladv compute --index); record_parse() clears them. */
	int		has_tie;	/* tie is the record's identity in its
					   group; else it is the line's hash */
	uint64_t	tie;
	int		elsewhere;	/* another shard's record: only its
					   projection (index.h) is known, no
					   line, spans or runs; not written */
};

/* Fills f with the default names and aliases of SPEC §2. */
void	record_fields_default(struct fields *f);
/*
 * Parses one line.  Canonical keys go to keys (bytes), mask runs to runs
 * (uint32_t values); on error returns the status with d holding
 * "FILE:LINE: what is wrong".
 */
int	record_parse(const char *line, size_t len, const struct fields *f,
	    struct record *r, struct buf *keys, struct buf *runs,
	    const char *file, unsigned long long lineno, struct diag *d);
/*
 * Appends the canonical key of a JSON value of type t (n bytes at v, as
 * json_value() found them): a type tag, then the decoded string, or the
 * number's literal text (so that integer ids beyond 2^53 stay distinct),
 * or the literal of a boolean, or the text of anything else.
 */
void	record_key_add(struct buf *keys, enum json_type t, const char *v,
	    size_t n);
/* A canonical key as people read it (strips the type tags): any bytes,
 * for a writer that escapes them. */
void	record_key_label(const char *key, size_t len, struct buf *out);
/* The label as a JSON string, quoted and escaped (json_quote()): one
 * line, whatever the key holds, for messages. */
void	record_key_quote(const char *key, size_t len, struct buf *out);

#endif
