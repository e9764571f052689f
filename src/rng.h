/*
 * rng.h - the seeded stream that rladv's random choices draw from
 * (splitmix64): small, fast, and the same numbers on every platform, so
 * that a seed reproduces a run.  Pure functions on the caller's state;
 * nothing to own.
 */
#ifndef RLADV_RNG_H
#define RLADV_RNG_H

#include <stdint.h>

/* splitmix64's finalizer: mixes a seed (or a seed and a key) well. */
static inline uint64_t
rng_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t
rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ULL;
	return rng_mix64(*s);
}

/*
 * Uniform in [0, n), n >= 1, without bias.  n == 1 draws nothing, so that
 * a degenerate choice does not shift the stream.  Below 2^32 this is
 * Lemire's multiply-and-reject, which divides only on the rare rejection
 * path (the hot loop of sampled MS-GRPO draws here); above, the plain
 * modulo with rejection.
 */
static inline uint64_t
rng_below(uint64_t *s, uint64_t n)
{
	uint64_t x, lim, m;
	uint32_t lo, t;

	if (n <= 1)
		return 0;
	if (n <= UINT32_MAX) {
		m = (rng_next(s) >> 32) * n;
		lo = (uint32_t)m;
		if (lo < n) {
			t = (uint32_t)(0 - (uint32_t)n) % (uint32_t)n;
			while (lo < t) {
				m = (rng_next(s) >> 32) * n;
				lo = (uint32_t)m;
			}
		}
		return m >> 32;
	}
	lim = (0 - n) % n;	/* 2^64 mod n */
	do
		x = rng_next(s);
	while (x < lim);
	return x % n;
}

#endif
