/* cmd_diff.c - rladv diff (being written). */
#include <stdio.h>

#include "cmd.h"
#include "diag.h"

int
cmd_diff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("rladv: diff is not built yet\n", stderr);
	return EXIT_USAGE;
}
