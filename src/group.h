/*
 * group.h - records gathered into groups and batches (SPEC §2 "Grouping
 * and batches"), and the flat group-order arrays the estimators read.  A
 * gbatch owns copies of its lines, keys and arrays until group_reset().
 */
#ifndef RLADV_GROUP_H
#define RLADV_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "buf.h"
#include "diag.h"
#include "keymap.h"
#include "record.h"

struct brec {
	struct record		 r;	/* keys and runs index the batch's */
	const char		*ptr;	/* the line in place, or NULL: */
	size_t			 text, len;	/* in the text arena */
	const char		*file;
	unsigned long long	 lineno;
	uint32_t		 group;
	int			 dropped;	/* rejected with its group */
};

struct ginfo {
	size_t			 key, keylen;	/* in the keys arena */
	uint64_t		 hash;
	size_t			 count;
	size_t			 first;		/* first record */
	size_t			 last;		/* last record */
	size_t			 block;		/* key-less: its block of G */
};

struct gopts {
	int	unsorted;
	size_t	group_size;	/* 0: any */
	size_t	batch_groups;	/* 0: no limit */
	int	has_batch_key;
	int	stream;	/* every group is a batch of its own */
};

struct seen;	/* group keys that ended, with their lines */

struct gbatch {
	struct gopts	 o;
	struct buf	 text, keys, runs;
	struct brec	*rec;
	size_t		 n, cap;
	struct ginfo	*grp;
	size_t		 ngroups, gcap;
	size_t		*slot;		/* hash table of group indexes */
	size_t		 nslot;
	size_t		 keyless;	/* records so far in key-less mode */
	int		 mode_known, keyless_mode;
	struct seen	*seen;
	/* The view handed to the estimators. */
	size_t		*perm;		/* group order -> record */
	double		*r, *T;
	size_t		*goff;
	uint32_t	*strat, *nstrat;
	uint64_t	*ghash, *tie;
	char		**gname;
	const char	**gfile;
	unsigned long long *gline;
	size_t		 vcap, gvcap;
	size_t		 nstrata;	/* strata in the batch */
};

void	group_init(struct gbatch *b, const struct gopts *o);
/* The bytes of a record's line. */
const char *group_text(const struct gbatch *b, const struct brec *r);
void	group_free(struct gbatch *b);

/*
 * Whether the record (keys and runs in the given scratch buffers) starts
 * a new batch: the batch key changed, or it opens group batch_groups + 1.
 * Call before group_add(); flush the batch first when it says 1.
 */
int	group_boundary(const struct gbatch *b, const struct record *r,
	    const struct buf *keys);
/*
 * Adds a parsed record with its line.  Errors (status 1): a group key that
 * reappears after its group ended, a key-less record without
 * --group-size, a closed group of the wrong size.  *closed is set to the
 * number of records at the tail of the batch that form a group of the
 * wrong size in skip mode (the caller rejects them with group_drop_tail).
 */
int	group_add(struct gbatch *b, const struct record *r,
	    const struct buf *keys, const struct buf *runs, const char *line,
	    size_t len, int stable, const char *file,
	    unsigned long long lineno, struct diag *d);
/* A record was rejected: with key-less blocks it still held its place,
 * so the block it was in comes out short (and is rejected whole). */
void	group_note_reject(struct gbatch *b);
/* Checks every group's size (at the end of a batch); in skip mode marks
 * bad groups dropped and returns 0 with *ndropped set, else an error. */
int	group_check_sizes(struct gbatch *b, int skip, size_t *ndropped,
	    struct diag *d);
/* Fills v with the batch in group order (dropped records left out). */
void	group_view(struct gbatch *b, struct batch *v, int need_tie);
/* Starts the next batch; batch_key_changed forgets the ended groups. */
void	group_reset(struct gbatch *b, int batch_key_changed);
/* A group's key as people read it, quoted, with its first line. */
void	group_label(const struct gbatch *b, size_t g, struct buf *out);

#endif
