/*
 * group.c - groups and batches.
 *
 * Records arrive in input order.  By default a group's records are
 * contiguous, so a group ends when its key changes, and a key that comes
 * back later is refused: it would silently split a group.  --unsorted
 * gathers groups anywhere in the batch through a hash table.  Without a
 * group key, --group-size cuts the input into blocks by position.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "group.h"

/* Where a group that ended was, for the message when it comes back. */
struct ended {
	const char		*file;
	unsigned long long	 first, last;
};

void
group_init(struct grouping *gs, const struct gopts *o)
{
	memset(gs, 0, sizeof(*gs));
	gs->o = *o;
	keymap_init(&gs->open, sizeof(size_t));
	keymap_init(&gs->ended, sizeof(struct ended));
	gs->open_k = KEYMAP_NONE;
}

void
group_free(struct grouping *gs)
{
	keymap_free(&gs->open);
	keymap_free(&gs->ended);
}

/*
 * Two canonical keys are equal (an empty one may have no bytes at all).
 * Inline, and 8 to 16 bytes (a prompt id) by two loads of each that may
 * overlap: a record's key is compared with its group's at every record,
 * where a call of memcmp() cost more than the compare.
 */
static inline int
keyeq(const char *a, size_t alen, const char *b, size_t blen)
{
	uint64_t a0, a1, b0, b1;

	if (alen != blen)
		return 0;
	if (alen >= 8 && alen <= 16) {
		memcpy(&a0, a, 8);
		memcpy(&a1, a + alen - 8, 8);
		memcpy(&b0, b, 8);
		memcpy(&b1, b + alen - 8, 8);
		return ((a0 ^ b0) | (a1 ^ b1)) == 0;
	}
	return alen == 0 || memcmp(a, b, alen) == 0;
}

/* Remembers group g of b as ended: the open contiguous group (the last)
 * where its key was added as it opened, else by its key. */
static void
end_group(struct grouping *gs, const struct gbatch *b, size_t g)
{
	struct ended *e;
	const char *key;
	size_t len, k = gs->open_k;

	gs->open_k = KEYMAP_NONE;
	key = batch_gkey(b, g, &len);
	if (len == 0)
		return;		/* key-less blocks cannot come back */
	if (k == KEYMAP_NONE || g + 1 != batch_ngroups(b))
		k = keymap_get(&gs->ended, key, len, NULL);
	e = keymap_val(&gs->ended, k);
	e->file = batch_gwhere(b, g, &e->first, &e->last);
}

/*
 * Key-less records and keyed ones do not mix.  Without --group-size a
 * key-less record has no group at all (and decides nothing).  With it,
 * the first record decides, but in skip mode only once a group of its
 * kind is whole (settled): before, a record of the other kind takes over
 * and the earlier records' group comes out short (rejected whole), so
 * one bad first line (a header without a key) does not decide the run.
 */
static int
refused(const struct grouping *gs, const struct record *r)
{
	if (!r->has_group && !gs->o.group_size)
		return 1;
	return gs->settled && gs->keyless_mode == r->has_group;
}

/* The open group of b the record joins, or -1 when it opens one; for a
 * record that refused() lets through (inline: at every record). */
static inline __attribute__((always_inline)) long
group_of(const struct grouping *gs, const struct gbatch *b,
    const struct record *r, const struct buf *keys)
{
	const char *key = keys->p + r->gkey, *last;
	size_t ng = batch_ngroups(b), len, k;

	if (ng == 0)
		return -1;
	if (!r->has_group) {
		/* Blocks are positions in the input: record k is in block
		 * k / G, rejected records counted. */
		(void)batch_gkey(b, ng - 1, &len);
		return len == 0 && gs->keyless / gs->o.group_size ==
		    gs->block ? (long)ng - 1 : -1;
	}
	if (gs->o.unsorted) {
		/* A key's group, not its index: key-less blocks opened
		 * before the mode settled have none. */
		k = keymap_find(&gs->open, key, r->gkeylen);
		return k == KEYMAP_NONE ? -1 :
		    (long)*(size_t *)keymap_val(&gs->open, k);
	}
	last = batch_gkey(b, ng - 1, &len);
	return keyeq(last, len, key, r->gkeylen) ? (long)ng - 1 : -1;
}

/*
 * The open group of b that r would join across a change of the batch
 * key, or -1: a group is in one batch, so a record of an open group with
 * another batch key splits it, unless --group-size says that group is
 * whole (a prompt may come back at the next step).
 */
static long
split_group(const struct grouping *gs, const struct gbatch *b,
    const struct record *r, const struct buf *keys)
{
	long g;

	if (refused(gs, r) || (g = group_of(gs, b, r, keys)) < 0)
		return -1;
	if (gs->o.group_size && batch_gsize(b, (size_t)g) >= gs->o.group_size)
		return -1;
	return g;
}

