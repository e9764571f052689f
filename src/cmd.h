/*
 * cmd.h - the subcommands.  Each takes argv as main got it past the
 * subcommand's name and returns the exit status.
 */
#ifndef RLADV_CMD_H
#define RLADV_CMD_H

int	cmd_compute(int argc, char **argv);
int	cmd_stats(int argc, char **argv);
int	cmd_diff(int argc, char **argv);

#endif
