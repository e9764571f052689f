/*
 * jsonstr.h - strings written out as JSON or as text for a person.  Each
 * function appends to the caller's buffer, which the caller owns (its
 * growth out of memory ends the process, as diag.h's allocators do).
 */
#ifndef RLADV_JSONSTR_H
#define RLADV_JSONSTR_H

#include <stddef.h>

struct buf;

/*
 * Appends n bytes of s as a JSON string, quotes included, that is one
 * line of valid UTF-8 whatever s holds: control characters, DEL and the
 * C1 controls escaped, a lone surrogate (json_unescape() of "\ud800")
 * as its escape, a byte that is not UTF-8 as U+FFFD.
 */
void	jsonstr_quote(struct buf *b, const char *s, size_t n);
/* The same escapes as text for a person (no quotes; '"' and '\' as they
 * are): a message, a report's label. */
void	jsonstr_text(struct buf *b, const char *s, size_t n);
/* A JSON text whose strings may hold any bytes (cJSON prints them as
 * they are) made valid UTF-8: past ASCII, jsonstr_quote()'s escapes. */
void	jsonstr_fix(struct buf *b, const char *s, size_t n);

#endif
