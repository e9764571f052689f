/*
 * preset.h - the framework presets of --like: one row per framework and
 * range of its releases, holding the conventions by which rladv
 * reproduces that framework's advantages and loss weights.  The table is
 * static; the caller copies a row's values into its own prefs.
 */
#ifndef RLADV_PRESET_H
#define RLADV_PRESET_H

#include "advantage.h"
#include "advmath.h"
#include "advmath_lw.h"
#include "diag.h"

struct preset {
	const char	*name;		/* --like name */
	const char	*release;	/* the release whose code was read */
	const char	*since;		/* the first release with these rules */
	const char	*estimator;	/* -a when none is given */
	const char	*loss;		/* -g when none is given */
	int		 sample;	/* --std sample */
	double		 eps;		/* --eps */
	unsigned	 single;	/* adv_params' single */
	struct advmath_whiten wh;	/* adv_params' wh */
	int		 rpp_tokens;	/* adv_params' rpp_tokens */
	struct advmath_lw lw;		/* all but max_len */
	double		 rscale, rbias, rclip;	/* adv_params' */
};

/* The newest row of each framework first, then its older rows; ended by
 * a NULL name. */
extern const struct preset preset_table[];

/*
 * The row that "name" or "name@version" selects: the newest for a plain
 * name, else the one whose releases hold version (a prefix such as 0.6
 * stands for every 0.6.x).  An unknown name, a version outside the rows
 * or one that spans two rows is a usage error that says what to type.
 */
int	preset_find(const char *arg, const struct preset **out,
	    struct diag *d);
/* The i-th framework name (the newest rows), NULL past the last. */
const char *preset_name(size_t i);

#endif
