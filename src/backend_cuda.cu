/*
 * backend_cuda.cu - the CUDA backend (make CUDA=1; SPEC §8).
 *
 * The arithmetic is advmath.h's, the same functions the CPU runs, in
 * double precision, compiled with -fmad=false so that no multiply-add is
 * fused: a kernel that runs the CPU's operations in the CPU's order gets
 * the CPU's bits.
 *
 *  - grpo (every --std-scope, --gn-scope), drgrpo, rloo, san, stratified,
 *    opo: one thread per group runs the group's (and its strata's)
 *    statistics and advantages.  The batch's moments that --std-scope
 *    batch and --gn-scope batch need are reduced on the host with the
 *    CPU's own call, in its order, so those are bit-identical too.
 *  - rpp-baseline: its group step (r - mean) on the GPU, the whitening
 *    over the batch's tokens on the host (one sequential reduction, the
 *    CPU's code).
 *  - loss weights, every mode: one thread per group; the batch's totals
 *    (--scope batch) are summed on the host, the CPU's call.
 *  - msgrpo: groups whose rewards are all distinct (with --ms-stats token,
 *    all (r, T) pairs), 6 <= G <= 40, that msgrpo.c would enumerate
 *    exactly are enumerated on the GPU, 2^G subgroups in parallel, while
 *    the host runs msgrpo_group() on the other groups.  Each subgroup's
 *    statistics are the CPU's bits, and the sums run in the fixed blocked
 *    order of advmath.h (advmath_ms_exact_masks): results reproduce from
 *    run to run and equal, bit for bit, those of a CPU that sums in that
 *    order; one that sums in plain mask order agrees to rounding (~1e-15
 *    of the largest advantage).
 *
 * Device memory is plain cudaMalloc, kept between batches and grown as
 * needed.  Every CUDA call is checked; a failure sets status 3.  Not
 * thread-safe: rladv computes one batch at a time.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

/*
 * A launch and a kernel's dynamic shared memory, as macros so that the
 * CPU emulation of the runtime that make check compiles this file with
 * (tests/cuda_emu/cuda_runtime.h) can stand in for them.
 */
#ifndef CUDA_LAUNCH
#define CUDA_LAUNCH(kernel, grid, block, shmem)				\
	kernel<<<(grid), (block), (shmem)>>>
#endif
#ifndef CUDA_DYNAMIC_SHARED
#define CUDA_DYNAMIC_SHARED(type, name)	extern __shared__ type name[]
#endif

#include "backend_cuda.h"
#include "advmath.h"

/* ------------------------------------------------------------ plumbing */

#define CK(call, what)							\
	do {								\
		cudaError_t e_ = (call);				\
		if (e_ != cudaSuccess)					\
			return cuda_fail(d, (what), e_);		\
	} while (0)

static int
cuda_fail(struct diag *d, const char *what, cudaError_t e)
{
	diag_set(d, EXIT_IO, "CUDA: %s: %s", what, cudaGetErrorString(e));
	return -1;
}

/* A device buffer kept between batches, grown when a batch needs more. */
struct dbuf {
	void	*p;
	size_t	 cap;
};

static int
dbuf_need(struct dbuf *b, size_t bytes, struct diag *d)
{
	cudaError_t e;
	size_t want;

	if (bytes == 0)
		bytes = 1;
	if (b->cap >= bytes)
		return 0;
	if (b->p != NULL) {
		CK(cudaFree(b->p), "cudaFree");
		b->p = NULL;
		b->cap = 0;
	}
	want = bytes + bytes / 4;
	if (cudaMalloc(&b->p, want) != cudaSuccess) {
		(void)cudaGetLastError();	/* not sticky: clear it */
		b->p = NULL;
		want = bytes;
		if ((e = cudaMalloc(&b->p, want)) != cudaSuccess) {
			(void)cudaGetLastError();
			b->p = NULL;
			diag_set(d, EXIT_IO, "CUDA: cannot allocate %zu bytes "
			    "of GPU memory: %s", bytes, cudaGetErrorString(e));
			return -1;
		}
	}
	b->cap = want;
	return 0;
}

