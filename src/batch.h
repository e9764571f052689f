/*
 * batch.h - a batch: the records of consecutive groups, held until the
 * batch's numbers are known, and the flat arrays in group order that the
 * estimators read.  A gbatch owns its records' keys and mask runs, the
 * lines it had to copy, and the arrays of its view until batch_free();
 * the struct batch that batch_view() fills, and every pointer the
 * functions below return, stay valid until the next batch_add(),
 * batch_view() or batch_reset().
 */
#ifndef RLADV_BATCH_H
#define RLADV_BATCH_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct record;
struct gbatch;		/* the gathered batch; only batch.c sees inside */

/* A record whose rollout field is absent or null: a rollout of its own. */
#define BATCH_ROLL_OWN	UINT32_MAX

/* One batch as flat arrays, records in group order. */
struct batch {
	size_t		 n;		/* records */
	size_t		 ngroups;
	const double	*r;		/* rewards [n] */
	const double	*T;		/* trained tokens [n] */
	const double	*base;		/* baselines [n] (remax), NULL when
					   every one is 0 */
	const double	*rk;		/* [n * K] each record's K reward
					   parts (gdpo), NaN where null;
					   NULL when none are kept */
	size_t		 K;
	const size_t	*goff;		/* [ngroups + 1] group offsets */
	const uint32_t	*strat;		/* [n] stratum index in its group */
	const uint32_t	*nstrat;	/* [ngroups] strata in the group */
	const uint64_t	*ghash;		/* [ngroups] group key hashes, mixed
					   with the batch key's (MS-GRPO) */
	const uint64_t	*tie;		/* [n] record hashes (MS-GRPO) */
	const uint32_t	*roll;		/* [n] each record's rollout
					   (--rollout-key), 0 ..  nroll - 1,
					   or BATCH_ROLL_OWN (none given: a
					   rollout of its own); NULL when no
					   record has one */
	size_t		 nroll;
	const unsigned char *unscored;	/* [n] 1: out of its group's
					   baseline (--null-reward
					   unscored); NULL when none is */
	const char *const *gname;	/* [ngroups] group labels, or NULL:
					   batch_view_label() makes them */
	const struct gbatch *src;	/* the batch viewed (its labels) */
	const size_t	*gidx;		/* [ngroups] the group in src */
	const char *const *gfile;	/* [ngroups] file of the first record */
	const unsigned long long *gline; /* [ngroups] its line */
	/* Record i is record vk[i] of src's view, or, where vk is NULL,
	 * record vbase + i: views of views (bview.h) and a group alone
	 * keep the way back to its line (batch_view_where()). */
	const size_t	*vk;
	size_t		 vbase;
};

struct gbatch	*batch_new(void);
void		 batch_free(struct gbatch *b);

/*
 * Filling a batch (the grouping).  Records are held in input order,
 * numbered from 0 (i below); groups are numbered from 0 in the order they
 * opened (g below).
 */

/*
 * Holds a parsed record, its keys and runs (in the caller's scratch
 * buffers) and its line, in group g: a group already open, or
 * batch_ngroups() to open the next.  A stable line (one that stays valid
 * until batch_reset(), as a mapped file's) is kept by pointer, any other
 * copied.  Returns i.
 */
size_t		 batch_add(struct gbatch *b, const struct record *r,
		    const struct buf *keys, const struct buf *runs,
		    const char *line, size_t len, int stable, const char *file,
		    unsigned long long lineno, size_t g);
size_t		 batch_held(const struct gbatch *b);
size_t		 batch_ngroups(const struct gbatch *b);
/* Group g's canonical key (record.h), "" for a key-less block. */
const char	*batch_gkey(const struct gbatch *b, size_t g, size_t *len);
/* The responses group g holds (a trajectory of several rows is one). */
size_t		 batch_gsize(const struct gbatch *b, size_t g);
/* The file of group g's first record, and the lines of its first and
 * last (last may be NULL). */
const char	*batch_gwhere(const struct gbatch *b, size_t g,
		    unsigned long long *first, unsigned long long *last);
/* Group g as people read it: "\"key\" (line N)" or "block g+1 (line N)". */
void		 batch_glabel(const struct gbatch *b, size_t g, struct buf *out);
/* The batch key of the first record (record.h), "" when none. */
const char	*batch_key(const struct gbatch *b, size_t *len);
/* Leaves group g out of the view (a group of the wrong size, skipped);
 * 0 when it was left out already. */
int		 batch_drop(struct gbatch *b, size_t g);
/* The records left out since the last call, as indexes i: in group
 * order, input order in a group.  Returns their number. */
