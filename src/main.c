/*
 * main.c - rladv: subcommand dispatch, as git does it.  A first argument
 * that names no subcommand is the compute filter's.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct {
	const char	*name;
	int		(*fn)(int, char **);
} cmds[] = {
	{ "compute", cmd_compute },
	{ "stats", cmd_stats },
	{ "diff", cmd_diff },
};

int
main(int argc, char **argv)
{
	size_t i;

	/* A closed pipe ends us by SIGPIPE, as it does cat: whatever the
	 * parent set, it never passes for success. */
	signal(SIGPIPE, SIG_DFL);
	if (argc > 1)
		for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (strcmp(argv[1], cmds[i].name) == 0)
				return cmds[i].fn(argc - 1, argv + 1);
	return cmd_compute(argc, argv);
}
