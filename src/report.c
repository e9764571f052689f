/*
 * report.c - --json documents of the reports.  cJSON serves here: the
 * trees are small (a few figures per stratum), unlike the records, which
 * are never parsed into one (DESIGN.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "report.h"

void
report_json_init(void)
{
	static cJSON_Hooks hooks = { diag_malloc, free };

	cJSON_InitHooks(&hooks);
}

int
report_json_print(struct cJSON *root)
{
	char *s = cJSON_Print(root);
	int rc;

	/* A text file ends in a newline; cJSON_Print() leaves it out. */
	rc = fputs(s, stdout) == EOF || putchar('\n') == EOF;
	free(s);
	cJSON_Delete(root);
	return rc;
}
