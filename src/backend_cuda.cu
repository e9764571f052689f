/*
 * backend_cuda.cu - the CUDA backend (make CUDA=1).
 *
 * The arithmetic is advmath*.h's, the same functions the CPU runs, in
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
 *    CPU's call, advmath_whiten).
 *  - loss weights, every mode: one thread per group; the batch's totals
 *    (--scope batch) are summed on the host, the CPU's call.
 *  - msgrpo: backend_cuda_ms.cu.
 *
 * Calls into the runtime and device memory: gpu.cu.  Not
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

#include "backend_cuda.h"
#include "gpu.h"

static struct dbuf d_r, d_T, d_goff, d_strat, d_nstrat, d_adv, d_tmp;
static struct dbuf d_w;

int
backend_cuda_available(char *why, size_t cap)
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
	int			inside;		/* --eps-inside */
	int			verl;
	double			eps;
	double			unit, eps1;	/* adv_params' */
	double			alpha;
	double			galpha;		/* gpg's, the host's */
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
	struct advmath_dev dv, sv;

	if (g >= ngroups)
		return;
	o = goff[g];
	n = goff[g + 1] - o;
	dv.sample = p.sample;
	dv.eps = p.eps;
	dv.inside = p.inside;
	dv.scope = p.scope;
	dv.unit = p.unit;
	dv.eps1 = p.eps1;
	/* SAN takes --std-scope as -a san only (advantage.c). */
	sv = dv;
	sv.scope = p.kind == EST_SAN ? p.scope : STD_GROUP;
	switch (p.kind) {
	case EST_GRPO:
	case EST_DRGRPO:
	case EST_RPP_BASELINE:
	case EST_GRPO_WHITEN:
		advmath_gn_group(r + o, n, &dv, p.gn_batch, &p.bm, p.verl,
		    adv + o);
		break;
	case EST_PASSK:
		advmath_passk_group(r + o, n, p.sample, p.eps, p.scope, &p.bm,
		    adv + o);
		break;
	case EST_GPG:
		advmath_gpg_group(r + o, n, p.galpha, p.verl, adv + o);
		break;
	case EST_LOO:
		advmath_loo_group(r + o, n, p.sample, p.eps, adv + o);
		break;
	case EST_RLOO:
		advmath_rloo_group(r + o, n, p.verl, adv + o);
		break;
	case EST_SAN:
		advmath_san_group(r + o, strat + o, nstrat[g], n, &sv, &p.bm,
		    p.verl, adv + o);
		break;
	case EST_STRATIFIED:
		advmath_san_group(r + o, strat + o, nstrat[g], n, &sv, &p.bm,
		    p.verl, adv + o);
		advmath_gn_group(r + o, n, &dv, p.gn_batch, &p.bm, p.verl,
		    tmp + o);
		for (i = o; i < o + n; i++)
			adv[i] = advmath_mix(p.alpha, adv[i], tmp[i]);
		break;
	case EST_OPO:
		advmath_opo_group(r + o, T + o, n, p.verl, adv + o);
		break;
	case EST_MSGRPO:
		break;		/* backend_cuda_ms.cu's kernels */
	case EST_RPP:
	case EST_REMAX:
	case EST_GDPO:
		break;		/* no group work: the CPU's */
	}
}

static int
groups_on_gpu(const struct gparams *p, const struct batch *v, double *adv,
    struct diag *d)
{
	size_t n = v->n, ng = v->ngroups, blocks;
	int strata = p->kind == EST_SAN || p->kind == EST_STRATIFIED;

	if (gpu_put(&d_r, v->r, n * sizeof(double), d) != 0 ||
	    gpu_put(&d_goff, v->goff, (ng + 1) * sizeof(size_t), d) != 0 ||
	    gpu_need(&d_adv, n * sizeof(double), d) != 0)
		return -1;
	if (p->kind == EST_OPO &&
	    gpu_put(&d_T, v->T, n * sizeof(double), d) != 0)
		return -1;
	if (strata && (gpu_put(&d_strat, v->strat, n * sizeof(uint32_t),
	    d) != 0 || gpu_put(&d_nstrat, v->nstrat, ng * sizeof(uint32_t),
	    d) != 0))
		return -1;
	if (p->kind == EST_STRATIFIED &&
	    gpu_need(&d_tmp, n * sizeof(double), d) != 0)
		return -1;
	blocks = (ng + G_THREADS - 1) / G_THREADS;
	if (blocks > 0x7fffffff)
		return 1;	/* past the grid: let the CPU have it */
	CUDA_LAUNCH(k_groups, (unsigned)blocks, G_THREADS, 0)(*p,
	    (const double *)d_r.p, (const double *)d_T.p,
	    (const size_t *)d_goff.p, (const uint32_t *)d_strat.p,
	    (const uint32_t *)d_nstrat.p, ng, (double *)d_adv.p,
	    (double *)d_tmp.p);
	if (gpu_launched(d, "advantage kernel") != 0)
		return -1;
	CK(cudaMemcpy(adv, d_adv.p, n * sizeof(double),
	    cudaMemcpyDeviceToHost), "advantage kernel, or the copy back");
	return 0;
}

/* ------------------------------------------------------- loss weights */

/* One thread per group: its scope's totals (its own, or the batch's that
 * the host summed in record order), then the mode's formula. */