/* Copies "bytes" bytes of host memory into b, growing it. */
static int
dbuf_put(struct dbuf *b, const void *src, size_t bytes, struct diag *d)
{
	if (dbuf_need(b, bytes, d) != 0)
		return -1;
	if (bytes > 0)
		CK(cudaMemcpy(b->p, src, bytes, cudaMemcpyHostToDevice),
		    "cudaMemcpy to the device");
	return 0;
}

static int
launched(struct diag *d, const char *kernel)
{
	cudaError_t e = cudaGetLastError();

	if (e != cudaSuccess)
		return cuda_fail(d, kernel, e);
	return 0;
}

static struct dbuf d_r, d_T, d_goff, d_strat, d_nstrat, d_adv, d_tmp;
static struct dbuf d_w;
static struct dbuf d_cr, d_ct, d_ginfo, d_seg, d_part, d_acc, d_out, d_mgrp;

int
cuda_available(char *why, size_t cap)
{
	struct cudaDeviceProp pr;
	cudaError_t e;
	int n = 0;

	e = cudaGetDeviceCount(&n);
	if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
		snprintf(why, cap, "no CUDA device found");
		return 0;
	}
	if (e == cudaErrorInsufficientDriver) {
		snprintf(why, cap, "no NVIDIA driver, or one older than this "
		    "build's CUDA %d.%d runtime", CUDART_VERSION / 1000,
		    CUDART_VERSION % 1000 / 10);
		return 0;
	}
	if (e != cudaSuccess) {
		snprintf(why, cap, "%s", cudaGetErrorString(e));
		return 0;
	}
	e = cudaGetDeviceProperties(&pr, 0);
	if (e != cudaSuccess) {
		snprintf(why, cap, "device 0: %s", cudaGetErrorString(e));
		return 0;
	}
	if (pr.major < 8) {
		snprintf(why, cap, "device 0 (%s) has compute capability "
		    "%d.%d; this build needs 8.0 or later", pr.name,
		    pr.major, pr.minor);
		return 0;
	}
	if ((e = cudaSetDevice(0)) != cudaSuccess ||
	    (e = cudaFree(0)) != cudaSuccess) {
		snprintf(why, cap, "device 0 (%s): %s", pr.name,
		    cudaGetErrorString(e));
		return 0;
	}
	return 1;
}

/* ------------------------------------------------- per-group estimators */

struct gparams {
	enum est_kind		kind;
	int			sample;
	enum std_scope		scope;
	int			gn_batch;
	int			verl;
	double			eps;
	double			alpha;
	struct advmath_mom	bm;		/* the batch's moments */
};

#define G_THREADS	128

/* One thread per group, the CPU's functions in the CPU's order. */
__global__ void
k_groups(struct gparams p, const double *r, const double *T,
    const size_t *goff, const uint32_t *strat, const uint32_t *nstrat,
    size_t ngroups, double *adv, double *tmp)
{
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x, o, n, i;

	if (g >= ngroups)
		return;
	o = goff[g];
	n = goff[g + 1] - o;
	switch (p.kind) {
	case EST_GRPO:
	case EST_DRGRPO:
	case EST_RPP_BASELINE:
		advmath_gn_group(r + o, n, p.sample, p.eps, p.scope,
		    p.gn_batch, &p.bm, p.verl, adv + o);
		break;
	case EST_RLOO:
		advmath_rloo_group(r + o, n, p.verl, adv + o);
		break;
	case EST_SAN:
		advmath_san_group(r + o, strat + o, nstrat[g], n, p.sample,
		    p.eps, p.verl, adv + o);
		break;
	case EST_STRATIFIED:
		advmath_san_group(r + o, strat + o, nstrat[g], n, p.sample,
		    p.eps, p.verl, adv + o);
		advmath_gn_group(r + o, n, p.sample, p.eps, p.scope,
		    p.gn_batch, &p.bm, p.verl, tmp + o);
		for (i = o; i < o + n; i++)
			adv[i] = advmath_mix(p.alpha, adv[i], tmp[i]);
		break;
	case EST_OPO:
		advmath_opo_group(r + o, T + o, n, p.verl, adv + o);
		break;
	case EST_MSGRPO:
		break;		/* ms_advantages' kernels */
	}
}

