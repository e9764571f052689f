/*
 * tests/cuda_emu/selftest.cc - checks the CPU emulation of the CUDA
 * runtime (cuda_runtime.h here), using it as the backend's .cu files do:
 * kernels launched with CUDA_LAUNCH, dynamic shared memory declared with
 * CUDA_DYNAMIC_SHARED.  Prints "cuda_emu selftest: N passed" and exits 0,
 * or names the first failure and exits 1.
 *
 *	g++ -std=c++17 -Wall -Wextra -Itests/cuda_emu \
 *	    -o selftest tests/cuda_emu/selftest.cc
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

static int npassed;

[[noreturn]] __attribute__((format(printf, 1, 2))) static void
bad(const char *fmt, ...)
{
	va_list ap;

	fputs("cuda_emu selftest: FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void
ok(void)
{
	npassed++;
}

/* A runtime call that must succeed. */
#define MUST(call)							\
	do {								\
		cudaError_t e_ = (call);				\
		if (e_ != cudaSuccess)					\
			bad("%s:%d: %s: %s", __FILE__, __LINE__, #call,	\
			    cudaGetErrorString(e_));			\
	} while (0)

static void *
dev_alloc(size_t n)
{
	void *p = NULL;

	MUST(cudaMalloc(&p, n));
	return p;
}

/* ------------------------------------------------------------ kernels */

/*
 * (a) Each block sums its threads' values in dynamic shared memory:
 * every thread stores its value, thread 0 sums them after the first
 * barrier, every thread reads the sum after the second.  fresh[] says
 * whether the thread's slot read as NaN before it wrote it, i.e. whether
 * the shared memory was refilled at the block's start.
 */
__global__ void
k_blocksum(const double *in, unsigned n, double *sum, int *fresh)
{
	CUDA_DYNAMIC_SHARED(double, buf);	/* [blockDim.x + 1] */
	unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t, j;
	double s;

	fresh[i] = isnan(buf[t]);
	buf[t] = i < n ? in[i] : 0.0;
	__syncthreads();
	if (t == 0) {
		s = 0.0;
		for (j = 0; j < blockDim.x; j++)
			s += buf[j];
		buf[blockDim.x] = s;
	}
	__syncthreads();
	sum[i] = buf[blockDim.x];
}

/*
 * (b) A __shared__ array written by thread 0 and by the last thread
 * before the barrier is seen by every thread after it.  The last
 * thread's write shows that the barrier really holds the others: without
 * it, thread 0 would run to its end before the last thread started.
 */
__global__ void
k_static(unsigned *seen)
{
	__shared__ unsigned v[2];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (threadIdx.x == 0)
		v[0] = 1000 * blockIdx.x + 7;
	if (threadIdx.x == blockDim.x - 1)
		v[1] = 1000 * blockIdx.x + 9;
	__syncthreads();
	seen[2 * i] = v[0];
	seen[2 * i + 1] = v[1];
}

/* (c) What each thread sees of its coordinates. */
struct coords {
	unsigned	t[3], b[3], bd[3], gd[3];
};

__global__ void
k_coords(struct coords *c)
{
	struct coords *o = c + blockIdx.x * blockDim.x + threadIdx.x;

	o->t[0] = threadIdx.x, o->t[1] = threadIdx.y, o->t[2] = threadIdx.z;
	o->b[0] = blockIdx.x, o->b[1] = blockIdx.y, o->b[2] = blockIdx.z;
	o->bd[0] = blockDim.x, o->bd[1] = blockDim.y, o->bd[2] = blockDim.z;
	o->gd[0] = gridDim.x, o->gd[1] = gridDim.y, o->gd[2] = gridDim.z;
}

/* (d), (f): one value per thread, and a struct argument by value. */
struct scale {
	double	mul;
	double	add;
};

__global__ void
k_affine(struct scale s, const double *in, double *out, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = in[i] * s.mul + s.add;
	s.mul = -1.0;	/* the thread's own copy: no other thread sees it */
}

