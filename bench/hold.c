/*
 * hold.c - reads standard input into memory and keeps all of it, as a
 * batch's lines are kept until the batch's numbers are known, and does
 * nothing else: what reading a pipe costs before any parsing, the floor
 * under "cat file | rladv" (make bench's pipe row).
 *
 * Blocks of 4 MiB, each fresh memory, like a reader's blocks while a whole
 * batch is held.  Prints the byte count on standard error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BLOCK	(4u << 20)

int
main(void)
{
	char **block = NULL, **nb;
	size_t nblocks = 0, got, total = 0;
	ssize_t k;

	for (;;) {
		if ((nb = realloc(block, (nblocks + 1) * sizeof(*block))) == NULL ||
		    (nb[nblocks] = malloc(BLOCK)) == NULL) {
			perror("hold");
			return 1;
		}
		block = nb;
		for (got = 0; got < BLOCK; got += (size_t)k)
			if ((k = read(0, block[nblocks] + got, BLOCK - got)) <= 0)
				break;
		nblocks++;
		total += got;
		if (got < BLOCK) {
			if (k < 0) {
				perror("hold: read");
				return 1;
			}
			break;
		}
	}
	fprintf(stderr, "%zu bytes in %zu blocks\n", total, nblocks);
	return 0;
}
