/*
 * opthelp.h - the option table (options.h) as --help prints it: a
 * section at a time, one row per option with its argument or choices, the
 * text wrapped at 79 columns.  Nothing to own: the text goes to the
 * caller's FILE.
 */
#ifndef RLADV_OPTHELP_H
#define RLADV_OPTHELP_H

#include <stdio.h>

/* The rows that mode takes (and the modes its options select: diff
 * --outputs), under their section titles. */
void	opthelp_print(FILE *f, unsigned mode);

#endif