/* Whether r continues the trajectory of the row held before it. */
static int
continues(const struct gbatch *b, const struct record *r,
    const struct buf *keys)
{
	const struct record *p;
	struct record tmp;

	if (!r->has_traj || (p = batch_last(b, &tmp, NULL, NULL, NULL)) ==
	    NULL)
		return 0;
	return p->has_traj && p->traj_last != 1 && keyeq(batch_keys(b) +
	    p->tkey, p->tkeylen, keys->p + r->tkey, r->tkeylen);
}

enum group_cut
group_boundary(struct grouping *gs, const struct gbatch *b,
    const struct record *r, const struct buf *keys)
{
	const char *k;
	size_t len;

	gs->seen_r = NULL;
	if (batch_held(b) == 0)
		return GROUP_NONE;
	/* A trajectory is never cut: group_add() refuses one whose rows
	 * are in two batches. */
	if (continues(b, r, keys))
		return GROUP_NONE;
	if (gs->o.has_batch_key) {
		k = batch_key(b, &len);
		if (!keyeq(k, len, keys->p + r->bkey, r->bkeylen))
			return split_group(gs, b, r, keys) >= 0 ?
			    GROUP_SPLIT : GROUP_KEY;
	}
	/* A record that group_add() refuses ends nothing. */
	if (refused(gs, r))
		return GROUP_NONE;
	gs->seen_r = r;
	gs->seen_n = batch_held(b);
	if ((gs->seen_g = group_of(gs, b, r, keys)) >= 0)
		return GROUP_NONE;
	/* A group opens: the slot of the groups that ended that
	 * group_add() probes is loaded meanwhile (a cache miss on a map
	 * of every group of a large input). */
	if (r->has_group && !gs->o.unsorted) {
		gs->seen_h = keymap_hash(keys->p + r->gkey, r->gkeylen, 0);
		keymap_prefetch(&gs->ended, gs->seen_h);
	}
	if (gs->o.batch_groups && gs->groups >= gs->o.batch_groups)
		return GROUP_COUNT;
	return gs->o.stream ? GROUP_STREAM : GROUP_NONE;
}

int
group_split(const struct grouping *gs, const struct gbatch *b,
    const struct record *r, const struct buf *keys, const char *file,
    unsigned long long lineno, struct diag *d)
{
	struct buf lab = { 0 }, was = { 0 }, now = { 0 };
	unsigned long long first, last;
	const char *k, *gfile;
	size_t len, g = (size_t)split_group(gs, b, r, keys);

	batch_glabel(b, g, &lab);
	gfile = batch_gwhere(b, g, &first, &last);
	k = batch_key(b, &len);
	record_key_quote(k, len, &was);
	record_key_quote(keys->p + r->bkey, r->bkeylen, &now);
	diag_setl(d, EXIT_DATA, file, lineno, "group %.*s goes on here, but "
	    "the batch key is %.*s here and %.*s at %s:%llu: a group's "
	    "records share one batch; if a new group starts here, give "
	    "--group-size", (int)lab.len, lab.p,
	    (int)now.len, now.p, (int)was.len, was.p, gfile, last);
	buf_free(&lab);
	buf_free(&was);
	buf_free(&now);
	return EXIT_DATA;
}

/* Refuses what refused() says, with the reason, and follows the mode. */
static int
check_mode(struct grouping *gs, const struct record *r, const char *file,
    unsigned long long lineno, struct diag *d)
{
	if (!r->has_group && !gs->o.group_size)
		return diag_setl(d, EXIT_DATA, file, lineno, "no group key "
		    "(none of the --group-key names is here); name it with "
		    "--group-key, or give --group-size G for blocks of G "
		    "consecutive records (TRL, OpenRLHF)");
	if (refused(gs, r))
		return diag_setl(d, EXIT_DATA, file, lineno, r->has_group ?
		    "a group key, but earlier records had none (blocks of "
		    "--group-size)" : "no group key, but earlier records had "
		    "one");
	gs->keyless_mode = !r->has_group;
	return 0;
}

/* Under --unsorted a group ends with its batch (--batch-groups): the
 * advice is then not --unsorted. */
static int
reappears(const char *key, size_t len, const struct ended *e, int unsorted,
    const char *file, unsigned long long lineno, struct diag *d)
{
	struct buf lab = { 0 };
	char at[64];

	if (e->first == e->last)
		snprintf(at, sizeof(at), "line %llu", e->first);
	else
		snprintf(at, sizeof(at), "lines %llu-%llu", e->first, e->last);
	record_key_quote(key, len, &lab);
	diag_setl(d, EXIT_DATA, file, lineno, "group %.*s reappears after its "
	    "%s ended (%s %s); %s", (int)lab.len, lab.p, unsorted ? "batch" :
	    "group", e->file, at, unsorted ? "a group's records share one "
	    "batch of --batch-groups: sort the input by group, or give "
	    "--batch-groups more" : "sort the input by group or use "
	    "--unsorted");
	buf_free(&lab);
	return EXIT_DATA;
}

