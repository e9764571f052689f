/*
 * strata.h - what rladv stats and rladv diff share about the strata they
 * report: canonical keys (record.h) in a table, each with a value of the
 * caller's type, the order and labels people read them in, the cells of
 * one group (Stratified GRPO), running moments, and the --json writer.
 * A table and a cell set own their memory, strata_val()'s values too,
 * until strata_free() and strata_cells_free(); the arrays and strings
 * that strata_sorted() and strata_label() return are the caller's to free.
 */
#ifndef RLADV_STRATA_H
#define RLADV_STRATA_H

#include <stddef.h>
#include <stdint.h>

struct batch;
struct cJSON;
struct gbatch;

/*
 * Count, mean and sum of squared deviations (Welford): stable in one pass
 * and mergeable, so that batches add up to the total exactly.
 */
struct strata_mom {
	double	n, mean, m2;
	double	sum;	/* exact for integers: strata_mom_mean() */
};

/*
 * Keys to dense indexes 0 .. n - 1 in the order they first came, with
 * open addressing.  Beside each key the table keeps a value of vsize
 * bytes, zeroed when the key is added, so that a command's per-stratum
 * figures grow with the table instead of with a copy of its bookkeeping.
 */
struct strata {
	char		**key;		/* copies, NUL-terminated */
	size_t		 *len;
	uint64_t	 *hash;
	size_t		  n, cap;
	size_t		 *slot;		/* index + 1; 0 is empty */
	size_t		  nslot;
	void		 *val;		/* cap values of vsize bytes */
	size_t		  vsize;
};

#define STRATA_NONE	((size_t)-1)	/* strata_find(): no such key */

/*
 * The strata of one group as the pipeline numbers them (0 .. nstrat - 1,
 * struct batch), each with the table index of its key: the (group,
 * stratum) cells whose means Stratified GRPO subtracts.
 */
struct strata_cells {
	size_t	*cnt;		/* records */
	size_t	*loc;		/* index in the table */
	double	*first;		/* first reward */
	int	*eq;		/* all rewards equal the first */
	double	*sum[2];	/* two sums for the caller, zeroed */
	size_t	 cap;
};

/* An empty table whose values are vsize bytes (0: keys only). */
void	 strata_init(struct strata *t, size_t vsize);
/* The index of key, added when new; *added (if not NULL) says which. */
size_t	 strata_get(struct strata *t, const char *key, size_t len,
	    int *added);
/* The index of key, or STRATA_NONE. */
size_t	 strata_find(const struct strata *t, const char *key, size_t len);
/* The value of index k; strata_get() may move it. */
void	*strata_val(const struct strata *t, size_t k);
void	 strata_free(struct strata *t);

/* Indexes 0 .. n - 1 in reading order: 0, 1, 2 ... >=cap, "(none)". */
size_t	*strata_sorted(const struct strata *t);
/* A canonical key as people read it; "(none)" for the empty key. */
char	*strata_label(const char *key, size_t len);

/*
 * Fills c for group g of v: counts, table indexes (keys added to t as
 * they come), first rewards, whether each cell's rewards are equal.
 */
void	 strata_cells_fill(struct strata_cells *c, struct strata *t,
	    const struct gbatch *b, const struct batch *v, size_t g);
void	 strata_cells_free(struct strata_cells *c);

/*
 * Writes a --json report to standard output, pretty-printed with a final
 * newline, and deletes it; returns 1 when a write failed.
 */
int	 strata_json_print(struct cJSON *root);

void	 strata_mom_add(struct strata_mom *m, double x);
/* The moments of the union of two sets. */
void	 strata_mom_merge(struct strata_mom *m, const struct strata_mom *o);
/* sum / n, not the running mean: exact for integer data. */
double	 strata_mom_mean(const struct strata_mom *m);
/* Population variance and deviation, as the estimators see the spread. */
double	 strata_mom_var(const struct strata_mom *m);
double	 strata_mom_std(const struct strata_mom *m);

#endif
