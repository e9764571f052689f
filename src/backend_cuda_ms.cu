/*
 * backend_cuda_ms.cu - MS-GRPO on the GPU (make CUDA=1): the groups that
 * msgrpo_exact.c would enumerate by bit masks (every reward distinct;
 * with --ms-stats token every (r, T) pair), 6 <= G <= 40, are enumerated
 * here, 2^G subgroups in parallel, while the host runs the other groups
 * through msgrpo.c.  Whether a group goes, its canonical order, rescaling
 * and path are msgrpo_canon.c's own; each subgroup's statistics are
 * advmath_ms.h's, the CPU's bits, and the sums run in the fixed blocked
 * order of advmath_ms_exact_masks(): results reproduce from run to run
 * and equal, bit for bit, the CPU's.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "backend_cuda.h"
#include "gpu.h"
#include "slab.h"


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
	double a, w[MS_MAX_G + 1];

	if (k >= m)
		return;
	g = gi + mgrp[k];
	advmath_ms_weights(kind, g->G, g->tau_min, w);
	a = advmath_ms_combine(acc + g->aoff + (k - g->coff), g->G, g->G,
	    g->tau_min, w);
	out[k] = advmath_ms_finish(a);
}

static struct dbuf d_cr, d_ct, d_ginfo, d_seg, d_part, d_acc, d_out, d_mgrp;

/*
 * The host's side of one batch: the GPU groups' canonical arrays and
 * segments, and the canonical forms of the groups the host runs.
 */
struct ms_host {
	double		*cr, *ct, *out;	/* [n]: the GPU groups' members */
	uint32_t	*mgrp;		/* [n]: a member's GPU group */
	size_t		*ord;		/* [n]: its index in its group */
	size_t		*go;		/* the batch offset of each GPU group */
	struct ms_group	*gi;
	struct ms_seg	*seg;
	struct ms_canon	*cn;		/* [ngroups]: all zero if not made */
	unsigned char	*gpu;		/* [ngroups] */
	size_t		 ngroups;
	void		*mem;		/* cr .. gpu: one block (slab.h) */
};

static void
ms_host_free(struct ms_host *h)
{
	size_t g;

	if (h->cn != NULL)
		for (g = 0; g < h->ngroups; g++)
			msgrpo_canon_free(&h->cn[g]);
	free(h->mem);
}

static int
ms_host_alloc(struct ms_host *h, const struct batch *b)
{
	struct slab s = SLAB_INIT;
	size_t n = b->n, ng = b->ngroups;

	memset(h, 0, sizeof(*h));
	h->ngroups = ng;
	while (slab_pass(&s)) {
		h->cr = (double *)slab_take(&s, n, sizeof(double));
		h->ct = (double *)slab_take(&s, n, sizeof(double));
		h->out = (double *)slab_take(&s, n, sizeof(double));
		h->mgrp = (uint32_t *)slab_take(&s, n, sizeof(uint32_t));
		h->ord = (size_t *)slab_take(&s, n, sizeof(size_t));
		h->go = (size_t *)slab_take(&s, ng, sizeof(size_t));
		h->gi = (struct ms_group *)slab_take(&s, ng,
		    sizeof(struct ms_group));
		h->seg = (struct ms_seg *)slab_take(&s, n,
		    sizeof(struct ms_seg));
		h->cn = (struct ms_canon *)slab_take(&s, ng,
		    sizeof(struct ms_canon));
		h->gpu = (unsigned char *)slab_take(&s, ng, 1);
	}
	if ((h->mem = s.mem) == NULL) {
		memset(h, 0, sizeof(*h));
		return -1;
	}
	return 0;
}

/*
 * Whether group g goes to the GPU: its size suits, and msgrpo would take
 * the exact path by bit masks.  Its canonical form is left in h->cn[g]
 * (for the host to run, or to copy to the GPU).  1 yes, 0 no, -2 out of
 * memory.
 */
