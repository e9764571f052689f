/*
 * record.h - one input line parsed into the numbers rladv needs and the
 * byte spans it rewrites.  A record owns nothing: its keys and mask runs
 * live in the caller's buffers, its spans index the caller's line.  A
 * record_reader is the caller's (record_reader_new/free); it keeps what
 * it needs of the last line read until the next.
 */
#ifndef RLADV_RECORD_H
#define RLADV_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "diag.h"
#include "fields.h"
#include "json.h"

extern const char *const record_out_names[OUT_NFIELDS];

/* A member of the line that rladv writes (struct record's outs says
 * which the line has). */
struct span {
	size_t	beg, end;	/* value bytes [beg, end) in the line */
	size_t	prev;		/* end of the member before, or after '{' */
};

struct record {
	double		reward;
	double		baseline;	/* with need_baseline, else 0 */
	size_t		L;		/* response length (0 when unknown) */
	size_t		T;		/* trained tokens (1 when L is unknown
					   and the record trains) */
	int		has_len;	/* L came from the record */
	int		has_reward;	/* 0: a trajectory row without one */
	int		unscored;	/* --null-reward unscored: left out of
					   its group's baseline */
	int		has_group;
	size_t		gkey, gkeylen;	/* canonical group key in keys */
	int		has_stratum;
	size_t		skey, skeylen;	/* canonical stratum key in keys */
	int		strat_frac;	/* a stratum value with a fraction */
	int		has_batch;
	size_t		bkey, bkeylen;	/* canonical batch key in keys */
	int		has_roll;	/* --rollout-key: a value at okey
					   (absent or null: a rollout of
					   its own) */
	int		has_traj;	/* --trajectory-key */
	size_t		tkey, tkeylen;	/* canonical trajectory key in keys */
	int		traj_last;	/* --trajectory-last-key: 1 true,
					   0 false; -1 not given */
	int		traj_cont;	/* continues the row before it (set by
					   the grouping, group.c) */
	int		has_step;	/* a "step" or "global_step" seen */
	int		sample_off;	/* --sample-mask-key 0: trains no
					   token and is no sample of the loss
					   (not in the seq modes' count);
					   stays in its group's baseline */
	size_t		wbeg, wlen;	/* its value's bytes in the line */
	signed char	wname;		/* 0: step, 1: global_step */
	signed char	wtype;		/* its enum json_type: a number or a
					   string */
	unsigned char	nrpart;		/* reward parts at rpart */
	char		remove_absent;	/* --remove-key's field is not there
					   (the profile made it optional):
					   not removed */
	unsigned char	has_expect;	/* expect read (--expect-key) */
	unsigned char	roll_030;	/* no --rollout-key field but slime
					   0.3.0's name of it, not null */
	unsigned	unused_mask;	/* bits: mask aliases present, unused
					   (fields_alias(FR_MASK, bit)) */
	int		has_mask;
	size_t		runs, nruns;	/* mask runs in runs (uint32_t):
					   ones, zeros, ones, ... */
	size_t		col, ncol;	/* --columnar: index, columns' length */
	size_t		close;		/* offset of the closing '}' */
	int		nmembers;
	char		comma_space;	/* the input writes ", " */
	char		colon_space;	/* the input writes ": " */
	signed char	alias[FR_NLISTED];	/* name index used per listed
						   role (-1: none) */
	/* Set by a source that knows more than the line (an index, for
	 * rladv compute --index); record_parse() clears them. */
	int		has_tie;	/* tie is the record's identity in its
					   group; else it is the line's hash */
	uint64_t	tie;
	int		elsewhere;	/* another shard's record: only its
					   projection (index.h) is known, no
					   line, spans or runs; not written */
	unsigned	outs;		/* bits 1 << f: the line has the
					   field f rladv writes, at out[f] */
	/* Last: a span is set only where outs has its bit, and a record
	 * is cleared up to here. */
	struct span	out[OUT_NFIELDS];
	/* Past the clearing, each set where its count or flag (above)
	 * says: with the fields' need_parts (gdpo), nrpart doubles in keys
	 * at rpart (unaligned: memcpy them), each reward part as read,
	 * unweighted, NaN where it is null (or the row has no reward);
	 * with has_expect, the framework's advantage, NaN where the record
	 * has none; with has_roll, its rollout's canonical key in keys. */
	size_t		rpart;
	double		expect;
	size_t		okey, okeylen;
};

struct record_reader;

/*
 * A reader of lines by the fields f (which must outlive it).  Returns
 * NULL with d set (status 2) when f names more fields than fit.
 */
struct record_reader *record_reader_new(const struct fields *f,
		    struct diag *d);
void		 record_reader_free(struct record_reader *rd);
/*
 * Reads one line: validates it, finds the members the fields name.
 * Returns how many records the line holds (1, or with --columnar the
 * length of its columns), or -1 with d holding "FILE:LINE: what is
 * wrong".  line must stay valid until the next call.
 */
long		 record_line(struct record_reader *rd, const char *line,
		    size_t len, const char *file, unsigned long long lineno,
		    struct diag *d);
/*
 * Record k of the line last read.  Canonical keys go to keys (bytes,
 * the record's offsets into them from where keys ended at the call),
 * mask runs to runs (uint32_t values, its index of them from the first
 * in runs); on error returns the status.
 */
int		 record_get(struct record_reader *rd, size_t k,
		    struct record *r, struct buf *keys, struct buf *runs,
		    struct diag *d);
/* A line of one record (not --columnar): record_line and record_get in
 * one call. */
int		 record_read(struct record_reader *rd, const char *line,
		    size_t len, const char *file, unsigned long long lineno,
		    struct record *r, struct buf *keys, struct buf *runs,
		    struct diag *d);
/* The same with a reader of its own, made for this one line (a test, a
 * fuzzer): a loop keeps a reader instead. */
int	record_parse(const char *line, size_t len, const struct fields *f,
	    struct record *r, struct buf *keys, struct buf *runs,
	    const char *file, unsigned long long lineno, struct diag *d);
/*
 * Appends the canonical key of a JSON value of type t (n bytes at v, as
 * json_value() found them): a type tag, then the decoded string, or the
 * number's literal text (so that integer ids beyond 2^53 stay distinct),
 * or the literal of a boolean, or the text of anything else without its
 * blanks (outside its strings).
 */
void	record_key_add(struct buf *keys, enum json_type t, const char *v,
	    size_t n);
/* A canonical key as people read it (strips the type tags): any bytes,
 * for a writer that escapes them. */
void	record_key_label(const char *key, size_t len, struct buf *out);
/* The label as a JSON string, quoted and escaped (jsonstr_quote()): one
 * line, whatever the key holds, for messages. */
void	record_key_quote(const char *key, size_t len, struct buf *out);
/* Adds by to the offset of each of r's keys (modulo SIZE_MAX + 1: by's
 * negation moves them back), where its keys move in or to a buffer. */
static inline void
record_keys_move(struct record *r, size_t by)
{
	r->gkey += by;
	r->skey += by;
	r->bkey += by;
	r->tkey += by;
	r->rpart += by;
	r->okey += by;
}

#endif
