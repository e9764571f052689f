/*
 * outfile.h - the files rladv writes (-o, --rejects, --html, an index).
 * Before anything is opened, no output may be the same file as an input
 * or as another output.  A regular file is written to a temporary file
 * beside it and renamed into place only when the run succeeds, so a
 * failed, interrupted or killed run never leaves a partial file, and the
 * file it would have replaced stays as it was.  Devices, pipes and
 * standard output are written as they are.  This module owns the
 * temporary files (and their names) from outfile_open() until
 * outfile_close(); the caller owns the descriptor or FILE in between.
 */
#ifndef RLADV_OUTFILE_H
#define RLADV_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "diag.h"

/* An output for outfile_check(): its option's name and its path ("-":
 * standard output). */
struct outname {
	const char	*opt;
	const char	*path;
};

/*
 * Refuses (status 2, saying what to type) an output that is the same
 * file as an input or as another output: the same device and inode, or,
 * for a file not there yet, the same directory and name.  Only regular
 * files (and files to be) are compared: two outputs to /dev/null, or a
 * pipe, lose nothing.  Inputs "-" stand for standard input.
 */
int	outfile_check(char *const *in, size_t nin, const struct outname *out,
	    size_t nout, struct diag *d);

/*
 * Opens path for writing and returns the descriptor ("-", and a path
 * that names the file standard output or standard error already is:
 * that descriptor).  -1 with d set (status 3).
 */
int	outfile_open(const char *path, struct diag *d);
/*
 * Closes fd (a descriptor outfile_open() returned; standard output and
 * error stay open).  ok: the run succeeded, and the file takes the
 * place of path; otherwise the temporary file is removed and path is
 * left as it was.  Returns 0, or status 3 with d set.
 */
int	outfile_close(int fd, int ok, struct diag *d);
/* The same for a stream on such a file: fopen() and fclose(). */
FILE	*outfile_fopen(const char *path, struct diag *d);
int	outfile_fclose(FILE *f, int ok, struct diag *d);

/* Removes every temporary file still open; async-signal-safe (a handler
 * of a fatal signal calls it before the process ends). */
void	outfile_cleanup(void);

#endif
