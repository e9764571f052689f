/*
 * fieldpath.h - field paths as the options name them: "reward",
 * "reward.score", "content[0]", "a.b[1].c", with the leading '.' that jq
 * writes, and ["a.b"] for a member whose name holds a '.', '[' or ']'.
 * A parsed path points into the text it was parsed from, which the
 * caller owns and keeps; resolving one points into the caller's line.
 */
#ifndef RLADV_FIELDPATH_H
#define RLADV_FIELDPATH_H

#include <stddef.h>

#include "json.h"

#define FPATH_MAXSTEPS	8

/* One step: a member of an object, or an element of an array. */
struct fstep {
	const char	*name;		/* NULL: an index */
	size_t		 len;
	size_t		 index;
};

/* step[0] is the top-level member (always a name). */
struct fpath {
	const char	*text;		/* as the user wrote it */
	int		 nsteps;
	struct fstep	 step[FPATH_MAXSTEPS];
};

/* Why a path found nothing. */
enum fpath_miss {
	FP_FOUND,
	FP_ABSENT,	/* no such member, or the index is past the end */
	FP_NOT_OBJECT,	/* a member of something that is not an object */
	FP_NOT_ARRAY,	/* an element of something that is not an array */
	FP_TWICE	/* the member appears twice in its object */
};

/*
 * Parses text (NUL-ended) into p.  Returns NULL, or what is wrong with it
 * in words (a static string) for a usage error.
 */
const char	*fieldpath_parse(const char *text, struct fpath *p);
/* Whether the path is its top-level member alone. */
int		 fieldpath_plain(const struct fpath *p);
/*
 * Steps 1.. of p inside the value [*beg, *end) (valid JSON, as the member
 * walk found it): on FP_FOUND the span becomes the value the path names
 * and *type its type.  On a miss, *at says which step missed.
 */
enum fpath_miss	 fieldpath_resolve(const struct fpath *p, int from,
		    const char **beg, const char **end, enum json_type *type,
		    int *at);
/*
 * --unwrap: a one-element array [x] becomes x; when arrays_only, only
 * [[...]] becomes [...] (a one-token array of numbers stays as it is).
 * The span and type change in place; returns whether it unwrapped.
 */
int		 fieldpath_unwrap(const char **beg, const char **end,
		    enum json_type *type, int arrays_only);
/*
 * The elements of the array [beg, end) (valid JSON): calls fn for each,
 * with its span, until fn returns nonzero.  Returns the count seen.
 */
size_t		 fieldpath_elements(const char *beg, const char *end,
		    int (*fn)(void *, size_t, const char *, const char *),
		    void *arg);
/*
 * s (n bytes) as a JSON string for a message, quotes included: one line
 * whatever it holds, cut with "..." to fit size (at least 8).
 */
void		 fieldpath_quote(const char *s, size_t n, char *buf,
		    size_t size);
/* The path's first n steps as text ("a.b[1]"), NUL-ended, in buf. */
void		 fieldpath_prefix(const struct fpath *p, int n, char *buf,
		    size_t size);

#endif