static int
groups_on_gpu(const struct gparams *p, const struct batch *v, double *adv,
    struct diag *d)
{
	size_t n = v->n, ng = v->ngroups, blocks;
	int strata = p->kind == EST_SAN || p->kind == EST_STRATIFIED;

	if (dbuf_put(&d_r, v->r, n * sizeof(double), d) != 0 ||
	    dbuf_put(&d_goff, v->goff, (ng + 1) * sizeof(size_t), d) != 0 ||
	    dbuf_need(&d_adv, n * sizeof(double), d) != 0)
		return -1;
	if (p->kind == EST_OPO &&
	    dbuf_put(&d_T, v->T, n * sizeof(double), d) != 0)
		return -1;
	if (strata && (dbuf_put(&d_strat, v->strat, n * sizeof(uint32_t),
	    d) != 0 || dbuf_put(&d_nstrat, v->nstrat, ng * sizeof(uint32_t),
	    d) != 0))
		return -1;
	if (p->kind == EST_STRATIFIED && dbuf_need(&d_tmp, n * sizeof(double), d)
	    != 0)
		return -1;
	blocks = (ng + G_THREADS - 1) / G_THREADS;
	if (blocks > 0x7fffffff)
		return 1;	/* past the grid: let the CPU have it */
	CUDA_LAUNCH(k_groups, (unsigned)blocks, G_THREADS, 0)(*p, (const double *)d_r.p,
	    (const double *)d_T.p, (const size_t *)d_goff.p,
	    (const uint32_t *)d_strat.p, (const uint32_t *)d_nstrat.p, ng,
	    (double *)d_adv.p, (double *)d_tmp.p);
	if (launched(d, "advantage kernel") != 0)
		return -1;
	CK(cudaMemcpy(adv, d_adv.p, n * sizeof(double),
	    cudaMemcpyDeviceToHost), "advantage kernel, or the copy back");
	return 0;
}

/* ------------------------------------------------------ MS-GRPO exact */

/*
 * The enumeration: for every GPU group e and scale tau, the C(G, tau)
 * subgroups in colex order (the masks as numbers) form a segment; a
 * segment is cut into blocks of MS_THREADS threads, each thread taking
 * "per" consecutive subgroups and summing z_j into its own column of
 * shared memory; a block then sums its columns (thread order) into one
 * partial per member, and k_ms_reduce sums a segment's partials (block
 * order).  All fixed orders: the result reproduces bit for bit.
 */
#define MS_THREADS	ADVMATH_MS_THREADS	/* a run per thread */
#define MS_MIN_G	6	/* smaller groups: the CPU is quicker */
#define MS_MAX_G	40	/* shared memory: MS_THREADS * 40 doubles */
#ifndef MS_LAUNCH
#define MS_LAUNCH	65536	/* blocks per launch (partials: 20 MiB) */
#endif

struct ms_group {
	uint64_t	coff;	/* first member in cr[], ct[], out[] */
	uint64_t	aoff;	/* acc[aoff + tau * G + j] */
	double		eps;	/* eps in the units of cr[] */
	uint32_t	G;
	uint32_t	tau_min;
};

struct ms_seg {
	uint64_t	nrank;	/* C(G, tau) */
	uint64_t	per;	/* subgroups per thread */
	uint64_t	bstart;	/* first block (numbered over all launches) */
	uint64_t	nb;	/* blocks */
	uint32_t	e;	/* group */
	uint32_t	tau;
};

