/*
 * numfmt.c - numbers formatted as printf's "%.*g" formats them, without
 * printf.
 *
 * A token array repeats one number, but a group's advantages are new
 * numbers, and snprintf() took a twentieth of the time of a record of 20
 * tokens (some 2000 instructions a number).  The digits here are exact
 * (integer arithmetic on the double's own bits), so the bytes are
 * printf's; where they cannot be had so (|v| far from 1, more than 15
 * digits, or a tie, which printf rounds its own way), the caller asks
 * printf.
 */
#include <math.h>
#include <stdint.h>

#include "numfmt.h"

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/*
 * The P digits of |v| = M * 2^E rounded, exactly, as an integer in
 * [10^(P-1), 10^P) with X its decimal exponent: M * 10^e * 2^E with e =
 * P-1-X, in 128 bits (M < 2^53, 10^e < 2^74 for e <= 22).  Returns 0 when
 * that does not fit (|v| far from 1), or on a tie, which printf rounds
 * its own way: printf then formats it.
 */
static int
g_digits(double v, int P, uint64_t *digits, int *X)
{
	static const uint64_t p10[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
		100000000, 1000000000, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL
	};
	u128 n, q, rem, half;
	uint64_t m;
	int b, e, sh, tries;

	m = (uint64_t)ldexp(fabs(frexp(v, &b)), 53);
	sh = 53 - b;		/* |v| = m / 2^sh */
	*X = (int)floor((b - 1) * 0.30102999566398120);
	for (tries = 0; tries < 3; tries++) {
		e = P - 1 - *X;
		if (e < 0 || e > 22 || sh <= 0 || sh > 127)
			return 0;
		n = (u128)m * p10[e > 19 ? 19 : e];
		if (e > 19)
			n *= p10[e - 19];
		q = n >> sh;
		if (q < p10[P - 1])
			(*X)--;
		else if (q >= p10[P])
			(*X)++;
		else
			break;
	}
	if (tries == 3)
		return 0;
	rem = n & (((u128)1 << sh) - 1);
	half = (u128)1 << (sh - 1);
	if (rem == half)
		return 0;
	if (rem > half && ++q == p10[P]) {
		q = p10[P - 1];
		(*X)++;
	}
	*digits = (uint64_t)q;
	return 1;
}
#endif

size_t
numfmt_g(double v, int P, char *buf)
{
#ifdef __SIZEOF_INT128__
	uint64_t m;
	char d[16], *o = buf;
	int X, i, nd;

	if (P < 1 || P > 15 || !g_digits(v, P, &m, &X))
		return 0;
	for (i = P - 1; i >= 0; i--, m /= 10)
		d[i] = (char)('0' + m % 10);
	for (nd = P; nd > 1 && d[nd - 1] == '0'; nd--)
		;
	if (v < 0)
		*o++ = '-';
	if (X < -4 || X >= P) {
		*o++ = d[0];
		if (nd > 1)
			*o++ = '.';
		for (i = 1; i < nd; i++)
			*o++ = d[i];
		*o++ = 'e';
		*o++ = X < 0 ? '-' : '+';
		X = X < 0 ? -X : X;
		if (X >= 100)
			*o++ = (char)('0' + X / 100);
		*o++ = (char)('0' + X / 10 % 10);
		*o++ = (char)('0' + X % 10);
	} else if (X >= 0) {
		for (i = 0; i <= X; i++)
			*o++ = d[i];
		if (nd > X + 1)
			*o++ = '.';
		for (; i < nd; i++)
			*o++ = d[i];
	} else {
		*o++ = '0';
		*o++ = '.';
		for (i = X + 1; i < 0; i++)
			*o++ = '0';
		for (i = 0; i < nd; i++)
			*o++ = d[i];
	}
	*o = '\0';
	return (size_t)(o - buf);
#else
	(void)v;
	(void)P;
	(void)buf;
	return 0;
#endif
}