/* The row before r ended its trajectory: it has the reward, and its end
 * (--trajectory-last-key) when that is asked for. */
static int
traj_ended(const struct gbatch *b, struct diag *d)
{
	const struct record *p;
	struct record tmp;
	const char *file;
	unsigned long long line;

	if ((p = batch_last(b, &tmp, NULL, &file, &line)) == NULL ||
	    !p->has_traj)
		return 0;
	if (p->traj_last == 0)
		return diag_setl(d, EXIT_DATA, file, line, "the trajectory "
		    "ends here, but its last-row field (--trajectory-last-key) "
		    "is false");
	if (!p->has_reward)
		return diag_setl(d, EXIT_DATA, file, line, "the last row of "
		    "its trajectory has no reward field (the trajectory's "
		    "reward is its last row's)");
	return 0;
}

/*
 * Skip mode: the group of b's last row, whose trajectory d says is bad,
 * goes to gs->bad to be rejected whole (a trajectory is one response),
 * and d is cleared: 0.  Otherwise d's status.
 */
static int
bad_traj(const struct grouping *gs, const struct gbatch *b, struct diag *d)
{
	struct record tmp;
	const char *file;
	unsigned long long line;
	size_t g;

	if (gs->bad == NULL || batch_last(b, &tmp, &g, NULL, NULL) == NULL)
		return d->status;
	file = batch_gwhere(b, g, &line, NULL);
	diag_groups_add(gs->bad, file, line, d->msg);
	d->status = 0;
	return 0;
}

void
group_taint(const struct grouping *gs, const struct gbatch *b,
    const char *file, unsigned long long lineno)
{
	const struct record *p;
	struct record tmp;
	struct buf lab = { 0 };
	struct diag d;
	size_t g;

	/* A trajectory whose last row said it ended is whole. */
	if (gs->bad == NULL || (p = batch_last(b, &tmp, &g, NULL, NULL)) ==
	    NULL || !p->has_traj || p->traj_last == 1)
		return;
	batch_glabel(b, g, &lab);
	diag_setl(&d, EXIT_DATA, file, lineno, "a row of a trajectory of "
	    "group %.*s was rejected here, so its tokens and maybe its reward "
	    "are missing", (int)lab.len, lab.p);
	buf_free(&lab);
	(void)bad_traj(gs, b, &d);
}

/* A row that continues a trajectory: in its group, and its batch. */
static int
traj_row(const struct gbatch *b, const struct record *r,
    const struct buf *keys, const char *file, unsigned long long lineno,
    size_t *g, struct diag *d)
{
	struct record tmp;
	const struct record *p = batch_last(b, &tmp, g, NULL, NULL);
	const char *k = batch_keys(b);

	if (p->has_group != r->has_group || (r->has_group &&
	    !keyeq(k + p->gkey, p->gkeylen, keys->p + r->gkey, r->gkeylen)))
		return diag_setl(d, EXIT_DATA, file, lineno, "this row "
		    "continues the trajectory of the row before it, but its "
		    "group key differs");
	if (p->has_batch && !keyeq(k + p->bkey, p->bkeylen, keys->p +
	    r->bkey, r->bkeylen))
		return diag_setl(d, EXIT_DATA, file, lineno, "this row "
		    "continues the trajectory of the row before it, but its "
		    "batch key differs");
	return 0;
}

int
group_end(const struct grouping *gs, const struct gbatch *b, struct diag *d)
{
	if (traj_ended(b, d) != 0)
		return bad_traj(gs, b, d);
	return 0;
}

int
group_add(struct grouping *gs, struct gbatch *b, const struct record *r,
    const struct buf *keys, const struct buf *runs, const char *line,
    size_t len, int stable, const char *file, unsigned long long lineno,
    struct diag *d)
{
	const struct ended *e;
	const char *key = keys->p + r->gkey;
	size_t ng = batch_ngroups(b), k, tg;
	struct record tr;
	long g;
	int added = 1, seen;

