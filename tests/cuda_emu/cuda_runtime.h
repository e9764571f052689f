/*
 * tests/cuda_emu/cuda_runtime.h - the part of the CUDA runtime that the
 * .cu files of src use, emulated on the CPU, so that g++ compiles the
 * real .cu files (-x c++ -Itests/cuda_emu) and make check runs their
 * kernels on a machine without a GPU.  For tests only, never for production: it
 * is slow, and it is not a GPU.
 *
 * What it does:
 *  - Device memory is host malloc(), tracked in a map of live
 *    allocations and filled with 0xff bytes (NaN doubles) when allocated,
 *    so that a kernel that reads what nobody wrote produces NaN instead
 *    of the zeros that fresh pages would give.
 *  - A launch, CUDA_LAUNCH(kernel, grid, block, shmem)(args...), runs the
 *    blocks one after another; inside a block the threads are cooperative
 *    fibers (ucontext) on the calling thread, run round robin: each runs
 *    until it calls __syncthreads() or returns.  Each fiber has a stack
 *    of STACK_BYTES above a guard page, mapped once per launch.
 *  - cudaGetLastError() returns the last error of any call (a failed
 *    cudaMalloc too), and clears it, as the real runtime does.
 *
 * What it checks, aborting with "rladv CUDA emulator: ..." on stderr:
 *  - cudaMemcpy: the device side must lie inside one live allocation and
 *    the host side must not touch device memory (the direction is right);
 *    cudaMemset inside one allocation; cudaFree of a live allocation (or
 *    NULL) only.
 *  - A kernel's pointer arguments, when not NULL, must point into (or
 *    just past the end of) a live device allocation: a real GPU would
 *    fault on a host pointer.  A pointer inside a struct argument is not
 *    seen.
 *  - Divergent barriers: a pass in which some threads of a block returned
 *    while others wait at __syncthreads() (undefined on a GPU).
 *  - A bad launch (block 0 or over 1024 threads, grid 0 or past 2^31-1,
 *    over 48 KiB of dynamic shared memory) runs nothing and leaves
 *    cudaErrorInvalidValue for cudaGetLastError(), as the real runtime
 *    does.  RLADV_EMU_MEMLIMIT=<bytes> makes cudaMalloc fail with
 *    cudaErrorMemoryAllocation once the live total would pass it;
 *    RLADV_EMU_NODEV makes cudaGetDeviceCount report no device.
 *
 * What it cannot show:
 *  - timing, occupancy, and the real device's memory limits;
 *  - the device's rounding: the host compiler decides about fused
 *    multiply-add here, while the real build passes -fmad=false; a kernel
 *    that agrees with the CPU here may still differ on a device that
 *    fuses, and the other way round;
 *  - races between threads of a block: fibers interleave only at
 *    barriers, in thread order, so a missing __syncthreads() between a
 *    write by one thread and a read by a later one goes unnoticed, and
 *    blocks never overlap, so races between blocks cannot show either;
 *  - __shared__ is "static" here: blocks run one at a time, so a static
 *    local is per block in effect, but it keeps the previous block's
 *    values (zeros at first) where a GPU would give garbage.  Dynamic
 *    shared memory (CUDA_DYNAMIC_SHARED) is refilled with 0xff (NaN) at
 *    each block's start.
 *
 * Header-only (inline functions and C++17 inline variables), compiled
 * with g++ -std=c++17.  Not thread-safe: one host thread launches (rladv
 * computes one batch at a time).  Under AddressSanitizer every fiber
 * switch is announced with __sanitizer_start_switch_fiber() and
 * __sanitizer_finish_switch_fiber(); libasan still prints one line,
 * "WARNING: ASan doesn't fully support makecontext/swapcontext functions
 * and may produce false positives in some cases!", on the first
 * swapcontext() of a process, whatever the annotations.
 */
#ifndef RLADV_CUDA_EMU_RUNTIME_H
#define RLADV_CUDA_EMU_RUNTIME_H

#include <sys/mman.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <map>
#include <tuple>
#include <type_traits>
#include <utility>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#define CUDART_VERSION	13000

