/*
 * batchint.h - what batch.c (a batch's records, held packed) and
 * batch_view.c (their view in group order) share: the batch's insides.
 * Internal to those two files; the gbatch owns everything here.
 */
#ifndef RLADV_BATCHINT_H
#define RLADV_BATCHINT_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "buf.h"
#include "keymap.h"
#include "record.h"

/* How many strata of a group are compared one by one before a hash
 * table takes over: groups have a few strata, tool-call counts. */
#define FEW_STRATA	64

/*
 * A record as the batch holds it, packed into 48 bytes: a whole batch is
 * held, and a struct record (376 bytes) per record made a batch of short
 * records take several times the memory of its text.  Its reward and
 * trained tokens are arrays beside it (rew, Td), which the view lends to
 * the estimators as they are when the records are already in group order;
 * its group key is its group's, its batch key the batch's.  What few
 * records have (spans of fields rladv writes, a tie or elsewhere from an
 * index, a trajectory, a column of a --columnar line, a reward left
 * unscored, sizes past the fields below) makes it keep a whole struct
 * record (full).  A new member of struct record must be packed here or
 * make a record that has it keep a whole one: pack() says which.  (What
 * only the warnings read, as the record joins its batch, is not kept.)
 */
struct hrec {
	union {
		const char	*p;	/* in place */
		size_t		 off;	/* H_COPIED: in the text arena */
	} line;
	uint32_t	 len;		/* the line's length */
	uint32_t	 group;
	uint32_t	 L;		/* response length */
	uint32_t	 runs;		/* H_MASK: its first run in runs */
	uint32_t	 skey;		/* H_STRATUM: its key in keys */
	uint32_t	 full;		/* 0, or 1 + its record in full */
	uint32_t	 alias;		/* FR_NLISTED name indexes + 1, 4 bits
					   each */
	uint16_t	 nruns;
	uint16_t	 skeylen;
	uint8_t		 tail;		/* len - close */
	uint8_t		 nmembers;
	uint8_t		 flags;		/* H_* */
};

enum {
	H_MASK = 1, H_STRATUM = 2, H_COMMA_SPACE = 4, H_COLON_SPACE = 8,
	H_COPIED = 16, H_NOLEN = 32,	/* no response length (has_len 0) */
	H_SAMPLE_OFF = 64,		/* sample_off: its sample mask is 0 */
	H_REMOVE_ABSENT = 128		/* remove_absent */
};

_Static_assert(FR_NLISTED * 4 <= 32 && FIELD_MAXNAMES <= 15,
    "the aliases do not fit struct hrec's alias");

/* The file and line of records first, first + 1, ...: lines come in
 * runs, so a batch needs a few of these, not one per record. */
struct lrun {
	size_t			 first;
	const char		*file;
	unsigned long long	 lineno;
};

/* A key the batch holds once for many records (a group's key, the batch
 * key): its canonical bytes in keys, when the records have it. */
struct hkey {
	int	has;
	size_t	off, len;
};

struct hgrp {
	size_t		first, last;	/* records i */
	size_t		size;		/* responses (a trajectory counts
					   once) */
	size_t		rows;		/* records */
	int		dropped;	/* 1: left out; 2: and listed by
					   batch_rejects() */
	struct hkey	key;
};

struct gbatch {
	struct buf	 text, keys, runs;	/* the records' arenas */
	struct hrec	*rec;
	double		*rew, *Td, *bl;	/* rewards, trained tokens, and
					   baselines (NULL: all 0) */
	double		*rk;		/* [n * K] reward parts (gdpo),
					   NULL: none kept */
	double		*ex;		/* the framework's advantages
					   (NaN: none), NULL: none read */
	uint32_t	*roll;		/* rollouts (struct batch's roll),
					   NULL: no record has one */
	struct keymap	 rolls;		/* their keys */
	size_t		 K;
	size_t		 n, cap;
	struct record	*full;		/* records kept whole */
	size_t		*flen;		/* and their lines' lengths */
	size_t		 nfull, fullcap;
	struct lrun	*lr;
	size_t		 nlr, lrcap;
	struct hgrp	*grp;
	size_t		 ngroups, gcap;
	struct hkey	 bkey;		/* the batch key of every record */
	size_t		 ncont;		/* rows that continue a trajectory */
	size_t		 nunscored;	/* records out of their baselines */
	size_t		 nolen;		/* records without a length */
	size_t		 nstratum;	/* records with a stratum */
	size_t		 bytes;		/* their lines' lengths, summed */
	int		 starts;
	/* The view: arrays of vcap records and gvcap groups (goff one
	 * more), all in one block (vmem, slab.h) but scratch, which
	 * batch_rejects() uses without a view; vhave says which of the
	 * arrays that only some views need the block has.  ident: the
	 * records are in group order already (contiguous groups, none
	 * left out), and perm, order, orow, sorted, r, T and base are not
	 * used. */
	int		 ident;
	void		*vmem;
	unsigned	 vhave;
	size_t		*perm;		/* group order -> record i (a
					   trajectory's last row) */
	size_t		*order;		/* rows in input order -> view k */
	size_t		*orow;		/* rows in input order -> record i */
	size_t		*sorted;	/* the rows in group order */
	size_t		*scratch;	/* batch_rejects()'s records, or
					   each row's view index in
					   batch_view() */
	size_t		 nv;		/* records (responses) in the view */
	size_t		 nrows;		/* rows in the view */
	double		*r, *T, *base;
	double		*rkv;		/* [nv * K] when rk, not ident */
	uint32_t	*rollv;		/* [nv] when roll, not ident */
	unsigned char	*unscored;	/* [nv] when nunscored */
	uint32_t	*strat;
	uint64_t	*tie;
	size_t		*goff;
	uint32_t	*nstrat;
	uint64_t	*ghash;
	size_t		*gidx;
	const char	**gfile;
	unsigned long long *gline;
	size_t		 vcap, gvcap, scap;
	struct keymap	 strata;	/* the strata of a group with many */
};

/* Frees the view's block and its group names (batch_view.c). */
void	batch_view_free(struct gbatch *b);

/* Record i of the view at index k. */
static inline size_t
at(const struct gbatch *b, size_t k)
{
	return b->ident ? k : b->perm[k];
}

#endif
