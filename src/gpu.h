/*
 * gpu.h - what the CUDA backend's .cu files share: checked calls into the
 * CUDA runtime, and device buffers that the backend owns and keeps
 * between batches (gpu.cu).  C++ under nvcc (or under g++ with
 * tests/cuda_emu), never seen by the C files.
 */
#ifndef RLADV_GPU_H
#define RLADV_GPU_H

#include <stddef.h>

#include <cuda_runtime.h>

extern "C" {
#include "diag.h"
}

/*
 * A launch and a kernel's dynamic shared memory, as macros so that the
 * CPU emulation of the runtime that make check compiles the backend with
 * (tests/cuda_emu/cuda_runtime.h) can stand in for them.
 */
#ifndef CUDA_LAUNCH
#define CUDA_LAUNCH(kernel, grid, block, shmem)				\
	kernel<<<(grid), (block), (shmem)>>>
#endif
#ifndef CUDA_DYNAMIC_SHARED
#define CUDA_DYNAMIC_SHARED(type, name)	extern __shared__ type name[]
#endif

/* Returns gpu_fail()'s -1 from the caller when call fails. */
#define CK(call, what)							\
	do {								\
		cudaError_t e_ = (call);				\
		if (e_ != cudaSuccess)					\
			return gpu_fail(d, (what), e_);	\
	} while (0)

/* A device buffer kept between batches, grown when a batch needs more. */
struct dbuf {
	void	*p;
	size_t	 cap;
};

/* Sets d ("CUDA: what: the runtime's words", status 3); returns -1. */
int	gpu_fail(struct diag *d, const char *what, cudaError_t e);
/* Grows b to at least bytes (0, or -1 with d set). */
int	gpu_need(struct dbuf *b, size_t bytes, struct diag *d);
/* Copies bytes of host memory at src into b, growing it. */
int	gpu_put(struct dbuf *b, const void *src, size_t bytes,
	    struct diag *d);
/* 0 when the last launch (of "kernel") went; -1 with d set when not. */
int	gpu_launched(struct diag *d, const char *kernel);

#endif
