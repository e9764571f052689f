/*
 * stats_text.h - rladv stats for people: the figures of a struct stats as
 * aligned text, with bars, on standard output.  It reads s and owns
 * nothing of it.
 */
#ifndef RLADV_STATS_TEXT_H
#define RLADV_STATS_TEXT_H

#include "stats.h"

void	stats_text(const struct stats *s);

#endif
