/*
 * parwrite.c - formatting on every thread, writing in order.
 *
 * Output is 2-3 times the input and its formatting a quarter of rladv's
 * time, so it runs on the pool too: the items are cut into pieces of
 * about PIECE_BYTES of input, a window of them is formatted at once, and
 * the calling thread writes each piece when it is done, in order, while
 * the next ones are formatted.  Memory: the window's pieces.
 */
#include <stdlib.h>

#include "parwrite.h"
#include "pool.h"

#define PIECE_BYTES	((size_t)256 << 10)
#define WINDOW		3	/* pieces per thread */

struct piece {
	struct pool_task	 task;
	struct output		*mem;
	parwrite_fn		 fn;
	void			*arg;
	size_t			 j0, j1;
	int			 rc;
	struct diag		 d;
};

struct parwrite {
	struct piece	*p;
	size_t		 np;
};

struct parwrite *
parwrite_new(void)
{
	return diag_calloc(1, sizeof(struct parwrite));
}

void
parwrite_free(struct parwrite *pw)
{
	size_t i;

	if (pw == NULL)
		return;
	for (i = 0; i < pw->np; i++)
		output_free(pw->p[i].mem);
	free(pw->p);
	free(pw);
}

static void
format_piece(void *arg)
{
	struct piece *q = arg;

	q->d.status = 0;
	q->rc = q->fn(q->arg, q->mem, q->j0, q->j1, &q->d);
}

int
parwrite_run(struct parwrite *pw, struct output *out, size_t n,
    size_t bytes, parwrite_fn fn, void *arg, struct diag *d)
{
	struct pool *pool = pool_run();
	struct piece *q;
	size_t per, next = 0, head = 0, busy = 0, w, i;
	int rc = 0;

	w = WINDOW * (size_t)pool_threads(pool);
	if (pool_threads(pool) < 2 || bytes <= PIECE_BYTES || n < 2)
		return fn(arg, out, 0, n, d);
	if (pw->np < w) {
		pw->p = diag_realloc(pw->p, w * sizeof(*pw->p));
		for (i = pw->np; i < w; i++)
			pw->p[i].mem = output_mem();
		pw->np = w;
	}
	/* Items per piece, from their mean size. */
	per = (size_t)((double)n * PIECE_BYTES / (double)bytes);
	if (per < 1)
		per = 1;
	while (next < n || busy > 0) {
		/* Keep the window full, unless a piece failed. */
		while (rc == 0 && next < n && busy < w) {
			q = &pw->p[(head + busy) % w];
			q->fn = fn;
			q->arg = arg;
			q->j0 = next;
			q->j1 = n - next > per ? next + per : n;
			next = q->j1;
			q->task.fn = format_piece;
			q->task.arg = q;
			pool_submit(pool, &q->task);
			busy++;
		}
		if (busy == 0)
			break;
		q = &pw->p[head];
		pool_wait(pool, &q->task);
		head = (head + 1) % w;
		busy--;
		if (rc != 0) {
			output_clear(q->mem);
			continue;
		}
		if (q->rc != 0) {
			*d = q->d;
			rc = q->rc;
		} else
			rc = output_take(out, q->mem, d);
		output_clear(q->mem);
	}
	return rc;
}
