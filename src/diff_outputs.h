/*
 * diff_outputs.h - rladv diff --outputs: compares two output files and
 * prints their differences.  It owns the files, which it opens, reads and
 * closes; the options stay the caller's.
 */
#ifndef RLADV_DIFF_OUTPUTS_H
#define RLADV_DIFF_OUTPUTS_H

#include "options.h"

/* The files are c's two; returns the exit status (0 equal, 1 not). */
int	diff_outputs(const struct prefs *c, const struct dopts *o);

#endif
