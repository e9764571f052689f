/*
 * cmd.h - the commands, and the context of one run of one.  main.c's
 * run_cmd() makes the run and owns it; a command borrows it and returns
 * the exit status.  What a command opens and counts (its output, the
 * pipeline's counts) is the command's own, kept in its context.
 */
#ifndef RLADV_CMD_H
#define RLADV_CMD_H

#include "optparse.h"

struct run {
	struct prefs	 p;	/* what the user asked for */
	struct optstore	 own;	/* the strings p points into */
};

int	cmd_compute(struct run *r);
int	cmd_stats(struct run *r);
int	cmd_diff(struct run *r);
int	cmd_index(struct run *r);

#endif
