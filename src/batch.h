/*
 * batch.h - a batch of records as the estimators read it: flat arrays,
 * records in group order.  The arrays belong to whoever filled the struct
 * (the grouping's view); an estimator only reads them.
 */
#ifndef RLADV_BATCH_H
#define RLADV_BATCH_H

#include <stddef.h>
#include <stdint.h>

/* One batch as flat arrays, records in group order. */
struct batch {
	size_t		 n;		/* records */
	size_t		 ngroups;
	const double	*r;		/* rewards [n] */
	const double	*T;		/* trained tokens [n] */
	const size_t	*goff;		/* [ngroups + 1] group offsets */
	const uint32_t	*strat;		/* [n] stratum index in its group */
	const uint32_t	*nstrat;	/* [ngroups] strata in the group */
	const uint64_t	*ghash;		/* [ngroups] group key hashes */
	const uint64_t	*tie;		/* [n] record hashes (MS-GRPO) */
	const char *const *gname;	/* [ngroups] group labels, messages */
	const char *const *gfile;	/* [ngroups] file of the first record */
	const unsigned long long *gline; /* [ngroups] its line */
};

#endif
