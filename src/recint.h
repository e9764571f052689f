/*
 * recint.h - what record.c (the member walk), recname.c (the members'
 * names), recfields.c and rectokens.c (each role's value) share: the
 * reader and the state of the line it read.  Internal to those files;
 * the reader owns everything here.
 */
#ifndef RLADV_RECINT_H
#define RLADV_RECINT_H

#include <stdint.h>
#include <string.h>

#include "fieldpath.h"
#include "mask.h"
#include "record.h"

#define REC_MAXSLOTS	112

/* Slot roles past enum frole's: names watched, not read as a role. */
enum {
	SR_WATCH_MASK = FR_NROLES,	/* a mask alias that is not the mask */
	SR_WATCH_ROLL,			/* slime 0.3.0's name of rollout_id */
	SR_STEP,			/* step, global_step */
	SR_OUT,				/* a field rladv writes */
	SR_NROLES
};

/* One name to look for. */
struct rslot {
	struct fpath	 path;
	int		 role, idx;	/* role, index in its list */
	int		 head;		/* its top-level member */
	int		 next;		/* the next slot of that head, or -1 */
	int		 direct;	/* the member itself, parsed by the
					   walk */
};

/* Slots as bits, two words of them. */
#define REC_SWORDS	((REC_MAXSLOTS + 63) / 64)

/* The bucket of a name of len bytes whose first 8 (zero-padded) are w:
 * mostly a name's alone, where its first byte shared one with its
 * aliases ("reward", "rewards", "response_id", ...). */
static inline unsigned
rhead_hash(uint64_t w, size_t len)
{
	return (unsigned)(((w ^ len) * 0x9e3779b97f4a7c15ULL) >> 56);
}

/* The first 16 bytes of a name of len bytes as two words, zero past
 * the name; avail: the bytes readable at s (16 or more: read at once). */
static inline void
rhead_words(const char *s, size_t len, size_t avail, uint64_t w[2])
{
	if (avail >= 16)
		memcpy(w, s, 16);
	else {
		unsigned char b[16] = { 0 };

		memcpy(b, s, len < 16 ? len : 16);
		memcpy(w, b, 16);
	}
	/* Little-endian: the bytes past the name are the high ones. */
	if (len < 8) {
		w[0] &= ((uint64_t)1 << 8 * len) - 1;
		w[1] = 0;
	} else if (len < 16)
		w[1] &= ((uint64_t)1 << 8 * (len - 8)) - 1;
}

/* A top-level name, and what the line held under it. */
struct rhead {
	const char	*name;
	size_t		 len;
	uint64_t	 w[2];		/* rhead_words() */
	uint64_t	 smask[REC_SWORDS];	/* its slots */
	int		 slot;		/* its first slot */
	int		 wslot;		/* the slot the walk parses it for,
					   or -1 */
	int		 sslot;		/* a step's slot the walk gives it
					   as it is, or -1 */
	int		 next;		/* next head of that hash, + 1 */
	unsigned	 seen;		/* the line (gen) it was seen on */
	const char	*beg, *end;	/* the member's value */
	enum json_type	 type;
	size_t		 prev;		/* end of the member before it */
	size_t		 eoff;		/* --columnar: its elements in elems */
};

enum { RV_NONE, RV_FOUND, RV_MISS };

/* What a slot found for the record at hand. */
struct rval {
	int		 state;
	const char	*beg, *end;
	enum json_type	 type;
	int		 numflags;
	int		 plain;		/* a string parse_value() found
					   without an escape */
	int		 miss, miss_at;	/* RV_MISS: why, at which step */
	int		 bad;		/* a parse for the role failed, */
	enum json_code	 why;		/* why (the log-probs) */
	size_t		 bad_elem;
	const char	*bad_at;
	size_t		 count;		/* array elements */
	struct mask	 m;		/* a mask's runs, in the reader's */
};

struct rlayout {
	size_t	close;
	int	nmembers;
	char	comma_space, colon_space;
};

/* A member's name and its ':' as the line before had them (16 bytes at
 * most, quotes included), and its head: recname_read() knows them again
 * by two compares. */
#define REC_KCACHE	16
struct rkey {
	uint64_t	 w[2], m[2];	/* the bytes, and which count */
	size_t		 n;		/* 0: none */
	size_t		 klen;		/* the name's, without its quotes */
	int		 head;
};

/* The value an unread member i had on the line before (an object, an
 * array or a long string): the same bytes are valid again. */
#define REC_VCMIN	32	/* shorter ones are scanned */
#define REC_VCMAX	4096
struct rvcache {
	struct buf	 b;
	enum json_type	 type;
	int		 misses;	/* in a row; past 16, no more tries */
};

