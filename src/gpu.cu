/*
 * gpu.cu - the CUDA backend's calls into the runtime: every one checked,
 * a failure reported as status 3 in the runtime's words, and device
 * buffers kept between batches (plain cudaMalloc, grown as needed).
 */
#include <stddef.h>

#include <cuda_runtime.h>

#include "gpu.h"

int
gpu_fail(struct diag *d, const char *what, cudaError_t e)
{
	diag_set(d, EXIT_IO, "CUDA: %s: %s", what, cudaGetErrorString(e));
	return -1;
}

/* A quarter more than asked, so that a slowly growing batch size does
 * not reallocate every time; exactly what was asked when that fails. */
int
gpu_need(struct dbuf *b, size_t bytes, struct diag *d)
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

int
gpu_put(struct dbuf *b, const void *src, size_t bytes,
    struct diag *d)
{
	if (gpu_need(b, bytes, d) != 0)
		return -1;
	if (bytes > 0)
		CK(cudaMemcpy(b->p, src, bytes, cudaMemcpyHostToDevice),
		    "cudaMemcpy to the device");
	return 0;
}

int
gpu_launched(struct diag *d, const char *kernel)
{
	cudaError_t e = cudaGetLastError();

	if (e != cudaSuccess)
		return gpu_fail(d, kernel, e);
	return 0;
}
