/*
 * report.h - what the reports of rladv stats and rladv diff share: their
 * --json documents, built with cJSON and written to standard output.  A
 * document given to report_json_print() becomes the callee's to delete.
 */
#ifndef RLADV_REPORT_H
#define RLADV_REPORT_H

struct cJSON;

/* Makes cJSON allocate through diag's allocators (out of memory is then
 * exit 3, as everywhere); call before building a document. */
void	report_json_init(void);
/*
 * Writes a document to standard output, pretty-printed with a final
 * newline, and deletes it; returns 1 when a write failed.
 */
int	report_json_print(struct cJSON *root);

#endif
