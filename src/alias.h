/*
 * alias.h - the frameworks' names of the rows of rladv's tables
 * (group_norm for the estimator grpo, token-mean for the loss mode
 * token): one table of static strings, for both tables, nothing to own.
 */
#ifndef RLADV_ALIAS_H
#define RLADV_ALIAS_H

#include <stddef.h>

#define ALIAS_MAX	4	/* names of one row */

/* The tables whose rows have frameworks' names; 0 is none. */
enum alias_of { ALIAS_ESTIMATOR = 1, ALIAS_LOSS };

/* A framework's name, and whose it is. */
struct alias_name {
	const char	*name;
	const char	*who;
};

/* The frameworks' names of one row of a table (group_norm... for grpo). */
struct alias {
	enum alias_of	 of;		/* the table of the row */
	const char	*target;	/* the row's name */
	struct alias_name names[ALIAS_MAX];	/* up to a NULL name */
};

/* One entry per row that has names, a table's together; a NULL target
 * ends it. */
extern const struct alias alias_table[];

/* The target of name among the names of table of, else name. */
const char *alias_resolve(enum alias_of of, const char *name);
/*
 * The row of table (the table of), rows of size bytes, each opening with
 * its name, the last named NULL, that name or a framework's name for it
 * names; NULL when none.
 */
const void *alias_find(enum alias_of of, const void *table, size_t size,
	    const char *name);

#endif