struct record_reader {
	const struct fields	*f;
	struct rslot		 slot[REC_MAXSLOTS];
	int			 nslot;
	int			 rfirst[SR_NROLES], rn[SR_NROLES];
	struct rhead		 head[REC_MAXSLOTS];
	int			 nhead;
	int			 first[256];	/* head by rhead_hash(), + 1 */
	struct rkey		 kc[REC_KCACHE];	/* by member index */
	struct rvcache		 vc[REC_KCACHE];
	/* The slots of the heads the line at hand holds: values() reads
	 * those alone, and the next line clears them to RV_NONE; of them,
	 * those the walk parsed already (pmask). */
	uint64_t		 lmask[REC_SWORDS];
	uint64_t		 pmask[REC_SWORDS];
	uint64_t		 rmask[SR_NROLES][REC_SWORDS];	/* by role */
	/* The line at hand. */
	const char		*line;
	size_t			 len;
	const char		*file;
	unsigned long long	 lineno;
	unsigned		 gen;
	struct rlayout		 lay;
	struct rval		 val[REC_MAXSLOTS];
	struct buf		 runs;		/* masks parsed, then built */
	size_t			 walk_runs;	/* runs.len after the walk */
	struct buf		 elems;		/* --columnar: elements'
						   offsets */
	size_t			 ncol_line;	/* --columnar: the length */
	const char		*col0;		/* and the column that set it */
	size_t			 col0len;
};

/* One record being read. */
struct rctx {
	struct record_reader	*rd;
	const char		*end;
	struct diag		*d;
	size_t			 k;		/* --columnar: the record */
	size_t			 kbase;		/* where the keys ended at
						   record_get() */
};

/* The offset a key appended now has in the record: from where the keys
 * ended at record_get() (ahead.c reads a chunk's records into one pair
 * of buffers). */
#define KEY_AT(c, keys)	((keys)->len - (c)->kbase)

/* "FILE:LINE: ..." (and the record of a columnar line); returns status. */
int	record_err(struct rctx *c, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* recname.c: recname_read() for a name the line before did not have. */
const char	*recname_scan(struct rctx *c, int i, const char *p,
		    char *kbuf, const char **key, size_t *keylen, int *hi,
		    struct json_err *e);

/*
 * The name of member i and the ':' after it, p at its '"': returns the
 * byte after the ':', with the name (decoded into kbuf, of 128 bytes,
 * when escaped) and its head (-1: none), or NULL with *e set.  Lines of
 * one shape name their members alike: a plain name and ':' that member
 * i had on the line before are the same bytes, so they are valid and
 * the head known, by two compares, inline in the walk.
 */
static inline const char *
recname_read(struct rctx *c, int i, const char *p, char *kbuf,
    const char **key, size_t *keylen, int *hi, struct json_err *e)
{
	const struct rkey *k;
	uint64_t w[2];

	if (i < REC_KCACHE && (k = &c->rd->kc[i])->n > 0 &&
	    c->end - p >= 16) {
		memcpy(w, p, 16);
		if ((w[0] & k->m[0]) == k->w[0] &&
		    (w[1] & k->m[1]) == k->w[1]) {
			*key = p + 1;
			*keylen = k->klen;
			*hi = k->head;
			return p + k->n;
		}
	}
	return recname_scan(c, i, p, kbuf, key, keylen, hi, e);
}

/* recfields.c: the roles' values, and what the others share. */
int	recfields_take(struct rctx *c, struct record *r, struct buf *keys,
	    struct buf *runs);
/*
 * The slot that gives a role: the named field (part i of it), or the
 * first alias present.  skip_null: a null alias counts as absent (a
 * log-probs field of null is no length).  -1 when none.  Inline: a
 * record asks it five times.
 */
static inline int
recfields_pick(struct rctx *c, int role, int i, int skip_null)
{
	const struct record_reader *rd = c->rd;
	const struct rval *v;
	uint64_t m;
	int s;

	if ((rd->f->named & FN(role)) != 0 || role >= FR_NLISTED) {
		if (i >= rd->rn[role])
			return -1;
		s = rd->rfirst[role] + i;
		return rd->val[s].state == RV_FOUND ? s : -1;
	}
	/* The role's aliases that the line holds, in their order: mostly
	 * none or one, found without a look at each. */
	for (i = 0; i < REC_SWORDS; i++)
		for (m = rd->lmask[i] & rd->rmask[role][i]; m != 0;
		    m &= m - 1) {
			s = 64 * i + __builtin_ctzll(m);
			v = &rd->val[s];
			if (v->state == RV_FOUND && !(skip_null &&
			    v->type == JSON_NULL))
				return s;
		}
	return -1;
}
/* The slot of a role with one name, which must be there when named:
 * else the error (status); *s is -1 when the role is not asked for. */
int	recfields_needed(struct rctx *c, int role, int *s);
/* The error for a role whose field is not there (part i), listing the
 * names tried and the fields the record has; note follows the name. */
int	recfields_missing(struct rctx *c, int role, int i, const char *note);
int	recfields_type_err(struct rctx *c, const struct rslot *s,
	    const struct rval *v, const char *want);
/* The error for a bad element of the log-probs or the mask. */
int	recfields_value_error(struct rctx *c, const struct rslot *s,
	    const struct rval *v);
/* The error for a line that is not an object (p at its first byte). */
int	recfields_not_object(struct rctx *c, const char *p);

/* rectokens.c: the response length and its trained tokens. */
int	rectokens_take(struct rctx *c, struct record *r, struct buf *runs);

#endif
