/*
 * stats_json.h - rladv stats --json: the figures of a struct stats as one
 * JSON document on standard output.  It reads s and owns nothing of it.
 */
#ifndef RLADV_STATS_JSON_H
#define RLADV_STATS_JSON_H

#include "stats.h"

/* Returns 1 when a write failed. */
int	stats_json(const struct stats *s);

#endif