/* (g) A deeper barrier: a tree reduction, log2(blockDim.x) barriers. */
__global__ void
k_tree(const double *in, double *out)
{
	CUDA_DYNAMIC_SHARED(double, buf);
	unsigned t = threadIdx.x, s;

	buf[t] = in[blockIdx.x * blockDim.x + t];
	__syncthreads();
	for (s = blockDim.x / 2; s > 0; s /= 2) {
		if (t < s)
			buf[t] += buf[t + s];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = buf[0];
}

/* (h) Misuse that the emulator must stop. */
__global__ void
k_divergent(double *out)
{
	if (threadIdx.x % 2 == 1)
		return;
	__syncthreads();
	out[threadIdx.x] = 1.0;
}

__global__ void
k_touch(double *out)
{
	out[threadIdx.x] = 2.0;
}

/* -------------------------------------------------------------- tests */

static void
test_blocksum(unsigned grid, unsigned block)
{
	unsigned n = grid * block - (block > 1 ? block / 3 : 0), i, b;
	size_t all = (size_t)grid * block;
	double *h = (double *)malloc(n * sizeof(double));
	double *hs = (double *)malloc(all * sizeof(double));
	int *hf = (int *)malloc(all * sizeof(int));
	double *d_in, *d_sum, want;
	int *d_fresh;

	if (h == NULL || hs == NULL || hf == NULL)
		bad("out of memory");
	for (i = 0; i < n; i++)
		h[i] = (double)(i % 97) - 40.0 + 0.5;	/* exact sums */
	d_in = (double *)dev_alloc(n * sizeof(double));
	d_sum = (double *)dev_alloc(all * sizeof(double));
	d_fresh = (int *)dev_alloc(all * sizeof(int));
	MUST(cudaMemcpy(d_in, h, n * sizeof(double), cudaMemcpyHostToDevice));
	CUDA_LAUNCH(k_blocksum, grid, block, (block + 1) * sizeof(double))(
	    d_in, n, d_sum, d_fresh);
	MUST(cudaGetLastError());
	MUST(cudaMemcpy(hs, d_sum, all * sizeof(double),
	    cudaMemcpyDeviceToHost));
	MUST(cudaMemcpy(hf, d_fresh, all * sizeof(int),
	    cudaMemcpyDeviceToHost));
	for (b = 0; b < grid; b++) {
		want = 0.0;
		for (i = b * block; i < (b + 1) * block && i < n; i++)
			want += h[i];
		for (i = b * block; i < (b + 1) * block; i++) {
			if (hs[i] != want)
				bad("blocksum grid %u block %u: thread %u of "
				    "block %u has %g, want %g", grid, block,
				    i - b * block, b, hs[i], want);
			if (!hf[i])
				bad("blocksum grid %u block %u: dynamic shared "
				    "memory not NaN at block %u's start", grid,
				    block, b);
		}
	}
	MUST(cudaFree(d_in));
	MUST(cudaFree(d_sum));
	MUST(cudaFree(d_fresh));
	free(h);
	free(hs);
	free(hf);
	ok();
}

static void
test_static(void)
{
	const unsigned grid = 4, block = 96;
	unsigned h[2 * grid * block], i, b;
	unsigned *d = (unsigned *)dev_alloc(sizeof(h));

	CUDA_LAUNCH(k_static, grid, block, 0)(d);
	MUST(cudaGetLastError());
	MUST(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (i = 0; i < grid * block; i++) {
		b = i / block;
		if (h[2 * i] != 1000 * b + 7 || h[2 * i + 1] != 1000 * b + 9)
			bad("__shared__: thread %u of block %u saw %u, %u; "
			    "want %u, %u", i % block, b, h[2 * i],
			    h[2 * i + 1], 1000 * b + 7, 1000 * b + 9);
	}
	MUST(cudaFree(d));
	ok();
}

static void
test_coords(void)
{
	const unsigned grid = 5, block = 37;
	struct coords h[grid * block];
	struct coords *d = (struct coords *)dev_alloc(sizeof(h));
	unsigned i, k;

	CUDA_LAUNCH(k_coords, grid, block, 0)(d);
	MUST(cudaGetLastError());
	MUST(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (i = 0; i < grid * block; i++) {
		unsigned want[4][3] = {{i % block, 0, 0}, {i / block, 0, 0},
		    {block, 1, 1}, {grid, 1, 1}};
		const unsigned *got[4] = {h[i].t, h[i].b, h[i].bd, h[i].gd};

		for (k = 0; k < 12; k++)
			if (got[k / 3][k % 3] != want[k / 3][k % 3])
				bad("coordinates of thread %u: field %u.%c is "
				    "%u, want %u", i, k / 3, "xyz"[k % 3],
				    got[k / 3][k % 3], want[k / 3][k % 3]);
	}
	MUST(cudaFree(d));
	ok();
}

static void
test_bad_launch(void)
{
	struct bad_cfg {
		unsigned	grid, block;
		size_t		shmem;
	} cfg[] = {{1, 0, 0}, {1, 2048, 0}, {0, 32, 0}, {1, 32, 48 * 1024 + 1}};
	struct scale s = {2.0, 1.0};
	double h[32], *d_in, *d_out;
	size_t k, i;

	d_in = (double *)dev_alloc(sizeof(h));
	d_out = (double *)dev_alloc(sizeof(h));
	for (i = 0; i < 32; i++)
		h[i] = (double)i;
	MUST(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
	MUST(cudaMemset(d_out, 0, sizeof(h)));
	for (k = 0; k < sizeof(cfg) / sizeof(cfg[0]); k++) {
		CUDA_LAUNCH(k_affine, cfg[k].grid, cfg[k].block,
		    cfg[k].shmem)(s, d_in, d_out, 32);
		if (cudaGetLastError() != cudaErrorInvalidValue)
			bad("launch <<<%u, %u, %zu>>> did not set "
			    "cudaErrorInvalidValue", cfg[k].grid,
			    cfg[k].block, cfg[k].shmem);
		if (cudaGetLastError() != cudaSuccess)
			bad("cudaGetLastError did not clear the error");
		MUST(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
		for (i = 0; i < 32; i++)
			if (h[i] != 0.0)
				bad("launch <<<%u, %u, %zu>>> ran", cfg[k].grid,
				    cfg[k].block, cfg[k].shmem);
	}
	/* A good launch after them works and leaves no error. */
	CUDA_LAUNCH(k_affine, 1, 32, 0)(s, d_in, d_out, 32);
	MUST(cudaGetLastError());
	MUST(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
	for (i = 0; i < 32; i++)
		if (h[i] != 2.0 * (double)i + 1.0)
			bad("k_affine: out[%zu] = %g, want %g", i, h[i],
			    2.0 * (double)i + 1.0);
	MUST(cudaFree(d_in));
	MUST(cudaFree(d_out));
	ok();
}

static void
test_memlimit(void)
{
	void *a = NULL, *b = NULL;

	setenv("RLADV_EMU_MEMLIMIT", "1000000", 1);
	if (cudaMalloc(&a, 2000000) != cudaErrorMemoryAllocation || a != NULL)
		bad("cudaMalloc past RLADV_EMU_MEMLIMIT did not fail");
	if (cudaGetLastError() != cudaErrorMemoryAllocation ||
	    cudaGetLastError() != cudaSuccess)
		bad("cudaGetLastError after a failed cudaMalloc");
	MUST(cudaMalloc(&a, 600000));
	if (cudaMalloc(&b, 600000) != cudaErrorMemoryAllocation)
		bad("RLADV_EMU_MEMLIMIT does not count live allocations");
	(void)cudaGetLastError();
	MUST(cudaFree(a));
	MUST(cudaMalloc(&b, 600000));	/* freed memory counts no more */
	MUST(cudaFree(b));
	unsetenv("RLADV_EMU_MEMLIMIT");
	if (strcmp(cudaGetErrorString(cudaErrorMemoryAllocation),
	    "out of memory") != 0)
		bad("cudaGetErrorString(cudaErrorMemoryAllocation)");
	ok();
}

static void
test_fresh_nan(void)
{
	const size_t n = 300;
	struct scale s = {3.0, 0.0};
	double h[n], *d_in, *d_out;
	size_t i;

	d_in = (double *)dev_alloc(n * sizeof(double));
	d_out = (double *)dev_alloc(n * sizeof(double));
	MUST(cudaMemcpy(h, d_in, sizeof(h), cudaMemcpyDeviceToHost));
	for (i = 0; i < n; i++)
		if (!isnan(h[i]))
			bad("fresh device memory: [%zu] = %g, not NaN", i,
			    h[i]);
	/* A kernel reading what nobody wrote gives NaN. */
	CUDA_LAUNCH(k_affine, 3, 128, 0)(s, d_in, d_out, n);
	MUST(cudaGetLastError());
	MUST(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
	for (i = 0; i < n; i++)
		if (!isnan(h[i]))
			bad("kernel on unwritten memory: [%zu] = %g", i, h[i]);
	MUST(cudaFree(d_in));
	MUST(cudaFree(d_out));
	ok();
}

static void
test_tree(void)
{
	const unsigned grid = 6, block = 256;
	double h[grid * block], out[grid], want, *d_in, *d_out;
	unsigned i, b;

	for (i = 0; i < grid * block; i++)
		h[i] = (double)(i * 7 % 31);
	d_in = (double *)dev_alloc(sizeof(h));
	d_out = (double *)dev_alloc(sizeof(out));
	MUST(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
	CUDA_LAUNCH(k_tree, grid, block, block * sizeof(double))(d_in, d_out);
	MUST(cudaGetLastError());
	MUST(cudaMemcpy(out, d_out, sizeof(out), cudaMemcpyDeviceToHost));
	for (b = 0; b < grid; b++) {
		want = 0.0;
		for (i = b * block; i < (b + 1) * block; i++)
			want += h[i];
		if (out[b] != want)
			bad("tree reduction: block %u has %g, want %g", b,
			    out[b], want);
	}
	MUST(cudaFree(d_in));
	MUST(cudaFree(d_out));
	ok();
}

static void
test_device(void)
{
	struct cudaDeviceProp pr;
	int n = -1;

	MUST(cudaGetDeviceCount(&n));
	if (n != 1)
		bad("cudaGetDeviceCount: %d devices", n);
	MUST(cudaGetDeviceProperties(&pr, 0));
	if (strcmp(pr.name, "rladv CUDA emulator (CPU)") != 0 ||
	    pr.major != 9 || pr.minor != 0 || pr.sharedMemPerBlock <
	    48 * 1024)
		bad("cudaGetDeviceProperties: %s %d.%d", pr.name, pr.major,
		    pr.minor);
	MUST(cudaSetDevice(0));
	MUST(cudaFree(0));
	MUST(cudaDeviceSynchronize());
	setenv("RLADV_EMU_NODEV", "1", 1);
	if (cudaGetDeviceCount(&n) != cudaErrorNoDevice || n != 0)
		bad("RLADV_EMU_NODEV: cudaGetDeviceCount did not fail");
	unsetenv("RLADV_EMU_NODEV");
	(void)cudaGetLastError();
	if (CUDART_VERSION != 13000)
		bad("CUDART_VERSION %d", CUDART_VERSION);
	ok();
}

/*
 * (h) Runs f in a child, which must abort with a message on stderr that
 * contains want.
 */
static void
must_abort(const char *what, void (*f)(void), const char *want)
{
	char buf[4096];
	size_t len = 0;
	ssize_t r;
	int fd[2], st;
	pid_t pid;

	fflush(NULL);
	if (pipe(fd) != 0 || (pid = fork()) == -1)
		bad("%s: pipe or fork failed", what);
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		f();
		_exit(0);
	}
	close(fd[1]);
	while (len < sizeof(buf) - 1 &&
	    (r = read(fd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	close(fd[0]);
	if (waitpid(pid, &st, 0) != pid)
		bad("%s: waitpid failed", what);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT)
		bad("%s: the child did not abort (status %#x)", what, st);
	if (strstr(buf, "rladv CUDA emulator: ") == NULL ||
	    strstr(buf, want) == NULL)
		bad("%s: the message does not say \"%s\": %s", what, want, buf);
	ok();
}

static void
abort_divergent(void)
{
	double *d = (double *)dev_alloc(64 * sizeof(double));

	CUDA_LAUNCH(k_divergent, 1, 64, 0)(d);
}

static void
abort_host_arg(void)
{
	static double h[32];

	CUDA_LAUNCH(k_touch, 1, 32, 0)(h);
}

static void
abort_freed_arg(void)
{
	double *d = (double *)dev_alloc(32 * sizeof(double));

	MUST(cudaFree(d));
	CUDA_LAUNCH(k_touch, 1, 32, 0)(d);
}

static void
abort_h2d_host_dst(void)
{
	double a[4] = {0}, b[4] = {0};

	(void)cudaMemcpy(a, b, sizeof(a), cudaMemcpyHostToDevice);
}

static void
abort_h2d_overrun(void)
{
	double a[5] = {0}, *d = (double *)dev_alloc(4 * sizeof(double));

	(void)cudaMemcpy(d, a, sizeof(a), cudaMemcpyHostToDevice);
}

static void
abort_d2h_wrong_way(void)
{
	double a[4] = {0}, *d = (double *)dev_alloc(sizeof(a));

	/* Arguments swapped: the device pointer as destination. */
	(void)cudaMemcpy(d, a, sizeof(a), cudaMemcpyDeviceToHost);
}

static void
abort_memset_overrun(void)
{
	char *d = (char *)dev_alloc(16);

	(void)cudaMemset(d + 8, 0, 9);
}

static void
abort_free_unknown(void)
{
	char *d = (char *)dev_alloc(16);

	(void)cudaFree(d + 1);
}

int
main(void)
{
	static const unsigned sizes[][2] = {{3, 128}, {1, 1}, {5, 33},
	    {2, 1024}, {7, 64}, {1, 1000}};
	size_t k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		test_blocksum(sizes[k][0], sizes[k][1]);
	test_static();
	test_coords();
	test_bad_launch();
	test_memlimit();
	test_fresh_nan();
	test_tree();
	test_device();
	must_abort("divergent barrier", abort_divergent, "divergent barrier");
	must_abort("host pointer argument", abort_host_arg,
	    "is not device memory");
	must_abort("freed pointer argument", abort_freed_arg,
	    "is not device memory");
	must_abort("host to device into host memory", abort_h2d_host_dst,
	    "is not inside one device allocation");
	must_abort("host to device past the end", abort_h2d_overrun,
	    "is not inside one device allocation");
	must_abort("device to host the wrong way", abort_d2h_wrong_way,
	    "is not inside one device allocation");
	must_abort("cudaMemset past the end", abort_memset_overrun,
	    "not inside one device allocation");
	must_abort("cudaFree of an unknown pointer", abort_free_unknown,
	    "not the start of a live device allocation");
	printf("cuda_emu selftest: %d passed\n", npassed);
	return 0;
}
