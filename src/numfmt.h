/*
 * numfmt.h - "%.*g" without printf, into a buffer the caller owns.
 */
#ifndef RLADV_NUMFMT_H
#define RLADV_NUMFMT_H

#include <stddef.h>

/*
 * Writes what snprintf(buf, 32, "%.*g", P, v) writes, v finite and not 0,
 * NUL included, and returns its length; or returns 0 and writes nothing
 * when it cannot be sure of the digits (then use snprintf).
 */
size_t	numfmt_g(double v, int P, char *buf);

#endif