	if (check_mode(gs, r, file, lineno, d) != 0)
		return d->status;
	if (r->has_traj) {
		if (continues(b, r, keys)) {
			if (traj_row(b, r, keys, file, lineno, &tg, d) != 0)
				return d->status;
			tr = *r;
			tr.traj_cont = 1;
			batch_add(b, &tr, keys, runs, line, len, stable, file,
			    lineno, tg);
			return 0;
		}
		if (traj_ended(b, d) != 0 && bad_traj(gs, b, d) != 0)
			return d->status;
	}
	/* As group_boundary() found it, unless the batch moved on. */
	seen = gs->seen_r == r && gs->seen_n == batch_held(b);
	g = seen ? gs->seen_g : group_of(gs, b, r, keys);
	gs->seen_r = NULL;
	if (g < 0) {
		/* A contiguous group's key goes into ended as it opens, one
		 * probe where looking for it and adding it as it ended took
		 * two (each a cache miss on a batch of many groups). */
		k = KEYMAP_NONE;
		if (r->has_group && !gs->o.unsorted)
			k = keymap_get_hashed(&gs->ended, key, r->gkeylen,
			    seen ? gs->seen_h : keymap_hash(key, r->gkeylen,
			    0), &added);
		else if (r->has_group)
			added = (k = keymap_find(&gs->ended, key,
			    r->gkeylen)) == KEYMAP_NONE;
		if (r->has_group && !added) {
			e = keymap_val(&gs->ended, k);
			return reappears(key, r->gkeylen, e, gs->o.unsorted,
			    file, lineno, d);
		}
		/* A contiguous group ends here.  (A wrong size is found by
		 * group_check_sizes at the batch's end.) */
		if (!gs->o.unsorted && ng > 0)
			end_group(gs, b, ng - 1);
		gs->open_k = gs->o.unsorted ? KEYMAP_NONE : k;
		if (gs->o.unsorted && r->has_group) {
			k = keymap_get(&gs->open, key, r->gkeylen, NULL);
			*(size_t *)keymap_val(&gs->open, k) = ng;
		}
		gs->block = gs->o.group_size ? gs->keyless /
		    gs->o.group_size : 0;
		gs->groups++;
		g = (long)ng;
	}
	batch_add(b, r, keys, runs, line, len, stable, file, lineno,
	    (size_t)g);
	/* Positions count every record until keyed groups settle. */
	if (!r->has_group || !gs->settled)
		gs->keyless++;
	if (!gs->o.skip || (gs->o.group_size && batch_gsize(b, (size_t)g) ==
	    gs->o.group_size))
		gs->settled = 1;
	return 0;
}

void
group_note_reject(struct grouping *gs)
{
	gs->seen_r = NULL;
	if (gs->o.group_size && (!gs->settled || gs->keyless_mode))
		gs->keyless++;
}

int
group_size_error(const struct grouping *gs, const struct gbatch *b,
    size_t g, const char *tail, struct diag *d)
{
	struct buf lab = { 0 };
	unsigned long long line;
	const char *file, *key, *unit;
	size_t len, n = batch_gsize(b, g);

	key = batch_gkey(b, g, &len);
	file = batch_gwhere(b, g, &line, NULL);
	/* A key-less block has no name but where it starts. */
	if (len == 0)
		buf_add(&lab, "the block that starts here", 26);
	else {
		buf_add(&lab, "group ", 6);
		record_key_quote(key, len, &lab);
	}
	if (gs->o.traj)
		unit = n == 1 ? "trajectory" : "trajectories";
	else
		unit = n == 1 ? "record" : "records";
	diag_setl(d, EXIT_DATA, file, line, "%.*s has %zu %s, expected "
	    "--group-size %zu%s", (int)lab.len, lab.p, n, unit,
	    gs->o.group_size, tail);
	buf_free(&lab);
	return EXIT_DATA;
}

int
group_check_sizes(const struct grouping *gs, struct gbatch *b, int skip,
    size_t *ndropped, struct diag *d)
{
	size_t g, ng = batch_ngroups(b);

	*ndropped = 0;
	if (!gs->o.group_size)
		return 0;
	for (g = 0; g < ng; g++) {
		if (batch_gsize(b, g) == gs->o.group_size)
			continue;
		if (!skip)
			return group_size_error(gs, b, g, "", d);
		batch_drop(b, g);
		*ndropped += batch_gsize(b, g);
	}
	return 0;
}

void
group_reset(struct grouping *gs, struct gbatch *b, enum group_cut cut)
{
	size_t g, ng = batch_ngroups(b);

	if (cut == GROUP_KEY) {
		keymap_clear(&gs->ended);
		gs->open_k = KEYMAP_NONE;
	}
	else if (gs->o.unsorted)
		for (g = 0; g < ng; g++)
			end_group(gs, b, g);
	else if (ng > 0)
		end_group(gs, b, ng - 1);	/* the others ended already */
	keymap_clear(&gs->open);
	/* keyless goes on: blocks are positions in the whole input. */
	batch_reset(b, cut != GROUP_STREAM);
	if (cut != GROUP_STREAM)
		gs->groups = 0;
}
