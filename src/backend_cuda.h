/*
 * backend_cuda.h - the CUDA backend's entry points (make CUDA=1).  The
 * caller owns every array; device memory is the backend's own.
 */
#ifndef RLADV_BACKEND_CUDA_H
#define RLADV_BACKEND_CUDA_H

#ifdef RLADV_CUDA
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* The project's headers are C: under nvcc their functions keep C linkage. */
#ifdef __cplusplus
extern "C" {
#endif
#include "advantage.h"
#include "advmath.h"
#include "advmath_lw.h"
#include "advmath_ms.h"
#include "diag.h"
#include "loss_weights.h"
#include "msgrpo.h"

/*
 * 1 when a GPU can be used (device 0 of those CUDA_VISIBLE_DEVICES
 * leaves, compute capability 8.0 or later); else 0 with why filled.
 */
int	backend_cuda_available(char *why, size_t cap);
/*
 * Advantages of a batch on the GPU: 0 done, 1 no kernel for this
 * estimator or this batch (the CPU runs it), -1 error (d set, status 3).
 */
int	backend_cuda_advantages(const struct estimator *e,
	    struct adv_params *ap, const struct batch *v, double *adv,
	    struct diag *d);
/* MS-GRPO's part of backend_cuda_advantages() (backend_cuda_ms.cu). */
int	backend_cuda_ms_advantages(struct adv_params *ap,
	    const struct batch *b, double *adv, struct diag *d);
/*
 * Loss weights of a batch on the GPU, mode m, the scope the batch
 * (scope_group 0) or each group: 0 done, 1 the CPU runs it, -1 error
 * (d set).
 */
int	backend_cuda_loss_weights(const struct loss_mode *m,
	    const struct advmath_lw *p, int scope_group, const struct batch *v,
	    const double *adv, double *w, struct diag *d);
#ifdef __cplusplus
}
#endif
#endif

#endif
