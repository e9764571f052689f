/* cmd_stats.c - rladv stats (being written). */
#include <stdio.h>

#include "cmd.h"
#include "diag.h"

int
cmd_stats(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("rladv: stats is not built yet\n", stderr);
	return EXIT_USAGE;
}
