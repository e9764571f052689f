/*
 * index.h - the index that rladv index writes and rladv compute --index
 * reads: for every record, the projection that every number rladv writes
 * depends on (its shard and line, reward, trained tokens, group, stratum
 * and batch keys, its identity in its group where the estimator needs
 * one, each reward field for gdpo), after a header that records the
 * options.  The writers
 * append to the caller's buffer; an index_reader owns its input and the
 * shard names it returns until index_close().
 *
 * The text, one line each:
 *	rladv-index 1 VERSION		a header: the format, the rladv
 *	option NAME VALUE		each recorded option (options.h)
 *	columns line reward ...		the record columns that follow
 *	shard NAME			a section: one shard, as named
 *	LINE<TAB>REWARD<TAB>...		a record of it, in line order
 *					(tokens: [~]T, or [~]masked where
 *					its sample mask is 0)
 *	LINE<TAB>!			a bad record left out (skip mode)
 *	end COUNT			the section is whole: COUNT lines
 * Sections follow one another, each after a header or another section,
 * so that indexes concatenated by cat are one index.
 */
#ifndef RLADV_INDEX_H
#define RLADV_INDEX_H

#include "buf.h"
#include "diag.h"
#include "options.h"
#include "record.h"

#define INDEX_FORMAT	3
/* What the tokens column says of a record whose sample mask is 0: its T
 * is 0, and it is no sample of the loss. */
#define INDEX_SAMPLE_OFF	"masked"

/*
 * The format of p's index: format 2 marks a record whose sample mask is
 * 0 in its tokens column, where format 1 wrote 0 (and the record then
 * counted as a sample of the loss); format 3 writes an unscored record's
 * (--null-reward unscored) token count, where 1 and 2 wrote 0 (it then
 * trained nothing; it now stays in the loss, as in TRL).  A run without
 * either has no such record: its index is format 1's text and is still
 * written and read as format 1, its bytes as they were; an index of an
 * older format of a run with them cannot say what it needs, and is
 * refused.
 */
static inline int
index_format(const struct prefs *p)
{
	if (p->fields.null_reward == NULL_UNSCORED)
		return 3;
	return p->fields.sample_mask != NULL ? 2 : 1;
}

/* The name a shard goes by in an index: as its input names it in
 * messages ("<stdin>" for -). */
const char *index_shard_name(const char *file);

void	index_put_header(struct buf *out, const struct prefs *p);
void	index_put_shard(struct buf *out, const char *name);
/* A record parsed from line (its keys in keys). */
void	index_put_record(struct buf *out, const struct prefs *p,
	    const struct record *r, const char *keys, const char *line,
	    size_t len, unsigned long long lineno);
void	index_put_rejected(struct buf *out, unsigned long long lineno);
void	index_put_end(struct buf *out, unsigned long long count);

/* What index_next() read. */
enum index_item {
	IX_EOF,		/* the end of the last index */
	IX_SHARD,	/* a section begins (e.shard) */
	IX_RECORD,	/* a record, in r */
	IX_REJECTED,	/* a bad record's place */
	IX_END		/* the section ended whole */
};

struct index_entry {
	const char		*shard;		/* the section's shard */
	unsigned long long	 lineno;	/* its line there */
	const char		*text;		/* IX_RECORD: its columns, as
						   the index line has them */
	size_t			 len;
	unsigned long long	 count;		/* IX_END: the section's lines */
};

struct index_reader;

/*
 * Opens the indexes names[0..n-1] (n 0: standard input), read as one.
 * Every header must record the options of p, else index_next() fails
 * with status 2 naming the first option that differs.
 */
struct index_reader *index_open(const struct prefs *p, char *const *names,
	    size_t n);
/*
 * The next item, or -1 with d set: status 1 for a line that is not of an
 * index, a section cut short, a shard indexed twice; 2 for other options;
 * 3 for an unreadable index.  A record's keys go to keys (r's offsets).
 */
int	index_next(struct index_reader *x, struct index_entry *e,
	    struct record *r, struct buf *keys, struct diag *d);
/* A record line as index_next() read it (e: IX_RECORD, IX_REJECTED). */
void	index_put_line(struct buf *out, const struct index_entry *e);
/* The shards read so far, and the first one's name. */
size_t	index_shards(const struct index_reader *x, const char **first);
/* The name of the column that differs between two record lines (after
 * their line numbers), or NULL when they are equal. */
const char *index_differs(const struct index_reader *x, const char *a,
	    size_t alen, const char *b, size_t blen);
void	index_close(struct index_reader *x);

#endif
