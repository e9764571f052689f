/*
 * group.h - the rules that put records into groups and batches (the
 * man page's INPUT FORMAT): contiguous groups or --unsorted, key-less
 * blocks of --group-size, a group that comes back after it ended, the
 * sizes of groups, and where a batch ends.  A grouping owns the keys of
 * the groups that ended until group_free(); the records go to the
 * caller's batch (batch.h).
 */
#ifndef RLADV_GROUP_H
#define RLADV_GROUP_H

#include <stddef.h>

#include "batch.h"
#include "buf.h"
#include "diag.h"
#include "keymap.h"
#include "record.h"

struct gopts {
	int	unsorted;
	size_t	group_size;	/* 0: any */
	size_t	batch_groups;	/* 0: no limit */
	int	has_batch_key;
	int	stream;	/* every group is a batch of its own */
	int	skip;	/* --on-error skip: the first whole group, not the
			   first record, says whether records have keys */
	int	traj;	/* a response is a trajectory (--trajectory-key):
			   the sizes count them */
};

/* Why a batch ends before a record (group_boundary()). */
enum group_cut {
	GROUP_NONE,	/* it does not: the record joins the batch */
	GROUP_STREAM,	/* a group ends, and is handed over alone (stream) */
	GROUP_COUNT,	/* the record would open group --batch-groups + 1 */
	GROUP_KEY,	/* the batch key changed */
	GROUP_SPLIT	/* it changed inside a group: group_split() says why
			   the record is refused */
};

struct grouping {
	struct gopts	 o;
	struct keymap	 open;		/* --unsorted: the batch's group keys,
					   values: their groups */
	struct keymap	 ended;		/* keys of groups that ended, values:
					   where they were */
	size_t		 open_k;	/* the open contiguous group's key in
					   ended (added as it opened), or
					   KEYMAP_NONE */
	size_t		 keyless;	/* records so far in key-less mode */
	size_t		 block;		/* key-less: the last group's block */
	int		 keyless_mode;	/* the last record accepted had no key */
	int		 settled;	/* keyless_mode holds from now on */
	size_t		 groups;	/* groups of the batch so far, parts
					   handed over included (stream) */
	/* Skip mode (the caller's, or NULL): groups with a trajectory that
	 * ended wrong or lost a row, by their first record, with why; the
	 * caller rejects them whole (group_taint()). */
	struct diag_groups *bad;
	/* The group group_boundary() found the record at seen_r joins,
	 * while the batch held seen_n records: group_add() of that record
	 * next takes it as it is (NULL: none). */
	const struct record *seen_r;
	size_t		 seen_n;
	long		 seen_g;
	uint64_t	 seen_h;	/* seen_g < 0, keyed and sorted: its
					   key's hash */
};

void	group_init(struct grouping *gs, const struct gopts *o);
void	group_free(struct grouping *gs);

/*
 * Whether the record (keys in the given scratch buffer) ends the batch b
 * before it, and why.  Call before group_add() of the same record; when
 * it says so, hand the batch over and call group_reset() with what it
 * said.  The one place that compares batch keys.
 */
enum group_cut group_boundary(struct grouping *gs, const struct gbatch *b,
	    const struct record *r, const struct buf *keys);
/* The error for a record group_boundary() found GROUP_SPLIT (status 1):
 * its group's records would be in two batches. */
int	group_split(const struct grouping *gs, const struct gbatch *b,
	    const struct record *r, const struct buf *keys, const char *file,
	    unsigned long long lineno, struct diag *d);
/*
 * Adds a parsed record with its line to b, in its group: the one that
 * group_boundary() found for it when that was the last call for a record
 * (group_note_reject() says it was not added).  Errors (status 1): a
 * group key that reappears after its group ended, a key-less record
 * without --group-size, a record with a key among key-less ones or the
 * other way round.
 */
int	group_add(struct grouping *gs, struct gbatch *b, const struct record *r,
	    const struct buf *keys, const struct buf *runs, const char *line,
	    size_t len, int stable, const char *file,
	    unsigned long long lineno, struct diag *d);
/* A line at file:lineno was rejected (skip mode): when a trajectory of
 * b's last group may go on past it, that group goes to gs->bad. */
void	group_taint(const struct grouping *gs, const struct gbatch *b,
	    const char *file, unsigned long long lineno);
/* At the end of a batch: the trajectory of its last row ended right
 * (status 1 otherwise, or in skip mode its group goes to gs->bad). */
int	group_end(const struct grouping *gs, const struct gbatch *b,
	    struct diag *d);
/* A record was rejected: with key-less blocks it still held its place,
 * so the block it was in comes out short (and is rejected whole). */
void	group_note_reject(struct grouping *gs);
/*
 * Checks every group's size against --group-size (at the end of a
 * batch): a wrong one is an error, or, in skip mode, is dropped from b
 * with *ndropped counting its records.
 */
int	group_check_sizes(const struct grouping *gs, struct gbatch *b,
	    int skip, size_t *ndropped, struct diag *d);
/* The error of group g, whose size is not --group-size (status 1), its
 * message ended by tail ("" or, say, "; rejected whole"). */
int	group_size_error(const struct grouping *gs, const struct gbatch *b,
	    size_t g, const char *tail, struct diag *d);
/* Empties b for the next batch, after a cut; GROUP_KEY forgets the
 * groups that ended (a prompt may come back at the next step). */
void	group_reset(struct grouping *gs, struct gbatch *b, enum group_cut cut);

#endif