static int
ms_gpu_group(struct ms_host *h, const struct batch *b, size_t g,
    const struct ms_params *p)
{
	size_t o = b->goff[g], G = b->goff[g + 1] - o;
	enum ms_path path;

	/* The kernels weigh by the schemes only (advmath_ms_weights()). */
	if (G < MS_MIN_G || G > MS_MAX_G || G < msgrpo_tau_min(p) ||
	    p->mode == MS_SAMPLED || p->weights > MS_LOCAL)
		return 0;
	if (msgrpo_canon_init(&h->cn[g], b->r + o, b->T + o, b->tie != NULL ?
	    b->tie + o : NULL, G, p) != 0)
		return -2;
	return msgrpo_canon_path(&h->cn[g], p, &path) == 0 &&
	    path == MS_PATH_EXACT && msgrpo_exact_masks(&h->cn[g]);
}

/*
 * Plans the GPU groups (canonical arrays, segments) into h.  Returns the
 * number of GPU groups, with *nm members, *nseg segments, *nacc sums; or
 * -1 when out of memory.
 */
static long
ms_plan(const struct batch *b, const struct ms_params *p, struct ms_host *h,
    size_t *nm, size_t *nseg, size_t *nacc)
{
	size_t g, G, i, e = 0, m = 0, s = 0, a = 0;
	uint64_t blocks = 0, chunk;
	struct ms_canon *c;
	uint32_t tau;
	int rc;

	for (g = 0; g < b->ngroups; g++) {
		if ((rc = ms_gpu_group(h, b, g, p)) < 0)
			return -1;
		if (rc == 0)
			continue;
		h->gpu[g] = 1;
		c = &h->cn[g];
		G = c->G;
		h->gi[e].coff = m;
		h->gi[e].aoff = a;
		h->gi[e].eps = c->eps;
		h->gi[e].G = (uint32_t)G;
		h->gi[e].tau_min = (uint32_t)c->tau_min;
		h->go[e] = b->goff[g];
		for (i = 0; i < G; i++) {
			h->cr[m + i] = c->r[i];
			h->ct[m + i] = c->t[i];
			h->ord[m + i] = c->ord[i];
			h->mgrp[m + i] = (uint32_t)e;
		}
		for (tau = (uint32_t)c->tau_min; tau <= G; tau++) {
			h->seg[s].nrank = advmath_ms_binom64((unsigned)G, tau);
			h->seg[s].per = advmath_ms_per((unsigned)G);
			chunk = h->seg[s].per * MS_THREADS;
			h->seg[s].nb = (h->seg[s].nrank + chunk - 1) / chunk;
			h->seg[s].bstart = blocks;
			h->seg[s].e = (uint32_t)e;
			h->seg[s].tau = tau;
			blocks += h->seg[s].nb;
			s++;
		}
		msgrpo_canon_free(c);
		m += G;
		a += (G + 1) * G;
		e++;
	}
	*nm = m;
	*nseg = s;
	*nacc = a;
	return (long)e;
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
	if (gpu_put(&d_cr, h->cr, nm * sizeof(double), d) != 0 ||
	    gpu_put(&d_ct, h->ct, nm * sizeof(double), d) != 0 ||
	    gpu_put(&d_mgrp, h->mgrp, nm * sizeof(uint32_t), d) != 0 ||
	    gpu_put(&d_ginfo, h->gi, ne * sizeof(struct ms_group), d) != 0 ||
	    gpu_put(&d_seg, h->seg, nseg * sizeof(struct ms_seg), d) != 0 ||
	    gpu_need(&d_part, maxblk * MS_MAX_G * sizeof(double), d) != 0 ||
	    gpu_need(&d_acc, nacc * sizeof(double), d) != 0 ||
	    gpu_need(&d_out, nm * sizeof(double), d) != 0)
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
		if (gpu_launched(d, "MS-GRPO enumeration kernel") != 0)
			return -1;
		CUDA_LAUNCH(k_ms_reduce, (unsigned)(s1 - s0), 64, 0)(
		    (const struct ms_seg *)d_seg.p + s0, h->seg[s0].bstart,
		    (const struct ms_group *)d_ginfo.p,
		    (const double *)d_part.p, (double *)d_acc.p);
		if (gpu_launched(d, "MS-GRPO reduction kernel") != 0)
			return -1;
	}
	CUDA_LAUNCH(k_ms_final, (unsigned)((nm + 127) / 128), 128, 0)(
	    (const struct ms_group *)d_ginfo.p, (const uint32_t *)d_mgrp.p,
	    (const double *)d_acc.p, nm, kind, (double *)d_out.p);
	return gpu_launched(d, "MS-GRPO final kernel");
}

