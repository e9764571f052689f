/*
 * backend_cuda.h - the CUDA backend's entry points (make CUDA=1).  The
 * caller owns every array; device memory is the backend's own.
 */
#ifndef RLADV_BACKEND_CUDA_H
#define RLADV_BACKEND_CUDA_H

#ifdef RLADV_CUDA
#include <stddef.h>

#include "advantage.h"
#include "diag.h"

#ifdef __cplusplus
extern "C" {
#endif
/* 1 when a GPU can be used; else 0 with why filled. */
int	cuda_available(char *why, size_t cap);
/* 0 done, 1 no kernel for this estimator (the CPU runs it), -1 error. */
int	cuda_advantages(const char *estimator, struct adv_params *ap,
	    const struct batch *v, double *adv, struct diag *d);
#ifdef __cplusplus
}
#endif
#endif

#endif