__global__ void
k_ms_enum(const struct ms_seg *seg, uint32_t nseg, uint64_t b0,
    const struct ms_group *gi, const double *cr, const double *ct,
    double *part)
{
	CUDA_DYNAMIC_SHARED(double, sacc);	/* [G][MS_THREADS] */
	__shared__ double sr[MS_MAX_G], st[MS_MAX_G];
	uint64_t blk = b0 + blockIdx.x, rank;
	uint32_t lo = 0, hi = nseg, mid, G, j, tid = threadIdx.x;
	const struct ms_seg *s;
	const struct ms_group *g;
	double sum;

	/* The last segment whose first block is at or before blk. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (seg[mid].bstart <= blk)
			lo = mid;
		else
			hi = mid;
	}
	s = seg + lo;
	g = gi + s->e;
	G = g->G;
	if (tid < G) {
		sr[tid] = cr[g->coff + tid];
		st[tid] = ct[g->coff + tid];
	}
	for (j = 0; j < G; j++)
		sacc[j * MS_THREADS + tid] = 0.0;
	__syncthreads();
	rank = ((blk - s->bstart) * MS_THREADS + tid) * s->per;
	if (rank < s->nrank)
		advmath_ms_run(sr, st, g->eps, G, s->tau, rank,
		    s->nrank - rank < s->per ? s->nrank - rank : s->per,
		    sacc + tid, MS_THREADS);
	__syncthreads();
	if (tid < G) {
		sum = 0.0;
		for (j = 0; j < MS_THREADS; j++)
			sum += sacc[tid * MS_THREADS + j];
		part[(size_t)blockIdx.x * MS_MAX_G + tid] = sum;
	}
}

/* One block per segment, one thread per member: the partials in order. */
__global__ void
k_ms_reduce(const struct ms_seg *seg, uint64_t b0,
    const struct ms_group *gi, const double *part, double *acc)
{
	const struct ms_seg *s = seg + blockIdx.x;
	const struct ms_group *g = gi + s->e;
	uint32_t j = threadIdx.x;
	uint64_t k;
	double sum = 0.0;

	if (j >= g->G)
		return;
	for (k = 0; k < s->nb; k++)
		sum += part[(size_t)(s->bstart - b0 + k) * MS_MAX_G + j];
	acc[g->aoff + (size_t)s->tau * g->G + j] = sum;
}

/* One thread per member: A_j from its sums, as the CPU combines them. */
__global__ void
k_ms_final(const struct ms_group *gi, const uint32_t *mgrp,
    const double *acc, size_t m, enum ms_weights kind, double *out)
{
	size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	const struct ms_group *g;
	double a;

	if (k >= m)
		return;
	g = gi + mgrp[k];
	a = advmath_ms_combine(acc + g->aoff + (k - g->coff), g->G, g->G,
	    g->tau_min, kind);
	out[k] = a == 0.0 || !isfinite(a) ? 0.0 : a;
}

struct msrec {
	double	r;
	double	t;
	size_t	idx;
};

/* src/msgrpo.c's canonical order: by reward, then T (then position). */
static int
msrec_cmp(const void *a, const void *b)
{
	const struct msrec *x = (const struct msrec *)a;
	const struct msrec *y = (const struct msrec *)b;

	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Whether the group goes to the GPU: it takes msgrpo.c's exact path, and
 * that path enumerates bit masks (every class a singleton).  If so, its
 * canonical order goes to v[] and 1 is returned.
 */
static int
ms_gpu_group(const double *r, const double *T, size_t G,
    const struct ms_params *p, size_t tau_min, struct msrec *v)
{
	double cost = 1.0;
	size_t i;

	if (G < tau_min || G < MS_MIN_G || G > MS_MAX_G ||
	    p->mode == MS_SAMPLED)
		return 0;
	for (i = 0; i < G; i++) {
		v[i].r = r[i];
		v[i].t = T != NULL ? T[i] : 1.0;
		v[i].idx = i;
		cost *= 2.0;
	}
	/* msgrpo.c's grp_cost for G singleton classes. */
	cost *= (double)(G + 8);
	if (cost > p->budget)
		return 0;	/* sampled, or (exact) the CPU's error */
	qsort(v, G, sizeof(*v), msrec_cmp);
	for (i = 1; i < G; i++)
		if (v[i].r == v[i - 1].r &&
		    (!p->token_stats || v[i].t == v[i - 1].t))
			return 0;
	return 1;
}

struct ms_host {
	struct msrec	*v;
	double		*cr, *ct, *out;
	uint32_t	*mgrp;
	size_t		*go;	/* the batch offset of each GPU group */
	struct ms_group	*gi;
	struct ms_seg	*seg;
	unsigned char	*gpu;	/* [ngroups] */
};

static void
ms_host_free(struct ms_host *h)
{
	free(h->v);
	free(h->cr);
	free(h->ct);
	free(h->out);
	free(h->mgrp);
	free(h->go);
	free(h->gi);
	free(h->seg);
	free(h->gpu);
}

/*
 * Plans the GPU groups (canonical arrays, segments) into h.  Returns the
 * number of GPU groups, with *nm members, *nseg segments, *nacc sums.
 */
static size_t
ms_plan(const struct batch *b, const struct ms_params *p, size_t tau_min,
    struct ms_host *h, size_t *nm, size_t *nseg, size_t *nacc)
{
	size_t g, o, G, i, e = 0, m = 0, s = 0, a = 0;
	uint64_t blocks = 0, chunk;
	double mr, mt;
	int er, et;
	uint32_t tau;

	for (g = 0; g < b->ngroups; g++) {
		o = b->goff[g];
		G = b->goff[g + 1] - o;
		h->gpu[g] = (unsigned char)ms_gpu_group(b->r + o, b->T != NULL ?
		    b->T + o : NULL, G, p, tau_min, h->v + o);
		if (!h->gpu[g])
			continue;
		/* msgrpo.c's rescaling of huge magnitudes (exact). */
		mr = mt = 0.0;
		for (i = 0; i < G; i++) {
			if (fabs(h->v[o + i].r) > mr)
				mr = fabs(h->v[o + i].r);
			if (fabs(h->v[o + i].t) > mt)
				mt = fabs(h->v[o + i].t);
		}
		er = advmath_ms_tame_exp(mr);
		et = p->token_stats ? advmath_ms_tame_exp(mt) : 0;
		h->gi[e].coff = m;
		h->gi[e].aoff = a;
		h->gi[e].eps = ldexp(p->eps, -er);
		h->gi[e].G = (uint32_t)G;
		h->gi[e].tau_min = (uint32_t)tau_min;
		h->go[e] = o;
		for (i = 0; i < G; i++) {
			h->cr[m + i] = ldexp(h->v[o + i].r, -er);
			h->ct[m + i] = p->token_stats ?
			    ldexp(h->v[o + i].t, -et) : 1.0;
			h->mgrp[m + i] = (uint32_t)e;
		}
		for (tau = (uint32_t)tau_min; tau <= G; tau++) {
			h->seg[s].nrank = advmath_binom64((unsigned)G, tau);
			h->seg[s].per = advmath_ms_per((unsigned)G);
			chunk = h->seg[s].per * MS_THREADS;
			h->seg[s].nb = (h->seg[s].nrank + chunk - 1) / chunk;
			h->seg[s].bstart = blocks;
			h->seg[s].e = (uint32_t)e;
			h->seg[s].tau = tau;
			blocks += h->seg[s].nb;
			s++;
		}
		m += G;
		a += (G + 1) * G;
		e++;
	}
	*nm = m;
	*nseg = s;
	*nacc = a;
	return e;
}

/*
 * Where the launch that starts at segment s0 ends: whole groups, as many
 * as fit in MS_LAUNCH blocks (at least one).  *nblk gets its blocks.
 */
static size_t
ms_cut(const struct ms_seg *seg, size_t nseg, size_t s0, size_t *nblk)
{
	size_t s1 = s0, t, gb;

	*nblk = 0;
	while (s1 < nseg) {
		gb = 0;
		for (t = s1; t < nseg && seg[t].e == seg[s1].e; t++)
			gb += seg[t].nb;
		if (*nblk > 0 && *nblk + gb > MS_LAUNCH)
			break;
		*nblk += gb;
		s1 = t;
	}
	return s1;
}

/* Runs the planned enumeration: launches of whole groups, in order. */
static int
ms_launch(struct ms_host *h, size_t ne, size_t nm, size_t nseg,
    size_t nacc, enum ms_weights kind, struct diag *d)
{
	size_t s0, s1, t, nblk, maxblk = 0, shmem, gmax;

	for (s0 = 0; s0 < nseg; s0 = s1) {
		s1 = ms_cut(h->seg, nseg, s0, &nblk);
		if (nblk > maxblk)
			maxblk = nblk;
	}
	if (dbuf_put(&d_cr, h->cr, nm * sizeof(double), d) != 0 ||
	    dbuf_put(&d_ct, h->ct, nm * sizeof(double), d) != 0 ||
	    dbuf_put(&d_mgrp, h->mgrp, nm * sizeof(uint32_t), d) != 0 ||
	    dbuf_put(&d_ginfo, h->gi, ne * sizeof(struct ms_group), d) != 0 ||
	    dbuf_put(&d_seg, h->seg, nseg * sizeof(struct ms_seg), d) != 0 ||
	    dbuf_need(&d_part, maxblk * MS_MAX_G * sizeof(double), d) != 0 ||
	    dbuf_need(&d_acc, nacc * sizeof(double), d) != 0 ||
	    dbuf_need(&d_out, nm * sizeof(double), d) != 0)
		return -1;
	CK(cudaMemset(d_acc.p, 0, nacc * sizeof(double)), "cudaMemset");

	for (s0 = 0; s0 < nseg; s0 = s1) {
		s1 = ms_cut(h->seg, nseg, s0, &nblk);
		gmax = 0;
		for (t = s0; t < s1; t++)
			if (h->gi[h->seg[t].e].G > gmax)
				gmax = h->gi[h->seg[t].e].G;
		shmem = gmax * MS_THREADS * sizeof(double);
		CUDA_LAUNCH(k_ms_enum, (unsigned)nblk, MS_THREADS, shmem)(
		    (const struct ms_seg *)d_seg.p + s0, (uint32_t)(s1 - s0),
		    h->seg[s0].bstart, (const struct ms_group *)d_ginfo.p,
		    (const double *)d_cr.p, (const double *)d_ct.p,
		    (double *)d_part.p);
		if (launched(d, "MS-GRPO enumeration kernel") != 0)
			return -1;
		CUDA_LAUNCH(k_ms_reduce, (unsigned)(s1 - s0), 64, 0)(
		    (const struct ms_seg *)d_seg.p + s0, h->seg[s0].bstart,
		    (const struct ms_group *)d_ginfo.p,
		    (const double *)d_part.p, (double *)d_acc.p);
		if (launched(d, "MS-GRPO reduction kernel") != 0)
			return -1;
	}
	CUDA_LAUNCH(k_ms_final, (unsigned)((nm + 127) / 128), 128, 0)(
	    (const struct ms_group *)d_ginfo.p, (const uint32_t *)d_mgrp.p,
	    (const double *)d_acc.p, nm, kind, (double *)d_out.p);
	return launched(d, "MS-GRPO final kernel");
}

/*
 * MS-GRPO: the GPU enumerates the groups that msgrpo.c would enumerate
 * by bit masks, the host runs msgrpo_group() on the rest meanwhile.
 * Returns 1 (the CPU does the whole batch) when no group suits the GPU,
 * or when a group fails on the CPU side in a way the CPU reports (exact
 * past --ms-budget): the CPU path then says it in its own words.
 */
static int
ms_advantages(struct adv_params *ap, const struct batch *b, double *adv,
    struct diag *d)
{
	struct ms_host h;
	struct ms_params *p = &ap->ms;
	size_t tau_min, ne, nm, nseg, nacc, g, o, G, e, i, nexact = 0,
	    nsampled = 0;
	enum ms_path path;
	cudaError_t err;
	int rc;

	p->eps = ap->eps;	/* as advantage.c's adv_msgrpo */
	tau_min = p->tau_min < 2 ? 2 : (size_t)p->tau_min;
	if (b->n == 0 || b->T == NULL)
		return 1;
	memset(&h, 0, sizeof(h));
	h.v = (struct msrec *)malloc(b->n * sizeof(*h.v));
	h.cr = (double *)malloc(b->n * sizeof(double));
	h.ct = (double *)malloc(b->n * sizeof(double));
	h.out = (double *)malloc(b->n * sizeof(double));
	h.mgrp = (uint32_t *)malloc(b->n * sizeof(uint32_t));
	h.go = (size_t *)malloc(b->ngroups * sizeof(size_t));
	h.gi = (struct ms_group *)malloc(b->ngroups *
	    sizeof(struct ms_group));
	h.seg = (struct ms_seg *)malloc(b->n * sizeof(struct ms_seg));
	h.gpu = (unsigned char *)malloc(b->ngroups);
	if (h.v == NULL || h.cr == NULL || h.ct == NULL || h.out == NULL ||
	    h.mgrp == NULL || h.go == NULL || h.gi == NULL || h.seg == NULL ||
	    h.gpu == NULL) {
		ms_host_free(&h);
		diag_set(d, EXIT_IO, "out of memory");
		return -1;
	}
	ne = ms_plan(b, p, tau_min, &h, &nm, &nseg, &nacc);
	if (ne == 0) {
		ms_host_free(&h);
		return 1;
	}
	if (ms_launch(&h, ne, nm, nseg, nacc, p->weights, d) != 0) {
		ms_host_free(&h);
		return -1;
	}

	/* The other groups on the host while the GPU works. */
	for (g = 0; g < b->ngroups; g++) {
		if (h.gpu[g])
			continue;
		o = b->goff[g];
		G = b->goff[g + 1] - o;
		rc = msgrpo_group(b->r + o, b->T + o, b->tie != NULL ?
		    b->tie + o : NULL, G, b->ghash != NULL ? b->ghash[g] : 0,
		    p, adv + o, &path);
		if (rc == -2) {
			ms_host_free(&h);
			diag_set(d, EXIT_IO, "out of memory");
			return -1;
		}
		if (rc != 0) {
			/* Past the budget: the CPU path reports it. */
			(void)cudaDeviceSynchronize();
			ms_host_free(&h);
			return 1;
		}
		if (path == MS_PATH_EXACT)
			nexact++;
		else if (path == MS_PATH_SAMPLED)
			nsampled++;
	}

	err = cudaMemcpy(h.out, d_out.p, nm * sizeof(double),
	    cudaMemcpyDeviceToHost);
	if (err != cudaSuccess) {
		ms_host_free(&h);
		return cuda_fail(d, "MS-GRPO kernels, or the copy back", err);
	}
	for (e = 0; e < ne; e++)
		for (i = 0; i < h.gi[e].G; i++)
			adv[h.go[e] + h.v[h.go[e] + i].idx] =
			    h.out[h.gi[e].coff + i];
	ap->ms_exact += nexact + ne;
	ap->ms_sampled += nsampled;
	ms_host_free(&h);
	return 0;
}

/* ------------------------------------------------------- loss weights */

/* One thread per group: its scope's totals (its own, or the batch's that
 * the host summed in record order), then the mode's formula. */
__global__ void
k_loss_weights(enum advmath_lw_kind kind, struct advmath_lw p, int scope_group,
    struct advmath_lscope bs, const double *T, const double *adv,
    const size_t *goff, size_t ngroups, double *w)
{
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x, o, n;
	struct advmath_lscope s = bs;

	if (g >= ngroups)
		return;
	o = goff[g];
	n = goff[g + 1] - o;
	if (scope_group) {
		s.n = s.all = s.N = s.live = 0;
		advmath_lw_scope(T + o, n, &s);
	}
	advmath_lw_group(kind, &p, &s, T + o, adv + o, n, w + o);
}

int
cuda_loss_weights(const struct loss_mode *m, const struct advmath_lw *p,
    int scope_group, const struct batch *v, const double *adv, double *w,
    struct diag *d)
{
	struct advmath_lscope bs;
	size_t n = v->n, ng = v->ngroups, blocks;

	if (n == 0 || ng == 0)
		return 1;
	blocks = (ng + G_THREADS - 1) / G_THREADS;
	if (blocks > 0x7fffffff)
		return 1;	/* past the grid: let the CPU have it */
	/* The batch's totals: the CPU's call, in its order. */
	memset(&bs, 0, sizeof(bs));
	if (!scope_group)
		loss_weights_scope(v, 0, ng, &bs);
	if (dbuf_put(&d_T, v->T, n * sizeof(double), d) != 0 ||
	    dbuf_put(&d_adv, adv, n * sizeof(double), d) != 0 ||
	    dbuf_put(&d_goff, v->goff, (ng + 1) * sizeof(size_t), d) != 0 ||
	    dbuf_need(&d_w, n * sizeof(double), d) != 0)
		return -1;
	CUDA_LAUNCH(k_loss_weights, (unsigned)blocks, G_THREADS, 0)(m->kind,
	    *p, scope_group, bs, (const double *)d_T.p, (const double *)d_adv.p,
	    (const size_t *)d_goff.p, ng, (double *)d_w.p);
	if (launched(d, "loss weight kernel") != 0)
		return -1;
	CK(cudaMemcpy(w, d_w.p, n * sizeof(double), cudaMemcpyDeviceToHost),
	    "loss weight kernel, or the copy back");
	return 0;
}

/* ------------------------------------------------------------- entry */

int
cuda_advantages(const struct estimator *e, struct adv_params *ap,
    const struct batch *v, double *adv, struct diag *d)
{
	struct gparams p;
	double mean, scale;
	size_t i;
	int rc;

	switch (e->kind) {
	case EST_MSGRPO:
		return ms_advantages(ap, v, adv, d);
	case EST_GRPO:
	case EST_DRGRPO:
	case EST_RLOO:
	case EST_SAN:
	case EST_STRATIFIED:
	case EST_OPO:
	case EST_RPP_BASELINE:
		break;		/* k_groups' */
	default:
		return 1;	/* no kernel: the CPU runs it */
	}
	memset(&p, 0, sizeof(p));
	p.kind = e->kind;
	p.sample = ap->sample;
	p.eps = ap->eps;
	p.alpha = ap->alpha;
	p.verl = ap->verl_single;
	p.scope = ap->std_scope;
	p.gn_batch = ap->gn_batch;
	if (e->kind == EST_DRGRPO || e->kind == EST_RPP_BASELINE) {
		p.scope = STD_NONE;
		p.gn_batch = 0;
	}
	if (v->n == 0 || v->ngroups == 0)
		return 1;
	if ((p.kind == EST_SAN || p.kind == EST_STRATIFIED) &&
	    (v->strat == NULL || v->nstrat == NULL))
		return 1;
	if ((p.kind == EST_OPO || p.kind == EST_RPP_BASELINE) && v->T == NULL)
		return 1;
	/* The batch's moments: the CPU's call, so the CPU's bits. */
	if (p.gn_batch || p.scope == STD_BATCH)
		p.bm = advmath_moments(v->r, NULL, 0, v->n, p.sample);
	if ((rc = groups_on_gpu(&p, v, adv, d)) != 0)
		return rc;
	if (p.kind == EST_RPP_BASELINE) {
		if (advmath_whiten_stats(adv, v->T, v->n, ap->var_eps, &mean,
		    &scale))
			for (i = 0; i < v->n; i++)
				adv[i] = 0;
		else
			for (i = 0; i < v->n; i++)
				adv[i] = (adv[i] - mean) / scale;
	}
	return 0;
}