/*
 * The groups that are not the GPU's, on the host (while the GPU works),
 * each from its canonical form when planning made one.  0, 1 when a
 * group is past --ms-budget with --ms-mode exact (the CPU path then says
 * so in its own words), -2 out of memory.
 */
static int
ms_host_groups(struct ms_host *h, const struct batch *b,
    const struct ms_params *p, double *adv, size_t *nexact,
    size_t *nsampled)
{
	size_t g, o, G;
	uint64_t kh;
	enum ms_path path;
	int rc;

	for (g = 0; g < b->ngroups; g++) {
		if (h->gpu[g])
			continue;
		o = b->goff[g];
		G = b->goff[g + 1] - o;
		kh = b->ghash != NULL ? b->ghash[g] : 0;
		if (h->cn[g].G != 0)
			rc = msgrpo_canon_run(&h->cn[g], p, kh, adv + o, &path);
		else
			rc = msgrpo_group(b->r + o, b->T + o, b->tie != NULL ?
			    b->tie + o : NULL, G, kh, p, adv + o, &path);
		if (rc != 0)
			return rc == -2 ? -2 : 1;
		if (path == MS_PATH_EXACT)
			(*nexact)++;
		else if (path == MS_PATH_SAMPLED)
			(*nsampled)++;
	}
	return 0;
}

static int
ms_oom(struct diag *d)
{
	diag_set(d, EXIT_IO, "out of memory");
	return -1;
}

/*
 * Returns 1 (the CPU does the whole batch) when no group suits the GPU,
 * or when a group fails on the host in a way the CPU path reports.
 */
int
backend_cuda_ms_advantages(struct adv_params *ap, const struct batch *b,
    double *adv, struct diag *d)
{
	struct ms_host h;
	struct ms_params *p = &ap->ms;
	size_t nm, nseg, nacc, e, i, nexact = 0, nsampled = 0;
	long ne;
	cudaError_t err;
	int rc;

	/* as advantage.c's adv_msgrpo */
	msgrpo_from(p, ap->eps, ap->sample, ap->eps_inside);
	if (b->n == 0 || b->T == NULL)
		return 1;
	if (ms_host_alloc(&h, b) != 0)
		return ms_oom(d);
	if ((ne = ms_plan(b, p, &h, &nm, &nseg, &nacc)) <= 0) {
		ms_host_free(&h);
		return ne < 0 ? ms_oom(d) : 1;
	}
	if (ms_launch(&h, (size_t)ne, nm, nseg, nacc, p->weights, d) != 0) {
		ms_host_free(&h);
		return -1;
	}
	rc = ms_host_groups(&h, b, p, adv, &nexact, &nsampled);
	if (rc != 0) {
		(void)cudaDeviceSynchronize();
		ms_host_free(&h);
		return rc < 0 ? ms_oom(d) : 1;
	}
	err = cudaMemcpy(h.out, d_out.p, nm * sizeof(double),
	    cudaMemcpyDeviceToHost);
	if (err != cudaSuccess) {
		ms_host_free(&h);
		return gpu_fail(d, "MS-GRPO kernels, or the copy "
		    "back", err);
	}
	for (e = 0; e < (size_t)ne; e++)
		for (i = 0; i < h.gi[e].G; i++)
			adv[h.go[e] + h.ord[h.gi[e].coff + i]] =
			    h.out[h.gi[e].coff + i];
	ap->ms_exact += nexact + (size_t)ne;
	ap->ms_sampled += nsampled;
	ms_host_free(&h);
	return 0;
}
