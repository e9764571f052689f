/*
 * indexcol.h - the columns of an index's record lines (index.h): one row
 * each in indexcol_table, with how a record writes it and reads it back.
 * The functions write into the caller's buffers and own nothing.
 */
#ifndef RLADV_INDEXCOL_H
#define RLADV_INDEXCOL_H

#include <stddef.h>

#include "buf.h"
#include "options.h"
#include "record.h"

/* The key columns: one key of the record each (key_ref()). */
enum colkey { K_NONE, K_GROUP, K_STRATUM, K_BATCH, K_ROLLOUT };

struct column {
	const char	*name;
	unsigned	 need;	/* an estimator flag (ADV_*): written only for
				   estimators that have it; 0: always */
	enum colkey	 key;	/* a key column's key; put, get NULL */
	/* The record's line: for its hash (put_tie()) */
	void		(*put)(struct buf *o, const struct record *r,
			    const char *keys, const char *line, size_t len);
	/* 0, or -1 when the text is not the column's; keys takes what the
	 * record keeps there */
	int		(*get)(const char *s, size_t n, struct record *r,
			    struct buf *keys);
};

/* Room for every column (index.c's reader keeps them in header order). */
#define INDEXCOL_MAX	16

extern const struct column indexcol_table[];
extern const size_t indexcol_n;

/* Whether p's run writes column c. */
int	indexcol_wanted(const struct column *c, const struct prefs *p);
/* Key bytes as index text (tab, newline, backslash and the other
 * control bytes escaped), and back into keys; -1 when not valid. */
void	indexcol_put_bytes(struct buf *o, const char *s, size_t n);
int	indexcol_get_bytes(const char *s, size_t n, struct buf *keys);
/* A decimal count, without sign or leading zero; -1 when not one. */
int	indexcol_count(const char *s, size_t n, unsigned long long *v);
/* Key column k of r (keys: the bytes its offsets index), and back. */
void	indexcol_put_key(struct buf *o, const struct record *r,
	    enum colkey k, const char *keys);
int	indexcol_get_key(const char *s, size_t n, struct record *r,
	    enum colkey k, struct buf *keys);

#endif