size_t		 batch_rejects(struct gbatch *b, const size_t **ix);
const char	*batch_hline(const struct gbatch *b, size_t i, size_t *len);
/* Record i: the batch holds records packed, so it is unpacked into tmp
 * (or is one the batch keeps whole); valid until tmp is reused. */
const struct record *batch_hrec(const struct gbatch *b, size_t i,
		    struct record *tmp);
/* Whether record i is another shard's (record.h: elsewhere). */
int		 batch_helsewhere(const struct gbatch *b, size_t i);
size_t		 batch_hgroup(const struct gbatch *b, size_t i);
/*
 * Fills v with the records not left out, in group order (empty groups
 * vanish); need_tie: v->tie too (MS-GRPO).
 */
void		 batch_view(struct gbatch *b, struct batch *v, int need_tie);
/*
 * Group g of v as people read it (batch_glabel()), for a message: v's
 * gname where it has them, else made in out (the caller's, and valid
 * until out changes); "?" when v has neither.
 */
const char	*batch_view_label(const struct batch *v, size_t g,
		    struct buf *out);
/* The file and line (in *line) of record i of v, in group g: its own
 * where v->src has it, else the group's first record's. */
const char	*batch_view_where(const struct batch *v, size_t g, size_t i,
		    unsigned long long *line);
/* A record's identity in its group (v->tie), unless the record brings
 * its own (has_tie): the hash of its line. */
uint64_t	 batch_tie(const char *line, size_t len);
/*
 * Empties the batch for the next one.  starts: the next begins a batch
 * of the input; 0 when a batch is handed over group by group (--scope
 * group streaming) and the next is another part of the same one.
 */
void		 batch_reset(struct gbatch *b, int starts);
/* Whether this batch begins a batch of the input (see batch_reset). */
int		 batch_starts(const struct gbatch *b);

/*
 * Reading a batch (the commands), after batch_view(): the record at
 * index k of the view (group order, 0 .. v->n - 1).
 */
const struct record *batch_rec(const struct gbatch *b, size_t k,
		    struct record *tmp);
int		 batch_elsewhere(const struct gbatch *b, size_t k);
const char	*batch_line(const struct gbatch *b, size_t k, size_t *len);
/* The file and line (in *line) the record came from. */
const char	*batch_where(const struct gbatch *b, size_t k,
		    unsigned long long *line);
/* The framework's advantage it holds (--expect-key), NaN where none:
 * a trajectory's is its last row's. */
double		 batch_expect(const struct gbatch *b, size_t k);
/* The file and *line of the first record whose rollout (--rollout-key)
 * an earlier record of b has, and that rollout's canonical key (b's);
 * NULL when no two records share one. */
const char	*batch_roll_shared(const struct gbatch *b,
		    unsigned long long *line, const char **key, size_t *len);
/* Its canonical stratum key, "" (len 0) when it has none. */
const char	*batch_skey(const struct gbatch *b, size_t k, size_t *len);
/* The view index of the j-th row in input order. */
size_t		 batch_order(const struct gbatch *b, size_t j);
/*
 * The rows of the view in input order, to write them in that order: a
 * view record is one row, or with --trajectory-key each row of its
 * trajectory.  batch_row() gives row j's record i (its own line, spans
 * and tokens: batch_hline(), batch_hrec()) and in *k the view index
 * whose numbers it carries.
 */
size_t		 batch_nrows(const struct gbatch *b);
/* The length of those rows' lines, summed. */
size_t		 batch_bytes(const struct gbatch *b);
/* How many of them are this shard's (not elsewhere, record.h). */
size_t		 batch_nown(const struct gbatch *b);
size_t		 batch_row(const struct gbatch *b, size_t j, size_t *k);
/*
 * Row j at once, for a loop that writes the rows: its record (NULL when
 * it is another shard's), its line in *line and its view index in *k.
 * tmp is cleared (all 0) before the first row and given to nothing else
 * since: a packed record writes only what it may have other than 0 (the
 * rest, what only a record kept whole has, stays 0), not the whole
 * struct.
 */
const struct record *batch_hrow(const struct gbatch *b, size_t j,
		    struct record *tmp, size_t *k, const char **line);
/* How many records held have no response length (record.h: has_len). */
size_t		 batch_nolen(const struct gbatch *b);
/* The last record held (NULL when none), unpacked into tmp, its group,
 * file and line (each may be NULL). */
const struct record *batch_last(const struct gbatch *b, struct record *tmp,
		    size_t *g, const char **file, unsigned long long *lineno);
/* The arena that the keys of the records batch_last() gives index. */
const char	*batch_keys(const struct gbatch *b);
/* The mask runs that batch_rec()'s runs index (output_record()). */
const uint32_t	*batch_runs(const struct gbatch *b);

#endif
