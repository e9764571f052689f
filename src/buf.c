/*
 * buf.c - growable arrays, doubling so appends are amortized O(1).
 *
 * An array of BUF_MAPMIN bytes or more lives in a mapping of its own and
 * grows by mremap(2), which moves its pages and copies no byte; malloc's
 * realloc copies arrays below its mmap threshold (up to 32 MiB once
 * large blocks have been freed).  Smaller arrays stay with malloc.
 *
 * The pages are not advised to be huge (MADV_HUGEPAGE): on the virtual
 * machines rladv was measured on, the host takes back free 2 MiB blocks
 * (free page reporting), so each huge page comes back cold and filling
 * 200 MB of them cost 0.2-0.45 s of CPU against 0.09 s for small pages,
 * and gzip input ran 1.4 times slower with them (bench/run.sh, paired).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"

#define BUF_MAPMIN	((size_t)1 << 20)

/* len rounded up to whole pages; 0 on overflow. */
static size_t
pages(size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	if (len == 0)
		len = 1;
	return len > SIZE_MAX - pg ? 0 : (len + pg - 1) / pg * pg;
}

void *
buf_map(size_t *len)
{
	size_t n = pages(*len);
	void *p;

	if (n == 0)
		return NULL;
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	*len = n;
	return p;
}

void *
buf_remap(void *p, size_t oldlen, size_t *len)
{
	size_t n = pages(*len);
	void *q;

	if (n == 0)
		return NULL;
	q = mremap(p, oldlen, n, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return NULL;
	*len = n;
	return q;
}

void
buf_unmap(void *p, size_t len)
{
	if (p != NULL)
		munmap(p, len);
}

/* Memory for *cap bytes, keeping the first len of p (capacity ocap). */
static char *
grow(char *p, size_t len, size_t ocap, size_t *cap)
{
	char *q;

	if (*cap < BUF_MAPMIN)
		return diag_realloc(p, *cap);
	if (ocap >= BUF_MAPMIN)
		q = buf_remap(p, ocap, cap);
	else if ((q = buf_map(cap)) != NULL) {
		if (len > 0)
			memcpy(q, p, len);
		free(p);
	}
	if (q == NULL)
		diag_oom();
	return q;
}

char *
buf_reserve_grow(struct buf *b, size_t n)
{
	size_t cap;

	if (b->cap - b->len < n) {
		cap = b->cap ? b->cap : 256;
		while (cap - b->len < n)
			cap *= 2;
		b->p = grow(b->p, b->len, b->cap, &cap);
		b->cap = cap;
	}
	return b->p + b->len;
}

size_t
buf_add_grow(struct buf *b, const void *p, size_t n)
{
	size_t off = b->len;

	if (n == 0)
		return off;
	memcpy(buf_reserve_grow(b, n), p, n);
	b->len += n;
	return off;
}

void
buf_free(struct buf *b)
{
	if (b->cap >= BUF_MAPMIN)
		buf_unmap(b->p, b->cap);
	else
		free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
