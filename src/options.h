/*
 * options.h - the options of the compute filter, parsed from argv or from
 * one option string (rladv diff --a "..."), into a config the caller owns.
 */
#ifndef RLADV_OPTIONS_H
#define RLADV_OPTIONS_H

#include <stddef.h>

#include "advantage.h"
#include "diag.h"
#include "group.h"
#include "loss_weights.h"
#include "record.h"

enum device { DEV_CPU, DEV_CUDA, DEV_AUTO };

struct config {
	const struct estimator	*est;
	struct adv_params	 ap;
	const struct loss_mode	*loss;
	struct advmath_lw	 lp;	/* the loss modes' options */
	int			 scope_group;
	struct fields		 fields;
	struct gopts		 go;
	int			 tokens;	/* not --no-tokens */
	int			 annotate;
	int			 digits;
	const char		*out;		/* -o */
	int			 gzip;		/* -z, or -o FILE.gz */
	int			 gzip_level;
	int			 skip;		/* --on-error skip */
	const char		*rejects;
	size_t			 max_line;
	enum device		 device;
	int			 verbose;
	int			 json;		/* stats, diff: --json */
	char			*skey_copy;	/* owns --stratum-key names */
	char			**files;
	size_t			 nfiles;
};

void	options_defaults(struct config *c);
void	options_free(struct config *c);
/*
 * Parses argv[1..argc-1] (argv[0] is the command name); the files are what
 * is left.  extra, when not NULL, names long options without argument that
 * a subcommand adds ("json"): they set c->json.  Returns 0, or 2 with d
 * saying what to type instead; -1 when --help was asked.
 */
int	options_parse(struct config *c, int argc, char **argv, int allow_files,
	    struct diag *d);
/* Splits a string into words as a shell would for plain words and
 * quotes; *argv is owned by the caller (free the array and argv[0]). */
int	options_split(const char *s, int *argc, char ***argv, struct diag *d);
/* Checks what no single option can (seq-sum-norm needs --max-len...). */
int	options_check(struct config *c, struct diag *d);
/* For options_parse's -1 (--help) and -2 (--version): prints the usage or
 * the version to standard output and returns the exit status. */
int	options_meta(int rc);
/* The usage text of rladv --help. */
extern const char options_usage[];

#endif
