/*
 * bench/spin.c N - N threads share one fixed amount of arithmetic (each
 * adds up 1/N of the loop); prints the seconds it took.  make bench times
 * it with 1 and with N threads in the same rounds as rladv -j 1 and -j N:
 * the ratio is what N cores gave to perfectly parallel work at that
 * moment, so on a machine shared with others it bounds what -j N can get.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LOOPS	600000000UL
#define MAXT	256

static void *
spin(void *arg)
{
	volatile unsigned long x = 0;
	unsigned long i, n = *(unsigned long *)arg;

	for (i = 0; i < n; i++)
		x += i;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[MAXT];
	struct timespec a, b;
	unsigned long share;
	int n = argc > 1 ? atoi(argv[1]) : 1, i;

	if (n < 1 || n > MAXT)
		n = 1;
	share = LOOPS / n;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, spin, &share);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.4f\n", (double)(b.tv_sec - a.tv_sec) +
	    (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
