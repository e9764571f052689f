/*
 * optparse.h - argv to a struct prefs by the option table (options.h):
 * getopt_long's arrays from the rows, each argument read as its row's kind
 * says, an option of another command refused by name.  What the prefs
 * come to point into (the parts of --stratum-key a,b; the words of an
 * option string) goes to an optstore, which the caller owns and frees.
 */
#ifndef RLADV_OPTPARSE_H
#define RLADV_OPTPARSE_H

#include "diag.h"
#include "options.h"

struct optstore {
	void	**p;
	size_t	  n;
};

#define OPT_HELP	(-1)
#define OPT_VERSION	(-2)

/*
 * Parses argv[1..argc-1] (argv[0] is the command name) as the options of
 * p->mode, taken in order, so that a preset (--like) sets several at its
 * place and an option after it overrides it; an option of another command
 * is a usage error that names it.  An OK_MODE option (diff --outputs)
 * changes p->mode first, wherever it stands.  The files are what is left
 * (none for OPT_SIDE).  Returns 0, OPT_HELP or OPT_VERSION when that
 * option came, or 2 with d saying what to type instead.
 */
int	optparse_argv(struct prefs *p, struct optstore *own, int argc,
	    char **argv, struct diag *d);
/*
 * Applies options given as words ("--group-key", "uid", ...: a --from
 * profile's), each read as from argv; an option the command does not
 * take is left out.
 */
int	optparse_words(struct prefs *p, struct optstore *own,
	    const char *const *words, struct diag *d);
/* Splits an option string (diff --a "...") into words as a shell does
 * with plain words and quotes; *argv[0] is an empty placeholder, and the
 * words and the array go to own. */
int	optparse_split(const char *s, struct optstore *own, int *argc,
	    char ***argv, struct diag *d);
/* Gives p (from malloc) to own. */
void	optparse_keep(struct optstore *own, void *p);
void	optparse_free(struct optstore *own);

#endif