/* The real runtime's values, so that a message quoting one reads true. */
enum cudaError {
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorMemoryAllocation = 2,
	cudaErrorInsufficientDriver = 35,
	cudaErrorNoDevice = 100,
	cudaErrorInvalidDevice = 101,
	cudaErrorLaunchFailure = 719
};
typedef enum cudaError cudaError_t;

/* Only the two directions rladv copies in; any other will not compile. */
enum cudaMemcpyKind {
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2
};

struct cudaDeviceProp {
	char	name[256];
	size_t	totalGlobalMem;
	size_t	sharedMemPerBlock;
	int	warpSize;
	int	maxThreadsPerBlock;
	int	multiProcessorCount;
	int	major;
	int	minor;
};

struct uint3 {
	unsigned int	x, y, z;
};

struct dim3 {
	unsigned int	x, y, z;

	constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
	    unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};

/* Every function is both host and device code here. */
#define __global__
#define __host__
#define __device__
/*
 * Blocks run one at a time, so a static local is the block's own in
 * effect; see the caveat at the top.
 */
#define __shared__	static

namespace cuda_emu {

constexpr size_t	MAX_THREADS = 1024;	/* per block */
constexpr size_t	MAX_DYN_SHARED = 48 * 1024;	/* bytes per block */
constexpr size_t	STACK_BYTES = 256 * 1024;	/* per fiber */
/* Past ASan's largest malloc: fail as a full device would instead. */
constexpr size_t	MAX_ALLOC = (size_t)1 << 40;

enum { F_RUN, F_BARRIER, F_DONE };

struct fiber {
	ucontext_t	uc;
	int		state;
};

/* The launch being run: fibers, stacks, and how to call the kernel. */
struct run {
	const char	*kernel;	/* its name, for messages */
	void		(*body)(const void *);	/* calls it with args */
	const void	*args;
	fiber		*fib;
	unsigned	 cur;		/* the fiber running now */
	char		*map;		/* stacks, each above a guard page */
	size_t		 maplen;
	size_t		 stride;
	void		*shared;	/* dynamic shared memory */
	ucontext_t	 sched;		/* the launching (host) side */
	const void	*sched_bottom;	/* its stack, for ASan */
	size_t		 sched_size;
};

/*
 * makecontext() passes only ints to a fiber's function: the fiber finds
 * its launch here instead.
 */
inline run	*active;
inline cudaError_t last_error = cudaSuccess;
inline size_t	 live_bytes;
inline uint3	 tid, bid;
inline dim3	 bdim, gdim;

[[noreturn]] __attribute__((format(printf, 1, 2))) inline void
fail(const char *fmt, ...)
{
	va_list ap;

	fputs("rladv CUDA emulator: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Records e as the runtime does, for cudaGetLastError(), and returns it. */
inline cudaError_t
ret(cudaError_t e)
{
	if (e != cudaSuccess)
		last_error = e;
	return e;
}

/*
 * Live allocations, start to size.  Never destroyed, so that a cudaFree()
 * run by an atexit handler still finds its allocation.
 */
inline std::map<uintptr_t, size_t> &
allocs()
{
	static std::map<uintptr_t, size_t> *m =
	    new std::map<uintptr_t, size_t>;

	return *m;
}

/* The allocation that holds address p, or end(). */
inline std::map<uintptr_t, size_t>::iterator
find(const void *p)
{
	std::map<uintptr_t, size_t> &m = allocs();
	uintptr_t a = (uintptr_t)p;
	auto it = m.upper_bound(a);

	if (it == m.begin())
		return m.end();
	--it;
	return a - it->first < it->second ? it : m.end();
}

/* Whether [p, p + n) lies inside one live allocation. */
inline bool
inside(const void *p, size_t n)
{
	auto it = find(p);

	return it != allocs().end() &&
	    n <= it->second - ((uintptr_t)p - it->first);
}

/* Whether [p, p + n) overlaps any live allocation. */
inline bool
touches(const void *p, size_t n)
{
	std::map<uintptr_t, size_t> &m = allocs();
	uintptr_t a = (uintptr_t)p;
	auto it = m.lower_bound(a + n > a ? a + n : UINTPTR_MAX);

	if (it == m.begin())
		return false;
	--it;
	return it->first + it->second > a;
}

/*
 * A pointer argument may also be one past an allocation's end (an empty
 * slice at its end is fine on a GPU until it is read).
 */
inline void
check_arg(const char *kernel, size_t i, const void *p)
{
	std::map<uintptr_t, size_t> &m = allocs();
	auto it = m.upper_bound((uintptr_t)p);

	if (p == NULL)
		return;
	if (it != m.begin()) {
		--it;
		if ((uintptr_t)p - it->first <= it->second)
			return;
	}
	fail("kernel %s: argument %zu (%p) is not device memory", kernel,
	    i + 1, p);
}

template <typename T>
inline void
check_one(const char *kernel, size_t i, const T &v)
{
	if constexpr (std::is_pointer_v<T> &&
	    !std::is_function_v<std::remove_pointer_t<T>>)
		check_arg(kernel, i, (const void *)v);
	else {
		(void)kernel;
		(void)i;
		(void)v;
	}
}

/* The lowest address of fiber t's stack, just above its guard page. */
inline char *
stack_of(const run *r, unsigned t)
{
	return r->map + t * r->stride + (r->stride - STACK_BYTES);
}

/* Switches from the host side into fiber t, until it yields. */
inline void
resume(run *r, unsigned t)
{
#ifdef __SANITIZE_ADDRESS__
	void *fake = NULL;

	__sanitizer_start_switch_fiber(&fake, stack_of(r, t), STACK_BYTES);
#endif
	r->cur = t;
	tid.x = t;
	if (swapcontext(&r->sched, &r->fib[t].uc) != 0)
		fail("swapcontext failed");
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}

/* Where every fiber starts: the kernel, then back for good. */
inline void
fiber_main(void)
{
	run *r = active;

#ifdef __SANITIZE_ADDRESS__
	/* Learns the host side's stack, to switch back to it. */
	__sanitizer_finish_switch_fiber(NULL, &r->sched_bottom,
	    &r->sched_size);
#endif
	r->body(r->args);
	r->fib[r->cur].state = F_DONE;
#ifdef __SANITIZE_ADDRESS__
	/* NULL: this fiber is left for good, its fake stack can go. */
	__sanitizer_start_switch_fiber(NULL, r->sched_bottom, r->sched_size);
#endif
	swapcontext(&r->fib[r->cur].uc, &r->sched);
	fail("kernel %s: a finished thread was resumed", r->kernel);
}

inline void *
dyn_shared(void)
{
	if (active == NULL)
		fail("dynamic shared memory outside a kernel");
	return active->shared;
}

/* Runs a checked launch: block after block, threads as fibers. */
inline void
execute(const char *kernel, unsigned grid, unsigned block, size_t shmem,
    void (*body)(const void *), const void *args)
{
	run r;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned b, t, nwait, ndone;

	if (active != NULL)
		fail("kernel %s launched from kernel %s", kernel,
		    active->kernel);
	memset(&r, 0, sizeof(r));
	r.kernel = kernel;
	r.body = body;
	r.args = args;
	/*
	 * One mapping per launch, reused by every block; a PROT_NONE page
	 * below each stack turns an overflow into a fault instead of
	 * another fiber's corrupted stack.
	 */
	r.stride = (size_t)pg + STACK_BYTES;
	r.maplen = r.stride * block;
	r.map = (char *)mmap(NULL, r.maplen, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r.map == MAP_FAILED)
		fail("kernel %s: cannot map %zu bytes of thread stacks",
		    kernel, r.maplen);
#ifdef __SANITIZE_ADDRESS__
	/* No poison left over from whatever used these pages before. */
	__asan_unpoison_memory_region(r.map, r.maplen);
#endif
	r.fib = (fiber *)calloc(block, sizeof(fiber));
	r.shared = shmem > 0 ? malloc(shmem) : NULL;
	if (r.fib == NULL || (shmem > 0 && r.shared == NULL))
		fail("kernel %s: out of host memory", kernel);
	for (t = 0; t < block; t++) {
		if (mprotect(r.map + t * r.stride, (size_t)pg, PROT_NONE) != 0)
			fail("kernel %s: mprotect failed", kernel);
		/*
		 * getcontext() once: makecontext() may remake a context that
		 * swapcontext() saved into, and saves a system call per
		 * thread and block.
		 */
		if (getcontext(&r.fib[t].uc) != 0)
			fail("kernel %s: getcontext failed", kernel);
	}
	active = &r;
	gdim = dim3(grid);
	bdim = dim3(block);
	bid.y = bid.z = tid.y = tid.z = 0;
	for (b = 0; b < grid; b++) {
		bid.x = b;
		if (shmem > 0)
			memset(r.shared, 0xff, shmem);
		for (t = 0; t < block; t++) {
			r.fib[t].uc.uc_stack.ss_sp = stack_of(&r, t);
			r.fib[t].uc.uc_stack.ss_size = STACK_BYTES;
			r.fib[t].uc.uc_link = NULL;
			makecontext(&r.fib[t].uc, fiber_main, 0);
#ifdef __SANITIZE_ADDRESS__
			/*
			 * libasan's swapcontext() clears the shadow of the
			 * whole uc_stack it switches to, which would wipe the
			 * redzones of the frames live on a fiber resumed after
			 * a barrier (an overflow there would go unseen).  Only
			 * makecontext() reads uc_stack: hide it from then on.
			 */
			r.fib[t].uc.uc_stack.ss_size = 0;
#endif
			r.fib[t].state = F_RUN;
		}
		for (;;) {
			for (t = 0; t < block; t++)
				if (r.fib[t].state == F_RUN)
					resume(&r, t);
			nwait = ndone = 0;
			for (t = 0; t < block; t++) {
				if (r.fib[t].state == F_BARRIER)
					nwait++;
				else
					ndone++;
			}
			if (nwait == 0)
				break;
			/* Before this pass every thread was running. */
			if (ndone > 0)
				fail("kernel %s, block %u: %u thread(s) "
				    "returned while %u wait at __syncthreads() "
				    "(a divergent barrier)", kernel, b, ndone,
				    nwait);
			for (t = 0; t < block; t++)
				r.fib[t].state = F_RUN;
		}
	}
	active = NULL;
#ifdef __SANITIZE_ADDRESS__
	/*
	 * The last frame of each fiber was left, not returned from: clear
	 * its poison, or the next user of these pages would trip on it.
	 */
	__asan_unpoison_memory_region(r.map, r.maplen);
#endif
	munmap(r.map, r.maplen);
	free(r.fib);
	free(r.shared);
}

/*
 * A launch keeps its arguments by value, converted to the kernel's
 * parameter types, as a real one does; each thread gets its own copy.
 */
template <typename... P>
struct launch {
	void			(*kernel)(P...);
	std::tuple<P...>	args;

	static void
	body(const void *self)
	{
		const launch *l = static_cast<const launch *>(self);

		std::apply(l->kernel, l->args);
	}

	template <size_t... I>
	void
	check(const char *name, std::index_sequence<I...>) const
	{
		(void)name;
		(check_one(name, I, std::get<I>(args)), ...);
	}
};

template <typename... P>
struct launcher {
	void		(*kernel)(P...);
	const char	*name;
	unsigned	 grid;
	unsigned	 block;
	size_t		 shmem;

	void
	operator()(P... a) const
	{
		if (block == 0 || block > MAX_THREADS || grid == 0 ||
		    grid > 0x7fffffffu || shmem > MAX_DYN_SHARED) {
			last_error = cudaErrorInvalidValue;
			return;
		}
		launch<P...> l{kernel, std::tuple<P...>(a...)};

		l.check(name, std::index_sequence_for<P...>{});
		execute(name, grid, block, shmem, &launch<P...>::body, &l);
	}
};

template <typename... P>
inline launcher<P...>
make_launcher(void (*kernel)(P...), const char *name, unsigned grid,
    unsigned block, size_t shmem)
{
	return launcher<P...>{kernel, name, grid, block, shmem};
}

} /* namespace cuda_emu */

/* Read-only, as on a GPU: a kernel cannot assign to them. */
inline const uint3	&threadIdx = cuda_emu::tid;
inline const uint3	&blockIdx = cuda_emu::bid;
inline const dim3	&blockDim = cuda_emu::bdim;
inline const dim3	&gridDim = cuda_emu::gdim;

/* Under nvcc: kernel<<<grid, block, shmem>>>(args...). */
#define CUDA_LAUNCH(kernel, grid, block, shmem)				\
	::cuda_emu::make_launcher((kernel), #kernel, (grid), (block),	\
	    (shmem))
/* Under nvcc: extern __shared__ type name[]. */
#define CUDA_DYNAMIC_SHARED(type, name)					\
	type *const name = static_cast<type *>(::cuda_emu::dyn_shared())

/* The calling fiber waits until every thread of its block is here. */
inline void
__syncthreads(void)
{
	cuda_emu::run *r = cuda_emu::active;
	cuda_emu::fiber *f;

	if (r == NULL)
		cuda_emu::fail("__syncthreads() outside a kernel");
	f = &r->fib[r->cur];
	f->state = cuda_emu::F_BARRIER;
#ifdef __SANITIZE_ADDRESS__
	void *fake = NULL;

	__sanitizer_start_switch_fiber(&fake, r->sched_bottom,
	    r->sched_size);
#endif
	if (swapcontext(&f->uc, &r->sched) != 0)
		cuda_emu::fail("swapcontext failed");
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_finish_switch_fiber(fake, &r->sched_bottom,
	    &r->sched_size);
#endif
}

inline const char *
cudaGetErrorString(cudaError_t e)
{
	switch (e) {
	case cudaSuccess:
		return "no error";
	case cudaErrorInvalidValue:
		return "invalid argument";
	case cudaErrorMemoryAllocation:
		return "out of memory";
	case cudaErrorInsufficientDriver:
		return "CUDA driver version is insufficient for CUDA runtime "
		    "version";
	case cudaErrorNoDevice:
		return "no CUDA-capable device is detected";
	case cudaErrorInvalidDevice:
		return "invalid device ordinal";
	case cudaErrorLaunchFailure:
		return "unspecified launch failure";
	}
	return "unrecognized error code";
}

/* Returns the last error of any call, and clears it. */
inline cudaError_t
cudaGetLastError(void)
{
	cudaError_t e = cuda_emu::last_error;

	cuda_emu::last_error = cudaSuccess;
	return e;
}

inline cudaError_t
cudaGetDeviceCount(int *count)
{
	if (count == NULL)
		return cuda_emu::ret(cudaErrorInvalidValue);
	if (getenv("RLADV_EMU_NODEV") != NULL) {
		*count = 0;
		return cuda_emu::ret(cudaErrorNoDevice);
	}
	*count = 1;
	return cudaSuccess;
}

inline cudaError_t
cudaGetDeviceProperties(struct cudaDeviceProp *prop, int dev)
{
	if (prop == NULL)
		return cuda_emu::ret(cudaErrorInvalidValue);
	if (dev != 0)
		return cuda_emu::ret(cudaErrorInvalidDevice);
	memset(prop, 0, sizeof(*prop));
	snprintf(prop->name, sizeof(prop->name), "%s",
	    "rladv CUDA emulator (CPU)");
	prop->totalGlobalMem = cuda_emu::MAX_ALLOC;
	prop->sharedMemPerBlock = cuda_emu::MAX_DYN_SHARED;
	prop->warpSize = 32;
	prop->maxThreadsPerBlock = (int)cuda_emu::MAX_THREADS;
	prop->multiProcessorCount = 1;
	prop->major = 9;
	prop->minor = 0;
	return cudaSuccess;
}

inline cudaError_t
cudaSetDevice(int dev)
{
	return dev == 0 ? cudaSuccess : cuda_emu::ret(cudaErrorInvalidDevice);
}

inline cudaError_t
cudaDeviceSynchronize(void)
{
	/* Launches finish before they return: nothing is pending. */
	return cudaSuccess;
}

inline cudaError_t
cudaMalloc(void **p, size_t size)
{
	const char *s;
	char *end;
	unsigned long long lim = ~0ULL;
	void *m;

	if (p == NULL)
		return cuda_emu::ret(cudaErrorInvalidValue);
	*p = NULL;
	if (size == 0)
		return cudaSuccess;	/* as the runtime: NULL, no error */
	if ((s = getenv("RLADV_EMU_MEMLIMIT")) != NULL) {
		lim = strtoull(s, &end, 10);
		if (end == s || *end != '\0')
			cuda_emu::fail("RLADV_EMU_MEMLIMIT=%s is not a number "
			    "of bytes", s);
	}
	if (size > cuda_emu::MAX_ALLOC || size > lim ||
	    cuda_emu::live_bytes > lim - size)
		return cuda_emu::ret(cudaErrorMemoryAllocation);
	if ((m = malloc(size)) == NULL)
		return cuda_emu::ret(cudaErrorMemoryAllocation);
	/* NaN doubles: what no kernel wrote reads as NaN, not as 0. */
	memset(m, 0xff, size);
	cuda_emu::allocs()[(uintptr_t)m] = size;
	cuda_emu::live_bytes += size;
	*p = m;
	return cudaSuccess;
}

/* The runtime's typed overload, for T ** without a cast. */
template <typename T>
inline cudaError_t
cudaMalloc(T **p, size_t size)
{
	return cudaMalloc(reinterpret_cast<void **>(p), size);
}

inline cudaError_t
cudaFree(void *p)
{
	std::map<uintptr_t, size_t> &m = cuda_emu::allocs();
	auto it = m.find((uintptr_t)p);
	void *base;

	if (p == NULL)
		return cudaSuccess;
	if (it == m.end())
		cuda_emu::fail("cudaFree(%p): not the start of a live device "
		    "allocation", p);
	/* The map's own pointer: what malloc() returned, visibly so. */
	base = (void *)it->first;
	cuda_emu::live_bytes -= it->second;
	m.erase(it);
	free(base);
	return cudaSuccess;
}

inline cudaError_t
cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	if (n == 0)
		return cudaSuccess;
	switch (kind) {
	case cudaMemcpyHostToDevice:
		if (!cuda_emu::inside(dst, n))
			cuda_emu::fail("cudaMemcpy host to device: destination "
			    "%p (%zu bytes) is not inside one device "
			    "allocation", dst, n);
		if (src == NULL || cuda_emu::touches(src, n))
			cuda_emu::fail("cudaMemcpy host to device: source %p "
			    "(%zu bytes) is not host memory", src, n);
		break;
	case cudaMemcpyDeviceToHost:
		if (!cuda_emu::inside(src, n))
			cuda_emu::fail("cudaMemcpy device to host: source %p "
			    "(%zu bytes) is not inside one device allocation",
			    src, n);
		if (dst == NULL || cuda_emu::touches(dst, n))
			cuda_emu::fail("cudaMemcpy device to host: destination "
			    "%p (%zu bytes) is not host memory", dst, n);
		break;
	default:
		cuda_emu::fail("cudaMemcpy: unknown direction %d", (int)kind);
	}
	memcpy(dst, src, n);
	return cudaSuccess;
}

inline cudaError_t
cudaMemset(void *p, int value, size_t n)
{
	if (n == 0)
		return cudaSuccess;
	if (!cuda_emu::inside(p, n))
		cuda_emu::fail("cudaMemset(%p, %d, %zu): not inside one device "
		    "allocation", p, value, n);
	memset(p, value, n);
	return cudaSuccess;
}

#endif /* RLADV_CUDA_EMU_RUNTIME_H */