__global__ void
k_loss_weights(enum advmath_lw_kind kind, struct advmath_lw p,
    int scope_group, struct advmath_lscope bs, const double *T,
    const double *adv, const size_t *goff, size_t ngroups, double *w)
{
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x, o, n;
	struct advmath_lscope s = bs;

	if (g >= ngroups)
		return;
	o = goff[g];
	n = goff[g + 1] - o;
	if (scope_group) {
		s.n = s.all = s.N = s.N1 = s.live = 0;
		advmath_lw_scope(T + o, n, &s);
	}
	advmath_lw_group(kind, &p, &s, T + o, adv + o, n, w + o);
}

int
backend_cuda_loss_weights(const struct loss_mode *m,
    const struct advmath_lw *p, int scope_group, const struct batch *v,
    const double *adv, double *w, struct diag *d)
{
	struct advmath_lscope bs;
	size_t n = v->n, ng = v->ngroups, blocks;

	/* Rollouts (--rollout-key) join records across groups: the CPU
	 * has them. */
	if (n == 0 || ng == 0 || loss_weights_by_rollout(m, v))
		return 1;
	blocks = (ng + G_THREADS - 1) / G_THREADS;
	if (blocks > 0x7fffffff)
		return 1;	/* past the grid: let the CPU have it */
	/* The batch's totals: the CPU's call, in its order. */
	memset(&bs, 0, sizeof(bs));
	if (!scope_group)
		loss_weights_scope(v, 0, ng, &bs);
	if (gpu_put(&d_T, v->T, n * sizeof(double), d) != 0 ||
	    gpu_put(&d_adv, adv, n * sizeof(double), d) != 0 ||
	    gpu_put(&d_goff, v->goff, (ng + 1) * sizeof(size_t), d) != 0 ||
	    gpu_need(&d_w, n * sizeof(double), d) != 0)
		return -1;
	CUDA_LAUNCH(k_loss_weights, (unsigned)blocks, G_THREADS, 0)(m->kind,
	    *p, scope_group, bs, (const double *)d_T.p,
	    (const double *)d_adv.p, (const size_t *)d_goff.p, ng,
	    (double *)d_w.p);
	if (gpu_launched(d, "loss weight kernel") != 0)
		return -1;
	CK(cudaMemcpy(w, d_w.p, n * sizeof(double), cudaMemcpyDeviceToHost),
	    "loss weight kernel, or the copy back");
	return 0;
}

/* ------------------------------------------------------------- entry */

int
backend_cuda_advantages(const struct estimator *e, struct adv_params *ap,
    const struct batch *v, double *adv, struct diag *d)
{
	struct gparams p;
	int rc;

	switch (e->kind) {
	case EST_MSGRPO:
		return backend_cuda_ms_advantages(ap, v, adv, d);
	case EST_GRPO:
	case EST_DRGRPO:
	case EST_RLOO:
	case EST_SAN:
	case EST_STRATIFIED:
	case EST_OPO:
	case EST_RPP_BASELINE:
	case EST_GRPO_WHITEN:
	case EST_PASSK:
	case EST_GPG:
	case EST_LOO:
		break;		/* k_groups' */
	default:
		return 1;	/* no kernel (rpp, remax, gdpo): the CPU
				   runs it */
	}
	memset(&p, 0, sizeof(p));
	p.kind = e->kind;
	p.sample = ap->sample;
	p.eps = ap->eps;
	p.unit = ap->unit;
	p.eps1 = ap->unit != 1 ? ap->eps1 : ap->eps;
	p.alpha = ap->alpha;
	p.verl = (ap->single & EST_BIT(e->kind)) != 0;
	p.scope = ap->std_scope;
	p.gn_batch = ap->gn_batch;
	p.inside = ap->eps_inside;
	/* drgrpo keeps --gn-scope batch (the batch's baseline). */
	if (e->kind == EST_DRGRPO || e->kind == EST_RPP_BASELINE)
		p.scope = STD_NONE;
	if (e->kind == EST_RPP_BASELINE)
		p.gn_batch = 0;
	if (v->n == 0 || v->ngroups == 0)
		return 1;
	if ((p.kind == EST_SAN || p.kind == EST_STRATIFIED) &&
	    (v->strat == NULL || v->nstrat == NULL))
		return 1;
	if ((p.kind == EST_OPO || p.kind == EST_RPP_BASELINE ||
	    p.kind == EST_GRPO_WHITEN) && v->T == NULL)
		return 1;
	if (p.kind == EST_PASSK && advantage_passk_single(v, ap, d) != 0)
		return -1;
	if (p.kind == EST_GPG)
		p.galpha = advantage_gpg_alpha(v);
	/* The batch's moments: the CPU's call, so the CPU's bits. */
	if (p.gn_batch || p.scope == STD_BATCH)
		p.bm = advmath_moments(v->r, NULL, 0, v->n, p.sample);
	if ((rc = groups_on_gpu(&p, v, adv, d)) != 0)
		return rc;
	/* The whitening is a reduction over the batch: the host's. */
	if (p.kind == EST_RPP_BASELINE || p.kind == EST_GRPO_WHITEN)
		advmath_whiten(adv, v->T, v->n, &ap->wh);
	return 0;
}
