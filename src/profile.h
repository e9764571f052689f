/*
 * profile.h - the --from profiles: for each framework's dump, the field
 * paths and rules that read it (a row of options, applied where --from
 * stands, so that options after it override it), what it looks like, and
 * the fields that tell it apart.  The table is static: no caller owns
 * what it returns.
 */
#ifndef RLADV_PROFILE_H
#define RLADV_PROFILE_H

#include <stddef.h>

#include "fields.h"

struct profile {
	const char		*framework;	/* "verl", "TRL", ... */
	const char		*dump;		/* what it reads, in words */
	/* The options it stands for, as words ("--group-key", "uid"). */
	const char *const	*opts;
	/* Top-level fields every record of that dump has. */
	const char *const	*has;
	/* What to give for role hint_role, which it cannot name (TRL's
	 * reward columns), or NULL. */
	int			 hint_role;
	const char		*hint;
	/* A role read by the first of these fields present, or NULL: where
	 * the field depends on a setting of the run (NeMo-RL writes the
	 * trained rewards as filtered_rewards under dynamic sampling). */
	int			 alias_role;
	const char *const	*aliases;
	/* FN() bits of the one-name roles it names whose field a record
	 * may lack (a flag that older releases did not write): absent
	 * reads as not set. */
	unsigned		 optional;
};

/* The rows, and their names in the same order (NULL-ended). */
extern const struct profile profile_table[];
extern const char *const profile_names[];

/* The row of name, or NULL. */
const struct profile *profile_find(const char *name);
/* The profile whose fields the line (a JSON object) has, or NULL. */
const char	*profile_guess(const char *line, size_t len);
/* What a profile's user must give for role, or NULL. */
const char	*profile_hint(const char *name, int role);

#endif
